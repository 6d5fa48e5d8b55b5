//===- ProgramTest.cpp - running a loaded executable ----------------------===//
//
// Runs a plan with a scratch arena on the CPU device, through kernels built
// as a shared object (TestKernels.cpp): the arena's blocks come from a pool
// (one block for any number of sequential runs, 64-byte aligned), outputs
// passed back are written in place unless they overlap an input, and the
// profiler names each step after the plan and files it by its kind.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/Program.h"
#include "nnc/runtime/Plan.h"
#include "nnc/runtime/Profiler.h"

#include <gtest/gtest.h>

#include "TestUtils.h"

#include <fstream>
#include <iterator>
#include <set>
#include <thread>

using namespace nnc::runtime;

namespace {

/// x f32[4] -> (y f32[4], where i64[1]) through the arena u8[256]; see
/// TestKernels.cpp. `hugeScratch` adds a second scratch value (1 GiB) that
/// SmallDevice refuses.
Plan arenaPlan(bool hugeScratch = false) {
  Plan plan;
  plan.producer = "ProgramTest";
  auto value = [](ValueRole role, ValueKind kind, const char *name, DType dtype,
                  std::vector<int64_t> shape) {
    PlanValue v;
    v.role = role;
    v.kind = kind;
    v.name = name;
    v.dtype = dtype;
    v.shape = std::move(shape);
    return v;
  };
  plan.values = {
      value(ValueRole::Input, ValueKind::Input, "x", DType::F32, {4}),
      value(ValueRole::Scratch, ValueKind::Buffer, "arena", DType::U8, {256}),
      value(ValueRole::Output, ValueKind::Output, "y", DType::F32, {4}),
      value(ValueRole::Output, ValueKind::Output, "where", DType::I64, {1}),
  };
  PlanStep stage;
  stage.kernel = "nnc_test_stage";
  stage.args = {0, 1, 3};
  stage.name = "fill: /stage";
  stage.detail = "mul by 2";
  stage.bytesRead = 16;
  stage.bytesWritten = 24;
  PlanStep finish;
  finish.kernel = "nnc_test_finish";
  finish.args = {1, 2};
  finish.kind = StepKind::Library;
  plan.steps = {stage, finish};
  if (hugeScratch) {
    plan.values.push_back(value(ValueRole::Scratch, ValueKind::Buffer, "huge",
                                DType::U8, {int64_t(1) << 30}));
    plan.steps[1].args.push_back(4);
  }
  plan.temporaryBytes = 256;
  return plan;
}

std::vector<uint8_t> readFile(const char *path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

/// The CPU device, refusing allocations over 1 MiB (without trying them,
/// which sanitizers' allocators would abort on).
class SmallDevice : public Device {
public:
  const char *name() const override { return "small-cpu"; }
  bool hostAccessible() const override { return true; }
  bool runsTarget(const std::string &target) const override {
    return cpu.runsTarget(target);
  }
  std::string target() const override { return cpu.target(); }
  Status allocate(size_t bytes, void **out) override {
    if (bytes > (1u << 20))
      return Status(StatusCode::OutOfRange,
                    "cannot allocate " + std::to_string(bytes) + " bytes");
    return cpu.allocate(bytes, out);
  }
  void deallocate(void *pointer) override { cpu.deallocate(pointer); }
  Status copyHostToDevice(void *device, const void *host,
                          size_t bytes) override {
    return cpu.copyHostToDevice(device, host, bytes);
  }
  Status copyDeviceToHost(void *host, const void *device,
                          size_t bytes) override {
    return cpu.copyDeviceToHost(host, device, bytes);
  }
  Status loadModule(const uint8_t *code, size_t size,
                    const CodeRequirements &requirements,
                    const std::string &source,
                    std::unique_ptr<DeviceModule> &out) override {
    return cpu.loadModule(code, size, requirements, source, out);
  }
  Status synchronize() override { return cpu.synchronize(); }

private:
  Device &cpu = getCpuDevice();
};

Status loadPlan(const Plan &plan, std::unique_ptr<Program> &out,
                Device &device = getCpuDevice()) {
  std::vector<uint8_t> code = readFile(NNC_RUNTIME_TEST_KERNELS);
  if (code.empty())
    return Status(StatusCode::NotFound,
                  "cannot read " NNC_RUNTIME_TEST_KERNELS);
  ExecutableWriter writer(Program::hostCpuTarget());
  NNC_RUNTIME_RETURN_IF_ERROR(
      writer.addSection(SectionKind::Metadata, "plan", serializePlan(plan)));
  NNC_RUNTIME_RETURN_IF_ERROR(
      writer.addSection(SectionKind::Code, "kernels", code));
  std::vector<uint8_t> bytes;
  NNC_RUNTIME_RETURN_IF_ERROR(writer.serialize(bytes));
  ExecutableReader reader;
  NNC_RUNTIME_RETURN_IF_ERROR(
      ExecutableReader::fromBytes(bytes.data(), bytes.size(), reader, "exe"));
  return Program::load(std::move(reader), device, "exe", out);
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

TensorRef refOf(const HostTensor &t) {
  TensorRef ref;
  ref.dtype = t.dtype();
  ref.dims = t.shape().data();
  ref.rank = t.shape().size();
  ref.data = t.data();
  ref.byteSize = t.sizeInBytes();
  return ref;
}

void expectY(const std::vector<HostTensor> &outputs, const float *x) {
  ASSERT_EQ(outputs.size(), 2u);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(outputs[0].dataAs<float>()[i], 2 * x[i] + 1) << i;
}

TEST(ProgramTest, ScratchComesFromAPool) {
  std::unique_ptr<Program> program;
  Status status = loadPlan(arenaPlan(), program);
  ASSERT_TRUE(status.isOk()) << status.toString();
  EXPECT_EQ(program->scratchBytes(), 256u);
  EXPECT_EQ(program->scratchAllocations(), 0u);
  // The scratch value is neither an input nor an output.
  EXPECT_EQ(program->inputs(), std::vector<uint32_t>{0});
  EXPECT_EQ(program->outputs(), (std::vector<uint32_t>{2, 3}));

  const float x[4] = {1, 2, 3, -4};
  std::set<int64_t> arenas;
  for (int run = 0; run < 5; ++run) {
    std::vector<HostTensor> outputs; // new tensors every run
    status = program->run({refOf(x)}, outputs);
    ASSERT_TRUE(status.isOk()) << status.toString();
    expectY(outputs, x);
    int64_t where = outputs[1].dataAs<int64_t>()[0];
    EXPECT_NE(where, 0);
    EXPECT_EQ(where % 64, 0);
    arenas.insert(where);
  }
  EXPECT_EQ(arenas.size(), 1u);
  EXPECT_EQ(program->scratchAllocations(), 1u);
}

TEST(ProgramTest, InputsMustMatchThePlan) {
  std::unique_ptr<Program> program;
  ASSERT_TRUE(loadPlan(arenaPlan(), program).isOk());
  const float x[4] = {1, 2, 3, 4};
  std::vector<HostTensor> outputs;
  const int64_t square[] = {2, 2};
  TensorRef wrong = refOf(x);
  wrong.dims = square;
  wrong.rank = 2;
  EXPECT_ERROR(program->run({wrong}, outputs),
               "exe: input 0 'x' must be f32[4], got f32[2x2]");
  wrong = refOf(x);
  wrong.rank = 0;
  EXPECT_ERROR(program->run({wrong}, outputs),
               "exe: input 0 'x' must be f32[4], got f32[]");
  wrong = refOf(x);
  wrong.byteSize = 12;
  EXPECT_ERROR(program->run({wrong}, outputs),
               "exe: input 0 'x' has 12 bytes of data, not 16");
  EXPECT_ERROR(program->run({}, outputs), "exe: expects 1 inputs, got 0");
  EXPECT_TRUE(outputs.empty());
  EXPECT_EQ(program->scratchAllocations(), 0u);
}

TEST(ProgramTest, OverlappingRunsGetTheirOwnScratch) {
  std::unique_ptr<Program> program;
  ASSERT_TRUE(loadPlan(arenaPlan(), program).isOk());
  const int kThreads = 4;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int run = 0; run < 200; ++run) {
        const float x[4] = {float(t), float(run), 1, 2};
        std::vector<HostTensor> outputs;
        if (!program->run({refOf(x)}, outputs).isOk() ||
            outputs[0].dataAs<float>()[0] != 2 * x[0] + 1 ||
            outputs[0].dataAs<float>()[1] != 2 * x[1] + 1)
          ++failures[t];
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures, std::vector<int>(kThreads, 0));
  EXPECT_GE(program->scratchAllocations(), 1u);
  EXPECT_LE(program->scratchAllocations(), uint64_t(kThreads));
}

TEST(ProgramTest, ScratchReturnsToThePoolOnFailure) {
  SmallDevice device; // outlives the program
  std::unique_ptr<Program> program;
  ASSERT_TRUE(
      loadPlan(arenaPlan(/*hugeScratch=*/true), program, device).isOk());
  const float x[4] = {1, 2, 3, 4};
  for (int run = 0; run < 3; ++run) {
    std::vector<HostTensor> outputs;
    EXPECT_ERROR(program->run({refOf(x)}, outputs),
                 "exe: scratch 'huge': cannot allocate 1073741824 bytes");
    EXPECT_TRUE(outputs.empty());
  }
  // The arena's block, taken before the huge one failed, went back each
  // time and was taken again.
  EXPECT_EQ(program->scratchAllocations(), 1u);
}

TEST(ProgramTest, OutputsPassedBackAreReused) {
  std::unique_ptr<Program> program;
  ASSERT_TRUE(loadPlan(arenaPlan(), program).isOk());
  const float x[4] = {1, 2, 3, 4};
  std::vector<HostTensor> outputs;
  ASSERT_TRUE(program->run({refOf(x)}, outputs).isOk());
  const void *y = outputs[0].data();
  const void *where = outputs[1].data();
  const float x2[4] = {5, 6, 7, 8};
  ASSERT_TRUE(program->run({refOf(x2)}, outputs).isOk());
  EXPECT_EQ(outputs[0].data(), y);
  EXPECT_EQ(outputs[1].data(), where);
  expectY(outputs, x2);

  // A vector that does not fit the outputs is replaced by new tensors.
  std::vector<HostTensor> other(2);
  ASSERT_TRUE(HostTensor::create(DType::F32, {4}, other[0]).isOk());
  ASSERT_TRUE(HostTensor::create(DType::F32, {1}, other[1]).isOk()); // not i64
  const void *otherY = other[0].data();
  ASSERT_TRUE(program->run({refOf(x)}, other).isOk());
  EXPECT_NE(other[0].data(), otherY);
  expectY(other, x);
  std::vector<HostTensor> one(1);
  ASSERT_TRUE(HostTensor::create(DType::F32, {4}, one[0]).isOk());
  ASSERT_TRUE(program->run({refOf(x)}, one).isOk());
  expectY(one, x);
}

// `ready` hears of each output once, after the last step that touches it
// (where: after the stage step, y: after the finish step), with the buffer
// the run returns it in; an output no step touches is ready at once.
TEST(ProgramTest, OutputsAreAnnouncedWhenFinal) {
  Plan plan = arenaPlan();
  plan.values.push_back(plan.values[2]);
  plan.values.back().name = "untouched";
  std::unique_ptr<Program> program;
  ASSERT_TRUE(loadPlan(plan, program).isOk());
  EXPECT_EQ(program->outputReadyStep(0), 1);
  EXPECT_EQ(program->outputReadyStep(1), 0);
  EXPECT_EQ(program->outputReadyStep(2), -1);
  const float x[4] = {1, 2, 3, 4};
  std::vector<std::pair<size_t, void *>> heard;
  std::vector<float> yWhenHeard;
  Program::OutputReady ready = [&](size_t output, void *data) {
    heard.push_back({output, data});
    if (output == 0)
      yWhenHeard.assign(static_cast<float *>(data),
                        static_cast<float *>(data) + 4);
  };
  std::vector<HostTensor> outputs;
  ASSERT_TRUE(program->run({refOf(x)}, outputs, 0, &ready).isOk());
  ASSERT_EQ(heard.size(), 3u);
  EXPECT_EQ(heard[0].first, 2u);
  EXPECT_EQ(heard[1].first, 1u);
  EXPECT_EQ(heard[2].first, 0u);
  for (auto [output, data] : heard)
    EXPECT_EQ(data, outputs[output].data());
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(outputs[0].dataAs<float>()[i], 2 * x[i] + 1) << i;
  EXPECT_EQ(yWhenHeard, std::vector<float>(outputs[0].dataAs<float>(),
                                           outputs[0].dataAs<float>() + 4));
}

TEST(ProgramTest, DonatedOutputsAreWrittenIntoTheirInputs) {
  // y is written into x's buffer: the stage step reads x before the finish
  // step writes y.
  Plan plan = arenaPlan();
  plan.donations = {{2, 0}};
  std::unique_ptr<Program> program;
  ASSERT_TRUE(loadPlan(plan, program).isOk());
  float x[4] = {1, 2, 3, 4};
  std::vector<HostTensor> outputs;
  ASSERT_TRUE(program->run({refOf(x)}, outputs).isOk());
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].data(), nullptr); // no buffer of its own
  ASSERT_NE(outputs[1].data(), nullptr);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(x[i], 2 * (i + 1) + 1) << i;
  // Passed back, the outputs are reused (the donated one needs none).
  const void *where = outputs[1].data();
  ASSERT_TRUE(program->run({refOf(x)}, outputs).isOk());
  EXPECT_EQ(outputs[1].data(), where);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(x[i], 2 * (2 * (i + 1) + 1) + 1) << i;
}

TEST(ProgramTest, ReusedOutputMayNotOverlapAnInput) {
  std::unique_ptr<Program> program;
  ASSERT_TRUE(loadPlan(arenaPlan(), program).isOk());
  const float x[4] = {1, 2, 3, 4};
  std::vector<HostTensor> outputs;
  ASSERT_TRUE(program->run({refOf(x)}, outputs).isOk());
  const void *y = outputs[0].data();
  // y fed back as x, in whole and in part.
  Status status = program->run({refOf(outputs[0])}, outputs);
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument);
  EXPECT_ERROR(status, "exe: output 0 'y' passed back for reuse overlaps "
                       "input 0 'x'");
  // An input that shares only y's last float, [y + 12, y + 28): refused
  // before any kernel reads it.
  TensorRef partial = refOf(outputs[0].dataAs<float>() + 3);
  EXPECT_ERROR(program->run({partial}, outputs), "output 0 'y'");
  // Outputs are still valid tensors, and usable once the input is apart.
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].data(), y);
  const float apart[4] = {-1, 0, 1, 2};
  ASSERT_TRUE(program->run({refOf(apart)}, outputs).isOk());
  EXPECT_EQ(outputs[0].data(), y);
  expectY(outputs, apart);
}

TEST(ProgramTest, ProfilerNamesStepsAfterThePlan) {
  std::unique_ptr<Program> program;
  ASSERT_TRUE(loadPlan(arenaPlan(), program).isOk());
  program->setLabel("fwd", "program detail");
  const float x[4] = {1, 2, 3, 4};
  std::vector<HostTensor> outputs;
  Profiler &profiler = Profiler::global();
  profiler.start();
  Status status = program->run({refOf(x)}, outputs);
  profiler.stop();
  ASSERT_TRUE(status.isOk()) << status.toString();
  std::vector<ProfileEvent> events = profiler.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].name, "fwd/fill: /stage");
  EXPECT_EQ(events[0].category, "kernel");
  EXPECT_EQ(events[0].detail, "mul by 2");
  EXPECT_EQ(events[0].bytesRead, 16u);
  EXPECT_EQ(events[0].bytesWritten, 24u);
  // No name: the kernel; no detail: the program's.
  EXPECT_EQ(events[1].name, "fwd/nnc_test_finish");
  EXPECT_EQ(events[1].category, "library");
  EXPECT_EQ(events[1].detail, "program detail");
  std::string json = profiler.traceJson();
  EXPECT_NE(json.find("\"args\": {\"ops\": \"mul by 2\", \"bytes_read\": 16, "
                      "\"bytes_written\": 24}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"cat\": \"library\""), std::string::npos) << json;

  // Without a label, just the step's name.
  program->setLabel("");
  profiler.start();
  ASSERT_TRUE(program->run({refOf(x)}, outputs).isOk());
  profiler.stop();
  events = profiler.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].name, "fill: /stage");
  EXPECT_EQ(events[1].name, "nnc_test_finish");
  EXPECT_EQ(events[1].detail, "");
}

} // namespace
