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

uint16_t roundToBFloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) // NaN
    return 0x7FC0;
  // Adding 0x7FFF and the lowest kept bit rounds to nearest, ties to even;
  // a carry moves into the exponent (up to infinity) as it should.
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

uint16_t roundToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) // NaN: quiet, the payload's top bits
    return sign | 0x7E00u | static_cast<uint16_t>((magnitude >> 13) & 0x3FFu);
  if (magnitude >= 0x47800000u) // 2^16 and beyond, infinity
    return sign | 0x7C00u;
  // Keeps `mantissa >> shift`, rounded to nearest with ties to even.
  auto roundShift = [](uint32_t mantissa, uint32_t shift) {
    uint32_t kept = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);
    if (rest > half || (rest == half && (kept & 1u)))
      ++kept;
    return kept;
  };
  uint32_t exponent = magnitude >> 23;
  uint32_t mantissa = magnitude & 0x7FFFFFu;
  if (exponent >= 113) {
    // Normal in half precision (2^-14 and up): rebias the exponent; the
    // rounding may carry into it, up to infinity at 65520.
    uint32_t result = ((exponent - 112) << 10) | (mantissa >> 13);
    uint32_t rest = mantissa & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (result & 1u)))
      ++result;
    return sign | static_cast<uint16_t>(result);
  }
  // Subnormal in half precision: units of 2^-24. The value is
  // (2^23 + mantissa) * 2^(exponent - 150), so the units are that shifted
  // right by 126 - exponent (>= 14); f32 subnormals round to zero.
  uint32_t shift = 126 - exponent;
  if (exponent == 0 || shift > 24)
    return sign;
  return sign | static_cast<uint16_t>(roundShift(mantissa | 0x800000u, shift));
}

Status HostTensor::rounded(const HostTensor &source, DType dtype,
                           HostTensor &out) {
  if (source.dtype() != DType::F32 ||
      (dtype != DType::F16 && dtype != DType::BF16))
    return Status(StatusCode::InvalidArgument,
                  std::string("cannot round ") + dtypeName(source.dtype()) +
                      " to " + dtypeName(dtype) + " (f32 to f16 or bf16)");
  if (!out.data() || out.dtype() != dtype || out.shape() != source.shape())
    NNC_RUNTIME_RETURN_IF_ERROR(create(dtype, source.shape(), out));
  const float *from = source.dataAs<float>();
  uint16_t *to = out.dataAs<uint16_t>();
  int64_t n = source.numElements();
  if (dtype == DType::BF16)
    for (int64_t i = 0; i < n; ++i)
      to[i] = roundToBFloat16(from[i]);
  else
    for (int64_t i = 0; i < n; ++i)
      to[i] = roundToHalf(from[i]);
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
