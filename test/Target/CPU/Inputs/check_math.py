#!/usr/bin/env python3
"""Writes the inputs of inline-math.mlir and checks its outputs.

Usage: check_math.py write X.npy
       check_math.py check OUT.npz

`check` compares every output with the function computed in float64 by
numpy and Python's math module: where the float64 value rounded to f32 is
NaN or +-inf, the output must be the same; elsewhere
|got - want| <= atol + rtol * |want|, with each function's bounds below.
sqrt and floor (LLVM's intrinsics) must equal numpy's f32 results bit for
bit. Prints the largest error of each output in units of the bound; exits 1 on
any mismatch, naming the input.
"""
import math
import sys

import numpy as np

N = 4096

SPECIAL = [
    -math.inf, math.inf, math.nan, 0.0, -0.0,
    1e-45, -1e-45, 1e-40, 1.17549435e-38, -1e-38, 1e-30, -1e-30,
    88.7, 88.72, 88.73, 88.8, 89.0, 100.0, 1e3, 1e30, 3.4e38,
    -87.3, -87.4, -88.0, -100.0, -103.0, -104.0, -200.0, -1e3, -1e30,
    3.74, 3.75, 3.76, -3.75, 7.9, 7.91, -7.91, 9.0, -9.0, 15.0, -15.0,
    0.8, 2.0, -2.0, 1e-4, -1e-4, 1e-8, -1e-8, 0.5, -0.5, 1.0, -1.0,
]


def inputs():
    rng = np.random.default_rng(7)
    rest = N - len(SPECIAL)
    grid = np.linspace(-20.0, 20.0, rest // 2)
    # Magnitudes from 1e-6 to 1e6 of either sign, for log and exp's range.
    wide = rng.choice([-1.0, 1.0], rest - len(grid)) * \
        10.0 ** rng.uniform(-6, 6, rest - len(grid))
    return np.concatenate([SPECIAL, grid, wide]).astype(np.float32)


def erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def reference(x32):
    x = x32.astype(np.float64)
    with np.errstate(all="ignore"):
        sigmoid = 1.0 / (1.0 + np.exp(-x))
        return {
            "output_0": (np.exp(x), 4e-7, 1.5e-45),
            "output_1": (np.log(x), 3e-7, 0.0),
            "output_2": (np.tanh(x), 5e-7, 1e-9),
            "output_3": (erf(x), 0.0, 5e-7),
            "output_4": (sigmoid, 6e-7, 1e-38),
            "output_5": (0.5 * x * (1.0 + erf(x / math.sqrt(2.0))), 6e-7, 6e-7),
            "output_6": (0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) *
                                                  (x + 0.044715 * x ** 3))),
                         1e-6, 6e-7),
            "output_7": (np.where(x > 0, x, np.expm1(x)), 5e-7, 1e-9),
            "output_8": (np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x))),
                         5e-7, 1e-38),
            "output_9": (np.sqrt(x32).astype(np.float64), 0.0, 0.0),
            "output_10": (np.floor(x32).astype(np.float64), 0.0, 0.0),
        }


def check(path):
    x = inputs()
    got = np.load(path)
    ok = True
    for name, (want, rtol, atol) in reference(x).items():
        out = got[name]
        if out.dtype != np.float32 or out.shape != x.shape:
            print(f"{name}: {out.dtype} {out.shape}, expected float32 {x.shape}")
            ok = False
            continue
        with np.errstate(all="ignore"):
            want32 = want.astype(np.float32)
        exact = ~np.isfinite(want32)
        bad = exact & ~((np.isnan(want32) & np.isnan(out)) | (want32 == out))
        bound = atol + rtol * np.abs(want)
        with np.errstate(all="ignore"):
            err = np.where(exact, 0.0, np.abs(out.astype(np.float64) - want))
            units = np.where(exact | (err == 0), 0.0, err / bound)
        bad |= ~exact & ~(units <= 1.0)
        worst = int(np.nanargmax(units)) if np.any(~exact) else 0
        print(f"{name}: worst {units[worst]:.3f} of the bound at "
              f"x={x[worst]!r} (got {out[worst]!r}, want {want[worst]!r})")
        for i in np.flatnonzero(bad)[:5]:
            print(f"  MISMATCH at x={x[i]!r}: got {out[i]!r}, want {want[i]!r}")
        ok &= not np.any(bad)
    return 0 if ok else 1


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "check"):
        print(__doc__, file=sys.stderr)
        return 2
    if sys.argv[1] == "write":
        np.save(sys.argv[2], inputs())
        return 0
    return check(sys.argv[2])


if __name__ == "__main__":
    sys.exit(main())
