// REQUIRES: dnnl-winograd
// RUN: nnc-opt %s --nnc-library-conv-to-dnnl | FileCheck %s

// Winograd's algorithm, where oneDNN has its kernels (AVX-512): the
// descriptor's last slot, the algorithm, is 1.
// CHECK: memref.global "private" constant @__nnc_dnnl_conv : memref<36xi64> = dense<[5, 0, 2, 1, 0, 2, 3, 4, 8, 8, 0, 8, 8, 0, 3, 3, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0]>
// CHECK-LABEL: func.func @winograd
// CHECK: call @nnc_dnnl_convolution
func.func @winograd(%x: memref<2x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %y: memref<2x4x8x8xf32>) {
  nnc.library_conv "forward" ins(%x, %w : memref<2x3x8x8xf32>, memref<4x3x3x3xf32>) outs(%y : memref<2x4x8x8xf32>) strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 winograd
  return
}
