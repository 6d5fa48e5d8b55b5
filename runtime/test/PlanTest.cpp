//===- PlanTest.cpp - plan encoding and program loading -------------------===//
//
// Round trip of the plan encoding (version 2, and version 1 plans still
// read), one case per check of parsePlan, exhaustive corruption (every byte
// flipped, every truncation: a status, never a crash), and Program::load
// refusing executables it cannot run.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/Plan.h"
#include "nnc/runtime/Program.h"

#include <gtest/gtest.h>

#include "TestUtils.h"

using namespace nnc::runtime;

namespace {

Plan samplePlan() {
  Plan plan;
  plan.producer = "test";
  PlanValue x;
  x.name = "x";
  x.shape = {2, 3};
  PlanValue w;
  w.role = ValueRole::Weight;
  w.kind = ValueKind::Frozen;
  w.name = "w";
  w.shape = {3};
  w.weightOffset = 64;
  w.weightSize = 12;
  PlanValue y;
  y.role = ValueRole::Output;
  y.kind = ValueKind::Output;
  y.name = "y";
  y.dtype = DType::I64;
  y.shape = {2};
  PlanValue scratch;
  scratch.role = ValueRole::Scratch;
  scratch.kind = ValueKind::Buffer;
  scratch.name = "arena";
  scratch.dtype = DType::U8;
  scratch.shape = {4096};
  plan.values = {x, w, y, scratch};
  PlanStep step;
  step.kernel = "nnc_kernel_0";
  step.args = {0, 1, 2, 3};
  step.name = "matmul: /fc/Gemm";
  step.detail = "matmul 2x3x3\n\tthen add";
  step.kind = StepKind::Library;
  step.bytesRead = 36;
  step.bytesWritten = 16;
  plan.steps.push_back(step);
  PlanStep plain; // no version 2 description
  plain.kernel = "nnc_kernel_1";
  plain.args = {2};
  plan.steps.push_back(plain);
  plan.cpuFeatures = {"avx2"};
  plan.needsOpenMP = true;
  plan.needsBlas = true;
  plan.libraryCalls = 1;
  plan.temporaryBytes = 4096;
  plan.unfusedKernels = 7;
  plan.unfusedBytesMoved = 1ull << 40;
  plan.kernelAllocBytes = 128;
  return plan;
}

/// The version 1 encoding of `plan` (no scratch role, step descriptions or
/// version 2 figures), written here independently of serializePlan.
std::vector<uint8_t> serializeV1(const Plan &plan) {
  std::vector<uint8_t> out = {'N', 'N', 'C', 'P'};
  auto u8 = [&](uint8_t v) { out.push_back(v); };
  auto u32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i)
      u8(uint8_t(v >> (8 * i)));
  };
  auto u64 = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i)
      u8(uint8_t(v >> (8 * i)));
  };
  auto str = [&](const std::string &s) {
    u32(uint32_t(s.size()));
    out.insert(out.end(), s.begin(), s.end());
  };
  u32(1);
  str(plan.producer);
  u32(uint32_t(plan.values.size()));
  for (const PlanValue &v : plan.values) {
    u8(uint8_t(v.role));
    u8(uint8_t(v.kind));
    u8(uint8_t(v.dtype));
    str(v.name);
    u32(uint32_t(v.shape.size()));
    for (int64_t d : v.shape)
      u64(uint64_t(d));
    u64(v.weightOffset);
    u64(v.weightSize);
  }
  u32(uint32_t(plan.steps.size()));
  for (const PlanStep &s : plan.steps) {
    str(s.kernel);
    u32(uint32_t(s.args.size()));
    for (uint32_t a : s.args)
      u32(a);
  }
  u32(uint32_t(plan.cpuFeatures.size()));
  for (const std::string &f : plan.cpuFeatures)
    str(f);
  u8((plan.needsOpenMP ? 1 : 0) | (plan.needsBlas ? 2 : 0));
  u32(plan.libraryCalls);
  u64(plan.temporaryBytes);
  return out;
}

Status parse(const std::vector<uint8_t> &bytes, Plan &out,
             uint64_t weightsSize = 128) {
  return parsePlan(bytes.data(), bytes.size(), weightsSize, "plan", out);
}

TEST(PlanTest, RoundTrip) {
  Plan plan = samplePlan();
  Plan parsed;
  std::vector<uint8_t> bytes = serializePlan(plan);
  ASSERT_EQ(bytes[4], 4); // the version
  ASSERT_TRUE(parse(bytes, parsed).isOk());
  ASSERT_EQ(parsed.values.size(), 4u);
  EXPECT_EQ(parsed.values[1].role, ValueRole::Weight);
  EXPECT_EQ(parsed.values[1].kind, ValueKind::Frozen);
  EXPECT_EQ(parsed.values[1].weightOffset, 64u);
  EXPECT_EQ(parsed.values[2].dtype, DType::I64);
  EXPECT_EQ(parsed.values[0].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(parsed.steps[0].kernel, "nnc_kernel_0");
  EXPECT_EQ(parsed.steps[0].args, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(parsed.values[3].role, ValueRole::Scratch);
  EXPECT_EQ(parsed.values[3].dtype, DType::U8);
  EXPECT_EQ(parsed.values[3].shape, std::vector<int64_t>{4096});
  EXPECT_EQ(parsed.steps[0].name, "matmul: /fc/Gemm");
  EXPECT_EQ(parsed.steps[0].detail, "matmul 2x3x3\n\tthen add");
  EXPECT_EQ(parsed.steps[0].kind, StepKind::Library);
  EXPECT_EQ(parsed.steps[0].bytesRead, 36u);
  EXPECT_EQ(parsed.steps[0].bytesWritten, 16u);
  EXPECT_EQ(parsed.steps[1].kernel, "nnc_kernel_1");
  EXPECT_EQ(parsed.steps[1].name, "");
  EXPECT_EQ(parsed.steps[1].kind, StepKind::Kernel);
  EXPECT_EQ(parsed.steps[1].bytesRead, 0u);
  EXPECT_EQ(parsed.unfusedKernels, 7u);
  EXPECT_EQ(parsed.unfusedBytesMoved, 1ull << 40);
  EXPECT_EQ(parsed.kernelAllocBytes, 128u);
  EXPECT_EQ(parsed.indicesOf(ValueRole::Scratch), std::vector<uint32_t>{3});
  EXPECT_EQ(parsed.cpuFeatures, std::vector<std::string>{"avx2"});
  EXPECT_TRUE(parsed.needsOpenMP);
  EXPECT_TRUE(parsed.needsBlas);
  EXPECT_EQ(parsed.libraryCalls, 1u);
  EXPECT_EQ(parsed.temporaryBytes, 4096u);
  EXPECT_EQ(parsed.indicesOf(ValueRole::Output), std::vector<uint32_t>{2});
  EXPECT_EQ(describeType(DType::F32, {2, 3}), "f32[2x3]");
}

/// A version 1 plan (as compilers before the arena wrote) still reads, with
/// none of the version 2 fields.
TEST(PlanTest, ReadsVersion1) {
  Plan plan = samplePlan();
  plan.values.pop_back(); // no scratch role in version 1
  plan.steps[0].args = {0, 1, 2};
  Plan parsed;
  Status status = parse(serializeV1(plan), parsed);
  ASSERT_TRUE(status.isOk()) << status.toString();
  ASSERT_EQ(parsed.values.size(), 3u);
  ASSERT_EQ(parsed.steps.size(), 2u);
  EXPECT_EQ(parsed.steps[0].kernel, "nnc_kernel_0");
  EXPECT_EQ(parsed.steps[0].args, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(parsed.steps[0].name, "");
  EXPECT_EQ(parsed.steps[0].detail, "");
  EXPECT_EQ(parsed.steps[0].kind, StepKind::Kernel);
  EXPECT_EQ(parsed.steps[0].bytesRead, 0u);
  EXPECT_TRUE(parsed.needsBlas);
  EXPECT_EQ(parsed.libraryCalls, 1u);
  EXPECT_EQ(parsed.temporaryBytes, 4096u);
  EXPECT_EQ(parsed.unfusedKernels, 0u);
  EXPECT_EQ(parsed.unfusedBytesMoved, 0u);
  EXPECT_EQ(parsed.kernelAllocBytes, 0u);

  // The scratch role did not exist in version 1.
  plan.values[2].role = ValueRole::Scratch;
  EXPECT_NE(parse(serializeV1(plan), parsed)
                .message()
                .find("value 2 has unknown role 3"),
            std::string::npos);
  // Nor do version 2's trailing fields belong to it.
  plan = samplePlan();
  plan.values.pop_back();
  plan.steps[0].args = {0};
  std::vector<uint8_t> bytes = serializeV1(plan);
  bytes.insert(bytes.end(), 20, 0);
  EXPECT_NE(parse(bytes, parsed).message().find("trailing bytes"),
            std::string::npos);
}

/// Each check of parsePlan fails with a message saying what is wrong.
TEST(PlanTest, Errors) {
  struct Case {
    const char *expected;
    void (*mutate)(Plan &);
    uint64_t weightsSize;
  };
  const Case cases[] = {
      {"weights at offset 64 + 12 bytes run past the weights section of 70",
       [](Plan &) {}, 70},
      {"has 8 bytes of weights, not 12",
       [](Plan &p) { p.values[1].weightSize = 8; }, 128},
      {"is an input but has a weights range",
       [](Plan &p) { p.values[0].weightOffset = 8; }, 128},
      {"refers to value 7 of 4", [](Plan &p) { p.steps[0].args[1] = 7; }, 128},
      {"value 3 ('arena') is scratch of type f32[1024], not u8[bytes]",
       [](Plan &p) {
         p.values[3].dtype = DType::F32;
         p.values[3].shape = {1024};
       },
       128},
      {"value 3 ('arena') is scratch of type u8[64x64], not u8[bytes]",
       [](Plan &p) {
         p.values[3].shape = {64, 64};
       },
       128},
      {"value 3 ('arena') is scratch of type u8[], not u8[bytes]",
       [](Plan &p) { p.values[3].shape = {}; }, 128},
      {"value 3 is a scratch but has a weights range",
       [](Plan &p) { p.values[3].weightSize = 8; }, 128},
      {"step 0 has unknown kind 2",
       [](Plan &p) { p.steps[0].kind = static_cast<StepKind>(2); }, 128},
      {"a step name holds a control character",
       [](Plan &p) { p.steps[0].name = "a\nb"; }, 128},
      {"a step detail holds a control character",
       [](Plan &p) { p.steps[0].detail = "a\rb"; }, 128},
      {"a step detail is 65537, more than the limit 65536",
       [](Plan &p) { p.steps[0].detail.assign(65537, 'x'); }, 128},
      {"a step name is 4097, more than the limit 4096",
       [](Plan &p) { p.steps[1].name.assign(4097, 'x'); }, 128},
      {"names no kernel", [](Plan &p) { p.steps[0].kernel = ""; }, 128},
      {"the plan has no output",
       [](Plan &p) { p.values[2].role = ValueRole::Input; }, 128},
      {"the plan has no step", [](Plan &p) { p.steps.clear(); }, 128},
  };
  for (const Case &c : cases) {
    Plan plan = samplePlan();
    c.mutate(plan);
    Plan parsed;
    Status status = parse(serializePlan(plan), parsed, c.weightsSize);
    ASSERT_FALSE(status.isOk()) << c.expected;
    EXPECT_EQ(status.code(), StatusCode::DataLoss);
    EXPECT_NE(status.message().find(c.expected), std::string::npos)
        << status.message();
  }

  std::vector<uint8_t> bytes = serializePlan(samplePlan());
  Plan parsed;
  std::vector<uint8_t> badMagic = bytes;
  badMagic[0] = 'X';
  EXPECT_NE(parse(badMagic, parsed).message().find("bad magic"),
            std::string::npos);
  std::vector<uint8_t> newer = bytes;
  newer[4] = 5;
  EXPECT_NE(parse(newer, parsed).message().find("plan version 5"),
            std::string::npos);
  // The runtime-libraries byte sits before the library calls (u32), the
  // temporary bytes (u64), the unfused kernels (u32), the unfused bytes
  // moved and the kernel allocation bytes (u64 each), the donation count
  // (u32, here 0), the checks value, the check count and the specialized
  // input count (u32 each). Bits other than OpenMP, BLAS, oneDNN and
  // collectives are refused; a plain 1 (the OpenMP flag of earlier plans) still reads as
  // OpenMP alone.
  size_t libraries = bytes.size() - 49;
  ASSERT_EQ(bytes[libraries], 3);
  std::vector<uint8_t> unknown = bytes;
  unknown[libraries] = 16;
  EXPECT_NE(parse(unknown, parsed)
                .message()
                .find("the runtime libraries are 16 (known: 1 OpenMP, 2 BLAS, "
                      "4 oneDNN, 8 collectives)"),
            std::string::npos)
      << parse(unknown, parsed).message();
  std::vector<uint8_t> dnnl = bytes;
  dnnl[libraries] = 5;
  ASSERT_TRUE(parse(dnnl, parsed).isOk());
  EXPECT_TRUE(parsed.needsOpenMP);
  EXPECT_FALSE(parsed.needsBlas);
  EXPECT_TRUE(parsed.needsDnnl);
  EXPECT_EQ(serializePlan(parsed), dnnl);
  EXPECT_FALSE(parsed.needsCollectives);
  std::vector<uint8_t> collectives = bytes;
  collectives[libraries] = 8;
  ASSERT_TRUE(parse(collectives, parsed).isOk());
  EXPECT_TRUE(parsed.needsCollectives);
  EXPECT_FALSE(parsed.needsOpenMP || parsed.needsBlas || parsed.needsDnnl);
  EXPECT_EQ(serializePlan(parsed)[libraries], 8);
  std::vector<uint8_t> openmpOnly = bytes;
  openmpOnly[libraries] = 1;
  ASSERT_TRUE(parse(openmpOnly, parsed).isOk());
  EXPECT_TRUE(parsed.needsOpenMP);
  EXPECT_FALSE(parsed.needsBlas);
  std::vector<uint8_t> trailing = bytes;
  trailing.push_back(0);
  EXPECT_NE(parse(trailing, parsed).message().find("trailing bytes"),
            std::string::npos);
}

/// Outputs written into inputs' buffers round-trip; a donation must pair
/// an output with an input of its type, each at most once.
TEST(PlanTest, Donations) {
  Plan plan = samplePlan();
  PlanValue state;
  state.role = ValueRole::Input;
  state.kind = ValueKind::Buffer;
  state.name = "m";
  state.dtype = DType::I64;
  state.shape = {2};
  plan.values.push_back(state); // value 4, like output y (value 2)
  plan.donations = {{2, 4}};
  Plan parsed;
  std::vector<uint8_t> bytes = serializePlan(plan);
  ASSERT_TRUE(parse(bytes, parsed).isOk()) << parse(bytes, parsed).message();
  ASSERT_EQ(parsed.donations.size(), 1u);
  EXPECT_EQ(parsed.donations[0], std::make_pair(2u, 4u));

  auto error = [&](std::vector<std::pair<uint32_t, uint32_t>> donations) {
    Plan bad = plan;
    bad.donations = std::move(donations);
    return parse(serializePlan(bad), parsed).message();
  };
  EXPECT_NE(error({{0, 4}}).find("does not pair an output with an input"),
            std::string::npos);
  EXPECT_NE(error({{2, 2}}).find("does not pair an output with an input"),
            std::string::npos);
  EXPECT_NE(error({{2, 0}}).find("writes i64[2] into f32[2x3]"),
            std::string::npos)
      << error({{2, 0}});
  EXPECT_NE(error({{2, 4}, {2, 4}}).find("repeats a value"), std::string::npos);
  EXPECT_NE(error({{2, 99}}).find("does not pair"), std::string::npos);
}

/// Run-time checks round-trip with their buffer, a scratch value of 32
/// bytes per check; a version 2 plan reads without checks.
TEST(PlanTest, Checks) {
  Plan plan = samplePlan();
  PlanValue checks;
  checks.role = ValueRole::Scratch;
  checks.kind = ValueKind::Buffer;
  checks.name = "checks";
  checks.dtype = DType::U8;
  checks.shape = {64};
  plan.values.push_back(checks); // value 4
  plan.checksValue = 4;
  plan.checks = {{"gather 'g' index into axis 0 of f32[5x3]"},
                 {"cross_entropy 'loss' label"}};
  plan.steps[0].args.push_back(4);
  Plan parsed;
  std::vector<uint8_t> bytes = serializePlan(plan);
  Status status = parse(bytes, parsed);
  ASSERT_TRUE(status.isOk()) << status.message();
  EXPECT_EQ(parsed.checksValue, 4u);
  ASSERT_EQ(parsed.checks.size(), 2u);
  EXPECT_EQ(parsed.checks[1].what, "cross_entropy 'loss' label");

  auto error = [&](void (*mutate)(Plan &)) {
    Plan bad = plan;
    mutate(bad);
    return parse(serializePlan(bad), parsed).message();
  };
  EXPECT_NE(error([](Plan &p) {
              p.checksValue = 2;
            }).find("the checks value 2 is not a scratch value"),
            std::string::npos);
  EXPECT_NE(error([](Plan &p) {
              p.checksValue = 99;
            }).find("the checks value 99 is not a scratch value"),
            std::string::npos);
  EXPECT_NE(error([](Plan &p) { p.values[4].shape = {32}; })
                .find("the checks value 'checks' has 32 bytes, not 64 for 2 "
                      "checks"),
            std::string::npos);
  EXPECT_NE(error([](Plan &p) {
              p.checks.clear();
            }).find("names a checks value but makes no checks"),
            std::string::npos);
  EXPECT_NE(error([](Plan &p) {
              p.checks[0].what = "a\nb";
            }).find("a check holds a control character"),
            std::string::npos);

  // Version 2: no checks (nor specialized inputs) fields at the end.
  std::vector<uint8_t> v2 = serializePlan(samplePlan());
  v2[4] = 2;
  v2.resize(v2.size() - 12);
  status = parse(v2, parsed);
  ASSERT_TRUE(status.isOk()) << status.message();
  EXPECT_TRUE(parsed.checks.empty());
  EXPECT_EQ(parsed.checksValue, Plan::kNoValue);
}

// Version 4: inputs specialized on their values (shape inputs).
TEST(PlanTest, SpecializedValues) {
  Plan plan = samplePlan();
  PlanValue shape;
  shape.name = "shape";
  shape.dtype = DType::I32;
  shape.shape = {3};
  shape.specializedValues = {4, -1, 3};
  plan.values.push_back(shape);
  Plan parsed;
  Status status = parse(serializePlan(plan), parsed);
  ASSERT_TRUE(status.isOk()) << status.message();
  EXPECT_EQ(parsed.values[4].specializedValues,
            (std::vector<int64_t>{4, -1, 3}));
  EXPECT_TRUE(parsed.values[0].specializedValues.empty());

  auto error = [&](void (*mutate)(Plan &)) {
    Plan bad = plan;
    mutate(bad);
    return parse(serializePlan(bad), parsed).message();
  };
  EXPECT_NE(error([](Plan &p) {
              p.values[0].specializedValues = {1, 2, 3, 4, 5, 6};
            }).find("specialized input 0 'x' is not an integer input"),
            std::string::npos);
  EXPECT_NE(error([](Plan &p) {
              p.values[2].specializedValues = {1, 2};
            }).find("specialized input 2 'y' is not an integer input"),
            std::string::npos);
  EXPECT_NE(error([](Plan &p) {
              p.values[4].specializedValues = {1, 2};
            }).find("input 'shape' of type i32[3] is specialized on 2 values"),
            std::string::npos);
  // An index past the values, and a record repeated.
  std::vector<uint8_t> bytes = serializePlan(plan);
  size_t record = bytes.size() - (4 + 4 + 3 * 8);
  std::vector<uint8_t> outside = bytes;
  outside[record] = 9;
  EXPECT_NE(parse(outside, parsed)
                .message()
                .find("specialized input 9 is not a value of the plan"),
            std::string::npos);
  std::vector<uint8_t> twice = bytes;
  twice[record - 4] = 2; // the count
  twice.insert(twice.end(), bytes.begin() + record, bytes.end());
  EXPECT_NE(
      parse(twice, parsed).message().find("input 'shape' is specialized twice"),
      std::string::npos);
  // Version 3 plans have no such record.
  std::vector<uint8_t> v3 = serializePlan(samplePlan());
  v3[4] = 3;
  v3.resize(v3.size() - 4);
  status = parse(v3, parsed);
  ASSERT_TRUE(status.isOk()) << status.message();
}

TEST(PlanTest, EveryCorruptionIsAStatus) {
  std::vector<uint8_t> bytes = serializePlan(samplePlan());
  Plan parsed;
  for (size_t length = 0; length < bytes.size(); ++length) {
    std::vector<uint8_t> truncated(bytes.begin(), bytes.begin() + length);
    EXPECT_FALSE(parse(truncated, parsed).isOk()) << "length " << length;
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (uint8_t mask : {0x01, 0x80, 0xff}) {
      std::vector<uint8_t> flipped = bytes;
      flipped[i] ^= mask;
      // Some flips give another valid plan (a different name); none may
      // crash or read out of bounds (ASan in CI).
      (void)parse(flipped, parsed);
    }
  }
}

// Found by test/Fuzz/executable-fuzzer.cpp: a count within its limit but
// beyond what the rest of the plan can hold sized a vector of up to 2^20
// values or steps (some 90 MB) from a plan of a few bytes.
TEST(PlanTest, CountsMustFitTheBytesLeft) {
  auto header = [](uint32_t values, uint32_t steps) {
    std::vector<uint8_t> bytes = {'N', 'N', 'C', 'P'};
    for (uint32_t v : {2u, 0u, values, steps})
      for (int i = 0; i < 4; ++i)
        bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return bytes;
  };
  Plan parsed;
  std::vector<uint8_t> bytes = header(1u << 20, 0);
  bytes.resize(bytes.size() + 100);
  EXPECT_ERROR(parse(bytes, parsed),
               "plan: value count is 1048576, more than the 104 bytes left "
               "can hold (3)");
  EXPECT_ERROR(parse(header(0, 1u << 20), parsed),
               "plan: step count is 1048576, more than the 0 bytes left can "
               "hold (0)");
  // The check count at the end of a valid plan: its strings take 4 bytes
  // at the least.
  std::vector<uint8_t> checks = serializePlan(samplePlan());
  checks[4] = 3; // Without the specialized inputs of version 4.
  checks.resize(checks.size() - 4);
  for (int i = 0; i < 4; ++i)
    checks[checks.size() - 4 + i] = static_cast<uint8_t>(60000u >> (8 * i));
  checks.resize(checks.size() + 16);
  EXPECT_ERROR(parse(checks, parsed),
               "plan: check count is 60000, more than the 16 bytes left can "
               "hold (4)");
}

std::vector<uint8_t> executableWith(const std::string &target,
                                    const std::vector<uint8_t> &plan,
                                    const std::vector<uint8_t> &code) {
  ExecutableWriter writer(target);
  EXPECT_TRUE(writer.addSection(SectionKind::Metadata, "plan", plan).isOk());
  EXPECT_TRUE(writer.addSection(SectionKind::Code, "kernels", code).isOk());
  std::vector<uint8_t> weights(128, 0);
  EXPECT_TRUE(
      writer.addSection(SectionKind::Weights, "weights", weights).isOk());
  std::vector<uint8_t> bytes;
  EXPECT_TRUE(writer.serialize(bytes).isOk());
  return bytes;
}

Status loadBytes(const std::vector<uint8_t> &bytes) {
  ExecutableReader reader;
  NNC_RUNTIME_RETURN_IF_ERROR(
      ExecutableReader::fromBytes(bytes.data(), bytes.size(), reader, "exe"));
  std::unique_ptr<Program> program;
  return Program::load(std::move(reader), getCpuDevice(), "exe", program);
}

TEST(ProgramTest, RefusesWhatItCannotRun) {
  Plan plan = samplePlan();
  plan.cpuFeatures.clear();
  plan.needsOpenMP = false;
  plan.needsBlas = false;
  std::vector<uint8_t> planBytes = serializePlan(plan);
  std::vector<uint8_t> notElf = {'n', 'o', 't', ' ', 'e', 'l', 'f'};

  Status other = loadBytes(executableWith("cuda-sm_90", planBytes, notElf));
  EXPECT_EQ(other.code(), StatusCode::InvalidArgument);
  EXPECT_NE(other.message().find("built for target 'cuda-sm_90'"),
            std::string::npos)
      << other.message();

  Status code =
      loadBytes(executableWith(Program::hostCpuTarget(), planBytes, notElf));
  EXPECT_EQ(code.code(), StatusCode::DataLoss);
  EXPECT_NE(code.message().find("not a shared object"), std::string::npos)
      << code.message();

  // A shared object that is cut short is refused by the loader.
  std::vector<uint8_t> brokenElf = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
  Status broken =
      loadBytes(executableWith(Program::hostCpuTarget(), planBytes, brokenElf));
  EXPECT_EQ(broken.code(), StatusCode::DataLoss);
  EXPECT_NE(broken.message().find("cannot load the code"), std::string::npos)
      << broken.message();

  Plan needs = plan;
  needs.cpuFeatures = {"no-such-feature"};
  Status feature = loadBytes(
      executableWith(Program::hostCpuTarget(), serializePlan(needs), notElf));
  EXPECT_EQ(feature.code(), StatusCode::Unimplemented);
  EXPECT_NE(feature.message().find("'no-such-feature'"), std::string::npos);

  std::vector<uint8_t> badPlan = planBytes;
  badPlan.resize(10);
  Status planStatus =
      loadBytes(executableWith(Program::hostCpuTarget(), badPlan, notElf));
  EXPECT_EQ(planStatus.code(), StatusCode::DataLoss);
  EXPECT_NE(planStatus.message().find("exe: plan"), std::string::npos)
      << planStatus.message();
}

} // namespace
