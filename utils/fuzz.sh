#!/usr/bin/env bash
#===- utils/fuzz.sh - run nnc's fuzzers ------------------------------------===#
#
# Usage: utils/fuzz.sh [--fuzzer NAME[,NAME...]] [SECONDS] [libFuzzer flags...]
#
# Builds the fuzzers in the sanitizer tree (build-asan, as utils/setup.sh
# --sanitize configures it: ASan, UBSan, libFuzzer coverage on the code under
# test) and runs each one named for SECONDS (default 600; 0: no time limit)
# on one core, one after another. NAME is one of
#   onnx-import   the ONNX importer (corpus: the ONNX backend test models)
#   npy           the .npy and .npz readers
#   checkpoint    the checkpoint verifier
#   executable    the executable verifier and the plan parser
#   trainer       what loadTrainer reads of a saved trainer before its code
# or `runtime` (the last four) or `all` (the default). The runtime fuzzers'
# corpora start from valid files that nnc-fuzz-seeds writes with the
# runtime's own writers, plus the regression inputs of
# test/Fuzz/corpus/NAME/ (inputs that once crashed a reader: commit each
# new finding there once it is fixed), with the tokens of
# test/Fuzz/NAME.dict. What a run learns is kept in
# build-asan/fuzz/NAME/corpus; crashes land in build-asan/fuzz/NAME/crashes/.
# Exits non-zero if any fuzzer found one. `utils/fuzz.sh 0 -runs=0` replays
# every fuzzer's corpus once, as utils/test.sh does before it fuzzes each
# runtime reader for a short while.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runtime_fuzzers=(npy checkpoint executable trainer)
all_fuzzers=(onnx-import "${runtime_fuzzers[@]}")
usage() { sed -n '3,25p' "$0" | sed 's/^# \{0,1\}//'; }

fuzzers=("${all_fuzzers[@]}")
if [[ "${1:-}" == -h || "${1:-}" == --help ]]; then
  usage
  exit 0
fi
if [[ "${1:-}" == --fuzzer || "${1:-}" == --fuzzer=* ]]; then
  if [[ "$1" == --fuzzer ]]; then
    names=${2:-}
    shift 2 || { echo "fuzz.sh: --fuzzer needs a name" >&2; exit 2; }
  else
    names=${1#--fuzzer=}
    shift
  fi
  fuzzers=()
  IFS=, read -r -a requested <<< "$names"
  for name in "${requested[@]}"; do
    case "$name" in
      all) fuzzers+=("${all_fuzzers[@]}") ;;
      runtime) fuzzers+=("${runtime_fuzzers[@]}") ;;
      onnx-import|npy|checkpoint|executable|trainer) fuzzers+=("$name") ;;
      *) echo "fuzz.sh: unknown fuzzer '$name' (one of: ${all_fuzzers[*]}, runtime, all)" >&2
         exit 2 ;;
    esac
  done
  ((${#fuzzers[@]})) || { echo "fuzz.sh: --fuzzer needs a name" >&2; exit 2; }
fi
if [[ -n "${1:-}" && ! "$1" =~ ^[0-9]+$ ]]; then
  echo "fuzz.sh: SECONDS must be a whole number, not '$1'" >&2
  exit 2
fi
seconds=${1:-600}
shift || true
for arg in "$@"; do
  if [[ "$arg" == --fuzzer* ]]; then
    echo "fuzz.sh: --fuzzer goes before SECONDS" >&2
    exit 2
  fi
done
build_dir=$root/build-asan

# Configures build-asan (nothing is rebuilt that is up to date), then builds
# only the fuzzers and what they link.
NNC_BUILD_DIR=$build_dir "$root/utils/setup.sh" --sanitize --no-build
targets=(nnc-fuzz-seeds)
for name in "${fuzzers[@]}"; do
  targets+=("nnc-$name-fuzzer")
done
cmake --build "$build_dir" --target "${targets[@]}"

# Valid inputs of every runtime reader, written afresh so that they follow
# the formats as they change.
seeds=$build_dir/fuzz/seeds
rm -rf "$seeds"
mkdir -p "$build_dir/fuzz"
"$build_dir/bin/nnc-fuzz-seeds" "$seeds"

# The two checks that misfire against the uninstrumented libMLIR.so (see
# test/lit.cfg.py) are off; every other ASan check stays on. UBSan stops at
# its first report, which libFuzzer then keeps as a crash.
export ASAN_OPTIONS=detect_container_overflow=0:allow_user_poisoning=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

failed=()
for name in "${fuzzers[@]}"; do
  corpus=$build_dir/fuzz/$name/corpus
  crashes=$build_dir/fuzz/$name/crashes
  mkdir -p "$corpus" "$crashes"
  # libFuzzer adds what it finds to the first folder only; the others are
  # read.
  dirs=("$corpus")
  if [[ $name == onnx-import ]]; then
    if [[ -z "$(ls -A "$corpus")" ]]; then
      for model in /usr/share/libonnx-testdata/data/*/*/model.onnx; do
        test_name=$(basename "$(dirname "$model")")
        cp "$model" "$corpus/$test_name.onnx"
      done
    fi
    # A model may take a while to import under ASan.
    limits=(-rss_limit_mb=4096 -timeout=30)
  else
    dirs+=("$seeds/$name")
    [[ -d "$root/test/Fuzz/corpus/$name" ]] &&
      dirs+=("$root/test/Fuzz/corpus/$name")
    # A reader validates sizes before it allocates, so an input of a few KB
    # that makes it allocate 256 MB at once is a bug, and so is one that
    # takes seconds.
    limits=(-rss_limit_mb=2048 -malloc_limit_mb=256 -timeout=10
            "-dict=$root/test/Fuzz/$name.dict")
  fi
  echo "== fuzz.sh: $name, ${seconds}s, $(find "${dirs[@]}" -type f | wc -l) inputs to start from"
  if ! "$build_dir/bin/nnc-$name-fuzzer" "${dirs[@]}" \
    -max_total_time="$seconds" "${limits[@]}" \
    -artifact_prefix="$crashes/" -print_final_stats=1 "$@"; then
    failed+=("$name")
  fi
done
if ((${#failed[@]})); then
  echo "fuzz.sh: failed: ${failed[*]} (inputs under $build_dir/fuzz/NAME/crashes/)" >&2
  exit 1
fi
