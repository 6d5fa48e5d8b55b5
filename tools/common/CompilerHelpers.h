//===- CompilerHelpers.h - owning wrappers of compiler handles --*- C++ -*-===//
//
// Owning wrappers for the handles of nnc-c/compiler.h, for tools that link
// libnnc (nnc-conformance); nnc-run, which opens libnnc with dlopen, has its
// own in nnc-run/CompilerLibrary.h.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TOOLS_COMMON_COMPILERHELPERS_H
#define NNC_TOOLS_COMMON_COMPILERHELPERS_H

#include "nnc-c/compiler.h"

#include <memory>

namespace nnc::tools {

struct ContextDeleter {
  void operator()(nnc_context_t *c) const { nnc_context_destroy(c); }
};
struct ModelDeleter {
  void operator()(nnc_model_t *m) const { nnc_model_destroy(m); }
};

using Context = std::unique_ptr<nnc_context_t, ContextDeleter>;
using Model = std::unique_ptr<nnc_model_t, ModelDeleter>;

} // namespace nnc::tools

#endif // NNC_TOOLS_COMMON_COMPILERHELPERS_H
