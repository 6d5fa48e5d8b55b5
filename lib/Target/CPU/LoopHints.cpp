//===- LoopHints.cpp - a loop schedule's threads and vector width ---------===//
//
// Implements --nnc-cpu-loop-hints: the thread count of a loop schedule
// (nnc/LoopSchedule.h) becomes the num_threads clause of the OpenMP regions
// made from the op's loops, and its vector width LLVM loop metadata on their
// innermost loops. The schedule's parallel loops are the business of
// --nnc-sequential-small-loops and --nnc-parallel-outer-dims.
//
//===----------------------------------------------------------------------===//

#include "nnc/Target/CPU/Passes.h"

#include "nnc/LoopSchedule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace nnc::cpu {
#define GEN_PASS_DEF_LOOPHINTSPASS
#include "nnc/Target/CPU/Passes.h.inc"
} // namespace nnc::cpu

using namespace mlir;

namespace {

/// The name of the attribute that SCF's lowering to control flow moves from
/// an scf.for to its latch branch, and that the LLVM dialect's branches take
/// as their loop metadata.
constexpr llvm::StringLiteral kLoopAnnotation("loop_annotation");

/// Whether `loop` has no loop nested in it.
bool isInnermost(scf::ForOp loop) {
  bool nested = false;
  loop.getBody()->walk([&](Operation *op) {
    if (isa<LoopLikeOpInterface>(op)) {
      nested = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return !nested;
}

LLVM::LoopAnnotationAttr vectorizeAnnotation(MLIRContext *context,
                                             unsigned width) {
  Builder b(context);
  auto vectorize = LLVM::LoopVectorizeAttr::get(
      context, /*disable=*/b.getBoolAttr(width == 1), /*predicateEnable=*/{},
      /*scalableEnable=*/{},
      /*width=*/width == 1 ? IntegerAttr() : b.getI32IntegerAttr(width),
      /*followupVectorized=*/{}, /*followupEpilogue=*/{}, /*followupAll=*/{});
  return LLVM::LoopAnnotationAttr::get(
      context, /*disableNonforced=*/{}, vectorize, /*interleave=*/{},
      /*unroll=*/{}, /*unrollAndJam=*/{}, /*licm=*/{}, /*distribute=*/{},
      /*pipeline=*/{}, /*peeled=*/{}, /*unswitch=*/{}, /*mustProgress=*/{},
      /*isVectorized=*/{}, /*startLoc=*/{}, /*endLoc=*/{},
      /*parallelAccesses=*/{});
}

struct LoopHintsPass : public nnc::cpu::impl::LoopHintsPassBase<LoopHintsPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    getOperation().walk([&](Operation *op) {
      auto parallel = dyn_cast<omp::ParallelOp>(op);
      auto loop = dyn_cast<scf::ForOp>(op);
      if (!parallel && !loop)
        return;
      std::optional<nnc::LoopSchedule> schedule =
          nnc::loopScheduleOf(op->getLoc());
      if (!schedule)
        return;
      if (parallel && schedule->threads && !parallel.getNumThreads()) {
        OpBuilder b(parallel);
        Value threads = arith::ConstantIntOp::create(
            b, parallel.getLoc(), schedule->threads, /*width=*/32);
        parallel.getNumThreadsMutable().assign(threads);
      }
      if (loop && schedule->vectorWidth && isInnermost(loop))
        loop->setAttr(kLoopAnnotation,
                      vectorizeAnnotation(context, schedule->vectorWidth));
    });
  }
};

} // namespace
