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
#include "nnc/Target/Target.h"
#include "nnc/runtime/Device.h"
#include "nnc/runtime/Executable.h"
#include "nnc/runtime/Profiler.h"
#include "nnc/runtime/Program.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <algorithm>
#include <map>

using namespace mlir;
using namespace nnc::capi;

struct nnc_session_s {
  nnc_model_t *model = nullptr;
  nnc_compile_options_t options;
  std::string target;
  std::string cacheDir;
  bool hasCacheDir = false;
  std::map<std::vector<std::vector<int64_t>>, std::unique_ptr<nnc_executable_s>>
      executables;
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
  if (options->precision != NNC_PRECISION_F32)
    return makeStatus(NNC_STATUS_UNIMPLEMENTED, fn,
                      "precision " +
                          std::to_string(static_cast<int>(options->precision)) +
                          " is not supported");
  if (options->opt_level < 0 || options->opt_level > 3)
    return invalidArgument(fn, "opt_level is " +
                                   std::to_string(options->opt_level) +
                                   "; it must be 0 to 3");
  if (options->num_threads < 0)
    return invalidArgument(fn, "num_threads is " +
                                   std::to_string(options->num_threads) +
                                   "; it must be 0 (all cores) or more");
  out.target = target;
  out.optLevel = options->opt_level;
  out.fuse = options->fuse != 0;
  out.measureUnfused = options->measure_unfused != 0;
  out.planMemory = options->plan_memory != 0;
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
nnc::capi::compileFunction(const char *fn, mlir::ModuleOp module,
                           llvm::StringRef name,
                           const nnc_compile_options_t *options,
                           llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
                           std::unique_ptr<nnc_executable_s> &out) {
  nnc_compile_options_t defaults;
  nnc_compile_options_initialize(&defaults);
  if (!options)
    options = &defaults;
  nnc::CompileOptions compileOptions;
  uint32_t threads = 0;
  if (nnc_status_t status =
          checkCompileOptions(fn, options, compileOptions, threads))
    return status;
  nnc::LoadedProgram loaded;
  if (nnc_status_t s = convertStatus(
          fn, nnc::compileAndLoad(module, name, shapes, compileOptions,
                                  rt::getCpuDevice(), loaded)))
    return s;
  out = wrapProgram(std::move(loaded.program));
  out->compileSeconds = loaded.seconds;
  out->fromCache = loaded.fromCache;
  out->threads = threads;
  return nullptr;
}

namespace {

nnc_status_t compileModel(const char *fn, nnc_model_t *model,
                          const nnc_compile_options_t *options,
                          llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
                          std::unique_ptr<nnc_executable_s> &out) {
  func::FuncOp func = modelFunction(model);
  if (!func)
    return makeStatus(NNC_STATUS_INTERNAL, fn, "the model holds no function");
  return compileFunction(fn, *model->module, func.getSymName(), options, shapes,
                         out);
}

} // namespace

extern "C" {

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
    if (nnc_status_t s = checkTensors(fn, "inputs", num_inputs, inputs))
      return s;
    std::vector<std::vector<int64_t>> key;
    llvm::SmallVector<llvm::SmallVector<int64_t>> shapes;
    for (size_t i = 0; i < num_inputs; ++i) {
      if (!inputs[i])
        return invalidArgument(fn, "input " + std::to_string(i) + " is NULL");
      key.push_back(inputs[i]->dims);
      shapes.emplace_back(inputs[i]->dims.begin(), inputs[i]->dims.end());
    }
    auto it = session->executables.find(key);
    if (it == session->executables.end()) {
      std::unique_ptr<nnc_executable_s> executable;
      if (nnc_status_t s = compileModel(fn, session->model, &session->options,
                                        shapes, executable))
        return s;
      it = session->executables.emplace(key, std::move(executable)).first;
    }
    if (nnc_status_t s = runExecutable(fn, it->second.get(), num_inputs, inputs,
                                       num_outputs, outputs))
      return s;
    if (out_executable)
      *out_executable = it->second.get();
    return nullptr;
  });
}

size_t nnc_session_specialization_count(const nnc_session_t *session) {
  return session ? session->executables.size() : 0;
}

void nnc_session_destroy(nnc_session_t *session) { delete session; }

} // extern "C"
