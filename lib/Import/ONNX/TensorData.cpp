//===- TensorData.cpp - ONNX tensors to attributes ------------------------===//
//
// Decodes ONNX TensorProtos (typed fields, raw little-endian data, external
// data files) into DenseElementsAttrs. Every declared size is checked against
// the payload before anything is allocated, and external data is confined to
// the model's folder.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "nnc/ShapeUtils.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SwapByteOrder.h"

#include "onnx/onnx_pb.h"

using namespace mlir;

namespace nnc::onnx_import {

Type convertDataType(MLIRContext *context, int dataType, std::string &reason) {
  Builder b(context);
  switch (dataType) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::INT64:
    return b.getI64Type();
  case onnx::TensorProto::INT32:
    return b.getI32Type();
  case onnx::TensorProto::INT8:
    return b.getIntegerType(8);
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  default:
    break;
  }
  reason = ("element type " + dataTypeName(dataType) + " is not supported").str();
  return nullptr;
}

StringRef dataTypeName(int dataType) {
  if (onnx::TensorProto::DataType_IsValid(dataType))
    return onnx::TensorProto::DataType_Name(
        static_cast<onnx::TensorProto::DataType>(dataType));
  return "<invalid data type>";
}

namespace {

/// The element size in bytes of the raw encoding of a supported type.
size_t rawElementSize(Type elementType) {
  if (elementType.isInteger(1))
    return 1;
  return elementType.getIntOrFloatBitWidth() / 8;
}

/// Builds an attribute from raw little-endian bytes; ONNX stores booleans as
/// one byte each, where MLIR packs bits.
DenseElementsAttr fromRawBytes(RankedTensorType type, ArrayRef<char> bytes) {
  static_assert(llvm::endianness::native == llvm::endianness::little,
                "ONNX raw data is little-endian; big-endian hosts need a swap");
  if (type.getElementType().isInteger(1)) {
    SmallVector<bool> values;
    values.reserve(bytes.size());
    for (char c : bytes)
      values.push_back(c != 0);
    return DenseElementsAttr::get(type, values);
  }
  return DenseElementsAttr::getFromRawBuffer(type, bytes);
}

/// Reads `length` bytes at `offset` of the external file `location`, which
/// must stay inside `modelDirectory`.
FailureOr<std::unique_ptr<llvm::MemoryBuffer>>
readExternal(StringRef modelDirectory, StringRef location, uint64_t offset,
             std::optional<uint64_t> length, std::string &error) {
  if (modelDirectory.empty()) {
    error = "has external data, but the model was not loaded from a file "
            "(no folder to read it from)";
    return failure();
  }
  if (location.empty() || llvm::sys::path::is_absolute(location) ||
      llvm::sys::path::has_root_name(location)) {
    error = ("external data location '" + location +
             "' must be a path relative to the model's folder")
                .str();
    return failure();
  }
  for (StringRef part : llvm::make_range(llvm::sys::path::begin(location),
                                         llvm::sys::path::end(location)))
    if (part == "..") {
      error = ("external data location '" + location +
               "' may not contain '..'")
                  .str();
      return failure();
    }
  SmallString<256> dirReal, fileReal, joined(modelDirectory);
  llvm::sys::path::append(joined, location);
  if (llvm::sys::fs::real_path(modelDirectory, dirReal)) {
    error = ("cannot resolve the model's folder '" + modelDirectory + "'").str();
    return failure();
  }
  if (std::error_code ec = llvm::sys::fs::real_path(joined, fileReal)) {
    error = ("external data file '" + location + "' cannot be opened: " +
             ec.message())
                .str();
    return failure();
  }
  // Symbolic links may not lead out of the model's folder.
  SmallString<256> prefix(dirReal);
  llvm::sys::path::append(prefix, "");
  if (!StringRef(fileReal).starts_with(prefix)) {
    error = ("external data file '" + location +
             "' resolves outside the model's folder")
                .str();
    return failure();
  }
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(fileReal, status) ||
      status.type() != llvm::sys::fs::file_type::regular_file) {
    error = ("external data file '" + location + "' is not a regular file")
                .str();
    return failure();
  }
  uint64_t size = status.getSize();
  uint64_t want = length ? *length : (offset <= size ? size - offset : 0);
  if (offset > size || want > size - offset) {
    error = ("external data range [" + Twine(offset) + ", " +
             Twine(offset) + " + " + Twine(want) + ") lies outside '" +
             location + "' of " + Twine(size) + " bytes")
                .str();
    return failure();
  }
  auto buffer = llvm::MemoryBuffer::getFileSlice(fileReal, want, offset,
                                                 /*IsVolatile=*/false);
  if (!buffer) {
    error = ("cannot read external data file '" + location +
             "': " + buffer.getError().message())
                .str();
    return failure();
  }
  return std::move(*buffer);
}

} // namespace

FailureOr<DenseElementsAttr> convertTensor(MLIRContext *context,
                                           const onnx::TensorProto &tensor,
                                           StringRef modelDirectory,
                                           std::string &error) {
  std::string reason;
  Type elementType = convertDataType(context, tensor.data_type(), reason);
  if (!elementType) {
    error = reason;
    return failure();
  }
  if (tensor.has_segment()) {
    error = "segmented tensors are not supported";
    return failure();
  }
  SmallVector<int64_t> shape;
  for (int64_t d : tensor.dims()) {
    if (d < 0) {
      error = ("has a negative dimension " + Twine(d)).str();
      return failure();
    }
    shape.push_back(d);
  }
  std::optional<int64_t> count = getNumElements(shape);
  if (!count) {
    error = "shape " + formatShape(shape) + " has more elements than int64 holds";
    return failure();
  }
  auto type = RankedTensorType::get(shape, elementType);
  uint64_t elementSize = rawElementSize(elementType);
  int64_t expectedSigned = 0;
  if (llvm::MulOverflow<int64_t>(*count, static_cast<int64_t>(elementSize),
                                 expectedSigned)) {
    error = "shape " + formatShape(shape) + " is too large";
    return failure();
  }
  uint64_t expectedBytes = static_cast<uint64_t>(expectedSigned);
  auto checkCount = [&](uint64_t actual, StringRef field) -> LogicalResult {
    if (actual == static_cast<uint64_t>(*count))
      return success();
    error = ("shape " + formatShape(shape) + " needs " + Twine(*count) +
             " elements but " + field + " holds " + Twine(actual))
                .str();
    return failure();
  };

  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    std::string location;
    uint64_t offset = 0;
    std::optional<uint64_t> length;
    for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
      StringRef key = entry.key();
      uint64_t value = 0;
      if (key == "location") {
        location = entry.value();
      } else if (key == "offset" || key == "length") {
        if (StringRef(entry.value()).getAsInteger(10, value)) {
          error = ("external data " + key + " '" + entry.value() +
                   "' is not a non-negative integer")
                      .str();
          return failure();
        }
        if (key == "offset")
          offset = value;
        else
          length = value;
      }
    }
    if (length && *length != expectedBytes) {
      error = ("external data length " + Twine(*length) + " does not match " +
               Twine(expectedBytes) + " bytes of shape " + formatShape(shape))
                  .str();
      return failure();
    }
    FailureOr<std::unique_ptr<llvm::MemoryBuffer>> buffer = readExternal(
        modelDirectory, location, offset,
        length ? length : std::optional<uint64_t>(expectedBytes), error);
    if (failed(buffer))
      return failure();
    ArrayRef<char> bytes((*buffer)->getBufferStart(),
                         (*buffer)->getBufferSize());
    if (bytes.size() != expectedBytes) {
      error = ("external data holds " + Twine(bytes.size()) + " bytes, shape " +
               formatShape(shape) + " needs " + Twine(expectedBytes))
                  .str();
      return failure();
    }
    return fromRawBytes(type, bytes);
  }

  if (tensor.has_raw_data()) {
    const std::string &raw = tensor.raw_data();
    if (raw.size() != expectedBytes) {
      error = ("raw data holds " + Twine(raw.size()) + " bytes, shape " +
               formatShape(shape) + " of " + dataTypeName(tensor.data_type()) +
               " needs " + Twine(expectedBytes))
                  .str();
      return failure();
    }
    return fromRawBytes(type, ArrayRef<char>(raw.data(), raw.size()));
  }

  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT: {
    if (failed(checkCount(tensor.float_data_size(), "float_data")))
      return failure();
    return DenseElementsAttr::get(
        type, ArrayRef<float>(tensor.float_data().data(), *count));
  }
  case onnx::TensorProto::DOUBLE: {
    if (failed(checkCount(tensor.double_data_size(), "double_data")))
      return failure();
    return DenseElementsAttr::get(
        type, ArrayRef<double>(tensor.double_data().data(), *count));
  }
  case onnx::TensorProto::INT64: {
    if (failed(checkCount(tensor.int64_data_size(), "int64_data")))
      return failure();
    return DenseElementsAttr::get(
        type, ArrayRef<int64_t>(tensor.int64_data().data(), *count));
  }
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::BOOL: {
    if (failed(checkCount(tensor.int32_data_size(), "int32_data")))
      return failure();
    unsigned width = elementType.getIntOrFloatBitWidth();
    SmallVector<APInt> values;
    values.reserve(*count);
    for (int32_t v : tensor.int32_data())
      values.push_back(APInt(width, static_cast<uint64_t>(v),
                             /*isSigned=*/true, /*implicitTrunc=*/true));
    return DenseElementsAttr::get(type, values);
  }
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16: {
    // 16-bit floats travel as their bit patterns in int32_data.
    if (failed(checkCount(tensor.int32_data_size(), "int32_data")))
      return failure();
    const llvm::fltSemantics &semantics =
        cast<FloatType>(elementType).getFloatSemantics();
    SmallVector<APFloat> values;
    values.reserve(*count);
    for (int32_t v : tensor.int32_data())
      values.push_back(
          APFloat(semantics, APInt(16, static_cast<uint16_t>(v))));
    return DenseElementsAttr::get(type, values);
  }
  default:
    error = "has no data";
    return failure();
  }
}

} // namespace nnc::onnx_import
