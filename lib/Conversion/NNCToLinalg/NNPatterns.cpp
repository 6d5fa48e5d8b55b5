//===- NNPatterns.cpp - nnc neural-network ops to linalg ------------------===//
//
// Lowers the neural-network ops of nnc to linalg on tensors: convolution and
// transposed convolution, pooling, normalization, dropout and the
// class-index losses (NLL, softmax cross-entropy). Windowed ops become one
// linalg.generic over explicit index maps on a padded input; f16/bf16 are
// computed in f32 and truncated at the end. Large static 2-D f32/f64
// convolutions become im2col + linalg.matmul instead, for the BLAS path.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "nnc/NNCOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace nnc;
using namespace nnc::detail;

namespace {

//===----------------------------------------------------------------------===//
// Scalar and tensor helpers
//===----------------------------------------------------------------------===//

SmallVector<utils::IteratorType> parallelIterators(int64_t n) {
  return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
}

/// Splits the static dimension `dim` of `v` into [outer, size / outer].
Value splitDim(OpBuilder &b, Location loc, Value v, int64_t dim,
               int64_t outer) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> dims = getDims(b, loc, v);
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> outShape;
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    int64_t next = static_cast<int64_t>(shape.size());
    if (i == dim) {
      int64_t size = type.getDimSize(i);
      shape.append({outer, size / outer});
      outShape.append({b.getIndexAttr(outer), b.getIndexAttr(size / outer)});
      groups.push_back({next, next + 1});
      continue;
    }
    shape.push_back(type.getDimSize(i));
    outShape.push_back(dims[i]);
    groups.push_back({next});
  }
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  return tensor::ExpandShapeOp::create(b, loc, resultType, v, groups, outShape);
}

/// Merges dimensions `dim` and `dim + 1` of `v`.
Value mergeDims(OpBuilder &b, Location loc, Value v, int64_t dim) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (i == dim + 1)
      continue;
    if (i == dim)
      groups.push_back({i, i + 1});
    else
      groups.push_back({i});
  }
  return tensor::CollapseShapeOp::create(b, loc, v, groups);
}

/// Pads the trailing spatial dimensions (from 2 on) of `v` with `value`.
Value padSpatial(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> low,
                 ArrayRef<int64_t> high, Value value) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  int64_t first = rank - static_cast<int64_t>(low.size());
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return v;
  SmallVector<OpFoldResult> lo(rank, b.getIndexAttr(0)),
      hi(rank, b.getIndexAttr(0));
  SmallVector<int64_t> shape(type.getShape());
  for (size_t i = 0; i < low.size(); ++i) {
    lo[first + i] = b.getIndexAttr(low[i]);
    hi[first + i] = b.getIndexAttr(high[i]);
    shape[first + i] += low[i] + high[i];
  }
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  return tensor::PadOp::create(b, loc, resultType, v, lo, hi, value);
}

/// True when every dimension of `t` from `from` on is static.
bool staticFrom(RankedTensorType t, int64_t from) {
  return llvm::all_of(t.getShape().drop_front(from),
                      [](int64_t d) { return !ShapedType::isDynamic(d); });
}

/// Window attributes with their defaults filled in.
struct Window {
  SmallVector<int64_t> strides, dilations, padBegin, padEnd;
};

Window getWindow(std::optional<ArrayRef<int64_t>> strides,
                 std::optional<ArrayRef<int64_t>> dilations,
                 std::optional<ArrayRef<int64_t>> pads, int64_t n) {
  Window w;
  w.strides =
      strides ? SmallVector<int64_t>(*strides) : SmallVector<int64_t>(n, 1);
  w.dilations =
      dilations ? SmallVector<int64_t>(*dilations) : SmallVector<int64_t>(n, 1);
  if (pads) {
    w.padBegin.assign(pads->begin(), pads->begin() + n);
    w.padEnd.assign(pads->begin() + n, pads->end());
  } else {
    w.padBegin.assign(n, 0);
    w.padEnd.assign(n, 0);
  }
  return w;
}

//===----------------------------------------------------------------------===//
// Convolution
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
Value lowerConvAsGemm(OpBuilder &b, Location loc, Value padded, Value weight,
                      Value bias, RankedTensorType resultType, int64_t groups,
                      const Window &w) {
  auto inType = cast<RankedTensorType>(padded.getType());
  auto wType = cast<RankedTensorType>(weight.getType());
  Type t = inType.getElementType();
  if (inType.getRank() != 4 || !inType.hasStaticShape() ||
      !wType.hasStaticShape() || !resultType.hasStaticShape() ||
      !(t.isF32() || t.isF64()) || wType.getElementType() != t ||
      resultType.getElementType() != t ||
      (bias && cast<RankedTensorType>(bias.getType()).getElementType() != t))
    return {};
  int64_t n = inType.getDimSize(0), c = inType.getDimSize(1);
  int64_t m = wType.getDimSize(0), kh = wType.getDimSize(2),
          kw = wType.getDimSize(3);
  int64_t oh = resultType.getDimSize(2), ow = resultType.getDimSize(3);
  int64_t cg = c / groups, mg = m / groups;
  int64_t k = cg * kh * kw, p = n * oh * ow;
  if (mg < kConvGemmMinRows ||
      static_cast<double>(mg) * k * p < static_cast<double>(kConvGemmMinMacs))
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
  auto accType = RankedTensorType::get(accShape, t);
  Value acc;
  if (bias && n == 1) {
    int64_t rank = accType.getRank();
    Value bv = grouped ? splitDim(b, loc, bias, 0, groups) : bias;
    AffineMap map =
        AffineMap::getMultiDimIdentityMap(rank, ctx).getMajorSubMap(rank - 1);
    acc = buildParallelGeneric(
        b, loc, tensor::EmptyOp::create(b, loc, accShape, t), {bv}, {map},
        [](OpBuilder &, Location, ValueRange a) { return a[0]; });
  } else {
    acc = createFilled(b, loc, accType, {}, zeroOf(b, loc, t));
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
    return reshapeOpaque(b, loc, out, resultType.getShape());

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
        return bias ? arith::AddFOp::create(nb, l, a[0], a[1]).getResult()
                    : a[0];
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
                     int64_t groups) {
  Type t = input.getElementType();
  if (groups != 1 || input.getRank() != 4 || !input.hasStaticShape() ||
      input.getDimSize(0) == 1 || !weight.hasStaticShape() ||
      !result.hasStaticShape() || !(t.isF32() || t.isF64()) ||
      weight.getElementType() != t || result.getElementType() != t)
    return false;
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

/// Checks that a windowed op (conv, conv_transpose, pooling) has static
/// shapes but for the batch, and reads its window attributes for
/// `numSpatial` spatial dimensions.
template <typename OpTy>
FailureOr<Window> getStaticWindow(OpTy op, int64_t numSpatial,
                                  RankedTensorType weight = {}) {
  if (!staticFrom(op.getInput().getType(), 1) || !staticFrom(op.getType(), 1) ||
      (weight && !weight.hasStaticShape())) {
    op.emitOpError("cannot be lowered to linalg: channel, spatial and kernel "
                   "dimensions must be static (only the batch dimension may "
                   "be dynamic)");
    return failure();
  }
  return getWindow(op.getStrides(), op.getDilations(), op.getPads(),
                   numSpatial);
}

/// A convolution pattern that may lower image by image.
template <typename OpTy>
struct PerImagePattern : public OpConversionPattern<OpTy> {
  PerImagePattern(MLIRContext *ctx, bool perImage)
      : OpConversionPattern<OpTy>(ctx), perImage(perImage) {}
  bool perImage;
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
    FailureOr<Window> window = getStaticWindow(op, s, wType);
    if (failed(window))
      return failure();
    const Window &w = *window;
    int64_t groups = op.getGroupsAttr().getInt();
    Type t = inType.getElementType();

    if (perImage && perImageApplies(inType, wType, resultType,
                                    wType.getDimSize(0), groups)) {
      rewriter.replaceOp(
          op, lowerConvPerImage(b, loc, adaptor.getInput(),
                                paddedLayout(inType, w), adaptor.getWeight(),
                                adaptor.getBias(), resultType, w));
      return success();
    }
    Value padded = padSpatial(b, loc, adaptor.getInput(), w.padBegin, w.padEnd,
                              zeroOf(b, loc, t));
    if (Value gemm =
            lowerConvAsGemm(b, loc, padded, adaptor.getWeight(),
                            adaptor.getBias(), resultType, groups, w)) {
      rewriter.replaceOp(op, gemm);
      return success();
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
    FailureOr<Window> window = getStaticWindow(op, s, wType);
    if (failed(window))
      return failure();
    const Window &w = *window;
    int64_t groups = op.getGroupsAttr().getInt();
    Type t = inType.getElementType();

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
    bool gemmPath = s == 2 && groups == 1 && inType.hasStaticShape() &&
                    wType.hasStaticShape();
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
      flippedType =
          RankedTensorType::get({wType.getDimSize(1), wType.getDimSize(0),
                                 wType.getDimSize(2), wType.getDimSize(3)},
                                t);
      if (perImage && perImageApplies(inType, flippedType, resultType,
                                      flippedType.getDimSize(0), groups)) {
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
      if (Value gemm = lowerConvAsGemm(b, loc, cropped, flipKernel(),
                                       adaptor.getBias(), resultType,
                                       /*groups=*/1, unitStride)) {
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
    if (!staticFrom(inType, 1) || !staticFrom(gType, 1) ||
        !resultType.hasStaticShape())
      return op.emitOpError("cannot be lowered to linalg: channel, spatial "
                            "and kernel dimensions must be static (only the "
                            "batch dimension may be dynamic)");
    Window w = getWindow(op.getStrides(), op.getDilations(), op.getPads(), s);
    int64_t groups = op.getGroups();
    Type t = inType.getElementType();
    Value x = adaptor.getInput(), g = adaptor.getGrad();
    int64_t m = resultType.getDimSize(0);
    if (perImage && perImageApplies(inType, resultType, gType, m, groups)) {
      rewriter.replaceOp(op, lowerWeightGradPerImage(b, loc, x,
                                                     paddedLayout(inType, w), g,
                                                     resultType, w));
      return success();
    }
    MLIRContext *ctx = b.getContext();
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    Value padded =
        padSpatial(b, loc, x, w.padBegin, w.padEnd, zeroOf(b, loc, t));
    if (perImageApplies(inType, resultType, gType, m, groups)) {
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
      Value zero = createFilled(b, loc, RankedTensorType::get({m, k}, t), {},
                                zeroOf(b, loc, t));
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
      rewriter.replaceOp(op, reshapeOpaque(b, loc, dw, resultType.getShape()));
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

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

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
    FailureOr<Window> window = getStaticWindow(op, s);
    if (failed(window))
      return failure();
    const Window &w = *window;
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
    FailureOr<Window> window = getStaticWindow(op, s);
    if (failed(window))
      return failure();
    const Window &w = *window;
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

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

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

/// Map reading a `[C]` parameter at loop dimension `dim` of `rank` loops.
AffineMap dimMap(MLIRContext *ctx, int64_t rank, ArrayRef<int64_t> dims) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d : dims)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
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

struct GroupNormConversion : public OpConversionPattern<GroupNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GroupNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value x = adaptor.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    if (ShapedType::isDynamic(type.getDimSize(1)))
      return op.emitOpError("cannot be lowered to linalg: the channel "
                            "dimension must be static");
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

struct DropoutConversion : public OpConversionPattern<DropoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DropoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.isRandom())
      return op.emitOpError("cannot be lowered to linalg: training dropout "
                            "with ratio ")
             << op.getRatio().convertToDouble()
             << " needs random numbers, which the linalg lowering does not "
                "generate";
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    Value mask = createFilled(rewriter, loc, op.getMask().getType(),
                              getDims(rewriter, loc, x),
                              intConst(rewriter, loc, rewriter.getI1Type(), 1));
    rewriter.replaceOp(op, {x, mask});
    return success();
  }
};

/// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
/// 3", 2011) on i32 values: returns the first output word for `counter` and
/// `key`. Each round multiplies two counter words by the round constants,
/// mixes the high halves with the other words and the key, and bumps the
/// key by the Weyl constants.
Value philoxFirstWord(OpBuilder &b, Location loc, std::array<Value, 4> c,
                      std::array<Value, 2> k) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto constant32 = [&](uint32_t v) {
    return arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(i32, static_cast<int32_t>(v)));
  };
  Value shift = arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, 32));
  // The 64-bit product of two unsigned 32-bit words, split.
  auto mulhilo = [&](uint32_t m, Value x, Value &hi, Value &lo) {
    Value wide = arith::MulIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, i64, x),
        arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, m)));
    lo = arith::TruncIOp::create(b, loc, i32, wide);
    hi = arith::TruncIOp::create(b, loc, i32,
                                 arith::ShRUIOp::create(b, loc, wide, shift));
  };
  Value w0 = constant32(0x9E3779B9u), w1 = constant32(0xBB67AE85u);
  for (int round = 0; round < 10; ++round) {
    Value hi0, lo0, hi1, lo1;
    mulhilo(0xD2511F53u, c[0], hi0, lo0);
    mulhilo(0xCD9E8D57u, c[2], hi1, lo1);
    Value n0 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, hi1, c[1]), k[0]);
    Value n2 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, hi0, c[3]), k[1]);
    c = {n0, lo1, n2, lo0};
    if (round != 9) {
      k[0] = arith::AddIOp::create(b, loc, k[0], w0);
      k[1] = arith::AddIOp::create(b, loc, k[1], w1);
    }
  }
  return c[0];
}

struct RandomUniformConversion : public OpConversionPattern<RandomUniformOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RandomUniformOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type element = type.getElementType();
    int64_t rank = type.getRank();
    Value like = adaptor.getLike();
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, like);
    Value init = createEmpty(rewriter, loc, type, dims);
    Value seed = tensor::ExtractOp::create(rewriter, loc, adaptor.getSeed(),
                                           ValueRange{});
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    int64_t stream = op.getStream();
    SmallVector<Value> sizes;
    for (OpFoldResult d : dims)
      sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, d));
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(rank)},
        parallelIterators(rank), [&](OpBuilder &b, Location l, ValueRange) {
          // The row-major position of the element.
          Value linear = arith::ConstantIndexOp::create(b, l, 0);
          for (int64_t d = 0; d < rank; ++d) {
            linear = arith::MulIOp::create(b, l, linear, sizes[d]);
            linear = arith::AddIOp::create(b, l, linear,
                                           linalg::IndexOp::create(b, l, d));
          }
          Value index = arith::IndexCastUIOp::create(b, l, i64, linear);
          Value c32 =
              arith::ConstantOp::create(b, l, b.getIntegerAttr(i64, 32));
          auto low = [&](Value v) {
            return arith::TruncIOp::create(b, l, i32, v).getResult();
          };
          auto high = [&](Value v) {
            return arith::TruncIOp::create(b, l, i32,
                                           arith::ShRUIOp::create(b, l, v, c32))
                .getResult();
          };
          Value streamWord = arith::ConstantOp::create(
              b, l, b.getIntegerAttr(i32, static_cast<int32_t>(stream)));
          Value zero =
              arith::ConstantOp::create(b, l, b.getIntegerAttr(i32, 0));
          Value word =
              philoxFirstWord(b, l, {low(index), high(index), streamWord, zero},
                              {low(seed), high(seed)});
          // The top 24 bits, exactly representable in f32: [0, 1).
          Value top = arith::ShRUIOp::create(
              b, l, word,
              arith::ConstantOp::create(b, l, b.getIntegerAttr(i32, 8)));
          Value asFloat = arith::UIToFPOp::create(b, l, b.getF32Type(), top);
          Value unit = arith::MulFOp::create(
              b, l, asFloat,
              arith::ConstantOp::create(b, l, b.getF32FloatAttr(0x1p-24f)));
          Value result =
              element.isF32() ? unit : convertFloat(b, l, unit, element);
          linalg::YieldOp::create(b, l, result);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

/// The class-index loss shared by nll_loss and cross_entropy. `logp` is
/// [N, C, d...] in the compute type; per element with label t (not
/// ignored): loss = -(1 - s) * w[t] * logp[t] + s / C * smooth, where
/// `smooth` ([N, d...], only with s != 0) is sum_c -w[c] * logp[c]. The
/// weighted mean divides by the sum of w[t] over the elements not ignored.
Value classLoss(OpBuilder &b, Location loc, Value logp, Value labels,
                Value weight, std::optional<int64_t> ignoreIndex,
                double smoothing, LossReduction reduction,
                RankedTensorType resultType) {
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

LogicalResult checkStaticClasses(Operation *op, RankedTensorType t) {
  if (!ShapedType::isDynamic(t.getDimSize(1)))
    return success();
  return op->emitOpError("cannot be lowered to linalg: the class dimension "
                         "must be static");
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
    if (failed(checkStaticClasses(op, inType)))
      return failure();
    Location loc = op.getLoc();
    Value logp = convertTensor(rewriter, loc, adaptor.getInput(),
                               computeType(inType.getElementType()));
    rewriter.replaceOp(op, classLoss(rewriter, loc, logp, adaptor.getLabels(),
                                     adaptor.getWeight(),
                                     signedOptional(op.getIgnoreIndexAttr()),
                                     0.0, op.getReduction(), op.getType()));
    return success();
  }
};

struct CrossEntropyConversion : public OpConversionPattern<CrossEntropyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CrossEntropyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inType = op.getLogits().getType();
    if (failed(checkStaticClasses(op, inType)))
      return failure();
    Location loc = op.getLoc();
    Value logits = convertTensor(rewriter, loc, adaptor.getLogits(),
                                 computeType(inType.getElementType()));
    Value logp = logSoftmax(rewriter, loc, logits, /*axis=*/1);
    rewriter.replaceOp(op, classLoss(rewriter, loc, logp, adaptor.getLabels(),
                                     adaptor.getWeight(),
                                     signedOptional(op.getIgnoreIndexAttr()),
                                     op.getLabelSmoothing().convertToDouble(),
                                     op.getReduction(), op.getType()));
    return success();
  }
};

} // namespace

void nnc::detail::populateNNPatterns(RewritePatternSet &patterns,
                                     bool perImageConvolutions) {
  patterns
      .add<ConvConversion, ConvTransposeConversion, ConvWeightGradConversion>(
          patterns.getContext(), perImageConvolutions);
  patterns
      .add<AvgPoolConversion, BatchNormConversion, BatchNormTrainConversion,
           CrossEntropyConversion, DropoutConversion, RandomUniformConversion,
           GlobalPoolConversion<GlobalAvgPoolOp, false>,
           GlobalPoolConversion<GlobalMaxPoolOp, true>, GroupNormConversion,
           InstanceNormConversion, LayerNormConversion, MaxPoolConversion,
           NllLossConversion>(patterns.getContext());
}
