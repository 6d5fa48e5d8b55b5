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
#include <vector>

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

/// The kernels with candidates of the programs a trainer createTrainer made
/// has compiled so far, each once, and in `seconds` what measuring them
/// took; null for a trainer loaded from a file. Valid until its next step.
const std::vector<TunedKernel> *trainerTuning(const runtime::Trainer &trainer,
                                              double &seconds);

/// The memory of a training step and what would lower it, each planned by
/// the compiler (planPeak), no code generated. A configuration's figure is
/// the largest, over the functions a step runs, of the function's planned
/// peak plus what the trainer holds outside it meanwhile: with
/// accumulation, the gradients summed so far and the optimizer state while
/// the gradient function runs. Without accumulation that is the training
/// step's peak_memory_bytes exactly.
struct MemoryAlternatives {
  /// As the trainer is configured.
  int64_t current = 0;
  /// The smallest memory budget (CompileOptions::memoryBudget: the
  /// gradient function's own planned peak) the compiler meets by
  /// recomputation in backward, the figure under it, and its extra FLOPs
  /// over the function's; 0 when it lowers nothing.
  int64_t budget = 0, budgetPeak = 0;
  double budgetExtraFlops = 0;
  /// The alternatives below keep the rest of the configuration, the memory
  /// budget included: where that budget cannot be met, they are 0.
  /// With mixed precision in bf16; 0 when the trainer already computes in
  /// f16 or bf16.
  int64_t amp = 0;
  /// Micro-batches per step (the trainer's accumulation times the smallest
  /// factor of 2 or more dividing the batch) and the figure at those
  /// micro-batches; 0 when the batch has no such factor or is not free.
  int64_t accumulate = 0;
  int64_t accumulateBytes = 0;
  double seconds = 0;
};

/// The figures for data of shapes `key` (all data, labels last, as
/// Trainer::checkData returns them) of a trainer createTrainer made; its
/// own functions and programs are left as they are. Unimplemented for a
/// trainer loaded from a file (it has no compiler).
runtime::Status
trainerMemoryAlternatives(const runtime::Trainer &trainer,
                          const std::vector<std::vector<int64_t>> &key,
                          MemoryAlternatives &out);

} // namespace nnc

#endif // NNC_TRAINING_TRAINER_H
