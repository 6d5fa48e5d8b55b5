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
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

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

/// One set of choices timed against the defaults by the check of the
/// whole program: the medians of one run of each; `ok` false when the set
/// did not compile or run.
struct VariantTiming {
  bool ok = false;
  double defaultMs = -1;
  double tunedMs = -1;
};

/// The order the tuner measures kernels in (docs/Autotuning.md): by the
/// summed `costs` of all the kernels with the same key, most first; equal
/// sums in program order. `keys[i]` and `costs[i]` are kernel i's.
std::vector<size_t> measuringOrder(llvm::ArrayRef<std::string> keys,
                                   llvm::ArrayRef<double> costs);

/// The rule of the check of the whole program (docs/Autotuning.md), apart
/// from compiling and timing: of `changes` choices, sorted by what they
/// saved measured alone (most first), `time(count)` times the program with
/// the first `count` against the defaults. All of them are tried first;
/// a set is kept when its median is at least 5 % below the defaults'; else
/// the first half is tried, and so on down to one, at most 4 sets, while
/// `mayGoOn()` (the budget) allows another. Returns how many to keep (0:
/// none) and fills `check`'s changes, kept, variants and figures (those of
/// the set kept, else of the first).
size_t decideProgramCheck(size_t changes,
                          llvm::function_ref<VariantTiming(size_t)> time,
                          llvm::function_ref<bool()> mayGoOn,
                          TuningCheck &check);

/// The tuning database `options` name (CompileOptions::tuningDatabase);
/// empty for none.
std::string tuningDatabasePath(const CompileOptions &options);

} // namespace nnc

#endif // NNC_LIB_COMPILER_AUTOTUNE_H
