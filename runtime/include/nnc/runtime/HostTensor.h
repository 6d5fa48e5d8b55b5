//===- HostTensor.h - a dense tensor in host memory -------------*- C++ -*-===//
//
// A dense, row-major (C order) tensor that owns 64-byte aligned host memory.
// It is what the runtime reads from and writes to files (.npy, .npz, CSV) and
// what `nnc-run` hands to and takes from a compiled step.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_HOSTTENSOR_H
#define NNC_RUNTIME_HOSTTENSOR_H

#include "nnc/runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nnc::runtime {

/// Element types, one per row of DTypes.def and in its order: the values
/// are stored in executables' plans and equal nnc_dtype_t's.
enum class DType : uint8_t {
#define NNC_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr) Enum,
#include "nnc/runtime/DTypes.def"
};

/// How many element types there are; every DType is below it.
inline constexpr size_t kNumDTypes = 0
#define NNC_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr) +1
#include "nnc/runtime/DTypes.def"
    ;

/// How an element's bytes encode its value (the Class column of DTypes.def).
enum class DTypeClass : uint8_t {
  IEEEFloat,
  BFloat,
  SignedInt,
  UnsignedInt,
  Bool
};

/// Bytes per element of `dtype`.
size_t dtypeSize(DType dtype);

/// A stable lowercase name, e.g. "f32", "bool".
const char *dtypeName(DType dtype);

/// The encoding of `dtype`'s elements.
DTypeClass dtypeClass(DType dtype);

/// Whether `dtype` can be the element type of a graph value (an input,
/// parameter or output of a compiled function); the others (u8) exist only
/// in host tensors and plans.
bool isGraphDType(DType dtype);

/// Whether `dtype` holds integers: signed, unsigned or bool.
bool isIntegerDType(DType dtype);

/// Element `index` of little-endian data of the integer `dtype`, widened to
/// int64 (sign-extended for signed types).
int64_t readIntegerElement(DType dtype, const void *data, size_t index);

/// The bits of `value` rounded to bfloat16 and to IEEE half precision, to
/// nearest with ties to even, subnormals kept, as the compiled casts round
/// (a NaN becomes bfloat16's 0x7FC0, the quiet NaN of the same payload in
/// half precision).
uint16_t roundToBFloat16(float value);
uint16_t roundToHalf(float value);

/// Alignment, in bytes, of every HostTensor's data.
inline constexpr size_t kHostTensorAlignment = 64;

/// Computes the element count of `shape`; fails on a negative dimension or
/// when the count or the byte size (count * `elementSize`) overflows.
Status checkedShapeSize(const std::vector<int64_t> &shape, size_t elementSize,
                        int64_t &outElements, size_t &outBytes);

/// "64x512"; "scalar" for a 0-d shape.
std::string formatShape(const std::vector<int64_t> &shape);

class HostTensor {
public:
  /// A 0-d f32 tensor with no storage; call `create` to make a real one.
  HostTensor() = default;
  HostTensor(HostTensor &&) noexcept = default;
  HostTensor &operator=(HostTensor &&) noexcept = default;
  HostTensor(const HostTensor &) = delete;
  HostTensor &operator=(const HostTensor &) = delete;

  /// Allocates a zero-filled tensor. Fails, without allocating, on a negative
  /// dimension or an overflowing size, and when the allocation fails.
  static Status create(DType dtype, std::vector<int64_t> shape,
                       HostTensor &out);
  /// `source`, an F32 tensor, rounded to `dtype` (F16 or BF16) into `out`
  /// (reused when it has that type and shape).
  static Status rounded(const HostTensor &source, DType dtype,
                        HostTensor &out);

  DType dtype() const { return dtype_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numElements() const { return numElements_; }
  size_t sizeInBytes() const { return sizeInBytes_; }

  /// 64-byte aligned; non-null once `create` succeeded, even for no elements.
  void *data() { return data_.get(); }
  const void *data() const { return data_.get(); }
  template <typename T> T *dataAs() { return static_cast<T *>(data()); }
  template <typename T> const T *dataAs() const {
    return static_cast<const T *>(data());
  }

private:
  struct AlignedFree {
    void operator()(void *p) const;
  };

  DType dtype_ = DType::F32;
  std::vector<int64_t> shape_;
  int64_t numElements_ = 0;
  size_t sizeInBytes_ = 0;
  std::unique_ptr<void, AlignedFree> data_;
};

} // namespace nnc::runtime

#endif // NNC_RUNTIME_HOSTTENSOR_H
