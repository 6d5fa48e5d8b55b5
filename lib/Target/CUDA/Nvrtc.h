//===- Nvrtc.h - CUDA C++ to cubins and PTX through NVRTC -------*- C++ -*-===//
//
// libnvrtc opened with dlopen (NvrtcSymbols.def), so that nnc builds and
// runs without the CUDA toolkit and says which library is missing.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LIB_TARGET_CUDA_NVRTC_H
#define NNC_LIB_TARGET_CUDA_NVRTC_H

#include <string>
#include <vector>

namespace nnc::cuda {

/// Compiles `source` (named `name` in messages) for `arch`: "sm_XX" gives a
/// cubin, "compute_XX" PTX. On failure returns false with `error` holding
/// NVRTC's log, or why NVRTC could not be opened ($NNC_NVRTC_LIBRARY
/// overrides where it is looked for).
bool compileWithNvrtc(const std::string &source, const std::string &name,
                      const std::string &arch, std::vector<char> &out,
                      std::string &error);

/// NVRTC's version ("13.0"), or "" when it cannot be opened.
std::string nvrtcVersion();

} // namespace nnc::cuda

#endif // NNC_LIB_TARGET_CUDA_NVRTC_H
