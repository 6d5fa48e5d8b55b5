// RUN: nnc-opt %s --split-input-file | FileCheck %s
// RUN: nnc-opt %s --split-input-file | nnc-opt --split-input-file | FileCheck %s
// RUN: nnc-opt %s --split-input-file --mlir-print-op-generic | nnc-opt --split-input-file | FileCheck %s

// shape_of: every dimension, or a range of them
// CHECK-LABEL: func @shape_of
func.func @shape_of(%x: tensor<?x128x?xf32>) -> (tensor<3xi64>, tensor<1xi64>, tensor<2xi64>) {
  // CHECK: nnc.shape_of %{{.*}} : tensor<?x128x?xf32>
  %0 = nnc.shape_of %x : tensor<?x128x?xf32>
  // CHECK: nnc.shape_of %{{.*}} start = 1 end = 2 : tensor<?x128x?xf32>
  %1 = nnc.shape_of %x start = 1 end = 2 : tensor<?x128x?xf32>
  // CHECK: nnc.shape_of %{{.*}} start = 1 : tensor<?x128x?xf32>
  %2 = nnc.shape_of %x start = 1 : tensor<?x128x?xf32>
  return %0, %1, %2 : tensor<3xi64>, tensor<1xi64>, tensor<2xi64>
}

// -----

// dynamic_reshape: the result type keeps what the shape operand cannot change
// CHECK-LABEL: func @dynamic_reshape
func.func @dynamic_reshape(%x: tensor<?x?x128xf32>, %s: tensor<4xi64>)
    -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) {
  // CHECK: nnc.dynamic_reshape %{{.*}}, %{{.*}} : (tensor<?x?x128xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  %0 = nnc.dynamic_reshape %x, %s : (tensor<?x?x128xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  // CHECK: nnc.dynamic_reshape %{{.*}}, %{{.*}} {allowzero} : (tensor<?x?x128xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  %1 = nnc.dynamic_reshape %x, %s {allowzero} : (tensor<?x?x128xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  return %0, %1 : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
}

// -----

// dynamic_expand, dynamic_tile
// CHECK-LABEL: func @dynamic_expand_tile
func.func @dynamic_expand_tile(%x: tensor<1x4xf32>, %s: tensor<3xi64>, %r: tensor<2xi64>)
    -> (tensor<?x?x4xf32>, tensor<?x?xf32>) {
  // CHECK: nnc.dynamic_expand %{{.*}}, %{{.*}} : (tensor<1x4xf32>, tensor<3xi64>) -> tensor<?x?x4xf32>
  %0 = nnc.dynamic_expand %x, %s : (tensor<1x4xf32>, tensor<3xi64>) -> tensor<?x?x4xf32>
  // CHECK: nnc.dynamic_tile %{{.*}}, %{{.*}} : (tensor<1x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %1 = nnc.dynamic_tile %x, %r : (tensor<1x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0, %1 : tensor<?x?x4xf32>, tensor<?x?xf32>
}

// -----

// dynamic_slice: bounds on two axes of a causal mask
// CHECK-LABEL: func @dynamic_slice
func.func @dynamic_slice(%m: tensor<1x1x16x16xf32>, %a: tensor<2xi64>, %b: tensor<2xi64>,
                         %c: tensor<2xi64>, %d: tensor<2xi64>) -> tensor<1x1x?x?xf32> {
  // CHECK: nnc.dynamic_slice %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : (tensor<1x1x16x16xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x1x?x?xf32>
  %0 = nnc.dynamic_slice %m[%a, %b, %c, %d] : (tensor<1x1x16x16xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x1x?x?xf32>
  return %0 : tensor<1x1x?x?xf32>
}

// -----

// dynamic_range: integer and float sequences
// CHECK-LABEL: func @dynamic_range
func.func @dynamic_range(%s: tensor<i64>, %l: tensor<i64>, %d: tensor<i64>,
                         %fs: tensor<f32>, %fl: tensor<f32>, %fd: tensor<f32>)
    -> (tensor<?xi64>, tensor<?xf32>) {
  // CHECK: nnc.dynamic_range %{{.*}}, %{{.*}}, %{{.*}} : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  %0 = nnc.dynamic_range %s, %l, %d : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  // CHECK: nnc.dynamic_range %{{.*}}, %{{.*}}, %{{.*}} : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  %1 = nnc.dynamic_range %fs, %fl, %fd : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  return %0, %1 : tensor<?xi64>, tensor<?xf32>
}

// -----

// The argument attributes: an integer input that feeds only shapes, and
// names for dynamic dimensions.
// CHECK-LABEL: func @attrs
// CHECK-SAME: {nnc.dim_names = ["batch", "seq"]}
// CHECK-SAME: {nnc.shape_input}
func.func @attrs(%x: tensor<?x?xf32> {nnc.dim_names = ["batch", "seq"]},
                 %n: tensor<i64> {nnc.shape_input}) -> tensor<?x?xf32> {
  return %x : tensor<?x?xf32>
}

// -----

// dynamic_attrs: an op whose attributes come from shape operands
// CHECK-LABEL: func @dynamic_attrs
func.func @dynamic_attrs(%x: tensor<4x5xf32>, %k: tensor<1xi64>, %s: tensor<2xi64>)
    -> (tensor<4x5xf32>, tensor<4x?xf32>, tensor<4x?xf32>) {
  // CHECK: nnc.dynamic_attrs "nnc.trilu"(%{{.*}}) [%{{.*}}] names ["k"] kinds ["i64"] static {upper = false} : (tensor<4x5xf32>), (tensor<1xi64>) -> tensor<4x5xf32>
  %0 = nnc.dynamic_attrs "nnc.trilu"(%x) [%k] names ["k"] kinds ["i64"] static {upper = false} : (tensor<4x5xf32>), (tensor<1xi64>) -> tensor<4x5xf32>
  // CHECK: nnc.dynamic_attrs "nnc.split"(%{{.*}}) [%{{.*}}] names ["sizes"] kinds ["i64s"] static {axis = 1 : i64} : (tensor<4x5xf32>), (tensor<2xi64>) -> tensor<4x?xf32>, tensor<4x?xf32>
  %1:2 = nnc.dynamic_attrs "nnc.split"(%x) [%s] names ["sizes"] kinds ["i64s"] static {axis = 1 : i64} : (tensor<4x5xf32>), (tensor<2xi64>) -> tensor<4x?xf32>, tensor<4x?xf32>
  return %0, %1#0, %1#1 : tensor<4x5xf32>, tensor<4x?xf32>, tensor<4x?xf32>
}
