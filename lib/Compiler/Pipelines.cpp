//===- Pipelines.cpp - the pass pipelines the compiler runs ---------------===//
//
// Every pipeline of a compile, from the generated pass constructors: what
// nnc-opt registers is what the compile driver and the trainer run.
//
//===----------------------------------------------------------------------===//

#include "nnc/Compiler/Pipelines.h"

#include "nnc/Conversion/Passes.h"
#include "nnc/Transforms/Passes.h"

#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

void nnc::buildSpecializationPipeline(OpPassManager &pm,
                                      llvm::StringRef function,
                                      llvm::ArrayRef<std::string> inputShapes) {
  ShapeInferencePassOptions shapes;
  shapes.function = function.str();
  shapes.inputShapes.assign(inputShapes.begin(), inputShapes.end());
  pm.addPass(createShapeInferencePass(shapes));
  pm.addPass(createCanonicalizerPass());
}

std::string nnc::MixedPrecisionOptions::describe() const {
  std::string text = "dtype=" + dtype;
  if (!lowOps.empty())
    text += " low-ops=" + llvm::join(lowOps, ",");
  if (!f32Ops.empty())
    text += " f32-ops=" + llvm::join(f32Ops, ",");
  return text;
}

void nnc::buildMixedPrecisionPipeline(OpPassManager &pm,
                                      llvm::StringRef function,
                                      const MixedPrecisionOptions &options) {
  if (!options.enabled())
    return;
  MixedPrecisionPassOptions pass;
  pass.function = function.str();
  pass.dtype = options.dtype;
  pass.lowOps.assign(options.lowOps.begin(), options.lowOps.end());
  pass.f32Ops.assign(options.f32Ops.begin(), options.f32Ops.end());
  pm.addPass(createMixedPrecisionPass(pass));
}

void nnc::buildNonFiniteProbePipeline(OpPassManager &pm,
                                      llvm::StringRef function) {
  NonFiniteProbePassOptions pass;
  pass.function = function.str();
  pm.addPass(createNonFiniteProbePass(pass));
}

std::vector<std::string> nnc::nonFiniteProbeOps(Operation *function) {
  std::vector<std::string> ops;
  if (auto entries = function->getAttrOfType<ArrayAttr>(kProbeOpsAttrName))
    for (Attribute entry : entries)
      ops.push_back(cast<StringAttr>(entry).getValue().str());
  return ops;
}

std::optional<nnc::MixedPrecisionReport>
nnc::mixedPrecisionReport(Operation *function) {
  auto figures =
      function->getAttrOfType<DictionaryAttr>(kMixedPrecisionAttrName);
  if (!figures)
    return std::nullopt;
  MixedPrecisionReport report;
  if (auto dtype = figures.getAs<StringAttr>("dtype"))
    report.dtype = dtype.str();
  auto count = [&](StringRef name) -> int64_t {
    auto value = figures.getAs<IntegerAttr>(name);
    return value ? value.getInt() : 0;
  };
  report.lowOps = count("low_ops");
  report.followOps = count("follow_ops");
  report.f32Ops = count("f32_ops");
  report.casts = count("casts");
  report.narrowedBytes = count("narrowed_bytes");
  return report;
}

void nnc::buildKernelPipeline(OpPassManager &pm, const Target &target,
                              const TargetOptions &options) {
  LoweringChoices choices = target.loweringChoices(options);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  target.buildKernelChoicePipeline(pm, options);
  ConvertNNCToLinalgPassOptions linalg;
  linalg.perImageConvolutions = choices.perImageConvolutions;
  linalg.lowPrecisionConvGemms = choices.lowPrecisionConvGemms;
  pm.addPass(createConvertNNCToLinalgPass(linalg));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  target.buildTensorPipeline(pm, options);
  if (options.fuse) {
    pm.addNestedPass<func::FuncOp>(createRematerializePass());
    pm.addNestedPass<func::FuncOp>(createFuseElementwisePass());
    pm.addPass(createCanonicalizerPass());
  }
  // Each accumulator filled where it is used, not copied.
  pm.addNestedPass<func::FuncOp>(createUntieFillsPass());
  // Each result its own buffer: a value returned twice is copied.
  pm.addNestedPass<func::FuncOp>(createDistinctResultsPass());
  // Inputs and weights are the caller's: read-only (the compiler marks the
  // arguments). Results become out-parameters that the runtime allocates.
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.modifyPublicFunctions = true;
  outParams.hoistStaticAllocs = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  // Equal views merged, so that the copies of a tile onto itself (an
  // insert_slice written in place) fold away.
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  target.buildBufferPipeline(pm, options);
  if (options.fuse) {
    pm.addNestedPass<func::FuncOp>(createFuseSiblingsPass());
    pm.addPass(createCSEPass());
  }
  target.buildKernelGroupingPipeline(pm, options);
  // Temporaries into one arena; whatever is left (dynamic or nested
  // allocations, or all of them without planning) is freed where it dies.
  if (options.planMemory)
    pm.addNestedPass<func::FuncOp>(createPlanMemoryPass());
  // Index and label checks: a checks buffer after the arena.
  pm.addNestedPass<func::FuncOp>(createLowerChecksPass());
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createCanonicalizerPass());
  OutlineKernelsPassOptions outline;
  outline.horizontal = options.fuse;
  pm.addPass(createOutlineKernelsPass(outline));
}

void nnc::buildInferencePipeline(OpPassManager &pm, const Target &target,
                                 const TargetOptions &options) {
  buildKernelPipeline(pm, target, options);
  target.buildLoweringPipeline(pm, options);
}

namespace {

/// The names of the registered targets, for an option's description.
std::string targetList() {
  return llvm::join(nnc::registeredTargetNames(), ", ");
}

struct InferencePipelineOptions
    : public PassPipelineOptions<InferencePipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("The target to lower for "
                                            "(default: the first registered)"),
                             llvm::cl::init("")};
  Option<bool> parallel{*this, "parallel",
                        llvm::cl::desc("Kernels may use every core"),
                        llvm::cl::init(true)};
  Option<bool> fuse{*this, "fuse",
                    llvm::cl::desc("Fuse ops into kernels (off: one per op)"),
                    llvm::cl::init(true)};
  Option<bool> planMemory{
      *this, "plan-memory",
      llvm::cl::desc("Plan temporaries into one arena (off: each allocated "
                     "by its kernel)"),
      llvm::cl::init(true)};
  Option<bool> libraryConvolutions{
      *this, "library-convolutions",
      llvm::cl::desc("Convolutions may run in the target's library where "
                     "its cost model picks it (the CPU: oneDNN)"),
      llvm::cl::init(true)};
  Option<bool> lower{*this, "lower",
                     llvm::cl::desc("Lower the kernels for the target (off: "
                                    "stop at the fused, planned kernels)"),
                     llvm::cl::init(true)};
};

LogicalResult
buildRegisteredInference(OpPassManager &pm, const InferencePipelineOptions &o,
                         function_ref<LogicalResult(const Twine &)> error) {
  const nnc::Target *target = nnc::lookupTarget(o.target);
  if (!target)
    return error("unknown target '" + o.target +
                 "' (registered: " + targetList() + ")");
  nnc::TargetOptions options;
  options.variant = nnc::targetVariant(o.target).str();
  if (std::string bad = target->checkVariant(options.variant); !bad.empty())
    return error(bad);
  options.parallel = o.parallel;
  options.fuse = o.fuse;
  options.planMemory = o.planMemory;
  options.libraryConvolutions = o.libraryConvolutions;
  if (o.lower)
    nnc::buildInferencePipeline(pm, *target, options);
  else
    nnc::buildKernelPipeline(pm, *target, options);
  return success();
}

} // namespace

void nnc::registerInferencePipeline() {
  static const std::string inferenceHelp =
      "Lower nnc functions with static shapes as a compile does: linalg, "
      "fusion, bufferization with out-parameters, the target's passes on "
      "buffers, memory planning, kernels, then the target's lowering (for "
      "the CPU: OpenMP loops to the LLVM dialect with bare-pointer "
      "arguments); lower=0 stops at the planned kernels";
  // Registered by hand rather than through PassPipelineRegistration, whose
  // builders cannot fail: an unknown target is an error.
  auto inference = [](OpPassManager &pm, StringRef text,
                      function_ref<LogicalResult(const Twine &)> error) {
    InferencePipelineOptions options;
    if (failed(options.parseFromString(text)))
      return failure();
    return buildRegisteredInference(pm, options, error);
  };
  auto describe = [](function_ref<void(const detail::PassOptions &)> print) {
    print(InferencePipelineOptions());
  };
  registerPassPipeline("nnc-inference-pipeline", inferenceHelp, inference,
                       describe);
  registerPassPipeline("nnc-lower-to-llvm",
                       "The older name of --nnc-inference-pipeline", inference,
                       describe);
}
