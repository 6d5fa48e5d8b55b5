// RUN: nnc-opt %s --split-input-file --nnc-convert-to-linalg="per-image-convolutions=0" | FileCheck %s

// The kernel choice nnc.impl forces a lowering whatever the conversion's own
// rules would pick (here: no per-image convolutions, and sizes below the
// GEMM threshold).

// CHECK-LABEL: func.func @library
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x16x6x6xf32>
// CHECK: nnc.library_conv "forward" ins(%arg0, %arg1, %arg2 : tensor<2x8x6x6xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) outs(%[[E]] : tensor<2x16x6x6xf32>) strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 -> tensor<2x16x6x6xf32>
func.func @library(%x: tensor<2x8x6x6xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16xf32>) -> tensor<2x16x6x6xf32> {
  %0 = nnc.conv %x, %w, %b pads = [1, 1, 1, 1] {nnc.impl = "library"} : tensor<2x8x6x6xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>
  return %0 : tensor<2x16x6x6xf32>
}

// -----

// Winograd's algorithm, in every direction: the library op carries it.
// CHECK-LABEL: func.func @library_winograd
// CHECK: nnc.library_conv "forward" ins(%arg0, %arg1 : tensor<2x8x6x6xf32>, tensor<16x8x3x3xf32>) outs(%{{.*}} : tensor<2x16x6x6xf32>) strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 winograd -> tensor<2x16x6x6xf32>
// CHECK: nnc.library_conv "backward_data" {{.*}} groups = 1 winograd -> tensor<2x8x6x6xf32>
// CHECK: nnc.library_conv "backward_weights" {{.*}} groups = 1 winograd -> tensor<16x8x3x3xf32>
func.func @library_winograd(%x: tensor<2x8x6x6xf32>, %w: tensor<16x8x3x3xf32>) -> (tensor<2x16x6x6xf32>, tensor<2x8x6x6xf32>, tensor<16x8x3x3xf32>) {
  %0 = nnc.conv %x, %w pads = [1, 1, 1, 1] {nnc.impl = "library_winograd"} : tensor<2x8x6x6xf32>, tensor<16x8x3x3xf32>
  %1 = nnc.conv_transpose %0, %w pads = [1, 1, 1, 1] {nnc.impl = "library_winograd"} : tensor<2x16x6x6xf32>, tensor<16x8x3x3xf32>
  %2 = nnc.conv_weight_grad %x, %0 kernel_shape = [3, 3] pads = [1, 1, 1, 1] {nnc.impl = "library_winograd"} : tensor<2x8x6x6xf32>, tensor<2x16x6x6xf32>
  return %0, %1, %2 : tensor<2x16x6x6xf32>, tensor<2x8x6x6xf32>, tensor<16x8x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @per_image
// CHECK: scf.for
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x72xf32>, tensor<72x36xf32>)
func.func @per_image(%x: tensor<2x8x6x6xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<2x16x6x6xf32> {
  %0 = nnc.conv %x, %w pads = [1, 1, 1, 1] {nnc.impl = "per_image"} : tensor<2x8x6x6xf32>, tensor<16x8x3x3xf32>
  return %0 : tensor<2x16x6x6xf32>
}

// -----

// A GEMM over the whole batch's windows, although it is below the size
// that would pick it.
// CHECK-LABEL: func.func @gemm
// CHECK-NOT: scf.for
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x8xf32>, tensor<8x9xf32>)
func.func @gemm(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x2x2xf32>) -> tensor<1x2x3x3xf32> {
  %0 = nnc.conv %x, %w {nnc.impl = "gemm"} : tensor<1x2x4x4xf32>, tensor<2x2x2x2xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// One generic, although the size would pick a GEMM.
// CHECK-LABEL: func.func @loops
// CHECK-NOT: linalg.matmul
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-NOT: linalg.matmul
func.func @loops(%x: tensor<2x64x8x8xf32>, %w: tensor<16x64x3x3xf32>) -> tensor<2x16x8x8xf32> {
  %0 = nnc.conv %x, %w pads = [1, 1, 1, 1] {nnc.impl = "loops"} : tensor<2x64x8x8xf32>, tensor<16x64x3x3xf32>
  return %0 : tensor<2x16x8x8xf32>
}

// -----

// A transposed convolution is the input gradient of the convolution from
// its result to its input (backward data); an output padding below the
// stride comes off the end pads (here 0 - 1: the end pad becomes 0).
// CHECK-LABEL: func.func @transpose_library
// CHECK: nnc.library_conv "backward_data" ins(%arg0, %arg1, %arg2 : tensor<1x4x3x3xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<1x3x7x7xf32>) strides = [2, 2] dilations = [1, 1] pads = [1, 1, 0, 0] groups = 1 -> tensor<1x3x7x7xf32>
func.func @transpose_library(%x: tensor<1x4x3x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x3x7x7xf32> {
  %0 = nnc.conv_transpose %x, %w, %b strides = [2, 2] pads = [1, 1, 0, 0] output_padding = [1, 1] {nnc.impl = "library"} : tensor<1x4x3x3xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>
  return %0 : tensor<1x3x7x7xf32>
}

// -----

// CHECK-LABEL: func.func @weight_grad_library
// CHECK: nnc.library_conv "backward_weights" ins(%arg0, %arg1 : tensor<2x6x8x8xf32>, tensor<2x6x4x4xf32>) outs(%{{.*}} : tensor<6x1x3x3xf32>) strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 6 -> tensor<6x1x3x3xf32>
func.func @weight_grad_library(%x: tensor<2x6x8x8xf32>, %g: tensor<2x6x4x4xf32>) -> tensor<6x1x3x3xf32> {
  %0 = nnc.conv_weight_grad %x, %g kernel_shape = [3, 3] strides = [2, 2] pads = [1, 1, 1, 1] groups = 6 {nnc.impl = "library"} : tensor<2x6x8x8xf32>, tensor<2x6x4x4xf32>
  return %0 : tensor<6x1x3x3xf32>
}
