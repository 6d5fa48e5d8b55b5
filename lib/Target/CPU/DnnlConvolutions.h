//===- DnnlConvolutions.h - convolutions that oneDNN runs -------*- C++ -*-===//
//
// The CPU target's side of the oneDNN glue (runtime/include/nnc/runtime/
// LibraryConvolution.h): a convolution's descriptor, whether oneDNN can
// run it here, and what the glue is, for cache keys.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LIB_TARGET_CPU_DNNLCONVOLUTIONS_H
#define NNC_LIB_TARGET_CPU_DNNLCONVOLUTIONS_H

#include "nnc/Target/Target.h"
#include "nnc/runtime/LibraryConvolution.h"

#include <array>
#include <string>

namespace mlir {
class Operation;
} // namespace mlir

namespace nnc {
struct LibraryConvolution;
} // namespace nnc

namespace nnc::cpu {

/// The glue's descriptor of `conv`.
std::array<int64_t, runtime::libconv::kLength>
dnnlDescriptor(const LibraryConvolution &conv);

/// Whether oneDNN builds a primitive for `conv` on this machine (the glue
/// keeps it for the first run); the reason in `why` when not, the glue's
/// absence included.
bool dnnlCanRun(const LibraryConvolution &conv, std::string &why);

/// Whether `op` is a convolution (or one of its gradients) that oneDNN runs
/// here: the cost model gives it the library.
bool dnnlTakes(mlir::Operation *op);

/// The kernels the CPU offers for a convolution or its gradients (none for
/// other ops): oneDNN where it takes the op (the default then), per-image
/// and whole-batch im2col + GEMM, and loops.
KernelCandidates convolutionCandidates(mlir::Operation *op,
                                       bool libraryConvolutions);

/// Whether the oneDNN glue runs bf16 GEMMs on this CPU's bf16 instructions
/// (nnc_dnnl_sbgemm); the reason in `why` when not.
bool dnnlRunsBF16Gemms(std::string *why = nullptr);

/// "oneDNN 2.6.3 (..., isa avx2)", or "no oneDNN" without the glue.
std::string dnnlDescription();

} // namespace nnc::cpu

#endif // NNC_LIB_TARGET_CPU_DNNLCONVOLUTIONS_H
