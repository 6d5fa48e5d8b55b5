//===- SequentialSmallLoops.cpp - small parallel loops run sequentially ---===//
//
// Implements --nnc-sequential-small-loops: outermost scf.parallel nests with
// little static work become scf.for nests, so that only loops worth a thread
// fork become OpenMP parallel regions. A loop whose op had a loop schedule
// chosen (nnc/LoopSchedule.h) follows it instead: sequential for
// loops_serial, parallel for loops_outer and loops_wide (plain "loops",
// which only sets threads or vector widths, leaves it to the rules).
//
//===----------------------------------------------------------------------===//

#include "nnc/Target/CPU/Passes.h"

#include "LoopTrips.h"
#include "nnc/LoopSchedule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/CallInterfaces.h"


namespace nnc::cpu {
#define GEN_PASS_DEF_SEQUENTIALSMALLLOOPSPASS
#include "nnc/Target/CPU/Passes.h.inc"
} // namespace nnc::cpu

using namespace mlir;

namespace {

using nnc::cpu::saturatingMul;
using nnc::cpu::staticTripCount;

int64_t loopWork(Operation *loop);

/// The largest work of the loops nested in `op`'s regions (1 without any).
int64_t nestedWork(Operation *op) {
  int64_t most = 1;
  for (Region &region : op->getRegions())
    for (Operation &inner : region.getOps()) {
      int64_t work = isa<scf::ForOp, scf::ParallelOp>(inner)
                         ? loopWork(&inner)
                         : nestedWork(&inner);
      most = std::max(most, work);
    }
  return most;
}

int64_t loopWork(Operation *loop) {
  int64_t trips = 1;
  if (auto forOp = dyn_cast<scf::ForOp>(loop)) {
    trips = staticTripCount(forOp.getLowerBound(), forOp.getUpperBound(),
                      forOp.getStep());
  } else if (auto parallel = dyn_cast<scf::ParallelOp>(loop)) {
    for (auto [lb, ub, step] :
         llvm::zip(parallel.getLowerBound(), parallel.getUpperBound(),
                   parallel.getStep()))
      trips = saturatingMul(trips, staticTripCount(lb, ub, step));
  }
  return saturatingMul(trips, nestedWork(loop));
}

/// Whether an scf.for around `loop` also calls a function (a library GEMM
/// or convolution, which runs on the threads itself).
bool sharesLoopWithCalls(scf::ParallelOp loop) {
  for (auto forOp = loop->getParentOfType<scf::ForOp>(); forOp;
       forOp = forOp->getParentOfType<scf::ForOp>()) {
    WalkResult found = forOp.getBody()->walk([](Operation *op) {
      return isa<CallOpInterface>(op) ? WalkResult::interrupt()
                                      : WalkResult::advance();
    });
    if (found.wasInterrupted())
      return true;
  }
  return false;
}

struct SequentialSmallLoopsPass
    : public nnc::cpu::impl::SequentialSmallLoopsPassBase<
          SequentialSmallLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<scf::ParallelOp> small;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (loop.getNumResults())
        return;
      // Inside another parallel loop (a reduction over a middle dimension:
      // parallel outer dimensions, the reduction, parallel inner ones),
      // OpenMP would open a nested region per iteration and run it on the
      // one thread it has: all the cost of a fork, none of the threads.
      if (loop->getParentOfType<scf::ParallelOp>()) {
        small.push_back(loop);
        return;
      }
      // A schedule chosen for the op the loop comes from decides alone,
      // unless it leaves the parallel loops to the rules.
      std::optional<nnc::LoopSchedule> schedule =
          nnc::loopScheduleOf(loop.getLoc());
      if (schedule && schedule->parallelism != nnc::LoopParallelism::Rules) {
        if (schedule->parallelism == nnc::LoopParallelism::Serial)
          small.push_back(loop);
        return;
      }
      // Inside a sequential loop (a convolution's loop over the images)
      // every iteration would fork the threads again, and its library calls
      // use them anyway.
      if ((!parallelInLoops && sharesLoopWithCalls(loop)) ||
          loopWork(loop) < minIterations)
        small.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : small) {
      rewriter.setInsertionPoint(loop);
      if (failed(scf::parallelForToNestedFors(rewriter, loop)))
        return signalPassFailure();
    }
  }
};

} // namespace
