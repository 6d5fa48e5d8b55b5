// RUN: nnc-opt %s --nnc-prepare-training="loss=mse loss-scale=true" --nnc-mixed-precision="function=main_train dtype=bf16" --nnc-autodiff=function=main_train --nnc-optimizer="function=main_train kind=sgd loss-scale=true apply=true low-precision-copies=true" | FileCheck %s
// RUN: nnc-opt %s --nnc-prepare-training="loss=mse loss-scale=true" --nnc-mixed-precision="function=main_train dtype=f16" --nnc-autodiff=function=main_train --nnc-optimizer="function=main_train kind=adam loss-scale=true low-precision-copies=true" | FileCheck %s --check-prefix=F16
// RUN: nnc-opt %s --nnc-prepare-training="loss=mse loss-scale=true" --nnc-mixed-precision="function=main_train dtype=bf16" --nnc-autodiff=function=main_train --nnc-optimizer="function=main_train kind=sgd loss-scale=true" | FileCheck %s --check-prefix=OFF

// With low-precision-copies, the parameters _grad casts to bf16 (%w for the
// matmul, %b for the add that follows it) come in as copies after the loss
// scale, low1 and low2, read where the casts were; %s, used in f32 only, has
// none. _step takes _grad's arguments, then the state and lr; it and _apply
// return the copies of the updated parameters (after the skip's `where`)
// after the flag.
// CHECK-LABEL: func.func @main_train_grad(
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<3x2xf32> {nnc.param = #nnc.param<trainable>}, %[[B:[a-z0-9]+]]: tensor<2xf32> {nnc.param = #nnc.param<trainable>}
// CHECK-SAME: %[[SCALE:[a-z0-9]+]]: tensor<f32>, %[[LOWW:[a-z0-9]+]]: tensor<3x2xbf16> {nnc.param = #nnc.param<buffer>}, %[[LOWB:[a-z0-9]+]]: tensor<2xbf16> {nnc.param = #nnc.param<buffer>})
// CHECK-SAME: nnc.result_names = ["scaled_loss", "grad1", "grad2", "grad3", "loss"]
// CHECK-NOT: nnc.cast %[[W]]
// CHECK-NOT: nnc.cast %[[B]]
// CHECK: nnc.matmul %{{.*}}, %[[LOWW]] : tensor<4x3xbf16>, tensor<3x2xbf16>
// CHECK: nnc.add %{{.*}}, %[[LOWB]] : tensor<4x2xbf16>, tensor<2xbf16>
// CHECK-NOT: nnc.cast %[[W]]
// CHECK-NOT: nnc.cast %[[B]]
// CHECK: return

// CHECK-LABEL: func.func @main_train_step(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x3xf32>, %[[W:[a-z0-9]+]]: tensor<3x2xf32> {nnc.param = #nnc.param<trainable>}, %[[B:[a-z0-9]+]]: tensor<2xf32> {nnc.param = #nnc.param<trainable>}, %[[S:[a-z0-9]+]]: tensor<2xf32> {nnc.param = #nnc.param<trainable>}
// CHECK-SAME: %[[SCALE:[a-z0-9]+]]: tensor<f32>, %[[LOWW:[a-z0-9]+]]: tensor<3x2xbf16> {nnc.param = #nnc.param<buffer>}, %[[LOWB:[a-z0-9]+]]: tensor<2xbf16> {nnc.param = #nnc.param<buffer>}, %[[LR:[a-z0-9]+]]: tensor<f32>)
// CHECK-SAME: -> (tensor<f32>, tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i1>, tensor<3x2xbf16>, tensor<2xbf16>, tensor<f32>)
// CHECK-SAME: nnc.result_names = ["scaled_loss", "param1", "param2", "param3", "found_nonfinite", "low1", "low2", "loss"]
// CHECK-NOT: nnc.cast %[[W]]
// CHECK-NOT: nnc.cast %[[B]]
// CHECK: nnc.matmul %{{.*}}, %[[LOWW]] : tensor<4x3xbf16>, tensor<3x2xbf16>
// CHECK: nnc.add %{{.*}}, %[[LOWB]] : tensor<4x2xbf16>, tensor<2xbf16>
// CHECK-NOT: nnc.cast %[[W]]
// CHECK-NOT: nnc.cast %[[B]]
// CHECK: %[[FOUND:.*]] = nnc.is_nan
// CHECK: %[[NEWW:.*]] = nnc.where %[[FOUND]], %[[W]], %{{.*}} : tensor<i1>, tensor<3x2xf32>, tensor<3x2xf32>
// CHECK: %[[NEWB:.*]] = nnc.where %[[FOUND]], %[[B]], %{{.*}} : tensor<i1>, tensor<2xf32>, tensor<2xf32>
// CHECK: %[[NEWS:.*]] = nnc.where %[[FOUND]], %[[S]], %{{.*}} : tensor<i1>, tensor<2xf32>, tensor<2xf32>
// CHECK: %[[COPYW:.*]] = nnc.cast %[[NEWW]] : tensor<3x2xf32> to tensor<3x2xbf16>
// CHECK: %[[COPYB:.*]] = nnc.cast %[[NEWB]] : tensor<2xf32> to tensor<2xbf16>
// CHECK: return %{{.*}}, %[[NEWW]], %[[NEWB]], %[[NEWS]], %[[FOUND]], %[[COPYW]], %[[COPYB]], %{{.*}} :

// CHECK-LABEL: func.func @main_train_apply(
// CHECK-SAME: -> (tensor<3x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i1>, tensor<3x2xbf16>, tensor<2xbf16>)
// CHECK-SAME: nnc.result_names = ["param1", "param2", "param3", "found_nonfinite", "low1", "low2"]
// CHECK: %[[FOUND:.*]] = nnc.is_nan
// CHECK: %[[NEWW:.*]] = nnc.where %[[FOUND]], %{{.*}}, %{{.*}} : tensor<i1>, tensor<3x2xf32>, tensor<3x2xf32>
// CHECK: nnc.cast %[[NEWW]] : tensor<3x2xf32> to tensor<3x2xbf16>

// f16 and Adam: the step's copies come before m, v, t and lr.
// F16-LABEL: func.func @main_train_step(
// F16-SAME: %{{[a-z0-9]+}}: tensor<f32>, %[[LOWW:[a-z0-9]+]]: tensor<3x2xf16> {nnc.param = #nnc.param<buffer>}, %[[LOWB:[a-z0-9]+]]: tensor<2xf16> {nnc.param = #nnc.param<buffer>}, %{{[a-z0-9]+}}: tensor<3x2xf32> {nnc.param = #nnc.param<buffer>}
// F16-SAME: nnc.result_names = ["scaled_loss", "param1", "param2", "param3", "m1", "m2", "m3", "v1", "v2", "v3", "t", "found_nonfinite", "low1", "low2", "loss"]
// F16: nnc.matmul %{{.*}}, %[[LOWW]] : tensor<4x3xf16>, tensor<3x2xf16>

// Without the option the functions cast the parameters themselves.
// OFF-LABEL: func.func @main_train_step(
// OFF-SAME: %[[W:[a-z0-9]+]]: tensor<3x2xf32> {nnc.param = #nnc.param<trainable>}
// OFF-NOT: bf16> {nnc.param = #nnc.param<buffer>}
// OFF-SAME: nnc.result_names = ["scaled_loss", "param1", "param2", "param3", "found_nonfinite", "loss"]
// OFF: nnc.cast %[[W]] : tensor<3x2xf32> to tensor<3x2xbf16>
func.func @main(%x: tensor<4x3xf32>,
                %w: tensor<3x2xf32> {nnc.param = #nnc.param<trainable>},
                %b: tensor<2xf32> {nnc.param = #nnc.param<trainable>},
                %s: tensor<2xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<4x2xf32> {
  %y = nnc.matmul %x, %w : tensor<4x3xf32>, tensor<3x2xf32>
  %z = nnc.add %y, %b : tensor<4x2xf32>, tensor<2xf32>
  %e = nnc.exp %z : tensor<4x2xf32>
  %r = nnc.mul %e, %s : tensor<4x2xf32>, tensor<2xf32>
  return %r : tensor<4x2xf32>
}
