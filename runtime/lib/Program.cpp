//===- Program.cpp - loading and running executables ----------------------===//

#include "nnc/runtime/Program.h"

#include "nnc/runtime/Collectives.h"
#include "nnc/runtime/Profiler.h"

#include <algorithm>
#include <cstring>

namespace nnc::runtime {

const char *Program::hostCpuTarget() {
#if defined(__x86_64__)
  return "x86_64-unknown-linux-gnu";
#elif defined(__aarch64__)
  return "aarch64-unknown-linux-gnu";
#else
  return "unknown-cpu";
#endif
}

Status Program::load(ExecutableReader executable, Device &device,
                     const std::string &source, std::unique_ptr<Program> &out) {
  if (!executable.isLoaded())
    return Status(StatusCode::InvalidArgument,
                  source + ": the executable is not loaded");
  std::unique_ptr<Program> program(new Program);
  program->source_ = source;
  std::string target(executable.target());
  if (!device.runsTarget(target))
    return Status(StatusCode::InvalidArgument,
                  source + ": built for target '" + target +
                      "', but this device (" + device.name() + ") runs '" +
                      device.target() + "'");
  const SectionRef *planSection = executable.findSection("plan");
  const SectionRef *code = executable.findSection("kernels");
  const SectionRef *weights = executable.findSection("weights");
  if (!planSection || planSection->kind != SectionKind::Metadata)
    return Status(StatusCode::DataLoss,
                  source + ": no metadata section named 'plan'");
  if (!code || code->kind != SectionKind::Code)
    return Status(StatusCode::DataLoss,
                  source + ": no code section named 'kernels'");
  if (weights && weights->kind != SectionKind::Weights)
    return Status(StatusCode::DataLoss,
                  source + ": section 'weights' is not a weights section");
  uint64_t weightsSize = weights ? weights->size : 0;
  NNC_RUNTIME_RETURN_IF_ERROR(parsePlan(planSection->data, planSection->size,
                                        weightsSize, source + ": plan",
                                        program->plan_));
  const Plan &plan = program->plan_;
  // From here on the destructor hands back what the program holds.
  program->device_ = &device;
  program->hostMemory_ = device.hostAccessible();

  CodeRequirements requirements;
  requirements.cpuFeatures = plan.cpuFeatures;
  requirements.needsOpenMP = plan.needsOpenMP;
  requirements.needsBlas = plan.needsBlas;
  requirements.needsDnnl = plan.needsDnnl;
  requirements.needsCollectives = plan.needsCollectives;
  NNC_RUNTIME_RETURN_IF_ERROR(device.loadModule(
      code->data, code->size, requirements, source, program->module_));
  for (const PlanStep &step : plan.steps) {
    Kernel kernel;
    Status status = program->module_->getKernel(step.kernel, kernel);
    if (!status.isOk())
      return Status(StatusCode::DataLoss, source + ": " + status.message());
    program->kernels_.push_back(kernel);
  }
  program->weights_.assign(plan.values.size(), nullptr);
  for (size_t i = 0; i < plan.values.size(); ++i) {
    const PlanValue &value = plan.values[i];
    if (value.role == ValueRole::Weight) {
      program->weights_[i] = weights->data + value.weightOffset;
      program->weightBytes_ += value.weightSize;
    }
  }
  if (program->hostMemory_ && plan.needsDnnl && weights && weights->size) {
    program->hostWeights_ = weights->data;
    program->hostWeightsSize_ = static_cast<size_t>(weights->size);
  }
  if (!program->hostMemory_)
    NNC_RUNTIME_RETURN_IF_ERROR(program->uploadWeights(weights));
  program->inputs_ = plan.indicesOf(ValueRole::Input);
  program->outputs_ = plan.indicesOf(ValueRole::Output);
  program->donatedOutputs_.assign(program->outputs_.size(), false);
  for (size_t i = 0; i < program->outputs_.size(); ++i)
    for (auto [output, input] : plan.donations)
      if (output == program->outputs_[i])
        program->donatedOutputs_[i] = true;
  program->scratch_ = plan.indicesOf(ValueRole::Scratch);
  for (uint32_t index : program->scratch_) {
    // parsePlan checked the size fits a size_t (u8 of rank 1).
    size_t bytes = static_cast<size_t>(plan.values[index].shape[0]);
    program->pooled_.push_back(index);
    program->pooledSizes_.push_back(bytes);
    program->scratchBytes_ += bytes;
  }
  if (!program->hostMemory_) {
    // Inputs and outputs get device buffers of their own, pooled like the
    // scratch blocks; a donated output lives in its input's.
    auto bytesOf = [&](uint32_t index, size_t &bytes) {
      const PlanValue &value = plan.values[index];
      int64_t elements = 0;
      return checkedShapeSize(value.shape, dtypeSize(value.dtype), elements,
                              bytes);
    };
    for (uint32_t index : program->inputs_) {
      size_t bytes = 0;
      NNC_RUNTIME_RETURN_IF_ERROR(bytesOf(index, bytes));
      program->pooled_.push_back(index);
      program->pooledSizes_.push_back(bytes);
    }
    for (size_t i = 0; i < program->outputs_.size(); ++i) {
      size_t bytes = 0;
      NNC_RUNTIME_RETURN_IF_ERROR(bytesOf(program->outputs_[i], bytes));
      program->outputBytes_.push_back(bytes);
      if (program->donatedOutputs_[i])
        continue;
      program->pooled_.push_back(program->outputs_[i]);
      program->pooledSizes_.push_back(bytes);
    }
  }
  program->freeBuffers_.resize(program->pooled_.size());
  for (const PlanStep &step : plan.steps) {
    program->maxArgs_ = std::max(program->maxArgs_, step.args.size());
    program->stepChecks_.push_back(
        plan.checksValue != Plan::kNoValue &&
        std::find(step.args.begin(), step.args.end(), plan.checksValue) !=
            step.args.end());
  }
  // One pass over the steps: the last step that touches each value.
  std::vector<int64_t> lastStep(plan.values.size(), -1);
  for (size_t s = 0; s < plan.steps.size(); ++s)
    for (uint32_t arg : plan.steps[s].args)
      lastStep[arg] = static_cast<int64_t>(s);
  program->outputReadyStep_.assign(program->outputs_.size(), -1);
  program->readyAfter_.resize(plan.steps.size());
  for (size_t i = 0; i < program->outputs_.size(); ++i) {
    program->outputReadyStep_[i] = lastStep[program->outputs_[i]];
    // A donated output is written through its input's value too (the
    // kernels may name either): it is final after the last step of both.
    for (auto [output, input] : plan.donations)
      if (output == program->outputs_[i])
        program->outputReadyStep_[i] =
            std::max(program->outputReadyStep_[i], lastStep[input]);
    if (program->outputReadyStep_[i] >= 0)
      program->readyAfter_[static_cast<size_t>(program->outputReadyStep_[i])]
          .push_back(static_cast<uint32_t>(i));
  }
  program->nameEvents();
  program->codeBytes_ = code->size;
  program->executable_ = std::move(executable);
  out = std::move(program);
  return Status::ok();
}

/// Graph replay: the device buffers every run uses (one per pooled_ entry),
/// the graph recorded on them, and the lock runs take turns with.
struct Program::GraphState {
  std::mutex mutex;
  std::vector<void *> buffers;
  std::unique_ptr<DeviceGraph> graph;
  std::atomic<uint64_t> captures{0};
};

Program::~Program() {
  // The glue's copies of these weights in its layouts (kConstantWeights):
  // another executable's weights may come to the same address.
  if (hostWeights_)
    if (libconv::ForgetConstantsFn forget = dnnlGlue().forgetConstants)
      forget(hostWeights_, hostWeightsSize_);
  if (graph_) {
    graph_->graph.reset();
    for (void *block : graph_->buffers)
      device_->deallocate(block);
  }
  for (std::vector<void *> &blocks : freeBuffers_)
    for (void *block : blocks)
      device_->deallocate(block);
  if (deviceWeights_)
    device_->deallocate(deviceWeights_);
}

Status Program::uploadWeights(const SectionRef *weights) {
  // Each weight at its own offset, aligned as cuMemAlloc aligns a whole
  // allocation: kernels may load vectors of any width from a weight.
  constexpr uint64_t kAlignment = 256;
  std::vector<uint64_t> offsets(plan_.values.size(), 0);
  uint64_t total = 0;
  bool any = false;
  for (size_t i = 0; i < plan_.values.size(); ++i) {
    const PlanValue &value = plan_.values[i];
    if (value.role != ValueRole::Weight)
      continue;
    any = true;
    // parsePlan put every weight inside the section, so this cannot wrap.
    total = (total + kAlignment - 1) / kAlignment * kAlignment;
    offsets[i] = total;
    total += value.weightSize;
  }
  if (!any)
    return Status::ok();
  Status status =
      device_->allocate(static_cast<size_t>(total), &deviceWeights_);
  if (!status.isOk())
    return Status(status.code(), source_ + ": the weights (" +
                                     std::to_string(total) +
                                     " bytes): " + status.message());
  auto *base = static_cast<uint8_t *>(deviceWeights_);
  for (size_t i = 0; i < plan_.values.size(); ++i) {
    const PlanValue &value = plan_.values[i];
    if (value.role != ValueRole::Weight)
      continue;
    status = device_->copyHostToDevice(base + offsets[i],
                                       weights->data + value.weightOffset,
                                       static_cast<size_t>(value.weightSize));
    if (!status.isOk())
      return Status(status.code(), source_ + ": weight '" + value.name +
                                       "': " + status.message());
    weights_[i] = base + offsets[i];
  }
  return Status::ok();
}

Status Program::downloadOutput(size_t output, void *host,
                               const void *device) const {
  Status status = device_->copyDeviceToHost(host, device, outputBytes_[output]);
  if (!status.isOk())
    return Status(status.code(), source_ + ": output " +
                                     std::to_string(output) + " '" +
                                     plan_.values[outputs_[output]].name +
                                     "': " + status.message());
  return Status::ok();
}

Status Program::enableGraphReplay() {
  if (graph_)
    return Status::ok();
  if (!device_->supportsGraphs())
    return Status(StatusCode::Unimplemented,
                  source_ + ": graph replay needs a device that records "
                            "graphs (CUDA: compile for the cuda target); the " +
                      std::string(device_->name()) + " device does not");
  if (plan_.needsCollectives)
    return Status(StatusCode::Unimplemented,
                  source_ + ": graph replay of a plan whose kernels call the "
                            "runtime's collectives");
  // Graph replay is for devices the host cannot reach: on one it can, the
  // callers' buffers would be in the graph.
  if (hostMemory_)
    return Status(StatusCode::Unimplemented,
                  source_ + ": graph replay on a device whose memory is the "
                            "host's");
  auto state = std::make_unique<GraphState>();
  for (size_t i = 0; i < pooled_.size(); ++i) {
    void *block = nullptr;
    Status status = device_->allocate(pooledSizes_[i], &block);
    if (!status.isOk()) {
      for (void *held : state->buffers)
        device_->deallocate(held);
      return Status(status.code(), source_ + ": graph replay's buffer for '" +
                                       plan_.values[pooled_[i]].name +
                                       "': " + status.message());
    }
    state->buffers.push_back(block);
  }
  graph_ = std::move(state);
  return Status::ok();
}

uint64_t Program::graphCaptures() const {
  return graph_ ? graph_->captures.load(std::memory_order_relaxed) : 0;
}

Status Program::replayGraph(const std::vector<void *> &buffers) const {
  Profiler &profiler = Profiler::global();
  int64_t start = profiler.enabled() ? profiler.now() : -1;
  if (!graph_->graph) {
    // Recorded once: every buffer, weight and launch configuration of a
    // run is the same in every run.
    NNC_RUNTIME_RETURN_IF_ERROR(device_->beginCapture());
    LaunchConfig config;
    std::vector<void *> args(maxArgs_);
    Status recorded = Status::ok();
    for (size_t s = 0; s < plan_.steps.size() && recorded.isOk(); ++s) {
      const PlanStep &step = plan_.steps[s];
      for (size_t a = 0; a < step.args.size(); ++a)
        args[a] = buffers[step.args[a]];
      Status launched = module_->launch(kernels_[s], args.data(),
                                        step.args.size(), config);
      if (!launched.isOk())
        recorded = Status(launched.code(),
                          source_ + ": recording step " + std::to_string(s) +
                              " '" + eventNames_[s] +
                              "': " + launched.message());
    }
    std::unique_ptr<DeviceGraph> graph;
    Status ended = device_->endCapture(graph);
    NNC_RUNTIME_RETURN_IF_ERROR(recorded);
    if (!ended.isOk())
      return Status(ended.code(),
                    source_ + ": recording the graph: " + ended.message());
    graph_->graph = std::move(graph);
    graph_->captures.fetch_add(1, std::memory_order_relaxed);
  }
  Status replayed = graph_->graph->replay();
  if (!replayed.isOk())
    return Status(replayed.code(), source_ + ": replaying the graph of " +
                                       std::to_string(plan_.steps.size()) +
                                       " steps: " + replayed.message());
  if (start >= 0) {
    uint64_t read = 0, written = 0;
    for (const PlanStep &step : plan_.steps) {
      read += step.bytesRead;
      written += step.bytesWritten;
    }
    profiler.record("kernel",
                    (label_.empty() ? std::string("program") : label_) +
                        "/graph",
                    start, profiler.now() - start,
                    std::to_string(plan_.steps.size()) +
                        " steps replayed as one graph",
                    read, written);
  }
  return Status::ok();
}

void Program::setLabel(std::string label, std::string detail) {
  label_ = std::move(label);
  detail_ = std::move(detail);
  nameEvents();
}

void Program::nameEvents() {
  eventNames_.clear();
  for (const PlanStep &step : plan_.steps) {
    const std::string &name = step.name.empty() ? step.kernel : step.name;
    eventNames_.push_back(label_.empty() ? name : label_ + "/" + name);
  }
}

Status Program::acquireBuffer(size_t which, void *&out) const {
  {
    std::lock_guard<std::mutex> lock(poolMutex_);
    std::vector<void *> &blocks = freeBuffers_[which];
    if (!blocks.empty()) {
      out = blocks.back();
      blocks.pop_back();
      return Status::ok();
    }
  }
  // None free (first run, or runs overlapping): a new block, which joins the
  // pool when this run ends.
  void *block = nullptr;
  Status status = device_->allocate(pooledSizes_[which], &block);
  if (!status.isOk()) {
    const PlanValue &value = plan_.values[pooled_[which]];
    const char *role = value.role == ValueRole::Scratch ? "scratch"
                       : value.role == ValueRole::Input ? "input"
                                                        : "output";
    return Status(status.code(), source_ + ": " + role + " '" + value.name +
                                     "': " + status.message());
  }
  out = block;
  if (which < scratch_.size())
    scratchAllocations_.fetch_add(1, std::memory_order_relaxed);
  return Status::ok();
}

void Program::releaseBuffer(size_t which, void *block) const {
  std::lock_guard<std::mutex> lock(poolMutex_);
  freeBuffers_[which].push_back(block);
}

/// Holds a run's pooled buffers (in the run's value buffers) and hands them
/// back to the pool however the run ends.
class Program::BufferLease {
public:
  BufferLease(const Program &program, std::vector<void *> &buffers)
      : program(program), buffers(buffers) {}
  ~BufferLease() {
    // Only what was acquired: the other entries may still hold the
    // caller's host pointers.
    for (size_t i = 0; i < acquired; ++i)
      program.releaseBuffer(i, buffers[program.pooled_[i]]);
  }
  BufferLease(const BufferLease &) = delete;
  BufferLease &operator=(const BufferLease &) = delete;

  Status acquire() {
    for (; acquired < program.pooled_.size(); ++acquired)
      NNC_RUNTIME_RETURN_IF_ERROR(
          program.acquireBuffer(acquired, buffers[program.pooled_[acquired]]));
    return Status::ok();
  }

private:
  const Program &program;
  std::vector<void *> &buffers;
  size_t acquired = 0;
};

uint64_t Program::plannedPeakBytes() const {
  uint64_t ioBytes = 0;
  for (size_t index = 0; index < plan_.values.size(); ++index) {
    const PlanValue &value = plan_.values[index];
    // Weights and the arena are counted below; an output written into
    // its input's buffer takes none of its own.
    bool donated = std::any_of(plan_.donations.begin(), plan_.donations.end(),
                               [&](auto pair) { return pair.first == index; });
    if (value.role == ValueRole::Weight || value.role == ValueRole::Scratch ||
        donated)
      continue;
    int64_t elements = 0;
    size_t bytes = 0;
    if (checkedShapeSize(value.shape, dtypeSize(value.dtype), elements, bytes)
            .isOk())
      ioBytes += bytes;
  }
  return ioBytes + weightBytes_ + scratchBytes_ + plan_.kernelAllocBytes;
}

namespace {

/// Whether the buffers the caller hands back for reuse fit the outputs
/// (donated outputs need none).
bool reusable(const Plan &plan, const std::vector<uint32_t> &indices,
              const std::vector<bool> &donated,
              const std::vector<HostTensor> &outputs) {
  if (outputs.size() != indices.size())
    return false;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (donated[i])
      continue;
    const PlanValue &value = plan.values[indices[i]];
    if (!outputs[i].data() || outputs[i].dtype() != value.dtype ||
        outputs[i].shape() != value.shape)
      return false;
  }
  return true;
}

/// An integer input the code was specialized on must hold those values.
Status checkSpecializedValues(const std::string &source, size_t index,
                              const PlanValue &value, const TensorRef &given) {
  auto element = [&](size_t k) {
    return readIntegerElement(value.dtype, given.data, k);
  };
  auto list = [](const std::vector<int64_t> &values) {
    std::string text = "[";
    for (size_t k = 0; k < values.size(); ++k)
      text += (k ? ", " : "") + std::to_string(values[k]);
    return text + "]";
  };
  const std::vector<int64_t> &want = value.specializedValues;
  for (size_t k = 0; k < want.size(); ++k) {
    if (element(k) == want[k])
      continue;
    std::vector<int64_t> got(want.size());
    for (size_t j = 0; j < want.size(); ++j)
      got[j] = element(j);
    return Status(StatusCode::InvalidArgument,
                  source + ": input " + std::to_string(index) + " '" +
                      value.name + "' holds " + list(got) +
                      ", but this executable was specialized on its value " +
                      list(want) +
                      " (compile it for the new value; a session does)");
  }
  return Status::ok();
}

} // namespace

Status Program::run(const std::vector<TensorRef> &inputs,
                    std::vector<HostTensor> &outputs, uint32_t threads,
                    const OutputReady *ready) const {
  if (inputs.size() != inputs_.size())
    return Status(StatusCode::InvalidArgument,
                  source_ + ": expects " + std::to_string(inputs_.size()) +
                      " inputs, got " + std::to_string(inputs.size()));
  std::vector<void *> buffers(plan_.values.size(), nullptr);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const PlanValue &value = plan_.values[inputs_[i]];
    const TensorRef &given = inputs[i];
    // Compared in place: a run with many inputs allocates nothing per input.
    if (given.dtype != value.dtype || given.rank != value.shape.size() ||
        (given.rank != 0 &&
         !std::equal(value.shape.begin(), value.shape.end(), given.dims)))
      return Status(StatusCode::InvalidArgument,
                    source_ + ": input " + std::to_string(i) + " '" +
                        value.name + "' must be " +
                        describeType(value.dtype, value.shape) + ", got " +
                        describeType(given.dtype,
                                     std::vector<int64_t>(
                                         given.dims, given.dims + given.rank)));
    int64_t elements = 0;
    size_t bytes = 0;
    NNC_RUNTIME_RETURN_IF_ERROR(
        checkedShapeSize(value.shape, dtypeSize(value.dtype), elements, bytes));
    if (given.byteSize != bytes || (bytes != 0 && !given.data))
      return Status(StatusCode::InvalidArgument,
                    source_ + ": input " + std::to_string(i) + " '" +
                        value.name + "' has " + std::to_string(given.byteSize) +
                        " bytes of data, not " + std::to_string(bytes));
    if (!value.specializedValues.empty())
      NNC_RUNTIME_RETURN_IF_ERROR(
          checkSpecializedValues(source_, i, value, given));
    // Kernels never write their inputs (the compiler marks them read-only),
    // except those the plan donates to an output.
    buffers[inputs_[i]] = const_cast<void *>(given.data);
  }
  for (size_t i = 0; i < plan_.values.size(); ++i)
    if (weights_[i])
      buffers[i] = const_cast<void *>(weights_[i]);

  bool reuse = reusable(plan_, outputs_, donatedOutputs_, outputs);
  std::vector<HostTensor> results;
  if (reuse) {
    NNC_RUNTIME_RETURN_IF_ERROR(checkNoOverlap(inputs, outputs));
    for (size_t i = 0; i < outputs_.size(); ++i)
      buffers[outputs_[i]] = outputs[i].data();
  } else {
    results.resize(outputs_.size());
    for (size_t i = 0; i < outputs_.size(); ++i) {
      if (donatedOutputs_[i])
        continue;
      const PlanValue &value = plan_.values[outputs_[i]];
      NNC_RUNTIME_RETURN_IF_ERROR(
          HostTensor::create(value.dtype, value.shape, results[i]));
      buffers[outputs_[i]] = results[i].data();
    }
  }
  // A donated output lives in its input's buffer.
  for (auto [output, input] : plan_.donations)
    buffers[output] = buffers[input];

  // On a device the host cannot reach, `buffers` so far holds the host ends
  // of the copies; the kernels get device buffers from the pool instead.
  std::vector<void *> hostOutputs;
  if (!hostMemory_) {
    hostOutputs.resize(outputs_.size());
    for (size_t i = 0; i < outputs_.size(); ++i)
      hostOutputs[i] = buffers[outputs_[i]];
  }
  // With graph replay, runs take turns on the buffers the graph records.
  std::unique_lock<std::mutex> graphTurn;
  BufferLease lease(*this, buffers);
  if (graph_) {
    graphTurn = std::unique_lock<std::mutex>(graph_->mutex);
    for (size_t i = 0; i < pooled_.size(); ++i)
      buffers[pooled_[i]] = graph_->buffers[i];
  } else {
    NNC_RUNTIME_RETURN_IF_ERROR(lease.acquire());
  }
  if (!hostMemory_) {
    for (auto [output, input] : plan_.donations)
      buffers[output] = buffers[input];
    for (size_t i = 0; i < inputs.size(); ++i) {
      Status status = device_->copyHostToDevice(
          buffers[inputs_[i]], inputs[i].data, inputs[i].byteSize);
      if (!status.isOk())
        return Status(status.code(), source_ + ": input " + std::to_string(i) +
                                         " '" + plan_.values[inputs_[i]].name +
                                         "': " + status.message());
    }
  }
  // The checks buffer starts zeroed; `slots` is the host copy each read
  // goes into (all zero until a check is set, which ends the run).
  void *checks = nullptr;
  std::vector<int64_t> slots;
  if (plan_.checksValue != Plan::kNoValue) {
    checks = buffers[plan_.checksValue];
    slots.assign(plan_.checks.size() * 4, 0);
    NNC_RUNTIME_RETURN_IF_ERROR(device_->copyHostToDevice(
        checks, slots.data(), plan_.checks.size() * Plan::kCheckSlotBytes));
  }

  // An output no step touches keeps what its host buffer holds (a donated
  // one: its input's value), as on the CPU; nothing is copied for it.
  if (ready)
    for (size_t i = 0; i < outputs_.size(); ++i)
      if (outputReadyStep_[i] < 0)
        (*ready)(i, hostMemory_ ? buffers[outputs_[i]] : hostOutputs[i]);
  if (graph_) {
    NNC_RUNTIME_RETURN_IF_ERROR(replayGraph(buffers));
    NNC_RUNTIME_RETURN_IF_ERROR(device_->synchronize());
    if (checks)
      NNC_RUNTIME_RETURN_IF_ERROR(readChecks(checks, kAfterGraph, slots));
    for (size_t i = 0; i < outputs_.size(); ++i) {
      if (outputReadyStep_[i] < 0)
        continue;
      NNC_RUNTIME_RETURN_IF_ERROR(
          downloadOutput(i, hostOutputs[i], buffers[outputs_[i]]));
      if (ready)
        (*ready)(i, hostOutputs[i]);
    }
    if (!reuse)
      outputs = std::move(results);
    return Status::ok();
  }
  LaunchConfig config;
  config.threads = threads;
  std::vector<void *> args(maxArgs_);
  Profiler &profiler = Profiler::global();
  for (size_t s = 0; s < plan_.steps.size(); ++s) {
    const PlanStep &step = plan_.steps[s];
    size_t numArgs = step.args.size();
    for (size_t a = 0; a < numArgs; ++a)
      args[a] = buffers[step.args[a]];
    int64_t start = profiler.enabled() ? profiler.now() : -1;
    Status launched =
        module_->launch(kernels_[s], args.data(), numArgs, config);
    if (!launched.isOk())
      return Status(launched.code(), source_ + ": step " + std::to_string(s) +
                                         " '" + eventNames_[s] +
                                         "': " + launched.message());
    if (start >= 0)
      profiler.record(step.kind == StepKind::Library ? "library" : "kernel",
                      eventNames_[s], start, profiler.now() - start,
                      step.detail.empty() ? detail_ : step.detail,
                      step.bytesRead, step.bytesWritten);
    if (stepChecks_[s])
      NNC_RUNTIME_RETURN_IF_ERROR(readChecks(checks, s, slots));
    if (plan_.needsCollectives) {
      Status failed = CollectiveScope::currentFailure();
      if (!failed.isOk())
        return Status(failed.code(),
                      source_ + ": step " + std::to_string(s) + " '" +
                          eventNames_[s] + "': " + failed.message());
    }
    if (ready && !readyAfter_[s].empty()) {
      NNC_RUNTIME_RETURN_IF_ERROR(device_->synchronize());
      for (uint32_t i : readyAfter_[s]) {
        if (hostMemory_) {
          (*ready)(i, buffers[outputs_[i]]);
          continue;
        }
        NNC_RUNTIME_RETURN_IF_ERROR(
            downloadOutput(i, hostOutputs[i], buffers[outputs_[i]]));
        (*ready)(i, hostOutputs[i]);
      }
    }
  }
  NNC_RUNTIME_RETURN_IF_ERROR(device_->synchronize());
  // Without `ready`, the outputs come back together after the last step
  // (with it, each came back when it was final).
  if (!hostMemory_ && !ready)
    for (size_t i = 0; i < outputs_.size(); ++i)
      if (outputReadyStep_[i] >= 0)
        NNC_RUNTIME_RETURN_IF_ERROR(
            downloadOutput(i, hostOutputs[i], buffers[outputs_[i]]));
  if (!reuse)
    outputs = std::move(results);
  return Status::ok();
}

Status Program::readChecks(const void *checks, size_t step,
                           std::vector<int64_t> &slots) const {
  NNC_RUNTIME_RETURN_IF_ERROR(device_->synchronize());
  NNC_RUNTIME_RETURN_IF_ERROR(device_->copyDeviceToHost(
      slots.data(), checks, plan_.checks.size() * Plan::kCheckSlotBytes));
  for (size_t k = 0; k < plan_.checks.size(); ++k) {
    const int64_t *slot = &slots[4 * k];
    if (slot[0] == 0)
      continue;
    std::string where = "the replayed graph";
    if (step != kAfterGraph) {
      const PlanStep &planStep = plan_.steps[step];
      where = "step " + std::to_string(step) + ", '" +
              (planStep.name.empty() ? planStep.kernel : planStep.name) + "'";
    }
    return Status(StatusCode::OutOfRange,
                  source_ + ": " + plan_.checks[k].what + ": " +
                      std::to_string(slot[1]) + " is out of range [" +
                      std::to_string(slot[2]) + ", " + std::to_string(slot[3]) +
                      ") (found by " + where + ")");
  }
  return Status::ok();
}

Status Program::checkNoOverlap(const std::vector<TensorRef> &inputs,
                               const std::vector<HostTensor> &outputs) const {
  // Sorted by start, any overlap between an input and an output shows as a
  // range starting before the furthest end reached so far by the other side.
  struct Range {
    uintptr_t begin, end;
    size_t index;
    bool isOutput;
  };
  std::vector<Range> ranges;
  ranges.reserve(inputs.size() + outputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].byteSize != 0) {
      auto begin = reinterpret_cast<uintptr_t>(inputs[i].data);
      ranges.push_back({begin, begin + inputs[i].byteSize, i, false});
    }
  for (size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].sizeInBytes() != 0) {
      auto begin = reinterpret_cast<uintptr_t>(outputs[i].data());
      ranges.push_back({begin, begin + outputs[i].sizeInBytes(), i, true});
    }
  std::sort(ranges.begin(), ranges.end(),
            [](const Range &a, const Range &b) { return a.begin < b.begin; });
  const Range *furthest[2] = {nullptr, nullptr}; // input, output
  for (const Range &range : ranges) {
    const Range *other = furthest[!range.isOutput];
    if (other && range.begin < other->end) {
      const Range &in = range.isOutput ? *other : range;
      const Range &out = range.isOutput ? range : *other;
      return Status(StatusCode::InvalidArgument,
                    source_ + ": output " + std::to_string(out.index) + " '" +
                        plan_.values[outputs_[out.index]].name +
                        "' passed back for reuse overlaps input " +
                        std::to_string(in.index) + " '" +
                        plan_.values[inputs_[in.index]].name +
                        "' (kernels assume no aliasing)");
    }
    const Range *&mine = furthest[range.isOutput];
    if (!mine || range.end > mine->end)
      mine = &range;
  }
  return Status::ok();
}

} // namespace nnc::runtime
