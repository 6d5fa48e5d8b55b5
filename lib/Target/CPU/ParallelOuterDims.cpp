//===- ParallelOuterDims.cpp - inner dimensions of parallel nests as loops ===//
//
// Implements --nnc-parallel-outer-dims: an scf.parallel nest keeps its outer
// dimensions parallel and runs the inner ones as scf.for loops, so the
// OpenMP conversion does not collapse the innermost dimension into a linear
// index and LLVM can vectorize the innermost loop. A nest whose op had a
// loop schedule chosen (nnc/LoopSchedule.h) keeps the dimensions it says:
// the outermost for loops_outer, all but the innermost for loops_wide.
//
//===----------------------------------------------------------------------===//

#include "nnc/Target/CPU/Passes.h"

#include "LoopTrips.h"
#include "nnc/LoopSchedule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"


namespace nnc::cpu {
#define GEN_PASS_DEF_PARALLELOUTERDIMSPASS
#include "nnc/Target/CPU/Passes.h.inc"
} // namespace nnc::cpu

using namespace mlir;

namespace {

/// How many outer dimensions of `loop` stay parallel: the fewest whose trip
/// counts multiply to at least `minIterations` (an unknown count is large),
/// at most all but the last.
unsigned parallelDims(scf::ParallelOp loop, int64_t minIterations) {
  unsigned rank = loop.getNumLoops();
  int64_t iterations = 1;
  unsigned kept = 0;
  while (kept + 1 < rank && iterations < minIterations) {
    iterations = nnc::cpu::saturatingMul(
        iterations, nnc::cpu::staticTripCount(loop.getLowerBound()[kept],
                                              loop.getUpperBound()[kept],
                                              loop.getStep()[kept]));
    ++kept;
  }
  return kept;
}

/// Rewrites `loop` into an scf.parallel over its first `kept` dimensions
/// around scf.for loops over the rest, in order, with the same body.
void splitInnerDims(IRRewriter &rewriter, scf::ParallelOp loop,
                    unsigned kept) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  auto outer = scf::ParallelOp::create(
      rewriter, loc, loop.getLowerBound().take_front(kept),
      loop.getUpperBound().take_front(kept), loop.getStep().take_front(kept));
  SmallVector<Value> ivs(outer.getInductionVars());
  rewriter.setInsertionPointToStart(outer.getBody());
  for (unsigned d = kept, e = loop.getNumLoops(); d < e; ++d) {
    auto inner = scf::ForOp::create(rewriter, loc, loop.getLowerBound()[d],
                                    loop.getUpperBound()[d],
                                    loop.getStep()[d]);
    ivs.push_back(inner.getInductionVar());
    rewriter.setInsertionPointToStart(inner.getBody());
  }
  // The body moves in front of the innermost loop's scf.yield; its own
  // terminator (an scf.reduce without operands) goes.
  Block *body = loop.getBody();
  rewriter.eraseOp(body->getTerminator());
  Operation *yield = rewriter.getInsertionBlock()->getTerminator();
  rewriter.inlineBlockBefore(body, yield, ivs);
  rewriter.eraseOp(loop);
}

struct ParallelOuterDimsPass
    : public nnc::cpu::impl::ParallelOuterDimsPassBase<ParallelOuterDimsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<scf::ParallelOp, unsigned>> nests;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (loop.getNumLoops() < 2 || loop.getNumResults() ||
          loop->getParentOfType<scf::ParallelOp>())
        return;
      unsigned kept = parallelDims(loop, minParallelIterations);
      // A schedule chosen for the op the nest comes from decides, unless
      // it leaves the parallel loops to the rules.
      if (std::optional<nnc::LoopSchedule> schedule =
              nnc::loopScheduleOf(loop.getLoc())) {
        if (schedule->parallelism == nnc::LoopParallelism::Outer)
          kept = 1;
        else if (schedule->parallelism == nnc::LoopParallelism::Wide)
          kept = loop.getNumLoops() - 1;
      }
      nests.emplace_back(loop, kept);
    });
    IRRewriter rewriter(&getContext());
    for (auto [loop, kept] : nests)
      splitInnerDims(rewriter, loop, kept);
  }
};

} // namespace
