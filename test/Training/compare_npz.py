#!/usr/bin/env python3
"""Compares an .npz archive nnc wrote with PyTorch's reference archive.

Usage: compare_npz.py ACTUAL.npz EXPECTED.npz [--rtol R] [--atol A]
                      [--keys-from expected|actual|both] [--skip TEXT]...

Every key of EXPECTED.npz (--keys-from expected, the default) must be in
ACTUAL.npz with the same dtype and shape, and satisfy
|actual - expected| <= atol + rtol * |expected| everywhere (NaN never does).
With --keys-from actual every key of ACTUAL.npz must be in EXPECTED.npz
instead; with both, the two key sets must be equal. Prints one line per key
with the largest absolute difference, then "N arrays match", or a count of
the failures; exits 1 on any mismatch or missing key. Keys containing a
--skip text are left out of the comparison. Needs numpy only.
"""
import argparse
import sys

import numpy as np


def compare(name, have, want, rtol, atol):
    """Returns (ok, message) for one pair of arrays."""
    if have.dtype != want.dtype or have.shape != want.shape:
        return False, (f"{name}: {have.dtype}{list(have.shape)} but the "
                       f"reference is {want.dtype}{list(want.shape)}")
    if have.size == 0:
        return True, f"{name}: empty, {have.dtype}{list(have.shape)}"
    have64 = have.astype(np.float64)
    want64 = want.astype(np.float64)
    diff = np.abs(have64 - want64)
    bound = atol + rtol * np.abs(want64)
    # Written as "not within" so that a NaN on either side counts as outside.
    bad = int(np.count_nonzero(~(diff <= bound)))
    worst = float(np.max(diff))  # nan when any element is
    return bad == 0, (f"{name}: max abs diff {worst:.3g}, {bad} of "
                      f"{diff.size} outside rtol {rtol} atol {atol}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("actual")
    ap.add_argument("expected")
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, default=1e-5)
    ap.add_argument("--keys-from", choices=["expected", "actual", "both"],
                    default="expected",
                    help="whose keys must be present in the other archive")
    ap.add_argument("--skip", action="append", default=[],
                    help="leave out keys containing this text (repeatable)")
    args = ap.parse_args()
    actual = np.load(args.actual)
    expected = np.load(args.expected)

    if args.keys_from == "expected":
        keys = list(expected.files)
    elif args.keys_from == "actual":
        keys = list(actual.files)
    else:
        keys = list(expected.files) + [
            k for k in actual.files if k not in expected.files
        ]
    keys = [k for k in keys if not any(text in k for text in args.skip)]
    failures = 0
    for key in keys:
        if key not in actual.files:
            print(f"{key}: missing from {args.actual}")
            failures += 1
            continue
        if key not in expected.files:
            print(f"{key}: missing from {args.expected}")
            failures += 1
            continue
        ok, message = compare(key, actual[key], expected[key], args.rtol,
                              args.atol)
        print(message)
        failures += 0 if ok else 1
    if failures:
        print(f"MISMATCH: {failures} of {len(keys)} arrays differ or are "
              f"missing")
        return 1
    print(f"{len(keys)} arrays match")
    return 0


if __name__ == "__main__":
    sys.exit(main())
