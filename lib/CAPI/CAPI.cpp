//===- CAPI.cpp - contexts and models of the C API ------------------------===//
//
// Implements the contexts and models of include/nnc-c/compiler.h on top of
// the ONNX importer and the dialect registration. Every entry point
// validates its arguments, captures MLIR diagnostics into the status it
// returns and turns C++ exceptions (allocation failures) into statuses.
// Statuses and tensors come from libnnc_runtime (runtime/capi).
//
//===----------------------------------------------------------------------===//

#include "nnc-c/compiler.h"

#include "Internal.h"

#include "nnc/Compiler/ElementTypes.h"
#include "nnc/Import/ONNX/Importer.h"
#include "nnc/InitAll.h"
#include "nnc/NNCDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <memory>
#include <new>
#include <string>
#include <system_error>
#include <vector>

using namespace mlir;
using namespace nnc::capi;

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

namespace nnc::capi {

nnc_dtype_t fromMLIR(Type type) {
  FailureOr<rt::DType> dtype = nnc::dtypeOf(type);
  return succeeded(dtype) ? fromRuntime(*dtype) : NNC_DTYPE_UNKNOWN;
}

} // namespace nnc::capi

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

namespace nnc::capi {

void retain(nnc_context_s *context) {
  context->references.fetch_add(1, std::memory_order_relaxed);
}

void release(nnc_context_s *context) {
  if (context->references.fetch_sub(1, std::memory_order_acq_rel) == 1)
    delete context;
}

} // namespace nnc::capi

extern "C" {

nnc_status_t nnc_context_create(const nnc_context_options_t *options,
                                nnc_context_t **out_context) {
  static const char *fn = "nnc_context_create";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!out_context)
      return nullArgument(fn, "out_context");
    nnc_context_options_t defaults;
    nnc_context_options_initialize(&defaults);
    if (!options)
      options = &defaults;
    if (nnc_status_t status = checkOptions(fn, "options", options))
      return status;
    DialectRegistry registry;
    nnc::registerAllDialects(registry);
    auto context = std::make_unique<nnc_context_s>();
    context->mlir = std::make_unique<MLIRContext>(
        registry, options->enable_multithreading
                      ? MLIRContext::Threading::ENABLED
                      : MLIRContext::Threading::DISABLED);
    {
      DiagnosticCapture capture(*context->mlir);
      context->mlir->loadAllAvailableDialects();
      // A status names the op and the reason; a dump of the op (a whole
      // function or module, for some errors) would drown the message.
      context->mlir->printOpOnDiagnostic(false);
    }
    *out_context = context.release();
    return nullptr;
  });
}

void nnc_context_destroy(nnc_context_t *context) {
  if (context)
    release(context);
}

} // extern "C"

//===----------------------------------------------------------------------===//
// Models
//===----------------------------------------------------------------------===//

namespace nnc::capi {

std::unique_ptr<ValueInfo> describe(Type type, Location loc,
                                    nnc_value_kind_t kind) {
  auto value = std::make_unique<ValueInfo>();
  bool named = false;
  if (auto name = dyn_cast<NameLoc>(loc)) {
    value->name = name.getName().str();
    named = true;
  }
  nnc_dtype_t dtype = NNC_DTYPE_UNKNOWN;
  if (auto shaped = dyn_cast<RankedTensorType>(type)) {
    dtype = fromMLIR(shaped.getElementType());
    for (int64_t dim : shaped.getShape())
      value->dims.push_back(ShapedType::isDynamic(dim) ? -1 : dim);
  }
  value->info.name = named ? value->name.c_str() : nullptr;
  value->info.kind = kind;
  value->info.dtype = dtype;
  value->info.rank = value->dims.size();
  value->info.dims = value->dims.empty() ? nullptr : value->dims.data();
  return value;
}

nnc_value_kind_t argumentKind(func::FuncOp func, unsigned index) {
  auto kind = func.getArgAttrOfType<nnc::ParamKindAttr>(
      index, nnc::NNCDialect::getParamAttrName());
  if (!kind)
    return NNC_VALUE_INPUT;
  switch (kind.getValue()) {
  case nnc::ParamKind::trainable:
    return NNC_VALUE_TRAINABLE;
  case nnc::ParamKind::frozen:
    return NNC_VALUE_FROZEN;
  case nnc::ParamKind::buffer:
    return NNC_VALUE_BUFFER;
  }
  return NNC_VALUE_INPUT;
}

} // namespace nnc::capi

namespace nnc::capi {

nnc_status_t readProtobuf(const char *fn, const char *path, const char *what,
                          std::unique_ptr<llvm::MemoryBuffer> &out) {
  namespace onnx = nnc::onnx_import;
  std::string message;
  switch (onnx::readProtobufFile(path, what, onnx::kMaxProtobufBytes, out,
                                 message)) {
  case onnx::FileError::None:
    return nullptr;
  case onnx::FileError::Missing:
    return makeStatus(NNC_STATUS_NOT_FOUND, fn, message);
  case onnx::FileError::Unreadable:
    return makeStatus(NNC_STATUS_UNAVAILABLE, fn, message);
  case onnx::FileError::NotRegular:
    return invalidArgument(fn, message);
  case onnx::FileError::TooLarge:
    return makeStatus(NNC_STATUS_OUT_OF_RANGE, fn, message);
  }
  return makeStatus(NNC_STATUS_INTERNAL, fn, message);
}

/// Wraps an imported module into a model, reading its signature.
nnc_status_t makeModel(const char *fn, nnc_context_s *context,
                       OwningOpRef<ModuleOp> module, nnc_model_t **out_model) {
  func::FuncOp func;
  for (auto candidate : module->getOps<func::FuncOp>()) {
    func = candidate;
    break;
  }
  if (!func)
    return makeStatus(NNC_STATUS_INTERNAL, fn,
                      "the imported module holds no function");
  auto model = std::make_unique<nnc_model_s>();
  for (BlockArgument arg : func.getArguments())
    model->inputs.push_back(describe(arg.getType(), arg.getLoc(),
                                     argumentKind(func, arg.getArgNumber())));
  for (Type type : func.getResultTypes())
    model->outputs.push_back(
        describe(type, UnknownLoc::get(context->mlir.get()), NNC_VALUE_OUTPUT));
  model->module = std::move(module);
  retain(context);
  model->context = context;
  *out_model = model.release();
  return nullptr;
}

/// Validates import options and converts them, filling `modelDirectory`
/// in only when given.
nnc_status_t convertImportOptions(const char *fn,
                                  const nnc_import_options_t *options,
                                  nnc::onnx_import::ImportOptions &out) {
  if (!options)
    return nullptr;
  if (nnc_status_t status = checkOptions(fn, "options", options))
    return status;
  if (options->function_name && *options->function_name)
    out.functionName = options->function_name;
  out.freezeInitializers = options->freeze_initializers != 0;
  if (options->model_directory)
    out.modelDirectory = options->model_directory;
  if (options->integer_inputs_directory)
    out.integerInputsDirectory = options->integer_inputs_directory;
  return nullptr;
}

nnc_status_t importBytes(const char *fn, nnc_context_t *context,
                         llvm::StringRef bytes, llvm::StringRef name,
                         const nnc::onnx_import::ImportOptions &options,
                         nnc_model_t **out_model) {
  DiagnosticCapture capture(*context->mlir);
  OwningOpRef<ModuleOp> module =
      nnc::onnx_import::importModel(*context->mlir, bytes, name, options);
  if (!module)
    return invalidArgument(fn, "cannot import '" + name.str() +
                                   "': " + capture.errors());
  return makeModel(fn, context, std::move(module), out_model);
}

/// Forwards everything written to it to a C callback.
class CallbackStream : public llvm::raw_ostream {
public:
  CallbackStream(nnc_string_callback_t callback, void *userData)
      : callback(callback), userData(userData) {}
  ~CallbackStream() override { flush(); }

private:
  void write_impl(const char *ptr, size_t size) override {
    callback(ptr, size, userData);
    position += size;
  }
  uint64_t current_pos() const override { return position; }

  nnc_string_callback_t callback;
  void *userData;
  uint64_t position = 0;
};

} // namespace nnc::capi

extern "C" {

nnc_status_t nnc_model_import_onnx_file(nnc_context_t *context,
                                        const char *path,
                                        const nnc_import_options_t *options,
                                        nnc_model_t **out_model) {
  static const char *fn = "nnc_model_import_onnx_file";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!context)
      return nullArgument(fn, "context");
    if (!path)
      return nullArgument(fn, "path");
    if (!out_model)
      return nullArgument(fn, "out_model");
    nnc::onnx_import::ImportOptions importOptions;
    if (nnc_status_t status = convertImportOptions(fn, options, importOptions))
      return status;
    std::unique_ptr<llvm::MemoryBuffer> buffer;
    if (nnc_status_t status = readProtobuf(fn, path, "ONNX model", buffer))
      return status;
    // External data lives next to the model unless the caller says
    // otherwise (as importModelFile does).
    if (importOptions.modelDirectory.empty()) {
      llvm::SmallString<256> dir(path);
      llvm::sys::path::remove_filename(dir);
      importOptions.modelDirectory = dir.empty() ? "." : std::string(dir);
    }
    return importBytes(fn, context, buffer->getBuffer(), path, importOptions,
                       out_model);
  });
}

nnc_status_t nnc_model_import_onnx_memory(nnc_context_t *context,
                                          const void *data, size_t size,
                                          const char *name,
                                          const nnc_import_options_t *options,
                                          nnc_model_t **out_model) {
  static const char *fn = "nnc_model_import_onnx_memory";
  return guarded(fn, [&]() -> nnc_status_t {
    if (nnc_status_t status =
            checkMemorySource(fn, context, data, size, "data", out_model))
      return status;
    nnc::onnx_import::ImportOptions importOptions;
    if (nnc_status_t status = convertImportOptions(fn, options, importOptions))
      return status;
    llvm::StringRef bytes(static_cast<const char *>(data), size);
    return importBytes(fn, context, bytes, memorySourceName(name),
                       importOptions, out_model);
  });
}

nnc_status_t nnc_model_print(nnc_model_t *model, nnc_string_callback_t callback,
                             void *user_data) {
  static const char *fn = "nnc_model_print";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!model)
      return nullArgument(fn, "model");
    if (!callback)
      return nullArgument(fn, "callback");
    DiagnosticCapture capture(*model->context->mlir);
    CallbackStream stream(callback, user_data);
    model->module->print(stream);
    return nullptr;
  });
}

size_t nnc_model_input_count(const nnc_model_t *model) {
  return model ? model->inputs.size() : 0;
}

size_t nnc_model_output_count(const nnc_model_t *model) {
  return model ? model->outputs.size() : 0;
}

static nnc_status_t
valueInfo(const char *fn, const nnc_model_t *model, size_t index,
          const nnc_value_info_t **out_info,
          std::vector<std::unique_ptr<ValueInfo>> nnc_model_s::*list) {
  return guarded(fn, [&]() -> nnc_status_t {
    if (!model)
      return nullArgument(fn, "model");
    if (!out_info)
      return nullArgument(fn, "out_info");
    const auto &values = model->*list;
    if (index >= values.size())
      return makeStatus(NNC_STATUS_OUT_OF_RANGE, fn,
                        "argument 'index' is " + std::to_string(index) +
                            " but the model has " +
                            std::to_string(values.size()));
    *out_info = &values[index]->info;
    return nullptr;
  });
}

nnc_status_t nnc_model_input_info(const nnc_model_t *model, size_t index,
                                  const nnc_value_info_t **out_info) {
  return valueInfo("nnc_model_input_info", model, index, out_info,
                   &nnc_model_s::inputs);
}

nnc_status_t nnc_model_output_info(const nnc_model_t *model, size_t index,
                                   const nnc_value_info_t **out_info) {
  return valueInfo("nnc_model_output_info", model, index, out_info,
                   &nnc_model_s::outputs);
}

void nnc_model_destroy(nnc_model_t *model) { delete model; }

} // extern "C"

//===----------------------------------------------------------------------===//
// Sources in memory
//===----------------------------------------------------------------------===//

namespace nnc::capi {

nnc_status_t checkMemorySource(const char *fn, const nnc_context_s *context,
                               const void *data, size_t size,
                               const char *dataArgument,
                               nnc_model_t **out_model) {
  if (!context)
    return nullArgument(fn, "context");
  if (!data && size != 0)
    return nullArgument(fn, dataArgument);
  if (!out_model)
    return nullArgument(fn, "out_model");
  return nullptr;
}

} // namespace nnc::capi
