// The pre-LN transformer block of nnc-trace-examples: layer_norm, q/k/v
// projections split into 4 heads (reshape + transpose), scaled scores with a
// causal mask (trilu + where), softmax, attention, output projection,
// residual adds and a gelu MLP, with a dynamic batch that
// --nnc-shape-inference specializes.
// RUN: nnc-trace-examples transformer | FileCheck %s
// RUN: nnc-trace-examples transformer | nnc-opt | FileCheck %s
// RUN: nnc-trace-examples transformer | nnc-opt --nnc-shape-inference="input-shapes=0:8x16x64" | FileCheck %s --check-prefix=SPEC

// CHECK-LABEL: func.func @transformer(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x16x64xf32>,
// CHECK-SAME: %[[G1:[^:]*]]: tensor<64xf32> {nnc.param = #nnc.param<trainable>},
// CHECK-SAME: %[[BETA1:[^:]*]]: tensor<64xf32> {nnc.param = #nnc.param<trainable>},
// CHECK-SAME: %[[WQ:[^:]*]]: tensor<64x64xf32> {nnc.param = #nnc.param<trainable>},
// CHECK-SAME: %[[BQ:[^:]*]]: tensor<64xf32> {nnc.param = #nnc.param<trainable>},
// CHECK-SAME: tensor<64x256xf32> {nnc.param = #nnc.param<trainable>},
// CHECK-SAME: tensor<256x64xf32> {nnc.param = #nnc.param<trainable>},
// CHECK-SAME: -> tensor<?x16x64xf32>
// CHECK: %[[LN1:[^,]*]], %{{.*}}, %{{.*}} = nnc.layer_norm %[[X]] scale(%[[G1]] : tensor<64xf32>) bias(%[[BETA1]] : tensor<64xf32>) : tensor<?x16x64xf32>
// CHECK: %[[QM:.*]] = nnc.matmul %[[LN1]], %[[WQ]] : tensor<?x16x64xf32>, tensor<64x64xf32>
// CHECK: %[[QA:.*]] = nnc.add %[[QM]], %[[BQ]] : tensor<?x16x64xf32>, tensor<64xf32>
// CHECK: %[[QR:.*]] = nnc.reshape %[[QA]] : tensor<?x16x64xf32> -> tensor<?x16x4x16xf32>
// CHECK: %[[Q:.*]] = nnc.transpose %[[QR]] perm = [0, 2, 1, 3] : tensor<?x16x4x16xf32>
// CHECK: nnc.matmul %[[LN1]]
// CHECK: %[[KH:.*]] = nnc.transpose %{{.*}} perm = [0, 2, 1, 3] : tensor<?x16x4x16xf32>
// CHECK: nnc.matmul %[[LN1]]
// CHECK: %[[V:.*]] = nnc.transpose %{{.*}} perm = [0, 2, 1, 3] : tensor<?x16x4x16xf32>
// CHECK: %[[KT:.*]] = nnc.transpose %[[KH]] perm = [0, 1, 3, 2] : tensor<?x4x16x16xf32>
// CHECK: %[[S:.*]] = nnc.matmul %[[Q]], %[[KT]] : tensor<?x4x16x16xf32>, tensor<?x4x16x16xf32>
// CHECK: %[[SCALE:.*]] = nnc.constant dense<2.500000e-01> : tensor<f32>
// CHECK: %[[SS:.*]] = nnc.mul %[[S]], %[[SCALE]] : tensor<?x4x16x16xf32>, tensor<f32>
// CHECK: %[[ONES:.*]] = nnc.constant dense<true> : tensor<16x16xi1>
// CHECK: %[[MASK:.*]] = nnc.trilu %[[ONES]] upper = false : tensor<16x16xi1>
// CHECK: %[[NEG:.*]] = nnc.constant dense<-1.000000e+09> : tensor<f32>
// CHECK: %[[MASKED:.*]] = nnc.where %[[MASK]], %[[SS]], %[[NEG]] : tensor<16x16xi1>, tensor<?x4x16x16xf32>, tensor<f32>
// CHECK: %[[P:.*]] = nnc.softmax %[[MASKED]] : tensor<?x4x16x16xf32>
// CHECK: %[[A:.*]] = nnc.matmul %[[P]], %[[V]] : tensor<?x4x16x16xf32>, tensor<?x4x16x16xf32>
// CHECK: %[[AT:.*]] = nnc.transpose %[[A]] perm = [0, 2, 1, 3] : tensor<?x4x16x16xf32>
// CHECK: %[[AR:.*]] = nnc.reshape %[[AT]] : tensor<?x16x4x16xf32> -> tensor<?x16x64xf32>
// CHECK: %[[PM:.*]] = nnc.matmul %[[AR]], %{{.*}} : tensor<?x16x64xf32>, tensor<64x64xf32>
// CHECK: %[[PA:.*]] = nnc.add %[[PM]], %{{.*}} : tensor<?x16x64xf32>, tensor<64xf32>
// CHECK: %[[Y:.*]] = nnc.add %[[X]], %[[PA]] : tensor<?x16x64xf32>, tensor<?x16x64xf32>
// CHECK: %[[LN2:[^,]*]], %{{.*}}, %{{.*}} = nnc.layer_norm %[[Y]] scale({{.*}}) bias({{.*}}) : tensor<?x16x64xf32>
// CHECK: %[[F1:.*]] = nnc.matmul %[[LN2]], %{{.*}} : tensor<?x16x64xf32>, tensor<64x256xf32>
// CHECK: %[[F1B:.*]] = nnc.add %[[F1]], %{{.*}} : tensor<?x16x256xf32>, tensor<256xf32>
// CHECK: %[[G:.*]] = nnc.gelu %[[F1B]] : tensor<?x16x256xf32>
// CHECK: %[[F2:.*]] = nnc.matmul %[[G]], %{{.*}} : tensor<?x16x256xf32>, tensor<256x64xf32>
// CHECK: %[[F2B:.*]] = nnc.add %[[F2]], %{{.*}} : tensor<?x16x64xf32>, tensor<64xf32>
// CHECK: %[[OUT:.*]] = nnc.add %[[Y]], %[[F2B]] : tensor<?x16x64xf32>, tensor<?x16x64xf32>
// CHECK: return %[[OUT]] : tensor<?x16x64xf32>

// SPEC-LABEL: func.func @transformer(
// SPEC-SAME: tensor<8x16x64xf32>
// SPEC-SAME: -> tensor<8x16x64xf32>
// SPEC: nnc.layer_norm {{.*}} : tensor<8x16x64xf32>
// SPEC: nnc.reshape {{.*}} : tensor<8x16x64xf32> -> tensor<8x16x4x16xf32>
// SPEC: nnc.transpose {{.*}} perm = [0, 2, 1, 3] : tensor<8x16x4x16xf32>
// SPEC: nnc.matmul {{.*}} : tensor<8x4x16x16xf32>, tensor<8x4x16x16xf32>
// SPEC: nnc.where {{.*}} : tensor<16x16xi1>, tensor<8x4x16x16xf32>, tensor<f32>
// SPEC: nnc.softmax {{.*}} : tensor<8x4x16x16xf32>
// SPEC: nnc.reshape {{.*}} : tensor<8x16x4x16xf32> -> tensor<8x16x64xf32>
// SPEC: nnc.gelu {{.*}} : tensor<8x16x256xf32>
// SPEC: return {{.*}} : tensor<8x16x64xf32>
