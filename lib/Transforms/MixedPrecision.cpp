//===- MixedPrecision.cpp - f16/bf16 compute by an op policy --------------===//
//
// Implements --nnc-mixed-precision, the compiler's torch.autocast: each op
// of a function computes in the low type, in f32 or in its inputs' type as
// the policy (MixedPrecisionPolicy.def, overridable per op kind) says, with
// casts where the types meet. Run on a training function before autodiff,
// the backward follows the forward's types and the f32 arguments stay the
// master weights.
//
//===----------------------------------------------------------------------===//

#include "nnc/Transforms/Passes.h"

#include "nnc/NNCOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace nnc {
#define GEN_PASS_DEF_MIXEDPRECISIONPASS
#include "nnc/Transforms/Passes.h.inc"
} // namespace nnc

using namespace mlir;
using namespace nnc;

namespace {

enum class Precision {
  Low,    // computes in the low type
  F32,    // computes in f32
  Follow, // computes in its inputs' type
  Keep,   // not an nnc op, or one with regions: runs as written
};

/// Whether `v` is an argument marked `nnc.param` (a weight or a buffer).
bool isParameter(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg)
    return false;
  auto function = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  return function && arg.getOwner()->isEntryBlock() &&
         function.getArgAttr(arg.getArgNumber(),
                             NNCDialect::getParamAttrName());
}

/// The policy table, by op name.
llvm::StringMap<Precision> defaultPolicy() {
  llvm::StringMap<Precision> policy;
#define NNC_AMP_OP(Class, P) policy[Class::getOperationName()] = Precision::P;
#include "MixedPrecisionPolicy.def"
  return policy;
}

Type elementTypeOf(Value v) { return getElementTypeOrSelf(v.getType()); }

bool isFloatTensor(Value v) {
  return isa<TensorType>(v.getType()) && isa<FloatType>(elementTypeOf(v));
}

struct MixedPrecisionPass
    : public nnc::impl::MixedPrecisionPassBase<MixedPrecisionPass> {
  using MixedPrecisionPassBase::MixedPrecisionPassBase;

  llvm::StringMap<Precision> policy;
  /// The op kinds `low-ops` and `f32-ops` name.
  llvm::StringSet<> overridden;
  Type low, f32;
  /// The type each value had before the pass, for those it changed.
  DenseMap<Value, Type> original;
  /// The cast of a changed value back to its old type, once made.
  DenseMap<Value, Value> restored;
  // What one function's conversion did, for its nnc.mixed_precision.
  int64_t lowOpsDone = 0, followOpsDone = 0, f32OpsDone = 0, castsDone = 0,
          narrowedBytes = 0;

  LogicalResult readOverrides(ModuleOp module) {
    MLIRContext *ctx = module.getContext();
    llvm::StringMap<StringRef> listOf;
    auto apply = [&](ArrayRef<std::string> names, StringRef list,
                     Precision p) -> LogicalResult {
      for (const std::string &name : names) {
        auto error = [&]() {
          return module.emitError()
                 << "--nnc-mixed-precision: '" << name << "' in " << list;
        };
        if (!RegisteredOperationName::lookup(name, ctx))
          return error() << " is not a known op";
        if (!StringRef(name).starts_with("nnc."))
          return error() << " is not an nnc op";
        if (name == CastOp::getOperationName() ||
            name == ConstantOp::getOperationName())
          return error() << " cannot be overridden: it does not compute";
        auto [it, inserted] = listOf.try_emplace(name, list);
        if (!inserted && it->second != list)
          return error() << " is also in " << it->second;
        policy[name] = p;
        overridden.insert(name);
      }
      return success();
    };
    if (failed(apply(lowOps, "low-ops", Precision::Low)) ||
        failed(apply(f32Ops, "f32-ops", Precision::F32)))
      return failure();
    return success();
  }

  Precision precisionOf(Operation *op) {
    if (op->getNumRegions() != 0 || !isa<NNCDialect>(op->getDialect()))
      return Precision::Keep;
    // Maxima and minima are exact in any type.
    if (auto reduce = dyn_cast<ReduceOp>(op);
        reduce &&
        (reduce.getKind() == ReduceKind::max ||
         reduce.getKind() == ReduceKind::min) &&
        !overridden.contains(reduce->getName().getStringRef()))
      return Precision::Follow;
    auto it = policy.find(op->getName().getStringRef());
    return it == policy.end() ? Precision::Follow : it->second;
  }

  /// `v` with element type `to`: a new nnc.cast, except where `v` is a cast
  /// that widened a value of type `to` exactly (that value is used), or a
  /// constant (the cast folds).
  Value castTo(OpBuilder &b, Location loc, Value v, Type to) {
    if (elementTypeOf(v) == to)
      return v;
    if (auto widened = v.getDefiningOp<CastOp>();
        widened && elementTypeOf(widened.getInput()) == to &&
        APFloat::isRepresentableBy(
            cast<FloatType>(to).getFloatSemantics(),
            cast<FloatType>(elementTypeOf(v)).getFloatSemantics()))
      return widened.getInput();
    Type type = cast<TensorType>(v.getType()).clone(to);
    Value result = b.createOrFold<CastOp>(loc, type, v);
    if (auto made = result.getDefiningOp<CastOp>();
        made && made.getInput() == v)
      ++castsDone;
    return result;
  }

  /// Gives every operand of `op` whose type the pass changed its old type
  /// back, and the values its regions use from above.
  void restoreOperands(Operation *op) {
    auto restore = [&](OpOperand &operand) {
      Value v = operand.get();
      auto it = original.find(v);
      if (it == original.end())
        return;
      // One cast back per value, right after it: the ops reading it in its
      // old type share it (and their gradients add up in that type).
      Value &back = restored[v];
      if (!back) {
        OpBuilder b(op->getContext());
        b.setInsertionPointAfterValue(v);
        back = castTo(b, v.getLoc(), v, getElementTypeOrSelf(it->second));
      }
      operand.set(back);
    };
    for (OpOperand &operand : op->getOpOperands())
      restore(operand);
    visitUsedValuesDefinedAbove(op->getRegions(),
                                [&](OpOperand *operand) { restore(*operand); });
  }

  /// Whether every floating-point operand and result of `op` was f32 before
  /// the pass (the ops the policy rewrites; f64 and low-typed code stays).
  bool wasF32(Operation *op) {
    for (Value v : op->getOperands()) {
      auto it = original.find(v);
      Type before = it == original.end() ? v.getType() : it->second;
      if (isFloatTensor(v) && getElementTypeOrSelf(before) != f32)
        return false;
    }
    for (Value v : op->getResults())
      if (isFloatTensor(v) && elementTypeOf(v) != f32)
        return false;
    return true;
  }

  /// Makes the f32 results of `op` low-typed.
  void narrowResults(Operation *op) {
    for (Value r : op->getResults()) {
      if (!isFloatTensor(r) || elementTypeOf(r) != f32)
        continue;
      original[r] = r.getType();
      auto type = cast<TensorType>(r.getType());
      if (type.hasStaticShape())
        narrowedBytes +=
            type.getNumElements() * (32 - low.getIntOrFloatBitWidth()) / 8;
      r.setType(type.clone(low));
    }
  }

  void convert(Operation *op) {
    Precision p = precisionOf(op);
    if (p != Precision::Keep && !wasF32(op))
      p = Precision::Keep;
    OpBuilder b(op);
    switch (p) {
    case Precision::Low: {
      bool any = false;
      for (OpOperand &operand : op->getOpOperands())
        if (isFloatTensor(operand.get())) {
          operand.set(castTo(b, op->getLoc(), operand.get(), low));
          any = true;
        }
      if (!any)
        return;
      narrowResults(op);
      ++lowOpsDone;
      return;
    }
    case Precision::Follow: {
      // The low type when every float operand that is not a constant or
      // a parameter has it: parameters are f32 master weights, used in the
      // low type like a matmul's (a bias added to a matmul's result).
      bool anyStrong = false, allLow = true;
      for (Value v : op->getOperands()) {
        if (!isFloatTensor(v) || matchPattern(v, m_Constant()) ||
            isParameter(v))
          continue;
        anyStrong = true;
        allLow &= elementTypeOf(v) == low;
      }
      if (!anyStrong || !allLow)
        return restoreOperands(op);
      for (OpOperand &operand : op->getOpOperands())
        if (isFloatTensor(operand.get()))
          operand.set(castTo(b, op->getLoc(), operand.get(), low));
      narrowResults(op);
      ++followOpsDone;
      return;
    }
    case Precision::F32: {
      bool anyFloat = llvm::any_of(op->getOperands(), isFloatTensor);
      restoreOperands(op);
      f32OpsDone += anyFloat;
      return;
    }
    case Precision::Keep:
      return restoreOperands(op);
    }
  }

  void convert(func::FuncOp function) {
    lowOpsDone = followOpsDone = f32OpsDone = castsDone = narrowedBytes = 0;
    original.clear();
    restored.clear();
    for (Block &block : function.getBody())
      for (Operation &op : llvm::make_early_inc_range(block))
        convert(&op);
    // The figures go on the function, not into pass statistics: those
    // differ in layout between a Release libMLIR and a checked build.
    Builder b(function.getContext());
    NamedAttribute fields[] = {
        b.getNamedAttr("dtype", b.getStringAttr(dtype)),
        b.getNamedAttr("low_ops", b.getI64IntegerAttr(lowOpsDone)),
        b.getNamedAttr("follow_ops", b.getI64IntegerAttr(followOpsDone)),
        b.getNamedAttr("f32_ops", b.getI64IntegerAttr(f32OpsDone)),
        b.getNamedAttr("casts", b.getI64IntegerAttr(castsDone)),
        b.getNamedAttr("narrowed_bytes", b.getI64IntegerAttr(narrowedBytes))};
    function->setAttr(kMixedPrecisionAttrName, b.getDictionaryAttr(fields));
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    f32 = Float32Type::get(ctx);
    if (dtype == "bf16") {
      low = BFloat16Type::get(ctx);
    } else if (dtype == "f16") {
      low = Float16Type::get(ctx);
    } else {
      module.emitError() << "--nnc-mixed-precision: dtype must be 'bf16' or "
                            "'f16', got '"
                         << dtype << "'";
      return signalPassFailure();
    }
    policy = defaultPolicy();
    if (failed(readOverrides(module)))
      return signalPassFailure();
    bool found = false;
    for (auto f : module.getOps<func::FuncOp>()) {
      if (f.isExternal() || (!function.empty() && f.getSymName() != function))
        continue;
      found = true;
      convert(f);
    }
    if (!found && !function.empty()) {
      module.emitError() << "--nnc-mixed-precision: no function '" << function
                         << "'";
      return signalPassFailure();
    }
  }
};

} // namespace
