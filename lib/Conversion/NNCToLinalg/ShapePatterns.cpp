//===- ShapePatterns.cpp - nnc shape and indexing ops to linalg ----------===//
//
// Lowers the nnc ops that move, select or replicate elements without
// computing on them (squeeze/unsqueeze/flatten, split, tile, trilu, the
// depth/space rearrangements, gathers, one_hot) to tensor reshapes, slices
// and linalg.generic ops that read through tensor.extract. The sequential
// ones (scatters, cumsum) become scf.for nests over tensors.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Utils.h"

#include "nnc/NNCOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace nnc;
using namespace nnc::detail;

namespace {

/// `v` as `type`, through a tensor.cast when they differ only in what is
/// known statically.
Value castTo(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return tensor::CastOp::create(b, loc, type, v);
}

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value dimValue(OpBuilder &b, Location loc, Value v, int64_t i) {
  return getValueOrCreateConstantIndexOp(b, loc,
                                         tensor::getMixedSize(b, loc, v, i));
}

OpFoldResult divIndex(OpBuilder &b, Location loc, OpFoldResult x, int64_t y) {
  if (std::optional<int64_t> cx = getConstantIntValue(x))
    return b.getIndexAttr(*cx / y);
  return arith::DivUIOp::create(b, loc,
                                getValueOrCreateConstantIndexOp(b, loc, x),
                                indexConst(b, loc, y))
      .getResult();
}

SmallVector<int64_t> staticSizes(ArrayRef<OpFoldResult> dims) {
  SmallVector<int64_t> shape;
  for (OpFoldResult d : dims)
    shape.push_back(getConstantIntValue(d).value_or(ShapedType::kDynamic));
  return shape;
}

/// The description of the run-time check of `op`'s indices into `axis` of
/// `data`, e.g. "gather '/embed/Gather' index into axis 0 of f32[100x16]".
std::string indexCheckName(Operation *op, Value data, int64_t axis) {
  return describeForCheck(op) + " index into axis " + std::to_string(axis) +
         " of " + describeTensorType(data.getType());
}

/// Combines an existing element with a scattered update. Booleans combine
/// as numpy does (add is or, mul is and, max is or, min is and).
Value combineScatter(OpBuilder &b, Location loc, ScatterReduction kind,
                     Value old, Value update) {
  Type t = old.getType();
  bool fl = isFloat(t);
  bool boolean = t.isInteger(1);
  switch (kind) {
  case ScatterReduction::none:
    return update;
  case ScatterReduction::add:
    if (fl)
      return arith::AddFOp::create(b, loc, old, update);
    if (boolean)
      return arith::OrIOp::create(b, loc, old, update);
    return arith::AddIOp::create(b, loc, old, update);
  case ScatterReduction::mul:
    if (fl)
      return arith::MulFOp::create(b, loc, old, update);
    if (boolean)
      return arith::AndIOp::create(b, loc, old, update);
    return arith::MulIOp::create(b, loc, old, update);
  case ScatterReduction::max:
    if (fl)
      return arith::MaximumFOp::create(b, loc, old, update);
    if (boolean)
      return arith::OrIOp::create(b, loc, old, update);
    return arith::MaxSIOp::create(b, loc, old, update);
  case ScatterReduction::min:
    if (fl)
      return arith::MinimumFOp::create(b, loc, old, update);
    if (boolean)
      return arith::AndIOp::create(b, loc, old, update);
    return arith::MinSIOp::create(b, loc, old, update);
  }
  llvm_unreachable("unknown scatter reduction");
}

/// A fresh copy of `v` for a scatter to write into: updating `v` itself
/// would, after bufferization, write into the caller's buffer when `v` is a
/// function argument.
Value copyOf(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  Value init = createEmpty(b, loc, type, getDims(b, loc, v));
  return linalg::CopyOp::create(b, loc, ValueRange{v}, ValueRange{init})
      .getResult(0);
}

/// Where a scatter writes: the coordinates, and whether its indices were
/// in range (an i1, null when there are none; out of range, the element
/// keeps its value).
struct ScatterTarget {
  SmallVector<Value> coords;
  Value inRange;
};

/// Scatters `updates` into a copy of `data` with a loop nest over every
/// dimension of `loopOver`, in row-major order: the update at the loop
/// indices goes to (or is combined with) the element at `targetOf(ivs)`.
Value buildScatter(
    OpBuilder &b, Location loc, Value data, Value updates, Value loopOver,
    ScatterReduction kind,
    function_ref<ScatterTarget(OpBuilder &, Location, ValueRange)> targetOf) {
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t i = 0; i < cast<RankedTensorType>(loopOver.getType()).getRank();
       ++i) {
    lbs.push_back(indexConst(b, loc, 0));
    ubs.push_back(dimValue(b, loc, loopOver, i));
    steps.push_back(indexConst(b, loc, 1));
  }
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, ValueRange{copyOf(b, loc, data)},
      [&](OpBuilder &nb, Location l, ValueRange ivs,
          ValueRange iter) -> scf::ValueVector {
        ScatterTarget target = targetOf(nb, l, ivs);
        SmallVector<Value> &coords = target.coords;
        Value update = tensor::ExtractOp::create(nb, l, updates, ivs);
        if (kind != ScatterReduction::none || target.inRange) {
          Value old = tensor::ExtractOp::create(nb, l, iter[0], coords);
          if (kind != ScatterReduction::none)
            update = combineScatter(nb, l, kind, old, update);
          if (target.inRange)
            update =
                arith::SelectOp::create(nb, l, target.inRange, update, old);
        }
        return {tensor::InsertOp::create(nb, l, update, iter[0], coords)};
      });
  return nest.results[0];
}

//===----------------------------------------------------------------------===//
// Reshapes
//===----------------------------------------------------------------------===//

struct UnsqueezeConversion : public OpConversionPattern<UnsqueezeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(UnsqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    SmallVector<int64_t> axes;
    for (int64_t a : op.getAxes())
      axes.push_back(wrapAxis(a, rank));
    if (axes.empty()) {
      rewriter.replaceOp(op, castTo(rewriter, loc, input, type));
      return success();
    }
    SmallVector<OpFoldResult> inDims = getDims(rewriter, loc, input);
    SmallVector<OpFoldResult> outDims;
    unsigned next = 0;
    for (int64_t i = 0; i < rank; ++i)
      outDims.push_back(llvm::is_contained(axes, i) ? rewriter.getIndexAttr(1)
                                                    : inDims[next++]);
    auto expandedType = type.clone(staticSizes(outDims));
    Value result = tensor::ExpandShapeOp::create(
        rewriter, loc, expandedType, input, getUnitDimReassociation(rank, axes),
        outDims);
    rewriter.replaceOp(op, castTo(rewriter, loc, result, type));
    return success();
  }
};

struct SqueezeConversion : public OpConversionPattern<SqueezeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = inType.getRank();
    SmallVector<int64_t> axes;
    if (std::optional<ArrayRef<int64_t>> a = op.getAxes()) {
      for (int64_t x : *a)
        axes.push_back(wrapAxis(x, rank));
    } else {
      for (int64_t i = 0; i < rank; ++i)
        if (inType.getDimSize(i) == 1)
          axes.push_back(i);
    }
    if (axes.empty()) {
      rewriter.replaceOp(op, castTo(rewriter, loc, input, op.getType()));
      return success();
    }
    // A squeezed `?` dimension is 1 at run time; collapse_shape needs to
    // know it statically.
    SmallVector<int64_t> shape(inType.getShape());
    for (int64_t a : axes)
      shape[a] = 1;
    input = castTo(rewriter, loc, input, inType.clone(shape));
    Value result = tensor::CollapseShapeOp::create(
        rewriter, loc, input, getUnitDimReassociation(rank, axes));
    rewriter.replaceOp(op, castTo(rewriter, loc, result, op.getType()));
    return success();
  }
};

struct FlattenConversion : public OpConversionPattern<FlattenOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FlattenOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    int64_t axis = wrapAxis(static_cast<int64_t>(op.getAxis()), rank);
    // Collapse [0, axis) and [axis, rank); an empty side becomes a unit
    // dimension added back by an expand_shape.
    SmallVector<ReassociationIndices> groups;
    if (axis > 0)
      groups.push_back(llvm::to_vector(llvm::seq<int64_t>(0, axis)));
    if (axis < rank)
      groups.push_back(llvm::to_vector(llvm::seq<int64_t>(axis, rank)));
    Value result = input;
    if (static_cast<int64_t>(groups.size()) != rank)
      result = tensor::CollapseShapeOp::create(rewriter, loc, input, groups);
    if (groups.size() < 2) {
      auto collapsed = cast<RankedTensorType>(result.getType());
      SmallVector<int64_t> shape = {1, 1};
      if (!groups.empty())
        shape[axis == 0 ? 1 : 0] = collapsed.getDimSize(0);
      SmallVector<ReassociationIndices> expand;
      if (!groups.empty())
        expand.push_back({0, 1});
      result = tensor::ExpandShapeOp::create(
          rewriter, loc, collapsed.clone(shape), result, expand);
    }
    rewriter.replaceOp(op, castTo(rewriter, loc, result, op.getType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Split, tile, trilu
//===----------------------------------------------------------------------===//

struct SplitConversion : public OpConversionPattern<SplitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SplitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    int64_t axis = wrapAxis(static_cast<int64_t>(op.getAxis()), rank);
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, input);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    SmallVector<Value> results;
    int64_t offset = 0;
    for (auto [size, result] : llvm::zip(op.getSizes(), op.getResults())) {
      auto type = cast<RankedTensorType>(result.getType());
      SmallVector<OpFoldResult> sizes(dims);
      sizes[axis] = rewriter.getIndexAttr(size);
      // An empty piece may start at the end of the axis, where
      // extract_slice would reject its offset.
      if (size == 0) {
        results.push_back(createEmpty(rewriter, loc, type, sizes));
        continue;
      }
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[axis] = rewriter.getIndexAttr(offset);
      Value piece = tensor::ExtractSliceOp::create(rewriter, loc, input,
                                                   offsets, sizes, strides);
      results.push_back(castTo(rewriter, loc, piece, type));
      offset += size;
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// tile: broadcast [d0, d1, ...] to [r0, d0, r1, d1, ...] and collapse the
/// pairs, which repeats the whole input along each dimension.
struct TileConversion : public OpConversionPattern<TileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = inType.getRank();
    if (rank == 0) {
      rewriter.replaceOp(op, input);
      return success();
    }
    SmallVector<OpFoldResult> inDims = getDims(rewriter, loc, input);
    SmallVector<OpFoldResult> dims;
    SmallVector<AffineExpr> exprs;
    SmallVector<ReassociationIndices> groups;
    for (auto [i, repeat] : llvm::enumerate(op.getRepeats())) {
      int64_t j = 2 * static_cast<int64_t>(i);
      dims.push_back(rewriter.getIndexAttr(repeat));
      dims.push_back(inDims[i]);
      exprs.push_back(rewriter.getAffineDimExpr(j + 1));
      groups.push_back({j, j + 1});
    }
    auto wideType = inType.clone(staticSizes(dims));
    Value init = createEmpty(rewriter, loc, wideType, dims);
    Value wide = buildParallelGeneric(
        rewriter, loc, init, {input},
        {AffineMap::get(2 * rank, 0, exprs, rewriter.getContext())},
        [](OpBuilder &, Location, ValueRange a) { return a[0]; });
    Value result = tensor::CollapseShapeOp::create(rewriter, loc, wide, groups);
    rewriter.replaceOp(op, castTo(rewriter, loc, result, op.getType()));
    return success();
  }
};

struct TriluConversion : public OpConversionPattern<TriluOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TriluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();
    auto k = static_cast<int64_t>(op.getK());
    bool upper = op.getUpper();
    Type t = type.getElementType();
    Value init =
        createEmpty(rewriter, loc, type, getDims(rewriter, loc, input));
    Value result = buildParallelGeneric(
        rewriter, loc, init, {input}, {rewriter.getMultiDimIdentityMap(rank)},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value row = linalg::IndexOp::create(b, l, rank - 2);
          Value col = linalg::IndexOp::create(b, l, rank - 1);
          // col - row cannot overflow, whereas row + k could.
          Value diff = arith::SubIOp::create(b, l, col, row);
          Value keep = arith::CmpIOp::create(b, l,
                                             upper ? arith::CmpIPredicate::sge
                                                   : arith::CmpIPredicate::sle,
                                             diff, indexConst(b, l, k));
          return arith::SelectOp::create(b, l, keep, a[0], zeroOf(b, l, t));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Depth/space rearrangements
//===----------------------------------------------------------------------===//

/// expand_shape to `expandedDims`, transpose by `perm`, collapse by
/// `collapse`: the reshape/transpose/reshape of the ONNX reference.
Value rearrange(OpBuilder &b, Location loc, Value input,
                ArrayRef<OpFoldResult> expandedDims,
                ArrayRef<ReassociationIndices> expand, ArrayRef<int64_t> perm,
                ArrayRef<ReassociationIndices> collapse) {
  auto inType = cast<RankedTensorType>(input.getType());
  auto expandedType = inType.clone(staticSizes(expandedDims));
  Value expanded = tensor::ExpandShapeOp::create(b, loc, expandedType, input,
                                                 expand, expandedDims);
  SmallVector<OpFoldResult> permuted;
  for (int64_t p : perm)
    permuted.push_back(expandedDims[p]);
  Value init =
      createEmpty(b, loc, inType.clone(staticSizes(permuted)), permuted);
  Value transposed =
      linalg::TransposeOp::create(b, loc, expanded, init, perm).getResult()[0];
  return tensor::CollapseShapeOp::create(b, loc, transposed, collapse);
}

struct DepthToSpaceConversion : public OpConversionPattern<DepthToSpaceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DepthToSpaceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto bs = static_cast<int64_t>(op.getBlocksize());
    SmallVector<OpFoldResult> d = getDims(rewriter, loc, input);
    OpFoldResult block = rewriter.getIndexAttr(bs);
    OpFoldResult channels = divIndex(rewriter, loc, d[1], bs * bs);
    Value result;
    if (op.getMode() == "CRD")
      // [N, C', b, b, H, W] -> [N, C', H, b, W, b]
      result = rearrange(rewriter, loc, input,
                         {d[0], channels, block, block, d[2], d[3]},
                         {{0}, {1, 2, 3}, {4}, {5}}, {0, 1, 4, 2, 5, 3},
                         {{0}, {1}, {2, 3}, {4, 5}});
    else
      // [N, b, b, C', H, W] -> [N, C', H, b, W, b]
      result = rearrange(rewriter, loc, input,
                         {d[0], block, block, channels, d[2], d[3]},
                         {{0}, {1, 2, 3}, {4}, {5}}, {0, 3, 4, 1, 5, 2},
                         {{0}, {1}, {2, 3}, {4, 5}});
    rewriter.replaceOp(op, castTo(rewriter, loc, result, op.getType()));
    return success();
  }
};

struct SpaceToDepthConversion : public OpConversionPattern<SpaceToDepthOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SpaceToDepthOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto bs = static_cast<int64_t>(op.getBlocksize());
    SmallVector<OpFoldResult> d = getDims(rewriter, loc, input);
    OpFoldResult block = rewriter.getIndexAttr(bs);
    // [N, C, H', b, W', b] -> [N, b, b, C, H', W']
    Value result = rearrange(rewriter, loc, input,
                             {d[0], d[1], divIndex(rewriter, loc, d[2], bs),
                              block, divIndex(rewriter, loc, d[3], bs), block},
                             {{0}, {1}, {2, 3}, {4, 5}}, {0, 3, 5, 1, 2, 4},
                             {{0}, {1, 2, 3}, {4}, {5}});
    rewriter.replaceOp(op, castTo(rewriter, loc, result, op.getType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Gathers and one_hot
//===----------------------------------------------------------------------===//

struct GatherConversion : public OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto dataType = cast<RankedTensorType>(data.getType());
    int64_t r = dataType.getRank();
    int64_t q = cast<RankedTensorType>(indices.getType()).getRank();
    int64_t axis = wrapAxis(static_cast<int64_t>(op.getAxis()), r);
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();

    // Result: data[:axis] + indices + data[axis + 1:].
    SmallVector<OpFoldResult> dataDims = getDims(rewriter, loc, data);
    SmallVector<OpFoldResult> indexDims = getDims(rewriter, loc, indices);
    SmallVector<OpFoldResult> dims(dataDims.begin(), dataDims.begin() + axis);
    dims.append(indexDims);
    dims.append(dataDims.begin() + axis + 1, dataDims.end());
    Value init = createEmpty(rewriter, loc, type, dims);
    SmallVector<AffineExpr> exprs;
    for (int64_t j = 0; j < q; ++j)
      exprs.push_back(rewriter.getAffineDimExpr(axis + j));
    AffineMap indexMap = AffineMap::get(rank, 0, exprs, rewriter.getContext());
    Value axisSize =
        getValueOrCreateConstantIndexOp(rewriter, loc, dataDims[axis]);
    std::string what = indexCheckName(op, op.getData(), axis);
    Value result = buildParallelGeneric(
        rewriter, loc, init, {indices}, {indexMap},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          SmallVector<Value> coords;
          for (int64_t i = 0; i < axis; ++i)
            coords.push_back(linalg::IndexOp::create(b, l, i));
          coords.push_back(
              checkIndex(b, l, a[0], axisSize, /*negativeCounts=*/true, what)
                  .first);
          for (int64_t i = axis + q; i < rank; ++i)
            coords.push_back(linalg::IndexOp::create(b, l, i));
          return tensor::ExtractOp::create(b, l, data, coords);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GatherElementsConversion : public OpConversionPattern<GatherElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GatherElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    int64_t rank = cast<RankedTensorType>(data.getType()).getRank();
    int64_t axis = wrapAxis(static_cast<int64_t>(op.getAxis()), rank);
    Value init = createEmpty(rewriter, loc, op.getType(),
                             getDims(rewriter, loc, indices));
    Value axisSize = dimValue(rewriter, loc, data, axis);
    std::string what = indexCheckName(op, op.getData(), axis);
    Value result = buildParallelGeneric(
        rewriter, loc, init, {indices}, {rewriter.getMultiDimIdentityMap(rank)},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          SmallVector<Value> coords;
          for (int64_t i = 0; i < rank; ++i)
            coords.push_back(
                i == axis ? checkIndex(b, l, a[0], axisSize,
                                       /*negativeCounts=*/true, what)
                                .first
                          : linalg::IndexOp::create(b, l, i).getResult());
          return tensor::ExtractOp::create(b, l, data, coords);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct OneHotConversion : public OpConversionPattern<OneHotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OneHotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value indices = adaptor.getIndices();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    int64_t axis = wrapAxis(static_cast<int64_t>(op.getAxis()), rank);
    auto depth = static_cast<int64_t>(op.getDepth());
    Type t = type.getElementType();
    auto scalar = [&](OpBuilder &b, Location l, double v) -> Value {
      if (isFloat(t))
        return floatConst(b, l, t, v);
      if (t.isInteger(1))
        return intConst(b, l, t, v != 0.0 ? 1 : 0);
      return intConst(b, l, t, static_cast<int64_t>(v));
    };
    double on = op.getOnValue().convertToDouble();
    double off = op.getOffValue().convertToDouble();

    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, indices);
    dims.insert(dims.begin() + axis, rewriter.getIndexAttr(depth));
    Value init = createEmpty(rewriter, loc, type, dims);
    Value result = buildParallelGeneric(
        rewriter, loc, init, {indices},
        {getDroppingMap(rewriter.getContext(), rank, {axis})},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Type i64 = b.getI64Type();
          Value idx = a[0];
          if (idx.getType() != i64)
            idx = arith::ExtSIOp::create(b, l, i64, idx);
          // Out-of-range indices match no position: all off.
          Value zero = intConst(b, l, i64, 0);
          Value negative =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, idx, zero);
          Value shifted =
              arith::AddIOp::create(b, l, idx, intConst(b, l, i64, depth));
          idx = arith::SelectOp::create(b, l, negative, shifted, idx);
          Value pos = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, axis));
          Value hit =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, idx, pos);
          return arith::SelectOp::create(b, l, hit, scalar(b, l, on),
                                         scalar(b, l, off));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Sequential ops: cumsum and scatters
//===----------------------------------------------------------------------===//

/// cumsum: an scf.for along the axis carries the running sum of the slices
/// seen so far (in f32 for f16/bf16) and inserts it, or for `exclusive` the
/// sum before adding the slice, at each position.
struct CumSumConversion : public OpConversionPattern<CumSumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CumSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();
    int64_t axis = wrapAxis(static_cast<int64_t>(op.getAxis()), rank);
    bool exclusive = op.getExclusive(), reverse = op.getReverse();
    Type t = type.getElementType();
    Type accType = t.isF16() || t.isBF16() ? b.getF32Type() : t;

    SmallVector<OpFoldResult> dims = getDims(b, loc, input);
    SmallVector<int64_t> sliceShape;
    SmallVector<OpFoldResult> sliceDims;
    for (int64_t i = 0; i < rank; ++i) {
      if (i == axis)
        continue;
      sliceShape.push_back(type.getDimSize(i));
      sliceDims.push_back(dims[i]);
    }
    auto sliceType = RankedTensorType::get(sliceShape, t);
    auto accSliceType = RankedTensorType::get(sliceShape, accType);
    AffineMap id = b.getMultiDimIdentityMap(rank - 1);
    auto convert = [&](Value v, RankedTensorType to) -> Value {
      if (v.getType() == to)
        return v;
      return buildParallelGeneric(
          b, loc, createEmpty(b, loc, to, sliceDims), {v}, {id},
          [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
            if (to.getElementType() == accType)
              return arith::ExtFOp::create(nb, l, accType, a[0]);
            return arith::TruncFOp::create(nb, l, t, a[0]);
          });
    };

    Value n = getValueOrCreateConstantIndexOp(b, loc, dims[axis]);
    Value zero = indexConst(b, loc, 0), one = indexConst(b, loc, 1);
    Value acc0 =
        createFilled(b, loc, accSliceType, sliceDims, zeroOf(b, loc, accType));
    Value out0 = createEmpty(b, loc, type, dims);
    auto loop = scf::ForOp::create(
        b, loc, zero, n, one, ValueRange{out0, acc0},
        [&](OpBuilder &nb, Location l, Value iv, ValueRange iter) {
          Value pos = iv;
          if (reverse)
            pos = arith::SubIOp::create(
                nb, l, arith::SubIOp::create(nb, l, n, one), iv);
          SmallVector<OpFoldResult> offsets(rank, nb.getIndexAttr(0));
          offsets[axis] = pos;
          SmallVector<OpFoldResult> sizes(dims);
          sizes[axis] = nb.getIndexAttr(1);
          SmallVector<OpFoldResult> strides(rank, nb.getIndexAttr(1));
          Value x = tensor::ExtractSliceOp::create(nb, l, sliceType, input,
                                                   offsets, sizes, strides);
          auto insert = [&](Value v, Value into) -> Value {
            return tensor::InsertSliceOp::create(nb, l, convert(v, sliceType),
                                                 into, offsets, sizes, strides);
          };
          // An exclusive sum writes the accumulator before adding to it.
          Value out = iter[0];
          if (exclusive)
            out = insert(iter[1], out);
          // The sum updates the accumulator in place, so that the loop
          // yields a buffer equivalent to its iteration argument.
          Value sum = linalg::GenericOp::create(
                          nb, l, TypeRange{accSliceType},
                          ValueRange{convert(x, accSliceType)},
                          ValueRange{iter[1]}, SmallVector<AffineMap>{id, id},
                          SmallVector<utils::IteratorType>(
                              rank - 1, utils::IteratorType::parallel),
                          [&](OpBuilder &bb, Location ll, ValueRange a) {
                            linalg::YieldOp::create(
                                bb, ll, addValues(bb, ll, a[0], a[1]));
                          })
                          .getResult(0);
          if (!exclusive)
            out = insert(sum, out);
          scf::YieldOp::create(nb, l, ValueRange{out, sum});
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

/// scatter_elements: a loop nest over the indices that reads each index and
/// update and writes (or combines) it into a copy of the data, in row-major
/// order as the ONNX reference does.
struct ScatterElementsConversion
    : public OpConversionPattern<ScatterElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScatterElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData(), indices = adaptor.getIndices(),
          updates = adaptor.getUpdates();
    int64_t rank = cast<RankedTensorType>(data.getType()).getRank();
    int64_t axis = wrapAxis(static_cast<int64_t>(op.getAxis()), rank);
    Value axisSize = dimValue(rewriter, loc, data, axis);
    std::string what = indexCheckName(op, op.getData(), axis);
    Value result = buildScatter(
        rewriter, loc, data, updates, indices, op.getReduction(),
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          Value idx = tensor::ExtractOp::create(b, l, indices, ivs);
          ScatterTarget target;
          target.coords.assign(ivs.begin(), ivs.end());
          std::tie(target.coords[axis], target.inRange) =
              checkIndex(b, l, idx, axisSize, /*negativeCounts=*/true, what);
          return target;
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, result, op.getType()));
    return success();
  }
};

/// Why a scatter_nd cannot be lowered: the loop nest reads each index
/// tuple element by element, so the tuples' length must be known.
std::optional<std::string> whyCannotLower(ScatterNDOp op) {
  auto indicesType = cast<RankedTensorType>(op.getIndices().getType());
  if (!ShapedType::isDynamic(indicesType.getDimSize(indicesType.getRank() - 1)))
    return std::nullopt;
  return std::string("the last dimension of the indices must be static");
}

/// scatter_nd: a loop nest over the updates; update [o..., i...] goes to
/// data[indices[o..., :]..., i...].
struct ScatterNDConversion : public OpConversionPattern<ScatterNDOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScatterNDOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData(), indices = adaptor.getIndices(),
          updates = adaptor.getUpdates();
    auto indicesType = cast<RankedTensorType>(indices.getType());
    int64_t q = indicesType.getRank();
    if (std::optional<std::string> reason = whyCannotLower(op))
      return rewriter.notifyMatchFailure(op, *reason);
    int64_t k = indicesType.getDimSize(q - 1);
    SmallVector<Value> sizes;
    SmallVector<std::string> whats;
    for (int64_t j = 0; j < k; ++j) {
      sizes.push_back(dimValue(rewriter, loc, data, j));
      whats.push_back(indexCheckName(op, op.getData(), j));
    }
    Value result = buildScatter(
        rewriter, loc, data, updates, updates, op.getReduction(),
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          SmallVector<Value> at(ivs.take_front(q - 1));
          at.push_back(Value());
          ScatterTarget target;
          for (int64_t j = 0; j < k; ++j) {
            at.back() = indexConst(b, l, j);
            Value idx = tensor::ExtractOp::create(b, l, indices, at);
            auto [coord, inRange] = checkIndex(
                b, l, idx, sizes[j], /*negativeCounts=*/true, whats[j]);
            target.coords.push_back(coord);
            target.inRange =
                target.inRange
                    ? arith::AndIOp::create(b, l, target.inRange, inRange)
                          .getResult()
                    : inRange;
          }
          target.coords.append(ivs.begin() + (q - 1), ivs.end());
          return target;
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, result, op.getType()));
    return success();
  }
};

} // namespace

std::optional<std::string> nnc::detail::whyCannotLowerShape(Operation *op) {
  if (auto scatter = dyn_cast<ScatterNDOp>(op))
    return whyCannotLower(scatter);
  return std::nullopt;
}

void nnc::detail::populateShapePatterns(RewritePatternSet &patterns) {
  patterns.add<CumSumConversion, DepthToSpaceConversion, FlattenConversion,
               GatherConversion, GatherElementsConversion, OneHotConversion,
               ScatterElementsConversion, ScatterNDConversion,
               SpaceToDepthConversion, SplitConversion, SqueezeConversion,
               TileConversion, TriluConversion, UnsqueezeConversion>(
      patterns.getContext());
}
