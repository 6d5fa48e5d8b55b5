//===- CudaModule.h - the CUDA target's code section ------------*- C++ -*-===//
//
// What an executable built for the CUDA target carries in its "kernels"
// section: the CUDA C++ source of its kernels, the images NVRTC compiled
// from it (cubins for given architectures, PTX for newer ones), and for
// every kernel of the plan the launches that run it, in order. The
// compiler writes it (lib/Target/CUDA), the CUDA device reads it. The
// encoding: a magic "NNCU", the version, then the fields below in order,
// little-endian, strings and arrays length-prefixed; docs/Executable.md.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_CUDAMODULE_H
#define NNC_RUNTIME_CUDAMODULE_H

#include "nnc/runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nnc::runtime {

/// The target string of executables built for the CUDA target.
inline constexpr const char *kCudaExecutableTarget = "nvptx64-nvidia-cuda";

/// Machine code for one architecture, compiled from the module's source.
struct CudaImage {
  enum class Kind : uint8_t {
    /// SASS for sm_XY: runs on compute capability X.Z with Z >= Y.
    Cubin = 0,
    /// PTX for compute_XY: the driver compiles it for any capability >= X.Y.
    Ptx = 1,
  };
  Kind kind = Kind::Cubin;
  /// 10 * major + minor: 80 for sm_80 and compute_80.
  uint32_t arch = 0;
  std::vector<uint8_t> bytes;
};

/// The element types of GEMM operands.
enum class CudaElementType : uint8_t { F32 = 0, F16 = 1, BF16 = 2 };

/// "f32", "f16", "bf16", for messages.
const char *cudaElementTypeName(CudaElementType type);

/// A matrix of a GEMM as it lies in one of the kernel's buffers, row-major:
/// element (r, c) of batch entry i at `offset` bytes + (i * batchStride +
/// r * ld + c) elements; when `transposed`, the buffer holds the transpose
/// (element (r, c) at c * ld + r).
struct CudaMatrix {
  /// The kernel's buffer, by its position among the plan step's buffers.
  uint32_t buffer = 0;
  uint64_t offset = 0;
  uint64_t ld = 1;
  /// Elements between batch entries; 0 reads the same matrix for each.
  uint64_t batchStride = 0;
  bool transposed = false;
};

/// What a GEMM applies to each output after the product: nothing, a bias
/// (one value per column of C, of C's type), or the bias then ReLU.
enum class CudaEpilogue : uint8_t { None = 0, Bias = 1, BiasRelu = 2 };

/// "none", "bias", "bias_relu".
const char *cudaEpilogueName(CudaEpilogue epilogue);

/// A matrix product the device runs in its GEMM library (cuBLASLt), in the
/// compiler's terms: for each of `batch` entries, C = A x B (or C += A x B
/// when `accumulate`), A m x k, B k x n, C m x n, products summed in f32;
/// then the epilogue on each element: C[r][c] = relu(C[r][c] + bias[c]).
struct CudaGemm {
  uint64_t m = 1, n = 1, k = 1;
  uint32_t batch = 1;
  /// A's and B's type, and C's (f32 or the inputs').
  CudaElementType inputType = CudaElementType::F32;
  CudaElementType outputType = CudaElementType::F32;
  bool accumulate = false;
  CudaMatrix a, b, c;
  CudaEpilogue epilogue = CudaEpilogue::None;
  /// The bias vector (n elements of C's type, contiguous): its buffer and
  /// byte offset there, when the epilogue has one.
  uint32_t biasBuffer = 0;
  uint64_t biasOffset = 0;
};

/// One launch: of a __global__ function of the source, which takes the
/// kernel's buffers, in the plan step's order, as `char *` parameters; or
/// of a GEMM in the device's library on those buffers.
struct CudaLaunch {
  /// The __global__ function; for a GEMM, a name for messages.
  std::string function;
  /// Blocks in the grid and threads per block (one-dimensional).
  uint32_t grid = 1;
  uint32_t block = 1;
  uint32_t sharedBytes = 0;
  enum class Kind : uint8_t { Kernel = 0, Gemm = 1 };
  Kind kind = Kind::Kernel;
  /// Kind::Gemm's product.
  CudaGemm gemm;
};

/// A kernel of the plan (PlanStep::kernel names it by `symbol`): its
/// launches, in order, on the device's stream.
struct CudaKernel {
  std::string symbol;
  uint32_t numPointers = 0;
  std::vector<CudaLaunch> launches;
};

struct CudaModule {
  /// Version 2 added GEMM launches; version 1 modules are still read.
  static constexpr uint32_t kVersion = 2;
  /// The CUDA C++ every image was compiled from.
  std::string source;
  /// What compiled it, e.g. "NVRTC 13.0".
  std::string compiler;
  std::vector<CudaImage> images;
  std::vector<CudaKernel> kernels;
};

std::vector<uint8_t> serializeCudaModule(const CudaModule &module);

/// Decodes and checks a module: counts, lengths, image kinds, launches of
/// functions with a name, grids and blocks of at least one, symbols unique,
/// GEMMs whose sizes are positive, whose buffers the kernel takes and whose
/// matrices' rows fit their leading dimensions.
/// `source` names the section in errors.
Status parseCudaModule(const uint8_t *data, size_t size,
                       const std::string &source, CudaModule &out);

/// The image a device of compute capability `major`.`minor` runs: a cubin
/// of its major version and the highest minor not above its own, else the
/// PTX of the highest architecture not above it; null when none fits.
const CudaImage *selectCudaImage(const CudaModule &module, int major,
                                 int minor);

/// "sm_80" or "compute_90", for messages.
std::string describeCudaImage(const CudaImage &image);

} // namespace nnc::runtime

#endif // NNC_RUNTIME_CUDAMODULE_H
