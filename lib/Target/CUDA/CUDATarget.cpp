//===- CUDATarget.cpp - NVIDIA GPUs as a compilation target ---------------===//
//
// What the CUDA target contributes to a compile: every copy as a loop on
// buffers, the kernels lowered to parallel loops (buildLoopPipeline),
// emitted as CUDA C++ (CUDAEmitter.cpp) and compiled by NVRTC into cubins
// and PTX, all stored with the source and each kernel's launches in the
// executable's code section (nnc/runtime/CudaModule.h), which the
// runtime's CUDA device loads.
//
// Matrix products are GEMM launches in the same lists, run by the device
// with cuBLASLt (GemmToCublasLt.cpp); with library kernels off
// (TargetOptions::libraryConvolutions, `--no-library-kernels`) they are
// loops like the rest.
//
// `cuda` compiles cubins for sm_80 and sm_90 and PTX for compute_90 (newer
// GPUs compile it when they load it); `cuda:sm_XX` a cubin for sm_XX and
// its PTX; `cuda:N` is the defaults for device N, which only the runtime
// uses.
//
//===----------------------------------------------------------------------===//

#include "Nvrtc.h"
#include "nnc/Target/CUDA/CUDAEmitter.h"
#include "nnc/Target/Target.h"
#include "nnc/runtime/CudaModule.h"
#include "nnc/runtime/Plan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>

using namespace mlir;

namespace {

/// The most blocks a launch takes: its loop strides over the rest. More
/// than a whole H200 holds at once (132 SMs x 2048 threads / 256).
constexpr int64_t kMaxBlocks = 8192;

/// Every memref.copy becomes linalg.copy, so a parallel loop that the
/// emitter maps to the grid: a kernel has no memcpy of its own.
struct CopiesToLoopsPass
    : public PassWrapper<CopiesToLoopsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CopiesToLoopsPass)
  StringRef getArgument() const final { return "nnc-cuda-copies-to-loops"; }
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      if (!isa<MemRefType>(copy.getSource().getType()) ||
          !isa<MemRefType>(copy.getTarget().getType())) {
        copy.emitError("the CUDA target copies ranked buffers only");
        return signalPassFailure();
      }
      OpBuilder builder(copy);
      linalg::CopyOp::create(builder, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
  }
};

/// The architectures `variant` asks for: (arch, cubin) pairs.
std::vector<std::pair<uint32_t, bool>> architectures(llvm::StringRef variant) {
  unsigned arch = 0;
  if (variant.consume_front("sm_") && !variant.getAsInteger(10, arch))
    return {{arch, true}, {arch, false}};
  return {{80, true}, {90, true}, {90, false}};
}

class CUDATarget final : public nnc::Target {
public:
  llvm::StringRef name() const override { return "cuda"; }
  llvm::StringRef deviceKind() const override { return "cuda"; }
  std::string executableTarget() const override {
    return nnc::runtime::kCudaExecutableTarget;
  }
  std::string fingerprint() const override {
    // The code depends on the compiler that made the images; the device it
    // runs on is chosen when it loads.
    return executableTarget() + "\nNVRTC " + nnc::cuda::nvrtcVersion();
  }

  std::string checkVariant(llvm::StringRef variant) const override {
    if (variant.empty() || llvm::all_of(variant, llvm::isDigit))
      return "";
    unsigned arch = 0;
    llvm::StringRef digits = variant;
    if (digits.consume_front("sm_") && !digits.getAsInteger(10, arch) &&
        arch >= 50 && arch < 1000)
      return "";
    return "target 'cuda:" + variant.str() +
           "': after 'cuda:' comes a device number (cuda:0) or an "
           "architecture sm_XX of at least sm_50 (cuda:sm_90)";
  }

  nnc::LoweringChoices
  loweringChoices(const nnc::TargetOptions &) const override {
    // One GEMM over the whole batch's windows: a GPU wants the big launch.
    // cuBLASLt sums f16/bf16 products in f32 (on tensor cores), so
    // convolutions under --amp take that GEMM too.
    nnc::LoweringChoices choices;
    choices.lowPrecisionConvGemms = true;
    return choices;
  }

  void buildBufferPipeline(OpPassManager &pm,
                           const nnc::TargetOptions &options) const override {
    pm.addPass(std::make_unique<CopiesToLoopsPass>());
    // Bias adds (and ReLU) after matrix products, for cuBLASLt epilogues.
    if (options.libraryConvolutions)
      pm.addPass(nnc::cuda::createGemmEpiloguesPass());
  }

  void buildKernelGroupingPipeline(
      OpPassManager &pm, const nnc::TargetOptions &options) const override {
    // Softmax and layer norm chains one kernel each, one launch each.
    if (options.fuse)
      pm.addPass(nnc::cuda::createRowGroupsPass());
  }

  void buildLoweringPipeline(OpPassManager &pm,
                             const nnc::TargetOptions &options) const override {
    // Matrix products run in cuBLASLt, unless generated code only is asked.
    if (options.libraryConvolutions)
      pm.addPass(nnc::cuda::createGemmToCublasLtPass());
    nnc::cuda::buildLoopPipeline(pm);
  }

  LogicalResult generateCode(ModuleOp lowered,
                             const std::vector<nnc::KernelEntry> &kernels,
                             const nnc::TargetOptions &options,
                             nnc::runtime::Plan &plan,
                             nnc::KernelBlob &out) const override {
    // The function that calls the kernels in order is the plan's business.
    llvm::StringMap<const nnc::KernelEntry *> byFunction;
    for (const nnc::KernelEntry &kernel : kernels)
      byFunction[kernel.function] = &kernel;
    for (auto func : lowered.getOps<func::FuncOp>())
      if (!byFunction.count(func.getName()))
        func->setAttr("nnc.cuda_skip", UnitAttr::get(lowered.getContext()));
      else if (func.isExternal())
        return func.emitError("the CUDA target has no body for kernel ")
               << func.getName();

    nnc::runtime::CudaModule module;
    std::vector<nnc::cuda::Launch> launches;
    if (failed(nnc::cuda::emitCuda(lowered, module.source, launches)))
      return failure();
    llvm::StringMap<std::vector<nnc::runtime::CudaLaunch>> launchesOf;
    for (const nnc::cuda::Launch &launch : launches) {
      nnc::runtime::CudaLaunch entry;
      entry.function = launch.name;
      if (launch.gemm) {
        entry.kind = nnc::runtime::CudaLaunch::Kind::Gemm;
        entry.gemm = *launch.gemm;
        // A call into cuBLASLt per run, in --report's library calls.
        ++plan.libraryCalls;
      } else if (launch.iterations > 1) {
        entry.block = static_cast<uint32_t>(launch.block);
        entry.grid = static_cast<uint32_t>(std::clamp<int64_t>(
            (launch.iterations + launch.block - 1) / launch.block, 1,
            kMaxBlocks));
      }
      launchesOf[launch.kernel].push_back(std::move(entry));
    }
    for (const nnc::KernelEntry &kernel : kernels) {
      nnc::runtime::CudaKernel entry;
      entry.symbol = kernel.symbol;
      entry.numPointers = static_cast<uint32_t>(kernel.numPointers);
      entry.launches = launchesOf.lookup(kernel.function);
      module.kernels.push_back(std::move(entry));
    }

    module.compiler = "NVRTC " + nnc::cuda::nvrtcVersion();
    for (auto [arch, cubin] : architectures(options.variant)) {
      std::string name = (cubin ? "sm_" : "compute_") + std::to_string(arch);
      std::vector<char> binary;
      std::string error;
      if (!nnc::cuda::compileWithNvrtc(module.source, "kernels.cu", name,
                                       binary, error))
        return emitError(lowered.getLoc()) << error;
      nnc::runtime::CudaImage image;
      image.kind = cubin ? nnc::runtime::CudaImage::Kind::Cubin
                         : nnc::runtime::CudaImage::Kind::Ptx;
      image.arch = arch;
      image.bytes.assign(binary.begin(), binary.end());
      module.images.push_back(std::move(image));
    }
    out.code = nnc::runtime::serializeCudaModule(module);
    out.alignment = 64;
    return success();
  }
};

} // namespace

void nnc::cuda::registerCUDATarget() {
  registerTarget(std::make_unique<CUDATarget>());
}
