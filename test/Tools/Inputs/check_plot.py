#!/usr/bin/env python3
"""Checks an SVG chart of `nnc-run plot` against the metrics logs it drew.

Usage: check_plot.py FILE.svg LOG [LOG...]   (the logs in the order given)

Reads the logs itself (JSON lines or CSV, standard library only) and checks
the chart's contract: for each log K and series S (loss, eval,
learning_rate, throughput, busy, data_wait, other) with a finite value there
is exactly one <path class="curve" data-run="K" data-series="S"> with a
<title>, none otherwise; its `d` has one vertex per finite value, in log
order, "M" at the first and after each value that is not finite, "L"
elsewhere; in each panel every vertex's y is a - b * value (b > 0) and
across all panels x is c + d * step (d > 0), up to the two decimals
written. Every numeric attribute must be a finite number.

Prints the legend's labels and, per path, its vertex and subpath counts;
exits 1 with "invalid plot: ..." on any mismatch.
"""
import csv
import io
import json
import math
import re
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
SERIES = ["loss", "eval", "learning_rate", "throughput", "busy", "data_wait",
          "other"]
TOLERANCE = 0.02  # pixels: coordinates are written with two decimals


def fail(message):
    print("invalid plot: " + message)
    sys.exit(1)


def number(value):
    """A log value as a float; None, '' and null are NaN (no value)."""
    if value is None or value == "":
        return math.nan
    return float(value)


def read_records(path):
    """The log's records as dicts of strings or numbers, in order."""
    with open(path, newline="") as f:
        text = f.read()
    if path.endswith(".csv"):
        return list(csv.DictReader(io.StringIO(text)))
    records = []
    for line in text.splitlines():
        if not line.strip():
            continue
        # printf's %g writes nan and inf, which JSON spells otherwise.
        line = re.sub(r":\s*(-?)(nan|inf(inity)?)\b",
                      lambda m: ": " + ("NaN" if m.group(2).lower() == "nan"
                                        else m.group(1) + "Infinity"),
                      line, flags=re.IGNORECASE)
        records.append(json.loads(line))
    return records


def expected_series(path):
    """{series: [(step, value)]} of one log, as the chart should draw it."""
    series = {name: [] for name in SERIES}
    steps_throughput, interval_throughput = [], []
    for r in read_records(path):
        kind, step = r.get("kind"), r.get("step")
        if kind not in ("step", "eval", "interval"):
            continue
        step = number(step)
        if kind == "step":
            series["loss"].append((step, number(r.get("loss"))))
            series["learning_rate"].append(
                (step, number(r.get("learning_rate"))))
            steps_throughput.append(
                (step, number(r.get("samples_per_second"))))
        elif kind == "interval":
            interval_throughput.append(
                (step, number(r.get("samples_per_second"))))
            for name in ("busy", "data_wait", "other"):
                series[name].append((step, number(r.get(name))))
        else:
            for key in ("accuracy", "mse", "eval_metric"):
                if key in r:
                    series["eval"].append((step, number(r[key])))
                    break
    finite = any(math.isfinite(v) for _, v in interval_throughput)
    series["throughput"] = interval_throughput if finite else steps_throughput
    return series


def check_number(element, name, value):
    try:
        if math.isfinite(float(value)):
            return
    except ValueError:
        pass
    fail("%s has %s=%r, not a finite number" % (element, name, value))


def fit(pairs, what):
    """Least squares y = p + q * v over (v, y); returns q, checks residuals."""
    n = len(pairs)
    mv = sum(v for v, _ in pairs) / n
    my = sum(y for _, y in pairs) / n
    var = sum((v - mv) ** 2 for v, _ in pairs)
    if var <= (1e-9 * max(abs(v) for v, _ in pairs)) ** 2 * n:
        # One value throughout (a constant learning rate): one height.
        if max(y for _, y in pairs) - min(y for _, y in pairs) > TOLERANCE:
            fail("%s: one value drawn at several heights" % what)
        return None
    q = sum((v - mv) * (y - my) for v, y in pairs) / var
    p = my - q * mv
    worst = max(abs(y - (p + q * v)) for v, y in pairs)
    if worst > TOLERANCE:
        fail("%s: a coordinate is %.3f pixels off the affine map of the "
             "values" % (what, worst))
    return q


def main():
    svg, logs = sys.argv[1], sys.argv[2:]
    root = ET.parse(svg).getroot()
    if root.tag != SVG + "svg":
        fail("the root is %s, not an SVG element" % root.tag)
    for element in root.iter():
        for name in ("x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r",
                     "width", "height"):
            if name in element.attrib:
                check_number(element.tag, name, element.attrib[name])

    legend = {}
    for g in root.iter(SVG + "g"):
        if g.get("class") == "legend":
            legend[int(g.get("data-run"))] = g.find(SVG + "text").text
    if sorted(legend) != list(range(len(logs))):
        fail("legend entries for runs %s, expected %d" % (sorted(legend),
                                                           len(logs)))
    for run in range(len(logs)):
        print("legend %d: %s" % (run, legend[run]))

    # The paths, with their panels.
    paths = {}
    for panel in root.iter(SVG + "g"):
        if panel.get("class") != "panel":
            continue
        for path in panel.iter(SVG + "path"):
            if path.get("class") != "curve":
                continue
            key = (int(path.get("data-run")), path.get("data-series"))
            if key in paths:
                fail("two paths for run %d series %s" % key)
            paths[key] = (panel.get("data-panel"), path)
    if len(paths) != len(list(root.iter(SVG + "path"))):
        fail("a path outside the panels or without class=curve")

    xs, ys = [], {}
    for run, log in enumerate(logs):
        for name, points in expected_series(log).items():
            finite = [math.isfinite(v) for _, v in points]
            if not any(finite):
                if (run, name) in paths:
                    fail("run %d has a %s path but no value" % (run, name))
                continue
            if (run, name) not in paths:
                fail("no path for run %d series %s" % (run, name))
            panel, path = paths.pop((run, name))
            title = path.find(SVG + "title")
            if title is None or not title.text.startswith(legend[run] + ": "):
                fail("run %d %s: no <title> naming the run" % (run, name))
            d = path.get("d")
            if not re.fullmatch(r"[ML]-?\d+(\.\d+)? -?\d+(\.\d+)?"
                                r"( [ML]-?\d+(\.\d+)? -?\d+(\.\d+)?)*", d):
                fail("run %d %s: malformed d=%r" % (run, name, d))
            vertices = re.findall(r"([ML])(\S+) (\S+)", d)
            kept = [(i, p) for i, p in enumerate(points) if finite[i]]
            if len(vertices) != len(kept):
                fail("run %d %s: %d vertices for %d finite values"
                     % (run, name, len(vertices), len(kept)))
            for (i, (step, value)), (command, x, y) in zip(kept, vertices):
                starts = i == 0 or not finite[i - 1]
                if command != ("M" if starts else "L"):
                    fail("run %d %s: value %d drawn with %s" % (run, name, i,
                                                                command))
                xs.append((step, float(x)))
                ys.setdefault(panel, []).append((value, float(y)))
            print("run %d %s: %d vertices, %d subpaths" % (
                run, name, len(vertices), d.count("M")))
    if paths:
        fail("paths for series no log has: %s" % sorted(paths))
    for panel, pairs in sorted(ys.items()):
        slope = fit(pairs, "panel " + panel)
        if slope is not None and slope >= 0:
            fail("panel %s: y does not decrease as the value grows" % panel)
    slope = fit(xs, "the step axis")
    if slope is None or slope <= 0:
        fail("x does not increase with the step")
    print("ok: %d panels" % len(ys))


if __name__ == "__main__":
    main()
