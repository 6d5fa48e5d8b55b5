//===- Rematerialize.cpp - recompute elementwise values where used late ---===//
//
// Implements --nnc-rematerialize: a value computed by elementwise ops and
// used again long after (a forward activation the backward pass needs) is
// recomputed next to that late use from values that are alive there
// anyway, instead of being kept in memory all the while. Elementwise fusion
// then folds the recomputation into the consumer: the value is never
// stored. This is PyTorch's activation checkpointing, chosen by the
// compiler for the ops where recomputing costs no memory traffic.
//
//===----------------------------------------------------------------------===//

#include "nnc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

namespace nnc {
#define GEN_PASS_DEF_REMATERIALIZEPASS
#include "nnc/Transforms/Passes.h.inc"
} // namespace nnc

using namespace mlir;

namespace {

/// An all-parallel generic on tensors with one result whose body only does
/// arithmetic: recomputing it costs a pass over its inputs, which fusion
/// folds into the consumer.
bool isCheapElementwise(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic->getNumResults() != 1 ||
      generic.getNumLoops() != generic.getNumParallelLoops())
    return false;
  for (AffineMap map : generic.getIndexingMapsArray())
    if (!map.isProjectedPermutation())
      return false;
  for (Operation &inner : generic.getBody()->without_terminator())
    if (!isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()))
      return false;
  // The output's initial value must not matter (an elementwise result).
  for (OpOperand &init : generic.getDpsInitsMutable())
    if (generic.payloadUsesValueFromOperand(&init) ||
        !init.get().getDefiningOp<tensor::EmptyOp>())
      return false;
  return true;
}

struct RematerializePass
    : public nnc::impl::RematerializePassBase<RematerializePass> {
  using RematerializePassBase::RematerializePassBase;

  DenseMap<Operation *, int64_t> position;

  /// Whether `value` is alive near `at` anyway: a block argument, a
  /// constant, or a value used no more than `distance` ops before `at` (or
  /// after it), whose lifetime using it at `at` extends by little at most.
  bool aliveNear(Value value, Operation *at) {
    Operation *def = value.getDefiningOp();
    if (!def || def->hasTrait<OpTrait::ConstantLike>())
      return true;
    int64_t atPos = position.lookup(at);
    return llvm::any_of(value.getUsers(), [&](Operation *user) {
      Operation *top = at->getBlock()->findAncestorOpInBlock(*user);
      return top && position.lookup(top) >= atPos - distance;
    });
  }

  /// Whether `value` is available at `at` without keeping anything alive
  /// much longer: alive near it, or recomputable from such values (within
  /// `depth` producers).
  bool available(Value value, Operation *at, int depth) {
    Operation *def = value.getDefiningOp();
    if (aliveNear(value, at) || isa<tensor::EmptyOp>(def))
      return true;
    if (depth == 0 || !isCheapElementwise(def))
      return false;
    return llvm::all_of(def->getOperands(), [&](Value operand) {
      return available(operand, at, depth - 1);
    });
  }

  /// `value` computed before `at`: itself when it is alive there, else a
  /// clone of its producer (recursively).
  Value recompute(Value value, Operation *at, IRMapping &clones) {
    if (Value done = clones.lookupOrNull(value))
      return done;
    Operation *def = value.getDefiningOp();
    int64_t atPos = position.lookup(at);
    if (aliveNear(value, at))
      return value;
    if (isa<tensor::EmptyOp>(def) || isCheapElementwise(def)) {
      for (Value operand : def->getOperands())
        clones.map(operand, recompute(operand, at, clones));
      OpBuilder builder(at);
      Operation *clone = builder.clone(*def, clones);
      position[clone] = atPos;
      clones.map(value, clone->getResult(0));
      return clone->getResult(0);
    }
    return value;
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    Block &body = func.getBody().front();
    position.clear();
    int64_t index = 0;
    for (Operation &op : body)
      position[&op] = index++;

    SmallVector<Operation *> candidates;
    for (Operation &op : body)
      if (isCheapElementwise(&op))
        candidates.push_back(&op);
    for (Operation *op : candidates) {
      Value result = op->getResult(0);
      int64_t defPos = position.lookup(op);
      // The first use far from the definition, and every use from there.
      Operation *late = nullptr;
      for (Operation *user : result.getUsers()) {
        Operation *top = body.findAncestorOpInBlock(*user);
        if (!top || position.lookup(top) - defPos <= distance)
          continue;
        if (!late || position.lookup(top) < position.lookup(late))
          late = top;
      }
      if (!late)
        continue;
      bool operandsAvailable = llvm::all_of(op->getOperands(), [&](Value v) {
        return available(v, late, maxDepth);
      });
      if (!operandsAvailable)
        continue;
      IRMapping clones;
      for (Value v : op->getOperands())
        clones.map(v, recompute(v, late, clones));
      OpBuilder builder(late);
      Operation *clone = builder.clone(*op, clones);
      position[clone] = position.lookup(late);
      int64_t latePos = position.lookup(late);
      result.replaceUsesWithIf(clone->getResult(0), [&](OpOperand &use) {
        Operation *top = body.findAncestorOpInBlock(*use.getOwner());
        return top && top != clone && position.lookup(top) >= latePos;
      });
    }
  }
};

} // namespace
