#!/usr/bin/python3
#===- bench/dist.py - data-parallel scaling, nnc against PyTorch DDP -----===#
#
# The "Data-parallel scaling" section of bench/run.py (--dist): the
# char-level GPT of examples/chargpt trained with Adam at a batch of 32 per
# rank, one thread per rank, on 1 and 2 ranks over Gloo on 127.0.0.1: nnc
# (`nnc-run train --nproc 2`, buckets overlapping backward or not) beside
# PyTorch (one process, then DistributedDataParallel with Gloo), all in the
# same run on the same data. Weak scaling, as DDP is used: each rank keeps
# its batch, so two ranks train twice the samples per step.
#
#===----------------------------------------------------------------------===#
"""Data-parallel scaling of the char-level GPT: nnc against PyTorch DDP.

  /usr/bin/python3 bench/dist.py [--steps N] [--nnc-run PATH] [--json FILE]

Prints one row per configuration (median step time of rank 0 after the
warm-up, samples per second of all ranks together, the scaling efficiency
against one rank) and, with --json, writes them for run.py's report.
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BATCH = 32
LR = 3e-3
WARMUP = 5


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prepare_data(folder):
    subprocess.run(["/usr/bin/python3",
                    os.path.join(ROOT, "utils", "prepare_chargpt_data.py"),
                    "--out-dir", folder, "--train-samples", "4096",
                    "--val-samples", "64"],
                   check=True, stdout=subprocess.DEVNULL)
    return os.path.join(folder, "train.npz")


def nnc_row(nnc_run, data, cache, folder, steps, ranks, extra, label):
    """Runs nnc-run train; the step times of rank 0 from its metrics log."""
    metrics = os.path.join(folder, "nnc-%s.jsonl" % label.replace(" ", "-"))
    if os.path.exists(metrics):
        os.remove(metrics)
    argv = [nnc_run, "train", os.path.join(ROOT, "examples", "chargpt",
                                           "model.onnx"),
            "--data", data, "--batch-size", str(BATCH), "--optimizer", "adam",
            "--lr", str(LR), "--steps", str(steps), "--threads", "1",
            "--cache-dir", cache, "--progress", "none", "--metrics", metrics]
    if ranks > 1:
        argv += ["--nproc", str(ranks)]
    argv += extra
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError("nnc-run failed (%d): %s" %
                           (done.returncode, done.stderr.strip()[-400:]))
    times = []
    with open(metrics) as f:
        for line in f:
            record = json.loads(line)
            if record.get("kind") == "step":
                times.append(record["seconds"])
    waited = buckets = None
    for line in done.stdout.splitlines():
        if line.startswith("data parallel:") and "waiting for them" in line:
            # "... per step N gradient bucket(s), ...; rank 0: A s in
            # collectives, B s waiting for them (...)"
            tail = line.split("rank 0:")[1]
            waited = float(tail.split(" s waiting")[0].split(",")[-1])
            buckets = int(line.split("per step ")[1].split(" ")[0])
    return times[WARMUP:], waited, buckets


# One rank of PyTorch's side, run as `dist.py --torch-rank R ...`.
def torch_rank(args):
    import numpy as np
    import torch
    import torch.nn.functional as F
    sys.path.insert(0, os.path.join(ROOT, "utils"))
    from export_training_refs import TinyGPT
    torch.set_num_threads(1)
    rank, world = args.torch_rank, args.world
    torch.manual_seed(0)
    model = TinyGPT(vocab=97, seq=32, d_model=64, heads=4, layers=2)
    if world > 1:
        import torch.distributed as dist
        dist.init_process_group("gloo", rank=rank, world_size=world)
        model = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    d = np.load(args.data)
    x = torch.from_numpy(d["tokens"])
    y = torch.from_numpy(d["labels"])
    gen = torch.Generator().manual_seed(0)
    order = torch.randperm(len(x), generator=gen)
    times = []
    for step in range(args.steps):
        # Rank r's piece of the global batch, as nnc's shards take it.
        lo = (step * world + rank) * BATCH % (len(x) - BATCH)
        rows = order[lo:lo + BATCH]
        start = time.perf_counter()
        opt.zero_grad()
        loss = F.cross_entropy(model(x[rows]), y[rows].reshape(-1))
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - start)
    if rank == 0:
        with open(args.json, "w") as f:
            json.dump(times[WARMUP:], f)
    if world > 1:
        import torch.distributed as dist
        dist.destroy_process_group()
    return 0


def torch_row(data, folder, steps, ranks):
    out = os.path.join(folder, "torch-%d.json" % ranks)
    env = dict(os.environ, MASTER_ADDR="127.0.0.1",
               MASTER_PORT=str(free_port()), OMP_WAIT_POLICY="PASSIVE")
    procs = [subprocess.Popen(
        ["/usr/bin/python3", os.path.abspath(__file__), "--torch-rank",
         str(r), "--world", str(ranks), "--data", data, "--steps", str(steps),
         "--json", out], env=env, stderr=subprocess.PIPE, text=True)
        for r in range(ranks)]
    errors = [p.communicate()[1] for p in procs]
    if any(p.returncode for p in procs):
        raise RuntimeError("PyTorch rank failed: %s" %
                           "".join(errors).strip()[-400:])
    with open(out) as f:
        return json.load(f), None


def measure(nnc_run, steps):
    """The rows of the section, in order."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="nnc-dist-") as folder:
        data = prepare_data(folder)
        cache = os.path.join(folder, "cache")
        # Compiles once into the cache (both the step and the gradient and
        # update functions), so that no row times a compilation.
        nnc_row(nnc_run, data, cache, folder, WARMUP + 1, 1, [], "warm 1")
        nnc_row(nnc_run, data, cache, folder, WARMUP + 1, 2, [], "warm 2")
        configs = [
            ("nnc", 1, [], "1 rank"),
            ("nnc", 2, [], "2 ranks, 25 MiB buckets ({})"),
            ("nnc", 2, ["--bucket-size", "64KiB"],
             "2 ranks, 64 KiB buckets ({}), overlapping backward"),
            ("nnc", 2, ["--bucket-size", "64KiB", "--no-overlap"],
             "2 ranks, 64 KiB buckets ({}), after backward"),
            ("PyTorch", 1, None, "1 process"),
            ("PyTorch", 2, None, "2 ranks, DDP (25 MB buckets)"),
        ]
        for who, ranks, extra, label in configs:
            print("  %s %s ..." % (who, label), flush=True)
            try:
                if who == "nnc":
                    times, waited, buckets = nnc_row(
                        nnc_run, data, cache, folder, steps, ranks, extra,
                        label.replace(" ({})", ""))
                    # The bucket count as nnc-run reports it.
                    label = label.format(buckets)
                else:
                    times, waited = torch_row(data, folder, steps, ranks)
                step = statistics.median(times)
                rows.append({"who": who, "label": label, "ranks": ranks,
                             "step_ms": step * 1e3,
                             "samples_per_s": ranks * BATCH / step,
                             "waited_s": waited, "steps": len(times)})
            except Exception as e:  # noqa: BLE001 - recorded in the report
                rows.append({"who": who, "label": label.replace("{}", "?"),
                             "ranks": ranks,
                             "error": str(e)})
    for who in ("nnc", "PyTorch"):
        one = [r for r in rows if r["who"] == who and r["ranks"] == 1 and
               "error" not in r]
        for r in rows:
            if r["who"] == who and "error" not in r and one:
                r["efficiency"] = (r["samples_per_s"] /
                                   (r["ranks"] * one[0]["samples_per_s"]))
    return rows


def section(rows, steps):
    """The Markdown of the section."""
    lines = [
        "## Data-parallel scaling",
        "",
        "The char-level GPT (examples/chargpt, 114,529 parameters) trained "
        "with Adam, batch %d per rank, one thread per rank, ranks joined "
        "over Gloo on 127.0.0.1 (weak scaling, as DDP is used: two ranks "
        "train twice the samples per step). Median step time of rank 0 over "
        "%d steps after %d of warm-up; efficiency is the samples per second "
        "of all ranks over the ranks times one rank's. nnc's rows say how "
        "long rank 0's steps waited for their collectives in all (the "
        "rendezvous included)." % (BATCH, steps - WARMUP, WARMUP),
        "",
        "| | configuration | step ms | samples/s | efficiency | waited for collectives |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r:
            lines.append("| %s | %s | error: %s | | | |" %
                         (r["who"], r["label"], r["error"].replace("|", "/")))
            continue
        lines.append("| %s | %s | %.1f | %.0f | %s | %s |" % (
            r["who"], r["label"], r["step_ms"], r["samples_per_s"],
            "%.0f %%" % (100 * r["efficiency"]) if "efficiency" in r else "",
            "%.2f s" % r["waited_s"] if r.get("waited_s") is not None
            else ""))
    lines.append("")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--nnc-run",
                        default=os.path.join(ROOT, "build", "bin", "nnc-run"))
    parser.add_argument("--json")
    parser.add_argument("--torch-rank", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--world", type=int, default=1,
                        help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_rank is not None:
        return torch_rank(args)
    if args.steps <= WARMUP:
        parser.error("--steps must be more than the %d of warm-up" % WARMUP)
    rows = measure(args.nnc_run, args.steps)
    print(section(rows, args.steps))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
