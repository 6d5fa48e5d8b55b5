//===- PoolingPatterns.cpp - nnc pooling to linalg ------------------------===//
//
// Lowers max_pool and avg_pool to one linalg.generic reducing the windows of
// the padded input (ceil_mode's last partial windows padded as well, and
// the average divided by a window sum of a mask), and the global poolings
// to linalg.reduce over the spatial dimensions.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Utils.h"

#include "nnc/NNCOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace nnc;
using namespace nnc::detail;

namespace {

/// Extra end padding per spatial dimension so that every window of the
/// result (ceil_mode may add a last partial one) lies inside the padded
/// input.
SmallVector<int64_t> ceilExtra(RankedTensorType in, RankedTensorType out,
                               ArrayRef<int64_t> kernel, const Window &w) {
  SmallVector<int64_t> extra;
  for (size_t i = 0; i < kernel.size(); ++i) {
    int64_t padded = in.getDimSize(2 + i) + w.padBegin[i] + w.padEnd[i];
    int64_t needed = (out.getDimSize(2 + i) - 1) * w.strides[i] +
                     w.dilations[i] * (kernel[i] - 1) + 1;
    extra.push_back(std::max<int64_t>(0, needed - padded));
  }
  return extra;
}

/// The end pads of a pooling input: the explicit ones plus `extra`.
SmallVector<int64_t> poolPadEnd(const Window &w, ArrayRef<int64_t> extra) {
  SmallVector<int64_t> high = w.padEnd;
  for (auto [h, e] : llvm::zip(high, extra))
    h += e;
  return high;
}

/// Maps over loops (lead..., o1..oS, k1..kS): the window read
/// (lead..., o*stride + k*dil) and the result (lead..., o).
std::pair<AffineMap, AffineMap> windowMaps(MLIRContext *ctx, int64_t lead,
                                           const Window &w) {
  int64_t s = w.strides.size();
  int64_t numLoops = lead + 2 * s;
  SmallVector<AffineExpr> in, out;
  for (int64_t i = 0; i < lead; ++i) {
    in.push_back(getAffineDimExpr(i, ctx));
    out.push_back(getAffineDimExpr(i, ctx));
  }
  for (int64_t i = 0; i < s; ++i) {
    AffineExpr o = getAffineDimExpr(lead + i, ctx);
    AffineExpr k = getAffineDimExpr(lead + s + i, ctx);
    in.push_back(o * w.strides[i] + k * w.dilations[i]);
    out.push_back(o);
  }
  return {AffineMap::get(numLoops, 0, in, ctx),
          AffineMap::get(numLoops, 0, out, ctx)};
}

/// Reduces windows of `padded` (with `lead` leading non-window dims) into
/// `init`; a window-shaped empty tensor provides the kernel loop bounds.
Value windowReduce(OpBuilder &b, Location loc, Value padded, Value init,
                   int64_t lead, ArrayRef<int64_t> kernel, const Window &w,
                   ScalarFn combine) {
  MLIRContext *ctx = b.getContext();
  int64_t s = kernel.size();
  int64_t numLoops = lead + 2 * s;
  auto [inMap, outMap] = windowMaps(ctx, lead, w);
  SmallVector<AffineExpr> kExprs;
  for (int64_t i = 0; i < s; ++i)
    kExprs.push_back(getAffineDimExpr(lead + s + i, ctx));
  Type t = cast<RankedTensorType>(padded.getType()).getElementType();
  Value window = tensor::EmptyOp::create(b, loc, kernel, t);
  SmallVector<utils::IteratorType> iterators = parallelIterators(numLoops);
  for (int64_t i = lead + s; i < numLoops; ++i)
    iterators[i] = utils::IteratorType::reduction;
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{padded, window},
      ValueRange{init},
      SmallVector<AffineMap>{inMap, AffineMap::get(numLoops, 0, kExprs, ctx),
                             outMap},
      iterators, [&](OpBuilder &nb, Location l, ValueRange a) {
        linalg::YieldOp::create(nb, l, combine(nb, l, {a[0], a[2]}));
      });
  return generic.getResult(0);
}

/// [N, C, O...] accumulator sizes of a pooling result.
SmallVector<OpFoldResult> poolDims(OpBuilder &b, Location loc, Value input,
                                   RankedTensorType resultType) {
  SmallVector<OpFoldResult> dims = getDims(b, loc, input);
  for (int64_t i = 2; i < resultType.getRank(); ++i)
    dims[i] = b.getIndexAttr(resultType.getDimSize(i));
  return dims;
}

/// Why a windowed pooling cannot be lowered: only its batch dimension may
/// be dynamic.
template <typename OpTy> std::optional<std::string> whyCannotLower(OpTy op) {
  return whyNotStaticButBatch({op.getInput().getType(), op.getType()});
}

struct MaxPoolConversion : public OpConversionPattern<MaxPoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaxPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto inType = op.getInput().getType();
    RankedTensorType resultType = op.getType();
    ArrayRef<int64_t> kernel = op.getKernelShape();
    int64_t s = kernel.size();
    if (std::optional<std::string> reason = whyCannotLower(op))
      return rewriter.notifyMatchFailure(op, *reason);
    Window w = getWindow(op.getStrides(), op.getDilations(), op.getPads(), s);
    Type t = inType.getElementType();
    bool fl = isFloat(t);
    Value lowest = extremeConst(b, loc, t, /*lowest=*/true);
    SmallVector<int64_t> high =
        poolPadEnd(w, ceilExtra(inType, resultType, kernel, w));
    Value padded =
        padSpatial(b, loc, adaptor.getInput(), w.padBegin, high, lowest);
    Value init = createFilled(b, loc, resultType,
                              poolDims(b, loc, padded, resultType), lowest);
    Value result =
        windowReduce(b, loc, padded, init, 2, kernel, w,
                     [fl](OpBuilder &nb, Location l, ValueRange a) -> Value {
                       if (fl)
                         return arith::MaximumFOp::create(nb, l, a[0], a[1]);
                       return arith::MaxSIOp::create(nb, l, a[0], a[1]);
                     });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct AvgPoolConversion : public OpConversionPattern<AvgPoolOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AvgPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto inType = op.getInput().getType();
    RankedTensorType resultType = op.getType();
    ArrayRef<int64_t> kernel = op.getKernelShape();
    int64_t s = kernel.size();
    if (std::optional<std::string> reason = whyCannotLower(op))
      return rewriter.notifyMatchFailure(op, *reason);
    Window w = getWindow(op.getStrides(), op.getDilations(), op.getPads(), s);
    Type t = inType.getElementType();
    Type ct = computeType(t);
    SmallVector<int64_t> extra = ceilExtra(inType, resultType, kernel, w);
    SmallVector<int64_t> high = poolPadEnd(w, extra);

    // Window sums in the compute type.
    Value padded = padSpatial(b, loc, adaptor.getInput(), w.padBegin, high,
                              zeroOf(b, loc, t));
    RankedTensorType accType = resultType.clone(ct);
    SmallVector<OpFoldResult> dims = poolDims(b, loc, padded, resultType);
    Value sum = windowReduce(
        b, loc, padded, createFilled(b, loc, accType, dims, zeroOf(b, loc, ct)),
        2, kernel, w, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          return arith::AddFOp::create(nb, l, convertFloat(nb, l, a[0], ct),
                                       a[1]);
        });

    // Divisors [O...]: window sums of a mask that is 1 where a position
    // counts (the input, plus the explicit pads with count_include_pad) and
    // 0 in the rest of the padding (always in ceil_mode's extension).
    SmallVector<int64_t> maskShape, maskLow, maskHigh;
    for (int64_t i = 0; i < s; ++i) {
      int64_t dim = inType.getDimSize(2 + i);
      if (op.getCountIncludePad()) {
        maskShape.push_back(dim + w.padBegin[i] + w.padEnd[i]);
        maskLow.push_back(0);
        maskHigh.push_back(extra[i]);
      } else {
        maskShape.push_back(dim);
        maskLow.push_back(w.padBegin[i]);
        maskHigh.push_back(high[i]);
      }
    }
    auto maskType = RankedTensorType::get(maskShape, ct);
    Value ones = createFilled(b, loc, maskType, {}, floatConst(b, loc, ct, 1));
    SmallVector<OpFoldResult> lo, hi;
    SmallVector<int64_t> paddedMask;
    for (int64_t i = 0; i < s; ++i) {
      lo.push_back(b.getIndexAttr(maskLow[i]));
      hi.push_back(b.getIndexAttr(maskHigh[i]));
      paddedMask.push_back(maskShape[i] + maskLow[i] + maskHigh[i]);
    }
    Value mask =
        tensor::PadOp::create(b, loc, RankedTensorType::get(paddedMask, ct),
                              ones, lo, hi, floatConst(b, loc, ct, 0));
    auto countType =
        RankedTensorType::get(resultType.getShape().drop_front(2), ct);
    Value count = windowReduce(
        b, loc, mask, createFilled(b, loc, countType, {}, zeroOf(b, loc, ct)),
        0, kernel, w, [](OpBuilder &nb, Location l, ValueRange a) -> Value {
          return arith::AddFOp::create(nb, l, a[0], a[1]);
        });

    int64_t rank = resultType.getRank();
    Value init = createEmpty(b, loc, resultType, dims);
    Value result =
        buildParallelGeneric(b, loc, init, {sum, count},
                             {b.getMultiDimIdentityMap(rank),
                              getDroppingMap(b.getContext(), rank, {0, 1})},
                             [&](OpBuilder &nb, Location l, ValueRange a) {
                               Value v =
                                   arith::DivFOp::create(nb, l, a[0], a[1]);
                               return convertFloat(nb, l, v, t);
                             });
    rewriter.replaceOp(op, result);
    return success();
  }
};

template <typename OpTy, bool isMax>
struct GlobalPoolConversion : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    Type t = inType.getElementType();
    Type ct = computeType(t);
    SmallVector<int64_t> axes =
        llvm::to_vector(llvm::seq<int64_t>(2, inType.getRank()));
    Value reduced;
    if (isMax) {
      reduced = buildReduction(
          b, loc, input, axes, extremeConst(b, loc, t, /*lowest=*/true),
          [](OpBuilder &nb, Location l, ValueRange a) -> Value {
            return arith::MaximumFOp::create(nb, l, a[0], a[1]);
          });
    } else {
      Value sum =
          buildReduction(b, loc, input, axes, zeroOf(b, loc, ct),
                         [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                           return arith::AddFOp::create(
                               nb, l, convertFloat(nb, l, a[0], ct), a[1]);
                         });
      Value count = countAsScalar(b, loc, input, axes, ct);
      reduced = mapTensor(b, loc, {sum}, t,
                          [&](OpBuilder &nb, Location l, ValueRange a) {
                            Value v = arith::DivFOp::create(nb, l, a[0], count);
                            return convertFloat(nb, l, v, t);
                          });
    }
    rewriter.replaceOp(op, keepDims(b, loc, reduced, op.getType(), axes));
    return success();
  }
};

} // namespace

std::optional<std::string> nnc::detail::whyCannotLowerPooling(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<std::string>>(op)
      .Case<MaxPoolOp, AvgPoolOp>(
          [](auto pool) { return whyCannotLower(pool); })
      .Default([](Operation *) { return std::nullopt; });
}

void nnc::detail::populatePoolingPatterns(RewritePatternSet &patterns) {
  patterns.add<AvgPoolConversion, GlobalPoolConversion<GlobalAvgPoolOp, false>,
               GlobalPoolConversion<GlobalMaxPoolOp, true>, MaxPoolConversion>(
      patterns.getContext());
}
