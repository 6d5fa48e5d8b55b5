//===- Emulator.h - internals of the emulated CUDA driver -------*- C++ -*-===//
//
// Test-only. What the driver entry points (CudaEmulator.cpp) share with the
// kernel compiler (KernelCompiler.cpp) and the emulated cuBLASLt
// (CublasLtEmulator.cpp): the CUresult codes, the diagnostics to stderr,
// compiling a module's CUDA C++ for the host, and host work on a stream.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TEST_CUDA_EMULATOR_EMULATOR_H
#define NNC_TEST_CUDA_EMULATOR_EMULATOR_H

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace nnc::cuda_emulator {

using CUresult = int;

enum : CUresult {
#define NNC_CU_ERROR(name, value, description) name = value,
#include "CudaErrors.def"
#undef NNC_CU_ERROR
};

/// Prints "nnc-cuda-emulator: <message>" to stderr: the reasons behind the
/// codes, which is what makes the emulator catch runtime bugs usefully.
void diag(const char *format, ...) __attribute__((format(printf, 1, 2)));

/// A __global__ function of a module's source, as the emitter writes it:
/// `extern "C" __global__ void __launch_bounds__(N) NAME(char *a0, ...)`.
struct KernelSignature {
  unsigned numParams = 0;
  /// __launch_bounds__, else CUDA's limit of 1024 threads per block.
  unsigned maxThreads = 1024;
};

/// The kernels of `source` by name, or CUDA_ERROR_INVALID_SOURCE (with a
/// diagnostic) for a __global__ function the emulator cannot launch.
CUresult parseKernels(const std::string &source,
                      std::map<std::string, KernelSignature> &kernels);

/// `nnc_emulator_launch` of nnc_cuda_emulation.h, as compiled into a module.
using ModuleLauncher = int (*)(void *kernel, int numParams, char *const *args,
                               const unsigned grid[3], const unsigned block[3]);

/// `source` with what lets the module's nnc_emulator_launch call its
/// kernels of more than 64 parameters (NNC_EMULATION_ARITY).
std::string withLaunchers(const std::string &source,
                          const std::map<std::string, KernelSignature> &kernels);

/// Compiles `source` for the host (or takes it from the cache) and opens it.
CUresult compileModule(const std::string &source, void *&handle,
                       ModuleLauncher &launcher);

/// Removes the private compilation directory, if one was made.
void removePrivateDirectory();

/// Device memory that host work reads or writes: `bytes` from `begin`,
/// which must lie inside one live cuMemAlloc allocation. `what` names it in
/// diagnostics ("matrix A"); a string literal, as ops outlive the call.
struct DeviceRange {
  const void *begin;
  size_t bytes;
  const char *what;
};

/// Issues `work` on the emulated stream `stream` (null is the legacy one),
/// as cuLaunchKernel issues a kernel: run now, in order with the stream's
/// other work, or recorded by the stream's capture and run at each replay
/// of its graph. `ranges` are checked against the live allocations at issue
/// and at each replay, as a copy's are; one outside them is
/// CUDA_ERROR_INVALID_VALUE (with a diagnostic naming `call`), and
/// invalidates a capture in progress. This is how a library emulated beside
/// the driver (the cuBLASLt of CublasLtEmulator.cpp) runs on its streams.
CUresult submitHostWork(void *stream, const char *call,
                        std::vector<DeviceRange> ranges,
                        std::function<void()> work);

} // namespace nnc::cuda_emulator

#endif // NNC_TEST_CUDA_EMULATOR_EMULATOR_H
