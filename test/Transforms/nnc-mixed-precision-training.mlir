// Mixed precision in a training step (--nnc-training-pipeline=amp=bf16):
// the parameters stay f32 arguments (the master weights) and are cast to
// bf16 where the forward uses them; the backward's matmuls run in bf16 on
// the bf16 values the forward kept; each gradient is cast back to f32
// before the f32 update; the loss and its gradient are f32. The gradient
// function and the step take the bf16 copy of the weight as an argument;
// the step's update makes the next one.
// RUN: nnc-opt %s --nnc-training-pipeline="amp=bf16 optimizer=sgd" \
// RUN:   --canonicalize --cse | FileCheck %s
// RUN: nnc-opt %s --nnc-training-pipeline="amp=bf16 optimizer=sgd" \
// RUN:   --canonicalize --cse | FileCheck %s --check-prefix=GRAD

// CHECK-LABEL: func.func @main_train_step
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x8xf32>, %[[W:[a-z0-9]+]]: tensor<8x3xf32> {nnc.param = #nnc.param<trainable>}
// CHECK-SAME: %[[WB:[a-z0-9]+]]: tensor<8x3xbf16> {nnc.param = #nnc.param<buffer>}, %{{[a-z0-9]+}}: tensor<f32>)
// CHECK-SAME: -> (tensor<f32>, tensor<8x3xf32>, tensor<i1>, tensor<8x3xbf16>,
// CHECK: %[[XB:.*]] = nnc.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xbf16>
// CHECK: %[[Y:.*]] = nnc.matmul %[[XB]], %[[WB]] : tensor<4x8xbf16>, tensor<8x3xbf16>
// CHECK: %[[Y32:.*]] = nnc.cast %[[Y]] : tensor<4x3xbf16> to tensor<4x3xf32>
// CHECK: nnc.cross_entropy %[[Y32]], {{.*}} : tensor<4x3xf32>, tensor<4xi64>
// CHECK: %[[DY:.*]] = nnc.cast {{.*}} : tensor<4x3xf32> to tensor<4x3xbf16>
// CHECK: %[[XT:.*]] = nnc.transpose %[[XB]] perm = [1, 0] : tensor<4x8xbf16>
// CHECK: %[[DW:.*]] = nnc.matmul %[[XT]], %[[DY]] : tensor<8x4xbf16>, tensor<4x3xbf16>
// CHECK: %[[DW32:.*]] = nnc.cast %[[DW]] : tensor<8x3xbf16> to tensor<8x3xf32>
// CHECK: nnc.mul %[[DW32]], {{.*}} : tensor<8x3xf32>, tensor<f32>
// CHECK: %[[NEW:.*]] = nnc.sub %[[W]], {{.*}} : tensor<8x3xf32>, tensor<8x3xf32>
// CHECK: %[[KEPT:.*]] = nnc.where %{{.*}}, %[[W]], %[[NEW]]
// CHECK: nnc.cast %[[KEPT]] : tensor<8x3xf32> to tensor<8x3xbf16>
// GRAD-LABEL: func.func @main_train_grad
// GRAD-SAME: %[[WB:[a-z0-9]+]]: tensor<8x3xbf16> {nnc.param = #nnc.param<buffer>})
// GRAD: nnc.matmul %{{.*}}, %[[WB]] : tensor<4x8xbf16>, tensor<8x3xbf16>
func.func @main(%x: tensor<4x8xf32>,
                %w: tensor<8x3xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<4x3xf32> {
  %0 = nnc.matmul %x, %w : tensor<4x8xf32>, tensor<8x3xf32>
  return %0 : tensor<4x3xf32>
}
