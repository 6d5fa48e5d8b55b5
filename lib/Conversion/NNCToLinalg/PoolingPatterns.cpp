//===- PoolingPatterns.cpp - nnc pooling to linalg ------------------------===//
//
// Lowers max_pool and avg_pool to one linalg.generic reducing the windows of
// the padded input (ceil_mode's last partial windows padded as well, and
// the average divided by a window sum of a mask), max_pool_grad to a
// window argmax and per-phase gathers of the gradient, and the global
// poolings to linalg.reduce over the spatial dimensions.
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

/// max_pool_grad in two steps. First each window's argmax: the row-major
/// offset in the window of its first maximum (the first NaN if any), found
/// by the pooling's own window loops over the padded input, with padded
/// positions never taken. Then the input gradient is gathered rather than
/// scattered: with a padded input position h = a * stride + p (phase p in
/// [0, stride)), the kernel offsets k whose k * dilation leaves remainder p
/// are the windows a - (k * dilation) / stride that can hold it. Per phase
/// tuple, one parallel generic over [N, C, A...] sums, for each such k, the
/// window's gradient where its argmax is k, all reads affine (argmax and
/// gradient padded with -1 and 0 so that out-of-range windows never match).
/// The phases are interleaved through a [N, C, A1, s1, A2, s2, ...] tensor,
/// whose interior is the input gradient.
struct MaxPoolGradConversion : public OpConversionPattern<MaxPoolGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaxPoolGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    MLIRContext *ctx = b.getContext();
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    auto gradType = cast<RankedTensorType>(op.getGrad().getType());
    if (std::optional<std::string> reason =
            whyNotStaticButBatch({inType, gradType}))
      return rewriter.notifyMatchFailure(op, *reason);
    ArrayRef<int64_t> kernel = op.getKernelShape();
    int64_t s = kernel.size();
    Window w = getWindow(op.getStrides(), op.getDilations(), op.getPads(), s);
    Type t = inType.getElementType();
    Type ct = computeType(t);
    Type i32 = b.getI32Type();
    Value x = adaptor.getInput(), g = adaptor.getGrad();
    OpFoldResult batch = getDims(b, loc, x)[0];
    OpFoldResult channels = b.getIndexAttr(inType.getDimSize(1));
    auto shapeOf = [&](ArrayRef<int64_t> spatial) {
      SmallVector<int64_t> shape{inType.getDimSize(0), inType.getDimSize(1)};
      llvm::append_range(shape, spatial);
      return shape;
    };
    auto sizesOf = [&](ArrayRef<int64_t> spatial) {
      SmallVector<OpFoldResult> sizes{batch, channels};
      for (int64_t d : spatial)
        sizes.push_back(b.getIndexAttr(d));
      return sizes;
    };
    ArrayRef<int64_t> inSpatial = inType.getShape().drop_front(2);
    ArrayRef<int64_t> outSpatial = gradType.getShape().drop_front(2);

    // Step 1: each window's maximum, as the pooling computes it (padding
    // -inf), then the first offset in the window that holds it; positions in
    // the padding never count, so a window of -inf picks its first input
    // position. Two single-result reductions rather than one with two
    // results, which LLVM vectorizes no longer.
    SmallVector<int64_t> high =
        poolPadEnd(w, ceilExtra(inType, gradType, kernel, w));
    Value lowest = extremeConst(b, loc, t, /*lowest=*/true);
    Value padded = padSpatial(b, loc, x, w.padBegin, high, lowest);
    SmallVector<OpFoldResult> outSizes = sizesOf(outSpatial);
    Value maxima = windowReduce(
        b, loc, padded,
        createFilled(b, loc, RankedTensorType::get(shapeOf(outSpatial), t),
                     outSizes, lowest),
        2, kernel, w, [](OpBuilder &nb, Location l, ValueRange a) -> Value {
          return arith::MaximumFOp::create(nb, l, a[0], a[1]);
        });
    int64_t windowSize = 1;
    for (int64_t k : kernel)
      windowSize *= k;
    auto indexType = RankedTensorType::get(shapeOf(outSpatial), i32);
    Value none = intConst(b, loc, i32, windowSize);
    Value indexInit = createFilled(b, loc, indexType, outSizes, none);
    int64_t numLoops = 2 + 2 * s;
    auto [inMap, outMap] = windowMaps(ctx, 2, w);
    SmallVector<AffineExpr> kExprs;
    for (int64_t i = 0; i < s; ++i)
      kExprs.push_back(getAffineDimExpr(2 + s + i, ctx));
    SmallVector<utils::IteratorType> iterators = parallelIterators(numLoops);
    for (int64_t i = 2 + s; i < numLoops; ++i)
      iterators[i] = utils::IteratorType::reduction;
    Value window = tensor::EmptyOp::create(b, loc, kernel, t);
    auto argmax = linalg::GenericOp::create(
        b, loc, TypeRange{indexType}, ValueRange{padded, window, maxima},
        ValueRange{indexInit},
        SmallVector<AffineMap>{inMap, AffineMap::get(numLoops, 0, kExprs, ctx),
                               outMap, outMap},
        iterators, [&](OpBuilder &nb, Location l, ValueRange a) {
          Value v = a[0], max = a[2], found = a[3];
          auto idx = [&](int64_t c) {
            return arith::ConstantIndexOp::create(nb, l, c).getResult();
          };
          Value offset = idx(0);
          Value hit = arith::OrIOp::create(
              nb, l,
              arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, v, max),
              arith::AndIOp::create(
                  nb, l,
                  arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, v, v),
                  arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, max,
                                        max)));
          for (int64_t i = 0; i < s; ++i) {
            Value o = linalg::IndexOp::create(nb, l, 2 + i);
            Value k = linalg::IndexOp::create(nb, l, 2 + s + i);
            offset = arith::AddIOp::create(
                nb, l, arith::MulIOp::create(nb, l, offset, idx(kernel[i])),
                k);
            // Only the checks that can fail: windows reaching into the
            // begin or end padding.
            int64_t last = (outSpatial[i] - 1) * w.strides[i] +
                           (kernel[i] - 1) * w.dilations[i];
            bool lowPad = w.padBegin[i] > 0;
            bool highPad = last >= w.padBegin[i] + inSpatial[i];
            if (!lowPad && !highPad)
              continue;
            Value pos = arith::AddIOp::create(
                nb, l, arith::MulIOp::create(nb, l, o, idx(w.strides[i])),
                arith::MulIOp::create(nb, l, k, idx(w.dilations[i])));
            if (lowPad)
              hit = arith::AndIOp::create(
                  nb, l, hit,
                  arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, pos,
                                        idx(w.padBegin[i])));
            if (highPad)
              hit = arith::AndIOp::create(
                  nb, l, hit,
                  arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, pos,
                                        idx(w.padBegin[i] + inSpatial[i])));
          }
          Value candidate = arith::SelectOp::create(
              nb, l, hit, arith::IndexCastOp::create(nb, l, i32, offset),
              intConst(nb, l, i32, windowSize));
          linalg::YieldOp::create(
              nb, l,
              ValueRange{arith::MinSIOp::create(nb, l, found, candidate)});
        });
    Value index = argmax.getResult(0);

    // Step 2: per phase, gather the gradient of the windows whose argmax
    // is the position.
    SmallVector<int64_t> phaseSpatial, front, back;
    for (int64_t i = 0; i < s; ++i) {
      int64_t a = llvm::divideCeil(w.padBegin[i] + inSpatial[i], w.strides[i]);
      phaseSpatial.push_back(a);
      front.push_back((kernel[i] - 1) * w.dilations[i] / w.strides[i]);
      back.push_back(std::max<int64_t>(0, a - outSpatial[i]));
    }
    Value indexPadded =
        padSpatial(b, loc, index, front, back, intConst(b, loc, i32, -1));
    Value gradPadded = padSpatial(b, loc, g, front, back, zeroOf(b, loc, t));
    SmallVector<int64_t> fullShape{inType.getDimSize(0), inType.getDimSize(1)};
    SmallVector<OpFoldResult> fullSizes{batch, channels};
    for (int64_t i = 0; i < s; ++i) {
      fullShape.append({phaseSpatial[i], w.strides[i]});
      fullSizes.append(
          {b.getIndexAttr(phaseSpatial[i]), b.getIndexAttr(w.strides[i])});
    }
    // Each phase is computed whole, then inserted into its slot (a copy: a
    // phase written in place through a slice of a zeroed tensor ran no
    // faster in ResNet-18's step, and the zeroed tensor lived longer). One
    // phase is the whole result.
    int64_t phases = 1;
    for (int64_t stride : w.strides)
      phases *= stride;
    Value full = createEmpty(b, loc, RankedTensorType::get(fullShape, t),
                             fullSizes);
    Value single;
    auto phaseType = RankedTensorType::get(shapeOf(phaseSpatial), t);
    SmallVector<OpFoldResult> phaseSizes = sizesOf(phaseSpatial);
    int64_t rank = 2 + s;
    SmallVector<int64_t> phase(s, 0);
    while (true) {
      // The kernel offsets of this phase, per dimension.
      SmallVector<SmallVector<int64_t>> offsets(s);
      for (int64_t i = 0; i < s; ++i)
        for (int64_t k = 0; k < kernel[i]; ++k)
          if (k * w.dilations[i] % w.strides[i] == phase[i])
            offsets[i].push_back(k);
      // The phase is written where it lies in the interleaved tensor.
      SmallVector<OpFoldResult> at{b.getIndexAttr(0), b.getIndexAttr(0)};
      SmallVector<OpFoldResult> sizes{batch, channels};
      for (int64_t i = 0; i < s; ++i) {
        at.append({b.getIndexAttr(0), b.getIndexAttr(phase[i])});
        sizes.append({b.getIndexAttr(phaseSpatial[i]), b.getIndexAttr(1)});
      }
      SmallVector<OpFoldResult> ones(fullShape.size(), b.getIndexAttr(1));
      if (llvm::any_of(offsets, [](auto &o) { return o.empty(); })) {
        // No kernel offset reaches this phase.
        Value zeros =
            createFilled(b, loc, phaseType, phaseSizes, zeroOf(b, loc, t));
        full = tensor::InsertSliceOp::create(b, loc, zeros, full, at, sizes,
                                             ones);
      } else {
        SmallVector<Value> inputs;
        SmallVector<AffineMap> maps;
        SmallVector<int64_t> targets;
        SmallVector<int64_t> pick(s, 0);
        while (true) {
          // The windows a - (k * dilation) / stride for a in [0, A), as
          // slices of the padded argmax and gradient (a generic's operands
          // must span its loops).
          SmallVector<OpFoldResult> from{b.getIndexAttr(0), b.getIndexAttr(0)};
          int64_t linear = 0;
          for (int64_t i = 0; i < s; ++i) {
            int64_t k = offsets[i][pick[i]];
            linear = linear * kernel[i] + k;
            from.push_back(
                b.getIndexAttr(front[i] - k * w.dilations[i] / w.strides[i]));
          }
          SmallVector<OpFoldResult> unit(rank, b.getIndexAttr(1));
          auto slice = [&](Value v) {
            auto type = cast<RankedTensorType>(v.getType());
            return tensor::ExtractSliceOp::create(
                       b, loc, type.clone(shapeOf(phaseSpatial)), v, from,
                       phaseSizes, unit)
                .getResult();
          };
          inputs.append({slice(indexPadded), slice(gradPadded)});
          maps.append(2, b.getMultiDimIdentityMap(rank));
          targets.push_back(linear);
          int64_t i = s - 1;
          while (i >= 0 && ++pick[i] == static_cast<int64_t>(offsets[i].size()))
            pick[i--] = 0;
          if (i < 0)
            break;
        }
        Value part = buildParallelGeneric(
            b, loc, createEmpty(b, loc, phaseType, phaseSizes), inputs, maps,
            [&](OpBuilder &nb, Location l, ValueRange a) {
              Value zero = zeroOf(nb, l, ct);
              Value sum;
              for (auto [j, target] : llvm::enumerate(targets)) {
                Value hit = arith::CmpIOp::create(
                    nb, l, arith::CmpIPredicate::eq, a[2 * j],
                    intConst(nb, l, i32, target));
                Value v = arith::SelectOp::create(
                    nb, l, hit, convertFloat(nb, l, a[2 * j + 1], ct), zero);
                sum = sum ? arith::AddFOp::create(nb, l, sum, v).getResult()
                          : v;
              }
              return convertFloat(nb, l, sum, t);
            });
        if (phases > 1)
          full = tensor::InsertSliceOp::create(b, loc, part, full, at, sizes,
                                               ones);
        else
          single = part;
      }
      int64_t i = s - 1;
      while (i >= 0 && ++phase[i] == w.strides[i])
        phase[i--] = 0;
      if (i < 0)
        break;
    }
    SmallVector<ReassociationIndices> groups{{0}, {1}};
    for (int64_t i = 0; i < s; ++i)
      groups.push_back({2 + 2 * i, 3 + 2 * i});
    Value merged =
        single ? single
               : tensor::CollapseShapeOp::create(b, loc, full, groups).getResult();
    SmallVector<OpFoldResult> at{b.getIndexAttr(0), b.getIndexAttr(0)};
    for (int64_t i = 0; i < s; ++i)
      at.push_back(b.getIndexAttr(w.padBegin[i]));
    SmallVector<OpFoldResult> ones(rank, b.getIndexAttr(1));
    Value dx = tensor::ExtractSliceOp::create(b, loc, inType, merged, at,
                                              sizesOf(inSpatial), ones);
    rewriter.replaceOp(op, dx);
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
      .Case([](MaxPoolGradOp op) {
        return whyNotStaticButBatch(
            {cast<RankedTensorType>(op.getInput().getType()),
             cast<RankedTensorType>(op.getGrad().getType())});
      })
      .Default([](Operation *) { return std::nullopt; });
}

void nnc::detail::populatePoolingPatterns(RewritePatternSet &patterns) {
  patterns.add<AvgPoolConversion, GlobalPoolConversion<GlobalAvgPoolOp, false>,
               GlobalPoolConversion<GlobalMaxPoolOp, true>, MaxPoolConversion,
               MaxPoolGradConversion>(
      patterns.getContext());
}
