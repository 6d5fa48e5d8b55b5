//===- Emulator.h - internals of the emulated CUDA driver -------*- C++ -*-===//
//
// Test-only. What the driver entry points (CudaEmulator.cpp) share with the
// kernel compiler (KernelCompiler.cpp): the CUresult codes, the diagnostics
// to stderr, and compiling a module's CUDA C++ for the host.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TEST_CUDA_EMULATOR_EMULATOR_H
#define NNC_TEST_CUDA_EMULATOR_EMULATOR_H

#include <map>
#include <string>

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

} // namespace nnc::cuda_emulator

#endif // NNC_TEST_CUDA_EMULATOR_EMULATOR_H
