//===- Trainer.h - the trainer behind nnc_trainer_* -------------*- C++ -*-===//
//
// The state of a trainer (nnc_trainer_s) and the helpers its three source
// files share: CAPITrain.cpp builds and compiles the training functions,
// CAPITrainer.cpp is the C API of steps, gradients, evaluation and
// parameters, CAPICheckpoint.cpp reads and writes checkpoints.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LIB_CAPI_TRAINER_H
#define NNC_LIB_CAPI_TRAINER_H

#include "Internal.h"

#include "nnc/Training/Pipeline.h"
#include "nnc/runtime/HostTensor.h"
#include "nnc/runtime/Program.h"
#include "nnc/runtime/Schedule.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace nnc::capi::train {

using Clock = std::chrono::steady_clock;
using Shapes = std::vector<std::vector<int64_t>>;

/// Where the value of one argument of a compiled training function comes
/// from.
enum class Source { Data, Slot, Seed, LossScale, State, Lr, Gradient };
struct Binding {
  Source source;
  unsigned index = 0; // into the data, slots, state or trainable gradients
};

/// Where one result goes.
enum class Sink { Ignore, Loss, Slot, State, Found, Gradient };
struct Target {
  Sink sink = Sink::Ignore;
  unsigned index = 0;
};

/// One compiled training function: how to feed it and where its results
/// go, and its specializations per data shapes.
struct TrainFunction {
  std::string name;
  std::vector<Binding> arguments;
  std::vector<Target> results;
  std::map<Shapes, std::unique_ptr<nnc_executable_s>> executables;
  /// Per shape, the previous generation of the outputs (the buffers the
  /// results replaced), written in place by the next run: steps allocate
  /// no tensors.
  std::map<Shapes, std::vector<nnc::runtime::HostTensor>> spare;
};

struct Slot {
  std::unique_ptr<ValueInfo> info;
  std::unique_ptr<nnc_tensor_s> value;
};

} // namespace nnc::capi::train

struct nnc_trainer_s {
  using Shapes = nnc::capi::train::Shapes;
  using TrainFunction = nnc::capi::train::TrainFunction;
  using Slot = nnc::capi::train::Slot;
  using ModuleOp = mlir::ModuleOp;
  template <typename T> using OwningOpRef = mlir::OwningOpRef<T>;
  nnc_context_s *context = nullptr;
  OwningOpRef<ModuleOp> module;
  nnc_train_options_t options;
  nnc_compile_options_t compileOptions;
  std::string target, cacheDir;
  bool hasTarget = false, hasCacheDir = false;
  nnc::runtime::DType lossType = nnc::runtime::DType::F32;

  std::vector<Slot> slots;
  std::vector<unsigned> trainable; // slot indices, in argument order
  std::vector<std::unique_ptr<nnc::capi::ValueInfo>>
      data; // graph inputs, then labels
  std::vector<std::string> stateNames;
  std::vector<nnc::runtime::HostTensor> state;
  std::vector<nnc::runtime::HostTensor> accumulated; // per trainable parameter
  int64_t microSteps = 0; // into the current accumulation
  int64_t steps = 0;
  nnc::runtime::LossScaler scaler;
  std::string fingerprint;
  std::map<std::string, std::string> loadedMetadata;

  TrainFunction step, grad, apply, eval;
  // The training functions are built per shape of the graph inputs (the
  // passes need static shapes), from the model specialized on them.
  std::string modelName;
  unsigned numModelArgs = 0;
  std::vector<int> slotOfArg, dataOfArg;
  nnc::TrainingPipelineOptions pipeline;
  std::map<Shapes, OwningOpRef<ModuleOp>> builds;
  bool bound = false;
  bool hasSeed = false; // the step takes a seed (random ops)
  // Micro-batches run so far: with the seed, what keys random ops.
  uint64_t draws = 0;

  ~nnc_trainer_s() {
    for (TrainFunction *f : {&step, &grad, &apply, &eval})
      f->executables.clear();
    builds.clear();
    module = nullptr;
    if (context)
      nnc::capi::release(context);
  }

  /// The module of training functions for graph inputs of `inputShapes`.
  nnc_status_t build(const char *fn, const Shapes &inputShapes, ModuleOp &out);

  double lossScale() const { return scaler.scale; }
  double learningRate() const;
  nnc_status_t run(const char *fn, TrainFunction &function, ModuleOp built,
                   size_t count, const nnc_tensor_t *const *data, Shapes key,
                   const std::vector<nnc::runtime::HostTensor> *gradients,
                   double scale, double lr,
                   std::vector<nnc::runtime::HostTensor> &out, bool &compiled);
  /// Keeps what `takeResults` left in `outputs` of `function`'s run with
  /// `key` for the next run to write into.
  static void recycle(TrainFunction &function, const Shapes &key,
                      std::vector<nnc::runtime::HostTensor> &outputs) {
    function.spare[key].swap(outputs);
  }
  /// The executable of the latest step (for nnc_trainer_step_stats).
  const nnc_executable_s *lastStep = nullptr;
  /// Scalars fed to every run, kept to avoid allocating them per step.
  nnc::runtime::HostTensor scaleTensor, lrTensor, seedTensor;
};

namespace nnc::capi::train {

std::string shapeText(const std::vector<int64_t> &dims);
std::string argumentName(mlir::BlockArgument arg);
rt::TensorRef refOf(const nnc_tensor_s &tensor);
rt::TensorRef refOf(const rt::HostTensor &tensor);
rt::Status scalar(rt::DType dtype, double value, rt::HostTensor &out);
double scalarValue(const rt::HostTensor &tensor);
/// sum += value, elementwise (f32 or f64 of one shape).
void addInto(rt::HostTensor &sum, const rt::HostTensor &value);
/// Checks the training options; fills the pass pipeline that builds the
/// training functions.
nnc_status_t checkTrainOptions(const char *fn, const nnc_train_options_t &o);
nnc::TrainingPipelineOptions pipelineFor(const nnc_train_options_t &o,
                                         llvm::StringRef function,
                                         llvm::StringRef output);
/// Checks `data` against the trainer's data signature (the first
/// `expected` entries) and returns the shapes that key a specialization.
/// Labels may come one row per sample ([B, T]) for an output whose layout
/// flattens them ([B * T]): `flattened` then holds a view of them in that
/// layout and `data` is rewritten to point at it.
nnc_status_t checkData(const char *fn, const nnc_trainer_s &trainer,
                       size_t count, const nnc_tensor_t *const *&data,
                       size_t expected, Shapes &key,
                       std::vector<const nnc_tensor_t *> &storage,
                       std::unique_ptr<nnc_tensor_s> &flattened);
/// Classifies the arguments and results of the built functions.
nnc_status_t bindFunctions(const char *fn, nnc_trainer_s &t,
                           mlir::ModuleOp module);
/// Applies a step's or apply's results: slots, state; returns the loss and
/// the found-non-finite flag.
void takeResults(nnc_trainer_s &t, const TrainFunction &f,
                 std::vector<rt::HostTensor> &outputs, bool applyUpdates,
                 double &loss, bool &found,
                 std::vector<rt::HostTensor> *gradients);

} // namespace nnc::capi::train

#endif // NNC_LIB_CAPI_TRAINER_H
