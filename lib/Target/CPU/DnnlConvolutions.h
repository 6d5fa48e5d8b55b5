//===- DnnlConvolutions.h - convolutions that oneDNN runs -------*- C++ -*-===//
//
// The CPU target's side of the oneDNN glue (runtime/include/nnc/runtime/
// LibraryConvolution.h): a convolution's descriptor, whether oneDNN can
// run it here, and what the glue is, for cache keys.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LIB_TARGET_CPU_DNNLCONVOLUTIONS_H
#define NNC_LIB_TARGET_CPU_DNNLCONVOLUTIONS_H

#include "nnc/Target/Target.h"
#include "nnc/runtime/LibraryConvolution.h"

#include <array>
#include <string>

namespace mlir {
class Operation;
} // namespace mlir

namespace nnc {
struct LibraryConvolution;
class LibraryConvOp;
} // namespace nnc

namespace nnc::cpu {

/// The glue's descriptor of `conv`.
std::array<int64_t, runtime::libconv::kLength>
dnnlDescriptor(const LibraryConvolution &conv);

/// Whether oneDNN builds a primitive for `conv` on this machine (the glue
/// keeps it for the first run); the reason in `why` when not, the glue's
/// absence included.
bool dnnlCanRun(const LibraryConvolution &conv, std::string &why);

/// The convolution a library_conv (on tensors or buffers) runs.
LibraryConvolution describeLibraryConv(LibraryConvOp op);

/// Whether oneDNN's kernel for the forward convolution `conv` keeps its
/// images channels-last (the glue's answer; false without the glue or for
/// another direction).
bool dnnlPrefersChannelsLast(const LibraryConvolution &conv);

/// Whether `op` is a convolution (or one of its gradients) that oneDNN runs
/// here: the cost model gives it the library.
bool dnnlTakes(mlir::Operation *op);

/// Whether oneDNN runs `op` with its Winograd kernels here (2-D 3x3, strides
/// and dilations 1, one group, f32, and a CPU it has them for: AVX-512).
bool dnnlTakesWinograd(mlir::Operation *op);

/// Output positions (batch times output pixels) per call from which the
/// cost model picks Winograd's algorithm where oneDNN has it: on the
/// AVX-512 machine measured (docs/CPUBackend.md) it was 1.6-2.6x faster
/// than the direct kernel for ResNet-18's 3x3 convolutions from 392
/// positions on (batch 8 at 7x7, batch 1 at 28x28), slower at 196 and 49
/// (batch 1 at 14x14 and 7x7), where transforming the weights on every call
/// outweighs the saving.
constexpr int64_t kWinogradPositions = 392;

/// Channels (of the convolution's input and of its output, the fewer) from
/// which the cost model picks Winograd's algorithm: with few channels the
/// transforms of the images outweigh the smaller product. Measured on the
/// same machine, batch 32 at 32x32, 32 output channels (`nnc-run
/// --autotune=on`, the database's medians, 2026-12-07): Winograd against
/// direct 2.35 vs 1.32 ms with 4 input channels, 1.66 vs 1.11 with 8, 1.69
/// vs 1.97 with 16, 0.81 vs 1.50 with 32 (to 64 at 16x16); cnn_small's first
/// convolution (3 channels) 2.13 vs 0.63 ms, its weight gradient 0.87 vs
/// 0.34.
constexpr int64_t kWinogradChannels = 16;

/// Whether the cost model picks Winograd's algorithm for `op`: oneDNN has
/// it here, the call has at least kWinogradPositions output positions and
/// kWinogradChannels channels in and out.
bool winogradPays(mlir::Operation *op);

/// The kernels the CPU offers for a convolution or its gradients (none for
/// other ops): oneDNN where it takes the op (the default then, with
/// Winograd's algorithm where winogradPays), its Winograd kernels where it
/// has them, per-image and whole-batch im2col + GEMM, and loops.
KernelCandidates convolutionCandidates(mlir::Operation *op,
                                       bool libraryConvolutions);

/// Whether the oneDNN glue runs bf16 GEMMs on this CPU's bf16 instructions
/// (nnc_dnnl_sbgemm); in `text` oneDNN's implementation when it does, the
/// reason when not.
bool dnnlRunsBF16Gemms(std::string *text = nullptr);
/// Whether the glue runs f32 GEMMs (nnc_dnnl_sgemm) on oneDNN kernels that
/// are not its reference loops; `text` as above.
bool dnnlRunsF32Gemms(std::string *text = nullptr);
/// oneDNN's implementation of f32 GEMMs ("brg:avx512_core"), empty where the
/// glue has none.
std::string dnnlF32GemmKernel();
/// The library f32 GEMMs call by default (--nnc-gemm-to-blas f32-library):
/// oneDNN where its matmul runs its brgemm kernels ("brg:"), which beat
/// OpenBLAS 0.3.21 on the AVX-512 machines measured (docs/CPUBackend.md),
/// else OpenBLAS.
std::string defaultF32GemmLibrary();
/// The kernel choices of an nnc.matmul or nnc.gemm (its library, or
/// loops) that the autotuner measures; none for other ops.
KernelCandidates matrixProductCandidates(mlir::Operation *op);

/// "oneDNN 2.6.3 (..., isa avx2)", or "no oneDNN" without the glue.
std::string dnnlDescription();

} // namespace nnc::cpu

#endif // NNC_LIB_TARGET_CPU_DNNLCONVOLUTIONS_H
