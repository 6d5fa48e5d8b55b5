#!/usr/bin/env python3
"""Checks a Chrome trace JSON file against the trace event format.

Usage: check_trace.py TRACE.json

The file must be an object with "traceEvents", a list of complete events:
"ph" "X", a non-empty string "name" and "cat", numbers "ts" and "dur" >= 0
(microseconds), integers "pid" and "tid"; events of one thread must not
overlap unless one contains the other (what Perfetto draws as nesting).
Prints "N complete events: <cat> <count>, ..." and exits 1 on any mismatch.
"""
import json
import sys


def fail(message):
    print("invalid trace: " + message)
    sys.exit(1)


def main():
    with open(sys.argv[1]) as f:
        trace = json.load(f)
    if not isinstance(trace, dict) or not isinstance(
            trace.get("traceEvents"), list):
        fail("no traceEvents list")
    counts = {}
    by_thread = {}
    for i, e in enumerate(trace["traceEvents"]):
        if not isinstance(e, dict):
            fail("event %d is not an object" % i)
        if e.get("ph") != "X":
            fail("event %d has ph %r, expected 'X'" % (i, e.get("ph")))
        for key in ("name", "cat"):
            if not isinstance(e.get(key), str) or not e[key]:
                fail("event %d has no %s" % (i, key))
        for key in ("ts", "dur"):
            if not isinstance(e.get(key), (int, float)) or e[key] < 0:
                fail("event %d has a bad %s: %r" % (i, key, e.get(key)))
        for key in ("pid", "tid"):
            if not isinstance(e.get(key), int):
                fail("event %d has a bad %s: %r" % (i, key, e.get(key)))
        counts[e["cat"]] = counts.get(e["cat"], 0) + 1
        by_thread.setdefault((e["pid"], e["tid"]), []).append(
            (e["ts"], e["ts"] + e["dur"]))
    for spans in by_thread.values():
        spans.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for start, end in spans:
            while stack and stack[-1] <= start:
                stack.pop()
            if stack and end > stack[-1] + 1e-3:
                fail("events overlap without nesting at ts %.3f" % start)
            stack.append(end)
    print("%d complete events: %s" % (
        len(trace["traceEvents"]),
        ", ".join("%s %d" % kv for kv in sorted(counts.items()))))


if __name__ == "__main__":
    main()
