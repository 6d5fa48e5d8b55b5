//===- LoopSchedule.h - how an op's generated loop nests run ----*- C++ -*-===//
//
// The kernel choices (nnc.impl) of the ops that lower to generated loop
// nests only (poolings, normalizations, softmax, reductions): which loops of
// their nests run in parallel, on how many threads, and how wide their
// innermost loops are vectorized. The conversion to linalg writes an op's
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

/// Which loops of an op's nests run in parallel.
enum class LoopParallelism {
  /// The target's size rules decide (the default without a schedule).
  Rules,
  /// Every nest on one thread.
  Serial,
  /// In parallel over the outermost dimension only (the images of a batch,
  /// the rows of a softmax), whatever its work.
  Outer,
  /// In parallel over every dimension but the innermost, whatever its work.
  Wide,
};

/// A schedule: the parallel loops, how many threads run them and how wide
/// the innermost loops are vectorized. Its name is the parallelism's
/// ("loops", "loops_serial", "loops_outer", "loops_wide"), then ".t<N>"
/// when N threads run the parallel loops, then ".v<W>" when the innermost
/// loops are vectorized W lanes wide (1: not vectorized): "loops_wide.t4",
/// "loops.v16", "loops_outer.t8.v8".
struct LoopSchedule {
  LoopParallelism parallelism = LoopParallelism::Rules;
  /// Threads of each parallel region; 0: every thread the code may use.
  /// Never with Serial.
  unsigned threads = 0;
  /// Lanes the innermost loops are vectorized with (a power of two up to
  /// kMaxVectorWidth; 1 forbids vectorizing); 0: the code generator's own
  /// choice.
  unsigned vectorWidth = 0;

  static constexpr unsigned kMaxThreads = 1024;
  static constexpr unsigned kMaxVectorWidth = 64;
};

/// The schedule's name, as above.
std::string loopScheduleName(const LoopSchedule &schedule);
/// The schedule `name` names, none when it names none.
std::optional<LoopSchedule> loopScheduleNamed(llvm::StringRef name);
/// What a schedule's name may be, for errors.
std::string loopScheduleNames();

/// Whether `op` lowers to generated loop nests only, whose schedule its
/// kernel choice may set.
bool takesLoopSchedule(mlir::Operation *op);

/// `loc` marked with `schedule` (merged into the metadata of a fused
/// location that has a dictionary, such as --nnc-remat-budget's).
mlir::Location withLoopSchedule(mlir::Location loc,
                               const LoopSchedule &schedule);
/// The schedule marked anywhere in `loc` (the first one found).
std::optional<LoopSchedule> loopScheduleOf(mlir::Location loc);

} // namespace nnc

#endif // NNC_DIALECT_LOOPSCHEDULE_H
