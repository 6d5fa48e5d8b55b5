//===- CAPIExecutable.cpp - compile and sessions --------------------------===//
//
// The compile and session parts of the C API: nnc_model_compile drives the
// compiler (lib/Compiler) and loads the result as libnnc_runtime loads a
// saved executable (makeExecutable); sessions keep one executable per set of
// input shapes. Loading, saving and running live in runtime/capi.
//
//===----------------------------------------------------------------------===//

#include "nnc-c/compiler.h"

#include "Internal.h"

#include "nnc/Compiler/CompileAndLoad.h"
#include "nnc/Compiler/Compiler.h"
#include "nnc/NNCDialect.h"
#include "nnc/NNCOps.h"
#include "nnc/ShapeValues.h"
#include "nnc/Target/Target.h"
#include "nnc/runtime/Device.h"
#include "nnc/runtime/Executable.h"
#include "nnc/runtime/Profiler.h"
#include "nnc/runtime/Program.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace mlir;
using namespace nnc::capi;

struct nnc_session_s {
  nnc_model_t *model = nullptr;
  nnc_compile_options_t options;
  std::string target;
  std::string cacheDir;
  bool hasCacheDir = false;
  struct Specialization {
    std::unique_ptr<nnc_executable_s> executable;
    /// When it last ran, in runs of the session: the least recent goes
    /// first when the session is over capacity.
    uint64_t lastRun = 0;
  };
  /// Keyed by the inputs' shapes, then the values of the shape inputs.
  std::map<std::vector<std::vector<int64_t>>, Specialization> executables;
  size_t capacity = 0; // 0: no bound
  uint64_t runs = 0;
  int lastRunSource = -1; // nnc_session_last_run_source

  /// Evicts the least recently run specializations, but `keep`, down to
  /// `capacity`.
  void evict(const nnc_executable_s *keep) {
    while (capacity && executables.size() > capacity) {
      auto victim = executables.end();
      for (auto it = executables.begin(); it != executables.end(); ++it)
        if (it->second.executable.get() != keep &&
            (victim == executables.end() ||
             it->second.lastRun < victim->second.lastRun))
          victim = it;
      if (victim == executables.end())
        return;
      executables.erase(victim);
    }
  }
};

/// Checks compile options and fills in the defaults they leave open.
nnc_status_t
nnc::capi::checkCompileOptions(const char *fn,
                               const nnc_compile_options_t *options,
                               nnc::CompileOptions &out, uint32_t &threads) {
  if (nnc_status_t status = checkOptions(fn, "options", options))
    return status;
  nnc::registerAllTargets();
  std::string target = options->target ? options->target : "";
  if (!nnc::lookupTarget(target)) {
    std::string known;
    for (const std::string &name : nnc::registeredTargetNames())
      known += (known.empty() ? "\"" : ", \"") + name + "\"";
    return makeStatus(NNC_STATUS_UNIMPLEMENTED, fn,
                      "target '" + target +
                          "' is not supported; this build compiles for " +
                          known);
  }
  if (std::string bad = nnc::lookupTarget(target)->checkVariant(
          nnc::targetVariant(target));
      !bad.empty())
    return invalidArgument(fn, bad);
  int64_t precision = enumValue(options->precision);
  switch (precision) {
  case NNC_PRECISION_F32:
    break;
  case NNC_PRECISION_F16:
    out.precision.dtype = "f16";
    break;
  case NNC_PRECISION_BF16:
    out.precision.dtype = "bf16";
    break;
  default:
    return invalidArgument(fn,
                           "precision is " + std::to_string(precision) +
                               "; it must be NNC_PRECISION_F32, _F16 or _BF16");
  }
  auto opList = [](const char *text) {
    std::vector<std::string> ops;
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(text ? text : "").split(parts, ',', -1, false);
    for (llvm::StringRef part : parts)
      if (!part.trim().empty())
        ops.push_back(part.trim().str());
    return ops;
  };
  out.precision.lowOps = opList(options->amp_low_ops);
  out.precision.f32Ops = opList(options->amp_f32_ops);
  if (!out.precision.enabled() &&
      !(out.precision.lowOps.empty() && out.precision.f32Ops.empty()))
    return invalidArgument(fn, "amp_low_ops and amp_f32_ops need precision "
                               "NNC_PRECISION_F16 or _BF16");
  if (options->opt_level < 0 || options->opt_level > 3)
    return invalidArgument(fn, "opt_level is " +
                                   std::to_string(options->opt_level) +
                                   "; it must be 0 to 3");
  if (options->num_threads < 0)
    return invalidArgument(fn, "num_threads is " +
                                   std::to_string(options->num_threads) +
                                   "; it must be 0 (all cores) or more");
  int64_t autotune = enumValue(options->autotune);
  if (autotune < NNC_AUTOTUNE_OFF || autotune > NNC_AUTOTUNE_REQUIRE)
    return invalidArgument(
        fn, "autotune is " + std::to_string(autotune) +
                "; it must be NNC_AUTOTUNE_OFF, _CACHED, _ON or _REQUIRE");
  if (!(options->tuning_budget_seconds > 0) ||
      !std::isfinite(options->tuning_budget_seconds))
    return invalidArgument(fn,
                           "tuning_budget_seconds is " +
                               std::to_string(options->tuning_budget_seconds) +
                               "; it must be a positive number of seconds");
  static constexpr nnc::AutotuneMode kModes[] = {
      nnc::AutotuneMode::Off, nnc::AutotuneMode::Cached, nnc::AutotuneMode::On,
      nnc::AutotuneMode::Require};
  out.autotune = kModes[autotune];
  if (options->tuning_database)
    out.tuningDatabase = std::string(options->tuning_database);
  out.tuningBudgetSeconds = options->tuning_budget_seconds;
  out.threads = static_cast<unsigned>(options->num_threads);
  out.target = target;
  out.graphReplay = options->cuda_graph != 0;
  out.optLevel = options->opt_level;
  out.fuse = options->fuse != 0;
  out.measureUnfused = options->measure_unfused != 0;
  out.planMemory = options->plan_memory != 0;
  out.libraryKernels = options->library_kernels != 0;
  out.parallel = options->num_threads != 1;
  out.cacheDir = options->cache_dir ? std::string(options->cache_dir)
                                    : nnc::defaultCacheDir();
  threads = static_cast<uint32_t>(options->num_threads);
  return nullptr;
}

namespace {

func::FuncOp modelFunction(nnc_model_t *model) {
  for (auto func : model->module->getOps<func::FuncOp>())
    return func;
  return nullptr;
}

} // namespace

nnc_status_t
nnc::capi::writeMixedPrecision(const char *fn,
                               const nnc_mixed_precision_t &figures,
                               nnc_mixed_precision_t *out) {
  if (!out)
    return nullArgument(fn, "out");
  if (out->struct_size != sizeof(nnc_mixed_precision_t))
    return invalidArgument(
        fn, "out->struct_size is " + std::to_string(out->struct_size) +
                "; expected " + std::to_string(sizeof(*out)));
  *out = figures;
  out->struct_size = sizeof(*out);
  return nullptr;
}

nnc_status_t nnc::capi::deviceForTarget(const char *fn,
                                        const std::string &target,
                                        runtime::Device *&out) {
  // checkCompileOptions checked the target; "cuda:N" names the device.
  llvm::StringRef variant = nnc::targetVariant(target);
  int ordinal = rt::kCudaOrdinalFromEnvironment;
  if (!variant.empty() && llvm::all_of(variant, llvm::isDigit) &&
      variant.getAsInteger(10, ordinal))
    return invalidArgument(fn, "device number in target '" + target +
                                   "' is out of range");
  return convertStatus(
      fn, rt::deviceForExecutable(
              nnc::lookupTarget(target)->executableTarget(), ordinal, out));
}

nnc_status_t nnc::capi::compileFunction(
    const char *fn, mlir::ModuleOp module, llvm::StringRef name,
    const nnc_compile_options_t *options,
    llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
    std::unique_ptr<nnc_executable_s> &out,
    const std::map<unsigned, std::vector<int64_t>> &inputValues) {
  nnc_compile_options_t defaults;
  nnc_compile_options_initialize(&defaults);
  if (!options)
    options = &defaults;
  nnc::CompileOptions compileOptions;
  uint32_t threads = 0;
  if (nnc_status_t status =
          checkCompileOptions(fn, options, compileOptions, threads))
    return status;
  compileOptions.inputValues = inputValues;
  rt::Device *device = nullptr;
  if (nnc_status_t s = deviceForTarget(fn, compileOptions.target, device))
    return s;
  nnc::LoadedProgram loaded;
  if (nnc_status_t s = convertStatus(
          fn, nnc::compileAndLoad(module, name, shapes, compileOptions, *device,
                                  loaded)))
    return s;
  out = wrapProgram(std::move(loaded.program));
  out->compileSeconds = loaded.seconds;
  out->fromCache = loaded.fromCache;
  out->threads = threads;
  out->tuningSeconds = loaded.tuningSeconds;
  if (loaded.mixedPrecision) {
    const nnc::MixedPrecisionReport &amp = *loaded.mixedPrecision;
    out->ampPrecision =
        amp.dtype == "f16" ? NNC_PRECISION_F16 : NNC_PRECISION_BF16;
    out->ampLowOps = amp.lowOps;
    out->ampFollowOps = amp.followOps;
    out->ampF32Ops = amp.f32Ops;
    out->ampCasts = amp.casts;
    out->ampNarrowedBytes = amp.narrowedBytes;
  }
  for (const nnc::TunedKernel &kernel : loaded.tuning) {
    nnc_executable_s::TunedKernel info;
    info.kernel = kernel.kernel;
    info.choice = kernel.choice;
    info.defaultChoice = kernel.defaultChoice;
    info.choiceMs = kernel.choiceMs;
    info.defaultMs = kernel.defaultMs;
    info.source = static_cast<int32_t>(kernel.source);
    info.programCheck = static_cast<int32_t>(kernel.check);
    out->tuning.push_back(std::move(info));
  }
  if (const std::optional<nnc::TuningCheck> &check = loaded.tuningCheck) {
    out->checkChecked = 1;
    out->checkSkipped = !check->skipped.empty();
    out->checkChanges = static_cast<int32_t>(check->changes);
    out->checkKept = static_cast<int32_t>(check->kept);
    out->checkVariants = static_cast<int32_t>(check->variants);
    out->checkDefaultMs = check->defaultMs;
    out->checkTunedMs = check->tunedMs;
  }
  return nullptr;
}

namespace {

nnc_status_t
compileModel(const char *fn, nnc_model_t *model,
             const nnc_compile_options_t *options,
             llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
             std::unique_ptr<nnc_executable_s> &out,
             const std::map<unsigned, std::vector<int64_t>> &inputValues = {}) {
  func::FuncOp func = modelFunction(model);
  if (!func)
    return makeStatus(NNC_STATUS_INTERNAL, fn, "the model holds no function");
  return compileFunction(fn, *model->module, func.getSymName(), options, shapes,
                         out, inputValues);
}

/// The shapes of `inputs` and the values of those that are the model's
/// shape inputs (`nnc.shape_input`), by input index.
nnc_status_t
readInputs(const char *fn, nnc_model_t *model, size_t numInputs,
           const nnc_tensor_t *const *inputs,
           llvm::SmallVectorImpl<llvm::SmallVector<int64_t>> &shapes,
           std::map<unsigned, std::vector<int64_t>> &values) {
  if (nnc_status_t s = checkTensors(fn, "inputs", numInputs, inputs))
    return s;
  func::FuncOp func = modelFunction(model);
  if (!func)
    return makeStatus(NNC_STATUS_INTERNAL, fn, "the model holds no function");
  for (size_t i = 0; i < numInputs; ++i) {
    if (!inputs[i])
      return invalidArgument(fn, "input " + std::to_string(i) + " is NULL");
    shapes.emplace_back(inputs[i]->dims.begin(), inputs[i]->dims.end());
  }
  unsigned index = 0;
  for (unsigned a = 0; a < func.getNumArguments(); ++a) {
    if (func.getArgAttr(a, nnc::NNCDialect::getValueAttrName()))
      continue;
    unsigned i = index++;
    if (i >= numInputs ||
        !func.getArgAttr(a, nnc::NNCDialect::getShapeInputAttrName()))
      continue;
    const nnc_tensor_t *tensor = inputs[i];
    rt::DType dtype = toRuntime(tensor->dtype);
    if (!rt::isIntegerDType(dtype))
      continue; // The compile reports the type mismatch.
    size_t count = tensor->byteSize / rt::dtypeSize(dtype);
    if (count > nnc::kMaxShapeInputElements)
      continue; // Not the input's shape: the compile reports it.
    std::vector<int64_t> &out = values[i];
    for (size_t k = 0; k < count; ++k)
      out.push_back(rt::readIntegerElement(dtype, tensor->data, k));
  }
  return nullptr;
}

} // namespace

extern "C" {

size_t nnc_executable_tuned_kernel_count(const nnc_executable_t *executable) {
  return executable ? executable->tuning.size() : 0;
}

double nnc_executable_tuning_seconds(const nnc_executable_t *executable) {
  return executable ? executable->tuningSeconds : 0;
}

nnc_status_t nnc_executable_mixed_precision(const nnc_executable_t *executable,
                                            nnc_mixed_precision_t *out) {
  static const char *fn = "nnc_executable_mixed_precision";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!executable)
      return nullArgument(fn, "executable");
    nnc_mixed_precision_t figures;
    std::memset(&figures, 0, sizeof(figures));
    figures.precision = static_cast<nnc_precision_t>(executable->ampPrecision);
    figures.low_ops = executable->ampLowOps;
    figures.follow_ops = executable->ampFollowOps;
    figures.f32_ops = executable->ampF32Ops;
    figures.casts = executable->ampCasts;
    figures.narrowed_bytes = executable->ampNarrowedBytes;
    return writeMixedPrecision(fn, figures, out);
  });
}

nnc_status_t nnc_executable_tuned_kernel(const nnc_executable_t *executable,
                                         size_t index,
                                         nnc_tuned_kernel_t *out_kernel) {
  static const char *fn = "nnc_executable_tuned_kernel";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!executable)
      return nullArgument(fn, "executable");
    return writeTunedKernel(fn, "executable", executable->tuning, index,
                            out_kernel);
  });
}

nnc_status_t nnc_executable_tuning_check(const nnc_executable_t *executable,
                                         nnc_tuning_check_t *out) {
  static const char *fn = "nnc_executable_tuning_check";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!executable)
      return nullArgument(fn, "executable");
    if (!out)
      return nullArgument(fn, "out");
    if (out->struct_size != sizeof(nnc_tuning_check_t))
      return invalidArgument(
          fn, "out->struct_size is " + std::to_string(out->struct_size) +
                  "; expected " + std::to_string(sizeof(nnc_tuning_check_t)));
    out->checked = executable->checkChecked;
    out->skipped = executable->checkSkipped;
    out->changes = executable->checkChanges;
    out->kept = executable->checkKept;
    out->variants = executable->checkVariants;
    out->default_ms = executable->checkDefaultMs;
    out->tuned_ms = executable->checkTunedMs;
    return nullptr;
  });
}

nnc_status_t nnc_model_compile(nnc_model_t *model,
                               const nnc_compile_options_t *options,
                               size_t num_shapes, const nnc_shape_t *shapes,
                               nnc_executable_t **out_executable) {
  static const char *fn = "nnc_model_compile";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!model)
      return nullArgument(fn, "model");
    if (!out_executable)
      return nullArgument(fn, "out_executable");
    if (num_shapes && !shapes)
      return nullArgument(fn, "shapes");
    llvm::SmallVector<llvm::SmallVector<int64_t>> converted;
    for (size_t i = 0; i < num_shapes; ++i) {
      if (shapes[i].rank > NNC_MAX_RANK)
        return invalidArgument(fn, "shape " + std::to_string(i) + " has rank " +
                                       std::to_string(shapes[i].rank));
      if (shapes[i].rank && !shapes[i].dims)
        return invalidArgument(fn, "shape " + std::to_string(i) + " has rank " +
                                       std::to_string(shapes[i].rank) +
                                       " but NULL dims");
      converted.emplace_back(shapes[i].dims, shapes[i].dims + shapes[i].rank);
    }
    std::unique_ptr<nnc_executable_s> executable;
    if (nnc_status_t s =
            compileModel(fn, model, options, converted, executable))
      return s;
    *out_executable = executable.release();
    return nullptr;
  });
}

nnc_status_t nnc_model_compile_inputs(nnc_model_t *model,
                                      const nnc_compile_options_t *options,
                                      size_t num_inputs,
                                      const nnc_tensor_t *const *inputs,
                                      nnc_executable_t **out_executable) {
  static const char *fn = "nnc_model_compile_inputs";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!model)
      return nullArgument(fn, "model");
    if (!out_executable)
      return nullArgument(fn, "out_executable");
    llvm::SmallVector<llvm::SmallVector<int64_t>> shapes;
    std::map<unsigned, std::vector<int64_t>> values;
    if (nnc_status_t s =
            readInputs(fn, model, num_inputs, inputs, shapes, values))
      return s;
    std::unique_ptr<nnc_executable_s> executable;
    if (nnc_status_t s =
            compileModel(fn, model, options, shapes, executable, values))
      return s;
    *out_executable = executable.release();
    return nullptr;
  });
}

nnc_status_t nnc_session_create(nnc_model_t *model,
                                const nnc_compile_options_t *options,
                                nnc_session_t **out_session) {
  static const char *fn = "nnc_session_create";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!model)
      return nullArgument(fn, "model");
    if (!out_session)
      return nullArgument(fn, "out_session");
    auto session = std::make_unique<nnc_session_s>();
    session->model = model;
    nnc_compile_options_initialize(&session->options);
    if (options) {
      nnc::CompileOptions checked;
      uint32_t threads = 0;
      if (nnc_status_t s = checkCompileOptions(fn, options, checked, threads))
        return s;
      session->options = *options;
    }
    // The strings are borrowed during the call only: keep copies.
    if (session->options.target) {
      session->target = session->options.target;
      session->options.target = session->target.c_str();
    }
    if (session->options.cache_dir) {
      session->cacheDir = session->options.cache_dir;
      session->options.cache_dir = session->cacheDir.c_str();
    }
    *out_session = session.release();
    return nullptr;
  });
}

nnc_status_t nnc_session_run(nnc_session_t *session, size_t num_inputs,
                             const nnc_tensor_t *const *inputs,
                             size_t num_outputs, nnc_tensor_t **outputs,
                             nnc_executable_t **out_executable) {
  static const char *fn = "nnc_session_run";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!session)
      return nullArgument(fn, "session");
    llvm::SmallVector<llvm::SmallVector<int64_t>> shapes;
    std::map<unsigned, std::vector<int64_t>> values;
    if (nnc_status_t s =
            readInputs(fn, session->model, num_inputs, inputs, shapes, values))
      return s;
    std::vector<std::vector<int64_t>> key;
    for (const llvm::SmallVector<int64_t> &shape : shapes)
      key.emplace_back(shape.begin(), shape.end());
    for (const auto &[index, given] : values) {
      key.push_back({static_cast<int64_t>(index)});
      key.push_back(given);
    }
    auto it = session->executables.find(key);
    int source = 0;
    if (it == session->executables.end()) {
      std::unique_ptr<nnc_executable_s> executable;
      if (nnc_status_t s = compileModel(fn, session->model, &session->options,
                                        shapes, executable, values))
        return s;
      it = session->executables.emplace(key, nnc_session_s::Specialization{})
               .first;
      source = executable->fromCache ? 2 : 1;
      it->second.executable = std::move(executable);
    }
    it->second.lastRun = ++session->runs;
    nnc_executable_s *executable = it->second.executable.get();
    session->evict(executable);
    if (nnc_status_t s = runExecutable(fn, executable, num_inputs, inputs,
                                       num_outputs, outputs))
      return s;
    session->lastRunSource = source;
    if (out_executable)
      *out_executable = executable;
    return nullptr;
  });
}

int nnc_session_last_run_source(const nnc_session_t *session) {
  return session ? session->lastRunSource : -1;
}

size_t nnc_session_specialization_count(const nnc_session_t *session) {
  return session ? session->executables.size() : 0;
}

nnc_status_t nnc_session_set_capacity(nnc_session_t *session, size_t capacity) {
  static const char *fn = "nnc_session_set_capacity";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!session)
      return nullArgument(fn, "session");
    session->capacity = capacity;
    session->evict(nullptr);
    return nullptr;
  });
}

void nnc_session_destroy(nnc_session_t *session) { delete session; }

} // extern "C"
