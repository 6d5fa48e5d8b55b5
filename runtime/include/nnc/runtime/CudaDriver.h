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
