//===- DefaultDomainLegacy.cpp - ONNX ops before opset 7 ------------------===//
//
// Converters for the forms of default-domain ops that opset 7 replaced and
// that the range files do not cover by an opset check of their own:
//  - the binary ops with limited broadcasting (Add, Sub, Mul, Div, Pow, And,
//    Or, Xor, Equal, Greater, Less before 7): without `broadcast` the
//    operands have equal shapes; with `broadcast` = 1, B (of rank <= A's)
//    lines up with A's trailing dimensions, or from dimension `axis` when
//    it is given, and the result has A's shape;
//  - PRelu before 7, whose 1-D slope of A's channel count applies along the
//    channel dimension 1 (the Caffe2 semantics the op came from, which the
//    ONNX tests converted from PyTorch rely on);
//  - Tile-1, which repeats along one `axis` given as an input;
//  - Upsample-7/9 in nearest mode with integer scales.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "nnc/ShapeUtils.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <string>

using namespace mlir;

namespace nnc::onnx_import {

namespace {

/// Appends `count` trailing unit dimensions to `value`.
Value appendUnitDims(NodeContext &ctx, Value value, int64_t count) {
  if (count == 0)
    return value;
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < count; ++i)
    axes.push_back(rank + i);
  auto op = ctx.create<UnsqueezeOp>(value, AttrList(ctx).i64s("axes", axes));
  return op ? op.getResult() : Value();
}

/// The operands of a binary op before opset 7, with B reshaped so that
/// numpy broadcasting lines it up as the old `broadcast`/`axis` rules do.
FailureOr<std::pair<Value, Value>> legacyBroadcast(NodeContext &ctx) {
  FailureOr<Value> a = ctx.requireInput(0, "A");
  FailureOr<Value> b = ctx.requireInput(1, "B");
  if (failed(a) || failed(b))
    return failure();
  RankedTensorType aType = ctx.inputType(0), bType = ctx.inputType(1);
  if (!aType || !bType)
    return ctx.emitError() << "operands must be ranked tensors";
  ArrayRef<int64_t> aShape = aType.getShape(), bShape = bType.getShape();
  int64_t n = aType.getRank(), k = bType.getRank();
  int64_t broadcast = ctx.getInt("broadcast", 0);
  if (broadcast != 0 && broadcast != 1)
    return ctx.emitError() << "broadcast must be 0 or 1, got " << broadcast;
  if (broadcast == 0) {
    if (!shapesCompatible(aShape, bShape))
      return ctx.emitError()
             << "operands have shapes " << formatShape(aShape) << " and "
             << formatShape(bShape)
             << " but broadcast is 0 (before opset 7 they must be equal)";
    return std::make_pair(*a, *b);
  }
  if (k > n)
    return ctx.emitError() << "B has rank " << k << ", more than A's rank " << n
                           << " (B broadcasts to A before opset 7)";
  int64_t start = n - k;
  if (std::optional<int64_t> axisAttr = ctx.getOptionalInt("axis")) {
    std::optional<int64_t> axis = normalizeAxis(*axisAttr, n);
    if (!axis || *axis + k > n)
      return ctx.emitError()
             << "axis " << *axisAttr << " does not place B of shape "
             << formatShape(bShape) << " within A of shape "
             << formatShape(aShape);
    start = *axis;
  }
  // B's dims must match A's from `start` on (a B dim of 1 is expanded).
  for (int64_t i = 0; i < k; ++i)
    if (!dimsCompatible(bShape[i], aShape[start + i]) && bShape[i] != 1)
      return ctx.emitError()
             << "B of shape " << formatShape(bShape)
             << " does not broadcast to A of shape " << formatShape(aShape)
             << " from dimension " << start;
  Value rhs = appendUnitDims(ctx, *b, n - start - k);
  if (!rhs)
    return failure();
  return std::make_pair(*a, rhs);
}

template <typename OpTy> LogicalResult convertLegacyBinary(NodeContext &ctx) {
  FailureOr<std::pair<Value, Value>> operands = legacyBroadcast(ctx);
  if (failed(operands))
    return failure();
  return ctx.setResultOf(
      ctx.create<OpTy>(ValueRange{operands->first, operands->second}));
}

template <CmpPredicate predicate>
LogicalResult convertLegacyCompare(NodeContext &ctx) {
  FailureOr<std::pair<Value, Value>> operands = legacyBroadcast(ctx);
  if (failed(operands))
    return failure();
  return ctx.setResultOf(ctx.create<CmpOp>(
      ValueRange{operands->first, operands->second},
      AttrList(ctx).attr("predicate",
                         CmpPredicateAttr::get(ctx.context(), predicate))));
}

/// PRelu-1/6: a slope of one element is shared; a 1-D slope whose size is
/// the channel count (dimension 1) of a rank >= 2 input applies per
/// channel; any other slope broadcasts to X as from opset 7.
LogicalResult convertLegacyPRelu(NodeContext &ctx) {
  FailureOr<Value> x = ctx.requireInput(0, "X");
  FailureOr<Value> slope = ctx.requireInput(1, "slope");
  if (failed(x) || failed(slope))
    return failure();
  RankedTensorType xType = ctx.inputType(0), sType = ctx.inputType(1);
  if (!xType || !sType)
    return ctx.emitError() << "operands must be ranked tensors";
  Value s = *slope;
  int64_t rank = xType.getRank();
  if (sType.getRank() == 1 && rank >= 2 && sType.getDimSize(0) != 1 &&
      !isDynamicDim(sType.getDimSize(0)) &&
      sType.getDimSize(0) == xType.getDimSize(1)) {
    s = appendUnitDims(ctx, s, rank - 2);
    if (!s)
      return failure();
  }
  return ctx.setResultOf(ctx.create<PReluOp>(ValueRange{*x, s}));
}

/// A single integer from input `i`, known at import time.
FailureOr<int64_t> scalarInt(NodeContext &ctx, unsigned i, StringRef what) {
  if (failed(ctx.requireInput(i, what)))
    return failure();
  FailureOr<SmallVector<int64_t>> values = ctx.constantInts(i, what);
  if (failed(values))
    return failure();
  if (values->size() != 1)
    return ctx.emitError() << "input " << i << " (" << what
                           << ") must hold one value, got " << values->size();
  return values->front();
}

/// Tile-1: `tiles` copies of the input along `axis`, both inputs.
LogicalResult convertTile1(NodeContext &ctx) {
  FailureOr<Value> x = ctx.requireInput(0, "input");
  if (failed(x))
    return failure();
  RankedTensorType type = ctx.inputType(0);
  if (!type)
    return ctx.emitError() << "input 0 (input) must be a ranked tensor";
  FailureOr<int64_t> tiles = scalarInt(ctx, 1, "tiles");
  if (failed(tiles))
    return failure();
  FailureOr<int64_t> axisValue = scalarInt(ctx, 2, "axis");
  if (failed(axisValue))
    return failure();
  std::optional<int64_t> axis = normalizeAxis(*axisValue, type.getRank());
  if (!axis)
    return ctx.emitError() << "axis " << *axisValue
                           << " is out of range for rank " << type.getRank();
  if (*tiles < 0)
    return ctx.emitError() << "tiles must be non-negative, got " << *tiles;
  SmallVector<int64_t> repeats(type.getRank(), 1);
  repeats[*axis] = *tiles;
  return ctx.setResultOf(
      ctx.create<TileOp>(*x, AttrList(ctx).i64s("repeats", repeats)));
}

/// Upsample-7 (`scales` attribute) and Upsample-9 (`scales` input) in
/// nearest mode with integer scales, which repeat each element `scale`
/// times along its axis (non-integer scales are left undefined by the ONNX
/// reference implementation). One gather with constant indices per scaled
/// axis; the scaled dims must be static.
LogicalResult convertUpsample(NodeContext &ctx) {
  FailureOr<Value> x = ctx.requireInput(0, "X");
  if (failed(x))
    return failure();
  RankedTensorType type = ctx.inputType(0);
  if (!type)
    return ctx.emitError() << "input 0 (X) must be a ranked tensor";
  std::string mode = ctx.getString("mode", "nearest");
  if (mode != "nearest")
    return ctx.unsupported("mode = '" + mode +
                           "' (nnc has no interpolating resize)");
  SmallVector<double> scales;
  if (ctx.opset() < 9) {
    if (!ctx.hasAttr("scales"))
      return ctx.emitError() << "missing attribute 'scales'";
    scales = ctx.getFloats("scales");
  } else {
    FailureOr<SmallVector<double>> s = ctx.constantFloats(1, "scales");
    if (failed(s))
      return failure();
    scales = *s;
  }
  if (static_cast<int64_t>(scales.size()) != type.getRank())
    return ctx.emitError() << "scales has " << scales.size()
                           << " entries but the input has rank "
                           << type.getRank();
  constexpr int64_t kMaxOutput = int64_t(1) << 24;
  Value result = *x;
  for (auto [axis, scale] : llvm::enumerate(scales)) {
    if (!std::isfinite(scale) || scale < 1.0)
      return ctx.emitError() << "scale " << scale << " of dimension " << axis
                             << " must be >= 1";
    if (scale != std::floor(scale))
      return ctx.unsupported("non-integer scale " + std::to_string(scale) +
                             " in nearest mode");
    if (scale == 1.0)
      continue;
    int64_t in = type.getDimSize(axis);
    if (isDynamicDim(in))
      return ctx.unsupported("upsampling the dynamic dimension " + Twine(axis));
    if (scale > static_cast<double>(kMaxOutput) || in > kMaxOutput ||
        in * static_cast<int64_t>(scale) > kMaxOutput)
      return ctx.unsupported("upsampling dimension " + Twine(axis) +
                             " to more than 2^24 elements");
    int64_t factor = static_cast<int64_t>(scale);
    SmallVector<int64_t> indices;
    for (int64_t o = 0, e = in * factor; o < e; ++o)
      indices.push_back(o / factor);
    auto gather =
        ctx.create<GatherOp>(ValueRange{result, ctx.intConstant(indices)},
                             AttrList(ctx).i64("axis", axis));
    if (!gather)
      return failure();
    result = gather;
  }
  return ctx.setResult(result);
}

} // namespace

void populateDefaultDomainLegacy(OpRegistry &registry) {
  registry.onOp("Add", 1, convertLegacyBinary<AddOp>);
  registry.onOp("Sub", 1, convertLegacyBinary<SubOp>);
  registry.onOp("Mul", 1, convertLegacyBinary<MulOp>);
  registry.onOp("Div", 1, convertLegacyBinary<DivOp>);
  registry.onOp("Pow", 1, convertLegacyBinary<PowOp>);
  registry.onOp("And", 1, convertLegacyBinary<AndOp>);
  registry.onOp("Or", 1, convertLegacyBinary<OrOp>);
  registry.onOp("Xor", 1, convertLegacyBinary<XorOp>);
  registry.onOp("Equal", 1, convertLegacyCompare<CmpPredicate::eq>);
  registry.onOp("Greater", 1, convertLegacyCompare<CmpPredicate::gt>);
  registry.onOp("Less", 1, convertLegacyCompare<CmpPredicate::lt>);
  registry.onOp("PRelu", 1, convertLegacyPRelu);
  registry.onOp("Tile", 1, convertTile1);
  registry.onOp("Upsample", 7, convertUpsample);
  // Upsample was deprecated at 10 in favor of Resize.
  registry.onOp("Upsample", 10, [](NodeContext &ctx) {
    return ctx.unsupported("Upsample after its deprecation at opset 10 "
                           "(use Resize)");
  });
}

} // namespace nnc::onnx_import
