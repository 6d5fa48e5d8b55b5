#!/usr/bin/env python3
"""Imports every ONNX backend node test model and reports what nnc accepts.

For each <data>/<test>/model.onnx (--data takes one or more directories,
e.g. the node, pytorch-converted, pytorch-operator and simple suites; with
several, tests are named <suite>/<test> and a summary line per suite is
printed), runs `nnc-translate --import-onnx`, which
imports and verifies the module, with no inputs bound (integer inputs that
shape the results stay inputs, specialized on their values when compiled).
Each failure must be a diagnostic (exit 1) naming the node and reason; a
crash fails the run. With --expected, every test listed there
must import: the list only grows.
"""
import argparse
import collections
import concurrent.futures
import os
import pathlib
import re
import subprocess
import sys

CRASH_MARKS = ("Stack dump", "PLEASE submit a bug report", "Assertion",
               "AddressSanitizer", "runtime error:")


def run(translate, model, extra):
    proc = subprocess.run([translate, "--import-onnx", str(model)] + extra,
                          capture_output=True, text=True, timeout=300)
    crashed = proc.returncode not in (0, 1) or any(
        m in proc.stderr for m in CRASH_MARKS)
    return proc, crashed


def import_test(translate, test_dir, name):
    model = test_dir / "model.onnx"
    proc, crashed = run(translate, model, [])
    reason = ""
    if proc.returncode != 0:
        m = re.search(r"error: (.*)", proc.stderr)
        reason = m.group(1) if m else proc.stderr.strip()[-300:]
    return name, proc.returncode == 0, crashed, reason


def category(reason):
    reason = re.sub(r"node '[^']*' ", "", reason)
    m = re.search(r"unsupported: (.*?)( is not supported yet| at opset.*)?$",
                  reason)
    return m.group(1) if m else reason[:100]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("translate")
    ap.add_argument("--data", nargs="+",
                    default=["/usr/share/libonnx-testdata/data/node"],
                    help="one or more directories of <test>/model.onnx")
    ap.add_argument("--expected", help="tests that must import")
    ap.add_argument("--write-expected", help="write the passing tests here")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    several = len(args.data) > 1
    tests = []  # (suite, directory, name)
    for data in args.data:
        root = pathlib.Path(data)
        found = sorted(p for p in root.iterdir()
                       if (p / "model.onnx").is_file()) if root.is_dir() else []
        if not found:
            print(f"no ONNX test models under {data}", file=sys.stderr)
            return 1
        tests += [(root.name, p, f"{root.name}/{p.name}" if several else p.name)
                  for p in found]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        results = list(pool.map(
            lambda t: import_test(args.translate, t[1], t[2]), tests))
    passed = [r for r in results if r[1]]
    crashes = [r for r in results if r[2]]
    reasons = collections.Counter(category(r[3]) for r in results if not r[1])
    for name, ok, crashed, reason in results:
        if crashed:
            print(f"CRASH {name}: {reason}")
        elif args.verbose and not ok:
            print(f"FAIL {name}: {reason}")
    if several:
        for data in args.data:
            suite = pathlib.Path(data).name
            mine = [r for t, r in zip(tests, results) if t[0] == suite]
            print(f"  {suite}: {sum(1 for r in mine if r[1])} of {len(mine)}")
    print(f"{len(passed)} of {len(tests)} node test models import and verify")
    print("failures by reason:")
    for reason, count in reasons.most_common():
        print(f"  {count:4d}  {reason}")
    status = 0
    if crashes:
        status = 1
    if args.expected:
        expected = [l.strip() for l in open(args.expected) if l.strip()
                    and not l.startswith("#")]
        names = {r[0]: r for r in results}
        regressed = [e for e in expected if e not in names or not names[e][1]]
        for e in regressed:
            print(f"REGRESSION {e}: {names[e][3] if e in names else 'missing'}")
        print(f"{len(expected) - len(regressed)} passed, {len(regressed)} failed")
        if regressed:
            status = 1
    if args.write_expected:
        with open(args.write_expected, "w") as f:
            f.write("# ONNX node tests that import and verify; only ever grows.\n")
            for r in passed:
                f.write(r[0] + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
