#!/usr/bin/env python3
"""Runs one `nnc-run train` command once per seed and keeps what each run
printed, so a test can compare means over seeds instead of one seed's
draw.

  train_seeds.py --seeds 0,1,2 --out PREFIX -- nnc-run train ...

Run k gets `--seed k` appended and its output goes to PREFIX.seed<k>.txt;
the files are printed comma-separated, in the form compare_runs.py takes.
Exits with the first failing run's status.
"""

import argparse
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        sys.exit("train_seeds.py: no command after --")
    paths = []
    for seed in args.seeds.split(","):
        path = f"{args.out}.seed{seed}.txt"
        with open(path, "w") as out:
            status = subprocess.call(command + ["--seed", seed], stdout=out)
        if status != 0:
            sys.exit(f"train_seeds.py: seed {seed} exited with {status} "
                     f"(output in {path})")
        paths.append(path)
    print(",".join(paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
