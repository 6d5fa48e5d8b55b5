//===- Passes.h - nnc conversion passes -------------------------*- C++ -*-===//
//
// Entry points of the nnc conversion passes declared in Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_CONVERSION_PASSES_H
#define NNC_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir {
class DialectRegistry;
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
void populateNNCToLinalgPatterns(mlir::RewritePatternSet &patterns,
                                 bool perImageConvolutions = true);

/// Registers how One-Shot Bufferize handles the nnc ops that survive the
/// conversion (nnc.library_conv).
void registerBufferizableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry);

} // namespace nnc

#endif // NNC_CONVERSION_PASSES_H
