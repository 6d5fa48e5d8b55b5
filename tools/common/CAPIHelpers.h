//===- CAPIHelpers.h - C++ conveniences over the public C API ---*- C++ -*-===//
//
// Owning wrappers for the runtime's C API handles and the formatting the
// command-line tools share (shapes, dtypes, element values). Tools that
// include this are clients of the public C API and nothing else of nnc, so
// it includes nothing else of nnc but nnc-c/runtime.h (libnnc_runtime) and
// the element-type table (nnc/runtime/DTypes.def, macros and no code);
// CompilerHelpers.h wraps the compiler's handles.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TOOLS_COMMON_CAPIHELPERS_H
#define NNC_TOOLS_COMMON_CAPIHELPERS_H

#include "nnc-c/runtime.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <sys/resource.h>

namespace nnc::tools {

struct StatusDeleter {
  void operator()(nnc_status_s *s) const { nnc_status_destroy(s); }
};
struct TensorDeleter {
  void operator()(nnc_tensor_t *t) const { nnc_tensor_destroy(t); }
};
struct ExecutableDeleter {
  void operator()(nnc_executable_t *e) const { nnc_executable_destroy(e); }
};

using Status = std::unique_ptr<nnc_status_s, StatusDeleter>;
using Tensor = std::unique_ptr<nnc_tensor_t, TensorDeleter>;
using Executable = std::unique_ptr<nnc_executable_t, ExecutableDeleter>;

/// Takes `status` (owned); returns its message, "" for success.
inline std::string takeMessage(nnc_status_t status) {
  Status owned(status);
  return owned ? nnc_status_message(owned.get()) : "";
}

/// "[2, ?, 3]" (-1 is a dynamic dimension).
inline std::string formatDims(size_t rank, const int64_t *dims) {
  std::string text = "[";
  for (size_t i = 0; i < rank; ++i) {
    if (i)
      text += ", ";
    text += dims[i] < 0 ? std::string("?") : std::to_string(dims[i]);
  }
  return text + "]";
}

/// "f32 [2, 3]".
inline std::string describe(nnc_dtype_t dtype, size_t rank,
                            const int64_t *dims) {
  return std::string(nnc_dtype_name(dtype)) + " " + formatDims(rank, dims);
}
inline std::string describe(const nnc_value_info_t &info) {
  return describe(info.dtype, info.rank, info.dims);
}
inline std::string describe(const nnc_tensor_t *tensor) {
  return describe(nnc_tensor_dtype(tensor), nnc_tensor_rank(tensor),
                  nnc_tensor_dims(tensor));
}

inline int64_t elementCount(const nnc_tensor_t *tensor) {
  int64_t count = 1;
  const int64_t *dims = nnc_tensor_dims(tensor);
  for (size_t i = 0; i < nnc_tensor_rank(tensor); ++i)
    count *= dims[i];
  return count;
}

/// Whether a tensor of dtype/dims fits a signature whose -1 dims are free.
inline bool fits(const nnc_value_info_t &info, const nnc_tensor_t *tensor) {
  if (info.dtype != nnc_tensor_dtype(tensor) ||
      info.rank != nnc_tensor_rank(tensor))
    return false;
  const int64_t *dims = nnc_tensor_dims(tensor);
  for (size_t i = 0; i < info.rank; ++i)
    if (info.dims[i] >= 0 && info.dims[i] != dims[i])
      return false;
  return true;
}

inline float halfToFloat(uint16_t bits) {
  uint32_t sign = (bits >> 15) & 1, exponent = (bits >> 10) & 0x1f,
           mantissa = bits & 0x3ff;
  float value;
  if (exponent == 0)
    value = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31)
    value = mantissa ? NAN : INFINITY;
  else
    value = std::ldexp(static_cast<float>(mantissa | 0x400),
                       static_cast<int>(exponent) - 25);
  return sign ? -value : value;
}

inline float bfloatToFloat(uint16_t bits) {
  uint32_t word = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &word, sizeof(value));
  return value;
}

/// Element `i` of `data` as a T, read without assuming alignment.
template <typename T> T loadAt(const char *data, int64_t i) {
  T v;
  std::memcpy(&v, data + sizeof(T) * i, sizeof(T));
  return v;
}

/// How an element's bytes encode its value: the Class column of the
/// element-type table, Unknown for anything that is not a dtype.
enum class ElementClass {
  IEEEFloat,
  BFloat,
  SignedInt,
  UnsignedInt,
  Bool,
  Unknown
};

inline ElementClass elementClass(nnc_dtype_t dtype) {
  switch (dtype) {
#define NNC_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr)                   \
  case CEnum:                                                                  \
    return ElementClass::Class;
#include "nnc/runtime/DTypes.def"
  default:
    return ElementClass::Unknown;
  }
}

// The C API's dtype values are the rows' positions in the table, which is
// what lets the runtime's DType and nnc_dtype_t convert by value.
namespace dtype_rows {
enum : int {
#define NNC_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr) Enum,
#include "nnc/runtime/DTypes.def"
};
#define NNC_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr)                   \
  static_assert(static_cast<int>(CEnum) == Enum,                               \
                #CEnum " is not its row of DTypes.def");
#include "nnc/runtime/DTypes.def"
} // namespace dtype_rows

inline bool isFloat(nnc_dtype_t dtype) {
  ElementClass c = elementClass(dtype);
  return c == ElementClass::IEEEFloat || c == ElementClass::BFloat;
}

/// Element `i` of a floating-point tensor as a double; 0 for other dtypes.
inline double floatAt(nnc_tensor_t *tensor, int64_t i) {
  const char *data = static_cast<const char *>(nnc_tensor_data(tensor));
  nnc_dtype_t dtype = nnc_tensor_dtype(tensor);
  switch (elementClass(dtype)) {
  case ElementClass::IEEEFloat:
    switch (nnc_dtype_size(dtype)) {
    case 2:
      return halfToFloat(loadAt<uint16_t>(data, i));
    case 4:
      return loadAt<float>(data, i);
    case 8:
      return loadAt<double>(data, i);
    default:
      return 0.0;
    }
  case ElementClass::BFloat:
    return bfloatToFloat(loadAt<uint16_t>(data, i));
  default:
    return 0.0;
  }
}

/// Element `i` of an integer or bool tensor; 0 for other dtypes.
inline int64_t integerAt(nnc_tensor_t *tensor, int64_t i) {
  const char *data = static_cast<const char *>(nnc_tensor_data(tensor));
  nnc_dtype_t dtype = nnc_tensor_dtype(tensor);
  ElementClass c = elementClass(dtype);
  bool isSigned = c == ElementClass::SignedInt;
  if (!isSigned && c != ElementClass::UnsignedInt && c != ElementClass::Bool)
    return 0;
  switch (nnc_dtype_size(dtype)) {
  case 1:
    return isSigned ? loadAt<int8_t>(data, i) : loadAt<uint8_t>(data, i);
  case 2:
    return isSigned ? loadAt<int16_t>(data, i) : loadAt<uint16_t>(data, i);
  case 4:
    return isSigned ? loadAt<int32_t>(data, i) : loadAt<uint32_t>(data, i);
  case 8:
    // A u64 beyond INT64_MAX wraps; no such dtype exists yet.
    return loadAt<int64_t>(data, i);
  default:
    return 0;
  }
}

/// Element `i` as text: "%g" for floats, decimal integers, true/false.
inline std::string formatElement(nnc_tensor_t *tensor, int64_t i) {
  nnc_dtype_t dtype = nnc_tensor_dtype(tensor);
  if (isFloat(dtype)) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%g", floatAt(tensor, i));
    return buffer;
  }
  if (elementClass(dtype) == ElementClass::Bool)
    return integerAt(tensor, i) ? "true" : "false";
  return std::to_string(integerAt(tensor, i));
}

/// Parses a command-line count of at most nine decimal digits (no sign).
inline bool parseCount(const std::string &text, long &out) {
  if (text.empty() || text.size() > 9 ||
      !std::all_of(text.begin(), text.end(),
                   [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  out = std::stol(text);
  return true;
}

inline bool endsWith(const std::string &text, const char *suffix) {
  size_t n = std::strlen(suffix);
  return text.size() >= n && text.compare(text.size() - n, n, suffix) == 0;
}

/// The peak resident set size of this process in bytes (getrusage), or 0.
inline uint64_t hostPeakRssBytes() {
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0)
    return 0;
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024; // KiB on Linux
}

/// Prints `--report`'s lines for `stats` under `title`: the plan's figures,
/// with the code, weights and compile lines only for a whole executable
/// (`executable`), then the host's peak RSS.
inline void printStats(const char *title, const nnc_executable_stats_t &stats,
                       bool executable) {
  auto bytes = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  std::printf("%s:\n", title);
  std::printf("  kernels: %u\n", stats.kernel_count);
  std::printf("  library calls: %u\n", stats.library_calls);
  if (executable) {
    std::printf("  code bytes: %llu\n", bytes(stats.code_bytes));
    std::printf("  weight bytes: %llu\n", bytes(stats.weight_bytes));
  }
  std::printf("  peak memory bytes: %llu\n", bytes(stats.peak_memory_bytes));
  std::printf("  arena bytes: %llu\n", bytes(stats.arena_bytes));
  std::printf("  kernel allocation bytes: %llu\n",
              bytes(stats.kernel_alloc_bytes));
  std::printf("  bytes moved: %llu\n", bytes(stats.bytes_moved));
  if (stats.unfused_kernel_count)
    std::printf("  unfused: %u kernels, %llu bytes moved\n",
                stats.unfused_kernel_count, bytes(stats.unfused_bytes_moved));
  if (executable) {
    std::printf("  compile seconds: %.3f\n", stats.compile_seconds);
    std::printf("  from cache: %s\n", stats.from_cache ? "yes" : "no");
  }
  std::printf("  host peak RSS bytes: %llu\n", bytes(hostPeakRssBytes()));
}

/// Ends a profiled run (`--profile`, `--trace FILE`): stops the profiler,
/// prints its table to stdout when `table` and writes the trace when
/// `tracePath` is not empty. Returns the error message, "" on success.
inline std::string finishProfile(bool table, const std::string &tracePath) {
  nnc_profiler_stop();
  if (table) {
    std::printf("profile:\n");
    Status status(nnc_profiler_summary(
        [](const char *data, size_t length, void *) {
          std::fwrite(data, 1, length, stdout);
        },
        nullptr));
    if (status)
      return nnc_status_message(status.get());
  }
  if (!tracePath.empty())
    if (nnc_status_t status = nnc_profiler_write_trace(tracePath.c_str()))
      return takeMessage(status);
  return "";
}

} // namespace nnc::tools

#endif // NNC_TOOLS_COMMON_CAPIHELPERS_H
