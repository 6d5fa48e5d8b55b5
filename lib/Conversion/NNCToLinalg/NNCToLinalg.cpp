//===- NNCToLinalg.cpp - lower nnc to linalg on tensors -------------------===//
//
// Implements --nnc-convert-to-linalg: a legality check that reports every op
// the patterns cannot lower, then the conversion by the pattern families of
// Patterns.h (one file each; their shared builders are in Utils.h).
//
//===----------------------------------------------------------------------===//

#include "nnc/Conversion/Passes.h"

#include "Patterns.h"
#include "nnc/LoopSchedule.h"
#include "nnc/NNCDialect.h"
#include "nnc/NNCOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace nnc {
#define GEN_PASS_DEF_CONVERTNNCTOLINALGPASS
#include "nnc/Conversion/Passes.h.inc"
} // namespace nnc

using namespace mlir;

void nnc::populateNNCToLinalgPatterns(RewritePatternSet &patterns,
                                      bool perImageConvolutions,
                                      bool lowPrecisionConvGemms) {
  detail::populateElementwisePatterns(patterns);
  detail::populateStructuredPatterns(patterns);
  detail::populateShapePatterns(patterns);
  detail::populateConvolutionPatterns(patterns, perImageConvolutions,
                                      lowPrecisionConvGemms);
  detail::populatePoolingPatterns(patterns);
  detail::populateNormalizationPatterns(patterns);
  detail::populateLossPatterns(patterns);
  detail::populateRandomPatterns(patterns);
  detail::populateCollectivePatterns(patterns);
}

namespace {

/// Why the kernel choice of `op` is one the conversion cannot obey, for the
/// ops whose patterns do not ask themselves (convolutions and matrix
/// products do): a loop schedule on an op that takes one, nothing elsewhere.
std::optional<std::string> whyLoopScheduleIsInvalid(Operation *op) {
  StringRef name = nnc::NNCDialect::getKernelChoiceAttrName();
  auto choice = op->getAttrOfType<StringAttr>(name);
  if (!choice || !isa_and_nonnull<nnc::NNCDialect>(op->getDialect()) ||
      isa<nnc::ConvOp, nnc::ConvTransposeOp, nnc::ConvWeightGradOp,
          nnc::MatMulOp, nnc::GemmOp, nnc::LibraryConvOp>(op))
    return std::nullopt;
  if (!nnc::takesLoopSchedule(op))
    return "it has no kernel choices, but " + name.str() + " = \"" +
           choice.getValue().str() + "\"";
  if (!nnc::loopScheduleNamed(choice.getValue()))
    return "its kernel choice " + name.str() + " = \"" +
           choice.getValue().str() + "\" is not one of " +
           nnc::loopScheduleNames();
  return std::nullopt;
}

/// Why the patterns cannot lower `op`, asked of each family in turn.
std::optional<std::string> whyCannotLowerToLinalg(Operation *op) {
  if (std::optional<std::string> reason = whyLoopScheduleIsInvalid(op))
    return reason;
  for (auto why :
       {nnc::detail::whyCannotLowerElementwise,
        nnc::detail::whyCannotLowerStructured, nnc::detail::whyCannotLowerShape,
        nnc::detail::whyCannotLowerConvolution,
        nnc::detail::whyCannotLowerPooling,
        nnc::detail::whyCannotLowerNormalization,
        nnc::detail::whyCannotLowerLoss, nnc::detail::whyCannotLowerRandom})
    if (std::optional<std::string> reason = why(op))
      return reason;
  return std::nullopt;
}

/// Reports each op that the patterns would refuse, one error naming the op
/// and why, before anything is rewritten: the patterns themselves only say
/// why through notifyMatchFailure, and the framework's "failed to legalize"
/// would name the first refused op only, without the reason.
LogicalResult checkLowerable(ModuleOp module) {
  bool lowerable = true;
  module.walk([&](Operation *op) {
    if (std::optional<std::string> reason = whyCannotLowerToLinalg(op)) {
      op->emitOpError("cannot be lowered to linalg: ") << *reason;
      lowerable = false;
    }
  });
  return success(lowerable);
}

struct ConvertNNCToLinalgPass
    : public nnc::impl::ConvertNNCToLinalgPassBase<ConvertNNCToLinalgPass> {
  using ConvertNNCToLinalgPassBase::ConvertNNCToLinalgPassBase;
  void runOnOperation() override {
    if (failed(checkLowerable(getOperation())))
      return signalPassFailure();
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<nnc::NNCDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect>();
    target.addLegalOp<ModuleOp, func::FuncOp, func::ReturnOp, func::CallOp>();
    // The run-time checks the index-taking ops lower to stay until
    // --nnc-lower-checks.
    target.addLegalOp<nnc::CheckIndexOp>();
    // Convolutions a library runs, until the target's pass on buffers.
    target.addLegalOp<nnc::LibraryConvOp>();
    // Collectives the runtime runs, likewise.
    target.addLegalOp<nnc::LibraryAllReduceOp>();

    markLoopSchedules(getOperation());
    RewritePatternSet patterns(ctx);
    nnc::populateNNCToLinalgPatterns(patterns, perImageConvolutions,
                                     lowPrecisionConvGemms);
    // checkLowerable has reported what the patterns refuse; an op still left
    // illegal (one without a pattern) is reported by the framework ("failed
    // to legalize operation ..."), and a pattern that does not apply says
    // why through notifyMatchFailure, visible with --debug.
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    markRecomputations(getOperation());
  }

  /// An op with a loop schedule as its kernel choice passes it on in its
  /// location, which the ops its pattern makes carry (nnc/LoopSchedule.h).
  static void markLoopSchedules(ModuleOp module) {
    StringRef name = nnc::NNCDialect::getKernelChoiceAttrName();
    module.walk([&](Operation *op) {
      auto choice = op->getAttrOfType<StringAttr>(name);
      if (!choice || !nnc::takesLoopSchedule(op))
        return;
      if (std::optional<nnc::LoopSchedule> schedule =
              nnc::loopScheduleNamed(choice.getValue()))
        op->setLoc(nnc::withLoopSchedule(op->getLoc(), *schedule));
    });
  }

  /// What the patterns made of an op --nnc-remat-budget cloned carries its
  /// location, and gets its mark too (the clone's number): CSE must not
  /// merge a recomputation back into the forward op it copies, nor two
  /// recomputations into one value that two readers would share.
  static void markRecomputations(ModuleOp module) {
    MLIRContext *context = module.getContext();
    auto mark = StringAttr::get(context, "nnc.recompute");
    module.walk([&](Operation *op) {
      auto fused = dyn_cast<FusedLoc>(op->getLoc());
      auto metadata =
          fused ? dyn_cast_or_null<DictionaryAttr>(fused.getMetadata())
                : DictionaryAttr();
      Attribute number = metadata ? metadata.get(mark) : Attribute();
      if (!number)
        return;
      if (op->getNumRegions() != 0 || isa<nnc::LibraryConvOp>(op))
        op->setAttr(mark, number);
    });
  }
};

} // namespace
