// The README's end-to-end example: a two-layer MLP for the 8x8 digits with
// its loss, written with a dynamic batch. The pipeline specializes the batch,
// propagates shapes and simplifies (dropout in inference mode disappears).
// RUN: nnc-opt %s --nnc-shape-inference="input-shapes=0:64x64,1:64" --canonicalize --cse | FileCheck %s

// CHECK-LABEL: func @mlp_digits
// CHECK-SAME: %{{.*}}: tensor<64x64xf32>, %{{.*}}: tensor<64xi64>
// CHECK-SAME: -> (tensor<f32>, tensor<64x10xf32>)
// CHECK: nnc.matmul %{{.*}}, %{{.*}} : tensor<64x64xf32>, tensor<64x256xf32>
// CHECK: nnc.relu %{{.*}} : tensor<64x256xf32>
// CHECK-NOT: nnc.dropout
// CHECK: nnc.log_softmax %{{.*}} : tensor<64x10xf32>
// CHECK: nnc.cross_entropy
// CHECK: return %{{.*}}, %{{.*}} : tensor<f32>, tensor<64x10xf32>
func.func @mlp_digits(%x: tensor<?x64xf32>, %labels: tensor<?xi64>,
                      %w1: tensor<64x256xf32> {nnc.param = #nnc.param<trainable>},
                      %b1: tensor<256xf32> {nnc.param = #nnc.param<trainable>},
                      %w2: tensor<256x10xf32> {nnc.param = #nnc.param<trainable>},
                      %b2: tensor<10xf32> {nnc.param = #nnc.param<trainable>})
    -> (tensor<f32>, tensor<?x10xf32>) {
  %0 = nnc.matmul %x, %w1 : tensor<?x64xf32>, tensor<64x256xf32>
  %1 = nnc.add %0, %b1 : tensor<?x256xf32>, tensor<256xf32>
  %2 = nnc.relu %1 : tensor<?x256xf32>
  %3, %mask = nnc.dropout %2 ratio = 0.1 : tensor<?x256xf32>
  %4 = nnc.matmul %3, %w2 : tensor<?x256xf32>, tensor<256x10xf32>
  %5 = nnc.add %4, %b2 : tensor<?x10xf32>, tensor<10xf32>
  %6 = nnc.log_softmax %5 : tensor<?x10xf32>
  %loss = nnc.cross_entropy %5, %labels : tensor<?x10xf32>, tensor<?xi64>
  return %loss, %6 : tensor<f32>, tensor<?x10xf32>
}
