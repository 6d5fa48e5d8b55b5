//===- DefaultDomainNtoR.cpp - ONNX ops N to R
//-----------------------------===//
//
// Converters of the default-domain ONNX ops whose names start with N
// to R, keyed by the opset they apply from.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "nnc/ShapeUtils.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

using namespace mlir;

namespace nnc::onnx_import {

/// Largest constant that folding Range may create, in elements.
static constexpr int64_t kMaxFoldedElements = 1 << 20;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The integer values of a constant integer tensor, sign-extended (i1 is
/// zero-extended).
static SmallVector<int64_t> intValues(DenseElementsAttr attr) {
  SmallVector<int64_t> result;
  bool isBool = attr.getElementType().isInteger(1);
  for (const APInt &v : attr.getValues<APInt>())
    result.push_back(isBool ? v.getZExtValue() : v.getSExtValue());
  return result;
}

/// A constant of `shape` and integer `elementType` holding `values`
/// (truncated to the element width as integer arithmetic wraps).
static DenseElementsAttr intAttr(ArrayRef<int64_t> shape, Type elementType,
                                 ArrayRef<int64_t> values) {
  unsigned width = elementType.getIntOrFloatBitWidth();
  SmallVector<APInt> data;
  for (int64_t v : values)
    data.push_back(APInt(width, v, /*isSigned=*/true, /*implicitTrunc=*/true));
  return DenseElementsAttr::get(RankedTensorType::get(shape, elementType),
                                data);
}

/// The printed form of a type, for messages.
static std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

/// A number as printf's %g writes it ("3", "2.5").
static std::string formatNumber(double value) {
  std::ostringstream os;
  os << value;
  return os.str();
}

/// Casts `value` to `elementType` (same shape) unless it already has it.
static Value castTo(NodeContext &ctx, Value value, Type elementType) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  Type resultType = type.clone(elementType);
  CastOp op = ctx.create<CastOp>(value, {}, TypeRange(resultType));
  return op ? op.getResult() : Value();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Folds a sum/prod/max/min reduction of a constant integer tensor over the
/// normalized, distinct `axes` (all when empty). Returns null when it does
/// not apply.
static DenseElementsAttr foldIntReduce(DenseElementsAttr input, ReduceKind kind,
                                       ArrayRef<int64_t> axes, bool keepdims) {
  if (kind != ReduceKind::sum && kind != ReduceKind::prod &&
      kind != ReduceKind::max && kind != ReduceKind::min)
    return nullptr;
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (!type || !isa<IntegerType>(type.getElementType()) ||
      type.getElementType().isInteger(1) || type.getNumElements() == 0)
    return nullptr;
  int64_t rank = type.getRank();
  SmallVector<bool> reduced(rank, axes.empty());
  for (int64_t axis : axes)
    reduced[axis] = true;
  SmallVector<int64_t> keptShape, outShape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d])
      keptShape.push_back(type.getDimSize(d));
    if (!reduced[d] || keepdims)
      outShape.push_back(reduced[d] ? 1 : type.getDimSize(d));
  }
  int64_t outCount = 1;
  for (int64_t d : keptShape)
    outCount *= d;
  SmallVector<int64_t> in = intValues(input);
  SmallVector<int64_t> out(outCount);
  SmallVector<bool> seen(outCount, false);
  SmallVector<int64_t> index(rank, 0);
  for (int64_t value : in) {
    int64_t o = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[d])
        o = o * type.getDimSize(d) + index[d];
    int64_t &acc = out[o];
    if (!seen[o]) {
      acc = value;
      seen[o] = true;
    } else {
      // Wrap like the element type does; computed unsigned to avoid UB.
      auto wrap = [](uint64_t v) { return static_cast<int64_t>(v); };
      switch (kind) {
      case ReduceKind::sum:
        acc = wrap(static_cast<uint64_t>(acc) + static_cast<uint64_t>(value));
        break;
      case ReduceKind::prod:
        acc = wrap(static_cast<uint64_t>(acc) * static_cast<uint64_t>(value));
        break;
      case ReduceKind::max:
        acc = std::max(acc, value);
        break;
      default:
        acc = std::min(acc, value);
        break;
      }
    }
    // Advance the row-major multi-index.
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < type.getDimSize(d))
        break;
      index[d] = 0;
    }
  }
  return intAttr(outShape, type.getElementType(), out);
}

/// ONNX Reduce*: axes from the attribute (`axesFromInput` false) or from
/// input 1; keepdims; noop_with_empty_axes (input form only).
static LogicalResult convertReduce(NodeContext &ctx, ReduceKind kind,
                                   bool axesFromInput) {
  FailureOr<Value> data = ctx.requireInput(0, "data");
  if (failed(data))
    return failure();
  SmallVector<int64_t> axes;
  bool noop = false;
  bool keepdims = ctx.getInt("keepdims", 1) != 0;
  if (axesFromInput && !ctx.inputsKnown({1})) {
    // Axes computed from shapes or given at run time: the result's rank
    // follows from their number, its dimensions from their values.
    RankedTensorType type = ctx.inputType(0);
    if (!type)
      return ctx.emitError() << "input 0 (data) is not a ranked tensor";
    noop = ctx.getInt("noop_with_empty_axes", 0) != 0;
    RankedTensorType axesType = ctx.inputType(1);
    int64_t n =
        axesType && axesType.hasStaticShape() ? axesType.getNumElements() : 0;
    int64_t rank = type.getRank();
    if (!keepdims)
      rank = n == 0 ? (noop ? rank : 0) : rank - n;
    if (rank < 0)
      return ctx.emitError()
             << "input 1 (axes) has " << n
             << " entries, more than the rank of input 0 " << type;
    AttrList attrs(ctx);
    attrs.attr("kind", ReduceKindAttr::get(ctx.context(), kind))
        .boolean("keepdims", keepdims)
        .boolean("noop_with_empty_axes", noop);
    SmallVector<Value> results = ctx.createWithDynamicAttrs<ReduceOp>(
        *data, attrs, {{1, "axes", "axes", "i64s"}},
        Type(RankedTensorType::get(
            SmallVector<int64_t>(rank, ShapedType::kDynamic),
            type.getElementType())));
    return results.empty() ? failure() : ctx.setResults(results);
  }
  if (axesFromInput) {
    if (ctx.hasInput(1)) {
      FailureOr<SmallVector<int64_t>> values = ctx.constantInts(1, "axes");
      if (failed(values))
        return failure();
      axes = *values;
    }
    noop = ctx.getInt("noop_with_empty_axes", 0) != 0;
  } else {
    axes = ctx.getInts("axes", {});
  }
  if (noop && axes.empty())
    return ctx.setResult(*data);

  // Fold integer shape computations (e.g. ReduceProd of a Shape).
  if (std::optional<DenseElementsAttr> value = ctx.constantInput(0)) {
    SmallVector<int64_t> normalized;
    int64_t rank = cast<ShapedType>(value->getType()).getRank();
    if (succeeded(normalizeAxes(std::nullopt, "", axes, rank, normalized)))
      if (DenseElementsAttr folded =
              foldIntReduce(*value, kind, normalized, keepdims))
        return ctx.setResult(ctx.constant(folded));
  }

  AttrList attrs(ctx);
  attrs.attr("kind", ReduceKindAttr::get(ctx.context(), kind))
      .i64s("axes", axes)
      .boolean("keepdims", keepdims)
      .boolean("noop_with_empty_axes", noop);
  ReduceOp op = ctx.create<ReduceOp>(*data, attrs);
  return op ? ctx.setResult(op) : failure();
}

static void registerReduce(OpRegistry &registry, StringRef name,
                           ReduceKind kind, int64_t axesInputSince) {
  // Reductions kept their semantics from opset 1 (negative axes came at 11
  // and are a superset).
  registry.onOp(name, 1, [kind](NodeContext &ctx) {
    return convertReduce(ctx, kind, /*axesFromInput=*/false);
  });
  registry.onOp(name, axesInputSince, [kind](NodeContext &ctx) {
    return convertReduce(ctx, kind, /*axesFromInput=*/true);
  });
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

/// Reshape-1 (shape attribute), Reshape-5/14 (shape input, which must be
/// known); 0 copies the input dim (unless allowzero), -1 is inferred.
static LogicalResult convertReshape(NodeContext &ctx) {
  FailureOr<Value> data = ctx.requireInput(0, "data");
  if (failed(data))
    return failure();
  RankedTensorType inType = ctx.inputType(0);
  if (!inType)
    return ctx.emitError() << "input 0 (data) is not a ranked tensor";
  FailureOr<SmallVector<int64_t>> shape = failure();
  if (ctx.opset() < 5) {
    std::optional<SmallVector<int64_t>> attr = ctx.getOptionalInts("shape");
    if (!attr)
      return ctx.emitError() << "missing attribute 'shape'";
    shape = std::move(*attr);
  } else {
    if (!ctx.hasInput(1))
      return ctx.emitError() << "missing required input 1 (shape)";
    if (!ctx.inputsKnown({1})) {
      // A target computed from shapes (view(B, T, H, D)): resolved when the
      // run binds the input shapes.
      FailureOr<Value> target = ctx.shapeOperand(1, "shape");
      if (failed(target))
        return failure();
      bool allowZero = ctx.opset() >= 14 && ctx.getInt("allowzero", 0) != 0;
      AttrList attrs(ctx);
      if (allowZero)
        attrs.attr("allowzero", UnitAttr::get(ctx.context()));
      Value result = ctx.createDynamic<DynamicReshapeOp>(
          ValueRange{*data, *target},
          cast<RankedTensorType>(target->getType()).getDimSize(0),
          inType.getElementType(), attrs);
      return result ? ctx.setResult(result) : failure();
    }
    shape = ctx.constantInts(1, "shape");
    if (failed(shape))
      return failure();
  }
  bool allowZero = ctx.opset() >= 14 && ctx.getInt("allowzero", 0) != 0;

  std::string error;
  FailureOr<SmallVector<int64_t>> dims =
      computeReshapeDims(inType.getShape(), *shape, allowZero, error);
  if (failed(dims))
    return ctx.emitError() << error;

  auto resultType = RankedTensorType::get(*dims, inType.getElementType());
  // Fold reshapes of integer constants (shape computations).
  if (std::optional<DenseElementsAttr> value = ctx.constantInput(0))
    if (isa<IntegerType>(value->getElementType()) &&
        resultType.hasStaticShape() &&
        resultType.getNumElements() == value->getNumElements())
      return ctx.setResult(ctx.constant(value->reshape(resultType)));
  ReshapeOp op = ctx.create<ReshapeOp>(*data, {}, TypeRange(resultType));
  return op ? ctx.setResult(op) : failure();
}

/// Pad-1 (`paddings` attribute), Pad-2 (attributes), Pad-11 (pads and
/// constant_value inputs), Pad-18 (axes input), Pad-19 (wrap mode).
static LogicalResult convertPad(NodeContext &ctx) {
  FailureOr<Value> data = ctx.requireInput(0, "data");
  if (failed(data))
    return failure();
  RankedTensorType type = ctx.inputType(0);
  if (!type)
    return ctx.emitError() << "input 0 (data) is not a ranked tensor";
  int64_t rank = type.getRank();

  std::string modeName = ctx.getString("mode", "constant");
  PadMode mode;
  if (modeName == "constant")
    mode = PadMode::constant;
  else if (modeName == "reflect")
    mode = PadMode::reflect;
  else if (modeName == "edge")
    mode = PadMode::edge;
  else if (modeName == "wrap" && ctx.opset() >= 19)
    mode = PadMode::wrap;
  else
    return ctx.unsupported("mode = '" + modeName + "' at opset " +
                           Twine(ctx.opset()));

  SmallVector<int64_t> pads;
  double value = 0.0;
  SmallVector<int64_t> axes;
  bool hasAxes = false, dynamicPads = false;
  if (ctx.opset() < 11) {
    StringRef padsName = ctx.opset() < 2 ? "paddings" : "pads";
    std::optional<SmallVector<int64_t>> attr = ctx.getOptionalInts(padsName);
    if (!attr)
      return ctx.emitError()
             << "missing required attribute '" << padsName << "'";
    pads = *attr;
    value = ctx.getFloat("value", 0.0);
  } else {
    if (!ctx.hasInput(1))
      return ctx.emitError() << "missing required input 1 (pads)";
    if (!ctx.inputsKnown({1})) {
      dynamicPads = true;
    } else {
      FailureOr<SmallVector<int64_t>> values = ctx.constantInts(1, "pads");
      if (failed(values))
        return failure();
      pads = *values;
    }
    if (ctx.hasInput(2)) {
      FailureOr<SmallVector<double>> v =
          ctx.constantFloats(2, "constant_value");
      if (failed(v))
        return failure();
      if (v->size() != 1)
        return ctx.emitError() << "input 2 (constant_value) must hold one "
                               << "value, got " << v->size();
      value = v->front();
    }
    if (ctx.opset() >= 18 && ctx.hasInput(3)) {
      FailureOr<SmallVector<int64_t>> a = ctx.constantInts(3, "axes");
      if (failed(a))
        return failure();
      for (int64_t axis : *a) {
        std::optional<int64_t> norm = normalizeAxis(axis, rank);
        if (!norm)
          return ctx.emitError()
                 << "axis " << axis << " is out of range for rank " << rank;
        if (llvm::is_contained(axes, *norm))
          return ctx.emitError() << "axis " << axis << " is repeated";
        axes.push_back(*norm);
      }
      hasAxes = true;
    }
  }

  AttrList attrs(ctx);
  attrs.attr("mode", PadModeAttr::get(ctx.context(), mode));
  // ONNX ignores the value outside constant mode; nnc requires 0 there.
  if (mode == PadMode::constant)
    attrs.f64("value", value);
  if (dynamicPads) {
    // Pads computed from shapes or given at run time, one begin and one end
    // per dimension.
    if (hasAxes)
      return ctx.unsupported("pads not known at compile time together with "
                             "the axes input");
    auto resultType =
        RankedTensorType::get(SmallVector<int64_t>(rank, ShapedType::kDynamic),
                              type.getElementType());
    SmallVector<Value> results = ctx.createWithDynamicAttrs<PadOp>(
        *data, attrs, {{1, "pads", "pads", "i64s", 2 * rank}},
        Type(resultType));
    return results.empty() ? failure() : ctx.setResults(results);
  }
  if (hasAxes) {
    int64_t n = axes.size();
    if (static_cast<int64_t>(pads.size()) != 2 * n)
      return ctx.emitError()
             << "pads has " << pads.size() << " entries but 2 * " << n
             << " are needed for the given axes";
    SmallVector<int64_t> full(2 * rank, 0);
    for (int64_t i = 0; i < n; ++i) {
      full[axes[i]] = pads[i];
      full[rank + axes[i]] = pads[n + i];
    }
    pads = full;
  } else if (static_cast<int64_t>(pads.size()) != 2 * rank) {
    return ctx.emitError() << "pads has " << pads.size()
                           << " entries but the input has rank " << rank
                           << " (2 * rank are needed)";
  }

  attrs.i64s("pads", pads);
  PadOp op = ctx.create<PadOp>(*data, attrs);
  return op ? ctx.setResult(op) : failure();
}

/// Range-11: folded when start, limit and delta are known integers.
static LogicalResult convertRange(NodeContext &ctx) {
  for (unsigned i = 0; i < 3; ++i)
    if (failed(ctx.requireInput(i, i == 0   ? "start"
                                   : i == 1 ? "limit"
                                            : "delta")))
      return failure();
  RankedTensorType type = ctx.inputType(0);
  if (!type)
    return ctx.emitError() << "input 0 (start) is not a ranked tensor";
  if (!ctx.inputsKnown({0, 1, 2}) || !isa<IntegerType>(type.getElementType())) {
    // Bounds from shapes (the positions 0 .. T-1), or a floating-point
    // range: a constant once the bounds are known.
    for (unsigned i = 1; i < 3; ++i)
      if (ctx.inputType(i) != type)
        return ctx.emitError()
               << "start, limit and delta must have one type, "
               << "got " << type << " and " << ctx.input(i).getType();
    if (type.getRank() != 0)
      return ctx.emitError()
             << "start, limit and delta must be scalars, got " << type;
    Value result = ctx.createDynamic<DynamicRangeOp>(
        ValueRange{ctx.input(0), ctx.input(1), ctx.input(2)}, 1,
        type.getElementType());
    if (!result)
      return failure();
    // Known bounds resolve now.
    auto op = result.getDefiningOp<DynamicRangeOp>();
    SmallVector<Value> resolved;
    if (failed(op.resolve(ctx.builder(), resolved)))
      return failure();
    if (!resolved.empty()) {
      op.erase();
      result = resolved.front();
    }
    return ctx.setResult(result);
  }
  if (!isa<IntegerType>(type.getElementType()))
    return ctx.unsupported("Range of " +
                           Twine(typeString(type.getElementType())) +
                           " values (only integer ranges known at compile "
                           "time fold; nnc has no range op)");
  SmallVector<int64_t> scalars;
  const char *names[] = {"start", "limit", "delta"};
  for (unsigned i = 0; i < 3; ++i) {
    FailureOr<SmallVector<int64_t>> v = ctx.constantInts(i, names[i]);
    if (failed(v))
      return failure();
    if (v->size() != 1)
      return ctx.emitError()
             << "input " << i << " (" << names[i] << ") must be a scalar, got "
             << v->size() << " values";
    scalars.push_back(v->front());
  }
  int64_t start = scalars[0], limit = scalars[1], delta = scalars[2];
  if (delta == 0)
    return ctx.emitError() << "delta is 0";
  // ceil((limit - start) / delta), in 128 bits to avoid overflow.
  __int128 span = static_cast<__int128>(limit) - start;
  __int128 n = span / delta;
  if (n * delta != span)
    n += 1;
  if (n < 0)
    n = 0;
  if (n > kMaxFoldedElements)
    return ctx.unsupported("Range of " + Twine(static_cast<int64_t>(n)) +
                           " elements (at most " + Twine(kMaxFoldedElements) +
                           " are folded)");
  SmallVector<int64_t> values;
  for (int64_t i = 0; i < static_cast<int64_t>(n); ++i)
    values.push_back(
        static_cast<int64_t>(start + static_cast<__int128>(i) * delta));
  return ctx.setResult(ctx.constant(
      intAttr({static_cast<int64_t>(n)}, type.getElementType(), values)));
}

//===----------------------------------------------------------------------===//
// Other ops
//===----------------------------------------------------------------------===//

/// NegativeLogLikelihoodLoss-12: reduction, ignore_index, optional weight.
static LogicalResult convertNllLoss(NodeContext &ctx) {
  FailureOr<Value> input = ctx.requireInput(0, "input");
  FailureOr<Value> target = ctx.requireInput(1, "target");
  if (failed(input) || failed(target))
    return failure();
  std::string reductionName = ctx.getString("reduction", "mean");
  LossReduction reduction;
  if (reductionName == "none")
    reduction = LossReduction::none;
  else if (reductionName == "mean")
    reduction = LossReduction::mean;
  else if (reductionName == "sum")
    reduction = LossReduction::sum;
  else
    return ctx.unsupported("reduction = '" + reductionName + "'");
  SmallVector<Value> operands = {*input, *target};
  if (Value weight = ctx.input(2))
    operands.push_back(weight);
  AttrList attrs(ctx);
  attrs.attr("reduction", LossReductionAttr::get(ctx.context(), reduction));
  if (std::optional<int64_t> ignore = ctx.getOptionalInt("ignore_index"))
    attrs.i64("ignore_index", *ignore);
  NllLossOp op = ctx.create<NllLossOp>(operands, attrs);
  return op ? ctx.setResult(op) : failure();
}

/// OneHot-9/11: depth and values must be known; indices of any numeric type
/// (non-integers are cast to int64 as ONNX specifies).
static LogicalResult convertOneHot(NodeContext &ctx) {
  FailureOr<Value> indices = ctx.requireInput(0, "indices");
  if (failed(indices))
    return failure();
  for (unsigned i : {1u, 2u})
    if (!ctx.hasInput(i))
      return ctx.emitError() << "missing required input " << i << " ("
                             << (i == 1 ? "depth" : "values") << ")";
  FailureOr<SmallVector<double>> depth = ctx.constantFloats(1, "depth");
  if (failed(depth))
    return failure();
  if (depth->size() != 1)
    return ctx.emitError() << "input 1 (depth) must hold one value, got "
                           << depth->size();
  // ONNX casts a non-integer depth to int64.
  double d = std::trunc(depth->front());
  if (!(d >= 1 && d <= std::numeric_limits<int32_t>::max()))
    return ctx.emitError() << "depth " << formatNumber(depth->front())
                           << " must be an integer from 1 to 2^31 - 1";
  FailureOr<SmallVector<double>> values = ctx.constantFloats(2, "values");
  if (failed(values))
    return failure();
  if (values->size() != 2)
    return ctx.emitError() << "input 2 (values) must hold [off_value, "
                           << "on_value], got " << values->size() << " values";
  Type elementType = ctx.constantInput(2)->getElementType();

  Value idx = *indices;
  RankedTensorType idxType = ctx.inputType(0);
  if (!idxType)
    return ctx.emitError() << "input 0 (indices) is not a ranked tensor";
  Type idxElement = idxType.getElementType();
  if (!idxElement.isInteger(32) && !idxElement.isInteger(64)) {
    idx = castTo(ctx, idx, ctx.builder().getI64Type());
    if (!idx)
      return failure();
  }
  AttrList attrs(ctx);
  attrs.i64("depth", static_cast<int64_t>(d))
      .i64("axis", ctx.getInt("axis", -1))
      .f64("on_value", (*values)[1])
      .f64("off_value", (*values)[0])
      .attr("element_type", TypeAttr::get(elementType));
  OneHotOp op = ctx.create<OneHotOp>(idx, attrs);
  return op ? ctx.setResult(op) : failure();
}

/// Pow-7/12/13/15: the exponent is cast to the base's type; integer bases
/// are computed in f64 and rounded back.
static LogicalResult convertPow(NodeContext &ctx) {
  FailureOr<Value> x = ctx.requireInput(0, "X");
  FailureOr<Value> y = ctx.requireInput(1, "Y");
  if (failed(x) || failed(y))
    return failure();
  RankedTensorType xType = ctx.inputType(0), yType = ctx.inputType(1);
  if (!xType || !yType)
    return ctx.emitError() << "operands must be ranked tensors";
  Type xElement = xType.getElementType();
  if (isa<FloatType>(xElement)) {
    Value exponent = castTo(ctx, *y, xElement);
    if (!exponent)
      return failure();
    PowOp op = ctx.create<PowOp>(ValueRange{*x, exponent});
    return op ? ctx.setResult(op) : failure();
  }
  if (!isa<IntegerType>(xElement) || xElement.isInteger(1))
    return ctx.unsupported("Pow of " + Twine(typeString(xElement)));
  Type f64 = ctx.builder().getF64Type();
  Value base = castTo(ctx, *x, f64);
  Value exponent = base ? castTo(ctx, *y, f64) : Value();
  if (!exponent)
    return failure();
  PowOp pow = ctx.create<PowOp>(ValueRange{base, exponent});
  if (!pow)
    return failure();
  RoundOp rounded = ctx.create<RoundOp>(pow.getResult());
  if (!rounded)
    return failure();
  Value result = castTo(ctx, rounded, xElement);
  return result ? ctx.setResult(result) : failure();
}

namespace {
/// Builds the source indices of a nearest-neighbour resize of one axis
/// whose sizes are only known at run time, with ops computing in f64 what
/// convertResize computes at import time for known sizes.
class DynamicResizeIndices {
public:
  DynamicResizeIndices(NodeContext &ctx) : ctx(ctx) {}

  /// The i64 indices, 0 <= index < in, of the `out` elements resized from
  /// `in` (rank-0 i64 values) with the given scale, or out / in without
  /// one; null after an error at the node.
  Value build(Value in, Value out, std::optional<double> givenScale,
              StringRef transform, StringRef nearestMode) {
    Type i64 = ctx.builder().getI64Type();
    Value range = ctx.createDynamic<DynamicRangeOp>(
        ValueRange{ctx.scalarConstant(i64, 0), out, ctx.scalarConstant(i64, 1)},
        1, i64);
    if (!range)
      return nullptr;
    Value xr = toF64(range), fin = toF64(in), fout = toF64(out);
    Value scale = givenScale ? number(*givenScale) : binary<DivOp>(fout, fin);
    Value xo;
    if (transform == "half_pixel" || transform == "pytorch_half_pixel") {
      xo = binary<SubOp>(binary<DivOp>(binary<AddOp>(xr, number(0.5)), scale),
                         number(0.5));
      if (transform == "pytorch_half_pixel")
        xo = where(compare(CmpPredicate::gt, out, ctx.scalarConstant(i64, 1)),
                   xo, number(0));
    } else if (transform == "align_corners") {
      xo = where(compare(CmpPredicate::eq, out, ctx.scalarConstant(i64, 1)),
                 number(0),
                 binary<DivOp>(binary<MulOp>(xr, binary<SubOp>(fin, number(1))),
                               binary<SubOp>(fout, number(1))));
    } else if (transform == "asymmetric") {
      xo = binary<DivOp>(xr, scale);
    } else if (transform == "tf_half_pixel_for_nn") {
      xo = binary<DivOp>(binary<AddOp>(xr, number(0.5)), scale);
    } else { // half_pixel_symmetric
      Value adjustment = binary<DivOp>(fout, binary<MulOp>(scale, fin));
      Value center = binary<DivOp>(fin, number(2));
      xo = binary<SubOp>(
          binary<AddOp>(
              binary<MulOp>(center, binary<SubOp>(number(1), adjustment)),
              binary<DivOp>(binary<AddOp>(xr, number(0.5)), scale)),
          number(0.5));
    }
    // Ties go down (up) with round_prefer_floor (_ceil); the others round
    // to nearest. For the indices that survive the clamp below, x - 0.5 and
    // x + 0.5 are exact.
    Value n;
    if (nearestMode == "floor")
      n = unary<FloorOp>(xo);
    else if (nearestMode == "ceil")
      n = unary<CeilOp>(xo);
    else if (nearestMode == "round_prefer_ceil")
      n = unary<FloorOp>(binary<AddOp>(xo, number(0.5)));
    else
      n = unary<CeilOp>(binary<SubOp>(xo, number(0.5)));
    n = binary<MinOp>(binary<MaxOp>(n, number(0)),
                      binary<SubOp>(fin, number(1)));
    if (failed)
      return nullptr;
    return castTo(ctx, n, i64);
  }

private:
  Value check(Value v) {
    failed |= !v;
    return v;
  }
  Value toF64(Value v) {
    return v && !failed ? check(castTo(ctx, v, ctx.builder().getF64Type()))
                        : check(nullptr);
  }
  Value number(double v) {
    return ctx.scalarConstant(ctx.builder().getF64Type(), v);
  }
  template <typename OpTy> Value unary(Value x) {
    if (failed)
      return nullptr;
    OpTy op = ctx.create<OpTy>(x);
    return check(op ? op.getResult() : Value());
  }
  template <typename OpTy> Value binary(Value a, Value b) {
    if (failed)
      return nullptr;
    OpTy op = ctx.create<OpTy>(ValueRange{a, b});
    return check(op ? op.getResult() : Value());
  }
  Value compare(CmpPredicate predicate, Value a, Value b) {
    if (failed)
      return nullptr;
    CmpOp op = ctx.create<CmpOp>(
        ValueRange{a, b},
        AttrList(ctx).attr("predicate",
                           CmpPredicateAttr::get(ctx.context(), predicate)));
    return check(op ? op.getResult() : Value());
  }
  Value where(Value c, Value a, Value b) {
    if (failed)
      return nullptr;
    WhereOp op = ctx.create<WhereOp>(ValueRange{c, a, b});
    return check(op ? op.getResult() : Value());
  }

  NodeContext &ctx;
  bool failed = false;
};
} // namespace

/// floor(in * scale) for a rank-0 i64 `in` known at run time, in integer
/// ops that shape values evaluate: the float32 `scale` (as ONNX gives it) is
/// m * 2^e exactly, so the product is in * m shifted by e. Null after an
/// error at the node.
static Value scaledSize(NodeContext &ctx, Value in, double scale) {
  int e = 0;
  double fraction = std::frexp(static_cast<float>(scale), &e);
  auto m = static_cast<int64_t>(std::ldexp(fraction, 24));
  e -= 24;
  for (; m % 2 == 0 && e < 0; m /= 2)
    ++e;
  if (e < -40) {
    ctx.emitError() << "scale " << formatNumber(scale)
                    << " is too small to resize a dynamic dimension";
    return nullptr;
  }
  MulOp product = ctx.create<MulOp>(ValueRange{
      in, ctx.intConstant({e >= 0 ? m << e : m}, ArrayRef<int64_t>{})});
  if (!product || e >= 0)
    return product ? product.getResult() : Value();
  DivOp quotient = ctx.create<DivOp>(
      ValueRange{product.getResult(),
                 ctx.intConstant({int64_t(1) << -e}, ArrayRef<int64_t>{})});
  return quotient ? quotient.getResult() : Value();
}

/// Resize where the resized dimensions are dynamic or the sizes (input 3)
/// are only known at run time: to `scales` when given
/// (`F.interpolate(x, scale_factor=2)` on a dynamic height), else to the
/// sizes (`F.interpolate(x, size=y.shape[-2:])`). One gather per axis, with
/// indices computed by DynamicResizeIndices.
static LogicalResult resizeDynamic(NodeContext &ctx, Value x,
                                   ArrayRef<int64_t> axes,
                                   ArrayRef<double> scales, StringRef transform,
                                   StringRef nearestMode) {
  FailureOr<Value> sizes = Value();
  if (scales.empty())
    sizes = ctx.shapeOperand(3, "sizes", axes.size());
  if (failed(sizes))
    return failure();
  auto type = cast<RankedTensorType>(x.getType());
  Value result = x;
  for (auto [k, axis] : llvm::enumerate(axes)) {
    std::optional<double> scale;
    if (!scales.empty()) {
      scale = scales[k];
      if (!(*scale > 0 && *scale < 1e6))
        return ctx.emitError()
               << "scale " << formatNumber(*scale) << " must be positive";
      if (*scale == 1.0)
        continue;
    }
    Value in;
    if (!type.isDynamicDim(axis)) {
      in = ctx.intConstant({type.getDimSize(axis)}, ArrayRef<int64_t>{});
    } else {
      ShapeOfOp dim = ctx.create<ShapeOfOp>(
          x, AttrList(ctx).i64("start", axis).i64("end", axis + 1));
      if (!dim)
        return failure();
      ReshapeOp scalar = ctx.create<ReshapeOp>(
          dim.getResult(), {},
          TypeRange{RankedTensorType::get({}, ctx.builder().getI64Type())});
      if (!scalar)
        return failure();
      in = scalar.getResult();
    }
    Value out;
    if (scale) {
      out = scaledSize(ctx, in, *scale);
    } else {
      int64_t index = static_cast<int64_t>(k);
      GatherOp size = ctx.create<GatherOp>(
          ValueRange{*sizes, ctx.intConstant({index}, ArrayRef<int64_t>{})},
          AttrList(ctx).i64("axis", 0));
      out = size ? size.getResult() : Value();
    }
    if (!out)
      return failure();
    Value indices =
        DynamicResizeIndices(ctx).build(in, out, scale, transform, nearestMode);
    if (!indices)
      return failure();
    GatherOp gather = ctx.create<GatherOp>(ValueRange{result, indices},
                                           AttrList(ctx).i64("axis", axis));
    if (!gather)
      return failure();
    result = gather;
  }
  return ctx.setResult(result);
}

/// Resize-10/11/13/18/19 in `nearest` mode: of static dims to known scales
/// or sizes, one gather with constant indices per resized axis; of dynamic
/// dims, or to sizes known only at run time, resizeDynamic. Interpolating
/// modes have no nnc op.
static LogicalResult convertResize(NodeContext &ctx) {
  FailureOr<Value> x = ctx.requireInput(0, "X");
  if (failed(x))
    return failure();
  RankedTensorType type = ctx.inputType(0);
  if (!type)
    return ctx.emitError() << "input 0 (X) is not a ranked tensor";
  int64_t rank = type.getRank();
  std::string mode = ctx.getString("mode", "nearest");
  if (mode != "nearest")
    return ctx.unsupported("mode = '" + mode +
                           "' (nnc has no interpolation op; only nearest "
                           "resizing maps onto gathers)");
  std::string transform =
      ctx.opset() < 11
          ? "asymmetric"
          : ctx.getString("coordinate_transformation_mode", "half_pixel");
  std::string nearestMode = ctx.getString("nearest_mode", "round_prefer_floor");
  if (transform != "half_pixel" && transform != "pytorch_half_pixel" &&
      transform != "align_corners" && transform != "asymmetric" &&
      transform != "tf_half_pixel_for_nn" &&
      !(transform == "half_pixel_symmetric" && ctx.opset() >= 19))
    return ctx.unsupported("coordinate_transformation_mode = '" + transform +
                           "'");
  if (nearestMode != "round_prefer_floor" &&
      nearestMode != "round_prefer_ceil" && nearestMode != "floor" &&
      nearestMode != "ceil")
    return ctx.unsupported("nearest_mode = '" + nearestMode + "'");
  if (ctx.getString("keep_aspect_ratio_policy", "stretch") != "stretch")
    return ctx.unsupported("keep_aspect_ratio_policy = '" +
                           ctx.getString("keep_aspect_ratio_policy", "") + "'");

  // The resized axes (opset 18 `axes`), all by default.
  SmallVector<int64_t> axes;
  for (int64_t axis : ctx.getInts("axes", {})) {
    std::optional<int64_t> norm = normalizeAxis(axis, rank);
    if (!norm || llvm::is_contained(axes, *norm))
      return ctx.emitError() << "axes has the invalid or repeated axis " << axis
                             << " for rank " << rank;
    axes.push_back(*norm);
  }
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);

  // Scales (input 1 before opset 11, 2 after) or sizes (input 3).
  unsigned scalesIndex = ctx.opset() < 11 ? 1 : 2;
  SmallVector<double> scales;
  SmallVector<int64_t> sizes;
  std::optional<DenseElementsAttr> scalesValue = ctx.constantInput(scalesIndex);
  bool hasScales = ctx.hasInput(scalesIndex) &&
                   !(scalesValue && scalesValue->getNumElements() == 0);
  if (hasScales) {
    FailureOr<SmallVector<double>> v =
        ctx.constantFloats(scalesIndex, "scales");
    if (failed(v))
      return failure();
    scales = *v;
    if (scales.size() != axes.size())
      return ctx.emitError()
             << "scales has " << scales.size() << " entries but " << axes.size()
             << " axes are resized";
    for (auto [k, axis] : llvm::enumerate(axes))
      if (type.isDynamicDim(axis) && scales[k] != 1.0)
        return resizeDynamic(ctx, *x, axes, scales, transform, nearestMode);
  } else if (ctx.opset() >= 11 && ctx.hasInput(3)) {
    bool dynamicDims = llvm::any_of(
        axes, [&](int64_t axis) { return type.isDynamicDim(axis); });
    if (!ctx.inputsKnown({3}) || dynamicDims)
      return resizeDynamic(ctx, *x, axes, {}, transform, nearestMode);
    FailureOr<SmallVector<int64_t>> v = ctx.constantInts(3, "sizes");
    if (failed(v))
      return failure();
    sizes = *v;
    if (sizes.size() != axes.size())
      return ctx.emitError() << "sizes has " << sizes.size() << " entries but "
                             << axes.size() << " axes are resized";
  } else {
    return ctx.emitError() << "needs scales or sizes";
  }

  Value result = *x;
  for (auto [k, axis] : llvm::enumerate(axes)) {
    int64_t in = type.getDimSize(axis);
    double scale;
    int64_t out;
    if (hasScales) {
      scale = scales[k];
      if (!(scale > 0 && scale < 1e6))
        return ctx.emitError()
               << "scale " << formatNumber(scale) << " must be positive";
      if (scale == 1.0)
        continue;
      out = static_cast<int64_t>(std::floor(in * scale));
    } else {
      out = sizes[k];
      if (out < 0)
        return ctx.emitError() << "size " << out << " is negative";
      if (out == in)
        continue;
      scale = in == 0 ? 1.0 : static_cast<double>(out) / in;
    }
    if (in == 0 || out > kMaxFoldedElements)
      return ctx.unsupported("resizing dimension " + Twine(axis) + " from " +
                             Twine(in) + " to " + Twine(out));
    SmallVector<int64_t> indices;
    for (int64_t i = 0; i < out; ++i) {
      double xr = static_cast<double>(i), xo;
      if (transform == "half_pixel")
        xo = (xr + 0.5) / scale - 0.5;
      else if (transform == "pytorch_half_pixel")
        xo = out > 1 ? (xr + 0.5) / scale - 0.5 : 0.0;
      else if (transform == "align_corners")
        xo = out == 1 ? 0.0
                      : xr * static_cast<double>(in - 1) /
                            static_cast<double>(out - 1);
      else if (transform == "asymmetric")
        xo = xr / scale;
      else if (transform == "tf_half_pixel_for_nn")
        xo = (xr + 0.5) / scale;
      else { // half_pixel_symmetric
        double adjustment = out / (scale * in);
        double center = in / 2.0;
        xo = center * (1 - adjustment) + (xr + 0.5) / scale - 0.5;
      }
      double frac = xo - std::floor(xo), n;
      if (nearestMode == "floor")
        n = std::floor(xo);
      else if (nearestMode == "ceil")
        n = std::ceil(xo);
      else if (frac == 0.5)
        n = nearestMode == "round_prefer_ceil" ? std::ceil(xo) : std::floor(xo);
      else
        n = std::round(xo);
      indices.push_back(static_cast<int64_t>(
          std::clamp(n, 0.0, static_cast<double>(in - 1))));
    }
    AttrList attrs(ctx);
    attrs.i64("axis", axis);
    GatherOp gather = ctx.create<GatherOp>(
        ValueRange{result, ctx.intConstant(indices)}, attrs);
    if (!gather)
      return failure();
    result = gather;
  }
  return ctx.setResult(result);
}

/// Ops whose output shapes depend on the input values.
static LogicalResult convertDataDependent(NodeContext &ctx) {
  return ctx.unsupported(ctx.opType() +
                         " has a data-dependent output shape, which nnc's "
                         "static shapes cannot express");
}

void populateDefaultDomainNtoR(OpRegistry &registry) {
  registry.onOp("Neg", 1, convertUnary<NegOp>);
  registry.onOp("NegativeLogLikelihoodLoss", 12, convertNllLoss);
  registry.onOp("NonMaxSuppression", 10, convertDataDependent);
  registry.onOp("NonZero", 9, convertDataDependent);
  registry.onOp("Not", 1, convertUnary<NotOp>);
  registry.onOp("OneHot", 9, convertOneHot);
  registry.unsupported("Optional", "sequences");
  registry.unsupported("OptionalGetElement", "sequences");
  registry.unsupported("OptionalHasElement", "sequences");
  registry.onOp("Or", 7, convertBinary<OrOp>);
  registry.onOp("PRelu", 7, convertBinary<PReluOp>);
  registry.onOp("Pad", 1, convertPad);
  registry.onOp("Pow", 7, convertPow);
  registry.unsupported("QLinearConv", "quantization");
  registry.unsupported("QLinearMatMul", "quantization");
  registry.unsupported("QuantizeLinear", "quantization");
  registry.unsupported("RNN", "recurrent networks");
  registry.unsupported("RandomNormal", "random number generation");
  registry.unsupported("RandomNormalLike", "random number generation");
  registry.unsupported("RandomUniform", "random number generation");
  registry.unsupported("RandomUniformLike", "random number generation");
  registry.onOp("Range", 11, convertRange);
  registry.onOp("Reciprocal", 1, convertUnary<ReciprocalOp>);
  registerReduce(registry, "ReduceL1", ReduceKind::l1, 18);
  registerReduce(registry, "ReduceL2", ReduceKind::l2, 18);
  registerReduce(registry, "ReduceLogSum", ReduceKind::log_sum, 18);
  registerReduce(registry, "ReduceLogSumExp", ReduceKind::log_sum_exp, 18);
  registerReduce(registry, "ReduceMax", ReduceKind::max, 18);
  registerReduce(registry, "ReduceMean", ReduceKind::mean, 18);
  registerReduce(registry, "ReduceMin", ReduceKind::min, 18);
  registerReduce(registry, "ReduceProd", ReduceKind::prod, 18);
  registerReduce(registry, "ReduceSum", ReduceKind::sum, 13);
  registerReduce(registry, "ReduceSumSquare", ReduceKind::sum_square, 18);
  registry.unsupported("RegexFullMatch", "strings");
  registry.onOp("Relu", 1, convertUnary<ReluOp>);
  registry.onOp("Reshape", 1, convertReshape);
  registry.onOp("Resize", 10, convertResize);
  registry.onOp("Round", 11, convertUnary<RoundOp>);
}

} // namespace nnc::onnx_import
