#!/usr/bin/python3
#===- bench/weight_copies.py - bf16 steps with and without weight copies -===#
#
# Times nnc's bf16 training step of the bench models with the parameters'
# low-precision copies kept by the step (train option weight_copies = 1, the
# default) and without them (0: each step rounds the weights itself), the two
# trainers alternating in blocks in one process, and prints each one's median
# step time and planned peak (docs/Training.md, "Weight copies").
#
#===----------------------------------------------------------------------===#
"""bf16 training steps with and without weight copies.

  /usr/bin/python3 bench/weight_copies.py [--models a,b] [--steps N]
      [--models-dir DIR] [--nnc-lib PATH]

The models are bench/export_models.py's (run.py's CASES); --steps is the
number of timed steps per block (3 blocks per trainer).
"""

import argparse
import os
import statistics
import sys
import tempfile
import shutil
import time

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import nnc  # noqa: E402
import run  # noqa: E402


def main():
    root = os.path.dirname(here)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="mlp_wide,gpt_tiny,cnn_small,"
                        "resnet18_b8,mobilenet_v2_b8")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--models-dir",
                        default=os.path.join(root, "build", "bench", "models"))
    parser.add_argument("--nnc-lib",
                        default=os.path.join(root, "build", "lib", "libnnc.so"))
    args = parser.parse_args()
    lib = nnc.Library(args.nnc_lib)
    context = nnc.Context(lib)
    for case in args.models.split(","):
        if case not in run.TRAIN_CASES:
            sys.exit("weight_copies.py: '%s' is not a training case of "
                     "run.py" % case)
        onnx_name, input_name, _ = run.CASES[case]
        data = np.load(os.path.join(args.models_dir, case + ".npz"))
        x, labels = data[input_name], data["labels"]
        model = context.import_onnx(
            os.path.join(args.models_dir, onnx_name + ".onnx"))
        batch = [nnc.Tensor.view(lib, x),
                 nnc.Tensor.view(lib, run.trainer_labels(x, labels))]
        cache = tempfile.mkdtemp(prefix="nnc-weight-copies-")
        trainers = {}
        try:
            for mode, copies in (("copies", 1), ("rounded", 0)):
                trainers[mode] = model.trainer(
                    nnc.TrainOptions(learning_rate=run.LR,
                                     weight_copies=copies),
                    run.compile_options(cache, "bf16", measure_unfused=0))
                for _ in range(2):  # compile, then one warm step
                    trainers[mode].step(batch)
            times = {mode: [] for mode in trainers}
            for _ in range(3):
                for mode, trainer in trainers.items():
                    time.sleep(0.3)
                    for _ in range(args.steps):
                        start = time.perf_counter()
                        trainer.step(batch)
                        times[mode].append(time.perf_counter() - start)
            print("%s: %s" % (case, ", ".join(
                "%s %.2f ms (planned peak %.1f MiB)" % (
                    mode, 1e3 * statistics.median(times[mode]),
                    trainers[mode].step_stats().peak_memory_bytes / 2**20)
                for mode in trainers)), flush=True)
        finally:
            for trainer in trainers.values():
                trainer.close()
            model.close()
            shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
