// RUN: nnc-opt %s --split-input-file | FileCheck %s
// RUN: nnc-opt %s --split-input-file | nnc-opt --split-input-file | FileCheck %s
// RUN: nnc-opt %s --split-input-file --mlir-print-op-generic | nnc-opt --split-input-file | FileCheck %s

// reduce: a negative axis without keepdims removes the last dim
// CHECK-LABEL: func @reduce_sum_last
func.func @reduce_sum_last(%x: tensor<?x16x32xf32>) -> tensor<?x16xf32> {
  // CHECK: nnc.reduce sum %{{.*}} axes = [-1] keepdims = false : tensor<?x16x32xf32>
  %0 = nnc.reduce sum %x axes = [-1] keepdims = false : tensor<?x16x32xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// reduce: no axes reduce over everything; keepdims defaults to true
// CHECK-LABEL: func @reduce_max_all
func.func @reduce_max_all(%x: tensor<?x16x32xf16>) -> tensor<1x1x1xf16> {
  // CHECK: nnc.reduce max %{{.*}} : tensor<?x16x32xf16>
  %0 = nnc.reduce max %x : tensor<?x16x32xf16>
  return %0 : tensor<1x1x1xf16>
}

// -----

// reduce: all axes without keepdims give a scalar
// CHECK-LABEL: func @reduce_min_scalar
func.func @reduce_min_scalar(%x: tensor<4x?xi32>) -> tensor<i32> {
  // CHECK: nnc.reduce min %{{.*}} keepdims = false : tensor<4x?xi32>
  %0 = nnc.reduce min %x keepdims = false : tensor<4x?xi32>
  return %0 : tensor<i32>
}

// -----

// reduce: explicit defaults are elided when printed; unsorted axes keep the other dims in order
// CHECK-LABEL: func @reduce_prod_defaults
func.func @reduce_prod_defaults(%x: tensor<2x3x4x5xi64>) -> tensor<1x3x1x5xi64> {
  // CHECK: nnc.reduce prod %{{.*}} axes = [2, 0] : tensor<2x3x4x5xi64>
  %0 = nnc.reduce prod %x axes = [2, 0] keepdims = true noop_with_empty_axes = false : tensor<2x3x4x5xi64>
  return %0 : tensor<1x3x1x5xi64>
}

// -----

// reduce: noop_with_empty_axes makes empty axes the identity
// CHECK-LABEL: func @reduce_mean_noop
func.func @reduce_mean_noop(%x: tensor<?x8xbf16>) -> tensor<?x8xbf16> {
  // CHECK: nnc.reduce mean %{{.*}} noop_with_empty_axes = true : tensor<?x8xbf16>
  %0 = nnc.reduce mean %x noop_with_empty_axes = true : tensor<?x8xbf16>
  return %0 : tensor<?x8xbf16>
}

// -----

// reduce: mean is allowed on integers (ONNX ReduceMean accepts int32/int64)
// CHECK-LABEL: func @reduce_mean_int
func.func @reduce_mean_int(%x: tensor<3x?xi64>) -> tensor<3x1xi64> {
  // CHECK: nnc.reduce mean %{{.*}} axes = [1] : tensor<3x?xi64>
  %0 = nnc.reduce mean %x axes = [1] : tensor<3x?xi64>
  return %0 : tensor<3x1xi64>
}

// -----

// reduce: every remaining kind, with float-only kinds on floats
// CHECK-LABEL: func @reduce_kinds
func.func @reduce_kinds(%x: tensor<2x?xf64>, %i: tensor<2x3xi8>) -> (tensor<2x1xf64>, tensor<?xf64>, tensor<2x1xf64>, tensor<2xf64>, tensor<1x3xi8>, tensor<2x1xi8>) {
  // CHECK: nnc.reduce l2 %{{.*}} axes = [1] : tensor<2x?xf64>
  // CHECK: nnc.reduce log_sum %{{.*}} axes = [0] keepdims = false : tensor<2x?xf64>
  // CHECK: nnc.reduce log_sum_exp %{{.*}} axes = [-1] : tensor<2x?xf64>
  // CHECK: nnc.reduce sum_square %{{.*}} axes = [1] keepdims = false : tensor<2x?xf64>
  // CHECK: nnc.reduce l1 %{{.*}} axes = [0] : tensor<2x3xi8>
  // CHECK: nnc.reduce sum_square %{{.*}} axes = [1] : tensor<2x3xi8>
  %0 = nnc.reduce l2 %x axes = [1] : tensor<2x?xf64>
  %1 = nnc.reduce log_sum %x axes = [0] keepdims = false : tensor<2x?xf64>
  %2 = nnc.reduce log_sum_exp %x axes = [-1] : tensor<2x?xf64>
  %3 = nnc.reduce sum_square %x axes = [1] keepdims = false : tensor<2x?xf64>
  %4 = nnc.reduce l1 %i axes = [0] : tensor<2x3xi8>
  %5 = nnc.reduce sum_square %i axes = [1] : tensor<2x3xi8>
  return %0, %1, %2, %3, %4, %5 : tensor<2x1xf64>, tensor<?xf64>, tensor<2x1xf64>, tensor<2xf64>, tensor<1x3xi8>, tensor<2x1xi8>
}

// -----

// reduce: a rank-0 input reduces to itself
// CHECK-LABEL: func @reduce_scalar
func.func @reduce_scalar(%x: tensor<f32>) -> tensor<f32> {
  // CHECK: nnc.reduce sum %{{.*}} : tensor<f32>
  %0 = nnc.reduce sum %x : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// arg_reduce: argmax over the last axis without keepdims; result is i64
// CHECK-LABEL: func @argmax_last
func.func @argmax_last(%x: tensor<?x10xf32>) -> tensor<?xi64> {
  // CHECK: nnc.arg_reduce argmax %{{.*}} axis = -1 keepdims = false : tensor<?x10xf32>
  %0 = nnc.arg_reduce argmax %x axis = -1 keepdims = false : tensor<?x10xf32>
  return %0 : tensor<?xi64>
}

// -----

// arg_reduce: argmin with default axis 0 and keepdims, selecting the last index
// CHECK-LABEL: func @argmin_defaults
func.func @argmin_defaults(%x: tensor<4x?x3xi32>) -> tensor<1x?x3xi64> {
  // CHECK: nnc.arg_reduce argmin %{{.*}} select_last_index = true : tensor<4x?x3xi32>
  %0 = nnc.arg_reduce argmin %x axis = 0 keepdims = true select_last_index = true : tensor<4x?x3xi32>
  return %0 : tensor<1x?x3xi64>
}

// -----

// arg_reduce: 1-D input without keepdims gives a scalar index
// CHECK-LABEL: func @argmax_vector
func.func @argmax_vector(%x: tensor<7xbf16>) -> tensor<i64> {
  // CHECK: nnc.arg_reduce argmax %{{.*}} keepdims = false : tensor<7xbf16>
  %0 = nnc.arg_reduce argmax %x keepdims = false : tensor<7xbf16>
  return %0 : tensor<i64>
}

// -----

// cumsum: exclusive running sum over a dynamic axis of integers
// CHECK-LABEL: func @cumsum_exclusive
func.func @cumsum_exclusive(%x: tensor<4x?xi64>) -> tensor<4x?xi64> {
  // CHECK: nnc.cumsum %{{.*}} axis = 1 exclusive = true : tensor<4x?xi64>
  %0 = nnc.cumsum %x axis = 1 exclusive = true : tensor<4x?xi64>
  return %0 : tensor<4x?xi64>
}

// -----

// cumsum: reverse with a negative axis; defaults are elided
// CHECK-LABEL: func @cumsum_reverse
func.func @cumsum_reverse(%x: tensor<?x3xf16>, %y: tensor<5xf32>) -> (tensor<?x3xf16>, tensor<5xf32>) {
  // CHECK: nnc.cumsum %{{.*}} axis = -2 reverse = true : tensor<?x3xf16>
  // CHECK: nnc.cumsum %{{.*}} axis = 0 : tensor<5xf32>
  %0 = nnc.cumsum %x axis = -2 exclusive = false reverse = true : tensor<?x3xf16>
  %1 = nnc.cumsum %y axis = 0 : tensor<5xf32>
  return %0, %1 : tensor<?x3xf16>, tensor<5xf32>
}
