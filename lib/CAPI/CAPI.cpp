//===- CAPI.cpp - the public C API of nnc ---------------------------------===//
//
// Implements include/nnc-c/nnc.h on top of the ONNX importer, the dialect
// registration and the runtime's host tensors. Every entry point validates
// its arguments, captures MLIR diagnostics into the status it returns and
// turns C++ exceptions (allocation failures) into statuses.
//
//===----------------------------------------------------------------------===//

#include "nnc-c/nnc.h"

#include "Internal.h"

#include "nnc/Import/ONNX/Importer.h"
#include "nnc/InitAll.h"
#include "nnc/NNCDialect.h"

#include "nnc/runtime/HostTensor.h"
#include "nnc/runtime/NpyIO.h"
#include "nnc/runtime/Status.h"

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
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <system_error>
#include <vector>

using namespace mlir;
using namespace nnc::capi;

//===----------------------------------------------------------------------===//
// Status
//===----------------------------------------------------------------------===//

namespace nnc::capi {

/// Returned when even a status cannot be allocated; never freed.
nnc_status_s &outOfMemoryStatus() {
  static nnc_status_s *status =
      new nnc_status_s{NNC_STATUS_RESOURCE_EXHAUSTED, "nnc: out of memory"};
  return *status;
}

nnc_status_t makeStatus(nnc_status_code_t code, const char *function,
                        const std::string &message) noexcept {
  try {
    return new nnc_status_s{code, std::string(function) + ": " + message};
  } catch (...) {
    return &outOfMemoryStatus();
  }
}

nnc_status_t invalidArgument(const char *function, const std::string &message) {
  return makeStatus(NNC_STATUS_INVALID_ARGUMENT, function, message);
}

nnc_status_t nullArgument(const char *function, const char *argument) {
  return invalidArgument(function,
                         std::string("argument '") + argument + "' is NULL");
}

nnc_status_code_t convertCode(rt::StatusCode code) {
  switch (code) {
  case rt::StatusCode::Ok:
    return NNC_STATUS_OK;
  case rt::StatusCode::InvalidArgument:
    return NNC_STATUS_INVALID_ARGUMENT;
  case rt::StatusCode::NotFound:
    return NNC_STATUS_NOT_FOUND;
  case rt::StatusCode::Unavailable:
    return NNC_STATUS_UNAVAILABLE;
  case rt::StatusCode::OutOfRange:
    return NNC_STATUS_OUT_OF_RANGE;
  case rt::StatusCode::DataLoss:
    return NNC_STATUS_DATA_LOSS;
  case rt::StatusCode::Internal:
    return NNC_STATUS_INTERNAL;
  case rt::StatusCode::Unimplemented:
    return NNC_STATUS_UNIMPLEMENTED;
  }
  return NNC_STATUS_INTERNAL;
}

nnc_status_t convertStatus(const char *function, const rt::Status &status) {
  if (status.isOk())
    return nullptr;
  return makeStatus(convertCode(status.code()), function, status.message());
}

} // namespace nnc::capi

extern "C" {

uint32_t nnc_api_version(void) { return NNC_API_VERSION; }

nnc_status_code_t nnc_status_code(nnc_status_t status) {
  return status ? status->code : NNC_STATUS_OK;
}

const char *nnc_status_message(nnc_status_t status) {
  return status ? status->message.c_str() : "";
}

const char *nnc_status_code_name(nnc_status_code_t code) {
  switch (code) {
  case NNC_STATUS_OK:
    return "ok";
  case NNC_STATUS_INVALID_ARGUMENT:
    return "invalid argument";
  case NNC_STATUS_NOT_FOUND:
    return "not found";
  case NNC_STATUS_UNAVAILABLE:
    return "unavailable";
  case NNC_STATUS_OUT_OF_RANGE:
    return "out of range";
  case NNC_STATUS_DATA_LOSS:
    return "data loss";
  case NNC_STATUS_INTERNAL:
    return "internal";
  case NNC_STATUS_UNIMPLEMENTED:
    return "unimplemented";
  case NNC_STATUS_RESOURCE_EXHAUSTED:
    return "resource exhausted";
  }
  return "unknown";
}

void nnc_status_destroy(nnc_status_t status) {
  if (status != &outOfMemoryStatus())
    delete status;
}

} // extern "C"

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

namespace nnc::capi {

bool isValidDType(nnc_dtype_t dtype) {
  switch (dtype) {
  case NNC_DTYPE_F32:
  case NNC_DTYPE_F16:
  case NNC_DTYPE_BF16:
  case NNC_DTYPE_F64:
  case NNC_DTYPE_I64:
  case NNC_DTYPE_I32:
  case NNC_DTYPE_I8:
  case NNC_DTYPE_U8:
  case NNC_DTYPE_BOOL:
    return true;
  case NNC_DTYPE_UNKNOWN:
    return false;
  }
  return false;
}

rt::DType toRuntime(nnc_dtype_t dtype) {
  switch (dtype) {
  case NNC_DTYPE_F16:
    return rt::DType::F16;
  case NNC_DTYPE_BF16:
    return rt::DType::BF16;
  case NNC_DTYPE_F64:
    return rt::DType::F64;
  case NNC_DTYPE_I64:
    return rt::DType::I64;
  case NNC_DTYPE_I32:
    return rt::DType::I32;
  case NNC_DTYPE_I8:
    return rt::DType::I8;
  case NNC_DTYPE_U8:
    return rt::DType::U8;
  case NNC_DTYPE_BOOL:
    return rt::DType::Bool;
  case NNC_DTYPE_F32:
  case NNC_DTYPE_UNKNOWN:
    break;
  }
  return rt::DType::F32;
}

nnc_dtype_t fromRuntime(rt::DType dtype) {
  switch (dtype) {
  case rt::DType::F32:
    return NNC_DTYPE_F32;
  case rt::DType::F16:
    return NNC_DTYPE_F16;
  case rt::DType::BF16:
    return NNC_DTYPE_BF16;
  case rt::DType::F64:
    return NNC_DTYPE_F64;
  case rt::DType::I64:
    return NNC_DTYPE_I64;
  case rt::DType::I32:
    return NNC_DTYPE_I32;
  case rt::DType::I8:
    return NNC_DTYPE_I8;
  case rt::DType::U8:
    return NNC_DTYPE_U8;
  case rt::DType::Bool:
    return NNC_DTYPE_BOOL;
  }
  return NNC_DTYPE_UNKNOWN;
}

nnc_dtype_t fromMLIR(Type type) {
  if (type.isF32())
    return NNC_DTYPE_F32;
  if (type.isF16())
    return NNC_DTYPE_F16;
  if (type.isBF16())
    return NNC_DTYPE_BF16;
  if (type.isF64())
    return NNC_DTYPE_F64;
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer)
    return NNC_DTYPE_UNKNOWN;
  if (integer.getWidth() == 1)
    return NNC_DTYPE_BOOL;
  if (integer.isUnsigned())
    return integer.getWidth() == 8 ? NNC_DTYPE_U8 : NNC_DTYPE_UNKNOWN;
  switch (integer.getWidth()) {
  case 64:
    return NNC_DTYPE_I64;
  case 32:
    return NNC_DTYPE_I32;
  case 8:
    return NNC_DTYPE_I8;
  default:
    return NNC_DTYPE_UNKNOWN;
  }
}

} // namespace nnc::capi

extern "C" {

size_t nnc_dtype_size(nnc_dtype_t dtype) {
  return isValidDType(dtype) ? rt::dtypeSize(toRuntime(dtype)) : 0;
}

const char *nnc_dtype_name(nnc_dtype_t dtype) {
  return isValidDType(dtype) ? rt::dtypeName(toRuntime(dtype)) : "unknown";
}

} // extern "C"

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
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer) {
      std::error_code error = buffer.getError();
      return makeStatus(error == std::errc::no_such_file_or_directory
                            ? NNC_STATUS_NOT_FOUND
                            : NNC_STATUS_UNAVAILABLE,
                        fn,
                        std::string("cannot read ONNX model '") + path +
                            "': " + error.message());
    }
    // External data lives next to the model unless the caller says
    // otherwise (as importModelFile does).
    if (importOptions.modelDirectory.empty()) {
      llvm::SmallString<256> dir(path);
      llvm::sys::path::remove_filename(dir);
      importOptions.modelDirectory = dir.empty() ? "." : std::string(dir);
    }
    return importBytes(fn, context, (*buffer)->getBuffer(), path, importOptions,
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
// Host tensors
//===----------------------------------------------------------------------===//

namespace nnc::capi {

nnc_status_t checkRank(const char *fn, size_t rank, const int64_t *dims) {
  if (rank > NNC_MAX_RANK)
    return invalidArgument(fn, "argument 'rank' is " + std::to_string(rank) +
                                   "; the most is " +
                                   std::to_string(NNC_MAX_RANK));
  if (rank > 0 && !dims)
    return invalidArgument(fn, "argument 'dims' is NULL but 'rank' is " +
                                   std::to_string(rank));
  return nullptr;
}

/// Checks dtype, rank and dims and computes the byte size.
nnc_status_t checkShape(const char *fn, nnc_dtype_t dtype, size_t rank,
                        const int64_t *dims, std::vector<int64_t> &shape,
                        size_t &bytes) {
  if (!isValidDType(dtype))
    return invalidArgument(fn, "argument 'dtype' is not a valid nnc_dtype_t (" +
                                   std::to_string(static_cast<int>(dtype)) +
                                   ")");
  if (nnc_status_t status = checkRank(fn, rank, dims))
    return status;
  shape.assign(dims, dims + rank);
  int64_t elements = 0;
  rt::Status status =
      rt::checkedShapeSize(shape, nnc_dtype_size(dtype), elements, bytes);
  if (!status.isOk())
    return makeStatus(convertCode(status.code()), fn,
                      "argument 'dims': " + status.message());
  return nullptr;
}

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

std::unique_ptr<nnc_tensor_s> makeOwnedTensor(rt::HostTensor storage) {
  auto tensor = std::make_unique<nnc_tensor_s>();
  tensor->dtype = fromRuntime(storage.dtype());
  tensor->dims = storage.shape();
  tensor->byteSize = storage.sizeInBytes();
  tensor->storage = std::move(storage);
  tensor->data = tensor->storage.data();
  return tensor;
}

nnc_status_t allocateTensor(const char *fn, nnc_dtype_t dtype,
                            std::vector<int64_t> shape, size_t bytes,
                            std::unique_ptr<nnc_tensor_s> &out) {
  auto tensor = std::make_unique<nnc_tensor_s>();
  if (nnc_status_t status = convertStatus(
          fn, rt::HostTensor::create(toRuntime(dtype), shape, tensor->storage)))
    return status;
  tensor->dtype = dtype;
  tensor->dims = std::move(shape);
  tensor->data = tensor->storage.data();
  tensor->byteSize = bytes;
  out = std::move(tensor);
  return nullptr;
}

nnc_status_t copyToHost(const char *fn, const nnc_tensor_s &tensor,
                        rt::HostTensor &copy) {
  if (nnc_status_t status =
          convertStatus(fn, rt::HostTensor::create(toRuntime(tensor.dtype),
                                                   tensor.dims, copy)))
    return status;
  if (tensor.byteSize)
    std::memcpy(copy.data(), tensor.data, tensor.byteSize);
  return nullptr;
}

} // namespace nnc::capi

extern "C" {

nnc_status_t nnc_tensor_create(nnc_dtype_t dtype, size_t rank,
                               const int64_t *dims, nnc_tensor_t **out_tensor) {
  static const char *fn = "nnc_tensor_create";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!out_tensor)
      return nullArgument(fn, "out_tensor");
    std::vector<int64_t> shape;
    size_t bytes = 0;
    if (nnc_status_t status = checkShape(fn, dtype, rank, dims, shape, bytes))
      return status;
    std::unique_ptr<nnc_tensor_s> tensor;
    if (nnc_status_t status =
            allocateTensor(fn, dtype, std::move(shape), bytes, tensor))
      return status;
    *out_tensor = tensor.release();
    return nullptr;
  });
}

nnc_status_t nnc_tensor_create_view(nnc_dtype_t dtype, size_t rank,
                                    const int64_t *dims, void *data,
                                    size_t byte_size,
                                    nnc_tensor_t **out_tensor) {
  static const char *fn = "nnc_tensor_create_view";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!out_tensor)
      return nullArgument(fn, "out_tensor");
    std::vector<int64_t> shape;
    size_t bytes = 0;
    if (nnc_status_t status = checkShape(fn, dtype, rank, dims, shape, bytes))
      return status;
    if (byte_size != bytes)
      return invalidArgument(
          fn, "argument 'byte_size' is " + std::to_string(byte_size) +
                  " but the dtype and dims need " + std::to_string(bytes));
    if (!data && bytes != 0)
      return nullArgument(fn, "data");
    size_t alignment = nnc_dtype_size(dtype);
    if (reinterpret_cast<uintptr_t>(data) % alignment != 0)
      return invalidArgument(fn, "argument 'data' is not aligned to " +
                                     std::to_string(alignment) + " bytes");
    auto tensor = std::make_unique<nnc_tensor_s>();
    tensor->dtype = dtype;
    tensor->dims = std::move(shape);
    tensor->data = data;
    tensor->byteSize = bytes;
    *out_tensor = tensor.release();
    return nullptr;
  });
}

nnc_dtype_t nnc_tensor_dtype(const nnc_tensor_t *tensor) {
  return tensor ? tensor->dtype : NNC_DTYPE_UNKNOWN;
}

size_t nnc_tensor_rank(const nnc_tensor_t *tensor) {
  return tensor ? tensor->dims.size() : 0;
}

const int64_t *nnc_tensor_dims(const nnc_tensor_t *tensor) {
  return tensor && !tensor->dims.empty() ? tensor->dims.data() : nullptr;
}

void *nnc_tensor_data(nnc_tensor_t *tensor) {
  return tensor ? tensor->data : nullptr;
}

const void *nnc_tensor_const_data(const nnc_tensor_t *tensor) {
  return tensor ? tensor->data : nullptr;
}

size_t nnc_tensor_byte_size(const nnc_tensor_t *tensor) {
  return tensor ? tensor->byteSize : 0;
}

void nnc_tensor_destroy(nnc_tensor_t *tensor) { delete tensor; }

nnc_status_t nnc_tensor_read_npy(const char *path, nnc_tensor_t **out_tensor) {
  static const char *fn = "nnc_tensor_read_npy";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!path)
      return nullArgument(fn, "path");
    if (!out_tensor)
      return nullArgument(fn, "out_tensor");
    rt::HostTensor storage;
    if (nnc_status_t status = convertStatus(fn, rt::readNpy(path, storage)))
      return status;
    *out_tensor = makeOwnedTensor(std::move(storage)).release();
    return nullptr;
  });
}

nnc_status_t nnc_tensor_read_csv(const char *path, nnc_tensor_t **out_tensor) {
  static const char *fn = "nnc_tensor_read_csv";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!path)
      return nullArgument(fn, "path");
    if (!out_tensor)
      return nullArgument(fn, "out_tensor");
    rt::HostTensor storage;
    if (nnc_status_t status =
            convertStatus(fn, rt::readCsv(path, rt::CsvOptions(), storage)))
      return status;
    *out_tensor = makeOwnedTensor(std::move(storage)).release();
    return nullptr;
  });
}

nnc_status_t nnc_tensor_write_npy(const nnc_tensor_t *tensor,
                                  const char *path) {
  static const char *fn = "nnc_tensor_write_npy";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!tensor)
      return nullArgument(fn, "tensor");
    if (!path)
      return nullArgument(fn, "path");
    if (tensor->storage.data())
      return convertStatus(fn, rt::writeNpy(path, tensor->storage));
    // A view: the runtime writer takes a HostTensor, so copy into one.
    rt::HostTensor copy;
    if (nnc_status_t status = copyToHost(fn, *tensor, copy))
      return status;
    return convertStatus(fn, rt::writeNpy(path, copy));
  });
}

} // extern "C"
