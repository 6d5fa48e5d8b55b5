#!/usr/bin/env bash
#===- utils/gpu-check.sh - the CUDA backend on a GPU, in one command -----===#
#
# The CUDA target compiled here (NVRTC needs no GPU), run on a machine with
# a GPU that has only the runtime's sources: a GPU machine lent to this work
# has no LLVM/MLIR to build nnc with, so the compiler stays here and the
# runtime (C++ alone) is built there.
#
#   utils/gpu-check.sh prepare [DIR]   here, with nnc built (build/):
#       compiles into DIR (default build/gpu-check) the digits CNN's
#       inference and the digits CNN's and char GPT's training steps, in
#       f32 and with --amp bf16, for --target cuda (executables and
#       untrained saved trainers), and the same for the CPU, and writes the
#       CPU's results as references.
#   utils/gpu-check.sh run [DIR]       on the GPU machine, from the
#       repository's root: builds libnnc_runtime (cmake -S runtime) and the
#       runner (utils/gpu-check/runner.c), runs everything on the GPU,
#       compares with the CPU's references, times it, and writes
#       DIR/results.txt. Exit status 1 when a comparison fails.
#
# With the device tool: prepare here, then run
#   utils/gpu-check.sh run build/gpu-check      carrying build/gpu-check.
#
# Environment:
#   NNC_BUILD_DIR           the nnc build prepare uses (default build)
#   NNC_GPU_CHECK_MODELS    "digits gpt" (default) or a part of it
#   NNC_GPU_CHECK_STEPS     training steps timed per model (default 200)
#   NNC_GPU_CHECK_INFER_RUNS  inference runs timed (default 100)
#   NNC_GPU_CHECK_TORCH_DEVICE  the device PyTorch's steps run on (default
#                           cuda): run times them with
#                           utils/gpu-check/torch_steps.py (eager,
#                           torch.compile, reduce-overhead) where a python3
#                           has torch
#   NNC_GPU_CHECK_RUNTIME   run: a build holding lib/libnnc_runtime.so to
#                           use instead of building one (a dry run here)
#   NNC_CUBLASLT            the cuBLASLt to open (the runtime's own
#                           variable); run takes PyTorch's copy where the
#                           machine has no other
#   NNC_CUDA_DRIVER         the CUDA driver to open (the runtime's own
#                           variable); prepare uses the emulated driver when
#                           this machine has no libcuda, since compiling a
#                           trainer for a device loads it there
#
#===----------------------------------------------------------------------===#
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=${1:-}
dir=${2:-$root/build/gpu-check}
models=${NNC_GPU_CHECK_MODELS:-digits gpt}
steps=${NNC_GPU_CHECK_STEPS:-200}
infer_runs=${NNC_GPU_CHECK_INFER_RUNS:-100}
# A Python with NumPy (the comparisons and the data need it).
python=
for p in /usr/bin/python3 python3; do
  if "$p" -c 'import numpy' 2> /dev/null; then
    python=$p
    break
  fi
done

usage() {
  sed -n '/^#   utils\/gpu-check.sh prepare/,/^#===/p' "${BASH_SOURCE[0]}" |
    sed 's/^# \{0,1\}//;/^===/d' >&2
  exit 2
}
[[ $mode == prepare || $mode == run ]] || usage
case $steps in '' | *[!0-9]*) echo "gpu-check: NNC_GPU_CHECK_STEPS must be a number >= 2, not '$steps'" >&2; exit 2 ;; esac
((steps >= 2)) || { echo "gpu-check: NNC_GPU_CHECK_STEPS must be >= 2, not $steps" >&2; exit 2; }
case $infer_runs in '' | *[!0-9]*) echo "gpu-check: NNC_GPU_CHECK_INFER_RUNS must be a number, not '$infer_runs'" >&2; exit 2 ;; esac
[[ -n $python ]] || { echo "gpu-check: no python3 with NumPy here (/usr/bin/python3, python3)" >&2; exit 1; }
for m in $models; do
  [[ $m == digits || $m == gpt ]] || {
    echo "gpu-check: unknown model '$m' in NNC_GPU_CHECK_MODELS (digits, gpt)" >&2
    exit 2
  }
done
has() { [[ " $models " == *" $1 "* ]]; }

# The runner, built against the runtime in $1 (lib/libnnc_runtime.so).
build_runner() {
  local runtime=$1 out=$2
  cc -std=c11 -O2 -Wall -I "$root/include" "$root/utils/gpu-check/runner.c" \
    -L "$runtime/lib" -lnnc_runtime -Wl,-rpath,"$runtime/lib" -o "$out"
}

#===----------------------------------------------------------------------===#
# prepare
#===----------------------------------------------------------------------===#
if [[ $mode == prepare ]]; then
  build=${NNC_BUILD_DIR:-$root/build}
  nnc_run=$build/bin/nnc-run
  [[ -x $nnc_run ]] || {
    echo "gpu-check: $nnc_run is not built; run utils/setup.sh first" >&2
    exit 1
  }
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [[ -z ${NNC_CUDA_DRIVER:-} ]] && ! ldconfig -p | grep -q 'libcuda\.so\.1'; then
    export NNC_CUDA_DRIVER=$build/lib/libnnc_cuda_emulator.so
    export NNC_EMULATOR_CXX=${NNC_EMULATOR_CXX:-/usr/lib/llvm-22/bin/clang++}
    export NNC_EMULATOR_CACHE=${NNC_EMULATOR_CACHE:-$build/cuda-emulator-cache}
    [[ -f $NNC_CUDA_DRIVER ]] || {
      echo "gpu-check: no libcuda here and no emulated driver at $NNC_CUDA_DRIVER" >&2
      exit 1
    }
  fi
  build_runner "$build" "$dir/runner-here"
  common=(--cache-dir= --progress none --batch-size 32 --drop-last)
  # train_references NAME: the CPU trainer NAME-train-cpu.nncx on
  # NAME-train.npz: its parameters after 3 steps, and after the timed steps
  # with its times.
  # (NAME-bf16 trains on NAME's data.)
  train_references() {
    local data=$dir/${1%-bf16}-train.npz
    "$dir/runner-here" train "$dir/$1-train-cpu.nncx" "$data" \
      32 3 "$dir/ref-$1-train-3.npz" > /dev/null
    "$dir/runner-here" train "$dir/$1-train-cpu.nncx" "$data" \
      32 "$steps" "$dir/ref-$1-train-long.npz" | tee "$dir/ref-$1-train-long.txt"
  }
  {
    echo "prepared $(date -u +%Y-%m-%dT%H:%M:%SZ) from $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "models: $models; timed steps: $steps"
  } > "$dir/prepared.txt"

  if has digits; then
    echo "== digits CNN: inference and training step, cuda and cpu"
    "$python" - "$root/examples/digits/test.npz" "$dir" <<'EOF'
import sys, numpy as np
d = np.load(sys.argv[1])
image = d["image"][:256].astype(np.float32)
np.save(sys.argv[2] + "/digits-image.npy", image)
np.savez(sys.argv[2] + "/digits-in.npz", image=image)
EOF
    model=$root/examples/digits/cnn.onnx
    for target in cuda cpu; do
      "$nnc_run" "$model" --input "image=$dir/digits-image.npy" --target $target \
        --cache-dir= --save-compiled "$dir/digits-infer-$target.nncx" > /dev/null
      # The CPU's step with generated convolutions, as the CUDA target has.
      extra=()
      [[ $target == cpu ]] && extra=(--no-library-kernels)
      "$nnc_run" train "$model" --data "$root/examples/digits/train.npz" \
        --steps 0 --target $target "${extra[@]}" "${common[@]}" \
        --save-trainer "$dir/digits-train-$target.nncx" > /dev/null
      # Mixed precision: matrix products and convolutions in bf16.
      "$nnc_run" train "$model" --data "$root/examples/digits/train.npz" \
        --steps 0 --target $target --amp bf16 "${extra[@]}" "${common[@]}" \
        --save-trainer "$dir/digits-bf16-train-$target.nncx" > /dev/null
    done
    "$dir/runner-here" infer "$dir/digits-infer-cpu.nncx" "$dir/digits-in.npz" \
      "$dir/ref-digits-infer.npz" 0 > /dev/null
    cp "$root/examples/digits/train.npz" "$dir/digits-train.npz"
    train_references digits
    train_references digits-bf16
  fi

  if has gpt; then
    echo "== char GPT: training step, cuda and cpu"
    "$python" "$root/utils/prepare_chargpt_data.py" --out-dir "$dir/gpt-data" \
      --train-samples 8192 --val-samples 64 > /dev/null
    cp "$dir/gpt-data/train.npz" "$dir/gpt-train.npz"
    rm -rf "$dir/gpt-data"
    for target in cuda cpu; do
      for amp in off bf16; do
        name=gpt
        [[ $amp == bf16 ]] && name=gpt-bf16
        "$nnc_run" train "$root/examples/chargpt/model.onnx" --data "$dir/gpt-train.npz" \
          --steps 0 --target $target --amp $amp "${common[@]}" \
          --save-trainer "$dir/$name-train-$target.nncx" > /dev/null
      done
    done
    train_references gpt
    train_references gpt-bf16
  fi
  rm -f "$dir/runner-here"
  echo "prepared $dir ($(du -sh "$dir" | cut -f1)); on the GPU machine: utils/gpu-check.sh run ${dir#$root/}"
  exit 0
fi

#===----------------------------------------------------------------------===#
# run
#===----------------------------------------------------------------------===#
[[ -f $dir/prepared.txt ]] || {
  echo "gpu-check: $dir holds nothing prepared; run 'utils/gpu-check.sh prepare' where nnc is built" >&2
  exit 1
}
dir=$(cd "$dir" && pwd)
results=$dir/results.txt
started=$SECONDS
runtime=${NNC_GPU_CHECK_RUNTIME:-}
if [[ -z $runtime ]]; then
  runtime=$dir/runtime-build
  generator=()
  command -v ninja > /dev/null && generator=(-G Ninja)
  cmake -S "$root/runtime" -B "$runtime" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DNNC_RUNTIME_BUILD_TESTS=OFF \
    -DCMAKE_LIBRARY_OUTPUT_DIRECTORY="$runtime/lib" > "$dir/runtime-build.log" 2>&1 ||
    { cat "$dir/runtime-build.log" >&2; exit 1; }
  cmake --build "$runtime" --target nnc_runtime -j "$(nproc)" >> "$dir/runtime-build.log" 2>&1 ||
    { tail -50 "$dir/runtime-build.log" >&2; exit 1; }
fi
[[ -f $runtime/lib/libnnc_runtime.so ]] || {
  echo "gpu-check: no $runtime/lib/libnnc_runtime.so" >&2
  exit 1
}
runner=$dir/runner
build_runner "$runtime" "$runner"

# The executables' matrix products run in cuBLASLt. Where neither the
# loader nor the toolkit has it, PyTorch's own copy (its nvidia-cublas
# wheel) serves: the calls the runtime makes are the same in CUDA 12 and 13.
# (Under the emulated driver the runtime takes the emulator's instead.)
if [[ -z ${NNC_CUBLASLT:-} && -z ${NNC_CUDA_DRIVER:-} ]] &&
  ! ldconfig -p | grep -q 'libcublasLt\.so' &&
  ! ls /usr/local/cuda/lib64/libcublasLt.so.1[23] > /dev/null 2>&1; then
  wheel=$("$python" -c 'import nvidia.cublas, os; print(os.path.join(list(nvidia.cublas.__path__)[0], "lib"))' 2>/dev/null || true)
  for candidate in "$wheel"/libcublasLt.so.13 "$wheel"/libcublasLt.so.12; do
    if [[ -n $wheel && -f $candidate ]]; then
      export NNC_CUBLASLT=$candidate
      break
    fi
  done
fi

failed=0
say() { echo "$*" | tee -a "$results"; }
# compare NAME GOT REF RTOL ATOL: one PASS/FAIL line.
compare() {
  local name=$1 got=$2 ref=$3 rtol=$4 atol=$5 out
  if out=$("$python" "$root/test/Training/compare_npz.py" "$got" "$ref" \
    --rtol "$rtol" --atol "$atol" 2>&1); then
    say "PASS $name: $(echo "$out" | tail -1) (rtol $rtol, atol $atol)"
  else
    say "FAIL $name (rtol $rtol, atol $atol):"
    echo "$out" | grep -v ' 0 of ' | sed 's/^/    /' | tee -a "$results"
    failed=1
  fi
}
# run_step NAME COMMAND...: the command's output into the results, FAIL on
# a non-zero exit.
run_step() {
  local name=$1 out
  shift
  if out=$("$@" 2>&1); then
    say "$out"
  else
    say "FAIL $name: $out"
    failed=1
    return 1
  fi
}

# train_checks NAME LABEL [RTOL ATOL]: the CUDA trainer NAME-train-cuda.nncx:
# its parameters after 3 steps against the CPU's (within RTOL and ATOL,
# default 1e-3 and 1e-5), the timed steps beside the CPU's times, and the
# same steps as CUDA graphs against launch by launch.
train_checks() {
  # (NAME-bf16 trains on NAME's data.)
  local name=$1 label=$2 trainer=$dir/$1-train-cuda.nncx data=$dir/${1%-bf16}-train.npz
  local rtol=${3:-1e-3} atol=${4:-1e-5}
  run_step "$name 3 steps" "$runner" train "$trainer" "$data" 32 3 \
    "$dir/out/$name-train-3.npz" &&
    compare "$label parameters after 3 steps, cuda vs cpu" \
      "$dir/out/$name-train-3.npz" "$dir/ref-$name-train-3.npz" "$rtol" "$atol"
  run_step "$name $steps steps" "$runner" train "$trainer" "$data" 32 "$steps" \
    "$dir/out/$name-train-long.npz" &&
    say "  cpu (where prepared): $(cat "$dir/ref-$name-train-long.txt")"
  run_step "$name $steps steps, graphs" "$runner" train "$trainer" "$data" 32 \
    "$steps" "$dir/out/$name-train-long-graph.npz" graph &&
    compare "$label parameters after $steps steps, CUDA graphs vs launch by launch" \
      "$dir/out/$name-train-long-graph.npz" "$dir/out/$name-train-long.npz" 1e-5 1e-7
}

{
  echo "gpu-check results, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  sed 's/^/  /' "$dir/prepared.txt"
  if command -v nvidia-smi > /dev/null; then
    echo "  GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)"
  else
    echo "  GPU: no nvidia-smi (driver: ${NNC_CUDA_DRIVER:-libcuda.so.1})"
  fi
  echo "  cuBLASLt: ${NNC_CUBLASLT:-libcublasLt.so.13 or .so.12 as the loader finds it, else /usr/local/cuda/lib64}"
} > "$results"
cat "$results"
mkdir -p "$dir/out"

if [[ -f $dir/digits-infer-cuda.nncx ]]; then
  run_step "digits inference" "$runner" infer "$dir/digits-infer-cuda.nncx" \
    "$dir/digits-in.npz" "$dir/out/digits-infer.npz" "$infer_runs" &&
    compare "digits inference, cuda vs cpu" "$dir/out/digits-infer.npz" \
      "$dir/ref-digits-infer.npz" 1e-4 1e-5
  # The same as a CUDA graph: recorded once, replayed.
  run_step "digits inference, graph" "$runner" infer "$dir/digits-infer-cuda.nncx" \
    "$dir/digits-in.npz" "$dir/out/digits-infer-graph.npz" "$infer_runs" graph &&
    compare "digits inference, CUDA graph vs cpu" "$dir/out/digits-infer-graph.npz" \
      "$dir/ref-digits-infer.npz" 1e-4 1e-5
  train_checks digits digits
fi
# bf16 (--amp bf16) against the CPU's bf16 steps: within bf16's rounding,
# the tolerance of test/Target/CUDA/emulated-models.test.
if [[ -f $dir/digits-bf16-train-cuda.nncx ]]; then
  train_checks digits-bf16 "digits bf16" 1e-2 2e-3
fi
if [[ -f $dir/gpt-train-cuda.nncx ]]; then
  train_checks gpt "char GPT"
fi
if [[ -f $dir/gpt-bf16-train-cuda.nncx ]]; then
  train_checks gpt-bf16 "char GPT bf16" 1e-2 2e-3
fi

# PyTorch on the same steps, where this machine's Python has it.
torch_python=
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import numpy, torch' 2> /dev/null; then
    torch_python=$p
    break
  fi
done
torch_models=
[[ -f $dir/digits-train.npz ]] && torch_models=digits
[[ -f $dir/gpt-train.npz ]] && torch_models=${torch_models:+$torch_models,}gpt
if [[ -z $torch_python ]]; then
  say "PyTorch: not installed here (python3, /usr/bin/python3); no PyTorch figures"
elif [[ -n $torch_models ]]; then
  # PyTorch's own failures (a torch.compile without its compiler) are
  # lines of the results, not failures of nnc's check.
  say "$("$torch_python" "$root/utils/gpu-check/torch_steps.py" "$dir" "$steps" \
    --device "${NNC_GPU_CHECK_TORCH_DEVICE:-cuda}" --models "$torch_models" 2>&1 |
    grep -v '^\s*$' || true)"
fi
say "took $((SECONDS - started)) s; $([[ $failed == 0 ]] && echo "all passed" || echo "FAILURES above")"
exit $failed
