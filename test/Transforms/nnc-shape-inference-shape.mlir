// RUN: nnc-opt %s --split-input-file --nnc-shape-inference="input-shapes=0:8x16" --verify-diagnostics | FileCheck %s

// reshape: a single '?' of the result is computed from the static input
// CHECK-LABEL: func @reshape_refine
// CHECK-SAME: (%{{.*}}: tensor<8x16xf32>) -> tensor<8x4x4xf32>
// CHECK: nnc.reshape %{{.*}} : tensor<8x16xf32> -> tensor<8x4x4xf32>
func.func @reshape_refine(%x: tensor<?x16xf32>) -> tensor<?x4x4xf32> {
  %0 = nnc.reshape %x : tensor<?x16xf32> -> tensor<?x4x4xf32>
  return %0 : tensor<?x4x4xf32>
}

// -----

// reshape: two '?' in the result cannot be computed and stay
// CHECK-LABEL: func @reshape_two_dynamic
// CHECK-SAME: -> tensor<?x?xf32>
// CHECK: nnc.reshape %{{.*}} : tensor<8x16xf32> -> tensor<?x?xf32>
func.func @reshape_two_dynamic(%x: tensor<?x16xf32>) -> tensor<?x?xf32> {
  %0 = nnc.reshape %x : tensor<?x16xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// reshape and inferred ops: refinement flows through transpose, reshape,
// slice, concat, unsqueeze and flatten
// CHECK-LABEL: func @chain
// CHECK-SAME: (%{{.*}}: tensor<8x16xf32>) -> (tensor<1x16x8xf32>, tensor<4x32xf32>, tensor<128xf32>)
// CHECK: nnc.transpose %{{.*}} perm = [1, 0] : tensor<8x16xf32>
// CHECK: nnc.reshape %{{.*}} : tensor<16x8xf32> -> tensor<4x32xf32>
// CHECK: nnc.slice %{{.*}} starts = [0] ends = [4] : tensor<4x32xf32>
// CHECK: nnc.concat %{{.*}}, %{{.*}} axis = 0 : tensor<4x32xf32>, tensor<4x32xf32>
// CHECK: nnc.unsqueeze %{{.*}} axes = [0] : tensor<16x8xf32>
// CHECK: nnc.flatten %{{.*}} axis = 0 : tensor<8x16xf32>
// CHECK: nnc.squeeze %{{.*}} axes = [0] : tensor<1x128xf32>
func.func @chain(%x: tensor<?x16xf32>) -> (tensor<1x16x?xf32>, tensor<?x32xf32>, tensor<?xf32>) {
  %0 = nnc.transpose %x perm = [1, 0] : tensor<?x16xf32>
  %1 = nnc.reshape %0 : tensor<16x?xf32> -> tensor<?x32xf32>
  %2 = nnc.slice %1 starts = [0] ends = [4] : tensor<?x32xf32>
  %3 = nnc.concat %2, %2 axis = 0 : tensor<?x32xf32>, tensor<?x32xf32>
  %4 = nnc.unsqueeze %0 axes = [0] : tensor<16x?xf32>
  %5 = nnc.flatten %x axis = 0 : tensor<?x16xf32>
  %6 = nnc.squeeze %5 axes = [0] : tensor<1x?xf32>
  return %4, %2, %6 : tensor<1x16x?xf32>, tensor<?x32xf32>, tensor<?xf32>
}

// -----

// expand: static input dimensions other than 1 fill '?' result dimensions
// CHECK-LABEL: func @expand_refine
// CHECK-SAME: (%{{.*}}: tensor<8x16xf32>) -> tensor<?x8x16xf32>
// CHECK: nnc.expand %{{.*}} : tensor<8x16xf32> -> tensor<?x8x16xf32>
func.func @expand_refine(%x: tensor<?x?xf32>) -> tensor<?x?x16xf32> {
  %0 = nnc.expand %x : tensor<?x?xf32> -> tensor<?x?x16xf32>
  return %0 : tensor<?x?x16xf32>
}

// -----

// expand: a 1 in the input says nothing about the result dimension
// CHECK-LABEL: func @expand_broadcast_one
// CHECK-SAME: -> tensor<8x?x16xf32>
// CHECK: nnc.expand %{{.*}} : tensor<8x1x16xf32> -> tensor<8x?x16xf32>
func.func @expand_broadcast_one(%x: tensor<?x16xf32>) -> tensor<?x?x16xf32> {
  %0 = nnc.reshape %x : tensor<?x16xf32> -> tensor<?x1x16xf32>
  %1 = nnc.expand %0 : tensor<?x1x16xf32> -> tensor<?x?x16xf32>
  return %1 : tensor<?x?x16xf32>
}

// -----

// reshape: the refined input contradicts the spelled-out result
func.func @reshape_contradiction(%x: tensor<?x16xf32>) -> tensor<3x16xf32> {
  // expected-error @+1 {{'nnc.reshape' op input shape 8x16 and result shape 3x16 cannot have the same number of elements}}
  %0 = nnc.reshape %x : tensor<?x16xf32> -> tensor<3x16xf32>
  return %0 : tensor<3x16xf32>
}

// -----

// expand: the refined input does not broadcast to the spelled-out result
func.func @expand_contradiction(%x: tensor<?x?xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'nnc.expand' op input shape 8x16 does not broadcast to result shape 8x4}}
  %0 = nnc.expand %x : tensor<?x?xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
