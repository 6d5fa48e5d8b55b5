// RUN: nnc-opt %s --split-input-file --nnc-convert-to-linalg | FileCheck %s

// 2-D matmul with a dynamic M: zero-filled init sized by tensor.dim.
// CHECK-LABEL: func @matmul_2d
// CHECK: %[[D:.*]] = tensor.dim
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x10xf32>
// CHECK: %[[F:.*]] = linalg.fill {{.*}} outs(%[[E]] : tensor<?x10xf32>)
// CHECK: linalg.matmul ins({{.*}} : tensor<?x64xf32>, tensor<64x10xf32>) outs(%[[F]] : tensor<?x10xf32>)
func.func @matmul_2d(%x: tensor<?x64xf32>, %w: tensor<64x10xf32>) -> tensor<?x10xf32> {
  %0 = nnc.matmul %x, %w : tensor<?x64xf32>, tensor<64x10xf32>
  return %0 : tensor<?x10xf32>
}

// -----

// Equal batch dims use linalg.batch_matmul.
// CHECK-LABEL: func @matmul_batch
// CHECK: linalg.batch_matmul
func.func @matmul_batch(%x: tensor<4x2x3xf32>, %y: tensor<4x3x5xf32>) -> tensor<4x2x5xf32> {
  %0 = nnc.matmul %x, %y : tensor<4x2x3xf32>, tensor<4x3x5xf32>
  return %0 : tensor<4x2x5xf32>
}

// -----

// Broadcast batch dims: a generic contraction, the rhs map has no batch dim.
// CHECK-DAG: #[[L:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[R:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func @matmul_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[L]], #[[R]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
func.func @matmul_broadcast(%x: tensor<8x?x64xf32>, %w: tensor<64x10xf32>) -> tensor<8x?x10xf32> {
  %0 = nnc.matmul %x, %w : tensor<8x?x64xf32>, tensor<64x10xf32>
  return %0 : tensor<8x?x10xf32>
}

// -----

// A vector rhs is expanded to a column and the unit dim collapsed again.
// CHECK-LABEL: func @matmul_vector
// CHECK: tensor.expand_shape {{.*}} {{\[\[}}0, 1]] {{.*}} : tensor<3xf32> into tensor<3x1xf32>
// CHECK: linalg.matmul
// CHECK: tensor.collapse_shape {{.*}} : tensor<2x1xf32> into tensor<2xf32>
func.func @matmul_vector(%x: tensor<2x3xf32>, %v: tensor<3xf32>) -> tensor<2xf32> {
  %0 = nnc.matmul %x, %v : tensor<2x3xf32>, tensor<3xf32>
  return %0 : tensor<2xf32>
}

// -----

// gemm: transposes, matmul, then alpha/beta with c broadcast.
// CHECK-LABEL: func @gemm
// CHECK: linalg.transpose
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @gemm(%a: tensor<4x8xf32>, %b: tensor<10x8xf32>, %c: tensor<10xf32>) -> tensor<4x10xf32> {
  %0 = nnc.gemm %a, %b, %c trans_b = true beta = 0.5 : tensor<4x8xf32>, tensor<10x8xf32>, tensor<10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

// [B, M, K] x [K, N] with static shapes folds the batch into the rows: one
// matmul a library GEMM takes, between opaque reshapes that fusion keeps.
// CHECK-LABEL: func @matmul_rows
// CHECK: %[[FLAT:.*]] = tensor.reshape %{{.*}}(%{{.*}}) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[FLAT]], %{{.*}} : tensor<6x4xf32>, tensor<4x5xf32>)
// CHECK: tensor.reshape %[[MM]](%{{.*}}) : (tensor<6x5xf32>, tensor<3xi64>) -> tensor<2x3x5xf32>
// CHECK-NOT: linalg.generic
func.func @matmul_rows(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = nnc.matmul %a, %b : tensor<2x3x4xf32>, tensor<4x5xf32>
  return %0 : tensor<2x3x5xf32>
}
