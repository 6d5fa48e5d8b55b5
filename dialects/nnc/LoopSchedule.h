//===- LoopSchedule.h - how an op's generated loop nests run ----*- C++ -*-===//
//
// The kernel choices (nnc.impl) of the ops that lower to generated loop
// nests only (poolings, normalizations, softmax, reductions): which loops of
// their nests run in parallel. The conversion to linalg writes an op's
// schedule into the locations of the ops it makes, as --nnc-remat-budget
// marks its clones; the rewrites after it keep locations (fusion gives the
// fused op its consumer's, bufferization and the conversion to loops the
// op's own), so a target's loop passes find the schedule on the loops.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_DIALECT_LOOPSCHEDULE_H
#define NNC_DIALECT_LOOPSCHEDULE_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir {
class Operation;
} // namespace mlir

namespace nnc {

enum class LoopSchedule {
  /// Every nest on one thread.
  Serial,
  /// In parallel over the outermost dimension only (the images of a batch,
  /// the rows of a softmax), whatever its work.
  Outer,
  /// In parallel over every dimension but the innermost, whatever its work.
  Wide,
};

/// "loops_serial", "loops_outer", "loops_wide".
llvm::StringRef loopScheduleName(LoopSchedule schedule);
std::optional<LoopSchedule> loopScheduleNamed(llvm::StringRef name);
/// The names, quoted and separated by commas, for errors.
std::string loopScheduleNames();

/// Whether `op` lowers to generated loop nests only, whose schedule its
/// kernel choice may set.
bool takesLoopSchedule(mlir::Operation *op);

/// `loc` marked with `schedule` (merged into the metadata of a fused
/// location that has a dictionary, such as --nnc-remat-budget's).
mlir::Location withLoopSchedule(mlir::Location loc, LoopSchedule schedule);
/// The schedule marked anywhere in `loc` (the first one found).
std::optional<LoopSchedule> loopScheduleOf(mlir::Location loc);

} // namespace nnc

#endif // NNC_DIALECT_LOOPSCHEDULE_H
