//===- Program.cpp - loading and running executables ----------------------===//

#include "nnc/runtime/Program.h"

#include "nnc/runtime/Profiler.h"

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
  if (executable.target() != hostCpuTarget())
    return Status(StatusCode::InvalidArgument,
                  source + ": built for target '" +
                      std::string(executable.target()) + "', but this is '" +
                      hostCpuTarget() + "'");
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

  CodeRequirements requirements;
  requirements.cpuFeatures = plan.cpuFeatures;
  requirements.needsOpenMP = plan.needsOpenMP;
  requirements.needsBlas = plan.needsBlas;
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
  program->inputs_ = plan.indicesOf(ValueRole::Input);
  program->outputs_ = plan.indicesOf(ValueRole::Output);
  program->codeBytes_ = code->size;
  program->device_ = &device;
  program->executable_ = std::move(executable);
  out = std::move(program);
  return Status::ok();
}

Status Program::run(const std::vector<TensorRef> &inputs,
                    std::vector<HostTensor> &outputs, uint32_t threads) const {
  if (inputs.size() != inputs_.size())
    return Status(StatusCode::InvalidArgument,
                  source_ + ": expects " + std::to_string(inputs_.size()) +
                      " inputs, got " + std::to_string(inputs.size()));
  std::vector<void *> buffers(plan_.values.size(), nullptr);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const PlanValue &value = plan_.values[inputs_[i]];
    const TensorRef &given = inputs[i];
    std::vector<int64_t> shape(given.dims, given.dims + given.rank);
    if (given.dtype != value.dtype || shape != value.shape)
      return Status(StatusCode::InvalidArgument,
                    source_ + ": input " + std::to_string(i) + " '" +
                        value.name + "' must be " +
                        describeType(value.dtype, value.shape) + ", got " +
                        describeType(given.dtype, shape));
    int64_t elements = 0;
    size_t bytes = 0;
    NNC_RUNTIME_RETURN_IF_ERROR(
        checkedShapeSize(shape, dtypeSize(value.dtype), elements, bytes));
    if (given.byteSize != bytes || (bytes != 0 && !given.data))
      return Status(StatusCode::InvalidArgument,
                    source_ + ": input " + std::to_string(i) + " '" +
                        value.name + "' has " + std::to_string(given.byteSize) +
                        " bytes of data, not " + std::to_string(bytes));
    // Kernels never write their inputs (the compiler marks them read-only).
    buffers[inputs_[i]] = const_cast<void *>(given.data);
  }
  for (size_t i = 0; i < plan_.values.size(); ++i)
    if (weights_[i])
      buffers[i] = const_cast<void *>(weights_[i]);

  std::vector<HostTensor> results(outputs_.size());
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const PlanValue &value = plan_.values[outputs_[i]];
    NNC_RUNTIME_RETURN_IF_ERROR(
        HostTensor::create(value.dtype, value.shape, results[i]));
    buffers[outputs_[i]] = results[i].data();
  }

  LaunchConfig config;
  config.threads = threads;
  std::vector<void *> args;
  Profiler &profiler = Profiler::global();
  for (size_t s = 0; s < plan_.steps.size(); ++s) {
    const PlanStep &step = plan_.steps[s];
    args.clear();
    for (uint32_t a : step.args)
      args.push_back(buffers[a]);
    int64_t start = profiler.enabled() ? profiler.now() : -1;
    NNC_RUNTIME_RETURN_IF_ERROR(
        module_->launch(kernels_[s], args.data(), args.size(), config));
    if (start >= 0)
      profiler.record("kernel",
                      label_.empty() ? step.kernel : label_ + "/" + step.kernel,
                      start, profiler.now() - start, detail_);
  }
  NNC_RUNTIME_RETURN_IF_ERROR(device_->synchronize());
  outputs = std::move(results);
  return Status::ok();
}

} // namespace nnc::runtime
