#!/usr/bin/python3
#===- bench/gemm_libraries.py - oneDNN's f32 GEMM against OpenBLAS's -----===#
#
# Times the two libraries an f32 product can call on the CPU on the same
# buffers: the oneDNN glue's nnc_dnnl_sgemm (oneDNN's matmul primitive) and
# OpenBLAS's cblas_sgemm, both with CBLAS's arguments, through ctypes (which
# adds about a microsecond to each call), and prints the medians
# (docs/CPUBackend.md, "Library GEMMs").
#
#===----------------------------------------------------------------------===#
"""oneDNN's f32 GEMM against OpenBLAS's.

  /usr/bin/python3 bench/gemm_libraries.py [--glue PATH] [--blas PATH]
      [--runs N]
"""

import argparse
import ctypes
import os
import statistics
import time

import numpy as np

SHAPES = [(1024, 256, 1024), (1024, 768, 256), (1024, 1024, 256),
          (128, 4096, 1024), (1024, 4096, 128), (8192, 10, 64),
          (128, 128, 32), (64, 10, 64)]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--glue", default=os.path.join(root, "build", "lib",
                                                       "libnnc_dnnl.so"))
    parser.add_argument("--blas", default="libopenblas.so.0")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    glue = ctypes.CDLL(args.glue)
    blas = ctypes.CDLL(args.blas)
    check = glue.nnc_dnnl_sgemm_check
    check.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    text = ctypes.create_string_buffer(256)
    if check(text, 256) != 0:
        raise SystemExit("no oneDNN f32 GEMM here: " + text.value.decode())
    print("oneDNN: %s; OpenBLAS: %s" % (
        text.value.decode(), args.blas), flush=True)
    i, f, p = ctypes.c_int32, ctypes.c_float, ctypes.c_void_p
    signature = [i, i, i, i, i, i, f, p, i, p, i, f, p, i]
    for fn in (glue.nnc_dnnl_sgemm, blas.cblas_sgemm):
        fn.argtypes = signature
        fn.restype = None
    rng = np.random.default_rng(0)
    for m, n, k in SHAPES:
        a = rng.standard_normal((m, k), dtype=np.float32)
        b = rng.standard_normal((k, n), dtype=np.float32)
        c = np.zeros((m, n), dtype=np.float32)

        def run(fn):
            fn(101, 111, 111, m, n, k, 1.0, a.ctypes.data, k, b.ctypes.data,
               n, 0.0, c.ctypes.data, n)

        medians = {}
        for name, fn in (("oneDNN", glue.nnc_dnnl_sgemm),
                         ("OpenBLAS", blas.cblas_sgemm)):
            for _ in range(3):
                run(fn)
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                run(fn)
                times.append(time.perf_counter() - start)
            medians[name] = statistics.median(times)
        print("[%d, %d] x [%d, %d]: oneDNN %.3f ms, OpenBLAS %.3f ms" % (
            m, k, k, n, 1e3 * medians["oneDNN"], 1e3 * medians["OpenBLAS"]),
            flush=True)


if __name__ == "__main__":
    main()
