//===- ExpandBFloat16.cpp - bf16 conversions as integer operations --------===//
//
// Implements --nnc-cpu-expand-bf16: bf16 <-> f32 conversions become integer
// operations (MLIR's arith bf16 expansion), so no kernel calls compiler-rt
// and the conversions vectorize with their loops; and --nnc-cpu-bf16-as-bits:
// in the lowered LLVM dialect, the bf16 values that are left only move, and
// become i16, so that LLVM's code generator (which on x86 without
// AVX512-BF16 keeps a bf16 phi in an f32 register and rounds it back with a
// compiler-rt call) never sees one.
//
//===----------------------------------------------------------------------===//

#include "nnc/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace nnc::cpu {
#define GEN_PASS_DEF_EXPANDBFLOAT16PASS
#include "nnc/Target/CPU/Passes.h.inc"
} // namespace nnc::cpu

using namespace mlir;

namespace {

struct ExpandBFloat16Pass
    : public nnc::cpu::impl::ExpandBFloat16PassBase<ExpandBFloat16Pass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// --nnc-cpu-bf16-as-bits
//===----------------------------------------------------------------------===//

namespace nnc::cpu {
#define GEN_PASS_DEF_BFLOAT16ASBITSPASS
#include "nnc/Target/CPU/Passes.h.inc"
} // namespace nnc::cpu

namespace {

/// `type` with bf16 (scalar, or the element of a vector) replaced by i16;
/// null when it has no bf16.
Type bitsType(Type type) {
  auto i16 = IntegerType::get(type.getContext(), 16);
  if (type.isBF16())
    return i16;
  if (auto vector = dyn_cast<VectorType>(type))
    if (vector.getElementType().isBF16())
      return vector.clone(i16);
  return {};
}

bool hasBF16(Type type) { return static_cast<bool>(bitsType(type)); }

/// Whether `op` only moves its bf16 values (so they can be i16 instead).
/// Aggregates are not among them: bitsType does not look into a struct or
/// an array, so an element moved out of one would no longer match it.
bool movesOnly(Operation *op) {
  bool touches = llvm::any_of(op->getOperandTypes(), hasBF16) ||
                 llvm::any_of(op->getResultTypes(), hasBF16) ||
                 llvm::any_of(op->getRegions(), [](Region &region) {
                   return llvm::any_of(region.getBlocks(), [](Block &block) {
                     return llvm::any_of(block.getArgumentTypes(), hasBF16);
                   });
                 });
  if (isa<LLVM::GEPOp>(op))
    return true; // its element type only sets the stride
  if (!touches)
    return true;
  if (auto func = dyn_cast<LLVM::LLVMFuncOp>(op)) {
    LLVM::LLVMFunctionType type = func.getFunctionType();
    return !hasBF16(type.getReturnType()) &&
           llvm::none_of(type.getParams(), hasBF16);
  }
  return isa<LLVM::LoadOp, LLVM::StoreOp, LLVM::BitcastOp, LLVM::SelectOp,
             LLVM::ConstantOp, LLVM::UndefOp, LLVM::PoisonOp, LLVM::ZeroOp,
             LLVM::BrOp, LLVM::CondBrOp, LLVM::SwitchOp, LLVM::InsertElementOp,
             LLVM::ExtractElementOp, LLVM::ShuffleVectorOp, LLVM::MaskedLoadOp,
             LLVM::MaskedStoreOp>(op);
}

struct BFloat16AsBitsPass
    : public nnc::cpu::impl::BFloat16AsBitsPassBase<BFloat16AsBitsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      if (func.isExternal())
        continue;
      bool movable = true;
      func->walk([&](Operation *op) {
        if (!movesOnly(op)) {
          movable = false;
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (movable)
        rewrite(func);
    }
  }

  void rewrite(LLVM::LLVMFuncOp func) {
    auto i16 = IntegerType::get(&getContext(), 16);
    SmallVector<LLVM::BitcastOp> casts;
    func->walk([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (Type bits = bitsType(arg.getType()))
              arg.setType(bits);
      if (auto gep = dyn_cast<LLVM::GEPOp>(op))
        if (Type bits = bitsType(gep.getElemType()))
          gep.setElemType(bits);
      if (auto constant = dyn_cast<LLVM::ConstantOp>(op)) {
        if (auto number = dyn_cast<FloatAttr>(constant.getValue());
            number && number.getType().isBF16())
          constant.setValueAttr(
              IntegerAttr::get(i16, number.getValue().bitcastToAPInt()));
        else if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
                 dense && dense.getElementType().isBF16())
          constant.setValueAttr(dense.bitcast(i16));
      }
      for (OpResult result : op->getResults())
        if (Type bits = bitsType(result.getType()))
          result.setType(bits);
      if (auto cast = dyn_cast<LLVM::BitcastOp>(op))
        if (cast.getArg().getType() == cast.getType())
          casts.push_back(cast);
    });
    for (LLVM::BitcastOp cast : casts) {
      cast.getResult().replaceAllUsesWith(cast.getArg());
      cast.erase();
    }
  }
};

} // namespace
