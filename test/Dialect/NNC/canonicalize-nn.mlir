// RUN: nnc-opt %s --split-input-file --canonicalize | FileCheck %s

// dropout in inference with a static shape folds: output is the input, mask
// a constant all-true tensor
// CHECK-LABEL: func @dropout_inference_static
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: nnc.dropout
// CHECK: %[[M:.*]] = nnc.constant dense<true> : tensor<4x8xi1>
// CHECK: return %[[X]], %[[M]] : tensor<4x8xf32>, tensor<4x8xi1>
func.func @dropout_inference_static(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>) {
  %y, %m = nnc.dropout %x ratio = 0.25 : tensor<4x8xf32>
  return %y, %m : tensor<4x8xf32>, tensor<4x8xi1>
}

// -----

// dropout while training with ratio 0 is the identity too
// CHECK-LABEL: func @dropout_training_ratio_zero
// CHECK-SAME: (%[[X:.*]]: tensor<3xf16>)
// CHECK-NOT: nnc.dropout
// CHECK: %[[M:.*]] = nnc.constant dense<true> : tensor<3xi1>
// CHECK: return %[[X]], %[[M]]
func.func @dropout_training_ratio_zero(%x: tensor<3xf16>) -> (tensor<3xf16>, tensor<3xi1>) {
  %y, %m = nnc.dropout %x ratio = 0.0 seed = 7 training = true : tensor<3xf16>
  return %y, %m : tensor<3xf16>, tensor<3xi1>
}

// -----

// dropout in inference with a dynamic shape: the output is forwarded and the
// op, whose mask is unused, is erased
// CHECK-LABEL: func @dropout_inference_dynamic_unused_mask
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
// CHECK-NOT: nnc.dropout
// CHECK: return %[[X]] : tensor<?x8xf32>
func.func @dropout_inference_dynamic_unused_mask(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %y, %m = nnc.dropout %x : tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// dropout in inference with a dynamic shape and a used mask: the output is
// forwarded, the op stays for its mask
// CHECK-LABEL: func @dropout_inference_dynamic_used_mask
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
// CHECK: %{{.*}}, %[[M:.*]] = nnc.dropout %[[X]] : tensor<?x8xf32>
// CHECK: return %[[X]], %[[M]] : tensor<?x8xf32>, tensor<?x8xi1>
func.func @dropout_inference_dynamic_used_mask(%x: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xi1>) {
  %y, %m = nnc.dropout %x ratio = 0.5 training = false : tensor<?x8xf32>
  return %y, %m : tensor<?x8xf32>, tensor<?x8xi1>
}

// -----

// a random dropout (training, ratio > 0) must not fold
// CHECK-LABEL: func @dropout_training_no_fold
// CHECK: %[[Y:.*]], %[[M:.*]] = nnc.dropout %{{[^ ]*}} ratio = 1.000000e-01 training = true : tensor<4x8xf32>
// CHECK: return %[[Y]], %[[M]]
func.func @dropout_training_no_fold(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>) {
  %y, %m = nnc.dropout %x ratio = 0.1 training = true : tensor<4x8xf32>
  return %y, %m : tensor<4x8xf32>, tensor<4x8xi1>
}

// -----

// a random dropout advances the random state: it is not erased when unused
// CHECK-LABEL: func @dropout_training_kept
// CHECK-COUNT-3: nnc.dropout %{{[^ ]*}} seed = 3 training = true : tensor<?xf32>
// CHECK: return
func.func @dropout_training_kept(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y0, %m0 = nnc.dropout %x seed = 3 training = true : tensor<?xf32>
  %y1, %m1 = nnc.dropout %x seed = 3 training = true : tensor<?xf32>
  %y2, %m2 = nnc.dropout %x seed = 3 training = true : tensor<?xf32>
  return %y2 : tensor<?xf32>
}

// -----

// an inference dropout with both results unused is dead
// CHECK-LABEL: func @dropout_inference_dead
// CHECK-NOT: nnc.dropout
func.func @dropout_inference_dead(%x: tensor<?xf32>) {
  %y, %m = nnc.dropout %x : tensor<?xf32>
  return
}
