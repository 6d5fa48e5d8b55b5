//===- Trainer.h - running compiled training functions ----------*- C++ -*-===//
//
// The run side of training: a Trainer owns the parameters, buffers and
// optimizer state of a model and runs compiled training functions on them
// (steps with gradient accumulation and loss scaling, gradients, evaluation)
// and writes and reads checkpoints. It never compiles: the programs come from
// a TrainProgramSource, which either compiles them on demand (the compiler's,
// lib/Training) or holds those of a saved trainer (loadTrainer). A saved
// trainer is an executable file (docs/Executable.md) holding its programs,
// how their arguments bind to the state, and the state itself, so that
// programs that link only the runtime can go on training.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_TRAINER_H
#define NNC_RUNTIME_TRAINER_H

#include "nnc/runtime/HostTensor.h"
#include "nnc/runtime/Plan.h"
#include "nnc/runtime/Program.h"
#include "nnc/runtime/Schedule.h"
#include "nnc/runtime/Status.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace nnc::runtime {

struct Checkpoint;
class Communicator;
class GradientReducer;
class ExecutableReader;

/// Shapes of a list of tensors, e.g. of one batch of data.
using Shapes = std::vector<std::vector<int64_t>>;

/// A named tensor signature: a parameter, buffer or data entry. Dims of -1
/// are free (the batch dimension of data).
struct TrainValue {
  std::string name;
  ValueKind kind = ValueKind::Input;
  DType dtype = DType::F32;
  std::vector<int64_t> dims;
};

/// The training functions a model compiles to.
enum class TrainFunctionKind : uint8_t {
  Step,  ///< forward, backward and optimizer update in one
  Grad,  ///< forward and backward: loss and gradients (accumulation)
  Apply, ///< the optimizer update from given gradients
  Eval,  ///< the model itself
};
inline constexpr unsigned kNumTrainFunctionKinds = 4;
/// "step", "grad", "apply", "eval".
const char *trainFunctionKindName(TrainFunctionKind kind);

/// Where the value of one argument of a training function comes from.
enum class TrainSource : uint8_t {
  Data,      ///< data[index] of the batch
  Slot,      ///< parameter or buffer `index`
  Seed,      ///< the per-micro-batch key of random ops
  LossScale, ///< the loss scale (times the micro-batches for Apply)
  State,     ///< optimizer state `index`
  Lr,        ///< the learning rate of this step
  Gradient,  ///< the gradient of trainable parameter `index` (Apply)
  Copy,      ///< the low-precision copy of parameter `index` (Step)
};
/// Where one result goes.
enum class TrainSink : uint8_t {
  Ignore,   ///< dropped (an evaluation output is returned instead)
  Loss,     ///< the loss, a scalar
  Slot,     ///< the new value of parameter or buffer `index`
  State,    ///< the new value of optimizer state `index`
  Found,    ///< whether a gradient was not finite (the step was skipped)
  Gradient, ///< the gradient of trainable parameter `index`
  Copy,     ///< the new low-precision copy of parameter `index`
};
struct TrainBinding {
  TrainSource source = TrainSource::Data;
  unsigned index = 0;
};
struct TrainResult {
  TrainSink sink = TrainSink::Ignore;
  unsigned index = 0;
};
/// How one compiled training function is fed and where its results go.
struct TrainFunction {
  std::string name;
  std::vector<TrainBinding> arguments;
  std::vector<TrainResult> results;
};
/// The layout of the four functions, the same for every data shape.
struct TrainLayout {
  TrainFunction functions[kNumTrainFunctionKinds];
  const TrainFunction &operator[](TrainFunctionKind kind) const {
    return functions[static_cast<unsigned>(kind)];
  }
  TrainFunction &operator[](TrainFunctionKind kind) {
    return functions[static_cast<unsigned>(kind)];
  }
};

/// The results of `function` that may be written into the buffer of an
/// argument (a parameter, buffer or optimizer state and its update), as
/// (result, argument) index pairs; for Step and Apply only, which own those
/// values (Grad changes nothing, running statistics included).
std::vector<std::pair<unsigned, unsigned>>
donationsOf(TrainFunctionKind kind, const TrainFunction &function);

/// What a trainer is, fixed when it is made.
struct TrainerSpec {
  /// The model function the training functions were built from.
  std::string modelName;
  /// Parameters and buffers, in argument order; the trainable ones in
  /// `trainable` (slot indices, in argument order).
  std::vector<TrainValue> slots;
  std::vector<unsigned> trainable;
  /// The data of a step: the graph inputs in argument order, then labels
  /// (evaluation takes all but the labels).
  std::vector<TrainValue> data;
  /// Optimizer state names (velocity<i>; m<i>, v<i>, t), in argument order.
  std::vector<std::string> stateNames;
  /// The element type (F16 or BF16) of the parameters' low-precision
  /// copies, where a function takes them (TrainSource::Copy): mixed
  /// precision's rounded weights, kept between steps and made by the
  /// step's update. The trainer makes them from the parameters when they
  /// are new or stale (a first step, a loaded checkpoint, an update by
  /// another function); checkpoints do not hold them.
  DType copyType = DType::BF16;
  DType lossType = DType::F32;
  /// The loss ("cross_entropy", "nll", "mse") and the model output, by
  /// index, it attaches to: what an evaluation of the outputs scores.
  std::string loss = "cross_entropy";
  unsigned lossOutput = 0;
  /// Class losses: the class count (-1: not known until run time, labels
  /// unchecked) and the label that counts for nothing, if any. Labels are
  /// checked against them before a step runs.
  int64_t classes = -1;
  bool hasIgnoreIndex = false;
  int64_t ignoreIndex = 0;
  LrSchedule schedule;
  /// Micro-batches per optimizer step.
  int64_t accumulate = 1;
  /// The loss scaler a fresh trainer starts from.
  LossScaler scaler;
  /// A skipped step names its first non-finite value through the source's
  /// probe (StepResult::nonFinite); not saved with a trainer.
  bool nameNonFinite = true;
  /// The step updates each parameter as soon as its gradient is ready
  /// (--nnc-optimizer updates-in-backward): a step with non-finite
  /// gradients cannot be skipped whole, and fails instead.
  bool updatesInBackward = false;
  uint64_t seed = 0;
  /// What a checkpoint must match: the model without its values and the
  /// loss, optimizer and their settings.
  std::string fingerprint;
};

/// A program ready to run, as a source hands it out.
/// What a trainer's step() calls have taken, summed since it was made: the
/// training monitor (Monitor.h) splits wall time with it.
struct TrainerCounters {
  /// Seconds inside step(), and of those, spent getting programs (building
  /// and compiling the functions of a new shape, cache lookups) and naming
  /// non-finite values: host work, not the compiled step.
  double stepSeconds = 0;
  double hostSeconds = 0;
  /// Rows of data (the first dimension of the batch's first tensor) and
  /// step() calls (micro-batches).
  int64_t samples = 0;
  int64_t calls = 0;
};

struct TrainProgram {
  const Program *program = nullptr;
  /// Caps the threads its kernels use (0: all cores).
  uint32_t threads = 0;
  double compileSeconds = 0;
  bool fromCache = false;
};

/// Where a trainer's programs come from.
class TrainProgramSource {
public:
  virtual ~TrainProgramSource();
  /// Readies the functions for graph inputs of `inputShapes` (one per
  /// graph input); after the first success, layout() is set.
  virtual Status prepare(const Shapes &inputShapes) = 0;
  /// The functions' layout; null before the first prepare().
  virtual const TrainLayout *layout() const = 0;
  /// The program of `kind` for data of shapes `key` (Apply: empty), whose
  /// arguments have `argumentShapes`; `compiled` says it was made now.
  virtual Status program(TrainFunctionKind kind, const Shapes &key,
                         const Shapes &argumentShapes, TrainProgram &out,
                         bool &compiled) = 0;
  /// Every program made so far, with its kind and key.
  struct Entry {
    TrainFunctionKind kind;
    Shapes key;
    TrainProgram program;
  };
  virtual std::vector<Entry> programs() const = 0;

  /// A probe of the gradient function: fed as Grad is, it returns one f32
  /// per value the forward and backward compute, in program order (NaN
  /// where that value holds an inf or a NaN), and `ops` describes each.
  struct Probe {
    TrainProgram program;
    std::vector<std::string> ops;
  };
  /// The probe for data of shapes `key`, made on first use. A source
  /// without a compiler (a loaded trainer's) has none and says so
  /// (Unimplemented), which the step reports as "not named: ...".
  virtual Status probe(const Shapes &key, const Shapes &argumentShapes,
                       const Probe *&out);

  /// Runs every program as a CUDA graph from its next run on
  /// (Program::enableGraphReplay). A source that compiles its programs
  /// takes that as a compile option instead and refuses (InvalidArgument).
  virtual Status enableGraphReplay();
};

/// What one step did.
struct StepResult {
  double loss = 0;
  /// The optimizer step ran (the last micro-batch of an accumulation).
  bool applied = false;
  /// It ran but was skipped: a gradient was not finite.
  bool skipped = false;
  double learningRate = 0;
  double lossScale = 0;
  /// Optimizer steps taken so far.
  int64_t step = 0;
  double seconds = 0;
  /// A program was compiled for it.
  bool compiled = false;
  /// A skipped step: the first value of the batch's forward and backward
  /// that was not finite (an op, its name and type; or an input or
  /// parameter), or why none could be named; and the seconds naming it
  /// took (the probe's compilation on the first skip of a shape, and one
  /// run of it).
  std::string nonFinite;
  double probeSeconds = 0;
};

/// How a trainer takes part in data-parallel training (distribute()).
struct DataParallelOptions {
  /// The gradients are all-reduced in buckets of at most this many bytes
  /// (a larger gradient is a bucket of its own, DDP's bucket_cap_mb, 25
  /// MiB), filled in the order the compiled gradient step finishes them
  /// (rank 0's order on every rank).
  int64_t bucketBytes = int64_t(25) << 20;
  /// After every optimizer step the buffers (batch normalization's running
  /// statistics) take rank 0's values, as DDP's broadcast_buffers does;
  /// otherwise each rank keeps its own.
  bool broadcastBuffers = true;
  /// A bucket's all-reduce starts (on a communication thread) as soon as
  /// the gradient computation has written its last gradient, while the
  /// rest of backward runs; otherwise after the whole computation.
  bool overlap = true;
  /// What else every rank must have the same (the batch size per rank, the
  /// data's signature), compared by digest when joining.
  std::string agreement;
};

/// One gradient bucket of the last all-reduced step.
struct DataParallelBucket {
  int64_t gradients = 0;
  int64_t bytes = 0;
  /// The step of the compiled gradient function after which its last
  /// gradient is written (-1: before the first).
  int64_t readyStep = -1;
  /// The trainable parameters of its first and last gradient.
  std::string first, last;
};

/// What data-parallel training did, summed since distribute().
struct DataParallelStats {
  /// All-reduced optimizer steps, and per step the buckets and bytes.
  int64_t reductions = 0;
  int64_t buckets = 0;
  int64_t bytesPerStep = 0;
  /// Seconds in collectives (gradients and buffers), and of those, the
  /// seconds the step waited for them (not hidden behind computation).
  double seconds = 0;
  double exposedSeconds = 0;
  /// Bytes broadcast per step for the buffers.
  int64_t bufferBytesPerStep = 0;
  /// The buckets, in the order they are all-reduced, and the steps of the
  /// gradient function.
  std::vector<DataParallelBucket> bucketList;
  int64_t gradientSteps = 0;
  /// The collectives inside the compiled step (synchronized batch
  /// normalization) and their bytes, in the last step.
  int64_t programCollectives = 0;
  int64_t programBytes = 0;
};

class Trainer {
public:
  /// `slotValues` and `state` hold the initial values of `spec.slots` and
  /// `spec.stateNames`, each of its signature's dtype and dims.
  static Status create(TrainerSpec spec, std::vector<HostTensor> slotValues,
                       std::vector<HostTensor> state,
                       std::unique_ptr<TrainProgramSource> source,
                       std::unique_ptr<Trainer> &out);

  const TrainerSpec &spec() const { return spec_; }
  const TrainProgramSource &source() const { return *source_; }

  /// Checks a batch against the data signature (its first `expected`
  /// entries: all for steps, all but the labels for evaluation) and returns
  /// the shapes that key a specialization; class labels must name a class
  /// (or be the ignored label). Labels may come one row per
  /// sample ([B, T]) for a model whose loss flattens them ([B * T]): the
  /// entry of `batch` is then rewritten to that view, with its dims in
  /// `flatDims`.
  Status checkData(std::vector<TensorRef> &batch, size_t expected, Shapes &key,
                   std::vector<int64_t> &flatDims) const;

  /// One micro-batch: with accumulate == 1 an optimizer step, else its
  /// gradients are added up and every accumulate-th call applies the mean
  /// (when that update fails, the accumulation is dropped and the next call
  /// starts a new one). `batch` passed checkData with all data.
  Status step(const std::vector<TensorRef> &batch, const Shapes &key,
              StepResult &out);
  /// The loss and the gradients of the trainable parameters (in `trainable`
  /// order) for `batch`, changing nothing.
  Status gradients(const std::vector<TensorRef> &batch, const Shapes &key,
                   double &loss, std::vector<HostTensor> &out);
  /// The model's outputs for the graph inputs `inputs` (checked by
  /// checkData without the labels).
  Status evaluate(const std::vector<TensorRef> &inputs, const Shapes &key,
                  std::vector<HostTensor> &outputs);
  /// The number of outputs evaluate() returns, once known (after the first
  /// prepare), else -1.
  int64_t outputCount() const;

  /// Makes the programs that steps (and, with `withEval`, evaluations) on
  /// data of shapes `key` (all data, labels last) run, without running
  /// them: to save a trainer for those shapes, or to compile ahead.
  Status prepare(const Shapes &key, bool withEval, bool &compiled);

  const std::vector<HostTensor> &slotValues() const { return slots_; }
  const std::vector<HostTensor> &state() const { return state_; }
  int64_t steps() const { return steps_; }
  /// The learning rate of the next optimizer step.
  double learningRate() const;
  /// Micro-batches into the current accumulation.
  int64_t microSteps() const { return microSteps_; }
  const LossScaler &scaler() const { return scaler_; }
  /// The program of the latest step or gradients call; null before one.
  const TrainProgram *lastStep() const {
    return hasLastStep_ ? &lastStep_ : nullptr;
  }
  const TrainerCounters &counters() const { return counters_; }

  /// Writes a checkpoint at `path` (atomically) with `userMetadata`
  /// stored under "user.<key>"; refused in the middle of an accumulation.
  Status saveCheckpoint(const std::string &path,
                        const std::map<std::string, std::string> &userMetadata);
  /// Reads the checkpoint at `path` into the trainer, checked in full
  /// before anything changes.
  Status loadCheckpoint(const std::string &path);
  /// The same from a checkpoint already read.
  Status loadCheckpoint(const Checkpoint &checkpoint);
  /// The user metadata of the last loaded checkpoint.
  const std::map<std::string, std::string> &loadedMetadata() const {
    return loadedMetadata_;
  }

  /// Makes this trainer one rank of `communicator`'s group: every rank
  /// checks that the others train the same model the same way (the
  /// checkpoint fingerprint, parameters, data signature, accumulation,
  /// seed), then takes rank 0's parameters, buffers, optimizer state, step
  /// count and loss scaler. From then on every optimizer step averages the
  /// gradients of all ranks (all-reduced in buckets, after the last
  /// micro-batch of an accumulation only), so that every rank applies the
  /// same update; a non-finite gradient on any rank skips the step on all.
  /// Micro-batch k of rank r draws the random keys of micro-batch
  /// k x size + r of one process, so W ranks train as one process
  /// accumulating W micro-batches. Refused mid-accumulation; a failed
  /// collective fails the step with the communicator's error.
  Status distribute(std::shared_ptr<Communicator> communicator,
                    const DataParallelOptions &options);
  /// Null until distribute().
  const Communicator *communicator() const { return communicator_.get(); }
  const DataParallelStats &dataParallelStats() const { return dpStats_; }

  /// Runs a loaded trainer's programs as CUDA graphs from the next step on
  /// (TrainProgramSource::enableGraphReplay); between steps only.
  Status enableGraphReplay() { return source_->enableGraphReplay(); }

  /// Writes the trainer (its layout, state and every program made so far)
  /// to `path` atomically as an executable that loadTrainer reads; refused
  /// in the middle of an accumulation or before any program exists.
  Status save(const std::string &path) const;

  ~Trainer();

private:
  Trainer();
  Status run(TrainFunctionKind kind, const std::vector<TensorRef> *batch,
             const Shapes &key, const std::vector<HostTensor> *gradients,
             double scale, double lr, std::vector<HostTensor> &out,
             bool &compiled, const Program::OutputReady *ready = nullptr);
  /// The arguments and program run() runs.
  Status lookup(TrainFunctionKind kind, const std::vector<TensorRef> *batch,
                const Shapes &key, const std::vector<HostTensor> *gradients,
                double scale, double lr, std::vector<TensorRef> &refs,
                TrainProgram &program, bool &compiled);
  /// The arguments of `kind` (scalars set to `scale` and `lr`, the seed
  /// to this micro-batch's) and their shapes.
  Status bindArguments(TrainFunctionKind kind,
                       const std::vector<TensorRef> *batch,
                       const std::vector<HostTensor> *gradients, double scale,
                       double lr, std::vector<TensorRef> &refs, Shapes &shapes);
  /// Names the first non-finite value of the gradient computation of
  /// `batch` into out.nonFinite (the step was skipped, nothing changed).
  void nameNonFinite(const std::vector<TensorRef> &batch, const Shapes &key,
                     double scale, double lr, StepResult &out);
  Status checkLabels(const TrainValue &value, const TensorRef &labels) const;
  void takeResults(TrainFunctionKind kind, std::vector<HostTensor> &outputs,
                   bool applyUpdates, double &loss, bool &found,
                   std::vector<HostTensor> *gradients);
  /// The checkpoint image of the current state (without user metadata).
  Status stateCheckpoint(Checkpoint &out) const;
  /// Data-parallel: the last micro-batch's gradient computation with the
  /// gradients summed over the ranks into `accumulated_` (DataParallel.cpp).
  Status reducedGradients(const std::vector<TensorRef> &batch,
                          const Shapes &key, double scale, double lr,
                          double &loss, bool &compiled);
  /// Data-parallel: rank 0's buffers to every rank.
  Status broadcastBuffers();
  /// Runs `program` as a step of this rank: inside the collective scope of
  /// the program communicator when the program has collectives and the
  /// trainer is distributed (split off on first use), else alone.
  Status runProgram(const Program &program, const std::vector<TensorRef> &refs,
                    std::vector<HostTensor> &out, int threads,
                    const Program::OutputReady *ready);

  TrainerSpec spec_;
  std::unique_ptr<TrainProgramSource> source_;
  std::vector<HostTensor> slots_;
  std::vector<HostTensor> state_;
  /// Per slot, its low-precision copy (spec_.copyType) where a function
  /// takes one, else empty; copiesFresh_: they are the rounded slots.
  std::vector<HostTensor> copies_;
  bool copiesFresh_ = false;
  std::vector<HostTensor> accumulated_; // per trainable parameter
  int64_t microSteps_ = 0;
  int64_t steps_ = 0;
  /// Micro-batches run so far (by every rank together): with the seed,
  /// what keys random ops. This rank's micro-batch draws key
  /// draws_ + rank, and each one moves draws_ on by the world size.
  uint64_t draws_ = 0;
  std::shared_ptr<Communicator> communicator_;
  DataParallelOptions dpOptions_;
  DataParallelStats dpStats_;
  /// The gradient buckets and the thread that reduces them.
  std::unique_ptr<GradientReducer> reducer_;
  /// The collectives of the compiled programs (synchronized batch
  /// normalization), split off communicator_ when a program first needs
  /// them, so that they keep their order beside the buckets' thread.
  std::unique_ptr<Communicator> programCommunicator_;
  LossScaler scaler_;
  std::map<std::string, std::string> loadedMetadata_;
  /// Per function and key, the previous generation of the outputs (the
  /// buffers the results replaced), written in place by the next run.
  std::map<Shapes, std::vector<HostTensor>> spare_[kNumTrainFunctionKinds];
  TrainProgram lastStep_;
  bool hasLastStep_ = false;
  TrainerCounters counters_;
  /// Inside step(): the program lookups of run() count as host time.
  bool counting_ = false;
  /// Scalars fed to every run, kept to avoid allocating them per step.
  HostTensor scaleTensor_, lrTensor_, seedTensor_;
};

/// Reads a trainer that Trainer::save wrote, verified in full, with its
/// programs loaded onto the host CPU. Data of shapes it has no program for
/// fail with NotFound naming the shapes it has.
Status loadTrainer(const std::string &path, std::unique_ptr<Trainer> &out);
/// The same from `size` bytes at `data`; `source` names them in errors.
Status loadTrainerFromBytes(const void *data, size_t size,
                            const std::string &source,
                            std::unique_ptr<Trainer> &out);
/// Whether the executable at `reader` is a saved trainer rather than one
/// compiled function.
bool isSavedTrainer(const ExecutableReader &reader);

/// "[2, 3]".
std::string shapeText(const std::vector<int64_t> &dims);

} // namespace nnc::runtime

#endif // NNC_RUNTIME_TRAINER_H
