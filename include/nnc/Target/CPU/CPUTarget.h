//===- CPUTarget.h - the host CPU as a compilation target -------*- C++ -*-===//
//
// Registration of the CPU target: its passes, the dialects and translations
// its lowering to LLVM needs, and the target itself (the default one).
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TARGET_CPU_CPUTARGET_H
#define NNC_TARGET_CPU_CPUTARGET_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace nnc::cpu {

/// The dialects and interfaces of the lowering to the LLVM dialect and of
/// the translation to LLVM IR (OpenMP included).
void registerCPUDialects(mlir::DialectRegistry &registry);
/// The CPU target's passes and the upstream passes of its pipelines, for
/// textual pipelines (nnc-opt).
void registerCPUPasses();
/// Adds the CPU target to the target registry.
void registerCPUTarget();

} // namespace nnc::cpu

#endif // NNC_TARGET_CPU_CPUTARGET_H
