//===- Schedule.h - learning-rate schedules and loss scaling ----*- C++ -*-===//
//
// The two pieces of training state that change from step to step without
// being tensors: the learning rate, a pure function of the optimizer step,
// and the dynamic loss scale of mixed-precision training (PyTorch GradScaler
// semantics). Both are plain values so a trainer can store them in a
// checkpoint's metadata and resume bit-for-bit. docs/DataFormats.md gives the
// formulas.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_SCHEDULE_H
#define NNC_RUNTIME_SCHEDULE_H

#include "nnc/runtime/Status.h"

#include <cstdint>
#include <map>
#include <string>

namespace nnc::runtime {

//===----------------------------------------------------------------------===//
// Learning-rate schedules
//===----------------------------------------------------------------------===//

struct LrSchedule {
  enum class Kind {
    /// `lr` at every step.
    Constant,
    /// `lr * gamma^floor(step / stepSize)` (torch.optim.lr_scheduler.StepLR
    /// stepped once per optimizer step).
    Step,
    /// Linear warm-up to `lr` over `warmupSteps`, then a half cosine from
    /// `lr` down to `minLr` at `totalSteps`, then `minLr`.
    Cosine,
  };

  Kind kind = Kind::Constant;
  /// The base (peak) learning rate.
  double lr = 1e-3;
  // Step decay.
  int64_t stepSize = 1;
  double gamma = 0.1;
  // Cosine with warm-up.
  int64_t warmupSteps = 0;
  int64_t totalSteps = 1;
  double minLr = 0.0;
};

/// The learning rate of optimizer step `step`, counted from 0 (the first
/// step). Negative steps are treated as 0. Assumes `schedule` passed
/// validateLrSchedule.
double learningRate(const LrSchedule &schedule, int64_t step);

/// Checks the fields the schedule's kind uses: `lr` and `minLr` finite and
/// >= 0, `stepSize` >= 1, `gamma` finite and > 0, 0 <= `warmupSteps` <=
/// `totalSteps`, `totalSteps` >= 1.
Status validateLrSchedule(const LrSchedule &schedule);

/// Parses a schedule spec into `kind` and the kind's own fields of `inout`,
/// leaving `lr` (and, for a bare `cosine`, the warm-up, total and minLr
/// fields) as the caller set them:
///   constant
///   step:SIZE:GAMMA                 e.g. step:1000:0.5
///   cosine                          warm-up/total/minLr set separately
///   cosine:WARMUP:TOTAL[:MIN_LR]    e.g. cosine:500:20000:1e-5
/// Then validates the result. Errors quote the spec and name the bad field.
Status parseLrSchedule(const std::string &spec, LrSchedule &inout);

/// The spec parseLrSchedule reads back to the same kind and fields
/// ("constant", "step:1000:0.5", "cosine:500:20000:1.0000000000000001e-05");
/// numbers are written so they read back exactly. `lr` is not part of it.
std::string formatLrSchedule(const LrSchedule &schedule);

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

/// The loss scale of mixed-precision training. The step multiplies the loss
/// by `scale`, unscales the gradients, and reports whether any was inf/NaN;
/// update() then decides whether the optimizer step is applied and adjusts
/// the scale as torch.cuda.amp.GradScaler does.
struct LossScaler {
  /// Dynamic: the scale backs off on overflow and grows after
  /// `growthInterval` good steps. Static: the scale never changes (steps
  /// with non-finite gradients are still skipped).
  bool dynamic = true;
  double scale = 65536.0;
  double growthFactor = 2.0;
  double backoffFactor = 0.5;
  int64_t growthInterval = 2000;
  /// Consecutive steps with finite gradients since the last change of scale
  /// (GradScaler's growth tracker). Always 0 in static mode.
  int64_t goodSteps = 0;
  /// Dynamic mode: the floor of the scale. A backoff that takes the scale
  /// below it means the gradients are not finite at any scale (NaN or inf
  /// from the data or the model, not an overflow of the low precision), and
  /// Trainer::step fails instead of skipping steps forever. 2^-16: 32
  /// consecutive skipped steps from the initial 2^16.
  double minScale = 1.0 / 65536;

  /// A scaler whose scale is fixed at `scale`.
  static LossScaler fixed(double scale);

  /// Records one step. Returns true when the optimizer step is to be applied
  /// (all gradients finite), false when it is to be skipped. Dynamic mode: on
  /// non-finite gradients scale *= backoffFactor and goodSteps = 0;
  /// otherwise ++goodSteps, and when it reaches growthInterval, scale *=
  /// growthFactor (unless that is not finite) and goodSteps = 0.
  bool update(bool foundNonFinite);

  /// Dynamic mode with the scale below minScale.
  bool collapsed() const { return dynamic && scale < minScale; }

  /// Checks `scale` finite and > 0, minScale finite and >= 0, growthFactor
  /// finite and >= 1,
  /// backoffFactor in (0, 1], growthInterval >= 1, 0 <= goodSteps <
  /// growthInterval.
  Status validate() const;

  /// Stores the state as `<prefix>mode` ("dynamic"/"static"), `<prefix>scale`,
  /// `<prefix>growth_factor`, `<prefix>backoff_factor`,
  /// `<prefix>growth_interval`, `<prefix>good_steps` and
  /// `<prefix>min_scale`; numbers are written so they read back exactly.
  void save(std::map<std::string, std::string> &metadata,
            const std::string &prefix = "loss_scaler.") const;

  /// Reads what save() stored; every key must be present and valid, but
  /// `min_scale` (absent from older checkpoints: the default). On error
  /// `*this` is unchanged.
  Status load(const std::map<std::string, std::string> &metadata,
              const std::string &prefix = "loss_scaler.");
};

//===----------------------------------------------------------------------===//
// Exact text for numbers
//===----------------------------------------------------------------------===//

/// The shortest decimal text that reads back to exactly `value` ("0.1",
/// "65536", "1e-05", "nan", "inf"), independent of the locale.
std::string formatDouble(double value);

/// Parses all of `text` as a double (locale-independent; "nan", "inf",
/// "-inf" accepted). `what` names the value in the error.
Status parseDouble(const std::string &text, const std::string &what,
                   double &out);

/// Parses all of `text` as a decimal int64 (optional '-', no spaces).
Status parseInt64(const std::string &text, const std::string &what,
                  int64_t &out);

} // namespace nnc::runtime

#endif // NNC_RUNTIME_SCHEDULE_H
