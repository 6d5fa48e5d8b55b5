//===- CAPITrain.cpp - trainers: building the training functions ----------===//
//
// The compile side of nnc_trainer_*: the training pipeline
// (nnc/Training/Pipeline.h, --nnc-training-pipeline) that builds the
// training functions of a model on each new shape of the graph inputs, how
// their arguments and results map to the trainer's state, and running one
// specialization. Trainer.h describes the state.
//
//===----------------------------------------------------------------------===//

#include "nnc-c/nnc.h"

#include "Trainer.h"

#include "nnc/Compiler/Compiler.h"
#include "nnc/NNCDialect.h"
#include "nnc/Training/Pipeline.h"
#include "nnc/runtime/Profiler.h"
#include "nnc/runtime/Program.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace nnc::capi;
using namespace nnc::capi::train;

namespace nnc::capi::train {

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
  rt::Status status;
  if (!out.data() || out.dtype() != dtype || out.rank() != 0)
    status = rt::HostTensor::create(dtype, {}, out);
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

/// Checks the training options; fills the pass pipeline that builds the
/// training functions.
nnc_status_t checkTrainOptions(const char *fn, const nnc_train_options_t &o) {
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

nnc::TrainingPipelineOptions pipelineFor(const nnc_train_options_t &o,
                                         StringRef function, StringRef output) {
  static const char *losses[] = {"cross_entropy", "nll", "mse"};
  static const char *optimizers[] = {"sgd", "adam", "adamw"};
  nnc::TrainingPipelineOptions options;
  options.function = function.str();
  options.output = output.str();
  options.loss = losses[o.loss];
  options.reduction = o.loss_sum ? "sum" : "mean";
  options.labelSmoothing = o.label_smoothing;
  if (o.has_ignore_index)
    options.ignoreIndex = o.ignore_index;
  options.optimizer = optimizers[o.optimizer];
  options.momentum = o.momentum;
  options.nesterov = o.nesterov;
  options.weightDecay = o.weight_decay;
  options.beta1 = o.beta1;
  options.beta2 = o.beta2;
  options.epsilon = o.epsilon;
  return options;
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
    auto names = func->getAttrOfType<ArrayAttr>(
        nnc::NNCDialect::getResultNamesAttrName());
    for (unsigned k = 0; k < func.getNumResults(); ++k) {
      StringRef name = names && k < names.size()
                           ? cast<StringAttr>(names[k]).getValue()
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
        auto it = llvm::find(
            t.trainable,
            static_cast<unsigned>(arg < numModelArgs ? slotOfArg[arg] : -1));
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

} // namespace nnc::capi::train

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

nnc_status_t nnc_trainer_s::run(const char *fn, TrainFunction &function,
                                ModuleOp built, size_t count,
                                const nnc_tensor_t *const *batch, Shapes key,
                                const std::vector<rt::HostTensor> *gradients,
                                double scale, double lr,
                                std::vector<rt::HostTensor> &out,
                                bool &compiled) {
  compiled = false;
  rt::Status status = scalar(lossType, scale, scaleTensor);
  if (status.isOk())
    status = scalar(lossType, lr, lrTensor);
  if (status.isOk() && !seedTensor.data())
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
    // Parameters, buffers and optimizer state are the trainer's own: the
    // updating functions may write their updates in place. (Not the
    // gradient function: nnc_trainer_gradients changes nothing, running
    // statistics included.)
    std::vector<std::pair<unsigned, unsigned>> donations;
    if (&function == &step || &function == &apply)
      for (auto [k, target] : llvm::enumerate(function.results))
        for (auto [j, binding] : llvm::enumerate(function.arguments))
          if ((target.sink == Sink::Slot && binding.source == Source::Slot &&
               target.index == binding.index) ||
              (target.sink == Sink::State && binding.source == Source::State &&
               target.index == binding.index))
            donations.push_back(
                {static_cast<unsigned>(k), static_cast<unsigned>(j)});
    if (nnc_status_t s =
            compileFunction(fn, built, function.name, &options, compileShapes,
                            executable, donations)) {
      function.executables.erase(key);
      return s;
    }
    compiled = true;
  }
  if (&function == &step || &function == &grad)
    lastStep = executable.get();
  // The previous generation of the outputs, if any, is written in place.
  out.swap(function.spare[key]);
  status = executable->program->run(refs, out, executable->threads);
  if (!status.isOk())
    return convertStatus(fn, status);
  return nullptr;
}

nnc_status_t nnc_trainer_s::build(const char *fn, const Shapes &inputShapes,
                                  ModuleOp &out) {
  auto it = builds.find(inputShapes);
  if (it != builds.end()) {
    out = *it->second;
    return nullptr;
  }
  MLIRContext &mlir = *context->mlir;
  DiagnosticCapture capture(mlir);
  rt::ProfileScope profile("build", modelName + " training functions");
  OwningOpRef<ModuleOp> built(cast<ModuleOp>(module->getOperation()->clone()));
  nnc::TrainingPipelineOptions options = pipeline;
  for (unsigned i = 0; i < numModelArgs; ++i) {
    if (dataOfArg[i] < 0)
      continue;
    std::string spec = std::to_string(i) + ":";
    const std::vector<int64_t> &dims = inputShapes[dataOfArg[i]];
    for (size_t d = 0; d < dims.size(); ++d)
      spec += (d ? "x" : "") + std::to_string(dims[d]);
    options.inputShapes.push_back(std::move(spec));
  }
  PassManager pm(&mlir);
  nnc::buildTrainingPipeline(pm, options);
  if (failed(pm.run(*built))) {
    std::string errors = capture.errors();
    bool unsupported = errors.find("no gradient rule") != std::string::npos;
    return makeStatus(unsupported ? NNC_STATUS_UNIMPLEMENTED
                                  : NNC_STATUS_INVALID_ARGUMENT,
                      fn, errors);
  }
  nnc::dumpIR(*built, modelName + ".training");
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
    if (!stepFn ||
        stepFn.getNumArguments() != firstState + 1 + stateNames.size())
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
