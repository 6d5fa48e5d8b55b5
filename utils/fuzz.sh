#!/usr/bin/env bash
#===- utils/fuzz.sh - fuzz the ONNX importer -------------------------------===#
#
# Usage: utils/fuzz.sh [SECONDS] [extra libFuzzer flags...]   (SECONDS 0: no time limit)
#
# Builds the ONNX importer fuzzer in the sanitizer tree (build-asan, as
# utils/setup.sh --sanitize configures it: ASan, UBSan, libFuzzer coverage
# on the importer and the dialect) and runs it for SECONDS (default 600) on
# one core, with a corpus seeded from the ONNX backend test models
# (libonnx-testdata). Crashes land in build-asan/fuzz/crashes/. Exits
# non-zero if the fuzzer found one. `utils/fuzz.sh 0 -runs=0` replays the
# corpus once, as utils/test.sh does.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ "${1:-}" == -h || "${1:-}" == --help ]]; then
  sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
if [[ -n "${1:-}" && ! "$1" =~ ^[0-9]+$ ]]; then
  echo "fuzz.sh: SECONDS must be a whole number, not '$1'" >&2
  exit 2
fi
seconds=${1:-600}
shift || true
build_dir=$root/build-asan

# Configures build-asan (nothing is rebuilt that is up to date), then builds
# only the fuzzer and what it links.
NNC_BUILD_DIR=$build_dir "$root/utils/setup.sh" --sanitize --no-build
cmake --build "$build_dir" --target nnc-onnx-import-fuzzer

corpus=$build_dir/fuzz/corpus
crashes=$build_dir/fuzz/crashes
mkdir -p "$corpus" "$crashes"
if [[ -z "$(ls -A "$corpus")" ]]; then
  for model in /usr/share/libonnx-testdata/data/*/*/model.onnx; do
    name=$(basename "$(dirname "$model")")
    cp "$model" "$corpus/$name.onnx"
  done
fi
# The two checks that misfire against the uninstrumented libMLIR.so (see
# test/lit.cfg.py) are off; every other ASan check stays on. UBSan stops at
# its first report, which libFuzzer then keeps as a crash.
export ASAN_OPTIONS=detect_container_overflow=0:allow_user_poisoning=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$build_dir/bin/nnc-onnx-import-fuzzer" "$corpus" \
  -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=30 \
  -artifact_prefix="$crashes/" -print_final_stats=1 "$@"
