// RUN: nnc-opt %s --split-input-file --nnc-convert-to-linalg | FileCheck %s

// Broadcasting add: the size-1 dim reads index 0, the missing dim is dropped.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @add_broadcast
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: outs(%[[E]] : tensor<4x8xf32>)
// CHECK: arith.addf
func.func @add_broadcast(%x: tensor<4x1xf32>, %y: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = nnc.add %x, %y : tensor<4x1xf32>, tensor<8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Dynamic dims come from tensor.dim of an operand that does not broadcast.
// CHECK-LABEL: func @mul_dynamic
// CHECK-SAME: %[[X:.*]]: tensor<?x8xi32>
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x8xi32>
// CHECK: tensor.empty(%[[D]]) : tensor<?x8xi32>
// CHECK: arith.muli
func.func @mul_dynamic(%x: tensor<?x8xi32>, %y: tensor<8xi32>) -> tensor<?x8xi32> {
  %0 = nnc.mul %x, %y : tensor<?x8xi32>, tensor<8xi32>
  return %0 : tensor<?x8xi32>
}

// -----

// Exact gelu uses erf, the tanh approximation tanh.
// CHECK-LABEL: func @gelu
// CHECK: math.erf
// CHECK: math.tanh
func.func @gelu(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = nnc.gelu %x : tensor<4xf32>
  %1 = nnc.gelu %x approximation = tanh : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Comparisons: signed for integers, unsigned for i1; casts per type pair.
// CHECK-LABEL: func @cmp_cast
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi ult
// CHECK: arith.uitofp {{.*}} : i1 to f32
// CHECK: arith.fptosi {{.*}} : f32 to i64
// CHECK: arith.cmpf une
func.func @cmp_cast(%a: tensor<3xi64>, %b: tensor<3xi1>, %f: tensor<3xf32>)
    -> (tensor<3xi1>, tensor<3xi1>, tensor<3xf32>, tensor<3xi64>, tensor<3xi1>) {
  %0 = nnc.cmp lt, %a, %a : tensor<3xi64>, tensor<3xi64>
  %1 = nnc.cmp lt, %b, %b : tensor<3xi1>, tensor<3xi1>
  %2 = nnc.cast %b : tensor<3xi1> to tensor<3xf32>
  %3 = nnc.cast %f : tensor<3xf32> to tensor<3xi64>
  %4 = nnc.cast %f : tensor<3xf32> to tensor<3xi1>
  return %0, %1, %2, %3, %4 : tensor<3xi1>, tensor<3xi1>, tensor<3xf32>, tensor<3xi64>, tensor<3xi1>
}

// -----

// where broadcasts all three operands; relu/leaky_relu/clip/sigmoid bodies.
// CHECK-LABEL: func @where_relu
// CHECK: arith.select
// CHECK: arith.maximumf
// CHECK: arith.cmpf oge
// CHECK: arith.minimumf
// CHECK: math.exp
func.func @where_relu(%c: tensor<4x1xi1>, %x: tensor<4x8xf32>, %y: tensor<f32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = nnc.where %c, %x, %y : tensor<4x1xi1>, tensor<4x8xf32>, tensor<f32>
  %1 = nnc.relu %x : tensor<4x8xf32>
  %2 = nnc.leaky_relu %x : tensor<4x8xf32>
  %3 = nnc.clip %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<4x8xf32>
  %4 = nnc.sigmoid %x : tensor<4x8xf32>
  return %0, %1, %2, %3, %4 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Logical ops on i1.
// CHECK-LABEL: func @logical
// CHECK: arith.andi
// CHECK: arith.ori
// CHECK: arith.xori
func.func @logical(%a: tensor<2xi1>, %b: tensor<2xi1>) -> (tensor<2xi1>, tensor<2xi1>, tensor<2xi1>) {
  %0 = nnc.and %a, %b : tensor<2xi1>, tensor<2xi1>
  %1 = nnc.or %a, %b : tensor<2xi1>, tensor<2xi1>
  %2 = nnc.xor %a, %b : tensor<2xi1>, tensor<2xi1>
  return %0, %1, %2 : tensor<2xi1>, tensor<2xi1>, tensor<2xi1>
}
