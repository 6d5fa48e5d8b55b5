#!/usr/bin/env python3
"""Regenerates the weights of the committed external-data models from a formula.

Usage: weights.py MODEL_DIR OUT_DIR

resnet18/ and mobilenetv2/ have millions of parameters, so only their graph is
committed: model.onnx keeps every parameter and BatchNorm statistic as an
initializer whose data lives outside it, in weights.bin (ONNX external data),
and weights.json lists those initializers with the formula's parameters. This
script, which needs only numpy and Python's standard library, writes
OUT_DIR/weights.bin from MODEL_DIR/weights.json and copies MODEL_DIR/model.onnx
next to it (an importer reads external data relative to the model's folder), so
OUT_DIR/model.onnx is then a complete model. It checks the bytes against the
SHA-256 that weights.json records and exits 1 on a mismatch.

weights.json:

  {"location": "weights.bin", "size": BYTES, "sha256": HEX,
   "tensors": [{"name": ..., "dtype": "float32", "shape": [...],
                "offset": BYTES, "length": BYTES, "k": K, "a": A, "b": B,
                "kind": ..., "fan_in": ...}, ...]}

Tensor number K with n elements holds float32(A + B * u[i]) for i < n, where
u[i] = h((i + s) mod 2**32) / 2**32 is uniform in [0, 1), s = h((K * 0x9E3779B9
+ 12345) mod 2**32) and h is a 32-bit integer hash (Wellons' "lowbias32":
xorshift-multiply rounds). Everything is exact integer arithmetic, one float64
multiply and add and one rounding to float32, so the bytes do not depend on the
numpy version or the machine. "kind" and "fan_in" only say how the exporter
chose A and B. Each tensor starts at a multiple of 64 bytes; the gaps between
tensors are zero bytes.

utils/export_dynamic_models.py sets the PyTorch models' parameters with
values() below before exporting them, and checks that this script reproduces
the exported bytes exactly.
"""
import hashlib
import json
import os
import shutil
import sys

import numpy as np

_M32 = np.uint64(0xFFFFFFFF)


def _hash32(x):
    """lowbias32 on a uint64 array holding 32-bit values."""
    x = x & _M32
    x = x ^ (x >> np.uint64(16))
    x = (x * np.uint64(0x7FEB352D)) & _M32
    x = x ^ (x >> np.uint64(15))
    x = (x * np.uint64(0x846CA68B)) & _M32
    x = x ^ (x >> np.uint64(16))
    return x


def uniform(k, n):
    """n values in [0, 1), float64, for tensor number k."""
    seed = _hash32(np.array([(k * 0x9E3779B9 + 12345) % 2**32],
                            dtype=np.uint64))[0]
    x = _hash32((np.arange(n, dtype=np.uint64) + seed) & _M32)
    return x.astype(np.float64) / 4294967296.0


def values(k, n, a, b):
    """The n float32 values of tensor number k: float32(a + b * u)."""
    return (np.float64(a) + np.float64(b) * uniform(k, n)).astype("<f4")


def build(manifest):
    """The bytes of the external data file the manifest describes."""
    data = bytearray(manifest["size"])
    for t in manifest["tensors"]:
        if t["dtype"] != "float32":
            raise ValueError("%s: dtype %s is not float32" %
                             (t["name"], t["dtype"]))
        n = 1
        for d in t["shape"]:
            n *= d
        raw = values(t["k"], n, t["a"], t["b"]).tobytes()
        if len(raw) != t["length"]:
            raise ValueError("%s: %d bytes, the manifest says %d" %
                             (t["name"], len(raw), t["length"]))
        data[t["offset"]:t["offset"] + len(raw)] = raw
    return bytes(data)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    model_dir, out_dir = argv[1], argv[2]
    with open(os.path.join(model_dir, "weights.json")) as f:
        manifest = json.load(f)
    data = build(manifest)
    digest = hashlib.sha256(data).hexdigest()
    if digest != manifest["sha256"]:
        sys.stderr.write("weights.py: SHA-256 %s, weights.json says %s\n" %
                         (digest, manifest["sha256"]))
        return 1
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, manifest["location"]), "wb") as f:
        f.write(data)
    src = os.path.join(model_dir, "model.onnx")
    dst = os.path.join(out_dir, "model.onnx")
    if not (os.path.exists(dst) and os.path.samefile(src, dst)):
        shutil.copyfile(src, dst)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
