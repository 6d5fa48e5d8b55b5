// RUN: nnc-opt %s --nnc-library-conv-to-dnnl --verify-diagnostics

// A convolution that asks for Winograd's algorithm where oneDNN has no such
// kernel (none without AVX-512; with it, none for pads of 2) is an error
// naming why, not a call that would fail.
func.func @winograd(%x: memref<2x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %y: memref<2x4x10x10xf32>) {
  // expected-error @+1 {{cannot run in oneDNN: oneDNN has no Winograd kernel for this convolution on this CPU}}
  nnc.library_conv "forward" ins(%x, %w : memref<2x3x8x8xf32>, memref<4x3x3x3xf32>) outs(%y : memref<2x4x10x10xf32>) strides = [1, 1] dilations = [1, 1] pads = [2, 2, 2, 2] groups = 1 winograd
  return
}
