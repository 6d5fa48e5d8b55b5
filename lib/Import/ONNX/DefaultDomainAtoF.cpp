//===- DefaultDomainAtoF.cpp - ONNX ops A to F
//-----------------------------===//
//
// Converters of the default-domain ONNX ops whose names start with A
// to F, keyed by the opset they apply from. Integer shape computations
// (Add, Div, Equal, Concat, Cast, ConstantOfShape, Expand on known values)
// fold to constants at import time.
//
//===----------------------------------------------------------------------===//

#include "DefaultDomainAtoF.h"

#include "nnc/ShapeUtils.h"
#include "nnc/ShapeValues.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

using namespace mlir;

namespace nnc::onnx_import {

namespace {

//===----------------------------------------------------------------------===//
// Constant folding helpers
//===----------------------------------------------------------------------===//

/// Folding materializes every element; shape computations are far smaller.
constexpr int64_t kMaxFoldElements = 1 << 16;

/// Whether `type` is static with at most kMaxFoldElements elements.
bool isFoldable(ShapedType type) {
  if (!type.hasStaticShape())
    return false;
  std::optional<int64_t> n = getNumElements(type.getShape());
  return n && *n <= kMaxFoldElements;
}

/// The values of an integer (or i1) constant, sign-extended (i1: 0 or 1).
SmallVector<int64_t> intValues(DenseElementsAttr attr) {
  SmallVector<int64_t> result;
  bool isBool = attr.getElementType().isInteger(1);
  for (const APInt &v : attr.getValues<APInt>())
    result.push_back(isBool ? v.getZExtValue() : v.getSExtValue());
  return result;
}

/// Input `i` when it is a known integer (or i1) constant small enough to
/// fold.
std::optional<DenseElementsAttr> foldableIntInput(NodeContext &ctx,
                                                  unsigned i) {
  std::optional<DenseElementsAttr> value = ctx.constantInput(i);
  if (!value || !isa<IntegerType>(value->getElementType()) ||
      !isFoldable(value->getType()))
    return std::nullopt;
  return value;
}

/// For each element of `resultShape`, the index of the element of an
/// operand of `shape` that numpy broadcasting reads.
SmallVector<int64_t> broadcastIndices(ArrayRef<int64_t> shape,
                                      ArrayRef<int64_t> resultShape) {
  int64_t total = 1;
  for (int64_t d : resultShape)
    total *= d;
  SmallVector<int64_t> result;
  result.reserve(total);
  size_t rank = resultShape.size(), offset = rank - shape.size();
  SmallVector<int64_t> index(rank, 0);
  for (int64_t n = 0; n < total; ++n) {
    int64_t flat = 0;
    for (size_t d = offset; d < rank; ++d) {
      int64_t dim = shape[d - offset];
      flat = flat * dim + (dim == 1 ? 0 : index[d]);
    }
    result.push_back(flat);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < resultShape[d])
        break;
      index[d] = 0;
    }
  }
  return result;
}

} // namespace

namespace atof {
//===----------------------------------------------------------------------===//
// Small helpers
//===----------------------------------------------------------------------===//

/// Input `i` with its ranked type; fails naming `what` when absent.
FailureOr<std::pair<Value, RankedTensorType>>
rankedInput(NodeContext &ctx, unsigned i, StringRef what) {
  FailureOr<Value> v = ctx.requireInput(i, what);
  if (failed(v))
    return failure();
  auto type = dyn_cast<RankedTensorType>(v->getType());
  if (!type)
    return ctx.emitError() << "input " << i << " (" << what
                           << ") must be a ranked tensor";
  return std::make_pair(*v, type);
}

/// A single value known at import time from optional input `i`; `fallback`
/// when the input is absent.
FailureOr<std::optional<double>>
optionalScalarFloat(NodeContext &ctx, unsigned i, StringRef what) {
  if (!ctx.hasInput(i))
    return std::optional<double>();
  FailureOr<SmallVector<double>> values = ctx.constantFloats(i, what);
  if (failed(values))
    return failure();
  if (values->size() != 1)
    return ctx.emitError() << "input " << i << " (" << what
                           << ") must hold one value, got " << values->size();
  return std::optional<double>((*values)[0]);
}

/// Reshapes `value` to `shape` unless it already has it; fails (with an
/// "unsupported" error naming `why`) when the target has more than one
/// dynamic dimension, which a reshape cannot resolve.
FailureOr<Value> reshapeTo(NodeContext &ctx, Value value,
                           ArrayRef<int64_t> shape, StringRef why) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  if (llvm::count_if(shape, isDynamicDim) > 1) {
    (void)ctx.unsupported(Twine(why) + " needs a reshape to " +
                          formatShape(shape) +
                          " with more than one dynamic dimension");
    return failure();
  }
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  ReshapeOp op = ctx.create<ReshapeOp>(value, {}, TypeRange{resultType});
  if (!op)
    return failure();
  return op.getResult();
}

} // namespace atof

namespace {
using namespace atof;

//===----------------------------------------------------------------------===//
// Elementwise and folding converters
//===----------------------------------------------------------------------===//

// Add, Div and Equal on constants fold through the nnc ops' folders (see
// NodeContext::setResults), broadcasting included.
LogicalResult convertEqual(NodeContext &ctx) {
  FailureOr<Value> a = ctx.requireInput(0, "A");
  FailureOr<Value> b = ctx.requireInput(1, "B");
  if (failed(a) || failed(b))
    return failure();
  return ctx.setResultOf(ctx.create<CmpOp>(
      ValueRange{*a, *b},
      AttrList(ctx).attr("predicate", CmpPredicateAttr::get(
                                          ctx.context(), CmpPredicate::eq))));
}

/// BitwiseNot: x ^ -1 (all bits set).
LogicalResult convertBitwiseNot(NodeContext &ctx) {
  auto x = rankedInput(ctx, 0, "X");
  if (failed(x))
    return failure();
  Type element = x->second.getElementType();
  if (!isa<IntegerType>(element) || element.isInteger(1))
    return ctx.emitError() << "expects an integer input, got " << element;
  Value allOnes = ctx.scalarConstant(element, -1);
  return ctx.setResultOf(ctx.create<XorOp>(ValueRange{x->first, allOnes}));
}

LogicalResult convertElu(NodeContext &ctx) {
  auto x = rankedInput(ctx, 0, "X");
  if (failed(x))
    return failure();
  return ctx.setResultOf(ctx.create<EluOp>(
      x->first, AttrList(ctx).f64("alpha", ctx.getFloat("alpha", 1.0))));
}

LogicalResult convertCelu(NodeContext &ctx) {
  auto x = rankedInput(ctx, 0, "X");
  if (failed(x))
    return failure();
  return ctx.setResultOf(ctx.create<CeluOp>(
      x->first, AttrList(ctx).f64("alpha", ctx.getFloat("alpha", 1.0))));
}

/// Clip before opset 11: bounds are attributes (absent means unbounded).
LogicalResult convertClipAttrs(NodeContext &ctx) {
  auto x = rankedInput(ctx, 0, "input");
  if (failed(x))
    return failure();
  AttrList attrs(ctx);
  if (ctx.hasAttr("min"))
    attrs.f64("min", ctx.getFloat("min", 0.0));
  if (ctx.hasAttr("max"))
    attrs.f64("max", ctx.getFloat("max", 0.0));
  return ctx.setResultOf(ctx.create<ClipOp>(x->first, attrs));
}

/// Clip from opset 11: bounds are optional inputs. Known bounds become
/// nnc.clip attributes; bounds computed at run time become nnc.max/nnc.min,
/// the lower bound applied first as ONNX does (min > max gives max).
LogicalResult convertClipInputs(NodeContext &ctx) {
  auto x = rankedInput(ctx, 0, "input");
  if (failed(x))
    return failure();
  static constexpr const char *names[] = {"", "min", "max"};
  bool allKnown = true;
  for (unsigned i = 1; i <= 2; ++i)
    allKnown &= !ctx.hasInput(i) || ctx.constantInput(i).has_value();
  AttrList attrs(ctx);
  Value result = x->first;
  for (unsigned i = 1; i <= 2; ++i) {
    if (!ctx.hasInput(i))
      continue;
    if (ctx.constantInput(i)) {
      FailureOr<std::optional<double>> v =
          optionalScalarFloat(ctx, i, names[i]);
      if (failed(v))
        return failure();
      if (allKnown) {
        attrs.f64(names[i], **v);
        continue;
      }
      auto clip = ctx.create<ClipOp>(result, AttrList(ctx).f64(names[i], **v));
      if (!clip)
        return failure();
      result = clip;
      continue;
    }
    auto bound = rankedInput(ctx, i, names[i]);
    if (failed(bound))
      return failure();
    if (bound->second.getRank() != 0)
      return ctx.emitError()
             << "input " << i << " (" << names[i]
             << ") must be a scalar, got rank " << bound->second.getRank();
    Operation *op =
        i == 1
            ? ctx.create<MaxOp>(ValueRange{result, bound->first}).getOperation()
            : ctx.create<MinOp>(ValueRange{result, bound->first})
                  .getOperation();
    if (!op)
      return failure();
    result = op->getResult(0);
  }
  if (!allKnown)
    return ctx.setResult(result);
  return ctx.setResultOf(ctx.create<ClipOp>(result, attrs));
}

/// Converts `value` (an integer constant) to `element`.
DenseElementsAttr castIntConstant(DenseElementsAttr value, Type element) {
  auto type = RankedTensorType::get(value.getType().getShape(), element);
  SmallVector<int64_t> ints = intValues(value);
  if (isa<IntegerType>(element))
    return getIntsAttr(type, ints);
  auto floatType = cast<FloatType>(element);
  SmallVector<APFloat> floats;
  for (int64_t v : ints) {
    APFloat f(floatType.getFloatSemantics());
    (void)f.convertFromAPInt(APInt(64, v, /*isSigned=*/true),
                             /*IsSigned=*/true, APFloat::rmNearestTiesToEven);
    floats.push_back(f);
  }
  return DenseElementsAttr::get(type, floats);
}

/// Casts input 0 to `element`, folding integer constants.
LogicalResult castTo(NodeContext &ctx, Type element) {
  auto x = rankedInput(ctx, 0, "input");
  if (failed(x))
    return failure();
  if (x->second.getElementType() == element)
    return ctx.setResult(x->first);
  if (std::optional<DenseElementsAttr> value = foldableIntInput(ctx, 0))
    return ctx.setResult(ctx.constant(castIntConstant(*value, element)));
  auto type = RankedTensorType::get(x->second.getShape(), element);
  return ctx.setResultOf(ctx.create<CastOp>(x->first, {}, TypeRange{type}));
}

LogicalResult convertCast(NodeContext &ctx) {
  std::optional<int64_t> to;
  if (ctx.opset() < 6) {
    // Cast-1 names the type as a string, e.g. "FLOAT".
    std::string name = ctx.getString("to", "");
    if (name.empty())
      return ctx.emitError() << "missing attribute 'to'";
    for (int type = 1; type < 64 && !to; ++type)
      if (dataTypeName(type) == name)
        to = type;
    if (!to)
      return ctx.emitError()
             << "attribute 'to' names the unknown type '" << name << "'";
  } else {
    to = ctx.getOptionalInt("to");
  }
  if (!to)
    return ctx.emitError() << "missing attribute 'to'";
  std::string reason;
  Type element = convertDataType(ctx.context(), *to, reason);
  if (!element)
    return ctx.unsupported("cast to " + Twine(reason));
  return castTo(ctx, element);
}

LogicalResult convertCastLike(NodeContext &ctx) {
  auto target = rankedInput(ctx, 1, "target_type");
  if (failed(target))
    return failure();
  return castTo(ctx, target->second.getElementType());
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

LogicalResult convertConstant(NodeContext &ctx) {
  Builder b(ctx.context());
  for (StringRef name : {"sparse_value", "value_string", "value_strings"})
    if (ctx.hasAttr(name))
      return ctx.unsupported("attribute '" + Twine(name) + "'");
  if (ctx.hasAttr("value")) {
    FailureOr<DenseElementsAttr> value = ctx.getTensor("value");
    if (failed(value))
      return failure();
    return ctx.setResult(ctx.constant(*value));
  }
  if (std::optional<double> f = ctx.getOptionalFloat("value_float"))
    return ctx.setResult(ctx.constant(DenseElementsAttr::get(
        RankedTensorType::get({}, b.getF32Type()), static_cast<float>(*f))));
  if (ctx.hasAttr("value_floats")) {
    SmallVector<float> values;
    for (double f : ctx.getFloats("value_floats"))
      values.push_back(static_cast<float>(f));
    auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                      b.getF32Type());
    return ctx.setResult(
        ctx.constant(DenseElementsAttr::get(type, ArrayRef<float>(values))));
  }
  if (std::optional<int64_t> i = ctx.getOptionalInt("value_int"))
    return ctx.setResult(ctx.intConstant({*i}, ArrayRef<int64_t>{}));
  if (ctx.hasAttr("value_ints"))
    return ctx.setResult(ctx.intConstant(ctx.getInts("value_ints", {})));
  return ctx.emitError() << "has no value attribute (value, value_float, "
                            "value_floats, value_int or value_ints)";
}

/// The `value` attribute of ConstantOfShape (one element; default f32 0).
static FailureOr<DenseElementsAttr> fillValue(NodeContext &ctx) {
  if (!ctx.hasAttr("value"))
    return DenseElementsAttr::get(
        RankedTensorType::get({}, Float32Type::get(ctx.context())), 0.0f);
  FailureOr<DenseElementsAttr> attr = ctx.getTensor("value");
  if (failed(attr))
    return failure();
  if (attr->getNumElements() != 1)
    return ctx.emitError() << "attribute 'value' must hold one element, got "
                           << attr->getNumElements();
  return *attr;
}

LogicalResult convertConstantOfShape(NodeContext &ctx) {
  if (!ctx.inputsKnown({0})) {
    // A shape computed from shapes: the broadcast of the value.
    FailureOr<Value> shape = ctx.shapeOperand(0, "shape");
    FailureOr<DenseElementsAttr> value = fillValue(ctx);
    if (failed(shape) || failed(value))
      return failure();
    auto scalarType = RankedTensorType::get({}, value->getElementType());
    Value scalar = ctx.constant(
        DenseElementsAttr::get(scalarType, value->getValues<Attribute>()[0]));
    Value result = ctx.createDynamic<DynamicExpandOp>(
        ValueRange{scalar, *shape},
        cast<RankedTensorType>(shape->getType()).getDimSize(0),
        value->getElementType());
    return result ? ctx.setResult(result) : failure();
  }
  FailureOr<SmallVector<int64_t>> shape = ctx.constantInts(0, "shape");
  if (failed(shape))
    return failure();
  for (int64_t d : *shape)
    if (d < 0)
      return ctx.emitError()
             << "shape " << formatShape(*shape) << " has a negative dimension";
  if (!getNumElements(*shape))
    return ctx.emitError() << "shape " << formatShape(*shape)
                           << " has too many elements";
  FailureOr<DenseElementsAttr> value = fillValue(ctx);
  if (failed(value))
    return failure();
  auto type = RankedTensorType::get(*shape, value->getElementType());
  return ctx.setResult(ctx.constant(
      DenseElementsAttr::get(type, value->getValues<Attribute>()[0])));
}

LogicalResult convertEyeLike(NodeContext &ctx) {
  auto x = rankedInput(ctx, 0, "input");
  if (failed(x))
    return failure();
  RankedTensorType type = x->second;
  if (type.getRank() != 2)
    return ctx.emitError() << "expects a 2-D input, got rank "
                           << type.getRank();
  if (!type.hasStaticShape())
    return ctx.unsupported("EyeLike of a dynamic shape " +
                           Twine(formatShape(type.getShape())));
  Type element = type.getElementType();
  if (std::optional<int64_t> dtype = ctx.getOptionalInt("dtype")) {
    std::string reason;
    element = convertDataType(ctx.context(), *dtype, reason);
    if (!element)
      return ctx.unsupported("dtype: " + Twine(reason));
  }
  int64_t cols = type.getDimSize(1);
  constexpr int64_t kMaxEyeElements = int64_t(1) << 24;
  std::optional<int64_t> count = getNumElements(type.getShape());
  if (!count || *count > kMaxEyeElements)
    return ctx.unsupported("EyeLike of " + Twine(formatShape(type.getShape())) +
                           " (more than 2^24 elements)");
  int64_t k = ctx.getInt("k", 0);
  auto resultType = RankedTensorType::get(type.getShape(), element);
  auto isOne = [&](int64_t n) { return n % cols - n / cols == k; };
  if (auto floatType = dyn_cast<FloatType>(element)) {
    const llvm::fltSemantics &sem = floatType.getFloatSemantics();
    SmallVector<APFloat> values(*count, APFloat::getZero(sem));
    for (int64_t n = 0; n < *count; ++n)
      if (isOne(n))
        values[n] = APFloat::getOne(sem);
    return ctx.setResult(
        ctx.constant(DenseElementsAttr::get(resultType, values)));
  }
  SmallVector<int64_t> values(*count, 0);
  for (int64_t n = 0; n < *count; ++n)
    values[n] = isOne(n);
  return ctx.setResult(ctx.constant(getIntsAttr(resultType, values)));
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult convertConcat(NodeContext &ctx) {
  std::optional<int64_t> axis = ctx.getOptionalInt("axis");
  // Concat-1's axis is optional and defaults to 1.
  if (!axis && ctx.opset() < 4)
    axis = 1;
  if (!axis)
    return ctx.emitError() << "missing attribute 'axis'";
  if (ctx.numInputs() == 0)
    return ctx.emitError() << "expects at least one input";
  SmallVector<Value> inputs;
  for (unsigned i = 0, e = ctx.numInputs(); i < e; ++i) {
    FailureOr<Value> v = ctx.requireInput(i, "inputs");
    if (failed(v))
      return failure();
    inputs.push_back(*v);
  }
  // Fold known integer pieces (shape vectors being assembled).
  SmallVector<DenseElementsAttr> pieces;
  for (unsigned i = 0, e = ctx.numInputs(); i < e; ++i)
    if (std::optional<DenseElementsAttr> c = foldableIntInput(ctx, i))
      pieces.push_back(*c);
  if (pieces.size() == inputs.size()) {
    auto first = cast<RankedTensorType>(pieces[0].getType());
    int64_t rank = first.getRank();
    std::optional<int64_t> a = normalizeAxis(*axis, rank);
    bool ok = a.has_value();
    SmallVector<int64_t> shape(first.getShape());
    for (DenseElementsAttr p : ArrayRef(pieces).drop_front()) {
      auto t = cast<RankedTensorType>(p.getType());
      if (!ok || t.getElementType() != first.getElementType() ||
          t.getRank() != rank) {
        ok = false;
        break;
      }
      for (int64_t d = 0; d < rank; ++d)
        if (d != *a && t.getDimSize(d) != shape[d])
          ok = false;
      if (ok)
        shape[*a] += t.getDimSize(*a);
    }
    std::optional<int64_t> count = ok ? getNumElements(shape) : std::nullopt;
    if (ok && count && *count <= kMaxFoldElements) {
      int64_t outer = 1;
      for (int64_t d = 0; d < *a; ++d)
        outer *= shape[d];
      SmallVector<SmallVector<int64_t>> values;
      SmallVector<int64_t> chunk;
      for (DenseElementsAttr p : pieces) {
        values.push_back(intValues(p));
        chunk.push_back(outer ? p.getNumElements() / outer : 0);
      }
      SmallVector<int64_t> result;
      for (int64_t o = 0; o < outer; ++o)
        for (size_t i = 0; i < pieces.size(); ++i)
          llvm::append_range(result,
                             ArrayRef(values[i]).slice(o * chunk[i], chunk[i]));
      return ctx.setResult(ctx.constant(getIntsAttr(
          RankedTensorType::get(shape, first.getElementType()), result)));
    }
  }
  return ctx.setResultOf(
      ctx.create<ConcatOp>(inputs, AttrList(ctx).i64("axis", *axis)));
}

LogicalResult convertExpand(NodeContext &ctx) {
  auto x = rankedInput(ctx, 0, "input");
  if (failed(x))
    return failure();
  if (!ctx.inputsKnown({1})) {
    // expand(B, -1, -1) and the like: resolved when the run binds shapes.
    FailureOr<Value> target = ctx.shapeOperand(1, "shape");
    if (failed(target))
      return failure();
    int64_t rank = std::max<int64_t>(
        x->second.getRank(),
        cast<RankedTensorType>(target->getType()).getDimSize(0));
    Value result = ctx.createDynamic<DynamicExpandOp>(
        ValueRange{x->first, *target}, rank, x->second.getElementType());
    return result ? ctx.setResult(result) : failure();
  }
  FailureOr<SmallVector<int64_t>> shape = ctx.constantInts(1, "shape");
  if (failed(shape))
    return failure();
  for (int64_t d : *shape)
    if (d < 0)
      return ctx.emitError()
             << "shape " << formatShape(*shape) << " has a negative dimension";
  SmallVector<int64_t> result;
  if (!broadcastShapes(x->second.getShape(), *shape, result))
    return ctx.emitError() << "cannot broadcast input of shape "
                           << formatShape(x->second.getShape()) << " to shape "
                           << formatShape(*shape);
  auto type = RankedTensorType::get(result, x->second.getElementType());
  if (std::optional<DenseElementsAttr> value = foldableIntInput(ctx, 0)) {
    std::optional<int64_t> count = getNumElements(result);
    if (count && *count <= kMaxFoldElements) {
      SmallVector<int64_t> in = intValues(*value), out;
      for (int64_t i : broadcastIndices(value->getType().getShape(), result))
        out.push_back(in[i]);
      return ctx.setResult(ctx.constant(getIntsAttr(type, out)));
    }
  }
  return ctx.setResultOf(ctx.create<ExpandOp>(x->first, {}, TypeRange{type}));
}

LogicalResult convertFlatten(NodeContext &ctx) {
  auto x = rankedInput(ctx, 0, "input");
  if (failed(x))
    return failure();
  int64_t axis = ctx.getInt("axis", 1);
  if (ctx.opset() < 11 && axis < 0)
    return ctx.emitError() << "axis " << axis
                           << " must be non-negative before opset 11";
  return ctx.setResultOf(
      ctx.create<FlattenOp>(x->first, AttrList(ctx).i64("axis", axis)));
}

LogicalResult convertDepthToSpace(NodeContext &ctx) {
  auto x = rankedInput(ctx, 0, "input");
  if (failed(x))
    return failure();
  std::optional<int64_t> blocksize = ctx.getOptionalInt("blocksize");
  if (!blocksize)
    return ctx.emitError() << "missing attribute 'blocksize'";
  std::string mode = ctx.opset() >= 11 ? ctx.getString("mode", "DCR") : "DCR";
  if (mode != "DCR" && mode != "CRD")
    return ctx.unsupported("mode '" + Twine(mode) + "'");
  Builder b(ctx.context());
  return ctx.setResultOf(ctx.create<DepthToSpaceOp>(
      x->first, AttrList(ctx)
                    .i64("blocksize", *blocksize)
                    .attr("mode", b.getStringAttr(mode))));
}

/// CenterCropPad: one nnc.pad whose negative amounts crop.
LogicalResult convertCenterCropPad(NodeContext &ctx) {
  auto x = rankedInput(ctx, 0, "input_data");
  if (failed(x))
    return failure();
  FailureOr<SmallVector<int64_t>> shape = ctx.constantInts(1, "shape");
  if (failed(shape))
    return failure();
  int64_t rank = x->second.getRank();
  SmallVector<int64_t> axes;
  if (std::optional<SmallVector<int64_t>> attr = ctx.getOptionalInts("axes")) {
    for (int64_t axis : *attr) {
      std::optional<int64_t> a = normalizeAxis(axis, rank);
      if (!a)
        return ctx.emitError()
               << "axis " << axis << " is out of range for rank " << rank;
      if (llvm::is_contained(axes, *a))
        return ctx.emitError() << "axis " << axis << " is repeated";
      axes.push_back(*a);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  if (shape->size() != axes.size())
    return ctx.emitError() << "shape has " << shape->size() << " entries for "
                           << axes.size() << " axes";
  SmallVector<int64_t> pads(2 * rank, 0);
  for (auto [axis, target] : llvm::zip(axes, *shape)) {
    int64_t dim = x->second.getDimSize(axis);
    if (target < 0)
      return ctx.emitError() << "shape entry " << target << " is negative";
    if (isDynamicDim(dim))
      return ctx.unsupported("CenterCropPad of dynamic dimension " +
                             Twine(axis));
    int64_t diff = target - dim, half = std::abs(diff) / 2;
    pads[axis] = diff < 0 ? -half : half;
    pads[axis + rank] = diff - pads[axis];
  }
  return ctx.setResultOf(
      ctx.create<PadOp>(x->first, AttrList(ctx).i64s("pads", pads)));
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

LogicalResult convertArgReduce(NodeContext &ctx, ArgReduceKind kind) {
  auto x = rankedInput(ctx, 0, "data");
  if (failed(x))
    return failure();
  AttrList attrs(ctx);
  attrs.attr("kind", ArgReduceKindAttr::get(ctx.context(), kind))
      .i64("axis", ctx.getInt("axis", 0))
      .boolean("keepdims", ctx.getInt("keepdims", 1) != 0)
      .boolean("select_last_index", ctx.getInt("select_last_index", 0) != 0);
  return ctx.setResultOf(ctx.create<ArgReduceOp>(x->first, attrs));
}

LogicalResult convertCumSum(NodeContext &ctx) {
  auto x = rankedInput(ctx, 0, "x");
  if (failed(x))
    return failure();
  AttrList attrs(ctx);
  attrs.boolean("exclusive", ctx.getInt("exclusive", 0) != 0)
      .boolean("reverse", ctx.getInt("reverse", 0) != 0);
  if (ctx.hasInput(1) && !ctx.inputsKnown({1})) {
    SmallVector<Value> results = ctx.createWithDynamicAttrs<CumSumOp>(
        x->first, attrs, {{1, "axis", "axis", "i64"}}, x->first.getType());
    return results.empty() ? failure() : ctx.setResults(results);
  }
  FailureOr<SmallVector<int64_t>> axis = ctx.constantInts(1, "axis");
  if (failed(axis))
    return failure();
  if (axis->size() != 1)
    return ctx.emitError() << "input 1 (axis) must hold one value, got "
                           << axis->size();
  attrs.i64("axis", (*axis)[0]);
  return ctx.setResultOf(ctx.create<CumSumOp>(x->first, attrs));
}

} // namespace

void populateDefaultDomainAtoF(OpRegistry &registry) {
  // Unary elementwise ops, from their introduction (opset 1 forms differ
  // only by the ignored consumed_inputs attribute).
  registry.onOp("Abs", 1, convertUnary<AbsOp>);
  registry.onOp("Acos", 7, convertUnary<AcosOp>);
  registry.onOp("Acosh", 9, convertUnary<AcoshOp>);
  registry.onOp("Asin", 7, convertUnary<AsinOp>);
  registry.onOp("Asinh", 9, convertUnary<AsinhOp>);
  registry.onOp("Atan", 7, convertUnary<AtanOp>);
  registry.onOp("Atanh", 9, convertUnary<AtanhOp>);
  registry.onOp("Ceil", 1, convertUnary<CeilOp>);
  registry.onOp("Cos", 7, convertUnary<CosOp>);
  registry.onOp("Cosh", 9, convertUnary<CoshOp>);
  registry.onOp("Erf", 9, convertUnary<ErfOp>);
  registry.onOp("Exp", 1, convertUnary<ExpOp>);
  registry.onOp("Floor", 1, convertUnary<FloorOp>);
  registry.onOp("Elu", 1, convertElu);
  registry.onOp("Celu", 12, convertCelu);
  registry.onOp("Clip", 1, convertClipAttrs);
  registry.onOp("Clip", 11, convertClipInputs);

  // Binary elementwise ops; integer constants fold. Their limited-broadcast
  // forms before opset 7 are in DefaultDomainLegacy.cpp.
  registry.onOp("Add", 7, convertBinary<AddOp>);
  registry.onOp("Div", 7, convertBinary<DivOp>);
  registry.onOp("Equal", 7, convertEqual);
  registry.onOp("And", 7, convertBinary<AndOp>);
  registry.onOp("BitwiseAnd", 18, convertBinary<AndOp>);
  registry.onOp("BitwiseOr", 18, convertBinary<OrOp>);
  registry.onOp("BitwiseXor", 18, convertBinary<XorOp>);
  registry.onOp("BitwiseNot", 18, convertBitwiseNot);

  // Casts and constants.
  registry.onOp("Cast", 1, convertCast);
  registry.onOp("CastLike", 15, convertCastLike);
  registry.onOp("Constant", 1, convertConstant);
  registry.onOp("ConstantOfShape", 9, convertConstantOfShape);
  registry.onOp("EyeLike", 9, convertEyeLike);

  // Shape ops.
  registry.onOp("Concat", 1, convertConcat);
  registry.onOp("Expand", 8, convertExpand);
  registry.onOp("Flatten", 1, convertFlatten);
  registry.onOp("DepthToSpace", 1, convertDepthToSpace);
  registry.onOp("CenterCropPad", 18, convertCenterCropPad);

  // Reductions.
  registry.onOp("ArgMax", 1, [](NodeContext &ctx) {
    return convertArgReduce(ctx, ArgReduceKind::argmax);
  });
  registry.onOp("ArgMin", 1, [](NodeContext &ctx) {
    return convertArgReduce(ctx, ArgReduceKind::argmin);
  });
  registry.onOp("CumSum", 11, convertCumSum);

  // Convolution, pooling, normalization, dropout and Einsum.
  populateDefaultDomainAtoFNN(registry);

  // Deliberately unsupported.
  registry.unsupported("Bernoulli", "random number generation");
  registry.unsupported("BlackmanWindow", "signal processing");
  registry.unsupported("DFT", "signal processing");
  registry.unsupported("ConvInteger", "quantization");
  registry.unsupported("DequantizeLinear", "quantization");
  registry.unsupported("DynamicQuantizeLinear", "quantization");
  registry.unsupported("ConcatFromSequence", "sequences");
}

} // namespace nnc::onnx_import
