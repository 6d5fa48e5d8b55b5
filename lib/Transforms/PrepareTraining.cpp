//===- PrepareTraining.cpp - a model function in training mode with a loss ===//
//
// Implements --nnc-prepare-training: builds `<name>_train` from a model
// function by attaching a loss to one of its results and switching its ops
// to training mode (batch normalization with batch statistics whose running
// statistics become results), optionally scaling the loss for mixed
// precision. The result is what --nnc-autodiff differentiates.
//
//===----------------------------------------------------------------------===//

#include "nnc/Transforms/Passes.h"

#include "nnc/NNCOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"

namespace nnc {
#define GEN_PASS_DEF_PREPARETRAININGPASS
#include "nnc/Transforms/Passes.h.inc"
} // namespace nnc

using namespace mlir;
using namespace nnc;

namespace {

struct PrepareTrainingPass
    : public nnc::impl::PrepareTrainingPassBase<PrepareTrainingPass> {
  using PrepareTrainingPassBase::PrepareTrainingPassBase;
  void runOnOperation() override;
};

/// The name of result `index` of `func` in its `nnc.result_names`, if any.
StringRef resultName(func::FuncOp func, unsigned index) {
  auto names =
      func->getAttrOfType<ArrayAttr>(NNCDialect::getResultNamesAttrName());
  if (!names || index >= names.size())
    return "";
  auto name = dyn_cast<StringAttr>(names[index]);
  return name ? name.getValue() : "";
}

/// The argument name a function argument carries (its NameLoc), if any.
StringRef argumentName(BlockArgument arg) {
  if (auto name = dyn_cast<NameLoc>(arg.getLoc()))
    return name.getName().getValue();
  return "";
}

void PrepareTrainingPass::runOnOperation() {
  ModuleOp module = getOperation();
  auto model = module.lookupSymbol<func::FuncOp>(function);
  if (!model || model.isExternal()) {
    module.emitError() << "nnc-prepare-training: no function named '"
                       << function << "'";
    return signalPassFailure();
  }
  auto fail = [&]() {
    signalPassFailure();
    return model.emitError() << "nnc-prepare-training: ";
  };
  if (!model.getBody().hasOneBlock()) {
    fail() << "function '" << function << "' must have a body of one block";
    return;
  }
  std::optional<LossReduction> lossReduction;
  if (reduction == "mean")
    lossReduction = LossReduction::mean;
  else if (reduction == "sum")
    lossReduction = LossReduction::sum;
  if (!lossReduction) {
    fail() << "unknown reduction '" << reduction << "'; expected mean or sum";
    return;
  }
  bool classLoss = loss == "cross_entropy" || loss == "nll";
  if (!classLoss && loss != "mse") {
    fail() << "unknown loss '" << loss
           << "'; expected cross_entropy, nll or mse";
    return;
  }
  if (!(labelSmoothing >= 0.0 && labelSmoothing <= 1.0)) {
    fail() << "label-smoothing must be in [0, 1], got " << labelSmoothing;
    return;
  }
  if (labelSmoothing != 0.0 && loss != "cross_entropy") {
    fail() << "label-smoothing applies to cross_entropy only";
    return;
  }
  bool hasIgnoreIndex = ignoreIndex != std::numeric_limits<int64_t>::min();
  if (hasIgnoreIndex && !classLoss) {
    fail() << "ignore-index applies to cross_entropy and nll only";
    return;
  }
  std::string trainName = function + "_train";
  if (module.lookupSymbol(trainName)) {
    fail() << "a symbol named '" << trainName << "' already exists";
    return;
  }

  // The result the loss attaches to.
  FunctionType modelType = model.getFunctionType();
  if (modelType.getNumResults() == 0) {
    fail() << "function '" << function << "' has no results";
    return;
  }
  unsigned outputIndex = 0;
  if (!output.empty()) {
    unsigned k = 0;
    while (k < modelType.getNumResults() && resultName(model, k) != output)
      ++k;
    if (k == modelType.getNumResults()) {
      auto diag = fail() << "no result named '" << output << "'; results:";
      for (unsigned i = 0; i < modelType.getNumResults(); ++i)
        diag << " '" << resultName(model, i) << "'";
      return;
    }
    outputIndex = k;
  }
  auto outputType = dyn_cast<RankedTensorType>(modelType.getResult(outputIndex));
  if (!outputType || !isa<FloatType>(outputType.getElementType()) ||
      !(outputType.getElementType().isF32() ||
        outputType.getElementType().isF64())) {
    fail() << "the loss needs an f32 or f64 output, result " << outputIndex
           << " is " << modelType.getResult(outputIndex);
    return;
  }
  Type lossElement = outputType.getElementType();
  RankedTensorType labelsType;
  if (classLoss) {
    if (outputType.getRank() < 2) {
      fail() << loss << " needs logits [N, C, ...], result " << outputIndex
             << " is " << outputType;
      return;
    }
    SmallVector<int64_t> shape{outputType.getDimSize(0)};
    llvm::append_range(shape, outputType.getShape().drop_front(2));
    labelsType = RankedTensorType::get(
        shape, IntegerType::get(module.getContext(), 64));
  } else {
    labelsType = outputType;
  }
  auto scalarType = RankedTensorType::get({}, lossElement);

  // The training function: the model's arguments, labels, the loss scale.
  MLIRContext *ctx = module.getContext();
  OpBuilder builder(ctx);
  builder.setInsertionPointAfter(model);
  SmallVector<Type> argTypes(modelType.getInputs());
  unsigned labelsIndex = argTypes.size();
  argTypes.push_back(labelsType);
  if (lossScale)
    argTypes.push_back(scalarType);
  auto train = func::FuncOp::create(builder, model.getLoc(), trainName,
                                    builder.getFunctionType(argTypes, {}));
  for (unsigned i = 0; i < model.getNumArguments(); ++i)
    if (DictionaryAttr attrs = model.getArgAttrDict(i))
      train.setArgAttrs(i, attrs);
  SmallVector<Location> argLocs;
  for (BlockArgument arg : model.getArguments())
    argLocs.push_back(arg.getLoc());
  argLocs.push_back(NameLoc::get(builder.getStringAttr("labels")));
  if (lossScale)
    argLocs.push_back(NameLoc::get(builder.getStringAttr("loss_scale")));
  Block *body = builder.createBlock(&train.getBody(), {}, argTypes, argLocs);

  IRMapping mapping;
  for (unsigned i = 0; i < model.getNumArguments(); ++i)
    mapping.map(model.getArgument(i), train.getArgument(i));
  builder.setInsertionPointToEnd(body);
  Block &modelBody = model.getBody().front();
  for (Operation &op : modelBody.without_terminator())
    builder.clone(op, mapping);
  auto modelReturn = cast<func::ReturnOp>(modelBody.getTerminator());
  Value prediction = mapping.lookup(modelReturn.getOperand(outputIndex));
  Location loc = modelReturn.getLoc();

  // The loss, built first: the rewrites below replace values (the
  // prediction among them) and keep its operands current.
  builder.setInsertionPointToEnd(body);
  Value labels = train.getArgument(labelsIndex);
  auto reductionAttr = LossReductionAttr::get(ctx, *lossReduction);
  IntegerAttr ignoreAttr =
      hasIgnoreIndex ? builder.getI64IntegerAttr(ignoreIndex) : IntegerAttr();
  Value lossValue;
  if (loss == "cross_entropy")
    lossValue = CrossEntropyOp::create(
        builder, loc, prediction, labels, /*weight=*/Value(), reductionAttr,
        ignoreAttr, builder.getF64FloatAttr(labelSmoothing));
  else if (loss == "nll")
    lossValue = NllLossOp::create(builder, loc, prediction, labels,
                                  /*weight=*/Value(), reductionAttr,
                                  ignoreAttr);
  else
    lossValue =
        MseLossOp::create(builder, loc, prediction, labels, reductionAttr);

  // Batch normalization in training mode. Updated running statistics that
  // belong to arguments become results named like them.
  SmallVector<Value> statResults;
  SmallVector<Attribute> statNames;
  SmallVector<BatchNormOp> norms;
  body->walk([&](BatchNormOp op) { norms.push_back(op); });
  for (BatchNormOp op : norms) {
    builder.setInsertionPoint(op);
    auto trainOp = BatchNormTrainOp::create(
        builder, op.getLoc(), op.getInput(), op.getScale(), op.getBias(),
        op.getMean(), op.getVar(), op.getEpsilonAttr(), op.getMomentumAttr(),
        builder.getBoolAttr(true));
    op.getResult().replaceAllUsesWith(trainOp.getResult());
    op.erase();
    std::pair<Value, Value> stats[] = {
        {trainOp.getRunningMean(), trainOp.getNewRunningMean()},
        {trainOp.getRunningVar(), trainOp.getNewRunningVar()}};
    for (auto [old, updated] : stats) {
      auto arg = dyn_cast<BlockArgument>(old);
      if (!arg || arg.getOwner() != body)
        continue;
      StringRef name = argumentName(arg);
      statResults.push_back(updated);
      statNames.push_back(builder.getStringAttr(
          name.empty() ? "arg" + std::to_string(arg.getArgNumber())
                       : name.str()));
    }
  }

  // Dropout in training mode: a mask drawn from a counter-based generator
  // keyed by the `seed` argument (one stream per op), so recomputing the
  // forward pass draws the same numbers and a run is reproducible.
  SmallVector<DropoutOp> dropouts;
  body->walk([&](DropoutOp op) {
    if (op.getRatio().convertToDouble() != 0.0)
      dropouts.push_back(op);
  });
  if (!dropouts.empty()) {
    auto seedType = RankedTensorType::get({}, builder.getI64Type());
    unsigned seedIndex = labelsIndex + 1;
    if (failed(train.insertArgument(
            seedIndex, seedType, {},
            NameLoc::get(builder.getStringAttr("seed"))))) {
      fail() << "cannot add the seed argument";
      return;
    }
    Value seed = train.getArgument(seedIndex);
    for (auto [stream, op] : llvm::enumerate(dropouts)) {
      builder.setInsertionPoint(op);
      Location opLoc = op.getLoc();
      Value x = op.getInput();
      auto type = cast<RankedTensorType>(x.getType());
      double ratio = op.getRatio().convertToDouble();
      Value u = RandomUniformOp::create(builder, opLoc, seed, x,
                                        static_cast<int64_t>(stream));
      auto scalar = RankedTensorType::get({}, type.getElementType());
      auto constant = [&](double v) -> Value {
        return ConstantOp::create(
            builder, opLoc,
            DenseElementsAttr::get(
                scalar, builder.getFloatAttr(type.getElementType(), v)));
      };
      Value keep = CmpOp::create(builder, opLoc, CmpPredicate::ge, u,
                                 constant(ratio));
      Value scaled = MulOp::create(builder, opLoc, x, constant(1.0 / (1.0 - ratio)));
      Value zero = constant(0.0);
      Value y = WhereOp::create(builder, opLoc, keep, scaled, zero);
      op.getOutput().replaceAllUsesWith(y);
      op.getMask().replaceAllUsesWith(keep);
      op.erase();
    }
  }

  builder.setInsertionPointToEnd(body);
  argTypes.assign(train.getArgumentTypes().begin(),
                  train.getArgumentTypes().end());
  SmallVector<Value> results;
  SmallVector<Attribute> names;
  if (lossScale) {
    Value scaled = MulOp::create(builder, loc, lossValue,
                                 train.getArgument(train.getNumArguments() - 1));
    results = {scaled, lossValue};
    names = {builder.getStringAttr("scaled_loss"),
             builder.getStringAttr("loss")};
  } else {
    results = {lossValue};
    names = {builder.getStringAttr("loss")};
  }
  llvm::append_range(results, statResults);
  llvm::append_range(names, statNames);
  func::ReturnOp::create(builder, loc, results);
  train.setFunctionType(
      builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  train->setAttr(NNCDialect::getResultNamesAttrName(),
                 builder.getArrayAttr(names));

  // What only fed the model's other results is dead now.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body)))
    if (isOpTriviallyDead(&op))
      op.erase();
}

} // namespace
