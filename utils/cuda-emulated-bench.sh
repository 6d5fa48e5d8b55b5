#!/bin/bash
#===- utils/cuda-emulated-bench.sh - bench models, CUDA emulated vs CPU ---===#
#
# Runs each bench model (bench/export_models.py's exports in MODELS_DIR,
# default build/bench/models) with --target cuda through the test-only
# emulated driver and its cuBLASLt, and on the CPU with generated
# convolutions: inference, and one SGD step (lr 0.05, seed 5); prints the
# emulated run's time and compare_npz.py's verdict for each (inference
# rtol 1e-4 atol 1e-5, parameters rtol 1e-4 atol 1e-6). Slow: ResNet-18's
# and MobileNetV2's training steps take minutes each in emulation.
#
#   utils/cuda-emulated-bench.sh [MODELS_DIR [CASE...]]
#
# CASE is one of resnet18_b1 resnet18_b8 mobilenet_v2_b8 gpt_12 gpt_tiny
# mlp_wide mlp_digits cnn_small (default: all). Needs a build with the
# emulator (build/lib/libnnc_cuda_emulator.so).
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
models=${1:-$root/build/bench/models}
shift || true
cases=("$@")
[[ ${#cases[@]} -gt 0 ]] || cases=(resnet18_b1 resnet18_b8 mobilenet_v2_b8
  gpt_12 gpt_tiny mlp_wide mlp_digits cnn_small)
run=$root/build/bin/nnc-run
emulator=$root/build/lib/libnnc_cuda_emulator.so
[[ -x $run && -f $emulator ]] || {
  echo "cuda-emulated-bench: build nnc (with its tests) first" >&2
  exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NNC_EMULATOR_CACHE=$work/emu
for case in "${cases[@]}"; do
  model=${case%_b[0-9]*}
  [[ -f $models/$model.onnx && -f $models/$case.npz ]] || {
    echo "cuda-emulated-bench: no $models/$model.onnx or $case.npz" >&2
    exit 1
  }
  # The input's name and batch; the trainer takes labels per sample.
  read -r input batch < <(/usr/bin/python3 - "$models/$case.npz" "$work" "$case" <<'PY'
import sys, numpy as np
d = dict(np.load(sys.argv[1]))
name = next(k for k in d if k != "labels")
labels = d["labels"]
if labels.shape[0] != d[name].shape[0]:
    labels = labels.reshape(d[name].shape[0], -1)
np.savez("%s/%s-in.npz" % (sys.argv[2], sys.argv[3]), **{name: d[name]})
np.savez("%s/%s-train.npz" % (sys.argv[2], sys.argv[3]),
         **{name: d[name], "labels": labels})
print(name, d[name].shape[0])
PY
)
  echo "== $case"
  "$run" "$models/$model.onnx" --inputs "$work/$case-in.npz" --cache-dir= \
    --no-library-kernels --output "$work/cpu.npz" > /dev/null
  start=$(date +%s)
  NNC_CUDA_DRIVER=$emulator "$run" "$models/$model.onnx" --target cuda \
    --inputs "$work/$case-in.npz" --cache-dir= --output "$work/cuda.npz" > /dev/null
  echo "inference, emulated in $(($(date +%s) - start)) s: $(/usr/bin/python3 \
    "$root/test/Training/compare_npz.py" "$work/cuda.npz" "$work/cpu.npz" \
    --rtol 1e-4 --atol 1e-5 | tail -1)"
  step=(train "$models/$model.onnx" --data "$work/$case-train.npz"
    --batch-size "$batch" --steps 1 --optimizer sgd --lr 0.05 --seed 5
    --cache-dir= --quiet)
  "$run" "${step[@]}" --no-library-kernels --save-params "$work/tcpu.npz" > /dev/null
  start=$(date +%s)
  NNC_CUDA_DRIVER=$emulator "$run" "${step[@]}" --target cuda \
    --save-params "$work/tcuda.npz" > /dev/null
  echo "training step, emulated in $(($(date +%s) - start)) s: $(/usr/bin/python3 \
    "$root/test/Training/compare_npz.py" "$work/tcuda.npz" "$work/tcpu.npz" \
    --rtol 1e-4 --atol 1e-6 | tail -1)"
done
