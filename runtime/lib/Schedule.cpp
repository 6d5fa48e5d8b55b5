//===- Schedule.cpp - learning-rate schedules and loss scaling ------------===//

#include "nnc/runtime/Schedule.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>
#include <vector>

namespace nnc::runtime {
namespace {

constexpr double kPi = 3.14159265358979323846;

Status invalid(std::string message) {
  return Status(StatusCode::InvalidArgument, std::move(message));
}

std::vector<std::string> splitColons(const std::string &s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t colon = s.find(':', start);
    parts.push_back(s.substr(start, colon - start));
    if (colon == std::string::npos)
      return parts;
    start = colon + 1;
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Numbers
//===----------------------------------------------------------------------===//

std::string formatDouble(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, result.ptr);
}

Status parseDouble(const std::string &text, const std::string &what,
                   double &out) {
  if (text == "nan") {
    out = std::numeric_limits<double>::quiet_NaN();
    return Status::ok();
  }
  if (text == "inf" || text == "-inf") {
    out = text[0] == '-' ? -std::numeric_limits<double>::infinity()
                         : std::numeric_limits<double>::infinity();
    return Status::ok();
  }
  double value = 0;
  const char *begin = text.data(), *end = text.data() + text.size();
  auto result = std::from_chars(begin, end, value);
  if (text.empty() || result.ec != std::errc() || result.ptr != end)
    return invalid(what + " '" + text + "' is not a number");
  out = value;
  return Status::ok();
}

Status parseInt64(const std::string &text, const std::string &what,
                  int64_t &out) {
  int64_t value = 0;
  const char *begin = text.data(), *end = text.data() + text.size();
  auto result = std::from_chars(begin, end, value);
  if (result.ec == std::errc::result_out_of_range)
    return invalid(what + " '" + text + "' is out of the int64 range");
  if (text.empty() || result.ec != std::errc() || result.ptr != end)
    return invalid(what + " '" + text + "' is not an integer");
  out = value;
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Learning-rate schedules
//===----------------------------------------------------------------------===//

double learningRate(const LrSchedule &schedule, int64_t step) {
  step = std::max<int64_t>(step, 0);
  switch (schedule.kind) {
  case LrSchedule::Kind::Constant:
    return schedule.lr;
  case LrSchedule::Kind::Step: {
    int64_t decays = step / std::max<int64_t>(schedule.stepSize, 1);
    return schedule.lr * std::pow(schedule.gamma, static_cast<double>(decays));
  }
  case LrSchedule::Kind::Cosine: {
    int64_t warmup = schedule.warmupSteps, total = schedule.totalSteps;
    if (step < warmup)
      return schedule.lr * static_cast<double>(step + 1) /
             static_cast<double>(warmup);
    if (step >= total)
      return schedule.minLr;
    double progress = static_cast<double>(step - warmup) /
                      static_cast<double>(total - warmup);
    return schedule.minLr + 0.5 * (schedule.lr - schedule.minLr) *
                                (1.0 + std::cos(kPi * progress));
  }
  }
  return schedule.lr;
}

Status validateLrSchedule(const LrSchedule &s) {
  auto rate = [](double v, const char *name) {
    if (!std::isfinite(v) || v < 0)
      return invalid(std::string("learning-rate schedule: ") + name + " " +
                     formatDouble(v) + " is not a finite number >= 0");
    return Status::ok();
  };
  NNC_RUNTIME_RETURN_IF_ERROR(rate(s.lr, "lr"));
  switch (s.kind) {
  case LrSchedule::Kind::Constant:
    return Status::ok();
  case LrSchedule::Kind::Step:
    if (s.stepSize < 1)
      return invalid("learning-rate schedule: step size " +
                     std::to_string(s.stepSize) + " is not >= 1");
    if (!std::isfinite(s.gamma) || s.gamma <= 0)
      return invalid("learning-rate schedule: gamma " + formatDouble(s.gamma) +
                     " is not a finite number > 0");
    return Status::ok();
  case LrSchedule::Kind::Cosine:
    NNC_RUNTIME_RETURN_IF_ERROR(rate(s.minLr, "minimum lr"));
    if (s.totalSteps < 1)
      return invalid("learning-rate schedule: total steps " +
                     std::to_string(s.totalSteps) + " is not >= 1");
    if (s.warmupSteps < 0 || s.warmupSteps > s.totalSteps)
      return invalid("learning-rate schedule: warm-up steps " +
                     std::to_string(s.warmupSteps) + " is not in [0, " +
                     std::to_string(s.totalSteps) + "] (the total steps)");
    return Status::ok();
  }
  return invalid("learning-rate schedule: unknown kind");
}

Status parseLrSchedule(const std::string &spec, LrSchedule &inout) {
  std::vector<std::string> parts = splitColons(spec);
  std::string where = "learning-rate schedule '" + spec + "': ";
  LrSchedule s = inout;
  auto wrap = [&](Status st) {
    return st.isOk() ? st : invalid(where + st.message());
  };
  if (parts[0] == "constant" && parts.size() == 1) {
    s.kind = LrSchedule::Kind::Constant;
  } else if (parts[0] == "step" && parts.size() == 3) {
    s.kind = LrSchedule::Kind::Step;
    NNC_RUNTIME_RETURN_IF_ERROR(
        wrap(parseInt64(parts[1], "step size", s.stepSize)));
    NNC_RUNTIME_RETURN_IF_ERROR(wrap(parseDouble(parts[2], "gamma", s.gamma)));
  } else if (parts[0] == "cosine" &&
             (parts.size() == 1 || parts.size() == 3 || parts.size() == 4)) {
    s.kind = LrSchedule::Kind::Cosine;
    if (parts.size() >= 3) {
      NNC_RUNTIME_RETURN_IF_ERROR(
          wrap(parseInt64(parts[1], "warm-up steps", s.warmupSteps)));
      NNC_RUNTIME_RETURN_IF_ERROR(
          wrap(parseInt64(parts[2], "total steps", s.totalSteps)));
    }
    if (parts.size() == 4)
      NNC_RUNTIME_RETURN_IF_ERROR(
          wrap(parseDouble(parts[3], "minimum lr", s.minLr)));
  } else {
    return invalid(where + "expected 'constant', 'step:SIZE:GAMMA', "
                           "'cosine' or 'cosine:WARMUP:TOTAL[:MIN_LR]'");
  }
  Status valid = validateLrSchedule(s);
  if (!valid.isOk()) {
    const std::string prefix = "learning-rate schedule: ";
    std::string message = valid.message();
    if (message.compare(0, prefix.size(), prefix) == 0)
      message.erase(0, prefix.size());
    return invalid(where + message);
  }
  inout = s;
  return Status::ok();
}

std::string formatLrSchedule(const LrSchedule &s) {
  switch (s.kind) {
  case LrSchedule::Kind::Constant:
    return "constant";
  case LrSchedule::Kind::Step:
    return "step:" + std::to_string(s.stepSize) + ":" + formatDouble(s.gamma);
  case LrSchedule::Kind::Cosine:
    return "cosine:" + std::to_string(s.warmupSteps) + ":" +
           std::to_string(s.totalSteps) + ":" + formatDouble(s.minLr);
  }
  return "constant";
}

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

LossScaler LossScaler::fixed(double scale) {
  LossScaler s;
  s.dynamic = false;
  s.scale = scale;
  return s;
}

bool LossScaler::update(bool foundNonFinite) {
  if (!dynamic) {
    goodSteps = 0;
    return !foundNonFinite;
  }
  if (foundNonFinite) {
    scale *= backoffFactor;
    goodSteps = 0;
    return false;
  }
  if (++goodSteps >= growthInterval) {
    // As GradScaler: a growth that would overflow keeps the old scale.
    double grown = scale * growthFactor;
    if (std::isfinite(grown))
      scale = grown;
    goodSteps = 0;
  }
  return true;
}

Status LossScaler::validate() const {
  auto bad = [](const std::string &what) {
    return invalid("loss scaler: " + what);
  };
  if (!std::isfinite(scale) || scale <= 0)
    return bad("scale " + formatDouble(scale) + " is not a finite number > 0");
  if (!std::isfinite(minScale) || minScale < 0)
    return bad("minimum scale " + formatDouble(minScale) +
               " is not a finite number >= 0");
  if (!std::isfinite(growthFactor) || growthFactor < 1)
    return bad("growth factor " + formatDouble(growthFactor) +
               " is not a finite number >= 1");
  if (!(backoffFactor > 0 && backoffFactor <= 1))
    return bad("backoff factor " + formatDouble(backoffFactor) +
               " is not in (0, 1]");
  if (growthInterval < 1)
    return bad("growth interval " + std::to_string(growthInterval) +
               " is not >= 1");
  if (goodSteps < 0 || goodSteps >= growthInterval)
    return bad("good steps " + std::to_string(goodSteps) + " is not in [0, " +
               std::to_string(growthInterval) + ")");
  if (!dynamic && goodSteps != 0)
    return bad("a static scaler has good steps " + std::to_string(goodSteps));
  return Status::ok();
}

void LossScaler::save(std::map<std::string, std::string> &metadata,
                      const std::string &prefix) const {
  metadata[prefix + "mode"] = dynamic ? "dynamic" : "static";
  metadata[prefix + "scale"] = formatDouble(scale);
  metadata[prefix + "growth_factor"] = formatDouble(growthFactor);
  metadata[prefix + "backoff_factor"] = formatDouble(backoffFactor);
  metadata[prefix + "growth_interval"] = std::to_string(growthInterval);
  metadata[prefix + "good_steps"] = std::to_string(goodSteps);
  metadata[prefix + "min_scale"] = formatDouble(minScale);
}

Status LossScaler::load(const std::map<std::string, std::string> &metadata,
                        const std::string &prefix) {
  auto get = [&](const char *key, const std::string *&value) {
    auto it = metadata.find(prefix + key);
    if (it == metadata.end())
      return invalid("loss scaler: metadata has no '" + prefix + key + "'");
    value = &it->second;
    return Status::ok();
  };
  LossScaler s;
  const std::string *v = nullptr;
  NNC_RUNTIME_RETURN_IF_ERROR(get("mode", v));
  if (*v != "dynamic" && *v != "static")
    return invalid("loss scaler: '" + prefix + "mode' is '" + *v +
                   "', expected 'dynamic' or 'static'");
  s.dynamic = *v == "dynamic";
  struct DoubleField {
    const char *key;
    double *field;
  };
  for (DoubleField f : {DoubleField{"scale", &s.scale},
                        DoubleField{"growth_factor", &s.growthFactor},
                        DoubleField{"backoff_factor", &s.backoffFactor}}) {
    NNC_RUNTIME_RETURN_IF_ERROR(get(f.key, v));
    NNC_RUNTIME_RETURN_IF_ERROR(
        parseDouble(*v, "loss scaler: '" + prefix + f.key + "'", *f.field));
  }
  NNC_RUNTIME_RETURN_IF_ERROR(get("growth_interval", v));
  NNC_RUNTIME_RETURN_IF_ERROR(parseInt64(
      *v, "loss scaler: '" + prefix + "growth_interval'", s.growthInterval));
  NNC_RUNTIME_RETURN_IF_ERROR(get("good_steps", v));
  NNC_RUNTIME_RETURN_IF_ERROR(
      parseInt64(*v, "loss scaler: '" + prefix + "good_steps'", s.goodSteps));
  if (auto it = metadata.find(prefix + "min_scale"); it != metadata.end())
    NNC_RUNTIME_RETURN_IF_ERROR(parseDouble(
        it->second, "loss scaler: '" + prefix + "min_scale'", s.minScale));
  NNC_RUNTIME_RETURN_IF_ERROR(s.validate());
  *this = s;
  return Status::ok();
}

} // namespace nnc::runtime
