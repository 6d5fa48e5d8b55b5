//===- CAPI.cpp - status, element types and host tensors ------------------===//
//
// Implements the first parts of include/nnc-c/runtime.h: statuses, element
// types, host tensors and their .npy/.csv files, on top of the runtime's
// HostTensor and NumPy I/O, with the helpers the rest of the C API shares
// (capi/Handles.h). Every entry point validates its arguments and turns C++
// exceptions (allocation failures) into statuses.
//
//===----------------------------------------------------------------------===//

#include "nnc-c/runtime.h"

#include "Handles.h"

#include "nnc/runtime/HostTensor.h"
#include "nnc/runtime/NpyIO.h"
#include "nnc/runtime/Status.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

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

// The C enum and the runtime's DType are the rows of one table
// (nnc/runtime/DTypes.def), in the same order.
#define NNC_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr)                  \
  static_assert(static_cast<int>(CEnum) ==                                     \
                    static_cast<int>(rt::DType::Enum),                         \
                "nnc_dtype_t and nnc::runtime::DType disagree on " Name);
#include "nnc/runtime/DTypes.def"

bool isValidDType(nnc_dtype_t dtype) {
  switch (dtype) {
#define NNC_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr) case CEnum:
#include "nnc/runtime/DTypes.def"
    return true;
  case NNC_DTYPE_UNKNOWN:
    return false;
  }
  return false;
}

rt::DType toRuntime(nnc_dtype_t dtype) {
  return isValidDType(dtype) ? static_cast<rt::DType>(dtype) : rt::DType::F32;
}

nnc_dtype_t fromRuntime(rt::DType dtype) {
  return static_cast<size_t>(dtype) < rt::kNumDTypes
             ? static_cast<nnc_dtype_t>(dtype)
             : NNC_DTYPE_UNKNOWN;
}

char *copyString(const std::string &text) {
  char *copy = static_cast<char *>(std::malloc(text.size() + 1));
  if (copy)
    std::memcpy(copy, text.c_str(), text.size() + 1);
  return copy;
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
