//===- AutodiffShapeRules.cpp - shape-op gradient rules -------------------===//
//
// Gradients of the shape and indexing ops (slice, concat, split, pad in every
// mode, expand, tile, trilu, the gathers and scatters, depth_to_space and
// space_to_depth): mostly the inverse data movement of g.
//
//===----------------------------------------------------------------------===//

#include "AutodiffRules.h"

#include "nnc/NNCOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;
using namespace nnc;
using namespace nnc::autodiff;

/// A constant-mode pad of `v` by `pads` (negative amounts crop) with zeros.
static Value padZeros(Rule &r, Value v, ArrayRef<int64_t> pads) {
  return PadOp::create(r.b, r.loc, v, r.b.getDenseI64ArrayAttr(pads),
                       PadModeAttr::get(r.b.getContext(), PadMode::constant),
                       r.b.getF64FloatAttr(0.0));
}

/// Elements `[start, end)` of `v` along `axis`.
static Value sliceAxis(Rule &r, Value v, int64_t axis, int64_t start,
                       int64_t end) {
  return SliceOp::create(r.b, r.loc, v, r.b.getDenseI64ArrayAttr({start}),
                         r.b.getDenseI64ArrayAttr({end}),
                         r.b.getDenseI64ArrayAttr({axis}), DenseI64ArrayAttr());
}

static int64_t normalizedAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// `v` reversed along `axis`.
static Value reverseAxis(Rule &r, Value v, int64_t axis) {
  return SliceOp::create(
      r.b, r.loc, v, r.b.getDenseI64ArrayAttr({-1}),
      r.b.getDenseI64ArrayAttr({std::numeric_limits<int64_t>::min()}),
      r.b.getDenseI64ArrayAttr({axis}), r.b.getDenseI64ArrayAttr({-1}));
}

/// `v` padded with `before` and `after` zeros along `axis`.
static Value padAxis(Rule &r, Value v, int64_t axis, int64_t before,
                     int64_t after) {
  int64_t rank = r.type(v).getRank();
  SmallVector<int64_t> pads(2 * rank, 0);
  pads[axis] = before;
  pads[rank + axis] = after;
  return padZeros(r, v, pads);
}

/// The gradient of a reflect, edge or wrap pad along one axis of input size
/// `dim` padded by `before` and `after` (both >= 0): the middle of g plus
/// each padded element's g added where the pad copied it from.
static Value unpadAxis(Rule &r, Value g, PadMode mode, int64_t axis,
                       int64_t dim, int64_t before, int64_t after) {
  Value grad = sliceAxis(r, g, axis, before, before + dim);
  if (before > 0) {
    Value left = sliceAxis(r, g, axis, 0, before);
    // Padded position i copies input element `before - i` (reflect), 0
    // (edge) or `dim - before + i` (wrap).
    if (mode == PadMode::reflect)
      left = padAxis(r, reverseAxis(r, left, axis), axis, 1, dim - 1 - before);
    else if (mode == PadMode::edge)
      left = padAxis(r, r.sumKeep(left, {axis}), axis, 0, dim - 1);
    else
      left = padAxis(r, left, axis, dim - before, 0);
    grad = r.add(grad, left);
  }
  if (after > 0) {
    Value right = sliceAxis(r, g, axis, before + dim, before + dim + after);
    // Padded position j after the input copies element `dim - 2 - j`
    // (reflect), `dim - 1` (edge) or `j` (wrap).
    if (mode == PadMode::reflect)
      right = padAxis(r, reverseAxis(r, right, axis), axis, dim - 1 - after, 1);
    else if (mode == PadMode::edge)
      right = padAxis(r, r.sumKeep(right, {axis}), axis, dim - 1, 0);
    else
      right = padAxis(r, right, axis, 0, dim - after);
    grad = r.add(grad, right);
  }
  return grad;
}

/// The gradient of a slice along one axis of size `dim` that picked `count`
/// elements from `first` in steps of `step`: g spread back to its
/// positions with zeros between and around.
static Value unsliceAxis(Rule &r, Value g, int64_t axis, int64_t dim,
                         int64_t first, int64_t step, int64_t count) {
  if (step < 0) {
    // Reverse g so that it runs upwards from the lowest picked index.
    g = reverseAxis(r, g, axis);
    first += (count - 1) * step;
    step = -step;
  }
  auto type = r.type(g);
  int64_t rank = type.getRank();
  SmallVector<int64_t> pads(2 * rank, 0);
  int64_t length = count;
  if (step > 1) {
    // [.., count, ..] -> [.., count, 1, ..] padded to [.., count, step, ..]
    // -> [.., count * step, ..]: step - 1 zeros after every element.
    SmallVector<int64_t> shape(type.getShape());
    shape.insert(shape.begin() + axis + 1, 1);
    Value v = r.reshape(g, RankedTensorType::get(shape, type.getElementType()));
    SmallVector<int64_t> spread(2 * (rank + 1), 0);
    spread[rank + 1 + axis + 1] = step - 1;
    v = padZeros(r, v, spread);
    SmallVector<int64_t> flat(type.getShape());
    flat[axis] = count * step;
    g = r.reshape(v, RankedTensorType::get(flat, type.getElementType()));
    length = count * step;
  }
  pads[axis] = first;
  pads[rank + axis] = dim - first - length;
  return padZeros(r, g, pads);
}

/// Shape ops: g moved back to where the forward op took each element from,
/// with zeros (or sums) for elements read never (or several times). They
/// need static shapes where they build zeros or reshape.
std::optional<LogicalResult> nnc::autodiff::shapeRules(Rule &r) {
  Value g = r.g;
  auto staticOperand = [&]() -> bool {
    return r.type(r.operand(0)).hasStaticShape() &&
           r.type(r.y).hasStaticShape();
  };
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(r.op)
      .Case([&](SliceOp slice) -> LogicalResult {
        // The sliced dimensions must be static; the others may not.
        auto xType = r.type(r.operand(0)), yType = r.type(r.y);
        int64_t rank = xType.getRank();
        ArrayRef<int64_t> starts = slice.getStarts(), ends = slice.getEnds();
        SmallVector<int64_t> axes, steps;
        for (size_t i = 0; i < starts.size(); ++i) {
          axes.push_back(slice.getAxes()
                             ? normalizedAxis((*slice.getAxes())[i], rank)
                             : int64_t(i));
          steps.push_back(slice.getSteps() ? (*slice.getSteps())[i] : 1);
        }
        for (int64_t axis : axes)
          if (xType.isDynamicDim(axis) || yType.isDynamicDim(axis))
            return noRule(r.op, "along a dynamic dimension");
        if (llvm::any_of(
                axes, [&](int64_t axis) { return !yType.getDimSize(axis); })) {
          if (!xType.hasStaticShape())
            return noRule(r.op, "on a dynamic shape");
          r.grads[0] = r.gb.constant(r.loc, xType, 0.0, /*shaped=*/true);
          return success();
        }
        Value gx = g;
        for (size_t i = 0; i < starts.size(); ++i) {
          int64_t dim = xType.getDimSize(axes[i]), step = steps[i];
          int64_t start = starts[i], end = ends[i];
          if (start < 0)
            start += dim;
          if (end < 0)
            end += dim;
          if (step > 0)
            start = std::clamp<int64_t>(start, 0, dim);
          else
            start = std::clamp<int64_t>(start, 0, dim - 1);
          int64_t count = r.type(r.y).getDimSize(axes[i]);
          gx = unsliceAxis(r, gx, axes[i], dim, start, step, count);
        }
        r.grads[0] = gx;
        return success();
      })
      .Case([&](ConcatOp concat) -> LogicalResult {
        auto yType = r.type(r.y);
        int64_t axis =
            normalizedAxis(concat.getAxisAttr().getInt(), yType.getRank());
        int64_t offset = 0;
        for (auto [i, input] : llvm::enumerate(concat.getInputs())) {
          int64_t size = r.type(input).getDimSize(axis);
          if (ShapedType::isDynamic(size))
            return noRule(r.op, "with a dynamic concatenated dimension");
          if (r.gb.isActive(input))
            r.grads[i] = sliceAxis(r, g, axis, offset, offset + size);
          offset += size;
        }
        return success();
      })
      .Case([&](SplitOp split) -> LogicalResult {
        // The concatenation of the pieces' gradients, zeros for pieces
        // that get none.
        int64_t axis = normalizedAxis(split.getAxisAttr().getInt(),
                                      r.type(r.operand(0)).getRank());
        SmallVector<Value> pieces;
        for (auto [result, grad] :
             llvm::zip_equal(split.getResults(), r.resultGrads)) {
          Value piece = grad;
          if (!piece && r.type(result).hasStaticShape())
            piece = r.gb.constant(r.loc, result.getType(), 0.0,
                                  /*shaped=*/true);
          else if (!piece)
            piece = r.mul(r.gb.onesLike(r.loc, result), 0.0);
          pieces.push_back(piece);
        }
        r.grads[0] =
            ConcatOp::create(r.b, r.loc, pieces, r.b.getI64IntegerAttr(axis));
        return success();
      })
      .Case([&](PadOp pad) -> LogicalResult {
        PadMode mode = pad.getMode();
        if (mode != PadMode::constant) {
          // Per padded axis, the copies' gradients added back.
          auto xType = r.type(r.operand(0));
          ArrayRef<int64_t> pads = pad.getPads();
          int64_t rank = xType.getRank();
          if (!xType.hasStaticShape())
            return noRule(r.op, "on a dynamic shape");
          for (int64_t i = 0; i < rank; ++i)
            if (pads[i] < 0 || pads[rank + i] < 0 ||
                pads[i] > xType.getDimSize(i) ||
                pads[rank + i] > xType.getDimSize(i))
              return noRule(r.op, ("in mode '" + stringifyPadMode(mode) +
                                   "' with a crop or a pad larger than its "
                                   "dimension")
                                      .str());
          Value gx = g;
          for (int64_t i = 0; i < rank; ++i)
            if (pads[i] || pads[rank + i])
              gx = unpadAxis(r, gx, mode, i, xType.getDimSize(i), pads[i],
                             pads[rank + i]);
          r.grads[0] = gx;
          return success();
        }
        SmallVector<int64_t> crop;
        for (int64_t p : pad.getPads())
          crop.push_back(-p);
        r.grads[0] = padZeros(r, g, crop);
        return success();
      })
      .Case([&](ExpandOp) {
        r.grads[0] = r.gb.unbroadcast(r.loc, g, r.operand(0).getType());
        return success();
      })
      .Case([&](TileOp tile) -> LogicalResult {
        auto xType = r.type(r.operand(0));
        if (!staticOperand())
          return noRule(r.op, "on a dynamic shape");
        // [r0 * d0, r1 * d1, ...] -> [r0, d0, r1, d1, ...], summed over
        // the repeats.
        SmallVector<int64_t> shape, axes;
        for (auto [i, repeat] : llvm::enumerate(tile.getRepeats())) {
          axes.push_back(2 * i);
          shape.push_back(repeat);
          shape.push_back(xType.getDimSize(i));
        }
        Value v =
            r.reshape(g, RankedTensorType::get(shape, xType.getElementType()));
        v = ReduceOp::create(r.b, r.loc, ReduceKind::sum, v, axes,
                             /*keepdims=*/false);
        r.grads[0] = r.reshape(v, xType);
        return success();
      })
      .Case([&](TriluOp trilu) {
        r.grads[0] = TriluOp::create(r.b, r.loc, g, trilu.getUpperAttr(),
                                     trilu.getKAttr());
        return success();
      })
      .Case([&](DepthToSpaceOp d2s) -> LogicalResult {
        if (d2s.getMode() == "DCR") {
          r.grads[0] =
              SpaceToDepthOp::create(r.b, r.loc, g, d2s.getBlocksizeAttr());
          return success();
        }
        // CRD moves x [N, C', b, b, H, W] by [0, 1, 4, 2, 5, 3] to
        // [N, C', H, b, W, b]; g goes back by the inverse permutation.
        auto xType = r.type(r.operand(0));
        if (!xType.hasStaticShape())
          return noRule(r.op, "in mode 'CRD' on a dynamic shape");
        int64_t bs = d2s.getBlocksize(), n = xType.getDimSize(0);
        int64_t c = xType.getDimSize(1) / (bs * bs);
        int64_t h = xType.getDimSize(2), w = xType.getDimSize(3);
        Type et = xType.getElementType();
        Value v = r.reshape(g, RankedTensorType::get({n, c, h, bs, w, bs}, et));
        v = TransposeOp::create(r.b, r.loc, v,
                                ArrayRef<int64_t>{0, 1, 3, 5, 2, 4});
        r.grads[0] = r.reshape(v, xType);
        return success();
      })
      .Case([&](SpaceToDepthOp s2d) {
        r.grads[0] = DepthToSpaceOp::create(
            r.b, r.loc, g, s2d.getBlocksizeAttr(), r.b.getStringAttr("DCR"));
        return success();
      })
      .Case([&](GatherOp gather) -> LogicalResult {
        // A scatter-add of g into zeros: with data [P.., A, Q..] and K
        // indices, g as [K, P * Q] rows go to the rows of [A, P * Q] the
        // indices name (scatter_nd, reduction add).
        // The indices' count K may be dynamic.
        auto dataType = r.type(gather.getData());
        auto indicesType = r.type(gather.getIndices());
        if (!dataType.hasStaticShape())
          return noRule(r.op, "on a dynamic shape");
        int64_t axis =
            normalizedAxis(gather.getAxisAttr().getInt(), dataType.getRank());
        int64_t p = 1, q = 1;
        int64_t k = indicesType.hasStaticShape() ? indicesType.getNumElements()
                                                 : ShapedType::kDynamic;
        int64_t a = dataType.getDimSize(axis);
        for (int64_t i = 0; i < axis; ++i)
          p *= dataType.getDimSize(i);
        for (int64_t i = axis + 1; i < dataType.getRank(); ++i)
          q *= dataType.getDimSize(i);
        Type et = dataType.getElementType();
        Value rows;
        if (p == 1) {
          rows = r.reshape(g, RankedTensorType::get({k, q}, et));
        } else {
          Value v = r.reshape(g, RankedTensorType::get({p, k, q}, et));
          v = TransposeOp::create(r.b, r.loc, v, ArrayRef<int64_t>{1, 0, 2});
          rows = r.reshape(v, RankedTensorType::get({k, p * q}, et));
        }
        Value idx = r.reshape(
            gather.getIndices(),
            RankedTensorType::get({k, 1}, indicesType.getElementType()));
        Value zeros = r.gb.constant(
            r.loc, RankedTensorType::get({a, p * q}, et), 0.0, /*shaped=*/true);
        Value sum = ScatterNDOp::create(
            r.b, r.loc, zeros, idx, rows,
            ScatterReductionAttr::get(r.b.getContext(), ScatterReduction::add));
        if (p != 1) {
          Value v = r.reshape(sum, RankedTensorType::get({a, p, q}, et));
          sum = TransposeOp::create(r.b, r.loc, v, ArrayRef<int64_t>{1, 0, 2});
        }
        r.grads[0] = r.reshape(sum, dataType);
        return success();
      })
      .Case([&](ScatterElementsOp scatter) -> LogicalResult {
        // Without a reduction the scattered positions of the data are
        // overwritten (their gradient is 0) and each update gets g at its
        // position (exact for indices without duplicates); with add the
        // data gets g unchanged.
        ScatterReduction kind = scatter.getReduction();
        if (kind != ScatterReduction::none && kind != ScatterReduction::add)
          return noRule(
              r.op,
              ("with reduction = " + stringifyScatterReduction(kind)).str());
        if (!r.type(scatter.getUpdates()).hasStaticShape())
          return noRule(r.op, "on a dynamic shape");
        r.grads[0] = g;
        if (kind == ScatterReduction::none)
          r.grads[0] = ScatterElementsOp::create(
              r.b, r.loc, g, scatter.getIndices(),
              r.gb.constant(r.loc, scatter.getUpdates().getType(), 0.0,
                            /*shaped=*/true),
              scatter.getAxisAttr(),
              ScatterReductionAttr::get(r.b.getContext(),
                                        ScatterReduction::none));
        r.grads[2] = GatherElementsOp::create(
            r.b, r.loc, g, scatter.getIndices(), scatter.getAxisAttr());
        return success();
      })
      .Case([&](ScatterNDOp scatter) -> LogicalResult {
        // As scatter_elements; the updates' gradient gathers g at the index
        // tuples, as rows of g viewed as [D0 * ... * Dk-1, rest] picked by
        // the tuples' row-major offsets.
        ScatterReduction kind = scatter.getReduction();
        if (kind != ScatterReduction::none && kind != ScatterReduction::add)
          return noRule(
              r.op,
              ("with reduction = " + stringifyScatterReduction(kind)).str());
        Value indices = scatter.getIndices(), updates = scatter.getUpdates();
        auto dataType = r.type(scatter.getData());
        auto indicesType = r.type(indices);
        if (!dataType.hasStaticShape() || !indicesType.hasStaticShape() ||
            !r.type(updates).hasStaticShape())
          return noRule(r.op, "on a dynamic shape");
        r.grads[0] = g;
        if (kind == ScatterReduction::none)
          r.grads[0] = ScatterNDOp::create(
              r.b, r.loc, g, indices,
              r.gb.constant(r.loc, updates.getType(), 0.0, /*shaped=*/true),
              ScatterReductionAttr::get(r.b.getContext(),
                                        ScatterReduction::none));
        int64_t k = indicesType.getShape().back();
        int64_t rows = 1, rest = 1;
        SmallVector<int64_t> dims, strides(k, 1);
        for (int64_t i = 0; i < k; ++i) {
          dims.push_back(dataType.getDimSize(i));
          rows *= dims.back();
        }
        for (int64_t i = k; i < dataType.getRank(); ++i)
          rest *= dataType.getDimSize(i);
        for (int64_t i = k - 2; i >= 0; --i)
          strides[i] = strides[i + 1] * dims[i + 1];
        Type it = indicesType.getElementType();
        auto intConstant = [&](ArrayRef<int64_t> values) -> Value {
          auto type = RankedTensorType::get({int64_t(values.size())}, it);
          SmallVector<APInt> elements;
          for (int64_t v : values)
            elements.push_back(APInt(it.getIntOrFloatBitWidth(), v,
                                     /*isSigned=*/true));
          return ConstantOp::create(r.b, r.loc,
                                    DenseElementsAttr::get(type, elements));
        };
        // Negative indices count from the end of their dimension.
        Value zero = ConstantOp::create(
            r.b, r.loc,
            DenseElementsAttr::get(RankedTensorType::get({}, it),
                                   r.b.getIntegerAttr(it, 0)));
        Value wrapped = r.where(r.cmp(CmpPredicate::lt, indices, zero),
                                r.add(indices, intConstant(dims)), indices);
        Value offsets = ReduceOp::create(
            r.b, r.loc, ReduceKind::sum, r.mul(wrapped, intConstant(strides)),
            ArrayRef<int64_t>{indicesType.getRank() - 1}, /*keepdims=*/false);
        Type et = dataType.getElementType();
        Value table = r.reshape(g, RankedTensorType::get({rows, rest}, et));
        Value picked = GatherOp::create(r.b, r.loc, table, offsets,
                                        r.b.getI64IntegerAttr(0));
        r.grads[2] = r.reshape(picked, updates.getType());
        return success();
      })
      .Case([&](GatherElementsOp gather) -> LogicalResult {
        auto dataType = r.type(gather.getData());
        if (!dataType.hasStaticShape())
          return noRule(r.op, "on a dynamic shape");
        Value zeros = r.gb.constant(r.loc, dataType, 0.0, /*shaped=*/true);
        r.grads[0] = ScatterElementsOp::create(
            r.b, r.loc, zeros, gather.getIndices(), g, gather.getAxisAttr(),
            ScatterReductionAttr::get(r.b.getContext(), ScatterReduction::add));
        return success();
      })
      .Default([](Operation *) { return std::nullopt; });
}
