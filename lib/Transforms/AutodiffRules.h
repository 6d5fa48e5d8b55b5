//===- AutodiffRules.h - gradient rules of --nnc-autodiff -------*- C++ -*-===//
//
// The per-op reverse-mode rules the autodiff pass applies, and the builder of
// backward ops they share. Private to lib/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LIB_TRANSFORMS_AUTODIFFRULES_H
#define NNC_LIB_TRANSFORMS_AUTODIFFRULES_H

#include "nnc/NNCOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace nnc::autodiff {

// The rules are written in MLIR's vocabulary.
using mlir::ArrayRef;
using mlir::Location;
using mlir::LogicalResult;
using mlir::OpBuilder;
using mlir::Operation;
using mlir::RankedTensorType;
using mlir::SmallVector;
using mlir::SmallVectorImpl;
using mlir::Type;
using mlir::Value;

/// Builds backward ops at the builder's insertion point.
class GradientBuilder {
public:
  GradientBuilder(mlir::OpBuilder &builder,
                  llvm::function_ref<bool(mlir::Value)> isActive)
      : b(builder), isActive(isActive) {}

  /// A splat constant of `type`'s element type, rank 0 unless `type` is a
  /// static tensor type wanted as is (`shaped`).
  mlir::Value constant(mlir::Location loc, mlir::Type type, double value,
                       bool shaped = false);

  /// Reduces `grad` (the gradient of a broadcast result) to `type`, the type
  /// of the operand that was broadcast: sums over the leading dimensions the
  /// operand lacks and over the dimensions where it has a static 1, then
  /// reshapes. A `?` operand dimension is taken to match the result's.
  mlir::Value unbroadcast(mlir::Location loc, mlir::Value grad,
                          mlir::Type type);

  /// Broadcasts `grad`, the gradient of a reduction over `axes` of a value of
  /// type `type`, back to `type`. Where `type` has dynamic dimensions and
  /// `like` (a value of that type) is given, `grad` is multiplied with
  /// `onesLike(like)` instead of `nnc.expand`ed, as an expand to `?`
  /// dimensions is never specialized to static ones.
  mlir::Value unreduce(mlir::Location loc, mlir::Value grad, mlir::Type type,
                       llvm::ArrayRef<int64_t> axes,
                       mlir::Value like = nullptr);

  /// Ones of the float value `like`'s type (0 where `like` is NaN), built
  /// from `like` so that dynamic dimensions follow it.
  mlir::Value onesLike(mlir::Location loc, mlir::Value like);

  /// A constant of the static tensor type `type` with the given values.
  mlir::Value dense(mlir::Location loc, mlir::RankedTensorType type,
                    llvm::ArrayRef<double> values);

  /// The backward pass of an average pooling with static shapes: g * scale
  /// spread over each window by a transposed convolution with a kernel of
  /// ones over a one-channel view `[N * C, 1, D...]` of the input, whose
  /// end padding is extended to the extent the windows reach (ceil_mode).
  mlir::Value avgPoolGrad(mlir::Location loc, mlir::Value x, mlir::Value y,
                          mlir::Value g, mlir::Value scale,
                          llvm::ArrayRef<int64_t> kernel,
                          llvm::ArrayRef<int64_t> strides,
                          llvm::ArrayRef<int64_t> dilations,
                          llvm::ArrayRef<int64_t> pads);

  /// `v` with its last two dimensions swapped.
  mlir::Value swapLastTwo(mlir::Location loc, mlir::Value v);

  template <typename OpTy>
  mlir::Value op(mlir::Location loc, mlir::Value lhs, mlir::Value rhs) {
    return OpTy::create(b, loc, lhs, rhs);
  }

  mlir::OpBuilder &b;
  /// Whether a forward value needs a gradient (it depends on a trainable
  /// argument through float values).
  llvm::function_ref<bool(mlir::Value)> isActive;
};

/// What a rule reads and the arithmetic it writes: `op`, the gradient `g`
/// of its first result `y`, and the operand gradients `grads` it sets.
struct Rule {
  Operation *op;
  Location loc;
  GradientBuilder &gb;
  OpBuilder &b;
  Value g, y;
  ArrayRef<Value> resultGrads;
  SmallVectorImpl<Value> &grads;

  Value operand(unsigned i) { return op->getOperand(i); }
  RankedTensorType type(Value v) {
    return mlir::cast<RankedTensorType>(v.getType());
  }
  /// A rank-0 constant of `like`'s element type.
  Value scalar(Value like, double v) {
    return gb.constant(loc, like.getType(), v);
  }
  Value add(Value l, Value r) { return AddOp::create(b, loc, l, r); }
  Value sub(Value l, Value r) { return SubOp::create(b, loc, l, r); }
  Value mul(Value l, Value r) { return MulOp::create(b, loc, l, r); }
  Value div(Value l, Value r) { return DivOp::create(b, loc, l, r); }
  Value mul(Value l, double r) { return mul(l, scalar(l, r)); }
  Value add(Value l, double r) { return add(l, scalar(l, r)); }
  Value neg(Value v) { return NegOp::create(b, loc, v); }
  Value cmp(CmpPredicate p, Value l, Value r) {
    return CmpOp::create(b, loc, p, l, r);
  }
  Value cmp(CmpPredicate p, Value l, double r) {
    return cmp(p, l, scalar(l, r));
  }
  Value where(Value c, Value t, Value f) {
    return WhereOp::create(b, loc, c, t, f);
  }
  /// `g` where `c` holds, else 0.
  Value gWhere(Value c) { return where(c, g, scalar(g, 0.0)); }
  /// Casts an i1 tensor to `like`'s element type.
  Value toFloat(Value mask, Value like) {
    auto maskType = type(mask);
    return CastOp::create(
        b, loc,
        RankedTensorType::get(maskType.getShape(), type(like).getElementType()),
        mask);
  }
  Value sumKeep(Value v, ArrayRef<int64_t> axes) {
    return ReduceOp::create(b, loc, ReduceKind::sum, v, axes,
                            /*keepdims=*/true);
  }
  Value reshape(Value v, Type t) {
    if (v.getType() == t)
      return v;
    return ReshapeOp::create(b, loc, t, v);
  }
  /// `v` with element type `et`.
  Value castTo(Value v, Type et) {
    if (type(v).getElementType() == et)
      return v;
    return CastOp::create(b, loc, type(v).clone(et), v);
  }
};

// The families of rules (Autodiff*Rules.cpp): each returns nullopt for an
// op it does not handle, else whether the rule applied.
std::optional<mlir::LogicalResult> unaryRules(Rule &r);
std::optional<mlir::LogicalResult> shapeRules(Rule &r);
std::optional<mlir::LogicalResult> reductionRules(Rule &r);
std::optional<mlir::LogicalResult> lossRules(Rule &r);
std::optional<mlir::LogicalResult> nnRules(Rule &r);
std::optional<mlir::LogicalResult> coreRules(Rule &r);

// Helpers more than one family uses (AutodiffRules.cpp).
bool isStatic(Type type);
/// Whether `type` is ranked with static dimensions except perhaps the
/// first (a batch).
bool isStaticButBatch(Type type);
/// The values of an optional per-spatial-dimension attribute, `count`
/// copies of `fill` when absent.
SmallVector<int64_t> spatialAttr(std::optional<ArrayRef<int64_t>> attr,
                                 int64_t count, int64_t fill);
/// The gradient reaching x through statistics over M (`count`) of its
/// elements: `gMean` into their mean and `gVar` into their biased variance
/// (each broadcastable against x, or null): gMean / M + gVar 2 (x - mean)
/// / M, with `centered` = x - mean. Null when both are.
Value statisticsGrad(Rule &r, Value centered, Value gMean, Value gVar,
                     int64_t count);
/// The gradient into a variance from one into the inverse standard
/// deviation `invStd` = (var + eps)^(-1/2): -gInvStd invStd^3 / 2.
Value invStdToVar(Rule &r, Value gInvStd, Value invStd);

/// The error for an op on the path to the loss that has no rule (`what`
/// narrows it down, e.g. "with groups > 1").
mlir::InFlightDiagnostic noRule(mlir::Operation *op, llvm::StringRef what = "");

/// Sets `grads` to the gradient of each operand of `op` (null where the
/// operand gets none), given the gradients of its results (null where a
/// result gets none). Fails with a diagnostic where no rule applies.
mlir::LogicalResult differentiate(mlir::Operation *op,
                                  llvm::ArrayRef<mlir::Value> resultGrads,
                                  GradientBuilder &gb,
                                  llvm::SmallVectorImpl<mlir::Value> &grads);

} // namespace nnc::autodiff

#endif // NNC_LIB_TRANSFORMS_AUTODIFFRULES_H
