#!/usr/bin/env python3
"""Runs nnc-run train as the ranks of a data-parallel run, as a launcher would.

Usage: dp_launch.py MODE NNC_RUN [ARG...]

The ARGs are `nnc-run train`'s; "{rank}" in one becomes the rank.

  external   two ranks started here with torchrun's variables (RANK,
             WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR,
             MASTER_PORT on a free port); prints each rank's exit status and
             its stderr, rank by rank.
  kill       the same, and once rank 0's metrics log (--metrics, a .jsonl
             path among the ARGs) has 3 step records, rank 1 is killed
             (SIGKILL); prints rank 0's status, its stderr, and whether it
             ended within 60 s of the kill.
  stall      as kill, but rank 1 is stopped (SIGSTOP) instead: rank 0 must
             end on its collective timeout (--dist-timeout), within 60 s.
  launcher   nnc-run train --nproc 2 ARGS...: once the metrics log has 3
             step records, the rank whose RANK is 1 is killed; prints the
             launcher's exit status, its stderr, and whether it ended within
             60 s of the kill.
Needs nothing but Python 3.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time

BOUND = 60.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def metrics_path(args):
    for i, a in enumerate(args):
        if a == "--metrics" and i + 1 < len(args):
            return args[i + 1]
        if a.startswith("--metrics="):
            return a.split("=", 1)[1]
    sys.exit("dp_launch.py: this mode needs --metrics FILE.jsonl")


def steps_logged(path):
    try:
        with open(path) as f:
            return sum(1 for line in f
                       if line.strip() and json.loads(line).get("kind") == "step")
    except (OSError, ValueError):
        return 0


def wait_for_steps(path, procs, count=3, limit=300):
    start = time.time()
    while steps_logged(path) < count:
        if any(p.poll() is not None for p in procs):
            return False
        if time.time() - start > limit:
            return False
        time.sleep(0.05)
    return True


def start_ranks(nnc_run, args, world=2):
    port = free_port()
    procs = []
    for rank in range(world):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(world),
                   LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(world),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        argv = [nnc_run, "train"] + [a.replace("{rank}", str(rank))
                                     for a in args]
        procs.append(subprocess.Popen(argv, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    return procs


def report(rank, proc, timeout=300):
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        print(f"rank {rank}: HUNG (killed after {timeout} s)")
    print(f"rank {rank}: exit status {proc.returncode}")
    for line in err.splitlines():
        print(f"rank {rank} stderr: {line}")
    for line in out.splitlines():
        print(f"rank {rank} stdout: {line}")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    mode, nnc_run, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    if mode == "external":
        procs = start_ranks(nnc_run, args)
        for rank, proc in enumerate(procs):
            report(rank, proc)
        return 0
    if mode in ("kill", "stall"):
        procs = start_ranks(nnc_run, args)
        if not wait_for_steps(metrics_path(args), procs):
            print("the run ended or stalled before 3 steps")
            for rank, proc in enumerate(procs):
                report(rank, proc, timeout=5)
            return 1
        os.kill(procs[1].pid, signal.SIGKILL if mode == "kill"
                else signal.SIGSTOP)
        killed = time.time()
        try:
            procs[0].wait(timeout=BOUND)
        except subprocess.TimeoutExpired:
            pass
        took = time.time() - killed
        if mode == "stall":
            procs[1].kill()
        print(f"rank 0 ended within {BOUND:.0f} s: "
              f"{'yes' if procs[0].poll() is not None and took < BOUND else 'NO'}")
        report(0, procs[0], timeout=5)
        procs[1].wait()
        return 0
    if mode == "launcher":
        launcher = subprocess.Popen([nnc_run, "train", "--nproc", "2"] + args,
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
        if not wait_for_steps(metrics_path(args), [launcher]):
            print("the run ended or stalled before 3 steps")
            report(0, launcher, timeout=5)
            return 1
        # The launcher's children; the one whose RANK is 1.
        victim = None
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                if ppid != launcher.pid:
                    continue
                with open(f"/proc/{pid}/environ", "rb") as f:
                    env = f.read().split(b"\0")
                if b"RANK=1" in env:
                    victim = int(pid)
            except (OSError, ValueError, IndexError):
                continue
        if victim is None:
            print("no rank 1 among the launcher's children")
            launcher.kill()
            return 1
        os.kill(victim, signal.SIGKILL)
        killed = time.time()
        try:
            out, err = launcher.communicate(timeout=BOUND)
        except subprocess.TimeoutExpired:
            launcher.kill()
            out, err = launcher.communicate()
        took = time.time() - killed
        print(f"the launcher ended within {BOUND:.0f} s: "
              f"{'yes' if took < BOUND else 'NO'}")
        print(f"launcher: exit status {launcher.returncode}")
        for line in err.splitlines():
            print(f"launcher stderr: {line}")
        return 0
    sys.exit(f"dp_launch.py: unknown mode '{mode}'")


if __name__ == "__main__":
    sys.exit(main())
