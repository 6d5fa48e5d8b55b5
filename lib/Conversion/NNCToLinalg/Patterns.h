//===- Patterns.h - the pattern families of nnc-to-linalg -------*- C++ -*-===//
//
// One populate function per family of nnc-to-linalg patterns (one file
// each), and the legality check of each family: why its patterns cannot
// lower an op, which the pass reports once before it converts anything.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LIB_CONVERSION_NNCTOLINALG_PATTERNS_H
#define NNC_LIB_CONVERSION_NNCTOLINALG_PATTERNS_H

#include <optional>
#include <string>
#include "llvm/ADT/StringRef.h"

namespace mlir {
class Operation;
class RewritePatternSet;
} // namespace mlir

namespace nnc::detail {

/// Elementwise unary, binary, comparison, select and cast ops
/// (ElementwisePatterns.cpp).
void populateElementwisePatterns(mlir::RewritePatternSet &patterns);
/// Contractions, reductions, softmax, the basic shape ops and constants
/// (StructuredPatterns.cpp).
void populateStructuredPatterns(mlir::RewritePatternSet &patterns);
/// Shape and indexing ops: gathers, scatters, rearrangements
/// (ShapePatterns.cpp).
void populateShapePatterns(mlir::RewritePatternSet &patterns);
/// conv, conv_transpose and conv_weight_grad (ConvolutionPatterns.cpp).
/// `perImageConvolutions`: 2-D ones without groups as an scf.for over the
/// images (one GEMM each). `lowPrecisionConvGemms`: f16/bf16 ones take the
/// im2col + GEMM forms too.
void populateConvolutionPatterns(mlir::RewritePatternSet &patterns,
                                 bool perImageConvolutions,
                                 bool lowPrecisionConvGemms);
/// Windowed and global max/average pooling (PoolingPatterns.cpp).
void populatePoolingPatterns(mlir::RewritePatternSet &patterns);
/// Batch (inference and training), instance, layer and group normalization
/// (NormalizationPatterns.cpp).
void populateNormalizationPatterns(mlir::RewritePatternSet &patterns);
/// NLL, cross-entropy and MSE losses (LossPatterns.cpp).
void populateLossPatterns(mlir::RewritePatternSet &patterns);
/// Dropout and random_uniform (RandomPatterns.cpp).
void populateRandomPatterns(mlir::RewritePatternSet &patterns);

/// all_reduce to library_all_reduce.
void populateCollectivePatterns(mlir::RewritePatternSet &patterns);

/// Legality checks, one per family: why its patterns cannot lower `op`, as
/// the user reads it after "cannot be lowered to linalg: ", or std::nullopt
/// when they can or `op` is not one of the family's. The patterns refuse
/// the same ops with the same reason through notifyMatchFailure.
std::optional<std::string> whyCannotLowerElementwise(mlir::Operation *op);
std::optional<std::string> whyCannotLowerStructured(mlir::Operation *op);
/// Why the kernel choice `choice` ("blas", "dnnl", "loops") does not apply
/// to the nnc.matmul or nnc.gemm `op`; nothing when it does.
std::optional<std::string>
whyMatrixProductChoiceDoesNotApply(mlir::Operation *op, llvm::StringRef choice);
std::optional<std::string> whyCannotLowerShape(mlir::Operation *op);
std::optional<std::string> whyCannotLowerConvolution(mlir::Operation *op);
std::optional<std::string> whyCannotLowerPooling(mlir::Operation *op);
std::optional<std::string> whyCannotLowerNormalization(mlir::Operation *op);
std::optional<std::string> whyCannotLowerLoss(mlir::Operation *op);
std::optional<std::string> whyCannotLowerRandom(mlir::Operation *op);

} // namespace nnc::detail

#endif // NNC_LIB_CONVERSION_NNCTOLINALG_PATTERNS_H
