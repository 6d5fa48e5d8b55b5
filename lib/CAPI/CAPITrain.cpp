//===- CAPITrain.cpp - trainers: compiled training steps ------------------===//
//
// nnc_trainer_*: builds the training functions of a model with the passes
// (--nnc-prepare-training, --nnc-autodiff, --nnc-optimizer), compiles one
// specialization per batch shape, and keeps what changes from step to step
// (parameters, buffers, optimizer state, accumulated gradients, the step
// count and the loss scaler) on the host between runs.
//
//===----------------------------------------------------------------------===//

#include "nnc-c/nnc.h"

#include "Internal.h"

#include "nnc/Compiler/Compiler.h"
#include "nnc/InitAll.h"
#include "nnc/NNCDialect.h"
#include "nnc/runtime/Checkpoint.h"
#include "nnc/runtime/Program.h"
#include "nnc/runtime/Schedule.h"
#include "nnc/runtime/Sha256.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <map>

using namespace mlir;
using namespace nnc::capi;

namespace {

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
};

struct Slot {
  std::unique_ptr<ValueInfo> info;
  std::unique_ptr<nnc_tensor_s> value;
};

std::string shapeText(const std::vector<int64_t> &dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

std::string argumentName(BlockArgument arg) {
  if (auto name = dyn_cast<NameLoc>(arg.getLoc()))
    return name.getName().str();
  return "";
}

rt::TensorRef refOf(const nnc_tensor_s &tensor) {
  rt::TensorRef ref;
  ref.dtype = toRuntime(tensor.dtype);
  ref.dims = tensor.dims.data();
  ref.rank = tensor.dims.size();
  ref.data = tensor.data;
  ref.byteSize = tensor.byteSize;
  return ref;
}

rt::TensorRef refOf(const rt::HostTensor &tensor) {
  rt::TensorRef ref;
  ref.dtype = tensor.dtype();
  ref.dims = tensor.shape().data();
  ref.rank = tensor.shape().size();
  ref.data = tensor.data();
  ref.byteSize = tensor.sizeInBytes();
  return ref;
}

rt::Status scalar(rt::DType dtype, double value, rt::HostTensor &out) {
  rt::Status status = rt::HostTensor::create(dtype, {}, out);
  if (!status.isOk())
    return status;
  if (dtype == rt::DType::F64)
    *out.dataAs<double>() = value;
  else
    *out.dataAs<float>() = static_cast<float>(value);
  return status;
}

double scalarValue(const rt::HostTensor &tensor) {
  return tensor.dtype() == rt::DType::F64 ? *tensor.dataAs<double>()
                                          : *tensor.dataAs<float>();
}

/// sum += value, elementwise (f32 or f64 of one shape).
void addInto(rt::HostTensor &sum, const rt::HostTensor &value) {
  int64_t n = sum.numElements();
  if (sum.dtype() == rt::DType::F64) {
    double *s = sum.dataAs<double>();
    const double *v = value.dataAs<double>();
    for (int64_t i = 0; i < n; ++i)
      s[i] += v[i];
    return;
  }
  float *s = sum.dataAs<float>();
  const float *v = value.dataAs<float>();
  for (int64_t i = 0; i < n; ++i)
    s[i] += v[i];
}

} // namespace

struct nnc_trainer_s {
  nnc_context_s *context = nullptr;
  OwningOpRef<ModuleOp> module;
  nnc_train_options_t options;
  nnc_compile_options_t compileOptions;
  std::string target, cacheDir;
  bool hasTarget = false, hasCacheDir = false;
  rt::DType lossType = rt::DType::F32;

  std::vector<Slot> slots;
  std::vector<unsigned> trainable; // slot indices, in argument order
  std::vector<std::unique_ptr<ValueInfo>> data; // graph inputs, then labels
  std::vector<std::string> stateNames;
  std::vector<rt::HostTensor> state;
  std::vector<rt::HostTensor> accumulated; // per trainable parameter
  int64_t microSteps = 0;                  // into the current accumulation
  int64_t steps = 0;
  rt::LossScaler scaler;
  std::string fingerprint;
  std::map<std::string, std::string> loadedMetadata;

  TrainFunction step, grad, apply, eval;
  // The training functions are built per shape of the graph inputs (the
  // passes need static shapes), from the model specialized on them.
  std::string modelName;
  unsigned numModelArgs = 0;
  std::vector<int> slotOfArg, dataOfArg;
  std::string pipeline;
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
      release(context);
  }

  /// The module of training functions for graph inputs of `inputShapes`.
  nnc_status_t build(const char *fn, const Shapes &inputShapes,
                     ModuleOp &out);

  double lossScale() const { return scaler.scale; }
  double learningRate() const;
  nnc_status_t run(const char *fn, TrainFunction &function, ModuleOp built,
                   size_t count, const nnc_tensor_t *const *data, Shapes key,
                   const std::vector<rt::HostTensor> *gradients,
                   double scale, double lr, std::vector<rt::HostTensor> &out,
                   bool &compiled);
};

double nnc_trainer_s::learningRate() const {
  rt::LrSchedule schedule;
  schedule.lr = options.learning_rate;
  switch (options.schedule) {
  case NNC_LR_CONSTANT:
    schedule.kind = rt::LrSchedule::Kind::Constant;
    break;
  case NNC_LR_STEP:
    schedule.kind = rt::LrSchedule::Kind::Step;
    schedule.stepSize = options.step_size;
    schedule.gamma = options.gamma;
    break;
  case NNC_LR_COSINE:
    schedule.kind = rt::LrSchedule::Kind::Cosine;
    schedule.warmupSteps = options.warmup_steps;
    schedule.totalSteps = options.total_steps;
    schedule.minLr = options.min_learning_rate;
    break;
  }
  return rt::learningRate(schedule, steps);
}

namespace {

/// Checks the training options; fills the pass pipeline that builds the
/// training functions.
nnc_status_t checkTrainOptions(const char *fn,
                               const nnc_train_options_t &o) {
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

std::string pipelineFor(const nnc_train_options_t &o, StringRef function,
                        StringRef output) {
  static const char *losses[] = {"cross_entropy", "nll", "mse"};
  static const char *optimizers[] = {"sgd", "adam", "adamw"};
  std::string f = function.str();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "nnc-prepare-training{function=" << f << " loss=" << losses[o.loss]
     << " reduction=" << (o.loss_sum ? "sum" : "mean")
     << " label-smoothing=" << llvm::format("%.17g", o.label_smoothing)
     << " loss-scale=true";
  if (!output.empty())
    os << " output=" << output;
  if (o.has_ignore_index)
    os << " ignore-index=" << o.ignore_index;
  os << "},nnc-autodiff{function=" << f << "_train},nnc-optimizer{function="
     << f << "_train kind=" << optimizers[o.optimizer]
     << " momentum=" << llvm::format("%.17g", o.momentum)
     << " nesterov=" << (o.nesterov ? "true" : "false")
     << " weight-decay=" << llvm::format("%.17g", o.weight_decay)
     << " beta1=" << llvm::format("%.17g", o.beta1)
     << " beta2=" << llvm::format("%.17g", o.beta2)
     << " epsilon=" << llvm::format("%.17g", o.epsilon)
     << " loss-scale=true apply=true}";
  return text;
}

} // namespace

nnc_status_t nnc_trainer_s::run(const char *fn, TrainFunction &function,
                                ModuleOp built, size_t count,
                                const nnc_tensor_t *const *batch,
                                Shapes key,
                                const std::vector<rt::HostTensor> *gradients,
                                double scale, double lr,
                                std::vector<rt::HostTensor> &out,
                                bool &compiled) {
  compiled = false;
  rt::HostTensor scaleTensor, lrTensor, seedTensor;
  rt::Status status = scalar(lossType, scale, scaleTensor);
  if (status.isOk())
    status = scalar(lossType, lr, lrTensor);
  if (status.isOk())
    status = rt::HostTensor::create(rt::DType::I64, {}, seedTensor);
  if (status.isOk()) {
    // Each micro-batch gets its own key: SplitMix64 of the seed and the
    // draw count.
    auto mix = [](uint64_t z) {
      z += 0x9E3779B97F4A7C15ull;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      return z ^ (z >> 31);
    };
    uint64_t key = mix(options.seed ^ mix(draws));
    std::memcpy(seedTensor.data(), &key, sizeof(key));
  }
  if (!status.isOk())
    return convertStatus(fn, status);
  std::vector<rt::TensorRef> refs;
  Shapes shapes;
  for (const Binding &b : function.arguments) {
    rt::TensorRef ref;
    switch (b.source) {
    case Source::Data:
      if (b.index >= count)
        return makeStatus(NNC_STATUS_INTERNAL, fn, "missing data");
      ref = refOf(*batch[b.index]);
      break;
    case Source::Slot:
      ref = refOf(*slots[b.index].value);
      break;
    case Source::LossScale:
      ref = refOf(scaleTensor);
      break;
    case Source::Seed:
      ref = refOf(seedTensor);
      break;
    case Source::Lr:
      ref = refOf(lrTensor);
      break;
    case Source::State:
      ref = refOf(state[b.index]);
      break;
    case Source::Gradient:
      ref = refOf((*gradients)[b.index]);
      break;
    }
    refs.push_back(ref);
    shapes.emplace_back(ref.dims, ref.dims + ref.rank);
  }
  auto &executable = function.executables[key];
  if (!executable) {
    std::vector<llvm::SmallVector<int64_t>> compileShapes;
    for (const auto &shape : shapes)
      compileShapes.emplace_back(shape.begin(), shape.end());
    nnc_compile_options_t options = compileOptions;
    options.target = hasTarget ? target.c_str() : nullptr;
    options.cache_dir = hasCacheDir ? cacheDir.c_str() : nullptr;
    if (nnc_status_t s = compileFunction(fn, built, function.name, &options,
                                         compileShapes, executable)) {
      function.executables.erase(key);
      return s;
    }
    compiled = true;
  }
  status = executable->program->run(refs, out, executable->threads);
  if (!status.isOk())
    return convertStatus(fn, status);
  return nullptr;
}

namespace {
nnc_status_t bindFunctions(const char *fn, nnc_trainer_s &t, ModuleOp module);
} // namespace

nnc_status_t nnc_trainer_s::build(const char *fn, const Shapes &inputShapes,
                                  ModuleOp &out) {
  auto it = builds.find(inputShapes);
  if (it != builds.end()) {
    out = *it->second;
    return nullptr;
  }
  MLIRContext &mlir = *context->mlir;
  DiagnosticCapture capture(mlir);
  OwningOpRef<ModuleOp> built(cast<ModuleOp>(module->getOperation()->clone()));
  std::string spec;
  for (unsigned i = 0; i < numModelArgs; ++i) {
    if (dataOfArg[i] < 0)
      continue;
    spec += (spec.empty() ? "" : ",") + std::to_string(i) + ":";
    const std::vector<int64_t> &dims = inputShapes[dataOfArg[i]];
    for (size_t d = 0; d < dims.size(); ++d)
      spec += (d ? "x" : "") + std::to_string(dims[d]);
  }
  std::string text = "nnc-shape-inference{function=" + modelName;
  if (!spec.empty())
    text += " input-shapes=" + spec;
  text += "}," + pipeline;
  PassManager pm(&mlir);
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(text, pm, os)))
    return makeStatus(NNC_STATUS_INTERNAL, fn, "pipeline: " + error);
  if (failed(pm.run(*built))) {
    std::string errors = capture.errors();
    bool unsupported = errors.find("no gradient rule") != std::string::npos;
    return makeStatus(unsupported ? NNC_STATUS_UNIMPLEMENTED
                                  : NNC_STATUS_INVALID_ARGUMENT,
                      fn, errors);
  }
  // Values are inputs of every training function: the trainer feeds them.
  for (auto f : built->getOps<func::FuncOp>())
    for (unsigned i = 0; i < f.getNumArguments(); ++i)
      f.removeArgAttr(i, nnc::NNCDialect::getValueAttrName());
  // The layout of the functions is the same for every shape: bind once,
  // check the optimizer state against the trainer's.
  if (!bound) {
    auto stepFn = built->lookupSymbol<func::FuncOp>(modelName + "_train_step");
    hasSeed = stepFn && stepFn.getNumArguments() > numModelArgs + 1 &&
              argumentName(stepFn.getArgument(numModelArgs + 1)) == "seed";
    unsigned firstState = numModelArgs + 2 + (hasSeed ? 1 : 0);
    if (!stepFn || stepFn.getNumArguments() != firstState + 1 + stateNames.size())
      return makeStatus(NNC_STATUS_INTERNAL, fn,
                        "the training step has an unexpected signature");
    for (size_t k = 0; k < stateNames.size(); ++k)
      if (argumentName(stepFn.getArgument(firstState + k)) != stateNames[k])
        return makeStatus(NNC_STATUS_INTERNAL, fn,
                          "unexpected optimizer state '" +
                              argumentName(stepFn.getArgument(firstState + k)) +
                              "', expected '" + stateNames[k] + "'");
    if (nnc_status_t s = bindFunctions(fn, *this, *built))
      return s;
    bound = true;
  }
  out = *built;
  builds[inputShapes] = std::move(built);
  return nullptr;
}

namespace {

/// Checks `data` against the trainer's data signature (the first
/// `expected` entries) and returns the shapes that key a specialization.
/// Labels may come one row per sample ([B, T]) for an output whose layout
/// flattens them ([B * T]): `flattened` then holds a view of them in that
/// layout and `data` is rewritten to point at it.
nnc_status_t checkData(const char *fn, const nnc_trainer_s &trainer,
                       size_t count, const nnc_tensor_t *const *&data,
                       size_t expected, Shapes &key,
                       std::vector<const nnc_tensor_t *> &storage,
                       std::unique_ptr<nnc_tensor_s> &flattened) {
  if (count != expected)
    return invalidArgument(fn, "expected " + std::to_string(expected) +
                                   " data tensors, got " +
                                   std::to_string(count));
  if (count && !data)
    return nullArgument(fn, "data");
  int64_t batch = -1;
  storage.assign(data, data + count);
  for (size_t i = 0; i < count; ++i) {
    const ValueInfo &info = *trainer.data[i];
    const nnc_tensor_t *tensor = data[i];
    if (!tensor)
      return invalidArgument(fn, "data " + std::to_string(i) + " ('" +
                                     info.name + "') is NULL");
    bool isLabels = i + 1 == trainer.data.size();
    if (isLabels && info.dims.size() == 1 && tensor->dims.size() > 1 &&
        tensor->dtype == info.info.dtype) {
      if (batch >= 0 && tensor->dims[0] != batch)
        return invalidArgument(fn, "data '" + info.name + "' has " +
                                       std::to_string(tensor->dims[0]) +
                                       " samples, the others " +
                                       std::to_string(batch));
      flattened = std::make_unique<nnc_tensor_s>();
      flattened->dtype = tensor->dtype;
      int64_t total = 1;
      for (int64_t d : tensor->dims)
        total *= d;
      flattened->dims = {total};
      flattened->data = tensor->data;
      flattened->byteSize = tensor->byteSize;
      storage[i] = flattened.get();
      tensor = flattened.get();
      batch = -1; // the flattened count is not a sample count
    }
    bool ok = tensor->dtype == info.info.dtype &&
              tensor->dims.size() == info.dims.size();
    for (size_t d = 0; ok && d < info.dims.size(); ++d)
      ok = info.dims[d] < 0 || info.dims[d] == tensor->dims[d];
    if (!ok) {
      std::vector<int64_t> want = info.dims;
      std::string expectedText = "[";
      for (size_t d = 0; d < want.size(); ++d)
        expectedText += (d ? ", " : "") +
                        (want[d] < 0 ? std::string("?")
                                     : std::to_string(want[d]));
      expectedText += "]";
      return invalidArgument(
          fn, "data '" + info.name + "' must be " +
                  nnc_dtype_name(info.info.dtype) + " " + expectedText +
                  ", got " + nnc_dtype_name(tensor->dtype) + " " +
                  shapeText(tensor->dims));
    }
    if (!tensor->dims.empty() && tensor != flattened.get()) {
      if (batch >= 0 && tensor->dims[0] != batch)
        return invalidArgument(fn, "data '" + info.name + "' has " +
                                       std::to_string(tensor->dims[0]) +
                                       " samples, the others " +
                                       std::to_string(batch));
      batch = tensor->dims[0];
    }
    key.push_back(tensor->dims);
  }
  data = storage.data();
  return nullptr;
}

/// Classifies the arguments and results of the built functions.
nnc_status_t bindFunctions(const char *fn, nnc_trainer_s &t, ModuleOp module) {
  unsigned numModelArgs = t.numModelArgs;
  const std::vector<int> &slotOfArg = t.slotOfArg;
  const std::vector<int> &dataOfArg = t.dataOfArg;
  std::string base = t.modelName;
  auto lookup = [&](const std::string &name) {
    return module.lookupSymbol<func::FuncOp>(name);
  };
  auto stepFn = lookup(base + "_train_step");
  auto gradFn = lookup(base + "_train_grad");
  auto applyFn = lookup(base + "_train_apply");
  if (!stepFn || !gradFn || !applyFn)
    return makeStatus(NNC_STATUS_INTERNAL, fn,
                      "the training functions were not built");
  auto slotByName = [&](StringRef name) -> int {
    for (auto [i, slot] : llvm::enumerate(t.slots))
      if (slot.info->name == name)
        return static_cast<int>(i);
    return -1;
  };
  auto modelArgs = [&](TrainFunction &f) {
    for (unsigned i = 0; i < numModelArgs; ++i)
      f.arguments.push_back(
          slotOfArg[i] >= 0
              ? Binding{Source::Slot, static_cast<unsigned>(slotOfArg[i])}
              : Binding{Source::Data, static_cast<unsigned>(dataOfArg[i])});
  };
  unsigned labels = t.data.size() - 1;
  unsigned numTrainable = t.trainable.size();
  unsigned numState = t.stateNames.size();

  // Results named like a slot are its new value (parameters come as
  // param<i>, running statistics under their argument's name).
  auto results = [&](TrainFunction &f, func::FuncOp func) -> nnc_status_t {
    auto names =
        func->getAttrOfType<ArrayAttr>(nnc::NNCDialect::getResultNamesAttrName());
    for (unsigned k = 0; k < func.getNumResults(); ++k) {
      StringRef name =
          names && k < names.size() ? cast<StringAttr>(names[k]).getValue()
                                    : "";
      Target target;
      if (name == "loss") {
        target = {Sink::Loss, 0};
      } else if (name == "found_nonfinite") {
        target = {Sink::Found, 0};
      } else if (name.starts_with("param")) {
        unsigned arg = 0;
        if (name.drop_front(5).getAsInteger(10, arg) || arg >= numModelArgs ||
            slotOfArg[arg] < 0)
          return makeStatus(NNC_STATUS_INTERNAL, fn,
                            "unexpected result " + name.str());
        target = {Sink::Slot, static_cast<unsigned>(slotOfArg[arg])};
      } else if (name.starts_with("grad") &&
                 llvm::all_of(name.drop_front(4),
                              [](char c) { return llvm::isDigit(c); })) {
        unsigned arg = 0;
        (void)name.drop_front(4).getAsInteger(10, arg);
        auto it = llvm::find(t.trainable, static_cast<unsigned>(
                                              arg < numModelArgs
                                                  ? slotOfArg[arg]
                                                  : -1));
        if (it == t.trainable.end())
          return makeStatus(NNC_STATUS_INTERNAL, fn,
                            "unexpected result " + name.str());
        target = {Sink::Gradient,
                  static_cast<unsigned>(it - t.trainable.begin())};
      } else if (auto it = llvm::find(t.stateNames, name.str());
                 it != t.stateNames.end()) {
        target = {Sink::State,
                  static_cast<unsigned>(it - t.stateNames.begin())};
      } else if (int slot = slotByName(name); slot >= 0) {
        target = {Sink::Slot, static_cast<unsigned>(slot)};
      }
      f.results.push_back(target);
    }
    return nullptr;
  };

  // The model's arguments, labels, [seed,] loss_scale.
  auto trainingArgs = [&](TrainFunction &f) {
    modelArgs(f);
    f.arguments.push_back({Source::Data, labels});
    if (t.hasSeed)
      f.arguments.push_back({Source::Seed, 0});
    f.arguments.push_back({Source::LossScale, 0});
  };

  // _train_step(training args, state..., lr)
  t.step.name = stepFn.getSymName().str();
  trainingArgs(t.step);
  for (unsigned s = 0; s < numState; ++s)
    t.step.arguments.push_back({Source::State, s});
  t.step.arguments.push_back({Source::Lr, 0});
  if (t.step.arguments.size() != stepFn.getNumArguments())
    return makeStatus(NNC_STATUS_INTERNAL, fn,
                      "unexpected arguments of " + t.step.name);
  if (nnc_status_t s = results(t.step, stepFn))
    return s;
  // _train_grad(training args)
  t.grad.name = gradFn.getSymName().str();
  trainingArgs(t.grad);
  if (nnc_status_t s = results(t.grad, gradFn))
    return s;
  // _train_apply(params, grads, state, lr, loss_scale)
  t.apply.name = applyFn.getSymName().str();
  for (unsigned n = 0; n < numTrainable; ++n)
    t.apply.arguments.push_back({Source::Slot, t.trainable[n]});
  for (unsigned n = 0; n < numTrainable; ++n)
    t.apply.arguments.push_back({Source::Gradient, n});
  for (unsigned s = 0; s < numState; ++s)
    t.apply.arguments.push_back({Source::State, s});
  t.apply.arguments.push_back({Source::Lr, 0});
  t.apply.arguments.push_back({Source::LossScale, 0});
  if (t.apply.arguments.size() != applyFn.getNumArguments())
    return makeStatus(NNC_STATUS_INTERNAL, fn,
                      "unexpected arguments of " + t.apply.name);
  if (nnc_status_t s = results(t.apply, applyFn))
    return s;
  // The model itself, for evaluation.
  t.eval.name = base;
  modelArgs(t.eval);
  return nullptr;
}

/// Applies a step's or apply's results: slots, state; returns the loss and
/// the found-non-finite flag.
void takeResults(nnc_trainer_s &t, const TrainFunction &f,
                 std::vector<rt::HostTensor> &outputs, bool applyUpdates,
                 double &loss, bool &found,
                 std::vector<rt::HostTensor> *gradients) {
  found = false;
  for (size_t k = 0; k < outputs.size() && k < f.results.size(); ++k)
    if (f.results[k].sink == Sink::Found)
      found = *outputs[k].dataAs<uint8_t>() != 0;
  for (size_t k = 0; k < outputs.size() && k < f.results.size(); ++k) {
    const Target &target = f.results[k];
    switch (target.sink) {
    case Sink::Ignore:
    case Sink::Found:
      break;
    case Sink::Loss:
      loss = scalarValue(outputs[k]);
      break;
    case Sink::Slot:
      // Parameters and state are left as they were on a skipped step
      // anyway (the kernel selects the old values), running statistics too.
      if (applyUpdates && !found)
        t.slots[target.index].value->storage = std::move(outputs[k]);
      break;
    case Sink::State:
      if (applyUpdates)
        t.state[target.index] = std::move(outputs[k]);
      break;
    case Sink::Gradient:
      if (gradients)
        (*gradients)[target.index] = std::move(outputs[k]);
      break;
    }
  }
  // Tensors that own storage point at it.
  for (Slot &slot : t.slots) {
    slot.value->data = slot.value->storage.data();
    slot.value->byteSize = slot.value->storage.sizeInBytes();
  }
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
    auto t = std::make_unique<nnc_trainer_s>();
    nnc_train_options_initialize(&t->options);
    if (options) {
      if (nnc_status_t s = checkOptions(fn, "options", options))
        return s;
      t->options = *options;
    }
    std::string output =
        t->options.output ? std::string(t->options.output) : std::string();
    t->options.output = nullptr;
    if (nnc_status_t s = checkTrainOptions(fn, t->options))
      return s;
    nnc_compile_options_initialize(&t->compileOptions);
    if (compile_options) {
      if (nnc_status_t s =
              checkOptions(fn, "compile_options", compile_options))
        return s;
      t->compileOptions = *compile_options;
      if (compile_options->target) {
        t->hasTarget = true;
        t->target = compile_options->target;
      }
      if (compile_options->cache_dir) {
        t->hasCacheDir = true;
        t->cacheDir = compile_options->cache_dir;
      }
    }
    // Dynamic scaling is the default of LossScaler.
    if (t->options.loss_scale != 0.0)
      t->scaler = rt::LossScaler::fixed(t->options.loss_scale);

    MLIRContext &mlir = *model->context->mlir;
    DiagnosticCapture capture(mlir);
    func::FuncOp original;
    for (auto func : model->module->getOps<func::FuncOp>()) {
      original = func;
      break;
    }
    if (!original)
      return invalidArgument(fn, "the model holds no function");
    t->module = OwningOpRef<ModuleOp>(
        cast<ModuleOp>(model->module->getOperation()->clone()));
    retain(model->context);
    t->context = model->context;
    auto func = t->module->lookupSymbol<func::FuncOp>(original.getSymName());
    unsigned numModelArgs = func.getNumArguments();

    // Parameters and buffers: the arguments with initial values.
    std::vector<int> slotOfArg(numModelArgs, -1), dataOfArg(numModelArgs, -1);
    for (unsigned i = 0; i < numModelArgs; ++i) {
      BlockArgument arg = func.getArgument(i);
      auto value = func.getArgAttrOfType<ElementsAttr>(
          i, nnc::NNCDialect::getValueAttrName());
      nnc_value_kind_t kind = argumentKind(func, i);
      if (!value) {
        if (kind != NNC_VALUE_INPUT)
          return invalidArgument(fn, "parameter '" + argumentName(arg) +
                                         "' (argument " + std::to_string(i) +
                                         ") has no initial value");
        dataOfArg[i] = static_cast<int>(t->data.size());
        t->data.push_back(describe(arg.getType(), arg.getLoc(), kind));
        continue;
      }
      Slot slot;
      slot.info = describe(arg.getType(), arg.getLoc(), kind);
      if (slot.info->name.empty()) {
        slot.info->name = "arg" + std::to_string(i);
        slot.info->info.name = slot.info->name.c_str();
      }
      std::vector<uint8_t> bytes;
      if (failed(nnc::appendElementBytes(value, bytes)))
        return invalidArgument(fn, "the initial value of '" +
                                       slot.info->name +
                                       "' cannot be read");
      rt::HostTensor storage;
      rt::Status status = rt::HostTensor::create(
          toRuntime(slot.info->info.dtype), slot.info->dims, storage);
      if (!status.isOk())
        return convertStatus(fn, status);
      if (bytes.size() != storage.sizeInBytes())
        return invalidArgument(fn, "the initial value of '" +
                                       slot.info->name + "' has " +
                                       std::to_string(bytes.size()) +
                                       " bytes, expected " +
                                       std::to_string(storage.sizeInBytes()));
      if (!bytes.empty())
        std::memcpy(storage.data(), bytes.data(), bytes.size());
      slot.value = makeOwnedTensor(std::move(storage));
      slotOfArg[i] = static_cast<int>(t->slots.size());
      if (kind == NNC_VALUE_TRAINABLE)
        t->trainable.push_back(t->slots.size());
      t->slots.push_back(std::move(slot));
    }
    if (t->trainable.empty())
      return invalidArgument(fn, "the model has no trainable parameters");

    t->modelName = func.getSymName().str();
    t->numModelArgs = numModelArgs;
    t->slotOfArg = slotOfArg;
    t->dataOfArg = dataOfArg;
    t->pipeline = pipelineFor(t->options, t->modelName, output);

    // The labels and the loss type, from the loss attached to the model as
    // it is (that needs no static shapes): also checks the loss options
    // against the model before any batch arrives.
    nnc::registerAllPasses();
    {
      OwningOpRef<ModuleOp> probe(
          cast<ModuleOp>(t->module->getOperation()->clone()));
      PassManager pm(&mlir);
      std::string error;
      llvm::raw_string_ostream os(error);
      std::string prepare =
          t->pipeline.substr(0, t->pipeline.find("},nnc-autodiff") + 1);
      if (failed(parsePassPipeline(prepare, pm, os)))
        return makeStatus(NNC_STATUS_INTERNAL, fn, "pipeline: " + error);
      if (failed(pm.run(*probe)))
        return invalidArgument(fn, capture.errors());
      auto trainFn =
          probe->lookupSymbol<func::FuncOp>(t->modelName + "_train");
      BlockArgument labels = trainFn.getArgument(numModelArgs);
      t->data.push_back(
          describe(labels.getType(), labels.getLoc(), NNC_VALUE_INPUT));
      auto lossTensor = cast<RankedTensorType>(trainFn.getResultTypes()[0]);
      t->lossType = lossTensor.getElementType().isF64() ? rt::DType::F64
                                                        : rt::DType::F32;
    }

    // Optimizer state, as --nnc-optimizer lays it out (checked against the
    // built step): per trainable argument i a velocity<i> (SGD with
    // momentum) or m<i>, then v<i> (Adam, AdamW), then t; zeros at first.
    auto addState = [&](const std::string &prefix) -> nnc_status_t {
      for (unsigned n : t->trainable) {
        unsigned arg = 0;
        while (t->slotOfArg[arg] != static_cast<int>(n))
          ++arg;
        t->stateNames.push_back(prefix + std::to_string(arg));
        rt::HostTensor tensor;
        const Slot &slot = t->slots[n];
        rt::Status status = rt::HostTensor::create(
            toRuntime(slot.info->info.dtype), slot.info->dims, tensor);
        if (!status.isOk())
          return convertStatus(fn, status);
        if (tensor.sizeInBytes())
          std::memset(tensor.data(), 0, tensor.sizeInBytes());
        t->state.push_back(std::move(tensor));
      }
      return nullptr;
    };
    bool adam = t->options.optimizer != NNC_OPTIMIZER_SGD;
    if (!adam && t->options.momentum != 0.0)
      if (nnc_status_t s = addState("velocity"))
        return s;
    if (adam) {
      if (nnc_status_t s = addState("m"))
        return s;
      if (nnc_status_t s = addState("v"))
        return s;
      rt::HostTensor tensor;
      if (nnc_status_t s = convertStatus(fn, scalar(t->lossType, 0.0, tensor)))
        return s;
      t->stateNames.push_back("t");
      t->state.push_back(std::move(tensor));
    }

    // What a checkpoint must match: the training pipeline (loss, optimizer
    // and its settings) and the model without its values.
    {
      OwningOpRef<ModuleOp> bare(
          cast<ModuleOp>(t->module->getOperation()->clone()));
      for (auto f : bare->getOps<func::FuncOp>())
        for (unsigned i = 0; i < f.getNumArguments(); ++i)
          f.removeArgAttr(i, nnc::NNCDialect::getValueAttrName());
      std::string text = t->pipeline + "\n";
      llvm::raw_string_ostream os(text);
      bare->print(os, OpPrintingFlags().elideLargeElementsAttrs(64));
      rt::Sha256 hasher;
      hasher.update(text.data(), text.size());
      t->fingerprint = rt::toHex(hasher.finish());
    }
    *out_trainer = t.release();
    return nullptr;
  });
}

size_t nnc_trainer_data_count(const nnc_trainer_t *trainer) {
  return trainer ? trainer->data.size() : 0;
}

nnc_status_t nnc_trainer_data_info(const nnc_trainer_t *trainer, size_t index,
                                   const nnc_value_info_t **out_info) {
  static const char *fn = "nnc_trainer_data_info";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    if (!out_info)
      return nullArgument(fn, "out_info");
    if (index >= trainer->data.size())
      return makeStatus(NNC_STATUS_OUT_OF_RANGE, fn,
                        "index " + std::to_string(index) + " is past the " +
                            std::to_string(trainer->data.size()) +
                            " data tensors");
    *out_info = &trainer->data[index]->info;
    return nullptr;
  });
}

nnc_status_t nnc_trainer_step(nnc_trainer_t *trainer, size_t count,
                              const nnc_tensor_t *const *data,
                              nnc_step_info_t *out_info) {
  static const char *fn = "nnc_trainer_step";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    if (out_info && out_info->struct_size != sizeof(nnc_step_info_t))
      return invalidArgument(fn, "out_info->struct_size must be "
                                 "sizeof(nnc_step_info_t)");
    nnc_trainer_s &t = *trainer;
    Shapes key;
    std::vector<const nnc_tensor_t *> storage;
    std::unique_ptr<nnc_tensor_s> flattened;
    if (nnc_status_t s = checkData(fn, t, count, data, t.data.size(), key,
                                   storage, flattened))
      return s;
    auto start = Clock::now();
    ModuleOp built;
    if (nnc_status_t s = t.build(fn, Shapes(key.begin(), key.end() - 1), built))
      return s;
    double scale = t.lossScale();
    double lr = t.learningRate();
    int64_t accumulate = t.options.accumulate;
    bool compiled = false, applied = false, found = false;
    double loss = 0;
    std::vector<rt::HostTensor> outputs;
    if (accumulate == 1) {
      if (nnc_status_t s = t.run(fn, t.step, built, count, data, key, nullptr,
                                 scale, lr, outputs, compiled))
        return s;
      takeResults(t, t.step, outputs, /*applyUpdates=*/true, loss, found,
                  nullptr);
      applied = true;
    } else {
      std::vector<rt::HostTensor> gradients(t.trainable.size());
      if (nnc_status_t s = t.run(fn, t.grad, built, count, data, key, nullptr,
                                 scale, lr, outputs, compiled))
        return s;
      // The micro-batch updates the running statistics as a forward pass
      // of that batch does in PyTorch.
      bool ignored = false;
      takeResults(t, t.grad, outputs, /*applyUpdates=*/true, loss, ignored,
                  &gradients);
      if (t.microSteps == 0) {
        t.accumulated = std::move(gradients);
      } else {
        for (size_t n = 0; n < gradients.size(); ++n)
          addInto(t.accumulated[n], gradients[n]);
      }
      if (++t.microSteps == accumulate) {
        // The mean of the micro-batch gradients: the update divides by the
        // scale times the number of micro-batches.
        bool applyCompiled = false;
        std::vector<rt::HostTensor> applied_outputs;
        if (nnc_status_t s =
                t.run(fn, t.apply, built, 0, nullptr, Shapes{}, &t.accumulated,
                      scale * static_cast<double>(accumulate), lr,
                      applied_outputs, applyCompiled))
          return s;
        double unused = 0;
        takeResults(t, t.apply, applied_outputs, /*applyUpdates=*/true,
                    unused, found, nullptr);
        compiled |= applyCompiled;
        t.microSteps = 0;
        t.accumulated.clear();
        applied = true;
      }
    }
    ++t.draws;
    if (applied && t.scaler.update(found))
      ++t.steps;
    if (out_info) {
      out_info->loss = loss;
      out_info->applied = applied;
      out_info->skipped = applied && found;
      out_info->learning_rate = lr;
      out_info->loss_scale = scale;
      out_info->step = t.steps;
      out_info->seconds =
          std::chrono::duration<double>(Clock::now() - start).count();
      out_info->compiled = compiled;
    }
    return nullptr;
  });
}

nnc_status_t nnc_trainer_gradients(nnc_trainer_t *trainer, size_t count,
                                   const nnc_tensor_t *const *data,
                                   double *out_loss, size_t num_gradients,
                                   nnc_tensor_t **out_gradients) {
  static const char *fn = "nnc_trainer_gradients";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    nnc_trainer_s &t = *trainer;
    if (num_gradients != t.trainable.size())
      return invalidArgument(fn, "the model has " +
                                     std::to_string(t.trainable.size()) +
                                     " trainable parameters, got room for " +
                                     std::to_string(num_gradients));
    if (num_gradients && !out_gradients)
      return nullArgument(fn, "out_gradients");
    Shapes key;
    std::vector<const nnc_tensor_t *> storage;
    std::unique_ptr<nnc_tensor_s> flattened;
    if (nnc_status_t s = checkData(fn, t, count, data, t.data.size(), key,
                                   storage, flattened))
      return s;
    ModuleOp built;
    if (nnc_status_t s = t.build(fn, Shapes(key.begin(), key.end() - 1), built))
      return s;
    std::vector<rt::HostTensor> outputs;
    bool compiled = false;
    if (nnc_status_t s = t.run(fn, t.grad, built, count, data, key, nullptr,
                               1.0, t.learningRate(), outputs, compiled))
      return s;
    std::vector<rt::HostTensor> gradients(t.trainable.size());
    double loss = 0;
    bool found = false;
    takeResults(t, t.grad, outputs, /*applyUpdates=*/false, loss, found,
                &gradients);
    if (out_loss)
      *out_loss = loss;
    for (size_t n = 0; n < gradients.size(); ++n)
      out_gradients[n] = makeOwnedTensor(std::move(gradients[n])).release();
    return nullptr;
  });
}

nnc_status_t nnc_trainer_evaluate(nnc_trainer_t *trainer, size_t count,
                                  const nnc_tensor_t *const *inputs,
                                  size_t num_outputs, nnc_tensor_t **outputs) {
  static const char *fn = "nnc_trainer_evaluate";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    nnc_trainer_s &t = *trainer;
    Shapes key;
    std::vector<const nnc_tensor_t *> storage;
    std::unique_ptr<nnc_tensor_s> flattened;
    if (nnc_status_t s =
            checkData(fn, t, count, inputs, t.data.size() - 1, key, storage,
                      flattened))
      return s;
    ModuleOp built;
    if (nnc_status_t s = t.build(fn, key, built))
      return s;
    auto func = built.lookupSymbol<func::FuncOp>(t.eval.name);
    if (num_outputs != func.getNumResults())
      return invalidArgument(fn, "the model has " +
                                     std::to_string(func.getNumResults()) +
                                     " outputs, got room for " +
                                     std::to_string(num_outputs));
    if (num_outputs && !outputs)
      return nullArgument(fn, "outputs");
    std::vector<rt::HostTensor> results;
    bool compiled = false;
    if (nnc_status_t s = t.run(fn, t.eval, built, count, inputs, key, nullptr,
                               1.0, 0.0, results, compiled))
      return s;
    for (size_t k = 0; k < results.size() && k < num_outputs; ++k)
      outputs[k] = makeOwnedTensor(std::move(results[k])).release();
    return nullptr;
  });
}

size_t nnc_trainer_parameter_count(const nnc_trainer_t *trainer) {
  return trainer ? trainer->slots.size() : 0;
}

nnc_status_t nnc_trainer_parameter(nnc_trainer_t *trainer, size_t index,
                                   const nnc_value_info_t **out_info,
                                   const nnc_tensor_t **out_value) {
  static const char *fn = "nnc_trainer_parameter";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    if (index >= trainer->slots.size())
      return makeStatus(NNC_STATUS_OUT_OF_RANGE, fn,
                        "index " + std::to_string(index) + " is past the " +
                            std::to_string(trainer->slots.size()) +
                            " parameters");
    if (out_info)
      *out_info = &trainer->slots[index].info->info;
    if (out_value)
      *out_value = trainer->slots[index].value.get();
    return nullptr;
  });
}

int64_t nnc_trainer_step_count(const nnc_trainer_t *trainer) {
  return trainer ? trainer->steps : 0;
}

nnc_status_t nnc_trainer_save_checkpoint(nnc_trainer_t *trainer,
                                         const char *path, size_t num_metadata,
                                         const char *const *metadata_keys,
                                         const char *const *metadata_values) {
  static const char *fn = "nnc_trainer_save_checkpoint";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    if (!path)
      return nullArgument(fn, "path");
    if (num_metadata && (!metadata_keys || !metadata_values))
      return nullArgument(fn, "metadata_keys/metadata_values");
    nnc_trainer_s &t = *trainer;
    if (t.microSteps != 0)
      return makeStatus(NNC_STATUS_INVALID_ARGUMENT, fn,
                        "in the middle of a gradient accumulation (" +
                            std::to_string(t.microSteps) + " of " +
                            std::to_string(t.options.accumulate) +
                            " micro-batches); checkpoints are taken between "
                            "optimizer steps");
    rt::Checkpoint checkpoint;
    for (size_t i = 0; i < num_metadata; ++i) {
      if (!metadata_keys[i] || !metadata_values[i])
        return nullArgument(fn, "metadata entry");
      std::string key = std::string("user.") + metadata_keys[i];
      checkpoint.setString(key, metadata_values[i]);
    }
    checkpoint.setString("nnc.fingerprint", t.fingerprint);
    checkpoint.setInt("nnc.step", t.steps);
    checkpoint.setString("nnc.draws", std::to_string(t.draws));
    checkpoint.setString("nnc.seed", std::to_string(t.options.seed));
    t.scaler.save(checkpoint.metadata, "nnc.loss_scaler.");
    for (Slot &slot : t.slots) {
      rt::NpzEntry entry;
      entry.name = slot.info->name;
      if (nnc_status_t s = copyToHost(fn, *slot.value, entry.tensor))
        return s;
      checkpoint.tensors.push_back(std::move(entry));
    }
    for (size_t k = 0; k < t.state.size(); ++k) {
      rt::NpzEntry entry;
      entry.name = "optimizer." + t.stateNames[k];
      rt::Status status =
          rt::HostTensor::create(t.state[k].dtype(), t.state[k].shape(),
                                 entry.tensor);
      if (!status.isOk())
        return convertStatus(fn, status);
      if (entry.tensor.sizeInBytes())
        std::memcpy(entry.tensor.data(), t.state[k].data(),
                    entry.tensor.sizeInBytes());
      checkpoint.tensors.push_back(std::move(entry));
    }
    return convertStatus(fn, rt::writeCheckpoint(path, checkpoint));
  });
}

nnc_status_t nnc_trainer_load_checkpoint(nnc_trainer_t *trainer,
                                         const char *path) {
  static const char *fn = "nnc_trainer_load_checkpoint";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!trainer)
      return nullArgument(fn, "trainer");
    if (!path)
      return nullArgument(fn, "path");
    nnc_trainer_s &t = *trainer;
    rt::Checkpoint checkpoint;
    if (nnc_status_t s = convertStatus(fn, rt::readCheckpoint(path, checkpoint)))
      return s;
    std::string fingerprint;
    if (nnc_status_t s = convertStatus(
            fn, checkpoint.getString("nnc.fingerprint", fingerprint)))
      return s;
    if (fingerprint != t.fingerprint)
      return invalidArgument(
          fn, std::string("checkpoint ") + path +
                  " was written for another model or training configuration "
                  "(loss, optimizer and its settings must match)");
    int64_t steps = 0;
    if (nnc_status_t s =
            convertStatus(fn, checkpoint.getInt("nnc.step", steps)))
      return s;
    if (steps < 0)
      return makeStatus(NNC_STATUS_DATA_LOSS, fn,
                        std::string("checkpoint ") + path +
                            ": negative step count");
    rt::LossScaler scaler;
    if (nnc_status_t s = convertStatus(
            fn, scaler.load(checkpoint.metadata, "nnc.loss_scaler.")))
      return s;
    std::string drawsText;
    if (nnc_status_t s = convertStatus(
            fn, checkpoint.getString("nnc.draws", drawsText)))
      return s;
    uint64_t draws = 0;
    if (!llvm::to_integer(drawsText, draws, 10))
      return makeStatus(NNC_STATUS_DATA_LOSS, fn,
                        std::string("checkpoint ") + path +
                            ": nnc.draws is not a count");
    // Everything is checked before anything changes.
    std::vector<const rt::HostTensor *> slotValues, stateValues;
    for (Slot &slot : t.slots) {
      const rt::HostTensor *value = nullptr;
      if (nnc_status_t s = convertStatus(
              fn, rt::checkCheckpointTensor(
                      checkpoint, slot.info->name,
                      toRuntime(slot.info->info.dtype), slot.info->dims,
                      &value)))
        return s;
      slotValues.push_back(value);
    }
    for (size_t k = 0; k < t.state.size(); ++k) {
      const rt::HostTensor *value = nullptr;
      if (nnc_status_t s = convertStatus(
              fn, rt::checkCheckpointTensor(
                      checkpoint, "optimizer." + t.stateNames[k],
                      t.state[k].dtype(), t.state[k].shape(), &value)))
        return s;
      stateValues.push_back(value);
    }
    for (size_t i = 0; i < t.slots.size(); ++i)
      if (slotValues[i]->sizeInBytes())
        std::memcpy(t.slots[i].value->data, slotValues[i]->data(),
                    slotValues[i]->sizeInBytes());
    for (size_t k = 0; k < t.state.size(); ++k)
      if (stateValues[k]->sizeInBytes())
        std::memcpy(t.state[k].data(), stateValues[k]->data(),
                    stateValues[k]->sizeInBytes());
    t.steps = steps;
    t.draws = draws;
    t.scaler = scaler;
    t.microSteps = 0;
    t.accumulated.clear();
    t.loadedMetadata.clear();
    for (const auto &[key, value] : checkpoint.metadata)
      if (llvm::StringRef(key).starts_with("user."))
        t.loadedMetadata[key.substr(5)] = value;
    return nullptr;
  });
}

const char *nnc_trainer_checkpoint_metadata(const nnc_trainer_t *trainer,
                                            const char *key) {
  if (!trainer || !key)
    return nullptr;
  auto it = trainer->loadedMetadata.find(key);
  return it == trainer->loadedMetadata.end() ? nullptr : it->second.c_str();
}

void nnc_trainer_destroy(nnc_trainer_t *trainer) { delete trainer; }

} // extern "C"
