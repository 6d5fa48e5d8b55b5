//===- HostTensor.cpp - a dense tensor in host memory ---------------------===//

#include "nnc/runtime/HostTensor.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

namespace nnc::runtime {

size_t dtypeSize(DType dtype) {
  switch (dtype) {
#define NNC_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr)                   \
  case DType::Enum:                                                            \
    return Bytes;
#include "nnc/runtime/DTypes.def"
  }
  return 1;
}

const char *dtypeName(DType dtype) {
  switch (dtype) {
#define NNC_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr)                   \
  case DType::Enum:                                                            \
    return Name;
#include "nnc/runtime/DTypes.def"
  }
  return "unknown";
}

DTypeClass dtypeClass(DType dtype) {
  switch (dtype) {
#define NNC_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr)                   \
  case DType::Enum:                                                            \
    return DTypeClass::Class;
#include "nnc/runtime/DTypes.def"
  }
  return DTypeClass::UnsignedInt;
}

bool isGraphDType(DType dtype) {
  switch (dtype) {
#define NNC_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr)                   \
  case DType::Enum:                                                            \
    return true;
#define NNC_HOST_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr)              \
  case DType::Enum:                                                            \
    return false;
#include "nnc/runtime/DTypes.def"
  }
  return false;
}

bool isIntegerDType(DType dtype) {
  DTypeClass c = dtypeClass(dtype);
  return c == DTypeClass::SignedInt || c == DTypeClass::UnsignedInt ||
         c == DTypeClass::Bool;
}

int64_t readIntegerElement(DType dtype, const void *data, size_t index) {
  size_t width = dtypeSize(dtype);
  uint64_t bits = 0;
  std::memcpy(&bits, static_cast<const uint8_t *>(data) + index * width, width);
  if (dtypeClass(dtype) == DTypeClass::SignedInt && width < 8 &&
      ((bits >> (8 * width - 1)) & 1))
    bits |= ~uint64_t(0) << (8 * width);
  return static_cast<int64_t>(bits);
}

Status checkedShapeSize(const std::vector<int64_t> &shape, size_t elementSize,
                        int64_t &outElements, size_t &outBytes) {
  // A zero dimension makes the product zero however large the others are,
  // but each dimension is still checked on its own.
  uint64_t elements = 1;
  bool overflow = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0)
      return Status(StatusCode::InvalidArgument,
                    "dimension " + std::to_string(i) + " is negative (" +
                        std::to_string(shape[i]) + ")");
    uint64_t dim = static_cast<uint64_t>(shape[i]);
    if (dim != 0 && elements > std::numeric_limits<uint64_t>::max() / dim)
      overflow = true;
    else
      elements *= dim;
  }
  bool empty = false;
  for (int64_t dim : shape)
    empty |= dim == 0;
  if (empty) {
    outElements = 0;
    outBytes = 0;
    return Status::ok();
  }
  if (overflow ||
      elements > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
      (elementSize != 0 &&
       elements > std::numeric_limits<size_t>::max() / elementSize))
    return Status(StatusCode::OutOfRange, "the element count of the shape "
                                          "overflows");
  outElements = static_cast<int64_t>(elements);
  outBytes = static_cast<size_t>(elements) * elementSize;
  return Status::ok();
}

void HostTensor::AlignedFree::operator()(void *p) const { std::free(p); }

Status HostTensor::create(DType dtype, std::vector<int64_t> shape,
                          HostTensor &out) {
  int64_t elements = 0;
  size_t bytes = 0;
  NNC_RUNTIME_RETURN_IF_ERROR(
      checkedShapeSize(shape, dtypeSize(dtype), elements, bytes));
  // aligned_alloc wants a multiple of the alignment; round up, and give empty
  // tensors one block so that data() is never null.
  size_t rounded = bytes == 0 ? kHostTensorAlignment
                              : (bytes + kHostTensorAlignment - 1) /
                                    kHostTensorAlignment * kHostTensorAlignment;
  if (rounded < bytes)
    return Status(StatusCode::OutOfRange,
                  "tensor of " + std::to_string(bytes) + " bytes is too large");
  void *p = std::aligned_alloc(kHostTensorAlignment, rounded);
  if (!p)
    return Status(StatusCode::OutOfRange, "cannot allocate " +
                                              std::to_string(bytes) +
                                              " bytes for a tensor");
  std::memset(p, 0, rounded);
  out.dtype_ = dtype;
  out.shape_ = std::move(shape);
  out.numElements_ = elements;
  out.sizeInBytes_ = bytes;
  out.data_.reset(p);
  return Status::ok();
}

std::string formatShape(const std::vector<int64_t> &shape) {
  if (shape.empty())
    return "scalar";
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? "x" : "") + std::to_string(shape[i]);
  return out;
}

} // namespace nnc::runtime
