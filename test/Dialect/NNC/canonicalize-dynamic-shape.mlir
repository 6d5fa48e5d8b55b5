// RUN: nnc-opt %s --split-input-file --canonicalize | FileCheck %s

// shape_of folds to a constant where the dimensions it reads are static
// CHECK-LABEL: func @shape_of_static
// CHECK: %[[C:.*]] = nnc.constant dense<[4, 8]> : tensor<2xi64>
// CHECK: return %[[C]]
func.func @shape_of_static(%x: tensor<?x4x8xf32>) -> tensor<2xi64> {
  %0 = nnc.shape_of %x start = 1 : tensor<?x4x8xf32>
  return %0 : tensor<2xi64>
}

// -----

// A gather of the static entries of a partly dynamic shape folds.
// CHECK-LABEL: func @gather_static_entry
// CHECK: %[[C:.*]] = nnc.constant dense<8> : tensor<i64>
// CHECK: return %[[C]]
func.func @gather_static_entry(%x: tensor<?x?x8xf32>) -> tensor<i64> {
  %s = nnc.shape_of %x : tensor<?x?x8xf32>
  %i = nnc.constant dense<2> : tensor<i64>
  %0 = nnc.gather %s, %i : tensor<3xi64>, tensor<i64>
  return %0 : tensor<i64>
}

// -----

// dynamic_reshape with a known shape becomes nnc.reshape; the declared type
// is kept through a cast.
// CHECK-LABEL: func @reshape_known
// CHECK: %[[R:.*]] = nnc.reshape %{{.*}} : tensor<4x3xf32> -> tensor<2x6xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[R]] : tensor<2x6xf32> to tensor<?x?xf32>
// CHECK: return %[[C]]
func.func @reshape_known(%x: tensor<4x3xf32>) -> tensor<?x?xf32> {
  %s = nnc.constant dense<[2, -1]> : tensor<2xi64>
  %0 = nnc.dynamic_reshape %x, %s : (tensor<4x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// dynamic_reshape whose shape is built from the input's own dimensions:
// [B, T, 4, 32] from a ?x?x128 input has two unknown dimensions, which
// nnc.reshape cannot infer: it waits for the shapes (nnc-shape-inference).
// CHECK-LABEL: func @reshape_own_dims
// CHECK: nnc.dynamic_reshape %{{.*}}, %{{.*}} : (tensor<?x?x128xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
func.func @reshape_own_dims(%x: tensor<?x?x128xf32>) -> tensor<?x?x?x?xf32> {
  %bt = nnc.shape_of %x end = 2 : tensor<?x?x128xf32>
  %hd = nnc.constant dense<[4, 32]> : tensor<2xi64>
  %s = nnc.concat %bt, %hd axis = 0 : tensor<2xi64>, tensor<2xi64>
  %0 = nnc.dynamic_reshape %x, %s : (tensor<?x?x128xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// dynamic_reshape: unknown entries stay dynamic
// CHECK-LABEL: func @reshape_unknown
// CHECK: nnc.dynamic_reshape
func.func @reshape_unknown(%x: tensor<?x4xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = nnc.dynamic_reshape %x, %s : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// dynamic_range with known bounds is a constant
// CHECK-LABEL: func @range_known
// CHECK: %[[C:.*]] = nnc.constant dense<[0, 2, 4]> : tensor<3xi64>
// CHECK: %[[R:.*]] = tensor.cast %[[C]] : tensor<3xi64> to tensor<?xi64>
// CHECK: return %[[R]]
func.func @range_known() -> tensor<?xi64> {
  %s = nnc.constant dense<0> : tensor<i64>
  %l = nnc.constant dense<5> : tensor<i64>
  %d = nnc.constant dense<2> : tensor<i64>
  %0 = nnc.dynamic_range %s, %l, %d : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// -----

// dynamic_slice, dynamic_tile, dynamic_expand with known operands
// CHECK-LABEL: func @slice_tile_expand_known
// CHECK-NOT: nnc.dynamic
// CHECK: nnc.slice %{{.*}} starts = [1] ends = [3] axes = [1] steps = [1] : tensor<1x4xf32>
// CHECK: tensor.cast %{{.*}} : tensor<1x2xf32> to tensor<1x?xf32>
// CHECK: nnc.tile %{{.*}} repeats = [2, 1] : tensor<1x4xf32>
// CHECK: tensor.cast %{{.*}} : tensor<2x4xf32> to tensor<?x?xf32>
// CHECK: nnc.expand %{{.*}} : tensor<1x4xf32> -> tensor<3x4xf32>
// CHECK-NOT: nnc.dynamic
func.func @slice_tile_expand_known(%x: tensor<1x4xf32>)
    -> (tensor<1x?xf32>, tensor<?x?xf32>, tensor<?x4xf32>) {
  %one = nnc.constant dense<[1]> : tensor<1xi64>
  %three = nnc.constant dense<[3]> : tensor<1xi64>
  %0 = nnc.dynamic_slice %x[%one, %three, %one, %one] : (tensor<1x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x?xf32>
  %r = nnc.constant dense<[2, 1]> : tensor<2xi64>
  %1 = nnc.dynamic_tile %x, %r : (tensor<1x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %s = nnc.constant dense<[3, 4]> : tensor<2xi64>
  %2 = nnc.dynamic_expand %x, %s : (tensor<1x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  return %0, %1, %2 : tensor<1x?xf32>, tensor<?x?xf32>, tensor<?x4xf32>
}

// -----

// dynamic_attrs with known values becomes the static op, which infers its
// result types; the declared types are kept through casts.
// CHECK-LABEL: func @dynamic_attrs_known
// CHECK-DAG: %[[T:.*]] = nnc.trilu %{{.*}} upper = false k = -1 : tensor<4x5xf32>
// CHECK-DAG: %[[S:.*]]:2 = nnc.split %{{.*}} axis = 1 sizes = [2, 3] : tensor<4x5xf32>
// CHECK-DAG: %[[C0:.*]] = tensor.cast %[[S]]#0 : tensor<4x2xf32> to tensor<4x?xf32>
// CHECK-DAG: %[[C1:.*]] = tensor.cast %[[S]]#1 : tensor<4x3xf32> to tensor<4x?xf32>
// CHECK: return %[[T]], %[[C0]], %[[C1]]
func.func @dynamic_attrs_known(%x: tensor<4x5xf32>)
    -> (tensor<4x5xf32>, tensor<4x?xf32>, tensor<4x?xf32>) {
  %k = nnc.constant dense<-1> : tensor<1xi64>
  %0 = nnc.dynamic_attrs "nnc.trilu"(%x) [%k] names ["k"] kinds ["i64"] static {upper = false} : (tensor<4x5xf32>), (tensor<1xi64>) -> tensor<4x5xf32>
  %s = nnc.constant dense<[2, 3]> : tensor<2xi64>
  %1:2 = nnc.dynamic_attrs "nnc.split"(%x) [%s] names ["sizes"] kinds ["i64s"] static {axis = 1 : i64} : (tensor<4x5xf32>), (tensor<2xi64>) -> tensor<4x?xf32>, tensor<4x?xf32>
  return %0, %1#0, %1#1 : tensor<4x5xf32>, tensor<4x?xf32>, tensor<4x?xf32>
}

// -----

// Unknown values keep the op.
// CHECK-LABEL: func @dynamic_attrs_unknown
// CHECK: nnc.dynamic_attrs "nnc.unsqueeze"
func.func @dynamic_attrs_unknown(%x: tensor<4x5xf32>, %a: tensor<1xi64>) -> tensor<?x?x?xf32> {
  %0 = nnc.dynamic_attrs "nnc.unsqueeze"(%x) [%a] names ["axes"] kinds ["i64s"] static {} : (tensor<4x5xf32>), (tensor<1xi64>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}
