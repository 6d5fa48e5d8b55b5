//===- CAPITrainer.cpp - trainers: the C API ------------------------------===//
//
// nnc_trainer_create and the calls that use a trainer: steps (with gradient
// accumulation and loss scaling), gradients, evaluation and parameters.
//
//===----------------------------------------------------------------------===//

#include "nnc-c/nnc.h"

#include "Trainer.h"

#include "nnc/Compiler/Compiler.h"
#include "nnc/InitAll.h"
#include "nnc/NNCDialect.h"
#include "nnc/runtime/Profiler.h"
#include "nnc/runtime/Sha256.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassManager.h"

#include <chrono>
#include <cstring>

using namespace mlir;
using namespace nnc::capi;
using namespace nnc::capi::train;

using Clock = std::chrono::steady_clock;

namespace nnc::capi::train {

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
        expectedText +=
            (d ? ", " : "") +
            (want[d] < 0 ? std::string("?") : std::to_string(want[d]));
      expectedText += "]";
      return invalidArgument(fn, "data '" + info.name + "' must be " +
                                     nnc_dtype_name(info.info.dtype) + " " +
                                     expectedText + ", got " +
                                     nnc_dtype_name(tensor->dtype) + " " +
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
    // A result without a buffer was written in place, into the slot or
    // state it updates (a donation).
    if ((target.sink == Sink::Slot || target.sink == Sink::State) &&
        !outputs[k].data())
      continue;
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
      // The replaced tensors stay in `outputs` for the next run to write.
      if (applyUpdates && !found)
        std::swap(t.slots[target.index].value->storage, outputs[k]);
      break;
    case Sink::State:
      if (applyUpdates)
        std::swap(t.state[target.index], outputs[k]);
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

} // namespace nnc::capi::train

namespace {

nnc_status_t outOfRange(const char *fn, size_t index, size_t count,
                        const char *what) {
  return makeStatus(NNC_STATUS_OUT_OF_RANGE, fn,
                    "index " + std::to_string(index) + " is past the " +
                        std::to_string(count) + " " + what);
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
      if (nnc_status_t s = checkOptions(fn, "compile_options", compile_options))
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
        return invalidArgument(fn, "the initial value of '" + slot.info->name +
                                       "' cannot be read");
      rt::HostTensor storage;
      rt::Status status = rt::HostTensor::create(
          toRuntime(slot.info->info.dtype), slot.info->dims, storage);
      if (!status.isOk())
        return convertStatus(fn, status);
      if (bytes.size() != storage.sizeInBytes())
        return invalidArgument(fn, "the initial value of '" + slot.info->name +
                                       "' has " + std::to_string(bytes.size()) +
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
    {
      OwningOpRef<ModuleOp> probe(
          cast<ModuleOp>(t->module->getOperation()->clone()));
      PassManager pm(&mlir);
      nnc::buildLossPipeline(pm, t->pipeline);
      if (failed(pm.run(*probe)))
        return invalidArgument(fn, capture.errors());
      auto trainFn = probe->lookupSymbol<func::FuncOp>(t->modelName + "_train");
      BlockArgument labels = trainFn.getArgument(numModelArgs);
      t->data.push_back(
          describe(labels.getType(), labels.getLoc(), NNC_VALUE_INPUT));
      auto lossTensor = cast<RankedTensorType>(trainFn.getResultTypes()[0]);
      t->lossType =
          lossTensor.getElementType().isF64() ? rt::DType::F64 : rt::DType::F32;
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
      std::string text = nnc::describeTrainingPipeline(t->pipeline) + "\n";
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
      return outOfRange(fn, index, trainer->data.size(), "data tensors");
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
    rt::ProfileScope profile("step", "train step");
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
      nnc_trainer_s::recycle(t.step, key, outputs);
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
        takeResults(t, t.apply, applied_outputs, /*applyUpdates=*/true, unused,
                    found, nullptr);
        nnc_trainer_s::recycle(t.apply, Shapes{}, applied_outputs);
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
    if (nnc_status_t s = checkData(fn, t, count, inputs, t.data.size() - 1, key,
                                   storage, flattened))
      return s;
    ModuleOp built;
    if (nnc_status_t s = t.build(fn, key, built))
      return s;
    auto func = built.lookupSymbol<func::FuncOp>(t.eval.name);
    if (num_outputs != func.getNumResults())
      return invalidArgument(
          fn, "the model has " + std::to_string(func.getNumResults()) +
                  " outputs, got room for " + std::to_string(num_outputs));
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
      return outOfRange(fn, index, trainer->slots.size(), "parameters");
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

void nnc_trainer_destroy(nnc_trainer_t *trainer) { delete trainer; }

} // extern "C"

nnc_status_t nnc_trainer_step_stats(const nnc_trainer_t *trainer,
                                    nnc_executable_stats_t *out_stats) {
  static const char *fn = "nnc_trainer_step_stats";
  if (!trainer)
    return makeStatus(NNC_STATUS_INVALID_ARGUMENT, fn,
                      "argument 'trainer' is NULL");
  if (!trainer->lastStep)
    return makeStatus(NNC_STATUS_NOT_FOUND, fn, "no training step has run yet");
  return nnc_executable_stats(trainer->lastStep, out_stats);
}
