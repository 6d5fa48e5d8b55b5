// RUN: nnc-opt %s --split-input-file | FileCheck %s
// RUN: nnc-opt %s --split-input-file | nnc-opt --split-input-file | FileCheck %s
// RUN: nnc-opt %s --split-input-file --mlir-print-op-generic | nnc-opt --split-input-file | FileCheck %s

// library_conv on tensors: forward with a bias returns init's type.
// CHECK-LABEL: func.func @forward
// CHECK: nnc.library_conv "forward" ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3x9x9xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<2x8x5x5xf32>) strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 -> tensor<2x8x5x5xf32>
func.func @forward(%x: tensor<2x3x9x9xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<2x8x5x5xf32> {
  %e = tensor.empty() : tensor<2x8x5x5xf32>
  %y = nnc.library_conv "forward" ins(%x, %w, %b : tensor<2x3x9x9xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) outs(%e : tensor<2x8x5x5xf32>) strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 -> tensor<2x8x5x5xf32>
  return %y : tensor<2x8x5x5xf32>
}

// -----

// Backward data of a depthwise convolution: dst-gradient in, src out.
// CHECK-LABEL: func.func @backward_data
// CHECK: nnc.library_conv "backward_data" ins(%{{.*}}, %{{.*}} : tensor<1x6x4x4xf32>, tensor<6x1x3x3xf32>) outs(%{{.*}} : tensor<1x6x8x8xf32>) strides = [2, 2] dilations = [1, 1] pads = [1, 1, 0, 0] groups = 6
func.func @backward_data(%g: tensor<1x6x4x4xf32>, %w: tensor<6x1x3x3xf32>) -> tensor<1x6x8x8xf32> {
  %e = tensor.empty() : tensor<1x6x8x8xf32>
  %dx = nnc.library_conv "backward_data" ins(%g, %w : tensor<1x6x4x4xf32>, tensor<6x1x3x3xf32>) outs(%e : tensor<1x6x8x8xf32>) strides = [2, 2] dilations = [1, 1] pads = [1, 1, 0, 0] groups = 6 -> tensor<1x6x8x8xf32>
  return %dx : tensor<1x6x8x8xf32>
}

// -----

// On buffers: the weight gradient of a 1-D convolution, no result.
// CHECK-LABEL: func.func @backward_weights
// CHECK: nnc.library_conv "backward_weights" ins(%{{.*}}, %{{.*}} : memref<3x4x17xf32>, memref<3x5x8xf32>) outs(%{{.*}} : memref<5x4x3xf32>) strides = [2] dilations = [1] pads = [1, 0] groups = 1
// CHECK-NOT: ->
func.func @backward_weights(%x: memref<3x4x17xf32>, %g: memref<3x5x8xf32>, %dw: memref<5x4x3xf32>) {
  nnc.library_conv "backward_weights" ins(%x, %g : memref<3x4x17xf32>, memref<3x5x8xf32>) outs(%dw : memref<5x4x3xf32>) strides = [2] dilations = [1] pads = [1, 0] groups = 1
  return
}

// -----

// Low-precision operands, which need not share one type: a bf16 weight
// gradient of bf16 activations written in f32.
// CHECK-LABEL: func.func @low_precision
// CHECK: nnc.library_conv "backward_weights" ins(%{{.*}}, %{{.*}} : memref<3x4x17xbf16>, memref<3x5x8xbf16>) outs(%{{.*}} : memref<5x4x3xf32>)
// CHECK: nnc.library_conv "forward" ins(%{{.*}}, %{{.*}} : memref<3x4x17xf16>, memref<5x4x3xf16>) outs(%{{.*}} : memref<3x5x8xf16>)
func.func @low_precision(%x: memref<3x4x17xbf16>, %g: memref<3x5x8xbf16>, %dw: memref<5x4x3xf32>, %h: memref<3x4x17xf16>, %v: memref<5x4x3xf16>, %y: memref<3x5x8xf16>) {
  nnc.library_conv "backward_weights" ins(%x, %g : memref<3x4x17xbf16>, memref<3x5x8xbf16>) outs(%dw : memref<5x4x3xf32>) strides = [2] dilations = [1] pads = [1, 0] groups = 1
  nnc.library_conv "forward" ins(%h, %v : memref<3x4x17xf16>, memref<5x4x3xf16>) outs(%y : memref<3x5x8xf16>) strides = [2] dilations = [1] pads = [1, 0] groups = 1
  return
}

// -----

// all_reduce keeps its operand's type; library_all_reduce on tensors returns
// init's type, on buffers nothing.
// CHECK-LABEL: func.func @all_reduce
// CHECK: nnc.all_reduce %{{.*}} : tensor<2x16xf32>
// CHECK: nnc.all_reduce %{{.*}} : tensor<4xbf16>
// CHECK: nnc.library_all_reduce ins(%{{.*}} : tensor<2x16xf32>) outs(%{{.*}} : tensor<2x16xf32>) -> tensor<2x16xf32>
// CHECK: nnc.library_all_reduce ins(%{{.*}} : memref<3xf64>) outs(%{{.*}} : memref<3xf64>)
func.func @all_reduce(%x: tensor<2x16xf32>, %h: tensor<4xbf16>, %e: tensor<2x16xf32>, %a: memref<3xf64>, %b: memref<3xf64>) -> (tensor<2x16xf32>, tensor<4xbf16>, tensor<2x16xf32>) {
  %s = nnc.all_reduce %x : tensor<2x16xf32>
  %t = nnc.all_reduce %h : tensor<4xbf16>
  %r = nnc.library_all_reduce ins(%x : tensor<2x16xf32>) outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
  nnc.library_all_reduce ins(%a : memref<3xf64>) outs(%b : memref<3xf64>)
  return %s, %t, %r : tensor<2x16xf32>, tensor<4xbf16>, tensor<2x16xf32>
}

// -----

// Channels-last images: src [N, H, W, C], dst [N, OH, OW, M].
// CHECK-LABEL: func.func @channels_last
// CHECK: nnc.library_conv "forward" ins(%{{.*}}, %{{.*}} : tensor<2x9x9x3xf32>, tensor<8x3x3x3xf32>) outs(%{{.*}} : tensor<2x5x5x8xf32>) strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 channels_last -> tensor<2x5x5x8xf32>
func.func @channels_last(%x: tensor<2x9x9x3xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<2x5x5x8xf32> {
  %e = tensor.empty() : tensor<2x5x5x8xf32>
  %y = nnc.library_conv "forward" ins(%x, %w : tensor<2x9x9x3xf32>, tensor<8x3x3x3xf32>) outs(%e : tensor<2x5x5x8xf32>) strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 channels_last -> tensor<2x5x5x8xf32>
  return %y : tensor<2x5x5x8xf32>
}

// -----

// Winograd's algorithm, here on channels-last images.
// CHECK-LABEL: func.func @winograd
// CHECK: nnc.library_conv "forward" ins(%{{.*}}, %{{.*}} : tensor<2x9x9x3xf32>, tensor<8x3x3x3xf32>) outs(%{{.*}} : tensor<2x9x9x8xf32>) strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 channels_last winograd -> tensor<2x9x9x8xf32>
// CHECK: nnc.library_conv "backward_weights" {{.*}} groups = 1 winograd
func.func @winograd(%x: tensor<2x9x9x3xf32>, %w: tensor<8x3x3x3xf32>, %c: tensor<2x3x9x9xf32>, %g: tensor<2x8x9x9xf32>) -> (tensor<2x9x9x8xf32>, tensor<8x3x3x3xf32>) {
  %e = tensor.empty() : tensor<2x9x9x8xf32>
  %y = nnc.library_conv "forward" ins(%x, %w : tensor<2x9x9x3xf32>, tensor<8x3x3x3xf32>) outs(%e : tensor<2x9x9x8xf32>) strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 channels_last winograd -> tensor<2x9x9x8xf32>
  %f = tensor.empty() : tensor<8x3x3x3xf32>
  %dw = nnc.library_conv "backward_weights" ins(%c, %g : tensor<2x3x9x9xf32>, tensor<2x8x9x9xf32>) outs(%f : tensor<8x3x3x3xf32>) strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 winograd -> tensor<8x3x3x3xf32>
  return %y, %dw : tensor<2x9x9x8xf32>, tensor<8x3x3x3xf32>
}
