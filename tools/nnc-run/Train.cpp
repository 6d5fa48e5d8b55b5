//===- Train.cpp - nnc-run train and nnc-run grad -------------------------===//
//
// `nnc-run train`: trains a model on .npz data with a compiled training step
// (trainer, data loader, checkpoints and metrics all through the C API);
// `nnc-run grad`: the loss and gradients of one batch.
//
//===----------------------------------------------------------------------===//

#include "Train.h"

#include "nnc-c/nnc.h"

#include "../common/CAPIHelpers.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

using namespace nnc::tools;

namespace {

const char *kTrainUsage = R"(usage: nnc-run train MODEL --data FILE.npz [options]
       nnc-run train [MODEL] --config FILE [options]

Trains MODEL (.onnx or .mlir; its parameters start at the initial values it
stores) with a compiled training step: the loss attached to an output, batch
normalization in training mode, gradients and the optimizer update in one
native function.

data:
  --data FILE.npz          training arrays: one per graph input, named like
                           it, and the labels; first dimension = samples
  --data NAME=FILE.npy     the same, one array per file (repeat the flag)
  --data FILE.csv          a numeric table (a header row is optional): the
                           label column and, reshaped to the model's only
                           graph input, the other columns
  --label-column K         the CSV's label column (default -1: the last)
  --eval FILE.npz|.csv|NAME=FILE.npy
                           evaluated after every epoch (and at the end):
                           accuracy for class losses, else the mean squared
                           error
  --labels NAME            the labels array (default: labels)
  --batch-size N           (default 32)
  --eval-batch-size N      (default: the whole evaluation set up to 4096)
  --epochs N | --steps N   how long: passes over the data, or optimizer steps
                           (default: 1 epoch)
  --no-shuffle             keep the data order; else a new order per epoch
  --seed N                 the shuffling order and random ops (default 0)
  --drop-last              no short last batch per epoch
  --workers N, --prefetch N
                           data loader threads and batches prepared ahead
loss and optimizer:
  --output NAME            the model output the loss attaches to (default:
                           the first)
  --loss cross_entropy|nll|mse      (default cross_entropy)
  --reduction mean|sum     (default mean)
  --label-smoothing S, --ignore-index I
  --optimizer sgd|adam|adamw        (default adam)
  --lr X                   learning rate (default 0.001; the peak for
                           schedules)
  --momentum M, --nesterov, --weight-decay W, --beta1 B, --beta2 B, --eps E
  --schedule constant|step|cosine   (default constant)
  --step-size N, --gamma G          step: lr * gamma every N steps
  --warmup-steps N, --min-lr X      cosine: linear warm-up, then down to
                                    min-lr at the last step
  --accumulate N           sum the gradients of N batches per update
  --loss-scale dynamic|X   loss scaling (default 1: none)
state:
  --checkpoint FILE        write a checkpoint there at the end of every
                           epoch, every --checkpoint-every steps and at the end
  --checkpoint-every N
  --resume FILE            continue from a checkpoint: parameters, optimizer
                           state, step count, loss scale and data position
  --save-params FILE.npz   the final parameters and buffers, by name
output:
  --metrics FILE           one record per step and per evaluation (.csv or
                           .jsonl)
  --progress auto|bar|lines|none    (auto: a bar on a terminal, else lines)
  --log-every N            steps between progress lines (default: 10 lines
                           per run)
  --quiet                  no progress (the final lines are still printed)
compiling:
  --cache-dir DIR, --threads N
configuration:
  --config FILE            options from a file, one per line: `name value`,
                           `name = value` or a bare switch name, without the
                           dashes; `model PATH`; `#` comments. The command
                           line overrides it.

Prints the final loss and, with --eval and a class loss, a last line
`test accuracy: NN.N%`. Exit status: 0 on success, 1 on any error, 2 for a
malformed command line.
)";

const char *kGradUsage = R"(usage: nnc-run grad MODEL --inputs BATCH.npz --save FILE.npz [options]

Computes in training mode the loss of one batch (every array of BATCH.npz:
the graph inputs and the labels) and the gradient of every trainable
parameter, and writes `loss` and one gradient per parameter, named like it.

options: --labels NAME, --output NAME, --loss L, --reduction R,
  --label-smoothing S, --ignore-index I, --cache-dir DIR, --threads N
)";

struct Failure {
  std::string message;
  int exitCode = 1;
};

struct TrainerDeleter {
  void operator()(nnc_trainer_t *t) const { nnc_trainer_destroy(t); }
};
struct LoaderDeleter {
  void operator()(nnc_loader_t *l) const { nnc_loader_destroy(l); }
};
struct BatchDeleter {
  void operator()(nnc_batch_t *b) const { nnc_batch_destroy(b); }
};
using Trainer = std::unique_ptr<nnc_trainer_t, TrainerDeleter>;
using Loader = std::unique_ptr<nnc_loader_t, LoaderDeleter>;
using BatchHandle = std::unique_ptr<nnc_batch_t, BatchDeleter>;

/// The command line of both subcommands: flags with values, switches.
struct Args {
  std::string model;
  std::map<std::string, std::string> values;
  /// Every value of flags that may repeat (--data, --eval), in order.
  std::map<std::string, std::vector<std::string>> all;
  std::set<std::string> switches;
  bool has(const std::string &flag) const {
    return values.count(flag) || switches.count(flag);
  }
  std::string get(const std::string &flag, const std::string &def = "") const {
    auto it = values.find(flag);
    return it == values.end() ? def : it->second;
  }
};

bool parseArgs(int argc, char **argv, const std::set<std::string> &valued,
               const std::set<std::string> &flags, Args &args, bool &help,
               Failure &failure, bool modelOptional = false) {
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
  std::ifstream in(path);
  if (!in) {
    failure = {"cannot open config file '" + path +
               "': " + std::strerror(errno)};
    return false;
  }
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (size_t hash = line.find('#'); hash != std::string::npos)
      line.erase(hash);
    auto trim = [](std::string text) {
      size_t b = text.find_first_not_of(" \t\r");
      size_t e = text.find_last_not_of(" \t\r");
      return b == std::string::npos ? std::string()
                                    : text.substr(b, e - b + 1);
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
  nnc_context_t *rawContext = nullptr;
  if (nnc_status_t status = nnc_context_create(nullptr, &rawContext)) {
    failure = {takeMessage(status)};
    return false;
  }
  context.reset(rawContext);
  nnc_model_t *raw = nullptr;
  if (endsWith(path, ".onnx")) {
    if (nnc_status_t status = nnc_model_import_onnx_file(
            context.get(), path.c_str(), nullptr, &raw)) {
      failure = {takeMessage(status)};
      return false;
    }
  } else if (endsWith(path, ".mlir")) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      failure = {"cannot open model '" + path + "': " + std::strerror(errno)};
      return false;
    }
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    if (nnc_status_t status = nnc_model_parse_mlir(
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

/// The loss and optimizer flags shared by train and grad.
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
    failure = {"--optimizer must be sgd, adam or adamw, got '" + optimizer +
                   "'",
               2};
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
    failure = {"--schedule must be constant, step or cosine, got '" +
                   schedule + "'",
               2};
    return false;
  }
  if (o.schedule == NNC_LR_STEP && !args.has("--step-size")) {
    failure = {"--schedule step needs --step-size", 2};
    return false;
  }
  std::string scale = args.get("--loss-scale", "1");
  if (scale == "dynamic") {
    o.loss_scale = 0.0;
  } else {
    char *end = nullptr;
    o.loss_scale = std::strtod(scale.c_str(), &end);
    if (scale.empty() || *end || !(o.loss_scale > 0) ||
        !std::isfinite(o.loss_scale)) {
      failure = {"--loss-scale must be 'dynamic' or a positive number, got '" +
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
  return true;
}

bool makeTrainer(const Args &args, nnc_model_t *model,
                 nnc_train_options_t &options, Trainer &trainer,
                 Failure &failure) {
  nnc_compile_options_t compileOptions;
  std::string cacheDir;
  if (!fillCompileOptions(args, compileOptions, cacheDir, failure))
    return false;
  nnc_trainer_t *raw = nullptr;
  if (nnc_status_t status =
          nnc_trainer_create(model, &options, &compileOptions, &raw)) {
    failure = {takeMessage(status)};
    return false;
  }
  trainer.reset(raw);
  return true;
}

/// The names of the trainer's data tensors, the last (labels) renamed to
/// the --labels array.
std::vector<std::string> dataNames(nnc_trainer_t *trainer,
                                   const std::string &labels) {
  std::vector<std::string> names;
  size_t count = nnc_trainer_data_count(trainer);
  for (size_t i = 0; i < count; ++i) {
    const nnc_value_info_t *info = nullptr;
    nnc_status_destroy(nnc_trainer_data_info(trainer, i, &info));
    std::string name = info && info->name ? info->name
                                          : "input_" + std::to_string(i);
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
      failure = {"a .csv file feeds models with one graph input; this one has " +
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
                 std::string(input->name ? input->name : "input_0") +
                 "' is " + describe(*input)};
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
  if (nnc_status_t status =
          nnc_loader_create(names.size(), cnames.data(), tensors.data(),
                            &options, &raw)) {
    failure = {takeMessage(status)};
    return false;
  }
  out.reset(raw);
  return true;
}

/// Evaluation results over a whole .npz set.
struct EvalResult {
  int64_t samples = 0;
  int64_t correct = 0;       // class losses
  double squaredError = 0;   // mse
  int64_t elements = 0;      // mse
};

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
    if (nnc_status_t status = nnc_trainer_evaluate(
            trainer, inputs.size(), inputs.data(), outputs.size(),
            outputs.data())) {
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

std::string formatDuration(double seconds) {
  long s = static_cast<long>(seconds + 0.5);
  char text[32];
  if (s >= 3600)
    std::snprintf(text, sizeof(text), "%ld:%02ld:%02ld", s / 3600,
                  s / 60 % 60, s % 60);
  else
    std::snprintf(text, sizeof(text), "%ld:%02ld", s / 60, s % 60);
  return text;
}

/// The metrics log: CSV or JSON lines, one record per step or evaluation.
class MetricsLog {
public:
  bool open(const std::string &path, bool append, Failure &failure) {
    if (path.empty())
      return true;
    csv = endsWith(path, ".csv");
    if (!csv && !endsWith(path, ".jsonl")) {
      failure = {"--metrics file '" + path + "' must end in .csv or .jsonl",
                 2};
      return false;
    }
    bool exists = access(path.c_str(), F_OK) == 0;
    file = std::fopen(path.c_str(), append ? "a" : "w");
    if (!file) {
      failure = {"cannot open metrics file '" + path +
                 "': " + std::strerror(errno)};
      return false;
    }
    if (csv && (!append || !exists))
      std::fprintf(file, "kind,step,epoch,loss,learning_rate,loss_scale,"
                         "skipped,seconds,samples_per_second,eval_metric\n");
    return true;
  }
  ~MetricsLog() {
    if (file)
      std::fclose(file);
  }
  void step(int64_t step, int64_t epoch, const nnc_step_info_t &info,
            double seconds, double samplesPerSecond) {
    if (!file)
      return;
    if (csv)
      std::fprintf(file, "step,%lld,%lld,%.9g,%.9g,%.9g,%d,%.6f,%.1f,\n",
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
  void eval(int64_t step, int64_t epoch, const char *metric, double value) {
    if (!file)
      return;
    if (csv)
      std::fprintf(file, "eval,%lld,%lld,,,,,,,%.9g\n", (long long)step,
                   (long long)epoch, value);
    else
      std::fprintf(file,
                   "{\"kind\": \"eval\", \"step\": %lld, \"epoch\": %lld, "
                   "\"%s\": %.9g}\n",
                   (long long)step, (long long)epoch, metric, value);
    std::fflush(file);
  }

private:
  std::FILE *file = nullptr;
  bool csv = false;
};

int fail(const Failure &failure) {
  std::fprintf(stderr, "nnc-run: error: %s\n", failure.message.c_str());
  return failure.exitCode;
}

} // namespace

int nnc::tools::runTrain(int argc, char **argv) {
  static const std::set<std::string> valued = {
      "--data", "--eval", "--labels", "--batch-size", "--eval-batch-size",
      "--epochs", "--steps", "--seed", "--workers", "--prefetch", "--output",
      "--loss", "--reduction", "--label-smoothing", "--ignore-index",
      "--optimizer", "--lr", "--momentum", "--weight-decay", "--beta1",
      "--beta2", "--eps", "--schedule", "--step-size", "--gamma",
      "--warmup-steps", "--min-lr", "--accumulate", "--loss-scale",
      "--checkpoint", "--checkpoint-every", "--resume", "--save-params",
      "--metrics", "--progress", "--log-every", "--cache-dir", "--threads",
      "--label-column"};
  static const std::set<std::string> flags = {"--no-shuffle", "--drop-last",
                                              "--nesterov", "--quiet"};
  Args args;
  bool help = false;
  Failure failure;
  // A configuration file first; the command line overrides it (a flag that
  // repeats, like --data, replaces the file's values).
  std::string configPath;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--config")
      configPath = argv[i + 1];
  Args config;
  if (!configPath.empty() &&
      !readConfig(configPath, valued, flags, config, failure))
    return fail(failure);
  std::vector<char *> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--config" && i + 1 < argc) {
      ++i;
      continue;
    }
    rest.push_back(argv[i]);
  }
  if (!config.model.empty())
    args.model = config.model;
  if (!parseArgs(static_cast<int>(rest.size()), rest.data(), valued, flags,
                 args, help, failure, /*modelOptional=*/!config.model.empty()))
    return fail(failure);
  if (help) {
    std::fputs(kTrainUsage, stdout);
    return 0;
  }
  for (const auto &[flag, value] : config.values)
    if (!args.values.count(flag)) {
      args.values[flag] = value;
      args.all[flag] = config.all[flag];
    }
  args.switches.insert(config.switches.begin(), config.switches.end());
  if (!args.has("--data"))
    return fail({"--data FILE.npz is required (see --help)", 2});
  if (args.has("--epochs") && args.has("--steps"))
    return fail({"give --epochs or --steps, not both", 2});
  int64_t batchSize = 32, evalBatchSize = 0, epochs = 1, steps = 0,
          seed = 0, workers = 2, prefetch = 4, checkpointEvery = 0,
          logEvery = 0, labelColumn = -1;
  if (!parseInt(args, "--batch-size", 1, batchSize, failure) ||
      !parseInt(args, "--eval-batch-size", 1, evalBatchSize, failure) ||
      !parseInt(args, "--epochs", 1, epochs, failure) ||
      !parseInt(args, "--steps", 1, steps, failure) ||
      !parseInt(args, "--seed", 0, seed, failure) ||
      !parseInt(args, "--workers", 1, workers, failure) ||
      !parseInt(args, "--prefetch", 1, prefetch, failure) ||
      !parseInt(args, "--checkpoint-every", 1, checkpointEvery, failure) ||
      !parseInt(args, "--log-every", 1, logEvery, failure) ||
      !parseInt(args, "--label-column", INT64_MIN, labelColumn, failure))
    return fail(failure);
  nnc_train_options_t options;
  std::string output;
  if (!fillTrainOptions(args, options, output, failure))
    return fail(failure);
  options.seed = static_cast<uint64_t>(seed);
  std::string progress = args.get("--progress", "auto");
  if (progress != "auto" && progress != "bar" && progress != "lines" &&
      progress != "none")
    return fail({"--progress must be auto, bar, lines or none", 2});
  if (args.switches.count("--quiet"))
    progress = "none";
  if (progress == "auto")
    progress = isatty(STDERR_FILENO) ? "bar" : "lines";
  bool classLoss = options.loss != NNC_LOSS_MSE;
  std::string labelsName = args.get("--labels", "labels");

  Context context;
  Model model;
  if (!loadModel(args.model, context, model, failure))
    return fail(failure);

  // The data loader serves the trainer's data in its order.
  nnc_loader_options_t loaderOptions;
  nnc_loader_options_initialize(&loaderOptions);
  loaderOptions.batch_size = batchSize;
  loaderOptions.shuffle = !args.switches.count("--no-shuffle");
  loaderOptions.seed = static_cast<uint64_t>(seed);
  loaderOptions.drop_last = args.switches.count("--drop-last") != 0;
  loaderOptions.workers = static_cast<int32_t>(workers);
  loaderOptions.prefetch = static_cast<int32_t>(prefetch);

  // The cosine schedule ends at the last step, which depends on the data.
  Trainer trainer;
  Loader loader;
  int64_t totalSteps = 0;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (attempt == 1 || options.schedule != NNC_LR_COSINE) {
      if (!makeTrainer(args, model.get(), options, trainer, failure))
        return fail(failure);
    } else {
      // A provisional trainer only to learn the data names; the cosine
      // schedule needs total_steps >= 1 to be valid.
      options.total_steps = 1;
      options.warmup_steps = 0;
      if (!makeTrainer(args, model.get(), options, trainer, failure))
        return fail(failure);
    }
    std::vector<std::string> names = dataNames(trainer.get(), labelsName);
    if (!openLoader(args.all["--data"], names, trainer.get(), loaderOptions,
                    labelColumn, loader, failure))
      return fail(failure);
    int64_t perEpoch = nnc_loader_batches_per_epoch(loader.get());
    totalSteps = steps ? steps : epochs * perEpoch / options.accumulate;
    if (totalSteps < 1)
      return fail({"the data gives " + std::to_string(perEpoch) +
                       " batches per epoch, fewer than --accumulate " +
                       std::to_string(options.accumulate) + " per step",
                   2});
    if (options.schedule != NNC_LR_COSINE || attempt == 1)
      break;
    options.total_steps = totalSteps;
    int64_t warmup = 0;
    if (!parseInt(args, "--warmup-steps", 0, warmup, failure))
      return fail(failure);
    options.warmup_steps = std::min(warmup, totalSteps);
  }
  std::vector<std::string> names = dataNames(trainer.get(), labelsName);
  int64_t perEpoch = nnc_loader_batches_per_epoch(loader.get());

  // The evaluation set, in order, in batches as large as allowed.
  Loader evalLoader;
  int64_t outputIndex = 0, numOutputs = nnc_model_output_count(model.get());
  if (!output.empty()) {
    outputIndex = -1;
    for (int64_t k = 0; k < numOutputs; ++k) {
      const nnc_value_info_t *info = nullptr;
      nnc_status_destroy(nnc_model_output_info(model.get(), k, &info));
      if (info && info->name && output == info->name)
        outputIndex = k;
    }
  }
  if (args.has("--eval")) {
    nnc_loader_options_t evalOptions;
    nnc_loader_options_initialize(&evalOptions);
    evalOptions.shuffle = 0;
    evalOptions.workers = 1;
    evalOptions.batch_size = evalBatchSize ? evalBatchSize : 4096;
    if (!openLoader(args.all["--eval"], names, trainer.get(), evalOptions,
                    labelColumn, evalLoader, failure))
      return fail(failure);
  }

  // Resuming: the state and the data position the checkpoint recorded.
  if (args.has("--resume")) {
    std::string path = args.get("--resume");
    if (nnc_status_t status =
            nnc_trainer_load_checkpoint(trainer.get(), path.c_str()))
      return fail({takeMessage(status)});
    const char *epochText =
        nnc_trainer_checkpoint_metadata(trainer.get(), "data.epoch");
    const char *indexText =
        nnc_trainer_checkpoint_metadata(trainer.get(), "data.index");
    const char *batchText =
        nnc_trainer_checkpoint_metadata(trainer.get(), "data.batch_size");
    if (!epochText || !indexText || !batchText)
      return fail({"checkpoint '" + path +
                   "' has no data position (data.epoch, data.index)"});
    if (std::to_string(batchSize) != batchText)
      return fail({"checkpoint '" + path + "' was written with --batch-size " +
                       batchText + ", this run uses " +
                       std::to_string(batchSize),
                   2});
    if (nnc_status_t status = nnc_loader_seek(
            loader.get(), std::atoll(epochText), std::atoll(indexText)))
      return fail({takeMessage(status)});
  }

  MetricsLog metrics;
  if (!metrics.open(args.get("--metrics"), args.has("--resume"), failure))
    return fail(failure);
  std::string checkpointPath = args.get("--checkpoint");
  auto saveCheckpoint = [&]() -> bool {
    if (checkpointPath.empty())
      return true;
    int64_t epoch = 0, index = 0;
    nnc_loader_position(loader.get(), &epoch, &index);
    std::string e = std::to_string(epoch), i = std::to_string(index),
                b = std::to_string(batchSize);
    const char *keys[] = {"data.epoch", "data.index", "data.batch_size"};
    const char *values[] = {e.c_str(), i.c_str(), b.c_str()};
    if (nnc_status_t status = nnc_trainer_save_checkpoint(
            trainer.get(), checkpointPath.c_str(), 3, keys, values)) {
      failure = {takeMessage(status)};
      return false;
    }
    return true;
  };
  int64_t lastEvalStep = -1;
  double lastMetric = 0;
  auto runEval = [&](int64_t epoch, double &metric) -> bool {
    if (lastEvalStep == nnc_trainer_step_count(trainer.get())) {
      metric = lastMetric;
      return true;
    }
    EvalResult result;
    if (!evaluate(trainer.get(), evalLoader.get(), classLoss, outputIndex,
                  numOutputs, result, failure))
      return false;
    metric = classLoss ? 100.0 * result.correct / std::max<int64_t>(1, result.elements)
                       : result.squaredError /
                             std::max<int64_t>(1, result.elements);
    metrics.eval(nnc_trainer_step_count(trainer.get()), epoch,
                 classLoss ? "accuracy" : "mse", metric);
    lastEvalStep = nnc_trainer_step_count(trainer.get());
    lastMetric = metric;
    return true;
  };

  // The loop: one batch per trainer step call; `accumulate` calls make an
  // optimizer step.
  int64_t startStep = nnc_trainer_step_count(trainer.get());
  if (startStep >= totalSteps) {
    std::fprintf(stderr, "nnc-run: the checkpoint is at step %lld of %lld; "
                         "nothing to do\n",
                 (long long)startStep, (long long)totalSteps);
  }
  if (logEvery == 0)
    logEvery = std::max<int64_t>(1, totalSteps / 10);
  auto start = std::chrono::steady_clock::now();
  double computeSeconds = 0, lastLoss = NAN, epochLoss = 0;
  int64_t epochBatches = 0, samples = 0, skipped = 0;
  int64_t lastEpoch = -1;
  bool barDrawn = false;
  for (int64_t step = startStep; step < totalSteps;) {
    nnc_step_info_t info;
    std::memset(&info, 0, sizeof(info));
    info.struct_size = sizeof(info);
    int64_t epoch = 0;
    for (int64_t micro = 0; micro < options.accumulate; ++micro) {
      nnc_batch_t *raw = nullptr;
      if (nnc_status_t status = nnc_loader_next(loader.get(), &raw))
        return fail({takeMessage(status)});
      BatchHandle batch(raw);
      epoch = nnc_batch_epoch(batch.get());
      size_t count = nnc_batch_tensor_count(batch.get());
      std::vector<const nnc_tensor_t *> data;
      for (size_t i = 0; i < count; ++i)
        data.push_back(nnc_batch_tensor(batch.get(), i));
      if (nnc_status_t status =
              nnc_trainer_step(trainer.get(), data.size(), data.data(), &info))
        return fail({takeMessage(status)});
      computeSeconds += info.seconds;
      samples += nnc_batch_size(batch.get());
      epochLoss += info.loss;
      ++epochBatches;
      if (!std::isfinite(info.loss) && options.loss_scale != 0.0)
        std::fprintf(stderr, "nnc-run: warning: the loss is %g at step %lld\n",
                     info.loss, (long long)step + 1);
    }
    lastLoss = info.loss;
    skipped += info.skipped;
    int64_t done = info.step;
    // A skipped step (non-finite gradients) is retried on the next batches.
    step = done;
    if (info.skipped && options.loss_scale != 0.0 && skipped > 100)
      return fail({"more than 100 steps had non-finite gradients; the loss "
                   "diverged"});
    double elapsed = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    double rate = samples / std::max(elapsed, 1e-9);
    metrics.step(done, epoch, info, info.seconds, rate);
    double eta = (totalSteps - done) * elapsed /
                 std::max<int64_t>(1, done - startStep);
    if (progress == "bar") {
      int width = 30;
      int filled = static_cast<int>(width * done / totalSteps);
      std::fprintf(stderr,
                   "\r[%s%s] step %lld/%lld  loss %.4f  %.0f samples/s  "
                   "ETA %s ",
                   std::string(filled, '#').c_str(),
                   std::string(width - filled, '.').c_str(), (long long)done,
                   (long long)totalSteps, info.loss, rate,
                   formatDuration(eta).c_str());
      barDrawn = true;
    } else if (progress == "lines" &&
               (done % logEvery == 0 || done == totalSteps)) {
      std::fprintf(stderr,
                   "step %lld/%lld: loss %.4f, lr %.3g, %.0f samples/s, "
                   "ETA %s\n",
                   (long long)done, (long long)totalSteps, info.loss,
                   info.learning_rate, rate, formatDuration(eta).c_str());
    }
    // The end of an epoch: evaluate and checkpoint.
    int64_t nextEpoch = 0, nextIndex = 0;
    nnc_loader_position(loader.get(), &nextEpoch, &nextIndex);
    bool epochEnd = nextIndex == 0 && nextEpoch != lastEpoch;
    if (epochEnd || done == totalSteps) {
      if (barDrawn) {
        std::fputc('\n', stderr);
        barDrawn = false;
      }
      lastEpoch = nextEpoch;
      std::string line = "epoch " + std::to_string(epoch + 1) +
                         ": train loss " +
                         std::to_string(epochLoss / std::max<int64_t>(
                                                        1, epochBatches));
      if (evalLoader && epochEnd) {
        double metric = 0;
        if (!runEval(epoch + 1, metric))
          return fail(failure);
        char text[64];
        std::snprintf(text, sizeof(text), classLoss ? ", eval accuracy %.1f%%"
                                                    : ", eval mse %.6g",
                      metric);
        line += text;
      }
      if (progress != "none")
        std::fprintf(stderr, "%s\n", line.c_str());
      epochLoss = 0;
      epochBatches = 0;
      if (epochEnd && !saveCheckpoint())
        return fail(failure);
    }
    if (checkpointEvery && done % checkpointEvery == 0 && !saveCheckpoint())
      return fail(failure);
  }
  if (!saveCheckpoint())
    return fail(failure);
  if (args.has("--save-params") &&
      !writeParams(trainer.get(), args.get("--save-params"), failure))
    return fail(failure);
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("trained %lld steps (%lld samples) in %.1f s (%.1f s in the "
              "training step, %.2f s waiting for data)%s\n",
              (long long)(nnc_trainer_step_count(trainer.get()) - startStep),
              (long long)samples, elapsed, computeSeconds,
              nnc_loader_wait_seconds(loader.get()),
              skipped ? (", " + std::to_string(skipped) +
                         " skipped for non-finite gradients")
                            .c_str()
                      : "");
  std::printf("final loss: %.6g\n", lastLoss);
  if (evalLoader) {
    double metric = 0;
    if (!runEval(lastEpoch, metric))
      return fail(failure);
    if (classLoss)
      std::printf("test accuracy: %.1f%%\n", metric);
    else
      std::printf("test mse: %.6g\n", metric);
  }
  (void)perEpoch;
  return 0;
}

int nnc::tools::runGrad(int argc, char **argv) {
  static const std::set<std::string> valued = {
      "--inputs", "--save", "--labels", "--output", "--loss", "--reduction",
      "--label-smoothing", "--ignore-index", "--cache-dir", "--threads"};
  Args args;
  bool help = false;
  Failure failure;
  if (!parseArgs(argc, argv, valued, {}, args, help, failure))
    return fail(failure);
  if (help) {
    std::fputs(kGradUsage, stdout);
    return 0;
  }
  if (!args.has("--inputs") || !args.has("--save"))
    return fail({"--inputs BATCH.npz and --save FILE.npz are required", 2});
  nnc_train_options_t options;
  std::string output;
  if (!fillTrainOptions(args, options, output, failure))
    return fail(failure);
  Context context;
  Model model;
  if (!loadModel(args.model, context, model, failure))
    return fail(failure);
  Trainer trainer;
  if (!makeTrainer(args, model.get(), options, trainer, failure))
    return fail(failure);
  std::vector<std::string> names =
      dataNames(trainer.get(), args.get("--labels", "labels"));

  size_t count = 0;
  char **arrayNames = nullptr;
  nnc_tensor_t **arrays = nullptr;
  if (nnc_status_t status = nnc_npz_read(args.get("--inputs").c_str(), &count,
                                         &arrayNames, &arrays))
    return fail({takeMessage(status)});
  std::vector<Tensor> owned;
  std::map<std::string, nnc_tensor_t *> byName;
  for (size_t i = 0; i < count; ++i) {
    owned.emplace_back(arrays[i]);
    byName[arrayNames[i]] = arrays[i];
    nnc_string_destroy(arrayNames[i]);
  }
  nnc_array_destroy(arrayNames);
  nnc_array_destroy(arrays);
  std::vector<const nnc_tensor_t *> data;
  for (const std::string &name : names) {
    auto it = byName.find(name);
    if (it == byName.end())
      return fail({args.get("--inputs") + " has no array '" + name + "'"});
    data.push_back(it->second);
  }

  std::vector<std::string> paramNames;
  size_t numParams = nnc_trainer_parameter_count(trainer.get());
  for (size_t i = 0; i < numParams; ++i) {
    const nnc_value_info_t *info = nullptr;
    nnc_status_destroy(nnc_trainer_parameter(trainer.get(), i, &info, nullptr));
    if (info && info->kind == NNC_VALUE_TRAINABLE)
      paramNames.push_back(info->name ? info->name : "");
  }
  std::vector<nnc_tensor_t *> gradients(paramNames.size(), nullptr);
  double loss = 0;
  if (nnc_status_t status = nnc_trainer_gradients(
          trainer.get(), data.size(), data.data(), &loss, gradients.size(),
          gradients.data()))
    return fail({takeMessage(status)});
  std::vector<Tensor> grads;
  for (nnc_tensor_t *g : gradients)
    grads.emplace_back(g);

  // loss first, then the gradients by parameter name.
  int64_t none = 0;
  nnc_tensor_t *lossTensor = nullptr;
  if (nnc_status_t status =
          nnc_tensor_create(NNC_DTYPE_F32, 0, &none, &lossTensor))
    return fail({takeMessage(status)});
  Tensor lossOwned(lossTensor);
  float lossValue = static_cast<float>(loss);
  std::memcpy(nnc_tensor_data(lossTensor), &lossValue, sizeof(float));
  std::vector<const char *> cnames{"loss"};
  std::vector<const nnc_tensor_t *> tensors{lossTensor};
  for (size_t i = 0; i < grads.size(); ++i) {
    cnames.push_back(paramNames[i].c_str());
    tensors.push_back(grads[i].get());
  }
  if (nnc_status_t status = nnc_npz_write(args.get("--save").c_str(),
                                          cnames.size(), cnames.data(),
                                          tensors.data()))
    return fail({takeMessage(status)});
  std::printf("loss: %.6f\n", loss);
  return 0;
}
