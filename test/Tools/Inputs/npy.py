#!/usr/bin/env python3
"""Writes and dumps small .npy/.npz files for the tool tests, with the
standard library only (numpy is not a test dependency).

  npy.py write OUT.npy DTYPE SHAPE VALUES   DTYPE: f4 f8 i8 i4 i1 u1 b1
                                            SHAPE: 2x3, or "" for a scalar
                                            VALUES: 1,2,3 or a range 0:6
  npy.py npz OUT.npz NAME=FILE.npy ...      a stored (uncompressed) archive
  npy.py dump FILE.npy|FILE.npz             "name: dtype [shape] = [values]"
  npy.py close A.npz B.npz RTOL ATOL        every array of B in A, same dtype
                                            and shape, |a - b| <= ATOL +
                                            RTOL * |b| everywhere (exit 1 and
                                            the worst element otherwise)
"""

import ast
import struct
import sys
import zipfile

FORMATS = {"f4": "f", "f8": "d", "i8": "q", "i4": "i", "i1": "b", "u1": "B",
           "b1": "?"}


def parse_values(text, count, dtype):
    if ":" in text:
        lo, hi = (int(v) for v in text.split(":"))
        values = list(range(lo, hi))
    elif text:
        values = [float(v) if dtype[0] == "f" else int(v)
                  for v in text.split(",")]
    else:
        values = []
    if len(values) != count:
        sys.exit(f"npy.py: {len(values)} values for {count} elements")
    if dtype == "b1":
        return [bool(v) for v in values]
    return values


def npy_bytes(dtype, shape, values):
    shape_text = "(" + "".join(f"{d}," if len(shape) == 1 else f"{d}, "
                               for d in shape).rstrip(" ") + ")"
    header = ("{'descr': '%s', 'fortran_order': False, 'shape': %s, }"
              % ("|" + dtype if dtype[1] == "1" else "<" + dtype, shape_text))
    pad = 64 - (10 + len(header) + 1) % 64
    header += " " * pad + "\n"
    data = struct.pack("<%d%s" % (len(values), FORMATS[dtype]), *values)
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header))
            + header.encode("latin1") + data)


def parse_npy(data):
    if data[:6] != b"\x93NUMPY":
        sys.exit("npy.py: not a .npy file")
    major = data[6]
    if major == 1:
        length = struct.unpack("<H", data[8:10])[0]
        start = 10
    else:
        length = struct.unpack("<I", data[8:12])[0]
        start = 12
    header = ast.literal_eval(data[start:start + length].decode("latin1"))
    descr = header["descr"]
    dtype = descr[1:]
    shape = header["shape"]
    count = 1
    for d in shape:
        count *= d
    body = data[start + length:]
    values = struct.unpack("<%d%s" % (count, FORMATS[dtype]),
                           body[:count * struct.calcsize(FORMATS[dtype])])
    return dtype, shape, values


def show(name, data):
    dtype, shape, values = parse_npy(data)
    text = ", ".join(("%g" % v) if dtype[0] == "f" else
                     ("true" if v else "false") if dtype == "b1" else str(v)
                     for v in values)
    dims = ", ".join(str(d) for d in shape)
    print(f"{name}: {dtype} [{dims}] = [{text}]")


def read_npz(path):
    with zipfile.ZipFile(path) as z:
        return {info.filename[:-4]: parse_npy(z.read(info))
                for info in z.infolist()}


def close(path_a, path_b, rtol, atol):
    a, b = read_npz(path_a), read_npz(path_b)
    failed = False
    for name, (dtype, shape, expected) in sorted(b.items()):
        if name not in a or a[name][:2] != (dtype, shape):
            print(f"{name}: missing from {path_a} or another dtype or shape")
            failed = True
            continue
        worst, where = 0.0, None
        for i, (x, y) in enumerate(zip(a[name][2], expected)):
            excess = abs(x - y) - (atol + rtol * abs(y))
            if excess > worst or x != x or y != y:
                worst, where = excess if excess == excess else float("inf"), i
        if where is not None:
            print(f"{name}: element {where}: {a[name][2][where]} against "
                  f"{expected[where]}")
            failed = True
    print("not close" if failed else f"close: {len(b)} arrays")
    sys.exit(1 if failed else 0)


def main(argv):
    if len(argv) >= 5 and argv[1] == "write":
        _, _, out, dtype, shape_text = argv[:5]
        shape = [int(d) for d in shape_text.split("x")] if shape_text else []
        count = 1
        for d in shape:
            count *= d
        values = parse_values(argv[5] if len(argv) > 5 else "", count, dtype)
        with open(out, "wb") as f:
            f.write(npy_bytes(dtype, shape, values))
    elif len(argv) >= 3 and argv[1] == "npz":
        with zipfile.ZipFile(argv[2], "w", zipfile.ZIP_STORED) as z:
            for spec in argv[3:]:
                name, path = spec.split("=", 1)
                with open(path, "rb") as f:
                    z.writestr(name + ".npy", f.read())
    elif len(argv) == 3 and argv[1] == "dump":
        if argv[2].endswith(".npz"):
            with zipfile.ZipFile(argv[2]) as z:
                for info in z.infolist():
                    show(info.filename[:-4], z.read(info))
        else:
            with open(argv[2], "rb") as f:
                show(argv[2], f.read())
    elif len(argv) == 6 and argv[1] == "close":
        close(argv[2], argv[3], float(argv[4]), float(argv[5]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
