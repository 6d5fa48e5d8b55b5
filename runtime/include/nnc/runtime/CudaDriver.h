//===- CudaDriver.h - the CUDA driver, opened at run time -------*- C++ -*-===//
//
// The libcuda symbol table. Loading it on a machine without a driver is a
// clear Unavailable status; nothing links against libcuda.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_CUDADRIVER_H
#define NNC_RUNTIME_CUDADRIVER_H

#include "nnc/runtime/DynamicLibrary.h"

namespace nnc::runtime {

struct CudaDriver {
  using CUresult = int;
#define NNC_CU_PFN(name, ...) CUresult (*name)(__VA_ARGS__) = nullptr;
#include "nnc/runtime/CudaDriverSymbols.def"
#undef NNC_CU_PFN

  /// The seam of the test-only emulated driver (test/Target/CUDA/emulator):
  /// a driver library that exports nnc_emulated_module_load_source runs
  /// kernels from their CUDA C++ source, compiled for the host, instead of
  /// from cubins or PTX; the CUDA device then hands it the module's source.
  /// Null for NVIDIA's driver.
  CUresult (*emulatedModuleLoadSource)(void **module, const char *source,
                                       size_t size) = nullptr;

  /// Opens the driver and resolves every entry point. The library is taken
  /// from $NNC_CUDA_DRIVER if set, else libcuda.so.1 / libcuda.so.
  static Status load(CudaDriver &out);

  /// Turns a CUresult into a status naming the call that produced it.
  Status check(CUresult result, const char *call) const;

  const std::string &libraryPath() const { return library.path(); }

private:
  DynamicLibrary library;
};

} // namespace nnc::runtime

#endif // NNC_RUNTIME_CUDADRIVER_H
