"""The memory advice's figures against what the compiler then does.

  check_advice.py config ERR CFG     writes the --memory-budget the advice in
                                     ERR (nnc-run's stderr) names as a
                                     --config file
  check_advice.py report ERR OUT     checks that the report in OUT (a run
                                     with that budget) planned a peak within
                                     it, the one the advice said
"""

import re
import sys


def advised(path):
    text = open(path).read()
    m = re.search(r"--memory-budget (\d+) would cut the planned peak to "
                  r"([0-9.]+) (k?B|MB)", text)
    if not m:
        print("%s: no --memory-budget figure in the memory advice" % path)
        sys.exit(1)
    scale = {"B": 1, "kB": 1e3, "MB": 1e6}[m.group(3)]
    # Rounded as printed: within half a unit of its last digit.
    digits = len(m.group(2).partition(".")[2])
    return (int(m.group(1)), float(m.group(2)) * scale,
            0.5 * 10 ** -digits * scale)


def main():
    mode, err, other = sys.argv[1:4]
    budget, peak, rounding = advised(err)
    if mode == "config":
        with open(other, "w") as f:
            f.write("memory-budget %d\n" % budget)
        print("advised budget found")
        return
    report = open(other).read()
    m = re.search(r"planned peak: (\d+) bytes without recomputation, (\d+) "
                  r"with", report)
    if not m:
        print("%s: no memory budget in the report" % other)
        sys.exit(1)
    before, after = int(m.group(1)), int(m.group(2))
    if not (after <= budget < before and abs(after - peak) <= rounding):
        print("advised %d for a peak of %g; planned %d (%d without)" %
              (budget, peak, after, before))
        sys.exit(1)
    print("the advised budget holds")


if __name__ == "__main__":
    main()
