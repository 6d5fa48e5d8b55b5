# -*- Python -*-
# lit configuration for the nnc test suite.

import os
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "nnc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".onnxtxt"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Unit",
                   "Inputs", "lib"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.nnc_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%nnc_src_root", config.nnc_src_root))

llvm_config.with_system_environment(["HOME", "TMPDIR"])
llvm_config.use_default_substitutions()

# FileCheck, not, count from LLVM; nnc tools from the build.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.nnc_tools_dir, append_path=True)
tool_dirs = [config.nnc_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(
    ["nnc-opt", "nnc-translate", "nnc-trace-examples", "mlir-runner",
     "nnc-run", "nnc-conformance", "nnc-chargpt"],
    tool_dirs)

# nnc-run by path, for scripts that start it themselves (dp_launch.py).
config.substitutions.append(
    ("%nnc_run_bin", os.path.join(config.nnc_tools_dir, "nnc-run")))

# The tool tests (test/Tools): .npy/.npz files written and dumped with the
# standard library, and the ONNX backend test data (libonnx-testdata).
config.substitutions.append(
    ("%npy", sys.executable + " " +
     os.path.join(config.nnc_src_root, "test", "Tools", "Inputs", "npy.py")))
config.substitutions.append(
    ("%onnx_data", "/usr/share/libonnx-testdata/data"))

# JIT execution of lowered IR (test/Conversion/NNCToLinalg/run-*.mlir): the
# runtime libraries of mlir-runner, and the CPU pipeline after
# --nnc-convert-to-linalg.
mlir_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
for name in ["mlir_runner_utils", "mlir_c_runner_utils"]:
    config.substitutions.append(
        ("%" + name, os.path.join(mlir_lib_dir, "lib" + name + ".so")))
# The runtime's oneDNN glue, for JIT runs of library convolutions.
config.substitutions.append(
    ("%nnc_dnnl", os.path.join(config.nnc_obj_root, "lib", "libnnc_dnnl.so")))
# The host C++ compiler, for tests that compile emitted source against an
# emulation of its device (test/Target/CUDA).
config.substitutions.append(
    ("%host_cxx", os.path.join(config.llvm_tools_dir, "clang++")))
config.substitutions.append(
    ("%cpu_pipeline",
     "--nnc-lower-checks=abort=1 "
     "--one-shot-bufferize=bufferize-function-boundaries "
     "--buffer-deallocation-pipeline --convert-bufferization-to-memref "
     "--convert-linalg-to-loops "
     "--expand-strided-metadata --lower-affine --convert-math-to-libm "
     "--convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts"))

# CPUs with bf16 instructions, where oneDNN runs bf16 convolutions and GEMMs
# natively (elsewhere the CPU target computes them on f32 copies).
try:
    with open("/proc/cpuinfo") as cpuinfo:
        cpu_flags = set(cpuinfo.read().split())
except OSError:
    cpu_flags = set()
if cpu_flags & {"avx512_bf16", "amx_bf16"}:
    config.available_features.add("cpu-bf16")
# AVX-512 (oneDNN's avx512_core), where oneDNN has its Winograd convolution
# kernels and the CPU target's cost model picks them for large 3x3 ones.
if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= cpu_flags:
    config.available_features.add("dnnl-winograd")

if config.nnc_sanitizers:
    config.available_features.add("sanitizers")
    # libMLIR.so is not instrumented: its containers lack ASan annotations, and
    # LLVM allocators inlined into our instrumented code poison memory that the
    # library's own copies then touch. Both checks only misfire across that
    # boundary; every other ASan check stays on.
    config.environment["ASAN_OPTIONS"] = (
        "detect_container_overflow=0:allow_user_poisoning=0")
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    # An uninstrumented host (mlir-runner) that loads an instrumented library
    # (%nnc_dnnl) runs with the sanitizer runtime preloaded; the host's own
    # allocations are not ours to check for leaks.
    config.substitutions.append(
        ("%sanitizer_preload",
         "env LD_PRELOAD=" + config.nnc_sanitizer_runtime + " ASAN_OPTIONS=" +
         config.environment["ASAN_OPTIONS"] + ":detect_leaks=0"))
    # NVRTC (opened by nnc-translate --cuda-arch) is not ours: its own
    # allocations are not checked for leaks.
    config.substitutions.append(
        ("%nvrtc_env", "env ASAN_OPTIONS=" + config.environment["ASAN_OPTIONS"] +
         ":detect_leaks=0"))
else:
    config.substitutions.append(("%sanitizer_preload", ""))
    config.substitutions.append(("%nvrtc_env", ""))
