// RUN: nnc-opt %s --split-input-file --nnc-lower-to-llvm=library-convolutions=0 | FileCheck %s

// The im2col matmuls of a convolution survive the CPU pipeline (elementwise
// fusion and its reshape propagation included) and become BLAS calls.

// One image, groups 1: one cblas_sgemm.
// CHECK-LABEL: llvm.func @conv_one_image
// CHECK: llvm.call @{{cblas_sgemm|nnc_dnnl_sgemm}}
func.func @conv_one_image(%x: tensor<1x16x16x16xf32>, %w: tensor<32x16x3x3xf32>, %b: tensor<32xf32>) -> tensor<1x32x8x8xf32> {
  %0 = nnc.conv %x, %w, %b strides = [2, 2] pads = [1, 1, 1, 1] : tensor<1x16x16x16xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>
  %1 = nnc.relu %0 : tensor<1x32x8x8xf32>
  return %1 : tensor<1x32x8x8xf32>
}

// -----

// A batch in f64: one cblas_dgemm over all images.
// CHECK-LABEL: llvm.func @conv_batch
// CHECK: llvm.call @cblas_dgemm
func.func @conv_batch(%x: tensor<4x8x10x10xf64>, %w: tensor<16x8x3x3xf64>, %b: tensor<16xf64>) -> tensor<4x16x8x8xf64> {
  %0 = nnc.conv %x, %w, %b : tensor<4x8x10x10xf64>, tensor<16x8x3x3xf64>, tensor<16xf64>
  %1 = nnc.relu %0 : tensor<4x16x8x8xf64>
  return %1 : tensor<4x16x8x8xf64>
}

// -----

// Groups: one cblas_sgemm per group in a loop.
// CHECK-LABEL: llvm.func @conv_grouped
// CHECK: llvm.call @{{cblas_sgemm|nnc_dnnl_sgemm}}
func.func @conv_grouped(%x: tensor<1x64x18x18xf32>, %w: tensor<16x16x3x3xf32>) -> tensor<1x16x14x14xf32> {
  %0 = nnc.conv %x, %w dilations = [2, 2] groups = 4 : tensor<1x64x18x18xf32>, tensor<16x16x3x3xf32>
  return %0 : tensor<1x16x14x14xf32>
}
