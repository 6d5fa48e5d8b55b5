//===- Autodiff.cpp - reverse-mode differentiation of nnc functions -------===//
//
// Implements --nnc-autodiff: from a function whose first result is a scalar
// loss, builds `<name>_grad` returning the loss and the gradient of every
// trainable parameter argument, with the backward pass written in nnc ops.
//
//===----------------------------------------------------------------------===//

#include "nnc/Transforms/Passes.h"

#include "AutodiffRules.h"
#include "nnc/NNCOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

namespace nnc {
#define GEN_PASS_DEF_AUTODIFFPASS
#include "nnc/Transforms/Passes.h.inc"
} // namespace nnc

using namespace mlir;
using namespace nnc;
using namespace nnc::autodiff;

namespace {

static bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

static bool isStatic(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape();
}

struct AutodiffPass : public nnc::impl::AutodiffPassBase<AutodiffPass> {
  using AutodiffPassBase::AutodiffPassBase;
  void runOnOperation() override;
};

void AutodiffPass::runOnOperation() {
  ModuleOp module = getOperation();
  auto forward = module.lookupSymbol<func::FuncOp>(function);
  if (!forward) {
    module.emitError() << "nnc-autodiff: no function named '" << function
                       << "'";
    return signalPassFailure();
  }
  FunctionType forwardType = forward.getFunctionType();
  if (forwardType.getNumResults() == 0) {
    forward.emitError() << "nnc-autodiff: function '" << function
                        << "' has no results; the first must be the loss";
    return signalPassFailure();
  }
  auto lossType = dyn_cast<RankedTensorType>(forwardType.getResult(0));
  if (!lossType || lossType.getRank() != 0 ||
      !(lossType.getElementType().isF32() ||
        lossType.getElementType().isF64())) {
    forward.emitError() << "nnc-autodiff: the first result of '" << function
                        << "' must be the loss, a tensor<f32> or tensor<f64>, "
                           "got "
                        << forwardType.getResult(0);
    return signalPassFailure();
  }
  if (!forward.getBody().hasOneBlock()) {
    forward.emitError() << "nnc-autodiff: function '" << function
                        << "' must have a body of one block";
    return signalPassFailure();
  }
  std::string gradName = function + "_grad";
  if (module.lookupSymbol(gradName)) {
    forward.emitError() << "nnc-autodiff: a symbol named '" << gradName
                        << "' already exists";
    return signalPassFailure();
  }

  // The gradient function starts as a copy of the forward one, whose ops the
  // backward pass then reads.
  OpBuilder builder(module.getContext());
  builder.setInsertionPointAfter(forward);
  auto grad = cast<func::FuncOp>(builder.clone(*forward));
  grad.setSymName(gradName);
  grad->removeAttr(NNCDialect::getResultNamesAttrName());
  Block &body = grad.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  Value loss = ret.getOperand(0);

  SmallVector<unsigned> params;
  for (unsigned i = 0; i < grad.getNumArguments(); ++i) {
    auto kind =
        grad.getArgAttrOfType<ParamKindAttr>(i, NNCDialect::getParamAttrName());
    if (kind && kind.getValue() == ParamKind::trainable &&
        isFloatTensor(grad.getArgument(i).getType()))
      params.push_back(i);
  }

  // Values that depend on a trainable parameter through float values: only
  // they need gradients, and only ops reading them need rules.
  llvm::DenseSet<Value> active;
  for (unsigned i : params)
    active.insert(grad.getArgument(i));
  for (Operation &op : body.without_terminator())
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return active.contains(v); }))
      for (Value r : op.getResults())
        if (isFloatTensor(r.getType()))
          active.insert(r);

  auto isActive = [&](Value v) { return active.contains(v); };
  GradientBuilder gb(builder, isActive);
  builder.setInsertionPoint(ret);
  llvm::DenseMap<Value, Value> grads;
  auto accumulate = [&](Value v, Value g) {
    auto [it, inserted] = grads.try_emplace(v, g);
    if (!inserted)
      it->second = AddOp::create(builder, g.getLoc(), it->second, g);
  };
  if (active.contains(loss))
    grads[loss] = gb.constant(ret.getLoc(), lossType, 1.0);

  SmallVector<Operation *> forwardOps;
  for (Operation &op : body.without_terminator())
    forwardOps.push_back(&op);
  for (Operation *op : llvm::reverse(forwardOps)) {
    SmallVector<Value> resultGrads;
    bool any = false;
    for (Value r : op->getResults()) {
      Value g = grads.lookup(r);
      any |= static_cast<bool>(g);
      resultGrads.push_back(g);
    }
    if (!any)
      continue;
    if (!isa<NNCDialect>(op->getDialect())) {
      noRule(op);
      return signalPassFailure();
    }
    SmallVector<Value> operandGrads;
    if (failed(differentiate(op, resultGrads, gb, operandGrads)))
      return signalPassFailure();
    for (auto [v, g] : llvm::zip_equal(op->getOperands(), operandGrads))
      if (g && active.contains(v))
        accumulate(v, g);
  }

  // loss, then one gradient per trainable parameter in argument order.
  SmallVector<Value> results{loss};
  auto forwardNames =
      forward->getAttrOfType<ArrayAttr>(NNCDialect::getResultNamesAttrName());
  StringAttr lossName = forwardNames && !forwardNames.empty()
                            ? dyn_cast<StringAttr>(forwardNames[0])
                            : StringAttr();
  SmallVector<Attribute> names{lossName && !lossName.getValue().empty()
                                   ? lossName
                                   : builder.getStringAttr("loss")};
  for (unsigned i : params) {
    Value g = grads.lookup(grad.getArgument(i));
    if (!g) {
      Type type = grad.getArgument(i).getType();
      if (!isStatic(type)) {
        grad.emitError() << "nnc-autodiff: the loss does not depend on "
                            "trainable argument "
                         << i << ", whose zero gradient has a dynamic shape";
        return signalPassFailure();
      }
      g = gb.constant(ret.getLoc(), type, 0.0, /*shaped=*/true);
    }
    results.push_back(g);
    names.push_back(builder.getStringAttr("grad" + std::to_string(i)));
  }
  // The forward function's other results pass through after the gradients
  // (e.g. updated batch-norm running statistics); no gradient flows into
  // them.
  for (unsigned k = 1; k < ret.getNumOperands(); ++k) {
    results.push_back(ret.getOperand(k));
    StringAttr name;
    if (forwardNames && k < forwardNames.size())
      name = dyn_cast<StringAttr>(forwardNames[k]);
    names.push_back(name && !name.getValue().empty()
                        ? name
                        : builder.getStringAttr("output" + std::to_string(k)));
  }
  func::ReturnOp::create(builder, ret.getLoc(), results);
  ret.erase();
  grad.setFunctionType(builder.getFunctionType(grad.getArgumentTypes(),
                                               ValueRange(results).getTypes()));
  grad.removeResAttrsAttr();
  grad->setAttr(NNCDialect::getResultNamesAttrName(),
                builder.getArrayAttr(names));

  // Forward values only the other results used are dead now.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (isOpTriviallyDead(&op))
      op.erase();
}

} // namespace
