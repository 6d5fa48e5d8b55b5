#!/usr/bin/python3
#===- bench/run.py - nnc against PyTorch eager, inference and training ----===#
#
# Times inference and one training step (cross-entropy, Adam) of the models
# bench/export_models.py exports, nnc against PyTorch eager in the same
# process, on the same batch and weights and the same thread count; reports
# nnc's fusion figures (kernels, bytes moved, with and without fusion) and
# both sides' peak memory; and writes a Markdown report (docs/benchmarks.md).
# bench/README.md says how to run it and what the figures mean.
#
#===----------------------------------------------------------------------===#
"""nnc vs PyTorch eager: inference and training-step times, fusion, memory.

  /usr/bin/python3 bench/run.py [--models a,b] [--steps N] [--out FILE]
                                [--models-dir DIR] [--nnc-lib PATH] [--smoke]
                                [--remat | --remat-only] [--remat-models a,b]
                                [--remat-budgets 1.0,0.5,0.33]

--remat adds the rematerialization section (bench_remat): nnc's training
step under memory budgets (fractions of its planned peak without
recomputation) against PyTorch with and without checkpointed blocks;
--remat-only runs that section alone.

--dist adds the data-parallel scaling section (bench/dist.py): the
char-level GPT on 1 and 2 ranks over Gloo, nnc (buckets overlapping
backward or not) beside PyTorch DDP; --dist-only runs that section alone.

--smoke needs neither PyTorch nor exported models: it writes a small MLP
(mlp_digits' shape, NumPy weights) as MLIR, and compiles, runs and trains it
at batch 4 for 2 timed steps, checking nnc's output against NumPy, and
prints the fusion figures of both executables (and, when PyTorch is there,
checks the PyTorch peak-memory measurement on tensors of known sizes).
"""

import argparse
import ctypes
import math
import datetime
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

# PyTorch and nnc share this process. PyTorch's libraries link GNU's
# OpenMP runtime (libgomp) and `import torch` makes its symbols global; nnc
# opens LLVM's (libomp) only when it loads a program, and oneDNN, which
# calls GNU's entry points, then binds to whichever came first. Loading
# libomp globally before PyTorch makes it the one runtime of the process
# (it provides GNU's entry points too): PyTorch, oneDNN and nnc's loops
# share one pool of threads. With libgomp first instead, oneDNN's threads
# and nnc's own spin against each other inside every nnc step (cnn_small's
# training step: 16 ms alone, 41 ms after `import torch`).
try:
    ctypes.CDLL(os.environ.get("NNC_OPENMP_LIBRARY", "libomp.so.5"),
                mode=ctypes.RTLD_GLOBAL)
except OSError as e:
    print("run.py: cannot preload libomp (%s); PyTorch and nnc will run "
          "on two OpenMP runtimes" % e, file=sys.stderr)
# OpenBLAS's threads (nnc's GEMMs) still spin-wait a while after their
# work, as every runtime does when it runs alone; so the sides run in
# blocks (alternate(), below) with a pause before each, longer than any
# spin: each side is timed as it runs alone. The default waiting policy
# stays (OMP_WAIT_POLICY=PASSIVE, which earlier runs used, makes every one
# of nnc's kernels wake its threads again).

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nnc  # noqa: E402
from timing import (ROUNDS, SETTLE_S, WARMUP, alternate,  # noqa: E402
                    median_ms)

THREADS = 2
LR = 1e-3

# case: (ONNX model, input name, batch)
CASES = {
    "mlp_digits": ("mlp_digits", "x", 64),
    "mlp_wide": ("mlp_wide", "x", 128),
    "gpt_tiny": ("gpt_tiny", "tokens", 8),
    "cnn_small": ("cnn_small", "image", 32),
    "resnet18_b1": ("resnet18", "image", 1),
    "resnet18_b8": ("resnet18", "image", 8),
    "mobilenet_v2_b8": ("mobilenet_v2", "image", 8),
    "gpt_12": ("gpt_12", "tokens", 8),
}
# resnet18 is measured for inference only at batch 1.
TRAIN_CASES = {"mlp_digits", "mlp_wide", "gpt_tiny", "cnn_small",
               "resnet18_b8", "mobilenet_v2_b8", "gpt_12"}
# The cases of a run without --models: gpt_12 (gpt_tiny with 12 blocks) is
# there for the rematerialization section and runs in the others only when
# named.
DEFAULT_CASES = [c for c in CASES if c != "gpt_12"]
# The rematerialization section (--remat): its default cases and budgets
# (fractions of the planned peak without recomputation; 1.0 is the row
# without a budget), and the targets on the recomputed FLOPs per budget.
REMAT_CASES = ["gpt_tiny", "gpt_12", "resnet18_b8"]
REMAT_BUDGETS = "1.0,0.5,0.33"
REMAT_TARGETS = {0.5: 10.0, 0.33: 25.0}


def try_import_torch():
    try:
        import torch
        return torch
    except ImportError:
        return None


# nnc's library kernels (oneDNN convolutions); --no-library-kernels turns
# them off, to compare with generated code alone.
LIBRARY_KERNELS = 1
# The autotuner's mode for nnc (docs/Autotuning.md); --autotune on measures
# the kernel candidates during the cold compile (its time is in the cold
# compile column) into the run's fresh cache folder, which the cached
# compiles and the timed runs then use.
AUTOTUNE = "cached"
TUNING_BUDGET = 120.0


def compile_options(cache_dir, precision="f32", measure_unfused=1,
                    autotune=None):
    # measure_unfused: the stats also count the kernels and bytes moved of
    # the function compiled without fusion (the MLIR passes once more, no
    # code generation; part of the cold compile times reported).
    return nnc.CompileOptions(cache_dir=cache_dir, num_threads=THREADS,
                              measure_unfused=measure_unfused,
                              library_kernels=LIBRARY_KERNELS,
                              autotune=autotune or AUTOTUNE,
                              tuning_budget_seconds=TUNING_BUDGET,
                              precision=precision)


def trainer_labels(x, labels):
    """nnc's trainer batches labels by sample: gpt_tiny's [batch*T] next
    tokens go in as [batch, T] and are flattened to the logits' layout
    inside."""
    nnc_labels = labels.reshape(x.shape[0], -1)
    return labels if nnc_labels.shape[1] == 1 else nnc_labels


def fusion_figures(stats):
    """The fusion and memory figures of an nnc.ExecutableStats, as a dict."""
    return {
        "kernels": stats.kernel_count,
        "unfused_kernels": stats.unfused_kernel_count,
        "bytes_moved": stats.bytes_moved,
        "unfused_bytes_moved": stats.unfused_bytes_moved,
        "arena": stats.arena_bytes,
        "kernel_alloc": stats.kernel_alloc_bytes,
        "peak": stats.peak_memory_bytes,
    }


def cut(unfused, fused):
    """How much fusion removed, in percent of the unfused figure."""
    return 100.0 * (1 - fused / unfused) if unfused else None


def describe_fusion(fig):
    return ("kernels %d unfused -> %d fused, bytes moved %d unfused -> %d "
            "fused, arena %d bytes, kernel allocations %d bytes, "
            "peak %d bytes" % (
                fig["unfused_kernels"], fig["kernels"],
                fig["unfused_bytes_moved"], fig["bytes_moved"],
                fig["arena"], fig["kernel_alloc"], fig["peak"]))


def short_error(e):
    text = str(e).strip().replace("\n", " ").replace("|", "\\|")
    return text if len(text) <= 400 else text[:400] + "..."


# ---------------------------------------------------------------------------
# PyTorch's peak memory
# ---------------------------------------------------------------------------


def torch_bytes(tensors):
    """Bytes of the distinct storages under `tensors` (None skipped)."""
    storages = {}
    for t in tensors:
        if t is not None:
            storage = t.storage()
            storages[storage.data_ptr()] = storage.nbytes()
    return sum(storages.values())


def torch_peak_growth(torch, fn):
    """Runs fn() once under torch.profiler (CPU, profile_memory) and returns
    (peak, net): the highest running sum, starting at 0, of the CPU
    allocator's memory events (+bytes per allocation, -bytes per free) in
    time order, i.e. the most bytes live at once during the call beyond
    those live at its start; and the sum at its end."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU],
                 profile_memory=True) as prof:
        fn()
    # The raw events, one per allocation or free with its own timestamp
    # (profiler_util's function_events folds them into the enclosing op).
    # They come in time order; the stable sort only makes sure of it.
    cpu = torch._C._autograd.DeviceType.CPU
    events = sorted((e for e in prof.profiler.kineto_results.events()
                     if e.name() == "[memory]" and e.device_type() == cpu),
                    key=lambda e: e.start_us())
    live = peak = 0
    for e in events:
        live += e.nbytes()
        peak = max(peak, live)
    return peak, live


def torch_peak(torch, fn, tensors):
    """PyTorch's peak bytes over one call of fn(): the bytes of `tensors`
    (what is live when the call starts) plus the peak growth during it.
    Returns (peak, at_start, growth, net)."""
    at_start = torch_bytes(tensors)
    growth, net = torch_peak_growth(torch, fn)
    return at_start + growth, at_start, growth, net


def check_torch_peak(torch):
    """The measurement on a case with a known answer: 1 MB live before the
    call; inside it, 4 MB, 2 MB, free the 4, 1 MB, 8 MB (11 MB at once),
    free all. Expected peak 12 MB, growth 11 MB, net 0."""
    base = torch.empty(250000)

    def fn():
        a = torch.empty(1000000)
        b = torch.empty(500000)
        del a
        c = torch.empty(250000)
        d = torch.empty(2000000)
        del b, c, d
    fn()
    peak, at_start, growth, net = torch_peak(torch, fn, [base])
    ok = (peak, at_start, growth, net) == (12000000, 1000000, 11000000, 0)
    print("torch peak check: peak %d = %d at start + %d growth (net %d); "
          "expected 12000000 = 1000000 + 11000000 (net 0): %s" % (
              peak, at_start, growth, net, "ok" if ok else "MISMATCH"))
    return ok


# ---------------------------------------------------------------------------
# One benchmark case
# ---------------------------------------------------------------------------


def torch_model(torch, onnx_name, models_dir, proto):
    """The PyTorch module of `onnx_name` with the ONNX file's weights."""
    import export_models
    return export_models.module_with_weights(onnx_name, proto)


def measure_torch_peak(torch, row, phase, fn, live):
    try:
        peak, at_start, growth, net = torch_peak(torch, fn, live)
    except Exception as e:  # noqa: BLE001 - recorded in the report
        row[phase + "_torch_peak_error"] = short_error(e)
        print("  PyTorch peak (%s) failed: %s" % (phase, e), flush=True)
        return
    row[phase + "_torch_peak"] = peak
    print("  PyTorch %s peak: %d bytes = %d live at start + %d growth "
          "(net %d at the end)" % (phase, peak, at_start, growth, net),
          flush=True)


def bench_case(lib, torch, case, args, row):
    onnx_name, input_name, batch = CASES[case]
    models_dir = args.models_dir
    data = np.load(os.path.join(models_dir, case + ".npz"))
    x, labels = data[input_name], data["labels"]
    path = os.path.join(models_dir, onnx_name + ".onnx")
    row["batch"] = batch

    tmodel = None
    if torch is not None:
        import onnx
        proto = onnx.load(path)
        tmodel = torch_model(torch, onnx_name, models_dir, proto)
        del proto
        tx, ty = torch.from_numpy(x), torch.from_numpy(labels)

    ctx = nnc.Context(lib)
    model = None
    try:
        t0 = time.perf_counter()
        model = ctx.import_onnx(path)
        row["import_s"] = time.perf_counter() - t0
    except Exception as e:  # noqa: BLE001 - recorded in the report
        row["error"] = "import: " + short_error(e)
        print("  nnc import failed: %s" % e, flush=True)

    # Inference.
    exe = None
    if model is not None:
        cache = tempfile.mkdtemp(prefix="nnc-bench-cache-")
        try:
            t0 = time.perf_counter()
            cold = model.compile([x.shape], compile_options(cache))
            row["compile_cold_s"] = time.perf_counter() - t0
            s = cold.stats()
            row["kernels"], row["library_calls"] = s.kernel_count, s.library_calls
            row["peak_mb"] = s.peak_memory_bytes / 2**20
            row["code_kb"] = s.code_bytes / 2**10
            row["infer_fig"] = fusion_figures(s)
            print("  inference executable: %s" % describe_fusion(
                row["infer_fig"]), flush=True)
            cold.close()
            t0 = time.perf_counter()
            exe = model.compile([x.shape], compile_options(cache))
            row["compile_cached_s"] = time.perf_counter() - t0
            row["from_cache"] = exe.stats().from_cache
        except Exception as e:  # noqa: BLE001
            row["inference_error"] = short_error(e)
            print("  nnc compile failed: %s" % e, flush=True)
        finally:
            shutil.rmtree(cache, ignore_errors=True)

    texe = None
    if exe is not None and args.tuned:
        texe = compile_tuned(model, x, row)

    fns = {}
    if tmodel is not None:
        tmodel.eval()

        def torch_infer():
            with torch.no_grad():
                return tmodel(tx)
        fns["torch"] = torch_infer
    if exe is not None:
        xin = nnc.Tensor.view(lib, x)
        try:
            out = exe.run([xin])[0]
            if tmodel is not None:
                ref = torch_infer().numpy()
                row["max_abs_diff"] = float(np.max(np.abs(out - ref)))
            fns["nnc"] = lambda: exe.run([xin], keep_outputs=False)
        except Exception as e:  # noqa: BLE001
            row["inference_error"] = short_error(e)
            print("  nnc run failed: %s" % e, flush=True)
    if texe is not None:
        try:
            tout = texe.run([xin])[0]
            if tmodel is not None:
                row["tuned_max_abs_diff"] = float(np.max(np.abs(
                    tout - torch_infer().numpy())))
            fns["nnc_tuned"] = lambda: texe.run([xin], keep_outputs=False)
        except Exception as e:  # noqa: BLE001
            row["tuned_infer_error"] = short_error(e)
            print("  nnc (tuned) run failed: %s" % e, flush=True)
    if fns:
        times, n = alternate(fns, args.steps, args.budget / 2)
        row["infer_n"] = n
        for name, ts in times.items():
            row["infer_%s_ms" % name] = median_ms(ts)
        print("  inference: %s (N=%d)" % (", ".join(
            "%s %.3f ms" % (k, median_ms(v)) for k, v in times.items()), n),
            flush=True)
    if tmodel is not None:
        # Warm after the timed runs. Live at the start: weights, buffers and
        # the batch.
        measure_torch_peak(torch, row, "infer", torch_infer, list(
            tmodel.parameters()) + list(tmodel.buffers()) + [tx])
    if exe is not None:
        exe.close()
    if texe is not None:
        texe.close()

    if case not in TRAIN_CASES:
        if args.amp:
            bench_amp(lib, torch, case, args, row, model, tmodel, x, labels)
        if model is not None:
            model.close()
        ctx.close()
        return

    # Training step.
    fns = {}
    if tmodel is not None:
        tmodel.train()
        opt = torch.optim.Adam(tmodel.parameters(), lr=LR)
        first = []

        def torch_step():
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(tmodel(tx), ty)
            loss.backward()
            opt.step()
            if not first:
                first.append(loss.item())
        fns["torch"] = torch_step
    if model is not None:
        cache = tempfile.mkdtemp(prefix="nnc-bench-cache-")
        trainer = None
        try:
            data_in = [nnc.Tensor.view(lib, x),
                       nnc.Tensor.view(lib, trainer_labels(x, labels))]
            topts = nnc.TrainOptions(learning_rate=LR)
            # The first step compiles: cold cache, then a second trainer on
            # the filled cache.
            for key in ("train_first_cold_s", "train_first_cached_s"):
                if trainer is not None:
                    trainer.close()
                trainer = model.trainer(topts, compile_options(cache))
                t0 = time.perf_counter()
                info = trainer.step(data_in)
                row[key] = time.perf_counter() - t0
                row["nnc_first_loss"] = info.loss
            row["train_fig"] = fusion_figures(trainer.step_stats())
            print("  training step executable: %s" % describe_fusion(
                row["train_fig"]), flush=True)
            fns["nnc"] = lambda: trainer.step(data_in)
        except Exception as e:  # noqa: BLE001
            row["train_error"] = short_error(e)
            print("  nnc training failed: %s" % e, flush=True)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    ttrainer = None
    if "nnc" in fns and args.tuned:
        ttrainer = train_tuned(model, data_in, row)
        if ttrainer is not None:
            fns["nnc_tuned"] = lambda: ttrainer.step(data_in)
    if fns:
        times, n = alternate(fns, args.steps, args.budget / 2)
        row["train_n"] = n
        for name, ts in times.items():
            row["train_%s_ms" % name] = median_ms(ts)
        if tmodel is not None:
            row["torch_first_loss"] = first[0]
        print("  training step: %s (N=%d)" % (", ".join(
            "%s %.3f ms" % (k, median_ms(v)) for k, v in times.items()), n),
            flush=True)
    if tmodel is not None:
        # Warm after the timed steps. Live at the start: parameters, their
        # gradients (torch 1.13's zero_grad zeroes them in place), buffers,
        # Adam's state and the batch.
        live = list(tmodel.parameters()) + list(tmodel.buffers()) + [tx, ty]
        live += [p.grad for p in tmodel.parameters()]
        live += [v for state in opt.state.values() for v in state.values()
                 if torch.is_tensor(v)]
        measure_torch_peak(torch, row, "train", torch_step, live)
    if "nnc" in fns:
        trainer.close()
    if ttrainer is not None:
        ttrainer.close()
    if args.amp:
        bench_amp(lib, torch, case, args, row, model, tmodel, x, labels)
    if model is not None:
        model.close()
    ctx.close()


def tuning_figures(kernels, seconds):
    """What the autotuner did in a compile, from its tuned kernels."""
    return {"seconds": seconds, "candidates": len(kernels),
            "measured": sum(k["source"] == "measured" for k in kernels),
            "changed": sum(k["choice"] != k["default"] for k in kernels),
            "turned_down": sum(k.get("program_check") == "turned down"
                               for k in kernels)}


def compile_tuned(model, x, row):
    """The inference executable compiled with `autotune = on` into a cache
    folder of its own (its tuning database starts empty, so every kernel
    with candidates is measured), then again from that folder: the cached
    compile from a warm tuning database. Returns the second executable, or
    None with the error in the row."""
    cache = tempfile.mkdtemp(prefix="nnc-bench-tuned-")
    try:
        t0 = time.perf_counter()
        cold = model.compile([x.shape], compile_options(
            cache, autotune="on"))
        row["tuned_compile_cold_s"] = time.perf_counter() - t0
        row["infer_tuning"] = tuning_figures(cold.tuned_kernels(),
                                             cold.tuning_seconds())
        cold.close()
        t0 = time.perf_counter()
        exe = model.compile([x.shape], compile_options(
            cache, autotune="on"))
        row["tuned_compile_cached_s"] = time.perf_counter() - t0
        print("  tuned inference executable: %s; compile cold %.3f s, "
              "cached %.3f s" % (row["infer_tuning"],
                                 row["tuned_compile_cold_s"],
                                 row["tuned_compile_cached_s"]), flush=True)
        return exe
    except Exception as e:  # noqa: BLE001 - recorded in the report
        row["tuned_infer_error"] = short_error(e)
        print("  nnc (tuned) compile failed: %s" % e, flush=True)
        return None
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def train_tuned(model, data_in, row):
    """A trainer whose first step compiles with `autotune = on` into a cache
    folder of its own; returns it (after that step), or None with the error
    in the row."""
    cache = tempfile.mkdtemp(prefix="nnc-bench-tuned-")
    trainer = None
    try:
        trainer = model.trainer(nnc.TrainOptions(learning_rate=LR),
                                compile_options(cache, autotune="on"))
        t0 = time.perf_counter()
        trainer.step(data_in)
        row["tuned_train_first_s"] = time.perf_counter() - t0
        row["train_tuning"] = tuning_figures(trainer.tuned_kernels(),
                                             trainer.tuning_seconds())
        print("  tuned training step: %s; first step %.3f s" % (
            row["train_tuning"], row["tuned_train_first_s"]), flush=True)
        return trainer
    except Exception as e:  # noqa: BLE001 - recorded in the report
        row["tuned_train_error"] = short_error(e)
        print("  nnc (tuned) training failed: %s" % e, flush=True)
        if trainer is not None:
            trainer.close()
        return None
    finally:
        shutil.rmtree(cache, ignore_errors=True)


# bench/peers.py's sides, in the report's order.
PEER_SIDES = ("eager", "compile", "max_autotune", "ort")
PEER_NAMES = {"eager": "PyTorch 2 eager", "compile": "torch.compile",
              "max_autotune": "torch.compile max-autotune",
              "ort": "ONNX Runtime"}


def default_peers_python(root):
    env = os.environ.get("NNC_BENCH_PEERS_PYTHON")
    if env:
        return env
    venv = os.path.join(root, "build", "bench", "venv", "bin", "python")
    return venv if os.path.exists(venv) else None


def run_peers(case, args):
    """bench/peers.py on `case` with the peers' Python, in a process of its
    own (PyTorch 2 cannot share this one with Debian's 1.13): its JSON, or
    {"error": ...}."""
    onnx_name, input_name, _ = CASES[case]
    fd, out = tempfile.mkstemp(prefix="nnc-bench-peers-", suffix=".json")
    os.close(fd)
    cmd = [args.peers, os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "peers.py"), "--case", case,
        "--onnx", onnx_name, "--input", input_name,
        "--models-dir", args.models_dir, "--out", out,
        "--threads", str(THREADS), "--steps", str(args.steps),
        "--budget", str(args.budget), "--sides", args.peers_sides]
    if case in TRAIN_CASES:
        cmd.append("--train")
    print("  peers: %s %s --case %s" % (args.peers, os.path.relpath(cmd[1]),
                                         case), flush=True)
    t0 = time.perf_counter()
    try:
        # A session of its own, so that a timeout also ends the compile
        # workers Inductor starts.
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
        try:
            stdout, _ = proc.communicate(timeout=args.peers_timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
        for line in stdout.splitlines():
            if line.startswith("  peers:") or "Error" in line:
                print("  " + line.strip(), flush=True)
        try:
            with open(out) as f:
                result = json.load(f)
        except (OSError, ValueError):
            tail = stdout.strip().splitlines()[-3:]
            result = {"error": "bench/peers.py exited %d without its "
                      "results: %s" % (proc.returncode, " / ".join(tail))}
    except subprocess.TimeoutExpired:
        result = {"error": "bench/peers.py took more than %.0f s" %
                  args.peers_timeout}
    except OSError as e:
        result = {"error": "cannot run %s: %s" % (args.peers, e)}
    finally:
        os.unlink(out)
    result["seconds"] = time.perf_counter() - t0
    if "error" in result:
        print("  peers failed: %s" % result["error"], flush=True)
    return result


def add_torch_amp(fns, row, phase, fn):
    """Adds PyTorch's bf16 `fn` to `fns` when one call of it works: PyTorch
    1.13 lacks some bf16 CPU kernels (mobilenet_v2's hardtanh backward), and
    the row then keeps nnc's figures and says why."""
    try:
        fn()
        fns["torch_bf16"] = fn
    except Exception as e:  # noqa: BLE001 - recorded in the report
        row["amp_%s_torch_error" % phase] = short_error(e)
        print("  PyTorch bf16 %s failed: %s" % (phase, e), flush=True)


def time_amp(fns, args, row, phase):
    """Alternates the bf16 phase's `fns` into row["amp_<phase>_*"]."""
    if not fns:
        return
    times, n = alternate(fns, args.steps, args.budget / 4)
    row["amp_%s_n" % phase] = n
    for name, ts in times.items():
        row["amp_%s_%s_ms" % (phase, name)] = median_ms(ts)
    print("  bf16 %s: %s (N=%d)" % (phase, ", ".join(
        "%s %.3f ms" % (k, median_ms(v)) for k, v in times.items()), n),
        flush=True)


def bench_amp(lib, torch, case, args, row, model, tmodel, x, labels):
    """bf16 in the same run: nnc --amp bf16 against nnc f32 and PyTorch
    eager under torch.autocast("cpu", dtype=torch.bfloat16), inference and
    (for TRAIN_CASES) the training step, alternating the three; nnc's planned
    peaks in f32 and bf16, and how far nnc's bf16 logits are from its f32
    ones."""
    if model is None:
        return
    xin = nnc.Tensor.view(lib, x)
    tx = ty = None
    if tmodel is not None:
        tx, ty = torch.from_numpy(x), torch.from_numpy(labels)
    cache = tempfile.mkdtemp(prefix="nnc-bench-amp-")
    exes, trainers = {}, {}
    try:
        # Inference.
        try:
            for p in ("f32", "bf16"):
                exes[p] = model.compile([x.shape], compile_options(cache, p))
                row["amp_infer_peak_%s" % p] = exes[p].stats().peak_memory_bytes
            outs = {p: e.run([xin])[0] for p, e in exes.items()}
            row["amp_infer_diff"] = float(np.max(np.abs(outs["bf16"] -
                                                        outs["f32"])))
        except Exception as e:  # noqa: BLE001 - recorded in the report
            row["amp_infer_error"] = short_error(e)
            print("  nnc bf16 inference failed: %s" % e, flush=True)
        fns = {}
        if tmodel is not None:
            tmodel.eval()

            def torch_infer_bf16():
                with torch.no_grad(), torch.autocast("cpu",
                                                     dtype=torch.bfloat16):
                    return tmodel(tx)
            add_torch_amp(fns, row, "infer", torch_infer_bf16)
        for p, e in exes.items():
            fns["nnc_" + p] = lambda e=e: e.run([xin], keep_outputs=False)
        time_amp(fns, args, row, "infer")
        for e in exes.values():
            e.close()
        exes = {}
        if case not in TRAIN_CASES:
            return

        # Training step.
        data_in = [xin, nnc.Tensor.view(lib, trainer_labels(x, labels))]
        try:
            for p in ("f32", "bf16"):
                trainers[p] = model.trainer(nnc.TrainOptions(learning_rate=LR),
                                            compile_options(cache, p))
                info = trainers[p].step(data_in)
                row["amp_first_loss_%s" % p] = info.loss
                row["amp_train_peak_%s" % p] = (
                    trainers[p].step_stats().peak_memory_bytes)
        except Exception as e:  # noqa: BLE001
            row["amp_train_error"] = short_error(e)
            print("  nnc bf16 training failed: %s" % e, flush=True)
        fns = {}
        if tmodel is not None:
            tmodel.train()
            opt = torch.optim.Adam(tmodel.parameters(), lr=LR)

            def torch_step_bf16():
                opt.zero_grad()
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    loss = torch.nn.functional.cross_entropy(tmodel(tx), ty)
                loss.backward()
                opt.step()
            add_torch_amp(fns, row, "train", torch_step_bf16)
        for p, t in trainers.items():
            fns["nnc_" + p] = lambda t=t: t.step(data_in)
        time_amp(fns, args, row, "train")
    finally:
        for e in exes.values():
            e.close()
        for t in trainers.values():
            t.close()
        shutil.rmtree(cache, ignore_errors=True)


# ---------------------------------------------------------------------------
# Rematerialization (memory budgets on the training step)
# ---------------------------------------------------------------------------


def remat_options(fraction):
    """nnc's train options for a memory budget of `fraction` of the step's
    planned peak without recomputation; 1.0 (or more) is no budget."""
    return nnc.TrainOptions(
        learning_rate=LR,
        memory_budget_fraction=0.0 if fraction >= 1.0 else fraction)


def remat_fractions(text):
    """The budgets of --remat-budgets as fractions, the row without a budget
    (1.0) first, whether or not it was named."""
    fractions = [float(f) for f in text.split(",") if f.strip()]
    if any(not 0 < f <= 1 for f in fractions):
        raise ValueError("--remat-budgets takes fractions in (0, 1]: %s" % text)
    return [1.0] + [f for f in fractions if f < 1.0]


# The error of a step whose budget no recomputation meets (the compiler's
# message goes on with the values alive at the smallest peak reached).
_BUDGET_ERROR = re.compile(
    r"memory budget of (\d+) bytes cannot be met: the smallest planned peak "
    r"the search reached by recomputation is (\d+) bytes"
    r"(?: \((\d+) without; inputs, outputs and weights take (\d+)\))?")


# A budget below what no recomputation changes.
_FIXED_ERROR = re.compile(
    r"memory budget of (\d+) bytes cannot be met: the inputs, outputs and "
    r"weights of @\S+ alone take (\d+) bytes \(planned peak (\d+) bytes\)")


def record_remat_error(e, row):
    """Records nnc's error `e` in the remat `row`: for a budget nnc cannot
    meet, its figures (the budget, the smallest planned peak the search
    reached, the peak without recomputation and what inputs, outputs and
    weights take) and a short message without the list of values alive at
    that peak; any other error as short_error has it."""
    m = _BUDGET_ERROR.search(str(e))
    if not m:
        f = _FIXED_ERROR.search(str(e))
        if not f:
            row["error"] = short_error(e)
            return
        budget, fixed, before = (int(g) for g in f.groups())
        row.update(budget=budget, reached=fixed, unmet=True,
                   peak_before=before)
        row["error"] = (
            "memory budget of %s MiB cannot be met: the inputs, outputs and "
            "weights alone take %s MiB" % (mib(budget), mib(fixed)))
        return
    budget, reached, before, fixed = (None if g is None else int(g)
                                      for g in m.groups())
    row.update(budget=budget, reached=reached, unmet=True)
    if before is not None:
        row["peak_before"] = before
    row["error"] = (
        "memory budget of %s MiB cannot be met: the smallest planned peak "
        "the search reached by recomputation is %s MiB%s" % (
            mib(budget), mib(reached),
            "" if fixed is None else
            " (inputs, outputs and weights take %s MiB)" % mib(fixed)))


def proc_status_bytes(*keys):
    """The fields `keys` (VmHWM, RssAnon, ...) of /proc/self/status, in
    bytes."""
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in keys:
                out[key] = int(value.split()[0]) * 1024
    return out


def reset_hwm():
    """Resets this process's VmHWM to its current RSS (writing "5" to
    /proc/self/clear_refs, Linux 4.0 on); False where that is refused."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def malloc_trim():
    """Hands the C heap's free pages back to the system (glibc), so that the
    RSS holds what is allocated, not what was."""
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass


# glibc malloc's settings in the process that measures nnc's resident
# memory: each block of 64 KiB or more gets a mapping of its own, unmapped
# when freed (a fixed threshold also stops glibc from raising it as large
# blocks are freed), so that memory freed earlier (the import, a compile)
# is not silently reused for the trainer's buffers, and what a step frees
# leaves the RSS.
RSS_PROBE_ENV = {"MALLOC_MMAP_THRESHOLD_": "65536",
                 "MALLOC_TRIM_THRESHOLD_": "131072"}


def remat_rss_probe(args):
    """--remat-rss CASE,TRAINER, run by remat_measured_peak in a process of
    its own with libnnc_runtime.so alone (no compiler, no PyTorch): how far
    the trainer TRAINER (nnc_trainer_save's file of a trainer that ran a
    step: its state and compiled step) raises the process's anonymous
    resident memory (RssAnon: the heap and anonymous mappings, not the pages
    of code and files, which a first run of a library's code also brings
    in) when it is loaded and trains, which is what the planned peak
    counts: inputs, outputs, weights, arena, what kernels allocate. The
    batch loaded, it trims the heap and reads RssAnon (*before*); loads the
    trainer and takes a step; trims the heap, reads RssAnon (*held*:
    parameters, optimizer state, the pooled arena and outputs), resets VmHWM
    and takes a second step. Linux keeps a high-water mark of the whole RSS
    only, so the anonymous peak of that step is VmHWM less the file and
    shared pages after it (they do not shrink during a step). Prints one
    line "remat-rss {json}": peak = that peak - before (the measured peak;
    RssAnon after the step where VmHWM cannot be reset, with hwm false) and
    held = held - before."""
    case, path = args.remat_rss.split(",", 1)
    _, input_name, _ = CASES[case]
    data = np.load(os.path.join(args.models_dir, case + ".npz"))
    x, labels = data[input_name], data["labels"]
    lib = nnc.Library(os.path.join(os.path.dirname(args.nnc_lib),
                                   "libnnc_runtime.so"))
    data_in = [nnc.Tensor.view(lib, x),
               nnc.Tensor.view(lib, trainer_labels(x, labels))]
    malloc_trim()
    before = proc_status_bytes("RssAnon")["RssAnon"]
    trainer = nnc.load_trainer(lib, path)
    trainer.step(data_in)
    malloc_trim()
    held = proc_status_bytes("RssAnon")["RssAnon"]
    hwm = reset_hwm()
    trainer.step(data_in)
    after = proc_status_bytes("VmHWM", "RssAnon", "RssFile", "RssShmem")
    peak = (after["VmHWM"] - after["RssFile"] - after["RssShmem"] if hwm
            else after["RssAnon"])
    print("remat-rss " + json.dumps({
        "peak": peak - before, "held": held - before, "before": before,
        "hwm": hwm}), flush=True)
    trainer.close()


def remat_measured_peak(args, case, trainer, cache):
    """Saves `trainer` (after its steps) into `cache` and runs
    remat_rss_probe on it in a child process (this script with --remat-rss
    and RSS_PROBE_ENV); returns its figures, or {"error": ...}."""
    path = os.path.join(cache, "remat-probe.nnct")
    try:
        trainer.save(path)
    except nnc.NNCError as e:
        return {"error": short_error(str(e))}
    cmd = [sys.executable, os.path.abspath(__file__),
           "--remat-rss", "%s,%s" % (case, path),
           "--models-dir", args.models_dir, "--nnc-lib", args.nnc_lib]
    proc = subprocess.run(cmd, env=dict(os.environ, **RSS_PROBE_ENV),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    os.unlink(path)
    for line in proc.stdout.splitlines():
        if line.startswith("remat-rss "):
            return json.loads(line[len("remat-rss "):])
    err = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return {"error": "exit %d: %s" % (proc.returncode, short_error(err))}


def checkpoint_blocks(torch, model):
    """Wraps each of `model.blocks` (TinyGPT's transformer blocks, ResNet18's
    BasicBlocks; the modules export_models.py defines) in
    torch.utils.checkpoint.checkpoint (non-reentrant): backward recomputes
    each block's forward from its input. Call after loading the weights (the
    wrapper renames the state_dict keys)."""
    from torch.utils.checkpoint import checkpoint

    class Checkpointed(torch.nn.Module):

        def __init__(self, block):
            super().__init__()
            self.block = block

        def forward(self, x):
            return checkpoint(self.block, x, use_reentrant=False)

    if not hasattr(model, "blocks"):
        raise RuntimeError("%s has no blocks to checkpoint" %
                           type(model).__name__)
    for i, block in enumerate(model.blocks):
        model.blocks[i] = Checkpointed(block)
    return model


def torch_train_step(torch, model, opt, tx, ty, losses):
    """One PyTorch training step of `model` as bench_case times it (zero
    grad, forward, cross-entropy, backward, Adam step); the first loss goes
    into `losses`."""
    def step():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(tx), ty)
        loss.backward()
        opt.step()
        if not losses:
            losses.append(loss.item())
    return step


def bench_remat(lib, torch, case, args, res):
    """The rematerialization rows of `case` into `res`: one nnc trainer per
    budget of --remat-budgets (the first step compiles it, searching for
    what to recompute; a budget nnc cannot meet is a row with the smallest
    planned peak reached), their remat and step stats, the resident peak
    each measures in a process of its own (remat_measured_peak), and
    PyTorch's training step with and without torch.utils.checkpoint around
    every block, same weights and batch; then all of them alternating, and
    PyTorch's peaks (torch_peak)."""
    onnx_name, input_name, batch = CASES[case]
    data = np.load(os.path.join(args.models_dir, case + ".npz"))
    x, labels = data[input_name], data["labels"]
    path = os.path.join(args.models_dir, onnx_name + ".onnx")
    res["batch"] = batch
    runs = res["runs"] = [{"fraction": f}
                          for f in remat_fractions(args.remat_budgets)]
    fns = {}

    # PyTorch, plain and checkpointed, each with its own Adam.
    import onnx
    proto = onnx.load(path)
    tx, ty = torch.from_numpy(x), torch.from_numpy(labels)
    tmodels = {}
    for name in ("torch", "torch_ckpt"):
        res[name] = {}
        try:
            m = torch_model(torch, onnx_name, args.models_dir, proto)
            tmodels[name] = (m if name == "torch"
                             else checkpoint_blocks(torch, m))
        except Exception as e:  # noqa: BLE001 - recorded in the report
            res[name]["error"] = short_error(e)
            print("  PyTorch (%s) failed: %s" % (name, e), flush=True)
    del proto
    opts, losses = {}, {}
    for name, m in tmodels.items():
        m.train()
        opts[name] = torch.optim.Adam(m.parameters(), lr=LR)
        losses[name] = []
        fns[name] = torch_train_step(torch, m, opts[name], tx, ty,
                                     losses[name])

    # nnc, one trainer per budget.
    ctx = nnc.Context(lib)
    model = None
    trainers = {}
    cache = tempfile.mkdtemp(prefix="nnc-bench-remat-")
    try:
        try:
            model = ctx.import_onnx(path)
        except Exception as e:  # noqa: BLE001
            res["error"] = "import: " + short_error(e)
            print("  nnc import failed: %s" % e, flush=True)
        data_in = [nnc.Tensor.view(lib, x),
                   nnc.Tensor.view(lib, trainer_labels(x, labels))]
        for row in runs if model is not None else []:
            f = row["fraction"]
            trainer = t0 = None
            try:
                trainer = model.trainer(remat_options(f), compile_options(
                    cache, measure_unfused=0))
                t0 = time.perf_counter()
                info = trainer.step(data_in)
                row["first_step_s"] = time.perf_counter() - t0
                row["first_loss"] = info.loss
            except Exception as e:  # noqa: BLE001 - recorded in the report
                if t0 is not None:
                    # How long the first step took to fail (the search).
                    row["first_step_s"] = time.perf_counter() - t0
                record_remat_error(e, row)
                print("  nnc %.0f %%: %s" % (100 * f, row["error"]),
                      flush=True)
                if trainer is not None:
                    trainer.close()
                continue
            s, r = trainer.step_stats(), trainer.remat_stats()
            row.update(peak=s.peak_memory_bytes, arena=s.arena_bytes)
            if r.budget_bytes:
                row.update(budget=r.budget_bytes,
                           peak_before=r.peak_before_bytes,
                           peak=r.peak_after_bytes,
                           predicted_arena=r.predicted_arena_bytes,
                           planned_arena=r.planned_arena_bytes,
                           flops=r.flops, extra_flops=r.extra_flops,
                           recomputed=r.recomputed_count, kept=r.kept_count)
            key = "nnc_%g" % f
            trainers[key] = trainer
            fns[key] = lambda t=trainer: t.step(data_in)
            print("  nnc %.0f %%: first step %.2f s, planned peak %s%s MiB, "
                  "arena %s MiB%s" % (
                      100 * f, row["first_step_s"],
                      mib(row["peak_before"]) + " -> "
                      if "peak_before" in row else "", mib(row["peak"]),
                      mib(row["arena"]),
                      ", predicted %s; extra FLOPs %.1f %% (%d recomputed, "
                      "%d kept)" % (mib(row["predicted_arena"]),
                                    100 * row["extra_flops"] / row["flops"],
                                    row["recomputed"], row["kept"])
                      if row.get("flops") else ""), flush=True)
        # The measured peaks, each in a process of its own, before the
        # timing (this process idles meanwhile).
        for row in runs:
            if "nnc_%g" % row["fraction"] not in trainers:
                continue
            rss = remat_measured_peak(
                args, case, trainers["nnc_%g" % row["fraction"]], cache)
            row["rss"] = rss
            print("  nnc %.0f %% measured: %s" % (
                100 * row["fraction"],
                rss.get("error") or "peak %s MiB (held between steps %s "
                "MiB)" % (mib(rss["peak"]), mib(rss["held"]))), flush=True)

        if fns:
            times, n = alternate(fns, args.steps, args.budget)
            res["n"] = n
            for name, ts in times.items():
                target = (res[name] if name in tmodels else
                          next(r for r in runs
                               if "nnc_%g" % r["fraction"] == name))
                target["step_ms"] = median_ms(ts)
            print("  training step: %s (N=%d)" % (", ".join(
                "%s %.1f ms" % (k, median_ms(v)) for k, v in times.items()),
                n), flush=True)
        for name, m in tmodels.items():
            res[name]["first_loss"] = losses[name][0] if losses[name] else None
            live = list(m.parameters()) + list(m.buffers()) + [tx, ty]
            live += [p.grad for p in m.parameters()]
            live += [v for state in opts[name].state.values()
                     for v in state.values() if torch.is_tensor(v)]
            measure_torch_peak(torch, res[name], "train", fns[name], live)
    finally:
        for t in trainers.values():
            t.close()
        if model is not None:
            model.close()
        ctx.close()
        shutil.rmtree(cache, ignore_errors=True)


# ---------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------


# The vector extensions that change which kernels run (oneDNN's brgemm and
# bf16 kernels, nnc's vector width), in the order the report names them.
ISA_FLAGS = ("avx2", "avx512f", "avx512_bf16", "amx_bf16")


def cpu_model():
    """The CPU's model name and which of ISA_FLAGS it has: "AMD EPYC (avx2;
    no avx512f, avx512_bf16, amx_bf16)"."""
    name, flags = None, set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and name is None:
                    name = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    name = name or platform.processor() or "unknown"
    if not flags:
        return name
    have = [f for f in ISA_FLAGS if f in flags]
    lack = [f for f in ISA_FLAGS if f not in flags]
    return "%s (%s%s)" % (name, ", ".join(have) or "none of them",
                          "; no " + ", ".join(lack) if lack else "")


def source_revision():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        return subprocess.check_output(
            ["git", "-C", root, "describe", "--always", "--dirty"],
            stderr=subprocess.DEVNULL, text=True).strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def fmt(value, spec="%.2f"):
    return "—" if value is None else spec % value


def ratio(row, phase, side="nnc"):
    t, n = row.get(phase + "_torch_ms"), row.get("%s_%s_ms" % (phase, side))
    return "%.2f" % (t / n) if t and n else "—"


def best_nnc_ms(row, phase):
    """nnc's better time of the phase: the default's or the tuned side's
    (None without either)."""
    mine = [v for v in (row.get(phase + "_nnc_ms"),
                        row.get(phase + "_nnc_tuned_ms")) if v]
    return min(mine) if mine else None


def mib(value):
    return fmt(None if value is None else value / 2**20, "%.1f")


def fusion_row(case, row, phase):
    """A row of the fusion and memory tables for `phase` (infer, train)."""
    fig = row.get(phase + "_fig")
    torch_peak_bytes = row.get(phase + "_torch_peak")
    if fig is None:
        kernels = moved = arena = peak = "—"
        nnc_peak = None
    else:
        k_cut = cut(fig["unfused_kernels"], fig["kernels"])
        m_cut = cut(fig["unfused_bytes_moved"], fig["bytes_moved"])
        kernels = "%d → %d (%s)" % (fig["unfused_kernels"], fig["kernels"],
                                    fmt(k_cut, "%.0f %%"))
        moved = "%.1f → %.1f (%s)" % (fig["unfused_bytes_moved"] / 1e6,
                                      fig["bytes_moved"] / 1e6,
                                      fmt(m_cut, "%.0f %%"))
        arena, nnc_peak = mib(fig["arena"]), fig["peak"]
        peak = mib(nnc_peak)
    mem_ratio = ("%.2f" % (torch_peak_bytes / nnc_peak)
                 if torch_peak_bytes and nnc_peak else "—")
    return "| %s | %s | %s | %s | %s | %s | %s | %s |" % (
        case, row.get("batch", "—"), kernels, moved, arena, peak,
        mib(torch_peak_bytes), mem_ratio)


def write_report(path, rows, remat, lib, torch, command, elapsed,
                 models_dir, dist_text=""):
    """Writes the report: the header, the sections of `rows` (bench_case's
    figures per case; none with --remat-only) and the rematerialization
    section of `remat` (bench_remat's per case; none without --remat)."""
    if not rows and not remat and dist_text:
        # --dist-only: the section says what it measures.
        lines = [
            "# Benchmarks: data-parallel scaling",
            "",
            "- Command: `%s`" % command,
            "- Date: %s (the whole run took %.0f s)" % (
                datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), elapsed),
            "- Machine: %s, %d cores (`os.cpu_count()`), %s" % (
                cpu_model(), os.cpu_count(), platform.platform()),
            "- PyTorch %s; Python %s; nnc source %s" % (
                torch.__version__ if torch else "absent",
                platform.python_version(), source_revision()),
            "",
            dist_text,
        ]
        with open(path, "w") as f:
            f.write("\n".join(lines))
        return
    lines = [
        "# Benchmarks",
        "",
        "nnc against PyTorch eager on the CPU, produced by `bench/run.py` "
        "(bench/README.md says what is measured and the caveats). "
        "Times are medians of N timed iterations after %d warm-up "
        "iterations each, in %d blocks per side that take turns, each after "
        "a %.1f s pause (PyTorch's and nnc's threads share the process; "
        "see bench/README.md); ratio = PyTorch / nnc (> 1: nnc faster). "
        "Both use %d threads; OMP_WAIT_POLICY %s." % (
            WARMUP, ROUNDS, SETTLE_S, THREADS,
            "`%s`" % os.environ["OMP_WAIT_POLICY"]
            if os.environ.get("OMP_WAIT_POLICY") else "unset"),
        "",
        "- Command: `%s`, on the models of `/usr/bin/python3 "
        "bench/export_models.py %s`" % (command, os.path.relpath(models_dir)),
        "- Date: %s (the whole run took %.0f s)" % (
            datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), elapsed),
        "- Machine: %s, %d cores (`os.cpu_count()`), %s" % (
            cpu_model(), os.cpu_count(), platform.platform()),
        "- PyTorch %s (eager, `torch.set_num_threads(%d)`); NumPy %s; "
        "Python %s" % (torch.__version__ if torch else "absent", THREADS,
                       np.__version__, platform.python_version()),
        "- nnc: C API %s (`nnc_api_version`), source %s, %s" % (
            lib.api_version(), source_revision(),
            os.path.relpath(lib.path)),
        "",
    ]
    if rows:
        lines += main_sections(rows)
    lines += remat_section(remat)
    if dist_text:
        lines.append(dist_text)
    with open(path, "w") as f:
        f.write("\n".join(lines))


def main_sections(rows):
    """The inference, training-step, fusion and memory, bf16 and target
    sections of the report."""
    lines = [
        "## Inference",
        "",
        "| model | batch | N | PyTorch ms | nnc ms | ratio | nnc kernels "
        "| library calls | peak MiB | compile cold s | compile cached s "
        "| max abs diff |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for case, row in rows.items():
        err = row.get("error") or row.get("inference_error")
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
                     "| %s |" % (
                         case, row.get("batch", "—"),
                         row.get("infer_n", "—"),
                         fmt(row.get("infer_torch_ms"), "%.3f"),
                         fmt(row.get("infer_nnc_ms"), "%.3f"),
                         ratio(row, "infer"), row.get("kernels", "—"),
                         row.get("library_calls", "—"),
                         fmt(row.get("peak_mb"), "%.1f"),
                         fmt(row.get("compile_cold_s"), "%.3f"),
                         fmt(row.get("compile_cached_s"), "%.3f"),
                         fmt(row.get("max_abs_diff"), "%.1e")))
        if err:
            lines.append("|  | nnc failed: %s |||||||||||" % err)
    lines += [
        "",
        "## Training step (forward, cross-entropy, backward, Adam lr 1e-3)",
        "",
        "| model | batch | N | PyTorch ms | nnc ms | ratio "
        "| nnc first step, cold cache s | nnc first step, cached s "
        "| first loss PyTorch / nnc |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for case, row in rows.items():
        if case not in TRAIN_CASES:
            continue
        losses = "%s / %s" % (fmt(row.get("torch_first_loss"), "%.4f"),
                              fmt(row.get("nnc_first_loss"), "%.4f"))
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            case, row.get("batch", "—"), row.get("train_n", "—"),
            fmt(row.get("train_torch_ms"), "%.2f"),
            fmt(row.get("train_nnc_ms"), "%.2f"), ratio(row, "train"),
            fmt(row.get("train_first_cold_s"), "%.3f"),
            fmt(row.get("train_first_cached_s"), "%.3f"), losses))
        err = row.get("error") or row.get("train_error")
        if err:
            lines.append("|  | nnc failed: %s ||||||||" % err)
    lines += [
        "",
        "Columns: *nnc kernels* and *library calls* are the kernel calls in "
        "the inference executable's plan and the calls into GEMM/convolution "
        "libraries per run; *peak MiB* is nnc's planned peak (inputs, outputs, "
        "weights, temporaries) from `nnc_executable_stats`; *compile cold* is "
        "`nnc_model_compile` into an empty cache directory, *compile cached* "
        "a second compile from that directory (both with `measure_unfused`, "
        "whose extra MLIR passes the cold time includes); *max abs diff* "
        "compares nnc's inference logits with PyTorch's. *first step* is the "
        "wall time of the first `nnc_trainer_step` of a new trainer, which "
        "builds and compiles the training step (cold: empty cache; cached: a "
        "second trainer on the same cache). The first losses are both from "
        "the exported weights on the same batch. The training step's kernels "
        "and memory are in the next section.",
        "",
        "## Fusion and memory (issue 7)",
        "",
        "nnc's figures from `nnc_executable_stats` of the inference "
        "executable and `nnc_trainer_step_stats` of the training step, both "
        "compiled with `measure_unfused = 1`; PyTorch's peak from its CPU "
        "allocator's events under `torch.profiler` (bench/README.md gives "
        "the method).",
        "",
    ]
    header = [
        "| model | batch | kernels unfused → fused (cut) "
        "| bytes moved MB unfused → fused (cut) | nnc arena MiB "
        "| nnc peak MiB | PyTorch peak MiB | ratio |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines += ["### Training step", ""] + header
    for case, row in rows.items():
        if case in TRAIN_CASES:
            lines.append(fusion_row(case, row, "train"))
            err = (row.get("error") or row.get("train_error") or
                   row.get("train_torch_peak_error"))
            if err:
                lines.append("|  | failed: %s |||||||" % err)
    lines += ["", "### Inference", ""] + header
    for case, row in rows.items():
        lines.append(fusion_row(case, row, "infer"))
        err = (row.get("error") or row.get("inference_error") or
               row.get("infer_torch_peak_error"))
        if err:
            lines.append("|  | failed: %s |||||||" % err)
    lines += [
        "",
        "Columns: *kernels* are the kernel calls in the executable's plan "
        "without fusion (one per op) and with it; *bytes moved* the bytes "
        "the kernels read plus write per run, a static estimate (every "
        "operand of every loop nest once, GEMMs from their sizes), in MB "
        "(10^6 bytes); *cut* = 1 - fused / unfused. *nnc arena* is the one "
        "planned buffer holding every temporary; *nnc peak* the executable's "
        "`peak_memory_bytes`: its inputs (for the training step: the batch, "
        "parameters, buffers and optimizer state), outputs, embedded weights, "
        "arena and what kernels still allocate themselves. *PyTorch peak* is "
        "the bytes live when one warm step (or inference run) starts "
        "(parameters, buffers, the batch; for training also gradients and "
        "Adam's state) plus the most bytes PyTorch's CPU allocator held at "
        "once beyond those during it. *ratio* = PyTorch peak / nnc peak "
        "(> 1: nnc needs less).",
        "",
    ]
    lines += amp_section(rows)
    lines += tuning_section(rows)
    lines += peers_section(rows)
    lines += targets_section(rows)
    return lines


def tuning_section(rows):
    """nnc with autotune on beside the default and PyTorch eager."""
    if not any("infer_tuning" in row or "tuned_infer_error" in row
               for row in rows.values()):
        return []
    lines = [
        "## Autotuning (`autotune = on`)",
        "",
        "The same run, a third side taking turns with the two above: nnc "
        "compiled with `autotune = on` into a cache folder of its own, whose "
        "tuning database starts empty, so every kernel with candidates is "
        "measured (docs/Autotuning.md). The tuning time is reported apart "
        "from the compile; the timed runs use a second compile from that "
        "folder (inference) or the trainer whose first step tuned.",
        "",
        "| model | phase | PyTorch ms | nnc default ms | nnc tuned ms "
        "| ratio default | ratio tuned | kernels with candidates "
        "| measured | changed | turned down | tuning s | compile cold s "
        "| compile cached s default / tuned |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for case, row in rows.items():
        for phase in ("infer", "train"):
            tun = row.get(phase + "_tuning")
            err = row.get("tuned_%s_error" % phase)
            if not tun and not err:
                continue
            if phase == "infer":
                cold = row.get("tuned_compile_cold_s")
                cached = "%s / %s" % (
                    fmt(row.get("compile_cached_s"), "%.3f"),
                    fmt(row.get("tuned_compile_cached_s"), "%.3f"))
            else:
                cold, cached = row.get("tuned_train_first_s"), "—"
            tun = tun or {}
            lines.append(
                "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
                "| %s | %s |" % (
                    case, "inference" if phase == "infer" else "training",
                    fmt(row.get(phase + "_torch_ms"), "%.3f"),
                    fmt(row.get(phase + "_nnc_ms"), "%.3f"),
                    fmt(row.get(phase + "_nnc_tuned_ms"), "%.3f"),
                    ratio(row, phase), ratio(row, phase, "nnc_tuned"),
                    tun.get("candidates", "—"), tun.get("measured", "—"),
                    tun.get("changed", "—"), tun.get("turned_down", "—"),
                    fmt(tun.get("seconds"), "%.1f"), fmt(cold, "%.2f"),
                    cached))
            if err:
                lines.append("|  | nnc (tuned) failed: %s |||||||||||||" % err)
    lines += [
        "",
        "Columns: *kernels with candidates* are the kernels the target "
        "offers more than one way for, *measured* those the tuner timed in "
        "this compile, *changed* those compiled with another candidate than "
        "the default: one that beat the default's median by at least 5 % "
        "alone and kept the whole program at least 5 % faster; *turned "
        "down* those that beat the default alone but not in the whole "
        "program (the tuner's check of the program, docs/Autotuning.md); "
        "*tuning s* the seconds spent measuring (`nnc_executable_tuning_"
        "seconds`, `nnc_trainer_tuning_seconds`). *compile cold* is the "
        "tuned compile into the empty folder (for training: the first step, "
        "which compiles and tunes), tuning included; *compile cached* "
        "compares a cached compile of the default side with one of the "
        "tuned side from its warm database.",
        "",
    ]
    return lines


def peer_cell(result, side):
    """'ms' of a peer side, with its compile seconds when it compiled."""
    if not result or side not in result:
        return "—"
    r = result[side]
    if "error" in r:
        return "failed"
    text = fmt(r.get("ms"), "%.3f")
    if side in ("compile", "max_autotune", "ort") and "compile_s" in r:
        text += " (%.1f s)" % r["compile_s"]
    return text


def peers_section(rows):
    """torch.compile and ONNX Runtime, from bench/peers.py."""
    lines = [
        "## Peers: torch.compile and ONNX Runtime",
        "",
    ]
    ran = [row["peers"] for row in rows.values() if "peers" in row]
    if not ran:
        return lines + [
            "Not run: no Python with PyTorch 2 and onnxruntime was given "
            "(`bench/peers-venv.sh` makes one; bench/README.md).",
            ""]
    vers = next((p.get("versions") for p in ran if p.get("versions")), {})
    lines += [
        "`bench/peers.py` in a process of its own, right after each case's "
        "nnc and PyTorch 1.13 sides, with the Python of a virtual "
        "environment: PyTorch %s, ONNX Runtime %s (CPU provider, "
        "`intra_op_num_threads` %d, all graph optimizations). Its sides take "
        "turns in blocks as above; nnc's times are those of the tables "
        "above (another process, a minute apart), so compare the ratios "
        "with that in mind. In parentheses: the seconds of the first call, "
        "which compiles (torch.compile) or builds the session (ONNX "
        "Runtime); Inductor starts from an empty cache folder, but "
        "max-autotune compiles after the default mode in the same process "
        "and reuses the kernels it built. *best peer / nnc* divides the fastest peer's time by "
        "nnc's best (default or tuned; > 1: nnc faster)." % (
            vers.get("torch", "absent"), vers.get("onnxruntime", "absent"),
            THREADS),
        "",
        "| model | phase | nnc ms (best of default, tuned) "
        "| PyTorch 1.13 eager ms | %s | best peer "
        "/ nnc |" % " | ".join("%s ms" % PEER_NAMES[s] for s in PEER_SIDES),
        "|---|---|---:|---:|%s---:|" % ("---:|" * len(PEER_SIDES)),
    ]
    for case, row in rows.items():
        peers = row.get("peers")
        if peers is None:
            continue
        for phase in ("infer", "train"):
            if phase == "train" and case not in TRAIN_CASES:
                continue
            result = peers.get(phase)
            mine = best_nnc_ms(row, phase)
            theirs = [r["ms"] for r in (result or {}).values()
                      if r.get("ms")]
            best = ("%.2f" % (min(theirs) / mine)
                    if mine and theirs else "—")
            lines.append("| %s | %s | %s | %s | %s | %s |" % (
                case, "inference" if phase == "infer" else "training",
                fmt(mine, "%.3f"),
                fmt(row.get(phase + "_torch_ms"), "%.3f"),
                " | ".join(peer_cell(result, s) for s in PEER_SIDES),
                best))
        errors = ["peers: %s" % peers["error"]] if "error" in peers else []
        for phase in ("infer", "train"):
            for side, r in (peers.get(phase) or {}).items():
                if "error" in r:
                    errors.append("%s, %s: %s" % (
                        PEER_NAMES.get(side, side),
                        "inference" if phase == "infer" else "training",
                        r["error"]))
        for e in errors:
            lines.append("|  | %s |||||||" % short_error(e))
    lines.append("")
    return lines


def amp_section(rows):
    """The bf16 table: nnc bf16 against nnc f32 and PyTorch autocast."""
    if not any(k.startswith("amp_") for row in rows.values() for k in row):
        return []
    lines = [
        "## Mixed precision (bf16)",
        "",
        "The same run, the three taking turns in blocks: nnc compiled with "
        "`precision = "
        "BF16` (`--amp bf16`), nnc in f32, and PyTorch eager under "
        "`torch.autocast(\"cpu\", dtype=torch.bfloat16)` (the training "
        "step's forward and loss under autocast, backward and Adam after).",
        "",
        "| model | batch | phase | N | PyTorch autocast bf16 ms | nnc bf16 ms "
        "| nnc f32 ms | ratio | nnc bf16 / f32 | nnc peak MiB f32 → bf16 "
        "| bf16 vs f32 |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for case, row in rows.items():
        for phase in ("infer", "train"):
            if "amp_%s_n" % phase not in row:
                err = row.get("amp_%s_error" % phase)
                if err:
                    lines.append("| %s | | %s | nnc failed: %s ||||||||" % (
                        case, phase, err))
                continue
            t = row.get("amp_%s_torch_bf16_ms" % phase)
            b = row.get("amp_%s_nnc_bf16_ms" % phase)
            f = row.get("amp_%s_nnc_f32_ms" % phase)
            pf = row.get("amp_%s_peak_f32" % phase)
            pb = row.get("amp_%s_peak_bf16" % phase)
            if phase == "infer":
                check = "max abs diff %s" % fmt(row.get("amp_infer_diff"),
                                                "%.1e")
            else:
                check = "first loss %s / %s" % (
                    fmt(row.get("amp_first_loss_bf16"), "%.4f"),
                    fmt(row.get("amp_first_loss_f32"), "%.4f"))
            lines.append(
                "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s → %s "
                "| %s |" % (
                    case, row.get("batch", "—"),
                    "inference" if phase == "infer" else "training step",
                    row["amp_%s_n" % phase], fmt(t, "%.3f"), fmt(b, "%.3f"),
                    fmt(f, "%.3f"), fmt(t / b if t and b else None),
                    fmt(b / f if b and f else None), mib(pf), mib(pb),
                    check))
            err = row.get("amp_%s_torch_error" % phase)
            if err:
                lines.append("|  | | | PyTorch failed: %s ||||||||" % err)
    lines += [
        "",
        "Columns: *ratio* = PyTorch autocast bf16 / nnc bf16 (> 1: nnc "
        "faster); *nnc bf16 / f32* > 1 means bf16 is slower than f32; "
        "*peak* is `peak_memory_bytes` of the executable (inference) and of "
        "the training step; *bf16 vs f32* compares nnc's bf16 logits with "
        "its f32 ones, and the two first losses. On a CPU with AVX-512 "
        "BF16 or AMX, nnc's bf16 GEMMs and convolutions run in oneDNN's "
        "bf16 kernels; without them (docs/Training.md, \"Mixed "
        "precision\") they run in f32 on widened copies, so a bf16 run is "
        "no faster than an f32 one, and PyTorch 1.13's CPU autocast has "
        "no fast bf16 kernels either. The planned peak drops where saved "
        "activations dominate and grows where the weights do: an inference "
        "rounds the f32 weights into temporaries, and a training step keeps "
        "their bf16 copies beside them (made by the optimizer's update; "
        "docs/Training.md).",
        "",
    ]
    return lines


def remat_target(row):
    """The target cell of a budget row: the most extra FLOPs allowed at its
    budget (REMAT_TARGETS) and PASS or MISS; "—" for other budgets."""
    goal = next((g for f, g in REMAT_TARGETS.items()
                 if abs(f - row["fraction"]) < 1e-9), None)
    if goal is None:
        return "—"
    if row.get("unmet"):
        return "≤ %.0f %%: MISS (budget not met)" % goal
    if not row.get("flops"):
        return "≤ %.0f %%: —" % goal
    extra = 100 * row["extra_flops"] / row["flops"]
    return "≤ %.0f %%: %s" % (goal, "PASS" if extra <= goal else "MISS")


def remat_section(remat):
    """The rematerialization table: per model, nnc at each budget and
    PyTorch with and without checkpointed blocks."""
    if not remat:
        return []
    lines = [
        "## Rematerialization (memory budget on the training step)",
        "",
        "The training step (cross-entropy, Adam lr 1e-3) of each model, in "
        "one run: nnc without a budget (100 %%) and with "
        "`memory_budget_fraction` set to each budget (the compiler "
        "recomputes forward values in backward so that the step's planned "
        "peak fits that fraction of its planned peak without recomputation; "
        "docs/Rematerialization.md), and PyTorch eager without and with "
        "`torch.utils.checkpoint.checkpoint` (non-reentrant) around every "
        "block (the transformer blocks of the GPTs, the 8 BasicBlocks of "
        "ResNet-18), on the same weights and batch. The runs take turns "
        "in blocks of steps after %d warm-up steps each; times are medians "
        "of N. Targets: ≤ 10 %% extra FLOPs at a 50 %% budget, ≤ 25 %% at "
        "33 %%." % WARMUP,
        "",
        "| model | run | N | step ms | × 100 % | planned peak MiB "
        "| budget MiB | measured peak MiB | extra FLOPs | recomputed / kept "
        "| target | first step s | first loss |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|",
    ]
    for case, res in remat.items():
        runs = res.get("runs", [])
        base = runs[0] if runs else {}
        n = res.get("n", "—")
        if res.get("error"):
            lines.append("| %s | nnc failed: %s ||||||||||||" % (
                case, res["error"]))
        for row in runs:
            t, b = row.get("step_ms"), base.get("step_ms")
            before = row.get("peak_before") or base.get("peak")
            if row.get("unmet"):
                planned = "%s → not met (best %s)" % (mib(before),
                                                      mib(row["reached"]))
                if "alone take" in row.get("error", ""):
                    planned = "%s → not met (fixed %s)" % (
                        mib(before), mib(row["reached"]))
            elif "budget" in row:
                planned = "%s → %s" % (mib(before), mib(row.get("peak")))
            else:
                planned = mib(row.get("peak"))
            rss = row.get("rss", {})
            measured = mib(rss.get("peak"))
            if rss and not rss.get("error") and not rss.get("hwm"):
                measured = "≥ " + measured
            first_steps = fmt(row.get("first_step_s"), "%.1f")
            if row.get("flops"):
                extra = "%.1f %%" % (100 * row["extra_flops"] / row["flops"])
                counts = "%d / %d" % (row["recomputed"], row["kept"])
            elif row["fraction"] >= 1.0 and "peak" in row:
                extra, counts = "0 %", "—"
            else:
                extra = counts = "—"
            lines.append(
                "| %s | nnc %.0f %% | %s | %s | %s | %s | %s | %s | %s | %s "
                "| %s | %s | %s |" % (
                    case, 100 * row["fraction"], n if t else "—",
                    fmt(t, "%.1f"),
                    fmt(t / b if t and b else None), planned,
                    mib(row.get("budget")), measured, extra, counts,
                    remat_target(row), first_steps,
                    fmt(row.get("first_loss"), "%.4f")))
            for err in (row.get("error"), rss.get("error")):
                if err:
                    lines.append("|  | nnc %.0f %% failed: %s ||||||||||||" % (
                        100 * row["fraction"], err))
        plain = res.get("torch", {})
        for name, label in (("torch", "PyTorch"),
                            ("torch_ckpt", "PyTorch, checkpointed blocks")):
            tr = res.get(name, {})
            t, b = tr.get("step_ms"), plain.get("step_ms")
            lines.append(
                "| %s | %s | %s | %s | %s | — | — | %s | — | — | — | — "
                "| %s |" % (case, label, n if t else "—", fmt(t, "%.1f"),
                            fmt(t / b if t and b else None),
                            mib(tr.get("train_torch_peak")),
                            fmt(tr.get("first_loss"), "%.4f")))
            err = tr.get("error") or tr.get("train_torch_peak_error")
            if err:
                lines.append("|  | %s failed: %s ||||||||||||" % (label, err))
    lines += [
        "",
        "Columns: *× 100 %* is the step time over that of the row without a "
        "budget (nnc) or without checkpointing (PyTorch): the time "
        "recomputation costs. *planned peak* is nnc's `peak_memory_bytes` "
        "(inputs with the batch, parameters and Adam's state, outputs, "
        "weights, arena) without → with recomputation "
        "(`nnc_trainer_remat_stats`' `peak_before_bytes`, "
        "`peak_after_bytes`); for a budget nnc cannot meet, the smallest "
        "planned peak its search reached (from the step's error, on the line "
        "below). *budget* is `budget_bytes`, the fraction of the planned "
        "peak without recomputation. *measured peak* for nnc is how far the "
        "trainer raises a process's anonymous resident memory: the trainer "
        "is saved (`nnc_trainer_save`: its state and the step it compiled) "
        "and loaded in a process of its own with `libnnc_runtime.so` alone "
        "(`run.py --remat-rss`, glibc's mmap threshold fixed at 64 KiB so "
        "that large blocks are mapped fresh and unmapped when freed); the "
        "figure is the peak during its second step (VmHWM, reset just "
        "before it through `/proc/self/clear_refs`, less the file and shared "
        "pages: code is not counted) minus RssAnon before the load (batch "
        "loaded, heap trimmed): parameters, Adam's state, the arena, "
        "outputs and what kernels and libraries allocate, to set beside the "
        "planned peak (less the batch, there before). "
        "For PyTorch it is the peak of its CPU allocator "
        "over one warm step (live at the start plus the growth, "
        "bench/README.md). *extra FLOPs* = `extra_flops / flops` (the cost "
        "model's FLOPs of the recomputed values over the step's); "
        "*recomputed / kept*: the forward values saved for backward that "
        "are recomputed and kept. *target*: PASS when the extra FLOPs are "
        "within the target of that budget (MISS also when the budget is not "
        "met). *first step s*: the wall time of a new trainer's first "
        "step, which builds and compiles the training step (with the search "
        "for what to recompute) into an empty cache. *first loss* must "
        "agree between the rows of a model (recomputation changes no "
        "value; PyTorch's checkpointing recomputes BatchNorm in training "
        "mode, updating its running statistics twice).",
        "",
    ]
    return lines


def geomean(values):
    values = [v for v in values if v and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def targets_section(rows):
    """Where nnc stands against the targets of issues 6 and 7, from this
    run's figures."""
    def speedup(phase):
        out = []
        for case, row in rows.items():
            t, n = row.get(phase + "_torch_ms"), row.get(phase + "_nnc_ms")
            if t and n:
                out.append(t / n)
        return out
    train, infer = speedup("train"), speedup("infer")
    gpt = rows.get("gpt_tiny", {})

    def best_ratios(phase):
        """Per case, PyTorch / nnc's better side (default or tuned)."""
        out = {}
        for case, row in rows.items():
            t, mine = row.get(phase + "_torch_ms"), best_nnc_ms(row, phase)
            if t and mine:
                out[case] = t / mine
        return out
    best_train, best_infer = best_ratios("train"), best_ratios("infer")
    low = sorted("%s %s %.2f" % (case, phase, r)
                 for phase, ratios in (("inference", best_infer),
                                       ("training", best_train))
                 for case, r in ratios.items() if r < 0.9)
    warm = ["%s %.3f / %.3f s" % (case, row["tuned_compile_cached_s"],
                                  row["compile_cached_s"])
            for case, row in rows.items()
            if row.get("tuned_compile_cached_s") and
            row.get("compile_cached_s")]
    lines = [
        "## Where nnc stands against the targets",
        "",
        "| target | goal | this run |",
        "|---|---|---|",
        "| training step, geometric mean of the ratios (issue 6) | >= 1.5 | "
        "%s (%d models) |" % (fmt(geomean(train), "%.2f"), len(train)),
        "| inference, geometric mean of the ratios (issue 6) | >= 2 | "
        "%s (%d cases) |" % (fmt(geomean(infer), "%.2f"), len(infer)),
        "| `gpt_tiny` training step, first step from a cold cache (issue 6: "
        "compile < 5 s) | < 5 s | %s s (compile, the unfused measurement's "
        "passes and the step) |" % fmt(gpt.get("train_first_cold_s"), "%.2f"),
        "| `gpt_tiny` training step, first step from the cache (issue 6: "
        "cached < 0.5 s) | < 0.5 s | %s s (finding it in the cache and the "
        "step itself) |" % fmt(gpt.get("train_first_cached_s"), "%.2f"),
        "| training step, geometric mean, nnc's better side of default and "
        "tuned (issue 18) | >= 1.2 | %s (%d models) |" % (
            fmt(geomean(best_train.values()), "%.2f"), len(best_train)),
        "| inference, geometric mean, nnc's better side (issue 18) | >= 1.5 "
        "| %s (%d cases) |" % (fmt(geomean(best_infer.values()), "%.2f"),
                               len(best_infer)),
        "| no case below 0.9 (issue 18) | none | %s |" % (
            ", ".join(low) if low else "none"),
        "| ResNet-18 and cnn_small training steps (issue 18) | >= 1.0 | "
        "%s |" % ", ".join("%s %s" % (c, fmt(best_train.get(c), "%.2f"))
                           for c in ("resnet18_b8", "cnn_small")),
        "| cached compile from a warm tuning database against the default's "
        "cached compile (issue 18) | within 10 %% | %s |" % (
            ", ".join(warm) if warm else "—"),
    ]
    for case in ("gpt_tiny", "cnn_small"):
        fig = rows.get(case, {}).get("train_fig")
        torch_peak = rows.get(case, {}).get("train_torch_peak")
        if not fig:
            continue
        lines.append(
            "| `%s` training step: kernels and bytes moved cut by half "
            "(issue 7) | >= 50 %% each | %s, %s |" % (
                case,
                fmt(cut(fig["unfused_kernels"], fig["kernels"]), "%.0f %%"),
                fmt(cut(fig["unfused_bytes_moved"], fig["bytes_moved"]),
                    "%.1f %%")))
        lines.append(
            "| `%s` training step: planned peak at most PyTorch's (issue 7) "
            "| <= %s MiB | %s MiB |" % (case, mib(torch_peak),
                                        mib(fig["peak"])))
    lines += [
        "",
        "The compile time alone comes from `nnc-run train MODEL --profile` "
        "(the `compile` event of the training step; docs/Tools.md); "
        "docs/FusionAndMemory.md says what fusion and memory planning do and "
        "what is left.",
        "",
    ]
    return lines


# ---------------------------------------------------------------------------
# Smoke mode
# ---------------------------------------------------------------------------


def dense_hex(array):
    return 'dense<"0x%s"> : tensor<%sxf32>' % (
        array.astype("<f4").tobytes().hex().upper(),
        "x".join(str(d) for d in array.shape))


def smoke_mlir(weights):
    args = ["%x: tensor<?x64xf32> loc(\"x\")"]
    for name, w in weights.items():
        args.append(
            "%%%s: tensor<%sxf32> {nnc.param = #nnc.param<trainable>, "
            "nnc.value = %s} loc(\"%s\")" % (
                name, "x".join(str(d) for d in w.shape), dense_hex(w), name))
    return """func.func @main(%s) -> tensor<?x10xf32> {
  %%0 = nnc.matmul %%x, %%w1 : tensor<?x64xf32>, tensor<64x256xf32>
  %%1 = nnc.add %%0, %%b1 : tensor<?x256xf32>, tensor<256xf32>
  %%2 = nnc.relu %%1 : tensor<?x256xf32>
  %%3 = nnc.matmul %%2, %%w2 : tensor<?x256xf32>, tensor<256x256xf32>
  %%4 = nnc.add %%3, %%b2 : tensor<?x256xf32>, tensor<256xf32>
  %%5 = nnc.relu %%4 : tensor<?x256xf32>
  %%6 = nnc.matmul %%5, %%w3 : tensor<?x256xf32>, tensor<256x10xf32>
  %%7 = nnc.add %%6, %%b3 : tensor<?x10xf32>, tensor<10xf32>
  return %%7 : tensor<?x10xf32>
}
""" % ",\n    ".join(args)


def smoke_fusion(what, stats):
    """Prints the fusion figures of `stats` and whether fusion reduced the
    kernels and the bytes moved (the lit test checks both)."""
    fig = fusion_figures(stats)
    print("%s fusion: %s" % (what, describe_fusion(fig)))
    print("%s fusion: kernels %s, bytes moved %s" % (
        what,
        "fewer" if fig["kernels"] < fig["unfused_kernels"] else "NOT FEWER",
        "less" if fig["bytes_moved"] < fig["unfused_bytes_moved"]
        else "NOT LESS"))


def smoke(lib, torch):
    rng = np.random.default_rng(0)
    sizes = [64, 256, 256, 10]
    weights = {}
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:]), 1):
        bound = 1 / np.sqrt(a)
        weights["w%d" % i] = rng.uniform(-bound, bound, (a, b)).astype(np.float32)
        weights["b%d" % i] = rng.uniform(-bound, bound, b).astype(np.float32)
    batch = 4
    x = rng.standard_normal((batch, 64)).astype(np.float32)
    labels = rng.integers(0, 10, batch).astype(np.int64)

    def reference(x):
        h = x
        for i in (1, 2, 3):
            h = h @ weights["w%d" % i] + weights["b%d" % i]
            if i < 3:
                h = np.maximum(h, 0)
        return h

    print("nnc C API %s, %s" % (lib.api_version(), lib.path))
    print("smoke: mlp_digits (64-256-256-10, ReLU) from MLIR, batch %d" % batch)
    ctx = nnc.Context(lib)
    model = ctx.parse_mlir(smoke_mlir(weights), "mlp_digits_smoke")
    cache = tempfile.mkdtemp(prefix="nnc-bench-smoke-")
    try:
        t0 = time.perf_counter()
        cold = model.compile([x.shape], compile_options(cache))
        cold_s = time.perf_counter() - t0
        cs = cold.stats()
        cold.close()
        t0 = time.perf_counter()
        exe = model.compile([x.shape], compile_options(cache))
        cached_s = time.perf_counter() - t0
        s = exe.stats()
        print("compile: cold %.3f s (from cache %d), cached %.3f s "
              "(from cache %d)" % (cold_s, cs.from_cache, cached_s,
                                   s.from_cache))
        print("inference executable: %d kernels, %d library calls, "
              "peak %d bytes" % (s.kernel_count, s.library_calls,
                                 s.peak_memory_bytes))
        smoke_fusion("inference", s)
        xin = nnc.Tensor.view(lib, x)
        # The tuned side's path: autotune on into an empty database, then
        # the cached compile from it.
        row = {}
        tuned = compile_tuned(model, x, row)
        if tuned is None:
            print("autotune on: failed: %s" % row["tuned_infer_error"])
        else:
            tun = row["infer_tuning"]
            tout = tuned.run([xin])[0]
            print("autotune on: %d kernels with candidates, %d measured, "
                  "%d changed, tuning %.2f s; max abs diff to NumPy %.1e: "
                  "%s" % (tun["candidates"], tun["measured"], tun["changed"],
                          tun["seconds"], float(np.max(np.abs(
                              tout - reference(x)))),
                          "ok" if np.allclose(tout, reference(x), rtol=1e-4,
                                              atol=1e-5) else "MISMATCH"))
            tuned.close()
        out = exe.run([xin])[0]
        diff = float(np.max(np.abs(out - reference(x))))
        print("inference output %s, max abs diff to NumPy %.1e: %s" % (
            "x".join(map(str, out.shape)), diff,
            "ok" if diff < 1e-4 else "MISMATCH"))
        times = []
        for _ in range(WARMUP + 2):
            t0 = time.perf_counter()
            exe.run([xin], keep_outputs=False)
            times.append(time.perf_counter() - t0)
        print("nnc inference: %.3f ms (median of 2)" % median_ms(times[WARMUP:]))
        exe.close()

        trainer = model.trainer(nnc.TrainOptions(learning_rate=LR),
                                compile_options(cache))
        data = [xin, nnc.Tensor.view(lib, labels)]
        losses, times = [], []
        for _ in range(WARMUP + 2):
            t0 = time.perf_counter()
            info = trainer.step(data)
            times.append(time.perf_counter() - t0)
            losses.append(info.loss)
        print("nnc train step: %.3f ms (median of 2), first step %.3f s; "
              "step count %d" % (median_ms(times[WARMUP:]), times[0],
                                 info.step))
        print("losses: %s; %s" % (" ".join("%.4f" % v for v in losses),
                                  "decreasing" if losses[-1] < losses[0]
                                  else "NOT DECREASING"))
        smoke_fusion("train step", trainer.step_stats())
        f32_step_peak = trainer.step_stats().peak_memory_bytes
        trainer.close()

        # The bf16 rows' path: precision BF16 for inference (its logits
        # within bf16's rounding of NumPy's f32 ones) and training.
        exe = model.compile([x.shape], compile_options(cache, "bf16"))
        out = exe.run([xin])[0]
        ref = reference(x)
        diff = float(np.max(np.abs(out - ref)))
        bound = 0.05 * float(np.max(np.abs(ref)))
        print("bf16 inference: max abs diff to NumPy %.1e (bound %.1e): %s; "
              "peak %d bytes (f32 %d)" % (
                  diff, bound, "ok" if diff <= bound else "MISMATCH",
                  exe.stats().peak_memory_bytes, s.peak_memory_bytes))
        exe.close()
        trainer = model.trainer(nnc.TrainOptions(learning_rate=LR),
                                compile_options(cache, "bf16"))
        bf16_losses = [trainer.step(data).loss for _ in range(4)]
        print("bf16 losses: %s; %s; first within %.1e of f32's: %s; step "
              "peak %d bytes (f32 %d)" % (
                  " ".join("%.4f" % v for v in bf16_losses),
                  "decreasing" if bf16_losses[-1] < bf16_losses[0]
                  else "NOT DECREASING", 0.02,
                  "ok" if abs(bf16_losses[0] - losses[0]) <= 0.02
                  else "MISMATCH",
                  trainer.step_stats().peak_memory_bytes, f32_step_peak))
        trainer.close()
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    if torch is not None:
        torch.set_num_threads(THREADS)
        tx = torch.from_numpy(x)
        tw = {k: torch.from_numpy(v) for k, v in weights.items()}
        times = []
        with torch.no_grad():
            for _ in range(WARMUP + 2):
                t0 = time.perf_counter()
                h = torch.relu(tx @ tw["w1"] + tw["b1"])
                h = torch.relu(h @ tw["w2"] + tw["b2"])
                h @ tw["w3"] + tw["b3"]
                times.append(time.perf_counter() - t0)
        print("torch inference: %.3f ms (median of 2)" %
              median_ms(times[WARMUP:]))
        check_torch_peak(torch)
    else:
        print("torch: not available, skipped")
    model.close()
    ctx.close()
    print("smoke: done")


# ---------------------------------------------------------------------------


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models",
                        help="comma-separated cases (default: %s; also "
                        "gpt_12); with --remat-only, the cases of the "
                        "rematerialization section" % ", ".join(DEFAULT_CASES))
    parser.add_argument("--steps", type=int, default=30,
                        help="timed iterations per phase at most (default 30)")
    parser.add_argument("--budget", type=float, default=40,
                        help="seconds of timed iterations per model, split "
                        "between inference and training; N is lowered to "
                        "fit (at least 3)")
    parser.add_argument("--out", default=os.path.join(root, "docs",
                                                      "benchmarks.md"))
    parser.add_argument("--models-dir",
                        default=os.path.join(root, "build", "bench", "models"))
    parser.add_argument("--nnc-lib",
                        default=os.path.join(root, "build", "lib", "libnnc.so"))
    parser.add_argument("--smoke", action="store_true",
                        help="tiny nnc-only run, no PyTorch or models needed")
    parser.add_argument("--no-library-kernels", action="store_true",
                        help="compile nnc without library kernels (oneDNN "
                        "convolutions), to compare")
    parser.add_argument("--autotune", default="cached",
                        choices=["off", "cached", "on", "require"],
                        help="nnc's autotuner mode (default cached: the "
                        "run's cache folder starts empty, so the defaults)")
    parser.add_argument("--no-amp", dest="amp", action="store_false",
                        help="skip the bf16 rows (nnc --amp bf16 against "
                        "nnc f32 and PyTorch under torch.autocast)")
    parser.add_argument("--tuning-budget", type=float, default=120.0,
                        help="seconds --autotune on may measure per compile")
    parser.add_argument("--no-tuned", dest="tuned", action="store_false",
                        help="skip the third side, nnc compiled with "
                        "autotune on (tuning into an empty database)")
    parser.add_argument("--peers", default=default_peers_python(root),
                        help="the Python of a virtual environment with "
                        "PyTorch 2 and onnxruntime for bench/peers.py "
                        "(default: $NNC_BENCH_PEERS_PYTHON, else "
                        "build/bench/venv/bin/python when it exists; "
                        "bench/peers-venv.sh makes it)")
    parser.add_argument("--no-peers", dest="peers", action="store_const",
                        const=None, help="leave the peers' columns empty")
    parser.add_argument("--peers-sides", default=",".join(PEER_SIDES),
                        help="peers to run (default %s)" %
                        ",".join(PEER_SIDES))
    parser.add_argument("--peers-timeout", type=float, default=1200,
                        help="seconds bench/peers.py may take per case")
    parser.add_argument("--remat", action="store_true",
                        help="add the rematerialization section: nnc's "
                        "training step under memory budgets against PyTorch "
                        "with checkpointed blocks")
    parser.add_argument("--remat-only", action="store_true",
                        help="run only the rematerialization section (for "
                        "--models, else --remat-models)")
    parser.add_argument("--remat-models", default=",".join(REMAT_CASES),
                        help="cases of the rematerialization section "
                        "(default %s)" % ",".join(REMAT_CASES))
    parser.add_argument("--remat-budgets", default=REMAT_BUDGETS,
                        help="memory budgets as fractions of the planned "
                        "peak without recomputation; 1.0 is the row without "
                        "a budget, always run (default %s)" % REMAT_BUDGETS)
    parser.add_argument("--dist", action="store_true",
                        help="add the data-parallel scaling section "
                        "(bench/dist.py): the char-level GPT on 1 and 2 "
                        "ranks, nnc beside PyTorch DDP")
    parser.add_argument("--dist-only", action="store_true",
                        help="run only the data-parallel scaling section")
    parser.add_argument("--dist-steps", type=int, default=60,
                        help="steps per configuration of that section "
                        "(default 60, the first 5 not timed)")
    parser.add_argument("--remat-rss", help=argparse.SUPPRESS)
    args = parser.parse_args()
    global LIBRARY_KERNELS, AUTOTUNE, TUNING_BUDGET
    LIBRARY_KERNELS = 0 if args.no_library_kernels else 1
    AUTOTUNE = args.autotune
    TUNING_BUDGET = args.tuning_budget

    if args.remat_rss:
        # A child of bench_remat (remat_measured_peak), with
        # libnnc_runtime.so alone.
        remat_rss_probe(args)
        return 0
    lib = nnc.Library(args.nnc_lib)
    torch = try_import_torch()
    if args.smoke:
        smoke(lib, torch)
        return 0
    if torch is None:
        print("run.py: PyTorch is not available; install python3-torch, or "
              "use --smoke", file=sys.stderr)
        return 1
    torch.set_num_threads(THREADS)
    models = [] if args.remat_only or args.dist_only else (
        args.models.split(",") if args.models else DEFAULT_CASES)
    remat_models = [] if not (args.remat or args.remat_only) else (
        args.models.split(",") if args.remat_only and args.models
        else args.remat_models.split(","))
    unknown = [c for c in models + remat_models if c not in CASES]
    if unknown:
        parser.error("unknown models: %s" % ", ".join(unknown))
    not_train = [c for c in remat_models if c not in TRAIN_CASES]
    if not_train:
        parser.error("not trained, so not in the rematerialization "
                     "section: %s" % ", ".join(not_train))
    if (args.dist or args.dist_only) and args.dist_steps <= 5:
        parser.error("--dist-steps must be more than the 5 of warm-up")
    try:
        remat_fractions(args.remat_budgets)
    except ValueError as e:
        parser.error(str(e))

    start = time.perf_counter()
    rows = {}
    for case in models:
        print("%s:" % case, flush=True)
        rows[case] = {}
        t0 = time.perf_counter()
        try:
            bench_case(lib, torch, case, args, rows[case])
        except Exception as e:  # noqa: BLE001 - recorded in the report
            traceback.print_exc()
            rows[case]["error"] = short_error(e)
        if args.peers:
            rows[case]["peers"] = run_peers(case, args)
        print("  (%.0f s)" % (time.perf_counter() - t0), flush=True)
    remat = {}
    for case in remat_models:
        print("%s, rematerialization:" % case, flush=True)
        remat[case] = {}
        t0 = time.perf_counter()
        try:
            bench_remat(lib, torch, case, args, remat[case])
        except Exception as e:  # noqa: BLE001 - recorded in the report
            traceback.print_exc()
            remat[case]["error"] = short_error(e)
        print("  (%.0f s)" % (time.perf_counter() - t0), flush=True)
    dist_text = ""
    if args.dist or args.dist_only:
        import dist
        print("data-parallel scaling:", flush=True)
        t0 = time.perf_counter()
        dist_rows = dist.measure(
            os.path.join(os.path.dirname(os.path.dirname(args.nnc_lib)),
                         "bin", "nnc-run"), args.dist_steps)
        dist_text = dist.section(dist_rows, args.dist_steps)
        print("  (%.0f s)" % (time.perf_counter() - t0), flush=True)
    command = " ".join(["/usr/bin/python3"] +
                       [os.path.relpath(sys.argv[0])] + sys.argv[1:])
    write_report(args.out, rows, remat, lib, torch, command,
                 time.perf_counter() - start, args.models_dir, dist_text)
    print("wrote %s" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
