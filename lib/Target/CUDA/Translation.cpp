//===- Translation.cpp - nnc-translate --emit-cuda ------------------------===//
//
// A module of kernels on buffers (as the shared pipeline leaves them, or
// written by hand) through buildLoopPipeline and the emitter; with
// --cuda-arch, NVRTC compiles the source for each architecture listed.
//
//===----------------------------------------------------------------------===//

#include "Nvrtc.h"
#include "nnc/Target/CUDA/CUDAEmitter.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include "llvm/Support/CommandLine.h"

using namespace mlir;

namespace {

/// The translation's options, registered with the command line only when
/// the translation is (nnc-translate), not by every program that links the
/// targets.
struct CudaTranslationOptions {
  llvm::cl::list<std::string> archs{
      "cuda-arch",
      llvm::cl::desc("With --emit-cuda: compile the source with NVRTC for "
                     "these architectures (sm_XX: a cubin, compute_XX: PTX)"),
      llvm::cl::CommaSeparated};
  llvm::cl::opt<bool> skipLibrary{
      "cuda-skip-library",
      llvm::cl::desc("With --emit-cuda: leave out the kernels that call a "
                     "library (GEMMs, convolutions), listing them"),
      llvm::cl::init(false)};
};

CudaTranslationOptions *options = nullptr;

LogicalResult emitCudaTranslation(Operation *op, llvm::raw_ostream &os) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    return op->emitError("--emit-cuda takes a module");
  std::vector<std::string> skipped;
  if (options->skipLibrary)
    for (auto func : module.getOps<func::FuncOp>()) {
      bool calls = false;
      func.walk([&](func::CallOp call) {
        calls = calls || !call->hasAttr(nnc::cuda::kGemmAttrName);
      });
      if (!calls)
        continue;
      func->setAttr("nnc.cuda_skip", UnitAttr::get(op->getContext()));
      skipped.push_back(func.getName().str());
    }
  PassManager pm(op->getContext());
  nnc::cuda::buildLoopPipeline(pm);
  if (failed(pm.run(module)))
    return failure();
  std::string source;
  std::vector<nnc::cuda::Launch> launches;
  if (failed(nnc::cuda::emitCuda(module, source, launches)))
    return failure();
  os << source;
  for (const nnc::cuda::Launch &launch : launches)
    if (launch.gemm)
      os << "// gemm launch " << launch.name << " (kernel " << launch.kernel
         << ", " << launch.numArguments << " buffers)\n";
    else
      os << "// launch " << launch.name << " (kernel " << launch.kernel << ", "
       << launch.numArguments << " buffers): " << launch.iterations
       << " iterations, block " << launch.block << "\n";
  for (const std::string &name : skipped)
    os << "// skipped " << name << ": a library call\n";
  for (const std::string &arch : options->archs) {
    std::vector<char> binary;
    std::string error;
    if (!nnc::cuda::compileWithNvrtc(source, "kernels.cu", arch, binary,
                                     error))
      return emitError(module.getLoc()) << error;
    os << "// nvrtc " << nnc::cuda::nvrtcVersion() << " " << arch << ": "
       << (arch.rfind("sm_", 0) == 0 ? "cubin" : "ptx") << ", "
       << (binary.empty() ? "empty" : "not empty") << "\n";
  }
  return success();
}

} // namespace

void nnc::cuda::registerCudaTranslation() {
  static CudaTranslationOptions registered;
  options = &registered;
  static TranslateFromMLIRRegistration registration(
      "emit-cuda", "kernels on buffers to CUDA C++ (nnc's CUDA emitter)",
      emitCudaTranslation, [](DialectRegistry &registry) {
        registry.insert<affine::AffineDialect, arith::ArithDialect,
                        func::FuncDialect, linalg::LinalgDialect,
                        LLVM::LLVMDialect, math::MathDialect,
                        memref::MemRefDialect, scf::SCFDialect>();
      });
}
