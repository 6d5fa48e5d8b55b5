//===- CAPITrainer.cpp - nnc_trainer_create -------------------------------===//
//
// The compiler's half of the trainer C API: nnc_trainer_create checks the C
// options and hands the model to nnc::createTrainer (lib/Training); the
// trainer it returns is run through nnc-c/runtime.h (libnnc_runtime,
// runtime/capi/CAPITrainer.cpp).
//
//===----------------------------------------------------------------------===//

#include "nnc-c/nnc.h"

#include "Internal.h"

#include "nnc/Training/Trainer.h"
#include "nnc/runtime/Device.h"
#include "nnc/runtime/Trainer.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace nnc::capi;

namespace {

/// Checks the training options.
nnc_status_t checkTrainOptions(const char *fn, const nnc_train_options_t &o) {
  auto bad = [&](const std::string &what) {
    return invalidArgument(fn, "train options: " + what);
  };
  if (o.loss < NNC_LOSS_CROSS_ENTROPY || o.loss > NNC_LOSS_MSE)
    return bad("unknown loss " + std::to_string(o.loss));
  if (o.optimizer < NNC_OPTIMIZER_SGD || o.optimizer > NNC_OPTIMIZER_ADAMW)
    return bad("unknown optimizer " + std::to_string(o.optimizer));
  if (!(o.learning_rate > 0) || !std::isfinite(o.learning_rate))
    return bad("learning_rate must be positive, got " +
               std::to_string(o.learning_rate));
  if (!(o.label_smoothing >= 0 && o.label_smoothing <= 1))
    return bad("label_smoothing must be in [0, 1]");
  if (o.label_smoothing != 0 && o.loss != NNC_LOSS_CROSS_ENTROPY)
    return bad("label_smoothing applies to the cross-entropy loss only");
  if (o.has_ignore_index && o.loss == NNC_LOSS_MSE)
    return bad("ignore_index applies to class losses only");
  if (o.accumulate < 1)
    return bad("accumulate must be at least 1, got " +
               std::to_string(o.accumulate));
  if (!(o.loss_scale >= 0) || !std::isfinite(o.loss_scale))
    return bad("loss_scale must be 0 (dynamic) or positive");
  switch (static_cast<int>(o.schedule)) {
  case NNC_LR_CONSTANT:
    break;
  case NNC_LR_STEP:
    if (o.step_size < 1 || !(o.gamma > 0))
      return bad("the step schedule needs step_size >= 1 and gamma > 0");
    break;
  case NNC_LR_COSINE:
    if (o.total_steps < 1 || o.warmup_steps < 0 ||
        o.warmup_steps > o.total_steps || !(o.min_learning_rate >= 0))
      return bad("the cosine schedule needs total_steps >= 1, 0 <= "
                 "warmup_steps <= total_steps and min_learning_rate >= 0");
    break;
  default:
    return bad("unknown schedule " + std::to_string(o.schedule));
  }
  return nullptr;
}

nnc::TrainingPipelineOptions pipelineFor(const nnc_train_options_t &o,
                                         const std::string &output) {
  static const char *losses[] = {"cross_entropy", "nll", "mse"};
  static const char *optimizers[] = {"sgd", "adam", "adamw"};
  nnc::TrainingPipelineOptions options;
  options.output = output;
  options.loss = losses[o.loss];
  options.reduction = o.loss_sum ? "sum" : "mean";
  options.labelSmoothing = o.label_smoothing;
  if (o.has_ignore_index)
    options.ignoreIndex = o.ignore_index;
  options.optimizer = optimizers[o.optimizer];
  options.momentum = o.momentum;
  options.nesterov = o.nesterov;
  options.weightDecay = o.weight_decay;
  options.beta1 = o.beta1;
  options.beta2 = o.beta2;
  options.epsilon = o.epsilon;
  options.syncBatchNorm = o.sync_batch_norm != 0;
  return options;
}

rt::LrSchedule scheduleFor(const nnc_train_options_t &o) {
  rt::LrSchedule schedule;
  schedule.lr = o.learning_rate;
  switch (o.schedule) {
  case NNC_LR_CONSTANT:
    schedule.kind = rt::LrSchedule::Kind::Constant;
    break;
  case NNC_LR_STEP:
    schedule.kind = rt::LrSchedule::Kind::Step;
    schedule.stepSize = o.step_size;
    schedule.gamma = o.gamma;
    break;
  case NNC_LR_COSINE:
    schedule.kind = rt::LrSchedule::Kind::Cosine;
    schedule.warmupSteps = o.warmup_steps;
    schedule.totalSteps = o.total_steps;
    schedule.minLr = o.min_learning_rate;
    break;
  }
  return schedule;
}

} // namespace

extern "C" {

nnc_status_t nnc_trainer_create(nnc_model_t *model,
                                const nnc_train_options_t *options,
                                const nnc_compile_options_t *compile_options,
                                nnc_trainer_t **out_trainer) {
  static const char *fn = "nnc_trainer_create";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!model)
      return nullArgument(fn, "model");
    if (!out_trainer)
      return nullArgument(fn, "out_trainer");
    *out_trainer = nullptr;
    nnc_train_options_t o;
    nnc_train_options_initialize(&o);
    if (options) {
      if (nnc_status_t s = checkOptions(fn, "options", options))
        return s;
      o = *options;
    }
    std::string output = o.output ? std::string(o.output) : std::string();
    o.output = nullptr;
    if (nnc_status_t s = checkTrainOptions(fn, o))
      return s;
    nnc_compile_options_t c;
    nnc_compile_options_initialize(&c);
    if (compile_options) {
      if (nnc_status_t s = checkOptions(fn, "compile_options", compile_options))
        return s;
      c = *compile_options;
    }
    nnc::TrainerOptions trainerOptions;
    if (nnc_status_t s = checkCompileOptions(fn, &c, trainerOptions.compile,
                                             trainerOptions.threads))
      return s;
    trainerOptions.pipeline = pipelineFor(o, output);
    // Mixed precision applies to the loss function, before its gradients
    // are built; the training functions are compiled as they come.
    trainerOptions.pipeline.precision = trainerOptions.compile.precision;
    trainerOptions.pipeline.weightCopies = o.weight_copies != 0;
    trainerOptions.compile.precision = {};
    trainerOptions.schedule = scheduleFor(o);
    trainerOptions.accumulate = o.accumulate;
    // loss_scale 0 asks for dynamic scaling, LossScaler's default.
    trainerOptions.scaler = o.loss_scale != 0.0
                                ? rt::LossScaler::fixed(o.loss_scale)
                                : rt::LossScaler();
    trainerOptions.seed = o.seed;
    trainerOptions.nameNonFinite = o.name_nonfinite != 0;
    if (o.memory_budget_bytes > 0 || o.memory_budget_fraction != 0) {
      if (o.memory_budget_bytes == 0 &&
          !(o.memory_budget_fraction > 0 && o.memory_budget_fraction <= 1))
        return invalidArgument(
            fn, "train options: memory_budget_fraction must be in (0, 1], "
                "got " +
                    std::to_string(o.memory_budget_fraction));
      if (o.memory_budget_bytes > uint64_t(INT64_MAX))
        return invalidArgument(fn, "train options: memory_budget_bytes is too "
                                   "large");
      nnc::CompileOptions::MemoryBudget budget;
      budget.bytes = static_cast<int64_t>(o.memory_budget_bytes);
      budget.fraction = o.memory_budget_bytes ? 0 : o.memory_budget_fraction;
      trainerOptions.compile.memoryBudget = budget;
    }
    rt::Device *device = nullptr;
    if (nnc_status_t s =
            deviceForTarget(fn, trainerOptions.compile.target, device))
      return s;
    std::unique_ptr<rt::Trainer> trainer;
    if (nnc_status_t s =
            convertStatus(fn, nnc::createTrainer(*model->module, trainerOptions,
                                                 *device, trainer)))
      return s;
    *out_trainer = makeTrainer(std::move(trainer)).release();
    return nullptr;
  });
}

nnc_status_t nnc_trainer_mixed_precision(const nnc_trainer_t *trainer,
                                         nnc_mixed_precision_t *out) {
  static const char *fn = "nnc_trainer_mixed_precision";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    // All zero (precision f32) without mixed precision.
    nnc_mixed_precision_t figures;
    std::memset(&figures, 0, sizeof(figures));
    if (std::optional<nnc::MixedPrecisionReport> amp =
            nnc::trainerMixedPrecision(*trainer->trainer)) {
      figures.precision =
          amp->dtype == "f16" ? NNC_PRECISION_F16 : NNC_PRECISION_BF16;
      figures.low_ops = amp->lowOps;
      figures.follow_ops = amp->followOps;
      figures.f32_ops = amp->f32Ops;
      figures.casts = amp->casts;
      figures.narrowed_bytes = amp->narrowedBytes;
      figures.weight_copies = amp->weightCopies;
      figures.weight_copy_bytes = amp->weightCopyBytes;
    }
    return writeMixedPrecision(fn, figures, out);
  });
}

size_t nnc_trainer_tuned_kernel_count(const nnc_trainer_t *trainer) {
  double seconds = 0;
  const std::vector<nnc::TunedKernel> *tuning =
      trainer ? nnc::trainerTuning(*trainer->trainer, seconds) : nullptr;
  return tuning ? tuning->size() : 0;
}

double nnc_trainer_tuning_seconds(const nnc_trainer_t *trainer) {
  double seconds = 0;
  if (trainer)
    nnc::trainerTuning(*trainer->trainer, seconds);
  return seconds;
}

nnc_status_t nnc_trainer_tuned_kernel(const nnc_trainer_t *trainer,
                                      size_t index,
                                      nnc_tuned_kernel_t *out_kernel) {
  static const char *fn = "nnc_trainer_tuned_kernel";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    double seconds = 0;
    static const std::vector<nnc::TunedKernel> none;
    const std::vector<nnc::TunedKernel> *tuning =
        nnc::trainerTuning(*trainer->trainer, seconds);
    return writeTunedKernel(fn, "trainer", tuning ? *tuning : none, index,
                            out_kernel);
  });
}

nnc_status_t nnc_trainer_remat_stats(const nnc_trainer_t *trainer,
                                     nnc_remat_stats_t *out) {
  static const char *fn = "nnc_trainer_remat_stats";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    if (!out)
      return nullArgument(fn, "out");
    if (out->struct_size != sizeof(nnc_remat_stats_t))
      return invalidArgument(
          fn, "out->struct_size is " + std::to_string(out->struct_size) +
                  ", expected " + std::to_string(sizeof(nnc_remat_stats_t)));
    std::memset(out, 0, sizeof(*out));
    out->struct_size = sizeof(*out);
    if (std::optional<nnc::RematReport> remat =
            nnc::trainerRemat(*trainer->trainer)) {
      out->budget_bytes = remat->budgetBytes;
      out->peak_before_bytes = remat->peakBefore;
      out->peak_after_bytes = remat->peakAfter;
      out->predicted_arena_bytes = remat->predictedArena;
      out->planned_arena_bytes = remat->plannedArena;
      out->flops = static_cast<double>(remat->flops);
      out->extra_flops = static_cast<double>(remat->extraFlops);
      out->recomputed_count = remat->recomputed.size();
      out->kept_count = remat->kept.size();
    }
    return nullptr;
  });
}

nnc_status_t nnc_trainer_remat_value(const nnc_trainer_t *trainer, int32_t kept,
                                     size_t index, char **out) {
  static const char *fn = "nnc_trainer_remat_value";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    if (!out)
      return nullArgument(fn, "out");
    *out = nullptr;
    std::optional<nnc::RematReport> remat =
        nnc::trainerRemat(*trainer->trainer);
    const std::vector<std::string> *list =
        remat ? (kept ? &remat->kept : &remat->recomputed) : nullptr;
    if (!list || index >= list->size())
      return invalidArgument(
          fn, "index " + std::to_string(index) + " is past the " +
                  std::to_string(list ? list->size() : 0) +
                  (kept ? " kept" : " recomputed") + " values");
    *out = copyString((*list)[index]);
    if (!*out)
      return &outOfMemoryStatus();
    return nullptr;
  });
}

nnc_status_t nnc_trainer_memory_alternatives(nnc_trainer_t *trainer,
                                             size_t count,
                                             const nnc_tensor_t *const *data,
                                             nnc_memory_alternatives_t *out) {
  static const char *fn = "nnc_trainer_memory_alternatives";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    if (!out)
      return nullArgument(fn, "out");
    if (out->struct_size < sizeof(nnc_memory_alternatives_t))
      return invalidArgument(
          fn, "out->struct_size is " + std::to_string(out->struct_size) +
                  ", expected " +
                  std::to_string(sizeof(nnc_memory_alternatives_t)));
    Batch batch;
    if (nnc_status_t s =
            checkBatch(fn, *trainer, count, data, trainer->data.size(), batch))
      return s;
    nnc::MemoryAlternatives figures;
    if (nnc_status_t s =
            convertStatus(fn, nnc::trainerMemoryAlternatives(
                                  *trainer->trainer, batch.key, figures)))
      return s;
    std::memset(out, 0, sizeof(*out));
    out->struct_size = sizeof(*out);
    out->current_bytes = figures.current;
    out->budget_bytes = figures.budget;
    out->budget_peak_bytes = figures.budgetPeak;
    out->budget_extra_flops = figures.budgetExtraFlops;
    out->amp_bytes = figures.amp;
    out->accumulate = figures.accumulate;
    out->accumulate_bytes = figures.accumulateBytes;
    out->seconds = figures.seconds;
    return nullptr;
  });
}

} // extern "C"
