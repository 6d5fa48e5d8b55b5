// The MLP of nnc-trace-examples (64 -> 256 -> 10, relu, log_softmax and
// cross-entropy): inputs first, then the parameters marked trainable, with a
// dynamic batch that --nnc-shape-inference specializes.
// RUN: nnc-trace-examples mlp | FileCheck %s
// RUN: nnc-trace-examples mlp | nnc-opt | FileCheck %s
// RUN: nnc-trace-examples mlp | nnc-opt --nnc-shape-inference="input-shapes=0:8x64,1:8" | FileCheck %s --check-prefix=SPEC

// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x64xf32>, %[[LABELS:.*]]: tensor<?xi64>,
// CHECK-SAME: %[[W1:[^:]*]]: tensor<64x256xf32> {nnc.param = #nnc.param<trainable>},
// CHECK-SAME: %[[B1:[^:]*]]: tensor<256xf32> {nnc.param = #nnc.param<trainable>},
// CHECK-SAME: %[[W2:[^:]*]]: tensor<256x10xf32> {nnc.param = #nnc.param<trainable>},
// CHECK-SAME: %[[B2:[^:]*]]: tensor<10xf32> {nnc.param = #nnc.param<trainable>})
// CHECK-SAME: -> (tensor<f32>, tensor<?x10xf32>)
// CHECK: %[[MM1:.*]] = nnc.matmul %[[X]], %[[W1]] : tensor<?x64xf32>, tensor<64x256xf32>
// CHECK: %[[ADD1:.*]] = nnc.add %[[MM1]], %[[B1]] : tensor<?x256xf32>, tensor<256xf32>
// CHECK: %[[H:.*]] = nnc.relu %[[ADD1]] : tensor<?x256xf32>
// CHECK: %[[MM2:.*]] = nnc.matmul %[[H]], %[[W2]] : tensor<?x256xf32>, tensor<256x10xf32>
// CHECK: %[[LOGITS:.*]] = nnc.add %[[MM2]], %[[B2]] : tensor<?x10xf32>, tensor<10xf32>
// CHECK: %[[LOSS:.*]] = nnc.cross_entropy %[[LOGITS]], %[[LABELS]] : tensor<?x10xf32>, tensor<?xi64>
// CHECK: %[[LOGP:.*]] = nnc.log_softmax %[[LOGITS]] : tensor<?x10xf32>
// CHECK: return %[[LOSS]], %[[LOGP]] : tensor<f32>, tensor<?x10xf32>

// SPEC-LABEL: func.func @mlp(
// SPEC-SAME: tensor<8x64xf32>, %{{.*}}: tensor<8xi64>,
// SPEC-SAME: -> (tensor<f32>, tensor<8x10xf32>)
// SPEC: nnc.matmul %{{.*}}, %{{.*}} : tensor<8x64xf32>, tensor<64x256xf32>
// SPEC: nnc.add %{{.*}}, %{{.*}} : tensor<8x256xf32>, tensor<256xf32>
// SPEC: nnc.relu %{{.*}} : tensor<8x256xf32>
// SPEC: nnc.matmul %{{.*}}, %{{.*}} : tensor<8x256xf32>, tensor<256x10xf32>
// SPEC: nnc.add %{{.*}}, %{{.*}} : tensor<8x10xf32>, tensor<10xf32>
// SPEC: nnc.cross_entropy %{{.*}}, %{{.*}} : tensor<8x10xf32>, tensor<8xi64>
// SPEC: nnc.log_softmax %{{.*}} : tensor<8x10xf32>
// SPEC: return %{{.*}}, %{{.*}} : tensor<f32>, tensor<8x10xf32>
