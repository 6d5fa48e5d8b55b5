//===- trainer-fuzzer.cpp - libFuzzer target for saved trainers -----------===//
//
// Fuzzes what loadTrainerFromBytes reads of a saved trainer before it loads
// any code: the metadata of its "nnc.trainer" checkpoint (the layout, loss,
// schedule, loss scaler, seed, program descriptions) and the state tensors
// it sizes from them. A saved trainer's programs are executables whose code
// would be loaded and run, so the fuzzer never supplies any: every input
// ends, at the latest, at the missing "program.0" section.
//
// A checkpoint's SHA-256 and exact-layout checks would stop mutated images
// early (the checkpoint fuzzer covers those), so the input here is the
// checkpoint's content as text, which the fuzzer writes out as a valid
// image with the runtime's own writer:
//   key=value      a metadata pair; in the value \n is a newline, \t a tab
//                  and \\ a backslash
//   @name dtype d0,d1,...
//                  a zero tensor (at most 4096 elements in all)
// Any crash, sanitizer report, hang or out-of-memory is a bug.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/Checkpoint.h"
#include "nnc/runtime/Executable.h"
#include "nnc/runtime/Program.h"
#include "nnc/runtime/Trainer.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

using namespace nnc::runtime;

namespace {

std::string unescape(const std::string &text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    char c = text[++i];
    out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
  }
  return out;
}

/// Adds "@name dtype dims" as a zero tensor; false when it does not parse.
bool addTensor(const std::string &line, int64_t &budget, Checkpoint &out) {
  size_t space1 = line.find(' ');
  size_t space2 =
      space1 == std::string::npos ? space1 : line.find(' ', space1 + 1);
  if (space2 == std::string::npos)
    return false;
  std::string name = line.substr(1, space1 - 1);
  std::string dtype = line.substr(space1 + 1, space2 - space1 - 1);
  std::string dims = line.substr(space2 + 1);
  DType type = DType::F32;
  bool known = false;
  for (size_t d = 0; d < kNumDTypes; ++d)
    if (dtype == dtypeName(static_cast<DType>(d))) {
      type = static_cast<DType>(d);
      known = true;
    }
  std::vector<int64_t> shape;
  int64_t elements = 1;
  for (size_t start = 0; known && !dims.empty() && start <= dims.size();) {
    size_t comma = dims.find(',', start);
    std::string part = dims.substr(start, comma - start);
    if (part.empty() || part.size() > 5 ||
        part.find_first_not_of("0123456789") != std::string::npos)
      return false;
    shape.push_back(std::stoll(part));
    elements *= shape.back();
    if (elements > budget)
      return false;
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if (!known || shape.size() > 8)
    return false;
  budget -= elements;
  HostTensor tensor;
  if (!HostTensor::create(type, shape, tensor).isOk())
    return false;
  out.tensors.push_back({name, std::move(tensor)});
  return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  Checkpoint checkpoint;
  int64_t budget = 4096;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    std::string line = text.substr(start, nl - start);
    start = nl == std::string::npos ? text.size() : nl + 1;
    if (line.empty())
      continue;
    if (line[0] == '@') {
      if (!addTensor(line, budget, checkpoint))
        return 0;
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string::npos)
      return 0;
    checkpoint.metadata[line.substr(0, eq)] = unescape(line.substr(eq + 1));
  }
  std::vector<uint8_t> image;
  if (!serializeCheckpoint(checkpoint, image).isOk())
    return 0;
  ExecutableWriter writer(Program::hostCpuTarget());
  std::vector<uint8_t> executable;
  if (!writer.addSection(SectionKind::Other, "nnc.trainer", image).isOk() ||
      !writer.serialize(executable).isOk())
    __builtin_trap();
  std::unique_ptr<Trainer> trainer;
  // No input has program sections, so none may load.
  Status status = loadTrainerFromBytes(executable.data(), executable.size(),
                                       "fuzz.nnct", trainer);
  if (status.isOk())
    __builtin_trap();
  // NNC_FUZZ_VERBOSE=1 shows where each input stopped (replaying a corpus).
  static const bool verbose = std::getenv("NNC_FUZZ_VERBOSE") != nullptr;
  if (verbose)
    std::fprintf(stderr, "%s\n", status.message().c_str());
  return 0;
}
