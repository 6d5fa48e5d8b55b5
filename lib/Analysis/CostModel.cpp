//===- CostModel.cpp - FLOPs and bytes of nnc ops -------------------------===//

#include "nnc/Analysis/CostModel.h"

#include "nnc/NNCOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

using namespace mlir;
using namespace nnc;

int64_t nnc::tensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() ||
      !tensor.getElementType().isIntOrFloat())
    return -1;
  int64_t bits = tensor.getElementTypeBitWidth();
  return tensor.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
}

bool nnc::isPointwise(Operation *op) {
  if (!isa<NNCDialect>(op->getDialect()) || op->getNumResults() != 1)
    return false;
  if (isa<CumSumOp>(op))
    return false;
  // The unary ops keep their operand's type.
  if (op->hasTrait<OpTrait::SameOperandsAndResultType>() &&
      op->getNumOperands() == 1)
    return true;
  return isa<AddOp, SubOp, MulOp, DivOp, PowOp, MaxOp, MinOp, RemOp, PReluOp,
             AndOp, OrOp, XorOp, CmpOp, WhereOp, CastOp, IsNanOp, IsInfOp,
             ExpandOp, RandomUniformOp>(op);
}

bool nnc::isReshapeLike(Operation *op) {
  return isa<ReshapeOp, SqueezeOp, UnsqueezeOp, FlattenOp>(op);
}

namespace {

int64_t elements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() ? tensor.getNumElements() : 0;
}

int64_t elementsOf(Value value) { return elements(value.getType()); }

/// Multiply-adds of `op` when it is a contraction (GEMM, convolution and
/// their gradients), else 0.
int64_t multiplyAdds(Operation *op) {
  if (auto gemm = dyn_cast<GemmOp>(op)) {
    auto a = cast<RankedTensorType>(gemm.getA().getType());
    if (!a.hasStaticShape())
      return 0;
    int64_t k = a.getDimSize(gemm.getTransA() ? 0 : 1);
    return elementsOf(gemm.getResult()) * k;
  }
  if (auto matmul = dyn_cast<MatMulOp>(op)) {
    auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
    if (!lhs.hasStaticShape() || lhs.getRank() == 0)
      return 0;
    return elementsOf(matmul.getResult()) * lhs.getShape().back();
  }
  // A convolution's multiply-adds: every element of its larger side (the
  // output of a convolution, the input of a transposed one, the output
  // gradient of a weight gradient) times the window of one output channel.
  auto window = [](Value weight, int64_t perChannelDim) -> int64_t {
    auto type = cast<RankedTensorType>(weight.getType());
    if (!type.hasStaticShape() || type.getRank() < 1)
      return 0;
    return type.getNumElements() /
           std::max<int64_t>(1, type.getDimSize(perChannelDim));
  };
  if (auto conv = dyn_cast<ConvOp>(op))
    return elementsOf(conv.getResult()) * window(conv.getWeight(), 0);
  if (auto conv = dyn_cast<ConvTransposeOp>(op))
    // weight [C, M / groups, K...]: each input element meets M/g * K.
    return elementsOf(conv.getInput()) * window(conv.getWeight(), 0);
  if (auto grad = dyn_cast<ConvWeightGradOp>(op))
    return elementsOf(grad.getGrad()) * window(grad.getResult(), 0);
  return 0;
}

/// Operations per element of the largest operand or result, for the ops
/// that are not contractions: a rough count that orders them.
int64_t perElement(Operation *op) {
  if (isReshapeLike(op) || isa<ConstantOp, TransposeOp, ConcatOp, SplitOp,
                               SliceOp, PadOp, TileOp, GatherOp, OneHotOp>(op))
    return 0;
  if (isa<SoftmaxOp, LogSoftmaxOp, CrossEntropyOp>(op))
    return 5;
  if (isa<LayerNormOp, BatchNormOp, BatchNormTrainOp, GroupNormOp,
          InstanceNormOp>(op))
    return 8;
  if (isa<MaxPoolOp, MaxPoolGradOp>(op)) {
    // The gradient reads each window once for its maximum, then about one
    // window's worth of candidates per input position.
    ArrayRef<int64_t> kernel = isa<MaxPoolOp>(op)
                                   ? cast<MaxPoolOp>(op).getKernelShape()
                                   : cast<MaxPoolGradOp>(op).getKernelShape();
    int64_t window = 1;
    for (int64_t k : kernel)
      window *= k;
    return window;
  }
  if (auto pool = dyn_cast<AvgPoolOp>(op)) {
    int64_t window = 1;
    for (int64_t k : pool.getKernelShape())
      window *= k;
    return window;
  }
  return 1;
}

} // namespace

OpCost nnc::costOf(Operation *op) {
  OpCost cost;
  if (!isa<NNCDialect>(op->getDialect()))
    return cost;
  int64_t largest = 0;
  for (Value operand : op->getOperands()) {
    int64_t bytes = tensorBytes(operand.getType());
    if (bytes < 0)
      return OpCost();
    cost.bytesRead += bytes;
    largest = std::max(largest, elementsOf(operand));
  }
  for (Value result : op->getResults()) {
    int64_t bytes = tensorBytes(result.getType());
    if (bytes < 0)
      return OpCost();
    cost.bytesWritten += bytes;
    largest = std::max(largest, elementsOf(result));
  }
  if (isReshapeLike(op)) {
    cost.bytesRead = cost.bytesWritten = 0;
    return cost;
  }
  if (int64_t macs = multiplyAdds(op)) {
    cost.flops = 2 * macs;
    return cost;
  }
  cost.flops = largest * perElement(op);
  return cost;
}
