//===- Optimizer.cpp - optimizer update steps on top of autodiff ----------===//
//
// Implements --nnc-optimizer: from `<name>_grad` (built by --nnc-autodiff),
// builds a self-contained `<name>_step` that computes the loss and gradients
// and applies an SGD, Adam or AdamW update to every trainable parameter, with
// the optimizer state and the learning rate as arguments. With
// low-precision-copies, the f16/bf16 copies of the parameters `_grad` casts
// become its arguments (and so the step's), and results of the step and
// `_apply`, made by the update.
//
//===----------------------------------------------------------------------===//

#include "nnc/Transforms/Passes.h"

#include "nnc/NNCOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"

#include <algorithm>
#include <cmath>

namespace nnc {
#define GEN_PASS_DEF_OPTIMIZERPASS
#include "nnc/Transforms/Passes.h.inc"
} // namespace nnc

using namespace mlir;
using namespace nnc;

namespace {

enum class OptimizerKind { SGD, Adam, AdamW };

/// Creates the elementwise update ops; every constant is rank 0 and
/// broadcasts, so parameters with dynamic shapes need nothing special.
class UpdateBuilder {
public:
  UpdateBuilder(OpBuilder &builder, Location loc, Type elementType)
      : b(builder), loc(loc), elementType(elementType) {}

  Value constant(double value) {
    auto type = RankedTensorType::get({}, elementType);
    return ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(type, b.getFloatAttr(elementType, value)));
  }
  Value add(Value x, Value y) { return AddOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return SubOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return MulOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return DivOp::create(b, loc, x, y); }
  Value pow(Value x, Value y) { return PowOp::create(b, loc, x, y); }
  Value sqrt(Value x) { return SqrtOp::create(b, loc, x); }
  /// x * c, or x itself when c is 1.
  Value scale(Value x, double c) { return c == 1.0 ? x : mul(x, constant(c)); }

private:
  OpBuilder &b;
  Location loc;
  Type elementType;
};

StringAttr stringAttr(MLIRContext *ctx, const Twine &text) {
  return StringAttr::get(ctx, text);
}

struct OptimizerPass : public nnc::impl::OptimizerPassBase<OptimizerPass> {
  using OptimizerPassBase::OptimizerPassBase;
  void runOnOperation() override;

private:
  /// Checks the options against PyTorch's constraints; emits on `module`.
  LogicalResult checkOptions(ModuleOp module, OptimizerKind &kindOut);
};

LogicalResult OptimizerPass::checkOptions(ModuleOp module,
                                          OptimizerKind &kindOut) {
  auto fail = [&]() { return module.emitError() << "nnc-optimizer: "; };
  if (kind == "sgd")
    kindOut = OptimizerKind::SGD;
  else if (kind == "adam")
    kindOut = OptimizerKind::Adam;
  else if (kind == "adamw")
    kindOut = OptimizerKind::AdamW;
  else
    return fail() << "unknown kind '" << kind
                  << "'; expected sgd, adam or adamw";
  if (!(momentum >= 0.0))
    return fail() << "momentum must be >= 0, got " << momentum;
  if (!(weightDecay >= 0.0))
    return fail() << "weight-decay must be >= 0, got " << weightDecay;
  if (kindOut == OptimizerKind::SGD) {
    if (nesterov && momentum == 0.0)
      return fail() << "nesterov needs a momentum > 0";
    return success();
  }
  if (!(beta1 >= 0.0 && beta1 < 1.0))
    return fail() << "beta1 must be in [0, 1), got " << beta1;
  if (!(beta2 >= 0.0 && beta2 < 1.0))
    return fail() << "beta2 must be in [0, 1), got " << beta2;
  if (!(epsilon >= 0.0))
    return fail() << "epsilon must be >= 0, got " << epsilon;
  return success();
}

void OptimizerPass::runOnOperation() {
  ModuleOp module = getOperation();
  OptimizerKind optimizer;
  if (failed(checkOptions(module, optimizer)))
    return signalPassFailure();

  std::string gradName = function + "_grad";
  std::string stepName = function + "_step";
  auto grad = module.lookupSymbol<func::FuncOp>(gradName);
  if (!grad) {
    module.emitError() << "nnc-optimizer: no function named '" << gradName
                       << "'; run --nnc-autodiff"
                       << (function == "main"
                               ? std::string()
                               : "=\"function=" + function + "\"")
                       << " first";
    return signalPassFailure();
  }
  if (module.lookupSymbol(stepName)) {
    grad.emitError() << "nnc-optimizer: a symbol named '" << stepName
                     << "' already exists";
    return signalPassFailure();
  }
  if (!grad.getBody().hasOneBlock()) {
    grad.emitError() << "nnc-optimizer: function '" << gradName
                     << "' must have a body of one block";
    return signalPassFailure();
  }

  // The gradient function's contract: loss, then one gradient per trainable
  // argument, in argument order, of that argument's type.
  FunctionType gradType = grad.getFunctionType();
  auto lossType = gradType.getNumResults()
                      ? dyn_cast<RankedTensorType>(gradType.getResult(0))
                      : RankedTensorType();
  if (!lossType || lossType.getRank() != 0 ||
      !(lossType.getElementType().isF32() ||
        lossType.getElementType().isF64())) {
    grad.emitError() << "nnc-optimizer: the first result of '" << gradName
                     << "' must be the loss, a tensor<f32> or tensor<f64>";
    return signalPassFailure();
  }
  Type elementType = lossType.getElementType();
  SmallVector<unsigned> params;
  for (unsigned i = 0; i < grad.getNumArguments(); ++i) {
    auto kindAttr =
        grad.getArgAttrOfType<ParamKindAttr>(i, NNCDialect::getParamAttrName());
    auto type = dyn_cast<RankedTensorType>(grad.getArgument(i).getType());
    if (kindAttr && kindAttr.getValue() == ParamKind::trainable && type &&
        isa<FloatType>(type.getElementType()))
      params.push_back(i);
  }
  if (params.empty()) {
    grad.emitError() << "nnc-optimizer: '" << gradName
                     << "' has no trainable arguments to update";
    return signalPassFailure();
  }
  if (gradType.getNumResults() < params.size() + 1) {
    grad.emitError() << "nnc-optimizer: '" << gradName << "' returns "
                     << gradType.getNumResults()
                     << " results, expected the loss and " << params.size()
                     << " gradients (then any other results)";
    return signalPassFailure();
  }
  for (auto [n, i] : llvm::enumerate(params)) {
    Type paramType = grad.getArgument(i).getType();
    if (gradType.getResult(n + 1) != paramType) {
      grad.emitError() << "nnc-optimizer: gradient " << n + 1 << " of '"
                       << gradName << "' has type " << gradType.getResult(n + 1)
                       << ", expected " << paramType << " (trainable argument "
                       << i << ")";
      return signalPassFailure();
    }
    if (cast<RankedTensorType>(paramType).getElementType() != elementType) {
      grad.emitError() << "nnc-optimizer: trainable argument " << i
                       << " has type " << paramType << " but the loss is "
                       << lossType << "; the update needs one element type";
      return signalPassFailure();
    }
  }

  // Optimizer state, in the order of both the extra arguments and the extra
  // results: per parameter one velocity (SGD with momentum) or m then v
  // (Adam, AdamW), then the step count t.
  MLIRContext *ctx = module.getContext();
  bool adam = optimizer != OptimizerKind::SGD;
  bool hasVelocity = !adam && momentum != 0.0;
  SmallVector<std::string> stateNames;
  auto addState = [&](StringRef prefix) {
    for (unsigned i : params)
      stateNames.push_back((Twine(prefix) + Twine(i)).str());
  };
  if (hasVelocity)
    addState("velocity");
  if (adam) {
    addState("m");
    addState("v");
  }
  auto scalarType = RankedTensorType::get({}, elementType);
  SmallVector<Type> paramTypes;
  for (unsigned i : params)
    paramTypes.push_back(grad.getArgument(i).getType());
  SmallVector<Type> stateTypes;
  for (unsigned s = 0, e = stateNames.size(); s < e; ++s)
    stateTypes.push_back(paramTypes[s % params.size()]);
  if (adam) {
    stateTypes.push_back(scalarType);
    stateNames.push_back("t");
  }
  if (lossScale) {
    unsigned last = grad.getNumArguments() - 1;
    if (grad.getNumArguments() == 0 ||
        grad.getArgument(last).getType() != scalarType ||
        grad.getArgAttr(last, NNCDialect::getParamAttrName())) {
      grad.emitError() << "nnc-optimizer: with loss-scale, the last argument "
                          "of '"
                       << gradName << "' must be the loss scale, a plain "
                       << scalarType;
      return signalPassFailure();
    }
  }
  auto flagType = RankedTensorType::get({}, IntegerType::get(ctx, 1));
  // The loss keeps the name `_grad` gives it (`scaled_loss` when the loss is
  // scaled by --nnc-prepare-training).
  auto gradResultNames =
      grad->getAttrOfType<ArrayAttr>(NNCDialect::getResultNamesAttrName());
  StringAttr lossName = gradResultNames && !gradResultNames.empty()
                            ? dyn_cast<StringAttr>(gradResultNames[0])
                            : StringAttr();
  if (!lossName || lossName.getValue().empty())
    lossName = stringAttr(ctx, "loss");
  unsigned firstAux = params.size() + 1;

  // Low-precision copies: per parameter that `_grad` casts to f16 or bf16
  // (to the first such type when it casts to both), the casts it replaces.
  struct Copy {
    unsigned n; // index into params
    RankedTensorType type;
    SmallVector<Operation *> casts;
  };
  SmallVector<Copy> copies;
  if (lowPrecisionCopies) {
    for (auto [n, i] : llvm::enumerate(params)) {
      Copy copy{static_cast<unsigned>(n), RankedTensorType(), {}};
      for (Operation *user : grad.getArgument(i).getUsers()) {
        auto cast = dyn_cast<CastOp>(user);
        auto type =
            cast ? dyn_cast<RankedTensorType>(cast.getType()) : nullptr;
        if (!type || !(type.getElementType().isF16() ||
                       type.getElementType().isBF16()))
          continue;
        if (!copy.type)
          copy.type = type;
        if (type == copy.type)
          copy.casts.push_back(user);
      }
      if (!copy.casts.empty())
        copies.push_back(std::move(copy));
    }
  }
  // The copies become the last arguments of _grad, read where it cast the
  // parameters; _step inherits them with the body.
  unsigned scaleIndex = grad.getNumArguments() - 1;
  auto bufferAttr = ParamKindAttr::get(ctx, ParamKind::buffer);
  auto copyName = [&](const Copy &copy) {
    return "low" + std::to_string(params[copy.n]);
  };
  for (Copy &copy : copies) {
    unsigned index = grad.getNumArguments();
    if (failed(grad.insertArgument(
            index, copy.type,
            DictionaryAttr::get(
                ctx, {NamedAttribute(StringAttr::get(
                                         ctx, NNCDialect::getParamAttrName()),
                                     bufferAttr)}),
            NameLoc::get(StringAttr::get(ctx, copyName(copy)))))) {
      grad.emitError() << "nnc-optimizer: cannot add the copy argument";
      return signalPassFailure();
    }
    for (Operation *cast : copy.casts) {
      cast->getResult(0).replaceAllUsesWith(grad.getArgument(index));
      cast->erase();
    }
  }
  gradType = grad.getFunctionType();

  // The result names of _step (with the loss) and _apply.
  auto setNames = [&](func::FuncOp fn, bool withLoss,
                      ArrayRef<Attribute> extra) {
    SmallVector<Attribute> names;
    if (withLoss)
      names.push_back(lossName);
    for (unsigned i : params)
      names.push_back(stringAttr(ctx, "param" + std::to_string(i)));
    for (const std::string &name : stateNames)
      names.push_back(stringAttr(ctx, name));
    if (lossScale)
      names.push_back(stringAttr(ctx, "found_nonfinite"));
    for (const Copy &copy : copies)
      names.push_back(stringAttr(ctx, copyName(copy)));
    llvm::append_range(names, extra);
    fn->setAttr(NNCDialect::getResultNamesAttrName(),
                ArrayAttr::get(ctx, names));
  };
  // Shared by _step and _apply: the update of parameters `ps` with
  // gradients `gs` (scaled by `scale` when loss scaling), the state and the
  // learning rate; appends the new parameters, the new state and the flag.
  //
  // By default the update follows everything else (the insertion point is
  // the end of the body). With `inBackward`, each parameter's update goes
  // just after the last op it waits for in the body: its gradient, and
  // every other reader of the parameter and its state, which the update
  // replaces in place. Parameters are taken in the order those points come
  // in; with loss scaling, each update checks its own gradient and every
  // one taken before it (a running sum of `g * 0`, NaN once any element
  // was inf or NaN) and keeps the old values from the first non-finite
  // one on. The shared ops (Adam's corrections, 1 / scale) open the body.
  auto buildUpdate = [&](OpBuilder &builder, Location loc,
                         ArrayRef<Value> ps, ArrayRef<Value> gs,
                         ArrayRef<Value> state, Value lr, Value scale,
                         SmallVectorImpl<Value> &results,
                         bool inBackward = false) {
    UpdateBuilder ub(builder, loc, elementType);
    unsigned numParams = ps.size();
    // The per-parameter state (velocity, or m and v; not Adam's t).
    unsigned groups =
        numParams ? (state.size() - (adam ? 1 : 0)) / numParams : 0;
    auto stateArg = [&](unsigned group, unsigned n) {
      return state[group * numParams + n];
    };
    Block *body = builder.getInsertionBlock();
    Block::iterator end = builder.getInsertionPoint();
    // Where each parameter's update may start: after `anchors[n]` (the
    // start of the body when null), in `order`.
    SmallVector<Operation *> anchors(numParams, nullptr);
    SmallVector<unsigned> order;
    for (unsigned n = 0; n < numParams; ++n)
      order.push_back(n);
    if (inBackward) {
      for (unsigned n = 0; n < numParams; ++n) {
        Operation *&anchor = anchors[n];
        auto waitFor = [&](Operation *op) {
          op = op ? body->findAncestorOpInBlock(*op) : nullptr;
          if (op && (!anchor || anchor->isBeforeInBlock(op)))
            anchor = op;
        };
        waitFor(gs[n].getDefiningOp());
        SmallVector<Value> replaced = {ps[n]};
        for (unsigned group = 0; group < groups; ++group)
          replaced.push_back(stateArg(group, n));
        for (Value value : replaced)
          for (Operation *user : value.getUsers())
            waitFor(user);
      }
      std::stable_sort(order.begin(), order.end(), [&](unsigned a,
                                                       unsigned b) {
        if (!anchors[b])
          return false;
        return !anchors[a] || anchors[a]->isBeforeInBlock(anchors[b]);
      });
      builder.setInsertionPointToStart(body);
    }
    // Loss scaling: a gradient element that is inf or NaN makes g * 0 NaN,
    // so one sum per gradient tells whether any is; the gradients are
    // divided by the scale.
    Value zero, inverse, total, found;
    // Adds the probe of `g` to the running sum.
    auto probe = [&](Value g) {
      Value zeroed = ub.mul(g, zero);
      Value sum = ReduceOp::create(builder, loc, ReduceKind::sum, zeroed,
                                   ArrayRef<int64_t>{}, /*keepdims=*/false);
      total = total ? ub.add(total, sum) : sum;
    };
    SmallVector<Value> grads(gs);
    if (scale) {
      zero = ub.constant(0.0);
      if (!inBackward) {
        for (Value g : grads)
          probe(g);
        found = IsNanOp::create(builder, loc, total);
      }
      Value one = ub.constant(1.0);
      inverse = ub.div(one, scale);
      if (!inBackward)
        for (Value &g : grads)
          g = ub.mul(g, inverse);
    }
    // Adam's step count and bias corrections are shared by every parameter:
    // t' = t + 1, step_size = lr / (1 - beta1^t'), sqrt(1 - beta2^t').
    Value tNext, stepSize, correction2Sqrt;
    if (adam) {
      // Operands are built in separate statements throughout so that the op
      // order does not depend on the C++ compiler's argument evaluation
      // order.
      Value one = ub.constant(1.0);
      tNext = ub.add(state.back(), one);
      Value b1 = ub.constant(beta1);
      Value b1t = ub.pow(b1, tNext);
      Value correction1 = ub.sub(one, b1t);
      Value b2 = ub.constant(beta2);
      Value b2t = ub.pow(b2, tNext);
      Value correction2 = ub.sub(one, b2t);
      stepSize = ub.div(lr, correction1);
      correction2Sqrt = ub.sqrt(correction2);
    }
    SmallVector<Value> newParams(numParams), velocities(numParams),
        ms(numParams), vs(numParams);
    // In backward: the last op placed so far (the shared ones open the
    // body), which the next update follows.
    Operation *previous = inBackward && builder.getInsertionPoint() !=
                                            body->begin()
                              ? &*std::prev(builder.getInsertionPoint())
                              : nullptr;
    for (unsigned n : order) {
      if (inBackward) {
        // After the anchor, and after the update placed before (which
        // may share its anchor).
        Operation *after = anchors[n];
        if (previous && (!after || after->isBeforeInBlock(previous)))
          after = previous;
        if (after)
          builder.setInsertionPointAfter(after);
        else
          builder.setInsertionPointToStart(body);
        if (scale) {
          probe(grads[n]);
          found = IsNanOp::create(builder, loc, total);
          grads[n] = ub.mul(grads[n], inverse);
        }
      }
      Value p = ps[n];
      Value g = grads[n];
      // Keeps the old value of `old` from the first non-finite gradient
      // on (in backward; otherwise after the loop, for all at once).
      auto guard = [&](Value updated, Value old) {
        return inBackward && found
                   ? Value(WhereOp::create(builder, loc, found, old, updated))
                   : updated;
      };
      if (optimizer == OptimizerKind::SGD) {
        // PyTorch SGD with dampening 0: g += wd * p; buf = momentum * buf +
        // g; g = nesterov ? g + momentum * buf : buf; p -= lr * g.
        if (weightDecay != 0.0) {
          Value decay = ub.scale(p, weightDecay);
          g = ub.add(g, decay);
        }
        if (hasVelocity) {
          Value kept = ub.scale(stateArg(0, n), momentum);
          Value buf = ub.add(kept, g);
          velocities[n] = guard(buf, stateArg(0, n));
          if (nesterov) {
            Value ahead = ub.scale(buf, momentum);
            g = ub.add(g, ahead);
          } else {
            g = buf;
          }
        }
        Value delta = ub.mul(lr, g);
        newParams[n] = guard(ub.sub(p, delta), ps[n]);
        previous = &*std::prev(builder.getInsertionPoint());
        continue;
      }
      // Adam: g += wd * p (L2); AdamW: p *= 1 - lr * wd (decoupled). Then
      // m = beta1 m + (1 - beta1) g, v = beta2 v + (1 - beta2) g^2,
      // p -= step_size * m / (sqrt(v) / sqrt(1 - beta2^t') + eps).
      if (weightDecay != 0.0) {
        if (optimizer == OptimizerKind::Adam) {
          Value decay = ub.scale(p, weightDecay);
          g = ub.add(g, decay);
        } else {
          Value one = ub.constant(1.0);
          Value lrDecay = ub.scale(lr, weightDecay);
          Value factor = ub.sub(one, lrDecay);
          p = ub.mul(p, factor);
        }
      }
      Value mKept = ub.scale(stateArg(0, n), beta1);
      Value mNew = ub.scale(g, 1.0 - beta1);
      Value m = ub.add(mKept, mNew);
      Value vKept = ub.scale(stateArg(1, n), beta2);
      Value g2 = ub.mul(g, g);
      Value vNew = ub.scale(g2, 1.0 - beta2);
      Value v = ub.add(vKept, vNew);
      Value rootV = ub.sqrt(v);
      Value corrected = ub.div(rootV, correction2Sqrt);
      Value eps = ub.constant(epsilon);
      Value denom = ub.add(corrected, eps);
      Value ratio = ub.div(m, denom);
      Value delta = ub.mul(stepSize, ratio);
      ms[n] = guard(m, stateArg(0, n));
      vs[n] = guard(v, stateArg(1, n));
      newParams[n] = guard(ub.sub(p, delta), ps[n]);
      previous = &*std::prev(builder.getInsertionPoint());
    }
    if (inBackward)
      builder.setInsertionPoint(body, end);
    SmallVector<Value> newState;
    if (hasVelocity && optimizer == OptimizerKind::SGD)
      llvm::append_range(newState, velocities);
    if (adam) {
      llvm::append_range(newState, ms);
      llvm::append_range(newState, vs);
      // Adam's step count moves on only when the whole step applied.
      newState.push_back(inBackward && found
                             ? Value(WhereOp::create(builder, loc, found,
                                                     state.back(), tNext))
                             : tNext);
    }
    // A step with non-finite gradients changes nothing.
    if (found && !inBackward) {
      for (auto [updated, old] : llvm::zip_equal(newParams, ps))
        updated = WhereOp::create(builder, loc, found, old, updated);
      for (auto [updated, old] : llvm::zip_equal(newState, state))
        updated = WhereOp::create(builder, loc, found, old, updated);
    }
    llvm::append_range(results, newParams);
    llvm::append_range(results, newState);
    if (scale)
      results.push_back(found ? found
                              : Value(ConstantOp::create(
                                    builder, loc,
                                    DenseElementsAttr::get(flagType, false))));
    // The next step's copies: the updated parameters (the old ones on a
    // skipped step) rounded, in the update's kernel.
    for (const Copy &copy : copies)
      results.push_back(
          CastOp::create(builder, loc, copy.type, newParams[copy.n]));
  };

  SmallVector<Type> updateResultTypes(paramTypes);
  llvm::append_range(updateResultTypes, stateTypes);
  if (lossScale)
    updateResultTypes.push_back(flagType);
  for (const Copy &copy : copies)
    updateResultTypes.push_back(copy.type);

  // _step: the arguments of _grad (the copies last), the state, lr.
  SmallVector<Type> argTypes(gradType.getInputs());
  unsigned firstState = argTypes.size();
  llvm::append_range(argTypes, stateTypes);
  unsigned lrIndex = argTypes.size();
  argTypes.push_back(scalarType);
  SmallVector<Type> resultTypes{lossType};
  llvm::append_range(resultTypes, updateResultTypes);
  // The other results of `_grad` (e.g. updated running statistics) follow.
  for (unsigned k = firstAux; k < gradType.getNumResults(); ++k)
    resultTypes.push_back(gradType.getResult(k));

  OpBuilder builder(ctx);
  builder.setInsertionPointAfter(grad);
  Location loc = grad.getLoc();
  auto step = func::FuncOp::create(
      builder, loc, stepName, builder.getFunctionType(argTypes, resultTypes));
  for (unsigned i = 0; i < grad.getNumArguments(); ++i)
    step.setArgAttrs(i, grad.getArgAttrDict(i) ? grad.getArgAttrDict(i)
                                               : DictionaryAttr::get(ctx));
  for (unsigned i = firstState; i < lrIndex; ++i)
    step.setArgAttr(i, NNCDialect::getParamAttrName(), bufferAttr);

  // The gradient computation is inlined: the CPU compiler compiles one
  // function, so the step must not call `<name>_grad`.
  Block *body = step.addEntryBlock();
  for (unsigned i = 0; i < grad.getNumArguments(); ++i)
    body->getArgument(i).setLoc(grad.getArgument(i).getLoc());
  for (unsigned i = firstState; i < lrIndex; ++i)
    body->getArgument(i).setLoc(
        NameLoc::get(builder.getStringAttr(stateNames[i - firstState])));
  body->getArgument(lrIndex).setLoc(NameLoc::get(builder.getStringAttr("lr")));
  IRMapping mapping;
  for (unsigned i = 0; i < grad.getNumArguments(); ++i)
    mapping.map(grad.getArgument(i), step.getArgument(i));
  builder.setInsertionPointToEnd(body);
  Block &gradBody = grad.getBody().front();
  for (Operation &op : gradBody.without_terminator())
    builder.clone(op, mapping);
  auto gradReturn = cast<func::ReturnOp>(gradBody.getTerminator());
  Value loss = mapping.lookup(gradReturn.getOperand(0));

  SmallVector<Value> ps, gs, state;
  for (auto [n, i] : llvm::enumerate(params)) {
    ps.push_back(step.getArgument(i));
    gs.push_back(mapping.lookup(gradReturn.getOperand(n + 1)));
  }
  for (unsigned i = firstState; i < lrIndex; ++i)
    state.push_back(step.getArgument(i));
  Value scale = lossScale ? step.getArgument(scaleIndex) : Value();
  SmallVector<Value> results{loss};
  buildUpdate(builder, loc, ps, gs, state, step.getArgument(lrIndex), scale,
              results, updatesInBackward);
  for (unsigned k = firstAux; k < gradType.getNumResults(); ++k)
    results.push_back(mapping.lookup(gradReturn.getOperand(k)));
  func::ReturnOp::create(builder, gradReturn.getLoc(), results);

  SmallVector<Attribute> auxNames;
  for (unsigned k = firstAux; k < gradType.getNumResults(); ++k)
    auxNames.push_back(gradResultNames && k < gradResultNames.size()
                           ? gradResultNames[k]
                           : stringAttr(ctx, "output" + std::to_string(k)));
  setNames(step, /*withLoss=*/true, auxNames);

  if (!apply)
    return;
  // _apply(params..., grads..., state..., lr[, loss_scale]) -> (params...,
  // state...[, found_nonfinite]): the update alone, for a driver that sums
  // the gradients of several micro-batches first.
  std::string applyName = function + "_apply";
  if (module.lookupSymbol(applyName)) {
    grad.emitError() << "nnc-optimizer: a symbol named '" << applyName
                     << "' already exists";
    return signalPassFailure();
  }
  SmallVector<Type> applyArgs(paramTypes);
  llvm::append_range(applyArgs, paramTypes);
  llvm::append_range(applyArgs, stateTypes);
  applyArgs.push_back(scalarType);
  if (lossScale)
    applyArgs.push_back(scalarType);
  builder.setInsertionPointAfter(step);
  auto applyFn = func::FuncOp::create(
      builder, loc, applyName,
      builder.getFunctionType(applyArgs, updateResultTypes));
  Block *applyBody = applyFn.addEntryBlock();
  unsigned numParams = params.size();
  auto trainable = ParamKindAttr::get(ctx, ParamKind::trainable);
  SmallVector<Value> aps, ags, astate;
  for (unsigned n = 0; n < numParams; ++n) {
    unsigned i = params[n];
    applyFn.setArgAttr(n, NNCDialect::getParamAttrName(), trainable);
    applyBody->getArgument(n).setLoc(grad.getArgument(i).getLoc());
    applyBody->getArgument(numParams + n).setLoc(
        NameLoc::get(builder.getStringAttr("grad" + std::to_string(i))));
    aps.push_back(applyBody->getArgument(n));
    ags.push_back(applyBody->getArgument(numParams + n));
  }
  for (unsigned s = 0; s < stateTypes.size(); ++s) {
    unsigned index = 2 * numParams + s;
    applyFn.setArgAttr(index, NNCDialect::getParamAttrName(), bufferAttr);
    applyBody->getArgument(index).setLoc(
        NameLoc::get(builder.getStringAttr(stateNames[s])));
    astate.push_back(applyBody->getArgument(index));
  }
  unsigned applyLr = 2 * numParams + stateTypes.size();
  applyBody->getArgument(applyLr).setLoc(
      NameLoc::get(builder.getStringAttr("lr")));
  Value applyScale;
  if (lossScale) {
    applyScale = applyBody->getArgument(applyLr + 1);
    applyBody->getArgument(applyLr + 1).setLoc(
        NameLoc::get(builder.getStringAttr("loss_scale")));
  }
  builder.setInsertionPointToEnd(applyBody);
  SmallVector<Value> applyResults;
  buildUpdate(builder, loc, aps, ags, astate, applyBody->getArgument(applyLr),
              applyScale, applyResults);
  func::ReturnOp::create(builder, loc, applyResults);
  setNames(applyFn, /*withLoss=*/false, {});
}

} // namespace
