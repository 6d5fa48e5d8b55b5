// RUN: nnc-opt %s --nnc-prepare-training="loss=mse reduction=sum" | FileCheck %s

// MSE on the first result with a dynamic batch: the targets take the
// output's type; without loss-scale there is one loss result and no
// scale argument; batch norm on constants has no running statistics to
// return.
// CHECK-LABEL: func.func @main_train(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<?x2xf32>, %[[W:[a-z0-9]+]]: tensor<2x2xf32> {nnc.param = #nnc.param<trainable>}, %[[T:[a-z0-9]+]]: tensor<?x2xf32>)
// CHECK-SAME: -> tensor<f32> attributes {nnc.result_names = ["loss"]}
// CHECK: nnc.batch_norm_train
// CHECK: %[[L:.*]] = nnc.mse_loss %{{.*}}, %[[T]] reduction = sum
// CHECK: return %[[L]] : tensor<f32>
func.func @main(%x: tensor<?x2xf32>,
                %w: tensor<2x2xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<?x2xf32> {
  %c = nnc.constant dense<1.0> : tensor<2xf32>
  %y = nnc.matmul %x, %w : tensor<?x2xf32>, tensor<2x2xf32>
  %n = nnc.batch_norm %y, %c, %c, %c, %c : tensor<?x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  return %n : tensor<?x2xf32>
}
