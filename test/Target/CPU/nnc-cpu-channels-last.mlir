// RUN: nnc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(nnc-cpu-channels-last{always=true}))' | FileCheck %s
// RUN: nnc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(nnc-cpu-channels-last{always=true}),func.func(nnc-fuse-elementwise),canonicalize)' | FileCheck %s --check-prefix=FUSED

// A forward library convolution on tensors gets channels-last images
// between two transposes; its gradients and buffer forms are left alone.
// CHECK-DAG: #[[TO_LAST:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>
// CHECK-DAG: #[[TO_FIRST:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x9x7xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[XT:.*]] = linalg.generic {indexing_maps = [#[[TO_LAST]], #[[ID]]], {{.*}}} ins(%[[X]] : tensor<2x3x9x7xf32>) outs(%{{.*}} : tensor<2x9x7x3xf32>)
// CHECK: %[[Y:.*]] = nnc.library_conv "forward" ins(%[[XT]], %[[W]], %[[B]] : tensor<2x9x7x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<2x5x4x4xf32>) strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 channels_last -> tensor<2x5x4x4xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[TO_FIRST]], #[[ID]]], {{.*}}} ins(%[[Y]] : tensor<2x5x4x4xf32>) outs(%{{.*}} : tensor<2x4x5x4xf32>)
// CHECK: return %[[R]]
func.func @forward(%x: tensor<2x3x9x7xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<2x4x5x4xf32> {
  %e = tensor.empty() : tensor<2x4x5x4xf32>
  %y = nnc.library_conv "forward" ins(%x, %w, %b : tensor<2x3x9x7xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) outs(%e : tensor<2x4x5x4xf32>) strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 -> tensor<2x4x5x4xf32>
  return %y : tensor<2x4x5x4xf32>
}

// CHECK-LABEL: func.func @gradients
// CHECK-NOT: linalg.generic
// CHECK-NOT: channels_last
// CHECK: return
func.func @gradients(%g: tensor<2x4x8x8xf32>, %w: tensor<4x3x3x3xf32>, %x: tensor<2x3x8x8xf32>) -> (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) {
  %e = tensor.empty() : tensor<2x3x8x8xf32>
  %dx = nnc.library_conv "backward_data" ins(%g, %w : tensor<2x4x8x8xf32>, tensor<4x3x3x3xf32>) outs(%e : tensor<2x3x8x8xf32>) strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 -> tensor<2x3x8x8xf32>
  %f = tensor.empty() : tensor<4x3x3x3xf32>
  %dw = nnc.library_conv "backward_weights" ins(%x, %g : tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) outs(%f : tensor<4x3x3x3xf32>) strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 -> tensor<4x3x3x3xf32>
  return %dx, %dw : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>
}

// -----

// Two convolutions with a ReLU between them: after fusion the ReLU reads
// and writes channels-last, and nothing is transposed between them.
// FUSED-LABEL: func.func @chain
// FUSED: %[[XT:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1x8x6x6xf32>) outs(%{{.*}} : tensor<1x6x6x8xf32>)
// FUSED: %[[A:.*]] = nnc.library_conv "forward" ins(%[[XT]], {{.*}} channels_last -> tensor<1x6x6x16xf32>
// FUSED: %[[R:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<1x6x6x16xf32>) outs(%{{.*}} : tensor<1x6x6x16xf32>)
// FUSED: arith.maximumf
// FUSED: %[[B:.*]] = nnc.library_conv "forward" ins(%[[R]], {{.*}} channels_last -> tensor<1x6x6x4xf32>
// FUSED: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<1x6x6x4xf32>) outs(%{{.*}} : tensor<1x4x6x6xf32>)
// FUSED-NOT: linalg.generic
// FUSED: return %[[Y]]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @chain(%x: tensor<1x8x6x6xf32>, %w1: tensor<16x8x1x1xf32>, %w2: tensor<4x16x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %e1 = tensor.empty() : tensor<1x16x6x6xf32>
  %a = nnc.library_conv "forward" ins(%x, %w1 : tensor<1x8x6x6xf32>, tensor<16x8x1x1xf32>) outs(%e1 : tensor<1x16x6x6xf32>) strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 -> tensor<1x16x6x6xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<1x16x6x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<1x16x6x6xf32>) outs(%e2 : tensor<1x16x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x16x6x6xf32>
  %e3 = tensor.empty() : tensor<1x4x6x6xf32>
  %y = nnc.library_conv "forward" ins(%r, %w2 : tensor<1x16x6x6xf32>, tensor<4x16x3x3xf32>) outs(%e3 : tensor<1x4x6x6xf32>) strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}
