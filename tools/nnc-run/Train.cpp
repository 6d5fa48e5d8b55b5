//===- Train.cpp - nnc-run train and nnc-run grad -------------------------===//
//
// `nnc-run train`: trains a model with a compiled training step on data a
// loader prepares (trainer, loader, checkpoints and metrics all through the
// C API); `nnc-run grad`: the loss and gradients of one batch.
//
//===----------------------------------------------------------------------===//

#include "Train.h"

#include "Launch.h"
#include "TrainSupport.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <unistd.h>

using namespace nnc::tools;
using namespace nnc::tools::train;

namespace {

/// The data files as every rank must see them: per file its name, size and
/// an FNV-1a hash of its first and last MiB (cheap for large files; the
/// files' own formats check the rest).
std::string dataSignature(const std::vector<std::string> &specs) {
  std::string out;
  for (const std::string &spec : specs) {
    std::string path = spec.substr(spec.find('=') + 1);
    std::string name = path.substr(path.find_last_of('/') + 1);
    out += (out.empty() ? "" : ", ") + name;
    FILE *file = std::fopen(path.c_str(), "rb");
    if (!file) {
      out += " (unreadable)";
      continue;
    }
    std::fseek(file, 0, SEEK_END);
    long size = std::ftell(file);
    uint64_t hash = 1469598103934665603ull;
    std::vector<unsigned char> chunk(1 << 20);
    for (long from : {0L, std::max(0L, size - long(chunk.size()))}) {
      std::fseek(file, from, SEEK_SET);
      size_t got = std::fread(chunk.data(), 1, chunk.size(), file);
      for (size_t i = 0; i < got; ++i)
        hash = (hash ^ chunk[i]) * 1099511628211ull;
      if (size <= long(chunk.size()))
        break;
    }
    std::fclose(file);
    char text[64];
    std::snprintf(text, sizeof(text), " (%ld bytes, %016llx)", size,
                  (unsigned long long)hash);
    out += text;
  }
  return out;
}

const char *kTrainUsage =
    R"(usage: nnc-run train MODEL --data FILE.npz [options]
       nnc-run train [MODEL] --config FILE [options]

MODEL is an ONNX or .mlir model, or a saved trainer (.nncx, from
--save-trainer), which goes on training with the runtime alone: its loss,
optimizer, schedule, accumulation and compile options are its own, and it
runs the batch shapes it was saved with.

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
                           (default: 1 epoch); --steps 0 with --save-trainer
                           compiles the step for the first batch's shape and
                           saves the untrained trainer (to train elsewhere
                           from the runtime alone, e.g. on a GPU machine)
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
  --amp bf16|f16|off       mixed precision (docs/Training.md): the forward
                           and backward of matrix products and convolutions
                           in bf16 or f16, f32 master weights, gradients and
                           optimizer
  --amp-low-ops OPS, --amp-f32-ops OPS
                           op kinds (nnc.add,nnc.mul) moved to the low type
                           or to f32 against the policy
  --no-weight-copies       with --amp, round the f32 weights in every step
                           instead of keeping low-precision copies made by
                           the optimizer's update
  --loss-scale dynamic|off|X
                           loss scaling (default: dynamic with --amp f16,
                           else off)
  --memory-budget B        the training step's planned peak at most B
                           bytes (64MiB, 512K) or that fraction of the peak
                           planned without recomputation (0.5, 50%); the
                           compiler recomputes forward values in backward
                           to fit (docs/Rematerialization.md); --report
                           shows the choice
  --no-name-nonfinite      do not name the first non-finite value of a
                           skipped step (naming it compiles a probe on the
                           first skip per batch shape and reruns the batch)
data parallel (docs/Distributed.md):
  --nproc N                train as N ranks on this machine (processes
                           joined over Gloo on 127.0.0.1), each on its own
                           shard of every epoch with --batch-size rows per
                           step; the gradients are averaged before every
                           update. Under a launcher (torchrun, srun, mpirun)
                           leave it out: RANK, WORLD_SIZE, MASTER_ADDR,
                           MASTER_PORT (or Slurm's, Open MPI's) say the rank
  --master-port P          --nproc: the rendezvous port (default: a free one)
  --bucket-size B          gradient bucket bytes (default 25MiB)
  --dist-timeout SECONDS   every collective's limit (default 300): a rank
                           that dies or stalls fails the others within it
  --no-broadcast-buffers   keep each rank's batch-norm running statistics
                           (default: rank 0's after every step, as DDP)
  --no-overlap             all-reduce the gradients after backward, not
                           bucket by bucket while it runs (to compare)
  --sync-bn                batch normalization with the statistics of the
                           global batch (all ranks), as SyncBatchNorm
state:
  --checkpoint FILE        write a checkpoint there at the end of every
                           epoch, every --checkpoint-every steps and at the end
  --checkpoint-every N
  --resume FILE            continue from a checkpoint: parameters, optimizer
                           state, step count, loss scale and data position
  --save-params FILE.npz   the final parameters and buffers, by name
  --save-trainer FILE      the trainer at the end, with its compiled steps
                           (and evaluation) for the shapes it ran, as an
                           executable that training from libnnc_runtime
                           alone continues (nnc_trainer_load_file)
output:
  --metrics FILE           one record per step and per evaluation (.csv or
                           .jsonl)
  --profile                at the end, a table of the time per kernel,
                           compile, step, data wait and checkpoint write
  --report                 the training step's figures: kernels, library
                           calls, arena and peak bytes, bytes moved, and the
                           same unfused; host peak RSS
  --no-fuse                compile one kernel per op (to compare)
  --autotune MODE          off | cached (default) | on | require: kernel
                           choices measured on this machine, kept in the
                           tuning database (docs/Autotuning.md)
  --tuning-db FILE         the tuning database (default: tuning.nnctune in
                           the cache folder; "" for none)
  --tuning-budget SECONDS  what --autotune=on may spend measuring per
                           compile (default 120)
  --target T               what to compile the steps for: cpu (default),
                           cuda, cuda:sm_XX, cuda:N (docs/CUDABackend.md)
  --cuda-graph             run each compiled step as a CUDA graph, recorded
                           on its first run and replayed after (--target
                           cuda, or a saved CUDA trainer)
  --no-library-kernels     generated code only: no oneDNN convolutions on
                           the CPU, no cuBLASLt GEMMs on CUDA (to compare)
  --trace FILE             those events as a Chrome/Perfetto trace (JSON)
  --plot FILE.svg          at the end, the run's curves (loss, evaluation,
                           learning rate, throughput, time waiting for
                           data) as one self-contained SVG file
  --no-advice              no advice: by default a run says once when data
                           loading stalls the step, memory nears its limit
                           (with what --memory-budget, --amp and
                           --accumulate would make of the planned peak) or
                           a few kernels dominate the step
  --memory-limit B         the memory the figures and the advice compare
                           with (64MiB, 2G; default: the cgroup's limit,
                           else the physical memory)
  --data-delay MS          each batch takes MS milliseconds longer to
                           gather (on the loader's workers): a slow loader,
                           to see what the monitor says of one
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

Progress lines say, per interval, the samples per second, the shares of the
wall time spent in the compiled step (busy), waiting for data and in
everything else, the step's planned peak and the resident memory against
what is available; the metrics log has them as "interval" records.

Prints the final loss and, with --eval and a class loss, a last line
`test accuracy: NN.N%`. Exit status: 0 on success, 1 on any error, 2 for a
malformed command line.
)";

const char *kGradUsage =
    R"(usage: nnc-run grad MODEL --inputs BATCH.npz --save FILE.npz [options]

Computes in training mode the loss of one batch (every array of BATCH.npz:
the graph inputs and the labels) and the gradient of every trainable
parameter, and writes `loss` and one gradient per parameter, named like it.

options: --labels NAME, --output NAME, --loss L, --reduction R,
  --label-smoothing S, --ignore-index I, --cache-dir DIR, --threads N,
  --target T
)";

} // namespace

int nnc::tools::runTrain(int argc, char **argv) {
  static const std::set<std::string> valued = {"--data",
                                               "--eval",
                                               "--labels",
                                               "--batch-size",
                                               "--eval-batch-size",
                                               "--epochs",
                                               "--steps",
                                               "--seed",
                                               "--workers",
                                               "--prefetch",
                                               "--output",
                                               "--loss",
                                               "--reduction",
                                               "--label-smoothing",
                                               "--ignore-index",
                                               "--optimizer",
                                               "--lr",
                                               "--momentum",
                                               "--weight-decay",
                                               "--beta1",
                                               "--beta2",
                                               "--eps",
                                               "--schedule",
                                               "--step-size",
                                               "--gamma",
                                               "--warmup-steps",
                                               "--min-lr",
                                               "--accumulate",
                                               "--loss-scale",
                                               "--memory-budget",
                                               "--checkpoint",
                                               "--checkpoint-every",
                                               "--resume",
                                               "--save-params",
                                               "--save-trainer",
                                               "--metrics",
                                               "--progress",
                                               "--log-every",
                                               "--cache-dir",
                                               "--threads",
                                               "--autotune",
                                               "--tuning-db",
                                               "--tuning-budget",
                                               "--amp",
                                               "--amp-low-ops",
                                               "--amp-f32-ops",
                                               "--label-column",
                                               "--trace",
                                               "--plot",
                                               "--memory-limit",
                                               "--data-delay",
                                               "--nproc",
                                               "--master-port",
                                               "--bucket-size",
                                               "--dist-timeout",
                                               "--target"};
  static const std::set<std::string> flags = {"--no-shuffle",
                                              "--drop-last",
                                              "--nesterov",
                                              "--quiet",
                                              "--no-name-nonfinite",
                                              "--no-weight-copies",
                                              "--profile",
                                              "--report",
                                              "--no-fuse",
                                              "--no-library-kernels",
                                              "--cuda-graph",
                                              "--no-advice",
                                              "--no-broadcast-buffers",
                                              "--no-overlap",
                                              "--sync-bn"};
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
  int64_t batchSize = 32, evalBatchSize = 0, epochs = 1, steps = 0, seed = 0,
          workers = 2, prefetch = 4, checkpointEvery = 0, logEvery = 0,
          labelColumn = -1, dataDelayMs = 0;
  if (!parseInt(args, "--batch-size", 1, batchSize, failure) ||
      !parseInt(args, "--eval-batch-size", 1, evalBatchSize, failure) ||
      !parseInt(args, "--epochs", 1, epochs, failure) ||
      !parseInt(args, "--steps", 0, steps, failure) ||
      !parseInt(args, "--seed", 0, seed, failure) ||
      !parseInt(args, "--workers", 1, workers, failure) ||
      !parseInt(args, "--prefetch", 1, prefetch, failure) ||
      !parseInt(args, "--checkpoint-every", 1, checkpointEvery, failure) ||
      !parseInt(args, "--log-every", 1, logEvery, failure) ||
      !parseInt(args, "--label-column", INT64_MIN, labelColumn, failure) ||
      !parseInt(args, "--data-delay", 0, dataDelayMs, failure))
    return fail(failure);
  uint64_t memoryLimit = 0;
  if (args.has("--memory-limit") &&
      !parseBytes(args.get("--memory-limit"), memoryLimit))
    return fail({"--memory-limit must be bytes (4000000, 64MiB, 2G), got '" +
                     args.get("--memory-limit") + "'",
                 2});
  std::string plotPath = args.get("--plot");
  if (args.has("--plot") && !endsWith(plotPath, ".svg"))
    return fail({"--plot file '" + plotPath + "' must end in .svg", 2});
  bool advise = !args.switches.count("--no-advice");

  // Data parallel: --nproc starts the ranks (this process only waits for
  // them); a rank learns its place from the launcher's variables.
  int64_t nproc = 1, masterPort = 0;
  double distTimeout = 300;
  uint64_t bucketBytes = uint64_t(25) << 20;
  if (!parseInt(args, "--nproc", 1, nproc, failure) ||
      !parseInt(args, "--master-port", 1, masterPort, failure) ||
      (args.has("--dist-timeout") &&
       !parseReal(args, "--dist-timeout", distTimeout, failure)))
    return fail(failure);
  if (masterPort > 65535)
    return fail({"--master-port must be in 1..65535", 2});
  if (!(distTimeout > 0) || distTimeout > 1e6)
    return fail({"--dist-timeout must be a positive number of seconds", 2});
  if (args.has("--bucket-size") &&
      (!parseBytes(args.get("--bucket-size"), bucketBytes) || bucketBytes < 1))
    return fail({"--bucket-size must be bytes (4000000, 25MiB), got '" +
                     args.get("--bucket-size") + "'",
                 2});
  bool launched = std::getenv("NNC_RUN_LAUNCHED") != nullptr;
  if (nproc > 1 && !launched) {
    if (std::getenv("RANK") || std::getenv("SLURM_PROCID") ||
        std::getenv("OMPI_COMM_WORLD_RANK"))
      return fail({"--nproc starts its own ranks; under a launcher (RANK, "
                   "SLURM_PROCID or OMPI_COMM_WORLD_RANK is set) leave it out",
                   2});
    std::vector<std::string> arguments{"nnc-run"};
    for (int i = 0; i < argc; ++i)
      arguments.push_back(argv[i]);
    setenv("NNC_RUN_LAUNCHED", "1", 1);
    return launchLocalRanks(static_cast<int>(nproc),
                            static_cast<int>(masterPort), 10.0, arguments);
  }
  nnc_distributed_options_t distOptions;
  nnc_distributed_options_initialize(&distOptions);
  distOptions.timeout_seconds = distTimeout;
  distOptions.bucket_bytes = static_cast<int64_t>(bucketBytes);
  distOptions.broadcast_buffers =
      !args.switches.count("--no-broadcast-buffers");
  distOptions.overlap = !args.switches.count("--no-overlap");
  nnc_distributed_info_t launch;
  launch.struct_size = sizeof(launch);
  if (nnc_status_t status = nnc_distributed_launch(&distOptions, &launch))
    return fail({takeMessage(status), 2});
  const int rank = launch.rank, world = launch.world_size;
  // Rank 0 speaks for the run: it alone prints, logs, evaluates and writes
  // files; the other ranks report only their errors.
  const bool lead = rank == 0;
  // Before what a rank says on stderr: its errors, warnings, skipped steps.
  const std::string rankPrefix =
      world > 1 ? "rank " + std::to_string(rank) + ": " : "";
  if (world > 1) {
    setFailurePrefix(rankPrefix);
    if (!lead && !std::freopen("/dev/null", "w", stdout))
      return fail(
          {"cannot silence the output of rank " + std::to_string(rank)});
  }
  nnc_train_options_t options;
  std::string output;
  if (!fillTrainOptions(args, options, output, failure))
    return fail(failure);
  options.seed = static_cast<uint64_t>(seed);
  std::string progress = args.get("--progress", "auto");
  if (progress != "auto" && progress != "bar" && progress != "lines" &&
      progress != "none")
    return fail({"--progress must be auto, bar, lines or none", 2});
  if (args.switches.count("--quiet") || !lead)
    progress = "none";
  if (progress == "auto")
    progress = isatty(STDERR_FILENO) ? "bar" : "lines";
  bool classLoss = options.loss != NNC_LOSS_MSE;
  std::string labelsName = args.get("--labels", "labels");

  bool profiling =
      lead && (args.switches.count("--profile") || args.has("--trace"));
  if (profiling)
    nnc_profiler_start();

  // A saved trainer brings its own training configuration; flags that
  // would change it are refused rather than ignored.
  bool savedTrainer = endsWith(args.model, ".nncx");
  const bool compileOnly = args.has("--steps") && steps == 0;
  if (compileOnly && (savedTrainer || !args.has("--save-trainer")))
    return fail({savedTrainer ? "--steps 0 compiles a model's training step; "
                                "a saved trainer is compiled already"
                              : "--steps 0 compiles the training step without "
                                "training: give --save-trainer FILE",
                 2});
  if (savedTrainer)
    for (const char *flag : {"--loss",
                             "--reduction",
                             "--label-smoothing",
                             "--ignore-index",
                             "--output",
                             "--optimizer",
                             "--lr",
                             "--momentum",
                             "--nesterov",
                             "--weight-decay",
                             "--beta1",
                             "--beta2",
                             "--eps",
                             "--schedule",
                             "--step-size",
                             "--gamma",
                             "--warmup-steps",
                             "--min-lr",
                             "--accumulate",
                             "--loss-scale",
                             "--memory-budget",
                             "--sync-bn",
                             "--cache-dir",
                             "--threads",
                             "--no-fuse",
                             "--no-library-kernels",
                             "--target"})
      if (args.has(flag))
        return fail({std::string(flag) + " is fixed by the saved trainer '" +
                         args.model + "'",
                     2});

  Context context;
  Model model;
  if (!savedTrainer && !loadModel(args.model, context, model, failure))
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
  loaderOptions.shard_index = rank;
  loaderOptions.shard_count = world;
  if (dataDelayMs > 0) {
    loaderOptions.transform_user_data = &dataDelayMs;
    loaderOptions.transform = [](void *delay, int64_t, int64_t, size_t,
                                 nnc_tensor_t *const *) -> int32_t {
      usleep(static_cast<useconds_t>(*static_cast<int64_t *>(delay) * 1000));
      return 0;
    };
  }

  // The cosine schedule ends at the last step, which depends on the data.
  Trainer trainer;
  Loader loader;
  int64_t totalSteps = 0;
  if (savedTrainer) {
    nnc_trainer_t *raw = nullptr;
    if (nnc_status_t status = nnc_trainer_load_file(args.model.c_str(), &raw))
      return fail({takeMessage(status)});
    trainer.reset(raw);
    if (args.has("--cuda-graph"))
      if (nnc_status_t status = nnc_trainer_enable_cuda_graph(raw))
        return fail({takeMessage(status)});
    nnc_trainer_info_t info;
    info.struct_size = sizeof(info);
    if (nnc_status_t status = nnc_trainer_info(trainer.get(), &info))
      return fail({takeMessage(status)});
    options.accumulate = info.accumulate;
    // The cosine schedule's length is the saved trainer's own.
    options.schedule = NNC_LR_CONSTANT;
    classLoss = info.class_loss != 0;
  }
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (savedTrainer) {
      // Loaded above.
    } else if (attempt == 1 || options.schedule != NNC_LR_COSINE) {
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

  // The evaluation set, in order, in batches as large as allowed.
  Loader evalLoader;
  int64_t outputIndex = 0,
          numOutputs = savedTrainer
                           ? static_cast<int64_t>(
                                 nnc_trainer_output_count(trainer.get()))
                           : compiler().nnc_model_output_count(model.get());
  if (savedTrainer) {
    nnc_trainer_info_t info;
    info.struct_size = sizeof(info);
    nnc_status_destroy(nnc_trainer_info(trainer.get(), &info));
    outputIndex = static_cast<int64_t>(info.loss_output);
  } else if (!output.empty()) {
    outputIndex = -1;
    for (int64_t k = 0; k < numOutputs; ++k) {
      const nnc_value_info_t *info = nullptr;
      nnc_status_destroy(
          compiler().nnc_model_output_info(model.get(), k, &info));
      if (info && info->name && output == info->name)
        outputIndex = k;
    }
  }
  if (args.has("--eval") && lead) {
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
    // A checkpoint of another world size resumes at the first batch that
    // holds no sample its run had reached in that epoch.
    const char *worldText =
        nnc_trainer_checkpoint_metadata(trainer.get(), "data.world_size");
    int64_t savedWorld = worldText ? std::atoll(worldText) : 1;
    int64_t epochAt = std::atoll(epochText), indexAt = std::atoll(indexText);
    if (savedWorld != world && savedWorld > 0) {
      int64_t rows = indexAt * batchSize * savedWorld;
      indexAt = (rows + batchSize * world - 1) / (batchSize * world);
      if (indexAt >= nnc_loader_batches_per_epoch(loader.get())) {
        ++epochAt;
        indexAt = 0;
      }
      if (lead)
        std::fprintf(stderr,
                     "nnc-run: the checkpoint was written by %lld rank(s), "
                     "this run has %d: it resumes at batch %lld of epoch "
                     "%lld\n",
                     (long long)savedWorld, world, (long long)indexAt,
                     (long long)epochAt + 1);
    }
    if (nnc_status_t status = nnc_loader_seek(loader.get(), epochAt, indexAt))
      return fail({takeMessage(status)});
  }

  // Every rank takes rank 0's state (after a resume, the same checkpoint's)
  // and from now on averages its gradients with the others'. Beside what
  // the trainer compares, the ranks must agree on their batches and data.
  std::string agreement;
  if (world > 1) {
    agreement = "--batch-size " + std::to_string(batchSize) +
                (loaderOptions.shuffle ? "" : " --no-shuffle") +
                (loaderOptions.drop_last ? " --drop-last" : "") + "; " +
                std::to_string(nnc_loader_batches_per_epoch(loader.get()) *
                               world) +
                " global batches per epoch; data " +
                dataSignature(args.all["--data"]);
    distOptions.agreement = agreement.c_str();
    if (nnc_status_t status =
            nnc_trainer_distribute(trainer.get(), &distOptions))
      return fail({takeMessage(status)});
  }

  MetricsLog metrics;
  if (!metrics.open(lead ? args.get("--metrics") : std::string(),
                    args.has("--resume"), failure))
    return fail(failure);
  MetricsRun plotted;
  if (!plotPath.empty()) {
    size_t slash = args.model.rfind('/');
    plotted.label =
        args.model.substr(slash == std::string::npos ? 0 : slash + 1);
    metrics.keep(&plotted);
  }
  std::string checkpointPath = lead ? args.get("--checkpoint") : std::string();
  // Files that cannot be written are found out before training, not after.
  for (const auto &[flag, what] :
       {std::pair<const char *, const char *>{"--checkpoint", "checkpoints"},
        {"--save-params", "parameters"},
        {"--save-trainer", "the trainer"},
        {"--plot", "the plot"}}) {
    std::string path = args.get(flag);
    if (path.empty())
      continue;
    size_t slash = path.rfind('/');
    std::string folder = slash == std::string::npos
                             ? std::string(".")
                             : path.substr(0, slash ? slash : 1);
    if (access(folder.c_str(), W_OK) != 0)
      return fail({std::string("cannot write ") + what + " to '" + path +
                   "': folder '" + folder + "': " + std::strerror(errno)});
  }
  auto saveCheckpoint = [&]() -> bool {
    if (checkpointPath.empty())
      return true;
    int64_t epoch = 0, index = 0;
    nnc_loader_position(loader.get(), &epoch, &index);
    std::string e = std::to_string(epoch), i = std::to_string(index),
                b = std::to_string(batchSize), w = std::to_string(world);
    const char *keys[] = {"data.epoch", "data.index", "data.batch_size",
                          "data.world_size"};
    const char *values[] = {e.c_str(), i.c_str(), b.c_str(), w.c_str()};
    if (nnc_status_t status = nnc_trainer_save_checkpoint(
            trainer.get(), checkpointPath.c_str(), 4, keys, values)) {
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
    metric =
        classLoss
            ? 100.0 * result.correct / std::max<int64_t>(1, result.elements)
            : result.squaredError / std::max<int64_t>(1, result.elements);
    metrics.eval(nnc_trainer_step_count(trainer.get()), epoch,
                 classLoss ? "accuracy" : "mse", metric);
    lastEvalStep = nnc_trainer_step_count(trainer.get());
    lastMetric = metric;
    return true;
  };

  // The monitor: where the wall time and the memory go, per progress
  // interval, and advice once per topic.
  nnc_monitor_options_t monitorOptions;
  nnc_monitor_options_initialize(&monitorOptions);
  monitorOptions.memory_limit_bytes = memoryLimit;
  monitorOptions.profile_kernels = advise ? 1 : 0;
  nnc_monitor_t *rawMonitor = nullptr;
  if (nnc_status_t status = nnc_monitor_create(trainer.get(), loader.get(),
                                               &monitorOptions, &rawMonitor))
    return fail({takeMessage(status)});
  MonitorHandle monitor(rawMonitor);
  std::vector<std::string> advised;
  BatchHandle lastBatch; // its shapes, for the memory alternatives
  auto giveAdvice = [&](const nnc_interval_stats_t &stats, int64_t epoch,
                        bool &barDrawn) {
    // One line per topic raised, in the order of their bits.
    std::vector<std::string> lines;
    for (const char *p = stats.advice_text; p && *p;) {
      const char *end = std::strchr(p, '\n');
      lines.emplace_back(p, end ? end - p : std::strlen(p));
      p = end ? end + 1 : p + lines.back().size();
    }
    size_t line = 0;
    for (uint32_t bit :
         {NNC_ADVICE_DATA_WAIT, NNC_ADVICE_MEMORY, NNC_ADVICE_KERNELS}) {
      if (!(stats.advice & bit) || line >= lines.size())
        continue;
      std::string text = lines[line++];
      const char *topic = bit == NNC_ADVICE_DATA_WAIT ? "data_wait"
                          : bit == NNC_ADVICE_MEMORY  ? "memory"
                                                      : "kernels";
      if (bit == NNC_ADVICE_MEMORY)
        text += memoryAlternatives(trainer.get(), lastBatch.get(), savedTrainer,
                                   options, batchSize);
      if (barDrawn) {
        std::fputc('\n', stderr);
        barDrawn = false;
      }
      if (progress != "none")
        std::fprintf(stderr, "nnc-run: advice: %s\n", text.c_str());
      metrics.advice(stats.step, epoch, topic, text);
      advised.push_back(text);
    }
  };
  nnc_interval_stats_t lastInterval, total;
  std::memset(&lastInterval, 0, sizeof(lastInterval));
  std::memset(&total, 0, sizeof(total));

  // --steps 0: the step compiled for the first batch's shape, saved
  // untrained.
  if (compileOnly) {
    nnc_batch_t *raw = nullptr;
    if (nnc_status_t status = nnc_loader_next(loader.get(), &raw))
      return fail({takeMessage(status)});
    BatchHandle batch(raw);
    std::vector<const nnc_tensor_t *> data;
    for (size_t i = 0, e = nnc_batch_tensor_count(batch.get()); i < e; ++i)
      data.push_back(nnc_batch_tensor(batch.get(), i));
    if (nnc_status_t status = nnc_trainer_prepare(
            trainer.get(), data.size(), data.data(), /*with_eval=*/0, nullptr))
      return fail({takeMessage(status)});
    if (lead)
      if (nnc_status_t status = nnc_trainer_save(
              trainer.get(), args.get("--save-trainer").c_str()))
        return fail({takeMessage(status)});
    std::printf("compiled the training step for batches of %lld; saved the "
                "untrained trainer to %s\n",
                (long long)nnc_batch_size(batch.get()),
                args.get("--save-trainer").c_str());
    return 0;
  }

  // The loop: one batch per trainer step call; `accumulate` calls make an
  // optimizer step.
  int64_t startStep = nnc_trainer_step_count(trainer.get());
  if (startStep >= totalSteps) {
    std::fprintf(stderr,
                 "nnc-run: the checkpoint is at step %lld of %lld; "
                 "nothing to do\n",
                 (long long)startStep, (long long)totalSteps);
  }
  if (logEvery == 0)
    logEvery = std::max<int64_t>(1, totalSteps / 10);
  auto start = std::chrono::steady_clock::now();
  double computeSeconds = 0, lastLoss = NAN, epochLoss = 0;
  int64_t epochBatches = 0, samples = 0, skipped = 0;
  SkippedStep lastSkip;
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
        std::fprintf(stderr,
                     "nnc-run: %swarning: the loss is %g at step %lld\n",
                     rankPrefix.c_str(), info.loss, (long long)step + 1);
      lastBatch = std::move(batch);
    }
    lastLoss = info.loss;
    skipped += info.skipped;
    if (info.skipped) {
      // The skipped step is retried on the next batch: it is step + 1.
      lastSkip = {step + 1, info.loss_scale,
                  info.nonfinite ? info.nonfinite : "", info.probe_seconds,
                  lastSkip.allProbeSeconds + info.probe_seconds};
      constexpr int64_t kLoggedSkips = 10;
      if (barDrawn) {
        std::fputc('\n', stderr);
        barDrawn = false;
      }
      if (skipped <= kLoggedSkips)
        std::fprintf(stderr,
                     "nnc-run: %sstep %lld skipped: the gradients were not "
                     "finite at loss scale %g; first non-finite value: %s\n",
                     rankPrefix.c_str(), (long long)step + 1, info.loss_scale,
                     lastSkip.nonFinite.c_str());
      if (skipped == kLoggedSkips)
        std::fprintf(stderr,
                     "nnc-run: %sfurther skipped steps are counted, not "
                     "logged\n",
                     rankPrefix.c_str());
    }
    int64_t done = info.step;
    // A skipped step (non-finite gradients) is retried on the next batches.
    step = done;
    if (info.skipped && options.loss_scale != 0.0 && skipped > 100)
      return fail({"more than 100 steps had non-finite gradients; the loss "
                   "diverged"});
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    double rate = samples / std::max(elapsed, 1e-9);
    metrics.step(done, epoch, info, info.seconds, rate);
    double eta =
        (totalSteps - done) * elapsed / std::max<int64_t>(1, done - startStep);
    bool intervalEnd = done % logEvery == 0 || done == totalSteps;
    if (intervalEnd) {
      nnc_interval_stats_t stats;
      std::memset(&stats, 0, sizeof(stats));
      stats.struct_size = sizeof(stats);
      if (nnc_status_t status = nnc_monitor_interval(monitor.get(), &stats))
        return fail({takeMessage(status)});
      metrics.interval(epoch, stats);
      lastInterval = stats;
      total.wall_seconds += stats.wall_seconds;
      total.busy_seconds += stats.busy_seconds;
      total.data_wait_seconds += stats.data_wait_seconds;
      total.other_seconds += stats.other_seconds;
      if (advise && stats.advice)
        giveAdvice(stats, epoch, barDrawn);
    }
    if (progress == "bar") {
      int width = 30;
      int filled = static_cast<int>(width * done / totalSteps);
      std::fprintf(stderr,
                   "\r[%s%s] step %lld/%lld  loss %.4f  %.0f samples/s  "
                   "%s  ETA %s ",
                   std::string(filled, '#').c_str(),
                   std::string(width - filled, '.').c_str(), (long long)done,
                   (long long)totalSteps, info.loss, rate,
                   formatShares(lastInterval).c_str(),
                   formatDuration(eta).c_str());
      barDrawn = true;
    } else if (progress == "lines" && intervalEnd) {
      std::fprintf(
          stderr,
          "step %lld/%lld: loss %.4f, lr %.3g, %.0f samples/s, %s, "
          "%s, ETA %s\n",
          (long long)done, (long long)totalSteps, info.loss, info.learning_rate,
          lastInterval.samples_per_second, formatShares(lastInterval).c_str(),
          formatMemory(lastInterval).c_str(), formatDuration(eta).c_str());
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
      std::string line =
          "epoch " + std::to_string(epoch + 1) + ": train loss " +
          std::to_string(epochLoss / std::max<int64_t>(1, epochBatches));
      if (evalLoader && epochEnd) {
        double metric = 0;
        if (!runEval(epoch + 1, metric))
          return fail(failure);
        char text[64];
        std::snprintf(text, sizeof(text),
                      classLoss ? ", eval accuracy %.1f%%" : ", eval mse %.6g",
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
  if (lead && args.has("--save-params") &&
      !writeParams(trainer.get(), args.get("--save-params"), failure))
    return fail(failure);
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("trained %lld steps (%lld samples) in %.1f s (%.1f s in the "
              "training step, %.2f s waiting for data)%s\n",
              (long long)(nnc_trainer_step_count(trainer.get()) - startStep),
              (long long)samples * world, elapsed, computeSeconds,
              nnc_loader_wait_seconds(loader.get()),
              skipped ? (", " + std::to_string(skipped) +
                         " skipped for non-finite gradients")
                            .c_str()
                      : "");
  // Where the loop's time went, summed over its intervals, and the
  // memory at its end.
  if (total.wall_seconds > 0)
    std::printf("time: %s of %.1f s; memory: %s\n", formatShares(total).c_str(),
                total.wall_seconds, formatMemory(lastInterval).c_str());
  if (world > 1) {
    nnc_distributed_info_t dist;
    dist.struct_size = sizeof(dist);
    if (nnc_status_t status =
            nnc_trainer_distributed_info(trainer.get(), &dist))
      return fail({takeMessage(status)});
    std::printf("data parallel: %d ranks (%s); per step %lld gradient "
                "bucket(s), %lld bytes all-reduced, %lld buffer bytes "
                "broadcast; rank 0: %.2f s in collectives, %.2f s waiting "
                "for them (%s)\n",
                dist.world_size, dist.backend, (long long)dist.buckets,
                (long long)dist.bytes_per_step,
                (long long)dist.buffer_bytes_per_step, dist.seconds,
                dist.exposed_seconds,
                distOptions.overlap ? "buckets overlap backward"
                                    : "after backward, --no-overlap");
    if (args.switches.count("--report")) {
      // Each bucket and where in the gradient step its all-reduce starts.
      for (int64_t b = 0; b < dist.buckets; ++b) {
        nnc_distributed_bucket_t bucket;
        bucket.struct_size = sizeof(bucket);
        if (nnc_status_t status = nnc_trainer_distributed_bucket(
                trainer.get(), static_cast<size_t>(b), &bucket))
          return fail({takeMessage(status)});
        std::printf("  bucket %lld: %lld gradient(s) (%s .. %s), %lld bytes, "
                    "ready after step %lld of %lld\n",
                    (long long)b, (long long)bucket.gradients,
                    bucket.first_gradient, bucket.last_gradient,
                    (long long)bucket.bytes, (long long)bucket.ready_step + 1,
                    (long long)dist.gradient_steps);
      }
      if (dist.program_collectives_per_step > 0)
        std::printf("  in the step: %lld all-reduce(s) of %lld bytes "
                    "(--sync-bn)\n",
                    (long long)dist.program_collectives_per_step,
                    (long long)dist.program_bytes_per_step);
    }
  }
  if (args.switches.count("--report")) {
    printStepReport(trainer.get(), skipped, lastSkip);
    for (const std::string &text : advised)
      std::printf("advice: %s\n", text.c_str());
  }
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
  if (lead && !plotPath.empty() &&
      !writeSvg(plotPath, renderPlot({plotted}, plotted.label),
                failure.message))
    return fail(failure);
  // After the last evaluation, so that its programs are saved too.
  if (lead && args.has("--save-trainer"))
    if (nnc_status_t status =
            nnc_trainer_save(trainer.get(), args.get("--save-trainer").c_str()))
      return fail({takeMessage(status)});
  if (profiling) {
    failure.message = finishProfile(args.switches.count("--profile") != 0,
                                    args.get("--trace"));
    if (!failure.message.empty())
      return fail(failure);
  }
  return 0;
}

int nnc::tools::runGrad(int argc, char **argv) {
  static const std::set<std::string> valued = {
      "--inputs",    "--save",      "--labels",          "--output",
      "--loss",      "--reduction", "--label-smoothing", "--ignore-index",
      "--cache-dir", "--threads",   "--target"};
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
  if (nnc_status_t status =
          nnc_trainer_gradients(trainer.get(), data.size(), data.data(), &loss,
                                gradients.size(), gradients.data()))
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
  if (nnc_status_t status =
          nnc_npz_write(args.get("--save").c_str(), cnames.size(),
                        cnames.data(), tensors.data()))
    return fail({takeMessage(status)});
  std::printf("loss: %.6f\n", loss);
  return 0;
}
