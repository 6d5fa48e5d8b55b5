// RUN: nnc-opt %s --split-input-file --canonicalize | FileCheck %s

// max_pool: 1x1 windows with unit strides and no pads fold to the input
// CHECK-LABEL: func @max_pool_identity
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x?x8xf32>)
// CHECK-NOT: nnc.max_pool
// CHECK: return %[[X]]
func.func @max_pool_identity(%x: tensor<?x3x?x8xf32>) -> tensor<?x3x?x8xf32> {
  %0 = nnc.max_pool %x kernel_shape = [1, 1] strides = [1, 1] pads = [0, 0, 0, 0] dilations = [2, 2] : tensor<?x3x?x8xf32>
  return %0 : tensor<?x3x?x8xf32>
}

// -----

// avg_pool: a 1-wide window over a 1-D signal folds to the input
// CHECK-LABEL: func @avg_pool_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x5xf16>)
// CHECK-NOT: nnc.avg_pool
// CHECK: return %[[X]]
func.func @avg_pool_identity(%x: tensor<2x3x5xf16>) -> tensor<2x3x5xf16> {
  %0 = nnc.avg_pool %x kernel_shape = [1] count_include_pad = true : tensor<2x3x5xf16>
  return %0 : tensor<2x3x5xf16>
}

// -----

// max_pool: a larger window, a stride or a pad does not fold
// CHECK-LABEL: func @max_pool_no_fold
// CHECK: nnc.max_pool %{{.*}} kernel_shape = [2, 1]
// CHECK: nnc.max_pool %{{.*}} kernel_shape = [1, 1] strides = [1, 2]
// CHECK: nnc.max_pool %{{.*}} kernel_shape = [1, 1] pads = [0, 1, 0, 0]
func.func @max_pool_no_fold(%x: tensor<1x3x8x8xf32>) -> (tensor<1x3x7x8xf32>, tensor<1x3x8x4xf32>, tensor<1x3x8x9xf32>) {
  %0 = nnc.max_pool %x kernel_shape = [2, 1] : tensor<1x3x8x8xf32>
  %1 = nnc.max_pool %x kernel_shape = [1, 1] strides = [1, 2] : tensor<1x3x8x8xf32>
  %2 = nnc.max_pool %x kernel_shape = [1, 1] pads = [0, 1, 0, 0] : tensor<1x3x8x8xf32>
  return %0, %1, %2 : tensor<1x3x7x8xf32>, tensor<1x3x8x4xf32>, tensor<1x3x8x9xf32>
}

// -----

// avg_pool: a pad with count_include_pad changes values and does not fold
// CHECK-LABEL: func @avg_pool_no_fold
// CHECK: nnc.avg_pool %{{.*}} kernel_shape = [1] pads = [1, 0] count_include_pad = true
func.func @avg_pool_no_fold(%x: tensor<2x3x5xf16>) -> tensor<2x3x6xf16> {
  %0 = nnc.avg_pool %x kernel_shape = [1] pads = [1, 0] count_include_pad = true : tensor<2x3x5xf16>
  return %0 : tensor<2x3x6xf16>
}

// -----

// global pools: spatial dims that are already 1 fold to the input
// CHECK-LABEL: func @global_pool_identity
// CHECK-SAME: (%[[X:.*]]: tensor<?x512x1x1xf32>)
// CHECK-NOT: nnc.global
// CHECK: return %[[X]], %[[X]]
func.func @global_pool_identity(%x: tensor<?x512x1x1xf32>) -> (tensor<?x512x1x1xf32>, tensor<?x512x1x1xf32>) {
  %0 = nnc.global_avg_pool %x : tensor<?x512x1x1xf32>
  %1 = nnc.global_max_pool %x : tensor<?x512x1x1xf32>
  return %0, %1 : tensor<?x512x1x1xf32>, tensor<?x512x1x1xf32>
}

// -----

// global pools: static or dynamic spatial dims other than 1 do not fold
// CHECK-LABEL: func @global_pool_no_fold
// CHECK: nnc.global_avg_pool %{{.*}} : tensor<1x8x?x1xf32>
// CHECK: nnc.global_max_pool %{{.*}} : tensor<1x8x2xf32>
func.func @global_pool_no_fold(%x: tensor<1x8x?x1xf32>, %y: tensor<1x8x2xf32>) -> (tensor<1x8x1x1xf32>, tensor<1x8x1xf32>) {
  %0 = nnc.global_avg_pool %x : tensor<1x8x?x1xf32>
  %1 = nnc.global_max_pool %y : tensor<1x8x2xf32>
  return %0, %1 : tensor<1x8x1x1xf32>, tensor<1x8x1xf32>
}

// -----

// matmul, gemm and conv have no folders; unused ones are removed as pure ops, used ones stay
// CHECK-LABEL: func @contractions_kept
// CHECK-NOT: nnc.gemm
// CHECK: nnc.matmul
// CHECK: nnc.conv
func.func @contractions_kept(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %x: tensor<1x2x5x5xf32>, %w: tensor<2x2x3x3xf32>) -> (tensor<2x4xf32>, tensor<1x2x3x3xf32>) {
  %0 = nnc.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf32>
  %1 = nnc.gemm %a, %b : tensor<2x3xf32>, tensor<3x4xf32>
  %2 = nnc.conv %x, %w : tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32>
  return %0, %2 : tensor<2x4xf32>, tensor<1x2x3x3xf32>
}
