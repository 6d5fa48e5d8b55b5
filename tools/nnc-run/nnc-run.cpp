//===- nnc-run.cpp - run a model from the shell ---------------------------===//
//
// Compiles an ONNX or MLIR model (or loads a compiled .nncx) for the shapes
// of the inputs it is given, runs it, and writes or prints the outputs;
// optionally reports the executable's figures and benchmarks it. A client of
// the public C API (include/nnc-c/nnc.h) and of nothing else in nnc: it
// links libnnc_runtime and opens libnnc only to compile (CompilerLibrary.h).
//
//===----------------------------------------------------------------------===//

#include "nnc-c/nnc.h"

#include "../common/CAPIHelpers.h"
#include "../common/FileHelpers.h"
#include "CompilerLibrary.h"
#include "Plot.h"
#include "Train.h"
#include "Tuning.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace nnc::tools;

namespace {

const char *kUsage = R"(usage: nnc-run MODEL [options]
       nnc-run train MODEL --data FILE.npz [options]   (see train --help)
       nnc-run grad MODEL --inputs FILE.npz --save FILE.npz
       nnc-run plot LOG [LOG...] -o FILE.svg   (see plot --help)
       nnc-run tuning export|import FILE       (see tuning --help)

Compiles MODEL (.onnx or .mlir) for the shapes of the given inputs (and the
values of its shape inputs), or loads a compiled .nncx, runs it once per run
(--then separates runs) and writes or prints the outputs.

options:
  --input NAME=FILE        an input from a .npy file or an ONNX TensorProto
                           (.pb); `--input FILE.pb` takes the name stored in
                           the TensorProto
  --inputs FILE.npz        every array of a .npz archive, by name
  --output FILE.npz        write the outputs there (named after the model's
                           outputs, else output_<k>) instead of printing a
                           summary
  --then                   end this run's --input/--inputs/--output: the
                           next ones are another run of the same model in
                           the same session (another batch size, sequence
                           length or shape-input value: each new one is
                           compiled once and kept in memory)
  --max-specializations N  keep at most N compiled specializations in
                           memory (least recently run go; default: all)
  --save-compiled FILE     save the executable (.nncx) of the last run
  --report                 print the executable's figures (kernels, library
                           calls, memory, bytes moved, and the kernels and
                           bytes moved the same model would take unfused)
  --no-fuse                compile one kernel per op (to compare)
  --no-plan-memory         leave each temporary to its own allocation, not
                           one planned arena (to compare)
  --autotune MODE          off | cached (default) | on | require: kernel
                           choices measured on this machine, kept in the
                           tuning database (docs/Autotuning.md); --report
                           lists them
  --tuning-db FILE         the tuning database (default: tuning.nnctune in
                           the cache folder; "" for none)
  --tuning-budget SECONDS  what --autotune=on may spend measuring per
                           compile (default 120)
  --no-library-kernels     generated code only: no oneDNN convolutions on
                           the CPU, no cuBLASLt GEMMs on CUDA (to compare)
  --amp bf16|f16|off       mixed precision: matrix products and convolutions
                           in bf16 or f16, softmax, normalization and sums
                           in f32, as torch.autocast (docs/Training.md)
  --amp-low-ops OPS, --amp-f32-ops OPS
                           op kinds (nnc.add,nnc.mul) moved to the low type
                           or to f32 against the policy
  --target T               what to compile for: cpu (the default), cuda
                           (cubins for sm_80 and sm_90, PTX for newer
                           GPUs), cuda:sm_XX (that architecture), cuda:N
                           (device N); docs/CUDABackend.md
  --cuda-graph             run as a CUDA graph: recorded on the first run,
                           replayed after (--target cuda, or a CUDA .nncx)
  --bench N                time N runs after one warm-up; print median, min
  --cache-dir DIR          the compile cache ("" turns it off)
  --bind-integer-inputs DIR
                           (.onnx) bind every integer graph input to
                           DIR/input_<k>.pb at compile time
  --threads N              threads a run may use (0: every core)
  --profile                print a table of the time spent per kernel and
                           compile, aggregated by name, at the end
  --trace FILE             write those events as a Chrome/Perfetto trace
  --help                   this text

Exit status: 0 on success, 1 on any error, 2 for a malformed command line.
)";

/// A failure to report: the message and the exit status.
struct Failure {
  std::string message;
  int exitCode = 1;
};

/// One run: its inputs and where its outputs go.
struct RunSpec {
  std::vector<std::string> inputs; // NAME=FILE or FILE.pb
  std::vector<std::string> inputArchives;
  std::string output;
};

struct Options {
  std::string model;
  std::vector<RunSpec> runs{1};
  long maxSpecializations = 0;
  std::string saveCompiled;
  bool report = false;
  bool noFuse = false;
  bool noPlanMemory = false;
  bool noLibraryKernels = false;
  long bench = 0;
  bool hasCacheDir = false;
  std::string cacheDir;
  std::string bindIntegerInputs;
  bool hasThreads = false;
  long threads = 0;
  bool profile = false;
  std::string trace;
  std::optional<std::string> autotune, tuningDb, tuningBudget;
  std::optional<std::string> amp, ampLowOps, ampF32Ops;
  std::string target;
  bool cudaGraph = false;
};

/// Parses argv; returns false and fills `failure` on a malformed line.
bool parseCommandLine(int argc, char **argv, Options &options, bool &help,
                      Failure &failure) {
  auto fail = [&](const std::string &message) {
    failure = {message + " (see --help)", 2};
    return false;
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      help = true;
      return true;
    }
    if (arg.rfind("--", 0) != 0) {
      if (!options.model.empty())
        return fail("more than one model given: '" + options.model + "' and '" +
                    arg + "'");
      options.model = arg;
      continue;
    }
    std::string name = arg, value;
    bool hasValue = false;
    if (size_t eq = arg.find('='); eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      hasValue = true;
    }
    auto takeValue = [&]() -> bool {
      if (hasValue)
        return true;
      if (i + 1 >= argc)
        return false;
      value = argv[++i];
      return true;
    };
    auto noValue = [&]() -> bool {
      if (hasValue)
        return fail("option '" + name + "' takes no value");
      return true;
    };
    if (name == "--report" || name == "--profile") {
      if (!noValue())
        return false;
      (name == "--report" ? options.report : options.profile) = true;
      continue;
    }
    if (name == "--then") {
      if (!noValue())
        return false;
      options.runs.emplace_back();
      continue;
    }
    if (name == "--no-fuse" || name == "--no-plan-memory" ||
        name == "--no-library-kernels" || name == "--cuda-graph") {
      if (!noValue())
        return false;
      (name == "--no-fuse"              ? options.noFuse
       : name == "--no-plan-memory"     ? options.noPlanMemory
       : name == "--no-library-kernels" ? options.noLibraryKernels
                                        : options.cudaGraph) = true;
      continue;
    }
    static const std::set<std::string> valued = {"--input",
                                                 "--inputs",
                                                 "--output",
                                                 "--save-compiled",
                                                 "--bench",
                                                 "--cache-dir",
                                                 "--bind-integer-inputs",
                                                 "--threads",
                                                 "--trace",
                                                 "--autotune",
                                                 "--tuning-db",
                                                 "--tuning-budget",
                                                 "--amp",
                                                 "--amp-low-ops",
                                                 "--amp-f32-ops",
                                                 "--max-specializations",
                                                 "--target"};
    if (!valued.count(name))
      return fail("unknown option '" + name + "'");
    if (!takeValue())
      return fail("option '" + name + "' needs a value");
    if (name == "--input") {
      options.runs.back().inputs.push_back(value);
    } else if (name == "--inputs") {
      options.runs.back().inputArchives.push_back(value);
    } else if (name == "--output") {
      if (!options.runs.back().output.empty())
        return fail("--output is given twice for one run (separate runs "
                    "with --then)");
      options.runs.back().output = value;
    } else if (name == "--max-specializations") {
      if (!parseCount(value, options.maxSpecializations) ||
          options.maxSpecializations == 0)
        return fail("--max-specializations expects a positive number, got '" +
                    value + "'");
    } else if (name == "--save-compiled") {
      options.saveCompiled = value;
    } else if (name == "--bench") {
      if (!parseCount(value, options.bench) || options.bench == 0)
        return fail("--bench expects a positive number of runs, got '" + value +
                    "'");
    } else if (name == "--cache-dir") {
      options.hasCacheDir = true;
      options.cacheDir = value;
    } else if (name == "--bind-integer-inputs") {
      options.bindIntegerInputs = value;
    } else if (name == "--trace") {
      options.trace = value;
    } else if (name == "--autotune") {
      options.autotune = value;
    } else if (name == "--tuning-db") {
      options.tuningDb = value;
    } else if (name == "--tuning-budget") {
      options.tuningBudget = value;
    } else if (name == "--target") {
      options.target = value;
    } else if (name == "--amp") {
      options.amp = value;
    } else if (name == "--amp-low-ops") {
      options.ampLowOps = value;
    } else if (name == "--amp-f32-ops") {
      options.ampF32Ops = value;
    } else if (name == "--threads") {
      options.hasThreads = true;
      if (!parseCount(value, options.threads))
        return fail("--threads expects a non-negative number, got '" + value +
                    "'");
    }
  }
  if (options.model.empty() && !help)
    return fail("no model given");
  return true;
}

/// The inputs given on the command line, by name, in the order given.
struct GivenInputs {
  std::vector<std::string> names;
  std::map<std::string, Tensor> tensors;
  std::map<std::string, std::string> sources; // name -> file, for messages
};

bool addInput(GivenInputs &given, const std::string &name, Tensor tensor,
              const std::string &source, Failure &failure) {
  if (given.tensors.count(name)) {
    failure = {"input '" + name + "' is given twice (by " +
               given.sources[name] + " and " + source + ")"};
    return false;
  }
  given.names.push_back(name);
  given.sources[name] = source;
  given.tensors[name] = std::move(tensor);
  return true;
}

bool readInputs(const RunSpec &options, GivenInputs &given, Failure &failure) {
  for (const std::string &spec : options.inputs) {
    std::string name, file;
    size_t eq = spec.find('=');
    if (eq == std::string::npos) {
      file = spec;
    } else {
      name = spec.substr(0, eq);
      file = spec.substr(eq + 1);
      if (name.empty()) {
        failure = {"--input '" + spec + "' has an empty name", 2};
        return false;
      }
    }
    nnc_tensor_t *raw = nullptr;
    if (endsWith(file, ".npy")) {
      if (name.empty()) {
        failure = {"--input '" + spec + "' needs a name: --input NAME=FILE.npy",
                   2};
        return false;
      }
      if (nnc_status_t status = nnc_tensor_read_npy(file.c_str(), &raw)) {
        failure = {"input '" + name + "': " + takeMessage(status)};
        return false;
      }
    } else if (endsWith(file, ".pb")) {
      char *stored = nullptr;
      if (!openCompiler("reading the ONNX tensor " + file, failure.message))
        return false;
      if (nnc_status_t status =
              compiler().nnc_tensor_read_onnx(file.c_str(), &raw, &stored)) {
        failure = {"input '" + (name.empty() ? file : name) +
                   "': " + takeMessage(status)};
        return false;
      }
      if (name.empty())
        name = stored;
      nnc_string_destroy(stored);
      if (name.empty()) {
        nnc_tensor_destroy(raw);
        failure = {"'" + file +
                       "' stores no tensor name; give one with --input "
                       "NAME=" +
                       file,
                   2};
        return false;
      }
    } else {
      failure = {"input file '" + file +
                     "' is neither .npy nor .pb (use --inputs for .npz)",
                 2};
      return false;
    }
    if (!addInput(given, name, Tensor(raw), file, failure))
      return false;
  }
  for (const std::string &archive : options.inputArchives) {
    size_t count = 0;
    char **names = nullptr;
    nnc_tensor_t **tensors = nullptr;
    if (nnc_status_t status =
            nnc_npz_read(archive.c_str(), &count, &names, &tensors)) {
      failure = {takeMessage(status)};
      return false;
    }
    bool ok = true;
    for (size_t i = 0; i < count; ++i) {
      Tensor tensor(tensors[i]);
      if (ok)
        ok = addInput(given, names[i], std::move(tensor), archive, failure);
      nnc_string_destroy(names[i]);
    }
    nnc_array_destroy(names);
    nnc_array_destroy(tensors);
    if (!ok)
      return false;
  }
  return true;
}

std::string readFile(const std::string &path, Failure &failure) {
  std::string text, error;
  if (!readRegularFile(path, "model", text, error))
    failure = {error};
  return text;
}

/// Names the executable's `index`-th input or output.
std::string valueName(const nnc_value_info_t &info, const char *prefix,
                      size_t index) {
  return info.name && *info.name ? info.name : prefix + std::to_string(index);
}

std::string listNames(const std::vector<std::string> &names) {
  std::string text;
  for (const std::string &name : names)
    text += (text.empty() ? "" : ", ") + name;
  return text.empty() ? "(none)" : text;
}

struct SessionDeleter {
  void operator()(nnc_session_t *s) const { compiler().nnc_session_destroy(s); }
};
using Session = std::unique_ptr<nnc_session_t, SessionDeleter>;

/// The model, imported or parsed once, and the session that compiles it for
/// the inputs of each run (one specialization per shape signature and
/// shape-input value, kept in memory).
struct Prepared {
  Context context;
  Model model;
  Session session;
};

/// Imports or parses the model and opens its session.
bool loadModel(const Options &options, Prepared &prepared, Failure &failure) {
  if (!openCompiler("compiling " + options.model, failure.message))
    return false;
  nnc_context_t *rawContext = nullptr;
  if (nnc_status_t status =
          compiler().nnc_context_create(nullptr, &rawContext)) {
    failure = {takeMessage(status)};
    return false;
  }
  prepared.context.reset(rawContext);
  nnc_context_t *context = rawContext;
  nnc_model_t *rawModel = nullptr;
  if (endsWith(options.model, ".onnx")) {
    nnc_import_options_t importOptions;
    nnc_import_options_initialize(&importOptions);
    if (!options.bindIntegerInputs.empty())
      importOptions.integer_inputs_directory =
          options.bindIntegerInputs.c_str();
    if (nnc_status_t status = compiler().nnc_model_import_onnx_file(
            context, options.model.c_str(), &importOptions, &rawModel)) {
      failure = {takeMessage(status)};
      if (options.bindIntegerInputs.empty() &&
          failure.message.find("must be known at compile time") !=
              std::string::npos)
        failure.message += "\n(--bind-integer-inputs DIR binds integer "
                           "inputs to DIR/input_<k>.pb at compile time)";
      return false;
    }
  } else {
    std::string text = readFile(options.model, failure);
    if (!failure.message.empty())
      return false;
    if (nnc_status_t status =
            compiler().nnc_model_parse_mlir(context, text.data(), text.size(),
                                            options.model.c_str(), &rawModel)) {
      failure = {takeMessage(status)};
      return false;
    }
  }
  prepared.model.reset(rawModel);

  nnc_compile_options_t compileOptions;
  nnc_compile_options_initialize(&compileOptions);
  if (options.hasCacheDir)
    compileOptions.cache_dir = options.cacheDir.c_str();
  if (options.hasThreads)
    compileOptions.num_threads = static_cast<int32_t>(options.threads);
  compileOptions.fuse = options.noFuse ? 0 : 1;
  compileOptions.measure_unfused = options.report && !options.noFuse;
  compileOptions.plan_memory = options.noPlanMemory ? 0 : 1;
  compileOptions.library_kernels = options.noLibraryKernels ? 0 : 1;
  if (!options.target.empty())
    compileOptions.target = options.target.c_str();
  compileOptions.cuda_graph = options.cudaGraph ? 1 : 0;
  std::string tuningError = applyTuningOptions(
      options.autotune ? &*options.autotune : nullptr,
      options.tuningDb ? &*options.tuningDb : nullptr,
      options.tuningBudget ? &*options.tuningBudget : nullptr, compileOptions);
  if (tuningError.empty())
    tuningError = applyPrecisionOptions(
        options.amp ? &*options.amp : nullptr,
        options.ampLowOps ? &*options.ampLowOps : nullptr,
        options.ampF32Ops ? &*options.ampF32Ops : nullptr, compileOptions);
  if (!tuningError.empty()) {
    failure = {tuningError + " (see --help)", 2};
    return false;
  }
  nnc_session_t *rawSession = nullptr;
  if (nnc_status_t status = compiler().nnc_session_create(
          rawModel, &compileOptions, &rawSession)) {
    failure = {takeMessage(status)};
    return false;
  }
  prepared.session.reset(rawSession);
  if (options.maxSpecializations)
    if (nnc_status_t status = compiler().nnc_session_set_capacity(
            rawSession, static_cast<size_t>(options.maxSpecializations))) {
      failure = {takeMessage(status)};
      return false;
    }
  return true;
}

/// Checks a run's inputs against the model's signature and orders them as
/// the executable takes them: graph inputs must all be given, parameters
/// may be (those without a value); `skippedParams` lists the others.
bool orderInputs(nnc_model_t *model, const GivenInputs &given,
                 std::vector<const nnc_tensor_t *> &ordered,
                 std::vector<std::string> &skippedParams, Failure &failure) {
  std::vector<std::string> argumentNames;
  std::set<std::string> known;
  for (size_t i = 0; i < compiler().nnc_model_input_count(model); ++i) {
    const nnc_value_info_t *info = nullptr;
    if (nnc_status_t status =
            compiler().nnc_model_input_info(model, i, &info)) {
      failure = {takeMessage(status)};
      return false;
    }
    std::string name = valueName(*info, "input_", i);
    argumentNames.push_back(name);
    known.insert(name);
    auto it = given.tensors.find(name);
    if (it == given.tensors.end()) {
      if (info->kind == NNC_VALUE_INPUT) {
        failure = {"missing input '" + name + "' (" + describe(*info) + ")"};
        return false;
      }
      skippedParams.push_back(name);
      continue;
    }
    const nnc_tensor_t *tensor = it->second.get();
    if (!fits(*info, tensor)) {
      failure = {"input '" + name + "' expects " + describe(*info) + " but " +
                 given.sources.at(name) + " holds " + describe(tensor)};
      return false;
    }
    ordered.push_back(tensor);
  }
  for (const std::string &name : given.names)
    if (!known.count(name)) {
      failure = {"unknown input '" + name + "' (from " +
                 given.sources.at(name) + "); the model's arguments are " +
                 listNames(argumentNames)};
      return false;
    }
  return true;
}

/// Runs the session on `inputs`: the specialization for them is found in
/// memory or compiled (or read from the disk cache) first.
bool runSession(Prepared &prepared,
                const std::vector<const nnc_tensor_t *> &inputs,
                const std::vector<std::string> &skippedParams,
                nnc_executable_t *&executable, std::vector<Tensor> &outputs,
                Failure &failure) {
  size_t count = compiler().nnc_model_output_count(prepared.model.get());
  std::vector<nnc_tensor_t *> raw(count, nullptr);
  if (nnc_status_t status = compiler().nnc_session_run(
          prepared.session.get(), inputs.size(), inputs.data(), count,
          raw.data(), &executable)) {
    bool invalid = nnc_status_code(status) == NNC_STATUS_INVALID_ARGUMENT;
    failure = {takeMessage(status)};
    // Parameters without a value are inputs of the executable.
    bool mismatch = invalid && !skippedParams.empty() &&
                    failure.message.find("one per argument without a value") !=
                        std::string::npos;
    if (mismatch)
      failure.message += "\n(parameters without an initial value must be "
                         "given as inputs; not given: " +
                         listNames(skippedParams) + ")";
    return false;
  }
  outputs.clear();
  for (nnc_tensor_t *tensor : raw)
    outputs.emplace_back(tensor);
  return true;
}

/// Orders the given tensors as the executable's inputs, checking each.
bool bindInputs(nnc_executable_t *executable, const GivenInputs &given,
                std::vector<const nnc_tensor_t *> &inputs, Failure &failure) {
  std::vector<std::string> names;
  std::set<std::string> used;
  for (size_t i = 0; i < nnc_executable_input_count(executable); ++i) {
    const nnc_value_info_t *info = nullptr;
    if (nnc_status_t status = nnc_executable_input_info(executable, i, &info)) {
      failure = {takeMessage(status)};
      return false;
    }
    std::string name = valueName(*info, "input_", i);
    names.push_back(name);
    auto it = given.tensors.find(name);
    if (it == given.tensors.end()) {
      failure = {"missing input '" + name + "' (" + describe(*info) + ")"};
      return false;
    }
    if (!fits(*info, it->second.get())) {
      failure = {"input '" + name + "' expects " + describe(*info) + " but " +
                 given.sources.at(name) + " holds " +
                 describe(it->second.get())};
      return false;
    }
    inputs.push_back(it->second.get());
    used.insert(name);
  }
  for (const std::string &name : given.names)
    if (!used.count(name)) {
      failure = {"unknown input '" + name + "' (from " +
                 given.sources.at(name) + "); the executable's inputs are " +
                 listNames(names)};
      return false;
    }
  return true;
}

bool run(nnc_executable_t *executable,
         const std::vector<const nnc_tensor_t *> &inputs,
         std::vector<Tensor> &outputs, Failure &failure) {
  size_t count = nnc_executable_output_count(executable);
  std::vector<nnc_tensor_t *> raw(count, nullptr);
  if (nnc_status_t status = nnc_executable_run(
          executable, inputs.size(), inputs.data(), count, raw.data())) {
    failure = {takeMessage(status)};
    return false;
  }
  outputs.clear();
  for (nnc_tensor_t *tensor : raw)
    outputs.emplace_back(tensor);
  return true;
}

/// The executable's figures and the specialization that ran; `source` says
/// where the run found it ("compiled", "disk cache", "in memory", ...).
void printReport(nnc_executable_t *executable, const char *source) {
  nnc_executable_stats_t stats;
  std::memset(&stats, 0, sizeof(stats));
  stats.struct_size = sizeof(stats);
  if (nnc_status_t status = nnc_executable_stats(executable, &stats)) {
    std::fprintf(stderr, "nnc-run: warning: no report: %s\n",
                 takeMessage(status).c_str());
    return;
  }
  printStats("report", stats, /*executable=*/true);
  printMixedPrecisionReport(executable);
  printTuningReport(executable);
  // The specialization that ran: the shapes of the executable's inputs,
  // and the values of those it is specialized on ("k i64 [] = [-1]").
  std::string signature;
  for (size_t i = 0; i < nnc_executable_input_count(executable); ++i) {
    const nnc_value_info_t *info = nullptr;
    if (nnc_executable_input_info(executable, i, &info) || !info)
      continue;
    signature += (signature.empty() ? "" : ", ") +
                 valueName(*info, "input_", i) + " " + describe(*info);
    for (size_t k = 0; k < info->specialized_count; ++k)
      signature += (k == 0 ? " = [" : ", ") +
                   std::to_string(info->specialized_values[k]) +
                   (k + 1 == info->specialized_count ? "]" : "");
  }
  std::printf("  specialization: %s (%s)\n", signature.c_str(), source);
}

bool bench(nnc_executable_t *executable,
           const std::vector<const nnc_tensor_t *> &inputs, long runs,
           Failure &failure) {
  std::vector<Tensor> outputs;
  if (!run(executable, inputs, outputs, failure)) // warm-up
    return false;
  std::vector<double> times;
  for (long i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (!run(executable, inputs, outputs, failure))
      return false;
    auto end = std::chrono::steady_clock::now();
    times.push_back(
        std::chrono::duration<double, std::milli>(end - start).count());
  }
  std::sort(times.begin(), times.end());
  double median =
      times.size() % 2
          ? times[times.size() / 2]
          : (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;
  std::printf("bench: %ld runs, median %.3f ms, min %.3f ms\n", runs, median,
              times.front());
  return true;
}

/// The names the outputs are written under: the executable's, else
/// output_<k>, made unique.
std::vector<std::string> outputNames(nnc_executable_t *executable) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (size_t i = 0; i < nnc_executable_output_count(executable); ++i) {
    const nnc_value_info_t *info = nullptr;
    std::string name = "output_" + std::to_string(i);
    if (nnc_status_t status = nnc_executable_output_info(executable, i, &info))
      nnc_status_destroy(status);
    else
      name = valueName(*info, "output_", i);
    std::string unique = name;
    for (int k = 1; seen.count(unique); ++k)
      unique = name + "_" + std::to_string(k);
    seen.insert(unique);
    names.push_back(unique);
  }
  return names;
}

void printSummary(const std::vector<std::string> &names,
                  std::vector<Tensor> &outputs) {
  const int64_t kShown = 8;
  for (size_t i = 0; i < outputs.size(); ++i) {
    nnc_tensor_t *tensor = outputs[i].get();
    int64_t count = elementCount(tensor);
    std::string values;
    for (int64_t k = 0; k < count && k < kShown; ++k)
      values += (k ? ", " : "") + formatElement(tensor, k);
    if (count > kShown)
      values += ", ...";
    std::printf("%s: %s = [%s]\n", names[i].c_str(), describe(tensor).c_str(),
                values.c_str());
  }
}

int runTool(int argc, char **argv) {
  Options options;
  bool help = false;
  Failure failure;
  auto report = [&]() {
    std::fprintf(stderr, "nnc-run: error: %s\n", failure.message.c_str());
    return failure.exitCode;
  };
  if (!parseCommandLine(argc, argv, options, help, failure))
    return report();
  if (help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  bool compiled = endsWith(options.model, ".nncx");
  bool onnx = endsWith(options.model, ".onnx");
  if (!compiled && !onnx && !endsWith(options.model, ".mlir")) {
    failure = {
        "model '" + options.model + "' is none of .onnx, .mlir and .nncx", 2};
    return report();
  }
  if (!options.bindIntegerInputs.empty() && !onnx) {
    failure = {"--bind-integer-inputs applies to .onnx models only", 2};
    return report();
  }
  if (compiled && (options.hasCacheDir || options.hasThreads)) {
    failure = {std::string(options.hasCacheDir ? "--cache-dir" : "--threads") +
                   " applies when compiling, not to a compiled .nncx",
               2};
    return report();
  }

  if (compiled && options.maxSpecializations) {
    failure = {"--max-specializations applies when compiling, not to a "
               "compiled .nncx",
               2};
    return report();
  }
  bool profiling = options.profile || !options.trace.empty();
  if (profiling)
    nnc_profiler_start();

  // A compiled .nncx runs as it is; a model runs through one session, which
  // compiles each new specialization once.
  Executable loaded;
  Prepared prepared;
  if (compiled) {
    nnc_executable_t *raw = nullptr;
    if (nnc_status_t status =
            nnc_executable_load_file(options.model.c_str(), &raw)) {
      failure = {takeMessage(status)};
      return report();
    }
    loaded.reset(raw);
    if (options.cudaGraph)
      if (nnc_status_t status = nnc_executable_enable_cuda_graph(raw)) {
        failure = {takeMessage(status)};
        return report();
      }
  } else if (!loadModel(options, prepared, failure)) {
    return report();
  }

  nnc_executable_t *executable = nullptr;
  GivenInputs given;
  std::vector<const nnc_tensor_t *> inputs;
  for (size_t r = 0; r < options.runs.size(); ++r) {
    const RunSpec &spec = options.runs[r];
    given = GivenInputs();
    inputs.clear();
    if (!readInputs(spec, given, failure))
      return report();
    std::vector<Tensor> outputs;
    const char *source = "loaded";
    if (compiled) {
      executable = loaded.get();
      if (!bindInputs(executable, given, inputs, failure) ||
          !run(executable, inputs, outputs, failure))
        return report();
    } else {
      std::vector<std::string> skippedParams;
      if (!orderInputs(prepared.model.get(), given, inputs, skippedParams,
                       failure) ||
          !runSession(prepared, inputs, skippedParams, executable, outputs,
                      failure))
        return report();
      static const char *kSources[] = {"in memory", "compiled", "disk cache"};
      int where =
          compiler().nnc_session_last_run_source(prepared.session.get());
      source = where >= 0 && where <= 2 ? kSources[where] : "unknown";
    }
    std::vector<std::string> names = outputNames(executable);
    if (!spec.output.empty()) {
      std::vector<const char *> cnames;
      std::vector<const nnc_tensor_t *> tensors;
      for (size_t i = 0; i < outputs.size(); ++i) {
        cnames.push_back(names[i].c_str());
        tensors.push_back(outputs[i].get());
      }
      if (nnc_status_t status =
              nnc_npz_write(spec.output.c_str(), outputs.size(), cnames.data(),
                            tensors.data())) {
        failure = {takeMessage(status)};
        return report();
      }
    } else {
      printSummary(names, outputs);
    }
    if (options.report)
      printReport(executable, source);
  }
  // The last run's executable is the one saved and benchmarked.
  if (!options.saveCompiled.empty())
    if (nnc_status_t status =
            nnc_executable_save(executable, options.saveCompiled.c_str())) {
      failure = {takeMessage(status)};
      return report();
    }
  if (options.bench && !bench(executable, inputs, options.bench, failure))
    return report();
  if (profiling) {
    failure.message = finishProfile(options.profile, options.trace);
    if (!failure.message.empty())
      return report();
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "train") == 0)
    return nnc::tools::runTrain(argc - 1, argv + 1);
  if (argc > 1 && std::strcmp(argv[1], "grad") == 0)
    return nnc::tools::runGrad(argc - 1, argv + 1);
  if (argc > 1 && std::strcmp(argv[1], "plot") == 0)
    return nnc::tools::runPlot(argc - 1, argv + 1);
  if (argc > 1 && std::strcmp(argv[1], "tuning") == 0)
    return nnc::tools::runTuning(argc - 1, argv + 1);
  return runTool(argc, argv);
}
