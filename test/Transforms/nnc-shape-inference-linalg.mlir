// RUN: nnc-opt %s --split-input-file --nnc-shape-inference="input-shapes=0:8x3x32x32" --verify-diagnostics | FileCheck %s

// conv, max_pool, global_avg_pool, reduce and gemm: a static input shape
// refines every dynamic dim of a small CNN classifier
// CHECK-LABEL: func @cnn
// CHECK-SAME: (%{{.*}}: tensor<8x3x32x32xf32>, %{{.*}}: tensor<16x3x3x3xf32>, %{{.*}}: tensor<16xf32>, %{{.*}}: tensor<16x10xf32>) -> (tensor<8x10xf32>, tensor<8xi64>, tensor<8x16x16x16xf32>)
// CHECK: nnc.conv %{{.*}}, %{{.*}}, %{{.*}} pads = [1, 1, 1, 1] : tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>
// CHECK: nnc.max_pool %{{.*}} kernel_shape = [2, 2] strides = [2, 2] : tensor<8x16x32x32xf32>
// CHECK: nnc.global_avg_pool %{{.*}} : tensor<8x16x16x16xf32>
// CHECK: nnc.reduce mean %{{.*}} axes = [2, 3] keepdims = false : tensor<8x16x1x1xf32>
// CHECK: nnc.gemm %{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x10xf32>
// CHECK: nnc.arg_reduce argmax %{{.*}} axis = 1 keepdims = false : tensor<8x10xf32>
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x10xf32>, tensor<8xi64>, tensor<8x16x16x16xf32>
func.func @cnn(%x: tensor<?x3x?x?xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>, %fc: tensor<16x10xf32>) -> (tensor<?x10xf32>, tensor<?xi64>, tensor<?x16x?x?xf32>) {
  %0 = nnc.conv %x, %w, %b pads = [1, 1, 1, 1] : tensor<?x3x?x?xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>
  %1 = nnc.max_pool %0 kernel_shape = [2, 2] strides = [2, 2] : tensor<?x16x?x?xf32>
  %2 = nnc.global_avg_pool %1 : tensor<?x16x?x?xf32>
  %3 = nnc.reduce mean %2 axes = [2, 3] keepdims = false : tensor<?x16x1x1xf32>
  %4 = nnc.gemm %3, %fc : tensor<?x16xf32>, tensor<16x10xf32>
  %5 = nnc.arg_reduce argmax %4 axis = 1 keepdims = false : tensor<?x10xf32>
  return %4, %5, %1 : tensor<?x10xf32>, tensor<?xi64>, tensor<?x16x?x?xf32>
}

// -----

// conv_transpose and a batched matmul: dims refined from the input
// CHECK-LABEL: func @decoder
// CHECK: nnc.conv_transpose %{{.*}}, %{{.*}} strides = [2, 2] : tensor<8x3x32x32xf32>, tensor<3x4x2x2xf32>
// CHECK: nnc.matmul %{{.*}}, %{{.*}} : tensor<8x4x64x64xf32>, tensor<64x5xf32>
// CHECK: nnc.cumsum %{{.*}} axis = 2 : tensor<8x4x64x5xf32>
// CHECK: return %{{.*}} : tensor<8x4x64x5xf32>
func.func @decoder(%x: tensor<?x3x?x?xf32>, %w: tensor<3x4x2x2xf32>, %m: tensor<64x5xf32>) -> tensor<?x4x?x5xf32> {
  %0 = nnc.conv_transpose %x, %w strides = [2, 2] : tensor<?x3x?x?xf32>, tensor<3x4x2x2xf32>
  %1 = nnc.matmul %0, %m : tensor<?x4x?x?xf32>, tensor<64x5xf32>
  %2 = nnc.cumsum %1 axis = 2 : tensor<?x4x?x5xf32>
  return %2 : tensor<?x4x?x5xf32>
}

// -----

// conv: refined input channels that contradict the weight are an error
func.func @conv_channels_contradict(%x: tensor<?x?x?x?xf32>, %w: tensor<16x4x3x3xf32>) -> tensor<?x16x?x?xf32> {
  // expected-error @+1 {{weight has 4 input channels per group but the input has 3 channels in 1 groups}}
  %0 = nnc.conv %x, %w : tensor<?x?x?x?xf32>, tensor<16x4x3x3xf32>
  return %0 : tensor<?x16x?x?xf32>
}

// -----

// matmul: a refined K that contradicts the rhs is an error
func.func @matmul_k_contradicts(%x: tensor<?x?x?x?xf32>, %m: tensor<16x5xf32>) -> tensor<?x?x?x5xf32> {
  // expected-error @+1 {{contracted dimensions differ: lhs 8x3x32x32 has K = 32 but rhs 16x5 has K = 16}}
  %0 = nnc.matmul %x, %m : tensor<?x?x?x?xf32>, tensor<16x5xf32>
  return %0 : tensor<?x?x?x5xf32>
}

// -----

// max_pool: a refined spatial dim too small for the window is an error
func.func @max_pool_window_contradicts(%x: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  // expected-error @+1 {{output spatial dimension 1 is empty: padded input size 32 is smaller than the dilated kernel size 33}}
  %0 = nnc.max_pool %x kernel_shape = [1, 33] : tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}
