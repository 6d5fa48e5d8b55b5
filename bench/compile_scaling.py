#!/usr/bin/python3
#===- bench/compile_scaling.py - compile time against graph length --------===#
#
# Generates ONNX models of n elementwise nodes (a chain, and a chain with a
# residual add every few nodes), compiles each with nnc-run into an empty
# cache and prints the compile times and the ratio of the longest to the
# next; exits 1 when a ratio exceeds the limit (2.5 for a doubling: linear
# or n log n compile time, not quadratic). bench/README.md describes it.
#
#===----------------------------------------------------------------------===#
"""Compile time of long elementwise graphs: 5k against 10k nodes.

  /usr/bin/python3 bench/compile_scaling.py [--sizes 5000,10000]
      [--shapes chain,residual] [--repeat N] [--limit 2.5] [--nnc-run PATH]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

UNARY = ["Relu", "Tanh", "Sigmoid"]
BINARY = ["Add", "Mul"]


def make_model(n, shape, path):
    """n nodes on a [64, 64] tensor cycling Add, Mul (with a [64] constant
    initializer), Relu, Tanh, Sigmoid; `residual` makes every fourth node an
    Add of the running value and the output four nodes back."""
    rng = np.random.default_rng(0)
    nodes, inits = [], []
    cur = skip = "x"
    ops = BINARY + UNARY
    for i in range(n):
        out = "t%d" % i
        op = ops[i % len(ops)]
        if shape == "residual" and i % 4 == 3:
            nodes.append(helper.make_node("Add", [cur, skip], [out]))
            skip = out
        elif op in BINARY:
            c = "c%d" % i
            value = rng.standard_normal(64).astype(np.float32) * 0.1
            if op == "Mul":
                value += 1
            inits.append(numpy_helper.from_array(value, c))
            nodes.append(helper.make_node(op, [cur, c], [out]))
        else:
            nodes.append(helper.make_node(op, [cur], [out]))
        cur = out
    graph = helper.make_graph(
        nodes, "%s_%d" % (shape, n),
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64, 64])],
        [helper.make_tensor_value_info(cur, TensorProto.FLOAT, [64, 64])],
        inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, path)


def compile_seconds(nnc_run, model, inputs, work):
    """Wall time of one `nnc-run MODEL` without a cache: import, compile,
    load and one run of a 64x64 tensor (the run is milliseconds)."""
    start = time.monotonic()
    subprocess.run([nnc_run, model, "--input", "x=" + inputs,
                    "--cache-dir", "", "--output",
                    os.path.join(work, "out.npz")],
                   check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - start


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="5000,10000",
                        help="node counts, ascending (default 5000,10000)")
    parser.add_argument("--shapes", default="chain,residual",
                        help="graph shapes: chain, residual")
    parser.add_argument("--repeat", type=int, default=1,
                        help="compiles per model; the median is reported")
    parser.add_argument("--limit", type=float, default=2.5,
                        help="largest ratio allowed for doubling the nodes "
                        "(scaled as (n2/n1)^1.32 for other steps)")
    parser.add_argument("--nnc-run",
                        default=os.path.join(root, "build", "bin", "nnc-run"))
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    shapes = args.shapes.split(",")

    failed = False
    with tempfile.TemporaryDirectory(prefix="nnc-compile-scaling-") as work:
        inputs = os.path.join(work, "x.npy")
        np.save(inputs, np.random.default_rng(1).random(
            (64, 64), dtype=np.float32))
        for shape in shapes:
            times = []
            for n in sizes:
                model = os.path.join(work, "%s_%d.onnx" % (shape, n))
                make_model(n, shape, model)
                runs = [compile_seconds(args.nnc_run, model, inputs, work)
                        for _ in range(args.repeat)]
                times.append(statistics.median(runs))
                print("%-9s n=%-6d compile %8.2f s" % (shape, n, times[-1]),
                      flush=True)
            for (n1, t1), (n2, t2) in zip(zip(sizes, times),
                                          zip(sizes[1:], times[1:])):
                # 2.5 for a doubling is n^1.32; other steps get the same
                # exponent.
                limit = args.limit ** (np.log(n2 / n1) / np.log(2))
                ratio = t2 / t1
                ok = ratio <= limit
                failed |= not ok
                print("%-9s %d/%d ratio %.2f (limit %.2f) %s" %
                      (shape, n2, n1, ratio, limit, "ok" if ok else "FAIL"),
                      flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
