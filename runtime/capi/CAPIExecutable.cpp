//===- CAPIExecutable.cpp - load, save, inspect and run executables -------===//
//
// The executable part of include/nnc-c/runtime.h: executables are loaded
// (from a file, from memory, or from a compile in libnnc) through the
// runtime's Program on the device their target names (deviceForExecutable:
// the host CPU, or the CUDA device $NNC_CUDA_DEVICE selects), described from
// their plan, and run on host tensors.
//
//===----------------------------------------------------------------------===//

#include "nnc-c/runtime.h"

#include "Handles.h"

#include "nnc/runtime/Device.h"
#include "nnc/runtime/Executable.h"
#include "nnc/runtime/Program.h"
#include "nnc/runtime/Trainer.h"

#include <algorithm>

using namespace nnc::capi;

nnc_executable_s::~nnc_executable_s() = default;

nnc_value_kind_t nnc::capi::toKind(rt::ValueKind kind) {
  switch (kind) {
  case rt::ValueKind::Input:
    return NNC_VALUE_INPUT;
  case rt::ValueKind::Trainable:
    return NNC_VALUE_TRAINABLE;
  case rt::ValueKind::Frozen:
    return NNC_VALUE_FROZEN;
  case rt::ValueKind::Buffer:
    return NNC_VALUE_BUFFER;
  case rt::ValueKind::Output:
    return NNC_VALUE_OUTPUT;
  }
  return NNC_VALUE_INPUT;
}

std::unique_ptr<ValueInfo>
nnc::capi::describeValue(const std::string &name, rt::ValueKind kind,
                         rt::DType dtype, const std::vector<int64_t> &dims) {
  auto info = std::make_unique<ValueInfo>();
  info->name = name;
  info->dims = dims;
  info->info.name = info->name.empty() ? nullptr : info->name.c_str();
  info->info.kind = toKind(kind);
  info->info.dtype = fromRuntime(dtype);
  info->info.rank = info->dims.size();
  info->info.dims = info->dims.empty() ? nullptr : info->dims.data();
  return info;
}

namespace {

std::unique_ptr<ValueInfo> describePlanValue(const rt::PlanValue &value) {
  std::unique_ptr<ValueInfo> info =
      describeValue(value.name, value.kind, value.dtype, value.shape);
  info->specializedValues = value.specializedValues;
  info->info.specialized_count = info->specializedValues.size();
  info->info.specialized_values = info->specializedValues.empty()
                                      ? nullptr
                                      : info->specializedValues.data();
  return info;
}

} // namespace

std::unique_ptr<nnc_executable_s>
nnc::capi::wrapProgram(std::unique_ptr<rt::Program> program) {
  auto executable = std::make_unique<nnc_executable_s>();
  const rt::Plan &plan = program->plan();
  for (uint32_t i : program->inputs())
    executable->inputs.push_back(describePlanValue(plan.values[i]));
  for (uint32_t i : program->outputs())
    executable->outputs.push_back(describePlanValue(plan.values[i]));
  executable->program = std::move(program);
  return executable;
}

nnc_status_t nnc::capi::makeExecutable(const char *fn,
                                       rt::ExecutableReader reader,
                                       const std::string &source,
                                       std::unique_ptr<nnc_executable_s> &out) {
  if (rt::isSavedTrainer(reader))
    return invalidArgument(fn, source + " is a saved trainer, not the "
                                        "executable of one function (load it "
                                        "with nnc_trainer_load_file)");
  rt::Device *device = nullptr;
  rt::Status found = rt::deviceForExecutable(
      std::string(reader.target()), rt::kCudaOrdinalFromEnvironment, device);
  if (!found.isOk())
    return convertStatus(
        fn, rt::Status(found.code(), source + ": " + found.message()));
  std::unique_ptr<rt::Program> program;
  rt::Status status =
      rt::Program::load(std::move(reader), *device, source, program);
  if (!status.isOk())
    return convertStatus(fn, status);
  out = wrapProgram(std::move(program));
  return nullptr;
}

nnc_status_t nnc::capi::checkTensors(const char *fn, const char *argument,
                                     size_t count, const void *array) {
  if (count && !array)
    return invalidArgument(fn, std::string("argument '") + argument +
                                   "' is NULL but its count is " +
                                   std::to_string(count));
  return nullptr;
}

nnc_status_t
nnc::capi::runExecutable(const char *fn, nnc_executable_s *executable,
                         size_t numInputs, const nnc_tensor_t *const *inputs,
                         size_t numOutputs, nnc_tensor_t **outputs) {
  if (nnc_status_t s = checkTensors(fn, "inputs", numInputs, inputs))
    return s;
  if (nnc_status_t s = checkTensors(fn, "outputs", numOutputs, outputs))
    return s;
  if (numInputs != executable->inputs.size())
    return invalidArgument(fn, "the executable takes " +
                                   std::to_string(executable->inputs.size()) +
                                   " inputs, got " + std::to_string(numInputs));
  if (numOutputs != executable->outputs.size())
    return invalidArgument(
        fn, "the executable has " + std::to_string(executable->outputs.size()) +
                " outputs, got room for " + std::to_string(numOutputs));
  std::vector<rt::TensorRef> refs;
  for (size_t i = 0; i < numInputs; ++i) {
    const nnc_tensor_t *tensor = inputs[i];
    if (!tensor)
      return invalidArgument(fn, "input " + std::to_string(i) + " is NULL");
    rt::TensorRef ref;
    ref.dtype = toRuntime(tensor->dtype);
    ref.dims = tensor->dims.data();
    ref.rank = tensor->dims.size();
    ref.data = tensor->data;
    ref.byteSize = tensor->byteSize;
    refs.push_back(ref);
  }
  std::vector<rt::HostTensor> results;
  rt::Status status =
      executable->program->run(refs, results, executable->threads);
  if (!status.isOk())
    return convertStatus(fn, status);
  std::vector<std::unique_ptr<nnc_tensor_s>> made;
  for (rt::HostTensor &result : results)
    made.push_back(makeOwnedTensor(std::move(result)));
  for (size_t i = 0; i < made.size(); ++i)
    outputs[i] = made[i].release();
  return nullptr;
}

namespace {

nnc_status_t
valueInfo(const char *fn, const nnc_executable_t *executable, size_t index,
          const nnc_value_info_t **out,
          std::vector<std::unique_ptr<ValueInfo>> nnc_executable_s::*member) {
  if (!executable)
    return nullArgument(fn, "executable");
  if (!out)
    return nullArgument(fn, "out_info");
  const auto &values = executable->*member;
  if (index >= values.size())
    return makeStatus(NNC_STATUS_OUT_OF_RANGE, fn,
                      "index " + std::to_string(index) + " is past the " +
                          std::to_string(values.size()) + " values");
  *out = &values[index]->info;
  return nullptr;
}

} // namespace

nnc_status_t nnc::capi::programStats(const char *fn, const rt::Program &program,
                                     double compileSeconds, bool fromCache,
                                     nnc_executable_stats_t *out_stats) {
  if (!out_stats)
    return nullArgument(fn, "out_stats");
  if (out_stats->struct_size != sizeof(nnc_executable_stats_t))
    return invalidArgument(
        fn, "out_stats->struct_size is " +
                std::to_string(out_stats->struct_size) + "; expected " +
                std::to_string(sizeof(nnc_executable_stats_t)));
  nnc_executable_stats_t &out = *out_stats;
  const rt::Plan &plan = program.plan();
  out.kernel_count = static_cast<uint32_t>(plan.steps.size());
  out.library_calls = plan.libraryCalls;
  out.code_bytes = program.codeBytes();
  out.weight_bytes = program.weightBytes();
  out.peak_memory_bytes = program.plannedPeakBytes();
  out.compile_seconds = compileSeconds;
  out.from_cache = fromCache ? 1 : 0;
  out.arena_bytes = program.scratchBytes();
  out.kernel_alloc_bytes = plan.kernelAllocBytes;
  uint64_t moved = 0;
  for (const rt::PlanStep &step : plan.steps)
    moved += step.bytesRead + step.bytesWritten;
  out.bytes_moved = moved;
  out.unfused_kernel_count = plan.unfusedKernels;
  out.unfused_bytes_moved = plan.unfusedBytesMoved;
  return nullptr;
}

extern "C" {

nnc_status_t nnc_executable_load_file(const char *path,
                                      nnc_executable_t **out_executable) {
  static const char *fn = "nnc_executable_load_file";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!path)
      return nullArgument(fn, "path");
    if (!out_executable)
      return nullArgument(fn, "out_executable");
    rt::ExecutableReader reader;
    rt::Status status = rt::ExecutableReader::openFile(path, reader);
    if (!status.isOk())
      return convertStatus(fn, status);
    std::unique_ptr<nnc_executable_s> executable;
    if (nnc_status_t s =
            makeExecutable(fn, std::move(reader), path, executable))
      return s;
    *out_executable = executable.release();
    return nullptr;
  });
}

nnc_status_t nnc_executable_load_memory(const void *data, size_t size,
                                        nnc_executable_t **out_executable) {
  static const char *fn = "nnc_executable_load_memory";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!data && size)
      return nullArgument(fn, "data");
    if (!out_executable)
      return nullArgument(fn, "out_executable");
    rt::ExecutableReader reader;
    rt::Status status =
        rt::ExecutableReader::fromBytes(data, size, reader, "<memory>");
    if (!status.isOk())
      return convertStatus(fn, status);
    std::unique_ptr<nnc_executable_s> executable;
    if (nnc_status_t s =
            makeExecutable(fn, std::move(reader), "<memory>", executable))
      return s;
    *out_executable = executable.release();
    return nullptr;
  });
}

nnc_status_t nnc_executable_enable_cuda_graph(nnc_executable_t *executable) {
  static const char *fn = "nnc_executable_enable_cuda_graph";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!executable)
      return nullArgument(fn, "executable");
    return convertStatus(fn, executable->program->enableGraphReplay());
  });
}

nnc_status_t nnc_executable_save(const nnc_executable_t *executable,
                                 const char *path) {
  static const char *fn = "nnc_executable_save";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!executable)
      return nullArgument(fn, "executable");
    if (!path)
      return nullArgument(fn, "path");
    const rt::ExecutableReader &reader = executable->program->executable();
    return convertStatus(
        fn, rt::writeFileAtomically(path, reader.data(), reader.size()));
  });
}

size_t nnc_executable_input_count(const nnc_executable_t *executable) {
  return executable ? executable->inputs.size() : 0;
}

size_t nnc_executable_output_count(const nnc_executable_t *executable) {
  return executable ? executable->outputs.size() : 0;
}

nnc_status_t nnc_executable_input_info(const nnc_executable_t *executable,
                                       size_t index,
                                       const nnc_value_info_t **out_info) {
  static const char *fn = "nnc_executable_input_info";
  return guarded(fn, [&] {
    return valueInfo(fn, executable, index, out_info,
                     &nnc_executable_s::inputs);
  });
}

nnc_status_t nnc_executable_output_info(const nnc_executable_t *executable,
                                        size_t index,
                                        const nnc_value_info_t **out_info) {
  static const char *fn = "nnc_executable_output_info";
  return guarded(fn, [&] {
    return valueInfo(fn, executable, index, out_info,
                     &nnc_executable_s::outputs);
  });
}

nnc_status_t nnc_executable_stats(const nnc_executable_t *executable,
                                  nnc_executable_stats_t *out_stats) {
  static const char *fn = "nnc_executable_stats";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!executable)
      return nullArgument(fn, "executable");
    return programStats(fn, *executable->program, executable->compileSeconds,
                        executable->fromCache, out_stats);
  });
}

nnc_status_t nnc_executable_run(nnc_executable_t *executable, size_t num_inputs,
                                const nnc_tensor_t *const *inputs,
                                size_t num_outputs, nnc_tensor_t **outputs) {
  static const char *fn = "nnc_executable_run";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!executable)
      return nullArgument(fn, "executable");
    return runExecutable(fn, executable, num_inputs, inputs, num_outputs,
                         outputs);
  });
}

void nnc_executable_destroy(nnc_executable_t *executable) { delete executable; }

} // extern "C"
