//===- TrainArgs.cpp - nnc-run train/grad: command line and setup ---------===//
//
// The command line and configuration files of nnc-run train and grad, the
// training and compile options they describe, loading the model and
// creating the trainer.
//
//===----------------------------------------------------------------------===//

#include "Train.h"
#include "TrainSupport.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace nnc::tools;

namespace nnc::tools::train {

bool parseArgs(int argc, char **argv, const std::set<std::string> &valued,
               const std::set<std::string> &flags, Args &args, bool &help,
               Failure &failure, bool modelOptional) {
  std::string fromConfig = args.model;
  if (modelOptional)
    args.model.clear();
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      help = true;
      return true;
    }
    if (arg.rfind("--", 0) != 0) {
      if (!args.model.empty()) {
        failure = {"unexpected argument '" + arg + "' (see --help)", 2};
        return false;
      }
      args.model = arg;
      continue;
    }
    std::string name = arg, value;
    bool inlineValue = false;
    if (size_t eq = arg.find('='); eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inlineValue = true;
    }
    if (flags.count(name)) {
      if (inlineValue) {
        failure = {name + " takes no value (see --help)", 2};
        return false;
      }
      args.switches.insert(name);
      continue;
    }
    if (!valued.count(name)) {
      failure = {"unknown option '" + name + "' (see --help)", 2};
      return false;
    }
    if (!inlineValue) {
      if (i + 1 >= argc) {
        failure = {name + " expects a value (see --help)", 2};
        return false;
      }
      value = argv[++i];
    }
    args.values[name] = value;
    args.all[name].push_back(value);
  }
  if (args.model.empty())
    args.model = fromConfig;
  if (!help && args.model.empty()) {
    failure = {"no model given (see --help)", 2};
    return false;
  }
  return true;
}

/// Reads a configuration file: one option per line, `name value`,
/// `name = value` or a bare `name` for a switch (without the leading --),
/// `#` comments; `model` names the model. Fills `args` as the command line
/// would.
bool readConfig(const std::string &path, const std::set<std::string> &valued,
                const std::set<std::string> &flags, Args &args,
                Failure &failure) {
  std::string text, error;
  if (!readRegularFile(path, "config file", text, error)) {
    failure = {error};
    return false;
  }
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (size_t hash = line.find('#'); hash != std::string::npos)
      line.erase(hash);
    auto trim = [](std::string text) {
      size_t b = text.find_first_not_of(" \t\r");
      size_t e = text.find_last_not_of(" \t\r");
      return b == std::string::npos ? std::string() : text.substr(b, e - b + 1);
    };
    line = trim(line);
    if (line.empty())
      continue;
    size_t split = line.find_first_of(" \t=");
    std::string key = line.substr(0, split);
    std::string value =
        split == std::string::npos ? "" : trim(line.substr(split));
    if (!value.empty() && value[0] == '=')
      value = trim(value.substr(1));
    std::string where = path + ":" + std::to_string(number) + ": ";
    if (key == "model") {
      args.model = value;
    } else if (flags.count("--" + key)) {
      if (!value.empty()) {
        failure = {where + "'" + key + "' takes no value", 2};
        return false;
      }
      args.switches.insert("--" + key);
    } else if (valued.count("--" + key)) {
      if (value.empty()) {
        failure = {where + "'" + key + "' needs a value", 2};
        return false;
      }
      args.values["--" + key] = value;
      args.all["--" + key].push_back(value);
    } else {
      failure = {where + "unknown option '" + key + "'", 2};
      return false;
    }
  }
  return true;
}

bool parseInt(const Args &args, const std::string &flag, int64_t min,
              int64_t &out, Failure &failure) {
  if (!args.values.count(flag))
    return true;
  std::string text = args.get(flag);
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end || errno || v < min) {
    failure = {flag + " expects an integer >= " + std::to_string(min) +
                   ", got '" + text + "'",
               2};
    return false;
  }
  out = v;
  return true;
}

bool parseReal(const Args &args, const std::string &flag, double &out,
               Failure &failure) {
  if (!args.values.count(flag))
    return true;
  std::string text = args.get(flag);
  char *end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end || !std::isfinite(v)) {
    failure = {flag + " expects a number, got '" + text + "'", 2};
    return false;
  }
  out = v;
  return true;
}

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool loadModel(const std::string &path, Context &context, Model &model,
               Failure &failure) {
  if (!openCompiler("importing " + path, failure.message))
    return false;
  nnc_context_t *rawContext = nullptr;
  if (nnc_status_t status =
          compiler().nnc_context_create(nullptr, &rawContext)) {
    failure = {takeMessage(status)};
    return false;
  }
  context.reset(rawContext);
  nnc_model_t *raw = nullptr;
  if (endsWith(path, ".onnx")) {
    if (nnc_status_t status = compiler().nnc_model_import_onnx_file(
            context.get(), path.c_str(), nullptr, &raw)) {
      failure = {takeMessage(status)};
      return false;
    }
  } else if (endsWith(path, ".mlir")) {
    std::string text, error;
    if (!readRegularFile(path, "model", text, error)) {
      failure = {error};
      return false;
    }
    if (nnc_status_t status = compiler().nnc_model_parse_mlir(
            context.get(), text.data(), text.size(), path.c_str(), &raw)) {
      failure = {takeMessage(status)};
      return false;
    }
  } else {
    failure = {"model '" + path + "' is neither .onnx nor .mlir", 2};
    return false;
  }
  model.reset(raw);
  return true;
}

bool parseBytes(const std::string &text, uint64_t &out) {
  char *end = nullptr;
  double number = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || !std::isfinite(number) ||
      !(number > 0))
    return false;
  std::string unit(end);
  static const std::pair<const char *, double> units[] = {{"", 1},
                                                          {"B", 1},
                                                          {"K", 1024},
                                                          {"KiB", 1024},
                                                          {"KB", 1e3},
                                                          {"M", 1048576},
                                                          {"MiB", 1048576},
                                                          {"MB", 1e6},
                                                          {"G", 1073741824.0},
                                                          {"GiB", 1073741824.0},
                                                          {"GB", 1e9}};
  for (auto [name, scale] : units)
    if (unit == name) {
      double bytes = number * scale;
      if (bytes < 1 || bytes > 9.0e18)
        return false;
      out = static_cast<uint64_t>(bytes);
      return true;
    }
  return false;
}

/// The loss and optimizer flags shared by train and grad.
/// --memory-budget: bytes ("4000000", "64MiB", "64MB", "512K"), or a
/// fraction of the peak planned without recomputation ("0.5", "50%").
bool parseMemoryBudget(const std::string &text, nnc_train_options_t &o,
                       Failure &failure) {
  auto bad = [&]() {
    failure = {"--memory-budget must be bytes (4000000, 64MiB, 512K) or a "
               "fraction of the planned peak in (0, 1] (0.5, 50%), got '" +
                   text + "'",
               2};
    return false;
  };
  char *end = nullptr;
  double number = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || !std::isfinite(number) ||
      !(number > 0))
    return bad();
  std::string unit(end);
  bool integral = text.find_first_of(".eE") == std::string::npos;
  if (unit == "%" || (unit.empty() && !integral)) {
    double fraction = unit == "%" ? number / 100 : number;
    if (!(fraction > 0 && fraction <= 1))
      return bad();
    o.memory_budget_fraction = fraction;
    return true;
  }
  uint64_t bytes = 0;
  if (!parseBytes(text, bytes))
    return bad();
  o.memory_budget_bytes = bytes;
  return true;
}

bool fillTrainOptions(const Args &args, nnc_train_options_t &o,
                      std::string &output, Failure &failure) {
  nnc_train_options_initialize(&o);
  output = args.get("--output");
  o.output = output.empty() ? nullptr : output.c_str();
  std::string loss = args.get("--loss", "cross_entropy");
  if (loss == "cross_entropy")
    o.loss = NNC_LOSS_CROSS_ENTROPY;
  else if (loss == "nll")
    o.loss = NNC_LOSS_NLL;
  else if (loss == "mse")
    o.loss = NNC_LOSS_MSE;
  else {
    failure = {"--loss must be cross_entropy, nll or mse, got '" + loss + "'",
               2};
    return false;
  }
  std::string reduction = args.get("--reduction", "mean");
  if (reduction != "mean" && reduction != "sum") {
    failure = {"--reduction must be mean or sum, got '" + reduction + "'", 2};
    return false;
  }
  o.loss_sum = reduction == "sum";
  if (!parseReal(args, "--label-smoothing", o.label_smoothing, failure))
    return false;
  if (args.has("--ignore-index")) {
    o.has_ignore_index = 1;
    if (!parseInt(args, "--ignore-index", INT64_MIN, o.ignore_index, failure))
      return false;
  }
  std::string optimizer = args.get("--optimizer", "adam");
  if (optimizer == "sgd")
    o.optimizer = NNC_OPTIMIZER_SGD;
  else if (optimizer == "adam")
    o.optimizer = NNC_OPTIMIZER_ADAM;
  else if (optimizer == "adamw")
    o.optimizer = NNC_OPTIMIZER_ADAMW;
  else {
    failure = {
        "--optimizer must be sgd, adam or adamw, got '" + optimizer + "'", 2};
    return false;
  }
  if (!parseReal(args, "--lr", o.learning_rate, failure) ||
      !parseReal(args, "--momentum", o.momentum, failure) ||
      !parseReal(args, "--weight-decay", o.weight_decay, failure) ||
      !parseReal(args, "--beta1", o.beta1, failure) ||
      !parseReal(args, "--beta2", o.beta2, failure) ||
      !parseReal(args, "--eps", o.epsilon, failure) ||
      !parseReal(args, "--gamma", o.gamma, failure) ||
      !parseReal(args, "--min-lr", o.min_learning_rate, failure) ||
      !parseInt(args, "--step-size", 1, o.step_size, failure) ||
      !parseInt(args, "--warmup-steps", 0, o.warmup_steps, failure) ||
      !parseInt(args, "--accumulate", 1, o.accumulate, failure))
    return false;
  o.nesterov = args.switches.count("--nesterov") != 0;
  std::string schedule = args.get("--schedule", "constant");
  if (schedule == "constant")
    o.schedule = NNC_LR_CONSTANT;
  else if (schedule == "step")
    o.schedule = NNC_LR_STEP;
  else if (schedule == "cosine")
    o.schedule = NNC_LR_COSINE;
  else {
    failure = {"--schedule must be constant, step or cosine, got '" + schedule +
                   "'",
               2};
    return false;
  }
  if (o.schedule == NNC_LR_STEP && !args.has("--step-size")) {
    failure = {"--schedule step needs --step-size", 2};
    return false;
  }
  // f16 overflows without a scale; bf16 has f32's range.
  std::string scale = args.get(
      "--loss-scale", args.get("--amp", "off") == "f16" ? "dynamic" : "1");
  if (scale == "off")
    scale = "1";
  o.name_nonfinite = args.switches.count("--no-name-nonfinite") ? 0 : 1;
  o.weight_copies = args.switches.count("--no-weight-copies") ? 0 : 1;
  o.sync_batch_norm = args.switches.count("--sync-bn") ? 1 : 0;
  if (args.has("--memory-budget") &&
      !parseMemoryBudget(args.get("--memory-budget"), o, failure))
    return false;
  if (scale == "dynamic") {
    o.loss_scale = 0.0;
  } else {
    char *end = nullptr;
    o.loss_scale = std::strtod(scale.c_str(), &end);
    if (scale.empty() || *end || !(o.loss_scale > 0) ||
        !std::isfinite(o.loss_scale)) {
      failure = {"--loss-scale must be 'dynamic', 'off' or a positive number, "
                 "got '" +
                     scale + "'",
                 2};
      return false;
    }
  }
  return true;
}

bool fillCompileOptions(const Args &args, nnc_compile_options_t &c,
                        std::string &cacheDir, Failure &failure) {
  nnc_compile_options_initialize(&c);
  if (args.values.count("--cache-dir")) {
    cacheDir = args.get("--cache-dir");
    c.cache_dir = cacheDir.c_str();
  }
  int64_t threads = 0;
  if (!parseInt(args, "--threads", 0, threads, failure))
    return false;
  c.num_threads = static_cast<int32_t>(threads);
  // Flags only `train` takes; absent elsewhere.
  c.fuse = args.switches.count("--no-fuse") ? 0 : 1;
  c.library_kernels = args.switches.count("--no-library-kernels") ? 0 : 1;
  c.cuda_graph = args.switches.count("--cuda-graph") ? 1 : 0;
  c.measure_unfused = args.switches.count("--report") && c.fuse;
  auto find = [&](const char *flag) -> const std::string * {
    auto it = args.values.find(flag);
    return it == args.values.end() ? nullptr : &it->second;
  };
  if (const std::string *target = find("--target"))
    c.target = target->c_str();
  std::string error = applyTuningOptions(
      find("--autotune"), find("--tuning-db"), find("--tuning-budget"), c);
  if (error.empty())
    error = applyPrecisionOptions(find("--amp"), find("--amp-low-ops"),
                                  find("--amp-f32-ops"), c);
  if (!error.empty()) {
    failure = {error, 2};
    return false;
  }
  return true;
}

} // namespace nnc::tools::train

std::string nnc::tools::applyTuningOptions(const std::string *mode,
                                           const std::string *db,
                                           const std::string *budget,
                                           nnc_compile_options_t &c) {
  if (mode) {
    if (*mode == "off")
      c.autotune = NNC_AUTOTUNE_OFF;
    else if (*mode == "cached")
      c.autotune = NNC_AUTOTUNE_CACHED;
    else if (*mode == "on")
      c.autotune = NNC_AUTOTUNE_ON;
    else if (*mode == "require")
      c.autotune = NNC_AUTOTUNE_REQUIRE;
    else
      return "--autotune must be off, cached, on or require, got '" + *mode +
             "'";
  }
  if (db)
    c.tuning_database = db->c_str();
  if (budget) {
    char *end = nullptr;
    double seconds = std::strtod(budget->c_str(), &end);
    if (budget->empty() || *end || !(seconds > 0) || !std::isfinite(seconds))
      return "--tuning-budget expects a positive number of seconds, got '" +
             *budget + "'";
    c.tuning_budget_seconds = seconds;
  }
  return "";
}

std::string nnc::tools::applyPrecisionOptions(const std::string *amp,
                                              const std::string *lowOps,
                                              const std::string *f32Ops,
                                              nnc_compile_options_t &c) {
  if (amp) {
    if (*amp == "off")
      c.precision = NNC_PRECISION_F32;
    else if (*amp == "bf16")
      c.precision = NNC_PRECISION_BF16;
    else if (*amp == "f16")
      c.precision = NNC_PRECISION_F16;
    else
      return "--amp must be bf16, f16 or off, got '" + *amp + "'";
  }
  if ((lowOps || f32Ops) && c.precision == NNC_PRECISION_F32)
    return "--amp-low-ops and --amp-f32-ops need --amp bf16 or f16";
  if (lowOps)
    c.amp_low_ops = lowOps->c_str();
  if (f32Ops)
    c.amp_f32_ops = f32Ops->c_str();
  return "";
}

namespace {

void printMixedPrecision(const nnc_mixed_precision_t &amp) {
  if (amp.precision == NNC_PRECISION_F32)
    return;
  const char *type = amp.precision == NNC_PRECISION_F16 ? "f16" : "bf16";
  std::printf("mixed precision: %s\n", type);
  std::printf("  ops in %s: %lld (%lld by the policy, %lld following their "
              "inputs)\n",
              type, (long long)(amp.low_ops + amp.follow_ops),
              (long long)amp.low_ops, (long long)amp.follow_ops);
  std::printf("  ops kept in f32: %lld\n", (long long)amp.f32_ops);
  std::printf("  casts inserted: %lld\n", (long long)amp.casts);
  std::printf("  bytes saved by results stored in %s: %lld\n", type,
              (long long)amp.narrowed_bytes);
  if (amp.weight_copies)
    std::printf("  weight copies in %s kept by the step: %lld (%lld bytes), "
                "made by the optimizer's update\n",
                type, (long long)amp.weight_copies,
                (long long)amp.weight_copy_bytes);
}

} // namespace

void nnc::tools::printMixedPrecisionReport(const nnc_executable_t *executable) {
  if (!compilerIsOpen())
    return;
  nnc_mixed_precision_t amp;
  std::memset(&amp, 0, sizeof amp);
  amp.struct_size = sizeof amp;
  if (!compiler().nnc_executable_mixed_precision(executable, &amp))
    printMixedPrecision(amp);
}

namespace {

/// The autotuner's kernels of an executable or a trainer: `count` of them,
/// `seconds` measuring, `get` fills one.
template <typename Get>
void printTuning(size_t count, double seconds, Get get) {
  if (!count)
    return;
  static const char *sources[] = {"untuned", "database", "measured"};
  std::printf("autotune: %zu kernels with candidates, %.2f s measuring\n",
              count, seconds);
  auto ms = [](double v) {
    char text[32];
    if (v < 0)
      return std::string("-");
    std::snprintf(text, sizeof text, "%.3f ms", v);
    return std::string(text);
  };
  for (size_t i = 0; i < count; ++i) {
    nnc_tuned_kernel_t kernel;
    std::memset(&kernel, 0, sizeof kernel);
    kernel.struct_size = sizeof kernel;
    if (nnc_status_t status = get(i, &kernel)) {
      nnc_status_destroy(status);
      continue;
    }
    int source = kernel.source >= 0 && kernel.source <= 2 ? kernel.source : 0;
    const char *check = kernel.program_check == 1   ? ", kept by the program"
                        : kernel.program_check == 2 ? ", turned down by the "
                                                      "program"
                                                    : "";
    std::printf("  %s: %s %s (default %s %s) [%s%s]\n", kernel.kernel,
                kernel.choice, ms(kernel.choice_ms).c_str(),
                kernel.default_choice, ms(kernel.default_ms).c_str(),
                sources[source], check);
  }
}

} // namespace

void nnc::tools::printTuningReport(const nnc_executable_t *executable) {
  // A saved executable (no compiler loaded) has no tuning to report.
  if (!compilerIsOpen())
    return;
  printTuning(compiler().nnc_executable_tuned_kernel_count(executable),
              compiler().nnc_executable_tuning_seconds(executable),
              [&](size_t i, nnc_tuned_kernel_t *kernel) {
                return compiler().nnc_executable_tuned_kernel(executable, i,
                                                              kernel);
              });
  nnc_tuning_check_t check;
  std::memset(&check, 0, sizeof check);
  check.struct_size = sizeof check;
  if (nnc_status_t status =
          compiler().nnc_executable_tuning_check(executable, &check)) {
    nnc_status_destroy(status);
    return;
  }
  if (!check.checked)
    return;
  if (check.skipped) {
    std::printf("autotune: program check: not run; the %d choices measured "
                "alone are kept\n",
                check.changes);
    return;
  }
  std::printf("autotune: program check: %d of %d changed kernels kept "
              "(%d sets timed): %.3f ms with the defaults, %.3f ms with %s\n",
              check.kept, check.changes, check.variants, check.default_ms,
              check.tuned_ms, check.kept ? "those kept" : "all of them");
}

namespace nnc::tools::train {

/// The memory budget's choice: peaks, extra FLOPs, what is recomputed and
/// what is kept (the largest first, as many as fit a screen).
void printRemat(const nnc_trainer_t *trainer) {
  if (!compilerIsOpen())
    return;
  nnc_remat_stats_t remat;
  std::memset(&remat, 0, sizeof remat);
  remat.struct_size = sizeof remat;
  if (compiler().nnc_trainer_remat_stats(trainer, &remat) ||
      !remat.budget_bytes)
    return;
  auto mib = [](uint64_t bytes) { return double(bytes) / 1048576.0; };
  std::printf("memory budget: %llu bytes (%.2f MiB)\n",
              (unsigned long long)remat.budget_bytes, mib(remat.budget_bytes));
  std::printf("  planned peak: %llu bytes without recomputation, %llu with "
              "(%.1f%%)\n",
              (unsigned long long)remat.peak_before_bytes,
              (unsigned long long)remat.peak_after_bytes,
              remat.peak_before_bytes ? 100.0 * double(remat.peak_after_bytes) /
                                            double(remat.peak_before_bytes)
                                      : 0.0);
  if (remat.peak_before_bytes <= remat.budget_bytes) {
    std::printf("  the step fits without recomputation\n");
    return;
  }
  std::printf("  temporaries: %llu bytes predicted, %llu planned\n",
              (unsigned long long)remat.predicted_arena_bytes,
              (unsigned long long)remat.planned_arena_bytes);
  std::printf("  extra FLOPs: %.0f of %.0f (%.1f%%)\n", remat.extra_flops,
              remat.flops,
              remat.flops ? 100.0 * remat.extra_flops / remat.flops : 0.0);
  for (int kept = 0; kept < 2; ++kept) {
    uint32_t count = kept ? remat.kept_count : remat.recomputed_count;
    std::printf("  %s: %u saved forward values\n", kept ? "kept" : "recomputed",
                count);
    for (uint32_t i = 0; i < count && i < 20; ++i) {
      char *text = nullptr;
      if (compiler().nnc_trainer_remat_value(trainer, kept, i, &text))
        break;
      std::printf("    %s\n", text);
      nnc_string_destroy(text);
    }
    if (count > 20)
      std::printf("    ... and %u more\n", count - 20);
  }
}

void printStepReport(const nnc_trainer_t *trainer, int64_t skipped,
                     const SkippedStep &lastSkip) {
  nnc_executable_stats_t stats;
  std::memset(&stats, 0, sizeof(stats));
  stats.struct_size = sizeof(stats);
  if (nnc_status_t status = nnc_trainer_step_stats(trainer, &stats)) {
    std::fprintf(stderr, "nnc-run: warning: no report: %s\n",
                 takeMessage(status).c_str());
    return;
  }
  printStats("training step report", stats, /*executable=*/false);
  printRemat(trainer);
  // The policy applies to the forward and loss; the gradients follow.
  nnc_mixed_precision_t amp;
  std::memset(&amp, 0, sizeof amp);
  amp.struct_size = sizeof amp;
  if (compilerIsOpen() &&
      !compiler().nnc_trainer_mixed_precision(trainer, &amp))
    printMixedPrecision(amp);
  // Every kernel with candidates its steps and evaluation compiled.
  if (compilerIsOpen())
    printTuning(compiler().nnc_trainer_tuned_kernel_count(trainer),
                compiler().nnc_trainer_tuning_seconds(trainer),
                [&](size_t i, nnc_tuned_kernel_t *kernel) {
                  return compiler().nnc_trainer_tuned_kernel(trainer, i,
                                                             kernel);
                });
  if (skipped) {
    std::printf("skipped steps: %lld (gradients not finite)\n",
                (long long)skipped);
    std::printf("  the last, step %lld at loss scale %g: first non-finite "
                "value: %s\n",
                (long long)lastSkip.step, lastSkip.lossScale,
                lastSkip.nonFinite.c_str());
    std::printf("  naming them took %.3f s in all, %.3f s the last (the "
                "probe compiles once per batch shape, then reruns the "
                "skipped batch)\n",
                lastSkip.allProbeSeconds, lastSkip.probeSeconds);
  }
}

bool makeTrainer(const Args &args, nnc_model_t *model,
                 nnc_train_options_t &options, Trainer &trainer,
                 Failure &failure) {
  nnc_compile_options_t compileOptions;
  std::string cacheDir;
  if (!fillCompileOptions(args, compileOptions, cacheDir, failure))
    return false;
  nnc_trainer_t *raw = nullptr;
  if (nnc_status_t status = compiler().nnc_trainer_create(
          model, &options, &compileOptions, &raw)) {
    failure = {takeMessage(status)};
    return false;
  }
  trainer.reset(raw);
  return true;
}

/// The names of the trainer's data tensors, the last (labels) renamed to
/// the --labels array.

} // namespace nnc::tools::train
