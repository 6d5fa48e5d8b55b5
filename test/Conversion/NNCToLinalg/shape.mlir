// RUN: nnc-opt %s --split-input-file --nnc-convert-to-linalg | FileCheck %s

// transpose keeps the dynamic dim in its new position.
// CHECK-LABEL: func @transpose
// CHECK: %[[D:.*]] = tensor.dim
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<4x?xf32>
// CHECK: linalg.transpose ins({{.*}} : tensor<?x4xf32>) outs(%[[E]] : tensor<4x?xf32>) permutation = [1, 0]
func.func @transpose(%x: tensor<?x4xf32>) -> tensor<4x?xf32> {
  %0 = nnc.transpose %x perm = [1, 0] : tensor<?x4xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// Static reshape through tensor.reshape with a constant shape.
// CHECK-LABEL: func @reshape
// CHECK: %[[S:.*]] = arith.constant dense<[3, 2]> : tensor<2xi64>
// CHECK: tensor.reshape %{{.*}}(%[[S]])
func.func @reshape(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = nnc.reshape %x : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// expand broadcasts through a generic.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func @expand
// CHECK: linalg.generic {indexing_maps = [#[[IN]], {{.*}}]
func.func @expand(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = nnc.expand %x : tensor<3x1xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// concat inserts each input at a running offset (dynamic here).
// CHECK-LABEL: func @concat
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [2, 3] [1, 1]
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 3] [2, %{{.*}}] [1, 1]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %0 = nnc.concat %a, %b axis = 1 : tensor<2x3xf32>, tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

// slice: static starts and steps become extract_slice.
// CHECK-LABEL: func @slice
// CHECK: tensor.extract_slice %{{.*}}[1, 0] [4, 6] [2, 1] : tensor<8x6xf32> to tensor<4x6xf32>
func.func @slice(%x: tensor<8x6xf32>) -> tensor<4x6xf32> {
  %0 = nnc.slice %x starts = [1] ends = [9223372036854775807] steps = [2] : tensor<8x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// Constant padding and nnc.constant.
// CHECK-LABEL: func @pad
// CHECK: %[[V:.*]] = arith.constant -1.000000e+00 : f32
// CHECK: tensor.pad %{{.*}} low[1, 2] high[1, 0]
// CHECK: tensor.yield %[[V]] : f32
// CHECK: arith.constant dense<1.000000e+00> : tensor<2xf32>
func.func @pad(%x: tensor<2x?xf32>) -> (tensor<4x?xf32>, tensor<2xf32>) {
  %0 = nnc.pad %x pads = [1, 2, 1, 0] value = -1.0 : tensor<2x?xf32>
  %1 = nnc.constant dense<1.0> : tensor<2xf32>
  return %0, %1 : tensor<4x?xf32>, tensor<2xf32>
}
