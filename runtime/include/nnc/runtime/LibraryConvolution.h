//===- LibraryConvolution.h - convolutions handed to oneDNN -----*- C++ -*-===//
//
// The contract between the CPU backend and libnnc_dnnl.so, the runtime's
// oneDNN glue (convolutions, and bf16 and f32 GEMMs: nnc_dnnl_sbgemm and
// nnc_dnnl_sgemm below):
// generated code calls
//
//   nnc_dnnl_convolution(const int64_t *descriptor, void *a, void *b,
//                        void *c, void *out)
//
// with a constant descriptor it embeds (the layout below) and the buffers
// of one convolution, all dense and row-major (NCHW, or NHWC where the
// descriptor says channels-last; weights OIHW), each of
// the element type its slot names (f32, or bf16/f16 where oneDNN has
// kernels for them on this CPU: sums accumulate in f32, results are rounded
// once):
//
//   forward           out[N, M, O...] = conv(a = src[N, C, D...],
//                                            b = weights[M, C/G, K...])
//                                       + c = bias[M] (null: none)
//   backward_data     out[N, C, D...] = the input gradient of that
//                                       convolution for a = dst-gradient
//                                       [N, M, O...] and b = weights, plus
//                                       c = bias[C] (null: none); this is
//                                       nnc.conv_transpose
//   backward_weights  out[M, C/G, K...] = the weight gradient for a = src
//                                       and b = dst-gradient
//
// The glue creates each distinct primitive once (oneDNN chooses its memory
// layouts; the glue reorders to and from the plain ones) and keeps it for
// the life of the process; weights the descriptor says are constant it
// reorders once and keeps until nnc_dnnl_forget_constants. No MLIR here: the runtime and the compiler both
// include it.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_LIBRARYCONVOLUTION_H
#define NNC_RUNTIME_LIBRARYCONVOLUTION_H

#include <cstddef>
#include <cstdint>

namespace nnc::runtime::libconv {

/// Descriptor format version (slot kVersion). Format 1 (every operand f32)
/// ends before the element-type slots, format 2 before the activation
/// layout, format 3 before the algorithm, format 4 before the constant
/// weights flag; the glue still reads them all.
constexpr int64_t kFormat = 5;
/// At most this many spatial dimensions; unused slots hold 0 (sizes) or 1.
constexpr int kMaxSpatial = 3;

enum class Direction : int64_t {
  Forward = 0,
  BackwardData = 1,
  BackwardWeights = 2,
};

/// Slots of the descriptor, an int64_t array of kLength entries. Sizes are
/// the convolution's (src is its input, dst its output, whatever the
/// direction computes); dilations count like ONNX's (1: dense).
enum Slot : int {
  kVersion = 0,
  kDirection = 1,
  kSpatial = 2, ///< 1 to kMaxSpatial
  kGroups = 3,
  kHasBias = 4,
  kBatch = 5,
  kInChannels = 6,  ///< C
  kOutChannels = 7, ///< M
  kSrcSizes = 8,
  kDstSizes = kSrcSizes + kMaxSpatial,
  kKernelSizes = kDstSizes + kMaxSpatial,
  kStrides = kKernelSizes + kMaxSpatial,
  kDilations = kStrides + kMaxSpatial,
  kPadsBegin = kDilations + kMaxSpatial,
  kPadsEnd = kPadsBegin + kMaxSpatial,
  /// Format 1's length.
  kLengthFormat1 = kPadsEnd + kMaxSpatial,
  /// Element types (ElementType) of the convolution's operands by role.
  kSrcType = kLengthFormat1,
  kWeightsType,
  kDstType,
  kBiasType, ///< f32 when there is no bias
  /// Format 2's length.
  kLengthFormat2,
  /// The layout (ActivationLayout) of the image operands, src and dst, in
  /// the buffers passed; the weights are always [M, C/G, K...].
  kActivationLayout = kLengthFormat2,
  /// Format 3's length.
  kLengthFormat3,
  /// The algorithm (Algorithm) oneDNN computes the convolution with.
  kAlgorithm = kLengthFormat3,
  /// Format 4's length.
  kLengthFormat4,
  /// 1: a forward convolution whose weights are an executable's constants,
  /// which the buffer `b` holds for as long as the program that passes it
  /// lives: the glue reorders them into oneDNN's layout on the first call
  /// and keeps that copy for the later ones (keyed by the buffer's address)
  /// until nnc_dnnl_forget_constants drops it. 0: reordered on every call.
  kConstantWeights = kLengthFormat4,
  kLength,
};

/// Layouts of the image operands in the buffers nnc passes.
enum class ActivationLayout : int64_t {
  /// [N, C, D...], dense row-major: what formats 1 and 2 mean.
  ChannelsFirst = 0,
  /// [N, D..., C], dense row-major (NHWC, NDHWC, NWC); forward only.
  ChannelsLast = 1,
};

/// Algorithms of the algorithm slot.
enum class Algorithm : int64_t {
  /// Direct convolution: what formats 1 to 3 mean.
  Direct = 0,
  /// Winograd's minimal filtering (oneDNN's F(4x4, 3x3) kernels): about
  /// half the multiplications of a 3x3 stride-1 convolution, for f32 on
  /// CPUs where oneDNN has the kernel (AVX-512); results differ from the
  /// direct ones by rounding. Every direction; the forward one transforms
  /// its weights on every call (they may change between calls), or once
  /// when they are constant (kConstantWeights).
  Winograd = 1,
};

/// Element types of the descriptor's type slots.
enum class ElementType : int64_t {
  F32 = 0,
  BF16 = 1,
  F16 = 2,
};

/// The functions libnnc_dnnl.so exports (C linkage).
extern "C" {
/// Runs one convolution. A primitive oneDNN cannot build or run is a fatal
/// error (the compiler checks every descriptor with
/// nnc_dnnl_convolution_check before it emits a call).
using ConvolutionFn = void (*)(const int64_t *descriptor, void *a, void *b,
                               void *c, void *out);
/// 0 when oneDNN can run `descriptor`; else non-zero with the reason in
/// `error` (NUL-terminated, at most `size` bytes).
using ConvolutionCheckFn = int (*)(const int64_t *descriptor, char *error,
                                   size_t size);
/// "oneDNN 2.6.3 (cpu runtime: OpenMP, ISA: ...)": for caches and reports.
using VersionFn = const char *(*)();
/// 1 when oneDNN's kernel for the forward convolution `descriptor` (its
/// layout slot ignored) keeps both images channels-last, so that buffers in
/// that layout reach it without reorders; 0 otherwise, and for any other
/// direction or a descriptor it cannot run.
using PrefersChannelsLastFn = int (*)(const int64_t *descriptor);
/// Drops the copies kept of constant weights (kConstantWeights) whose
/// buffers start in [begin, begin + size): a program calls it before the
/// memory of its weights goes (another executable's may come at the same
/// address). Safe while other threads run convolutions.
using ForgetConstantsFn = void (*)(const void *begin, size_t size);

/// bf16 GEMMs with f32 accumulation, CBLAS's sgemm with bf16 A and B:
///
///   nnc_dnnl_sbgemm(order, transA, transB, M, N, K, alpha, A, lda, B, ldb,
///                   beta, C, ldc)
///
/// C (f32) = alpha * op(A) * op(B) + beta * C, the enumerators CBLAS's
/// (CblasRowMajor = 101, CblasColMajor = 102, CblasNoTrans = 111,
/// CblasTrans = 112), A and B uint16_t bf16 bits: OpenBLAS's cblas_sbgemm,
/// which Debian's build lacks, run by oneDNN's matmul primitive.
using SbgemmFn = void (*)(int32_t order, int32_t transA, int32_t transB,
                          int32_t m, int32_t n, int32_t k, float alpha,
                          const void *a, int32_t lda, const void *b,
                          int32_t ldb, float beta, float *c, int32_t ldc);
/// 0 when oneDNN has bf16 GEMM kernels (not its reference loops) on this
/// CPU, with their implementation's name in `error` ("brg:avx512_core");
/// else non-zero with the reason in `error`.
using SbgemmCheckFn = int (*)(char *error, size_t size);
/// f32 GEMMs by oneDNN's matmul primitive, cblas_sgemm's arguments:
///
///   nnc_dnnl_sgemm(order, transA, transB, M, N, K, alpha, A, lda, B, ldb,
///                  beta, C, ldc)
///
/// with its check, nnc_dnnl_sgemm_check (an SbgemmCheckFn).
using SgemmFn = void (*)(int32_t order, int32_t transA, int32_t transB,
                         int32_t m, int32_t n, int32_t k, float alpha,
                         const float *a, int32_t lda, const float *b,
                         int32_t ldb, float beta, float *c, int32_t ldc);
}

inline constexpr const char *kConvolutionSymbol = "nnc_dnnl_convolution";
inline constexpr const char *kCheckSymbol = "nnc_dnnl_convolution_check";
inline constexpr const char *kVersionSymbol = "nnc_dnnl_version";
inline constexpr const char *kPrefersChannelsLastSymbol =
    "nnc_dnnl_convolution_prefers_channels_last";
inline constexpr const char *kSbgemmSymbol = "nnc_dnnl_sbgemm";
inline constexpr const char *kSbgemmCheckSymbol = "nnc_dnnl_sbgemm_check";
inline constexpr const char *kSgemmSymbol = "nnc_dnnl_sgemm";
inline constexpr const char *kSgemmCheckSymbol = "nnc_dnnl_sgemm_check";
inline constexpr const char *kForgetConstantsSymbol =
    "nnc_dnnl_forget_constants";

} // namespace nnc::runtime::libconv

#endif // NNC_RUNTIME_LIBRARYCONVOLUTION_H
