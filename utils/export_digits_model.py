#!/usr/bin/python3
"""Export the untrained digits CNN to examples/digits/cnn.onnx; optionally train it in PyTorch.

The model nnc trains in the digits example (examples/digits/README.md):

  Conv 3x3 1->16 (padding 1, no bias) + BatchNorm + ReLU
  Conv 3x3 16->32 (padding 1, no bias) + BatchNorm + ReLU
  MaxPool 2x2 (8x8 -> 4x4), flatten (512)
  Linear 512->64, ReLU, Linear 64->10

38,330 parameters with PyTorch's default initialization under
torch.manual_seed(0). Input image f32 [batch, 1, 8, 8], output logits f32
[batch, 10]. The export is opset 17 from eval() mode (BatchNorm as
BatchNormalization with its running statistics, 0 and 1, as initializers),
the batch dimension dynamic and named "batch", and every parameter and
running statistic an initializer named by its state_dict key (the script
checks names and values and fails otherwise). The convolutions have no bias:
BatchNorm right after them would cancel it.

With --train, the script then trains a copy of exactly that model the way the
example trains it with nnc and prints the test accuracy after every epoch:
Adam, mean cross-entropy, shuffled batches, train() mode for training and
eval() mode (running statistics) for the accuracy on test.npz. It trains once
per --seeds value (the seed of the shuffling order; the initial weights are
always those of cnn.onnx).

  sudo apt-get install python3-torch python3-onnx
  /usr/bin/python3 utils/export_digits_model.py [--out-dir examples/digits]
  /usr/bin/python3 utils/export_digits_model.py --train \
      [--epochs 15] [--lr 0.01] [--batch-size 32] [--seeds 0 1 2]

The export is deterministic for a given PyTorch version (this one came from
Debian's PyTorch 1.13 and ONNX 1.12); examples/digits/ holds train.npz and
test.npz from utils/prepare_digits.py.
"""

import argparse
import copy
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from export_training_refs import check_initializers, export_onnx


class DigitsCNN(nn.Module):

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(32)
        self.pool = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, image):
        x = F.relu(self.bn1(self.conv1(image)))
        x = self.pool(F.relu(self.bn2(self.conv2(x))))
        x = torch.flatten(x, 1)
        return self.fc2(F.relu(self.fc1(x)))


def make_model():
    torch.manual_seed(0)
    return DigitsCNN()


def load(path):
    d = np.load(path)
    return torch.from_numpy(d["image"]), torch.from_numpy(d["labels"])


def accuracy(model, images, labels):
    model.eval()
    with torch.no_grad():
        return float((model(images).argmax(1) == labels).float().mean())


def train(model, data_dir, epochs, lr, batch_size, seed):
    """Returns the list of (epoch, mean train loss, test accuracy)."""
    model = copy.deepcopy(model)
    x, y = load(os.path.join(data_dir, "train.npz"))
    tx, ty = load(os.path.join(data_dir, "test.npz"))
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    gen = torch.Generator().manual_seed(seed)
    history = []
    for epoch in range(1, epochs + 1):
        model.train()
        order = torch.randperm(len(x), generator=gen)
        total, count = 0.0, 0
        # Full batches only (1442 = 45 * 32 + 2): the last 2 samples of each
        # shuffled order sit the epoch out.
        for lo in range(0, len(x) - batch_size + 1, batch_size):
            rows = order[lo:lo + batch_size]
            opt.zero_grad()
            loss = F.cross_entropy(model(x[rows]), y[rows])
            loss.backward()
            opt.step()
            total += loss.item()
            count += 1
        history.append((epoch, total / count, accuracy(model, tx, ty)))
    return history


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir",
                        default=os.path.normpath(
                            os.path.join(here, "..", "examples", "digits")))
    parser.add_argument("--train", action="store_true",
                        help="train in PyTorch instead of exporting")
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = parser.parse_args()
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    model = make_model()
    params = sum(p.numel() for p in model.parameters())

    if args.train:
        print("Adam lr %g, batch %d, %d epochs, %d parameters" %
              (args.lr, args.batch_size, args.epochs, params))
        for seed in args.seeds:
            start = time.time()
            history = train(model, args.out_dir, args.epochs, args.lr,
                            args.batch_size, seed)
            for epoch, loss, acc in history:
                print("seed %d epoch %2d: train loss %.4f, test accuracy "
                      "%.2f%%" % (seed, epoch, loss, 100 * acc))
            print("seed %d: final test accuracy %.2f%% (%.1f s)" %
                  (seed, 100 * history[-1][2], time.time() - start))
        return 0

    os.makedirs(args.out_dir, exist_ok=True)
    path = os.path.join(args.out_dir, "cnn.onnx")
    proto = export_onnx(model, {"image": torch.zeros(2, 1, 8, 8)}, path,
                        constant_folding=True, flat_output=False)
    check_initializers(proto, model, path)
    print("%s: %d bytes, %d parameters, opset 17" %
          (path, os.path.getsize(path), params))
    print("  ops: " + ", ".join(n.op_type for n in proto.graph.node))
    print("  initializers: " +
          ", ".join(t.name for t in proto.graph.initializer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
