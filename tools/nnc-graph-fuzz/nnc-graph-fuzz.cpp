//===- nnc-graph-fuzz.cpp - differential fuzzer of the optimizer ----------===//
//
// Generates random valid ONNX graphs (GraphGenerator.h), compiles each
// through the public C API twice, with the default options and with fusion
// and memory planning off, runs both on the same random inputs and compares
// their outputs. A graph that fails to import or compile, that the two
// compiles disagree on, or that crashes the process, is written to the
// output folder as `seed-<N>.onnx` (with `seed-<N>.txt` saying what went
// wrong), ready for `nnc-graph-fuzz --replay` or `nnc-run`.
//
//===----------------------------------------------------------------------===//

#include "GraphGenerator.h"

#include "nnc-c/compiler.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace nnc::graphfuzz;
namespace fs = std::filesystem;

namespace {

const char *kUsage = R"(usage: nnc-graph-fuzz [options]
       nnc-graph-fuzz --replay FILE.onnx...

Generates random valid ONNX graphs, compiles each with the default options
and with fusion and memory planning off, runs both on the same random inputs
and compares the outputs (integers and booleans exactly, floats within a
relative 1e-4 of each element plus 1e-5 of the output's largest magnitude,
NaN where NaN). Stops at the first failure and writes the graph and what
went wrong to the output folder. Exit status 0 when every graph passed.

  --seed N         first seed (default 1); seeds N, N+1, ... follow
  --count N        graphs to try (default 100; 0: no limit, with --seconds)
  --seconds S      stop starting new graphs after S seconds
  --out DIR        where failures go (default graph-fuzz-out)
  --keep-going     record every failure and go on to the next seed
  --replay FILE... compile, run and compare these models instead (inputs
                   from the seed in their metadata, else seed 1)
  --verbose        print each seed and its outcome
  --reference-fuse, --reference-plan-memory
                   turn fusion or memory planning back on in the
                   reference compile, to tell which of the two a
                   difference comes from
)";

struct Options {
  uint64_t seed = 1;
  uint64_t count = 100;
  double seconds = 0;
  std::string out = "graph-fuzz-out";
  bool keepGoing = false;
  bool verbose = false;
  std::vector<std::string> replay;
};

/// Owns a C API status; empty for success.
struct Status {
  nnc_status_t status = nullptr;
  Status(nnc_status_t s) : status(s) {}
  ~Status() { nnc_status_destroy(status); }
  Status(const Status &) = delete;
  explicit operator bool() const { return status != nullptr; }
  std::string message() const {
    return std::string(nnc_status_code_name(nnc_status_code(status))) + ": " +
           nnc_status_message(status);
  }
};

struct TensorDeleter {
  void operator()(nnc_tensor_t *t) const { nnc_tensor_destroy(t); }
};
using Tensor = std::unique_ptr<nnc_tensor_t, TensorDeleter>;
struct ExecutableDeleter {
  void operator()(nnc_executable_t *e) const { nnc_executable_destroy(e); }
};
using Executable = std::unique_ptr<nnc_executable_t, ExecutableDeleter>;
struct ModelDeleter {
  void operator()(nnc_model_t *m) const { nnc_model_destroy(m); }
};
using Model = std::unique_ptr<nnc_model_t, ModelDeleter>;
struct ContextDeleter {
  void operator()(nnc_context_t *c) const { nnc_context_destroy(c); }
};
using Context = std::unique_ptr<nnc_context_t, ContextDeleter>;

std::optional<nnc_dtype_t> toDType(int32_t elemType) {
  switch (elemType) {
  case onnx::TensorProto::FLOAT:
    return NNC_DTYPE_F32;
  case onnx::TensorProto::DOUBLE:
    return NNC_DTYPE_F64;
  case onnx::TensorProto::INT32:
    return NNC_DTYPE_I32;
  case onnx::TensorProto::INT64:
    return NNC_DTYPE_I64;
  case onnx::TensorProto::BOOL:
    return NNC_DTYPE_BOOL;
  default:
    return std::nullopt;
  }
}

/// What happened to one graph.
struct Outcome {
  enum Kind { Pass, ImportError, CompileError, RunError, Mismatch } kind = Pass;
  std::string message;
};

const char *kindName(Outcome::Kind k) {
  switch (k) {
  case Outcome::Pass:
    return "pass";
  case Outcome::ImportError:
    return "import error";
  case Outcome::CompileError:
    return "compile error";
  case Outcome::RunError:
    return "run error";
  case Outcome::Mismatch:
    return "mismatch";
  }
  return "?";
}

std::string shapeString(const nnc_tensor_t *t) {
  std::string s = std::string(nnc_dtype_name(nnc_tensor_dtype(t))) + "[";
  for (size_t i = 0; i < nnc_tensor_rank(t); ++i)
    s += (i ? "x" : "") + std::to_string(nnc_tensor_dims(t)[i]);
  return s + "]";
}

/// Element `i` of a tensor, as a double (for messages and float checks).
double element(const nnc_tensor_t *t, size_t i) {
  const void *d = nnc_tensor_const_data(t);
  switch (nnc_tensor_dtype(t)) {
  case NNC_DTYPE_F32:
    return static_cast<const float *>(d)[i];
  case NNC_DTYPE_F64:
    return static_cast<const double *>(d)[i];
  case NNC_DTYPE_I32:
    return static_cast<const int32_t *>(d)[i];
  case NNC_DTYPE_I64:
    return static_cast<double>(static_cast<const int64_t *>(d)[i]);
  case NNC_DTYPE_BOOL:
  case NNC_DTYPE_U8:
  case NNC_DTYPE_I8:
    return static_cast<const uint8_t *>(d)[i];
  default:
    return 0;
  }
}

/// Compares output `index` of the optimized compile (`got`) with the
/// reference; empty when they agree.
std::string compareOutputs(size_t index, const nnc_tensor_t *got,
                           const nnc_tensor_t *want) {
  std::string where = "output " + std::to_string(index) + ": ";
  if (shapeString(got) != shapeString(want))
    return where + "optimized gives " + shapeString(got) + ", reference " +
           shapeString(want);
  size_t bytes = nnc_tensor_byte_size(want);
  size_t n = bytes / nnc_dtype_size(nnc_tensor_dtype(want));
  nnc_dtype_t dt = nnc_tensor_dtype(want);
  bool isFloat = dt == NNC_DTYPE_F32 || dt == NNC_DTYPE_F64;
  if (!isFloat) {
    if (std::memcmp(nnc_tensor_const_data(got), nnc_tensor_const_data(want),
                    bytes) == 0)
      return "";
    for (size_t i = 0; i < n; ++i)
      if (element(got, i) != element(want, i)) {
        std::ostringstream os;
        os << where << "element " << i << " is " << element(got, i)
           << " optimized, " << element(want, i) << " reference";
        return os.str();
      }
    return where + "bytes differ";
  }
  double rtol = dt == NNC_DTYPE_F32 ? 1e-4 : 1e-10;
  double atol = dt == NNC_DTYPE_F32 ? 1e-5 : 1e-12;
  double scale = 0;
  for (size_t i = 0; i < n; ++i)
    if (std::isfinite(element(want, i)))
      scale = std::max(scale, std::fabs(element(want, i)));
  for (size_t i = 0; i < n; ++i) {
    double a = element(got, i), b = element(want, i);
    bool same;
    if (std::isnan(a) || std::isnan(b))
      same = std::isnan(a) && std::isnan(b);
    else if (std::isinf(a) || std::isinf(b))
      same = a == b;
    else
      same =
          std::fabs(a - b) <= rtol * std::fabs(b) + atol * std::max(1.0, scale);
    if (!same) {
      std::ostringstream os;
      os.precision(9);
      os << where << "element " << i << " is " << a << " optimized, " << b
         << " reference (output magnitude " << scale << ")";
      return os.str();
    }
  }
  return "";
}

/// What the reference compile leaves on (both off by default).
bool referenceFuse = false, referencePlanMemory = false;

/// Compiles `model` with the default options (`optimized`) or as the
/// reference and runs it on `inputs`.
Outcome compileAndRun(nnc_model_t *model, bool optimized,
                      const std::vector<InputData> &inputs,
                      std::vector<Tensor> &outputs) {
  nnc_compile_options_t options;
  nnc_compile_options_initialize(&options);
  options.cache_dir = "";
  options.fuse = optimized || referenceFuse;
  options.plan_memory = optimized || referencePlanMemory;
  const char *which = optimized ? "default options" : "no fusion, no planning";
  nnc_executable_t *raw = nullptr;
  if (Status s = nnc_model_compile(model, &options, 0, nullptr, &raw))
    return {Outcome::CompileError,
            std::string("compile (") + which + "): " + s.message()};
  Executable exe(raw);
  size_t numInputs = nnc_executable_input_count(exe.get());
  if (numInputs != inputs.size())
    return {Outcome::CompileError,
            std::string("compile (") + which + "): the executable has " +
                std::to_string(numInputs) + " inputs, the graph " +
                std::to_string(inputs.size())};
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < numInputs; ++i) {
    const InputData &in = inputs[i];
    nnc_tensor_t *t = nullptr;
    if (Status s = nnc_tensor_create(*toDType(in.elemType), in.dims.size(),
                                     in.dims.data(), &t))
      return {Outcome::RunError, "input " + in.name + ": " + s.message()};
    tensors.emplace_back(t);
    if (nnc_tensor_byte_size(t) != in.bytes.size())
      return {Outcome::RunError, "input " + in.name + ": size mismatch"};
    if (!in.bytes.empty())
      std::memcpy(nnc_tensor_data(t), in.bytes.data(), in.bytes.size());
  }
  std::vector<const nnc_tensor_t *> args;
  for (const Tensor &t : tensors)
    args.push_back(t.get());
  size_t numOutputs = nnc_executable_output_count(exe.get());
  std::vector<nnc_tensor_t *> results(numOutputs, nullptr);
  if (Status s = nnc_executable_run(exe.get(), args.size(), args.data(),
                                    numOutputs, results.data()))
    return {Outcome::RunError,
            std::string("run (") + which + "): " + s.message()};
  for (nnc_tensor_t *t : results)
    outputs.emplace_back(t);
  return {};
}

/// Imports `bytes`, compiles both ways, runs and compares.
Outcome check(nnc_context_t *context, const std::string &bytes,
              const std::string &name, const std::vector<InputData> &inputs) {
  nnc_model_t *raw = nullptr;
  if (Status s = nnc_model_import_onnx_memory(
          context, bytes.data(), bytes.size(), name.c_str(), nullptr, &raw))
    return {Outcome::ImportError, "import: " + s.message()};
  Model model(raw);
  for (const InputData &in : inputs)
    if (!toDType(in.elemType))
      return {Outcome::RunError, "input " + in.name + ": unsupported type"};
  std::vector<Tensor> reference, optimized;
  Outcome o = compileAndRun(model.get(), false, inputs, reference);
  if (o.kind != Outcome::Pass)
    return o;
  o = compileAndRun(model.get(), true, inputs, optimized);
  if (o.kind != Outcome::Pass)
    return o;
  if (optimized.size() != reference.size())
    return {Outcome::Mismatch,
            std::to_string(optimized.size()) + " outputs optimized, " +
                std::to_string(reference.size()) + " reference"};
  for (size_t i = 0; i < reference.size(); ++i) {
    std::string diff =
        compareOutputs(i, optimized[i].get(), reference[i].get());
    if (!diff.empty())
      return {Outcome::Mismatch, diff};
  }
  return {};
}

uint64_t seedOf(const onnx::ModelProto &model) {
  for (const auto &p : model.metadata_props())
    if (p.key() == kSeedKey)
      return std::strtoull(p.value().c_str(), nullptr, 10);
  return 1;
}

bool writeFile(const fs::path &path, const std::string &data) {
  std::ofstream f(path, std::ios::binary);
  f << data;
  return static_cast<bool>(f);
}

bool parseNumber(const char *text, double &out) {
  char *end = nullptr;
  out = std::strtod(text, &end);
  return end && *end == '\0' && out >= 0;
}

int replay(nnc_context_t *context, const Options &options) {
  int failed = 0;
  for (const std::string &file : options.replay) {
    std::ifstream f(file, std::ios::binary);
    std::stringstream buffer;
    buffer << f.rdbuf();
    std::string bytes = buffer.str();
    onnx::ModelProto model;
    if (!f || !model.ParseFromString(bytes)) {
      std::fprintf(stderr, "%s: cannot read an ONNX model\n", file.c_str());
      ++failed;
      continue;
    }
    std::string error;
    std::vector<InputData> inputs = generateInputs(model, seedOf(model), error);
    Outcome o = error.empty() ? check(context, bytes, file, inputs)
                              : Outcome{Outcome::RunError, error};
    if (o.kind == Outcome::Pass) {
      if (options.verbose)
        std::printf("PASS %s\n", file.c_str());
      continue;
    }
    ++failed;
    std::printf("FAIL %s: %s: %s\n", file.c_str(), kindName(o.kind),
                o.message.c_str());
  }
  std::printf("%zu replayed, %d failed\n", options.replay.size(), failed);
  return failed ? 1 : 0;
}

int fuzz(nnc_context_t *context, const Options &options) {
  std::error_code ec;
  fs::create_directories(options.out, ec);
  if (ec) {
    std::fprintf(stderr, "nnc-graph-fuzz: cannot create '%s': %s\n",
                 options.out.c_str(), ec.message().c_str());
    return 2;
  }
  auto start = std::chrono::steady_clock::now();
  uint64_t tried = 0, failures = 0;
  for (uint64_t seed = options.seed;; ++seed) {
    if (options.count && tried >= options.count)
      break;
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (options.seconds > 0 && elapsed >= options.seconds)
      break;
    onnx::ModelProto model = generateModel(seed);
    std::string bytes;
    model.SerializeToString(&bytes);
    std::string base = "seed-" + std::to_string(seed);
    fs::path onnxPath = fs::path(options.out) / (base + ".onnx");
    fs::path textPath = fs::path(options.out) / (base + ".txt");
    // Written before compiling so that a crash leaves it behind; removed
    // again when the graph passes.
    writeFile(onnxPath, bytes);
    writeFile(textPath, "seed " + std::to_string(seed) +
                            ": crashed or hung (the process did not "
                            "finish this graph)\n");
    std::string error;
    std::vector<InputData> inputs = generateInputs(model, seed, error);
    Outcome o = error.empty() ? check(context, bytes, base, inputs)
                              : Outcome{Outcome::RunError, error};
    ++tried;
    if (options.verbose)
      std::printf("seed %llu: %s\n", static_cast<unsigned long long>(seed),
                  kindName(o.kind));
    if (o.kind == Outcome::Pass) {
      fs::remove(onnxPath, ec);
      fs::remove(textPath, ec);
      continue;
    }
    ++failures;
    std::string report = "seed " + std::to_string(seed) + ": " +
                         kindName(o.kind) + ": " + o.message + "\n";
    writeFile(textPath, report);
    std::printf("FAIL %s (%s)", report.c_str(), onnxPath.c_str());
    std::printf("\n");
    if (!options.keepGoing)
      break;
  }
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("%llu graphs from seed %llu in %.1f s, %llu failed\n",
              static_cast<unsigned long long>(tried),
              static_cast<unsigned long long>(options.seed), elapsed,
              static_cast<unsigned long long>(failures));
  return failures ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  // Progress and failures show as they happen in CI logs.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  Options options;
  bool replayMode = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](double &out) {
      if (i + 1 >= argc || !parseNumber(argv[i + 1], out)) {
        std::fprintf(stderr, "nnc-graph-fuzz: %s takes a number\n",
                     arg.c_str());
        std::exit(2);
      }
      ++i;
    };
    double number;
    if (replayMode && arg.rfind("--", 0) != 0) {
      options.replay.push_back(arg);
    } else if (arg == "--replay") {
      replayMode = true;
    } else if (arg == "--seed") {
      value(number);
      options.seed = static_cast<uint64_t>(number);
    } else if (arg == "--count") {
      value(number);
      options.count = static_cast<uint64_t>(number);
    } else if (arg == "--seconds") {
      value(number);
      options.seconds = number;
    } else if (arg == "--out" && i + 1 < argc) {
      options.out = argv[++i];
    } else if (arg == "--keep-going") {
      options.keepGoing = true;
    } else if (arg == "--verbose") {
      options.verbose = true;
    } else if (arg == "--reference-fuse") {
      referenceFuse = true;
    } else if (arg == "--reference-plan-memory") {
      referencePlanMemory = true;
    } else if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else {
      std::fprintf(stderr, "nnc-graph-fuzz: unknown argument '%s'\n%s",
                   arg.c_str(), kUsage);
      return 2;
    }
  }
  if (replayMode && options.replay.empty()) {
    std::fprintf(stderr, "nnc-graph-fuzz: --replay needs files\n");
    return 2;
  }
  if (!replayMode && options.count == 0 && options.seconds <= 0) {
    std::fprintf(stderr,
                 "nnc-graph-fuzz: --count 0 needs a --seconds budget\n");
    return 2;
  }
  nnc_context_t *raw = nullptr;
  if (Status s = nnc_context_create(nullptr, &raw)) {
    std::fprintf(stderr, "nnc-graph-fuzz: %s\n", s.message().c_str());
    return 2;
  }
  Context context(raw);
  return replayMode ? replay(context.get(), options)
                    : fuzz(context.get(), options);
}
