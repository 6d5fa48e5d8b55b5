// RUN: nnc-opt %s --nnc-prepare-training="loss=mse loss-scale=true" --nnc-autodiff=function=main_train --nnc-optimizer="function=main_train kind=sgd momentum=0.5 loss-scale=true apply=true" | FileCheck %s
// RUN: not nnc-opt %s --nnc-prepare-training="loss=mse" --nnc-autodiff=function=main_train --nnc-optimizer="function=main_train loss-scale=true" 2>&1 | FileCheck %s --check-prefix=NOSCALE

// With loss-scale the gradients of the scaled loss are divided by the
// scale; a NaN probe (each gradient times 0, summed) sets found_nonfinite,
// and then every parameter and state keeps its old value.
// CHECK-LABEL: func.func @main_train_step(
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<3xf32> {nnc.param = #nnc.param<trainable>}
// CHECK-SAME: %[[SCALE:[a-z0-9]+]]: tensor<f32>, %[[VEL:[a-z0-9]+]]: tensor<3xf32> {nnc.param = #nnc.param<buffer>}, %[[LR:[a-z0-9]+]]: tensor<f32>)
// CHECK-SAME: -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<i1>, tensor<f32>)
// CHECK-SAME: nnc.result_names = ["scaled_loss", "param0", "velocity0", "found_nonfinite", "loss"]
// CHECK: %[[ZERO:.*]] = nnc.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[PROBE:.*]] = nnc.mul %[[G:.*]], %[[ZERO]]
// CHECK: %[[SUM:.*]] = nnc.reduce sum %[[PROBE]] keepdims = false
// CHECK: %[[FOUND:.*]] = nnc.is_nan %[[SUM]]
// CHECK: %[[ONE:.*]] = nnc.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[INV:.*]] = nnc.div %[[ONE]], %[[SCALE]]
// CHECK: %[[UNSCALED:.*]] = nnc.mul %[[G]], %[[INV]]
// CHECK: %[[BUF:.*]] = nnc.add %{{.*}}, %[[UNSCALED]]
// CHECK: %[[NEWP:.*]] = nnc.sub %[[W]], %{{.*}}
// CHECK: %[[P:.*]] = nnc.where %[[FOUND]], %[[W]], %[[NEWP]]
// CHECK: %[[V:.*]] = nnc.where %[[FOUND]], %[[VEL]], %[[BUF]]
// CHECK: return %{{.*}}, %[[P]], %[[V]], %[[FOUND]], %{{.*}}

// _apply takes the (summed) gradients as arguments.
// CHECK-LABEL: func.func @main_train_apply(
// CHECK-SAME: %{{[a-z0-9]+}}: tensor<3xf32> {nnc.param = #nnc.param<trainable>}, %{{[a-z0-9]+}}: tensor<3xf32>, %{{[a-z0-9]+}}: tensor<3xf32> {nnc.param = #nnc.param<buffer>}, %{{[a-z0-9]+}}: tensor<f32>, %{{[a-z0-9]+}}: tensor<f32>)
// CHECK-SAME: -> (tensor<3xf32>, tensor<3xf32>, tensor<i1>)
// CHECK-SAME: nnc.result_names = ["param0", "velocity0", "found_nonfinite"]

// NOSCALE: nnc-optimizer: with loss-scale, the last argument of 'main_train_grad' must be the loss scale, a plain 'tensor<f32>'
func.func @main(%w: tensor<3xf32> {nnc.param = #nnc.param<trainable>},
                %x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %y = nnc.mul %x, %w : tensor<4x3xf32>, tensor<3xf32>
  return %y : tensor<4x3xf32>
}
