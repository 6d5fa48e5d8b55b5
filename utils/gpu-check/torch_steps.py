#!/usr/bin/env python3
"""PyTorch's training steps beside nnc's in the GPU check.

    torch_steps.py DIR STEPS [--device cuda] [--models digits,gpt]

Times the training steps that utils/gpu-check.sh prepared for nnc, in
PyTorch, on the same data in the same order (batches of 32 from
DIR/digits-train.npz and DIR/gpt-train.npz): the same models
(utils/export_digits_model.py's DigitsCNN, utils/export_training_refs.py's
TinyGPT as examples/chargpt has it), mean cross-entropy, Adam at lr 1e-3
(nnc-run train's defaults). Modes: eager, and where the PyTorch has
torch.compile, `torch.compile` (Inductor, default mode) and its
"reduce-overhead" mode (CUDA graphs). Each mode runs 3 steps untimed (the
first, which compiles, is reported) and then STEPS timed steps, each
synchronized, and prints the median. One line per model and mode:

    torch 2.x cuda eager digits: median 1.234 ms/step over 200 steps (first step 5.6 ms)

A mode that fails prints its error on its line and the script goes on; the
exit status is 1 if any failed.
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import export_chargpt  # noqa: E402
import export_digits_model  # noqa: E402

BATCH = 32


def batches(path, names):
    data = np.load(path)
    arrays = [data[n] for n in names]
    count = len(arrays[0]) // BATCH
    index = 0
    while True:
        start = (index % count) * BATCH
        yield [a[start:start + BATCH] for a in arrays]
        index += 1


def run(make, path, names, loss_of, mode, steps, device, amp=False):
    torch.manual_seed(0)
    model = make().to(device)
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    forward = model
    if mode == "compile":
        forward = torch.compile(model)
    elif mode == "reduce-overhead":
        forward = torch.compile(model, mode="reduce-overhead")
    source = batches(path, names)

    def step():
        x, y = (torch.from_numpy(a).to(device, non_blocking=True)
                for a in next(source))
        optimizer.zero_grad(set_to_none=True)
        if amp:
            # torch.autocast's bf16: matrix products and convolutions in
            # bf16, as nnc's --amp bf16.
            with torch.autocast(device.split(":")[0], dtype=torch.bfloat16):
                loss = loss_of(forward(x), y)
        else:
            loss = loss_of(forward(x), y)
        loss.backward()
        optimizer.step()
        return loss

    def sync():
        if device.startswith("cuda"):
            torch.cuda.synchronize()

    times = []
    for i in range(3 + steps):
        sync()
        start = time.perf_counter()
        step()
        sync()
        times.append((time.perf_counter() - start) * 1e3)
    return times[0], statistics.median(times[3:])


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("steps", type=int)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--models", default="digits,gpt")
    args = parser.parse_args(argv)
    if args.steps < 1:
        parser.error("steps must be at least 1")
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("torch %s: no CUDA device" % torch.__version__)
        return 1
    models = {
        "digits": (export_digits_model.make_model, "digits-train.npz",
                   ["image", "labels"], F.cross_entropy),
        "gpt": (export_chargpt.make_model, "gpt-train.npz",
                ["tokens", "labels"],
                lambda logits, labels: F.cross_entropy(logits,
                                                       labels.reshape(-1))),
    }
    modes = ["eager"]
    if hasattr(torch, "compile"):
        modes += ["compile", "reduce-overhead"]
    failed = False
    for name in args.models.split(","):
        if name not in models:
            parser.error("unknown model %r (digits, gpt)" % name)
        make, file, names, loss_of = models[name]
        path = os.path.join(args.dir, file)
        if not os.path.exists(path):
            continue
        for mode, amp in [(m, a) for a in (False, True) for m in modes]:
            label = "torch %s %s %s %s%s" % (torch.__version__, args.device,
                                              mode, name,
                                              " bf16" if amp else "")
            try:
                first, median = run(make, path, names, loss_of, mode,
                                    args.steps, args.device, amp)
                print("%s: median %.3f ms/step over %d steps (first step "
                      "%.1f ms)" % (label, median, args.steps, first),
                      flush=True)
            except Exception as e:  # a mode that fails is a line, not the end
                failed = True
                print("%s: FAILED: %s" % (label, str(e).splitlines()[0]
                                          if str(e) else type(e).__name__),
                      flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
