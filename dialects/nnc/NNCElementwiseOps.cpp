//===- NNCElementwiseOps.cpp - elementwise nnc ops ------------------------===//
//
// Verifiers, type inference and folders of the elementwise op family.
//
//===----------------------------------------------------------------------===//

#include "nnc/NNCOps.h"

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

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

/// Folds a binary op on two constants of the result's type. Integer division
/// by zero and overflowing signed division are left unfolded.
template <typename FloatFn, typename IntFn>
static OpFoldResult constFoldBinary(ArrayRef<Attribute> operands,
                                    Type resultType, FloatFn floatFn,
                                    IntFn intFn) {
  if (operands.size() != 2 || !operands[0] || !operands[1])
    return {};
  auto lhs = dyn_cast<TypedAttr>(operands[0]);
  auto rhs = dyn_cast<TypedAttr>(operands[1]);
  if (!lhs || !rhs || lhs.getType() != resultType ||
      rhs.getType() != resultType)
    return {};
  Type elementType = cast<ShapedType>(resultType).getElementType();
  if (isa<FloatType>(elementType))
    return constFoldBinaryOp<FloatAttr, APFloat, void>(operands, floatFn);
  if (isa<IntegerType>(elementType) && !elementType.isInteger(1))
    return constFoldBinaryOpConditional<IntegerAttr, APInt, void>(operands,
                                                                  intFn);
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
  return constFoldBinary(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) { return a + b; },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a + b;
      });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 0.0))
    return r;
  return constFoldBinary(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) { return a - b; },
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
  return constFoldBinary(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) { return a * b; },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a * b;
      });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 1.0))
    return r;
  return constFoldBinary(
      adaptor.getOperands(), getType(),
      [](const APFloat &a, const APFloat &b) { return a / b; },
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

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
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
