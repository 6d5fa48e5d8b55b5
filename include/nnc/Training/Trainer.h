//===- Trainer.h - trainers that compile their functions --------*- C++ -*-===//
//
// The compile side of training: createTrainer reads a model's parameters,
// buffers and data signature, attaches the loss, lays out the optimizer
// state and hands the runtime's Trainer (nnc/runtime/Trainer.h) a program
// source that builds the training functions (Pipeline.h) for each new shape
// of the graph inputs and compiles them as steps need them.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TRAINING_TRAINER_H
#define NNC_TRAINING_TRAINER_H

#include "nnc/Compiler/Compiler.h"
#include "nnc/Training/Pipeline.h"
#include "nnc/runtime/Schedule.h"
#include "nnc/runtime/Status.h"

#include <cstdint>
#include <memory>
#include <optional>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace nnc {
namespace runtime {
class Device;
class Trainer;
} // namespace runtime

struct TrainerOptions {
  /// Loss and optimizer; `function` is set to the model's own.
  TrainingPipelineOptions pipeline;
  runtime::LrSchedule schedule;
  /// Micro-batches whose gradients make one update.
  int64_t accumulate = 1;
  /// The loss scaler a fresh trainer starts from (dynamic by default).
  runtime::LossScaler scaler = runtime::LossScaler::fixed(1.0);
  /// Keys the random streams of training-mode ops.
  uint64_t seed = 0;
  /// A skipped step names its first non-finite value (a probe compiled on
  /// the first skip per data shape reruns the batch).
  bool nameNonFinite = true;
  /// How the functions are compiled (donations are the trainer's own).
  CompileOptions compile;
  /// Caps the threads the kernels use (0: all cores).
  uint32_t threads = 0;
};

/// A trainer for the first function of `module` (copied: the module may go
/// afterwards, its context may not), on `device`. Fails with
/// InvalidArgument naming what in the model or the options is wrong.
runtime::Status createTrainer(mlir::ModuleOp module,
                              const TrainerOptions &options,
                              runtime::Device &device,
                              std::unique_ptr<runtime::Trainer> &out);

/// What mixed precision did to the training functions of a trainer
/// createTrainer made, once its first step has built them; nothing before,
/// without mixed precision, or for a trainer loaded from a file.
std::optional<MixedPrecisionReport>
trainerMixedPrecision(const runtime::Trainer &trainer);

/// What the memory budget (TrainerOptions::compile.memoryBudget) did to the
/// last training step (or gradient function) compiled; nothing before the
/// first, without a budget, or for a trainer loaded from a file.
std::optional<RematReport> trainerRemat(const runtime::Trainer &trainer);

} // namespace nnc

#endif // NNC_TRAINING_TRAINER_H
