#!/usr/bin/env python3
"""Checks that every op defined in the dialect's ODS has a round-trip test.

Reads the op mnemonics from dialects/nnc/NNC*Ops.td and requires each to
appear as `nnc.<mnemonic>` in some test/Dialect/NNC/ops-*.mlir file.
"""
import pathlib
import re
import sys


def main(src_root):
    root = pathlib.Path(src_root)
    mnemonics = {}
    for td in sorted((root / "dialects" / "nnc").glob("NNC*Ops.td")):
        text = td.read_text()
        for m in re.finditer(r'^def NNC_\w+Op\s*:\s*NNC_\w+<\s*"(\w+)"', text,
                             re.M):
            mnemonics[m.group(1)] = td.name
    tests = root / "test" / "Dialect" / "NNC"
    ops_text = "".join(p.read_text() for p in tests.glob("ops-*.mlir"))
    used = set(re.findall(r"\bnnc\.(\w+)", ops_text))
    missing = sorted(m for m in mnemonics if m not in used)
    for m in missing:
        print(f"op nnc.{m} ({mnemonics[m]}) has no round-trip test")
    print(f"{len(mnemonics)} ops, {len(mnemonics) - len(missing)} with round-trip tests")
    if len(mnemonics) < 90:
        print("found suspiciously few ops; is the .td parsing broken?")
        return 1
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
