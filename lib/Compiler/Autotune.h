//===- Autotune.h - the compile driver's autotuning stage -------*- C++ -*-===//
//
// Stage "autotune" of nnc::compile (docs/Autotuning.md): every op the target
// offers more than one kernel for gets its kernel choice (nnc.impl) from the
// tuning database, from a measurement of each candidate on this machine, or
// stays with the cost model's default, as the mode says. Runs before the
// cache lookup, so that the key covers the choices.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LIB_COMPILER_AUTOTUNE_H
#define NNC_LIB_COMPILER_AUTOTUNE_H

#include "nnc/Compiler/Compiler.h"
#include "nnc/Target/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace nnc {

/// Sets the kernel choices of `func` (in its own module, in mid-compile:
/// static shapes, before the kernel pipeline) as `options.autotune` says,
/// and records each kernel with candidates in `result.tuning`. Fails, with
/// an error on `func`, only in `require` mode with kernels the database
/// lacks; a damaged database is a warning.
mlir::LogicalResult autotuneKernels(mlir::func::FuncOp func,
                                    const Target &target,
                                    const TargetOptions &targetOptions,
                                    const CompileOptions &options,
                                    CompileResult &result);

/// The tuning database `options` name (CompileOptions::tuningDatabase);
/// empty for none.
std::string tuningDatabasePath(const CompileOptions &options);

} // namespace nnc

#endif // NNC_LIB_COMPILER_AUTOTUNE_H
