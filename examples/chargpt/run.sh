#!/usr/bin/env bash
#===- examples/chargpt/run.sh - the second example: a char-level GPT -----===#
#
# Builds the training data from the Python sources installed on this
# machine (utils/prepare_chargpt_data.py, numpy only), then trains the GPT of
# model.onnx with nnc-chargpt (a C API program) and prints a sample.
# Usage: examples/chargpt/run.sh [STEPS [SAMPLE_CHARS]]  (default 500 300)
#
#===----------------------------------------------------------------------===#
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build_dir=${NNC_BUILD_DIR:-$root/build}
[[ -x $build_dir/bin/nnc-chargpt ]] || {
  echo "run.sh: $build_dir/bin/nnc-chargpt not built; run utils/setup.sh" >&2
  exit 1
}
[[ -f $here/data/train.npz && -f $here/data/val.npz ]] ||
  /usr/bin/python3 "$root/utils/prepare_chargpt_data.py" --out-dir "$here/data"
"$build_dir/bin/nnc-chargpt" "$here/model.onnx" "$here/data/train.npz" \
  "$here/data/val.npz" "$@"
