//===- UntieFills.cpp - one linalg.fill per user
//---------------------------===//
//
// Implements --nnc-untie-fills: a fill of an empty tensor shared by several
// users (CSE merges them) is cloned for every user but the first, so that
// bufferization fills each accumulator in place instead of filling one
// buffer and copying it; an empty tensor shared by several ops is cloned
// likewise, one buffer per op.
//
//===----------------------------------------------------------------------===//

#include "nnc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace nnc {
#define GEN_PASS_DEF_UNTIEFILLSPASS
#include "nnc/Transforms/Passes.h.inc"
} // namespace nnc

using namespace mlir;

namespace {

struct UntieFillsPass : public nnc::impl::UntieFillsPassBase<UntieFillsPass> {
  using UntieFillsPassBase::UntieFillsPassBase;

  void runOnOperation() override {
    SmallVector<linalg::FillOp> fills;
    getOperation().walk([&](linalg::FillOp fill) {
      if (fill.hasPureTensorSemantics() && fill->getNumResults() == 1 &&
          fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>() &&
          !fill->getResult(0).hasOneUse())
        fills.push_back(fill);
    });
    // An empty tensor shared by several ops (CSE merged them) would become
    // one buffer that all of them write, live from the first to the last:
    // each op gets its own, which the memory planner places by its own
    // lifetime (and --nnc-gemm-to-blas sees a temporary per transpose).
    SmallVector<tensor::EmptyOp> empties;
    getOperation().walk([&](tensor::EmptyOp empty) {
      if (!empty->hasOneUse() && !empty->use_empty())
        empties.push_back(empty);
    });
    for (tensor::EmptyOp empty : empties) {
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : empty->getUses())
        uses.push_back(&use);
      for (OpOperand *use : llvm::drop_begin(uses)) {
        OpBuilder builder(use->getOwner());
        use->set(builder.clone(*empty)->getResult(0));
      }
    }
    for (linalg::FillOp fill : fills) {
      Value result = fill->getResult(0);
      auto empty = fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>();
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : result.getUses())
        uses.push_back(&use);
      // The first user (in any order: all are equivalent) keeps the fill.
      for (OpOperand *use : llvm::drop_begin(uses)) {
        OpBuilder builder(use->getOwner());
        Operation *newEmpty = builder.clone(*empty);
        IRMapping mapping;
        mapping.map(empty.getResult(), newEmpty->getResult(0));
        Operation *newFill = builder.clone(*fill, mapping);
        use->set(newFill->getResult(0));
      }
    }
  }
};

} // namespace
