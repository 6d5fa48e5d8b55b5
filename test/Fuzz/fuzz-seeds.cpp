//===- fuzz-seeds.cpp - seed corpora for the runtime's reader fuzzers -----===//
//
// Usage: nnc-fuzz-seeds DIR
//
// Writes small valid inputs for each reader fuzzer into DIR/npy,
// DIR/checkpoint, DIR/executable and DIR/trainer, made with the runtime's
// own writers, so that a corpus starts from files the readers accept and
// follows the formats as they change. utils/fuzz.sh runs it when it seeds a
// corpus.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/Checkpoint.h"
#include "nnc/runtime/Executable.h"
#include "nnc/runtime/NpyIO.h"
#include "nnc/runtime/Plan.h"
#include "nnc/runtime/Program.h"
#include "nnc/runtime/Schedule.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace nnc::runtime;

namespace {

std::string outDir;

void check(const Status &status) {
  if (!status.isOk()) {
    std::fprintf(stderr, "nnc-fuzz-seeds: %s\n", status.message().c_str());
    std::exit(1);
  }
}

void makeDir(const std::string &path) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    std::perror(path.c_str());
    std::exit(1);
  }
}

void write(const std::string &reader, const std::string &name, const void *data,
           size_t size) {
  makeDir(outDir + "/" + reader);
  std::string path = outDir + "/" + reader + "/" + name;
  check(writeFileAtomically(path, data, size));
}

void write(const std::string &reader, const std::string &name,
           const std::vector<uint8_t> &bytes) {
  write(reader, name, bytes.data(), bytes.size());
}

/// A tensor whose bytes count up from `first`.
HostTensor tensor(DType dtype, std::vector<int64_t> shape, uint8_t first = 1) {
  HostTensor t;
  check(HostTensor::create(dtype, std::move(shape), t));
  auto *p = t.dataAs<uint8_t>();
  for (size_t i = 0; i < t.sizeInBytes(); ++i)
    p[i] = static_cast<uint8_t>(first + i);
  return t;
}

void npySeeds() {
  struct Case {
    const char *name;
    DType dtype;
    std::vector<int64_t> shape;
  } cases[] = {
      {"f32-2x3.npy", DType::F32, {2, 3}},
      {"i64-scalar.npy", DType::I64, {}},
      {"bool-4.npy", DType::Bool, {4}},
      {"f16-2x2x2.npy", DType::F16, {2, 2, 2}},
      {"u8-empty.npy", DType::U8, {0}},
      {"bf16-3.npy", DType::BF16, {3}},
  };
  for (const Case &c : cases) {
    std::vector<uint8_t> bytes;
    check(serializeNpy(tensor(c.dtype, c.shape), bytes));
    write("npy", c.name, bytes);
  }
  // The same bytes as a Fortran-order array (the header keeps its length).
  std::vector<uint8_t> bytes;
  check(serializeNpy(tensor(DType::F32, {2, 3}), bytes));
  std::string text(bytes.begin(), bytes.end());
  size_t at = text.find("False");
  if (at != std::string::npos) {
    std::memcpy(bytes.data() + at, "True ", 5);
    write("npy", "f32-2x3-fortran.npy", bytes);
  }

  std::vector<NpzEntry> entries;
  entries.push_back({"x", tensor(DType::F32, {2, 2})});
  entries.push_back({"labels", tensor(DType::I32, {3}, 7)});
  std::vector<uint8_t> npz;
  check(serializeNpz(entries, npz));
  write("npy", "two.npz", npz);
  NpzWriteOptions zip64;
  zip64.forceZip64 = true;
  npz.clear();
  check(serializeNpz(entries, npz, zip64));
  write("npy", "two-zip64.npz", npz);
}

Checkpoint checkpointOf() {
  Checkpoint c;
  c.tensors.push_back({"fc.weight", tensor(DType::F32, {2, 3})});
  c.tensors.push_back({"optimizer.m.0", tensor(DType::F32, {2, 3}, 9)});
  c.tensors.push_back({"steps", tensor(DType::I64, {})});
  c.setInt("step", 12);
  c.setDouble("loss_scaler.scale", 65536.0);
  c.setString("note", "a line\nand a tab\t\\ and \x01");
  return c;
}

void checkpointSeeds() {
  std::vector<uint8_t> image;
  check(serializeCheckpoint(checkpointOf(), image));
  write("checkpoint", "small.ckpt", image);
  Checkpoint empty;
  image.clear();
  check(serializeCheckpoint(empty, image));
  write("checkpoint", "empty.ckpt", image);
}

std::vector<uint8_t> planOf(uint64_t &weightsSize) {
  Plan plan;
  plan.producer = "nnc-fuzz-seeds";
  PlanValue x;
  x.role = ValueRole::Input;
  x.name = "x";
  x.shape = {2, 3};
  PlanValue w;
  w.role = ValueRole::Weight;
  w.kind = ValueKind::Frozen;
  w.name = "w";
  w.shape = {3, 2};
  w.weightOffset = 0;
  w.weightSize = 24;
  PlanValue scratch;
  scratch.role = ValueRole::Scratch;
  scratch.kind = ValueKind::Buffer;
  scratch.name = "scratch";
  scratch.dtype = DType::U8;
  scratch.shape = {128};
  PlanValue y;
  y.role = ValueRole::Output;
  y.kind = ValueKind::Output;
  y.name = "y";
  y.shape = {2, 2};
  PlanValue state;
  state.role = ValueRole::Input;
  state.kind = ValueKind::Buffer;
  state.name = "state";
  state.shape = {2};
  PlanValue newState = state;
  newState.role = ValueRole::Output;
  newState.kind = ValueKind::Output;
  newState.name = "state.out";
  plan.values = {x, w, scratch, y, state, newState};
  PlanStep matmul;
  matmul.kernel = "matmul_0";
  matmul.args = {0, 1, 2, 3};
  matmul.name = "matmul: /fc/MatMul";
  matmul.detail = "linalg.matmul";
  matmul.kind = StepKind::Library;
  matmul.bytesRead = 48;
  matmul.bytesWritten = 16;
  PlanStep update;
  update.kernel = "update_1";
  update.args = {4, 5};
  plan.steps = {matmul, update};
  plan.cpuFeatures = {"sse2"};
  plan.needsOpenMP = true;
  plan.needsBlas = true;
  plan.libraryCalls = 1;
  plan.temporaryBytes = 128;
  plan.unfusedKernels = 3;
  plan.unfusedBytesMoved = 200;
  plan.donations = {{5, 4}};
  weightsSize = 64;
  return serializePlan(plan);
}

void executableSeeds() {
  uint64_t weightsSize = 0;
  std::vector<uint8_t> plan = planOf(weightsSize);
  std::vector<uint8_t> weights(weightsSize, 0x3f);
  // Stands for kernel code; the fuzzer never loads a code section.
  std::vector<uint8_t> code = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
  std::string symbols = "matmul_0\nupdate_1\n";
  ExecutableWriter writer(Program::hostCpuTarget());
  check(writer.addSection(SectionKind::Metadata, "plan", plan));
  check(writer.addSection(SectionKind::Code, "kernels", code));
  check(writer.addSection(SectionKind::Weights, "weights", weights));
  check(writer.addSection(SectionKind::SymbolTable, "symbols", symbols.data(),
                          symbols.size()));
  std::vector<uint8_t> bytes;
  check(writer.serialize(bytes));
  write("executable", "model.nncx", bytes);

  ExecutableWriter bare("cuda-sm_90");
  check(bare.addSection(SectionKind::Other, "note", "x", 1, 256));
  bytes.clear();
  check(bare.serialize(bytes));
  write("executable", "bare.nncx", bytes);

  // The shape of a saved trainer, without its programs.
  std::vector<uint8_t> image;
  check(serializeCheckpoint(checkpointOf(), image));
  ExecutableWriter trainer(Program::hostCpuTarget());
  check(trainer.addSection(SectionKind::Other, "nnc.trainer", image));
  bytes.clear();
  check(trainer.serialize(bytes));
  write("executable", "trainer.nnct", bytes);
}

std::string escape(const std::string &value) {
  std::string out;
  for (char c : value)
    out += c == '\n'   ? std::string("\\n")
           : c == '\t' ? std::string("\\t")
           : c == '\\' ? std::string("\\\\")
                       : std::string(1, c);
  return out;
}

/// The trainer fuzzer's text (see trainer-fuzzer.cpp) of a small saved
/// trainer: one parameter, SGD with momentum, cross-entropy.
void trainerSeeds() {
  std::string layout = "slot\t1\tf32\t2,3\tfc.weight\n"
                       "slot\t3\tf32\t2\tbn.mean\n"
                       "trainable\t0\n"
                       "data\t0\tf32\t-1,3\tx\n"
                       "data\t0\ti64\t-1\ty\n"
                       "state\tm.0\n"
                       "function\t0\tstep\n"
                       "arg\t0\t0\narg\t0\t1\narg\t1\t0\narg\t1\t1\n"
                       "arg\t4\t0\narg\t5\t0\narg\t2\t0\narg\t3\t0\n"
                       "result\t1\t0\nresult\t2\t0\nresult\t2\t1\n"
                       "result\t3\t0\nresult\t4\t0\n"
                       "function\t1\tgrad\n"
                       "arg\t0\t0\narg\t0\t1\narg\t1\t0\narg\t3\t0\n"
                       "result\t1\t0\nresult\t5\t0\nresult\t4\t0\n"
                       "function\t2\tapply\n"
                       "arg\t1\t0\narg\t4\t0\narg\t6\t0\narg\t5\t0\n"
                       "result\t2\t0\nresult\t3\t0\n"
                       "function\t3\teval\n"
                       "arg\t0\t0\narg\t1\t0\narg\t1\t1\nresult\t0\t0\n";
  std::map<std::string, std::string> metadata = {
      {"trainer.version", "1"},
      {"trainer.layout", layout},
      {"trainer.model", "mlp"},
      {"nnc.fingerprint", "0123456789abcdef"},
      {"trainer.loss_type", "f32"},
      {"trainer.loss", "cross_entropy"},
      {"trainer.loss_output", "0"},
      {"trainer.classes", "3"},
      {"trainer.ignore_index", "-100"},
      {"trainer.learning_rate", "0.10000000000000001"},
      {"trainer.accumulate", "2"},
      {"nnc.seed", "42"},
      {"trainer.programs", "1"},
      {"trainer.program.0", "step\t[2,3];[2]"},
  };
  LrSchedule cosine;
  cosine.kind = LrSchedule::Kind::Cosine;
  check(parseLrSchedule("cosine:5:100:1e-5", cosine));
  metadata["trainer.schedule"] = formatLrSchedule(cosine);
  LossScaler scaler;
  scaler.save(metadata, "trainer.loss_scaler.");
  std::string text;
  for (const auto &[key, value] : metadata)
    text += key + "=" + escape(value) + "\n";
  text += "@optimizer.m.0 f32 2,3\n@fc.weight f32 2,3\n@bn.mean f32 2\n";
  write("trainer", "sgd.txt", text.data(), text.size());
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: nnc-fuzz-seeds DIR\n");
    return 2;
  }
  outDir = argv[1];
  makeDir(outDir);
  npySeeds();
  checkpointSeeds();
  executableSeeds();
  trainerSeeds();
  return 0;
}
