//===- executable-fuzzer.cpp - libFuzzer target for executables -----------===//
//
// Feeds arbitrary bytes to ExecutableReader::fromBytes (the verifier
// openFile runs on a file) and, for an executable it accepts, the plan
// section to parsePlan against the weights section, as Program::load does
// before it loads any code. Code from the input is never loaded or run.
//
// Every mutation of an executable breaks its content hash, which would stop
// the fuzzer at the last check; so each input is tried as it is and then
// once more with the hash recomputed, which lets mutations reach the
// section table and the plan. Any crash, sanitizer report, hang or
// out-of-memory is a bug: bad input must end in an error Status.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/Executable.h"
#include "nnc/runtime/Plan.h"
#include "nnc/runtime/Trainer.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

using namespace nnc::runtime;

namespace {

void touch(const uint8_t *data, uint64_t size) {
  const volatile uint8_t *p = data;
  uint8_t sum = 0;
  for (uint64_t i = 0; i < size; ++i)
    sum += p[i];
  (void)sum;
}

void exercise(const ExecutableReader &reader) {
  (void)reader.target().size();
  for (const SectionRef &section : reader.sections()) {
    (void)sectionKindName(section.kind);
    (void)section.name.size();
    touch(section.data, section.size);
    if (reader.findSection(section.name) == nullptr ||
        reader.findSection(section.kind) == nullptr)
      __builtin_trap();
  }
  (void)isSavedTrainer(reader);
  // As Program::load reads it, short of loading the code.
  const SectionRef *planSection = reader.findSection("plan");
  const SectionRef *weights = reader.findSection("weights");
  if (!planSection || planSection->kind != SectionKind::Metadata)
    return;
  uint64_t weightsSize =
      weights && weights->kind == SectionKind::Weights ? weights->size : 0;
  Plan plan;
  if (!parsePlan(planSection->data, planSection->size, weightsSize,
                 "fuzz.nncx: plan", plan)
           .isOk())
    return;
  for (const PlanValue &value : plan.values) {
    (void)describeType(value.dtype, value.shape);
    if (value.role == ValueRole::Weight) {
      if (!weights || value.weightOffset > weights->size ||
          value.weightSize > weights->size - value.weightOffset)
        __builtin_trap();
      touch(weights->data + value.weightOffset, value.weightSize);
    }
  }
  for (const PlanStep &step : plan.steps)
    for (uint32_t arg : step.args)
      if (arg >= plan.values.size())
        __builtin_trap();
  for (ValueRole role : {ValueRole::Input, ValueRole::Output, ValueRole::Weight,
                         ValueRole::Scratch})
    (void)plan.indicesOf(role);
  // A plan that parses re-encodes to one that parses the same way.
  std::vector<uint8_t> again = serializePlan(plan);
  Plan reparsed;
  if (!parsePlan(again.data(), again.size(), weightsSize, "fuzz: plan again",
                 reparsed)
           .isOk() ||
      reparsed.values.size() != plan.values.size() ||
      reparsed.steps.size() != plan.steps.size())
    __builtin_trap();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  {
    ExecutableReader reader;
    if (ExecutableReader::fromBytes(data, size, reader, "fuzz.nncx").isOk()) {
      exercise(reader);
      return 0;
    }
  }
  if (size < exe::kHashOffset + exe::kHashSize)
    return 0;
  std::vector<uint8_t> fixed(data, data + size);
  Sha256 sha;
  sha.update(fixed.data(), exe::kHashOffset);
  sha.update(fixed.data() + exe::kHashOffset + exe::kHashSize,
             size - (exe::kHashOffset + exe::kHashSize));
  Sha256Digest hash = sha.finish();
  std::memcpy(fixed.data() + exe::kHashOffset, hash.data(), exe::kHashSize);
  ExecutableReader reader;
  if (ExecutableReader::fromBytes(fixed.data(), fixed.size(), reader,
                                  "fuzz.nncx")
          .isOk())
    exercise(reader);
  return 0;
}
