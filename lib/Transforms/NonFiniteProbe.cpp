//===- NonFiniteProbe.cpp - which values of a function are not finite -----===//
//
// Implements --nnc-nonfinite-probe: a copy of a function that returns, per
// floating-point value it computes (in program order), whether that value
// holds an inf or a NaN. A trainer runs it on the batch of a step it
// skipped for non-finite gradients to name the first op that overflowed;
// the training step itself carries no probes.
//
//===----------------------------------------------------------------------===//

#include "nnc/Transforms/Passes.h"

#include "nnc/NNCOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseSet.h"

namespace nnc {
#define GEN_PASS_DEF_NONFINITEPROBEPASS
#include "nnc/Transforms/Passes.h.inc"
} // namespace nnc

using namespace mlir;
using namespace nnc;

namespace {

/// The name a location gives a value: the ONNX node or traced name of a
/// NameLoc, else file:line:col; empty when it gives none.
std::string locationName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location part : fused.getLocations())
      if (std::string name = locationName(part); !name.empty())
        return name;
    return "";
  }
  if (auto site = dyn_cast<CallSiteLoc>(loc))
    return locationName(site.getCallee());
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    if (file.getLine() == 0)
      return "";
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  }
  return "";
}

/// Ops whose results only move or pick elements of their operands: a
/// non-finite result means a non-finite operand, probed before them.
bool onlyMovesElements(Operation *op) {
  return isa<ConstantOp, ReshapeOp, ExpandOp, TransposeOp, ConcatOp, SplitOp,
             SliceOp, SqueezeOp, UnsqueezeOp, FlattenOp, TileOp, DepthToSpaceOp,
             SpaceToDepthOp, GatherOp, GatherElementsOp>(op);
}

/// Ops whose results are finite when their operands are: the first
/// non-finite value is never theirs, so they get no entry.
bool keepsFinite(Operation *op) {
  if (isa<ReluOp, NegOp, AbsOp, SignOp, MaxOp, MinOp, ClipOp, WhereOp, FloorOp,
          CeilOp, RoundOp, SigmoidOp, TanhOp, SoftsignOp, HardSigmoidOp,
          MaxPoolOp, GlobalMaxPoolOp, SoftmaxOp>(op))
    return true;
  // A cast to a type whose range holds the source's (f16 -> bf16 / f32,
  // bf16 -> f32, f32 -> f64).
  if (auto cast = dyn_cast<CastOp>(op)) {
    auto from = dyn_cast<FloatType>(getElementTypeOrSelf(cast.getInput()));
    auto to = dyn_cast<FloatType>(getElementTypeOrSelf(cast.getType()));
    if (!from || !to)
      return false;
    auto maxOf = [](FloatType type) {
      return llvm::APFloat::getLargest(type.getFloatSemantics())
          .convertToDouble();
    };
    return maxOf(from) <= maxOf(to);
  }
  return false;
}

/// Ops that carry an infinity of an operand into their result by design:
/// where(mask, x, -inf) and what adds, subtracts, clamps, negates, casts or
/// moves such a value (attention masks). Values so derived from a
/// non-finite constant are expected to hold infinities and get no entry.
bool carriesInfinity(Operation *op) {
  return isa<WhereOp, AddOp, SubOp, MaxOp, MinOp, NegOp, CastOp>(op) ||
         onlyMovesElements(op);
}

/// Whether `op` is a constant holding an inf or a NaN.
bool isNonFiniteConstant(Operation *op) {
  auto constant = dyn_cast<ConstantOp>(op);
  if (!constant)
    return false;
  auto values = dyn_cast<DenseFPElementsAttr>(constant.getValue());
  return values && llvm::any_of(values.getValues<APFloat>(),
                                [](const APFloat &v) { return !v.isFinite(); });
}

bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

struct NonFiniteProbePass
    : public nnc::impl::NonFiniteProbePassBase<NonFiniteProbePass> {
  using NonFiniteProbePassBase::NonFiniteProbePassBase;
  void runOnOperation() override;
};

void NonFiniteProbePass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  auto source = module.lookupSymbol<func::FuncOp>(function);
  if (!source || source.isExternal()) {
    module.emitError() << "nnc-nonfinite-probe: no function named '" << function
                       << "' with a body";
    return signalPassFailure();
  }
  if (!source.getBody().hasOneBlock()) {
    source.emitError() << "nnc-nonfinite-probe: '" << function
                       << "' has more than one block";
    return signalPassFailure();
  }
  std::string probeName = function + "_probe";
  if (module.lookupSymbol(probeName)) {
    module.emitError() << "nnc-nonfinite-probe: a symbol named '" << probeName
                       << "' already exists";
    return signalPassFailure();
  }

  func::FuncOp probe = source.clone();
  probe.setName(probeName);
  OpBuilder::atBlockEnd(module.getBody()).insert(probe);
  probe->moveAfter(source);
  Block &body = probe.getBody().front();
  auto terminator = cast<func::ReturnOp>(body.getTerminator());

  // A gradient function (results named grad<i>): the ops the loss, its
  // first result, depends on are the forward pass, the others backward.
  bool training = false;
  if (auto names =
          probe->getAttrOfType<ArrayAttr>(NNCDialect::getResultNamesAttrName()))
    training = llvm::any_of(names, [](Attribute name) {
      auto text = dyn_cast<StringAttr>(name);
      return text && text.getValue().starts_with("grad");
    });
  llvm::DenseSet<Operation *> forward;
  if (training && terminator.getNumOperands()) {
    if (Operation *def = terminator.getOperand(0).getDefiningOp())
      forward.insert(def);
    for (Operation &op : llvm::reverse(body.without_terminator())) {
      if (!forward.contains(&op))
        continue;
      for (Value operand : op.getOperands())
        if (Operation *def = operand.getDefiningOp())
          forward.insert(def);
    }
  }

  Type f32 = Float32Type::get(ctx);
  auto entryType = RankedTensorType::get({1}, f32);
  SmallVector<Value> entries;
  SmallVector<Attribute> descriptions;
  OpBuilder b(ctx);
  // Entry: NaN when `v` holds an inf or a NaN (x * 0 is NaN for those
  // only), else 0; built right after `v` so that it does not keep `v`
  // alive.
  auto addEntry = [&](Value v, Location loc, std::string description) {
    Type element = cast<RankedTensorType>(v.getType()).getElementType();
    auto scalarType = RankedTensorType::get({}, element);
    Value zero = ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(scalarType, b.getFloatAttr(element, 0.0)));
    Value times = MulOp::create(b, loc, v, zero);
    Value sum = ReduceOp::create(b, loc, ReduceKind::sum, times,
                                 ArrayRef<int64_t>{}, /*keepdims=*/false);
    if (element != f32)
      sum = CastOp::create(b, loc, scalarType.clone(f32), sum);
    entries.push_back(ReshapeOp::create(b, loc, entryType, sum));
    descriptions.push_back(StringAttr::get(ctx, description));
  };

  // The ops of the original body, before any entry was added.
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  b.setInsertionPointToStart(&body);
  for (BlockArgument arg : body.getArguments()) {
    if (!isFloatTensor(arg.getType()))
      continue;
    auto kind = probe.getArgAttrOfType<ParamKindAttr>(
        arg.getArgNumber(), NNCDialect::getParamAttrName());
    std::string what = !kind                                  ? "input"
                       : kind.getValue() == ParamKind::buffer ? "buffer"
                                                              : "parameter";
    std::string name = locationName(arg.getLoc());
    if (name.empty())
      name = "argument " + std::to_string(arg.getArgNumber());
    addEntry(arg, arg.getLoc(),
             what + " '" + name + "' " + typeText(arg.getType()));
  }
  llvm::DenseSet<Value> infiniteByDesign;
  for (Operation *op : ops) {
    if (isNonFiniteConstant(op) ||
        (carriesInfinity(op) &&
         llvm::any_of(op->getOperands(), [&](Value operand) {
           return infiniteByDesign.contains(operand);
         }))) {
      infiniteByDesign.insert(op->result_begin(), op->result_end());
      continue;
    }
    if (onlyMovesElements(op) || keepsFinite(op))
      continue;
    b.setInsertionPointAfter(op);
    std::string name = locationName(op->getLoc());
    for (OpResult result : op->getResults()) {
      if (!isFloatTensor(result.getType()))
        continue;
      std::string text = op->getName().getStringRef().str();
      if (!name.empty())
        text += " '" + name + "'";
      if (op->getNumResults() > 1)
        text += " result " + std::to_string(result.getResultNumber());
      if (training)
        text += forward.contains(op) ? " (forward)" : " (backward)";
      text += " " + typeText(result.getType());
      addEntry(result, op->getLoc(), std::move(text));
    }
  }

  // One result: the entries, concatenated in groups so that no op takes
  // hundreds of operands.
  b.setInsertionPoint(terminator);
  Location loc = terminator.getLoc();
  Value flags;
  if (entries.empty()) {
    auto type = RankedTensorType::get({0}, f32);
    flags = ConstantOp::create(b, loc,
                               DenseElementsAttr::get(type, ArrayRef<float>{}));
  } else {
    constexpr size_t kFanIn = 64;
    SmallVector<Value> level(entries);
    while (level.size() > 1) {
      SmallVector<Value> next;
      for (size_t i = 0; i < level.size(); i += kFanIn) {
        ArrayRef<Value> group =
            ArrayRef<Value>(level).slice(i, std::min(kFanIn, level.size() - i));
        next.push_back(
            group.size() == 1
                ? group.front()
                : ConcatOp::create(b, loc, group, /*axis=*/0).getResult());
      }
      level = std::move(next);
    }
    flags = level.front();
  }
  func::ReturnOp::create(b, loc, flags);
  terminator.erase();
  probe.removeResAttrsAttr();
  probe.setFunctionType(
      FunctionType::get(ctx, probe.getArgumentTypes(), {flags.getType()}));
  probe->setAttr(NNCDialect::getResultNamesAttrName(),
                 ArrayAttr::get(ctx, {StringAttr::get(ctx, "nonfinite")}));
  probe->setAttr(kProbeOpsAttrName, ArrayAttr::get(ctx, descriptions));
}

} // namespace
