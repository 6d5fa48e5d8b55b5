//===- WidenLowPrecision.cpp - low-precision products on f32 copies -------===//
//
// Implements --nnc-cpu-widen-low-precision: f16/bf16 matrix products and
// convolutions compute on f32 copies of their operands (exact products, f32
// sums, one rounding of the result), so that the f32 libraries run them.
//
//===----------------------------------------------------------------------===//

#include "nnc/Target/CPU/Passes.h"

#include "DnnlConvolutions.h"

#include "nnc/NNCDialect.h"
#include "nnc/NNCOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"

namespace nnc::cpu {
#define GEN_PASS_DEF_WIDENLOWPRECISIONPASS
#include "nnc/Target/CPU/Passes.h.inc"
} // namespace nnc::cpu

using namespace mlir;
using namespace nnc;

namespace {

bool isLow(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isF16() || element.isBF16();
}

/// The op on f32 copies of its low operands, its low results cast back.
/// Each copy is made right before the op (fusion folds it into the op's
/// operand reads or its producer), not once where the value is defined: a
/// copy made there for a value the backward reads again would keep an f32
/// image of a saved activation alive for the whole step.
void widen(Operation *op) {
  OpBuilder b(op);
  Type f32 = b.getF32Type();
  Location loc = op->getLoc();
  auto toF32 = [&](Type type) {
    return cast<RankedTensorType>(type).clone(f32);
  };
  // A constant operand (an inference weight) folds into an f32 constant of
  // its rounded values rather than a copy made at every run.
  SmallVector<Value> operands;
  for (Value operand : op->getOperands())
    operands.push_back(
        isLow(operand.getType())
            ? b.createOrFold<CastOp>(loc, toF32(operand.getType()), operand)
            : operand);
  Operation *wide = b.clone(*op);
  wide->setOperands(operands);
  for (OpResult result : wide->getResults())
    if (isLow(result.getType()))
      result.setType(toF32(result.getType()));
  // A widened consumer of a rounded result widens it again: it must see
  // the rounded values.
  for (auto [old, now] : llvm::zip_equal(op->getResults(), wide->getResults()))
    old.replaceAllUsesWith(old.getType() == now.getType()
                               ? Value(now)
                               : CastOp::create(b, loc, old.getType(), now));
  op->erase();
}

/// Whether `op`'s operands and results are all bf16.
bool allBF16(Operation *op) {
  auto bf16 = [](Type type) { return getElementTypeOrSelf(type).isBF16(); };
  return llvm::all_of(op->getOperandTypes(), bf16) &&
         llvm::all_of(op->getResultTypes(), bf16);
}

struct WidenLowPrecisionPass
    : public nnc::cpu::impl::WidenLowPrecisionPassBase<WidenLowPrecisionPass> {
  using WidenLowPrecisionPassBase::WidenLowPrecisionPassBase;

  /// Whether a library runs `op` in its own low types here: oneDNN, for a
  /// convolution whose kernel choice is the library's or not made, or a
  /// bf16 matrix product.
  bool runsNatively(Operation *op) {
    if (isa<MatMulOp, GemmOp>(op))
      return bf16Gemm && allBF16(op);
    if (!nativeConvolutions)
      return false;
    auto choice =
        op->getAttrOfType<StringAttr>(NNCDialect::getKernelChoiceAttrName());
    if (choice && choice.getValue() != "library")
      return false;
    return cpu::dnnlTakes(op);
  }

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (!isa<MatMulOp, GemmOp, ConvOp, ConvTransposeOp, ConvWeightGradOp>(op))
        return;
      if (llvm::any_of(op->getResultTypes(), isLow) &&
          llvm::all_of(op->getOperandTypes(),
                       [](Type type) { return isa<RankedTensorType>(type); }) &&
          !runsNatively(op))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      widen(op);
  }
};

} // namespace
