#!/usr/bin/env python3
#===- bench/peers.py - torch.compile and ONNX Runtime on a bench case -----===#
#
# The peers users would pick instead of nnc, on one case of bench/run.py:
# PyTorch 2 eager, torch.compile (Inductor, default and max-autotune modes)
# and ONNX Runtime's CPU provider. bench/run.py runs it once per case with
# the Python of a virtual environment that has PyTorch 2 and onnxruntime
# (bench/peers-venv.sh makes one; Debian's PyTorch 1.13 has no
# torch.compile).
#
#===----------------------------------------------------------------------===#
"""PyTorch 2 eager, torch.compile and ONNX Runtime on one bench case.

  VENV/bin/python bench/peers.py --case CASE --models-dir DIR --out F.json
      [--threads 2] [--steps 30] [--budget 40] [--train]
      [--sides eager,compile,max_autotune,ort]

Inference of the exported model (`ort` runs the ONNX file itself, the
others the PyTorch module with its weights) and, with --train, the training
step (forward, cross-entropy, backward, Adam lr 1e-3; ONNX Runtime's CPU
package has no training, so `ort` is inference only). Every side gets its
own copy of the module, so the training steps do not share weights. A
compiled side's first call compiles (into an Inductor cache folder of this
process's own; max-autotune, compiled after the default mode, reuses the
kernels that built): its seconds are `compile_s`. The sides
are then timed as bench/run.py times its own (bench/timing.py: warm-up,
blocks that take turns, each after a pause, medians). Writes JSON: per
phase and side the median ms, the compile seconds and how far its first
output (inference) or loss (training) is from eager's, or the error that
stopped the side.
"""

import argparse
import copy
import json
import os
import platform
import shutil
import sys
import tempfile
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import alternate, median_ms  # noqa: E402

SIDES = ("eager", "compile", "max_autotune", "ort")
LR = 1e-3


def short_error(e):
    text = ("%s: %s" % (type(e).__name__, e)).strip().replace("\n", " ")
    return text if len(text) <= 400 else text[:400] + "..."


def versions(torch, ort):
    out = {"python": platform.python_version(), "numpy": np.__version__}
    if torch is not None:
        out["torch"] = torch.__version__
    if ort is not None:
        out["onnxruntime"] = ort.__version__
    return out


def first_call(side, result, fn):
    """Calls fn once (a compiled side compiles then), recording the seconds;
    returns its result, or None with the error recorded."""
    t0 = time.perf_counter()
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 - recorded in the JSON
        traceback.print_exc()
        result[side] = {"error": short_error(e)}
        return None
    result[side] = {"compile_s": time.perf_counter() - t0}
    return out


def inference(torch, ort, module, proto_path, input_name, x, sides, args):
    tx = torch.from_numpy(x)
    result, fns, outs = {}, {}, {}
    for side in sides:
        if side == "ort":
            if ort is None:
                result[side] = {"error": "onnxruntime is not installed"}
                continue
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = args.threads
            opts.inter_op_num_threads = 1
            opts.graph_optimization_level = (
                ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
            holder = {}

            def make(opts=opts, holder=holder):
                holder["s"] = ort.InferenceSession(
                    proto_path, opts, providers=["CPUExecutionProvider"])
                return holder["s"].run(None, {input_name: x})[0]
            out = first_call(side, result, make)
            if out is not None:
                sess = holder["s"]
                fns[side] = (lambda sess=sess:
                             sess.run(None, {input_name: x}))
                outs[side] = out
            continue
        m = copy.deepcopy(module).eval()
        if side != "eager":
            m = torch.compile(m, mode=None if side == "compile"
                              else "max-autotune")

        def run(m=m):
            with torch.no_grad():
                return m(tx)
        out = first_call(side, result, run)
        if out is not None:
            fns[side] = run
            outs[side] = out.numpy()
    ref = outs.get("eager")
    for side, out in outs.items():
        if ref is not None and side != "eager":
            result[side]["max_abs_diff"] = float(np.max(np.abs(out - ref)))
    return time_sides(result, fns, args)


def training(torch, module, x, labels, sides, args):
    tx, ty = torch.from_numpy(x), torch.from_numpy(labels)
    result, fns, losses = {}, {}, {}
    for side in sides:
        if side == "ort":
            continue
        m = copy.deepcopy(module).train()
        opt = torch.optim.Adam(m.parameters(), lr=LR)
        if side != "eager":
            m = torch.compile(m, mode=None if side == "compile"
                              else "max-autotune")

        def step(m=m, opt=opt):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(m(tx), ty)
            loss.backward()
            opt.step()
            return loss.item()
        loss = first_call(side, result, step)
        if loss is not None:
            fns[side] = step
            losses[side] = loss
    for side, loss in losses.items():
        result[side]["first_loss"] = loss
    return time_sides(result, fns, args)


def time_sides(result, fns, args):
    if not fns:
        return result, 0
    times, n = alternate(fns, args.steps, args.budget / 2)
    for side, ts in times.items():
        result[side]["ms"] = median_ms(ts)
    print("  peers: %s (N=%d)" % (", ".join(
        "%s %.3f ms" % (k, median_ms(v)) for k, v in times.items()), n),
        flush=True)
    return result, n


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--case", required=True)
    parser.add_argument("--onnx", required=True,
                        help="the model's name in export_models.cases()")
    parser.add_argument("--input", required=True,
                        help="the model input's name")
    parser.add_argument("--models-dir", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--budget", type=float, default=40)
    parser.add_argument("--train", action="store_true")
    parser.add_argument("--sides", default=",".join(SIDES))
    args = parser.parse_args()
    sides = [s for s in args.sides.split(",") if s]
    unknown = [s for s in sides if s not in SIDES]
    if unknown:
        parser.error("unknown sides: %s (known: %s)" % (
            ", ".join(unknown), ", ".join(SIDES)))

    out = {"case": args.case}
    # Inductor keeps what it compiled in a cache folder across processes;
    # a folder of this run's own makes each compile time a cold one.
    cache = tempfile.mkdtemp(prefix="nnc-bench-inductor-")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
    try:
        import torch
    except ImportError as e:
        torch = None
        out["error"] = "PyTorch is not installed: %s" % e
    try:
        import onnxruntime as ort
    except ImportError:
        ort = None
    out["versions"] = versions(torch, ort)
    if torch is not None:
        torch.set_num_threads(args.threads)
        try:
            import onnx
            import export_models
            path = os.path.join(args.models_dir, args.onnx + ".onnx")
            data = np.load(os.path.join(args.models_dir, args.case + ".npz"))
            x, labels = data[args.input], data["labels"]
            module = export_models.module_with_weights(args.onnx,
                                                       onnx.load(path))
            out["infer"], out["infer_n"] = inference(
                torch, ort, module, path, args.input, x, sides, args)
            if args.train:
                out["train"], out["train_n"] = training(
                    torch, module, x, labels, sides, args)
        except Exception as e:  # noqa: BLE001 - recorded in the JSON
            traceback.print_exc()
            out["error"] = short_error(e)
    shutil.rmtree(cache, ignore_errors=True)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
    return 0 if "error" not in out else 1


if __name__ == "__main__":
    sys.exit(main())
