#!/usr/bin/python3
"""Convert the UCI hand-written digits (scikit-learn's copy) into examples/digits/.

Reads digits.csv.gz as Debian's python3-sklearn ships it (1797 rows of 64
pixel counts 0..16, row-major 8x8, then the class 0..9) and writes

  examples/digits/train.npz   image f32 [1442, 1, 8, 8], labels i64 [1442]
  examples/digits/test.npz    image f32 [355, 1, 8, 8],  labels i64 [355]

with the pixels divided by 16 (so in [0, 1]). The split is stratified and
deterministic, no random numbers involved: going through the file in order,
the 5th, 10th, 15th, ... sample of each class goes to the test set and the
others to the training set, each set keeping the file order. That puts
floor(n/5) of the n samples of every class into the test set (20% up to
rounding per class).

Needs numpy only (not scikit-learn: the CSV is read directly). The outputs
are byte-reproducible (fixed archive timestamps), so their checksums in
examples/digits/PROVENANCE.md identify them:

  /usr/bin/python3 utils/prepare_digits.py \
      [--csv /usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz] \
      [--out-dir examples/digits]
"""

import argparse
import gzip
import os
import sys

import numpy as np

from npz_io import save_npz

DEFAULT_CSV = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
TEST_EVERY = 5


def load(path):
    with gzip.open(path, "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.int64)
    if table.ndim != 2 or table.shape[1] != 65:
        raise SystemExit("%s: expected 65 columns, got shape %s" %
                         (path, table.shape))
    pixels, labels = table[:, :64], table[:, 64]
    if pixels.min() < 0 or pixels.max() > 16:
        raise SystemExit("%s: pixel counts outside 0..16" % path)
    if labels.min() < 0 or labels.max() > 9:
        raise SystemExit("%s: classes outside 0..9" % path)
    return pixels, labels


def split(labels):
    """A boolean mask of the test rows: the 5th, 10th, ... of every class."""
    test = np.zeros(len(labels), dtype=bool)
    seen = np.zeros(10, dtype=np.int64)
    for row, label in enumerate(labels):
        seen[label] += 1
        test[row] = seen[label] % TEST_EVERY == 0
    return test


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", default=DEFAULT_CSV)
    parser.add_argument("--out-dir",
                        default=os.path.normpath(
                            os.path.join(here, "..", "examples", "digits")))
    args = parser.parse_args()
    pixels, labels = load(args.csv)
    images = (pixels.astype(np.float32) / np.float32(16)).reshape(-1, 1, 8, 8)
    test = split(labels)
    os.makedirs(args.out_dir, exist_ok=True)
    for name, rows in [("train", ~test), ("test", test)]:
        path = os.path.join(args.out_dir, name + ".npz")
        save_npz(path, {"image": images[rows], "labels": labels[rows]})
        counts = np.bincount(labels[rows], minlength=10)
        print("%s: %d samples, per class %s" %
              (path, int(rows.sum()), " ".join(str(c) for c in counts)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
