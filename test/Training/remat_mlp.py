#!/usr/bin/env python3
"""Writes the rematerialization tests' model and data: an MLP of
`--layers` hidden layers (Linear 32 -> 64 -> ... -> 10, tanh), each
followed by dropout (ratio 0.25) in training, as nnc MLIR with random
weights (fixed seed), and 512 samples labelled by a random linear map.

    remat_mlp.py OUT_DIR [--layers N]   # -> OUT_DIR/model.mlir, data.npz
"""
import argparse
import os

import numpy as np


def dense(array):
    return 'dense<"0x%s"> : tensor<%sxf32>' % (
        array.astype("<f4").tobytes().hex().upper(),
        "x".join(str(d) for d in array.shape))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--layers", type=int, default=6)
    args = parser.parse_args()
    rng = np.random.RandomState(0)
    sizes = [32] + [64] * args.layers + [10]
    params, body = [], []
    value = "%x"
    for i in range(len(sizes) - 1):
        n, m = sizes[i], sizes[i + 1]
        w = (rng.randn(m, n) / np.sqrt(n)).astype(np.float32)
        b = np.zeros(m, np.float32)
        for name, array in (("w%d" % i, w), ("b%d" % i, b)):
            params.append(
                '%%%s: tensor<%sxf32> {nnc.param = #nnc.param<trainable>, '
                'nnc.value = %s} loc("%s")' % (
                    name, "x".join(str(d) for d in array.shape),
                    dense(array), name))
        body.append('  %%h%d = nnc.gemm %s, %%w%d, %%b%d trans_b = true : '
                    'tensor<?x%dxf32>, tensor<%dx%dxf32>, tensor<%dxf32> '
                    'loc("fc%d")' % (i, value, i, i, n, m, n, m, i))
        value = "%%h%d" % i
        if i + 2 < len(sizes):
            body.append('  %%t%d = nnc.tanh %s : tensor<?x%dxf32> '
                        'loc("tanh%d")' % (i, value, m, i))
            body.append('  %%d%d, %%mask%d = nnc.dropout %%t%d ratio = 0.25 : '
                        'tensor<?x%dxf32> loc("dropout%d")' % (i, i, i, m, i))
            value = "%%d%d" % i
    text = ("func.func @main(%%x: tensor<?x32xf32> loc(\"x\"),\n    %s)\n"
            "    -> tensor<?x10xf32> {\n%s\n  return %s : tensor<?x10xf32>\n}\n"
            % (",\n    ".join(params), "\n".join(body), value))
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "model.mlir"), "w") as f:
        f.write(text)
    x = rng.randn(512, 32).astype(np.float32)
    labels = np.argmax(x @ rng.randn(32, 10), axis=1).astype(np.int64)
    np.savez(os.path.join(args.out_dir, "data.npz"), x=x, labels=labels)


if __name__ == "__main__":
    main()
