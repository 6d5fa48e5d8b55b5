//===- Rematerialization.h - what recomputing forward values saves -*- C++
//-*-===//
//
// The analysis behind --nnc-remat-budget: a training function as lifetimes of
// the values the memory plan would place, what a choice of forward ops to
// recompute in backward does to them (the arena predicted with the plan's own
// placement, nnc/Analysis/ArenaPlacement.h), and the searches for the choice
// of least extra FLOPs (nnc/Analysis/CostModel.h) that fits a target: a greedy
// descent with a look-ahead, a pruning of what the fit does not need, and an
// exact branch and bound on small graphs. The pass rewrites the IR.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_ANALYSIS_REMATERIALIZATION_H
#define NNC_ANALYSIS_REMATERIALIZATION_H

#include "nnc/Analysis/ArenaPlacement.h"

#include "mlir/IR/Value.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace nnc::remat {

/// Op positions are multiples of this; a recomputation sits just before
/// the op (or recomputation) that first reads it, at a time in between.
constexpr int64_t kSpacing = int64_t(1) << 24;
constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

/// The training function as the pass sees it: ops in order, the values the
/// arena would hold, and who reads them.
struct Model {
  llvm::SmallVector<mlir::Operation *> ops;
  llvm::DenseMap<mlir::Operation *, int> index;
  std::vector<bool> forward;
  /// Stored values (arena candidates): the value, its bytes, its op.
  struct Stored {
    mlir::Value value;
    int64_t bytes;
    int op;
  };
  std::vector<Stored> stored;
  llvm::DenseMap<mlir::Value, int> storedId;
  /// The stored values each op reads (through reshapes and elementwise
  /// values fused into their readers), and the readers of each.
  std::vector<llvm::SmallVector<int>> reads;
  std::vector<llvm::SmallVector<int>> readers;
  /// The stored values each op defines.
  std::vector<llvm::SmallVector<int>> defines;
  /// Forward ops that may be recomputed: pure, static, with a stored
  /// result; and
  /// those of them with a stored result some backward op reads (saved).
  std::vector<bool> recomputable, saved;
  std::vector<int64_t> flops;
  llvm::DenseSet<mlir::Value> transparent;

  /// False for a function the model does not cover (dynamic shapes, no
  /// results).
  bool build(mlir::func::FuncOp func);
};

/// The lifetimes of a choice of recomputed ops, and its predicted peak.
struct Evaluation {
  std::vector<int64_t> time; // of each recomputation, or kNever
  std::vector<BufferLifetime> originals, clones;
  int64_t peak = 0, peakTime = 0;
  /// Bytes alive above the target, integrated over time (in ops): what
  /// the search lowers, so that it progresses on a plateau of equal peaks.
  double excess = 0;
};

/// The lifetimes and the predicted peak of recomputing the ops in
/// `recompute` (the sweep of the bytes alive, and `excess` over `target`).
void evaluate(const Model &m, const std::vector<bool> &recompute, Evaluation &e,
              int64_t target = -1);

/// The arena the memory plan would make of an evaluation's lifetimes.
int64_t placedArena(const Evaluation &e, int64_t alignment);

/// Whether `b` is alive at `t`.
bool covers(const BufferLifetime &b, int64_t t);

/// "nnc.gemm 'fc1' tensor<8x32xf32> 1024 bytes" for stored value `id`.
std::string describe(const Model &m, int id);

/// The greedy descent: the recomputed ops for the smallest prediction at or
/// below `target` it finds (or the smallest it reaches when none is), with
/// their evaluation in `e`.
std::vector<bool> search(const Model &m, int64_t target, Evaluation &e);

/// Takes back the recomputations `chosen` does not need to stay at or below
/// `target` (or its own peak when it is above).
void prune(const Model &m, int64_t target, std::vector<bool> &chosen,
           Evaluation &e);

/// The exact search on at most `maxCandidates` candidate ops within `limit`
/// evaluations (see the definition); std::nullopt with more candidates,
/// else whether it finished, with the choice in `best`.
std::optional<bool> exactSearch(const Model &m, int64_t target,
                                const std::vector<bool> &seed, int64_t seedPeak,
                                int maxCandidates, int64_t limit,
                                std::vector<bool> &best);

} // namespace nnc::remat

#endif // NNC_ANALYSIS_REMATERIALIZATION_H
