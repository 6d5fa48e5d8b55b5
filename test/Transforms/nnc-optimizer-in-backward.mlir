// RUN: nnc-opt %s --nnc-prepare-training="loss=mse" --nnc-autodiff=function=main_train --nnc-optimizer="function=main_train kind=sgd momentum=0.9 updates-in-backward=true" | FileCheck %s
// RUN: nnc-opt %s --nnc-prepare-training="loss=mse loss-scale=true" --nnc-autodiff=function=main_train --nnc-optimizer="function=main_train kind=adam loss-scale=true updates-in-backward=true apply=true" | FileCheck %s --check-prefix=SCALED

// updates-in-backward: w2's update follows its gradient and the last read of
// w2 (the transpose for the input gradient), before the backward pass goes
// on to layer 1; w1's comes last, after its own gradient.
// CHECK-LABEL: func.func @main_train_step(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x8xf32>, %[[W1:[a-z0-9]+]]: tensor<8x16xf32> {nnc.param = #nnc.param<trainable>}, %[[W2:[a-z0-9]+]]: tensor<16x2xf32> {nnc.param = #nnc.param<trainable>}
// CHECK-SAME: %[[V1:[a-z0-9]+]]: tensor<8x16xf32> {nnc.param = #nnc.param<buffer>}, %[[V2:[a-z0-9]+]]: tensor<16x2xf32> {nnc.param = #nnc.param<buffer>}, %[[LR:[a-z0-9]+]]: tensor<f32>)
// CHECK: nnc.transpose %[[W2]]
// CHECK: %[[G2:.*]] = nnc.matmul %{{.*}}, %{{.*}} : tensor<16x4xf32>, tensor<4x2xf32>
// CHECK: %[[K2:.*]] = nnc.mul %[[V2]]
// CHECK: %[[BUF2:.*]] = nnc.add %[[K2]], %[[G2]]
// CHECK: %[[D2:.*]] = nnc.mul %[[LR]], %[[BUF2]]
// CHECK: %[[P2:.*]] = nnc.sub %[[W2]], %[[D2]]
// CHECK: nnc.cmp gt
// CHECK: %[[G1:.*]] = nnc.matmul %{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<4x16xf32>
// CHECK: %[[K1:.*]] = nnc.mul %[[V1]]
// CHECK: %[[BUF1:.*]] = nnc.add %[[K1]], %[[G1]]
// CHECK: %[[D1:.*]] = nnc.mul %[[LR]], %[[BUF1]]
// CHECK: %[[P1:.*]] = nnc.sub %[[W1]], %[[D1]]
// CHECK-NEXT: return %{{.*}}, %[[P1]], %[[P2]], %[[BUF1]], %[[BUF2]]

// With loss-scale: 1 / scale and Adam's corrections open the body; each
// update checks its gradient and those updated before it (a running sum of
// the probes), keeps the old values from the first non-finite one on, and
// t moves on only when all were finite.
// SCALED-LABEL: func.func @main_train_step(
// SCALED-SAME: %[[W1:[a-z0-9]+]]: tensor<8x16xf32> {nnc.param = #nnc.param<trainable>}, %[[W2:[a-z0-9]+]]: tensor<16x2xf32> {nnc.param = #nnc.param<trainable>}
// SCALED-SAME: %[[SCALE:[a-z0-9]+]]: tensor<f32>, %[[M1:[a-z0-9]+]]: tensor<8x16xf32> {nnc.param = #nnc.param<buffer>}, %[[M2:[a-z0-9]+]]: tensor<16x2xf32> {nnc.param = #nnc.param<buffer>}, %[[S1:[a-z0-9]+]]: tensor<8x16xf32> {nnc.param = #nnc.param<buffer>}, %[[S2:[a-z0-9]+]]: tensor<16x2xf32> {nnc.param = #nnc.param<buffer>}, %[[T:[a-z0-9]+]]: tensor<f32> {nnc.param = #nnc.param<buffer>}, %[[LR:[a-z0-9]+]]: tensor<f32>)
// SCALED-NEXT: %[[ZERO:.*]] = nnc.constant dense<0.000000e+00>
// SCALED-NEXT: %[[ONE:.*]] = nnc.constant dense<1.000000e+00>
// SCALED-NEXT: %[[INV:.*]] = nnc.div %[[ONE]], %[[SCALE]]
// SCALED: %[[TNEXT:.*]] = nnc.add %[[T]]
// SCALED: nnc.sqrt %{{.*}} : tensor<f32>
// SCALED-NEXT: nnc.matmul %{{.*}}, %[[W1]]
// SCALED: %[[G2:.*]] = nnc.matmul %{{.*}}, %{{.*}} : tensor<16x4xf32>, tensor<4x2xf32>
// SCALED-NEXT: %[[PROBE2:.*]] = nnc.mul %[[G2]], %[[ZERO]]
// SCALED-NEXT: %[[SUM2:.*]] = nnc.reduce sum %[[PROBE2]]
// SCALED-NEXT: %[[FOUND2:.*]] = nnc.is_nan %[[SUM2]]
// SCALED-NEXT: nnc.mul %[[G2]], %[[INV]]
// SCALED: %[[NEWM2:.*]] = nnc.where %[[FOUND2]], %[[M2]], %{{.*}}
// SCALED-NEXT: %[[NEWS2:.*]] = nnc.where %[[FOUND2]], %[[S2]], %{{.*}}
// SCALED-NEXT: %[[SUB2:.*]] = nnc.sub %[[W2]], %{{.*}}
// SCALED-NEXT: %[[NEWW2:.*]] = nnc.where %[[FOUND2]], %[[W2]], %[[SUB2]]
// SCALED: nnc.cmp gt
// SCALED: %[[G1:.*]] = nnc.matmul %{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<4x16xf32>
// SCALED-NEXT: %[[PROBE1:.*]] = nnc.mul %[[G1]], %[[ZERO]]
// SCALED-NEXT: %[[SUM1:.*]] = nnc.reduce sum %[[PROBE1]]
// SCALED-NEXT: %[[TOTAL:.*]] = nnc.add %[[SUM2]], %[[SUM1]]
// SCALED-NEXT: %[[FOUND:.*]] = nnc.is_nan %[[TOTAL]]
// SCALED: %[[NEWW1:.*]] = nnc.where %[[FOUND]], %[[W1]], %{{.*}}
// SCALED-NEXT: %[[NEWT:.*]] = nnc.where %[[FOUND]], %[[T]], %[[TNEXT]]
// SCALED-NEXT: return %{{.*}}, %[[NEWW1]], %[[NEWW2]], %{{.*}}, %[[NEWM2]], %{{.*}}, %[[NEWS2]], %[[NEWT]], %[[FOUND]], %{{.*}}
// _apply is unchanged: its update is all it does.
// SCALED-LABEL: func.func @main_train_apply(
// SCALED: nnc.is_nan
// SCALED-NOT: nnc.is_nan
// SCALED: return

func.func @main(%x: tensor<4x8xf32>,
                %w1: tensor<8x16xf32> {nnc.param = #nnc.param<trainable>},
                %w2: tensor<16x2xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<4x2xf32> {
  %h = nnc.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x16xf32>
  %r = nnc.relu %h : tensor<4x16xf32>
  %y = nnc.matmul %r, %w2 : tensor<4x16xf32>, tensor<16x2xf32>
  return %y : tensor<4x2xf32>
}
