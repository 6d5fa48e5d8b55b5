//===- Target.h - what a compilation target contributes ---------*- C++ -*-===//
//
// The interface between the shared compile stages and one target (a folder
// under lib/Target): the choices it makes in the shared lowering, its own
// passes on buffers and from the fused, planned kernels down to what its
// code generator takes, its code generator into the executable's kernel
// section, the runtime device that runs the code, and the fingerprint of
// everything the code depends on for the compile cache. The shared stages
// reach a target only through this interface, by name from the registry.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TARGET_TARGET_H
#define NNC_TARGET_TARGET_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
class DialectRegistry;
class ModuleOp;
class Operation;
class OpPassManager;
} // namespace mlir

namespace nnc {
namespace runtime {
struct Plan;
} // namespace runtime

/// What the user asked for that shapes a target's pipelines and code.
struct TargetOptions {
  /// Optimization level of the code generator, 0 to 3.
  int optLevel = 2;
  /// Kernels may use every core (off: single-threaded kernels).
  bool parallel = true;
  /// The threads kernels may use when parallel; 0: every core.
  unsigned threads = 0;
  /// Ops are fused into kernels (off: one kernel per op, for comparison).
  bool fuse = true;
  /// Temporaries are planned into one arena (off: each is allocated and
  /// freed by its kernel, for comparison).
  bool planMemory = true;
  /// Convolutions may run in the target's tuned library (the CPU: oneDNN)
  /// where its cost model picks it (off: generated code only).
  bool libraryConvolutions = true;
  /// What follows the target's name after a ':' in the target string
  /// ("sm_90" in "cuda:sm_90", "1" in "cuda:1"); empty when nothing does.
  /// The target checks it (Target::checkVariant).
  std::string variant;
};

/// Choices the shared lowering leaves to the target.
struct LoweringChoices {
  /// Convolutions over a batch run image by image, each one GEMM over its
  /// window tile, rather than one GEMM over the whole batch's windows.
  bool perImageConvolutions = false;
  /// f16/bf16 convolutions also lower as im2col + a GEMM (f16/bf16
  /// operands summed in f32), for a target whose library runs such GEMMs.
  bool lowPrecisionConvGemms = false;
};

/// The ways a target can run one op, for the autotuner: values of the op's
/// kernel choice attribute (nnc.impl) that it offers.
struct KernelCandidates {
  /// Every choice the target can run the op with, in the order to measure.
  std::vector<std::string> choices;
  /// The cost model's pick when it is one of `choices`; empty when the
  /// pick is left to the conversion's own rules (the op without nnc.impl),
  /// which the autotuner then measures as the candidate "default".
  std::string defaultChoice;
};

/// A kernel the code generator exports: `symbol` runs the function
/// `function` of the lowered module, which takes `numPointers` buffers.
struct KernelEntry {
  std::string function;
  std::string symbol;
  size_t numPointers = 0;
};

/// The executable's code section, as the target's runtime device loads it.
struct KernelBlob {
  std::vector<uint8_t> code;
  /// Alignment of the section in the executable.
  uint64_t alignment = 64;
};

class Target {
public:
  virtual ~Target();

  /// The name users select the target by (nnc_compile_options_t::target).
  virtual llvm::StringRef name() const = 0;
  /// The runtime device that runs the code (runtime::Device::name()).
  virtual llvm::StringRef deviceKind() const = 0;
  /// The target string written into executables, which the runtime checks
  /// before loading them.
  virtual std::string executableTarget() const = 0;
  /// The machine, features and library versions the generated code depends
  /// on: part of every cache key, so that code is never reused elsewhere.
  virtual std::string fingerprint() const = 0;

  /// Whether the target takes `variant` (TargetOptions::variant): empty
  /// when it does, else why not. By default a target takes none.
  virtual std::string checkVariant(llvm::StringRef variant) const;

  /// Fills the choices the shared lowering leaves open for `options`.
  virtual LoweringChoices loweringChoices(const TargetOptions &options) const;
  /// Passes on the nnc ops before the conversion to linalg: the kernel
  /// choices (nnc.impl) the target's cost model makes where none is given.
  virtual void buildKernelChoicePipeline(mlir::OpPassManager &pm,
                                         const TargetOptions &options) const;
  /// Passes on the linalg ops on tensors, after the conversion and before
  /// fusion: how the target's library kernels want their operands laid out.
  /// None by default.
  virtual void buildTensorPipeline(mlir::OpPassManager &pm,
                                   const TargetOptions &options) const;
  /// The candidates the target offers for `op` (none for an op without
  /// kernel choices; the default). The conversion may still refuse one for
  /// the op's types or shapes: the autotuner asks it before measuring.
  virtual KernelCandidates kernelCandidates(mlir::Operation *op,
                                            const TargetOptions &options) const;
  /// Candidates for `op` built from what measuring kernelCandidates' gave
  /// (`measured`: each choice and its median ms, "default" for the op
  /// without a choice), measured after them: the CPU combines the fastest
  /// parallel loops with the fastest vector width. None by default.
  virtual std::vector<std::string> followUpCandidates(
      mlir::Operation *op,
      llvm::ArrayRef<std::pair<std::string, double>> measured,
      const TargetOptions &options) const;
  /// Passes on the bufferized functions before sibling fusion and memory
  /// planning: library calls, copies the target does its own way.
  virtual void buildBufferPipeline(mlir::OpPassManager &pm,
                                   const TargetOptions &options) const = 0;
  /// Passes after sibling fusion and before memory planning: which ops
  /// the kernel outliner keeps together (nnc.join_kernel). None by default.
  virtual void buildKernelGroupingPipeline(mlir::OpPassManager &pm,
                                           const TargetOptions &options) const;
  /// Passes from the fused, planned kernels to what generateCode takes.
  virtual void buildLoweringPipeline(mlir::OpPassManager &pm,
                                     const TargetOptions &options) const = 0;
  /// Generates the code section exporting `kernels` from the lowered module
  /// and records in `plan` what the code needs from the machine that loads
  /// it, and the library calls per run its lowering made (added to those
  /// of the shared pipeline). Errors are emitted on the module.
  virtual mlir::LogicalResult
  generateCode(mlir::ModuleOp lowered, const std::vector<KernelEntry> &kernels,
               const TargetOptions &options, runtime::Plan &plan,
               KernelBlob &out) const = 0;
};

/// Registers every target this build has (the first, the host CPU, is the
/// default); idempotent. The compile driver calls it.
void registerAllTargets();
/// The dialects and translations every target's pipelines need.
void registerAllTargetDialects(mlir::DialectRegistry &registry);
/// Every target's passes, for textual pipelines (nnc-opt).
void registerAllTargetPasses();
/// Every target's translations (nnc-translate): the CUDA emitter's
/// --emit-cuda.
void registerAllTargetTranslations();

/// Adds `target` to the registry (done by registerAllTargets); the first
/// registered is the default.
void registerTarget(std::unique_ptr<Target> target);
/// The target named `name` (what precedes a ':' in it: "cuda:sm_90" is
/// the target "cuda"), the default one for an empty name, or null.
const Target *lookupTarget(llvm::StringRef name);
/// What follows the first ':' of a target string ("" without one).
llvm::StringRef targetVariant(llvm::StringRef name);
/// The names of the registered targets, in registration order.
std::vector<std::string> registeredTargetNames();

} // namespace nnc

#endif // NNC_TARGET_TARGET_H
