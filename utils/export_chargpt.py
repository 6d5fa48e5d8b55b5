#!/usr/bin/python3
"""Export the untrained character-level GPT to examples/chargpt/model.onnx; optionally train it in PyTorch.

The model of the second example (examples/chargpt/README.md): token
embedding (vocabulary 97: newline, the 95 printable ASCII characters and
"other", see utils/prepare_chargpt_data.py) plus a learned position embedding
(T = 32), two pre-LayerNorm blocks of causal 4-head self-attention (d_model
64, written by hand: Linear q/k/v/o, matmul, 1/sqrt(16) scale, a constant
causal mask of -1e4 above the diagonal, softmax) and a GELU MLP (64->256->64)
with residuals, a final LayerNorm and a Linear head to the vocabulary. The same
module as test/Training/transformer_block (utils/export_training_refs.py),
larger. No dropout; the key projections have no bias (its gradient is zero).

Input tokens i64 [batch, 32], output logits f32 [batch*32, 97] (the
activations are flattened before the head, so a mean cross-entropy against
[batch*32] next-character labels is the loss). PyTorch's default
initialization under torch.manual_seed(0); exported with opset 17 and without
constant folding (which would replace each Linear weight by a transposed copy
under a new name), every parameter an initializer named by its state_dict key
(checked).

With --train, the script trains a copy in PyTorch on the data that
utils/prepare_chargpt_data.py builds: Adam, shuffled batches, and the
validation loss every 100 steps.

  sudo apt-get install python3-torch python3-onnx
  /usr/bin/python3 utils/export_chargpt.py [--out-dir examples/chargpt]
  /usr/bin/python3 utils/prepare_chargpt_data.py --out-dir DATA
  /usr/bin/python3 utils/export_chargpt.py --train --data-dir DATA \
      [--steps 500] [--lr 3e-3] [--batch-size 32] [--seed 0]
"""

import argparse
import copy
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

from export_training_refs import TinyGPT, check_initializers, export_onnx

VOCAB, SEQ, D_MODEL, HEADS, LAYERS = 97, 32, 64, 4, 2


def make_model():
    torch.manual_seed(0)
    return TinyGPT(vocab=VOCAB, seq=SEQ, d_model=D_MODEL, heads=HEADS,
                   layers=LAYERS)


def load(path):
    d = np.load(path)
    # labels are [samples, 32] in the file (one row per sample, as nnc-run's
    # loader batches them); the loss reads them flattened like the logits.
    return torch.from_numpy(d["tokens"]), torch.from_numpy(d["labels"]).reshape(-1)


def mean_loss(model, tokens, labels, batch=256):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for lo in range(0, len(tokens), batch):
            logits = model(tokens[lo:lo + batch])
            total += F.cross_entropy(
                logits, labels[lo * SEQ:(lo + batch) * SEQ],
                reduction="sum").item()
    return total / len(labels)


def train(model, data_dir, steps, lr, batch_size, seed):
    model = copy.deepcopy(model)
    x, y = load(os.path.join(data_dir, "train.npz"))
    vx, vy = load(os.path.join(data_dir, "val.npz"))
    y = y.reshape(len(x), SEQ)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    gen = torch.Generator().manual_seed(seed)
    per_epoch = len(x) // batch_size
    print("step    0: validation loss %.4f (uniform guess %.4f)" %
          (mean_loss(model, vx, vy), math.log(VOCAB)))
    order, window = None, []
    start = time.time()
    for step in range(steps):
        if step % per_epoch == 0:
            order = torch.randperm(len(x), generator=gen)
        rows = order[(step % per_epoch) * batch_size:][:batch_size]
        model.train()
        opt.zero_grad()
        loss = F.cross_entropy(model(x[rows]), y[rows].reshape(-1))
        loss.backward()
        opt.step()
        window.append(loss.item())
        if (step + 1) % 100 == 0 or step + 1 == steps:
            print("step %4d: train loss %.4f (mean of the last %d steps), "
                  "validation loss %.4f, %.1f s" %
                  (step + 1, sum(window) / len(window), len(window),
                   mean_loss(model, vx, vy), time.time() - start))
            window = []
    return model


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir",
                        default=os.path.normpath(
                            os.path.join(here, "..", "examples", "chargpt")))
    parser.add_argument("--train", action="store_true",
                        help="train in PyTorch instead of exporting")
    parser.add_argument("--data-dir",
                        default=os.path.normpath(
                            os.path.join(here, "..", "examples", "chargpt",
                                         "data")))
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    model = make_model()
    params = sum(p.numel() for p in model.parameters())

    if args.train:
        print("Adam lr %g, batch %d, %d steps, %d parameters" %
              (args.lr, args.batch_size, args.steps, params))
        train(model, args.data_dir, args.steps, args.lr, args.batch_size,
              args.seed)
        return 0

    os.makedirs(args.out_dir, exist_ok=True)
    path = os.path.join(args.out_dir, "model.onnx")
    proto = export_onnx(model,
                        {"tokens": torch.zeros(2, SEQ, dtype=torch.int64)},
                        path, constant_folding=False, flat_output=True)
    check_initializers(proto, model, path)
    print("%s: %d bytes, %d parameters, opset 17" %
          (path, os.path.getsize(path), params))
    print("  initializers: " +
          ", ".join(t.name for t in proto.graph.initializer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
