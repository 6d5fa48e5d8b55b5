// RUN: nnc-opt %s --nnc-convert-to-linalg \
// RUN:   --one-shot-bufferize=bufferize-function-boundaries \
// RUN:   --nnc-library-conv-to-dnnl %cpu_pipeline \
// RUN: | %sanitizer_preload mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%nnc_dnnl \
// RUN: | FileCheck %s

// Convolutions forced onto oneDNN (nnc.impl = "library"), run through the
// runtime's glue: the cases of run-nn.mlir, with the values their loops
// print there, and a weight gradient equal to the loops' one. The inputs
// are multiples of 1/4 with few terms per sum: every order of summation
// gives the same f32.

func.func @main() {
  // conv 2-D: groups 2, strides [2, 1], dilations [2, 1], asymmetric pads, bias
  // CHECK: {{\[}}-1.25,  -3.9375,  -3,  0.875,  0.0625,  2.25,  2.5,  -6.4375,  0.8125,  0.875,  1.5625,  -1.375,  -3.5,  -3.5,  3.5625,  -4.125,  3.8125,  -0.75,  9.5,  5.0625,  8.9375,  1.875,  -4.8125,  8.6875,  7.875,  11.75,  -1.625,  -8.5,  0.125,  8.0625,  0.25,  3.3125,  4.5,  7.3125,  4.0625,  -3.625,  0.125,  -3.6875,  6.25,  2,  -1.0625,  1.125,  -7.125,  -0.625,  5.375,  -0.0625,  -0.9375,  -8,  0.8125,  -0.875,  -3.4375,  4.875,  5.75,  6.125,  -2.1875,  1.8125,  -2.875,  -4.625,  -6.125,  6.5625]
  %c0_x = nnc.constant dense<[[[[2.0, 0.5, 0.75, 1.75, 0.25, 1.25],   [1.5, -1.25, -2.0, -0.75, -1.0, 1.5],   [1.75, -2.0, 0.0, 1.25, -1.5, 1.25],   [-1.5, -0.25, 1.25, -0.75, -0.75, -1.0],   [1.0, -1.0, 2.0, -0.25, 0.0, 0.0]],  [[0.25, 0.25, 0.0, 2.0, 1.25, 1.25],   [0.75, 0.5, -0.75, 2.0, -0.25, -1.25],   [1.5, -1.5, 1.5, 0.5, -1.75, -2.0],   [-0.25, -2.0, -1.5, 0.0, 2.0, -0.25],   [1.25, 1.75, 1.25, 0.5, -0.25, 0.0]],  [[-1.0, 0.0, -0.5, -1.0, 2.0, -2.0],   [-1.75, -1.25, 2.0, 0.75, 1.5, -1.25],   [1.0, -0.5, 0.0, -2.0, 0.5, 1.5],   [0.75, -1.5, 0.25, -1.0, 2.0, 1.5],   [-1.25, 0.0, 1.75, 1.5, 1.0, 0.5]],  [[-2.0, 1.0, 0.0, -1.75, -1.0, 0.25],   [1.0, 0.0, 0.5, 1.5, 0.75, -0.5],   [0.5, 0.5, -1.75, -1.75, 0.75, -0.5],   [0.5, -0.75, -1.25, -1.5, -0.5, 1.25],   [-0.5, -0.5, 0.25, 2.0, -0.5, 0.5]]]]> : tensor<1x4x5x6xf32>
  %c0_w = nnc.constant dense<[[[[-0.25, 0.5, -0.25],   [0.5, 0.25, 0.75]],  [[2.0, -1.5, 0.25],   [-0.25, -0.5, -1.0]]], [[[-2.0, -0.5, 1.5],   [-1.75, -0.5, 2.0]],  [[2.0, -1.25, -2.0],   [0.75, -2.0, -0.75]]], [[[0.0, 1.5, -1.75],   [0.75, 0.25, -1.5]],  [[1.5, 1.5, 0.0],   [2.0, 0.5, 1.75]]], [[[2.0, 0.25, -1.0],   [-1.5, 0.25, -1.25]],  [[1.0, 1.75, -1.0],   [0.25, -2.0, -1.25]]]]> : tensor<4x2x2x3xf32>
  %c0_b = nnc.constant dense<[-0.5, 1.75, 2.0, 0.5]> : tensor<4xf32>
  %c0_r = nnc.conv %c0_x, %c0_w, %c0_b strides = [2, 1] dilations = [2, 1] pads = [1, 0, 2, 1] groups = 2 {nnc.impl = "library"} : tensor<1x4x5x6xf32>, tensor<4x2x2x3xf32>, tensor<4xf32>
  %c0_flat = nnc.reshape %c0_r : tensor<1x4x3x5xf32> -> tensor<60xf32>
  %c0_buf = bufferization.to_buffer %c0_flat : tensor<60xf32> to memref<60xf32>
  %c0_u = memref.cast %c0_buf : memref<60xf32> to memref<*xf32>
  call @printMemrefF32(%c0_u) : (memref<*xf32>) -> ()

  // conv_weight_grad 2-D: groups 2, strides [2, 1], dilations [2, 1], pads,
  // by oneDNN and by the loops
  // CHECK: sizes = [48] strides = [1] data =
  // CHECK-NEXT: [[WG:\[.*]]
  // CHECK: sizes = [48] strides = [1] data =
  // CHECK-NEXT: [[WG]]
  %w_dw_lib = nnc.conv_weight_grad %c0_x, %c0_r kernel_shape = [2, 3] strides = [2, 1] dilations = [2, 1] pads = [1, 0, 2, 1] groups = 2 {nnc.impl = "library"} : tensor<1x4x5x6xf32>, tensor<1x4x3x5xf32>
  %w_dw_loops = nnc.conv_weight_grad %c0_x, %c0_r kernel_shape = [2, 3] strides = [2, 1] dilations = [2, 1] pads = [1, 0, 2, 1] groups = 2 {nnc.impl = "loops"} : tensor<1x4x5x6xf32>, tensor<1x4x3x5xf32>
  %w_lib_flat = nnc.reshape %w_dw_lib : tensor<4x2x2x3xf32> -> tensor<48xf32>
  %w_lib_buf = bufferization.to_buffer %w_lib_flat : tensor<48xf32> to memref<48xf32>
  %w_lib_u = memref.cast %w_lib_buf : memref<48xf32> to memref<*xf32>
  call @printMemrefF32(%w_lib_u) : (memref<*xf32>) -> ()
  %w_loops_flat = nnc.reshape %w_dw_loops : tensor<4x2x2x3xf32> -> tensor<48xf32>
  %w_loops_buf = bufferization.to_buffer %w_loops_flat : tensor<48xf32> to memref<48xf32>
  %w_loops_u = memref.cast %w_loops_buf : memref<48xf32> to memref<*xf32>
  call @printMemrefF32(%w_loops_u) : (memref<*xf32>) -> ()

  // conv 1-D depthwise (groups = C), stride 2, pads 1, batch 2
  // CHECK: {{\[}}0.5625,  -2.3125,  1.25,  -0.4375,  -1.75,  -4,  1.625,  -0.5625,  1.5625,  -0.875,  0.75,  -2.25,  0,  0.5,  -0.125,  -2.875,  -0.4375,  -4.0625,  1.375,  -2.9375,  -0.3125,  2.75,  -3.25,  0.125]
  %c1_x = nnc.constant dense<[[[0.25, 0.25, -1.75, -0.5, 2.0, -0.5, -1.25],  [-1.0, 1.0, -2.0, 2.0, 1.5, 0.25, -0.25],  [1.0, 0.25, 0.0, -0.75, -0.25, 1.0, -2.0]], [[-2.0, 1.0, -0.5, 1.25, -2.0, 1.75, -1.5],  [-0.25, 2.0, -1.75, 0.75, 1.0, -0.25, -1.75],  [0.0, -0.25, 1.5, 0.75, -0.75, -2.0, 0.5]]]> : tensor<2x3x7xf32>
  %c1_w = nnc.constant dense<[[[-1.0, 0.75, 1.5]], [[-0.5, 1.75, 0.0]], [[0.25, 1.25, 1.25]]]> : tensor<3x1x3xf32>
  %c1_r = nnc.conv %c1_x, %c1_w strides = [2] pads = [1, 1] groups = 3 {nnc.impl = "library"} : tensor<2x3x7xf32>, tensor<3x1x3xf32>
  %c1_flat = nnc.reshape %c1_r : tensor<2x3x4xf32> -> tensor<24xf32>
  %c1_buf = bufferization.to_buffer %c1_flat : tensor<24xf32> to memref<24xf32>
  %c1_u = memref.cast %c1_buf : memref<24xf32> to memref<*xf32>
  call @printMemrefF32(%c1_u) : (memref<*xf32>) -> ()

  // conv 3-D with end pads on one axis
  // CHECK: {{\[}}-4.5,  5.3125,  0.875,  0.125,  3.625,  3.0625,  -4.1875,  7.125,  3.75,  5,  0.5,  8.375,  -6.875,  8.875,  -0.3125,  0.25,  -4.6875,  5,  -6.8125,  -8.25,  -1.75,  1.5,  6.1875,  -5.0625,  2.625,  -2.5625,  5.1875,  3,  -6.5625,  -13.5,  -0.375,  3.125,  -10.0625,  -1.4375,  -1.8125,  0]
  %c2_x = nnc.constant dense<[[[[[1.75, 2.0, -1.5],    [-0.25, 1.75, -0.75],    [-2.0, 0.25, 1.0]],   [[1.0, 1.25, 0.5],    [-1.5, 1.5, -0.25],    [1.5, 1.25, 2.0]],   [[-2.0, 1.5, 0.5],    [0.0, 1.25, 2.0],    [0.0, -1.75, 1.0]]],  [[[-1.25, -1.25, -1.25],    [-1.25, 1.75, -0.5],    [-1.75, -1.25, -0.5]],   [[-0.75, -0.75, 2.0],    [1.5, 0.25, 2.0],    [-0.75, -1.5, -1.0]],   [[-1.75, 2.0, -1.25],    [-0.25, -1.25, 2.0],    [-1.5, 0.0, 2.0]]]]]> : tensor<1x2x3x3x3xf32>
  %c2_w = nnc.constant dense<[[[[[0.0, 1.75],    [1.75, 1.25]],   [[1.0, 0.25],    [0.25, 1.5]]],  [[[-0.25, 2.0],    [1.5, -0.5]],   [[-0.5, 1.0],    [1.75, -1.75]]]], [[[[-1.75, -1.0],    [-0.25, -1.5]],   [[0.0, 0.25],    [2.0, 1.0]]],  [[[-1.0, 1.25],    [1.25, 0.75]],   [[0.75, -0.75],    [1.0, -1.5]]]]]> : tensor<2x2x2x2x2xf32>
  %c2_r = nnc.conv %c2_x, %c2_w pads = [0, 0, 1, 1, 0, 0] {nnc.impl = "library"} : tensor<1x2x3x3x3xf32>, tensor<2x2x2x2x2xf32>
  %c2_flat = nnc.reshape %c2_r : tensor<1x2x3x2x3xf32> -> tensor<36xf32>
  %c2_buf = bufferization.to_buffer %c2_flat : tensor<36xf32> to memref<36xf32>
  %c2_u = memref.cast %c2_buf : memref<36xf32> to memref<*xf32>
  call @printMemrefF32(%c2_u) : (memref<*xf32>) -> ()

  // conv_transpose 2-D: groups 2, strides [2, 3], dilations [1, 2], pads, output_padding, bias
  // CHECK: {{\[}}4,  0.5,  3.5,  3,  0.5,  -0.75,  0.5,  -1.5625,  0.5,  1.3125,  -1.875,  0.5,  1.0625,  0.5,  -1.125,  0.5,  1.25,  5,  0.5,  0.25,  0.5,  2.5,  0.5,  -0.4375,  -5.375,  0.5,  5.0625,  0.5,  3.625,  0.5,  1.75,  3.5,  0.5,  3.25,  0.5,  -1.6875,  -1.5,  -5.625,  -5.25,  -1.5,  -0.25,  -1.5,  -10.25,  -1.5,  -5.75,  -1.5,  -1.5,  -2.75,  -1.5,  -4.6875,  -1.5,  2.125,  -2.25,  -1.5,  -1.75,  -1.5,  -0.375,  -1.5,  -1.625,  -1.1875,  -1.5,  -1.875,  -1.5,  -3.5625,  -1.5,  -1.875,  -0.9375,  -1.5,  -1.625,  -1.5]
  %c4_x = nnc.constant dense<[[[[-1.0, 2.0],   [-1.25, 2.0],   [0.25, -1.0]],  [[-2.0, -0.75],   [0.5, -1.75],   [-1.5, -1.75]],  [[0.75, -1.75],   [-2.0, -0.25],   [-0.75, 0.25]],  [[1.75, 1.5],   [0.25, 0.5],   [1.25, -0.25]]]]> : tensor<1x4x3x2xf32>
  %c4_w = nnc.constant dense<[[[[0.75, -1.25],   [0.5, -1.0],   [-1.25, 1.0]]], [[[0.25, -0.5],   [-2.0, -1.0],   [1.25, -0.25]]], [[[2.0, 1.75],   [1.5, -2.0],   [-2.0, 0.25]]], [[[-0.75, 1.5],   [-0.75, -1.5],   [-1.75, -0.75]]]]> : tensor<4x1x3x2xf32>
  %c4_b = nnc.constant dense<[0.5, -1.5]> : tensor<2xf32>
  %c4_r = nnc.conv_transpose %c4_x, %c4_w, %c4_b strides = [2, 3] dilations = [1, 2] pads = [1, 0, 2, 1] output_padding = [1, 2] groups = 2 {nnc.impl = "library"} : tensor<1x4x3x2xf32>, tensor<4x1x3x2xf32>, tensor<2xf32>
  %c4_flat = nnc.reshape %c4_r : tensor<1x2x5x7xf32> -> tensor<70xf32>
  %c4_buf = bufferization.to_buffer %c4_flat : tensor<70xf32> to memref<70xf32>
  %c4_u = memref.cast %c4_buf : memref<70xf32> to memref<*xf32>
  call @printMemrefF32(%c4_u) : (memref<*xf32>) -> ()

  // conv_transpose 1-D whose pads crop more than the kernel adds
  // CHECK: {{\[}}1.5625,  -3.1875,  -2.0625,  -0.5625,  -0.375,  2.6875,  0.8125,  1.4375]
  %c5_x = nnc.constant dense<[[[1.25, -0.75, -0.75, 0.75]], [[1.5, -0.25, 1.25, -0.75]]]> : tensor<2x1x4xf32>
  %c5_w = nnc.constant dense<[[[-1.5, 1.5, 1.25],  [1.0, 1.75, 0.0]]]> : tensor<1x2x3xf32>
  %c5_r = nnc.conv_transpose %c5_x, %c5_w pads = [2, 2] {nnc.impl = "library"} : tensor<2x1x4xf32>, tensor<1x2x3xf32>
  %c5_flat = nnc.reshape %c5_r : tensor<2x2x2xf32> -> tensor<8xf32>
  %c5_buf = bufferization.to_buffer %c5_flat : tensor<8xf32> to memref<8xf32>
  %c5_u = memref.cast %c5_buf : memref<8xf32> to memref<*xf32>
  call @printMemrefF32(%c5_u) : (memref<*xf32>) -> ()

  return
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
