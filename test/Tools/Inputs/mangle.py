#!/usr/bin/env python3
"""Feeds nnc-opt damaged variants of the lit inputs and fails on any crash.

Every variant must end with exit status 0 or 1 and without the marks of a
crash (signal, assertion, sanitizer report, LLVM stack dump). Variants are
drawn from a fixed seed, so a failure reproduces; the failing input is
printed.
"""
import argparse
import concurrent.futures
import os
import pathlib
import random
import re
import subprocess
import sys

CRASH_MARKS = ("Stack dump", "PLEASE submit a bug report", "Assertion",
               "AddressSanitizer", "runtime error:", "LeakSanitizer",
               "UndefinedBehaviorSanitizer")
NUMBER = re.compile(r"(?<![%#\w])-?\d+")
REPLACEMENTS = ["0", "-1", "1", "-7", "9223372036854775807", "4294967296",
                "-9223372036854775808", "3", "?"]


def chunks(paths, suffix):
    for path in paths:
        text = path.read_text()
        if suffix != ".mlir":
            yield path, text
            continue
        for chunk in text.split("// -----"):
            if "nnc." in chunk:
                yield path, chunk


def mangle(rng, text):
    kind = rng.randrange(6)
    if kind == 0:  # truncate
        return text[: rng.randrange(len(text))]
    if kind == 1:  # replace a number
        numbers = list(NUMBER.finditer(text))
        if numbers:
            m = rng.choice(numbers)
            return text[: m.start()] + rng.choice(REPLACEMENTS) + text[m.end():]
    if kind == 2:  # drop a line
        lines = text.splitlines(True)
        if lines:
            del lines[rng.randrange(len(lines))]
            return "".join(lines)
    if kind == 3:  # swap an element type
        # ("index" is left out: array<index: ...> crashes the upstream MLIR 22
        # parser itself, outside nnc.)
        types = ["f32", "f16", "bf16", "f64", "i64", "i32", "i8", "i1", "i16"]
        present = [t for t in types if t in text]
        if present:
            return text.replace(rng.choice(present), rng.choice(types), 1)
    if kind == 4:  # drop a dimension from one tensor type
        m = list(re.finditer(r"tensor<(\d+|\?)x", text))
        if m:
            pick = rng.choice(m)
            return text[: pick.start()] + "tensor<" + text[pick.end():]
    # flip a byte
    i = rng.randrange(len(text)) if text else 0
    return text[:i] + chr(rng.randrange(32, 127)) + text[i + 1:]


def run(opt, text, extra):
    env = dict(os.environ)
    proc = subprocess.run([opt] + extra,
                          input=text, capture_output=True, text=True, env=env,
                          timeout=60)
    bad = proc.returncode not in (0, 1) or any(
        mark in proc.stderr for mark in CRASH_MARKS)
    return bad, proc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("opt")
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--onnx", action="store_true",
                    help="mangle *.onnxtxt models for nnc-translate instead")
    args = ap.parse_args()
    suffix = ".onnxtxt" if args.onnx else ".mlir"
    paths = sorted(p for d in args.dirs for p in pathlib.Path(d).rglob("*" + suffix)
                   if "Inputs" not in p.parts)
    corpus = list(chunks(paths, suffix))
    if not corpus:
        print("no inputs found", file=sys.stderr)
        return 1
    rng = random.Random(args.seed)
    if args.onnx:
        pipelines = [["--import-onnx-text"]]
    else:
        pipelines = [["--allow-unregistered-dialect"] + p for p in
                     [[], ["--canonicalize"], ["--nnc-shape-inference"],
                      ["--nnc-shape-inference=input-shapes=0:2x3"]]]
    jobs = []
    for _ in range(args.count):
        path, chunk = rng.choice(corpus)
        jobs.append((path, mangle(rng, chunk), rng.choice(pipelines)))
    failures = 0
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        results = pool.map(lambda j: (j, run(args.opt, j[1], j[2])), jobs)
        for (path, text, extra), (bad, proc) in results:
            if bad:
                failures += 1
                print(f"CRASH (exit {proc.returncode}) on a variant of {path} "
                      f"with {extra}:\n----- input\n{text}\n----- stderr\n"
                      f"{proc.stderr[-4000:]}\n")
    print(f"{len(jobs) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
