//===- CudaDeviceTest.cpp - the CUDA device and device selection ----------===//
//
// Without a GPU: a missing driver is a clear status (and not remembered, so
// a later call may load one), the device for an executable follows its
// target and NNC_CUDA_DEVICE, and an executable for CUDA is refused by the
// CPU device naming both targets. A Program on a device whose memory the
// host cannot reach (a stand-in over host memory, OffHostDevice) uploads
// its weights once, runs its kernels on device buffers only, copies inputs
// in and outputs (donated ones too) out, and hands `ready` host memory.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/CudaDriver.h"
#include "nnc/runtime/CudaModule.h"
#include "nnc/runtime/Device.h"
#include "nnc/runtime/Plan.h"
#include "nnc/runtime/Program.h"

#include <gtest/gtest.h>

#include "TestUtils.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>

using namespace nnc::runtime;
using nnc::runtime::test::contains;
using nnc::runtime::test::Environment;

namespace {

/// Why this machine has no CUDA device, or "" when it has one.
std::string whyNoCudaDevice() {
  CudaDriver driver;
  Status status = CudaDriver::load(driver);
  if (!status.isOk())
    return status.message();
  int count = 0;
  if (driver.cuInit(0) != 0 || driver.cuDeviceGetCount(&count) != 0 ||
      count == 0)
    return "no CUDA device";
  return "";
}

Status loadExecutable(const std::string &target, const Plan &plan,
                      const std::vector<uint8_t> &code,
                      const std::vector<uint8_t> &weights, Device &device,
                      std::unique_ptr<Program> &out) {
  ExecutableWriter writer(target);
  NNC_RUNTIME_RETURN_IF_ERROR(
      writer.addSection(SectionKind::Metadata, "plan", serializePlan(plan)));
  NNC_RUNTIME_RETURN_IF_ERROR(
      writer.addSection(SectionKind::Code, "kernels", code));
  if (!weights.empty())
    NNC_RUNTIME_RETURN_IF_ERROR(
        writer.addSection(SectionKind::Weights, "weights", weights));
  std::vector<uint8_t> bytes;
  NNC_RUNTIME_RETURN_IF_ERROR(writer.serialize(bytes));
  ExecutableReader reader;
  NNC_RUNTIME_RETURN_IF_ERROR(
      ExecutableReader::fromBytes(bytes.data(), bytes.size(), reader, "exe"));
  return Program::load(std::move(reader), device, "exe", out);
}

PlanValue value(ValueRole role, ValueKind kind, const char *name, DType dtype,
                std::vector<int64_t> shape) {
  PlanValue v;
  v.role = role;
  v.kind = kind;
  v.name = name;
  v.dtype = dtype;
  v.shape = std::move(shape);
  return v;
}

} // namespace

TEST(CudaDeviceTest, MissingDriverIsNamedAndNotRemembered) {
  Environment environment;
  environment.set("NNC_CUDA_DRIVER", "/nonexistent/libcuda.so.1");
  Device *device = reinterpret_cast<Device *>(1);
  Status status = getCudaDevice(0, device);
  EXPECT_EQ(status.code(), StatusCode::Unavailable) << status.toString();
  EXPECT_TRUE(contains(status, "/nonexistent/libcuda.so.1"))
      << status.toString();
  EXPECT_EQ(device, nullptr);
  // Asked again, it tries again (with the same result here).
  Status again = getCudaDevice(0, device);
  EXPECT_EQ(again.code(), StatusCode::Unavailable);
  EXPECT_TRUE(contains(again, "/nonexistent/libcuda.so.1")) << again.toString();
}

TEST(CudaDeviceTest, DeviceForACudaExecutable) {
  Environment environment;
  environment.set("NNC_CUDA_DEVICE", nullptr);
  std::string why = whyNoCudaDevice();
  Device *device = nullptr;
  Status status = deviceForExecutable(kCudaExecutableTarget,
                                      kCudaOrdinalFromEnvironment, device);
  if (why.empty()) {
    ASSERT_TRUE(status.isOk()) << status.toString();
    EXPECT_STREQ(device->name(), "cuda");
    EXPECT_FALSE(device->hostAccessible());
    EXPECT_TRUE(device->runsTarget(kCudaExecutableTarget));
    EXPECT_FALSE(device->runsTarget(Program::hostCpuTarget()));
    // One device per ordinal for the whole process.
    Device *same = nullptr;
    ASSERT_TRUE(getCudaDevice(0, same).isOk());
    EXPECT_EQ(same, device);
    // An ordinal past the last names the count.
    Status past = getCudaDevice(1 << 20, same);
    EXPECT_EQ(past.code(), StatusCode::InvalidArgument);
    EXPECT_TRUE(contains(past, "does not exist: this machine has"))
        << past.toString();
  } else {
    // No driver: its load error; a driver without devices: "no CUDA
    // device".
    EXPECT_EQ(status.code(), StatusCode::Unavailable) << status.toString();
    EXPECT_TRUE(contains(status, "CUDA")) << status.toString();
    EXPECT_TRUE(contains(status, why == "no CUDA device" ? why : "libcuda"))
        << status.toString();
    EXPECT_EQ(device, nullptr);
  }
}

TEST(CudaDeviceTest, OrdinalFromTheEnvironment) {
  Environment environment;
  int ordinal = -1;
  environment.set("NNC_CUDA_DEVICE", nullptr);
  ASSERT_TRUE(cudaOrdinalFromEnvironment(ordinal).isOk());
  EXPECT_EQ(ordinal, 0);
  environment.set("NNC_CUDA_DEVICE", "3");
  ASSERT_TRUE(cudaOrdinalFromEnvironment(ordinal).isOk());
  EXPECT_EQ(ordinal, 3);
  for (const char *bad : {"-1", "x1", "1x", " 1", "+1", "99999999999"}) {
    environment.set("NNC_CUDA_DEVICE", bad);
    Status status = cudaOrdinalFromEnvironment(ordinal);
    EXPECT_EQ(status.code(), StatusCode::InvalidArgument) << bad;
    EXPECT_TRUE(contains(status, std::string("NNC_CUDA_DEVICE is '") + bad +
                                     "', not a CUDA device ordinal"))
        << status.toString();
  }
  // A malformed ordinal fails a CUDA executable before any driver is
  // opened, and does not concern a CPU one.
  environment.set("NNC_CUDA_DEVICE", "gpu0");
  Device *device = nullptr;
  EXPECT_ERROR(deviceForExecutable(kCudaExecutableTarget,
                                   kCudaOrdinalFromEnvironment, device),
               "NNC_CUDA_DEVICE is 'gpu0'");
  EXPECT_TRUE(deviceForExecutable(Program::hostCpuTarget(),
                                  kCudaOrdinalFromEnvironment, device)
                  .isOk());
}

TEST(CudaDeviceTest, DeviceForACpuExecutable) {
  Device *device = nullptr;
  ASSERT_TRUE(deviceForExecutable(Program::hostCpuTarget(), 0, device).isOk());
  EXPECT_EQ(device, &getCpuDevice());
  EXPECT_STREQ(device->name(), "cpu");
  EXPECT_TRUE(device->hostAccessible());
  EXPECT_TRUE(device->runsTarget(Program::hostCpuTarget()));
  EXPECT_FALSE(device->runsTarget(kCudaExecutableTarget));
}

TEST(CudaDeviceTest, UnknownTargetIsNamed) {
  Device *device = reinterpret_cast<Device *>(1);
  Status status = deviceForExecutable("riscv64-unknown-elf", 0, device);
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(contains(status, "target 'riscv64-unknown-elf'"))
      << status.toString();
  EXPECT_EQ(device, nullptr);
}

TEST(CudaDeviceTest, CpuDeviceRefusesACudaExecutable) {
  Plan plan;
  plan.values = {
      value(ValueRole::Input, ValueKind::Input, "x", DType::F32, {4}),
      value(ValueRole::Output, ValueKind::Output, "y", DType::F32, {4})};
  PlanStep step;
  step.kernel = "nnc_kernel_0";
  step.args = {0, 1};
  plan.steps = {step};
  CudaModule module;
  module.source = "extern \"C\" __global__ void k(char *x, char *y) {}";
  module.images.push_back({CudaImage::Kind::Ptx, 80, {'/', '/', 0}});
  module.kernels.push_back({"nnc_kernel_0", 2, {{"k", 1, 4, 0}}});
  std::unique_ptr<Program> program;
  Status status =
      loadExecutable(kCudaExecutableTarget, plan, serializeCudaModule(module),
                     {}, getCpuDevice(), program);
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(contains(status, std::string("exe: built for target '") +
                                   kCudaExecutableTarget +
                                   "', but this device (cpu) runs '" +
                                   Program::hostCpuTarget() + "'"))
      << status.toString();
}

namespace {

class OffHostModule;

/// A launch recorded by OffHostDevice's capture.
struct RecordedLaunch {
  OffHostModule *module;
  Kernel kernel;
  std::vector<void *> args;
  LaunchConfig config;
};

/// A device whose memory the host is not to touch: host memory underneath
/// (so that the CPU test kernels run on it), but every buffer a kernel gets
/// must lie in one of its allocations, and `allocationsLeft` (when not
/// negative) makes allocations fail once spent. It records graphs as CUDA
/// does: launches between beginCapture and endCapture are kept, not run,
/// and any copy or allocation meanwhile is an error.
class OffHostDevice : public Device {
public:
  const char *name() const override { return "off-host"; }
  bool hostAccessible() const override { return false; }
  bool runsTarget(const std::string &target) const override {
    return cpu.runsTarget(target);
  }
  std::string target() const override { return cpu.target(); }

  Status allocate(size_t bytes, void **out) override {
    NNC_RUNTIME_RETURN_IF_ERROR(notCapturing("allocation"));
    std::lock_guard<std::mutex> lock(mutex);
    if (allocationsLeft == 0)
      return Status(StatusCode::OutOfRange,
                    "cannot allocate " + std::to_string(bytes) + " bytes");
    if (allocationsLeft > 0)
      --allocationsLeft;
    NNC_RUNTIME_RETURN_IF_ERROR(cpu.allocate(bytes, out));
    live[*out] = bytes;
    order.push_back(*out);
    return Status::ok();
  }
  void deallocate(void *pointer) override {
    std::lock_guard<std::mutex> lock(mutex);
    live.erase(pointer);
    cpu.deallocate(pointer);
  }
  Status copyHostToDevice(void *device, const void *host,
                          size_t bytes) override {
    NNC_RUNTIME_RETURN_IF_ERROR(check(device, bytes, "copy to the device"));
    NNC_RUNTIME_RETURN_IF_ERROR(notCapturing("copy to the device"));
    ++copiesIn;
    return cpu.copyHostToDevice(device, host, bytes);
  }
  Status copyDeviceToHost(void *host, const void *device,
                          size_t bytes) override {
    NNC_RUNTIME_RETURN_IF_ERROR(check(device, bytes, "copy from the device"));
    NNC_RUNTIME_RETURN_IF_ERROR(notCapturing("copy from the device"));
    if (host && owns(host))
      return Status(StatusCode::Internal, "copy to device memory as host");
    ++copiesOut;
    return cpu.copyDeviceToHost(host, device, bytes);
  }
  Status loadModule(const uint8_t *code, size_t size,
                    const CodeRequirements &requirements,
                    const std::string &source,
                    std::unique_ptr<DeviceModule> &out) override;
  Status synchronize() override {
    NNC_RUNTIME_RETURN_IF_ERROR(notCapturing("synchronize"));
    return cpu.synchronize();
  }

  bool supportsGraphs() const override { return graphs; }
  Status beginCapture() override {
    if (!graphs)
      return Device::beginCapture();
    if (capturing)
      return Status(StatusCode::Internal, "capture within a capture");
    capturing = true;
    recording.clear();
    ++captures;
    return Status::ok();
  }
  Status endCapture(std::unique_ptr<DeviceGraph> &out) override;

  Status notCapturing(const std::string &what) const {
    if (!capturing)
      return Status::ok();
    return Status(StatusCode::Internal, what + " while capturing");
  }

  /// Whether `pointer` lies in a live allocation.
  bool owns(const void *pointer) const {
    std::lock_guard<std::mutex> lock(mutex);
    auto p = reinterpret_cast<uintptr_t>(pointer);
    for (auto [base, bytes] : live) {
      auto b = reinterpret_cast<uintptr_t>(base);
      if (p >= b && p < b + std::max<size_t>(bytes, 1))
        return true;
    }
    return false;
  }
  Status check(const void *pointer, size_t bytes, const std::string &what) {
    if (bytes == 0 || owns(pointer))
      return Status::ok();
    return Status(StatusCode::Internal, what + " of host memory");
  }

  mutable std::mutex mutex;
  std::map<void *, size_t> live;
  std::vector<void *> order; // every allocation, in order
  int allocationsLeft = -1;
  int copiesIn = 0, copiesOut = 0;
  /// Per launch, the buffers the kernel got.
  std::vector<std::vector<void *>> launches;
  bool graphs = false;
  bool capturing = false;
  int captures = 0, replays = 0;
  std::vector<RecordedLaunch> recording;

private:
  Device &cpu = getCpuDevice();
};

/// The CPU module, refusing a launch with a buffer outside the device.
class OffHostModule : public DeviceModule {
public:
  OffHostModule(OffHostDevice &device, std::unique_ptr<DeviceModule> cpu)
      : device(device), cpu(std::move(cpu)) {}
  Status getKernel(const std::string &name, Kernel &out) override {
    return cpu->getKernel(name, out);
  }
  Status launch(const Kernel &kernel, void *const *args, size_t numArgs,
                const LaunchConfig &config) override {
    for (size_t i = 0; i < numArgs; ++i)
      if (!device.owns(args[i]))
        return Status(StatusCode::Internal,
                      kernel.name + " got host memory as argument " +
                          std::to_string(i));
    if (device.capturing) {
      device.recording.push_back(
          {this, kernel, std::vector<void *>(args, args + numArgs), config});
      return Status::ok();
    }
    device.launches.emplace_back(args, args + numArgs);
    return cpu->launch(kernel, args, numArgs, config);
  }

private:
  OffHostDevice &device;
  std::unique_ptr<DeviceModule> cpu;
};

class OffHostGraph : public DeviceGraph {
public:
  OffHostGraph(OffHostDevice &device, std::vector<RecordedLaunch> launches)
      : device(device), launches(std::move(launches)) {}
  Status replay() override {
    ++device.replays;
    for (RecordedLaunch &launch : launches)
      NNC_RUNTIME_RETURN_IF_ERROR(
          launch.module->launch(launch.kernel, launch.args.data(),
                                launch.args.size(), launch.config));
    return Status::ok();
  }

private:
  OffHostDevice &device;
  std::vector<RecordedLaunch> launches;
};

Status OffHostDevice::endCapture(std::unique_ptr<DeviceGraph> &out) {
  if (!graphs)
    return Device::endCapture(out);
  if (!capturing)
    return Status(StatusCode::Internal, "end of a capture never begun");
  capturing = false;
  out = std::make_unique<OffHostGraph>(*this, std::move(recording));
  recording.clear();
  return Status::ok();
}

Status OffHostDevice::loadModule(const uint8_t *code, size_t size,
                                 const CodeRequirements &requirements,
                                 const std::string &source,
                                 std::unique_ptr<DeviceModule> &out) {
  std::unique_ptr<DeviceModule> module;
  NNC_RUNTIME_RETURN_IF_ERROR(
      cpu.loadModule(code, size, requirements, source, module));
  out = std::make_unique<OffHostModule>(*this, std::move(module));
  return Status::ok();
}

std::vector<uint8_t> testKernels() {
  std::ifstream in(NNC_RUNTIME_TEST_KERNELS, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

/// TestKernels.cpp's plan: x f32[4] -> (y f32[4], where i64[1]) through the
/// arena u8[256]: stage(x, arena, where), finish(arena, y). With `weights`,
/// finish reads the weight w f32[4] instead of the arena (y = w + 1), and a
/// weight b f32[1] lies before it in the section.
Plan offHostPlan(bool weights) {
  Plan plan;
  plan.values = {
      value(ValueRole::Input, ValueKind::Input, "x", DType::F32, {4}),
      value(ValueRole::Scratch, ValueKind::Buffer, "arena", DType::U8, {256}),
      value(ValueRole::Output, ValueKind::Output, "y", DType::F32, {4}),
      value(ValueRole::Output, ValueKind::Output, "where", DType::I64, {1}),
  };
  PlanStep stage;
  stage.kernel = "nnc_test_stage";
  stage.args = {0, 1, 3};
  PlanStep finish;
  finish.kernel = "nnc_test_finish";
  finish.args = {1, 2};
  if (weights) {
    PlanValue b =
        value(ValueRole::Weight, ValueKind::Frozen, "b", DType::F32, {1});
    b.weightOffset = 0;
    b.weightSize = 4;
    PlanValue w =
        value(ValueRole::Weight, ValueKind::Trainable, "w", DType::F32, {4});
    w.weightOffset = 4;
    w.weightSize = 16;
    plan.values.push_back(b); // 4
    plan.values.push_back(w); // 5
    finish.args = {5, 2};
  }
  plan.steps = {stage, finish};
  return plan;
}

const int64_t kFour[] = {4};

TensorRef refOf(const float *data) {
  TensorRef ref;
  ref.dtype = DType::F32;
  ref.dims = kFour;
  ref.rank = 1;
  ref.data = data;
  ref.byteSize = 4 * sizeof(float);
  return ref;
}

} // namespace

// Inputs go in, outputs come out, kernels see device memory only, and the
// buffers come from a pool: sequential runs allocate nothing after the
// first.
TEST(OffHostProgramTest, CopiesInputsInAndOutputsOut) {
  OffHostDevice device;
  std::unique_ptr<Program> program;
  Status status = loadExecutable(Program::hostCpuTarget(), offHostPlan(false),
                                 testKernels(), {}, device, program);
  ASSERT_TRUE(status.isOk()) << status.toString();
  EXPECT_TRUE(device.live.empty()); // no weights, nothing yet
  const float x[4] = {1, 2, 3, -4};
  for (int run = 0; run < 3; ++run) {
    std::vector<HostTensor> outputs;
    status = program->run({refOf(x)}, outputs);
    ASSERT_TRUE(status.isOk()) << status.toString();
    ASSERT_EQ(outputs.size(), 2u);
    EXPECT_FALSE(device.owns(outputs[0].data()));
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(outputs[0].dataAs<float>()[i], 2 * x[i] + 1) << i;
    // `where` is the arena's device address.
    auto arena = reinterpret_cast<void *>(
        static_cast<uintptr_t>(outputs[1].dataAs<int64_t>()[0]));
    EXPECT_TRUE(device.owns(arena));
  }
  // Arena, x, y and where: one each.
  EXPECT_EQ(device.order.size(), 4u);
  EXPECT_EQ(program->scratchAllocations(), 1u);
  EXPECT_EQ(device.copiesIn, 3);
  EXPECT_EQ(device.copiesOut, 6);
  program.reset();
  EXPECT_TRUE(device.live.empty());
}

// The weights are uploaded once at load, each at a 256-byte offset of one
// allocation, and freed with the program.
TEST(OffHostProgramTest, UploadsWeightsOnce) {
  OffHostDevice device;
  std::vector<uint8_t> weights(64, 0);
  const float b = 100, w[4] = {10, 20, 30, 40};
  std::memcpy(weights.data(), &b, 4);
  std::memcpy(weights.data() + 4, w, 16);
  std::unique_ptr<Program> program;
  Status status = loadExecutable(Program::hostCpuTarget(), offHostPlan(true),
                                 testKernels(), weights, device, program);
  ASSERT_TRUE(status.isOk()) << status.toString();
  ASSERT_EQ(device.order.size(), 1u);
  EXPECT_EQ(device.live.at(device.order[0]), 256u + 16u);
  EXPECT_EQ(device.copiesIn, 2);
  const float x[4] = {1, 2, 3, 4};
  for (int run = 0; run < 2; ++run) {
    std::vector<HostTensor> outputs;
    status = program->run({refOf(x)}, outputs);
    ASSERT_TRUE(status.isOk()) << status.toString();
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(outputs[0].dataAs<float>()[i], w[i] + 1) << i;
  }
  ASSERT_EQ(device.launches.size(), 4u);
  EXPECT_EQ(static_cast<uint8_t *>(device.launches[1][0]),
            static_cast<uint8_t *>(device.order[0]) + 256);
  EXPECT_EQ(device.copiesIn, 2 + 2);
  program.reset();
  EXPECT_TRUE(device.live.empty());
}

// A donated output is written into its input's device buffer and copied
// back into the caller's input, as the CPU writes it in place.
TEST(OffHostProgramTest, DonatedOutputsComeBackIntoTheirInputs) {
  OffHostDevice device;
  Plan plan = offHostPlan(false);
  plan.donations = {{2, 0}};
  std::unique_ptr<Program> program;
  ASSERT_TRUE(loadExecutable(Program::hostCpuTarget(), plan, testKernels(), {},
                             device, program)
                  .isOk());
  float x[4] = {1, 2, 3, 4};
  std::vector<HostTensor> outputs;
  Status status = program->run({refOf(x)}, outputs);
  ASSERT_TRUE(status.isOk()) << status.toString();
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].data(), nullptr);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(x[i], 2 * (i + 1) + 1) << i;
  const void *where = outputs[1].data();
  status = program->run({refOf(x)}, outputs);
  ASSERT_TRUE(status.isOk()) << status.toString();
  EXPECT_EQ(outputs[1].data(), where);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(x[i], 2 * (2 * (i + 1) + 1) + 1) << i;
  // Arena, x and where: y lives in x's buffer.
  EXPECT_EQ(device.order.size(), 3u);
}

// `ready` gets host memory holding the output's final value, when it is
// final; an output no step touches is announced at once with its host
// buffer.
TEST(OffHostProgramTest, ReadyGetsHostMemory) {
  OffHostDevice device;
  Plan plan = offHostPlan(false);
  plan.values.push_back(plan.values[2]);
  plan.values.back().name = "untouched";
  std::unique_ptr<Program> program;
  ASSERT_TRUE(loadExecutable(Program::hostCpuTarget(), plan, testKernels(), {},
                             device, program)
                  .isOk());
  const float x[4] = {1, 2, 3, 4};
  std::vector<std::pair<size_t, void *>> heard;
  std::vector<float> yWhenHeard;
  size_t launchesWhenWhereHeard = 0;
  Program::OutputReady ready = [&](size_t output, void *data) {
    EXPECT_FALSE(device.owns(data)) << output;
    heard.push_back({output, data});
    if (output == 0)
      yWhenHeard.assign(static_cast<float *>(data),
                        static_cast<float *>(data) + 4);
    if (output == 1)
      launchesWhenWhereHeard = device.launches.size();
  };
  std::vector<HostTensor> outputs;
  Status status = program->run({refOf(x)}, outputs, 0, &ready);
  ASSERT_TRUE(status.isOk()) << status.toString();
  ASSERT_EQ(heard.size(), 3u);
  EXPECT_EQ(heard[0].first, 2u);
  EXPECT_EQ(heard[1].first, 1u);
  EXPECT_EQ(heard[2].first, 0u);
  EXPECT_EQ(launchesWhenWhereHeard, 1u);
  for (auto [output, data] : heard)
    EXPECT_EQ(data, outputs[output].data());
  EXPECT_EQ(yWhenHeard, (std::vector<float>{3, 5, 7, 9}));
  EXPECT_EQ(outputs[2].dataAs<float>()[0], 0.0f); // as created
}

// An allocation that fails names the value, and what the run held goes
// back to the pool (nothing leaks, the next run succeeds).
TEST(OffHostProgramTest, AllocationFailuresNameTheValue) {
  OffHostDevice device;
  std::unique_ptr<Program> program;
  ASSERT_TRUE(loadExecutable(Program::hostCpuTarget(), offHostPlan(false),
                             testKernels(), {}, device, program)
                  .isOk());
  const float x[4] = {1, 2, 3, 4};
  std::vector<HostTensor> outputs;
  device.allocationsLeft = 1; // the arena
  EXPECT_ERROR(program->run({refOf(x)}, outputs),
               "exe: input 'x': cannot allocate 16 bytes");
  device.allocationsLeft = 2; // x and y; the arena comes from the pool
  EXPECT_ERROR(program->run({refOf(x)}, outputs),
               "exe: output 'where': cannot allocate 8 bytes");
  device.allocationsLeft = -1;
  Status status = program->run({refOf(x)}, outputs);
  ASSERT_TRUE(status.isOk()) << status.toString();
  EXPECT_EQ(outputs[0].dataAs<float>()[3], 9.0f);
  EXPECT_EQ(device.order.size(), 4u);
  program.reset();
  EXPECT_TRUE(device.live.empty());
}

// Graph replay records the launches once, on buffers the program keeps, and
// replays them: every run after the first copies its inputs in, replays,
// and copies the outputs out, allocating nothing, with the results of
// runs without it.
TEST(OffHostProgramTest, GraphReplayRecordsOnceAndEqualsEagerRuns) {
  OffHostDevice device;
  device.graphs = true;
  std::unique_ptr<Program> eager, graph;
  ASSERT_TRUE(loadExecutable(Program::hostCpuTarget(), offHostPlan(false),
                             testKernels(), {}, device, eager)
                  .isOk());
  ASSERT_TRUE(loadExecutable(Program::hostCpuTarget(), offHostPlan(false),
                             testKernels(), {}, device, graph)
                  .isOk());
  EXPECT_FALSE(graph->graphReplay());
  Status status = graph->enableGraphReplay();
  ASSERT_TRUE(status.isOk()) << status.toString();
  EXPECT_TRUE(graph->graphReplay());
  EXPECT_TRUE(graph->enableGraphReplay().isOk()); // again: nothing
  EXPECT_EQ(graph->graphCaptures(), 0u);
  size_t allocations = device.order.size();
  // Arena, x, y and where: one buffer each, taken now.
  EXPECT_EQ(allocations, 4u);
  std::vector<void *> arenas;
  for (int run = 0; run < 3; ++run) {
    const float x[4] = {1.0f + run, 2, -3, 4.5f * run};
    std::vector<HostTensor> expected, got;
    status = eager->run({refOf(x)}, expected);
    ASSERT_TRUE(status.isOk()) << status.toString();
    int replaysBefore = device.replays;
    status = graph->run({refOf(x)}, got);
    ASSERT_TRUE(status.isOk()) << status.toString();
    EXPECT_EQ(device.replays, replaysBefore + 1);
    ASSERT_EQ(got.size(), 2u);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(got[0].dataAs<float>()[i], expected[0].dataAs<float>()[i])
          << run << " " << i;
    EXPECT_FALSE(device.owns(got[0].data()));
    arenas.push_back(reinterpret_cast<void *>(
        static_cast<uintptr_t>(got[1].dataAs<int64_t>()[0])));
  }
  EXPECT_EQ(graph->graphCaptures(), 1u);
  EXPECT_EQ(device.captures, 1);
  // Every replay ran on the same arena; the eager program's own runs took
  // their buffers from its pool.
  EXPECT_EQ(arenas[0], arenas[1]);
  EXPECT_EQ(arenas[1], arenas[2]);
  EXPECT_EQ(graph->scratchAllocations(), 0u);
  graph.reset();
  eager.reset();
  EXPECT_TRUE(device.live.empty());
}

// Donated outputs and `ready` work as without graphs: the donated output
// comes back into its input, and every output is announced, with host
// memory, once the graph has run.
TEST(OffHostProgramTest, GraphReplayDonatesAndAnnounces) {
  OffHostDevice device;
  device.graphs = true;
  Plan plan = offHostPlan(false);
  plan.donations = {{2, 0}};
  std::unique_ptr<Program> program;
  ASSERT_TRUE(loadExecutable(Program::hostCpuTarget(), plan, testKernels(), {},
                             device, program)
                  .isOk());
  ASSERT_TRUE(program->enableGraphReplay().isOk());
  float x[4] = {1, 2, 3, 4};
  std::vector<size_t> heard;
  Program::OutputReady ready = [&](size_t output, void *data) {
    EXPECT_FALSE(device.owns(data)) << output;
    heard.push_back(output);
  };
  for (int run = 0; run < 2; ++run) {
    std::vector<HostTensor> outputs;
    heard.clear();
    Status status = program->run({refOf(x)}, outputs, 0, &ready);
    ASSERT_TRUE(status.isOk()) << status.toString();
    EXPECT_EQ(heard, (std::vector<size_t>{0, 1}));
  }
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(x[i], 2 * (2 * (i + 1) + 1) + 1) << i;
  EXPECT_EQ(device.captures, 1);
}

// Graph replay needs a device that records graphs, and says so.
TEST(OffHostProgramTest, GraphReplayNeedsGraphs) {
  OffHostDevice device;
  std::unique_ptr<Program> program;
  ASSERT_TRUE(loadExecutable(Program::hostCpuTarget(), offHostPlan(false),
                             testKernels(), {}, device, program)
                  .isOk());
  Status status = program->enableGraphReplay();
  EXPECT_EQ(status.code(), StatusCode::Unimplemented);
  EXPECT_TRUE(contains(status, "exe: graph replay needs a device that records "
                               "graphs"))
      << status.toString();
  EXPECT_TRUE(contains(status, "the off-host device does not"))
      << status.toString();
  EXPECT_FALSE(program->graphReplay());
  std::unique_ptr<Program> onCpu;
  ASSERT_TRUE(loadExecutable(Program::hostCpuTarget(), offHostPlan(false),
                             testKernels(), {}, getCpuDevice(), onCpu)
                  .isOk());
  EXPECT_EQ(onCpu->enableGraphReplay().code(), StatusCode::Unimplemented);
}

// A failed allocation of graph replay's buffers names the value and keeps
// nothing; the program still runs without graphs.
TEST(OffHostProgramTest, GraphReplayAllocationFailureNamesTheValue) {
  OffHostDevice device;
  device.graphs = true;
  std::unique_ptr<Program> program;
  ASSERT_TRUE(loadExecutable(Program::hostCpuTarget(), offHostPlan(false),
                             testKernels(), {}, device, program)
                  .isOk());
  device.allocationsLeft = 2;
  EXPECT_ERROR(program->enableGraphReplay(),
               "exe: graph replay's buffer for 'y': cannot allocate 16 bytes");
  EXPECT_TRUE(device.live.empty());
  EXPECT_FALSE(program->graphReplay());
  device.allocationsLeft = -1;
  const float x[4] = {1, 2, 3, 4};
  std::vector<HostTensor> outputs;
  Status status = program->run({refOf(x)}, outputs);
  ASSERT_TRUE(status.isOk()) << status.toString();
  EXPECT_EQ(device.captures, 0);
}
