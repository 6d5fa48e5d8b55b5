//===- DnnlConvolutions.h - convolutions that oneDNN runs -------*- C++ -*-===//
//
// The CPU target's side of the oneDNN glue (runtime/include/nnc/runtime/
// LibraryConvolution.h): a convolution's descriptor, whether oneDNN can
// run it here, and what the glue is, for cache keys.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LIB_TARGET_CPU_DNNLCONVOLUTIONS_H
#define NNC_LIB_TARGET_CPU_DNNLCONVOLUTIONS_H

#include "nnc/runtime/LibraryConvolution.h"

#include <array>
#include <string>

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

/// "oneDNN 2.6.3 (..., isa avx2)", or "no oneDNN" without the glue.
std::string dnnlDescription();

} // namespace nnc::cpu

#endif // NNC_LIB_TARGET_CPU_DNNLCONVOLUTIONS_H
