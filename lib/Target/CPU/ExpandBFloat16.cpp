//===- ExpandBFloat16.cpp - bf16 conversions as integer operations --------===//
//
// Implements --nnc-cpu-expand-bf16: bf16 <-> f32 conversions become integer
// operations (MLIR's arith bf16 expansion), so no kernel calls compiler-rt
// and the conversions vectorize with their loops.
//
//===----------------------------------------------------------------------===//

#include "nnc/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
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
