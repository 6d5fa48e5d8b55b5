// RUN: nnc-opt %s --nnc-sync-batch-norm --nnc-autodiff="function=g" | FileCheck %s

// The backward sums the statistics' gradients over the ranks: the
// adjoints of the two forward all-reduces are two more.
// CHECK-LABEL: func.func @g
// CHECK-COUNT-4: nnc.all_reduce
// CHECK-NOT: nnc.all_reduce
func.func @g(%x: tensor<2x3x4x4xf32>, %s: tensor<3xf32> {nnc.param = #nnc.param<trainable>}, %b: tensor<3xf32> {nnc.param = #nnc.param<trainable>}, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<f32> {
  %y, %bm, %bv, %rm, %rv = nnc.batch_norm_train %x, %s, %b, %m, %v : tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  %sq = nnc.mul %y, %y : tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>
  %l = nnc.reduce sum %sq axes = [0, 1, 2, 3] keepdims = false : tensor<2x3x4x4xf32>
  return %l : tensor<f32>
}

