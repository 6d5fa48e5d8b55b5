//===- CompileAndLoad.h - compile a function into a loaded program -*- C++ -*-//
//
// nnc::compile, then the runtime's Program loaded from the executable it
// made: what the C API's compile calls and the trainer share. Errors come
// back as a runtime status carrying MLIR's diagnostics.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_COMPILER_COMPILEANDLOAD_H
#define NNC_COMPILER_COMPILEANDLOAD_H

#include "nnc/Compiler/Compiler.h"
#include "nnc/runtime/Status.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <memory>
#include <string>

namespace nnc {
namespace runtime {
class Device;
class Program;
} // namespace runtime

struct LoadedProgram {
  std::unique_ptr<runtime::Program> program;
  /// Wall time of the compile (of the cache read on a hit).
  double seconds = 0;
  bool fromCache = false;
  /// What the program was loaded from, for errors: the cache file or
  /// "compiled @<function>".
  std::string source;
  /// What the autotuner did (CompileResult::tuning, tuningSeconds,
  /// tuningCheck).
  std::vector<TunedKernel> tuning;
  double tuningSeconds = 0;
  std::optional<TuningCheck> tuningCheck;
  /// CompileResult::mixedPrecision.
  std::optional<MixedPrecisionReport> mixedPrecision;
  /// CompileResult::remat.
  std::optional<RematReport> remat;
};

/// Compiles function `name` of `module` for `inputShapes` with `options`
/// (see nnc::compile) and loads the result onto `device`, labelled with the
/// function name and the ops it computes. Fails with InvalidArgument (bad
/// input), Unimplemented (unsupported op or type) or Internal, with the
/// diagnostics as the message.
runtime::Status
compileAndLoad(mlir::ModuleOp module, llvm::StringRef name,
               llvm::ArrayRef<llvm::SmallVector<int64_t>> inputShapes,
               const CompileOptions &options, runtime::Device &device,
               LoadedProgram &out);

/// The ops a function computes, most frequent first: "conv x2, relu x2,
/// gemm (5 ops)".
std::string opSummary(mlir::func::FuncOp func);

} // namespace nnc

#endif // NNC_COMPILER_COMPILEANDLOAD_H
