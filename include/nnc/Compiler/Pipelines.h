//===- Pipelines.h - the pass pipelines the compiler runs -------*- C++ -*-===//
//
// The pipelines of a compile, built in C++ from the passes' constructors and
// option structs: specialization on concrete shapes, the shared lowering to
// fused, bufferized, memory-planned kernels (with the target's passes on
// buffers), and the target's lowering after it. Registered for nnc-opt as
// --nnc-inference-pipeline, so that nnc-opt runs exactly what a compile
// runs.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_COMPILER_PIPELINES_H
#define NNC_COMPILER_PIPELINES_H

#include "nnc/Compiler/Precision.h"
#include "nnc/Target/Target.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
class OpPassManager;
class Operation;
} // namespace mlir

namespace nnc {

/// Specializes the arguments of `function` on `inputShapes` ("index:dims",
/// dims separated by 'x', as --nnc-shape-inference takes them) and
/// propagates the shapes through it.
void buildSpecializationPipeline(mlir::OpPassManager &pm,
                                 llvm::StringRef function,
                                 llvm::ArrayRef<std::string> inputShapes);

/// --nnc-mixed-precision on `function` (every function when empty) as
/// `options` ask, when they ask for a low type at all.
void buildMixedPrecisionPipeline(mlir::OpPassManager &pm,
                                 llvm::StringRef function,
                                 const MixedPrecisionOptions &options);

/// The nnc.mixed_precision figures --nnc-mixed-precision left on
/// `function`; nothing when it did not convert it.
std::optional<MixedPrecisionReport>
mixedPrecisionReport(mlir::Operation *function);

/// --nnc-nonfinite-probe on `function`: adds `<function>_probe`.
void buildNonFiniteProbePipeline(mlir::OpPassManager &pm,
                                 llvm::StringRef function);

/// The descriptions --nnc-nonfinite-probe left on a probe function, one per
/// entry of its result; empty when `function` is not a probe.
std::vector<std::string> nonFiniteProbeOps(mlir::Operation *function);

/// nnc on static shapes -> linalg, fused -> buffers with out-parameters
/// (the function arguments read-only) -> the target's passes on buffers ->
/// sibling fusion, every temporary planned into one arena -> kernel
/// functions `<name>_k<i>` that each function calls in order. This is the
/// form the compile driver reads the plan's steps from.
void buildKernelPipeline(mlir::OpPassManager &pm, const Target &target,
                         const TargetOptions &options);

/// buildKernelPipeline, then the target's lowering of the kernels to what
/// its code generator takes.
void buildInferencePipeline(mlir::OpPassManager &pm, const Target &target,
                            const TargetOptions &options);

/// Registers --nnc-inference-pipeline (and its older name
/// --nnc-lower-to-llvm) with nnc-opt.
void registerInferencePipeline();

} // namespace nnc

#endif // NNC_COMPILER_PIPELINES_H
