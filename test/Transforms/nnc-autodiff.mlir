// RUN: nnc-opt %s --split-input-file --nnc-autodiff --verify-diagnostics | FileCheck %s

// Broadcast binary ops: the gradient of a broadcast operand is summed over
// the broadcast dimensions and reshaped to its type; the forward function
// stays as it was.
// CHECK-LABEL: func.func @main(
// CHECK-LABEL: func.func @main_grad(
// CHECK-SAME: %[[X:.*]]: tensor<4x3xf32>, %[[W:.*]]: tensor<3xf32> {nnc.param = #nnc.param<trainable>}, %[[B:.*]]: tensor<4x1xf32> {nnc.param = #nnc.param<trainable>})
// CHECK-SAME: -> (tensor<f32>, tensor<3xf32>, tensor<4x1xf32>) attributes {nnc.result_names = ["loss", "grad1", "grad2"]}
// CHECK: %[[M:.*]] = nnc.mul %[[X]], %[[W]]
// CHECK: %[[A:.*]] = nnc.add %[[M]], %[[B]]
// CHECK: %[[L:.*]] = nnc.reduce sum %[[A]]
// CHECK: %[[ONE:.*]] = nnc.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[R:.*]] = nnc.reshape %[[ONE]] : tensor<f32> -> tensor<1x1xf32>
// CHECK: %[[G:.*]] = nnc.expand %[[R]] : tensor<1x1xf32> -> tensor<4x3xf32>
// CHECK: %[[GB:.*]] = nnc.reduce sum %[[G]] axes = [1] : tensor<4x3xf32>
// CHECK: %[[GM:.*]] = nnc.mul %[[G]], %[[X]]
// CHECK: %[[GW:.*]] = nnc.reduce sum %[[GM]] axes = [0] : tensor<4x3xf32>
// CHECK: %[[GW2:.*]] = nnc.reshape %[[GW]] : tensor<1x3xf32> -> tensor<3xf32>
// CHECK: return %[[L]], %[[GW2]], %[[GB]] : tensor<f32>, tensor<3xf32>, tensor<4x1xf32>
func.func @main(%x: tensor<4x3xf32>,
                %w: tensor<3xf32> {nnc.param = #nnc.param<trainable>},
                %b: tensor<4x1xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.mul %x, %w : tensor<4x3xf32>, tensor<3xf32>
  %1 = nnc.add %0, %b : tensor<4x3xf32>, tensor<4x1xf32>
  %2 = nnc.reduce sum %1 keepdims = false : tensor<4x3xf32>
  return %2 : tensor<f32>
}

// -----

// Unary ops reuse the forward result (exp, sqrt, tanh, sigmoid) or operand
// (log, relu); neg, sub and div follow their rules.
// CHECK-LABEL: func.func @main_grad(
// CHECK: %[[E:.*]] = nnc.exp %arg0
// CHECK: %[[SQ:.*]] = nnc.sqrt
// CHECK: %[[T:.*]] = nnc.tanh %[[SQ]]
// CHECK: %[[S:.*]] = nnc.sigmoid %[[T]]
// CHECK: %[[D:.*]] = nnc.div %{{.*}}, %arg0
// CHECK: %[[G:.*]] = nnc.expand
// CHECK: %[[GX:.*]] = nnc.neg %[[G]]
// CHECK: %[[GA:.*]] = nnc.div %[[G]], %arg0
// CHECK: %[[GB:.*]] = nnc.mul %[[GA]], %[[D]]
// CHECK: nnc.neg %[[GB]]
// CHECK: %[[GN:.*]] = nnc.neg %[[GA]]
// CHECK: %[[ZERO:.*]] = nnc.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[POS:.*]] = nnc.cmp gt, %[[S]], %[[ZERO]]
// CHECK: %[[GR:.*]] = nnc.where %[[POS]], %[[GN]], %[[ZERO]]
// CHECK: %[[ONE:.*]] = nnc.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[OMS:.*]] = nnc.sub %[[ONE]], %[[S]]
// CHECK: %[[DS:.*]] = nnc.mul %[[S]], %[[OMS]]
// CHECK: %[[GS:.*]] = nnc.mul %[[GR]], %[[DS]]
// CHECK: %[[TT:.*]] = nnc.mul %[[T]], %[[T]]
// CHECK: %[[DT:.*]] = nnc.sub %{{.*}}, %[[TT]]
// CHECK: %[[GT:.*]] = nnc.mul %[[GS]], %[[DT]]
// CHECK: %[[TWO:.*]] = nnc.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[TWOY:.*]] = nnc.mul %[[SQ]], %[[TWO]]
// CHECK: %[[GQ:.*]] = nnc.div %[[GT]], %[[TWOY]]
// CHECK: %[[GL:.*]] = nnc.div %[[GQ]], %[[E]]
// CHECK: %[[GE:.*]] = nnc.mul %[[GL]], %[[E]]
// CHECK: %[[SUM:.*]] = nnc.add %{{.*}}, %[[GE]]
// CHECK: return %{{.*}}, %[[SUM]] : tensor<f32>, tensor<3xf32>
func.func @main(%x: tensor<3xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.exp %x : tensor<3xf32>
  %1 = nnc.log %0 : tensor<3xf32>
  %2 = nnc.sqrt %1 : tensor<3xf32>
  %3 = nnc.tanh %2 : tensor<3xf32>
  %4 = nnc.sigmoid %3 : tensor<3xf32>
  %5 = nnc.relu %4 : tensor<3xf32>
  %6 = nnc.neg %5 : tensor<3xf32>
  %7 = nnc.div %6, %x : tensor<3xf32>, tensor<3xf32>
  %8 = nnc.sub %7, %x : tensor<3xf32>, tensor<3xf32>
  %9 = nnc.reduce sum %8 keepdims = false : tensor<3xf32>
  return %9 : tensor<f32>
}

// -----

// matmul: g x b^T and a^T x g. A matrix applied to a batch (a linear layer)
// gets its gradient from one product over all rows of the batch.
// CHECK-LABEL: func.func @main_grad(
// CHECK: %[[G:.*]] = nnc.expand %{{.*}} : tensor<1x1x1xf32> -> tensor<2x3x5xf32>
// CHECK: %[[BT:.*]] = nnc.transpose %arg1 perm = [1, 0] : tensor<4x5xf32>
// CHECK: %[[GA:.*]] = nnc.matmul %[[G]], %[[BT]] : tensor<2x3x5xf32>, tensor<5x4xf32>
// CHECK: %[[A2:.*]] = nnc.reshape %arg0 : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK: %[[G2:.*]] = nnc.reshape %[[G]] : tensor<2x3x5xf32> -> tensor<6x5xf32>
// CHECK: %[[AT:.*]] = nnc.transpose %[[A2]] perm = [1, 0] : tensor<6x4xf32>
// CHECK: %[[GB:.*]] = nnc.matmul %[[AT]], %[[G2]] : tensor<4x6xf32>, tensor<6x5xf32>
// CHECK: return %{{.*}}, %[[GA]], %[[GB]] : tensor<f32>, tensor<2x3x4xf32>, tensor<4x5xf32>
func.func @main(%a: tensor<2x3x4xf32> {nnc.param = #nnc.param<trainable>},
                %b: tensor<4x5xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.matmul %a, %b : tensor<2x3x4xf32>, tensor<4x5xf32>
  %1 = nnc.reduce sum %0 keepdims = false : tensor<2x3x5xf32>
  return %1 : tensor<f32>
}

// -----

// A batch broadcast along a unit dimension is summed away.
// CHECK-LABEL: func.func @main_grad(
// CHECK: %[[G:.*]] = nnc.expand %{{.*}} : tensor<1x1x1xf32> -> tensor<2x3x5xf32>
// CHECK: %[[AT:.*]] = nnc.transpose %arg0 perm = [0, 2, 1] : tensor<2x3x4xf32>
// CHECK: %[[GB3:.*]] = nnc.matmul %[[AT]], %[[G]] : tensor<2x4x3xf32>, tensor<2x3x5xf32>
// CHECK: %[[GBS:.*]] = nnc.reduce sum %[[GB3]] axes = [0] : tensor<2x4x5xf32>
// CHECK: return %{{.*}}, %{{.*}}, %[[GBS]] : tensor<f32>, tensor<2x3x4xf32>, tensor<1x4x5xf32>
func.func @main(%a: tensor<2x3x4xf32> {nnc.param = #nnc.param<trainable>},
                %b: tensor<1x4x5xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.matmul %a, %b : tensor<2x3x4xf32>, tensor<1x4x5xf32>
  %1 = nnc.reduce sum %0 keepdims = false : tensor<2x3x5xf32>
  return %1 : tensor<f32>
}

// -----

// gemm: the operand gradients are gemms with alpha; the bias gets beta * g
// summed over the rows.
// CHECK-LABEL: func.func @main_grad(
// CHECK: %[[G:.*]] = nnc.expand %{{.*}} -> tensor<3x5xf32>
// CHECK: %[[GA:.*]] = nnc.gemm %[[G]], %arg1 alpha = 2.000000e+00 : tensor<3x5xf32>, tensor<5x4xf32>
// CHECK: %[[GB:.*]] = nnc.gemm %[[G]], %arg0 trans_a = true alpha = 2.000000e+00 : tensor<3x5xf32>, tensor<3x4xf32>
// CHECK: %[[BETA:.*]] = nnc.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[GC2:.*]] = nnc.mul %[[G]], %[[BETA]]
// CHECK: %[[GCS:.*]] = nnc.reduce sum %[[GC2]] axes = [0] : tensor<3x5xf32>
// CHECK: %[[GC:.*]] = nnc.reshape %[[GCS]] : tensor<1x5xf32> -> tensor<5xf32>
// CHECK: return %{{.*}}, %[[GA]], %[[GB]], %[[GC]]
func.func @main(%a: tensor<3x4xf32> {nnc.param = #nnc.param<trainable>},
                %b: tensor<5x4xf32> {nnc.param = #nnc.param<trainable>},
                %c: tensor<5xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.gemm %a, %b, %c trans_b = true alpha = 2.0 beta = 0.5 : tensor<3x4xf32>, tensor<5x4xf32>, tensor<5xf32>
  %1 = nnc.reduce sum %0 keepdims = false : tensor<3x5xf32>
  return %1 : tensor<f32>
}

// -----

// transpose, reshape and reduce mean.
// CHECK-LABEL: func.func @main_grad(
// CHECK: %[[SCALE:.*]] = nnc.constant dense<0.0416666679> : tensor<f32>
// CHECK: %[[GM:.*]] = nnc.mul %{{.*}}, %[[SCALE]]
// CHECK: %[[K:.*]] = nnc.reshape %[[GM]] : tensor<f32> -> tensor<1x1xf32>
// CHECK: %[[E:.*]] = nnc.expand %[[K]] : tensor<1x1xf32> -> tensor<12x2xf32>
// CHECK: %[[R:.*]] = nnc.reshape %[[E]] : tensor<12x2xf32> -> tensor<3x4x2xf32>
// CHECK: %[[T:.*]] = nnc.transpose %[[R]] perm = [2, 0, 1] : tensor<3x4x2xf32>
// CHECK: return %{{.*}}, %[[T]] : tensor<f32>, tensor<2x3x4xf32>
func.func @main(%x: tensor<2x3x4xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.transpose %x perm = [1, 2, 0] : tensor<2x3x4xf32>
  %1 = nnc.reshape %0 : tensor<3x4x2xf32> -> tensor<12x2xf32>
  %2 = nnc.reduce mean %1 keepdims = false : tensor<12x2xf32>
  return %2 : tensor<f32>
}

// -----

// softmax and log_softmax along their axis.
// CHECK-LABEL: func.func @main_grad(
// CHECK: %[[SM:.*]] = nnc.softmax %arg0
// CHECK: %[[LSM:.*]] = nnc.log_softmax %[[SM]] axis = 0
// CHECK: %[[G:.*]] = nnc.expand
// CHECK: %[[S0:.*]] = nnc.reduce sum %[[G]] axes = [0] : tensor<2x3xf32>
// CHECK: %[[P:.*]] = nnc.exp %[[LSM]]
// CHECK: %[[PS:.*]] = nnc.mul %[[P]], %[[S0]]
// CHECK: %[[GL:.*]] = nnc.sub %[[G]], %[[PS]]
// CHECK: %[[GY:.*]] = nnc.mul %[[GL]], %[[SM]]
// CHECK: %[[S1:.*]] = nnc.reduce sum %[[GY]] axes = [1] : tensor<2x3xf32>
// CHECK: %[[D:.*]] = nnc.sub %[[GL]], %[[S1]]
// CHECK: %[[GX:.*]] = nnc.mul %[[SM]], %[[D]]
// CHECK: return %{{.*}}, %[[GX]]
func.func @main(%x: tensor<2x3xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.softmax %x : tensor<2x3xf32>
  %1 = nnc.log_softmax %0 axis = 0 : tensor<2x3xf32>
  %2 = nnc.reduce sum %1 keepdims = false : tensor<2x3xf32>
  return %2 : tensor<f32>
}

// -----

// mse_loss and cross_entropy; the labels get no gradient.
// CHECK-LABEL: func.func @main_grad(
// CHECK-SAME: -> (tensor<f64>, tensor<4x3xf64>)
// CHECK: %[[ONE:.*]] = nnc.constant dense<1.000000e+00> : tensor<f64>
// CHECK: %[[P:.*]] = nnc.softmax %arg0 axis = 1
// CHECK: %[[Q:.*]] = nnc.one_hot %arg2 depth = 3 axis = 1 on_value = 0.93333333333333335 off_value = 0.033333333333333333 : tensor<4xi64> -> f64
// CHECK: %[[D:.*]] = nnc.sub %[[P]], %[[Q]]
// CHECK: %[[N:.*]] = nnc.constant dense<2.500000e-01> : tensor<f64>
// CHECK: %[[GN:.*]] = nnc.mul %[[ONE]], %[[N]]
// CHECK: %[[GCE:.*]] = nnc.mul %[[D]], %[[GN]]
// CHECK: %[[DIFF:.*]] = nnc.sub %arg0, %arg1
// CHECK: %[[TWO:.*]] = nnc.constant dense<0.16666666666666666> : tensor<f64>
// CHECK: %[[SC:.*]] = nnc.mul %[[DIFF]], %[[TWO]]
// CHECK: %[[GMSE:.*]] = nnc.mul %[[SC]], %[[ONE]]
// CHECK: %[[GX:.*]] = nnc.add %[[GCE]], %[[GMSE]]
// CHECK: return %{{.*}}, %[[GX]] : tensor<f64>, tensor<4x3xf64>
func.func @main(%x: tensor<4x3xf64> {nnc.param = #nnc.param<trainable>},
                %t: tensor<4x3xf64>, %y: tensor<4xi64>)
    -> tensor<f64> {
  %0 = nnc.mse_loss %x, %t : tensor<4x3xf64>, tensor<4x3xf64>
  %1 = nnc.cross_entropy %x, %y label_smoothing = 0.1 : tensor<4x3xf64>, tensor<4xi64>
  %2 = nnc.add %0, %1 : tensor<f64>, tensor<f64>
  return %2 : tensor<f64>
}

// -----

// A value used twice accumulates its gradients; frozen parameters and
// constants get none; a parameter the loss ignores gets zeros; the second
// result passes through after the gradients.
// CHECK-LABEL: func.func @main_grad(
// CHECK-SAME: -> (tensor<f32>, tensor<3xf32>, tensor<2xf32>, tensor<3xf32>) attributes {nnc.result_names = ["loss", "grad0", "grad2", "output1"]}
// CHECK: %[[C:.*]] = nnc.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]>
// CHECK: %[[G:.*]] = nnc.expand
// CHECK: %[[G1:.*]] = nnc.mul %[[G]], %[[C]]
// CHECK: %[[G0:.*]] = nnc.mul %[[G1]], %arg1
// CHECK: %[[GW:.*]] = nnc.add %[[G]], %[[G0]]
// CHECK: %[[ZERO:.*]] = nnc.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK: return %{{.*}}, %[[GW]], %[[ZERO]], %{{.*}} : tensor<f32>, tensor<3xf32>, tensor<2xf32>, tensor<3xf32>
func.func @main(%w: tensor<3xf32> {nnc.param = #nnc.param<trainable>},
                %f: tensor<3xf32> {nnc.param = #nnc.param<frozen>},
                %u: tensor<2xf32> {nnc.param = #nnc.param<trainable>})
    -> (tensor<f32>, tensor<3xf32>) {
  %c = nnc.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = nnc.mul %w, %f : tensor<3xf32>, tensor<3xf32>
  %1 = nnc.mul %0, %c : tensor<3xf32>, tensor<3xf32>
  %2 = nnc.add %1, %w : tensor<3xf32>, tensor<3xf32>
  %3 = nnc.reduce sum %2 keepdims = false : tensor<3xf32>
  return %3, %0 : tensor<f32>, tensor<3xf32>
}

// -----

// A function without results has no loss.
// expected-error @+1 {{nnc-autodiff: function 'main' has no results; the first must be the loss}}
func.func @main(%x: tensor<3xf32>) {
  return
}

// -----

// The loss must be a scalar.
// expected-error @+1 {{nnc-autodiff: the first result of 'main' must be the loss, a tensor<f32> or tensor<f64>, got 'tensor<3xf32>'}}
func.func @main(%x: tensor<3xf32> {nnc.param = #nnc.param<trainable>}) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

// -----

// An op on the path from a parameter to the loss without a rule.
func.func @main(%x: tensor<4xf32> {nnc.param = #nnc.param<trainable>},
                %i: tensor<2x1xi64>, %u: tensor<2xf32>) -> tensor<f32> {
  // expected-error @+1 {{nnc-autodiff: no gradient rule for 'nnc.scatter_nd' with reduction = max yet}}
  %0 = nnc.scatter_nd %x, %i, %u reduction = max : tensor<4xf32>, tensor<2x1xi64>, tensor<2xf32>
  %1 = nnc.reduce sum %0 keepdims = false : tensor<4xf32>
  return %1 : tensor<f32>
}

// -----

// A mean over a dynamic dimension: g is broadcast by multiplying with
// ones of x's shape (an expand to `?` would never become static) and
// divided by the count computed at run time from those ones.
// CHECK-LABEL: func.func @main_grad(
// CHECK: %[[ONE:.*]] = nnc.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[EQ:.*]] = nnc.cmp eq, %arg0, %arg0 : tensor<?xf32>, tensor<?xf32>
// CHECK: %[[ONES:.*]] = nnc.cast %[[EQ]] : tensor<?xi1> to tensor<?xf32>
// CHECK: %[[N:.*]] = nnc.reduce sum %[[ONES]] axes = [0] : tensor<?xf32>
// CHECK: %[[G:.*]] = nnc.reshape %[[ONE]] : tensor<f32> -> tensor<1xf32>
// CHECK: %[[GE:.*]] = nnc.mul %[[G]], %{{.*}} : tensor<1xf32>, tensor<?xf32>
// CHECK: %[[GX:.*]] = nnc.div %[[GE]], %[[N]] : tensor<?xf32>, tensor<1xf32>
// CHECK: return %{{.*}}, %[[GX]] : tensor<f32>, tensor<?xf32>
func.func @main(%x: tensor<?xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.reduce mean %x keepdims = false : tensor<?xf32>
  return %0 : tensor<f32>
}

// -----

// reduce max splits g evenly between the elements equal to the maximum;
// cumsum's gradient is the cumulative sum of g the other way round.
// CHECK-LABEL: func.func @main_grad(
// CHECK: %[[C:.*]] = nnc.cumsum %arg0 axis = 1 exclusive = true
// CHECK: %[[M:.*]] = nnc.reduce max %[[C]] axes = [1] keepdims = false
// CHECK: %[[G:.*]] = nnc.expand
// CHECK: %[[MK:.*]] = nnc.reshape %[[M]] : tensor<2xf32> -> tensor<2x1xf32>
// CHECK: %[[ME:.*]] = nnc.expand %[[MK]] : tensor<2x1xf32> -> tensor<2x3xf32>
// CHECK: %[[EQ:.*]] = nnc.cmp eq, %[[C]], %[[ME]]
// CHECK: %[[EQF:.*]] = nnc.cast %[[EQ]] : tensor<2x3xi1> to tensor<2x3xf32>
// CHECK: %[[N:.*]] = nnc.reduce sum %[[EQF]] axes = [1] : tensor<2x3xf32>
// CHECK: %[[GE:.*]] = nnc.expand %{{.*}} : tensor<2x1xf32> -> tensor<2x3xf32>
// CHECK: %[[SH:.*]] = nnc.div %[[GE]], %[[N]]
// CHECK: %[[GM:.*]] = nnc.where %[[EQ]], %[[SH]], %{{.*}}
// CHECK: %[[GC:.*]] = nnc.cumsum %[[GM]] axis = 1 exclusive = true reverse = true
// CHECK: return %{{.*}}, %[[GC]]
func.func @main(%x: tensor<2x3xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.cumsum %x axis = 1 exclusive = true : tensor<2x3xf32>
  %1 = nnc.reduce max %0 axes = [1] keepdims = false : tensor<2x3xf32>
  %2 = nnc.reduce sum %1 keepdims = false : tensor<2xf32>
  return %2 : tensor<f32>
}

// -----

// cross_entropy with mean over labels whose type spells a `?`: the count
// comes from the static logits (1 / 4).
// CHECK-LABEL: func.func @main_grad(
// CHECK: nnc.one_hot %arg1 depth = 3 axis = 1 : tensor<?xi64> -> f32
// CHECK: nnc.constant dense<2.500000e-01> : tensor<f32>
func.func @main(%x: tensor<4x3xf32> {nnc.param = #nnc.param<trainable>},
                %y: tensor<?xi64>) -> tensor<f32> {
  %0 = nnc.cross_entropy %x, %y : tensor<4x3xf32>, tensor<?xi64>
  return %0 : tensor<f32>
}

// -----

// flatten, squeeze and unsqueeze: the gradient is reshaped back.
// CHECK-LABEL: func.func @main_grad(
// CHECK: %[[G:.*]] = nnc.expand %{{.*}} : tensor<1x1xf32> -> tensor<2x6xf32>
// CHECK: %[[G1:.*]] = nnc.reshape %[[G]] : tensor<2x6xf32> -> tensor<1x2x3x2xf32>
// CHECK: %[[G2:.*]] = nnc.reshape %[[G1]] : tensor<1x2x3x2xf32> -> tensor<2x3x2xf32>
// CHECK: %[[G3:.*]] = nnc.reshape %[[G2]] : tensor<2x3x2xf32> -> tensor<2x1x3x2xf32>
// CHECK: return %{{.*}}, %[[G3]]
func.func @main(%x: tensor<2x1x3x2xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.squeeze %x axes = [1] : tensor<2x1x3x2xf32>
  %1 = nnc.unsqueeze %0 axes = [0] : tensor<2x3x2xf32>
  %2 = nnc.flatten %1 axis = 2 : tensor<1x2x3x2xf32>
  %3 = nnc.reduce sum %2 keepdims = false : tensor<2x6xf32>
  return %3 : tensor<f32>
}

// -----

// max routes g to the first operand where it is >= the second (ties to the
// first), min where it is <=; where splits g by its condition, which gets
// no gradient.
// CHECK-LABEL: func.func @main_grad(
// CHECK-SAME: %[[A:[^:]*]]: tensor<3x4xf32>
// CHECK-SAME: %[[B:[^:]*]]: tensor<4xf32>
// CHECK-SAME: %[[C:[^:]*]]: tensor<3x4xi1>
// CHECK: %[[MAX:.*]] = nnc.max %[[A]], %[[B]]
// CHECK: %[[MIN:.*]] = nnc.min %[[MAX]], %[[B]]
// CHECK: %[[G:.*]] = nnc.expand
// CHECK: %[[Z:.*]] = nnc.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[GT:.*]] = nnc.where %[[C]], %[[G]], %[[Z]]
// CHECK: %[[GF:.*]] = nnc.where %[[C]], %[[Z]], %[[G]]
// CHECK: nnc.reduce sum %[[GF]] axes = [0]
// CHECK: %[[LE:.*]] = nnc.cmp le, %[[MAX]], %[[B]]
// CHECK: nnc.where %[[LE]], %[[GT]], %{{.*}}
// CHECK: nnc.where %[[LE]], %{{.*}}, %[[GT]]
// CHECK: %[[GE:.*]] = nnc.cmp ge, %[[A]], %[[B]]
// CHECK: nnc.where %[[GE]], %{{.*}}, %{{.*}}
// CHECK: nnc.where %[[GE]], %{{.*}}, %{{.*}}
func.func @main(%a: tensor<3x4xf32> {nnc.param = #nnc.param<trainable>},
                %b: tensor<4xf32> {nnc.param = #nnc.param<trainable>},
                %c: tensor<3x4xi1>) -> tensor<f32> {
  %0 = nnc.max %a, %b : tensor<3x4xf32>, tensor<4xf32>
  %1 = nnc.min %0, %b : tensor<3x4xf32>, tensor<4xf32>
  %2 = nnc.where %c, %1, %b : tensor<3x4xi1>, tensor<3x4xf32>, tensor<4xf32>
  %3 = nnc.reduce sum %2 keepdims = false : tensor<3x4xf32>
  return %3 : tensor<f32>
}

// -----

// conv: the input gradient is a conv_transpose of g with the same kernel,
// whose output padding restores the input row and column the strided
// windows never read; the weight gradient is one conv_weight_grad of x and
// g with the convolution's window; the bias sums g.
// CHECK-LABEL: func.func @main_grad(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x5x5xf32>
// CHECK-SAME: %[[W:[^:]*]]: tensor<3x2x3x3xf32>
// CHECK: %[[G:.*]] = nnc.expand %{{.*}} : tensor<1x1x1x1xf32> -> tensor<1x3x2x2xf32>
// CHECK: %[[GX:.*]] = nnc.conv_transpose %[[G]], %[[W]] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 0, 0] output_padding = [1, 1] : tensor<1x3x2x2xf32>, tensor<3x2x3x3xf32>
// CHECK: %[[GW:.*]] = nnc.conv_weight_grad %[[X]], %[[G]] kernel_shape = [3, 3] strides = [2, 2] dilations = [1, 1] pads = [1, 1, 0, 0] : tensor<1x2x5x5xf32>, tensor<1x3x2x2xf32>
// CHECK: %[[GB:.*]] = nnc.reduce sum %[[G]] axes = [0, 2, 3] keepdims = false
// CHECK: return %{{.*}}, %[[GX]], %[[GW]], %[[GB]] : tensor<f32>, tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>
func.func @main(%x: tensor<1x2x5x5xf32> {nnc.param = #nnc.param<trainable>},
                %w: tensor<3x2x3x3xf32> {nnc.param = #nnc.param<trainable>},
                %b: tensor<3xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.conv %x, %w, %b strides = [2, 2] pads = [1, 1, 0, 0]
      : tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>
  %1 = nnc.reduce sum %0 keepdims = false : tensor<1x3x2x2xf32>
  return %1 : tensor<f32>
}

// -----

// A grouped convolution: the weight gradient keeps the groups.
// CHECK-LABEL: func.func @main_grad(
// CHECK: %[[G:.*]] = nnc.expand %{{.*}} -> tensor<1x4x3x3xf32>
// CHECK: %[[GW:.*]] = nnc.conv_weight_grad %arg0, %[[G]] kernel_shape = [3, 3] strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 2 : tensor<1x4x5x5xf32>, tensor<1x4x3x3xf32>
// CHECK: return %{{.*}}, %[[GW]]
func.func @main(%x: tensor<1x4x5x5xf32>,
                %w: tensor<4x2x3x3xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.conv %x, %w groups = 2 : tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>
  %1 = nnc.reduce sum %0 keepdims = false : tensor<1x4x3x3xf32>
  return %1 : tensor<f32>
}

// -----

// max_pool: one nnc.max_pool_grad of the input and g with the pooling's
// attributes (ceil_mode too); the pooling's result is not read.
// CHECK-LABEL: func.func @main_grad(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x5x5xf32>
// CHECK: %[[G:.*]] = nnc.expand
// CHECK: %[[GX:.*]] = nnc.max_pool_grad %[[X]], %[[G]] kernel_shape = [2, 2] strides = [2, 2] ceil_mode = true : tensor<1x2x5x5xf32>, tensor<1x2x3x3xf32>
// CHECK: return %{{.*}}, %[[GX]]
func.func @main(%x: tensor<1x2x5x5xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.max_pool %x kernel_shape = [2, 2] strides = [2, 2] ceil_mode = true
      : tensor<1x2x5x5xf32>
  %1 = nnc.reduce sum %0 keepdims = false : tensor<1x2x3x3xf32>
  return %1 : tensor<f32>
}

// -----

// avg_pool: g scaled by avg_pool(ones) / valid (the per-window count of
// input elements, a constant) is spread by conv_transpose with a kernel of
// ones; global_avg_pool expands g / (H * W).
// CHECK-LABEL: func.func @main_grad(
// CHECK: %[[G:.*]] = nnc.expand %{{.*}} : tensor<1x1x1x1xf32> -> tensor<1x2x1x1xf32>
// CHECK: %[[C:.*]] = nnc.constant dense<6.250000e-02> : tensor<f32>
// CHECK: %[[GS:.*]] = nnc.mul %[[G]], %[[C]]
// CHECK: %[[GP:.*]] = nnc.expand %[[GS]] : tensor<1x2x1x1xf32> -> tensor<1x2x4x4xf32>
// CHECK: %[[ONES:.*]] = nnc.constant dense<1.000000e+00> : tensor<1x1x4x4xf32>
// CHECK: %[[AVG1:.*]] = nnc.avg_pool %[[ONES]] kernel_shape = [3, 3] pads = [1, 1, 1, 1] : tensor<1x1x4x4xf32>
// CHECK: %[[VALID:.*]] = nnc.constant dense<{{\[\[\[\[}}4.000000e+00, 6.000000e+00, 6.000000e+00, 4.000000e+00], [6.000000e+00, 9.000000e+00
// CHECK: %[[SCALE:.*]] = nnc.div %[[AVG1]], %[[VALID]]
// CHECK: %[[K:.*]] = nnc.constant dense<1.000000e+00> : tensor<1x1x3x3xf32>
// CHECK: %[[GM:.*]] = nnc.mul %[[GP]], %[[SCALE]]
// CHECK: %[[GV:.*]] = nnc.reshape %[[GM]] : tensor<1x2x4x4xf32> -> tensor<2x1x4x4xf32>
// CHECK: %[[DX:.*]] = nnc.conv_transpose %[[GV]], %[[K]] strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] output_padding = [0, 0]
// CHECK: %[[GX:.*]] = nnc.reshape %[[DX]] : tensor<2x1x4x4xf32> -> tensor<1x2x4x4xf32>
// CHECK: return %{{.*}}, %[[GX]]
func.func @main(%x: tensor<1x2x4x4xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.avg_pool %x kernel_shape = [3, 3] pads = [1, 1, 1, 1]
      : tensor<1x2x4x4xf32>
  %1 = nnc.global_avg_pool %0 : tensor<1x2x4x4xf32>
  %2 = nnc.reduce sum %1 keepdims = false : tensor<1x2x1x1xf32>
  return %2 : tensor<f32>
}

// -----

// batch_norm_train: the gradient uses the batch statistics; the running
// statistics get none, and the updated running mean may be returned (it
// passes through _grad after the gradients).
// CHECK-LABEL: func.func @main_grad(
// CHECK-SAME: -> (tensor<f32>, tensor<4x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK: %[[Y:.*]], %[[BM:.*]], %[[BV:.*]], %[[NRM:.*]], %{{.*}} = nnc.batch_norm_train
// CHECK: %[[G:.*]] = nnc.expand
// CHECK: %[[EPS:.*]] = nnc.constant dense<9.99999974E-6> : tensor<f32>
// CHECK: %[[V:.*]] = nnc.reshape %[[BV]] : tensor<2xf32> -> tensor<1x2x1xf32>
// CHECK: %[[VE:.*]] = nnc.add %[[V]], %[[EPS]]
// CHECK: %[[R:.*]] = nnc.rsqrt %[[VE]]
// CHECK: %[[M:.*]] = nnc.reshape %[[BM]] : tensor<2xf32> -> tensor<1x2x1xf32>
// CHECK: %[[XC:.*]] = nnc.sub %arg0, %[[M]]
// CHECK: %[[XH:.*]] = nnc.mul %[[XC]], %[[R]]
// CHECK: %[[SG:.*]] = nnc.reduce sum %[[G]] axes = [0, 2] : tensor<4x2x3xf32>
// CHECK: %[[GXH:.*]] = nnc.mul %[[G]], %[[XH]]
// CHECK: %[[SGX:.*]] = nnc.reduce sum %[[GXH]] axes = [0, 2] : tensor<4x2x3xf32>
// CHECK: %[[CNT:.*]] = nnc.constant dense<1.200000e+01> : tensor<f32>
// CHECK: %[[F:.*]] = nnc.div %{{.*}}, %[[CNT]] : tensor<1x2x1xf32>, tensor<f32>
// CHECK: %[[DX:.*]] = nnc.mul %{{.*}}, %[[F]] : tensor<4x2x3xf32>, tensor<1x2x1xf32>
// CHECK: %[[DS:.*]] = nnc.reshape %[[SGX]] : tensor<1x2x1xf32> -> tensor<2xf32>
// CHECK: %[[DB:.*]] = nnc.reshape %[[SG]] : tensor<1x2x1xf32> -> tensor<2xf32>
// CHECK: return %{{.*}}, %[[DX]], %[[DS]], %[[DB]], %[[NRM]]
func.func @main(%x: tensor<4x2x3xf32> {nnc.param = #nnc.param<trainable>},
                %s: tensor<2xf32> {nnc.param = #nnc.param<trainable>},
                %b: tensor<2xf32> {nnc.param = #nnc.param<trainable>},
                %rm: tensor<2xf32>, %rv: tensor<2xf32>)
    -> (tensor<f32>, tensor<2xf32>) {
  %y, %bm, %bv, %nrm, %nrv = nnc.batch_norm_train %x, %s, %b, %rm, %rv
      : tensor<4x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
        tensor<2xf32>
  %0 = nnc.reduce sum %y keepdims = false : tensor<4x2x3xf32>
  return %0, %nrm : tensor<f32>, tensor<2xf32>
}

// -----

// A loss through batch_norm_train's batch variance only: g of the output
// is zero, and the variance's gradient adds 2 (x - mean) / M times its g.
// CHECK-LABEL: func.func @main_grad(
// CHECK: %{{.*}}, %[[BM:.*]], %[[BV:.*]], %{{.*}}, %{{.*}} = nnc.batch_norm_train
// CHECK: %[[GV:.*]] = nnc.expand %{{.*}} : tensor<1xf32> -> tensor<2xf32>
// CHECK: %[[Z:.*]] = nnc.constant dense<0.000000e+00> : tensor<4x2x3xf32>
// CHECK: %[[M:.*]] = nnc.reshape %[[BM]] : tensor<2xf32> -> tensor<1x2x1xf32>
// CHECK: %[[C:.*]] = nnc.sub %arg0, %[[M]]
// CHECK: %[[GVS:.*]] = nnc.reshape %[[GV]] : tensor<2xf32> -> tensor<1x2x1xf32>
// CHECK: %[[CG:.*]] = nnc.mul %[[C]], %[[GVS]]
// CHECK: %[[F:.*]] = nnc.constant dense<0.166666672> : tensor<f32>
// CHECK: %[[D:.*]] = nnc.mul %[[CG]], %[[F]]
// CHECK: %[[GX:.*]] = nnc.add %{{.*}}, %[[D]] : tensor<4x2x3xf32>, tensor<4x2x3xf32>
// CHECK: return %{{.*}}, %[[GX]]
func.func @main(%x: tensor<4x2x3xf32> {nnc.param = #nnc.param<trainable>},
                %s: tensor<2xf32>, %b: tensor<2xf32>,
                %rm: tensor<2xf32>, %rv: tensor<2xf32>) -> tensor<f32> {
  %y, %bm, %bv, %nrm, %nrv = nnc.batch_norm_train %x, %s, %b, %rm, %rv
      : tensor<4x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
        tensor<2xf32>
  %0 = nnc.reduce sum %bv keepdims = false : tensor<2xf32>
  return %0 : tensor<f32>
}

// -----

// layer_norm: the gradient reuses the op's mean and inv_std results; scale
// and bias gradients are summed over the leading dimensions.
// CHECK-LABEL: func.func @main_grad(
// CHECK: %[[Y:.*]], %[[MEAN:.*]], %[[ISTD:.*]] = nnc.layer_norm %arg0 scale(%arg1 : tensor<3xf32>) bias(%arg2 : tensor<3xf32>)
// CHECK: %[[G:.*]] = nnc.expand
// CHECK: %[[XC:.*]] = nnc.sub %arg0, %[[MEAN]] : tensor<4x3xf32>, tensor<4x1xf32>
// CHECK: %[[XH:.*]] = nnc.mul %[[XC]], %[[ISTD]]
// CHECK: %[[D:.*]] = nnc.mul %[[G]], %arg1
// CHECK: %[[GXH:.*]] = nnc.mul %[[G]], %[[XH]]
// CHECK: %[[DS:.*]] = nnc.reduce sum %[[GXH]] axes = [0]
// CHECK: %[[DS2:.*]] = nnc.reshape %[[DS]] : tensor<1x3xf32> -> tensor<3xf32>
// CHECK: %[[DB:.*]] = nnc.reduce sum %[[G]] axes = [0]
// CHECK: %[[DB2:.*]] = nnc.reshape %[[DB]] : tensor<1x3xf32> -> tensor<3xf32>
// CHECK: %[[SD:.*]] = nnc.reduce sum %[[D]] axes = [1]
// CHECK: %[[DXH:.*]] = nnc.mul %[[D]], %[[XH]]
// CHECK: %[[SDX:.*]] = nnc.reduce sum %[[DXH]] axes = [1]
// CHECK: %[[M:.*]] = nnc.constant dense<3.000000e+00> : tensor<f32>
// CHECK: %[[F:.*]] = nnc.div %[[ISTD]], %[[M]]
// CHECK: %[[DX:.*]] = nnc.mul %{{.*}}, %[[F]]
// CHECK: return %{{.*}}, %[[DX]], %[[DS2]], %[[DB2]]
func.func @main(%x: tensor<4x3xf32> {nnc.param = #nnc.param<trainable>},
                %s: tensor<3xf32> {nnc.param = #nnc.param<trainable>},
                %b: tensor<3xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %y, %m, %r = nnc.layer_norm %x scale(%s : tensor<3xf32>)
      bias(%b : tensor<3xf32>) : tensor<4x3xf32>
  %0 = nnc.reduce sum %y keepdims = false : tensor<4x3xf32>
  return %0 : tensor<f32>
}

// -----

// Unary rules: a cast back to the operand's float type, floor with no
// gradient (only its use as a factor), pow for base and exponent (the
// exponent only where the base is positive), clip where inside its bounds
// and the exact gelu Phi(x) + x phi(x).
// CHECK-LABEL: func.func @main_grad(
// CHECK: %[[GELU:.*]] = nnc.gelu %arg0
// CHECK: %[[CLIP:.*]] = nnc.clip %[[GELU]]
// CHECK: %[[POW:.*]] = nnc.pow %[[CLIP]], %arg1
// CHECK: %[[FLOOR:.*]] = nnc.floor
// CHECK: %[[G:.*]] = nnc.expand
// CHECK: %[[G64:.*]] = nnc.cast %[[G]] : tensor<3xf32> to tensor<3xf64>
// CHECK: %[[GM:.*]] = nnc.mul %[[G64]], %[[FLOOR]]
// CHECK: %[[G32:.*]] = nnc.cast %[[GM]] : tensor<3xf64> to tensor<3xf32>
// CHECK: %[[GE:.*]] = nnc.mul %[[G32]], %arg1
// CHECK: %[[EM1:.*]] = nnc.add %arg1, %{{.*}} : tensor<f32>, tensor<f32>
// CHECK: %[[P:.*]] = nnc.pow %[[CLIP]], %[[EM1]]
// CHECK: %[[GB:.*]] = nnc.mul %[[GE]], %[[P]]
// CHECK: %[[POS:.*]] = nnc.cmp gt, %[[CLIP]], %{{.*}}
// CHECK: %[[GY:.*]] = nnc.mul %[[G32]], %[[POW]]
// CHECK: %[[LOG:.*]] = nnc.log %[[CLIP]]
// CHECK: %[[GYL:.*]] = nnc.mul %[[GY]], %[[LOG]]
// CHECK: %[[GEXP:.*]] = nnc.where %[[POS]], %[[GYL]], %{{.*}}
// CHECK: %[[GEXPS:.*]] = nnc.reduce sum %[[GEXP]] axes = [0]
// CHECK: %[[GEXPR:.*]] = nnc.reshape %[[GEXPS]] : tensor<1xf32> -> tensor<f32>
// CHECK: %[[IN:.*]] = nnc.cmp ge, %[[GELU]], %{{.*}}
// CHECK: %[[GC:.*]] = nnc.where %[[IN]], %[[GB]], %{{.*}}
// CHECK: nnc.erf
// CHECK: nnc.exp
// CHECK: %[[D:.*]] = nnc.add
// CHECK: %[[GX:.*]] = nnc.mul %[[GC]], %[[D]]
// CHECK: return %{{.*}}, %[[GX]], %[[GEXPR]]
func.func @main(%x: tensor<3xf32> {nnc.param = #nnc.param<trainable>},
                %e: tensor<f32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.gelu %x : tensor<3xf32>
  %1 = nnc.clip %0 {min = 0.0 : f64} : tensor<3xf32>
  %2 = nnc.pow %1, %e : tensor<3xf32>, tensor<f32>
  %3 = nnc.cast %2 : tensor<3xf32> to tensor<3xf64>
  %4 = nnc.floor %3 : tensor<3xf64>
  %5 = nnc.mul %3, %4 : tensor<3xf64>, tensor<3xf64>
  %6 = nnc.cast %5 : tensor<3xf64> to tensor<3xf32>
  %7 = nnc.reduce sum %6 keepdims = false : tensor<3xf32>
  return %7 : tensor<f32>
}

// -----

// Shape ops: pad crops g back (pad by the negated amounts), slice pads it
// back with zeros, concat slices it per operand, and gather (an embedding
// lookup) scatter-adds the rows of g into zeros at the indices.
// CHECK-LABEL: func.func @main_grad(
// CHECK: %[[G:.*]] = nnc.expand %{{.*}} -> tensor<6x6xf32>
// CHECK: %[[GP:.*]] = nnc.pad %[[G]] pads = [0, -1, 0, -1] : tensor<6x6xf32>
// CHECK: %[[GS:.*]] = nnc.pad %[[GP]] pads = [1, 0, 1, 0] : tensor<6x4xf32>
// CHECK: %[[G0:.*]] = nnc.slice %[[GS]] starts = [0] ends = [6] axes = [0] : tensor<8x4xf32>
// CHECK: %[[G1:.*]] = nnc.slice %[[GS]] starts = [6] ends = [8] axes = [0] : tensor<8x4xf32>
// CHECK: %[[R:.*]] = nnc.reshape %[[G0]] : tensor<6x4xf32> -> tensor<2x3x4xf32>
// CHECK: %[[ROWS:.*]] = nnc.reshape %[[R]] : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK: %[[IDX:.*]] = nnc.reshape %arg2 : tensor<2x3xi64> -> tensor<6x1xi64>
// CHECK: %[[Z:.*]] = nnc.constant dense<0.000000e+00> : tensor<5x4xf32>
// CHECK: %[[GE:.*]] = nnc.scatter_nd %[[Z]], %[[IDX]], %[[ROWS]] reduction = add
// CHECK: return %{{.*}}, %[[GE]], %[[G1]]
func.func @main(%emb: tensor<5x4xf32> {nnc.param = #nnc.param<trainable>},
                %x: tensor<2x4xf32> {nnc.param = #nnc.param<trainable>},
                %idx: tensor<2x3xi64>) -> tensor<f32> {
  %0 = nnc.gather %emb, %idx : tensor<5x4xf32>, tensor<2x3xi64>
  %1 = nnc.reshape %0 : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %2 = nnc.concat %1, %x axis = 0 : tensor<6x4xf32>, tensor<2x4xf32>
  %3 = nnc.slice %2 starts = [1] ends = [7] : tensor<8x4xf32>
  %4 = nnc.pad %3 pads = [0, 1, 0, 1] : tensor<6x4xf32>
  %5 = nnc.reduce sum %4 keepdims = false : tensor<6x6xf32>
  return %5 : tensor<f32>
}

// -----

// pad in reflect mode: the middle of g plus the reversed pads of g added
// where they were mirrored from.
// CHECK-LABEL: func.func @main_grad(
// CHECK: %[[G:.*]] = nnc.add
// CHECK: %[[MID:.*]] = nnc.slice %[[G]] starts = [2] ends = [6] axes = [0]
// CHECK: %[[L:.*]] = nnc.slice %[[G]] starts = [0] ends = [2] axes = [0]
// CHECK: %[[LR:.*]] = nnc.slice %[[L]] starts = [-1] ends = [-9223372036854775808] axes = [0] steps = [-1]
// CHECK: %[[LP:.*]] = nnc.pad %[[LR]] pads = [1, 1] : tensor<2xf32>
// CHECK: %[[S1:.*]] = nnc.add %[[MID]], %[[LP]]
// CHECK: %[[R:.*]] = nnc.slice %[[G]] starts = [6] ends = [7] axes = [0]
// CHECK: %[[RR:.*]] = nnc.slice %[[R]] starts = [-1]
// CHECK: %[[RP:.*]] = nnc.pad %[[RR]] pads = [2, 1] : tensor<1xf32>
// CHECK: %[[GX:.*]] = nnc.add %[[S1]], %[[RP]]
// CHECK: return %{{.*}}, %[[GX]]
func.func @main(%x: tensor<4xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.pad %x pads = [2, 1] mode = reflect : tensor<4xf32>
  %1 = nnc.mul %0, %0 : tensor<7xf32>, tensor<7xf32>
  %2 = nnc.reduce sum %1 keepdims = false : tensor<7xf32>
  return %2 : tensor<f32>
}

// -----

// pad in edge mode with a crop has no rule.
func.func @main(%x: tensor<4xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  // expected-error @+1 {{nnc-autodiff: no gradient rule for 'nnc.pad' in mode 'edge' with a crop or a pad larger than its dimension yet}}
  %0 = nnc.pad %x pads = [-1, 2] mode = edge : tensor<4xf32>
  %1 = nnc.reduce sum %0 keepdims = false : tensor<5xf32>
  return %1 : tensor<f32>
}

// -----

// cross_entropy with a class weight and ignore_index: ignored labels read
// class 0 and are masked out, the target is scaled by the weight, and the
// mean divides by the weights of the labels not ignored.
// CHECK-LABEL: func.func @main_grad(
// CHECK: %[[ONE:.*]] = nnc.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[II:.*]] = nnc.constant dense<-100> : tensor<i64>
// CHECK: %[[KEEP:.*]] = nnc.cmp ne, %arg1, %[[II]]
// CHECK: %[[SAFE:.*]] = nnc.where %[[KEEP]], %arg1, %{{.*}}
// CHECK: %[[VALID:.*]] = nnc.cast %[[KEEP]] : tensor<4xi1> to tensor<4xf32>
// CHECK: %[[P:.*]] = nnc.softmax %arg0 axis = 1
// CHECK: %[[Q:.*]] = nnc.one_hot %[[SAFE]] depth = 3 axis = 1 : tensor<4xi64> -> f32
// CHECK: %[[WC:.*]] = nnc.reshape %arg2 : tensor<3xf32> -> tensor<1x3xf32>
// CHECK: %[[QW:.*]] = nnc.mul %[[Q]], %[[WC]]
// CHECK: %[[VC:.*]] = nnc.reshape %[[VALID]] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK: %[[A:.*]] = nnc.mul %[[QW]], %[[VC]]
// CHECK: %[[SA:.*]] = nnc.reduce sum %[[A]] axes = [1]
// CHECK: %[[PA:.*]] = nnc.mul %[[P]], %[[SA]]
// CHECK: %[[D:.*]] = nnc.sub %[[PA]], %[[A]]
// CHECK: %[[WT:.*]] = nnc.gather %arg2, %[[SAFE]]
// CHECK: %[[WV:.*]] = nnc.mul %[[WT]], %[[VALID]]
// CHECK: %[[TOT:.*]] = nnc.reduce sum %[[WV]] keepdims = false
// CHECK: %[[GL:.*]] = nnc.div %[[ONE]], %[[TOT]]
// CHECK: %[[GX:.*]] = nnc.mul %[[D]], %[[GL]]
// CHECK: return %{{.*}}, %[[GX]]
func.func @main(%x: tensor<4x3xf32> {nnc.param = #nnc.param<trainable>},
                %y: tensor<4xi64>, %w: tensor<3xf32>) -> tensor<f32> {
  %0 = nnc.cross_entropy %x, %y weight(%w : tensor<3xf32>) ignore_index = -100 : tensor<4x3xf32>, tensor<4xi64>
  return %0 : tensor<f32>
}

// -----

// A trainable class weight of nll_loss (sum): minus the target times the
// input, summed per class.
// CHECK-LABEL: func.func @main_grad(
// CHECK-SAME: -> (tensor<f32>, tensor<3xf32>)
// CHECK: %[[ONE:.*]] = nnc.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[Q:.*]] = nnc.one_hot %arg1 depth = 3 axis = 1 : tensor<4xi64> -> f32
// CHECK: %[[QX:.*]] = nnc.mul %[[Q]], %arg0
// CHECK: %[[N:.*]] = nnc.neg %[[QX]]
// CHECK: %[[S:.*]] = nnc.reduce sum %[[N]] axes = [0] keepdims = false
// CHECK: %[[GW:.*]] = nnc.mul %[[S]], %[[ONE]]
// CHECK: return %{{.*}}, %[[GW]]
func.func @main(%x: tensor<4x3xf32>, %y: tensor<4xi64>,
                %w: tensor<3xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.nll_loss %x, %y weight(%w : tensor<3xf32>) reduction = sum : tensor<4x3xf32>, tensor<4xi64>
  return %0 : tensor<f32>
}

// -----

// Training dropout scales g by the op's own mask / (1 - ratio) (the
// forward is not re-drawn); a rank-1 matmul operand is treated as a
// [K, 1] matrix and its gradient reshaped back.
// CHECK-LABEL: func.func @main_grad(
// CHECK: %[[Y:.*]] = nnc.matmul %arg0, %arg1 : tensor<4x3xf32>, tensor<3xf32>
// CHECK: %{{.*}}, %[[MASK:.*]] = nnc.dropout %[[Y]] ratio = 2.500000e-01 training = true
// CHECK: %[[G:.*]] = nnc.expand
// CHECK: %[[MF:.*]] = nnc.cast %[[MASK]] : tensor<4xi1> to tensor<4xf32>
// CHECK: %[[GM:.*]] = nnc.mul %[[G]], %[[MF]]
// CHECK: %[[S:.*]] = nnc.constant dense<1.33333337> : tensor<f32>
// CHECK: %[[GD:.*]] = nnc.mul %[[GM]], %[[S]]
// CHECK: %[[V2:.*]] = nnc.reshape %arg1 : tensor<3xf32> -> tensor<3x1xf32>
// CHECK: %[[G2:.*]] = nnc.reshape %[[GD]] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK: %[[VT:.*]] = nnc.transpose %[[V2]] perm = [1, 0]
// CHECK: %[[GX:.*]] = nnc.matmul %[[G2]], %[[VT]] : tensor<4x1xf32>, tensor<1x3xf32>
// CHECK: %[[XT:.*]] = nnc.transpose %arg0 perm = [1, 0]
// CHECK: %[[GV2:.*]] = nnc.matmul %[[XT]], %[[G2]] : tensor<3x4xf32>, tensor<4x1xf32>
// CHECK: %[[GV:.*]] = nnc.reshape %[[GV2]] : tensor<3x1xf32> -> tensor<3xf32>
// CHECK: return %{{.*}}, %[[GX]], %[[GV]]
func.func @main(%x: tensor<4x3xf32> {nnc.param = #nnc.param<trainable>},
                %v: tensor<3xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.matmul %x, %v : tensor<4x3xf32>, tensor<3xf32>
  %1, %mask = nnc.dropout %0 ratio = 2.500000e-01 training = true : tensor<4xf32>
  %2 = nnc.reduce sum %1 keepdims = false : tensor<4xf32>
  return %2 : tensor<f32>
}

// -----

// conv_transpose: the input gradient is a conv of g with the same kernel
// and attributes; the weight gradient convolves g^T with x^T (strides and
// dilations swapped), cropped to the kernel.
// CHECK-LABEL: func.func @main_grad(
// CHECK: %[[G:.*]] = nnc.expand %{{.*}} -> tensor<1x3x6x6xf32>
// CHECK: %[[GX:.*]] = nnc.conv %[[G]], %arg1 strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] : tensor<1x3x6x6xf32>, tensor<2x3x3x3xf32>
// CHECK: %[[GT:.*]] = nnc.transpose %[[G]] perm = [1, 0, 2, 3]
// CHECK: %[[XT:.*]] = nnc.transpose %arg0 perm = [1, 0, 2, 3]
// CHECK: %[[DW:.*]] = nnc.conv %[[GT]], %[[XT]] strides = [1, 1] dilations = [2, 2] pads = [1, 1, 1, 1] : tensor<3x1x6x6xf32>, tensor<2x1x3x3xf32>
// CHECK: %[[DWS:.*]] = nnc.slice %[[DW]] starts = [0, 0] ends = [3, 3] axes = [2, 3] : tensor<3x2x4x4xf32>
// CHECK: %[[GW:.*]] = nnc.transpose %[[DWS]] perm = [1, 0, 2, 3] : tensor<3x2x3x3xf32>
// CHECK: return %{{.*}}, %[[GX]], %[[GW]]
func.func @main(%x: tensor<1x2x3x3xf32> {nnc.param = #nnc.param<trainable>},
                %w: tensor<2x3x3x3xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.conv_transpose %x, %w strides = [2, 2] pads = [1, 1, 1, 1]
      output_padding = [1, 1] : tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32>
  %1 = nnc.reduce sum %0 keepdims = false : tensor<1x3x6x6xf32>
  return %1 : tensor<f32>
}

// -----

// A slice along a dynamic dimension has no rule (its pads need sizes).
func.func @main(%x: tensor<?x4xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  // expected-error @+1 {{nnc-autodiff: no gradient rule for 'nnc.slice' along a dynamic dimension yet}}
  %0 = nnc.slice %x starts = [1] ends = [3] axes = [0] : tensor<?x4xf32>
  %1 = nnc.reduce sum %0 keepdims = false : tensor<?x4xf32>
  return %1 : tensor<f32>
}

// -----

// A concat along a dynamic dimension has no rule.
func.func @main(%x: tensor<?x4xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  // expected-error @+1 {{nnc-autodiff: no gradient rule for 'nnc.concat' with a dynamic concatenated dimension yet}}
  %0 = nnc.concat %x, %x axis = 0 : tensor<?x4xf32>, tensor<?x4xf32>
  %1 = nnc.reduce sum %0 keepdims = false : tensor<?x4xf32>
  return %1 : tensor<f32>
}

// -----

// scatter_elements with a multiplying reduction has no rule.
func.func @main(%x: tensor<4xf32> {nnc.param = #nnc.param<trainable>},
                %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<f32> {
  // expected-error @+1 {{nnc-autodiff: no gradient rule for 'nnc.scatter_elements' with reduction = mul yet}}
  %0 = nnc.scatter_elements %x, %i, %u reduction = mul : tensor<4xf32>, tensor<2xi64>, tensor<2xf32>
  %1 = nnc.reduce sum %0 keepdims = false : tensor<4xf32>
  return %1 : tensor<f32>
}

// -----

// Mixed precision: layer_norm of an f16 input keeps f32 statistics and
// batch_norm has f32 parameters; both gradients are computed in f32 from
// casts and cast back to each operand's type.
// CHECK-LABEL: func.func @main_grad(
// CHECK-SAME: -> (tensor<f32>, tensor<2x3xf16>, tensor<3xf16>, tensor<3xf32>)
// CHECK: %[[Y:.*]], %[[MEAN:.*]], %[[ISTD:.*]] = nnc.layer_norm %arg0
// CHECK: %[[G16:.*]] = nnc.cast %{{.*}} : tensor<2x3xf32> to tensor<2x3xf16>
// CHECK: %[[G:.*]] = nnc.cast %[[G16]] : tensor<2x3xf16> to tensor<2x3xf32>
// CHECK: %[[Y32:.*]] = nnc.cast %[[Y]] : tensor<2x3xf16> to tensor<2x3xf32>
// CHECK: %[[GBN:.*]] = nnc.mul %[[G]], %{{.*}} : tensor<2x3xf32>, tensor<1x3xf32>
// CHECK: %[[GY:.*]] = nnc.cast %[[GBN]] : tensor<2x3xf32> to tensor<2x3xf16>
// CHECK: %[[GS:.*]] = nnc.reduce sum %{{.*}} axes = [0] keepdims = false : tensor<2x3xf32>
// CHECK: %[[X32:.*]] = nnc.cast %arg0 : tensor<2x3xf16> to tensor<2x3xf32>
// CHECK: %[[GY32:.*]] = nnc.cast %[[GY]] : tensor<2x3xf16> to tensor<2x3xf32>
// CHECK: nnc.sub %[[X32]], %[[MEAN]] : tensor<2x3xf32>, tensor<2x1xf32>
// CHECK: %[[S32:.*]] = nnc.cast %arg1 : tensor<3xf16> to tensor<3xf32>
// CHECK: %[[DS:.*]] = nnc.cast %{{.*}} : tensor<3xf32> to tensor<3xf16>
// CHECK: %[[DX:.*]] = nnc.cast %{{.*}} : tensor<2x3xf32> to tensor<2x3xf16>
// CHECK: return %{{.*}}, %[[DX]], %[[DS]], %[[GS]]
func.func @main(%x: tensor<2x3xf16> {nnc.param = #nnc.param<trainable>},
                %s: tensor<3xf16> {nnc.param = #nnc.param<trainable>},
                %m: tensor<3xf32>, %v: tensor<3xf32>,
                %bs: tensor<3xf32> {nnc.param = #nnc.param<trainable>},
                %bb: tensor<3xf32>) -> tensor<f32> {
  %y, %mean, %inv = nnc.layer_norm %x scale(%s : tensor<3xf16>) : tensor<2x3xf16>
  %0 = nnc.batch_norm %y, %bs, %bb, %m, %v : tensor<2x3xf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  %1 = nnc.cast %0 : tensor<2x3xf16> to tensor<2x3xf32>
  %2 = nnc.reduce sum %1 keepdims = false : tensor<2x3xf32>
  return %2 : tensor<f32>
}

// -----

// scatter_nd: the data's gradient is g with the written elements zeroed;
// the updates' gradient gathers g at the row-major offsets of the index
// tuples (negative indices wrapped).
// CHECK-LABEL: func.func @main_grad(
// CHECK: %[[G:.*]] = nnc.expand %{{.*}} -> tensor<4x3xf32>
// CHECK: %[[Z:.*]] = nnc.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK: %[[GD:.*]] = nnc.scatter_nd %[[G]], %arg1, %[[Z]] :
// CHECK: %[[NEG:.*]] = nnc.cmp lt, %arg1, %{{.*}}
// CHECK: %[[DIMS:.*]] = nnc.constant dense<[4, 3]> : tensor<2xi64>
// CHECK: %[[UP:.*]] = nnc.add %arg1, %[[DIMS]]
// CHECK: %[[W:.*]] = nnc.where %[[NEG]], %[[UP]], %arg1
// CHECK: %[[STR:.*]] = nnc.constant dense<[3, 1]> : tensor<2xi64>
// CHECK: %[[OFF:.*]] = nnc.mul %[[W]], %[[STR]]
// CHECK: %[[IDX:.*]] = nnc.reduce sum %[[OFF]] axes = [1] keepdims = false
// CHECK: %[[TAB:.*]] = nnc.reshape %[[G]] : tensor<4x3xf32> -> tensor<12x1xf32>
// CHECK: %[[PICK:.*]] = nnc.gather %[[TAB]], %[[IDX]]
// CHECK: %[[GU:.*]] = nnc.reshape %[[PICK]] : tensor<2x1xf32> -> tensor<2xf32>
// CHECK: return %{{.*}}, %[[GD]], %[[GU]]
func.func @main(%x: tensor<4x3xf32> {nnc.param = #nnc.param<trainable>},
                %i: tensor<2x2xi64>,
                %u: tensor<2xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.scatter_nd %x, %i, %u : tensor<4x3xf32>, tensor<2x2xi64>, tensor<2xf32>
  %1 = nnc.reduce sum %0 keepdims = false : tensor<4x3xf32>
  return %1 : tensor<f32>
}

// -----

// layer_norm over a dynamic dimension has no rule (a dynamic batch
// dimension is fine).
func.func @main(%x: tensor<2x?xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  // expected-error @+1 {{nnc-autodiff: no gradient rule for 'nnc.layer_norm' over a dynamic dimension yet}}
  %y, %m, %r = nnc.layer_norm %x : tensor<2x?xf32>
  %0 = nnc.reduce sum %y keepdims = false : tensor<2x?xf32>
  return %0 : tensor<f32>
}

// -----

// batch_norm_train with a dynamic batch has a rule for its output, not
// for its statistics results.
func.func @main(%x: tensor<?x2x3xf32> {nnc.param = #nnc.param<trainable>},
                %s: tensor<2xf32>, %b: tensor<2xf32>,
                %rm: tensor<2xf32>, %rv: tensor<2xf32>) -> tensor<f32> {
  // expected-error @+1 {{nnc-autodiff: no gradient rule for 'nnc.batch_norm_train' through its statistics with a dynamic batch yet}}
  %y, %bm, %bv, %nrm, %nrv = nnc.batch_norm_train %x, %s, %b, %rm, %rv
      : tensor<?x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
        tensor<2xf32>
  %0 = nnc.reduce sum %y keepdims = false : tensor<?x2x3xf32>
  %1 = nnc.reduce sum %bm keepdims = false : tensor<2xf32>
  %2 = nnc.add %0, %1 : tensor<f32>, tensor<f32>
  return %2 : tensor<f32>
}
