#!/usr/bin/env bash
#===- utils/setup.sh - install what is missing, configure and build -------===#
#
# Usage: utils/setup.sh [--sanitize] [--no-build]
#
# Installs nnc's build and test dependencies from Debian's packages when they
# are missing (idempotent: nothing is fetched when all are present), then
# configures with CMake/Ninja against the shared libMLIR.so/libLLVM.so and
# builds. The build directory is $NNC_BUILD_DIR (default: build, or
# build-asan with --sanitize, which builds with ASan and UBSan, and the
# libFuzzer targets too, so that one tree serves the sanitizer suite and the
# fuzzers).
#
#===----------------------------------------------------------------------===#
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sanitize=OFF
build=1
for arg in "$@"; do
  case "$arg" in
    --sanitize) sanitize=ON ;;
    --no-build) build=0 ;;
    -h|--help) sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

packages=(
  # compiler infrastructure: LLVM/MLIR 22 with lit and FileCheck, clang for
  # sanitizer and fuzzer builds
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  clang-22 libclang-rt-22-dev
  # the CPU backend: lld links kernels into shared objects in process; the
  # OpenMP runtime runs them on every core; OpenBLAS does their large GEMMs
  liblld-22-dev libomp-22-dev libopenblas0-pthread
  # oneDNN, for convolutions and their gradients (the runtime's glue links it)
  libdnnl-dev
  # Gloo, the CPU collectives of data-parallel training (the runtime's glue
  # links it)
  libgloo-dev
  # build tools
  cmake ninja-build ccache
  # ONNX schema and test data, protobuf
  protobuf-compiler libprotobuf-dev libonnx-dev libonnx-testdata
  # tests; PyTorch exports the bench models that the emulated CUDA checks
  # run (test/Target/CUDA/emulated-bench-models.test)
  libgtest-dev python3 python3-numpy python3-torch python3-onnx
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup.sh: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
    --no-install-recommends "${missing[@]}"
fi

llvm_prefix=/usr/lib/llvm-22
build_dir=${NNC_BUILD_DIR:-$root/build}
if [[ $sanitize == ON && -z "${NNC_BUILD_DIR:-}" ]]; then
  build_dir=$root/build-asan
fi

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
# Paths inside the checkout are hashed relative to the build folder, so that
# another clone of the same sources (CI's, a worktree) reuses the objects.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
cmake -S "$root" -B "$build_dir" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$llvm_prefix/bin/clang" \
  -DCMAKE_CXX_COMPILER="$llvm_prefix/bin/clang++" \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DMLIR_DIR="$llvm_prefix/lib/cmake/mlir" \
  -DLLVM_DIR="$llvm_prefix/lib/cmake/llvm" \
  -DNNC_ENABLE_SANITIZERS=$sanitize \
  -DNNC_BUILD_FUZZERS=$sanitize > "$build_dir.configure.log" 2>&1 || {
  cat "$build_dir.configure.log" >&2
  echo "setup.sh: configuring $build_dir failed" >&2
  exit 1
}
grep -E "CUDA device|Using MLIR" "$build_dir.configure.log" || true

if ((build)); then
  cmake --build "$build_dir"
fi
