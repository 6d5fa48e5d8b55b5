//===- Trainer.cpp - trainers that compile their functions ----------------===//
//
// createTrainer and the program source behind it: the training functions
// are built (Pipeline.h) from the model specialized on each new shape of
// the graph inputs, their arguments and results bound to the trainer's
// state once, and each function compiled for each data shape when a step
// first needs it.
//
//===----------------------------------------------------------------------===//

#include "nnc/Training/Trainer.h"

#include "nnc/Compiler/CompileAndLoad.h"
#include "nnc/Compiler/Diagnostics.h"
#include "nnc/Compiler/ElementTypes.h"
#include "nnc/Compiler/Pipelines.h"
#include "nnc/NNCDialect.h"
#include "nnc/NNCOps.h"
#include "nnc/runtime/Profiler.h"
#include "nnc/runtime/Program.h"
#include "nnc/runtime/Sha256.h"
#include "nnc/runtime/Trainer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>

using namespace mlir;
namespace rt = nnc::runtime;

namespace nnc {
namespace {

rt::Status invalid(std::string message) {
  return rt::Status(rt::StatusCode::InvalidArgument, std::move(message));
}
rt::Status internal(std::string message) {
  return rt::Status(rt::StatusCode::Internal, std::move(message));
}

std::string argumentName(BlockArgument arg) {
  if (auto name = dyn_cast<NameLoc>(arg.getLoc()))
    return name.getName().str();
  return "";
}

rt::ValueKind argumentKind(func::FuncOp func, unsigned index) {
  auto kind = func.getArgAttrOfType<ParamKindAttr>(
      index, NNCDialect::getParamAttrName());
  if (!kind)
    return rt::ValueKind::Input;
  switch (kind.getValue()) {
  case ParamKind::trainable:
    return rt::ValueKind::Trainable;
  case ParamKind::frozen:
    return rt::ValueKind::Frozen;
  case ParamKind::buffer:
    return rt::ValueKind::Buffer;
  }
  return rt::ValueKind::Input;
}

/// The signature of a value of `type`; fails for what a trainer cannot
/// hold or feed.
rt::Status describe(Type type, std::string name, rt::ValueKind kind,
                    const std::string &what, rt::TrainValue &out) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  FailureOr<rt::DType> dtype =
      tensor ? dtypeOf(tensor.getElementType()) : FailureOr<rt::DType>();
  if (failed(dtype)) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << type;
    return invalid(what + " has type " + text +
                   ", which a trainer cannot hold");
  }
  out.name = std::move(name);
  out.kind = kind;
  out.dtype = *dtype;
  out.dims.clear();
  for (int64_t dim : tensor.getShape())
    out.dims.push_back(ShapedType::isDynamic(dim) ? -1 : dim);
  return rt::Status::ok();
}

/// Compiles the training functions as steps need them.
class CompilingSource final : public rt::TrainProgramSource {
public:
  OwningOpRef<ModuleOp> module; // the model, values kept
  TrainingPipelineOptions pipeline;
  CompileOptions compile;
  uint32_t threads = 0;
  rt::Device *device = nullptr;
  unsigned numModelArgs = 0;
  std::vector<int> slotOfArg, dataOfArg;
  std::vector<std::string> slotNames;
  std::vector<unsigned> trainable;
  std::vector<std::string> stateNames;
  /// The element type of the parameters' low-precision copies (mixed
  /// precision's), which the gradient function and the step may take after
  /// the loss scale.
  rt::DType copyType = rt::DType::BF16;
  unsigned numData = 0;
  /// The build of the last training step's shapes (its loss function
  /// carries what mixed precision did; read when asked, not per step).
  ModuleOp lastStepBuild;
  /// What the memory budget did to the last step or gradient function
  /// compiled.
  std::optional<RematReport> lastRemat;
  /// The kernels with candidates of every program compiled so far, each
  /// key once (the first compile's), and the seconds spent measuring.
  std::vector<TunedKernel> tuning;
  double tuningSeconds = 0;

  ~CompilingSource() override {
    // The programs first, then the modules, then the model.
    for (auto &programs : programs_)
      programs.clear();
    probes_.clear();
    builds_.clear();
    module = nullptr;
  }

  rt::Status prepare(const rt::Shapes &inputShapes) override;
  const rt::TrainLayout *layout() const override {
    return bound_ ? &layout_ : nullptr;
  }
  rt::Status program(rt::TrainFunctionKind kind, const rt::Shapes &key,
                     const rt::Shapes &argumentShapes, rt::TrainProgram &out,
                     bool &compiled) override;
  std::vector<Entry> programs() const override {
    std::vector<Entry> entries;
    for (unsigned k = 0; k < rt::kNumTrainFunctionKinds; ++k)
      for (const auto &[key, made] : programs_[k])
        entries.push_back(
            {static_cast<rt::TrainFunctionKind>(k), key, made.entry});
    return entries;
  }

  rt::Status probe(const rt::Shapes &key, const rt::Shapes &argumentShapes,
                   const Probe *&out) override;

  /// What planning a step gives (MemoryAlternatives says what is
  /// counted): as configured; when asked, the smallest budget the gradient
  /// function meets (PlannedPeak::smallestBudget), the step's figure under
  /// it and the extra FLOPs; and whether the trainer's memory budget cannot
  /// be met (the status says so too).
  struct StepPlan {
    int64_t peak = 0, budget = 0, budgetPeak = 0;
    double extraFlops = 0;
    bool budgetMissed = false;
  };
  /// Plans a step of `trainer` on data of shapes `key` with the training
  /// functions built by `options` and `accumulate` micro-batches per
  /// update, in modules of its own: the trainer's are left alone.
  rt::Status plannedStep(const rt::Trainer &trainer, const rt::Shapes &key,
                         const TrainingPipelineOptions &options,
                         int64_t accumulate, bool smallest,
                         StepPlan &out) const;

private:
  rt::Status build(const rt::Shapes &inputShapes,
                   TrainingPipelineOptions options,
                   OwningOpRef<ModuleOp> &out) const;
  rt::Status bind(ModuleOp built, rt::TrainLayout &out) const;
  struct MadeProbe;
  rt::Status makeProbe(const rt::Shapes &argumentShapes, MadeProbe &made);
  rt::Status bindResults(rt::TrainFunction &f, func::FuncOp func) const;

  struct Made {
    std::unique_ptr<rt::Program> program;
    rt::TrainProgram entry;
  };
  std::map<rt::Shapes, OwningOpRef<ModuleOp>> builds_;
  ModuleOp current_; // the build of the latest prepare()
  /// Per function kind, by data shapes.
  std::map<rt::Shapes, Made> programs_[rt::kNumTrainFunctionKinds];
  /// The non-finite probes of the gradient function, by data shapes.
  struct MadeProbe {
    std::unique_ptr<rt::Program> program;
    Probe probe;
    rt::Status status; // why it could not be made (not retried per step)
  };
  std::map<rt::Shapes, MadeProbe> probes_;
  rt::TrainLayout layout_;
  bool bound_ = false;
};

/// Values are inputs of every training function: the trainer feeds them.
void takeValuesOff(ModuleOp built) {
  for (auto f : built.getOps<func::FuncOp>())
    for (unsigned i = 0; i < f.getNumArguments(); ++i)
      f.removeArgAttr(i, NNCDialect::getValueAttrName());
}

rt::Status CompilingSource::prepare(const rt::Shapes &inputShapes) {
  auto it = builds_.find(inputShapes);
  if (it != builds_.end()) {
    current_ = *it->second;
    return rt::Status::ok();
  }
  rt::ProfileScope profile("build", pipeline.function + " training functions");
  OwningOpRef<ModuleOp> built;
  NNC_RUNTIME_RETURN_IF_ERROR(build(inputShapes, pipeline, built));
  dumpIR(*built, pipeline.function + ".training");
  takeValuesOff(*built);
  // The layout of the functions is the same for every shape.
  if (!bound_) {
    NNC_RUNTIME_RETURN_IF_ERROR(bind(*built, layout_));
    bound_ = true;
  }
  current_ = *built;
  builds_[inputShapes] = std::move(built);
  return rt::Status::ok();
}

/// The training functions for graph inputs of `inputShapes`, built by
/// `options` in a module of their own (values still on the arguments).
rt::Status CompilingSource::build(const rt::Shapes &inputShapes,
                                  TrainingPipelineOptions options,
                                  OwningOpRef<ModuleOp> &out) const {
  ModuleOp model = module.get();
  MLIRContext &context = *model.getContext();
  DiagnosticCapture capture(context);
  OwningOpRef<ModuleOp> built(cast<ModuleOp>(model->clone()));
  for (unsigned i = 0; i < numModelArgs; ++i) {
    if (dataOfArg[i] < 0)
      continue;
    std::string spec = std::to_string(i) + ":";
    const std::vector<int64_t> &dims = inputShapes[dataOfArg[i]];
    for (size_t d = 0; d < dims.size(); ++d)
      spec += (d ? "x" : "") + std::to_string(dims[d]);
    options.inputShapes.push_back(std::move(spec));
  }
  PassManager pm(&context);
  buildTrainingPipeline(pm, options);
  if (failed(pm.run(*built))) {
    std::string errors = capture.errors();
    bool unsupported = errors.find("no gradient rule") != std::string::npos;
    return rt::Status(unsupported ? rt::StatusCode::Unimplemented
                                  : rt::StatusCode::InvalidArgument,
                      errors);
  }
  out = std::move(built);
  return rt::Status::ok();
}

rt::Status CompilingSource::program(rt::TrainFunctionKind kind,
                                    const rt::Shapes &key,
                                    const rt::Shapes &argumentShapes,
                                    rt::TrainProgram &out, bool &compiled) {
  compiled = false;
  if (kind == rt::TrainFunctionKind::Step ||
      kind == rt::TrainFunctionKind::Grad)
    lastStepBuild = current_;
  std::map<rt::Shapes, Made> &made = programs_[static_cast<unsigned>(kind)];
  auto found = made.find(key);
  if (found != made.end()) {
    out = found->second.entry;
    return rt::Status::ok();
  }
  if (!bound_ || !current_)
    return internal("the training functions are not built");
  const rt::TrainFunction &function = layout_[kind];
  CompileOptions options = compile;
  options.donations = rt::donationsOf(kind, function);
  // The budget is on the functions with a forward and a backward pass.
  bool gradients = kind == rt::TrainFunctionKind::Step ||
                   kind == rt::TrainFunctionKind::Grad;
  if (!gradients)
    options.memoryBudget.reset();
  std::vector<llvm::SmallVector<int64_t>> shapes;
  for (const auto &shape : argumentShapes)
    shapes.emplace_back(shape.begin(), shape.end());
  LoadedProgram loaded;
  NNC_RUNTIME_RETURN_IF_ERROR(compileAndLoad(current_, function.name, shapes,
                                             options, *device, loaded));
  if (gradients)
    lastRemat = loaded.remat;
  for (TunedKernel &kernel : loaded.tuning)
    if (llvm::none_of(tuning, [&](const TunedKernel &known) {
          return known.key == kernel.key;
        }))
      tuning.push_back(std::move(kernel));
  tuningSeconds += loaded.tuningSeconds;
  Made &entry = made[key];
  entry.program = std::move(loaded.program);
  entry.entry = {entry.program.get(), threads, loaded.seconds,
                 loaded.fromCache};
  out = entry.entry;
  compiled = true;
  return rt::Status::ok();
}

rt::Status CompilingSource::probe(const rt::Shapes &key,
                                  const rt::Shapes &argumentShapes,
                                  const Probe *&out) {
  out = nullptr;
  auto found = probes_.find(key);
  if (found != probes_.end()) {
    if (!found->second.status.isOk())
      return found->second.status;
    out = &found->second.probe;
    return rt::Status::ok();
  }
  if (!bound_ || !current_)
    return internal("the training functions are not built");
  MadeProbe &made = probes_[key];
  made.status = makeProbe(argumentShapes, made);
  if (!made.status.isOk())
    return made.status;
  out = &made.probe;
  return rt::Status::ok();
}

rt::Status CompilingSource::makeProbe(const rt::Shapes &argumentShapes,
                                      MadeProbe &made) {
  // The probe joins the build of these shapes, next to the gradient
  // function it copies.
  std::string grad = layout_[rt::TrainFunctionKind::Grad].name;
  std::string name = grad + "_probe";
  if (!current_.lookupSymbol<func::FuncOp>(name)) {
    MLIRContext &context = *module->getContext();
    DiagnosticCapture capture(context);
    PassManager pm(&context);
    buildNonFiniteProbePipeline(pm, grad);
    if (failed(pm.run(current_)))
      return internal("the non-finite probe could not be built: " +
                      capture.errors());
  }
  auto probeFn = current_.lookupSymbol<func::FuncOp>(name);
  std::vector<std::string> ops = nonFiniteProbeOps(probeFn);
  CompileOptions options = compile;
  options.donations.clear();
  // The probe returns every value: no budget applies to it.
  options.memoryBudget.reset();
  std::vector<llvm::SmallVector<int64_t>> shapes;
  for (const auto &shape : argumentShapes)
    shapes.emplace_back(shape.begin(), shape.end());
  LoadedProgram loaded;
  NNC_RUNTIME_RETURN_IF_ERROR(
      compileAndLoad(current_, name, shapes, options, *device, loaded));
  made.program = std::move(loaded.program);
  made.probe.program = {made.program.get(), threads, loaded.seconds,
                        loaded.fromCache};
  made.probe.ops = std::move(ops);
  return rt::Status::ok();
}

/// A failed planPeak as compileAndLoad reports a failed compile.
rt::Status planStatus(CompileFailure failure, std::string errors) {
  rt::StatusCode code =
      failure == CompileFailure::InvalidInput  ? rt::StatusCode::InvalidArgument
      : failure == CompileFailure::Unsupported ? rt::StatusCode::Unimplemented
                                               : rt::StatusCode::Internal;
  return rt::Status(code, std::move(errors));
}

/// Whether a memory budget updates each parameter as its gradient is ready
/// (--nnc-optimizer updates-in-backward): not where a step must be skipped
/// whole on non-finite gradients, as loss scaling needs, and only for the
/// step function (accumulation runs the gradient and apply functions).
static bool updatesInBackwardAllowed(const rt::LossScaler &scaler,
                                     int64_t accumulate) {
  return !scaler.dynamic && scaler.scale == 1.0 && accumulate <= 1;
}

rt::Status CompilingSource::plannedStep(const rt::Trainer &trainer,
                                        const rt::Shapes &key,
                                        const TrainingPipelineOptions &options,
                                        int64_t accumulate, bool smallest,
                                        StepPlan &out) const {
  out = StepPlan();
  const rt::TrainerSpec &spec = trainer.spec();
  rt::Shapes inputShapes(key.begin(), key.end() - 1);
  // The trainer's own build of these shapes, read only, when it has one.
  OwningOpRef<ModuleOp> fresh;
  ModuleOp built;
  auto found = builds_.find(inputShapes);
  if (found != builds_.end() &&
      describeTrainingPipeline(options) == describeTrainingPipeline(pipeline) &&
      options.weightCopies == pipeline.weightCopies &&
      options.updatesInBackward == pipeline.updatesInBackward) {
    built = *found->second;
  } else {
    NNC_RUNTIME_RETURN_IF_ERROR(build(inputShapes, options, fresh));
    takeValuesOff(*fresh);
    built = *fresh;
  }
  rt::TrainLayout layout;
  NNC_RUNTIME_RETURN_IF_ERROR(bind(built, layout));
  // The argument shapes Trainer::bindArguments gives (the seed, the loss
  // scale and the learning rate are scalars).
  auto shapesOf = [&](const rt::TrainFunction &function) {
    std::vector<llvm::SmallVector<int64_t>> shapes;
    for (const rt::TrainBinding &b : function.arguments) {
      std::vector<int64_t> dims;
      if (b.source == rt::TrainSource::Data && b.index < key.size())
        dims = key[b.index];
      else if (b.source == rt::TrainSource::Slot ||
               b.source == rt::TrainSource::Copy)
        dims = spec.slots[b.index].dims;
      else if (b.source == rt::TrainSource::State)
        dims = trainer.state()[b.index].shape();
      else if (b.source == rt::TrainSource::Gradient)
        dims = spec.slots[spec.trainable[b.index]].dims;
      shapes.emplace_back(dims.begin(), dims.end());
    }
    return shapes;
  };
  // With accumulation the trainer holds the gradients summed so far and
  // the optimizer state while the gradient function runs, outside its plan
  // (the step and apply functions take both as arguments: inside theirs).
  int64_t held = 0;
  std::vector<rt::TrainFunctionKind> kinds = {rt::TrainFunctionKind::Step};
  if (accumulate > 1) {
    kinds = {rt::TrainFunctionKind::Grad, rt::TrainFunctionKind::Apply};
    for (unsigned n : spec.trainable)
      held += trainer.slotValues()[n].sizeInBytes();
    for (const rt::HostTensor &tensor : trainer.state())
      held += tensor.sizeInBytes();
  }
  DiagnosticCapture capture(*module.get().getContext());
  for (rt::TrainFunctionKind kind : kinds) {
    // Compiled as program() compiles it: the same donations and budget.
    const rt::TrainFunction &function = layout[kind];
    CompileOptions planned = compile;
    planned.donations = rt::donationsOf(kind, function);
    bool gradients = kind != rt::TrainFunctionKind::Apply;
    if (!gradients)
      planned.memoryBudget.reset();
    PlannedPeak plan;
    CompileFailure failure = planPeak(built, function.name, shapesOf(function),
                                      planned, gradients && smallest, plan);
    if (failure != CompileFailure::None) {
      out.budgetMissed = plan.budgetMissed;
      return planStatus(failure, capture.errors());
    }
    int64_t outside = gradients ? held : 0;
    out.peak = std::max(out.peak, plan.peak + outside);
    if (!smallest)
      continue;
    if (gradients && plan.smallestBudget) {
      out.budget = plan.smallestBudget;
      out.extraFlops = double(plan.extraFlops) / double(plan.flops);
    }
    out.budgetPeak = std::max(
        out.budgetPeak,
        (gradients && plan.smallestBudget ? plan.budgetPeak : plan.peak) +
            outside);
  }
  if (!out.budget)
    out.budgetPeak = 0;
  return rt::Status::ok();
}

/// Results named like a slot are its new value (parameters come as
/// param<i>, running statistics under their argument's name).
rt::Status CompilingSource::bindResults(rt::TrainFunction &f,
                                        func::FuncOp func) const {
  auto names =
      func->getAttrOfType<ArrayAttr>(NNCDialect::getResultNamesAttrName());
  for (unsigned k = 0; k < func.getNumResults(); ++k) {
    StringRef name =
        names && k < names.size() ? cast<StringAttr>(names[k]).getValue() : "";
    rt::TrainResult target;
    auto slotOf = [&](unsigned arg) {
      return arg < numModelArgs ? slotOfArg[arg] : -1;
    };
    if (name == "loss") {
      target = {rt::TrainSink::Loss, 0};
    } else if (name == "found_nonfinite") {
      target = {rt::TrainSink::Found, 0};
    } else if (unsigned arg = 0; name.starts_with("low") &&
                                 !name.drop_front(3).getAsInteger(10, arg)) {
      if (slotOf(arg) < 0)
        return internal("unexpected result " + name.str());
      target = {rt::TrainSink::Copy, static_cast<unsigned>(slotOf(arg))};
    } else if (name.starts_with("param")) {
      unsigned arg = 0;
      if (name.drop_front(5).getAsInteger(10, arg) || slotOf(arg) < 0)
        return internal("unexpected result " + name.str());
      target = {rt::TrainSink::Slot, static_cast<unsigned>(slotOf(arg))};
    } else if (name.starts_with("grad") &&
               llvm::all_of(name.drop_front(4),
                            [](char c) { return llvm::isDigit(c); })) {
      unsigned arg = 0;
      (void)name.drop_front(4).getAsInteger(10, arg);
      auto it = llvm::find(trainable, static_cast<unsigned>(slotOf(arg)));
      if (slotOf(arg) < 0 || it == trainable.end())
        return internal("unexpected result " + name.str());
      target = {rt::TrainSink::Gradient,
                static_cast<unsigned>(it - trainable.begin())};
    } else if (auto it = llvm::find(stateNames, name.str());
               it != stateNames.end()) {
      target = {rt::TrainSink::State,
                static_cast<unsigned>(it - stateNames.begin())};
    } else if (auto it = llvm::find(slotNames, name.str());
               it != slotNames.end()) {
      target = {rt::TrainSink::Slot,
                static_cast<unsigned>(it - slotNames.begin())};
    }
    f.results.push_back(target);
  }
  return rt::Status::ok();
}

/// Classifies the arguments and results of the built functions and checks
/// the optimizer state against the trainer's.
rt::Status CompilingSource::bind(ModuleOp built, rt::TrainLayout &out) const {
  std::string base = pipeline.function;
  auto lookup = [&](const std::string &name) {
    return built.lookupSymbol<func::FuncOp>(name);
  };
  auto stepFn = lookup(base + "_train_step");
  auto gradFn = lookup(base + "_train_grad");
  auto applyFn = lookup(base + "_train_apply");
  if (!stepFn || !gradFn || !applyFn)
    return internal("the training functions were not built");
  bool hasSeed = gradFn.getNumArguments() > numModelArgs + 1 &&
                 argumentName(gradFn.getArgument(numModelArgs + 1)) == "seed";
  unsigned firstCopy = numModelArgs + 2 + (hasSeed ? 1 : 0);
  if (gradFn.getNumArguments() < firstCopy)
    return internal("the gradient function has an unexpected signature");
  // After the training arguments, _grad (and so _step) takes the
  // parameters' low-precision copies, low<i> for argument i.
  std::vector<rt::TrainBinding> copies;
  for (unsigned a = firstCopy; a < gradFn.getNumArguments(); ++a) {
    std::string name = argumentName(gradFn.getArgument(a));
    unsigned arg = 0;
    if (!StringRef(name).starts_with("low") ||
        StringRef(name).drop_front(3).getAsInteger(10, arg) ||
        arg >= numModelArgs || slotOfArg[arg] < 0 ||
        !llvm::is_contained(trainable, static_cast<unsigned>(slotOfArg[arg])))
      return internal("unexpected argument '" + name + "' of " +
                      gradFn.getSymName().str());
    Type element =
        cast<ShapedType>(gradFn.getArgument(a).getType()).getElementType();
    if (!(element.isBF16() && copyType == rt::DType::BF16) &&
        !(element.isF16() && copyType == rt::DType::F16))
      return internal("the copy '" + name + "' of " +
                      gradFn.getSymName().str() +
                      " is not of the trainer's copy type " +
                      rt::dtypeName(copyType));
    copies.push_back(
        {rt::TrainSource::Copy, static_cast<unsigned>(slotOfArg[arg])});
  }
  unsigned firstState = firstCopy + copies.size();
  if (stepFn.getNumArguments() != firstState + stateNames.size() + 1)
    return internal("the training step has an unexpected signature");
  for (size_t k = 0; k < stateNames.size(); ++k)
    if (argumentName(stepFn.getArgument(firstState + k)) != stateNames[k])
      return internal("unexpected optimizer state '" +
                      argumentName(stepFn.getArgument(firstState + k)) +
                      "', expected '" + stateNames[k] + "'");

  using rt::TrainSource;
  auto modelArgs = [&](rt::TrainFunction &f) {
    for (unsigned i = 0; i < numModelArgs; ++i)
      f.arguments.push_back(
          slotOfArg[i] >= 0
              ? rt::TrainBinding{TrainSource::Slot,
                                 static_cast<unsigned>(slotOfArg[i])}
              : rt::TrainBinding{TrainSource::Data,
                                 static_cast<unsigned>(dataOfArg[i])});
  };
  // The model's arguments, labels, [seed,] loss_scale, copies.
  auto trainingArgs = [&](rt::TrainFunction &f) {
    modelArgs(f);
    f.arguments.push_back({TrainSource::Data, numData - 1});
    if (hasSeed)
      f.arguments.push_back({TrainSource::Seed, 0});
    f.arguments.push_back({TrainSource::LossScale, 0});
    llvm::append_range(f.arguments, copies);
  };
  rt::TrainLayout layout;
  // _train_step(training args, state..., lr)
  rt::TrainFunction &step = layout[rt::TrainFunctionKind::Step];
  step.name = stepFn.getSymName().str();
  trainingArgs(step);
  for (unsigned s = 0; s < stateNames.size(); ++s)
    step.arguments.push_back({TrainSource::State, s});
  step.arguments.push_back({TrainSource::Lr, 0});
  NNC_RUNTIME_RETURN_IF_ERROR(bindResults(step, stepFn));
  // _train_grad(training args)
  rt::TrainFunction &grad = layout[rt::TrainFunctionKind::Grad];
  grad.name = gradFn.getSymName().str();
  trainingArgs(grad);
  if (grad.arguments.size() != gradFn.getNumArguments())
    return internal("unexpected arguments of " + grad.name);
  NNC_RUNTIME_RETURN_IF_ERROR(bindResults(grad, gradFn));
  // _train_apply(params, grads, state, lr, loss_scale)
  rt::TrainFunction &apply = layout[rt::TrainFunctionKind::Apply];
  apply.name = applyFn.getSymName().str();
  for (unsigned n = 0; n < trainable.size(); ++n)
    apply.arguments.push_back({TrainSource::Slot, trainable[n]});
  for (unsigned n = 0; n < trainable.size(); ++n)
    apply.arguments.push_back({TrainSource::Gradient, n});
  for (unsigned s = 0; s < stateNames.size(); ++s)
    apply.arguments.push_back({TrainSource::State, s});
  apply.arguments.push_back({TrainSource::Lr, 0});
  apply.arguments.push_back({TrainSource::LossScale, 0});
  if (apply.arguments.size() != applyFn.getNumArguments())
    return internal("unexpected arguments of " + apply.name);
  NNC_RUNTIME_RETURN_IF_ERROR(bindResults(apply, applyFn));
  // The model itself, for evaluation: every result is an output.
  rt::TrainFunction &eval = layout[rt::TrainFunctionKind::Eval];
  eval.name = base;
  modelArgs(eval);
  auto evalFn = lookup(base);
  if (!evalFn)
    return internal("the model function @" + base + " is gone");
  eval.results.assign(evalFn.getNumResults(), rt::TrainResult());
  out = std::move(layout);
  return rt::Status::ok();
}

} // namespace

rt::Status createTrainer(ModuleOp model, const TrainerOptions &options,
                         rt::Device &device,
                         std::unique_ptr<rt::Trainer> &out) {
  func::FuncOp original;
  for (auto func : model.getOps<func::FuncOp>()) {
    original = func;
    break;
  }
  if (!original)
    return invalid("the model holds no function");
  MLIRContext &context = *model.getContext();
  DiagnosticCapture capture(context);
  auto source = std::make_unique<CompilingSource>();
  source->module =
      OwningOpRef<ModuleOp>(cast<ModuleOp>(model.getOperation()->clone()));
  auto func = source->module->lookupSymbol<func::FuncOp>(original.getSymName());
  unsigned numModelArgs = func.getNumArguments();

  rt::TrainerSpec spec;
  spec.modelName = func.getSymName().str();
  spec.schedule = options.schedule;
  spec.accumulate = options.accumulate;
  spec.scaler = options.scaler;
  spec.seed = options.seed;
  spec.nameNonFinite = options.nameNonFinite;

  // Parameters and buffers: the arguments with initial values.
  std::vector<rt::HostTensor> slotValues;
  std::vector<int> slotOfArg(numModelArgs, -1), dataOfArg(numModelArgs, -1);
  for (unsigned i = 0; i < numModelArgs; ++i) {
    BlockArgument arg = func.getArgument(i);
    auto value =
        func.getArgAttrOfType<ElementsAttr>(i, NNCDialect::getValueAttrName());
    rt::ValueKind kind = argumentKind(func, i);
    std::string name = argumentName(arg);
    if (!value) {
      if (kind != rt::ValueKind::Input)
        return invalid("parameter '" + name + "' (argument " +
                       std::to_string(i) + ") has no initial value");
      rt::TrainValue data;
      NNC_RUNTIME_RETURN_IF_ERROR(describe(
          arg.getType(), name, kind,
          "argument " + std::to_string(i) + " ('" + name + "')", data));
      dataOfArg[i] = static_cast<int>(spec.data.size());
      spec.data.push_back(std::move(data));
      continue;
    }
    if (name.empty())
      name = "arg" + std::to_string(i);
    rt::TrainValue slot;
    NNC_RUNTIME_RETURN_IF_ERROR(
        describe(arg.getType(), name, kind, "parameter '" + name + "'", slot));
    std::vector<uint8_t> bytes;
    if (failed(appendElementBytes(value, bytes)))
      return invalid("the initial value of '" + name + "' cannot be read");
    rt::HostTensor storage;
    NNC_RUNTIME_RETURN_IF_ERROR(
        rt::HostTensor::create(slot.dtype, slot.dims, storage));
    if (bytes.size() != storage.sizeInBytes())
      return invalid("the initial value of '" + name + "' has " +
                     std::to_string(bytes.size()) + " bytes, expected " +
                     std::to_string(storage.sizeInBytes()));
    if (!bytes.empty())
      std::memcpy(storage.data(), bytes.data(), bytes.size());
    slotOfArg[i] = static_cast<int>(spec.slots.size());
    if (kind == rt::ValueKind::Trainable)
      spec.trainable.push_back(spec.slots.size());
    source->slotNames.push_back(name);
    spec.slots.push_back(std::move(slot));
    slotValues.push_back(std::move(storage));
  }
  if (spec.trainable.empty())
    return invalid("the model has no trainable parameters");

  TrainingPipelineOptions pipeline = options.pipeline;
  pipeline.function = spec.modelName;
  // Under a memory budget, each parameter is updated as soon as its
  // gradient is ready, which frees the gradient there (all of them stay
  // until the end of the step otherwise). That gives up skipping a step
  // with non-finite gradients whole, which loss scaling needs: only
  // without it (a fixed scale of 1), and for the step function alone.
  pipeline.updatesInBackward =
      options.compile.memoryBudget.has_value() &&
      updatesInBackwardAllowed(options.scaler, options.accumulate);
  spec.updatesInBackward = pipeline.updatesInBackward;

  // The labels and the loss type, from the loss attached to the model as it
  // is (that needs no static shapes): also checks the loss options against
  // the model before any batch arrives.
  {
    OwningOpRef<ModuleOp> probe(
        cast<ModuleOp>(source->module->getOperation()->clone()));
    PassManager pm(&context);
    buildLossPipeline(pm, pipeline);
    if (failed(pm.run(*probe)))
      return invalid(capture.errors());
    auto trainFn = probe->lookupSymbol<func::FuncOp>(spec.modelName + "_train");
    BlockArgument labels = trainFn.getArgument(numModelArgs);
    rt::TrainValue data;
    NNC_RUNTIME_RETURN_IF_ERROR(describe(labels.getType(), argumentName(labels),
                                         rt::ValueKind::Input, "the labels",
                                         data));
    spec.data.push_back(std::move(data));
    spec.loss = pipeline.loss;
    auto names =
        func->getAttrOfType<ArrayAttr>(NNCDialect::getResultNamesAttrName());
    if (!pipeline.output.empty() && names)
      for (unsigned k = 0; k < names.size() && k < func.getNumResults(); ++k)
        if (auto name = dyn_cast<StringAttr>(names[k]);
            name && name.getValue() == pipeline.output)
          spec.lossOutput = k;
    // Class losses take logits [N, C, ...]: labels are checked against C.
    if (pipeline.loss != "mse") {
      auto logits =
          dyn_cast<RankedTensorType>(func.getResultTypes()[spec.lossOutput]);
      if (logits && logits.getRank() >= 2 && !logits.isDynamicDim(1))
        spec.classes = logits.getDimSize(1);
      if (pipeline.ignoreIndex) {
        spec.hasIgnoreIndex = true;
        spec.ignoreIndex = *pipeline.ignoreIndex;
      }
    }
    auto lossTensor = cast<RankedTensorType>(trainFn.getResultTypes()[0]);
    spec.lossType =
        lossTensor.getElementType().isF64() ? rt::DType::F64 : rt::DType::F32;
  }

  // Optimizer state, as --nnc-optimizer lays it out (checked against the
  // built step): per trainable argument i a velocity<i> (SGD with momentum)
  // or m<i>, then v<i> (Adam, AdamW), then t; zeros at first.
  std::vector<rt::HostTensor> state;
  auto addState = [&](const std::string &prefix) -> rt::Status {
    for (unsigned n : spec.trainable) {
      unsigned arg = 0;
      while (slotOfArg[arg] != static_cast<int>(n))
        ++arg;
      spec.stateNames.push_back(prefix + std::to_string(arg));
      rt::HostTensor tensor;
      NNC_RUNTIME_RETURN_IF_ERROR(rt::HostTensor::create(
          spec.slots[n].dtype, spec.slots[n].dims, tensor));
      state.push_back(std::move(tensor));
    }
    return rt::Status::ok();
  };
  bool adam = pipeline.optimizer != "sgd";
  if (!adam && pipeline.momentum != 0.0)
    NNC_RUNTIME_RETURN_IF_ERROR(addState("velocity"));
  if (adam) {
    NNC_RUNTIME_RETURN_IF_ERROR(addState("m"));
    NNC_RUNTIME_RETURN_IF_ERROR(addState("v"));
    rt::HostTensor tensor;
    NNC_RUNTIME_RETURN_IF_ERROR(
        rt::HostTensor::create(spec.lossType, {}, tensor));
    spec.stateNames.push_back("t");
    state.push_back(std::move(tensor));
  }
  for (rt::HostTensor &tensor : state)
    if (tensor.sizeInBytes())
      std::memset(tensor.data(), 0, tensor.sizeInBytes());
  // Mixed precision's parameter copies, if the step keeps them (the
  // trainer makes them from the parameters before its first step).
  spec.copyType =
      pipeline.precision.dtype == "f16" ? rt::DType::F16 : rt::DType::BF16;

  // What a checkpoint must match: the training pipeline (loss, optimizer
  // and its settings) and the model without its values.
  {
    OwningOpRef<ModuleOp> bare(
        cast<ModuleOp>(source->module->getOperation()->clone()));
    for (auto f : bare->getOps<func::FuncOp>())
      for (unsigned i = 0; i < f.getNumArguments(); ++i)
        f.removeArgAttr(i, NNCDialect::getValueAttrName());
    std::string text = describeTrainingPipeline(pipeline) + "\n";
    llvm::raw_string_ostream os(text);
    bare->print(os, OpPrintingFlags().elideLargeElementsAttrs(64));
    rt::Sha256 hasher;
    hasher.update(text.data(), text.size());
    spec.fingerprint = rt::toHex(hasher.finish());
  }

  source->pipeline = pipeline;
  source->compile = options.compile;
  source->threads = options.threads;
  source->device = &device;
  source->numModelArgs = numModelArgs;
  source->slotOfArg = slotOfArg;
  source->dataOfArg = dataOfArg;
  source->trainable = spec.trainable;
  source->stateNames = spec.stateNames;
  source->copyType = spec.copyType;
  source->numData = spec.data.size();
  return rt::Trainer::create(std::move(spec), std::move(slotValues),
                             std::move(state), std::move(source), out);
}

} // namespace nnc

std::optional<nnc::MixedPrecisionReport>
nnc::trainerMixedPrecision(const rt::Trainer &trainer) {
  auto *source = dynamic_cast<const CompilingSource *>(&trainer.source());
  if (!source || !source->lastStepBuild)
    return std::nullopt;
  ModuleOp build = source->lastStepBuild;
  Operation *loss = build.lookupSymbol(source->pipeline.function + "_train");
  std::optional<MixedPrecisionReport> report =
      loss ? mixedPrecisionReport(loss) : std::nullopt;
  if (report && source->layout())
    for (const rt::TrainBinding &b :
         (*source->layout())[rt::TrainFunctionKind::Step].arguments)
      if (b.source == rt::TrainSource::Copy) {
        ++report->weightCopies;
        report->weightCopyBytes +=
            2 * trainer.slotValues()[b.index].numElements();
      }
  return report;
}

rt::Status nnc::trainerMemoryAlternatives(const rt::Trainer &trainer,
                                          const rt::Shapes &key,
                                          MemoryAlternatives &out) {
  auto start = std::chrono::steady_clock::now();
  out = MemoryAlternatives();
  auto *source = dynamic_cast<const CompilingSource *>(&trainer.source());
  if (!source)
    return rt::Status(rt::StatusCode::Unimplemented,
                      "the trainer was loaded from a file: it has no compiler "
                      "to plan its functions with");
  const rt::TrainerSpec &spec = trainer.spec();
  if (key.size() != spec.data.size())
    return invalid("expected the shapes of " +
                   std::to_string(spec.data.size()) + " data tensors, got " +
                   std::to_string(key.size()));
  // As configured, and at the smallest recomputation: under a budget, as
  // a trainer with one would build its step (the updates in backward where
  // allowed), which takes a build of its own when this trainer has none.
  CompilingSource::StepPlan plan;
  TrainingPipelineOptions budgeted = source->pipeline;
  budgeted.updatesInBackward =
      budgeted.updatesInBackward ||
      updatesInBackwardAllowed(spec.scaler, spec.accumulate);
  if (budgeted.updatesInBackward != source->pipeline.updatesInBackward) {
    NNC_RUNTIME_RETURN_IF_ERROR(source->plannedStep(
        trainer, key, source->pipeline, spec.accumulate, false, plan));
    int64_t current = plan.peak;
    NNC_RUNTIME_RETURN_IF_ERROR(source->plannedStep(
        trainer, key, budgeted, spec.accumulate, true, plan));
    plan.peak = current;
  } else {
    NNC_RUNTIME_RETURN_IF_ERROR(source->plannedStep(
        trainer, key, source->pipeline, spec.accumulate, true, plan));
  }
  out.current = plan.peak;
  if (plan.budget && plan.budgetPeak < out.current) {
    out.budget = plan.budget;
    out.budgetPeak = plan.budgetPeak;
    out.budgetExtraFlops = plan.extraFlops;
  }
  // An alternative keeps the trainer's memory budget: where that cannot be
  // met, the trainer could not run it (0).
  auto alternative = [&](const rt::Shapes &shapes,
                         const TrainingPipelineOptions &options,
                         int64_t accumulate, int64_t &figure) {
    rt::Status status =
        source->plannedStep(trainer, shapes, options, accumulate, false, plan);
    figure = status.isOk() ? plan.peak : 0;
    return plan.budgetMissed ? rt::Status::ok() : status;
  };
  // Mixed precision as --amp bf16 asks for it (the op policy's defaults).
  if (!source->pipeline.precision.enabled()) {
    TrainingPipelineOptions amp = source->pipeline;
    amp.precision = MixedPrecisionOptions();
    amp.precision.dtype = "bf16";
    NNC_RUNTIME_RETURN_IF_ERROR(
        alternative(key, amp, spec.accumulate, out.amp));
  }
  // Micro-batches: the batch dimension (the first of every data tensor,
  // free in the signature; flattened labels hold it too) divided by its
  // smallest factor of 2 or more.
  bool free = !key.empty() && !key[0].empty();
  for (size_t i = 0; free && i < key.size(); ++i)
    free = !key[i].empty() && !spec.data[i].dims.empty() &&
           spec.data[i].dims[0] == -1;
  int64_t batch = free ? key[0][0] : 0, factor = 2;
  while (factor <= batch && batch % factor)
    ++factor;
  if (free && factor <= batch) {
    rt::Shapes micro = key;
    for (std::vector<int64_t> &dims : micro)
      dims[0] /= factor;
    NNC_RUNTIME_RETURN_IF_ERROR(alternative(micro, source->pipeline,
                                            spec.accumulate * factor,
                                            out.accumulateBytes));
    if (out.accumulateBytes)
      out.accumulate = spec.accumulate * factor;
  }
  out.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return rt::Status::ok();
}

const std::vector<nnc::TunedKernel> *
nnc::trainerTuning(const rt::Trainer &trainer, double &seconds) {
  seconds = 0;
  auto *source = dynamic_cast<const CompilingSource *>(&trainer.source());
  if (!source)
    return nullptr;
  seconds = source->tuningSeconds;
  return &source->tuning;
}

std::optional<nnc::RematReport> nnc::trainerRemat(const rt::Trainer &trainer) {
  auto *source = dynamic_cast<const CompilingSource *>(&trainer.source());
  if (!source)
    return std::nullopt;
  return source->lastRemat;
}
