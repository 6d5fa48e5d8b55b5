//===- NormalizationPatterns.cpp - nnc normalizations to linalg -----------===//
//
// Lowers batch_norm (running statistics), batch_norm_train (batch
// statistics and the running-statistics update), instance_norm, layer_norm
// and group_norm to linalg.reduce for the statistics and one
// linalg.generic that normalizes, in f32 for the 16-bit floats.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Utils.h"

#include "nnc/NNCOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace nnc;
using namespace nnc::detail;

namespace {

/// Per-slice statistics over `axes` (dropped) of `x` in its (compute)
/// element type: the mean and the biased variance.
std::pair<Value, Value> meanAndVar(OpBuilder &b, Location loc, Value x,
                                   ArrayRef<int64_t> axes) {
  Type ct = cast<RankedTensorType>(x.getType()).getElementType();
  Value count = countAsScalar(b, loc, x, axes, ct);
  auto divide = [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
    return arith::DivFOp::create(nb, l, a[0], count);
  };
  Value mean = mapTensor(b, loc, {sumOver(b, loc, x, axes)}, ct, divide);
  Value sq = broadcastBack(
      b, loc, x, {mean}, axes, ct, [](OpBuilder &nb, Location l, ValueRange a) {
        Value d = arith::SubFOp::create(nb, l, a[0], a[1]);
        return arith::MulFOp::create(nb, l, d, d).getResult();
      });
  Value var = mapTensor(b, loc, {sumOver(b, loc, sq, axes)}, ct, divide);
  return {mean, var};
}

/// 1 / sqrt(var + epsilon), elementwise.
Value invStdOf(OpBuilder &b, Location loc, Value var, double epsilon) {
  Type ct = cast<RankedTensorType>(var.getType()).getElementType();
  return mapTensor(
      b, loc, {var}, ct, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value e = floatConst(nb, l, ct, epsilon);
        Value v = arith::AddFOp::create(nb, l, a[0], e);
        // 1 / sqrt (libm has no rsqrt for the CPU pipeline).
        return arith::DivFOp::create(nb, l, floatConst(nb, l, ct, 1),
                                     math::SqrtOp::create(nb, l, v));
      });
}

/// y = (x - mean) * invStd [* scale] [+ bias] over `x`'s shape, in the
/// compute type of `mean`, stored as `resultType`'s element type. `mean` and
/// `invStd` lack the dimensions `axes`; `scale`/`bias` are read through
/// their maps when given.
Value normalize(OpBuilder &b, Location loc, Value x, Value mean, Value invStd,
                ArrayRef<int64_t> axes, Value scale, AffineMap scaleMap,
                Value bias, AffineMap biasMap, Type resultElt) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  Type ct = cast<RankedTensorType>(mean.getType()).getElementType();
  AffineMap drop = getDroppingMap(b.getContext(), rank, axes);
  SmallVector<Value> inputs = {x, mean, invStd};
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank), drop, drop};
  if (scale) {
    inputs.push_back(scale);
    maps.push_back(scaleMap);
  }
  if (bias) {
    inputs.push_back(bias);
    maps.push_back(biasMap);
  }
  Value init =
      createEmpty(b, loc, RankedTensorType::get(type.getShape(), resultElt),
                  getDims(b, loc, x));
  bool hasScale = static_cast<bool>(scale);
  bool hasBias = static_cast<bool>(bias);
  return buildParallelGeneric(
      b, loc, init, inputs, maps, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value v = convertFloat(nb, l, a[0], ct);
        v = arith::SubFOp::create(nb, l, v, a[1]);
        v = arith::MulFOp::create(nb, l, v, a[2]);
        unsigned next = 3;
        if (hasScale)
          v = arith::MulFOp::create(nb, l, v,
                                    convertFloat(nb, l, a[next++], ct));
        if (hasBias)
          v = arith::AddFOp::create(nb, l, v,
                                    convertFloat(nb, l, a[next++], ct));
        return convertFloat(nb, l, v, resultElt);
      });
}

SmallVector<int64_t> allBut(int64_t rank, int64_t keep) {
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < rank; ++i)
    if (i != keep)
      axes.push_back(i);
  return axes;
}

/// instance_norm and layer_norm: normalizes `x` over `axes` with its own
/// statistics and replaces `op` by {y, mean, inv_std}, the statistics as
/// the op's `meanType`/`invStdType` (reduced dimensions kept as 1).
void replaceBySelfNormalized(ConversionPatternRewriter &rewriter, Operation *op,
                             Value x, ArrayRef<int64_t> axes, double epsilon,
                             Value scale, AffineMap scaleMap, Value bias,
                             AffineMap biasMap, RankedTensorType meanType,
                             RankedTensorType invStdType) {
  OpBuilder &b = rewriter;
  Location loc = op->getLoc();
  Type t = cast<RankedTensorType>(x.getType()).getElementType();
  auto [mean, var] =
      meanAndVar(b, loc, convertTensor(b, loc, x, computeType(t)), axes);
  Value invStd = invStdOf(b, loc, var, epsilon);
  Value y = normalize(b, loc, x, mean, invStd, axes, scale, scaleMap, bias,
                      biasMap, t);
  rewriter.replaceOp(op, {y, keepDims(b, loc, mean, meanType, axes),
                          keepDims(b, loc, invStd, invStdType, axes)});
}

struct BatchNormConversion : public OpConversionPattern<BatchNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    int64_t rank = type.getRank();
    Type t = type.getElementType();
    Type ct = computeType(t);
    double eps = op.getEpsilon().convertToDouble();
    Value mean = convertTensor(b, loc, adaptor.getMean(), ct);
    Value invStd =
        invStdOf(b, loc, convertTensor(b, loc, adaptor.getVar(), ct), eps);
    AffineMap c = dimMap(b.getContext(), rank, {1});
    rewriter.replaceOp(op, normalize(b, loc, x, mean, invStd, allBut(rank, 1),
                                     adaptor.getScale(), c, adaptor.getBias(),
                                     c, t));
    return success();
  }
};

struct BatchNormTrainConversion : public OpConversionPattern<BatchNormTrainOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BatchNormTrainOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    int64_t rank = type.getRank();
    Type t = type.getElementType();
    Type ct = computeType(t);
    Type rt = op.getBatchMean().getType().getElementType();
    double eps = op.getEpsilon().convertToDouble();
    double momentum = op.getMomentum().convertToDouble();
    SmallVector<int64_t> axes = allBut(rank, 1);

    Value xc = convertTensor(b, loc, x, ct);
    auto [mean, var] = meanAndVar(b, loc, xc, axes);
    Value invStd = invStdOf(b, loc, var, eps);
    AffineMap c = dimMap(b.getContext(), rank, {1});
    Value y = normalize(b, loc, x, mean, invStd, axes, adaptor.getScale(), c,
                        adaptor.getBias(), c, t);

    // Running statistics, the variance unbiased by M / (M - 1) on request.
    Value count = countAsScalar(b, loc, xc, axes, ct);
    bool unbiased = op.getUnbiasedRunningVar();
    auto update = [&](Value running, Value batch, bool correct) {
      Value r = convertTensor(b, loc, running, ct);
      return mapTensor(
          b, loc, {r, batch}, rt,
          [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
            Value bv = a[1];
            if (correct) {
              Value one = floatConst(nb, l, ct, 1);
              Value m1 = arith::SubFOp::create(nb, l, count, one);
              bv = arith::MulFOp::create(nb, l, bv, count);
              bv = arith::DivFOp::create(nb, l, bv, m1);
            }
            Value keep = arith::MulFOp::create(nb, l, a[0],
                                               floatConst(nb, l, ct, momentum));
            Value add = arith::MulFOp::create(
                nb, l, bv, floatConst(nb, l, ct, 1.0 - momentum));
            return convertFloat(nb, l, arith::AddFOp::create(nb, l, keep, add),
                                rt);
          });
    };
    Value newMean = update(adaptor.getRunningMean(), mean, false);
    Value newVar = update(adaptor.getRunningVar(), var, unbiased);
    rewriter.replaceOp(op, {y, convertTensor(b, loc, mean, rt),
                            convertTensor(b, loc, var, rt), newMean, newVar});
    return success();
  }
};

struct InstanceNormConversion : public OpConversionPattern<InstanceNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(InstanceNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput();
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(2, rank));
    AffineMap c = dimMap(rewriter.getContext(), rank, {1});
    replaceBySelfNormalized(rewriter, op, x, axes,
                            op.getEpsilon().convertToDouble(),
                            adaptor.getScale(), c, adaptor.getBias(), c,
                            op.getMean().getType(), op.getInvStd().getType());
    return success();
  }
};

struct LayerNormConversion : public OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    int64_t rank = type.getRank();
    int64_t axis = op.getNormalizedAxis();
    SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(axis, rank));
    AffineMap scaleMap, biasMap;
    if (Value s = adaptor.getScale())
      scaleMap = trailingBroadcastMap(rewriter.getContext(), type.getShape(),
                                      cast<RankedTensorType>(s.getType()));
    if (Value bi = adaptor.getBias())
      biasMap = trailingBroadcastMap(rewriter.getContext(), type.getShape(),
                                     cast<RankedTensorType>(bi.getType()));
    replaceBySelfNormalized(
        rewriter, op, x, axes, op.getEpsilon().convertToDouble(),
        adaptor.getScale(), scaleMap, adaptor.getBias(), biasMap,
        op.getMean().getType(), op.getInvStd().getType());
    return success();
  }
};

/// Why a group_norm cannot be lowered: the channels split into groups
/// statically.
std::optional<std::string> whyCannotLower(GroupNormOp op) {
  auto type = cast<RankedTensorType>(op.getInput().getType());
  if (!ShapedType::isDynamic(type.getDimSize(1)))
    return std::nullopt;
  return std::string("the channel dimension must be static");
}

struct GroupNormConversion : public OpConversionPattern<GroupNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GroupNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    if (std::optional<std::string> reason = whyCannotLower(op))
      return rewriter.notifyMatchFailure(op, *reason);
    int64_t groups = op.getNumGroupsAttr().getInt();
    Type t = type.getElementType();
    Type ct = computeType(t);
    // [N, C, ...] -> [N, G, C / G, ...], normalized over dims 2...
    Value grouped = splitDim(b, loc, x, 1, groups);
    int64_t rank = type.getRank() + 1;
    SmallVector<int64_t> axes = llvm::to_vector(llvm::seq<int64_t>(2, rank));
    auto [mean, var] =
        meanAndVar(b, loc, convertTensor(b, loc, grouped, ct), axes);
    Value invStd = invStdOf(b, loc, var, op.getEpsilon().convertToDouble());
    AffineMap gc = dimMap(b.getContext(), rank, {1, 2});
    Value y = normalize(b, loc, grouped, mean, invStd, axes,
                        splitDim(b, loc, adaptor.getScale(), 0, groups), gc,
                        splitDim(b, loc, adaptor.getBias(), 0, groups), gc, t);
    Type st = op.getMean().getType().getElementType();
    rewriter.replaceOp(op, {mergeDims(b, loc, y, 1),
                            convertTensor(b, loc, mean, st),
                            convertTensor(b, loc, invStd, st)});
    return success();
  }
};

} // namespace

std::optional<std::string>
nnc::detail::whyCannotLowerNormalization(Operation *op) {
  if (auto groupNorm = dyn_cast<GroupNormOp>(op))
    return whyCannotLower(groupNorm);
  return std::nullopt;
}

void nnc::detail::populateNormalizationPatterns(RewritePatternSet &patterns) {
  patterns
      .add<BatchNormConversion, BatchNormTrainConversion, GroupNormConversion,
           InstanceNormConversion, LayerNormConversion>(patterns.getContext());
}
