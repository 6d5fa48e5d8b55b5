// RUN: nnc-opt %s --split-input-file --nnc-shape-inference="input-shapes=0:2x5x128" | FileCheck %s

// view(B, T, H, D) on a ?x?x128 input: the shape built from Shape, Gather
// and Concat resolves, once the input's shape is known, to nnc.reshape.
// CHECK-LABEL: func @view_heads
// CHECK-SAME: (%[[X:.*]]: tensor<2x5x128xf32>) -> tensor<2x5x4x32xf32>
// CHECK-NOT: nnc.dynamic_reshape
// CHECK-NOT: nnc.shape_of
// CHECK: %[[R:.*]] = nnc.reshape %[[X]] : tensor<2x5x128xf32> -> tensor<2x5x4x32xf32>
// CHECK: return %[[R]]
func.func @view_heads(%x: tensor<?x?x128xf32>) -> tensor<?x?x?x?xf32> {
  %s = nnc.shape_of %x : tensor<?x?x128xf32>
  %i0 = nnc.constant dense<0> : tensor<1xi64>
  %i1 = nnc.constant dense<1> : tensor<1xi64>
  %b = nnc.gather %s, %i0 : tensor<3xi64>, tensor<1xi64>
  %t = nnc.gather %s, %i1 : tensor<3xi64>, tensor<1xi64>
  %hd = nnc.constant dense<[4, 32]> : tensor<2xi64>
  %shape = nnc.concat %b, %t, %hd axis = 0 : tensor<1xi64>, tensor<1xi64>, tensor<2xi64>
  %0 = nnc.dynamic_reshape %x, %shape : (tensor<?x?x128xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// Positions 0 .. T-1 from the sequence length, and the causal mask sliced
// to T x T: both become static (the range a constant).
// CHECK-LABEL: func @positions_and_mask
// CHECK-SAME: -> (tensor<5xi64>, tensor<1x1x5x5xf32>)
// CHECK-DAG: %[[P:.*]] = nnc.constant dense<[0, 1, 2, 3, 4]> : tensor<5xi64>
// CHECK-DAG: %[[M:.*]] = nnc.slice %{{.*}} starts = [0, 0] ends = [5, 5] axes = [2, 3] steps = [1, 1] : tensor<1x1x16x16xf32>
// CHECK: return %[[P]], %[[M]]
func.func @positions_and_mask(%x: tensor<?x?x128xf32>, %mask: tensor<1x1x16x16xf32>)
    -> (tensor<?xi64>, tensor<1x1x?x?xf32>) {
  %s = nnc.shape_of %x start = 1 end = 2 : tensor<?x?x128xf32>
  %zero = nnc.constant dense<0> : tensor<i64>
  %one = nnc.constant dense<1> : tensor<i64>
  %t = nnc.reshape %s : tensor<1xi64> -> tensor<i64>
  %0 = nnc.dynamic_range %zero, %t, %one : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  %starts = nnc.constant dense<[0, 0]> : tensor<2xi64>
  %ends = nnc.concat %s, %s axis = 0 : tensor<1xi64>, tensor<1xi64>
  %axes = nnc.constant dense<[2, 3]> : tensor<2xi64>
  %steps = nnc.constant dense<[1, 1]> : tensor<2xi64>
  %1 = nnc.dynamic_slice %mask[%starts, %ends, %axes, %steps] : (tensor<1x1x16x16xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x1x?x?xf32>
  return %0, %1 : tensor<?xi64>, tensor<1x1x?x?xf32>
}

// -----

// Arithmetic on shape values: B * T rows, via Mul, Where and Equal on
// integer shape values (x.size(0) * x.size(1), -1 where the entry is 0).
// CHECK-LABEL: func @rows
// CHECK: nnc.reshape %{{.*}} : tensor<2x5x128xf32> -> tensor<10x128xf32>
// CHECK-NOT: nnc.dynamic_reshape
func.func @rows(%x: tensor<?x?x128xf32>) -> tensor<?x?xf32> {
  %s = nnc.shape_of %x end = 2 : tensor<?x?x128xf32>
  %bt = nnc.reduce prod %s keepdims = true : tensor<2xi64>
  %zero = nnc.constant dense<0> : tensor<1xi64>
  %minus = nnc.constant dense<-1> : tensor<1xi64>
  %isZero = nnc.cmp eq, %bt, %zero : tensor<1xi64>, tensor<1xi64>
  %rows = nnc.where %isZero, %minus, %bt : tensor<1xi1>, tensor<1xi64>, tensor<1xi64>
  %c = nnc.constant dense<128> : tensor<1xi64>
  %shape = nnc.concat %rows, %c axis = 0 : tensor<1xi64>, tensor<1xi64>
  %0 = nnc.dynamic_reshape %x, %shape : (tensor<?x?x128xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

