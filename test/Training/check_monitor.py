"""Checks the monitor's records in an nnc-run metrics log (.jsonl or .csv).

Every "interval" record's busy, data_wait and other shares add up to 1 and
lie in [0, 1]; its seconds, resident and available memory are positive and
its planned peak is that of --planned-peak when given; steps rise; there
are --intervals of them when given. Prints what it saw, or exits 1 naming
the first record that breaks a rule.
"""

import argparse
import csv
import json
import sys


def records(path):
    if path.endswith(".jsonl"):
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    out = []
    for row in rows:
        record = {"kind": row["kind"]}
        for key, value in row.items():
            if key == "kind" or value in ("", None):
                continue
            if key in ("text",):
                record[key] = value
                continue
            record[key] = float(value)
        out.append(record)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("log")
    parser.add_argument("--intervals", type=int)
    parser.add_argument("--planned-peak", type=int)
    args = parser.parse_args()
    intervals = [r for r in records(args.log) if r["kind"] == "interval"]
    advice = [r for r in records(args.log) if r["kind"] == "advice"]

    def fail(message, record):
        print("%s: %s: %s" % (args.log, message, record))
        sys.exit(1)

    last_step = -1
    for r in intervals:
        shares = [r["busy"], r["data_wait"], r["other"]]
        if any(s < 0 or s > 1 for s in shares):
            fail("a share outside [0, 1]", r)
        if abs(sum(shares) - 1) > 1e-5:
            fail("busy + data_wait + other = %.7f, not 1" % sum(shares), r)
        if not r["seconds"] > 0:
            fail("an interval of no time", r)
        if not (r["rss_bytes"] > 0 and r["memory_available_bytes"] > 0):
            fail("no memory figures", r)
        if r["step"] <= last_step:
            fail("steps do not rise", r)
        last_step = r["step"]
        if args.planned_peak is not None and \
                int(r["planned_peak_bytes"]) != args.planned_peak:
            fail("planned peak %d, the report says %d" %
                 (int(r["planned_peak_bytes"]), args.planned_peak), r)
    if args.intervals is not None and len(intervals) != args.intervals:
        print("%s: %d interval records, expected %d" %
              (args.log, len(intervals), args.intervals))
        sys.exit(1)
    print("%d intervals add up" % len(intervals))
    for r in advice:
        print("advice %s" % (r.get("topic") or r.get("text", "").split(":")[0]))


if __name__ == "__main__":
    main()
