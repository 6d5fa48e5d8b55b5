//===- Plan.cpp - encoding and checking of execution plans ----------------===//
//
// The plan encoding: a 4-byte magic "NNCP", the version, then the fields of
// Plan in declaration order (what a version adds, at the end of its
// record); strings and arrays are length-prefixed. Every
// read is bounds-checked and every count capped, so a corrupt plan is
// reported, never trusted.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/Plan.h"

#include "ByteCodec.h"

#include <cstring>
#include <limits>

namespace nnc::runtime {

using detail::Reader;
using detail::Writer;

namespace {

constexpr uint8_t kPlanMagic[4] = {'N', 'N', 'C', 'P'};
// Caps that keep a corrupt count from allocating the world.
constexpr uint32_t kMaxValues = 1u << 20;
constexpr uint32_t kMaxSteps = 1u << 20;
constexpr uint32_t kMaxArgs = 1u << 16;
// A step's detail may list many fused ops.
constexpr uint32_t kMaxDetail = 1u << 16;
constexpr uint32_t kMaxRank = 32;
constexpr uint32_t kMaxFeatures = 256;
constexpr uint32_t kMaxChecks = 1u << 16;
// The fewest bytes a value and a step take (empty strings, rank 0, no
// arguments; a version 1 step): role, kind, dtype, name length, rank,
// weight offset and size; kernel name length, argument count.
constexpr size_t kMinValueBytes = 3 + 4 + 4 + 8 + 8;
constexpr size_t kMinStepBytes = 4 + 4;
// Bits of the runtime-libraries byte (once a 0/1 OpenMP flag, which stays
// valid).
constexpr uint8_t kLibraryOpenMP = 1;
constexpr uint8_t kLibraryBlas = 2;
constexpr uint8_t kLibraryDnnl = 4;
constexpr uint8_t kLibraryCollectives = 8;

const char *roleName(ValueRole role) {
  switch (role) {
  case ValueRole::Input:
    return "input";
  case ValueRole::Output:
    return "output";
  case ValueRole::Weight:
    return "weight";
  case ValueRole::Scratch:
    return "scratch";
  }
  return "unknown";
}

} // namespace

std::vector<uint32_t> Plan::indicesOf(ValueRole role) const {
  std::vector<uint32_t> indices;
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].role == role)
      indices.push_back(static_cast<uint32_t>(i));
  return indices;
}

std::string describeType(DType dtype, const std::vector<int64_t> &shape) {
  std::string text = std::string(dtypeName(dtype)) + "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "x" : "") + std::to_string(shape[i]);
  return text + "]";
}

std::vector<uint8_t> serializePlan(const Plan &plan) {
  std::vector<uint8_t> out;
  Writer w(out);
  for (uint8_t b : kPlanMagic)
    w.u8(b);
  w.u32(Plan::kVersion);
  w.str(plan.producer);
  w.u32(static_cast<uint32_t>(plan.values.size()));
  for (const PlanValue &v : plan.values) {
    w.u8(static_cast<uint8_t>(v.role));
    w.u8(static_cast<uint8_t>(v.kind));
    w.u8(static_cast<uint8_t>(v.dtype));
    w.str(v.name);
    w.u32(static_cast<uint32_t>(v.shape.size()));
    for (int64_t d : v.shape)
      w.u64(static_cast<uint64_t>(d));
    w.u64(v.weightOffset);
    w.u64(v.weightSize);
  }
  w.u32(static_cast<uint32_t>(plan.steps.size()));
  for (const PlanStep &s : plan.steps) {
    w.str(s.kernel);
    w.u32(static_cast<uint32_t>(s.args.size()));
    for (uint32_t a : s.args)
      w.u32(a);
    w.str(s.name);
    w.str(s.detail);
    w.u8(static_cast<uint8_t>(s.kind));
    w.u64(s.bytesRead);
    w.u64(s.bytesWritten);
  }
  w.u32(static_cast<uint32_t>(plan.cpuFeatures.size()));
  for (const std::string &f : plan.cpuFeatures)
    w.str(f);
  w.u8((plan.needsOpenMP ? kLibraryOpenMP : 0) |
       (plan.needsBlas ? kLibraryBlas : 0) |
       (plan.needsDnnl ? kLibraryDnnl : 0) |
       (plan.needsCollectives ? kLibraryCollectives : 0));
  w.u32(plan.libraryCalls);
  w.u64(plan.temporaryBytes);
  w.u32(plan.unfusedKernels);
  w.u64(plan.unfusedBytesMoved);
  w.u64(plan.kernelAllocBytes);
  w.u32(static_cast<uint32_t>(plan.donations.size()));
  for (auto [output, input] : plan.donations) {
    w.u32(output);
    w.u32(input);
  }
  w.u32(plan.checksValue);
  w.u32(static_cast<uint32_t>(plan.checks.size()));
  for (const PlanCheck &check : plan.checks)
    w.str(check.what);
  uint32_t numSpecialized = 0;
  for (const PlanValue &v : plan.values)
    numSpecialized += v.specializedValues.empty() ? 0 : 1;
  w.u32(numSpecialized);
  for (size_t i = 0; i < plan.values.size(); ++i) {
    const std::vector<int64_t> &values = plan.values[i].specializedValues;
    if (values.empty())
      continue;
    w.u32(static_cast<uint32_t>(i));
    w.u32(static_cast<uint32_t>(values.size()));
    for (int64_t v : values)
      w.u64(static_cast<uint64_t>(v));
  }
  return out;
}

Status parsePlan(const uint8_t *data, size_t size, uint64_t weightsSize,
                 const std::string &source, Plan &out) {
  Reader r(data, size, source);
  Plan plan;
  NNC_RUNTIME_RETURN_IF_ERROR(r.need(sizeof(kPlanMagic), "the magic"));
  if (std::memcmp(data, kPlanMagic, sizeof(kPlanMagic)) != 0)
    return r.fail("not a plan (bad magic)");
  for (size_t i = 0; i < sizeof(kPlanMagic); ++i) {
    uint8_t skip;
    NNC_RUNTIME_RETURN_IF_ERROR(r.u8(skip, "the magic"));
  }
  uint32_t version = 0;
  NNC_RUNTIME_RETURN_IF_ERROR(r.u32(version, "the version"));
  if (version == 0 || version > Plan::kVersion)
    return Status(StatusCode::DataLoss,
                  source + ": plan version " + std::to_string(version) +
                      " is not supported (this runtime reads up to " +
                      std::to_string(Plan::kVersion) + ")");
  NNC_RUNTIME_RETURN_IF_ERROR(r.str(plan.producer, "the producer"));

  uint32_t numValues = 0;
  NNC_RUNTIME_RETURN_IF_ERROR(
      r.count(numValues, kMaxValues, "value count", kMinValueBytes));
  plan.values.resize(numValues);
  for (uint32_t i = 0; i < numValues; ++i) {
    PlanValue &v = plan.values[i];
    std::string what = "value " + std::to_string(i);
    uint8_t role, kind, dtype;
    NNC_RUNTIME_RETURN_IF_ERROR(r.u8(role, "a value role"));
    NNC_RUNTIME_RETURN_IF_ERROR(r.u8(kind, "a value kind"));
    NNC_RUNTIME_RETURN_IF_ERROR(r.u8(dtype, "a value dtype"));
    uint8_t maxRole = static_cast<uint8_t>(version >= 2 ? ValueRole::Scratch
                                                        : ValueRole::Weight);
    if (role > maxRole)
      return r.fail(what + " has unknown role " + std::to_string(role));
    if (kind > static_cast<uint8_t>(ValueKind::Output))
      return r.fail(what + " has unknown kind " + std::to_string(kind));
    if (dtype >= kNumDTypes)
      return r.fail(what + " has unknown dtype " + std::to_string(dtype));
    v.role = static_cast<ValueRole>(role);
    v.kind = static_cast<ValueKind>(kind);
    v.dtype = static_cast<DType>(dtype);
    NNC_RUNTIME_RETURN_IF_ERROR(r.str(v.name, "a value name"));
    uint32_t rank = 0;
    NNC_RUNTIME_RETURN_IF_ERROR(r.count(rank, kMaxRank, "a value rank"));
    v.shape.resize(rank);
    for (uint32_t d = 0; d < rank; ++d) {
      uint64_t dim = 0;
      NNC_RUNTIME_RETURN_IF_ERROR(r.u64(dim, "a dimension"));
      if (dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return r.fail(what + " has a negative dimension");
      v.shape[d] = static_cast<int64_t>(dim);
    }
    int64_t elements = 0;
    size_t bytes = 0;
    Status shapeStatus =
        checkedShapeSize(v.shape, dtypeSize(v.dtype), elements, bytes);
    if (!shapeStatus.isOk())
      return r.fail(what + ": " + shapeStatus.message());
    NNC_RUNTIME_RETURN_IF_ERROR(r.u64(v.weightOffset, "a weight offset"));
    NNC_RUNTIME_RETURN_IF_ERROR(r.u64(v.weightSize, "a weight size"));
    if (v.role == ValueRole::Weight) {
      if (v.weightSize != bytes)
        return r.fail(what + " ('" + v.name + "', " +
                      describeType(v.dtype, v.shape) + ") has " +
                      std::to_string(v.weightSize) + " bytes of weights, not " +
                      std::to_string(bytes));
      if (v.weightOffset > weightsSize ||
          v.weightSize > weightsSize - v.weightOffset)
        return r.fail(what + " ('" + v.name + "'): weights at offset " +
                      std::to_string(v.weightOffset) + " + " +
                      std::to_string(v.weightSize) +
                      " bytes run past the weights section of " +
                      std::to_string(weightsSize) + " bytes");
    } else if (v.weightOffset != 0 || v.weightSize != 0) {
      return r.fail(what + " is " +
                    (v.role == ValueRole::Scratch ? "a " : "an ") +
                    roleName(v.role) + " but has a weights range");
    }
    if (v.role == ValueRole::Scratch &&
        (v.dtype != DType::U8 || v.shape.size() != 1))
      return r.fail(what + " ('" + v.name + "') is scratch of type " +
                    describeType(v.dtype, v.shape) + ", not u8[bytes]");
  }

  uint32_t numSteps = 0;
  NNC_RUNTIME_RETURN_IF_ERROR(
      r.count(numSteps, kMaxSteps, "step count", kMinStepBytes));
  plan.steps.resize(numSteps);
  for (uint32_t i = 0; i < numSteps; ++i) {
    PlanStep &s = plan.steps[i];
    NNC_RUNTIME_RETURN_IF_ERROR(r.str(s.kernel, "a kernel name"));
    if (s.kernel.empty())
      return r.fail("step " + std::to_string(i) + " names no kernel");
    uint32_t numArgs = 0;
    NNC_RUNTIME_RETURN_IF_ERROR(
        r.count(numArgs, kMaxArgs, "argument count", 4));
    s.args.resize(numArgs);
    for (uint32_t a = 0; a < numArgs; ++a) {
      NNC_RUNTIME_RETURN_IF_ERROR(r.u32(s.args[a], "a step argument"));
      if (s.args[a] >= numValues)
        return r.fail("step " + std::to_string(i) + " argument " +
                      std::to_string(a) + " refers to value " +
                      std::to_string(s.args[a]) + " of " +
                      std::to_string(numValues));
    }
    if (version < 2)
      continue;
    NNC_RUNTIME_RETURN_IF_ERROR(r.str(s.name, "a step name"));
    NNC_RUNTIME_RETURN_IF_ERROR(
        r.str(s.detail, "a step detail", kMaxDetail, /*multiline=*/true));
    uint8_t kind = 0;
    NNC_RUNTIME_RETURN_IF_ERROR(r.u8(kind, "a step kind"));
    if (kind > static_cast<uint8_t>(StepKind::Library))
      return r.fail("step " + std::to_string(i) + " has unknown kind " +
                    std::to_string(kind));
    s.kind = static_cast<StepKind>(kind);
    NNC_RUNTIME_RETURN_IF_ERROR(r.u64(s.bytesRead, "a step's bytes read"));
    NNC_RUNTIME_RETURN_IF_ERROR(
        r.u64(s.bytesWritten, "a step's bytes written"));
  }

  uint32_t numFeatures = 0;
  NNC_RUNTIME_RETURN_IF_ERROR(
      r.count(numFeatures, kMaxFeatures, "CPU feature count", 4));
  plan.cpuFeatures.resize(numFeatures);
  for (std::string &f : plan.cpuFeatures)
    NNC_RUNTIME_RETURN_IF_ERROR(r.str(f, "a CPU feature"));
  uint8_t libraries = 0;
  NNC_RUNTIME_RETURN_IF_ERROR(r.u8(libraries, "the runtime libraries"));
  if (libraries &
      ~(kLibraryOpenMP | kLibraryBlas | kLibraryDnnl | kLibraryCollectives))
    return r.fail("the runtime libraries are " + std::to_string(libraries) +
                  " (known: 1 OpenMP, 2 BLAS, 4 oneDNN, 8 collectives)");
  plan.needsOpenMP = (libraries & kLibraryOpenMP) != 0;
  plan.needsBlas = (libraries & kLibraryBlas) != 0;
  plan.needsDnnl = (libraries & kLibraryDnnl) != 0;
  plan.needsCollectives = (libraries & kLibraryCollectives) != 0;
  NNC_RUNTIME_RETURN_IF_ERROR(r.u32(plan.libraryCalls, "the library calls"));
  NNC_RUNTIME_RETURN_IF_ERROR(
      r.u64(plan.temporaryBytes, "the temporary bytes"));
  if (version >= 2) {
    NNC_RUNTIME_RETURN_IF_ERROR(
        r.u32(plan.unfusedKernels, "the unfused kernel count"));
    NNC_RUNTIME_RETURN_IF_ERROR(
        r.u64(plan.unfusedBytesMoved, "the unfused bytes moved"));
    NNC_RUNTIME_RETURN_IF_ERROR(
        r.u64(plan.kernelAllocBytes, "the kernel allocation bytes"));
    uint32_t numDonations = 0;
    NNC_RUNTIME_RETURN_IF_ERROR(r.count(
        numDonations, static_cast<uint32_t>(numValues), "donation count"));
    std::vector<bool> seen(numValues, false);
    for (uint32_t d = 0; d < numDonations; ++d) {
      uint32_t output = 0, input = 0;
      NNC_RUNTIME_RETURN_IF_ERROR(r.u32(output, "a donated output"));
      NNC_RUNTIME_RETURN_IF_ERROR(r.u32(input, "a donating input"));
      if (output >= numValues || input >= numValues ||
          plan.values[output].role != ValueRole::Output ||
          plan.values[input].role != ValueRole::Input)
        return r.fail("donation " + std::to_string(d) +
                      " does not pair an output with an input");
      if (seen[output] || seen[input])
        return r.fail("donation " + std::to_string(d) +
                      " repeats a value of an earlier one");
      seen[output] = seen[input] = true;
      const PlanValue &o = plan.values[output], &i = plan.values[input];
      if (o.dtype != i.dtype || o.shape != i.shape)
        return r.fail("donation " + std::to_string(d) + " writes " +
                      describeType(o.dtype, o.shape) + " into " +
                      describeType(i.dtype, i.shape));
      plan.donations.push_back({output, input});
    }
  }
  if (version >= 3) {
    NNC_RUNTIME_RETURN_IF_ERROR(r.u32(plan.checksValue, "the checks value"));
    uint32_t numChecks = 0;
    NNC_RUNTIME_RETURN_IF_ERROR(r.count(numChecks, kMaxChecks, "check count", 4));
    plan.checks.resize(numChecks);
    for (PlanCheck &check : plan.checks)
      NNC_RUNTIME_RETURN_IF_ERROR(r.str(check.what, "a check"));
    if (numChecks == 0 && plan.checksValue != Plan::kNoValue)
      return r.fail("the plan names a checks value but makes no checks");
    if (numChecks != 0) {
      if (plan.checksValue >= numValues ||
          plan.values[plan.checksValue].role != ValueRole::Scratch)
        return r.fail("the checks value " + std::to_string(plan.checksValue) +
                      " is not a scratch value");
      const PlanValue &v = plan.values[plan.checksValue];
      uint64_t bytes = Plan::kCheckSlotBytes * numChecks;
      if (static_cast<uint64_t>(v.shape[0]) != bytes)
        return r.fail("the checks value '" + v.name + "' has " +
                      std::to_string(v.shape[0]) + " bytes, not " +
                      std::to_string(bytes) + " for " +
                      std::to_string(numChecks) + " checks");
    }
  }
  if (version >= 4) {
    uint32_t numSpecialized = 0;
    NNC_RUNTIME_RETURN_IF_ERROR(
        r.count(numSpecialized, numValues, "specialized input count", 8));
    for (uint32_t k = 0; k < numSpecialized; ++k) {
      uint32_t index = 0, count = 0;
      NNC_RUNTIME_RETURN_IF_ERROR(r.u32(index, "a specialized input"));
      if (index >= numValues)
        return r.fail("specialized input " + std::to_string(index) +
                      " is not a value of the plan");
      PlanValue &v = plan.values[index];
      if (v.role != ValueRole::Input || !isIntegerDType(v.dtype))
        return r.fail("specialized input " + std::to_string(index) + " '" +
                      v.name + "' is not an integer input");
      if (!v.specializedValues.empty())
        return r.fail("input '" + v.name + "' is specialized twice");
      NNC_RUNTIME_RETURN_IF_ERROR(r.count(count, Plan::kMaxSpecializedElements,
                                          "a specialized value count", 8));
      int64_t elements = 1;
      for (int64_t d : v.shape)
        elements *= d; // Ranks and dimensions were checked above.
      if (count == 0 || static_cast<int64_t>(count) != elements)
        return r.fail("input '" + v.name + "' of type " +
                      describeType(v.dtype, v.shape) + " is specialized on " +
                      std::to_string(count) + " values");
      v.specializedValues.resize(count);
      for (int64_t &value : v.specializedValues) {
        uint64_t bits = 0;
        NNC_RUNTIME_RETURN_IF_ERROR(r.u64(bits, "a specialized value"));
        value = static_cast<int64_t>(bits);
      }
    }
  }
  if (!r.atEnd())
    return r.fail("trailing bytes after the plan");
  if (plan.indicesOf(ValueRole::Output).empty())
    return r.fail("the plan has no output");
  if (plan.steps.empty())
    return r.fail("the plan has no step");
  out = std::move(plan);
  return Status::ok();
}

} // namespace nnc::runtime
