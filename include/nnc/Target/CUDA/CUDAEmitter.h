//===- CUDAEmitter.h - kernels as CUDA C++ ----------------------*- C++ -*-===//
//
// The CUDA target's code generator (issue 19): the fused, planned kernels
// of a compiled function, lowered to loops, emitted as CUDA C++ that NVRTC
// compiles. Matrix products are GEMM launches that the CUDA device runs
// with cuBLASLt (GemmToCublasLt.cpp); convolutions are loops like every
// other kernel (cuDNN is not called yet).
//
// How: an emitter of our own over the loop IR (scf, memref, arith, math)
// rather than MLIR's gpu dialect and EmitC: the kernels arrive as loops over
// views of one arena, and what a kernel needs (grid-stride loops over
// static trip counts, typed pointers at static offsets) is a few hundred
// lines over those ops, while the gpu-dialect route would need its own
// outlining and host side that the runtime's plan already is.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TARGET_CUDA_CUDAEMITTER_H
#define NNC_TARGET_CUDA_CUDAEMITTER_H

#include "nnc/runtime/CudaModule.h"

#include "mlir/Support/LLVM.h"

#include <memory>
#include <optional>

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
class Operation;
class OpPassManager;
class Pass;
} // namespace mlir

namespace nnc::cuda {

/// The passes from kernels on buffers (linalg ops on views of the arena) to
/// the loops the emitter takes: parallel loops, affine maps as arithmetic,
/// f16/bf16 arithmetic computed in f32 (conversions at loads and stores).
void buildLoopPipeline(mlir::OpPassManager &pm);

/// The attribute of the calls that stand for GEMM launches.
inline constexpr const char *kGemmAttrName = "nnc.cuda_gemm";

/// --nnc-cuda-gemm-to-cublaslt: every linalg.matmul and batch_matmul of the
/// planned kernels that cuBLASLt can run where its matrices lie becomes a
/// call carrying kGemmAttrName, which the emitter makes a GEMM launch.
std::unique_ptr<mlir::Pass> createGemmToCublasLtPass();

/// --nnc-cuda-gemm-epilogues (the CUDA buffer pipeline, before memory
/// planning): a bias add (and ReLU) reading only a product's temporary runs
/// in place on its output, into which the product writes, marked for the
/// kernel outliner and --nnc-cuda-gemm-to-cublaslt (a cuBLASLt epilogue).
std::unique_ptr<mlir::Pass> createGemmEpiloguesPass();

/// The mark of an op the kernel outliner keeps in the kernel of the op
/// before it.
inline constexpr const char *kJoinKernelAttrName = "nnc.join_kernel";

/// --nnc-cuda-row-groups (after sibling fusion, before memory planning):
/// marks chains of linalg ops over the same rows, a reduction among them
/// (softmax, layer norm), to stay in one kernel, which the emitter runs as
/// one launch.
std::unique_ptr<mlir::Pass> createRowGroupsPass();
void registerRowGroupsPass();

/// The GEMM a call made by that pass describes; failure when `call` has no
/// valid description.
mlir::FailureOr<runtime::CudaGemm> parseGemmAttr(mlir::Operation *call);

/// Registers the CUDA target's passes with nnc-opt.
void registerCUDAPasses();

/// One launch of an emitted kernel function: a nnc kernel (one step of the
/// plan) is one or more launches in order, one per top-level loop nest or
/// GEMM.
struct Launch {
  /// The __global__ function.
  std::string name;
  /// The nnc kernel it belongs to and its arguments (buffers, in order).
  std::string kernel;
  size_t numArguments = 0;
  /// Iterations of the top-level parallel loop (a grid-stride loop over
  /// them: one thread each); 1 for a sequential nest (one thread).
  int64_t iterations = 1;
  /// The block size; the grid is ceil(iterations / block), capped.
  int64_t block = 256;
  /// A GEMM launch's product (no __global__ function is emitted for it).
  std::optional<runtime::CudaGemm> gemm;
};

/// Emits every function of `module` with a body (the kernels, as
/// buildLoopPipeline leaves them; but those marked `nnc.cuda_skip`) as CUDA
/// C++ into `source`, and their launches into `launches`. Fails with an error on the first op it cannot
/// emit, naming it.
mlir::LogicalResult emitCuda(mlir::ModuleOp module, std::string &source,
                             std::vector<Launch> &launches);

/// Registers the target "cuda" (CUDATarget.cpp): done by
/// registerAllTargets.
void registerCUDATarget();

/// Registers the nnc-translate translation `--emit-cuda` (a module of
/// kernels to CUDA C++; `--cuda-arch=sm_80,sm_90` also compiles the source
/// with NVRTC for each and reports the sizes).
void registerCudaTranslation();

} // namespace nnc::cuda

#endif // NNC_TARGET_CUDA_CUDAEMITTER_H
