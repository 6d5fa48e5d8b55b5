//===- AutodiffRules.h - gradient rules of --nnc-autodiff -------*- C++ -*-===//
//
// The per-op reverse-mode rules the autodiff pass applies, and the builder of
// backward ops they share. Private to lib/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LIB_TRANSFORMS_AUTODIFFRULES_H
#define NNC_LIB_TRANSFORMS_AUTODIFFRULES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace nnc::autodiff {

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

  /// The backward pass of a pooling op with static shapes, written with
  /// convolutions over a one-channel view `[N * C, 1, D...]` of the input.
  /// The input is padded explicitly (with the lowest value) up to the extent
  /// the windows reach, which also covers ceil_mode. For max pooling
  /// (`isMax`), a one-hot kernel per window offset gathers the window
  /// elements and g goes to the first of them that equals the window's
  /// maximum (PyTorch routes it to one element too); for average pooling
  /// `g * scale` is spread over each window by a kernel of ones.
  mlir::Value poolGrad(mlir::Location loc, bool isMax, mlir::Value x,
                       mlir::Value y, mlir::Value g, mlir::Value scale,
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
