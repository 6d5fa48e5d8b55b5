#!/usr/bin/env python3
"""Compares what `nnc-run train` runs printed: the reference's and
another's test accuracy (percentage points) and final loss must be within
the given margins. Prints both and exits 1 when a margin is exceeded.

  compare_runs.py REFERENCE.txt OTHER.txt [--accuracy POINTS] [--loss DELTA]

Either side may be several runs, comma-separated or as a glob pattern
(quoted in the RUN line: 'PREFIX.seed*.txt' for train_seeds.py's files):
that side's figures are then the means over its runs.
"""

import argparse
import glob
import re
import sys


def figures(path):
    text = open(path).read()
    accuracy = re.search(r"^test accuracy: ([0-9.]+)%", text, re.M)
    loss = re.search(r"^final loss: ([0-9.eE+-]+|nan|inf)", text, re.M)
    if not accuracy or not loss:
        sys.exit(f"{path}: no 'test accuracy' or 'final loss' line")
    return float(accuracy.group(1)), float(loss.group(1))


def mean_figures(paths):
    names = []
    for item in paths.split(","):
        matches = sorted(glob.glob(item)) if glob.has_magic(item) else [item]
        if not matches:
            sys.exit(f"{item}: no such files")
        names += matches
    runs = [figures(path) for path in names]
    return (sum(a for a, _ in runs) / len(runs),
            sum(l for _, l in runs) / len(runs), len(runs))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("reference")
    parser.add_argument("other")
    parser.add_argument("--accuracy", type=float, default=None)
    parser.add_argument("--loss", type=float, default=None)
    args = parser.parse_args()
    ref_acc, ref_loss, ref_runs = mean_figures(args.reference)
    acc, loss, runs = mean_figures(args.other)
    means = " (means of %d and %d runs)" % (runs, ref_runs) \
        if runs > 1 or ref_runs > 1 else ""
    print(f"accuracy {acc:g}% vs {ref_acc:g}%, final loss {loss:g} vs "
          f"{ref_loss:g}{means}")
    ok = True
    if args.accuracy is not None and abs(acc - ref_acc) > args.accuracy:
        print(f"accuracy differs by more than {args.accuracy} points")
        ok = False
    if args.loss is not None and not abs(loss - ref_loss) <= args.loss:
        print(f"final loss differs by more than {args.loss}")
        ok = False
    print("within the margins" if ok else "OUTSIDE the margins")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
