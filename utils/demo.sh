#!/usr/bin/env bash
#===- utils/demo.sh - the main job: run a model through nnc --------------===#
#
# Runs the shipped digits MLP (test/Examples/mlp-digits.mlir: two dense
# layers, dropout, log-softmax and cross-entropy, dynamic batch) through
# nnc-opt: verification, batch specialization with shape inference, and
# canonicalization. Prints the compiled IR and a summary. Training and code
# generation come with later stages of the compiler.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${NNC_BUILD_DIR:-$root/build}
opt=$build_dir/bin/nnc-opt
model=$root/test/Examples/mlp-digits.mlir
batch=${NNC_DEMO_BATCH:-64}

[[ -x $opt ]] || { echo "demo.sh: $opt not built; run utils/setup.sh" >&2; exit 1; }

out=$("$opt" "$model" \
  --nnc-shape-inference="input-shapes=0:${batch}x64,1:${batch}" \
  --canonicalize --cse)
echo "$out"
before=$(grep -c ' = nnc\.' "$model" || true)
after=$(grep -c ' = nnc\.' <<<"$out" || true)
dynamic=$(grep -c 'tensor<?' <<<"$out" || true)
echo
echo "nnc: $(basename "$model"): $before nnc ops in, $after after specializing the batch to $batch and simplifying"
if ((dynamic)); then
  echo "nnc: $dynamic lines still hold dynamic dimensions" >&2
  exit 1
fi
echo "nnc: every shape is static"
