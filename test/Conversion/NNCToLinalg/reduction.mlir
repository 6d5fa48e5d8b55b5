// RUN: nnc-opt %s --split-input-file --nnc-convert-to-linalg | FileCheck %s

// Sum with keepdims: linalg.reduce then expand_shape back to rank 3.
// CHECK-LABEL: func @sum_keepdims
// CHECK: %[[R:.*]] = linalg.reduce ins({{.*}} : tensor<?x16x32xf32>) outs({{.*}} : tensor<?x16xf32>) dimensions = [2]
// CHECK: arith.addf
// CHECK: tensor.expand_shape %[[R]] {{\[\[}}0], [1, 2]] {{.*}} : tensor<?x16xf32> into tensor<?x16x1xf32>
func.func @sum_keepdims(%x: tensor<?x16x32xf32>) -> tensor<?x16x1xf32> {
  %0 = nnc.reduce sum %x axes = [-1] : tensor<?x16x32xf32>
  return %0 : tensor<?x16x1xf32>
}

// -----

// Mean divides by the element count, dynamic through tensor.dim.
// CHECK-LABEL: func @mean_dynamic
// CHECK: linalg.reduce
// CHECK: tensor.dim
// CHECK: arith.sitofp
// CHECK: arith.divf
func.func @mean_dynamic(%x: tensor<?x4xf32>) -> tensor<4xf32> {
  %0 = nnc.reduce mean %x axes = [0] keepdims = false : tensor<?x4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Integer max starts at the lowest value.
// CHECK-LABEL: func @max_int
// CHECK: arith.constant -2147483648 : i32
// CHECK: arith.maxsi
func.func @max_int(%x: tensor<3x4xi32>) -> tensor<1x1xi32> {
  %0 = nnc.reduce max %x : tensor<3x4xi32>
  return %0 : tensor<1x1xi32>
}

// -----

// log_sum_exp subtracts the maximum before exp.
// CHECK-LABEL: func @lse
// CHECK: arith.maximumf
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: math.log
func.func @lse(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  %0 = nnc.reduce log_sum_exp %x axes = [1] keepdims = false : tensor<3x4xf32>
  return %0 : tensor<3xf32>
}

// -----

// arg_reduce: a generic with a reduction iterator and two outputs.
// CHECK-LABEL: func @argmax
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: linalg.index 1
// CHECK: arith.cmpf ogt
func.func @argmax(%x: tensor<?x10xf32>) -> tensor<?xi64> {
  %0 = nnc.arg_reduce argmax %x axis = -1 keepdims = false : tensor<?x10xf32>
  return %0 : tensor<?xi64>
}

// -----

// softmax: max, exp(x - max), sum, divide.
// CHECK-LABEL: func @softmax
// CHECK: linalg.reduce
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: linalg.reduce
// CHECK: arith.addf
// CHECK: arith.divf
func.func @softmax(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %0 = nnc.softmax %x : tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

// Losses reduce to rank 0.
// CHECK-LABEL: func @losses
// CHECK: linalg.reduce {{.*}} outs({{.*}} : tensor<f32>) dimensions = [0, 1]
// CHECK: tensor.extract
func.func @losses(%p: tensor<4x3xf32>, %t: tensor<4x3xf32>, %l: tensor<4xi64>) -> (tensor<f32>, tensor<f32>) {
  %0 = nnc.mse_loss %p, %t : tensor<4x3xf32>, tensor<4x3xf32>
  %1 = nnc.cross_entropy %p, %l : tensor<4x3xf32>, tensor<4xi64>
  return %0, %1 : tensor<f32>, tensor<f32>
}
