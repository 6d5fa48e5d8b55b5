// RUN: nnc-opt %s --split-input-file --canonicalize | FileCheck %s

// reduce: empty axes with noop_with_empty_axes fold to the input
// CHECK-LABEL: func @reduce_noop
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
// CHECK-NOT: nnc.reduce
// CHECK: return %[[X]]
func.func @reduce_noop(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = nnc.reduce log_sum_exp %x noop_with_empty_axes = true : tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// reduce: summing over unit dims with keepdims folds to the input
// CHECK-LABEL: func @reduce_sum_unit
// CHECK-SAME: (%[[X:.*]]: tensor<4x1x?x1xf32>)
// CHECK-NOT: nnc.reduce
// CHECK: return %[[X]]
func.func @reduce_sum_unit(%x: tensor<4x1x?x1xf32>) -> tensor<4x1x?x1xf32> {
  %0 = nnc.reduce sum %x axes = [1, -1] : tensor<4x1x?x1xf32>
  return %0 : tensor<4x1x?x1xf32>
}

// -----

// reduce: mean, max, min and prod over unit dims fold as well, also over all axes
// CHECK-LABEL: func @reduce_kinds_unit
// CHECK-SAME: (%[[X:.*]]: tensor<1x1xi32>)
// CHECK-NOT: nnc.reduce
// CHECK: return %[[X]], %[[X]], %[[X]], %[[X]]
func.func @reduce_kinds_unit(%x: tensor<1x1xi32>) -> (tensor<1x1xi32>, tensor<1x1xi32>, tensor<1x1xi32>, tensor<1x1xi32>) {
  %0 = nnc.reduce mean %x axes = [0] : tensor<1x1xi32>
  %1 = nnc.reduce max %x : tensor<1x1xi32>
  %2 = nnc.reduce min %x axes = [1] : tensor<1x1xi32>
  %3 = nnc.reduce prod %x axes = [0, 1] : tensor<1x1xi32>
  return %0, %1, %2, %3 : tensor<1x1xi32>, tensor<1x1xi32>, tensor<1x1xi32>, tensor<1x1xi32>
}

// -----

// reduce: a reduced dim that is not 1 (static or dynamic) does not fold
// CHECK-LABEL: func @reduce_sum_no_fold
// CHECK: nnc.reduce sum %{{.*}} axes = [1] : tensor<4x3xf32>
// CHECK: nnc.reduce sum %{{.*}} axes = [0] : tensor<?x1xf32>
func.func @reduce_sum_no_fold(%x: tensor<4x3xf32>, %y: tensor<?x1xf32>) -> (tensor<4x1xf32>, tensor<1x1xf32>) {
  %0 = nnc.reduce sum %x axes = [1] : tensor<4x3xf32>
  %1 = nnc.reduce sum %y axes = [0] : tensor<?x1xf32>
  return %0, %1 : tensor<4x1xf32>, tensor<1x1xf32>
}

// -----

// reduce: without keepdims the type changes, so unit dims do not fold
// CHECK-LABEL: func @reduce_no_keepdims_no_fold
// CHECK: nnc.reduce sum %{{.*}} axes = [1] keepdims = false : tensor<4x1xf32>
func.func @reduce_no_keepdims_no_fold(%x: tensor<4x1xf32>) -> tensor<4xf32> {
  %0 = nnc.reduce sum %x axes = [1] keepdims = false : tensor<4x1xf32>
  return %0 : tensor<4xf32>
}

// -----

// reduce: kinds that transform each element (l1, l2, log_sum, log_sum_exp, sum_square) do not fold over unit dims
// CHECK-LABEL: func @reduce_transforming_kinds_no_fold
// CHECK: nnc.reduce l1
// CHECK: nnc.reduce l2
// CHECK: nnc.reduce log_sum
// CHECK: nnc.reduce log_sum_exp
// CHECK: nnc.reduce sum_square
func.func @reduce_transforming_kinds_no_fold(%x: tensor<4x1xf32>) -> (tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>) {
  %0 = nnc.reduce l1 %x axes = [1] : tensor<4x1xf32>
  %1 = nnc.reduce l2 %x axes = [1] : tensor<4x1xf32>
  %2 = nnc.reduce log_sum %x axes = [1] : tensor<4x1xf32>
  %3 = nnc.reduce log_sum_exp %x axes = [1] : tensor<4x1xf32>
  %4 = nnc.reduce sum_square %x axes = [1] : tensor<4x1xf32>
  return %0, %1, %2, %3, %4 : tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>
}

// -----

// reduce: empty axes without noop reduce everything and do not fold
// CHECK-LABEL: func @reduce_all_no_fold
// CHECK: nnc.reduce sum %{{.*}} : tensor<2x1xf32>
func.func @reduce_all_no_fold(%x: tensor<2x1xf32>) -> tensor<1x1xf32> {
  %0 = nnc.reduce sum %x : tensor<2x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// arg_reduce: an unused arg-reduction is removed (it is pure)
// CHECK-LABEL: func @arg_reduce_dead
// CHECK-NOT: nnc.arg_reduce
func.func @arg_reduce_dead(%x: tensor<2x3xf32>) {
  %0 = nnc.arg_reduce argmax %x axis = 1 : tensor<2x3xf32>
  return
}

// -----

// cumsum: an inclusive sum along a unit axis folds to the input
// CHECK-LABEL: func @cumsum_unit_axis
// CHECK-SAME: (%[[X:.*]]: tensor<?x1xi64>)
// CHECK-NOT: nnc.cumsum
// CHECK: return %[[X]]
func.func @cumsum_unit_axis(%x: tensor<?x1xi64>) -> tensor<?x1xi64> {
  %0 = nnc.cumsum %x axis = -1 reverse = true : tensor<?x1xi64>
  return %0 : tensor<?x1xi64>
}

// -----

// cumsum: an exclusive sum or a longer or dynamic axis does not fold
// CHECK-LABEL: func @cumsum_no_fold
// CHECK: nnc.cumsum %{{.*}} axis = 1 exclusive = true : tensor<?x1xi64>
// CHECK: nnc.cumsum %{{.*}} axis = 0 : tensor<?x1xi64>
// CHECK: nnc.cumsum %{{.*}} axis = 0 : tensor<3xf32>
func.func @cumsum_no_fold(%x: tensor<?x1xi64>, %y: tensor<3xf32>) -> (tensor<?x1xi64>, tensor<?x1xi64>, tensor<3xf32>) {
  %0 = nnc.cumsum %x axis = 1 exclusive = true : tensor<?x1xi64>
  %1 = nnc.cumsum %x axis = 0 : tensor<?x1xi64>
  %2 = nnc.cumsum %y axis = 0 : tensor<3xf32>
  return %0, %1, %2 : tensor<?x1xi64>, tensor<?x1xi64>, tensor<3xf32>
}
