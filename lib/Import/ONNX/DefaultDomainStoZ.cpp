//===- DefaultDomainStoZ.cpp - ONNX ops S to Z
//-----------------------------===//
//
// Converters of the default-domain ONNX ops whose names start with S
// to Z, keyed by the opset they apply from. Shape computations on integer
// constants (Shape, Size, Slice, Squeeze, Unsqueeze, Sub, Where, Transpose)
// fold to constants at import time.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "nnc/ShapeUtils.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <limits>

using namespace mlir;

namespace nnc::onnx_import {

//===----------------------------------------------------------------------===//
// Constant folding helpers
//===----------------------------------------------------------------------===//

/// Folding is for shape computations: larger constants are left to the ops.
static constexpr int64_t kMaxFoldElements = 1 << 16;

namespace {
/// An integer constant known at import time, with its values sign-extended
/// (zero-extended for i1).
struct IntConstant {
  RankedTensorType type;
  SmallVector<int64_t> values;
};
} // namespace

/// Input `i` as an integer constant small enough to fold, if it is one.
static std::optional<IntConstant> getIntConstant(NodeContext &ctx, unsigned i) {
  std::optional<DenseElementsAttr> attr = ctx.constantInput(i);
  if (!attr)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(attr->getType());
  if (!type || !isa<IntegerType>(type.getElementType()) ||
      !type.hasStaticShape() || type.getNumElements() > kMaxFoldElements)
    return std::nullopt;
  bool isBool = type.getElementType().isInteger(1);
  IntConstant result{type, {}};
  result.values.reserve(type.getNumElements());
  for (const APInt &v : attr->getValues<APInt>())
    result.values.push_back(isBool ? v.getZExtValue() : v.getSExtValue());
  return result;
}

/// Sets the node's result to an integer constant of `type` (values are
/// truncated to its width).
static LogicalResult setIntResult(NodeContext &ctx, RankedTensorType type,
                                  ArrayRef<int64_t> values) {
  unsigned width = type.getElementTypeBitWidth();
  SmallVector<APInt> bits;
  bits.reserve(values.size());
  for (int64_t v : values)
    bits.emplace_back(width, v, /*isSigned=*/width > 1,
                      /*implicitTrunc=*/true);
  return ctx.setResult(ctx.constant(DenseElementsAttr::get(type, bits)));
}

/// Row-major strides of `shape`.
static SmallVector<int64_t> getStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

//===----------------------------------------------------------------------===//
// Attribute helpers
//===----------------------------------------------------------------------===//

/// Axes from the `axes` attribute before `sinceInput`, from input `index`
/// after; std::nullopt when absent. Fails when the input is not constant.
static FailureOr<std::optional<SmallVector<int64_t>>>
getAxes(NodeContext &ctx, int64_t sinceInput, unsigned index) {
  if (ctx.opset() < sinceInput)
    return ctx.getOptionalInts("axes");
  if (!ctx.hasInput(index))
    return std::optional<SmallVector<int64_t>>();
  FailureOr<SmallVector<int64_t>> axes = ctx.constantInts(index, "axes");
  if (failed(axes))
    return failure();
  return std::optional<SmallVector<int64_t>>(std::move(*axes));
}

/// Normalizes `axes` for `rank`, rejecting out-of-range and repeated axes.
static LogicalResult normalizeNodeAxes(NodeContext &ctx, ArrayRef<int64_t> axes,
                                       int64_t rank,
                                       SmallVectorImpl<int64_t> &result) {
  for (int64_t axis : axes) {
    std::optional<int64_t> a = normalizeAxis(axis, rank);
    if (!a)
      return ctx.emitError()
             << "axis " << axis << " is out of range for rank " << rank;
    if (llvm::is_contained(result, *a))
      return ctx.emitError() << "axis " << axis << " is repeated";
    result.push_back(*a);
  }
  return success();
}

/// The ranked type of input `i`, failing with a diagnostic when absent.
static FailureOr<RankedTensorType> requireType(NodeContext &ctx, unsigned i,
                                               StringRef what) {
  if (failed(ctx.requireInput(i, what)))
    return failure();
  RankedTensorType type = ctx.inputType(i);
  if (!type)
    return ctx.emitError() << "input " << i << " (" << what
                           << ") must be a ranked tensor";
  return type;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// Unary ops with float parameters, passed on only when the node sets them
/// (the nnc defaults are ONNX's).
template <typename OpTy>
static ConvertFn unaryWithParams(SmallVector<StringRef> params) {
  return [params](NodeContext &ctx) -> LogicalResult {
    FailureOr<Value> x = ctx.requireInput(0, "X");
    if (failed(x))
      return failure();
    AttrList attrs(ctx);
    for (StringRef name : params)
      if (std::optional<double> v = ctx.getOptionalFloat(name))
        attrs.f64(name, *v);
    OpTy op = ctx.create<OpTy>(*x, attrs);
    return op ? ctx.setResult(op) : failure();
  };
}

static LogicalResult convertSum(NodeContext &ctx) {
  if (ctx.numInputs() == 0)
    return ctx.emitError() << "expects at least one input";
  FailureOr<Value> acc = ctx.requireInput(0, "data_0");
  if (failed(acc))
    return failure();
  Value result = *acc;
  for (unsigned i = 1, e = ctx.numInputs(); i < e; ++i) {
    FailureOr<Value> next = ctx.requireInput(i, "data_" + std::to_string(i));
    if (failed(next))
      return failure();
    AddOp add = ctx.create<AddOp>(ValueRange{result, *next});
    if (!add)
      return failure();
    result = add;
  }
  return ctx.setResult(result);
}

/// Where on constants folds through nnc.where's folder.
static LogicalResult convertWhere(NodeContext &ctx) {
  FailureOr<Value> cond = ctx.requireInput(0, "condition");
  FailureOr<Value> tv = ctx.requireInput(1, "X");
  FailureOr<Value> fv = ctx.requireInput(2, "Y");
  if (failed(cond) || failed(tv) || failed(fv))
    return failure();
  WhereOp op = ctx.create<WhereOp>(ValueRange{*cond, *tv, *fv});
  return op ? ctx.setResult(op) : failure();
}

/// Shrink: x < -lambd ? x + bias : (x > lambd ? x - bias : 0).
static LogicalResult convertShrink(NodeContext &ctx) {
  FailureOr<RankedTensorType> type = requireType(ctx, 0, "input");
  if (failed(type))
    return failure();
  Value x = ctx.input(0);
  double lambd = ctx.getFloat("lambd", 0.5);
  double bias = ctx.getFloat("bias", 0.0);
  Type elementType = type->getElementType();
  if (elementType.isInteger(1))
    return ctx.emitError() << "expects a numeric input, got " << elementType;
  Value negLambd = ctx.scalarConstant(elementType, -lambd);
  Value posLambd = ctx.scalarConstant(elementType, lambd);
  Value biasValue = ctx.scalarConstant(elementType, bias);
  Value zero = ctx.scalarConstant(elementType, 0.0);
  auto predicate = [&](CmpPredicate p) {
    return AttrList(ctx).attr("predicate",
                              CmpPredicateAttr::get(ctx.context(), p));
  };
  CmpOp below =
      ctx.create<CmpOp>(ValueRange{x, negLambd}, predicate(CmpPredicate::lt));
  CmpOp above =
      ctx.create<CmpOp>(ValueRange{x, posLambd}, predicate(CmpPredicate::gt));
  if (!below || !above)
    return failure();
  AddOp plus = ctx.create<AddOp>(ValueRange{x, biasValue});
  SubOp minus = ctx.create<SubOp>(ValueRange{x, biasValue});
  if (!plus || !minus)
    return failure();
  WhereOp upper = ctx.create<WhereOp>(ValueRange{above, minus, zero});
  if (!upper)
    return failure();
  WhereOp result = ctx.create<WhereOp>(ValueRange{below, plus, upper});
  return result ? ctx.setResult(result) : failure();
}

//===----------------------------------------------------------------------===//
// Shape queries
//===----------------------------------------------------------------------===//

static LogicalResult convertShape(NodeContext &ctx) {
  FailureOr<RankedTensorType> type = requireType(ctx, 0, "data");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  int64_t start = 0, end = rank;
  if (ctx.opset() >= 15) {
    start = ctx.getInt("start", 0);
    end = ctx.getInt("end", rank);
    // Negative values count from the back; both are clamped to [0, rank].
    if (start < 0)
      start = start < -rank ? 0 : start + rank;
    if (end < 0)
      end = end < -rank ? 0 : end + rank;
    start = std::min(start, rank);
    end = std::min(end, rank);
  }
  // A shape_of of static dimensions folds to a constant.
  start = std::min(start, end);
  Builder b(ctx.context());
  return ctx.setResultOf(ctx.create<ShapeOfOp>(
      ctx.input(0), AttrList(ctx)
                        .attr("start", b.getI64IntegerAttr(start))
                        .attr("end", b.getI64IntegerAttr(end))));
}

static LogicalResult convertSize(NodeContext &ctx) {
  FailureOr<RankedTensorType> type = requireType(ctx, 0, "data");
  if (failed(type))
    return failure();
  if (!type->hasStaticShape()) {
    // The product of the dimensions, known when the run binds them.
    ShapeOfOp shape = ctx.create<ShapeOfOp>(ctx.input(0));
    if (!shape)
      return failure();
    return ctx.setResultOf(ctx.create<ReduceOp>(
        shape.getResult(),
        AttrList(ctx)
            .attr("kind", ReduceKindAttr::get(ctx.context(), ReduceKind::prod))
            .boolean("keepdims", false)));
  }
  std::optional<int64_t> count = getNumElements(type->getShape());
  if (!count)
    return ctx.emitError() << "element count of "
                           << formatShape(type->getShape())
                           << " overflows int64";
  return ctx.setResult(ctx.intConstant({*count}, ArrayRef<int64_t>{}));
}

//===----------------------------------------------------------------------===//
// Slice
//===----------------------------------------------------------------------===//

/// Folds a slice of an integer constant; the parameters are checked here.
static LogicalResult foldSlice(NodeContext &ctx, const IntConstant &input,
                               ArrayRef<int64_t> starts, ArrayRef<int64_t> ends,
                               ArrayRef<int64_t> axes,
                               ArrayRef<int64_t> steps) {
  ArrayRef<int64_t> shape = input.type.getShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> begin(rank, 0), step(rank, 1), size(shape);
  SmallVector<int64_t> seen;
  for (auto [i, axis] : llvm::enumerate(axes)) {
    std::optional<int64_t> a = normalizeAxis(axis, rank);
    if (!a)
      return ctx.emitError()
             << "axis " << axis << " is out of range for rank " << rank;
    if (llvm::is_contained(seen, *a))
      return ctx.emitError() << "axis " << axis << " is repeated";
    seen.push_back(*a);
    int64_t dim = shape[*a], st = steps[i];
    if (st == 0)
      return ctx.emitError() << "steps must not be 0";
    begin[*a] = sliceStart(starts[i], st, dim);
    step[*a] = st;
    size[*a] = sliceSize(starts[i], ends[i], st, dim);
  }
  SmallVector<int64_t> strides = getStrides(shape);
  std::optional<int64_t> total = getNumElements(size);
  SmallVector<int64_t> values, index(rank, 0);
  for (int64_t n = 0; total && n < *total; ++n) {
    int64_t pos = 0;
    for (int64_t d = 0; d < rank; ++d)
      pos += (begin[d] + index[d] * step[d]) * strides[d];
    values.push_back(input.values[pos]);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < size[d])
        break;
      index[d] = 0;
    }
  }
  return setIntResult(
      ctx, RankedTensorType::get(size, input.type.getElementType()), values);
}

/// Slice-10/13 with starts, ends, axes or steps not known at import time
/// (a sequence length from a Shape): nnc.dynamic_slice.
static LogicalResult convertDynamicSlice(NodeContext &ctx,
                                         RankedTensorType type) {
  FailureOr<Value> starts = ctx.shapeOperand(1, "starts");
  if (failed(starts))
    return failure();
  int64_t n = cast<RankedTensorType>(starts->getType()).getDimSize(0);
  FailureOr<Value> ends = ctx.shapeOperand(2, "ends", n);
  if (failed(ends))
    return failure();
  SmallVector<int64_t> defaultAxes, ones(n, 1);
  for (int64_t i = 0; i < n; ++i)
    defaultAxes.push_back(i);
  FailureOr<Value> axes = ctx.hasInput(3) ? ctx.shapeOperand(3, "axes", n)
                                          : ctx.intConstant(defaultAxes);
  FailureOr<Value> steps =
      ctx.hasInput(4) ? ctx.shapeOperand(4, "steps", n) : ctx.intConstant(ones);
  if (failed(axes) || failed(steps))
    return failure();
  Value result = ctx.createDynamic<DynamicSliceOp>(
      ValueRange{ctx.input(0), *starts, *ends, *axes, *steps}, type.getRank(),
      type.getElementType());
  return result ? ctx.setResult(result) : failure();
}

static LogicalResult convertSlice(NodeContext &ctx) {
  FailureOr<RankedTensorType> type = requireType(ctx, 0, "data");
  if (failed(type))
    return failure();
  if (ctx.opset() >= 10 && !ctx.inputsKnown({1, 2, 3, 4}))
    return convertDynamicSlice(ctx, *type);
  SmallVector<int64_t> starts, ends;
  std::optional<SmallVector<int64_t>> axes, steps;
  if (ctx.opset() < 10) {
    std::optional<SmallVector<int64_t>> s = ctx.getOptionalInts("starts");
    std::optional<SmallVector<int64_t>> e = ctx.getOptionalInts("ends");
    if (!s || !e)
      return ctx.emitError()
             << "missing attribute '" << (s ? "ends" : "starts") << "'";
    starts = std::move(*s);
    ends = std::move(*e);
    axes = ctx.getOptionalInts("axes");
  } else {
    FailureOr<SmallVector<int64_t>> s = ctx.constantInts(1, "starts");
    if (failed(s))
      return failure();
    FailureOr<SmallVector<int64_t>> e = ctx.constantInts(2, "ends");
    if (failed(e))
      return failure();
    starts = std::move(*s);
    ends = std::move(*e);
    if (ctx.hasInput(3)) {
      FailureOr<SmallVector<int64_t>> a = ctx.constantInts(3, "axes");
      if (failed(a))
        return failure();
      axes = std::move(*a);
    }
    if (ctx.hasInput(4)) {
      FailureOr<SmallVector<int64_t>> st = ctx.constantInts(4, "steps");
      if (failed(st))
        return failure();
      steps = std::move(*st);
    }
  }
  size_t n = starts.size();
  if (ends.size() != n || (axes && axes->size() != n) ||
      (steps && steps->size() != n))
    return ctx.emitError() << "starts, ends, axes and steps must have equal "
                              "lengths, got "
                           << n << ", " << ends.size() << ", "
                           << (axes ? axes->size() : n) << ", "
                           << (steps ? steps->size() : n);
  if (std::optional<IntConstant> input = getIntConstant(ctx, 0)) {
    SmallVector<int64_t> allAxes, allSteps(n, 1);
    if (axes)
      allAxes = *axes;
    else
      for (size_t i = 0; i < n; ++i)
        allAxes.push_back(i);
    if (steps)
      allSteps = *steps;
    return foldSlice(ctx, *input, starts, ends, allAxes, allSteps);
  }
  AttrList attrs(ctx);
  attrs.i64s("starts", starts).i64s("ends", ends);
  if (axes)
    attrs.i64s("axes", *axes);
  if (steps)
    attrs.i64s("steps", *steps);
  SliceOp op = ctx.create<SliceOp>(ctx.input(0), attrs);
  return op ? ctx.setResult(op) : failure();
}

//===----------------------------------------------------------------------===//
// Squeeze, Unsqueeze, Transpose, Tile, Trilu, SpaceToDepth
//===----------------------------------------------------------------------===//

/// The number of entries of input `i`, a 1-D integer vector not known at
/// import time; 0 when its length is not static (shapeOperand reports it).
static int64_t vectorLength(NodeContext &ctx, unsigned i) {
  RankedTensorType type = ctx.inputType(i);
  return type && type.hasStaticShape() ? type.getNumElements() : 0;
}

/// Squeeze-13 and Unsqueeze-13 with axes not known at import time: the
/// result has `rank` dimensions, none of them known until the axes are.
template <typename OpTy>
static LogicalResult convertDynamicAxes(NodeContext &ctx, int64_t rank) {
  if (rank < 0)
    return ctx.emitError() << "input 1 (axes) has " << vectorLength(ctx, 1)
                           << " entries, more than the rank of input 0 "
                           << ctx.inputType(0);
  auto type =
      RankedTensorType::get(SmallVector<int64_t>(rank, ShapedType::kDynamic),
                            ctx.inputType(0).getElementType());
  SmallVector<Value> results = ctx.createWithDynamicAttrs<OpTy>(
      ctx.input(0), {}, {{1, "axes", "axes", "i64s"}}, Type(type));
  return results.empty() ? failure() : ctx.setResults(results);
}

static LogicalResult convertSqueeze(NodeContext &ctx) {
  FailureOr<RankedTensorType> type = requireType(ctx, 0, "data");
  if (failed(type))
    return failure();
  if (ctx.opset() >= 13 && !ctx.inputsKnown({1}))
    return convertDynamicAxes<SqueezeOp>(ctx, type->getRank() -
                                                  vectorLength(ctx, 1));
  FailureOr<std::optional<SmallVector<int64_t>>> axes = getAxes(ctx, 13, 1);
  if (failed(axes))
    return failure();
  if (std::optional<IntConstant> input = getIntConstant(ctx, 0)) {
    ArrayRef<int64_t> shape = type->getShape();
    SmallVector<int64_t> removed;
    if (*axes) {
      if (failed(normalizeNodeAxes(ctx, **axes, shape.size(), removed)))
        return failure();
      for (int64_t a : removed)
        if (shape[a] != 1)
          return ctx.emitError()
                 << "cannot squeeze dimension " << a << " of size " << shape[a];
    } else {
      for (auto [d, size] : llvm::enumerate(shape))
        if (size == 1)
          removed.push_back(d);
    }
    SmallVector<int64_t> result;
    for (auto [d, size] : llvm::enumerate(shape))
      if (!llvm::is_contained(removed, static_cast<int64_t>(d)))
        result.push_back(size);
    return setIntResult(ctx,
                        RankedTensorType::get(result, type->getElementType()),
                        input->values);
  }
  AttrList attrs(ctx);
  if (*axes)
    attrs.i64s("axes", **axes);
  SqueezeOp op = ctx.create<SqueezeOp>(ctx.input(0), attrs);
  return op ? ctx.setResult(op) : failure();
}

static LogicalResult convertUnsqueeze(NodeContext &ctx) {
  FailureOr<RankedTensorType> type = requireType(ctx, 0, "data");
  if (failed(type))
    return failure();
  if (ctx.opset() >= 13 && !ctx.inputsKnown({1}))
    return convertDynamicAxes<UnsqueezeOp>(ctx, type->getRank() +
                                                    vectorLength(ctx, 1));
  FailureOr<std::optional<SmallVector<int64_t>>> axes = getAxes(ctx, 13, 1);
  if (failed(axes))
    return failure();
  if (!*axes)
    return ctx.opset() < 13
               ? ctx.emitError() << "missing attribute 'axes'"
               : ctx.emitError() << "missing required input 1 (axes)";
  if (std::optional<IntConstant> input = getIntConstant(ctx, 0)) {
    int64_t rank = type->getRank() + static_cast<int64_t>((*axes)->size());
    SmallVector<int64_t> inserted;
    if (failed(normalizeNodeAxes(ctx, **axes, rank, inserted)))
      return failure();
    SmallVector<int64_t> result;
    ArrayRef<int64_t> shape = type->getShape();
    for (int64_t d = 0, k = 0; d < rank; ++d)
      result.push_back(llvm::is_contained(inserted, d) ? 1 : shape[k++]);
    return setIntResult(ctx,
                        RankedTensorType::get(result, type->getElementType()),
                        input->values);
  }
  UnsqueezeOp op =
      ctx.create<UnsqueezeOp>(ctx.input(0), AttrList(ctx).i64s("axes", **axes));
  return op ? ctx.setResult(op) : failure();
}

static LogicalResult convertTranspose(NodeContext &ctx) {
  FailureOr<RankedTensorType> type = requireType(ctx, 0, "data");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  SmallVector<int64_t> perm;
  if (std::optional<SmallVector<int64_t>> p = ctx.getOptionalInts("perm"))
    perm = std::move(*p);
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  if (std::optional<IntConstant> input = getIntConstant(ctx, 0)) {
    SmallVector<bool> used(rank, false);
    if (static_cast<int64_t>(perm.size()) != rank)
      return ctx.emitError() << "perm has " << perm.size()
                             << " entries but the input has rank " << rank;
    for (int64_t p : perm) {
      if (p < 0 || p >= rank || used[p])
        return ctx.emitError()
               << "perm is not a permutation of [0, " << rank << ")";
      used[p] = true;
    }
    ArrayRef<int64_t> shape = type->getShape();
    SmallVector<int64_t> inStrides = getStrides(shape), outShape;
    for (int64_t p : perm)
      outShape.push_back(shape[p]);
    SmallVector<int64_t> values, index(rank, 0);
    for (size_t n = 0, e = input->values.size(); n < e; ++n) {
      int64_t pos = 0;
      for (int64_t d = 0; d < rank; ++d)
        pos += index[d] * inStrides[perm[d]];
      values.push_back(input->values[pos]);
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++index[d] < outShape[d])
          break;
        index[d] = 0;
      }
    }
    return setIntResult(
        ctx, RankedTensorType::get(outShape, type->getElementType()), values);
  }
  TransposeOp op =
      ctx.create<TransposeOp>(ctx.input(0), AttrList(ctx).i64s("perm", perm));
  return op ? ctx.setResult(op) : failure();
}

static LogicalResult convertTile(NodeContext &ctx) {
  FailureOr<Value> input = ctx.requireInput(0, "input");
  if (failed(input))
    return failure();
  if (!ctx.inputsKnown({1})) {
    RankedTensorType type = ctx.inputType(0);
    if (!type)
      return ctx.emitError() << "input 0 (input) is not a ranked tensor";
    FailureOr<Value> repeats = ctx.shapeOperand(1, "repeats", type.getRank());
    if (failed(repeats))
      return failure();
    Value result = ctx.createDynamic<DynamicTileOp>(
        ValueRange{*input, *repeats}, type.getRank(), type.getElementType());
    return result ? ctx.setResult(result) : failure();
  }
  FailureOr<SmallVector<int64_t>> repeats = ctx.constantInts(1, "repeats");
  if (failed(repeats))
    return failure();
  TileOp op =
      ctx.create<TileOp>(*input, AttrList(ctx).i64s("repeats", *repeats));
  return op ? ctx.setResult(op) : failure();
}

static LogicalResult convertTrilu(NodeContext &ctx) {
  FailureOr<Value> input = ctx.requireInput(0, "input");
  if (failed(input))
    return failure();
  AttrList attrs(ctx);
  attrs.boolean("upper", ctx.getInt("upper", 1) != 0);
  if (!ctx.inputsKnown({1})) {
    // k computed from shapes (a causal mask's offset) or given at run time.
    SmallVector<Value> results = ctx.createWithDynamicAttrs<TriluOp>(
        *input, attrs, {{1, "k", "k", "i64"}}, input->getType());
    return results.empty() ? failure() : ctx.setResults(results);
  }
  if (ctx.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> k = ctx.constantInts(1, "k");
    if (failed(k))
      return failure();
    if (k->size() != 1)
      return ctx.emitError() << "k must hold one value, got " << k->size();
    attrs.i64("k", k->front());
  }
  TriluOp op = ctx.create<TriluOp>(*input, attrs);
  return op ? ctx.setResult(op) : failure();
}

static LogicalResult convertSpaceToDepth(NodeContext &ctx) {
  FailureOr<Value> input = ctx.requireInput(0, "input");
  if (failed(input))
    return failure();
  std::optional<int64_t> blocksize = ctx.getOptionalInt("blocksize");
  if (!blocksize)
    return ctx.emitError() << "missing attribute 'blocksize'";
  SpaceToDepthOp op = ctx.create<SpaceToDepthOp>(
      *input, AttrList(ctx).i64("blocksize", *blocksize));
  return op ? ctx.setResult(op) : failure();
}

//===----------------------------------------------------------------------===//
// Split
//===----------------------------------------------------------------------===//

static LogicalResult convertSplit(NodeContext &ctx) {
  FailureOr<RankedTensorType> type = requireType(ctx, 0, "input");
  if (failed(type))
    return failure();
  int64_t axis = ctx.getInt("axis", 0);
  std::optional<int64_t> normalized = normalizeAxis(axis, type->getRank());
  if (!normalized)
    return ctx.emitError() << "axis " << axis << " is out of range for rank "
                           << type->getRank();
  int64_t numOutputs = ctx.numOutputs();
  if (numOutputs == 0)
    return ctx.emitError() << "expects at least one output";
  std::optional<SmallVector<int64_t>> sizes;
  bool sizesInput = ctx.opset() < 2 || ctx.opset() >= 13;
  if (sizesInput && !ctx.inputsKnown({1})) {
    // Sizes computed from shapes or given at run time: each piece keeps the
    // input's dimensions but the split one.
    if (ctx.opset() < 2 && ctx.hasAttr("split"))
      return ctx.emitError()
             << "the split input and the split attribute are exclusive";
    if (ctx.opset() >= 18 && ctx.hasAttr("num_outputs"))
      return ctx.emitError()
             << "the split input and the num_outputs attribute are exclusive";
    SmallVector<int64_t> dims(type->getShape());
    dims[*normalized] = ShapedType::kDynamic;
    SmallVector<Type> types(numOutputs, type->clone(dims));
    SmallVector<Value> results = ctx.createWithDynamicAttrs<SplitOp>(
        ctx.input(0), AttrList(ctx).i64("axis", axis),
        {{1, "split", "sizes", "i64s", numOutputs}}, types);
    return results.empty() ? failure() : ctx.setResults(results);
  }
  if (ctx.opset() < 2 && ctx.hasInput(1)) {
    // Split-1 takes the sizes from the attribute or the optional input.
    if (ctx.hasAttr("split"))
      return ctx.emitError()
             << "the split input and the split attribute are exclusive";
    FailureOr<SmallVector<int64_t>> s = ctx.constantInts(1, "split");
    if (failed(s))
      return failure();
    sizes = std::move(*s);
  } else if (ctx.opset() < 13) {
    sizes = ctx.getOptionalInts("split");
  } else if (ctx.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> s = ctx.constantInts(1, "split");
    if (failed(s))
      return failure();
    sizes = std::move(*s);
  }
  std::optional<int64_t> numOutputsAttr;
  if (ctx.opset() >= 18)
    numOutputsAttr = ctx.getOptionalInt("num_outputs");
  if (sizes && numOutputsAttr)
    return ctx.emitError()
           << "the split input and the num_outputs attribute are exclusive";
  if (numOutputsAttr && *numOutputsAttr != numOutputs)
    return ctx.emitError() << "num_outputs is " << *numOutputsAttr
                           << " but the node has " << numOutputs << " outputs";
  if (ctx.opset() >= 18 && !sizes && !numOutputsAttr)
    return ctx.emitError()
           << "needs either the split input or the num_outputs attribute";
  if (sizes) {
    if (static_cast<int64_t>(sizes->size()) != numOutputs)
      return ctx.emitError()
             << "split has " << sizes->size() << " entries but the node has "
             << numOutputs << " outputs";
  } else {
    int64_t dim = type->getDimSize(*normalized);
    if (ShapedType::isDynamic(dim))
      return ctx.unsupported("equal Split of dynamic dimension " +
                             Twine(*normalized));
    int64_t chunk;
    if (numOutputsAttr) {
      // Opset 18: the last chunk is smaller when the split is uneven.
      chunk = dim / numOutputs + (dim % numOutputs != 0);
      if (chunk * (numOutputs - 1) > dim)
        return ctx.emitError() << "cannot split dimension of size " << dim
                               << " into " << numOutputs << " outputs";
    } else {
      if (dim % numOutputs != 0)
        return ctx.emitError() << "cannot split dimension of size " << dim
                               << " into " << numOutputs << " equal parts";
      chunk = dim / numOutputs;
    }
    sizes.emplace(numOutputs, chunk);
    sizes->back() = dim - chunk * (numOutputs - 1);
  }
  SplitOp op = ctx.create<SplitOp>(
      ctx.input(0), AttrList(ctx).i64("axis", axis).i64s("sizes", *sizes));
  return op ? ctx.setResults(op.getResults()) : failure();
}

//===----------------------------------------------------------------------===//
// Softmax and its loss
//===----------------------------------------------------------------------===//

/// Before opset 13, Softmax flattens the input to 2-D at `axis` (default 1)
/// and normalizes each row; from 13 it normalizes along `axis` (default -1).
static LogicalResult convertSoftmax(NodeContext &ctx) {
  FailureOr<RankedTensorType> type = requireType(ctx, 0, "input");
  if (failed(type))
    return failure();
  Value x = ctx.input(0);
  if (ctx.opset() >= 13) {
    SoftmaxOp op = ctx.create<SoftmaxOp>(
        x, AttrList(ctx).i64("axis", ctx.getInt("axis", -1)));
    return op ? ctx.setResult(op) : failure();
  }
  int64_t rank = type->getRank();
  int64_t axis = ctx.getInt("axis", 1);
  std::optional<int64_t> normalized = normalizeAxis(axis, rank);
  if (!normalized)
    return ctx.emitError() << "axis " << axis << " is out of range for rank "
                           << rank;
  // Normalizing the trailing dimensions as one row only differs from
  // per-axis softmax when more than one dimension follows the axis.
  if (*normalized == rank - 1) {
    SoftmaxOp op = ctx.create<SoftmaxOp>(x, AttrList(ctx).i64("axis", -1));
    return op ? ctx.setResult(op) : failure();
  }
  FlattenOp flat =
      ctx.create<FlattenOp>(x, AttrList(ctx).i64("axis", *normalized));
  if (!flat)
    return failure();
  SoftmaxOp softmax =
      ctx.create<SoftmaxOp>(flat.getResult(), AttrList(ctx).i64("axis", 1));
  if (!softmax)
    return failure();
  ReshapeOp reshape =
      ctx.create<ReshapeOp>(softmax.getResult(), {}, TypeRange{Type(*type)});
  return reshape ? ctx.setResult(reshape) : failure();
}

static LogicalResult convertSoftmaxCrossEntropyLoss(NodeContext &ctx) {
  FailureOr<Value> scores = ctx.requireInput(0, "scores");
  FailureOr<Value> labels = ctx.requireInput(1, "labels");
  if (failed(scores) || failed(labels))
    return failure();
  std::string reductionName = ctx.getString("reduction", "mean");
  std::optional<LossReduction> reduction =
      symbolizeLossReduction(reductionName);
  if (!reduction)
    return ctx.emitError() << "reduction must be none, sum or mean, got '"
                           << reductionName << "'";
  SmallVector<Value> operands{*scores, *labels};
  if (ctx.hasInput(2))
    operands.push_back(ctx.input(2));
  AttrList attrs(ctx);
  attrs.attr("reduction", LossReductionAttr::get(ctx.context(), *reduction));
  if (std::optional<int64_t> ignore = ctx.getOptionalInt("ignore_index"))
    attrs.i64("ignore_index", *ignore);
  CrossEntropyOp loss = ctx.create<CrossEntropyOp>(operands, attrs);
  if (!loss)
    return failure();
  Value logProb;
  if (ctx.hasOutput(1)) {
    LogSoftmaxOp op =
        ctx.create<LogSoftmaxOp>(*scores, AttrList(ctx).i64("axis", 1));
    if (!op)
      return failure();
    logProb = op;
  }
  return ctx.setResults(SmallVector<Value>{loss, logProb});
}

//===----------------------------------------------------------------------===//
// Scatter
//===----------------------------------------------------------------------===//

template <typename OpTy> static LogicalResult convertScatter(NodeContext &ctx) {
  FailureOr<Value> data = ctx.requireInput(0, "data");
  FailureOr<Value> indices = ctx.requireInput(1, "indices");
  FailureOr<Value> updates = ctx.requireInput(2, "updates");
  if (failed(data) || failed(indices) || failed(updates))
    return failure();
  AttrList attrs(ctx);
  if constexpr (std::is_same_v<OpTy, ScatterElementsOp>)
    attrs.i64("axis", ctx.getInt("axis", 0));
  std::string name = ctx.getString("reduction", "none");
  std::optional<ScatterReduction> reduction = symbolizeScatterReduction(name);
  if (!reduction)
    return ctx.emitError()
           << "reduction must be none, add, mul, max or min, got '" << name
           << "'";
  attrs.attr("reduction", ScatterReductionAttr::get(ctx.context(), *reduction));
  OpTy op = ctx.create<OpTy>(ValueRange{*data, *indices, *updates}, attrs);
  return op ? ctx.setResult(op) : failure();
}

//===----------------------------------------------------------------------===//
// TopK
//===----------------------------------------------------------------------===//

/// nnc has no sort, so only k = 1 is expressible: a max (min) reduction for
/// the values and an arg-reduction for the indices, whose tie-breaking (the
/// first occurrence) is TopK's.
static LogicalResult convertTopK(NodeContext &ctx) {
  FailureOr<Value> x = ctx.requireInput(0, "X");
  if (failed(x))
    return failure();
  int64_t k;
  if (ctx.opset() < 10) {
    std::optional<int64_t> attr = ctx.getOptionalInt("k");
    if (!attr)
      return ctx.emitError() << "missing attribute 'k'";
    k = *attr;
  } else {
    FailureOr<SmallVector<int64_t>> values = ctx.constantInts(1, "K");
    if (failed(values))
      return failure();
    if (values->size() != 1)
      return ctx.emitError() << "K must hold one value, got " << values->size();
    k = values->front();
  }
  if (k < 0)
    return ctx.emitError() << "k must be non-negative, got " << k;
  if (k != 1)
    return ctx.unsupported("TopK with k = " + Twine(k) +
                           " (nnc has no sort; only k = 1 is supported)");
  int64_t axis = ctx.getInt("axis", -1);
  bool largest = ctx.opset() < 11 || ctx.getInt("largest", 1) != 0;
  ReduceOp values = ctx.create<ReduceOp>(
      *x, AttrList(ctx)
              .attr("kind", ReduceKindAttr::get(ctx.context(),
                                                largest ? ReduceKind::max
                                                        : ReduceKind::min))
              .i64s("axes", {axis}));
  if (!values)
    return failure();
  ArgReduceOp indices = ctx.create<ArgReduceOp>(
      *x, AttrList(ctx)
              .attr("kind", ArgReduceKindAttr::get(
                                ctx.context(), largest ? ArgReduceKind::argmax
                                                       : ArgReduceKind::argmin))
              .i64("axis", axis));
  if (!indices)
    return failure();
  return ctx.setResults(SmallVector<Value>{values, indices});
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void populateDefaultDomainStoZ(OpRegistry &registry) {
  // Elementwise.
  // Selu-1's defaults were rounded: alpha 1.6732, gamma 1.0507.
  registry.onOp("Selu", 1, [](NodeContext &ctx) -> LogicalResult {
    FailureOr<Value> x = ctx.requireInput(0, "X");
    if (failed(x))
      return failure();
    return ctx.setResultOf(ctx.create<SeluOp>(
        *x, AttrList(ctx)
                .f64("alpha", ctx.getFloat("alpha", 1.6732))
                .f64("gamma", ctx.getFloat("gamma", 1.0507))));
  });
  registry.onOp("Selu", 6, unaryWithParams<SeluOp>({"alpha", "gamma"}));
  registry.onOp("Sigmoid", 1, convertUnary<SigmoidOp>);
  registry.onOp("Sign", 9, convertUnary<SignOp>);
  registry.onOp("Sin", 7, convertUnary<SinOp>);
  registry.onOp("Sinh", 9, convertUnary<SinhOp>);
  registry.onOp("Softplus", 1, convertUnary<SoftplusOp>);
  registry.onOp("Softsign", 1, convertUnary<SoftsignOp>);
  registry.onOp("Sqrt", 1, convertUnary<SqrtOp>);
  registry.onOp("Tan", 7, convertUnary<TanOp>);
  registry.onOp("Tanh", 1, convertUnary<TanhOp>);
  registry.onOp("ThresholdedRelu", 10,
                unaryWithParams<ThresholdedReluOp>({"alpha"}));
  registry.onOp("Shrink", 9, convertShrink);
  registry.onOp("Sub", 7, convertBinary<SubOp>);
  registry.onOp("Sum", 1, convertSum);
  registry.onOp("Where", 9, convertWhere);
  registry.onOp("Xor", 7, convertBinary<XorOp>);

  // Shapes and data movement.
  registry.onOp("Shape", 1, convertShape);
  registry.onOp("Size", 1, convertSize);
  registry.onOp("Slice", 1, convertSlice);
  registry.onOp("Squeeze", 1, convertSqueeze);
  registry.onOp("Unsqueeze", 1, convertUnsqueeze);
  registry.onOp("Transpose", 1, convertTranspose);
  registry.onOp("Tile", 6, convertTile);
  registry.onOp("Trilu", 14, convertTrilu);
  registry.onOp("SpaceToDepth", 1, convertSpaceToDepth);
  registry.onOp("Split", 1, convertSplit);
  registry.onOp("Scatter", 9, convertScatter<ScatterElementsOp>);
  registry.onOp("ScatterElements", 11, convertScatter<ScatterElementsOp>);
  registry.onOp("ScatterND", 11, convertScatter<ScatterNDOp>);
  registry.onOp("TopK", 1, convertTopK);

  // Softmax and losses.
  registry.onOp("Softmax", 1, convertSoftmax);
  registry.onOp("SoftmaxCrossEntropyLoss", 12, convertSoftmaxCrossEntropyLoss);

  // Not expressible in nnc.
  registry.unsupported("Scan", "control flow");
  for (StringRef op :
       {"SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceErase",
        "SequenceInsert", "SequenceLength", "SequenceMap", "SplitToSequence"})
    registry.unsupported(op, "sequences");
  for (StringRef op :
       {"StringConcat", "StringNormalizer", "StringSplit", "TfIdfVectorizer"})
    registry.unsupported(op, "strings");
  registry.unsupported("STFT", "signal processing");
  // Unique (data-dependent output shape) is left unregistered; Upsample is in
  // DefaultDomainLegacy.cpp.
}

} // namespace nnc::onnx_import
