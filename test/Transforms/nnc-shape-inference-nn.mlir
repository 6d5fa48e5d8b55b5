// RUN: nnc-opt %s --split-input-file --nnc-shape-inference="input-shapes=0:8x16" --verify-diagnostics | FileCheck %s

// layer_norm: the input, its statistics and the function results are refined
// CHECK-LABEL: func @layer_norm
// CHECK-SAME: (%{{.*}}: tensor<8x16xf16>, %{{.*}}: tensor<?xf16>) -> (tensor<8x16xf16>, tensor<8x1xf32>)
// CHECK: nnc.layer_norm %{{[^ ]*}} scale(%{{.*}} : tensor<?xf16>) : tensor<8x16xf16>
func.func @layer_norm(%x: tensor<?x?xf16>, %g: tensor<?xf16>) -> (tensor<?x?xf16>, tensor<?x1xf32>) {
  %y, %m, %r = nnc.layer_norm %x scale(%g : tensor<?xf16>) : tensor<?x?xf16>
  return %y, %m : tensor<?x?xf16>, tensor<?x1xf32>
}

// -----

// batch_norm_train: C of the specialized input refines the [C] statistics
// CHECK-LABEL: func @batch_norm_train
// CHECK-SAME: -> (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>)
// CHECK: nnc.batch_norm_train %{{.*}} : tensor<8x16xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
func.func @batch_norm_train(%x: tensor<?x?xf32>, %p: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %y, %bm, %bv, %rm, %rv = nnc.batch_norm_train %x, %p, %p, %p, %p : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
  return %y, %rm, %rv : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// group_norm feeding softmax and dropout: [N, num_groups] statistics, and the
// refined type flows through the chain
// CHECK-LABEL: func @group_norm_chain
// CHECK-SAME: -> (tensor<8x16xf32>, tensor<8x16xi1>, tensor<8x4xf32>)
// CHECK: nnc.group_norm %{{.*}} num_groups = 4 : tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>
// CHECK: nnc.softmax %{{[^ ]*}} : tensor<8x16xf32>
// CHECK: nnc.dropout %{{[^ ]*}} training = true : tensor<8x16xf32>
func.func @group_norm_chain(%x: tensor<?x?xf32>, %p: tensor<16xf32>) -> (tensor<?x?xf32>, tensor<?x?xi1>, tensor<?x4xf32>) {
  %y, %m, %r = nnc.group_norm %x, %p, %p num_groups = 4 : tensor<?x?xf32>, tensor<16xf32>, tensor<16xf32>
  %s = nnc.softmax %y : tensor<?x?xf32>
  %d, %mask = nnc.dropout %s training = true : tensor<?x?xf32>
  return %d, %mask, %m : tensor<?x?xf32>, tensor<?x?xi1>, tensor<?x4xf32>
}

// -----

// cross_entropy and mse_loss with reduction none: per-element losses get N
// CHECK-LABEL: func @losses
// CHECK-SAME: -> (tensor<8xf32>, tensor<f32>, tensor<8x16xf32>)
func.func @losses(%l: tensor<?x16xf32>, %t: tensor<?xi64>, %target: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<f32>, tensor<?x16xf32>) {
  // CHECK: nnc.cross_entropy %{{.*}} reduction = none : tensor<8x16xf32>, tensor<?xi64>
  %0 = nnc.cross_entropy %l, %t reduction = none : tensor<?x16xf32>, tensor<?xi64>
  // CHECK: nnc.nll_loss %{{.*}} : tensor<8x16xf32>, tensor<?xi64>
  %1 = nnc.nll_loss %l, %t : tensor<?x16xf32>, tensor<?xi64>
  // CHECK: nnc.mse_loss %{{.*}} reduction = none : tensor<8x16xf32>, tensor<?x?xf32>
  %2 = nnc.mse_loss %l, %target reduction = none : tensor<?x16xf32>, tensor<?x?xf32>
  return %0, %1, %2 : tensor<?xf32>, tensor<f32>, tensor<?x16xf32>
}

// -----

// cross_entropy: the specialized N contradicts the labels' declared N
func.func @cross_entropy_contradiction(%l: tensor<?x16xf32>, %t: tensor<4xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{expects labels shape 4 to match [N, d1, ...] = 8 of logits shape 8x16}}
  %0 = nnc.cross_entropy %l, %t reduction = none : tensor<?x16xf32>, tensor<4xi64>
  return %0 : tensor<4xf32>
}

// -----

// layer_norm: the specialized normalized dim contradicts the declared scale
func.func @layer_norm_contradiction(%x: tensor<?x?xf32>, %g: tensor<12xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{scale shape 12 does not broadcast to the normalized shape 16}}
  %y, %m, %r = nnc.layer_norm %x scale(%g : tensor<12xf32>) : tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
