// RUN: nnc-opt %s --split-input-file --nnc-shape-inference="input-shapes=0:3x6" | FileCheck %s

// Split sizes [T - 2, 2] from the input's shape: once the shape is bound
// the op is nnc.split with static pieces, and what follows sees them.
// CHECK-LABEL: func @split_from_shape
// CHECK-SAME: (%[[X:.*]]: tensor<3x6xf32>) -> (tensor<3x4xf32>, tensor<2x3xf32>)
// CHECK-NOT: dynamic_attrs
// CHECK: %[[S:.*]]:2 = nnc.split %[[X]] axis = 1 sizes = [4, 2] : tensor<3x6xf32>
// CHECK: %[[T:.*]] = nnc.transpose %[[S]]#1
// CHECK: return %[[S]]#0, %[[T]]
func.func @split_from_shape(%x: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %s = nnc.shape_of %x start = 1 end = 2 : tensor<?x?xf32>
  %two = nnc.constant dense<2> : tensor<1xi64>
  %rest = nnc.sub %s, %two : tensor<1xi64>, tensor<1xi64>
  %sizes = nnc.concat %rest, %two axis = 0 : tensor<1xi64>, tensor<1xi64>
  %0:2 = nnc.dynamic_attrs "nnc.split"(%x) [%sizes] names ["sizes"] kinds ["i64s"] static {axis = 1 : i64} : (tensor<?x?xf32>), (tensor<2xi64>) -> tensor<?x?xf32>, tensor<?x?xf32>
  %1 = nnc.transpose %0#1 perm = [1, 0] : tensor<?x?xf32>
  return %0#0, %1 : tensor<?x?xf32>, tensor<?x?xf32>
}

