#!/usr/bin/env bash
#===- utils/graph-fuzz.sh - differential fuzzing of the optimizer ---------===#
#
# Usage: utils/graph-fuzz.sh [SECONDS] [--release] [nnc-graph-fuzz flags...]
#
# Builds nnc-graph-fuzz in the sanitizer tree (build-asan, ASan and UBSan;
# --release: the faster Release tree, build) and runs it for SECONDS
# (default 600): random valid ONNX graphs, each compiled with the default
# options and with fusion and memory planning off, run on the same inputs
# and compared. Starts from a seed taken from the clock unless --seed N is
# given (utils/test.sh runs 60 s from seed 1). Failures land in
# <tree>/graph-fuzz/failures/ as seed-<N>.onnx with seed-<N>.txt; it goes
# on after a failure and exits non-zero if there was one. Replay one with
# `<tree>/bin/nnc-graph-fuzz --replay FILE.onnx`.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ "${1:-}" == -h || "${1:-}" == --help ]]; then
  sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
seconds=600
if [[ -n "${1:-}" && "$1" =~ ^[0-9]+$ ]]; then
  seconds=$1
  shift
fi
build_dir=$root/build-asan
setup=(--sanitize)
if [[ "${1:-}" == --release ]]; then
  build_dir=${NNC_BUILD_DIR:-$root/build}
  setup=()
  shift
fi
seed=()
[[ " $* " == *" --seed "* ]] || seed=(--seed "$(date +%s)")

# Configures the tree (nothing is rebuilt that is up to date), then builds
# only the fuzzer and what it links.
NNC_BUILD_DIR=$build_dir "$root/utils/setup.sh" "${setup[@]}" --no-build
cmake --build "$build_dir" --target nnc-graph-fuzz

# As utils/fuzz.sh: the two checks that misfire against the uninstrumented
# libMLIR.so are off; UBSan stops at its first report.
export ASAN_OPTIONS=detect_container_overflow=0:allow_user_poisoning=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
out=$build_dir/graph-fuzz/failures
mkdir -p "$out"
# A graph that hangs is killed with the whole run; its seed-<N>.onnx stays.
timeout --signal=KILL $((seconds + 300)) \
  "$build_dir/bin/nnc-graph-fuzz" "${seed[@]}" --count 0 \
  --seconds "$seconds" --keep-going --out "$out" "$@"
