//===- SyncBatchNorm.cpp - batch statistics over every rank ---------------===//
//
// Implements --nnc-sync-batch-norm: each batch_norm_train becomes its
// computation with the per-channel sums and counts, then the sums of
// squared deviations, summed over the ranks by nnc.all_reduce, so that
// every rank normalizes with the statistics of the global batch.
//
//===----------------------------------------------------------------------===//

#include "nnc/Transforms/Passes.h"

#include "nnc/NNCOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace nnc {
#define GEN_PASS_DEF_SYNCBATCHNORMPASS
#include "nnc/Transforms/Passes.h.inc"
} // namespace nnc

using namespace mlir;
using namespace nnc;

namespace {

LogicalResult synchronize(BatchNormTrainOp bn) {
  auto xType = dyn_cast<RankedTensorType>(bn.getInput().getType());
  if (!xType || !xType.hasStaticShape())
    return bn.emitOpError(
        "needs a static input shape to synchronize its statistics");
  auto statsType = cast<RankedTensorType>(bn.getBatchMean().getType());
  if (!statsType.hasStaticShape())
    return bn.emitOpError(
        "needs static statistics shapes to synchronize them");
  OpBuilder b(bn);
  Location loc = bn.getLoc();
  Type t = xType.getElementType();
  Type ct = t.isF64() ? t : b.getF32Type();
  int64_t rank = xType.getRank(), channels = xType.getDimSize(1);
  SmallVector<int64_t> axes{0};
  int64_t count = xType.getDimSize(0);
  SmallVector<int64_t> statShape(rank, 1);
  statShape[1] = channels;
  for (int64_t i = 2; i < rank; ++i) {
    axes.push_back(i);
    count *= xType.getDimSize(i);
  }
  auto statType = RankedTensorType::get(statShape, ct);
  auto castTo = [&](Value v, Type element) -> Value {
    auto type = cast<RankedTensorType>(v.getType());
    if (type.getElementType() == element)
      return v;
    return CastOp::create(b, loc, type.clone(element), v);
  };
  auto constant = [&](RankedTensorType type, double value) -> Value {
    return ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(type,
                               b.getFloatAttr(type.getElementType(), value)));
  };
  auto scalar = [&](double value) {
    return constant(RankedTensorType::get({}, ct), value);
  };
  auto sum = [&](Value v) -> Value {
    return ReduceOp::create(b, loc, ReduceKind::sum, v, axes, true);
  };
  auto row = [&](Value v, int64_t i) -> Value {
    return SliceOp::create(b, loc, v, b.getDenseI64ArrayAttr({i}),
                           b.getDenseI64ArrayAttr({i + 1}),
                           b.getDenseI64ArrayAttr({0}), DenseI64ArrayAttr());
  };
  auto perChannel = [&](Value v) -> Value {
    auto type = RankedTensorType::get({channels}, ct);
    return ReshapeOp::create(b, loc, type, v);
  };
  auto asStat = [&](Value v) -> Value {
    return ReshapeOp::create(b, loc, statType, castTo(v, ct));
  };

  // The global batch's mean: sums and counts of every rank, in one
  // all-reduce.
  Value x = castTo(bn.getInput(), ct);
  Value packed = ConcatOp::create(
      b, loc, ValueRange{sum(x), constant(statType, double(count))}, 0);
  Value global = AllReduceOp::create(b, loc, packed);
  Value total = row(global, 1);
  Value mean = DivOp::create(b, loc, row(global, 0), total);
  // Its variance, from the deviations from that mean.
  Value centered = SubOp::create(b, loc, x, mean);
  Value squares =
      AllReduceOp::create(b, loc, sum(MulOp::create(b, loc, centered, centered)));
  Value var = DivOp::create(b, loc, squares, total);
  Value eps = scalar(bn.getEpsilon().convertToDouble());
  Value invStd = RsqrtOp::create(b, loc, AddOp::create(b, loc, var, eps));
  Value y = MulOp::create(b, loc, MulOp::create(b, loc, centered, invStd),
                          asStat(bn.getScale()));
  y = AddOp::create(b, loc, y, asStat(bn.getBias()));

  // The running statistics, the variance unbiased by the global count.
  double momentum = bn.getMomentum().convertToDouble();
  Type rt = statsType.getElementType();
  auto update = [&](Value running, Value batch) -> Value {
    Value keep = MulOp::create(b, loc, castTo(running, ct), scalar(momentum));
    Value add = MulOp::create(b, loc, batch, scalar(1.0 - momentum));
    return castTo(AddOp::create(b, loc, keep, add), rt);
  };
  Value batchVar = perChannel(var);
  Value runningVar = batchVar;
  if (bn.getUnbiasedRunningVar()) {
    Value n = perChannel(total);
    Value correction =
        DivOp::create(b, loc, n, SubOp::create(b, loc, n, scalar(1.0)));
    runningVar = MulOp::create(b, loc, batchVar, correction);
  }
  Value batchMean = perChannel(mean);
  SmallVector<Value> results = {
      castTo(y, t), castTo(batchMean, rt), castTo(batchVar, rt),
      update(bn.getRunningMean(), batchMean),
      update(bn.getRunningVar(), runningVar)};
  for (auto [old, value] : llvm::zip(bn->getResults(), results)) {
    if (old.getType() != value.getType())
      return bn.emitOpError("synchronized result type ")
             << value.getType() << " differs from " << old.getType();
    old.replaceAllUsesWith(value);
  }
  bn.erase();
  return success();
}

struct SyncBatchNormPass
    : public nnc::impl::SyncBatchNormPassBase<SyncBatchNormPass> {
  using SyncBatchNormPassBase::SyncBatchNormPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool found = function.empty();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!function.empty() && func.getName() != function)
        continue;
      found = true;
      SmallVector<BatchNormTrainOp> ops;
      func.walk([&](BatchNormTrainOp op) { ops.push_back(op); });
      for (BatchNormTrainOp op : ops)
        if (failed(synchronize(op)))
          return signalPassFailure();
    }
    if (!found) {
      module.emitError("--nnc-sync-batch-norm: no function @") << function;
      signalPassFailure();
    }
  }
};

} // namespace
