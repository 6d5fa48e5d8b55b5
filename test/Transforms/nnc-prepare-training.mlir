// RUN: nnc-opt %s -split-input-file --nnc-prepare-training="output=logits label-smoothing=0.1 ignore-index=-1 loss-scale=true" | FileCheck %s

// Batch norm switches to batch statistics with the op's momentum, and the
// updated running statistics become results named like their arguments;
// dropout draws its mask from nnc.random_uniform keyed by a new `seed`
// argument; cross-entropy with smoothing and an ignored label attaches to
// the result named `logits` (labels: the logits' shape without the class
// axis); the loss is scaled by the last argument and returned unscaled too.
// The model's other result is dropped; @main itself is unchanged.
// CHECK-LABEL: func.func @main(
// CHECK: nnc.batch_norm %
// CHECK: nnc.dropout
// CHECK-LABEL: func.func @main_train(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x2x3xf32>
// CHECK-SAME: #nnc.param<buffer>}, %[[RV:[a-z0-9]+]]: tensor<2xf32> {nnc.param = #nnc.param<buffer>}
// CHECK-SAME: %[[LABELS:[a-z0-9]+]]: tensor<4x3xi64>, %[[SEED:[a-z0-9]+]]: tensor<i64>, %[[SCALE:[a-z0-9]+]]: tensor<f32>)
// CHECK-SAME: -> (tensor<f32>, tensor<f32>, tensor<2xf32>, tensor<2xf32>)
// CHECK-SAME: nnc.result_names = ["scaled_loss", "loss", "bn.running_mean", "bn.running_var"]
// CHECK: %[[Y:[a-z_0-9]+]], %{{[a-z_0-9]+}}, %{{[a-z_0-9]+}}, %[[NRM:[a-z_0-9]+]], %[[NRV:[a-z_0-9]+]] = nnc.batch_norm_train %[[X]], {{.*}}, %[[RV]] momentum = 8.000000e-01
// CHECK: %[[U:.*]] = nnc.random_uniform %[[SEED]], %[[Y]] stream = 0
// CHECK: %[[RATIO:.*]] = nnc.constant dense<2.500000e-01>
// CHECK: %[[KEEP:.*]] = nnc.cmp ge, %[[U]], %[[RATIO]]
// CHECK: %[[INV:.*]] = nnc.constant dense<1.33333337>
// CHECK: %[[SCALED:.*]] = nnc.mul %[[Y]], %[[INV]]
// CHECK: %[[DROPPED:.*]] = nnc.where %[[KEEP]], %[[SCALED]]
// CHECK: %[[LOSS:.*]] = nnc.cross_entropy %[[DROPPED]], %[[LABELS]] ignore_index = -1 label_smoothing = 1.000000e-01
// CHECK: %[[SL:.*]] = nnc.mul %[[LOSS]], %[[SCALE]]
// CHECK: return %[[SL]], %[[LOSS]], %[[NRM]], %[[NRV]]
func.func @main(%x: tensor<4x2x3xf32>,
                %s: tensor<2xf32> {nnc.param = #nnc.param<trainable>} loc("bn.weight"),
                %b: tensor<2xf32> {nnc.param = #nnc.param<trainable>} loc("bn.bias"),
                %rm: tensor<2xf32> {nnc.param = #nnc.param<buffer>} loc("bn.running_mean"),
                %rv: tensor<2xf32> {nnc.param = #nnc.param<buffer>} loc("bn.running_var"))
    -> (tensor<4x6xf32>, tensor<4x2x3xf32>)
    attributes {nnc.result_names = ["features", "logits"]} {
  %y = nnc.batch_norm %x, %s, %b, %rm, %rv momentum = 0.8 : tensor<4x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  %d, %m = nnc.dropout %y ratio = 0.25 : tensor<4x2x3xf32>
  %f = nnc.reshape %d : tensor<4x2x3xf32> -> tensor<4x6xf32>
  return %f, %d : tensor<4x6xf32>, tensor<4x2x3xf32>
}
