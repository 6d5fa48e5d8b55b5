//===- ConvolutionPatterns.cpp - nnc convolutions to linalg ---------------===//
//
// Lowers conv, conv_transpose and conv_weight_grad to linalg on tensors:
// image by image (one GEMM per image in an scf.for) when that option is on
// and applies, else im2col + linalg.matmul for large static 2-D f32/f64
// ones (the BLAS path), else one linalg.generic over the padded input. A
// kernel choice (nnc.impl) forces one of those, or nnc.library_conv for a
// library to run.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Utils.h"
#include "nnc/Conversion/Passes.h"
#include "nnc/LoopSchedule.h"

#include "nnc/NNCOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace nnc;
using namespace nnc::detail;

namespace {

//===----------------------------------------------------------------------===//
// Convolution as one generic, or as im2col + GEMM for the whole batch
//===----------------------------------------------------------------------===//

/// out[n, g, m, o...] = init + sum_{c, k...} in[n, g, c, spatial(o, k)...] *
/// w[g, ...] with loops (n, g, m, o1..oS, c, k1..kS). `weight` is
/// [G, M/G, C/G, K...] for a convolution and [G, C/G, M/G, K...] when
/// `channelsFirst` (transposed convolution). `spatial(i, o, k)` gives the
/// input index expression of spatial dimension i.
Value buildGroupedConv(
    OpBuilder &b, Location loc, Value input, Value weight, Value init,
    bool channelsFirst, int64_t numSpatial,
    function_ref<AffineExpr(int64_t, AffineExpr, AffineExpr)> spatial) {
  MLIRContext *ctx = b.getContext();
  int64_t s = numSpatial;
  int64_t numLoops = 4 + 2 * s;
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  AffineExpr n = d(0), g = d(1), m = d(2), c = d(3 + s);
  SmallVector<AffineExpr> inExprs = {n, g, c}, wExprs = {g},
                          outExprs = {n, g, m};
  if (channelsFirst)
    wExprs.append({c, m});
  else
    wExprs.append({m, c});
  for (int64_t i = 0; i < s; ++i) {
    AffineExpr o = d(3 + i), k = d(4 + s + i);
    inExprs.push_back(spatial(i, o, k));
    wExprs.push_back(k);
    outExprs.push_back(o);
  }
  SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, inExprs, ctx),
                                 AffineMap::get(numLoops, 0, wExprs, ctx),
                                 AffineMap::get(numLoops, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iterators = parallelIterators(numLoops);
  for (int64_t i = 3 + s; i < numLoops; ++i)
    iterators[i] = utils::IteratorType::reduction;
  Type ct = cast<RankedTensorType>(init.getType()).getElementType();
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{input, weight},
      ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value x = convertFloat(nb, l, a[0], ct);
        Value w = convertFloat(nb, l, a[1], ct);
        Value p = arith::MulFOp::create(nb, l, x, w);
        linalg::YieldOp::create(
            nb, l, ValueRange{arith::AddFOp::create(nb, l, p, a[2])});
      });
  return generic.getResult(0);
}

/// The accumulator [N, G, M/G, O...] in the compute type: the bias when
/// given (read through [G, M/G]), zero otherwise.
Value convInit(OpBuilder &b, Location loc, RankedTensorType resultType,
               Value input, Value bias, int64_t groups, Type ct) {
  int64_t m = resultType.getDimSize(1);
  SmallVector<int64_t> shape = {resultType.getDimSize(0), groups, m / groups};
  llvm::append_range(shape, resultType.getShape().drop_front(2));
  SmallVector<OpFoldResult> dims = {getDims(b, loc, input)[0],
                                    b.getIndexAttr(groups),
                                    b.getIndexAttr(m / groups)};
  for (int64_t d : resultType.getShape().drop_front(2))
    dims.push_back(b.getIndexAttr(d));
  auto type = RankedTensorType::get(shape, ct);
  if (!bias)
    return createFilled(b, loc, type, dims, zeroOf(b, loc, ct));
  Value grouped = splitDim(b, loc, bias, 0, groups);
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  AffineMap map = AffineMap::get(
      rank, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx)}, ctx);
  return buildParallelGeneric(b, loc, createEmpty(b, loc, type, dims),
                              {grouped}, {map},
                              [&](OpBuilder &nb, Location l, ValueRange a) {
                                return convertFloat(nb, l, a[0], ct);
                              });
}

/// The part conv and conv_transpose share: splits the channels of `input`
/// (padded or spread already) and of `weight` into `groups`, accumulates
/// onto the bias (the batch size taken from `batchSource`) and collapses
/// [N, G, M/G, O...] to [N, M, O...] of the result's element type.
Value lowerGroupedConv(
    OpBuilder &b, Location loc, Value input, Value weight, Value bias,
    Value batchSource, RankedTensorType resultType, int64_t groups,
    bool channelsFirst,
    function_ref<AffineExpr(int64_t, AffineExpr, AffineExpr)> spatial) {
  auto inType = cast<RankedTensorType>(input.getType());
  Type ct = computeType(inType.getElementType());
  Value grouped = splitDim(b, loc, input, 1, groups);
  Value groupedWeight = splitDim(b, loc, weight, 0, groups);
  Value init = convInit(b, loc, resultType, batchSource, bias, groups, ct);
  Value acc = buildGroupedConv(b, loc, grouped, groupedWeight, init,
                               channelsFirst, inType.getRank() - 2, spatial);
  acc = convertTensor(b, loc, acc, resultType.getElementType());
  return mergeDims(b, loc, acc, 1);
}

/// Convolutions below this many multiply-adds per group stay one generic:
/// im2col copies the input up to KH*KW times, which only a library GEMM
/// (--nnc-gemm-to-blas takes M*N*K >= 4096) repays.
constexpr int64_t kConvGemmMinMacs = int64_t(1) << 16;
/// Fewer output channels per group than this make the GEMM a handful of
/// matrix-vector products (depthwise convolutions): the loops win.
constexpr int64_t kConvGemmMinRows = 4;

/// Lowers a static 2-D f32/f64 convolution whose input is `padded` already
/// as im2col + GEMM, so that --nnc-gemm-to-blas turns it into BLAS calls:
///   cols[g, (c, kh, kw), (n, oh, ow)] = padded[n, g*C/G + c, oh*sh + kh*dh,
///                                               ow*sw + kw*dw]
///   out[g] = W[g] (M/G x K) * cols[g] (K x N*OH*OW)
/// with one linalg.matmul (groups == 1) or a batch_matmul over the groups,
/// both with default maps. [M, N*OH*OW] is NCHW as it lies for N == 1, the
/// bias seeding the accumulator; larger batches take one generic that
/// transposes and adds the bias. Returns null when the direct loops are the
/// better choice (small, depthwise-like, dynamic, other types).
/// `lowPrecision`: f16 and bf16 too, the GEMM's operands in that type and
/// its sums in f32, rounded once.
Value lowerConvAsGemm(OpBuilder &b, Location loc, Value padded, Value weight,
                      Value bias, RankedTensorType resultType, int64_t groups,
                      const Window &w, bool forced = false,
                      bool lowPrecision = false) {
  auto inType = cast<RankedTensorType>(padded.getType());
  auto wType = cast<RankedTensorType>(weight.getType());
  Type t = inType.getElementType();
  // The sums' type: t, or f32 for f16/bf16 operands.
  Type ct = computeType(t);
  if (inType.getRank() != 4 || !inType.hasStaticShape() ||
      !wType.hasStaticShape() || !resultType.hasStaticShape() ||
      !(t.isF32() || t.isF64() ||
        (lowPrecision && (t.isF16() || t.isBF16()))) ||
      wType.getElementType() != t ||
      resultType.getElementType() != t ||
      (bias && cast<RankedTensorType>(bias.getType()).getElementType() != t))
    return {};
  int64_t n = inType.getDimSize(0), c = inType.getDimSize(1);
  int64_t m = wType.getDimSize(0), kh = wType.getDimSize(2),
          kw = wType.getDimSize(3);
  int64_t oh = resultType.getDimSize(2), ow = resultType.getDimSize(3);
  int64_t cg = c / groups, mg = m / groups;
  int64_t k = cg * kh * kw, p = n * oh * ow;
  if (!forced &&
      (mg < kConvGemmMinRows ||
       static_cast<double>(mg) * k * p < static_cast<double>(kConvGemmMinMacs)))
    return {};
  MLIRContext *ctx = b.getContext();
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  bool grouped = groups > 1;
  // Operands of the batch_matmul, or of the matmul without the leading G.
  auto shape3 = [&](int64_t rows, int64_t cols) {
    return grouped ? SmallVector<int64_t>{groups, rows, cols}
                   : SmallVector<int64_t>{rows, cols};
  };

  Value cols;
  if (kh == 1 && kw == 1 && w.strides[0] == 1 && w.strides[1] == 1 && n == 1) {
    // A 1x1 stride-1 convolution of one image reads its input as it lies.
    cols = padded;
  } else {
    Value split = splitDim(b, loc, padded, 1, groups);
    // Loops (g, c, kh, kw, n, oh, ow) in the order cols is laid out.
    AffineMap inMap = AffineMap::get(
        7, 0,
        {d(4), d(0), d(1), d(5) * w.strides[0] + d(2) * w.dilations[0],
         d(6) * w.strides[1] + d(3) * w.dilations[1]},
        ctx);
    Value init = tensor::EmptyOp::create(
        b, loc, ArrayRef<int64_t>{groups, cg, kh, kw, n, oh, ow}, t);
    cols = buildParallelGeneric(
        b, loc, init, {split}, {inMap},
        [](OpBuilder &, Location, ValueRange a) { return a[0]; });
  }
  cols = reshapeOpaque(b, loc, cols, shape3(k, p));
  Value wMat = reshapeOpaque(b, loc, weight, shape3(mg, k));

  // One image: the accumulator starts at the bias broadcast along OH*OW.
  SmallVector<int64_t> accShape = shape3(mg, p);
  auto accType = RankedTensorType::get(accShape, ct);
  Value acc;
  if (bias && n == 1) {
    int64_t rank = accType.getRank();
    Value bv = grouped ? splitDim(b, loc, bias, 0, groups) : bias;
    AffineMap map =
        AffineMap::getMultiDimIdentityMap(rank, ctx).getMajorSubMap(rank - 1);
    acc = buildParallelGeneric(
        b, loc, tensor::EmptyOp::create(b, loc, accShape, ct), {bv}, {map},
        [&](OpBuilder &nb, Location l, ValueRange a) {
          return convertFloat(nb, l, a[0], ct);
        });
  } else {
    acc = createFilled(b, loc, accType, {}, zeroOf(b, loc, ct));
  }
  Value out =
      grouped
          ? linalg::BatchMatmulOp::create(b, loc, TypeRange{accType},
                                          ValueRange{wMat, cols},
                                          ValueRange{acc})
                .getResult(0)
          : linalg::MatmulOp::create(b, loc, TypeRange{accType},
                                     ValueRange{wMat, cols}, ValueRange{acc})
                .getResult(0);
  if (n == 1)
    return convertTensor(b, loc,
                         reshapeOpaque(b, loc, out, resultType.getShape()), t);

  // [M, N*OH*OW] -> [N, M, OH, OW] (+ bias), loops (n, m, oh, ow).
  out = reshapeOpaque(b, loc, out, {m, p});
  SmallVector<Value> inputs = {out};
  SmallVector<AffineMap> maps = {
      AffineMap::get(4, 0, {d(1), d(0) * (oh * ow) + d(2) * ow + d(3)}, ctx)};
  if (bias) {
    inputs.push_back(bias);
    maps.push_back(AffineMap::get(4, 0, {d(1)}, ctx));
  }
  return buildParallelGeneric(
      b, loc, tensor::EmptyOp::create(b, loc, resultType.getShape(), t), inputs,
      maps, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value v = a[0];
        if (bias)
          v = arith::AddFOp::create(nb, l, v, convertFloat(nb, l, a[1], ct));
        return convertFloat(nb, l, v, t);
      });
}

//===----------------------------------------------------------------------===//
// Convolutions image by image
//===----------------------------------------------------------------------===//
//
// With --nnc-convert-to-linalg{per-image-convolutions=1} (the fused
// pipeline) a 2-D convolution without groups is one scf.for over the
// images: each iteration lays its image out (padding, or spreading with
// the stride for a transposed convolution), copies the windows into a
// [C*KH*KW, OH*OW] matrix and multiplies it with the weight into the
// image's [M, OH*OW] block of the NCHW result. The matrix is a per-image
// tile that --nnc-plan-memory places once (not N*OH*OW columns for the
// batch), no transpose brings the product to NCHW, and the weight
// gradient accumulates one GEMM per image over x and g as they lie.

/// How one image [C, H, W] reaches the window copy: written at `at` with
/// steps `spread` into zeros of spatial `size` (padding; the stride of a
/// transposed convolution spreads), then read from `cropAt` on, `cropSize`
/// positions.
struct ImageLayout {
  SmallVector<int64_t, 2> size, at, spread, cropAt, cropSize;
};

/// The layout of a convolution's padded input.
ImageLayout paddedLayout(RankedTensorType input, const Window &w) {
  ImageLayout l;
  for (int64_t i = 0; i < 2; ++i) {
    int64_t size = input.getDimSize(2 + i) + w.padBegin[i] + w.padEnd[i];
    l.size.push_back(size);
    l.at.push_back(w.padBegin[i]);
    l.spread.push_back(1);
    l.cropAt.push_back(0);
    l.cropSize.push_back(size);
  }
  return l;
}

/// Image `n` of the static [N, C, H, W] `input` laid out as `l`: [C, ...].
Value layoutImage(OpBuilder &b, Location loc, Value input, Value n,
                  const ImageLayout &l) {
  auto type = cast<RankedTensorType>(input.getType());
  Type t = type.getElementType();
  int64_t c = type.getDimSize(1), h = type.getDimSize(2),
          w = type.getDimSize(3);
  auto idx = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  Value image = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({c, h, w}, t), input,
      {n, idx(0), idx(0), idx(0)}, {idx(1), idx(c), idx(h), idx(w)},
      {idx(1), idx(1), idx(1), idx(1)});
  bool plain = l.size[0] == h && l.size[1] == w && l.at[0] == 0 &&
               l.at[1] == 0 && l.spread[0] == 1 && l.spread[1] == 1;
  if (!plain) {
    Value zeros = createFilled(
        b, loc, RankedTensorType::get({c, l.size[0], l.size[1]}, t), {},
        zeroOf(b, loc, t));
    image = tensor::InsertSliceOp::create(
        b, loc, image, zeros, {idx(0), idx(l.at[0]), idx(l.at[1])},
        {idx(c), idx(h), idx(w)}, {idx(1), idx(l.spread[0]), idx(l.spread[1])});
  }
  if (l.cropAt[0] != 0 || l.cropAt[1] != 0 || l.cropSize[0] != l.size[0] ||
      l.cropSize[1] != l.size[1])
    image = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({c, l.cropSize[0], l.cropSize[1]}, t),
        image, {idx(0), idx(l.cropAt[0]), idx(l.cropAt[1])},
        {idx(c), idx(l.cropSize[0]), idx(l.cropSize[1])},
        {idx(1), idx(1), idx(1)});
  return image;
}

/// The windows of one laid-out image [C, H', W'] as a [C*KH*KW, OH*OW]
/// matrix: cols[(c, kh, kw), (oh, ow)] = image[c, oh*sh + kh*dh,
/// ow*sw + kw*dw].
Value imageColumns(OpBuilder &b, Location loc, Value image, int64_t kh,
                   int64_t kw, int64_t oh, int64_t ow, const Window &w) {
  auto type = cast<RankedTensorType>(image.getType());
  MLIRContext *ctx = b.getContext();
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  int64_t c = type.getDimSize(0);
  // Loops (c, kh, kw, oh, ow) in the order the matrix is laid out.
  AffineMap map =
      AffineMap::get(5, 0,
                     {d(0), d(3) * w.strides[0] + d(1) * w.dilations[0],
                      d(4) * w.strides[1] + d(2) * w.dilations[1]},
                     ctx);
  Value init = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{c, kh, kw, oh, ow}, type.getElementType());
  Value cols = buildParallelGeneric(
      b, loc, init, {image}, {map},
      [](OpBuilder &, Location, ValueRange a) { return a[0]; });
  return reshapeOpaque(b, loc, cols, {c * kh * kw, oh * ow});
}

/// Whether the per-image path takes a 2-D convolution: static f32/f64
/// shapes and enough work per GEMM for a library call to repay the copies.
/// (A single image gains nothing from it: the whole-batch lowering of one
/// image writes NCHW directly too, and reads a 1x1 convolution's input as
/// it lies.)
bool perImageApplies(RankedTensorType input, RankedTensorType weight,
                     RankedTensorType result, int64_t outChannels,
                     int64_t groups, bool forced = false,
                     bool lowPrecision = false) {
  Type t = input.getElementType();
  if (groups != 1 || input.getRank() != 4 || !input.hasStaticShape() ||
      (input.getDimSize(0) == 1 && !forced) || !weight.hasStaticShape() ||
      !result.hasStaticShape() ||
      !(t.isF32() || t.isF64() ||
        (lowPrecision && (t.isF16() || t.isBF16()))) ||
      weight.getElementType() != t || result.getElementType() != t)
    return false;
  if (forced)
    return true;
  int64_t k = input.getDimSize(1) * weight.getDimSize(2) * weight.getDimSize(3);
  int64_t p = result.getDimSize(2) * result.getDimSize(3);
  return outChannels >= kConvGemmMinRows &&
         static_cast<double>(outChannels) * k * p >=
             static_cast<double>(kConvGemmMinMacs);
}

/// An scf.for over the `n` images of `input` carrying `init`: each
/// iteration lays image i out as `layout` says, copies its windows of a
/// KH x KW kernel (`w`'s strides and dilations) producing OH x OW outputs
/// into a [C*KH*KW, OH*OW] tile, and yields what `step` makes of the
/// carried value, i and the tile.
Value forEachImageTile(
    OpBuilder &b, Location loc, Value input, const ImageLayout &layout,
    int64_t kh, int64_t kw, int64_t oh, int64_t ow, const Window &w, Value init,
    function_ref<Value(OpBuilder &, Location, Value, Value, Value)> step) {
  int64_t n = cast<RankedTensorType>(input.getType()).getDimSize(0);
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto loop = scf::ForOp::create(
      b, loc, cst(0), cst(n), cst(1), ValueRange{init},
      [&](OpBuilder &nb, Location l, Value i, ValueRange iter) {
        Value image = layoutImage(nb, l, input, i, layout);
        Value cols = imageColumns(nb, l, image, kh, kw, oh, ow, w);
        scf::YieldOp::create(nb, l, step(nb, l, iter[0], i, cols));
      });
  return loop.getResult(0);
}

/// y[n] = W * cols(x[n]) (+ bias) for each image: the convolution of the
/// static [N, C, H, W] `input` laid out as `layout` with `weight`
/// [M, C, KH, KW] (stride and dilation from `w`; its pads are in the
/// layout), into `resultType` [N, M, OH, OW].
Value lowerConvPerImage(OpBuilder &b, Location loc, Value input,
                        const ImageLayout &layout, Value weight, Value bias,
                        RankedTensorType resultType, const Window &w) {
  auto wType = cast<RankedTensorType>(weight.getType());
  Type t = resultType.getElementType();
  int64_t n = resultType.getDimSize(0), m = resultType.getDimSize(1);
  int64_t oh = resultType.getDimSize(2), ow = resultType.getDimSize(3);
  int64_t kh = wType.getDimSize(2), kw = wType.getDimSize(3);
  int64_t k = wType.getDimSize(1) * kh * kw, p = oh * ow;
  MLIRContext *ctx = b.getContext();
  Value wMat = reshapeOpaque(b, loc, weight, {m, k});
  Value out = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{n, m, p}, t);
  auto idx = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  Value result = forEachImageTile(
      b, loc, input, layout, kh, kw, oh, ow, w, out,
      [&](OpBuilder &nb, Location l, Value acc, Value i, Value cols) {
        SmallVector<OpFoldResult> at = {i, idx(0), idx(0)},
                                  sizes = {idx(1), idx(m), idx(p)},
                                  unit = {idx(1), idx(1), idx(1)};
        Value block = tensor::ExtractSliceOp::create(
            nb, l, RankedTensorType::get({m, p}, t), acc, at, sizes, unit);
        // The block starts at zero (the GEMM's beta = 0); the bias is
        // added to the product where it lies (a generic that does not read
        // its output would get a new buffer from elementwise fusion).
        Value zeros =
            linalg::FillOp::create(nb, l, ValueRange{zeroOf(nb, l, t)},
                                   ValueRange{block})
                .getResult(0);
        Value product =
            linalg::MatmulOp::create(nb, l, TypeRange{zeros.getType()},
                                     ValueRange{wMat, cols}, ValueRange{zeros})
                .getResult(0);
        if (bias) {
          AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
          product =
              linalg::GenericOp::create(
                  nb, l, TypeRange{product.getType()}, ValueRange{bias},
                  ValueRange{product},
                  SmallVector<AffineMap>{identity.getMajorSubMap(1), identity},
                  parallelIterators(2),
                  [](OpBuilder &bb, Location ll, ValueRange a) {
                    linalg::YieldOp::create(
                        bb, ll,
                        ValueRange{arith::AddFOp::create(bb, ll, a[1], a[0])});
                  })
                  .getResult(0);
        }
        return tensor::InsertSliceOp::create(nb, l, product, acc, at, sizes,
                                             unit)
            .getResult();
      });
  return reshapeOpaque(b, loc, result, resultType.getShape());
}

/// dw = sum over the images of g[n] [M, OH*OW] * cols(x[n])^T: the weight
/// gradient of a convolution, one accumulating GEMM per image.
Value lowerWeightGradPerImage(OpBuilder &b, Location loc, Value input,
                              const ImageLayout &layout, Value grad,
                              RankedTensorType resultType, const Window &w) {
  auto gType = cast<RankedTensorType>(grad.getType());
  Type t = resultType.getElementType();
  int64_t n = gType.getDimSize(0), m = gType.getDimSize(1);
  int64_t oh = gType.getDimSize(2), ow = gType.getDimSize(3);
  int64_t kh = resultType.getDimSize(2), kw = resultType.getDimSize(3);
  int64_t k = resultType.getDimSize(1) * kh * kw, p = oh * ow;
  MLIRContext *ctx = b.getContext();
  Value gMat = reshapeOpaque(b, loc, grad, {n, m, p});
  Value zero = createFilled(b, loc, RankedTensorType::get({m, k}, t), {},
                            zeroOf(b, loc, t));
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  // Loops (m, k, p): g[n] read as it lies, the columns transposed.
  Attribute maps =
      b.getAffineMapArrayAttr({AffineMap::get(3, 0, {d(0), d(2)}, ctx),
                               AffineMap::get(3, 0, {d(1), d(2)}, ctx),
                               AffineMap::get(3, 0, {d(0), d(1)}, ctx)});
  auto idx = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  Value result = forEachImageTile(
      b, loc, input, layout, kh, kw, oh, ow, w, zero,
      [&](OpBuilder &nb, Location l, Value acc, Value i, Value cols) {
        Value gi = tensor::ExtractSliceOp::create(
            nb, l, RankedTensorType::get({m, p}, t), gMat, {i, idx(0), idx(0)},
            {idx(1), idx(m), idx(p)}, {idx(1), idx(1), idx(1)});
        return linalg::MatmulOp::create(
                   nb, l, TypeRange{acc.getType()}, ValueRange{gi, cols},
                   ValueRange{acc},
                   ArrayRef<NamedAttribute>{
                       nb.getNamedAttr("indexing_maps", maps)})
            .getResult(0);
      });
  return reshapeOpaque(b, loc, result, resultType.getShape());
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// Why a convolution cannot be lowered: only its batch dimension may be
/// dynamic.
std::optional<std::string> whyCannotLower(ConvOp op) {
  return whyNotStaticButBatch({op.getInput().getType(), op.getType()},
                              {op.getWeight().getType()});
}
std::optional<std::string> whyCannotLower(ConvTransposeOp op) {
  return whyNotStaticButBatch({op.getInput().getType(), op.getType()},
                              {op.getWeight().getType()});
}
std::optional<std::string> whyCannotLower(ConvWeightGradOp op) {
  return whyNotStaticButBatch({op.getInput().getType(), op.getGrad().getType()},
                              {op.getType()});
}

/// The kernel an op's nnc.impl attribute chooses (Default: none given).
enum class ConvChoice {
  Default,
  Library,
  LibraryWinograd,
  PerImage,
  Gemm,
  Loops
};

/// The kernel choice names, in ConvChoice's order after Default.
constexpr const char *kConvChoiceNames =
    "\"library\", \"library_winograd\", \"per_image\", \"gemm\", \"loops\"";

/// The choice `name` names.
std::optional<ConvChoice> convChoiceNamed(StringRef name) {
  return llvm::StringSwitch<std::optional<ConvChoice>>(name)
      .Case("library", ConvChoice::Library)
      .Case("library_winograd", ConvChoice::LibraryWinograd)
      .Case("per_image", ConvChoice::PerImage)
      .Case("gemm", ConvChoice::Gemm)
      .Case("loops", ConvChoice::Loops)
      .Default(std::nullopt);
}

/// The choice `op` carries; nothing when the attribute names no kernel.
std::optional<ConvChoice> kernelChoice(Operation *op) {
  Attribute attr = op->getAttr(NNCDialect::getKernelChoiceAttrName());
  if (!attr)
    return ConvChoice::Default;
  auto name = dyn_cast<StringAttr>(attr);
  if (!name)
    return std::nullopt;
  return convChoiceNamed(name.getValue());
}

/// The weight of a transposed convolution as the GEMM paths read it:
/// [M, C, KH, KW] from [C, M, KH, KW].
RankedTensorType flippedWeightType(RankedTensorType w) {
  return RankedTensorType::get(
      {w.getDimSize(1), w.getDimSize(0), w.getDimSize(2), w.getDimSize(3)},
      w.getElementType());
}

/// Whether the forced `choice` applies to `op` (static 2-D f32/f64 without
/// groups for the per-image and GEMM lowerings; what
/// getLibraryConvolution accepts for a library); the reason when not.
std::optional<std::string>
whyChoiceDoesNotApply(Operation *op, ConvChoice choice, StringRef choiceName) {
  if (choice == ConvChoice::Default || choice == ConvChoice::Loops)
    return std::nullopt;
  std::string why;
  auto named = [&](StringRef what) {
    return "its kernel choice " +
           std::string(NNCDialect::getKernelChoiceAttrName()) + " = \"" +
           choiceName.str() + "\" does not apply: " + what.str();
  };
  if (choice == ConvChoice::Library || choice == ConvChoice::LibraryWinograd) {
    std::optional<LibraryConvolution> conv = getLibraryConvolution(op, why);
    if (!conv)
      return named(why);
    if (choice == ConvChoice::LibraryWinograd)
      if (std::optional<std::string> reason = whyNotWinograd(*conv))
        return named(*reason);
    return std::nullopt;
  }
  bool applies =
      llvm::TypeSwitch<Operation *, bool>(op)
          .Case([](ConvOp c) {
            auto w = c.getWeight().getType();
            return perImageApplies(c.getInput().getType(), w, c.getType(),
                                   w.getDimSize(0), c.getGroups(),
                                   /*forced=*/true);
          })
          .Case([](ConvTransposeOp t) {
            auto w = t.getWeight().getType();
            if (w.getRank() != 4 || !w.hasStaticShape())
              return false;
            RankedTensorType f = flippedWeightType(w);
            return perImageApplies(t.getInput().getType(), f, t.getType(),
                                   f.getDimSize(0), t.getGroups(),
                                   /*forced=*/true);
          })
          .Case([](ConvWeightGradOp g) {
            return perImageApplies(
                g.getInput().getType(), g.getType(), g.getGrad().getType(),
                g.getType().getDimSize(0), g.getGroups(), /*forced=*/true);
          })
          .Default([](Operation *) { return false; });
  if (applies)
    return std::nullopt;
  return named("it needs a static 2-D f32 or f64 convolution without groups");
}

/// Why `op` cannot be lowered: its shapes, or a forced kernel choice that
/// does not apply.
template <typename OpTy>
std::optional<std::string> whyCannotLowerConv(OpTy op) {
  if (std::optional<std::string> reason = whyCannotLower(op))
    return reason;
  std::optional<ConvChoice> choice = kernelChoice(op);
  if (!choice)
    return "its kernel choice " +
           std::string(NNCDialect::getKernelChoiceAttrName()) +
           " must be one of " + kConvChoiceNames;
  Operation *raw = op.getOperation();
  auto name =
      raw->getAttrOfType<StringAttr>(NNCDialect::getKernelChoiceAttrName());
  return whyChoiceDoesNotApply(raw, *choice,
                               name ? name.getValue() : StringRef());
}

/// `op` as one nnc.library_conv on `operands` (its converted operands, in
/// order: they are the library op's inputs in every direction), with
/// Winograd's algorithm for ConvChoice::LibraryWinograd.
Value lowerToLibrary(OpBuilder &b, Location loc, Operation *op,
                     ValueRange operands, RankedTensorType resultType,
                     ConvChoice choice) {
  std::string why;
  std::optional<LibraryConvolution> conv = getLibraryConvolution(op, why);
  assert(conv && "checked by whyChoiceDoesNotApply");
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultType.getElementType());
  return LibraryConvOp::create(b, loc, TypeRange{resultType},
                               b.getStringAttr(conv->direction), operands, init,
                               b.getDenseI64ArrayAttr(conv->strides),
                               b.getDenseI64ArrayAttr(conv->dilations),
                               b.getDenseI64ArrayAttr(conv->pads),
                               b.getI64IntegerAttr(conv->groups),
                               /*channels_last=*/UnitAttr(),
                               choice == ConvChoice::LibraryWinograd
                                   ? b.getUnitAttr()
                                   : UnitAttr())
      .getResult()[0];
}

/// A convolution pattern that may lower image by image.
template <typename OpTy>
struct PerImagePattern : public OpConversionPattern<OpTy> {
  PerImagePattern(MLIRContext *ctx, bool perImage, bool lowPrecision)
      : OpConversionPattern<OpTy>(ctx), perImage(perImage),
        lowPrecision(lowPrecision) {}
  bool perImage;
  /// f16/bf16 convolutions take the whole-batch GEMM too.
  bool lowPrecision;
};

struct ConvConversion : public PerImagePattern<ConvOp> {
  using PerImagePattern::PerImagePattern;
  LogicalResult
  matchAndRewrite(ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto inType = op.getInput().getType();
    auto wType = op.getWeight().getType();
    RankedTensorType resultType = op.getType();
    int64_t s = inType.getRank() - 2;
    if (std::optional<std::string> reason = whyCannotLowerConv(op))
      return rewriter.notifyMatchFailure(op, *reason);
    Window w = getWindow(op.getStrides(), op.getDilations(), op.getPads(), s);
    int64_t groups = op.getGroupsAttr().getInt();
    Type t = inType.getElementType();
    ConvChoice choice = *kernelChoice(op);
    if (choice == ConvChoice::Library ||
        choice == ConvChoice::LibraryWinograd) {
      rewriter.replaceOp(op, lowerToLibrary(b, loc, op, adaptor.getOperands(),
                                            resultType, choice));
      return success();
    }

    if ((choice == ConvChoice::Default && perImage &&
         perImageApplies(inType, wType, resultType, wType.getDimSize(0),
                         groups)) ||
        choice == ConvChoice::PerImage) {
      rewriter.replaceOp(
          op, lowerConvPerImage(b, loc, adaptor.getInput(),
                                paddedLayout(inType, w), adaptor.getWeight(),
                                adaptor.getBias(), resultType, w));
      return success();
    }
    Value padded = padSpatial(b, loc, adaptor.getInput(), w.padBegin, w.padEnd,
                              zeroOf(b, loc, t));
    if (choice == ConvChoice::Default || choice == ConvChoice::Gemm) {
      if (Value gemm = lowerConvAsGemm(b, loc, padded, adaptor.getWeight(),
                                       adaptor.getBias(), resultType, groups, w,
                                       choice == ConvChoice::Gemm,
                                       lowPrecision)) {
        rewriter.replaceOp(op, gemm);
        return success();
      }
    }
    rewriter.replaceOp(
        op, lowerGroupedConv(b, loc, padded, adaptor.getWeight(),
                             adaptor.getBias(), padded, resultType, groups,
                             /*channelsFirst=*/false,
                             [&](int64_t i, AffineExpr o, AffineExpr k) {
                               return o * w.strides[i] + k * w.dilations[i];
                             }));
    return success();
  }
};

struct ConvTransposeConversion : public PerImagePattern<ConvTransposeOp> {
  using PerImagePattern::PerImagePattern;
  LogicalResult
  matchAndRewrite(ConvTransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto inType = op.getInput().getType();
    auto wType = op.getWeight().getType();
    RankedTensorType resultType = op.getType();
    int64_t s = inType.getRank() - 2;
    if (std::optional<std::string> reason = whyCannotLowerConv(op))
      return rewriter.notifyMatchFailure(op, *reason);
    Window w = getWindow(op.getStrides(), op.getDilations(), op.getPads(), s);
    int64_t groups = op.getGroupsAttr().getInt();
    Type t = inType.getElementType();
    ConvChoice choice = *kernelChoice(op);
    if (choice == ConvChoice::Library ||
        choice == ConvChoice::LibraryWinograd) {
      rewriter.replaceOp(op, lowerToLibrary(b, loc, op, adaptor.getOperands(),
                                            resultType, choice));
      return success();
    }

    // The full (unpadded) result is y[o] = sum_{i, k: i*stride + k*dil = o}
    // x[i] * w[k]. Spread x into zeros at offset P = dil * (K - 1) with the
    // stride, so that y[o'] = sum_k xs[o' + pad_begin + P - k * dil] * w[k]
    // reads only inside xs (output_padding and the end pad size it).
    SmallVector<int64_t> offsets;
    SmallVector<int64_t> shape(inType.getShape());
    for (int64_t i = 0; i < s; ++i) {
      int64_t dim = inType.getDimSize(2 + i);
      int64_t k = wType.getDimSize(2 + i);
      int64_t p = w.dilations[i] * (k - 1);
      int64_t out = resultType.getDimSize(2 + i);
      int64_t needed = out + w.padBegin[i] + p;
      int64_t length = std::max(p + w.strides[i] * (dim - 1) + 1,
                                std::max<int64_t>(needed, 1));
      offsets.push_back(p);
      shape[2 + i] = length;
    }
    Value x = adaptor.getInput();

    // With k' = K-1-k the sum is y[m, o'] = sum_{c, k'} xs[c, o' + pad_begin
    // + k' * dil] * w[c, m, K-1-k']: a convolution with stride 1 of xs from
    // pad_begin on (cropped to the positions it reads), with the kernel
    // transposed and flipped. In 2-D without groups that is im2col + GEMM
    // (BLAS) rather than loops over xs: image by image, or the whole batch.
    bool gemmPath = choice != ConvChoice::Loops && s == 2 && groups == 1 &&
                    inType.hasStaticShape() && wType.hasStaticShape();
    SmallVector<int64_t> cropShape(shape);
    for (int64_t i = 0; i < s; ++i)
      cropShape[2 + i] = resultType.getDimSize(2 + i) + offsets[i];
    Window unitStride = w;
    unitStride.strides.assign(s, 1);
    RankedTensorType flippedType;
    auto flipKernel = [&]() -> Value {
      // W'[m, c, kh, kw] = w[c, m, KH-1-kh, KW-1-kw].
      int64_t kh = wType.getDimSize(2), kw = wType.getDimSize(3);
      MLIRContext *ctx = b.getContext();
      AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
                 d2 = getAffineDimExpr(2, ctx), d3 = getAffineDimExpr(3, ctx);
      SmallVector<AffineMap> maps = {
          AffineMap::get(4, 0, {d1, d0, (kh - 1) - d2, (kw - 1) - d3}, ctx),
          AffineMap::getMultiDimIdentityMap(4, ctx)};
      Value init = tensor::EmptyOp::create(b, loc, flippedType.getShape(), t);
      return linalg::GenericOp::create(
                 b, loc, TypeRange{flippedType},
                 ValueRange{adaptor.getWeight()}, ValueRange{init}, maps,
                 parallelIterators(4),
                 [](OpBuilder &nb, Location l, ValueRange a) {
                   linalg::YieldOp::create(nb, l, a[0]);
                 })
          .getResult(0);
    };
    if (gemmPath) {
      flippedType = flippedWeightType(wType);
      if ((choice == ConvChoice::Default && perImage &&
           perImageApplies(inType, flippedType, resultType,
                           flippedType.getDimSize(0), groups)) ||
          choice == ConvChoice::PerImage) {
        // Each image spread and cropped as the whole batch is below.
        ImageLayout layout;
        for (int64_t i = 0; i < s; ++i) {
          layout.size.push_back(shape[2 + i]);
          layout.at.push_back(offsets[i]);
          layout.spread.push_back(w.strides[i]);
          layout.cropAt.push_back(w.padBegin[i]);
          layout.cropSize.push_back(cropShape[2 + i]);
        }
        rewriter.replaceOp(
            op, lowerConvPerImage(b, loc, x, layout, flipKernel(),
                                  adaptor.getBias(), resultType, unitStride));
        return success();
      }
    }

    SmallVector<OpFoldResult> xDims = getDims(b, loc, x);
    SmallVector<OpFoldResult> zDims = xDims;
    for (int64_t i = 0; i < s; ++i)
      zDims[2 + i] = b.getIndexAttr(shape[2 + i]);
    Value zeros = createFilled(b, loc, RankedTensorType::get(shape, t), zDims,
                               zeroOf(b, loc, t));
    SmallVector<OpFoldResult> insOffsets(inType.getRank(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> insStrides(inType.getRank(), b.getIndexAttr(1));
    for (int64_t i = 0; i < s; ++i) {
      insOffsets[2 + i] = b.getIndexAttr(offsets[i]);
      insStrides[2 + i] = b.getIndexAttr(w.strides[i]);
    }
    Value spreadX = tensor::InsertSliceOp::create(b, loc, x, zeros, insOffsets,
                                                  xDims, insStrides);

    if (gemmPath) {
      SmallVector<OpFoldResult> cropOffsets(inType.getRank(),
                                            b.getIndexAttr(0));
      SmallVector<OpFoldResult> cropSizes = getDims(b, loc, spreadX);
      SmallVector<OpFoldResult> unit(inType.getRank(), b.getIndexAttr(1));
      for (int64_t i = 0; i < s; ++i) {
        cropOffsets[2 + i] = b.getIndexAttr(w.padBegin[i]);
        cropSizes[2 + i] = b.getIndexAttr(cropShape[2 + i]);
      }
      Value cropped = tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get(cropShape, t), spreadX, cropOffsets,
          cropSizes, unit);
      if (Value gemm = lowerConvAsGemm(
              b, loc, cropped, flipKernel(), adaptor.getBias(), resultType,
              /*groups=*/1, unitStride, choice == ConvChoice::Gemm,
              lowPrecision)) {
        rewriter.replaceOp(op, gemm);
        return success();
      }
    }

    rewriter.replaceOp(
        op, lowerGroupedConv(
                b, loc, spreadX, adaptor.getWeight(), adaptor.getBias(), x,
                resultType, groups, /*channelsFirst=*/true,
                [&](int64_t i, AffineExpr o, AffineExpr k) {
                  return o + (w.padBegin[i] + offsets[i]) - k * w.dilations[i];
                }));
    return success();
  }
};

/// dw[g*M/G + m, c, k] = sum_{n, o} grad[n, g*M/G + m, o] * x[n, g*C/G + c,
/// o*s + k*d - p]: image by image (one GEMM each) when that applies, else
/// one generic over the padded input split into groups (any rank), or, for
/// a 2-D GEMM without the per-image option, one GEMM over the columns of
/// the whole batch.
struct ConvWeightGradConversion : public PerImagePattern<ConvWeightGradOp> {
  using PerImagePattern::PerImagePattern;
  LogicalResult
  matchAndRewrite(ConvWeightGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto inType = op.getInput().getType();
    auto gType = op.getGrad().getType();
    RankedTensorType resultType = op.getType();
    int64_t s = inType.getRank() - 2;
    if (std::optional<std::string> reason = whyCannotLowerConv(op))
      return rewriter.notifyMatchFailure(op, *reason);
    Window w = getWindow(op.getStrides(), op.getDilations(), op.getPads(), s);
    int64_t groups = op.getGroups();
    Type t = inType.getElementType();
    Value x = adaptor.getInput(), g = adaptor.getGrad();
    int64_t m = resultType.getDimSize(0);
    ConvChoice choice = *kernelChoice(op);
    if (choice == ConvChoice::Library ||
        choice == ConvChoice::LibraryWinograd) {
      rewriter.replaceOp(op, lowerToLibrary(b, loc, op, adaptor.getOperands(),
                                            resultType, choice));
      return success();
    }
    if ((choice == ConvChoice::Default && perImage &&
         perImageApplies(inType, resultType, gType, m, groups)) ||
        choice == ConvChoice::PerImage) {
      rewriter.replaceOp(op, lowerWeightGradPerImage(b, loc, x,
                                                     paddedLayout(inType, w), g,
                                                     resultType, w));
      return success();
    }
    MLIRContext *ctx = b.getContext();
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    Value padded =
        padSpatial(b, loc, x, w.padBegin, w.padEnd, zeroOf(b, loc, t));
    if ((choice == ConvChoice::Default &&
         perImageApplies(inType, resultType, gType, m, groups,
                         /*forced=*/false, lowPrecision)) ||
        choice == ConvChoice::Gemm) {
      // cols[(c, kh, kw), (n, oh, ow)] and g as [M, N, OH, OW]; dw = g *
      // cols^T.
      int64_t n = gType.getDimSize(0), c = inType.getDimSize(1);
      int64_t oh = gType.getDimSize(2), ow = gType.getDimSize(3);
      int64_t kh = resultType.getDimSize(2), kw = resultType.getDimSize(3);
      int64_t k = c * kh * kw, p = n * oh * ow;
      AffineMap inMap = AffineMap::get(
          6, 0,
          {d(3), d(0), d(4) * w.strides[0] + d(1) * w.dilations[0],
           d(5) * w.strides[1] + d(2) * w.dilations[1]},
          ctx);
      Value cols = buildParallelGeneric(
          b, loc,
          tensor::EmptyOp::create(b, loc,
                                  ArrayRef<int64_t>{c, kh, kw, n, oh, ow}, t),
          {padded}, {inMap},
          [](OpBuilder &, Location, ValueRange a) { return a[0]; });
      Value gt = buildParallelGeneric(
          b, loc,
          tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{m, n, oh, ow}, t),
          {g}, {AffineMap::get(4, 0, {d(1), d(0), d(2), d(3)}, ctx)},
          [](OpBuilder &, Location, ValueRange a) { return a[0]; });
      // f16/bf16 products summed in f32, rounded once.
      Type ct = computeType(t);
      Value zero = createFilled(b, loc, RankedTensorType::get({m, k}, ct), {},
                                zeroOf(b, loc, ct));
      Attribute maps =
          b.getAffineMapArrayAttr({AffineMap::get(3, 0, {d(0), d(2)}, ctx),
                                   AffineMap::get(3, 0, {d(1), d(2)}, ctx),
                                   AffineMap::get(3, 0, {d(0), d(1)}, ctx)});
      Value dw =
          linalg::MatmulOp::create(
              b, loc, TypeRange{zero.getType()},
              ValueRange{reshapeOpaque(b, loc, gt, {m, p}),
                         reshapeOpaque(b, loc, cols, {k, p})},
              ValueRange{zero},
              ArrayRef<NamedAttribute>{b.getNamedAttr("indexing_maps", maps)})
              .getResult(0);
      rewriter.replaceOp(
          op, convertTensor(b, loc,
                            reshapeOpaque(b, loc, dw, resultType.getShape()),
                            t));
      return success();
    }
    // Loops (g, m, c, k..., n, o...): grad [N, G, M/G, O...] and the padded
    // input [N, G, C/G, D...] split into groups, dw [G, M/G, C/G, K...].
    Type ct = computeType(t);
    Value gSplit = splitDim(b, loc, g, 1, groups);
    Value xSplit = splitDim(b, loc, padded, 1, groups);
    int64_t loops = 4 + 2 * s;
    AffineExpr gg = d(0), mm = d(1), cc = d(2), nn = d(3 + s);
    SmallVector<AffineExpr> gExprs = {nn, gg, mm}, xExprs = {nn, gg, cc},
                            outExprs = {gg, mm, cc};
    for (int64_t i = 0; i < s; ++i) {
      AffineExpr k = d(3 + i), o = d(4 + s + i);
      gExprs.push_back(o);
      xExprs.push_back(o * w.strides[i] + k * w.dilations[i]);
      outExprs.push_back(k);
    }
    SmallVector<int64_t> outShape = {groups, m / groups,
                                     resultType.getDimSize(1)};
    llvm::append_range(outShape, resultType.getShape().drop_front(2));
    Value init = createFilled(b, loc, RankedTensorType::get(outShape, ct), {},
                              zeroOf(b, loc, ct));
    SmallVector<utils::IteratorType> iterators = parallelIterators(loops);
    for (int64_t i = 3 + s; i < loops; ++i)
      iterators[i] = utils::IteratorType::reduction;
    Value dw =
        linalg::GenericOp::create(
            b, loc, TypeRange{init.getType()}, ValueRange{gSplit, xSplit},
            ValueRange{init},
            SmallVector<AffineMap>{AffineMap::get(loops, 0, gExprs, ctx),
                                   AffineMap::get(loops, 0, xExprs, ctx),
                                   AffineMap::get(loops, 0, outExprs, ctx)},
            iterators,
            [&](OpBuilder &nb, Location l, ValueRange a) {
              Value p =
                  arith::MulFOp::create(nb, l, convertFloat(nb, l, a[0], ct),
                                        convertFloat(nb, l, a[1], ct));
              linalg::YieldOp::create(
                  nb, l, ValueRange{arith::AddFOp::create(nb, l, p, a[2])});
            })
            .getResult(0);
    dw = convertTensor(b, loc, dw, t);
    rewriter.replaceOp(op, mergeDims(b, loc, dw, 0));
    return success();
  }
};

} // namespace

std::optional<std::string> nnc::whyKernelChoiceDoesNotApply(Operation *op,
                                                            StringRef choice) {
  if (isa<MatMulOp, GemmOp>(op))
    return detail::whyMatrixProductChoiceDoesNotApply(op, choice);
  if (takesLoopSchedule(op)) {
    if (!loopScheduleNamed(choice))
      return "\"" + choice.str() + "\" is not one of " + loopScheduleNames();
    return std::nullopt;
  }
  if (!isa<ConvOp, ConvTransposeOp, ConvWeightGradOp>(op))
    return "it has no kernel choices";
  std::optional<ConvChoice> kind = convChoiceNamed(choice);
  if (!kind)
    return "\"" + choice.str() + "\" is not one of " + kConvChoiceNames;
  std::optional<std::string> reason =
      llvm::TypeSwitch<Operation *, std::optional<std::string>>(op)
          .Case([](ConvOp c) { return whyCannotLower(c); })
          .Case([](ConvTransposeOp c) { return whyCannotLower(c); })
          .Case([](ConvWeightGradOp c) { return whyCannotLower(c); });
  if (reason)
    return reason;
  return whyChoiceDoesNotApply(op, *kind, choice);
}

std::optional<std::string>
nnc::detail::whyCannotLowerConvolution(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<std::string>>(op)
      .Case<ConvOp, ConvTransposeOp, ConvWeightGradOp>(
          [](auto conv) { return whyCannotLowerConv(conv); })
      .Default([](Operation *) { return std::nullopt; });
}

void nnc::detail::populateConvolutionPatterns(RewritePatternSet &patterns,
                                              bool perImageConvolutions,
                                              bool lowPrecisionConvGemms) {
  patterns
      .add<ConvConversion, ConvTransposeConversion, ConvWeightGradConversion>(
          patterns.getContext(), perImageConvolutions, lowPrecisionConvGemms);
}
