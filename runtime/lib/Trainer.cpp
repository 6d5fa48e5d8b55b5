//===- Trainer.cpp - running compiled training functions ------------------===//
//
// Steps with gradient accumulation and loss scaling, gradients, evaluation
// and checkpoints over the programs a TrainProgramSource hands out.
// SavedTrainer.cpp writes and reads whole trainers.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/Trainer.h"

#include "nnc/runtime/Checkpoint.h"
#include "nnc/runtime/Collectives.h"
#include "nnc/runtime/Profiler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

namespace nnc::runtime {

namespace {

using Clock = std::chrono::steady_clock;

Status invalid(std::string message) {
  return Status(StatusCode::InvalidArgument, std::move(message));
}

Status scalar(DType dtype, double value, HostTensor &out) {
  if (!out.data() || out.dtype() != dtype || out.rank() != 0)
    NNC_RUNTIME_RETURN_IF_ERROR(HostTensor::create(dtype, {}, out));
  if (dtype == DType::F64)
    *out.dataAs<double>() = value;
  else
    *out.dataAs<float>() = static_cast<float>(value);
  return Status::ok();
}

double scalarValue(const HostTensor &tensor) {
  return tensor.dtype() == DType::F64 ? *tensor.dataAs<double>()
                                      : *tensor.dataAs<float>();
}

/// sum += value, elementwise (f32 or f64 of one shape).
void addInto(HostTensor &sum, const HostTensor &value) {
  int64_t n = sum.numElements();
  if (sum.dtype() == DType::F64) {
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

TensorRef refOf(const HostTensor &tensor) {
  TensorRef ref;
  ref.dtype = tensor.dtype();
  ref.dims = tensor.shape().data();
  ref.rank = tensor.shape().size();
  ref.data = tensor.data();
  ref.byteSize = tensor.sizeInBytes();
  return ref;
}

Status copyOf(const HostTensor &tensor, HostTensor &out) {
  NNC_RUNTIME_RETURN_IF_ERROR(
      HostTensor::create(tensor.dtype(), tensor.shape(), out));
  if (tensor.sizeInBytes())
    std::memcpy(out.data(), tensor.data(), tensor.sizeInBytes());
  return Status::ok();
}

std::string signatureText(const TrainValue &value) {
  std::string text = std::string(dtypeName(value.dtype)) + " [";
  for (size_t d = 0; d < value.dims.size(); ++d)
    text +=
        (d ? ", " : "") +
        (value.dims[d] < 0 ? std::string("?") : std::to_string(value.dims[d]));
  return text + "]";
}

bool matches(const TrainValue &value, const TensorRef &ref) {
  if (ref.dtype != value.dtype || ref.rank != value.dims.size())
    return false;
  for (size_t d = 0; d < ref.rank; ++d)
    if (value.dims[d] >= 0 && value.dims[d] != ref.dims[d])
      return false;
  return true;
}

} // namespace

const char *trainFunctionKindName(TrainFunctionKind kind) {
  switch (kind) {
  case TrainFunctionKind::Step:
    return "step";
  case TrainFunctionKind::Grad:
    return "grad";
  case TrainFunctionKind::Apply:
    return "apply";
  case TrainFunctionKind::Eval:
    return "eval";
  }
  return "unknown";
}

std::string shapeText(const std::vector<int64_t> &dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

std::vector<std::pair<unsigned, unsigned>>
donationsOf(TrainFunctionKind kind, const TrainFunction &function) {
  std::vector<std::pair<unsigned, unsigned>> donations;
  if (kind != TrainFunctionKind::Step && kind != TrainFunctionKind::Apply)
    return donations;
  for (size_t k = 0; k < function.results.size(); ++k) {
    const TrainResult &result = function.results[k];
    for (size_t j = 0; j < function.arguments.size(); ++j) {
      const TrainBinding &binding = function.arguments[j];
      if (result.index == binding.index &&
          ((result.sink == TrainSink::Slot &&
            binding.source == TrainSource::Slot) ||
           (result.sink == TrainSink::State &&
            binding.source == TrainSource::State) ||
           (result.sink == TrainSink::Copy &&
            binding.source == TrainSource::Copy)))
        donations.push_back(
            {static_cast<unsigned>(k), static_cast<unsigned>(j)});
    }
  }
  return donations;
}

TrainProgramSource::~TrainProgramSource() = default;

Status Trainer::create(TrainerSpec spec, std::vector<HostTensor> slotValues,
                       std::vector<HostTensor> state,
                       std::unique_ptr<TrainProgramSource> source,
                       std::unique_ptr<Trainer> &out) {
  if (!source)
    return Status(StatusCode::Internal, "a trainer needs a program source");
  if (slotValues.size() != spec.slots.size() ||
      state.size() != spec.stateNames.size())
    return Status(StatusCode::Internal,
                  "trainer values do not match its signature");
  auto same = [](const HostTensor &tensor, DType dtype,
                 const std::vector<int64_t> &dims) {
    return tensor.dtype() == dtype && tensor.shape() == dims;
  };
  for (size_t i = 0; i < slotValues.size(); ++i)
    if (!same(slotValues[i], spec.slots[i].dtype, spec.slots[i].dims))
      return Status(StatusCode::Internal, "the value of '" +
                                              spec.slots[i].name +
                                              "' does not match its signature");
  for (unsigned n : spec.trainable)
    if (n >= spec.slots.size())
      return Status(StatusCode::Internal, "a trainable index is out of range");
  if (spec.data.empty())
    return Status(StatusCode::Internal, "a trainer needs labels");
  if (spec.accumulate < 1)
    return invalid("accumulate must be at least 1, got " +
                   std::to_string(spec.accumulate));
  NNC_RUNTIME_RETURN_IF_ERROR(validateLrSchedule(spec.schedule));
  NNC_RUNTIME_RETURN_IF_ERROR(spec.scaler.validate());
  std::unique_ptr<Trainer> trainer(new Trainer());
  trainer->scaler_ = spec.scaler;
  trainer->spec_ = std::move(spec);
  trainer->slots_ = std::move(slotValues);
  trainer->state_ = std::move(state);
  trainer->copies_.resize(trainer->slots_.size());
  trainer->source_ = std::move(source);
  out = std::move(trainer);
  return Status::ok();
}

Status Trainer::checkData(std::vector<TensorRef> &batch, size_t expected,
                          Shapes &key, std::vector<int64_t> &flatDims) const {
  if (batch.size() != expected)
    return invalid("expected " + std::to_string(expected) +
                   " data tensors, got " + std::to_string(batch.size()));
  key.clear();
  int64_t samples = -1;
  auto checkSamples = [&](const TrainValue &value, int64_t count) -> Status {
    if (samples >= 0 && count != samples)
      return invalid("data '" + value.name + "' has " + std::to_string(count) +
                     " samples, the others " + std::to_string(samples));
    samples = count;
    return Status::ok();
  };
  for (size_t i = 0; i < batch.size(); ++i) {
    const TrainValue &value = spec_.data[i];
    TensorRef &ref = batch[i];
    bool isLabels = i + 1 == spec_.data.size();
    bool flattened = false;
    if (isLabels && value.dims.size() == 1 && ref.rank > 1 &&
        ref.dtype == value.dtype) {
      NNC_RUNTIME_RETURN_IF_ERROR(checkSamples(value, ref.dims[0]));
      int64_t total = 1;
      for (size_t d = 0; d < ref.rank; ++d)
        total *= ref.dims[d];
      flatDims = {total};
      ref.dims = flatDims.data();
      ref.rank = 1;
      flattened = true;
    }
    if (!matches(value, ref))
      return invalid(
          "data '" + value.name + "' must be " + signatureText(value) +
          ", got " + dtypeName(ref.dtype) + " " +
          shapeText(std::vector<int64_t>(ref.dims, ref.dims + ref.rank)));
    if (ref.rank && !flattened)
      NNC_RUNTIME_RETURN_IF_ERROR(checkSamples(value, ref.dims[0]));
    if (isLabels && spec_.classes > 0 && ref.dtype == DType::I64 && ref.data)
      NNC_RUNTIME_RETURN_IF_ERROR(checkLabels(value, ref));
    key.emplace_back(ref.dims, ref.dims + ref.rank);
  }
  return Status::ok();
}

Status Trainer::checkLabels(const TrainValue &value,
                            const TensorRef &labels) const {
  const int64_t *data = static_cast<const int64_t *>(labels.data);
  size_t count = labels.byteSize / sizeof(int64_t);
  for (size_t i = 0; i < count; ++i) {
    int64_t label = data[i];
    if ((label >= 0 && label < spec_.classes) ||
        (spec_.hasIgnoreIndex && label == spec_.ignoreIndex))
      continue;
    return invalid("data '" + value.name + "': label " + std::to_string(label) +
                   " at position " + std::to_string(i) +
                   " of the batch is out of range for " +
                   std::to_string(spec_.classes) + " classes" +
                   (spec_.hasIgnoreIndex
                        ? " (and is not the ignored label " +
                              std::to_string(spec_.ignoreIndex) + ")"
                        : std::string()));
  }
  return Status::ok();
}

double Trainer::learningRate() const {
  return nnc::runtime::learningRate(spec_.schedule, steps_);
}

int64_t Trainer::outputCount() const {
  const TrainLayout *layout = source_->layout();
  return layout ? static_cast<int64_t>(
                      (*layout)[TrainFunctionKind::Eval].results.size())
                : -1;
}

Status Trainer::prepare(const Shapes &key, bool withEval, bool &compiled) {
  compiled = false;
  if (key.size() != spec_.data.size())
    return invalid("expected the shapes of " +
                   std::to_string(spec_.data.size()) + " data tensors, got " +
                   std::to_string(key.size()));
  Shapes inputs(key.begin(), key.end() - 1);
  NNC_RUNTIME_RETURN_IF_ERROR(source_->prepare(inputs));
  std::vector<std::pair<TrainFunctionKind, Shapes>> wanted;
  if (spec_.accumulate == 1 && !communicator_) {
    wanted.push_back({TrainFunctionKind::Step, key});
  } else {
    wanted.push_back({TrainFunctionKind::Grad, key});
    wanted.push_back({TrainFunctionKind::Apply, Shapes{}});
  }
  if (withEval)
    wanted.push_back({TrainFunctionKind::Eval, inputs});
  for (auto &[kind, shapes] : wanted) {
    // Running on tensors of the right shapes makes the same program; the
    // argument shapes come from the bindings.
    const TrainFunction &function = (*source_->layout())[kind];
    Shapes argumentShapes;
    for (const TrainBinding &b : function.arguments) {
      switch (b.source) {
      case TrainSource::Data:
        if (b.index >= shapes.size())
          return Status(StatusCode::Internal, "missing data");
        argumentShapes.push_back(shapes[b.index]);
        break;
      case TrainSource::Slot:
      case TrainSource::Copy:
        argumentShapes.push_back(spec_.slots[b.index].dims);
        break;
      case TrainSource::State:
        argumentShapes.push_back(state_[b.index].shape());
        break;
      case TrainSource::Gradient:
        argumentShapes.push_back(spec_.slots[spec_.trainable[b.index]].dims);
        break;
      case TrainSource::Seed:
      case TrainSource::LossScale:
      case TrainSource::Lr:
        argumentShapes.push_back({});
        break;
      }
    }
    TrainProgram program;
    bool made = false;
    NNC_RUNTIME_RETURN_IF_ERROR(
        source_->program(kind, shapes, argumentShapes, program, made));
    compiled |= made;
  }
  return Status::ok();
}

Status TrainProgramSource::probe(const Shapes &, const Shapes &,
                                 const Probe *&out) {
  out = nullptr;
  return Status(StatusCode::Unimplemented,
                "this trainer's programs were loaded, not compiled: it has "
                "no probe to name the value");
}

Status TrainProgramSource::enableGraphReplay() {
  return Status(StatusCode::InvalidArgument,
                "this trainer compiles its programs: CUDA graphs are a "
                "compile option of it (cuda_graph, --cuda-graph), not a "
                "switch after it is made");
}

Status Trainer::bindArguments(TrainFunctionKind kind,
                              const std::vector<TensorRef> *batch,
                              const std::vector<HostTensor> *gradients,
                              double scale, double lr,
                              std::vector<TensorRef> &refs, Shapes &shapes) {
  NNC_RUNTIME_RETURN_IF_ERROR(scalar(spec_.lossType, scale, scaleTensor_));
  NNC_RUNTIME_RETURN_IF_ERROR(scalar(spec_.lossType, lr, lrTensor_));
  if (!seedTensor_.data())
    NNC_RUNTIME_RETURN_IF_ERROR(
        HostTensor::create(DType::I64, {}, seedTensor_));
  // Each micro-batch gets its own key: SplitMix64 of the seed and the draw
  // count.
  auto mix = [](uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  uint64_t key = draws_;
  if (communicator_)
    key += static_cast<uint64_t>(communicator_->rank());
  uint64_t seed = mix(spec_.seed ^ mix(key));
  std::memcpy(seedTensor_.data(), &seed, sizeof(seed));

  const TrainFunction &function = (*source_->layout())[kind];
  // Low-precision copies that are not the rounded parameters (none made
  // yet, or the parameters changed without them) are made again.
  if (!copiesFresh_) {
    bool made = false;
    for (const TrainBinding &b : function.arguments)
      if (b.source == TrainSource::Copy) {
        NNC_RUNTIME_RETURN_IF_ERROR(HostTensor::rounded(
            slots_[b.index], spec_.copyType, copies_[b.index]));
        made = true;
      }
    copiesFresh_ = made;
  }
  refs.clear();
  shapes.clear();
  for (const TrainBinding &b : function.arguments) {
    TensorRef ref;
    switch (b.source) {
    case TrainSource::Data:
      if (!batch || b.index >= batch->size())
        return Status(StatusCode::Internal, "missing data");
      ref = (*batch)[b.index];
      break;
    case TrainSource::Slot:
      ref = refOf(slots_[b.index]);
      break;
    case TrainSource::LossScale:
      ref = refOf(scaleTensor_);
      break;
    case TrainSource::Seed:
      ref = refOf(seedTensor_);
      break;
    case TrainSource::Lr:
      ref = refOf(lrTensor_);
      break;
    case TrainSource::State:
      ref = refOf(state_[b.index]);
      break;
    case TrainSource::Copy:
      ref = refOf(copies_[b.index]);
      break;
    case TrainSource::Gradient:
      if (!gradients || b.index >= gradients->size())
        return Status(StatusCode::Internal, "missing gradients");
      ref = refOf((*gradients)[b.index]);
      break;
    }
    refs.push_back(ref);
    shapes.emplace_back(ref.dims, ref.dims + ref.rank);
  }
  return Status::ok();
}

Status Trainer::lookup(TrainFunctionKind kind,
                       const std::vector<TensorRef> *batch, const Shapes &key,
                       const std::vector<HostTensor> *gradients, double scale,
                       double lr, std::vector<TensorRef> &refs,
                       TrainProgram &program, bool &compiled) {
  compiled = false;
  Shapes shapes;
  NNC_RUNTIME_RETURN_IF_ERROR(
      bindArguments(kind, batch, gradients, scale, lr, refs, shapes));
  auto start = Clock::now();
  Status found = source_->program(kind, key, shapes, program, compiled);
  if (counting_)
    counters_.hostSeconds +=
        std::chrono::duration<double>(Clock::now() - start).count();
  NNC_RUNTIME_RETURN_IF_ERROR(found);
  if (kind == TrainFunctionKind::Step || kind == TrainFunctionKind::Grad) {
    lastStep_ = program;
    hasLastStep_ = true;
  }
  return Status::ok();
}

Status Trainer::run(TrainFunctionKind kind, const std::vector<TensorRef> *batch,
                    const Shapes &key, const std::vector<HostTensor> *gradients,
                    double scale, double lr, std::vector<HostTensor> &out,
                    bool &compiled, const Program::OutputReady *ready) {
  std::vector<TensorRef> refs;
  TrainProgram program;
  NNC_RUNTIME_RETURN_IF_ERROR(
      lookup(kind, batch, key, gradients, scale, lr, refs, program, compiled));
  // The previous generation of the outputs, if any, is written in place.
  out.swap(spare_[static_cast<unsigned>(kind)][key]);
  return runProgram(*program.program, refs, out, program.threads, ready);
}

void Trainer::takeResults(TrainFunctionKind kind,
                          std::vector<HostTensor> &outputs, bool applyUpdates,
                          double &loss, bool &found,
                          std::vector<HostTensor> *gradients) {
  const TrainFunction &f = (*source_->layout())[kind];
  found = false;
  // A function that updates a parameter with a copy without making copies
  // (the optimizer's functions make all of them or none) leaves them stale.
  if (applyUpdates && copiesFresh_ &&
      std::none_of(f.results.begin(), f.results.end(),
                   [](const TrainResult &r) {
                     return r.sink == TrainSink::Copy;
                   }))
    for (const TrainResult &r : f.results)
      if (r.sink == TrainSink::Slot && copies_[r.index].data())
        copiesFresh_ = false;
  for (size_t k = 0; k < outputs.size() && k < f.results.size(); ++k)
    if (f.results[k].sink == TrainSink::Found)
      found = *outputs[k].dataAs<uint8_t>() != 0;
  for (size_t k = 0; k < outputs.size() && k < f.results.size(); ++k) {
    const TrainResult &target = f.results[k];
    // A result without a buffer was written in place, into the slot,
    // state or copy it updates (a donation).
    if ((target.sink == TrainSink::Slot || target.sink == TrainSink::State ||
         target.sink == TrainSink::Copy) &&
        !outputs[k].data())
      continue;
    switch (target.sink) {
    case TrainSink::Ignore:
    case TrainSink::Found:
      break;
    case TrainSink::Loss:
      loss = scalarValue(outputs[k]);
      break;
    case TrainSink::Slot:
      // Parameters and state are left as they were on a skipped step
      // anyway (the kernel selects the old values), running statistics
      // too. The replaced tensors stay in `outputs` for the next run.
      // A step updated in backward kept the old values from the first
      // non-finite gradient on, and the updates before it stand.
      if (applyUpdates &&
          (!found || (spec_.updatesInBackward &&
                      kind == TrainFunctionKind::Step)))
        std::swap(slots_[target.index], outputs[k]);
      break;
    case TrainSink::State:
      if (applyUpdates)
        std::swap(state_[target.index], outputs[k]);
      break;
    case TrainSink::Copy:
      // The rounded new parameters (the old ones on a skipped step).
      if (applyUpdates)
        std::swap(copies_[target.index], outputs[k]);
      break;
    case TrainSink::Gradient:
      if (gradients)
        (*gradients)[target.index] = std::move(outputs[k]);
      break;
    }
  }
}

Status Trainer::step(const std::vector<TensorRef> &batch, const Shapes &key,
                     StepResult &out) {
  auto start = Clock::now();
  ProfileScope profile("step", "train step");
  out.nonFinite.clear();
  out.probeSeconds = 0;
  // Every return below counts the call's time.
  struct Count {
    Trainer &trainer;
    Clock::time_point start;
    ~Count() {
      trainer.counters_.stepSeconds +=
          std::chrono::duration<double>(Clock::now() - start).count();
      trainer.counting_ = false;
    }
  } count{*this, start};
  counting_ = true;
  ++counters_.calls;
  if (!batch.empty())
    counters_.samples += batch.front().rank ? batch.front().dims[0] : 1;
  auto preparing = Clock::now();
  Status prepared = source_->prepare(Shapes(key.begin(), key.end() - 1));
  counters_.hostSeconds +=
      std::chrono::duration<double>(Clock::now() - preparing).count();
  NNC_RUNTIME_RETURN_IF_ERROR(prepared);
  double scale = scaler_.scale;
  double lr = learningRate();
  int64_t accumulate = spec_.accumulate;
  bool compiled = false, applied = false, found = false;
  double loss = 0;
  std::vector<HostTensor> outputs;
  auto &spare = spare_;
  auto recycle = [&spare](TrainFunctionKind kind, const Shapes &key,
                          std::vector<HostTensor> &outputs) {
    spare[static_cast<unsigned>(kind)][key].swap(outputs);
  };
  // Data-parallel steps take the gradient path: the ranks' gradients are
  // summed between the gradient computation and the update.
  if (accumulate == 1 && !communicator_) {
    NNC_RUNTIME_RETURN_IF_ERROR(run(TrainFunctionKind::Step, &batch, key,
                                    nullptr, scale, lr, outputs, compiled));
    takeResults(TrainFunctionKind::Step, outputs, /*applyUpdates=*/true, loss,
                found, nullptr);
    recycle(TrainFunctionKind::Step, key, outputs);
    applied = true;
  } else {
    if (communicator_ && microSteps_ + 1 == accumulate) {
      // The last micro-batch of a data-parallel step: its gradients join
      // the sums and the sums are all-reduced, bucket by bucket, as
      // backward writes them.
      Status status = reducedGradients(batch, key, scale, lr, loss, compiled);
      if (!status.isOk()) {
        microSteps_ = 0;
        accumulated_.clear();
        return status;
      }
    } else {
      std::vector<HostTensor> gradients(spec_.trainable.size());
      NNC_RUNTIME_RETURN_IF_ERROR(run(TrainFunctionKind::Grad, &batch, key,
                                      nullptr, scale, lr, outputs, compiled));
      // The micro-batch updates the running statistics as a forward pass of
      // that batch does in PyTorch.
      bool ignored = false;
      takeResults(TrainFunctionKind::Grad, outputs, /*applyUpdates=*/true, loss,
                  ignored, &gradients);
      if (microSteps_ == 0) {
        accumulated_ = std::move(gradients);
      } else {
        for (size_t n = 0; n < gradients.size(); ++n)
          addInto(accumulated_[n], gradients[n]);
      }
    }
    if (++microSteps_ == accumulate) {
      // The mean of the micro-batch gradients (of every rank's): the update
      // divides by the scale times the number of micro-batches.
      bool applyCompiled = false;
      std::vector<HostTensor> appliedOutputs;
      double micro = static_cast<double>(accumulate);
      if (communicator_)
        micro *= communicator_->size();
      Status status =
          run(TrainFunctionKind::Apply, nullptr, Shapes{}, &accumulated_,
              scale * micro, lr, appliedOutputs, applyCompiled);
      if (!status.isOk()) {
        // The update did not run: the accumulation is dropped whole (its
        // micro-batches would otherwise count twice or never apply).
        microSteps_ = 0;
        accumulated_.clear();
        return status;
      }
      double unused = 0;
      takeResults(TrainFunctionKind::Apply, appliedOutputs,
                  /*applyUpdates=*/true, unused, found, nullptr);
      recycle(TrainFunctionKind::Apply, Shapes{}, appliedOutputs);
      compiled |= applyCompiled;
      microSteps_ = 0;
      accumulated_.clear();
      applied = true;
      if (communicator_ && dpOptions_.broadcastBuffers)
        NNC_RUNTIME_RETURN_IF_ERROR(broadcastBuffers());
    }
  }
  // Named before the seed moves on: the probe reruns the last micro-batch
  // as its gradient computation saw it.
  if (applied && found) {
    nameNonFinite(batch, key, scale, lr, out);
    counters_.hostSeconds += out.probeSeconds;
    if (spec_.updatesInBackward && accumulate == 1 && !communicator_)
      return Status(
          StatusCode::InvalidArgument,
          "step " + std::to_string(steps_ + 1) +
              ": the gradients were not finite; first non-finite value: " +
              out.nonFinite +
              ". Under a memory budget without loss scaling the step "
              "updates each parameter as soon as its gradient is ready, so "
              "it cannot be skipped whole: the parameters whose gradients "
              "were complete before the first non-finite one were updated, "
              "the others (and Adam's step count) were not, and all stay "
              "finite. With a loss scale, such steps are skipped whole");
  }
  draws_ += communicator_ ? static_cast<uint64_t>(communicator_->size()) : 1;
  if (applied && scaler_.update(found))
    ++steps_;
  // The step was skipped (parameters and state untouched); skipping more
  // would not help.
  if (applied && found && scaler_.collapsed())
    return Status(StatusCode::InvalidArgument,
                  "the loss scale collapsed: the gradients were not finite "
                  "again and the dynamic scale fell to " +
                      formatDouble(scaler_.scale) + ", below its floor " +
                      formatDouble(scaler_.minScale) +
                      "; gradients that are not finite at any scale come "
                      "from NaN or inf in the data or the model, not from "
                      "an overflow of the low precision");
  out.loss = loss;
  out.applied = applied;
  out.skipped = applied && found;
  out.learningRate = lr;
  out.lossScale = scale;
  out.step = steps_;
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  out.compiled = compiled;
  return Status::ok();
}

void Trainer::nameNonFinite(const std::vector<TensorRef> &batch,
                            const Shapes &key, double scale, double lr,
                            StepResult &out) {
  if (!spec_.nameNonFinite) {
    out.nonFinite = "not named: naming it is off (name_nonfinite = 0)";
    return;
  }
  auto start = Clock::now();
  ProfileScope profile("probe", "non-finite probe");
  std::vector<TensorRef> refs;
  Shapes shapes;
  const TrainProgramSource::Probe *probe = nullptr;
  std::vector<HostTensor> flags;
  Status status = bindArguments(TrainFunctionKind::Grad, &batch, nullptr, scale,
                                lr, refs, shapes);
  if (status.isOk())
    status = source_->probe(key, shapes, probe);
  if (status.isOk())
    status = probe->program.program->run(refs, flags, probe->program.threads);
  if (status.isOk() &&
      (flags.size() != 1 || flags[0].dtype() != DType::F32 ||
       flags[0].numElements() != static_cast<int64_t>(probe->ops.size())))
    status =
        Status(StatusCode::Internal, "the probe returned an unexpected result");
  out.probeSeconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  if (!status.isOk()) {
    out.nonFinite = "not named: " + status.message();
    return;
  }
  const float *entries = flags[0].dataAs<float>();
  for (size_t k = 0; k < probe->ops.size(); ++k) {
    if (std::isnan(entries[k])) {
      out.nonFinite = probe->ops[k];
      return;
    }
  }
  if (communicator_)
    out.nonFinite = "not named: every value of rank " +
                    std::to_string(communicator_->rank()) +
                    "'s last micro-batch is finite; another rank's (or an "
                    "earlier micro-batch) was not";
  else
    out.nonFinite = spec_.accumulate > 1
                        ? "not named: every value of the last micro-batch is "
                          "finite, an earlier micro-batch of the step was not"
                        : "not named: every value of the probe's rerun is "
                          "finite";
}

Status Trainer::gradients(const std::vector<TensorRef> &batch,
                          const Shapes &key, double &loss,
                          std::vector<HostTensor> &out) {
  NNC_RUNTIME_RETURN_IF_ERROR(
      source_->prepare(Shapes(key.begin(), key.end() - 1)));
  std::vector<HostTensor> outputs;
  bool compiled = false;
  NNC_RUNTIME_RETURN_IF_ERROR(run(TrainFunctionKind::Grad, &batch, key, nullptr,
                                  1.0, learningRate(), outputs, compiled));
  out.clear();
  out.resize(spec_.trainable.size());
  bool found = false;
  loss = 0;
  takeResults(TrainFunctionKind::Grad, outputs, /*applyUpdates=*/false, loss,
              found, &out);
  return Status::ok();
}

Status Trainer::evaluate(const std::vector<TensorRef> &inputs,
                         const Shapes &key, std::vector<HostTensor> &outputs) {
  NNC_RUNTIME_RETURN_IF_ERROR(source_->prepare(key));
  bool compiled = false;
  outputs.clear();
  return run(TrainFunctionKind::Eval, &inputs, key, nullptr, 1.0, 0.0, outputs,
             compiled);
}

Status Trainer::stateCheckpoint(Checkpoint &checkpoint) const {
  if (microSteps_ != 0)
    return invalid("in the middle of a gradient accumulation (" +
                   std::to_string(microSteps_) + " of " +
                   std::to_string(spec_.accumulate) +
                   " micro-batches); checkpoints are taken between "
                   "optimizer steps");
  checkpoint.setString("nnc.fingerprint", spec_.fingerprint);
  checkpoint.setInt("nnc.step", steps_);
  checkpoint.setString("nnc.draws", std::to_string(draws_));
  checkpoint.setString("nnc.seed", std::to_string(spec_.seed));
  scaler_.save(checkpoint.metadata, "nnc.loss_scaler.");
  for (size_t i = 0; i < slots_.size(); ++i) {
    NpzEntry entry;
    entry.name = spec_.slots[i].name;
    NNC_RUNTIME_RETURN_IF_ERROR(copyOf(slots_[i], entry.tensor));
    checkpoint.tensors.push_back(std::move(entry));
  }
  for (size_t k = 0; k < state_.size(); ++k) {
    NpzEntry entry;
    entry.name = "optimizer." + spec_.stateNames[k];
    NNC_RUNTIME_RETURN_IF_ERROR(copyOf(state_[k], entry.tensor));
    checkpoint.tensors.push_back(std::move(entry));
  }
  return Status::ok();
}

Status Trainer::saveCheckpoint(
    const std::string &path,
    const std::map<std::string, std::string> &userMetadata) {
  Checkpoint checkpoint;
  for (const auto &[key, value] : userMetadata)
    checkpoint.setString("user." + key, value);
  NNC_RUNTIME_RETURN_IF_ERROR(stateCheckpoint(checkpoint));
  ProfileScope profile("io", "checkpoint write");
  return writeCheckpoint(path, checkpoint);
}

Status Trainer::loadCheckpoint(const Checkpoint &checkpoint) {
  const std::string &source = checkpoint.source;
  auto dataLoss = [&](const std::string &what) {
    return Status(StatusCode::DataLoss, "checkpoint " + source + ": " + what);
  };
  std::string fingerprint;
  NNC_RUNTIME_RETURN_IF_ERROR(
      checkpoint.getString("nnc.fingerprint", fingerprint));
  if (fingerprint != spec_.fingerprint)
    return invalid("checkpoint " + source +
                   " was written for another model or training configuration "
                   "(loss, optimizer and its settings must match)");
  int64_t steps = 0;
  NNC_RUNTIME_RETURN_IF_ERROR(checkpoint.getInt("nnc.step", steps));
  if (steps < 0)
    return dataLoss("negative step count");
  LossScaler scaler;
  NNC_RUNTIME_RETURN_IF_ERROR(
      scaler.load(checkpoint.metadata, "nnc.loss_scaler."));
  std::string drawsText;
  NNC_RUNTIME_RETURN_IF_ERROR(checkpoint.getString("nnc.draws", drawsText));
  int64_t draws = 0;
  if (!parseInt64(drawsText, "nnc.draws", draws).isOk() || draws < 0)
    return dataLoss("nnc.draws is not a count");
  // Everything is checked before anything changes.
  std::vector<const HostTensor *> slotValues, stateValues;
  for (size_t i = 0; i < slots_.size(); ++i) {
    const HostTensor *value = nullptr;
    NNC_RUNTIME_RETURN_IF_ERROR(checkCheckpointTensor(
        checkpoint, spec_.slots[i].name, spec_.slots[i].dtype,
        spec_.slots[i].dims, &value));
    slotValues.push_back(value);
  }
  for (size_t k = 0; k < state_.size(); ++k) {
    const HostTensor *value = nullptr;
    NNC_RUNTIME_RETURN_IF_ERROR(
        checkCheckpointTensor(checkpoint, "optimizer." + spec_.stateNames[k],
                              state_[k].dtype(), state_[k].shape(), &value));
    stateValues.push_back(value);
  }
  for (size_t i = 0; i < slots_.size(); ++i)
    if (slotValues[i]->sizeInBytes())
      std::memcpy(slots_[i].data(), slotValues[i]->data(),
                  slotValues[i]->sizeInBytes());
  for (size_t k = 0; k < state_.size(); ++k)
    if (stateValues[k]->sizeInBytes())
      std::memcpy(state_[k].data(), stateValues[k]->data(),
                  stateValues[k]->sizeInBytes());
  copiesFresh_ = false;
  steps_ = steps;
  draws_ = static_cast<uint64_t>(draws);
  scaler_ = scaler;
  microSteps_ = 0;
  accumulated_.clear();
  loadedMetadata_.clear();
  for (const auto &[key, value] : checkpoint.metadata)
    if (key.compare(0, 5, "user.") == 0)
      loadedMetadata_[key.substr(5)] = value;
  return Status::ok();
}

Status Trainer::loadCheckpoint(const std::string &path) {
  Checkpoint checkpoint;
  NNC_RUNTIME_RETURN_IF_ERROR(readCheckpoint(path, checkpoint));
  return loadCheckpoint(checkpoint);
}

} // namespace nnc::runtime
