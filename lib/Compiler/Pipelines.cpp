//===- Pipelines.cpp - the CPU lowering pipelines -------------------------===//
//
// nnc (static shapes) -> linalg on tensors, fused -> memrefs with
// out-parameters (large f32/f64 GEMMs becoming OpenBLAS calls, sibling
// elementwise ops fused), temporaries planned into one arena -> kernel
// functions -> loops (parallel ones through OpenMP) -> the LLVM dialect,
// with bare-pointer function arguments so that a kernel takes one pointer
// per buffer.
//
//===----------------------------------------------------------------------===//

#include "nnc/Compiler/Compiler.h"

#include "nnc/InitAll.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

namespace {

/// Adds a textual pipeline; the strings below are fixed, so a failure to
/// parse them is a bug in nnc.
void addPipeline(OpPassManager &pm, llvm::StringRef text) {
  static std::once_flag registered;
  std::call_once(registered, [] { nnc::registerAllPasses(); });
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(text, pm, os)))
    llvm::report_fatal_error(llvm::Twine("nnc: bad built-in pipeline: ") +
                             error);
}

} // namespace

void nnc::buildCPUBufferizationPipeline(OpPassManager &pm,
                                        const CPUPipelineOptions &options) {
  std::string fusion = options.fuse ? "func.func(nnc-rematerialize),"
                                      "func.func(nnc-fuse-elementwise),"
                                      "canonicalize,"
                                    : "";
  std::string siblings =
      options.fuse ? "func.func(nnc-fuse-siblings),cse," : "";
  addPipeline(
      pm, "canonicalize,cse,nnc-convert-to-linalg{per-image-convolutions=" +
              std::string(options.fuse ? "1" : "0") + "},canonicalize,cse," +
              fusion +
              // Each accumulator filled where it is used, not copied.
              "func.func(nnc-untie-fills),"
              // Inputs and weights are the caller's: read-only (marked
              // by the compiler on the arguments). Results become
              // out-parameters that the runtime allocates.
              "one-shot-bufferize{bufferize-function-boundaries=1 "
              "function-boundary-type-conversion=identity-layout-map},"
              "buffer-results-to-out-params{modify-public-functions=1 "
              "hoist-static-allocs=1},"
              // Equal views merged, so that the copies of a tile onto
              // itself (an insert_slice written in place) fold away.
              "cse,canonicalize,"
              "func.func(nnc-strided-copy-to-linalg),"
              // Large f32/f64 GEMMs call OpenBLAS, which the runtime
              // opens.
              "nnc-gemm-to-blas," +
              siblings +
              // Temporaries into one arena; whatever is left (dynamic
              // or nested allocations) is freed where it dies.
              "func.func(nnc-plan-memory),"
              "buffer-deallocation-pipeline,convert-bufferization-to-memref,"
              "canonicalize,nnc-outline-kernels{horizontal=" +
              (options.fuse ? "true" : "false") + "}");
}

void nnc::buildCPULoweringPipeline(OpPassManager &pm,
                                   const CPUPipelineOptions &options) {
  // Only loops with enough work become OpenMP regions: a thread fork costs
  // more than a small loop.
  std::string loops = options.parallel
                          ? "convert-linalg-to-parallel-loops,"
                            "func.func(nnc-sequential-small-loops),"
                            "convert-scf-to-openmp,"
                          : "convert-linalg-to-loops,";
  addPipeline(pm, loops +
                      "expand-strided-metadata,lower-affine,"
                      "math-extend-to-supported-types,convert-math-to-libm,"
                      "finalize-memref-to-llvm,convert-scf-to-cf,"
                      // Before the OpenMP conversion, which would otherwise
                      // convert the functions with descriptor arguments.
                      "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1},"
                      "convert-openmp-to-llvm,convert-arith-to-llvm,"
                      "convert-math-to-llvm,convert-index-to-llvm,"
                      "convert-ub-to-llvm,convert-cf-to-llvm,"
                      "reconcile-unrealized-casts");
}

namespace {
struct LowerToLLVMOptions : public PassPipelineOptions<LowerToLLVMOptions> {
  Option<bool> parallel{*this, "parallel",
                        llvm::cl::desc("Parallel loops through OpenMP"),
                        llvm::cl::init(true)};
  Option<bool> fuse{*this, "fuse",
                    llvm::cl::desc("Fuse ops into kernels (off: one per op)"),
                    llvm::cl::init(true)};
};
} // namespace

void nnc::registerCompilerPipelines() {
  PassPipelineRegistration<LowerToLLVMOptions>(
      "nnc-lower-to-llvm",
      "Lower nnc functions with static shapes to the LLVM dialect as the CPU "
      "backend does (bufferization with out-parameters, bare-pointer "
      "arguments, OpenMP loops unless parallel=0)",
      [](OpPassManager &pm, const LowerToLLVMOptions &options) {
        nnc::CPUPipelineOptions cpu;
        cpu.parallel = options.parallel;
        cpu.fuse = options.fuse;
        nnc::buildCPUBufferizationPipeline(pm, cpu);
        nnc::buildCPULoweringPipeline(pm, cpu);
      });
}
