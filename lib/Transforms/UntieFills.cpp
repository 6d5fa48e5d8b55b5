//===- UntieFills.cpp - one linalg.fill per user
//---------------------------===//
//
// Implements --nnc-untie-fills: a fill of an empty tensor shared by several
// users (CSE merges them) is cloned for every user but the first, so that
// bufferization fills each accumulator in place instead of filling one
// buffer and copying it.
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
