#!/usr/bin/env bash
#===- utils/demo.sh - the main job: run models through nnc ---------------===#
#
# Compiles the two models exported from PyTorch that ship in test/Models (a
# ResNet-style CNN and a transformer encoder) for this CPU with nnc-run,
# runs them on the inputs beside them, prints the executables' figures and
# their median latency, and checks the outputs against PyTorch's within
# rtol 1e-4. Training on the shipped data replaces this once autodiff lands.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${NNC_BUILD_DIR:-$root/build}
run=$build_dir/bin/nnc-run
models=$root/test/Models
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

[[ -x $run ]] || { echo "demo.sh: $run not built; run utils/setup.sh" >&2; exit 1; }

echo "== ResNet-style CNN exported from PyTorch: compile for the CPU and run"
"$run" "$models/resnet/model.onnx" --input image="$models/resnet/image.npy" \
  --output "$out/resnet.npz" --report --bench 20
/usr/bin/python3 "$models/compare.py" "$out/resnet.npz" \
  logits="$models/resnet/expected_logits.npy"

echo
echo "== Transformer encoder exported from PyTorch"
"$run" "$models/transformer/model.onnx" \
  --input input_ids="$models/transformer/input_ids.npy" \
  --input attention_mask="$models/transformer/attention_mask.npy" \
  --output "$out/transformer.npz" --report --bench 20
/usr/bin/python3 "$models/compare.py" "$out/transformer.npz" \
  logits="$models/transformer/expected_logits.npy"
echo
echo "nnc: both models match PyTorch within rtol 1e-4 (a second run of this demo"
echo "     takes its executables from the compile cache: 'from cache: yes')"
