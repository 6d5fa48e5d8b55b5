//===- TrainData.cpp - nnc-run train/grad: data, evaluation, metrics ------===//
//
// Data loaders over .npz archives, .npy files or a CSV table; evaluation of
// the current parameters; the metrics log; writing parameters.
//
//===----------------------------------------------------------------------===//

#include "TrainSupport.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <unistd.h>

using namespace nnc::tools;

namespace nnc::tools::train {

std::vector<std::string> dataNames(nnc_trainer_t *trainer,
                                   const std::string &labels) {
  std::vector<std::string> names;
  size_t count = nnc_trainer_data_count(trainer);
  for (size_t i = 0; i < count; ++i) {
    const nnc_value_info_t *info = nullptr;
    nnc_status_destroy(nnc_trainer_data_info(trainer, i, &info));
    std::string name =
        info && info->name ? info->name : "input_" + std::to_string(i);
    names.push_back(i + 1 == count ? labels : name);
  }
  return names;
}

bool writeParams(nnc_trainer_t *trainer, const std::string &path,
                 Failure &failure) {
  std::vector<const char *> names;
  std::vector<const nnc_tensor_t *> tensors;
  size_t count = nnc_trainer_parameter_count(trainer);
  for (size_t i = 0; i < count; ++i) {
    const nnc_value_info_t *info = nullptr;
    const nnc_tensor_t *value = nullptr;
    if (nnc_status_t status =
            nnc_trainer_parameter(trainer, i, &info, &value)) {
      failure = {takeMessage(status)};
      return false;
    }
    names.push_back(info->name);
    tensors.push_back(value);
  }
  if (nnc_status_t status =
          nnc_npz_write(path.c_str(), count, names.data(), tensors.data())) {
    failure = {takeMessage(status)};
    return false;
  }
  return true;
}

/// Opens a loader over the data given by `specs` (the values of --data or
/// --eval) for the trainer's data `names` (graph inputs, then labels): one
/// FILE.npz with arrays by name; NAME=FILE.npy for each array; or one
/// FILE.csv whose column `labelColumn` (negative: from the end) holds the
/// labels and whose other columns, reshaped to the graph input, the
/// features.
bool openLoader(const std::vector<std::string> &specs,
                const std::vector<std::string> &names, nnc_trainer_t *trainer,
                const nnc_loader_options_t &options, int64_t labelColumn,
                Loader &out, Failure &failure) {
  std::vector<const char *> cnames;
  for (const std::string &n : names)
    cnames.push_back(n.c_str());
  nnc_loader_t *raw = nullptr;
  if (specs.size() == 1 && endsWith(specs[0], ".npz")) {
    if (nnc_status_t status = nnc_loader_create_npz(
            specs[0].c_str(), cnames.size(), cnames.data(), &options, &raw)) {
      failure = {takeMessage(status)};
      return false;
    }
    out.reset(raw);
    return true;
  }
  std::vector<Tensor> arrays(names.size());
  if (specs.size() == 1 && endsWith(specs[0], ".csv")) {
    if (names.size() != 2) {
      failure = {
          "a .csv file feeds models with one graph input; this one has " +
              std::to_string(names.size() - 1) + " (use .npz)",
          2};
      return false;
    }
    nnc_tensor_t *table = nullptr;
    if (nnc_status_t status = nnc_tensor_read_csv(specs[0].c_str(), &table)) {
      failure = {takeMessage(status)};
      return false;
    }
    Tensor owned(table);
    const int64_t *dims = nnc_tensor_dims(table);
    int64_t rows = dims[0], columns = dims[1];
    int64_t label = labelColumn < 0 ? columns + labelColumn : labelColumn;
    if (label < 0 || label >= columns || columns < 2) {
      failure = {specs[0] + " has " + std::to_string(columns) +
                     " columns; the label column " +
                     std::to_string(labelColumn) + " is not one of them",
                 2};
      return false;
    }
    // Features: the other columns, in the graph input's shape.
    const nnc_value_info_t *input = nullptr, *labels = nullptr;
    nnc_status_destroy(nnc_trainer_data_info(trainer, 0, &input));
    nnc_status_destroy(nnc_trainer_data_info(trainer, 1, &labels));
    std::vector<int64_t> shape{rows};
    int64_t perSample = 1;
    for (size_t d = 1; d < input->rank; ++d) {
      shape.push_back(input->dims[d]);
      perSample *= input->dims[d];
    }
    if (input->dtype != NNC_DTYPE_F32 || perSample != columns - 1 ||
        perSample <= 0) {
      failure = {specs[0] + " has " + std::to_string(columns - 1) +
                 " feature columns; the model's input '" +
                 std::string(input->name ? input->name : "input_0") + "' is " +
                 describe(*input)};
      return false;
    }
    const float *cells = static_cast<const float *>(nnc_tensor_data(table));
    nnc_tensor_t *features = nullptr, *targets = nullptr;
    std::vector<int64_t> labelShape{rows};
    if (labels->rank == 2 && labels->dims[1] == 1)
      labelShape.push_back(1);
    if (nnc_tensor_create(NNC_DTYPE_F32, shape.size(), shape.data(),
                          &features) ||
        nnc_tensor_create(labels->dtype, labelShape.size(), labelShape.data(),
                          &targets)) {
      failure = {"out of memory reading " + specs[0]};
      return false;
    }
    arrays[0].reset(features);
    arrays[1].reset(targets);
    float *f = static_cast<float *>(nnc_tensor_data(features));
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0, k = 0; c < columns; ++c)
        if (c != label)
          f[r * perSample + k++] = cells[r * columns + c];
      float value = cells[r * columns + label];
      if (labels->dtype == NNC_DTYPE_I64) {
        if (value != std::floor(value) || !std::isfinite(value)) {
          failure = {specs[0] + ": row " + std::to_string(r + 1) +
                     " has label " + std::to_string(value) +
                     ", not a class index"};
          return false;
        }
        static_cast<int64_t *>(nnc_tensor_data(targets))[r] =
            static_cast<int64_t>(value);
      } else if (labels->dtype == NNC_DTYPE_F32) {
        static_cast<float *>(nnc_tensor_data(targets))[r] = value;
      } else {
        failure = {"labels of " + describe(*labels) +
                   " cannot come from a .csv file"};
        return false;
      }
    }
  } else {
    // NAME=FILE.npy, one per array.
    for (const std::string &spec : specs) {
      size_t eq = spec.find('=');
      if (eq == std::string::npos || !endsWith(spec, ".npy")) {
        failure = {"data '" + spec +
                       "' is none of FILE.npz, FILE.csv and NAME=FILE.npy",
                   2};
        return false;
      }
      std::string name = spec.substr(0, eq);
      auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end()) {
        std::string known;
        for (const std::string &n : names)
          known += (known.empty() ? "'" : ", '") + n + "'";
        failure = {"data '" + name + "' is not one of the model's: " + known,
                   2};
        return false;
      }
      nnc_tensor_t *tensor = nullptr;
      if (nnc_status_t status =
              nnc_tensor_read_npy(spec.substr(eq + 1).c_str(), &tensor)) {
        failure = {takeMessage(status)};
        return false;
      }
      arrays[it - names.begin()].reset(tensor);
    }
    for (size_t i = 0; i < names.size(); ++i)
      if (!arrays[i]) {
        failure = {"no data for '" + names[i] + "' (give " + names[i] +
                       "=FILE.npy)",
                   2};
        return false;
      }
  }
  std::vector<const nnc_tensor_t *> tensors;
  for (const Tensor &t : arrays)
    tensors.push_back(t.get());
  if (nnc_status_t status = nnc_loader_create(names.size(), cnames.data(),
                                              tensors.data(), &options, &raw)) {
    failure = {takeMessage(status)};
    return false;
  }
  out.reset(raw);
  return true;
}

bool evaluate(nnc_trainer_t *trainer, nnc_loader_t *loader, bool classLoss,
              int64_t outputIndex, int64_t numOutputs, EvalResult &result,
              Failure &failure) {
  int64_t batches = nnc_loader_batches_per_epoch(loader);
  if (nnc_status_t status = nnc_loader_seek(loader, 0, 0)) {
    failure = {takeMessage(status)};
    return false;
  }
  for (int64_t b = 0; b < batches; ++b) {
    nnc_batch_t *raw = nullptr;
    if (nnc_status_t status = nnc_loader_next(loader, &raw)) {
      failure = {takeMessage(status)};
      return false;
    }
    BatchHandle batch(raw);
    size_t count = nnc_batch_tensor_count(batch.get());
    std::vector<const nnc_tensor_t *> inputs;
    for (size_t i = 0; i + 1 < count; ++i)
      inputs.push_back(nnc_batch_tensor(batch.get(), i));
    const nnc_tensor_t *labels = nnc_batch_tensor(batch.get(), count - 1);
    std::vector<nnc_tensor_t *> outputs(numOutputs, nullptr);
    if (nnc_status_t status =
            nnc_trainer_evaluate(trainer, inputs.size(), inputs.data(),
                                 outputs.size(), outputs.data())) {
      failure = {takeMessage(status)};
      return false;
    }
    std::vector<Tensor> owned;
    for (nnc_tensor_t *t : outputs)
      owned.emplace_back(t);
    nnc_tensor_t *out = owned[outputIndex].get();
    nnc_tensor_t *lab = const_cast<nnc_tensor_t *>(labels);
    int64_t n = nnc_batch_size(batch.get());
    result.samples += n;
    if (classLoss) {
      // Logits [N, C, d...]: the class with the largest logit per element.
      const int64_t *dims = nnc_tensor_dims(out);
      int64_t classes = nnc_tensor_rank(out) >= 2 ? dims[1] : 1;
      int64_t inner = 1;
      for (size_t d = 2; d < nnc_tensor_rank(out); ++d)
        inner *= dims[d];
      // Labels [N, d...] or flattened like the logits' rows.
      int64_t rows = dims[0];
      if (elementCount(lab) != rows * inner) {
        failure = {"the evaluation labels have " +
                   std::to_string(elementCount(lab)) +
                   " elements, the output " + describe(out) + " needs " +
                   std::to_string(rows * inner)};
        return false;
      }
      for (int64_t s = 0; s < rows; ++s)
        for (int64_t j = 0; j < inner; ++j) {
          int64_t best = 0;
          double bestValue = -INFINITY;
          for (int64_t c = 0; c < classes; ++c) {
            double v = floatAt(out, (s * classes + c) * inner + j);
            if (v > bestValue) {
              bestValue = v;
              best = c;
            }
          }
          result.correct += best == integerAt(lab, s * inner + j);
          result.elements += 1;
        }
    } else {
      int64_t count = elementCount(out);
      for (int64_t i = 0; i < count; ++i) {
        double d = floatAt(out, i) - floatAt(lab, i);
        result.squaredError += d * d;
      }
      result.elements += count;
    }
  }
  return true;
}

namespace {

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string csvField(const std::string &text) {
  std::string out = "\"";
  for (char c : text)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

} // namespace

bool MetricsLog::open(const std::string &path, bool append, Failure &failure) {
  if (path.empty())
    return true;
  csv = endsWith(path, ".csv");
  if (!csv && !endsWith(path, ".jsonl")) {
    failure = {"--metrics file '" + path + "' must end in .csv or .jsonl", 2};
    return false;
  }
  bool exists = access(path.c_str(), F_OK) == 0;
  // A resumed run appends; a CSV's columns must be these.
  if (csv && append && exists) {
    std::ifstream in(path);
    std::string header;
    if (std::getline(in, header) && !header.empty() && header != kCsvHeader) {
      failure = {"metrics file '" + path +
                 "' has other columns (an older nnc-run's?) than this run "
                 "writes; give a new file"};
      return false;
    }
  }
  file = std::fopen(path.c_str(), append ? "a" : "w");
  if (!file) {
    failure = {"cannot open metrics file '" + path +
               "': " + std::strerror(errno)};
    return false;
  }
  if (csv && (!append || !exists || std::ftell(file) == 0))
    std::fprintf(file, "%s\n", kCsvHeader);
  return true;
}

namespace {

/// `value` as the log writes it with `format` ("%.1f"): what a plot of the
/// kept values draws must be what a reader of the log finds, to the pixel.
double asLogged(const char *format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return std::strtod(text, nullptr);
}

} // namespace

void MetricsLog::step(int64_t step, int64_t epoch, const nnc_step_info_t &info,
                      double seconds, double samplesPerSecond) {
  if (kept) {
    double x = static_cast<double>(step);
    kept->loss.push_back({x, info.loss});
    kept->learningRate.push_back({x, info.learning_rate});
    kept->stepThroughput.push_back({x, asLogged("%.1f", samplesPerSecond)});
  }
  if (!file)
    return;
  if (csv)
    std::fprintf(file, "step,%lld,%lld,%.9g,%.9g,%.9g,%d,%.6f,%.1f,,,,,,,,\n",
                 (long long)step, (long long)epoch, info.loss,
                 info.learning_rate, info.loss_scale, info.skipped, seconds,
                 samplesPerSecond);
  else
    std::fprintf(file,
                 "{\"kind\": \"step\", \"step\": %lld, \"epoch\": %lld, "
                 "\"loss\": %.9g, \"learning_rate\": %.9g, \"loss_scale\": "
                 "%.9g, \"skipped\": %s, \"seconds\": %.6f, "
                 "\"samples_per_second\": %.1f}\n",
                 (long long)step, (long long)epoch, info.loss,
                 info.learning_rate, info.loss_scale,
                 info.skipped ? "true" : "false", seconds, samplesPerSecond);
}

void MetricsLog::eval(int64_t step, int64_t epoch, const char *metric,
                      double value) {
  if (kept) {
    kept->evalName = metric;
    kept->eval.push_back({static_cast<double>(step), value});
  }
  if (!file)
    return;
  if (csv)
    std::fprintf(file, "eval,%lld,%lld,,,,,,,%.9g,,,,,,,\n", (long long)step,
                 (long long)epoch, value);
  else
    std::fprintf(file,
                 "{\"kind\": \"eval\", \"step\": %lld, \"epoch\": %lld, "
                 "\"%s\": %.9g}\n",
                 (long long)step, (long long)epoch, metric, value);
  std::fflush(file);
}

void MetricsLog::interval(int64_t epoch, const nnc_interval_stats_t &stats) {
  // The shares are of the interval's wall time; they add up to 1.
  double wall = stats.wall_seconds > 0 ? stats.wall_seconds : 1;
  double busy = stats.busy_seconds / wall,
         wait = stats.data_wait_seconds / wall,
         other = stats.other_seconds / wall;
  if (kept) {
    double x = static_cast<double>(stats.step);
    kept->intervalThroughput.push_back(
        {x, asLogged("%.1f", stats.samples_per_second)});
    kept->busy.push_back({x, asLogged("%.6f", busy)});
    kept->dataWait.push_back({x, asLogged("%.6f", wait)});
    kept->other.push_back({x, asLogged("%.6f", other)});
  }
  if (!file)
    return;
  if (csv)
    std::fprintf(file,
                 "interval,%lld,%lld,,,,,%.6f,%.1f,,%.6f,%.6f,%.6f,%llu,%llu,"
                 "%llu,\n",
                 (long long)stats.step, (long long)epoch, stats.wall_seconds,
                 stats.samples_per_second, busy, wait, other,
                 (unsigned long long)stats.planned_peak_bytes,
                 (unsigned long long)stats.resident_bytes,
                 (unsigned long long)stats.memory_available_bytes);
  else
    std::fprintf(
        file,
        "{\"kind\": \"interval\", \"step\": %lld, \"epoch\": %lld, "
        "\"seconds\": %.6f, \"samples_per_second\": %.1f, \"busy\": %.6f, "
        "\"data_wait\": %.6f, \"other\": %.6f, \"planned_peak_bytes\": %llu, "
        "\"rss_bytes\": %llu, \"memory_available_bytes\": %llu}\n",
        (long long)stats.step, (long long)epoch, stats.wall_seconds,
        stats.samples_per_second, busy, wait, other,
        (unsigned long long)stats.planned_peak_bytes,
        (unsigned long long)stats.resident_bytes,
        (unsigned long long)stats.memory_available_bytes);
  std::fflush(file);
}

void MetricsLog::advice(int64_t step, int64_t epoch, const char *topic,
                        const std::string &text) {
  if (!file)
    return;
  if (csv)
    std::fprintf(file, "advice,%lld,%lld,,,,,,,,,,,,,,%s\n", (long long)step,
                 (long long)epoch,
                 csvField(std::string(topic) + ": " + text).c_str());
  else
    std::fprintf(file,
                 "{\"kind\": \"advice\", \"step\": %lld, \"epoch\": %lld, "
                 "\"topic\": %s, \"text\": %s}\n",
                 (long long)step, (long long)epoch, jsonString(topic).c_str(),
                 jsonString(text).c_str());
  std::fflush(file);
}

std::string formatDuration(double seconds) {
  long s = static_cast<long>(seconds + 0.5);
  char text[32];
  if (s >= 3600)
    std::snprintf(text, sizeof(text), "%ld:%02ld:%02ld", s / 3600, s / 60 % 60,
                  s % 60);
  else
    std::snprintf(text, sizeof(text), "%ld:%02ld", s / 60, s % 60);
  return text;
}

namespace {

std::string bytesText(uint64_t bytes) {
  const char *units[] = {"B", "kB", "MB", "GB", "TB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1000 && unit < 4) {
    value /= 1000;
    ++unit;
  }
  // Three significant digits: 1.78 MB, 17.0 kB, 183 MB.
  int decimals = unit == 0 || value >= 100 ? 0 : value >= 10 ? 1 : 2;
  char text[32];
  std::snprintf(text, sizeof(text), "%.*f %s", decimals, value, units[unit]);
  return text;
}

} // namespace

std::string formatShares(const nnc_interval_stats_t &stats) {
  if (!(stats.wall_seconds > 0))
    return "busy -, data -, other -";
  // Rounded so that the three printed figures add up to 100.
  long busy = std::lround(100 * stats.busy_seconds / stats.wall_seconds);
  long wait = std::lround(100 * stats.data_wait_seconds / stats.wall_seconds);
  wait = std::min(wait, 100 - busy);
  char text[64];
  std::snprintf(text, sizeof(text), "busy %ld %%, data %ld %%, other %ld %%",
                busy, wait, 100 - busy - wait);
  return text;
}

std::string formatMemory(const nnc_interval_stats_t &stats) {
  std::string text;
  if (stats.planned_peak_bytes)
    text = "planned peak " + bytesText(stats.planned_peak_bytes) + ", ";
  text += "resident " + bytesText(stats.resident_bytes);
  if (stats.memory_available_bytes)
    text += " of " + bytesText(stats.memory_available_bytes);
  return text;
}

std::string memoryAlternatives(nnc_trainer_t *trainer, const nnc_batch_t *batch,
                               bool savedTrainer,
                               const nnc_train_options_t &options,
                               int64_t batchSize) {
  if (savedTrainer)
    return "; a saved trainer has no compiler to plan what --memory-budget, "
           "--amp or --accumulate would make of it";
  if (!batch)
    return "";
  std::vector<const nnc_tensor_t *> data;
  for (size_t i = 0; i < nnc_batch_tensor_count(batch); ++i)
    data.push_back(nnc_batch_tensor(batch, i));
  nnc_memory_alternatives_t figures;
  std::memset(&figures, 0, sizeof(figures));
  figures.struct_size = sizeof(figures);
  if (nnc_status_t status = compiler().nnc_trainer_memory_alternatives(
          trainer, data.size(), data.data(), &figures))
    return "; planning the alternatives failed: " + takeMessage(status);
  std::string text = "; planned by the compiler for this batch (now " +
                     bytesText(figures.current_bytes) + "):";
  std::vector<std::string> parts;
  if (figures.budget_bytes &&
      figures.budget_peak_bytes < figures.current_bytes) {
    char extra[48];
    std::snprintf(extra, sizeof(extra), " at %.1f %% more FLOPs",
                  100 * figures.budget_extra_flops);
    // With accumulation the budget bounds the gradient function alone.
    parts.push_back(
        (options.accumulate == 1
             ? " --memory-budget " + std::to_string(figures.budget_bytes)
             : std::string(" recomputation (--memory-budget)")) +
        " would cut the planned peak to " +
        bytesText(figures.budget_peak_bytes) + extra);
  } else {
    parts.push_back(" recomputation (--memory-budget) would not lower it");
  }
  if (figures.amp_bytes && figures.amp_bytes < figures.current_bytes &&
      bytesText(figures.amp_bytes) == bytesText(figures.current_bytes))
    parts.push_back(" --amp bf16 would lower it by only " +
                    std::to_string(figures.current_bytes - figures.amp_bytes) +
                    " bytes");
  else if (figures.amp_bytes && figures.amp_bytes < figures.current_bytes)
    parts.push_back(" --amp bf16 would cut it to " +
                    bytesText(figures.amp_bytes));
  else if (figures.amp_bytes)
    parts.push_back(" --amp bf16 would not lower it (" +
                    bytesText(figures.amp_bytes) + ")");
  if (figures.accumulate > 0 && figures.accumulate_bytes) {
    int64_t factor =
        figures.accumulate / std::max<int64_t>(1, options.accumulate);
    parts.push_back(" --batch-size " +
                    std::to_string(batchSize / std::max<int64_t>(1, factor)) +
                    " --accumulate " + std::to_string(figures.accumulate) +
                    " (the same update) would " +
                    (figures.accumulate_bytes < figures.current_bytes
                         ? "cut it to "
                         : "make it ") +
                    bytesText(figures.accumulate_bytes));
  }
  for (size_t k = 0; k < parts.size(); ++k)
    text += (k ? ";" : "") + parts[k];
  return text;
}

namespace {
std::string &failurePrefix() {
  static std::string prefix;
  return prefix;
}
} // namespace

void setFailurePrefix(const std::string &prefix) { failurePrefix() = prefix; }

int fail(const Failure &failure) {
  std::fprintf(stderr, "nnc-run: %serror: %s\n", failurePrefix().c_str(),
               failure.message.c_str());
  return failure.exitCode;
}

} // namespace nnc::tools::train
