//===- Passes.h - nnc transformation passes ---------------------*- C++ -*-===//
//
// Entry points of the nnc passes declared in Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TRANSFORMS_PASSES_H
#define NNC_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

#include <limits>
#include <memory>

namespace mlir {
class ModuleOp;
namespace arith {
class ArithDialect;
} // namespace arith
namespace cf {
class ControlFlowDialect;
} // namespace cf
namespace affine {
class AffineDialect;
} // namespace affine
namespace func {
class FuncOp;
} // namespace func
namespace linalg {
class LinalgDialect;
} // namespace linalg
namespace memref {
class MemRefDialect;
} // namespace memref
namespace scf {
class SCFDialect;
} // namespace scf
namespace tensor {
class TensorDialect;
} // namespace tensor
} // namespace mlir

namespace nnc {

/// The attribute --nnc-mixed-precision leaves on each function it converts:
/// a dictionary of what it did (dtype, low_ops, follow_ops, f32_ops, casts,
/// narrowed_bytes).
inline constexpr llvm::StringLiteral kMixedPrecisionAttrName =
    "nnc.mixed_precision";

/// The attribute --nnc-nonfinite-probe leaves on the probe function: an
/// array with one description per entry of its result.
inline constexpr llvm::StringLiteral kProbeOpsAttrName = "nnc.probe_ops";

/// The figures --nnc-remat-budget leaves on the function it ran on, and
/// the mark of the ops it cloned (which CSE must not merge back).
inline constexpr llvm::StringLiteral kRematAttrName = "nnc.remat";
inline constexpr llvm::StringLiteral kRecomputeAttrName = "nnc.recompute";

#define GEN_PASS_DECL
#include "nnc/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "nnc/Transforms/Passes.h.inc"

} // namespace nnc

#endif // NNC_TRANSFORMS_PASSES_H
