//===- CublasLtHeaderTest.cpp - the cuBLASLt table against cublasLt.h -----===//
//
// The runtime opens cuBLASLt with dlopen and declares the few constants and
// structs it uses itself (nnc/runtime/CublasLt.h); the emulated cuBLASLt
// declares its own. Built only where the CUDA toolkit's headers are (this
// file is the one place that includes them), it checks those declarations
// against NVIDIA's: a wrong value would make every GEMM launch ask for
// something else on a real GPU, which no emulated run can show.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/CublasLt.h"

#include <cublasLt.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <type_traits>

namespace lt = nnc::runtime::cublaslt;
using nnc::runtime::CublasLtAlgo;
using nnc::runtime::CublasLtHeuristicResult;

static_assert(lt::kR32F == CUDA_R_32F && lt::kR16F == CUDA_R_16F &&
                  lt::kR16BF == CUDA_R_16BF,
              "cudaDataType");
static_assert(lt::kCompute32F == CUBLAS_COMPUTE_32F, "cublasComputeType_t");
static_assert(lt::kOpN == CUBLAS_OP_N && lt::kOpT == CUBLAS_OP_T,
              "cublasOperation_t");
static_assert(lt::kDescTransA == CUBLASLT_MATMUL_DESC_TRANSA &&
                  lt::kDescTransB == CUBLASLT_MATMUL_DESC_TRANSB &&
                  lt::kDescEpilogue == CUBLASLT_MATMUL_DESC_EPILOGUE &&
                  lt::kDescBiasPointer == CUBLASLT_MATMUL_DESC_BIAS_POINTER,
              "cublasLtMatmulDescAttributes_t");
static_assert(lt::kEpilogueBias == CUBLASLT_EPILOGUE_BIAS &&
                  lt::kEpilogueReluBias == CUBLASLT_EPILOGUE_RELU_BIAS,
              "cublasLtEpilogue_t");
static_assert(lt::kLayoutBatchCount == CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT &&
                  lt::kLayoutStridedBatchOffset ==
                      CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
              "cublasLtMatrixLayoutAttribute_t");
static_assert(
    lt::kPrefMaxWorkspaceBytes == CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES &&
        lt::kPrefMinAlignmentA == CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES &&
        lt::kPrefMinAlignmentB == CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES &&
        lt::kPrefMinAlignmentC == CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES &&
        lt::kPrefMinAlignmentD == CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
    "cublasLtMatmulPreferenceAttributes_t");
static_assert(sizeof(CublasLtAlgo) == sizeof(cublasLtMatmulAlgo_t),
              "cublasLtMatmulAlgo_t");
static_assert(sizeof(CublasLtHeuristicResult) ==
                      sizeof(cublasLtMatmulHeuristicResult_t) &&
                  offsetof(CublasLtHeuristicResult, workspaceSize) ==
                      offsetof(cublasLtMatmulHeuristicResult_t,
                               workspaceSize) &&
                  offsetof(CublasLtHeuristicResult, state) ==
                      offsetof(cublasLtMatmulHeuristicResult_t, state),
              "cublasLtMatmulHeuristicResult_t");

// The attribute values' types: what the device passes by address.
static_assert(sizeof(int32_t) == sizeof(cublasOperation_t), "TRANSA/TRANSB");
static_assert(sizeof(uint32_t) == sizeof(cublasLtEpilogue_t), "EPILOGUE");

TEST(CublasLtHeaderTest, MatchesTheToolkit) {
  // The checks are the static_asserts above: this file compiles only when
  // they hold.
  SUCCEED();
}
