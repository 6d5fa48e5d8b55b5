//===- CollectivePatterns.cpp - nnc collectives to their library form -----===//
//
// Lowers all_reduce to nnc.library_all_reduce into a fresh tensor: the
// runtime runs it (the target's pass on buffers emits the call), so it stays
// one step of its own, never fused into a kernel.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "nnc/NNCOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace nnc;

namespace {

struct AllReduceConversion : public OpConversionPattern<AllReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AllReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(adaptor.getInput().getType());
    if (!type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    Value init = tensor::EmptyOp::create(rewriter, op.getLoc(),
                                         type.getShape(), type.getElementType());
    rewriter.replaceOpWithNewOp<LibraryAllReduceOp>(
        op, TypeRange{type}, adaptor.getInput(), init);
    return success();
  }
};

} // namespace

void nnc::detail::populateCollectivePatterns(RewritePatternSet &patterns) {
  patterns.add<AllReduceConversion>(patterns.getContext());
}
