//===- CublasLt.h - cuBLASLt opened with dlopen -----------------*- C++ -*-===//
//
// The GEMM library of the CUDA device (CudaDevice.cpp): NVIDIA's cuBLASLt,
// opened at run time like the driver, so that the runtime links no CUDA
// library and runs (and fails clearly) where none is installed. The entry
// points are CublasLtSymbols.def; the few constants and structs of
// cublasLt.h the device uses are below, with their values there.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_CUBLASLT_H
#define NNC_RUNTIME_CUBLASLT_H

#include "nnc/runtime/DynamicLibrary.h"

#include <cstddef>
#include <cstdint>

namespace nnc::runtime {

/// cublasLtMatmulAlgo_t.
struct CublasLtAlgo {
  uint64_t data[8];
};

/// cublasLtMatmulHeuristicResult_t.
struct CublasLtHeuristicResult {
  CublasLtAlgo algo;
  size_t workspaceSize;
  int state;
  float wavesCount;
  int reserved[4];
};
static_assert(sizeof(CublasLtHeuristicResult) == 96,
              "cublasLtMatmulHeuristicResult_t's layout");

namespace cublaslt {
// cudaDataType (library_types.h).
constexpr int kR32F = 0, kR16F = 2, kR16BF = 14;
// cublasComputeType_t: f32 products and sums, no TF32.
constexpr int kCompute32F = 68;
// cublasOperation_t.
constexpr int32_t kOpN = 0, kOpT = 1;
// cublasLtMatmulDescAttributes_t: int32 transposes, the uint32 epilogue,
// the bias vector's device pointer.
constexpr int kDescTransA = 3, kDescTransB = 4, kDescEpilogue = 7,
              kDescBiasPointer = 8;
// cublasLtEpilogue_t: D += bias (one value per row of D, column-major);
// then max(0, D).
constexpr uint32_t kEpilogueBias = 4, kEpilogueReluBias = 6;
// cublasLtMatrixLayoutAttribute_t: int32 count, int64 stride in elements.
constexpr int kLayoutBatchCount = 5, kLayoutStridedBatchOffset = 6;
// cublasLtMatmulPreferenceAttributes_t: uint64 bytes, uint32 alignments.
constexpr int kPrefMaxWorkspaceBytes = 1;
constexpr int kPrefMinAlignmentA = 5, kPrefMinAlignmentB = 6,
              kPrefMinAlignmentC = 7, kPrefMinAlignmentD = 8;
} // namespace cublaslt

struct CublasLt {
#define NNC_LT_PFN(name, ...) int (*name)(__VA_ARGS__) = nullptr;
#include "nnc/runtime/CublasLtSymbols.def"
#undef NNC_LT_PFN
  size_t (*cublasLtGetVersion)() = nullptr;
  const char *(*cublasLtGetStatusString)(int) = nullptr;

  /// Opens cuBLASLt from `candidates` in order and resolves every entry
  /// point.
  static Status load(const std::vector<std::string> &candidates,
                     CublasLt &out);

  /// Turns a cublasStatus_t into a status naming the call.
  Status check(int result, const char *call) const;

  const std::string &libraryPath() const { return library.path(); }

private:
  DynamicLibrary library;
};

} // namespace nnc::runtime

#endif // NNC_RUNTIME_CUBLASLT_H
