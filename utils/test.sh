#!/usr/bin/env bash
#===- utils/test.sh - run the whole nnc test suite ------------------------===#
#
# Usage: utils/test.sh [--no-sanitizers]
#
# Runs every test through CTest (the lit suite, the compiler unit tests and
# the runtime unit tests) on the build made by utils/setup.sh and checks that
# runtime/ configures and builds on its own, without MLIR. Then builds one
# more tree, build-asan (ASan and UBSan, with the fuzzers), replays every
# fuzzer's corpus once (every ONNX test model; valid and once-crashing
# .npy/.npz files, checkpoints, executables, saved trainers), fuzzes each
# runtime reader for $NNC_FUZZ_SECONDS (default 25) seconds, runs the graph
# fuzzer (random valid graphs, optimized against unoptimized) for 60 seconds
# and runs the same suite under the sanitizers. --no-sanitizers skips
# build-asan.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sanitizers=1
for arg in "$@"; do
  case "$arg" in
    --no-sanitizers) sanitizers=0 ;;
    -h|--help) sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "test.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done
jobs=$(nproc)
# As setup.sh: objects are shared between clones of the same sources.
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}

build_dir=${NNC_BUILD_DIR:-$root/build}
echo "== test suite ($build_dir)"
cmake --build "$build_dir"
# The op and pass references are generated from ODS; a broken description
# fails here.
cmake --build "$build_dir" --target mlir-doc
ctest --test-dir "$build_dir" --output-on-failure -j"$jobs"

echo "== runtime builds on its own, without MLIR"
runtime_dir=$root/build-runtime
cmake -S "$root/runtime" -B "$runtime_dir" -G Ninja \
  -DCMAKE_CXX_COMPILER=/usr/lib/llvm-22/bin/clang++ \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache > "$runtime_dir.configure.log" 2>&1 || {
  cat "$runtime_dir.configure.log" >&2; exit 1; }
cmake --build "$runtime_dir"
ctest --test-dir "$runtime_dir" --output-on-failure -j"$jobs"

if ((sanitizers)); then
  # One tree for both: the sanitizer build also holds the fuzzer.
  echo "== build-asan: AddressSanitizer, UndefinedBehaviorSanitizer, fuzzer"
  NNC_BUILD_DIR=$root/build-asan "$root/utils/setup.sh" --sanitize
  echo "== fuzzers: replay of every corpus under ASan and UBSan"
  "$root/utils/fuzz.sh" 0 -runs=0
  # A short, bounded run of each runtime reader's fuzzer (about 2 minutes
  # in all); utils/fuzz.sh runs them for longer.
  echo "== runtime reader fuzzers, ${NNC_FUZZ_SECONDS:-25}s each"
  "$root/utils/fuzz.sh" --fuzzer runtime "${NNC_FUZZ_SECONDS:-25}"
  echo "== graph fuzzer: 60 s of random graphs under ASan and UBSan"
  "$root/utils/graph-fuzz.sh" 60 --seed 1
  echo "== test suite under AddressSanitizer and UndefinedBehaviorSanitizer"
  ctest --test-dir "$root/build-asan" --output-on-failure -j"$jobs"
fi
