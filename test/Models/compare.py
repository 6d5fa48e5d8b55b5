#!/usr/bin/env python3
"""Compares an nnc-run output archive with PyTorch's reference outputs.

Usage: compare.py OUT.npz NAME=EXPECTED.npy|NAME=EXPECTED.npz [...]
                   [--rtol R] [--atol A]

An .npz reference holds the expected output under NAME.

Each NAME in OUT.npz must have the reference's dtype and shape and satisfy
|got - expected| <= atol + rtol * |expected| everywhere. Prints the largest
absolute and relative differences per output; exits 1 on any mismatch.
"""
import argparse
import sys

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("output")
    ap.add_argument("expected", nargs="+")
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, default=1e-5)
    args = ap.parse_args()
    got = np.load(args.output)
    ok = True
    for spec in args.expected:
        name, path = spec.split("=", 1)
        want = np.load(path)
        if path.endswith(".npz"):
            want = want[name]
        if name not in got:
            print(f"{name}: missing from {args.output} (has {sorted(got)})")
            ok = False
            continue
        have = got[name]
        if have.dtype != want.dtype or have.shape != want.shape:
            print(f"{name}: {have.dtype}{list(have.shape)} but the reference "
                  f"is {want.dtype}{list(want.shape)}")
            ok = False
            continue
        diff = np.abs(have.astype(np.float64) - want.astype(np.float64))
        bound = args.atol + args.rtol * np.abs(want.astype(np.float64))
        bad = int(np.count_nonzero(diff > bound))
        rel = float(np.max(diff / np.maximum(np.abs(want), 1e-30)))
        print(f"{name}: max abs diff {diff.max():.3g}, max rel diff {rel:.3g}, "
              f"{bad} of {diff.size} outside rtol {args.rtol} atol {args.atol}")
        ok = ok and bad == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
