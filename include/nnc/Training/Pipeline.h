//===- Pipeline.h - the pipeline that builds training functions -*- C++ -*-===//
//
// From a model function to the functions the trainer compiles: the shapes
// of the graph inputs specialized, the loss attached (`<f>_train`), its
// gradients, and the optimizer's `<f>_train_step` (one whole step),
// `<f>_train_grad` (gradients only) and `<f>_train_apply` (the update from
// given gradients). Registered for nnc-opt as --nnc-training-pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TRAINING_PIPELINE_H
#define NNC_TRAINING_PIPELINE_H

#include "nnc/Compiler/Precision.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace nnc {

struct TrainingPipelineOptions {
  /// The model function.
  std::string function = "main";
  /// Shapes of its arguments, "index:dims" as --nnc-shape-inference takes
  /// them; the others keep their declared types.
  std::vector<std::string> inputShapes;
  /// The result the loss attaches to, by name; empty: the first.
  std::string output;
  /// cross_entropy, nll or mse; combined by `reduction`, mean or sum.
  std::string loss = "cross_entropy";
  std::string reduction = "mean";
  double labelSmoothing = 0.0;
  /// Labels the class losses ignore.
  std::optional<int64_t> ignoreIndex;
  /// sgd, adam or adamw, with their hyperparameters (the learning rate is
  /// an argument of the step, so that schedules need no recompile).
  std::string optimizer = "sgd";
  double momentum = 0.0;
  bool nesterov = false;
  double weightDecay = 0.0;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-8;
  /// Mixed precision on the loss function, before its gradients are built:
  /// the backward follows the forward's types, the parameters stay f32
  /// (master weights) and so do their gradients and the optimizer.
  MixedPrecisionOptions precision;
  /// With mixed precision: the step keeps the low-precision copies of the
  /// parameters it casts between steps, made by the optimizer's update
  /// (--nnc-optimizer low-precision-copies); off, it rounds them itself in
  /// every step. Copies are derived values: no checkpoint holds them.
  bool weightCopies = true;
  /// Batch normalization with statistics over every rank of data-parallel
  /// training (--nnc-sync-batch-norm, after mixed precision): a world of
  /// one computes the local statistics.
  bool syncBatchNorm = false;
  /// --nnc-optimizer updates-in-backward: each parameter's update right
  /// after its gradient. Not part of describeTrainingPipeline (a checkpoint
  /// holds the same values either way).
  bool updatesInBackward = false;
};

/// Attaches the loss only: `<function>_train` (model arguments, labels,
/// loss scale) -> (loss, model results), no gradients. The trainer runs it
/// to learn the labels' and the loss's types before any batch arrives.
void buildLossPipeline(mlir::OpPassManager &pm,
                       const TrainingPipelineOptions &options);

/// Specializes `function` on `inputShapes`, attaches the loss, builds the
/// gradients and the optimizer's step, gradient and apply functions; the
/// steps take a loss scale and skip updates with non-finite gradients.
void buildTrainingPipeline(mlir::OpPassManager &pm,
                           const TrainingPipelineOptions &options);

/// The loss, optimizer and their settings as text (the shapes left out):
/// what a checkpoint of the trainer must match.
std::string describeTrainingPipeline(const TrainingPipelineOptions &options);

/// Registers --nnc-training-pipeline with nnc-opt.
void registerTrainingPipeline();

} // namespace nnc

#endif // NNC_TRAINING_PIPELINE_H
