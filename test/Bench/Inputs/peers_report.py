"""bench/run.py's peers and autotuning sections without PyTorch: run_peers
with stand-ins for the peers' Python (one that writes results, one that
fails, one that hangs), and the tables those results make."""

import argparse
import json
import os
import stat
import sys
import tempfile
import time

bench = sys.argv[1]
sys.path.insert(0, bench)
import run  # noqa: E402

folder = tempfile.mkdtemp(prefix="peers-report-")


def stand_in(name, body):
    """An executable that bench/run.py runs as the peers' Python."""
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write("#!/usr/bin/env python3\n" + body)
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
    return path


results = {
    "case": "mlp_digits",
    "versions": {"torch": "2.9.9", "onnxruntime": "1.99.0"},
    "infer": {"eager": {"ms": 0.1, "compile_s": 0.01},
              "compile": {"ms": 0.05, "compile_s": 31.2,
                          "max_abs_diff": 0.0},
              "max_autotune": {"error": "RuntimeError: no compiler"},
              "ort": {"ms": 0.02, "compile_s": 0.02}},
    "train": {"eager": {"ms": 8.0}, "compile": {"ms": 4.0, "compile_s": 5.0},
              "max_autotune": {"ms": 2.0, "compile_s": 9.0}},
}
writes = stand_in("writes", """import json, sys
args = sys.argv[1:]
assert args[0].endswith("peers.py"), args
assert args[args.index("--case") + 1] == "mlp_digits", args
assert args[args.index("--threads") + 1] == "2", args
assert "--train" in args, args
with open(args[args.index("--out") + 1], "w") as f:
    json.dump(%s, f)
""" % json.dumps(results))
fails = stand_in("fails", "import sys\nprint('boom: no module named torch')\n"
                 "sys.exit(3)\n")
# One that hangs after starting a worker of its own, as Inductor does: the
# timeout must end both.
pidfile = os.path.join(folder, "worker.pid")
hangs = stand_in("hangs", """import subprocess, sys, time
worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
with open(%r, "w") as f:
    f.write(str(worker.pid))
time.sleep(60)
""" % pidfile)


def ended(pid, seconds=10):
    """Whether process `pid` is gone (or a zombie nobody reaped yet) within
    `seconds`: a killed process takes a moment to die on a busy machine."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with open("/proc/%d/stat" % pid) as f:
                if f.read().split(")")[-1].split()[0] in ("Z", "X"):
                    return True
        except OSError:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)

args = argparse.Namespace(models_dir=folder, steps=5, budget=2,
                          peers_sides="eager,compile,max_autotune,ort",
                          peers_timeout=2, peers=writes)
rows = {"mlp_digits": {"batch": 64, "infer_torch_ms": 0.07,
                       "infer_nnc_ms": 0.046, "infer_nnc_tuned_ms": 0.04,
                       "train_torch_ms": 3.0, "train_nnc_ms": 2.5,
                       "compile_cached_s": 0.004,
                       "tuned_compile_cold_s": 1.5,
                       "tuned_compile_cached_s": 0.0042,
                       "infer_tuning": {"seconds": 1.2, "candidates": 3,
                                        "measured": 3, "changed": 1,
                                        "turned_down": 2}}}
rows["mlp_digits"]["peers"] = run.run_peers("mlp_digits", args)
args.peers = fails
rows["mlp_wide"] = {"peers": run.run_peers("mlp_wide", args)}
args.peers = hangs
rows["gpt_tiny"] = {"peers": run.run_peers("gpt_tiny", args)}
with open(pidfile) as f:
    worker = int(f.read())
print("worker ended: %s" % ended(worker))
args.peers = os.path.join(folder, "missing")
rows["cnn_small"] = {"peers": run.run_peers("cnn_small", args)}
print("\n".join(run.tuning_section(rows)))
print("\n".join(run.peers_section(rows)))
print("\n".join(run.peers_section({"mlp_digits": {"infer_nnc_ms": 1.0}})))
import shutil  # noqa: E402
shutil.rmtree(folder, ignore_errors=True)
