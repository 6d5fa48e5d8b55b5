#!/usr/bin/python3
#===- bench/run.py - nnc against PyTorch eager, inference and training ----===#
#
# Times inference and one training step (cross-entropy, Adam) of the models
# bench/export_models.py exports, nnc against PyTorch eager in the same
# process, on the same batch and weights and the same thread count, and
# writes a Markdown report (docs/benchmarks.md). bench/README.md says how to
# run it and what the figures mean.
#
#===----------------------------------------------------------------------===#
"""nnc vs PyTorch eager: inference and training-step times.

  /usr/bin/python3 bench/run.py [--models a,b] [--steps N] [--out FILE]
                                [--models-dir DIR] [--nnc-lib PATH] [--smoke]

--smoke needs neither PyTorch nor exported models: it writes a small MLP
(mlp_digits' shape, NumPy weights) as MLIR, and compiles, runs and trains it
at batch 4 for 2 timed steps, checking nnc's output against NumPy.
"""

import argparse
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

# PyTorch's OpenMP runtime (libgomp) and nnc's (libomp) share this process:
# with their default spin-waiting, the threads of the one that just ran keep
# the cores busy while the other starts, and on a 2-core machine the
# alternating loop then measures their contention (a 0.7 ms training step
# taking 20-100 ms, differently from run to run). Passive waiting makes idle
# threads sleep at once. Set before either runtime is loaded.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nnc  # noqa: E402

THREADS = 2
LR = 1e-3
WARMUP = 2

# case: (ONNX model, input name, batch)
CASES = {
    "mlp_digits": ("mlp_digits", "x", 64),
    "mlp_wide": ("mlp_wide", "x", 128),
    "gpt_tiny": ("gpt_tiny", "tokens", 8),
    "cnn_small": ("cnn_small", "image", 32),
    "resnet18_b1": ("resnet18", "image", 1),
    "resnet18_b8": ("resnet18", "image", 8),
}
# resnet18 is measured for inference only at batch 1.
TRAIN_CASES = {"mlp_digits", "mlp_wide", "gpt_tiny", "cnn_small",
               "resnet18_b8"}


def try_import_torch():
    try:
        import torch
        return torch
    except ImportError:
        return None


def compile_options(cache_dir):
    return nnc.CompileOptions(cache_dir=cache_dir, num_threads=THREADS)


def median_ms(times):
    return 1e3 * statistics.median(times) if times else None


def choose_steps(pair_seconds, budget, cap):
    """Timed iterations so that a phase takes about `budget` seconds."""
    if pair_seconds <= 0:
        return cap
    return max(3, min(cap, int(budget / pair_seconds)))


def alternate(fns, steps, budget):
    """Warms each of `fns` ({name: callable}) up, then runs them in turn
    until `steps` timed rounds (fewer when the warm-up says a round takes
    longer than budget/steps; at least 3). Returns ({name: [seconds]}, n)."""
    last = {}
    for _ in range(WARMUP):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            last[name] = time.perf_counter() - t0
    n = choose_steps(sum(last.values()), budget, steps)
    times = {name: [] for name in fns}
    for _ in range(n):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return times, n


def short_error(e):
    text = str(e).strip().replace("\n", " ").replace("|", "\\|")
    return text if len(text) <= 400 else text[:400] + "..."


# ---------------------------------------------------------------------------
# One benchmark case
# ---------------------------------------------------------------------------


def torch_model(torch, onnx_name, models_dir, proto):
    """The PyTorch module of `onnx_name` with the ONNX file's weights."""
    import onnx.numpy_helper
    import export_models
    make = export_models.cases()[onnx_name][0]
    model = make()
    state = {t.name: torch.from_numpy(onnx.numpy_helper.to_array(t).copy())
             for t in proto.graph.initializer}
    own = model.state_dict()
    missing = [k for k in own if k not in state and
               not k.endswith("num_batches_tracked")]
    if missing:
        raise RuntimeError("weights missing from the ONNX file: %s" % missing)
    model.load_state_dict({k: state.get(k, v) for k, v in own.items()})
    return model


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
    if fns:
        times, n = alternate(fns, args.steps, args.budget / 2)
        row["infer_n"] = n
        for name, ts in times.items():
            row["infer_%s_ms" % name] = median_ms(ts)
        print("  inference: %s (N=%d)" % (", ".join(
            "%s %.3f ms" % (k, median_ms(v)) for k, v in times.items()), n),
            flush=True)
    if exe is not None:
        exe.close()

    if case not in TRAIN_CASES:
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
            # nnc's trainer batches labels by sample: gpt_tiny's [batch*T]
            # next tokens go in as [batch, T] and are flattened to the
            # logits' layout inside.
            nnc_labels = labels.reshape(x.shape[0], -1)
            if nnc_labels.shape[1] == 1:
                nnc_labels = labels
            data_in = [nnc.Tensor.view(lib, x),
                       nnc.Tensor.view(lib, nnc_labels)]
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
            fns["nnc"] = lambda: trainer.step(data_in)
        except Exception as e:  # noqa: BLE001
            row["train_error"] = short_error(e)
            print("  nnc training failed: %s" % e, flush=True)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
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
    if "nnc" in fns:
        trainer.close()
    if model is not None:
        model.close()
    ctx.close()


# ---------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


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


def ratio(row, phase):
    t, n = row.get(phase + "_torch_ms"), row.get(phase + "_nnc_ms")
    return "%.2f" % (t / n) if t and n else "—"


def write_report(path, rows, lib, torch, command, elapsed, models_dir):
    lines = [
        "# Benchmarks",
        "",
        "nnc against PyTorch eager on the CPU, produced by `bench/run.py` "
        "(bench/README.md says what is measured and the caveats). "
        "Times are medians of N alternating timed iterations after %d "
        "warm-up iterations each; ratio = PyTorch / nnc (> 1: nnc faster). "
        "Both use %d threads; `OMP_WAIT_POLICY=%s` (PyTorch's and nnc's "
        "OpenMP runtimes share the process; see bench/README.md)." % (
            WARMUP, THREADS, os.environ.get("OMP_WAIT_POLICY", "")),
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
        "a second compile from that directory; *max abs diff* compares nnc's "
        "inference logits with PyTorch's. The nnc training figures have no "
        "kernel count or peak (the C API reports them for executables only); "
        "*first step* is the wall time of the first `nnc_trainer_step` of a "
        "new trainer, which builds and compiles the training step (cold: "
        "empty cache; cached: a second trainer on the same cache). The first "
        "losses are both from the exported weights on the same batch.",
        "",
    ]
    with open(path, "w") as f:
        f.write("\n".join(lines))


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
        xin = nnc.Tensor.view(lib, x)
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
    else:
        print("torch: not available, skipped")
    model.close()
    ctx.close()
    print("smoke: done")


# ---------------------------------------------------------------------------


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=",".join(CASES),
                        help="comma-separated cases (default: all: %s)" %
                        ", ".join(CASES))
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
    args = parser.parse_args()

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
    unknown = [c for c in args.models.split(",") if c not in CASES]
    if unknown:
        parser.error("unknown models: %s" % ", ".join(unknown))

    start = time.perf_counter()
    rows = {}
    for case in args.models.split(","):
        print("%s:" % case, flush=True)
        rows[case] = {}
        t0 = time.perf_counter()
        try:
            bench_case(lib, torch, case, args, rows[case])
        except Exception as e:  # noqa: BLE001 - recorded in the report
            traceback.print_exc()
            rows[case]["error"] = short_error(e)
        print("  (%.0f s)" % (time.perf_counter() - t0), flush=True)
    command = " ".join(["/usr/bin/python3"] +
                       [os.path.relpath(sys.argv[0])] + sys.argv[1:])
    write_report(args.out, rows, lib, torch, command,
                 time.perf_counter() - start, args.models_dir)
    print("wrote %s" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
