//===- Pipeline.cpp - the pipeline that builds training functions ---------===//
//
// --nnc-prepare-training, --nnc-autodiff and --nnc-optimizer configured from
// one options struct, after the shapes are specialized.
//
//===----------------------------------------------------------------------===//

#include "nnc/Training/Pipeline.h"

#include "nnc/Compiler/Pipelines.h"
#include "nnc/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace mlir;

void nnc::buildLossPipeline(OpPassManager &pm,
                            const TrainingPipelineOptions &options) {
  PrepareTrainingPassOptions prepare;
  prepare.function = options.function;
  prepare.output = options.output;
  prepare.loss = options.loss;
  prepare.reduction = options.reduction;
  prepare.labelSmoothing = options.labelSmoothing;
  if (options.ignoreIndex)
    prepare.ignoreIndex = *options.ignoreIndex;
  // The trainer scales the loss (mixed precision, or a constant scale) and
  // skips steps whose gradients are not finite.
  prepare.lossScale = true;
  pm.addPass(createPrepareTrainingPass(prepare));
}

void nnc::buildTrainingPipeline(OpPassManager &pm,
                                const TrainingPipelineOptions &options) {
  // The shapes propagated, nothing else: the loss and the gradients are
  // built on the function as the model has it.
  ShapeInferencePassOptions shapes;
  shapes.function = options.function;
  shapes.inputShapes.assign(options.inputShapes.begin(),
                            options.inputShapes.end());
  pm.addPass(createShapeInferencePass(shapes));
  buildLossPipeline(pm, options);
  std::string train = options.function + "_train";
  buildMixedPrecisionPipeline(pm, train, options.precision);
  if (options.syncBatchNorm) {
    SyncBatchNormPassOptions sync;
    sync.function = train;
    pm.addPass(createSyncBatchNormPass(sync));
  }
  AutodiffPassOptions autodiff;
  autodiff.function = train;
  pm.addPass(createAutodiffPass(autodiff));
  OptimizerPassOptions optimizer;
  optimizer.function = train;
  optimizer.kind = options.optimizer;
  optimizer.momentum = options.momentum;
  optimizer.nesterov = options.nesterov;
  optimizer.weightDecay = options.weightDecay;
  optimizer.beta1 = options.beta1;
  optimizer.beta2 = options.beta2;
  optimizer.epsilon = options.epsilon;
  optimizer.lossScale = true;
  // The apply function too, for gradient accumulation.
  optimizer.apply = true;
  optimizer.lowPrecisionCopies =
      options.precision.enabled() && options.weightCopies;
  optimizer.updatesInBackward = options.updatesInBackward;
  pm.addPass(createOptimizerPass(optimizer));
}

std::string
nnc::describeTrainingPipeline(const TrainingPipelineOptions &options) {
  // The textual form of the passes the pipeline runs after specialization,
  // kept word for word: checkpoints written before pipelines were built in
  // C++ carry a fingerprint of this text.
  const std::string &f = options.function;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "nnc-prepare-training{function=" << f << " loss=" << options.loss
     << " reduction=" << options.reduction
     << " label-smoothing=" << llvm::format("%.17g", options.labelSmoothing)
     << " loss-scale=true";
  if (!options.output.empty())
    os << " output=" << options.output;
  if (options.ignoreIndex)
    os << " ignore-index=" << *options.ignoreIndex;
  os << "}";
  // Only when asked for: checkpoints of f32 runs keep their fingerprints.
  if (options.precision.enabled())
    os << ",nnc-mixed-precision{function=" << f << "_train "
       << options.precision.describe() << "}";
  if (options.syncBatchNorm)
    os << ",nnc-sync-batch-norm{function=" << f << "_train}";
  os << ",nnc-autodiff{function=" << f << "_train},nnc-optimizer{function=" << f
     << "_train kind=" << options.optimizer
     << " momentum=" << llvm::format("%.17g", options.momentum)
     << " nesterov=" << (options.nesterov ? "true" : "false")
     << " weight-decay=" << llvm::format("%.17g", options.weightDecay)
     << " beta1=" << llvm::format("%.17g", options.beta1)
     << " beta2=" << llvm::format("%.17g", options.beta2)
     << " epsilon=" << llvm::format("%.17g", options.epsilon)
     << " loss-scale=true apply=true}";
  return text;
}

namespace {

struct TrainingPipelineCLOptions
    : public PassPipelineOptions<TrainingPipelineCLOptions> {
  Option<std::string> function{*this, "function",
                               llvm::cl::desc("The model function"),
                               llvm::cl::init("main")};
  ListOption<std::string> inputShapes{
      *this, "input-shapes",
      llvm::cl::desc("Shapes of the graph inputs as 'index:dims' (see "
                     "--nnc-shape-inference)")};
  Option<std::string> output{
      *this, "output",
      llvm::cl::desc("The result the loss attaches to (empty: the first)"),
      llvm::cl::init("")};
  Option<std::string> loss{*this, "loss",
                           llvm::cl::desc("cross_entropy, nll or mse"),
                           llvm::cl::init("cross_entropy")};
  Option<std::string> reduction{*this, "reduction",
                                llvm::cl::desc("mean or sum"),
                                llvm::cl::init("mean")};
  Option<double> labelSmoothing{*this, "label-smoothing",
                                llvm::cl::desc("cross_entropy label smoothing"),
                                llvm::cl::init(0.0)};
  Option<int64_t> ignoreIndex{
      *this, "ignore-index",
      llvm::cl::desc("Labels ignored by class losses (default: none)"),
      llvm::cl::init(std::numeric_limits<int64_t>::min())};
  Option<std::string> optimizer{*this, "optimizer",
                                llvm::cl::desc("sgd, adam or adamw"),
                                llvm::cl::init("sgd")};
  Option<double> momentum{*this, "momentum", llvm::cl::desc("SGD momentum"),
                          llvm::cl::init(0.0)};
  Option<bool> nesterov{*this, "nesterov",
                        llvm::cl::desc("Nesterov momentum (SGD)"),
                        llvm::cl::init(false)};
  Option<double> weightDecay{*this, "weight-decay",
                             llvm::cl::desc("Weight decay"),
                             llvm::cl::init(0.0)};
  Option<double> beta1{*this, "beta1", llvm::cl::desc("Adam beta1"),
                       llvm::cl::init(0.9)};
  Option<double> beta2{*this, "beta2", llvm::cl::desc("Adam beta2"),
                       llvm::cl::init(0.999)};
  Option<double> epsilon{*this, "epsilon", llvm::cl::desc("Adam epsilon"),
                         llvm::cl::init(1e-8)};
  Option<std::string> amp{
      *this, "amp",
      llvm::cl::desc("Mixed precision: bf16 or f16 (default: none)"),
      llvm::cl::init("")};
  Option<bool> syncBn{
      *this, "sync-bn",
      llvm::cl::desc("Batch statistics over every rank (nnc.all_reduce)"),
      llvm::cl::init(false)};
  Option<bool> weightCopies{
      *this, "weight-copies",
      llvm::cl::desc("With amp: low-precision parameter copies kept by the "
                     "step and made by its update"),
      llvm::cl::init(true)};
};

} // namespace

void nnc::registerTrainingPipeline() {
  PassPipelineRegistration<TrainingPipelineCLOptions>(
      "nnc-training-pipeline",
      "Build the training functions of a model as the trainer does: shapes "
      "specialized, the loss attached (<function>_train), gradients, and "
      "the optimizer's step, gradient and apply functions "
      "(<function>_train_step, _grad, _apply)",
      [](OpPassManager &pm, const TrainingPipelineCLOptions &o) {
        nnc::TrainingPipelineOptions options;
        options.function = o.function;
        options.inputShapes.assign(o.inputShapes.begin(), o.inputShapes.end());
        options.output = o.output;
        options.loss = o.loss;
        options.reduction = o.reduction;
        options.labelSmoothing = o.labelSmoothing;
        if (o.ignoreIndex != std::numeric_limits<int64_t>::min())
          options.ignoreIndex = o.ignoreIndex;
        options.optimizer = o.optimizer;
        options.momentum = o.momentum;
        options.nesterov = o.nesterov;
        options.weightDecay = o.weightDecay;
        options.beta1 = o.beta1;
        options.beta2 = o.beta2;
        options.epsilon = o.epsilon;
        options.precision.dtype = o.amp;
        options.syncBatchNorm = o.syncBn;
        options.weightCopies = o.weightCopies;
        nnc::buildTrainingPipeline(pm, options);
      });
}
