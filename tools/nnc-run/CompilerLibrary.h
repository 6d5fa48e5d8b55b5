//===- CompilerLibrary.h - libnnc, opened when nnc-run needs it -*- C++ -*-===//
//
// nnc-run links libnnc_runtime alone, so that running a compiled .nncx needs
// no compiler (no MLIR, no LLVM). Compiling, training and reading ONNX
// tensor files open libnnc with dlopen, once, and call it through a table of
// the compiler.h functions nnc-run uses (CompilerSymbols.def).
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TOOLS_NNC_RUN_COMPILERLIBRARY_H
#define NNC_TOOLS_NNC_RUN_COMPILERLIBRARY_H

#include "nnc-c/nnc.h"

#include <memory>
#include <string>

namespace nnc::tools {

/// Pointers to the functions of libnnc, typed from their declarations in
/// nnc-c/compiler.h.
struct CompilerLibrary {
#define NNC_COMPILER_SYMBOL(name) decltype(&::name) name = nullptr;
#include "CompilerSymbols.def"
};

/// Opens libnnc and resolves the table, the first time it is called; true
/// when the table is ready. Otherwise `error` says "<purpose> needs
/// libnnc.so: <why>". libnnc is looked for next to the libnnc_runtime this
/// process loaded (build and install trees keep the two together), then on
/// the library search path; NNC_COMPILER_LIBRARY names another file.
bool openCompiler(const std::string &purpose, std::string &error);

/// The table; only after openCompiler succeeded.
const CompilerLibrary &compiler();

/// Whether openCompiler has succeeded (a run of a saved executable never
/// opens libnnc).
bool compilerIsOpen();

struct ContextDeleter {
  void operator()(nnc_context_t *c) const { compiler().nnc_context_destroy(c); }
};
struct ModelDeleter {
  void operator()(nnc_model_t *m) const { compiler().nnc_model_destroy(m); }
};
using Context = std::unique_ptr<nnc_context_t, ContextDeleter>;
using Model = std::unique_ptr<nnc_model_t, ModelDeleter>;

} // namespace nnc::tools

#endif // NNC_TOOLS_NNC_RUN_COMPILERLIBRARY_H
