//===- LossPatterns.cpp - nnc losses to linalg ----------------------------===//
//
// Lowers the class-index losses (nll_loss, cross_entropy with its
// log-softmax, class weights, ignore_index and label smoothing) to one
// linalg.generic that picks each element's class with tensor.extract, and
// mse_loss to a squared difference; both reduced by linalg.reduce.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Utils.h"

#include "nnc/NNCOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace nnc;
using namespace nnc::detail;

namespace {

//===----------------------------------------------------------------------===//
// Class-index losses
//===----------------------------------------------------------------------===//

/// The class-index loss shared by nll_loss and cross_entropy. `logp` is
/// [N, C, d...] in the compute type; per element with label t (not
/// ignored): loss = -(1 - s) * w[t] * logp[t] + s / C * smooth, where
/// `smooth` ([N, d...], only with s != 0) is sum_c -w[c] * logp[c]. The
/// weighted mean divides by the sum of w[t] over the elements not ignored.
/// Labels that are not ignored are checked at run time to lie in [0, C)
/// (`what` names the check).
Value classLoss(OpBuilder &b, Location loc, Value logp, Value labels,
                Value weight, std::optional<int64_t> ignoreIndex,
                double smoothing, LossReduction reduction,
                RankedTensorType resultType, StringRef what) {
  MLIRContext *ctx = b.getContext();
  auto logpType = cast<RankedTensorType>(logp.getType());
  Type ct = logpType.getElementType();
  int64_t numClasses = logpType.getDimSize(1);
  auto labelsType = cast<RankedTensorType>(labels.getType());
  int64_t rank = labelsType.getRank();
  Type lt = labelsType.getElementType();
  Value w = weight ? convertTensor(b, loc, weight, ct) : Value();

  Value smooth;
  if (smoothing != 0.0) {
    int64_t fullRank = logpType.getRank();
    Value neg = logp;
    if (w) {
      neg = buildParallelGeneric(
          b, loc, createEmpty(b, loc, logpType, getDims(b, loc, logp)),
          {logp, w},
          {b.getMultiDimIdentityMap(fullRank), dimMap(ctx, fullRank, {1})},
          [](OpBuilder &nb, Location l, ValueRange a) -> Value {
            return arith::MulFOp::create(nb, l, a[0], a[1]);
          });
    }
    smooth = sumOver(b, loc, neg, {1});
  }

  SmallVector<OpFoldResult> dims = getDims(b, loc, labels);
  Value classes = getValueOrCreateConstantIndexOp(
      b, loc, tensor::getMixedSize(b, loc, logp, 1));
  auto elemType = RankedTensorType::get(labelsType.getShape(), ct);
  Value lossInit = createEmpty(b, loc, elemType, dims);
  Value weightInit = createEmpty(b, loc, elemType, dims);
  SmallVector<Value> inputs = {labels};
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
  if (smooth) {
    inputs.push_back(smooth);
    maps.push_back(b.getMultiDimIdentityMap(rank));
  }
  maps.append(2, b.getMultiDimIdentityMap(rank));
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{elemType, elemType}, inputs,
      ValueRange{lossInit, weightInit}, maps, parallelIterators(rank),
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value label = a[0];
        Value keep;
        Value index =
            arith::IndexCastOp::create(nb, l, nb.getIndexType(), label);
        if (ignoreIndex) {
          keep = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ne, label,
                                       intConst(nb, l, lt, *ignoreIndex));
          // An ignored label may lie outside [0, C): read class 0 instead.
          Value c0 = arith::ConstantIndexOp::create(nb, l, 0);
          index = arith::SelectOp::create(nb, l, keep, index, c0);
        }
        index =
            checkIndex(nb, l, index, classes, /*negativeCounts=*/false, what)
                .first;
        SmallVector<Value> at = {linalg::IndexOp::create(nb, l, 0), index};
        for (int64_t i = 1; i < rank; ++i)
          at.push_back(linalg::IndexOp::create(nb, l, i));
        Value picked = tensor::ExtractOp::create(nb, l, logp, at);
        Value wt = w ? tensor::ExtractOp::create(nb, l, w, ValueRange{index})
                           .getResult()
                     : floatConst(nb, l, ct, 1);
        Value loss = picked;
        if (w)
          loss = arith::MulFOp::create(nb, l, loss, wt);
        loss = arith::NegFOp::create(nb, l, loss);
        if (smooth) {
          loss = arith::MulFOp::create(nb, l, loss,
                                       floatConst(nb, l, ct, 1.0 - smoothing));
          Value sm = arith::MulFOp::create(
              nb, l, a[1],
              floatConst(nb, l, ct,
                         -smoothing / static_cast<double>(numClasses)));
          loss = arith::AddFOp::create(nb, l, loss, sm);
        }
        if (keep) {
          Value zero = floatConst(nb, l, ct, 0);
          loss = arith::SelectOp::create(nb, l, keep, loss, zero);
          wt = arith::SelectOp::create(nb, l, keep, wt, zero);
        }
        linalg::YieldOp::create(nb, l, ValueRange{loss, wt});
      });
  Value loss = generic.getResult(0);
  Value weights = generic.getResult(1);
  Type t = resultType.getElementType();
  if (reduction == LossReduction::none)
    return convertTensor(b, loc, loss, t);
  SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  Value total = sumOver(b, loc, loss, all);
  if (reduction == LossReduction::mean)
    total = mapTensor(b, loc, {total, sumOver(b, loc, weights, all)}, ct,
                      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                        return arith::DivFOp::create(nb, l, a[0], a[1]);
                      });
  return convertTensor(b, loc, total, t);
}

/// Why a class-index loss whose scores [N, C, d...] are `t` cannot be
/// lowered: the lowering takes the number of classes C as a constant.
std::optional<std::string> whyClassesNotStatic(RankedTensorType t) {
  if (!ShapedType::isDynamic(t.getDimSize(1)))
    return std::nullopt;
  return std::string("the class dimension must be static");
}
std::optional<std::string> whyCannotLower(NllLossOp op) {
  return whyClassesNotStatic(op.getInput().getType());
}
std::optional<std::string> whyCannotLower(CrossEntropyOp op) {
  return whyClassesNotStatic(op.getLogits().getType());
}

std::optional<int64_t> signedOptional(IntegerAttr attr) {
  if (!attr)
    return std::nullopt;
  return attr.getInt();
}

struct NllLossConversion : public OpConversionPattern<NllLossOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NllLossOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inType = op.getInput().getType();
    if (std::optional<std::string> reason = whyCannotLower(op))
      return rewriter.notifyMatchFailure(op, *reason);
    Location loc = op.getLoc();
    Value logp = convertTensor(rewriter, loc, adaptor.getInput(),
                               computeType(inType.getElementType()));
    rewriter.replaceOp(op, classLoss(rewriter, loc, logp, adaptor.getLabels(),
                                     adaptor.getWeight(),
                                     signedOptional(op.getIgnoreIndexAttr()),
                                     0.0, op.getReduction(), op.getType(),
                                     describeForCheck(op) + " label"));
    return success();
  }
};

struct CrossEntropyConversion : public OpConversionPattern<CrossEntropyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CrossEntropyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inType = op.getLogits().getType();
    if (std::optional<std::string> reason = whyCannotLower(op))
      return rewriter.notifyMatchFailure(op, *reason);
    Location loc = op.getLoc();
    Value logits = convertTensor(rewriter, loc, adaptor.getLogits(),
                                 computeType(inType.getElementType()));
    Value logp = logSoftmax(rewriter, loc, logits, /*axis=*/1);
    rewriter.replaceOp(op, classLoss(rewriter, loc, logp, adaptor.getLabels(),
                                     adaptor.getWeight(),
                                     signedOptional(op.getIgnoreIndexAttr()),
                                     op.getLabelSmoothing().convertToDouble(),
                                     op.getReduction(), op.getType(),
                                     describeForCheck(op) + " label"));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Mean squared error
//===----------------------------------------------------------------------===//

/// Sum of all elements of `v` as a rank-0 tensor, divided by the element
/// count when `mean`.
Value reduceAll(OpBuilder &b, Location loc, Value v, bool mean) {
  auto type = cast<RankedTensorType>(v.getType());
  Type t = type.getElementType();
  SmallVector<int64_t> axes =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  Value sum = sumOver(b, loc, v, axes);
  if (!mean)
    return sum;
  Value count = countAsScalar(b, loc, v, axes, t);
  return mapTensor(b, loc, {sum}, t,
                   [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                     return arith::DivFOp::create(nb, l, a[0], count);
                   });
}

struct MseLossConversion : public OpConversionPattern<MseLossOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MseLossOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type t = op.getType().getElementType();
    Value sq =
        mapTensor(rewriter, loc, {adaptor.getInput(), adaptor.getTarget()}, t,
                  [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                    Value d = arith::SubFOp::create(nb, l, a[0], a[1]);
                    return arith::MulFOp::create(nb, l, d, d);
                  });
    if (op.getReduction() != LossReduction::none)
      sq = reduceAll(rewriter, loc, sq,
                     op.getReduction() == LossReduction::mean);
    rewriter.replaceOp(op, sq);
    return success();
  }
};

} // namespace

std::optional<std::string> nnc::detail::whyCannotLowerLoss(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<std::string>>(op)
      .Case<NllLossOp, CrossEntropyOp>(
          [](auto loss) { return whyCannotLower(loss); })
      .Default([](Operation *) { return std::nullopt; });
}

void nnc::detail::populateLossPatterns(RewritePatternSet &patterns) {
  patterns.add<CrossEntropyConversion, MseLossConversion, NllLossConversion>(
      patterns.getContext());
}
