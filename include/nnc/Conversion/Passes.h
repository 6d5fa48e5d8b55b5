//===- Passes.h - nnc conversion passes -------------------------*- C++ -*-===//
//
// Entry points of the nnc conversion passes declared in Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_CONVERSION_PASSES_H
#define NNC_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir {
class DialectRegistry;
class Operation;
class ModuleOp;
class RewritePatternSet;
class TypeConverter;
} // namespace mlir

namespace nnc {

#define GEN_PASS_DECL
#include "nnc/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "nnc/Conversion/Passes.h.inc"

/// Adds the patterns that rewrite nnc ops into linalg-on-tensors IR.
/// `lowPrecisionConvGemms`: f16/bf16 convolutions take the im2col + GEMM
/// forms too (the GEMM's operands f16/bf16, summed in f32).
void populateNNCToLinalgPatterns(mlir::RewritePatternSet &patterns,
                                 bool perImageConvolutions = true,
                                 bool lowPrecisionConvGemms = false);

/// Why the conversion cannot lower `op` with its kernel choice (nnc.impl)
/// forced to `choice` ("library", "per_image", "gemm", "loops" for a
/// convolution; a loop schedule, nnc/LoopSchedule.h, for the ops lowered to
/// generated loops only); nothing when it can. For ops without kernel choices, a reason. The autotuner asks this
/// before it measures a candidate.
std::optional<std::string> whyKernelChoiceDoesNotApply(mlir::Operation *op,
                                                       llvm::StringRef choice);

/// Registers how One-Shot Bufferize handles the nnc ops that survive the
/// conversion (nnc.library_conv).
void registerBufferizableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry);

} // namespace nnc

#endif // NNC_CONVERSION_PASSES_H
