//===- ShapeInference.cpp - refine dynamic dimensions ---------------------===//
//
// Implements --nnc-shape-inference: specializes function arguments to given
// shapes and propagates static dimensions through nnc ops in program order.
//
//===----------------------------------------------------------------------===//

#include "nnc/Transforms/Passes.h"

#include "nnc/NNCOps.h"
#include "nnc/ShapeValues.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"

namespace nnc {
#define GEN_PASS_DEF_SHAPEINFERENCEPASS
#include "nnc/Transforms/Passes.h.inc"
} // namespace nnc

using namespace mlir;
using namespace nnc;

namespace {

/// A requested argument shape from the `input-shapes` option.
struct ArgShape {
  unsigned index;
  SmallVector<int64_t> dims;
};

/// Parses "index:dims" where dims are 'x'-separated integers or '?'. An empty
/// dims part is a rank-0 shape.
static FailureOr<ArgShape> parseArgShape(StringRef spec, std::string &error) {
  auto [indexStr, dimsStr] = spec.split(':');
  ArgShape result;
  if (!spec.contains(':') || indexStr.trim().getAsInteger(10, result.index)) {
    error =
        ("input shape '" + spec + "' is not of the form 'index:dims'").str();
    return failure();
  }
  dimsStr = dimsStr.trim();
  if (dimsStr.empty())
    return result;
  SmallVector<StringRef> parts;
  dimsStr.split(parts, 'x');
  for (StringRef part : parts) {
    part = part.trim();
    int64_t dim;
    if (part == "?") {
      result.dims.push_back(ShapedType::kDynamic);
    } else if (!part.getAsInteger(10, dim) && dim >= 0) {
      result.dims.push_back(dim);
    } else {
      error =
          ("input shape '" + spec + "' has an invalid dimension '" + part + "'")
              .str();
      return failure();
    }
  }
  return result;
}

/// Whether `refined` is `original` with zero or more '?' made static.
static bool isRefinementOf(Type refined, Type original) {
  if (refined == original)
    return true;
  auto r = dyn_cast<RankedTensorType>(refined);
  auto o = dyn_cast<RankedTensorType>(original);
  if (!r || !o || r.getElementType() != o.getElementType() ||
      r.getRank() != o.getRank() || r.getEncoding() != o.getEncoding())
    return false;
  for (auto [rd, od] : llvm::zip_equal(r.getShape(), o.getShape()))
    if (!isDynamicDim(od) && rd != od)
      return false;
  return true;
}

struct ShapeInferencePass
    : public nnc::impl::ShapeInferencePassBase<ShapeInferencePass> {
  using Base::Base;

  void runOnOperation() override;

private:
  LogicalResult specializeArguments(func::FuncOp func,
                                    ArrayRef<ArgShape> shapes);
  LogicalResult refineOp(Operation *op);
  LogicalResult resolveOp(Operation *op);
  void setType(Value value, Type type);
  void replaceRefined(Value value, Value replacement);

  /// Ops that resolveOp replaced, erased after the walk (with whatever
  /// computed only their shape operands, by the canonicalizer).
  SmallVector<Operation *> replaced;
};

/// Whether `user` takes a more refined operand type as it is: func.return
/// (the signature follows it) and the nnc ops the walk refines after it.
/// The others, ops outside the nnc dialect and nnc ops that can neither infer
/// nor refine, keep the old type through a cast.
static bool takesRefinedOperands(Operation *user) {
  return isa<func::ReturnOp>(user) || (isa<NNCDialect>(user->getDialect()) &&
                                       (isa<InferTypeOpInterface>(user) ||
                                        isa<ShapeRefinementOpInterface>(user)));
}

/// Changes `value`'s type and casts it back to the old type for every user
/// that does not take refined operands.
void ShapeInferencePass::setType(Value value, Type type) {
  Type oldType = value.getType();
  if (oldType == type)
    return;
  value.setType(type);
  for (OpOperand &use : llvm::make_early_inc_range(value.getUses())) {
    Operation *user = use.getOwner();
    if (takesRefinedOperands(user))
      continue;
    OpBuilder builder(user);
    Value cast =
        tensor::CastOp::create(builder, user->getLoc(), oldType, value);
    use.set(cast);
  }
}

LogicalResult ShapeInferencePass::refineOp(Operation *op) {
  SmallVector<Type> types;
  if (failed(inferResultTypes(op, types)))
    return failure();
  if (types.empty())
    return success(); // Neither inferred nor refined (or no results).
  for (auto [result, type] : llvm::zip_equal(op->getResults(), types)) {
    if (!isRefinementOf(type, result.getType()))
      return op->emitOpError("refined operand types give result type ")
             << type << ", which contradicts the declared " << result.getType();
    setType(result, type);
  }
  return success();
}

/// Replaces `value` by `replacement`, whose type is at least as refined:
/// users that take refined operands take it as it is, the others a cast back.
void ShapeInferencePass::replaceRefined(Value value, Value replacement) {
  Type oldType = value.getType();
  for (OpOperand &use : llvm::make_early_inc_range(value.getUses())) {
    Operation *user = use.getOwner();
    if (replacement.getType() == oldType || takesRefinedOperands(user)) {
      use.set(replacement);
      continue;
    }
    OpBuilder builder(user);
    use.set(
        tensor::CastOp::create(builder, user->getLoc(), oldType, replacement));
  }
}

/// With its operands refined, a dynamic shape op whose shape operands are
/// now known becomes its static form, and an integer shape computation
/// whose value is known becomes a constant, so that the ops after it (in
/// program order) see static types and known shapes.
LogicalResult ShapeInferencePass::resolveOp(Operation *op) {
  if (op->use_empty() || isa<ConstantOp>(op))
    return success();
  OpBuilder builder(op);
  if (auto resolvable = dyn_cast<ResolvableOpInterface>(op)) {
    SmallVector<Value> resolved;
    if (failed(resolvable.resolve(builder, resolved)))
      return failure();
    if (!resolved.empty()) {
      for (auto [result, value] : llvm::zip_equal(op->getResults(), resolved))
        replaceRefined(result, value);
      replaced.push_back(op);
    }
    return success();
  }
  if (op->getNumResults() != 1)
    return success();
  if (Attribute known = foldKnownShapeValue(op->getResult(0))) {
    op->getResult(0).replaceAllUsesWith(
        ConstantOp::create(builder, op->getLoc(), cast<ElementsAttr>(known)));
    replaced.push_back(op);
  }
  return success();
}

LogicalResult
ShapeInferencePass::specializeArguments(func::FuncOp func,
                                        ArrayRef<ArgShape> shapes) {
  Block &entry = func.getBody().front();
  for (const ArgShape &shape : shapes) {
    if (shape.index >= entry.getNumArguments())
      return func.emitError("input-shapes names argument ")
             << shape.index << " but @" << func.getSymName() << " has "
             << entry.getNumArguments() << " arguments";
    BlockArgument arg = entry.getArgument(shape.index);
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type)
      return func.emitError("input-shapes names argument ")
             << shape.index << " of type " << arg.getType()
             << ", which is not a ranked tensor";
    if (type.getRank() != static_cast<int64_t>(shape.dims.size()))
      return func.emitError("input shape ")
             << formatShape(shape.dims) << " for argument " << shape.index
             << " has rank " << shape.dims.size() << ", expected "
             << type.getRank();
    SmallVector<int64_t> dims(type.getShape());
    for (auto [i, dim] : llvm::enumerate(shape.dims)) {
      if (isDynamicDim(dim))
        continue;
      if (!isDynamicDim(dims[i]) && dims[i] != dim)
        return func.emitError("input shape ")
               << formatShape(shape.dims) << " for argument " << shape.index
               << " contradicts its type " << type;
      dims[i] = dim;
    }
    setType(arg, type.clone(dims));
  }
  return success();
}

void ShapeInferencePass::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<ArgShape> shapes;
  for (const std::string &spec : inputShapes) {
    std::string error;
    FailureOr<ArgShape> shape = parseArgShape(spec, error);
    if (failed(shape)) {
      module.emitError(error);
      return signalPassFailure();
    }
    shapes.push_back(std::move(*shape));
  }

  bool namedFunctionSeen = false;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    // A function with callers keeps its signature so the calls stay valid.
    bool hasCallers = !SymbolTable::symbolKnownUseEmpty(func, module);
    bool selected =
        function.empty() ? !hasCallers : func.getSymName() == function;
    namedFunctionSeen |= selected && !function.empty();
    if (selected && hasCallers && !shapes.empty()) {
      func.emitError("cannot specialize the arguments of @")
          << func.getSymName() << ": it has callers";
      return signalPassFailure();
    }
    if (selected && failed(specializeArguments(func, shapes)))
      return signalPassFailure();

    WalkResult walk = func.walk([&](Operation *op) {
      if (!isa<NNCDialect>(op->getDialect()))
        return WalkResult::advance();
      return failed(refineOp(op)) || failed(resolveOp(op))
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    for (Operation *op : llvm::reverse(replaced))
      if (op->use_empty())
        op->erase();
    replaced.clear();

    // Results follow the returned values unless callers pin the signature
    // or the function's returns disagree on a refined type.
    SmallVector<func::ReturnOp> returns;
    func.walk([&](func::ReturnOp op) { returns.push_back(op); });
    SmallVector<Type> resultTypes(func.getResultTypes());
    for (unsigned i = 0; i < resultTypes.size(); ++i) {
      Type declared = resultTypes[i];
      Type candidate = returns.front().getOperand(i).getType();
      bool agree = llvm::all_of(returns, [&](func::ReturnOp op) {
        return op.getOperand(i).getType() == candidate;
      });
      if (!hasCallers && agree && isRefinementOf(candidate, declared)) {
        resultTypes[i] = candidate;
        continue;
      }
      for (func::ReturnOp op : returns) {
        OpOperand &operand = op->getOpOperand(i);
        if (operand.get().getType() == declared)
          continue;
        OpBuilder builder(op);
        operand.set(tensor::CastOp::create(builder, op.getLoc(), declared,
                                           operand.get()));
      }
    }
    SmallVector<Type> argTypes(func.getBody().front().getArgumentTypes());
    func.setFunctionType(
        FunctionType::get(&getContext(), argTypes, resultTypes));
  }
  if (!function.empty() && !namedFunctionSeen) {
    module.emitError("function @") << function << " not found";
    return signalPassFailure();
  }
}

} // namespace
