//===- NNCElementwiseOps.cpp - elementwise nnc ops ------------------------===//
//
// Verifiers, type inference and folders of the elementwise op family.
//
//===----------------------------------------------------------------------===//

#include "nnc/NNCOps.h"
#include "nnc/ShapeValues.h"

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace nnc;

void NNCDialect::registerElementwiseOps() {
  addOperations<
#define GET_OP_LIST
#include "nnc/NNCElementwiseOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Folding helpers
//===----------------------------------------------------------------------===//

/// Whether `attr` is a constant tensor whose elements all equal `value`.
static bool isSplatOf(Attribute attr, double value) {
  auto splat = dyn_cast_if_present<SplatElementsAttr>(attr);
  if (!splat)
    return false;
  Type elementType = splat.getElementType();
  if (isa<FloatType>(elementType))
    return splat.getSplatValue<APFloat>().convertToDouble() == value;
  if (elementType.isInteger(1))
    return splat.getSplatValue<bool>() == (value != 0.0);
  if (isa<IntegerType>(elementType))
    return static_cast<double>(splat.getSplatValue<APInt>().getSExtValue()) ==
           value;
  return false;
}

/// Folds `x op c` to `x` when `c` is the op's identity and broadcasting does
/// not change `x`'s type.
static OpFoldResult foldRightIdentity(Value lhs, Attribute rhs, Type resultType,
                                      double identity) {
  if (lhs.getType() == resultType && isSplatOf(rhs, identity))
    return lhs;
  return {};
}

/// Constant folding materializes every element; it is meant for shape
/// computations and small constants, not for weights.
static constexpr int64_t kMaxFoldElements = 1 << 16;

/// The flat index into an operand of `inShape` that numpy broadcasting reads
/// for the flat index `flat` of a result of `outShape`.
static int64_t broadcastIndex(int64_t flat, ArrayRef<int64_t> outShape,
                              ArrayRef<int64_t> inShape) {
  int64_t index = 0, stride = 1;
  int64_t offset = outShape.size() - inShape.size();
  for (int64_t d = outShape.size() - 1; d >= 0; --d) {
    int64_t coord = flat % outShape[d];
    flat /= outShape[d];
    if (d < offset)
      continue;
    int64_t in = inShape[d - offset];
    if (in != 1)
      index += coord * stride;
    stride *= in;
  }
  return index;
}

/// The constant operands of an elementwise fold, or empty when one is not a
/// constant or the static result is too large to materialize.
static SmallVector<DenseElementsAttr> foldOperands(ArrayRef<Attribute> operands,
                                                   Type resultType) {
  auto type = dyn_cast<RankedTensorType>(resultType);
  if (!type || !type.hasStaticShape() ||
      type.getNumElements() > kMaxFoldElements)
    return {};
  SmallVector<DenseElementsAttr> attrs;
  for (Attribute operand : operands) {
    auto attr = dyn_cast_if_present<DenseElementsAttr>(operand);
    if (!attr)
      return {};
    attrs.push_back(attr);
  }
  return attrs;
}

/// Evaluates `fn` on every element of the broadcast of two constants of
/// element values T (APInt or APFloat); `fn` returns std::nullopt where the
/// result is undefined, which leaves the op unfolded.
template <typename T, typename Fn>
static Attribute foldBroadcast(DenseElementsAttr lhs, DenseElementsAttr rhs,
                               RankedTensorType type, Fn fn) {
  using R = typename std::invoke_result_t<Fn, const T &, const T &>::value_type;
  auto lhsValues = lhs.getValues<T>();
  auto rhsValues = rhs.getValues<T>();
  ArrayRef<int64_t> shape = type.getShape();
  ArrayRef<int64_t> lhsShape = cast<ShapedType>(lhs.getType()).getShape();
  ArrayRef<int64_t> rhsShape = cast<ShapedType>(rhs.getType()).getShape();
  SmallVector<R> result;
  result.reserve(type.getNumElements());
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
    std::optional<R> r = fn(lhsValues[broadcastIndex(i, shape, lhsShape)],
                            rhsValues[broadcastIndex(i, shape, rhsShape)]);
    if (!r)
      return {};
    result.push_back(std::move(*r));
  }
  return DenseElementsAttr::get(type, result);
}

/// Folds a broadcasting binary op on two constants: `floatFn` on float
/// elements, `intFn` on integer ones (never i1).
template <typename FloatFn, typename IntFn>
static OpFoldResult foldBinaryConstants(ArrayRef<Attribute> operands,
                                        Type resultType, FloatFn floatFn,
                                        IntFn intFn) {
  SmallVector<DenseElementsAttr> attrs = foldOperands(operands, resultType);
  if (attrs.size() != 2 ||
      attrs[0].getElementType() != attrs[1].getElementType())
    return {};
  auto type = cast<RankedTensorType>(resultType);
  Type elementType = attrs[0].getElementType();
  if (isa<FloatType>(elementType))
    return foldBroadcast<APFloat>(attrs[0], attrs[1], type, floatFn);
  if (isa<IntegerType>(elementType) && !elementType.isInteger(1))
    return foldBroadcast<APInt>(attrs[0], attrs[1], type, intFn);
  return {};
}

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return inner.getInput();
  Type elementType = getType().getElementType();
  if (isa<FloatType>(elementType))
    return constFoldUnaryOp<FloatAttr, APFloat, void>(
        adaptor.getOperands(), [](const APFloat &a) { return -a; });
  return constFoldUnaryOp<IntegerAttr, APInt, void>(
      adaptor.getOperands(), [](const APInt &a) { return -a; });
}

OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getInput().getDefiningOp<NotOp>())
    return inner.getInput();
  return constFoldUnaryOp<IntegerAttr, APInt, void>(
      adaptor.getOperands(), [](const APInt &a) { return ~a; });
}

LogicalResult CeluOp::verify() {
  if (getAlpha().convertToDouble() == 0.0)
    return emitOpError("alpha must be non-zero");
  return success();
}

LogicalResult ClipOp::verify() {
  std::optional<APFloat> min = getMin(), max = getMax();
  if (min && max && min->convertToDouble() > max->convertToDouble())
    return emitOpError("min ")
           << min->convertToDouble() << " is greater than max "
           << max->convertToDouble();
  if (isa<IntegerType>(getType().getElementType())) {
    for (std::optional<APFloat> bound : {min, max}) {
      if (!bound)
        continue;
      double v = bound->convertToDouble();
      if (v != std::trunc(v))
        return emitOpError("bound ") << v
                                     << " must be integral for an integer "
                                        "tensor";
    }
  }
  return success();
}

OpFoldResult ClipOp::fold(FoldAdaptor) {
  if (!getMin() && !getMax())
    return getInput();
  return {};
}

LogicalResult IsNanOp::inferReturnTypes(MLIRContext *ctx,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> type =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(type))
    return failure();
  types.push_back(type->clone(IntegerType::get(ctx, 1)));
  return success();
}

LogicalResult IsInfOp::inferReturnTypes(MLIRContext *ctx,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> type =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(type))
    return failure();
  types.push_back(type->clone(IntegerType::get(ctx, 1)));
  return success();
}

//===----------------------------------------------------------------------===//
// Binary ops
//===----------------------------------------------------------------------===//

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 0.0))
    return r;
  if (OpFoldResult r =
          foldRightIdentity(getRhs(), adaptor.getLhs(), getType(), 0.0))
    return r;
  return foldBinaryConstants(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return a + b;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a + b;
      });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 0.0))
    return r;
  return foldBinaryConstants(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return a - b;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a - b;
      });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 1.0))
    return r;
  if (OpFoldResult r =
          foldRightIdentity(getRhs(), adaptor.getLhs(), getType(), 1.0))
    return r;
  return foldBinaryConstants(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return a * b;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a * b;
      });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 1.0))
    return r;
  return foldBinaryConstants(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return a / b;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        bool overflow = false;
        if (b.isZero())
          return std::nullopt;
        APInt q = a.sdiv_ov(b, overflow);
        if (overflow)
          return std::nullopt;
        return q;
      });
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  return foldBinaryConstants(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return llvm::maximum(a, b);
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a.sge(b) ? a : b;
      });
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  return foldBinaryConstants(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return llvm::minimum(a, b);
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a.sle(b) ? a : b;
      });
}

LogicalResult RemOp::verify() {
  if (isa<FloatType>(getType().getElementType()) && !getFmod())
    return emitOpError("requires fmod = true for floating-point operands");
  return success();
}

LogicalResult CmpOp::inferReturnTypes(MLIRContext *ctx,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  return inferBroadcastBinary(loc, adaptor.getLhs().getType(),
                              adaptor.getRhs().getType(),
                              IntegerType::get(ctx, 1), types);
}

OpFoldResult CmpOp::fold(FoldAdaptor adaptor) {
  SmallVector<DenseElementsAttr> attrs =
      foldOperands(adaptor.getOperands(), getType());
  if (attrs.size() != 2 ||
      attrs[0].getElementType() != attrs[1].getElementType())
    return {};
  CmpPredicate predicate = getPredicate();
  auto type = cast<RankedTensorType>(getType());
  auto fromOrder = [&](bool lt, bool eq, bool unordered) {
    bool r = false;
    switch (predicate) {
    case CmpPredicate::eq:
      r = eq;
      break;
    case CmpPredicate::ne:
      r = !eq || unordered;
      break;
    case CmpPredicate::lt:
      r = lt;
      break;
    case CmpPredicate::le:
      r = lt || eq;
      break;
    case CmpPredicate::gt:
      r = !lt && !eq && !unordered;
      break;
    case CmpPredicate::ge:
      r = !lt && !unordered;
      break;
    }
    return std::optional<APInt>(APInt(1, r));
  };
  Type elementType = attrs[0].getElementType();
  if (isa<FloatType>(elementType))
    return foldBroadcast<APFloat>(
        attrs[0], attrs[1], type, [&](const APFloat &a, const APFloat &b) {
          APFloat::cmpResult c = a.compare(b);
          return fromOrder(c == APFloat::cmpLessThan, c == APFloat::cmpEqual,
                           c == APFloat::cmpUnordered);
        });
  // Integers compare as signed; i1 as 0 < 1.
  bool isBool = elementType.isInteger(1);
  return foldBroadcast<APInt>(
      attrs[0], attrs[1], type, [&](const APInt &a, const APInt &b) {
        return fromOrder(isBool ? a.ult(b) : a.slt(b), a == b, false);
      });
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto cond = dyn_cast<RankedTensorType>(adaptor.getCondition().getType());
  auto lhs = dyn_cast<RankedTensorType>(adaptor.getTrueValue().getType());
  auto rhs = dyn_cast<RankedTensorType>(adaptor.getFalseValue().getType());
  if (!cond || !lhs || !rhs)
    return emitOptionalError(loc, "expects ranked tensor operands");
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(loc,
                             "expects true and false values of one "
                             "element type, got ",
                             lhs.getElementType(), " and ",
                             rhs.getElementType());
  SmallVector<int64_t> values, all;
  if (!broadcastShapes(lhs.getShape(), rhs.getShape(), values) ||
      !broadcastShapes(cond.getShape(), values, all))
    return emitOptionalError(loc, "condition, true and false shapes ",
                             formatShape(cond.getShape()), ", ",
                             formatShape(lhs.getShape()), " and ",
                             formatShape(rhs.getShape()), " do not broadcast");
  types.push_back(RankedTensorType::get(all, lhs.getElementType()));
  return success();
}

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  // All three constant: select elementwise with broadcasting.
  SmallVector<DenseElementsAttr> attrs =
      foldOperands(adaptor.getOperands(), getType());
  if (attrs.size() == 3) {
    auto type = cast<RankedTensorType>(getType());
    ArrayRef<int64_t> shape = type.getShape();
    auto cond = attrs[0].getValues<bool>();
    auto onTrue = attrs[1].getValues<Attribute>();
    auto onFalse = attrs[2].getValues<Attribute>();
    auto shapeOf = [](DenseElementsAttr a) {
      return cast<ShapedType>(a.getType()).getShape();
    };
    SmallVector<Attribute> result;
    result.reserve(type.getNumElements());
    for (int64_t i = 0, e = type.getNumElements(); i < e; ++i)
      result.push_back(
          cond[broadcastIndex(i, shape, shapeOf(attrs[0]))]
              ? onTrue[broadcastIndex(i, shape, shapeOf(attrs[1]))]
              : onFalse[broadcastIndex(i, shape, shapeOf(attrs[2]))]);
    return DenseElementsAttr::get(type, result);
  }
  auto cond = dyn_cast_if_present<SplatElementsAttr>(adaptor.getCondition());
  if (!cond)
    return {};
  Value chosen = cond.getSplatValue<bool>() ? getTrueValue() : getFalseValue();
  if (chosen.getType() == getType())
    return chosen;
  return {};
}

//===----------------------------------------------------------------------===//
// Casts and constants
//===----------------------------------------------------------------------===//

bool CastOp::areCastCompatible(TypeRange inputs, TypeRange outputs) {
  if (inputs.size() != 1 || outputs.size() != 1)
    return false;
  auto in = dyn_cast<RankedTensorType>(inputs.front());
  auto out = dyn_cast<RankedTensorType>(outputs.front());
  return in && out && in.getShape() == out.getShape();
}

LogicalResult CastOp::refineResultTypes(SmallVectorImpl<Type> &refined) {
  refined.push_back(getInput().getType().clone(getType().getElementType()));
  return success();
}

/// The most elements of a non-splat constant a cast folds into a new
/// constant (larger ones are converted by the kernel, not the compiler).
static constexpr int64_t kMaxFoldedCastElements = 1 << 16;

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (Attribute known = foldKnownShapeValue(getResult()))
    return known;
  auto floatType = dyn_cast<FloatType>(getType().getElementType());
  // A cast from a value another cast widened exactly (bf16 -> f32 -> ...)
  // reads the narrow value instead: the wide one holds it unchanged.
  if (auto inner = getInput().getDefiningOp<CastOp>()) {
    auto narrow =
        dyn_cast<FloatType>(getElementTypeOrSelf(inner.getInput().getType()));
    auto wide = dyn_cast<FloatType>(getElementTypeOrSelf(inner.getType()));
    if (narrow && wide &&
        APFloat::isRepresentableBy(narrow.getFloatSemantics(),
                                   wide.getFloatSemantics())) {
      if (inner.getInput().getType() == getType())
        return inner.getInput();
      getInputMutable().assign(inner.getInput());
      return getResult();
    }
  }
  // Floating-point constants to another floating-point type (the constants
  // mixed precision meets), rounded to nearest even as the kernels do.
  if (auto input = dyn_cast_if_present<DenseFPElementsAttr>(adaptor.getInput());
      input && floatType &&
      (input.isSplat() || input.getNumElements() <= kMaxFoldedCastElements)) {
    const llvm::fltSemantics &to = floatType.getFloatSemantics();
    auto convert = [&](APFloat v) {
      bool lost;
      (void)v.convert(to, APFloat::rmNearestTiesToEven, &lost);
      return v;
    };
    if (input.isSplat())
      return DenseElementsAttr::get(getType(),
                                    convert(input.getSplatValue<APFloat>()));
    SmallVector<APFloat> values;
    for (APFloat v : input.getValues<APFloat>())
      values.push_back(convert(v));
    return DenseElementsAttr::get(getType(), values);
  }
  // Integer constants to floating point (a dimension that scales data).
  auto input = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput());
  if (!input || !floatType || !isa<IntegerType>(input.getElementType()) ||
      input.getNumElements() > kMaxShapeInputElements)
    return {};
  bool isBool = input.getElementType().isInteger(1);
  SmallVector<APFloat> values;
  for (const APInt &v : input.getValues<APInt>()) {
    APFloat f(floatType.getFloatSemantics());
    (void)f.convertFromAPInt(v, /*IsSigned=*/!isBool,
                             APFloat::rmNearestTiesToEven);
    values.push_back(f);
  }
  return DenseElementsAttr::get(getType(), values);
}

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  if (!adaptor.getValueAttr())
    return emitOptionalError(loc, "requires a 'value' attribute");
  auto type = dyn_cast<RankedTensorType>(adaptor.getValue().getType());
  if (!type)
    return emitOptionalError(loc, "value must be a ranked tensor, got ",
                             adaptor.getValue().getType());
  types.push_back(type);
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

#define GET_OP_CLASSES
#include "nnc/NNCElementwiseOps.cpp.inc"
