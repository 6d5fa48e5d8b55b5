// RUN: nnc-opt %s --split-input-file --nnc-sync-batch-norm --verify-diagnostics | FileCheck %s

// One all-reduce of the sums and counts ([2, C]), the mean from it, one of
// the squared deviations from that mean; the running variance is unbiased
// by the global count (sliced from the all-reduced counts, not the local
// 32). No batch_norm_train is left.
// CHECK-LABEL: func.func @f
// CHECK: %[[S:.*]] = nnc.reduce sum %arg0 axes = [0, 2, 3] : tensor<2x3x4x4xf32>
// CHECK: %[[C:.*]] = nnc.constant dense<3.200000e+01> : tensor<1x3x1x1xf32>
// CHECK: %[[P:.*]] = nnc.concat %[[S]], %[[C]] axis = 0
// CHECK: %[[G:.*]] = nnc.all_reduce %[[P]] : tensor<2x3x1x1xf32>
// CHECK-DAG: %[[N:.*]] = nnc.slice %[[G]] starts = [1] ends = [2] axes = [0]
// CHECK-DAG: %[[T:.*]] = nnc.slice %[[G]] starts = [0] ends = [1] axes = [0]
// CHECK: %[[M:.*]] = nnc.div %[[T]], %[[N]]
// CHECK: %[[X:.*]] = nnc.sub %arg0, %[[M]]
// CHECK: %[[Q:.*]] = nnc.mul %[[X]], %[[X]]
// CHECK: %[[QS:.*]] = nnc.reduce sum %[[Q]]
// CHECK: %[[QG:.*]] = nnc.all_reduce %[[QS]] : tensor<1x3x1x1xf32>
// CHECK: %[[V:.*]] = nnc.div %[[QG]], %[[N]]
// CHECK: nnc.rsqrt
// CHECK: %[[NC:.*]] = nnc.reshape %[[N]] : tensor<1x3x1x1xf32> -> tensor<3xf32>
// CHECK: nnc.sub %[[NC]]
// CHECK-NOT: nnc.batch_norm_train
// CHECK: return
func.func @f(%x: tensor<2x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %bm, %bv, %rm, %rv = nnc.batch_norm_train %x, %s, %b, %m, %v epsilon = 1.000000e-03 momentum = 9.000000e-01 : tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  return %y, %bm, %bv, %rm, %rv : tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// A bf16 input: statistics in f32, the output back in bf16; the biased
// running variance (ONNX's) takes no correction.
// CHECK-LABEL: func.func @low
// CHECK: %[[XF:.*]] = nnc.cast %arg0 : tensor<4x2xbf16> to tensor<4x2xf32>
// CHECK: nnc.reduce sum %[[XF]] axes = [0] : tensor<4x2xf32>
// CHECK: nnc.all_reduce %{{.*}} : tensor<2x2xf32>
// CHECK-NOT: nnc.sub %{{.*}}, %{{.*}} : tensor<2xf32>, tensor<f32>
// CHECK: nnc.cast %{{.*}} : tensor<4x2xf32> to tensor<4x2xbf16>
func.func @low(%x: tensor<4x2xbf16>, %s: tensor<2xf32>, %b: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<4x2xbf16> {
  %y, %bm, %bv, %rm, %rv = nnc.batch_norm_train %x, %s, %b, %m, %v {unbiased_running_var = false} : tensor<4x2xbf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  return %y : tensor<4x2xbf16>
}

// -----

func.func @dynamic(%x: tensor<?x3xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{needs a static input shape to synchronize its statistics}}
  %y, %bm, %bv, %rm, %rv = nnc.batch_norm_train %x, %s, %b, %m, %v : tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  return %y : tensor<?x3xf32>
}
