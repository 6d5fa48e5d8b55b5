#!/usr/bin/env bash
#===- utils/demo.sh - the main job: train a CNN on the digits with nnc ----===#
#
# Trains the small CNN of examples/digits (exported from PyTorch, untrained)
# on the UCI hand-written digits that ship beside it, with `nnc-run train`:
# the training step (cross-entropy, batch normalization in training mode,
# gradients, Adam) is compiled for this CPU and run on batches a data loader
# prepares on worker threads. Prints progress, one line per epoch with the
# test accuracy, and ends with `test accuracy: NN.N%`. The metrics log and a
# checkpoint are written to a temporary folder, the curves of the run to
# build/digits-run.svg.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${NNC_BUILD_DIR:-$root/build}
run=$build_dir/bin/nnc-run
digits=$root/examples/digits
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

[[ -x $run ]] || { echo "demo.sh: $run not built; run utils/setup.sh" >&2; exit 1; }

echo "== Training a CNN (examples/digits/cnn.onnx, 38,330 parameters) on 1442"
echo "   hand-written digits with nnc-run train; 355 held out for testing;"
echo "   the run's curves go to $build_dir/digits-run.svg"
"$run" train "$digits/cnn.onnx" \
  --data "$digits/train.npz" --eval "$digits/test.npz" \
  --loss cross_entropy --optimizer adam --lr 0.01 --batch-size 32 \
  --epochs 15 --drop-last --seed 0 \
  --metrics "$out/metrics.csv" --checkpoint "$out/digits.ckpt" \
  --plot "$build_dir/digits-run.svg"
