//===- CPUTarget.cpp - the host CPU as a compilation target ---------------===//
//
// What the CPU contributes to a compile: per-image convolutions when fusing,
// OpenBLAS calls and strided copies on buffers, (OpenMP) loops down to the
// LLVM dialect with bare-pointer kernel arguments, and a shared object
// generated in process (CPUCodegen.cpp) that the runtime's CPU device loads.
//
//===----------------------------------------------------------------------===//

#include "nnc/Target/CPU/CPUTarget.h"

#include "CPUCodegen.h"
#include "DnnlConvolutions.h"
#include "nnc/LoopSchedule.h"

#include "nnc/Target/CPU/Passes.h"
#include "nnc/Target/Target.h"
#include "nnc/runtime/Plan.h"
#include "nnc/runtime/Program.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"

#include <mutex>
#include <thread>

using namespace mlir;

namespace {

/// Ops whose largest operand or result has fewer elements than this are
/// left to --nnc-sequential-small-loops' rule (one thread below 32768
/// iterations): no schedule is worth measuring for them.
constexpr int64_t kLoopScheduleMinElements = 16384;

/// Whether the autotuner should measure loop schedules (nnc/LoopSchedule.h)
/// for `op`: one lowered to generated loops only, with static shapes, and
/// an operand or result of at least kLoopScheduleMinElements.
bool worthLoopSchedules(Operation *op) {
  if (!nnc::takesLoopSchedule(op))
    return false;
  int64_t largest = 0;
  for (Type type :
       llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes())) {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasStaticShape())
      return false;
    largest = std::max(largest, shaped.getNumElements());
  }
  return largest >= kLoopScheduleMinElements;
}

/// The bits of the type `op` computes in: its widest float operand or
/// result, at least 32 (f16 and bf16 compute in f32 here).
unsigned computeBits(Operation *op) {
  unsigned bits = 32;
  for (Type type :
       llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()))
    if (auto element = dyn_cast<FloatType>(getElementTypeOrSelf(type)))
      bits = std::max(bits, element.getWidth());
  return bits;
}

/// The loop schedules (nnc/LoopSchedule.h) the tuner measures for `op`:
/// - with parallel code, which loops run in parallel (one thread, the
///   outermost dimension, all but the innermost);
/// - then the outermost or all-but-innermost dimensions on half and a
///   quarter of the threads the code may use, where that is 2 or more and
///   fewer than all (a small op may finish sooner on fewer threads, and
///   leave the others to sleep);
/// - by the size rules' parallel loops, the innermost loops vectorized at
///   half, once and twice the lanes of the host's widest registers for
///   the op's type (LLVM's cost model may pick narrower vectors than pay,
///   and leaves a floating-point sum along a row scalar).
nnc::KernelCandidates
loopScheduleCandidates(Operation *op, const nnc::TargetOptions &options) {
  nnc::KernelCandidates candidates;
  auto add = [&](nnc::LoopSchedule schedule) {
    std::string name = nnc::loopScheduleName(schedule);
    if (!llvm::is_contained(candidates.choices, name))
      candidates.choices.push_back(std::move(name));
  };
  if (options.parallel) {
    for (nnc::LoopParallelism parallelism :
         {nnc::LoopParallelism::Serial, nnc::LoopParallelism::Outer,
          nnc::LoopParallelism::Wide})
      add({parallelism});
    unsigned all = options.threads ? options.threads
                                   : std::thread::hardware_concurrency();
    for (unsigned threads : {all / 2, all / 4})
      if (threads >= 2 && threads < all)
        for (nnc::LoopParallelism parallelism :
             {nnc::LoopParallelism::Outer, nnc::LoopParallelism::Wide})
          add({parallelism, threads});
  }
  unsigned lanes = nnc::cpu::hostVectorBits() / computeBits(op);
  for (unsigned width : {lanes / 2, lanes, lanes * 2})
    if (width >= 2 && width <= nnc::LoopSchedule::kMaxVectorWidth)
      add({nnc::LoopParallelism::Rules, /*threads=*/0, width});
  return candidates;
}

/// The follow-up of loopScheduleCandidates: where the fastest parallel
/// loops (with their threads) and the fastest vector width both beat the
/// default measured alone, the two together.
std::vector<std::string>
combinedLoopSchedule(llvm::ArrayRef<std::pair<std::string, double>> measured) {
  double defaultMs = -1;
  std::optional<nnc::LoopSchedule> parallel, vector;
  double parallelMs = -1, vectorMs = -1;
  for (const auto &[choice, ms] : measured) {
    std::optional<nnc::LoopSchedule> schedule =
        nnc::loopScheduleNamed(choice);
    if (!schedule) {
      defaultMs = ms;
      continue;
    }
    bool setsLoops = schedule->parallelism != nnc::LoopParallelism::Rules ||
                     schedule->threads;
    if (setsLoops && !schedule->vectorWidth &&
        (parallelMs < 0 || ms < parallelMs)) {
      parallel = schedule;
      parallelMs = ms;
    }
    if (!setsLoops && schedule->vectorWidth &&
        (vectorMs < 0 || ms < vectorMs)) {
      vector = schedule;
      vectorMs = ms;
    }
  }
  if (!parallel || !vector || defaultMs < 0 || parallelMs >= defaultMs ||
      vectorMs >= defaultMs)
    return {};
  parallel->vectorWidth = vector->vectorWidth;
  return {nnc::loopScheduleName(*parallel)};
}

class CPUTarget final : public nnc::Target {
public:
  llvm::StringRef name() const override { return "cpu"; }
  llvm::StringRef deviceKind() const override { return "cpu"; }
  std::string executableTarget() const override {
    return nnc::runtime::Program::hostCpuTarget();
  }
  std::string fingerprint() const override {
    // The kernel choices depend on whether oneDNN is there, and which; the
    // tuner's measurements on the libraries' versions too.
    return executableTarget() + "\n" + nnc::cpu::hostCpuDescription() + "\n" +
           nnc::cpu::dnnlDescription() + "\n" + nnc::runtime::blasDescription();
  }

  nnc::LoweringChoices
  loweringChoices(const nnc::TargetOptions &options) const override {
    nnc::LoweringChoices choices;
    // The images' window tiles are planned into the arena and reused;
    // without fusion the whole batch's windows are the baseline.
    choices.perImageConvolutions = options.fuse;
    return choices;
  }

  void
  buildKernelChoicePipeline(OpPassManager &pm,
                            const nnc::TargetOptions &options) const override {
    // f16/bf16 matrix products and convolutions on f32 copies, which the
    // f32 libraries (and the f32 loops) run, unless a library has kernels
    // for their own types on this CPU (oneDNN's with AVX-512 BF16 or AMX).
    nnc::cpu::WidenLowPrecisionPassOptions widen;
    widen.nativeConvolutions = options.libraryConvolutions;
    widen.bf16Gemm = nnc::cpu::dnnlRunsBF16Gemms();
    pm.addPass(nnc::cpu::createWidenLowPrecisionPass(widen));
    // oneDNN for the convolutions it can take.
    if (options.libraryConvolutions)
      pm.addPass(nnc::cpu::createChooseKernelsPass());
  }

  void buildTensorPipeline(OpPassManager &pm,
                           const nnc::TargetOptions &options) const override {
    // oneDNN's forward convolutions on channels-last images where its
    // kernels keep them so: the transposes around them fuse into the
    // elementwise kernels between convolutions, instead of two reorders
    // per call. Without fusion they would only be kernels of their own.
    if (options.libraryConvolutions && options.fuse)
      pm.addNestedPass<func::FuncOp>(nnc::cpu::createChannelsLastPass());
  }

  nnc::KernelCandidates
  kernelCandidates(Operation *op,
                   const nnc::TargetOptions &options) const override {
    nnc::KernelCandidates products = nnc::cpu::matrixProductCandidates(op);
    if (!products.choices.empty())
      return products;
    if (worthLoopSchedules(op))
      return loopScheduleCandidates(op, options);
    return nnc::cpu::convolutionCandidates(op, options.libraryConvolutions);
  }

  std::vector<std::string> followUpCandidates(
      Operation *op, llvm::ArrayRef<std::pair<std::string, double>> measured,
      const nnc::TargetOptions &) const override {
    if (!nnc::takesLoopSchedule(op))
      return {};
    return combinedLoopSchedule(measured);
  }

  void buildBufferPipeline(OpPassManager &pm,
                           const nnc::TargetOptions &) const override {
    // Library convolutions call the runtime's oneDNN glue.
    pm.addPass(nnc::cpu::createLibraryConvToDnnlPass());
    // Collectives call the runtime, which runs them on the thread's scope.
    pm.addPass(nnc::cpu::createRuntimeCollectivesPass());
    // memref.copy between strided views would call MLIR's runner library,
    // which the runtime does not ship.
    pm.addNestedPass<func::FuncOp>(nnc::cpu::createStridedCopyToLinalgPass());
    // Large GEMMs call libraries: f64 OpenBLAS, which the runtime opens;
    // bf16 the oneDNN glue, where it has kernels for them; f32 oneDNN where
    // its matmul has brgemm kernels, else OpenBLAS (an op's nnc.impl, set
    // by the autotuner or by hand, picks its own).
    nnc::cpu::GemmToBlasPassOptions gemm;
    gemm.bf16Gemm = nnc::cpu::dnnlRunsBF16Gemms();
    gemm.f32Library = nnc::cpu::defaultF32GemmLibrary();
    pm.addPass(nnc::cpu::createGemmToBlasPass(gemm));
  }

  void buildLoweringPipeline(OpPassManager &pm,
                             const nnc::TargetOptions &options) const override {
    // Only loops with enough work become OpenMP regions: a thread fork
    // costs more than a small loop.
    if (options.parallel) {
      pm.addPass(createConvertLinalgToParallelLoopsPass());
      pm.addNestedPass<func::FuncOp>(
          nnc::cpu::createSequentialSmallLoopsPass());
      // The innermost dimension stays a loop of its own, which vectorizes.
      pm.addNestedPass<func::FuncOp>(nnc::cpu::createParallelOuterDimsPass());
      pm.addPass(createConvertSCFToOpenMPPass());
    } else {
      pm.addPass(createConvertLinalgToLoopsPass());
    }
    // A loop schedule's threads and vector width.
    pm.addNestedPass<func::FuncOp>(nnc::cpu::createLoopHintsPass());
    pm.addPass(memref::createExpandStridedMetadataPass());
    pm.addPass(createLowerAffinePass());
    // f16 and bf16 are storage types here: arithmetic on them computes in
    // f32 and rounds each result, and bf16 conversions are bit operations.
    pm.addPass(math::createMathExtendToSupportedTypes());
    arith::ArithEmulateUnsupportedFloatsOptions emulate;
    emulate.sourceTypeStrs = {"f16", "bf16"};
    pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
    pm.addPass(nnc::cpu::createExpandBFloat16Pass());
    // exp, log, tanh, erf, sqrt, fma, floor, ... inline, so their loops
    // vectorize; the other functions call libm.
    pm.addPass(nnc::cpu::createInlineMathPass());
    pm.addPass(createConvertMathToLibmPass());
    pm.addPass(createFinalizeMemRefToLLVMConversionPass());
    pm.addPass(createSCFToControlFlowPass());
    // Before the OpenMP conversion, which would otherwise convert the
    // functions with descriptor arguments. A kernel takes one pointer per
    // buffer.
    ConvertFuncToLLVMPassOptions bare;
    bare.useBarePtrCallConv = true;
    pm.addPass(createConvertFuncToLLVMPass(bare));
    pm.addPass(createConvertOpenMPToLLVMPass());
    pm.addPass(createArithToLLVMConversionPass());
    pm.addPass(createConvertMathToLLVMPass());
    pm.addPass(createConvertIndexToLLVMPass());
    pm.addPass(createUBToLLVMConversionPass());
    pm.addPass(createConvertControlFlowToLLVMPass());
    pm.addPass(createReconcileUnrealizedCastsPass());
    // bf16 values only move now: as i16, so that no phi of one becomes a
    // compiler-rt call on CPUs without AVX512-BF16.
    pm.addPass(nnc::cpu::createBFloat16AsBitsPass());
  }

  LogicalResult generateCode(ModuleOp lowered,
                             const std::vector<nnc::KernelEntry> &kernels,
                             const nnc::TargetOptions &options,
                             nnc::runtime::Plan &plan,
                             nnc::KernelBlob &out) const override {
    nnc::cpu::CPUCodegenResult code;
    if (failed(nnc::cpu::generateSharedObject(lowered, kernels,
                                              options.optLevel, code)))
      return failure();
    plan.cpuFeatures = std::move(code.cpuFeatures);
    plan.needsOpenMP = code.usesOpenMP;
    plan.needsBlas = code.usesBlas;
    plan.needsDnnl = code.usesDnnl;
    plan.needsCollectives = code.usesCollectives;
    out.code = std::move(code.sharedObject);
    // The CPU device maps the shared object from the executable as it is.
    out.alignment = 4096;
    return success();
  }
};

} // namespace

void nnc::cpu::registerCPUDialects(DialectRegistry &registry) {
  registry.insert<LLVM::LLVMDialect, omp::OpenMPDialect>();
  // What --convert-to-llvm finds through dialect interfaces.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  // Translation of the LLVM dialect (and OpenMP) to LLVM IR for codegen.
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
}

void nnc::cpu::registerCPUPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerNNCCPUPasses();
    // The upstream half of the CPU pipelines, for textual pipelines.
    registerConvertSCFToOpenMPPass();
    registerConvertOpenMPToLLVMPass();
    registerConvertLinalgToLoopsPass();
    registerConvertLinalgToParallelLoopsPass();
    memref::registerExpandStridedMetadataPass();
    registerLowerAffinePass();
    math::registerMathExtendToSupportedTypes();
    registerSCFToControlFlowPass();
    registerConvertMathToLibmPass();
    // --convert-to-llvm, which finds the conversions through the dialect
    // interfaces registerCPUDialects adds.
    registerConvertToLLVMPass();
    registerArithToLLVMConversionPass();
    registerConvertControlFlowToLLVMPass();
    registerConvertFuncToLLVMPass();
    registerConvertIndexToLLVMPass();
    registerConvertMathToLLVMPass();
    registerUBToLLVMConversionPass();
    registerFinalizeMemRefToLLVMConversionPass();
    registerReconcileUnrealizedCastsPass();
  });
}

void nnc::cpu::registerCPUTarget() {
  registerTarget(std::make_unique<CPUTarget>());
}
