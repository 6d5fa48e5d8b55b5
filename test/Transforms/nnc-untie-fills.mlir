// RUN: nnc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(nnc-untie-fills))' | FileCheck %s

// One zero accumulator shared by two reductions (as CSE leaves it): each
// reduction gets a fill of a tensor.empty of its own. The use list is walked
// from its head (the last user), so the original fill stays with the second
// reduction and the clone is created right before the first.
// CHECK-LABEL: func.func @shared
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x8x16xf32>, %[[Y:[a-z0-9]+]]: tensor<4x8x16xf32>)
// CHECK: %[[CST:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[Z1:.*]] = linalg.fill ins(%[[CST]] : f32) outs(%[[E1]] : tensor<4x8xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[Z2:.*]] = linalg.fill ins(%[[CST]] : f32) outs(%[[E2]] : tensor<4x8xf32>)
// CHECK: linalg.reduce ins(%[[X]] : tensor<4x8x16xf32>) outs(%[[Z2]] : tensor<4x8xf32>)
// CHECK: arith.addf
// CHECK: linalg.reduce ins(%[[Y]] : tensor<4x8x16xf32>) outs(%[[Z1]] : tensor<4x8xf32>)
// CHECK: arith.maximumf
// CHECK-NOT: linalg.fill
func.func @shared(%x: tensor<4x8x16xf32>, %y: tensor<4x8x16xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %a = linalg.reduce ins(%x : tensor<4x8x16xf32>) outs(%z : tensor<4x8xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %b = linalg.reduce ins(%y : tensor<4x8x16xf32>) outs(%z : tensor<4x8xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %s = arith.maximumf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Three uses, one of them the return: every use but the first gets its own
// fill.
// CHECK-LABEL: func.func @three_uses
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<16xf32>
// CHECK: %[[Z1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<16xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<16xf32>
// CHECK: %[[Z2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<16xf32>)
// CHECK: %[[A:.*]] = linalg.add {{.*}} outs(%[[Z2]] : tensor<16xf32>)
// CHECK: %[[E3:.*]] = tensor.empty() : tensor<16xf32>
// CHECK: %[[Z3:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E3]] : tensor<16xf32>)
// CHECK: %[[B:.*]] = linalg.mul {{.*}} outs(%[[Z3]] : tensor<16xf32>)
// CHECK-NOT: linalg.fill
// CHECK: return %[[A]], %[[B]], %[[Z1]]
func.func @three_uses(%x: tensor<16xf32>, %y: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %cst = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %a = linalg.add ins(%x, %y : tensor<16xf32>, tensor<16xf32>) outs(%z : tensor<16xf32>) -> tensor<16xf32>
  %b = linalg.mul ins(%x, %y : tensor<16xf32>, tensor<16xf32>) outs(%z : tensor<16xf32>) -> tensor<16xf32>
  return %a, %b, %z : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----

// A fill with one use is left alone.
// CHECK-LABEL: func.func @one_use
// CHECK: tensor.empty
// CHECK: linalg.fill
// CHECK-NOT: tensor.empty
// CHECK-NOT: linalg.fill
// CHECK: linalg.reduce
func.func @one_use(%x: tensor<4x8x16xf32>) -> tensor<4x8xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %a = linalg.reduce ins(%x : tensor<4x8x16xf32>) outs(%z : tensor<4x8xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %a : tensor<4x8xf32>
}

// -----

// A fill of a tensor that is not a tensor.empty (an argument) is left
// alone, even with two uses.
// CHECK-LABEL: func.func @not_empty
// CHECK-SAME: (%[[INIT:[a-z0-9]+]]: tensor<4x8xf32>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[INIT]] : tensor<4x8xf32>)
// CHECK-NOT: linalg.fill
// CHECK: linalg.reduce {{.*}} outs(%[[Z]] : tensor<4x8xf32>)
// CHECK: linalg.reduce {{.*}} outs(%[[Z]] : tensor<4x8xf32>)
func.func @not_empty(%init: tensor<4x8xf32>, %x: tensor<4x8x16xf32>, %y: tensor<4x8x16xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %cst = arith.constant 0.0 : f32
  %z = linalg.fill ins(%cst : f32) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  %a = linalg.reduce ins(%x : tensor<4x8x16xf32>) outs(%z : tensor<4x8xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %b = linalg.reduce ins(%y : tensor<4x8x16xf32>) outs(%z : tensor<4x8xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// An empty tensor that several ops write (CSE merged their tensor.empty ops)
// is given once per op, so that each result gets a buffer of its own.
// CHECK-LABEL: func.func @shared_empty
// (The use list is walked from its head, the last user, which keeps the
// original; the clone goes right before the first.)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<8x4x16xf32>
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<8x4x16xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<4x8x16xf32>) outs(%[[E1]] : tensor<8x4x16xf32>)
// CHECK: linalg.transpose ins(%{{.*}} : tensor<4x8x16xf32>) outs(%[[E2]] : tensor<8x4x16xf32>)
func.func @shared_empty(%x: tensor<4x8x16xf32>, %y: tensor<4x8x16xf32>) -> (tensor<8x4x16xf32>, tensor<8x4x16xf32>) {
  %e = tensor.empty() : tensor<8x4x16xf32>
  %a = linalg.transpose ins(%x : tensor<4x8x16xf32>) outs(%e : tensor<8x4x16xf32>) permutation = [1, 0, 2]
  %b = linalg.transpose ins(%y : tensor<4x8x16xf32>) outs(%e : tensor<8x4x16xf32>) permutation = [1, 0, 2]
  return %a, %b : tensor<8x4x16xf32>, tensor<8x4x16xf32>
}
