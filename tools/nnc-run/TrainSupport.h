//===- TrainSupport.h - the pieces of nnc-run train and grad ----*- C++ -*-===//
//
// What Train.cpp (the subcommands) uses from TrainArgs.cpp (the command
// line, configuration files, options, the model and trainer) and
// TrainData.cpp (data loaders from .npz, .npy and CSV, evaluation, the
// metrics log, parameters). Clients of the C API only.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TOOLS_NNC_RUN_TRAINSUPPORT_H
#define NNC_TOOLS_NNC_RUN_TRAINSUPPORT_H

#include "nnc-c/nnc.h"

#include "../common/CAPIHelpers.h"
#include "../common/FileHelpers.h"
#include "CompilerLibrary.h"
#include "Plot.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

namespace nnc::tools::train {

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
struct MonitorDeleter {
  void operator()(nnc_monitor_t *m) const { nnc_monitor_destroy(m); }
};
using Trainer = std::unique_ptr<nnc_trainer_t, TrainerDeleter>;
using MonitorHandle = std::unique_ptr<nnc_monitor_t, MonitorDeleter>;
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

/// Evaluation results over a whole .npz set.
struct EvalResult {
  int64_t samples = 0;
  int64_t correct = 0;     // class losses
  double squaredError = 0; // mse
  int64_t elements = 0;    // mse
};

/// The metrics log: CSV or JSON lines, one record per step, evaluation,
/// monitor interval and piece of advice (docs/Training.md lists the
/// fields). Records may also be kept in memory (for --plot).
class MetricsLog {
public:
  /// The CSV's columns; a record leaves the others empty.
  static constexpr const char *kCsvHeader =
      "kind,step,epoch,loss,learning_rate,loss_scale,skipped,seconds,"
      "samples_per_second,eval_metric,busy,data_wait,other,"
      "planned_peak_bytes,rss_bytes,memory_available_bytes,text";

  bool open(const std::string &path, bool append, Failure &failure);
  ~MetricsLog() {
    if (file)
      std::fclose(file);
  }
  void step(int64_t step, int64_t epoch, const nnc_step_info_t &info,
            double seconds, double samplesPerSecond);
  void eval(int64_t step, int64_t epoch, const char *metric, double value);
  void interval(int64_t epoch, const nnc_interval_stats_t &stats);
  void advice(int64_t step, int64_t epoch, const char *topic,
              const std::string &text);
  /// Also keeps the records in `run` (borrowed), for a plot.
  void keep(MetricsRun *run) { kept = run; }

private:
  std::FILE *file = nullptr;
  bool csv = false;
  MetricsRun *kept = nullptr;
};

bool parseArgs(int argc, char **argv, const std::set<std::string> &valued,
               const std::set<std::string> &flags, Args &args, bool &help,
               Failure &failure, bool modelOptional = false);
/// Reads a configuration file: one option per line, `name value`,
/// `name = value` or a bare `name` for a switch (without the leading --),
/// `#` comments; `model` names the model. Fills `args` as the command line
/// would.
bool readConfig(const std::string &path, const std::set<std::string> &valued,
                const std::set<std::string> &flags, Args &args,
                Failure &failure);
/// Bytes with an optional unit: "4000000", "64MiB", "64MB", "512K", "2G".
bool parseBytes(const std::string &text, uint64_t &out);
bool parseInt(const Args &args, const std::string &flag, int64_t min,
              int64_t &out, Failure &failure);
bool parseReal(const Args &args, const std::string &flag, double &out,
               Failure &failure);
bool endsWith(const std::string &s, const std::string &suffix);
bool loadModel(const std::string &path, Context &context, Model &model,
               Failure &failure);
/// The loss and optimizer flags shared by train and grad.
bool fillTrainOptions(const Args &args, nnc_train_options_t &o,
                      std::string &output, Failure &failure);
bool fillCompileOptions(const Args &args, nnc_compile_options_t &c,
                        std::string &cacheDir, Failure &failure);

/// Prints the figures of the trainer's latest training step executable
/// (`--report`).
/// The last step a run skipped for non-finite gradients.
struct SkippedStep {
  int64_t step = 0;
  double lossScale = 0;
  std::string nonFinite; // the first non-finite value, as the trainer named it
  double probeSeconds = 0;
  double allProbeSeconds = 0; // of every skipped step of the run
};

void printStepReport(const nnc_trainer_t *trainer, int64_t skipped,
                     const SkippedStep &lastSkip);

bool makeTrainer(const Args &args, nnc_model_t *model,
                 nnc_train_options_t &options, Trainer &trainer,
                 Failure &failure);
std::vector<std::string> dataNames(nnc_trainer_t *trainer,
                                   const std::string &labels);
bool writeParams(nnc_trainer_t *trainer, const std::string &path,
                 Failure &failure);
/// Opens a loader over the data given by `specs` (the values of --data or
/// --eval) for the trainer's data `names` (graph inputs, then labels): one
/// FILE.npz with arrays by name; NAME=FILE.npy for each array; or one
/// FILE.csv whose column `labelColumn` (negative: from the end) holds the
/// labels and whose other columns, reshaped to the graph input, the
/// features.
bool openLoader(const std::vector<std::string> &specs,
                const std::vector<std::string> &names, nnc_trainer_t *trainer,
                const nnc_loader_options_t &options, int64_t labelColumn,
                Loader &out, Failure &failure);
bool evaluate(nnc_trainer_t *trainer, nnc_loader_t *loader, bool classLoss,
              int64_t outputIndex, int64_t numOutputs, EvalResult &result,
              Failure &failure);
std::string formatDuration(double seconds);
/// "busy 91 %, data 2 %, other 7 %": the shares of an interval's wall time.
std::string formatShares(const nnc_interval_stats_t &stats);
/// "planned peak 1.8 MB, resident 95.3 MB of 24.0 GB".
std::string formatMemory(const nnc_interval_stats_t &stats);
/// What the memory advice adds: the planned peaks the compiler gives the
/// step under --memory-budget, --amp bf16 and --accumulate for data shaped
/// like `batch`, or why there are none.
std::string memoryAlternatives(nnc_trainer_t *trainer, const nnc_batch_t *batch,
                               bool savedTrainer,
                               const nnc_train_options_t &options,
                               int64_t batchSize);
int fail(const Failure &failure);
/// What fail() puts before "error:" ("rank 1: " in a data-parallel run).
void setFailurePrefix(const std::string &prefix);

} // namespace nnc::tools::train

#endif // NNC_TOOLS_NNC_RUN_TRAINSUPPORT_H
