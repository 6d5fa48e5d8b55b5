//===- DistinctResults.cpp - a value of its own per function result -------===//
//
// Implements --nnc-distinct-results: a value a function returns more than
// once is copied for every repetition after the first, so that each result
// is its own buffer once results become out-parameters (bufferization
// cannot make one buffer two out-parameters).
//
//===----------------------------------------------------------------------===//

#include "nnc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseSet.h"

namespace nnc {
#define GEN_PASS_DEF_DISTINCTRESULTSPASS
#include "nnc/Transforms/Passes.h.inc"
} // namespace nnc

using namespace mlir;

namespace {

struct DistinctResultsPass
    : public nnc::impl::DistinctResultsPassBase<DistinctResultsPass> {
  using DistinctResultsPassBase::DistinctResultsPassBase;

  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp ret) {
      llvm::SmallDenseSet<Value> seen;
      OpBuilder builder(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value value = operand.get();
        auto type = dyn_cast<RankedTensorType>(value.getType());
        if (seen.insert(value).second || !type)
          continue;
        Location loc = value.getLoc();
        SmallVector<OpFoldResult> sizes =
            tensor::getMixedSizes(builder, loc, value);
        Value empty = tensor::EmptyOp::create(builder, loc, sizes,
                                              type.getElementType(),
                                              type.getEncoding());
        auto copy = linalg::CopyOp::create(builder, loc, value, empty);
        operand.set(copy->getResult(0));
      }
    });
  }
};

} // namespace
