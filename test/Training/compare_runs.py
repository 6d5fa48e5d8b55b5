#!/usr/bin/env python3
"""Compares what two `nnc-run train` runs printed: the reference's and
another's test accuracy (percentage points) and final loss must be within
the given margins. Prints both and exits 1 when a margin is exceeded.

  compare_runs.py REFERENCE.txt OTHER.txt [--accuracy POINTS] [--loss DELTA]
"""

import argparse
import re
import sys


def figures(path):
    text = open(path).read()
    accuracy = re.search(r"^test accuracy: ([0-9.]+)%", text, re.M)
    loss = re.search(r"^final loss: ([0-9.eE+-]+|nan|inf)", text, re.M)
    if not accuracy or not loss:
        sys.exit(f"{path}: no 'test accuracy' or 'final loss' line")
    return float(accuracy.group(1)), float(loss.group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("reference")
    parser.add_argument("other")
    parser.add_argument("--accuracy", type=float, default=None)
    parser.add_argument("--loss", type=float, default=None)
    args = parser.parse_args()
    ref_acc, ref_loss = figures(args.reference)
    acc, loss = figures(args.other)
    print(f"accuracy {acc}% vs {ref_acc}%, final loss {loss:g} vs "
          f"{ref_loss:g}")
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
