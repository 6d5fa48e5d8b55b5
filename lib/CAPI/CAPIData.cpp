//===- CAPIData.cpp - ONNX tensor files of the C API ----------------------===//
//
// Implements nnc_tensor_read_onnx of include/nnc-c/compiler.h: serialized
// ONNX TensorProtos (the input_N.pb/output_N.pb files of the ONNX backend
// test data), read with the ONNX schema libnnc links. Every size read from
// the file is checked before anything is allocated or copied for it.
//
//===----------------------------------------------------------------------===//

#include "nnc-c/compiler.h"

#include "Internal.h"

#include "nnc/runtime/HostTensor.h"

#include "llvm/Support/MemoryBuffer.h"

#include "onnx/onnx_pb.h"

#include <climits>
#include <cstring>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

using namespace nnc::capi;

namespace {

/// The nnc_dtype_t of an ONNX TensorProto data type, or NNC_DTYPE_UNKNOWN.
nnc_dtype_t fromONNX(int dataType) {
  switch (dataType) {
  case onnx::TensorProto::FLOAT:
    return NNC_DTYPE_F32;
  case onnx::TensorProto::FLOAT16:
    return NNC_DTYPE_F16;
  case onnx::TensorProto::BFLOAT16:
    return NNC_DTYPE_BF16;
  case onnx::TensorProto::DOUBLE:
    return NNC_DTYPE_F64;
  case onnx::TensorProto::INT64:
    return NNC_DTYPE_I64;
  case onnx::TensorProto::INT32:
    return NNC_DTYPE_I32;
  case onnx::TensorProto::INT8:
    return NNC_DTYPE_I8;
  case onnx::TensorProto::UINT8:
    return NNC_DTYPE_U8;
  case onnx::TensorProto::BOOL:
    return NNC_DTYPE_BOOL;
  default:
    return NNC_DTYPE_UNKNOWN;
  }
}

std::string onnxTypeName(int dataType) {
  if (onnx::TensorProto::DataType_IsValid(dataType))
    return onnx::TensorProto::DataType_Name(
        static_cast<onnx::TensorProto::DataType>(dataType));
  return "<invalid data type " + std::to_string(dataType) + ">";
}

/// Checks that a typed field holds exactly `count` elements.
nnc_status_t checkCount(const char *fn, const std::string &what, int64_t count,
                        int actual, const char *field) {
  if (static_cast<int64_t>(actual) == count)
    return nullptr;
  return makeStatus(NNC_STATUS_DATA_LOSS, fn,
                    what + ": the shape needs " + std::to_string(count) +
                        " elements but " + field + " holds " +
                        std::to_string(actual));
}

/// Checks that the payload of `proto` fills `count` elements (`bytes`
/// bytes) exactly, before anything is allocated for them.
nnc_status_t checkPayload(const char *fn, const std::string &what,
                          const onnx::TensorProto &proto, int64_t count,
                          size_t bytes) {
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() == bytes)
      return nullptr;
    return makeStatus(
        NNC_STATUS_DATA_LOSS, fn,
        what + ": raw_data holds " + std::to_string(proto.raw_data().size()) +
            " bytes but the shape and " + onnxTypeName(proto.data_type()) +
            " need " + std::to_string(bytes));
  }
  switch (proto.data_type()) {
  case onnx::TensorProto::FLOAT:
    return checkCount(fn, what, count, proto.float_data_size(), "float_data");
  case onnx::TensorProto::DOUBLE:
    return checkCount(fn, what, count, proto.double_data_size(), "double_data");
  case onnx::TensorProto::INT64:
    return checkCount(fn, what, count, proto.int64_data_size(), "int64_data");
  default:
    // Every other supported type travels in int32_data: integers narrower
    // than 32 bits as their values, 16-bit floats as their bit patterns.
    return checkCount(fn, what, count, proto.int32_data_size(), "int32_data");
  }
}

/// Copies the payload of `proto`, checked by checkPayload, into `tensor`.
void copyPayload(const onnx::TensorProto &proto, nnc_tensor_s &tensor,
                 int64_t count) {
  char *out = static_cast<char *>(tensor.data);
  if (tensor.byteSize == 0)
    return;
  if (proto.has_raw_data()) {
    // ONNX raw data is little-endian, as every host nnc runs on.
    std::memcpy(out, proto.raw_data().data(), tensor.byteSize);
    if (tensor.dtype == NNC_DTYPE_BOOL)
      for (size_t i = 0; i < tensor.byteSize; ++i)
        out[i] = out[i] != 0;
    return;
  }
  switch (proto.data_type()) {
  case onnx::TensorProto::FLOAT:
    std::memcpy(out, proto.float_data().data(), tensor.byteSize);
    return;
  case onnx::TensorProto::DOUBLE:
    std::memcpy(out, proto.double_data().data(), tensor.byteSize);
    return;
  case onnx::TensorProto::INT64:
    std::memcpy(out, proto.int64_data().data(), tensor.byteSize);
    return;
  default:
    break;
  }
  for (int64_t i = 0; i < count; ++i) {
    int32_t v = proto.int32_data(static_cast<int>(i));
    switch (tensor.dtype) {
    case NNC_DTYPE_F16:
    case NNC_DTYPE_BF16: {
      uint16_t bits = static_cast<uint16_t>(v);
      std::memcpy(out + 2 * i, &bits, 2);
      break;
    }
    case NNC_DTYPE_I8:
    case NNC_DTYPE_U8:
      out[i] = static_cast<char>(v);
      break;
    case NNC_DTYPE_BOOL:
      out[i] = v != 0;
      break;
    default: // NNC_DTYPE_I32
      std::memcpy(out + 4 * i, &v, 4);
      break;
    }
  }
}

} // namespace

extern "C" {

nnc_status_t nnc_tensor_read_onnx(const char *path, nnc_tensor_t **out_tensor,
                                  char **out_name) {
  static const char *fn = "nnc_tensor_read_onnx";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!path)
      return nullArgument(fn, "path");
    if (!out_tensor)
      return nullArgument(fn, "out_tensor");
    std::unique_ptr<llvm::MemoryBuffer> buffer;
    if (nnc_status_t status = readProtobuf(fn, path, "ONNX tensor", buffer))
      return status;
    std::string what = std::string("'") + path + "'";
    onnx::TensorProto proto;
    if (!proto.ParseFromArray(buffer->getBufferStart(),
                              static_cast<int>(buffer->getBufferSize())))
      return makeStatus(NNC_STATUS_DATA_LOSS, fn,
                        what + " is not a valid ONNX TensorProto");
    buffer.reset();

    if (proto.data_location() == onnx::TensorProto::EXTERNAL)
      return makeStatus(NNC_STATUS_UNIMPLEMENTED, fn,
                        what + " keeps its data in an external file, which "
                               "is not supported");
    if (proto.has_segment())
      return makeStatus(NNC_STATUS_UNIMPLEMENTED, fn,
                        what + " is a segment of a tensor, which is not "
                               "supported");
    nnc_dtype_t dtype = fromONNX(proto.data_type());
    if (dtype == NNC_DTYPE_UNKNOWN)
      return makeStatus(NNC_STATUS_UNIMPLEMENTED, fn,
                        what + " has element type " +
                            onnxTypeName(proto.data_type()) +
                            ", which has no nnc_dtype_t");
    std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
    for (int64_t d : dims)
      if (d < 0)
        return makeStatus(NNC_STATUS_DATA_LOSS, fn,
                          what + " has a negative dimension " +
                              std::to_string(d));
    if (dims.size() > NNC_MAX_RANK)
      return makeStatus(NNC_STATUS_UNIMPLEMENTED, fn,
                        what + " has rank " + std::to_string(dims.size()) +
                            "; nnc tensors have rank " +
                            std::to_string(NNC_MAX_RANK) + " at most");
    std::vector<int64_t> shape;
    size_t bytes = 0;
    if (nnc_status_t status =
            checkShape(fn, dtype, dims.size(), dims.data(), shape, bytes)) {
      // Name the file rather than an argument the caller never passed.
      std::string detail = nnc_status_message(status);
      const char *prefix = "argument 'dims': ";
      if (size_t at = detail.find(prefix); at != std::string::npos)
        detail = detail.substr(at + std::strlen(prefix));
      std::string message = what + ": " + detail;
      nnc_status_code_t code = nnc_status_code(status);
      nnc_status_destroy(status);
      return makeStatus(code, fn, message);
    }
    int64_t count = 0;
    size_t checkedBytes = 0;
    (void)rt::checkedShapeSize(shape, 1, count, checkedBytes);

    // Nothing is allocated for the declared shape until the payload is
    // known to fill it: a forged dims field must not cost memory.
    if (nnc_status_t status = checkPayload(fn, what, proto, count, bytes))
      return status;
    std::unique_ptr<nnc_tensor_s> tensor;
    if (nnc_status_t status =
            allocateTensor(fn, dtype, std::move(shape), bytes, tensor))
      return status;
    copyPayload(proto, *tensor, count);

    char *name = nullptr;
    if (out_name) {
      name = copyString(proto.name());
      if (!name)
        return &outOfMemoryStatus();
      *out_name = name;
    }
    *out_tensor = tensor.release();
    return nullptr;
  });
}

} // extern "C"

