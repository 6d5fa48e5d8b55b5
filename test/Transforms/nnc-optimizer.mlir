// RUN: nnc-opt %s --split-input-file --nnc-autodiff --nnc-optimizer --verify-diagnostics | FileCheck %s --check-prefix=SGD
// RUN: nnc-opt %s --split-input-file --nnc-autodiff --nnc-optimizer="momentum=0.5 nesterov=true weight-decay=0.25" --verify-diagnostics | FileCheck %s --check-prefix=NESTEROV
// RUN: nnc-opt %s --split-input-file --nnc-autodiff --nnc-optimizer="kind=adam weight-decay=0.25" --verify-diagnostics | FileCheck %s --check-prefix=ADAM
// RUN: nnc-opt %s --split-input-file --nnc-autodiff --nnc-optimizer="kind=adamw weight-decay=0.25" --verify-diagnostics | FileCheck %s --check-prefix=ADAMW
// RUN: not nnc-opt %s --split-input-file --nnc-optimizer 2>&1 | FileCheck %s --check-prefix=NOGRAD
// RUN: not nnc-opt %s --split-input-file --nnc-autodiff --nnc-optimizer=kind=rmsprop 2>&1 | FileCheck %s --check-prefix=KIND
// RUN: not nnc-opt %s --split-input-file --nnc-autodiff --nnc-optimizer=nesterov=true 2>&1 | FileCheck %s --check-prefix=NESTEROV-ERR
// RUN: not nnc-opt %s --split-input-file --nnc-autodiff --nnc-optimizer="kind=adam beta1=1" 2>&1 | FileCheck %s --check-prefix=BETA

// NOGRAD: error: nnc-optimizer: no function named 'main_grad'; run --nnc-autodiff first
// KIND: error: nnc-optimizer: unknown kind 'rmsprop'; expected sgd, adam or adamw
// NESTEROV-ERR: error: nnc-optimizer: nesterov needs a momentum > 0
// BETA: error: nnc-optimizer: beta1 must be in [0, 1), got 1.0

// One trainable weight: the step inlines the gradient and takes the state
// (none for plain SGD), then the learning rate.
// SGD-LABEL: func.func @main_step(
// SGD-SAME: %[[X:[a-z0-9]+]]: tensor<4x3xf32>, %[[W:[a-z0-9]+]]: tensor<3xf32> {nnc.param = #nnc.param<trainable>}, %[[LR:[a-z0-9]+]]: tensor<f32>)
// SGD-SAME: -> (tensor<f32>, tensor<3xf32>) attributes {nnc.result_names = ["loss", "param1"]}
// SGD: %[[M:.*]] = nnc.mul %[[X]], %[[W]]
// SGD: %[[L:.*]] = nnc.reduce sum %[[M]]
// SGD: %[[G:.*]] = nnc.reshape %{{.*}} : tensor<1x3xf32> -> tensor<3xf32>
// SGD-NEXT: %[[D:.*]] = nnc.mul %[[LR]], %[[G]] : tensor<f32>, tensor<3xf32>
// SGD-NEXT: %[[P:.*]] = nnc.sub %[[W]], %[[D]]
// SGD-NEXT: return %[[L]], %[[P]] : tensor<f32>, tensor<3xf32>
// SGD-NOT: func.call

// Nesterov momentum with L2 weight decay: one velocity buffer.
// NESTEROV-LABEL: func.func @main_step(
// NESTEROV-SAME: %[[W:[a-z0-9]+]]: tensor<3xf32> {nnc.param = #nnc.param<trainable>}, %[[BUF:[a-z0-9]+]]: tensor<3xf32> {nnc.param = #nnc.param<buffer>}, %[[LR:[a-z0-9]+]]: tensor<f32>)
// NESTEROV-SAME: -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>) attributes {nnc.result_names = ["loss", "param1", "velocity1"]}
// NESTEROV: %[[G:.*]] = nnc.reshape %{{.*}} : tensor<1x3xf32> -> tensor<3xf32>
// NESTEROV-NEXT: %[[WD:.*]] = nnc.constant dense<2.500000e-01> : tensor<f32>
// NESTEROV-NEXT: %[[DW:.*]] = nnc.mul %[[W]], %[[WD]]
// NESTEROV-NEXT: %[[G1:.*]] = nnc.add %[[G]], %[[DW]]
// NESTEROV-NEXT: %[[MU:.*]] = nnc.constant dense<5.000000e-01> : tensor<f32>
// NESTEROV-NEXT: %[[K:.*]] = nnc.mul %[[BUF]], %[[MU]]
// NESTEROV-NEXT: %[[B:.*]] = nnc.add %[[K]], %[[G1]]
// NESTEROV-NEXT: %[[MU2:.*]] = nnc.constant dense<5.000000e-01> : tensor<f32>
// NESTEROV-NEXT: %[[A:.*]] = nnc.mul %[[B]], %[[MU2]]
// NESTEROV-NEXT: %[[G2:.*]] = nnc.add %[[G1]], %[[A]]
// NESTEROV-NEXT: %[[D:.*]] = nnc.mul %[[LR]], %[[G2]]
// NESTEROV-NEXT: %[[P:.*]] = nnc.sub %[[W]], %[[D]]
// NESTEROV-NEXT: return %{{.*}}, %[[P]], %[[B]] : tensor<f32>, tensor<3xf32>, tensor<3xf32>

// Adam with L2 weight decay: m, v, then the step count t.
// ADAM-LABEL: func.func @main_step(
// ADAM-SAME: %[[W:[a-z0-9]+]]: tensor<3xf32> {nnc.param = #nnc.param<trainable>}, %[[M:[a-z0-9]+]]: tensor<3xf32> {nnc.param = #nnc.param<buffer>}, %[[V:[a-z0-9]+]]: tensor<3xf32> {nnc.param = #nnc.param<buffer>}, %[[T:[a-z0-9]+]]: tensor<f32> {nnc.param = #nnc.param<buffer>}, %[[LR:[a-z0-9]+]]: tensor<f32>)
// ADAM-SAME: -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<f32>) attributes {nnc.result_names = ["loss", "param1", "m1", "v1", "t"]}
// ADAM: nnc.reshape %{{.*}} : tensor<1x3xf32> -> tensor<3xf32>
// ADAM-NEXT: %[[ONE:.*]] = nnc.constant dense<1.000000e+00> : tensor<f32>
// ADAM-NEXT: %[[T1:.*]] = nnc.add %[[T]], %[[ONE]]
// ADAM-NEXT: %[[B1:.*]] = nnc.constant dense<{{.*}}> : tensor<f32>
// ADAM-NEXT: %[[B1T:.*]] = nnc.pow %[[B1]], %[[T1]]
// ADAM-NEXT: %[[C1:.*]] = nnc.sub %[[ONE]], %[[B1T]]
// ADAM-NEXT: nnc.constant
// ADAM-NEXT: %[[B2T:.*]] = nnc.pow %{{.*}}, %[[T1]]
// ADAM-NEXT: %[[C2:.*]] = nnc.sub %[[ONE]], %[[B2T]]
// ADAM-NEXT: %[[SS:.*]] = nnc.div %[[LR]], %[[C1]]
// ADAM-NEXT: %[[C2S:.*]] = nnc.sqrt %[[C2]]
// ADAM-NEXT: nnc.constant dense<2.500000e-01>
// ADAM-NEXT: %[[DW:.*]] = nnc.mul %[[W]]
// ADAM-NEXT: %[[G:.*]] = nnc.add %{{.*}}, %[[DW]]
// ADAM-NEXT: nnc.constant
// ADAM-NEXT: %[[MK:.*]] = nnc.mul %[[M]]
// ADAM-NEXT: nnc.constant
// ADAM-NEXT: %[[MN:.*]] = nnc.mul %[[G]]
// ADAM-NEXT: %[[M1:.*]] = nnc.add %[[MK]], %[[MN]]
// ADAM-NEXT: nnc.constant
// ADAM-NEXT: %[[VK:.*]] = nnc.mul %[[V]]
// ADAM-NEXT: %[[GG:.*]] = nnc.mul %[[G]], %[[G]]
// ADAM-NEXT: nnc.constant
// ADAM-NEXT: %[[VN:.*]] = nnc.mul %[[GG]]
// ADAM-NEXT: %[[V1:.*]] = nnc.add %[[VK]], %[[VN]]
// ADAM-NEXT: %[[RV:.*]] = nnc.sqrt %[[V1]]
// ADAM-NEXT: %[[CV:.*]] = nnc.div %[[RV]], %[[C2S]]
// ADAM-NEXT: %[[EPS:.*]] = nnc.constant dense<{{.*}}> : tensor<f32>
// ADAM-NEXT: %[[DEN:.*]] = nnc.add %[[CV]], %[[EPS]]
// ADAM-NEXT: %[[R:.*]] = nnc.div %[[M1]], %[[DEN]]
// ADAM-NEXT: %[[D:.*]] = nnc.mul %[[SS]], %[[R]]
// ADAM-NEXT: %[[P:.*]] = nnc.sub %[[W]], %[[D]]
// ADAM-NEXT: return %{{.*}}, %[[P]], %[[M1]], %[[V1]], %[[T1]] : tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<f32>

// AdamW: decoupled decay scales the parameter by 1 - lr * wd first, and the
// gradient is used as it is.
// ADAMW-LABEL: func.func @main_step(
// ADAMW-SAME: %[[W:[a-z0-9]+]]: tensor<3xf32> {nnc.param = #nnc.param<trainable>}, %{{.*}}: tensor<3xf32> {nnc.param = #nnc.param<buffer>}, %{{.*}}: tensor<3xf32> {nnc.param = #nnc.param<buffer>}, %{{.*}}: tensor<f32> {nnc.param = #nnc.param<buffer>}, %[[LR:[a-z0-9]+]]: tensor<f32>)
// ADAMW: %[[C2S:.*]] = nnc.sqrt
// ADAMW-NEXT: %[[ONE:.*]] = nnc.constant dense<1.000000e+00> : tensor<f32>
// ADAMW-NEXT: %[[WD:.*]] = nnc.constant dense<2.500000e-01> : tensor<f32>
// ADAMW-NEXT: %[[LWD:.*]] = nnc.mul %[[LR]], %[[WD]]
// ADAMW-NEXT: %[[F:.*]] = nnc.sub %[[ONE]], %[[LWD]]
// ADAMW-NEXT: %[[PD:.*]] = nnc.mul %[[W]], %[[F]]
// ADAMW: %[[P:.*]] = nnc.sub %[[PD]], %{{.*}}
// ADAMW-NEXT: return %{{.*}}, %[[P]],
func.func @main(%x: tensor<4x3xf32>,
                %w: tensor<3xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<f32> {
  %0 = nnc.mul %x, %w : tensor<4x3xf32>, tensor<3xf32>
  %1 = nnc.reduce sum %0 keepdims = false : tensor<4x3xf32>
  return %1 : tensor<f32>
}

// -----

// Two parameters in f64: the state comes grouped per kind, in parameter
// order, and lr takes the loss's element type.
// SGD-LABEL: func.func @main_step(
// SGD-SAME: %{{.*}}: tensor<2x3xf64> {nnc.param = #nnc.param<trainable>}, %{{.*}}: tensor<2xf64>, %{{.*}}: tensor<3xf64> {nnc.param = #nnc.param<trainable>}, %{{.*}}: tensor<f64>)
// SGD-SAME: nnc.result_names = ["loss", "param0", "param2"]
// ADAM-LABEL: func.func @main_step(
// ADAM-SAME: %{{.*}}: tensor<2x3xf64> {nnc.param = #nnc.param<trainable>}, %{{.*}}: tensor<2xf64>, %{{.*}}: tensor<3xf64> {nnc.param = #nnc.param<trainable>}, %{{.*}}: tensor<2x3xf64> {nnc.param = #nnc.param<buffer>}, %{{.*}}: tensor<3xf64> {nnc.param = #nnc.param<buffer>}, %{{.*}}: tensor<2x3xf64> {nnc.param = #nnc.param<buffer>}, %{{.*}}: tensor<3xf64> {nnc.param = #nnc.param<buffer>}, %{{.*}}: tensor<f64> {nnc.param = #nnc.param<buffer>}, %{{.*}}: tensor<f64>)
// ADAM-SAME: nnc.result_names = ["loss", "param0", "param2", "m0", "m2", "v0", "v2", "t"]
func.func @main(%a: tensor<2x3xf64> {nnc.param = #nnc.param<trainable>},
                %x: tensor<2xf64>,
                %c: tensor<3xf64> {nnc.param = #nnc.param<trainable>})
    -> tensor<f64> {
  %0 = nnc.add %a, %c : tensor<2x3xf64>, tensor<3xf64>
  %1 = nnc.reduce sum %0 keepdims = false : tensor<2x3xf64>
  return %1 : tensor<f64>
}

// -----

// A function without trainable arguments has nothing to update.
// expected-error @+1 {{nnc-optimizer: 'main_grad' has no trainable arguments to update}}
func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %0 = nnc.reduce sum %x keepdims = false : tensor<3xf32>
  return %0 : tensor<f32>
}

// -----

// The step's name must be free.
// expected-error @+1 {{nnc-optimizer: a symbol named 'main_step' already exists}}
func.func @main(%x: tensor<3xf32> {nnc.param = #nnc.param<trainable>}) -> tensor<f32> {
  %0 = nnc.reduce sum %x keepdims = false : tensor<3xf32>
  return %0 : tensor<f32>
}
func.func @main_step() {
  return
}
