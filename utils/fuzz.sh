#!/usr/bin/env bash
#===- utils/fuzz.sh - fuzz the ONNX importer -------------------------------===#
#
# Usage: utils/fuzz.sh [SECONDS] [extra libFuzzer flags...]   (SECONDS 0: no time limit)
#
# Builds build-fuzz (clang, libFuzzer coverage, ASan) and runs the ONNX
# importer fuzzer for SECONDS (default 600) on one core, with a corpus seeded
# from the ONNX backend test models (libonnx-testdata). Crashes land in
# build-fuzz/crashes/. Exits non-zero if the fuzzer found one.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-600}
shift || true
build_dir=$root/build-fuzz

"$root/utils/setup.sh" --no-build
cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=/usr/lib/llvm-22/bin/clang \
  -DCMAKE_CXX_COMPILER=/usr/lib/llvm-22/bin/clang++ \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DNNC_BUILD_TESTS=OFF \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DNNC_BUILD_FUZZERS=ON > "$build_dir.configure.log"
cmake --build "$build_dir" --target nnc-onnx-import-fuzzer

corpus=$build_dir/corpus
mkdir -p "$corpus" "$build_dir/crashes"
if [[ -z "$(ls -A "$corpus")" ]]; then
  for model in /usr/share/libonnx-testdata/data/*/*/model.onnx; do
    name=$(basename "$(dirname "$model")")
    cp "$model" "$corpus/$name.onnx"
  done
fi
# The two checks that misfire against the uninstrumented libMLIR.so (see
# test/lit.cfg.py) are off; every other ASan check stays on.
export ASAN_OPTIONS=detect_container_overflow=0:allow_user_poisoning=0
"$build_dir/bin/nnc-onnx-import-fuzzer" "$corpus" \
  -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=30 \
  -artifact_prefix="$build_dir/crashes/" -print_final_stats=1 "$@"
