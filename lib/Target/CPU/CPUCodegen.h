//===- CPUCodegen.h - LLVM dialect to a shared object -----------*- C++ -*-===//
//
// Native code generation for the host CPU, in process: translation to LLVM
// IR, kernel entry points, optimization, object emission and linking into a
// shared object with lld.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LIB_TARGET_CPU_CPUCODEGEN_H
#define NNC_LIB_TARGET_CPU_CPUCODEGEN_H

#include "nnc/Target/Target.h"

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nnc::cpu {

struct CPUCodegenResult {
  std::vector<uint8_t> sharedObject;
  /// Features of the host CPU the code may use (names the runtime checks).
  std::vector<std::string> cpuFeatures;
  bool usesOpenMP = false;
  /// The code calls CBLAS (cblas_sgemm, cblas_dgemm): the runtime opens
  /// OpenBLAS before loading it.
  bool usesBlas = false;
  /// The code calls the oneDNN glue (nnc_dnnl_convolution): the runtime
  /// opens libnnc_dnnl.so before loading it.
  bool usesDnnl = false;
  /// The code calls the runtime's nnc_runtime_all_reduce.
  bool usesCollectives = false;
};

/// Generates a shared object from `module` (in the LLVM dialect) exporting
/// `kernels` and nothing else: kernel k as `void symbol(void **args)`
/// calling the bare-pointer function with args[0, numPointers). Errors are
/// emitted on the module.
mlir::LogicalResult
generateSharedObject(mlir::ModuleOp module,
                     const std::vector<KernelEntry> &kernels, int optLevel,
                     CPUCodegenResult &result);

/// The host CPU name and the features code is generated for; part of the
/// compile cache key.
std::string hostCpuDescription();

/// The bits of the widest vector registers the host's features give code:
/// 512 with AVX-512, 256 with AVX, else 128.
unsigned hostVectorBits();

} // namespace nnc::cpu

#endif // NNC_LIB_TARGET_CPU_CPUCODEGEN_H
