// RUN: nnc-opt %s --nnc-convert-to-linalg %cpu_pipeline \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s

// Convolutions, pooling, normalization, dropout and the class-index
// losses lowered to linalg and JIT-executed on the CPU. The expected
// values come from numpy references (direct loops over the ONNX and
// PyTorch definitions), which the printed values matched to 1e-4
// (2e-3 for f16) when the checks were written.

func.func @main() {
  // conv 2-D: groups 2, strides [2, 1], dilations [2, 1], asymmetric pads, bias
  // CHECK: {{\[}}-1.25,  -3.9375,  -3,  0.875,  0.0625,  2.25,  2.5,  -6.4375,  0.8125,  0.875,  1.5625,  -1.375,  -3.5,  -3.5,  3.5625,  -4.125,  3.8125,  -0.75,  9.5,  5.0625,  8.9375,  1.875,  -4.8125,  8.6875,  7.875,  11.75,  -1.625,  -8.5,  0.125,  8.0625,  0.25,  3.3125,  4.5,  7.3125,  4.0625,  -3.625,  0.125,  -3.6875,  6.25,  2,  -1.0625,  1.125,  -7.125,  -0.625,  5.375,  -0.0625,  -0.9375,  -8,  0.8125,  -0.875,  -3.4375,  4.875,  5.75,  6.125,  -2.1875,  1.8125,  -2.875,  -4.625,  -6.125,  6.5625]
  %c0_x = nnc.constant dense<[[[[2.0, 0.5, 0.75, 1.75, 0.25, 1.25],   [1.5, -1.25, -2.0, -0.75, -1.0, 1.5],   [1.75, -2.0, 0.0, 1.25, -1.5, 1.25],   [-1.5, -0.25, 1.25, -0.75, -0.75, -1.0],   [1.0, -1.0, 2.0, -0.25, 0.0, 0.0]],  [[0.25, 0.25, 0.0, 2.0, 1.25, 1.25],   [0.75, 0.5, -0.75, 2.0, -0.25, -1.25],   [1.5, -1.5, 1.5, 0.5, -1.75, -2.0],   [-0.25, -2.0, -1.5, 0.0, 2.0, -0.25],   [1.25, 1.75, 1.25, 0.5, -0.25, 0.0]],  [[-1.0, 0.0, -0.5, -1.0, 2.0, -2.0],   [-1.75, -1.25, 2.0, 0.75, 1.5, -1.25],   [1.0, -0.5, 0.0, -2.0, 0.5, 1.5],   [0.75, -1.5, 0.25, -1.0, 2.0, 1.5],   [-1.25, 0.0, 1.75, 1.5, 1.0, 0.5]],  [[-2.0, 1.0, 0.0, -1.75, -1.0, 0.25],   [1.0, 0.0, 0.5, 1.5, 0.75, -0.5],   [0.5, 0.5, -1.75, -1.75, 0.75, -0.5],   [0.5, -0.75, -1.25, -1.5, -0.5, 1.25],   [-0.5, -0.5, 0.25, 2.0, -0.5, 0.5]]]]> : tensor<1x4x5x6xf32>
  %c0_w = nnc.constant dense<[[[[-0.25, 0.5, -0.25],   [0.5, 0.25, 0.75]],  [[2.0, -1.5, 0.25],   [-0.25, -0.5, -1.0]]], [[[-2.0, -0.5, 1.5],   [-1.75, -0.5, 2.0]],  [[2.0, -1.25, -2.0],   [0.75, -2.0, -0.75]]], [[[0.0, 1.5, -1.75],   [0.75, 0.25, -1.5]],  [[1.5, 1.5, 0.0],   [2.0, 0.5, 1.75]]], [[[2.0, 0.25, -1.0],   [-1.5, 0.25, -1.25]],  [[1.0, 1.75, -1.0],   [0.25, -2.0, -1.25]]]]> : tensor<4x2x2x3xf32>
  %c0_b = nnc.constant dense<[-0.5, 1.75, 2.0, 0.5]> : tensor<4xf32>
  %c0_r = nnc.conv %c0_x, %c0_w, %c0_b strides = [2, 1] dilations = [2, 1] pads = [1, 0, 2, 1] groups = 2 : tensor<1x4x5x6xf32>, tensor<4x2x2x3xf32>, tensor<4xf32>
  %c0_flat = nnc.reshape %c0_r : tensor<1x4x3x5xf32> -> tensor<60xf32>
  %c0_buf = bufferization.to_buffer %c0_flat : tensor<60xf32> to memref<60xf32>
  %c0_u = memref.cast %c0_buf : memref<60xf32> to memref<*xf32>
  call @printMemrefF32(%c0_u) : (memref<*xf32>) -> ()

  // conv 1-D depthwise (groups = C), stride 2, pads 1, batch 2
  // CHECK: {{\[}}0.5625,  -2.3125,  1.25,  -0.4375,  -1.75,  -4,  1.625,  -0.5625,  1.5625,  -0.875,  0.75,  -2.25,  0,  0.5,  -0.125,  -2.875,  -0.4375,  -4.0625,  1.375,  -2.9375,  -0.3125,  2.75,  -3.25,  0.125]
  %c1_x = nnc.constant dense<[[[0.25, 0.25, -1.75, -0.5, 2.0, -0.5, -1.25],  [-1.0, 1.0, -2.0, 2.0, 1.5, 0.25, -0.25],  [1.0, 0.25, 0.0, -0.75, -0.25, 1.0, -2.0]], [[-2.0, 1.0, -0.5, 1.25, -2.0, 1.75, -1.5],  [-0.25, 2.0, -1.75, 0.75, 1.0, -0.25, -1.75],  [0.0, -0.25, 1.5, 0.75, -0.75, -2.0, 0.5]]]> : tensor<2x3x7xf32>
  %c1_w = nnc.constant dense<[[[-1.0, 0.75, 1.5]], [[-0.5, 1.75, 0.0]], [[0.25, 1.25, 1.25]]]> : tensor<3x1x3xf32>
  %c1_r = nnc.conv %c1_x, %c1_w strides = [2] pads = [1, 1] groups = 3 : tensor<2x3x7xf32>, tensor<3x1x3xf32>
  %c1_flat = nnc.reshape %c1_r : tensor<2x3x4xf32> -> tensor<24xf32>
  %c1_buf = bufferization.to_buffer %c1_flat : tensor<24xf32> to memref<24xf32>
  %c1_u = memref.cast %c1_buf : memref<24xf32> to memref<*xf32>
  call @printMemrefF32(%c1_u) : (memref<*xf32>) -> ()

  // conv 3-D with end pads on one axis
  // CHECK: {{\[}}-4.5,  5.3125,  0.875,  0.125,  3.625,  3.0625,  -4.1875,  7.125,  3.75,  5,  0.5,  8.375,  -6.875,  8.875,  -0.3125,  0.25,  -4.6875,  5,  -6.8125,  -8.25,  -1.75,  1.5,  6.1875,  -5.0625,  2.625,  -2.5625,  5.1875,  3,  -6.5625,  -13.5,  -0.375,  3.125,  -10.0625,  -1.4375,  -1.8125,  0]
  %c2_x = nnc.constant dense<[[[[[1.75, 2.0, -1.5],    [-0.25, 1.75, -0.75],    [-2.0, 0.25, 1.0]],   [[1.0, 1.25, 0.5],    [-1.5, 1.5, -0.25],    [1.5, 1.25, 2.0]],   [[-2.0, 1.5, 0.5],    [0.0, 1.25, 2.0],    [0.0, -1.75, 1.0]]],  [[[-1.25, -1.25, -1.25],    [-1.25, 1.75, -0.5],    [-1.75, -1.25, -0.5]],   [[-0.75, -0.75, 2.0],    [1.5, 0.25, 2.0],    [-0.75, -1.5, -1.0]],   [[-1.75, 2.0, -1.25],    [-0.25, -1.25, 2.0],    [-1.5, 0.0, 2.0]]]]]> : tensor<1x2x3x3x3xf32>
  %c2_w = nnc.constant dense<[[[[[0.0, 1.75],    [1.75, 1.25]],   [[1.0, 0.25],    [0.25, 1.5]]],  [[[-0.25, 2.0],    [1.5, -0.5]],   [[-0.5, 1.0],    [1.75, -1.75]]]], [[[[-1.75, -1.0],    [-0.25, -1.5]],   [[0.0, 0.25],    [2.0, 1.0]]],  [[[-1.0, 1.25],    [1.25, 0.75]],   [[0.75, -0.75],    [1.0, -1.5]]]]]> : tensor<2x2x2x2x2xf32>
  %c2_r = nnc.conv %c2_x, %c2_w pads = [0, 0, 1, 1, 0, 0] : tensor<1x2x3x3x3xf32>, tensor<2x2x2x2x2xf32>
  %c2_flat = nnc.reshape %c2_r : tensor<1x2x3x2x3xf32> -> tensor<36xf32>
  %c2_buf = bufferization.to_buffer %c2_flat : tensor<36xf32> to memref<36xf32>
  %c2_u = memref.cast %c2_buf : memref<36xf32> to memref<*xf32>
  call @printMemrefF32(%c2_u) : (memref<*xf32>) -> ()

  // conv in f16 (accumulated in f32), same padding
  // CHECK: {{\[}}-0.5625,  0.875,  -0.75,  -2.75,  0.3125,  10.5,  -7.4375,  0.1875,  -4.4375,  0.0625,  5.1875,  2.9375,  -1.6875,  -3.3125,  2.3125,  3.5625,  -3.9375,  1.4375,  4.625,  7.5625,  -0.4375,  1.8125,  -9.5,  -3.75,  -2.375,  -2.9375,  -1.875,  0.75,  -0.9375,  -3.6875,  1.9375,  1.5]
  %c3_x32 = nnc.constant dense<[[[[0.5, 1.75, 2.0, -0.75],   [-0.75, 0.5, -0.5, 1.0],   [-1.25, -1.5, -2.0, -0.25],   [-1.25, -0.75, 1.75, 1.25]],  [[1.5, 0.5, -1.75, 1.0],   [0.5, 1.75, 0.0, -1.5],   [0.5, -0.25, 0.75, -0.5],   [-0.75, -1.5, 2.0, 1.0]]]]> : tensor<1x2x4x4xf32>
  %c3_w32 = nnc.constant dense<[[[[-0.25, -1.25, 0.5],   [-0.25, 0.5, -1.75],   [-1.25, 1.0, -1.75]],  [[0.75, -0.5, -2.0],   [1.0, 0.75, 1.25],   [1.75, 1.0, 1.5]]], [[[-1.75, 1.75, 1.75],   [0.75, 1.25, 1.0],   [1.5, 1.75, 0.0]],  [[1.25, 1.75, -0.75],   [-2.0, -1.5, -2.0],   [-0.25, -2.0, -1.0]]]]> : tensor<2x2x3x3xf32>
  %c3_b32 = nnc.constant dense<[-1.0, 1.0]> : tensor<2xf32>
  %c3_x = nnc.cast %c3_x32 : tensor<1x2x4x4xf32> to tensor<1x2x4x4xf16>
  %c3_w = nnc.cast %c3_w32 : tensor<2x2x3x3xf32> to tensor<2x2x3x3xf16>
  %c3_b = nnc.cast %c3_b32 : tensor<2xf32> to tensor<2xf16>
  %c3_r16 = nnc.conv %c3_x, %c3_w, %c3_b pads = [1, 1, 1, 1] : tensor<1x2x4x4xf16>, tensor<2x2x3x3xf16>, tensor<2xf16>
  %c3_r = nnc.cast %c3_r16 : tensor<1x2x4x4xf16> to tensor<1x2x4x4xf32>
  %c3_flat = nnc.reshape %c3_r : tensor<1x2x4x4xf32> -> tensor<32xf32>
  %c3_buf = bufferization.to_buffer %c3_flat : tensor<32xf32> to memref<32xf32>
  %c3_u = memref.cast %c3_buf : memref<32xf32> to memref<*xf32>
  call @printMemrefF32(%c3_u) : (memref<*xf32>) -> ()

  // conv_transpose 2-D: groups 2, strides [2, 3], dilations [1, 2], pads, output_padding, bias
  // CHECK: {{\[}}4,  0.5,  3.5,  3,  0.5,  -0.75,  0.5,  -1.5625,  0.5,  1.3125,  -1.875,  0.5,  1.0625,  0.5,  -1.125,  0.5,  1.25,  5,  0.5,  0.25,  0.5,  2.5,  0.5,  -0.4375,  -5.375,  0.5,  5.0625,  0.5,  3.625,  0.5,  1.75,  3.5,  0.5,  3.25,  0.5,  -1.6875,  -1.5,  -5.625,  -5.25,  -1.5,  -0.25,  -1.5,  -10.25,  -1.5,  -5.75,  -1.5,  -1.5,  -2.75,  -1.5,  -4.6875,  -1.5,  2.125,  -2.25,  -1.5,  -1.75,  -1.5,  -0.375,  -1.5,  -1.625,  -1.1875,  -1.5,  -1.875,  -1.5,  -3.5625,  -1.5,  -1.875,  -0.9375,  -1.5,  -1.625,  -1.5]
  %c4_x = nnc.constant dense<[[[[-1.0, 2.0],   [-1.25, 2.0],   [0.25, -1.0]],  [[-2.0, -0.75],   [0.5, -1.75],   [-1.5, -1.75]],  [[0.75, -1.75],   [-2.0, -0.25],   [-0.75, 0.25]],  [[1.75, 1.5],   [0.25, 0.5],   [1.25, -0.25]]]]> : tensor<1x4x3x2xf32>
  %c4_w = nnc.constant dense<[[[[0.75, -1.25],   [0.5, -1.0],   [-1.25, 1.0]]], [[[0.25, -0.5],   [-2.0, -1.0],   [1.25, -0.25]]], [[[2.0, 1.75],   [1.5, -2.0],   [-2.0, 0.25]]], [[[-0.75, 1.5],   [-0.75, -1.5],   [-1.75, -0.75]]]]> : tensor<4x1x3x2xf32>
  %c4_b = nnc.constant dense<[0.5, -1.5]> : tensor<2xf32>
  %c4_r = nnc.conv_transpose %c4_x, %c4_w, %c4_b strides = [2, 3] dilations = [1, 2] pads = [1, 0, 2, 1] output_padding = [1, 2] groups = 2 : tensor<1x4x3x2xf32>, tensor<4x1x3x2xf32>, tensor<2xf32>
  %c4_flat = nnc.reshape %c4_r : tensor<1x2x5x7xf32> -> tensor<70xf32>
  %c4_buf = bufferization.to_buffer %c4_flat : tensor<70xf32> to memref<70xf32>
  %c4_u = memref.cast %c4_buf : memref<70xf32> to memref<*xf32>
  call @printMemrefF32(%c4_u) : (memref<*xf32>) -> ()

  // conv_transpose 1-D whose pads crop more than the kernel adds
  // CHECK: {{\[}}1.5625,  -3.1875,  -2.0625,  -0.5625,  -0.375,  2.6875,  0.8125,  1.4375]
  %c5_x = nnc.constant dense<[[[1.25, -0.75, -0.75, 0.75]], [[1.5, -0.25, 1.25, -0.75]]]> : tensor<2x1x4xf32>
  %c5_w = nnc.constant dense<[[[-1.5, 1.5, 1.25],  [1.0, 1.75, 0.0]]]> : tensor<1x2x3xf32>
  %c5_r = nnc.conv_transpose %c5_x, %c5_w pads = [2, 2] : tensor<2x1x4xf32>, tensor<1x2x3xf32>
  %c5_flat = nnc.reshape %c5_r : tensor<2x2x2xf32> -> tensor<8xf32>
  %c5_buf = bufferization.to_buffer %c5_flat : tensor<8xf32> to memref<8xf32>
  %c5_u = memref.cast %c5_buf : memref<8xf32> to memref<*xf32>
  call @printMemrefF32(%c5_u) : (memref<*xf32>) -> ()

  // max_pool: dilations [2, 1], pads, ceil_mode (last window partial)
  // CHECK: {{\[}}1.25,  -0.25,  0.75,  1.25,  1,  1.5,  -0.75,  1,  1.5,  2,  -0.5,  1.5,  2,  -0.5,  1.5,  1.5,  -1.25,  0.75]
  %c6_x = nnc.constant dense<[[[[-1.25, 0.25, 0.25, -0.5, 0.5, -1.0],   [0.5, 1.25, -1.75, -0.25, 0.75, -2.0],   [0.5, 1.75, 1.5, 0.75, 1.25, -0.5],   [-0.75, -1.75, 1.0, -0.75, 1.5, -0.25],   [1.75, -1.5, -1.5, -0.75, -2.0, 0.0]],  [[0.75, 0.75, -1.25, -1.5, 0.25, 0.5],   [2.0, 1.75, -0.5, -1.5, -1.0, 1.5],   [-0.25, 2.0, 0.75, 0.5, -1.75, 0.5],   [-0.5, 1.5, -1.5, -1.25, 0.75, 0.75],   [1.5, 0.0, -0.5, -0.75, -0.5, 0.75]]]]> : tensor<1x2x5x6xf32>
  %c6_r = nnc.max_pool %c6_x kernel_shape = [2, 2] strides = [2, 2] pads = [1, 0, 0, 1] dilations = [2, 1] ceil_mode = true : tensor<1x2x5x6xf32>
  %c6_flat = nnc.reshape %c6_r : tensor<1x2x3x3xf32> -> tensor<18xf32>
  %c6_buf = bufferization.to_buffer %c6_flat : tensor<18xf32> to memref<18xf32>
  %c6_u = memref.cast %c6_buf : memref<18xf32> to memref<*xf32>
  call @printMemrefF32(%c6_u) : (memref<*xf32>) -> ()

  // max_pool on i32: padding never wins
  // CHECK: {{\[}}3,  35,  27,  37]
  %c7_x = nnc.constant dense<[[[[  3, -21, -29,  21],   [-26, -30, -18,  35],   [ -5,   9, -42, -16],   [ 25,  27,   7,  37]]]]> : tensor<1x1x4x4xi32>
  %c7_ri = nnc.max_pool %c7_x kernel_shape = [3, 3] strides = [2, 2] pads = [1, 1, 1, 1] : tensor<1x1x4x4xi32>
  %c7_r = nnc.cast %c7_ri : tensor<1x1x2x2xi32> to tensor<1x1x2x2xf32>
  %c7_flat = nnc.reshape %c7_r : tensor<1x1x2x2xf32> -> tensor<4xf32>
  %c7_buf = bufferization.to_buffer %c7_flat : tensor<4xf32> to memref<4xf32>
  %c7_u = memref.cast %c7_buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%c7_u) : (memref<*xf32>) -> ()

  // avg_pool ceil_mode, pads, count_include_pad = false: only input positions count
  // CHECK: {{\[}}-0.5,  -1.25,  -0.0625,  -0.125,  -0.388889,  0.5,  0.375,  0.291667,  0.125]
  %c8_x = nnc.constant dense<[[[[-0.75, -1.5, -1.75, -1.25, 1.0],   [1.75, -1.5, 0.0, -1.5, 1.5],   [-1.5, 0.5, -1.75, 1.0, 1.75],   [1.0, -1.0, 1.5, -0.75, 1.0],   [1.5, 0.0, 0.5, 1.5, -1.25]]]]> : tensor<1x1x5x5xf32>
  %c8_r = nnc.avg_pool %c8_x kernel_shape = [3, 3] strides = [2, 2] pads = [1, 1, 0, 0] ceil_mode = true : tensor<1x1x5x5xf32>
  %c8_flat = nnc.reshape %c8_r : tensor<1x1x3x3xf32> -> tensor<9xf32>
  %c8_buf = bufferization.to_buffer %c8_flat : tensor<9xf32> to memref<9xf32>
  %c8_u = memref.cast %c8_buf : memref<9xf32> to memref<*xf32>
  call @printMemrefF32(%c8_u) : (memref<*xf32>) -> ()

  // avg_pool ceil_mode, pads, count_include_pad = true: pads count, the ceil extension does not
  // CHECK: {{\[}}-0.222222,  -0.833333,  -0.0416667,  -0.0833333,  -0.388889,  0.5,  0.25,  0.291667,  0.125]
  %c9_x = nnc.constant dense<[[[[-0.75, -1.5, -1.75, -1.25, 1.0],   [1.75, -1.5, 0.0, -1.5, 1.5],   [-1.5, 0.5, -1.75, 1.0, 1.75],   [1.0, -1.0, 1.5, -0.75, 1.0],   [1.5, 0.0, 0.5, 1.5, -1.25]]]]> : tensor<1x1x5x5xf32>
  %c9_r = nnc.avg_pool %c9_x kernel_shape = [3, 3] strides = [2, 2] pads = [1, 1, 0, 0] ceil_mode = true count_include_pad = true : tensor<1x1x5x5xf32>
  %c9_flat = nnc.reshape %c9_r : tensor<1x1x3x3xf32> -> tensor<9xf32>
  %c9_buf = bufferization.to_buffer %c9_flat : tensor<9xf32> to memref<9xf32>
  %c9_u = memref.cast %c9_buf : memref<9xf32> to memref<*xf32>
  call @printMemrefF32(%c9_u) : (memref<*xf32>) -> ()

  // avg_pool 1-D with dilation 2 and asymmetric pads
  // CHECK: {{\[}}-1.625,  -0.583333,  -0.166667,  -0.375,  0.0833333,  0.166667]
  %c10_x = nnc.constant dense<[[[-2.0, -0.25, -1.25, 1.75, 1.5, -0.5, -0.75],  [1.0, -0.25, -1.75, 0.75, 1.0, -1.75, 1.25]]]> : tensor<1x2x7xf32>
  %c10_r = nnc.avg_pool %c10_x kernel_shape = [3] strides = [2] pads = [2, 1] dilations = [2] : tensor<1x2x7xf32>
  %c10_flat = nnc.reshape %c10_r : tensor<1x2x3xf32> -> tensor<6xf32>
  %c10_buf = bufferization.to_buffer %c10_flat : tensor<6xf32> to memref<6xf32>
  %c10_u = memref.cast %c10_buf : memref<6xf32> to memref<*xf32>
  call @printMemrefF32(%c10_u) : (memref<*xf32>) -> ()

  // global_avg_pool
  // CHECK: {{\[}}0.458333,  0.166667,  -0.125,  0.125,  0,  0.541667]
  %c11_x = nnc.constant dense<[[[[0.25, 1.5, 1.5],   [0.75, -0.75, -0.5]],  [[1.0, -1.75, -1.25],   [0.0, 2.0, 1.0]],  [[1.25, -1.25, -1.0],   [-1.0, 1.0, 0.25]]], [[[-1.25, 1.0, 0.5],   [1.75, 0.25, -1.5]],  [[1.75, -1.25, -2.0],   [1.25, -0.25, 0.5]],  [[-1.5, 1.0, -0.5],   [2.0, 0.5, 1.75]]]]> : tensor<2x3x2x3xf32>
  %c11_r = nnc.global_avg_pool %c11_x : tensor<2x3x2x3xf32>
  %c11_flat = nnc.reshape %c11_r : tensor<2x3x1x1xf32> -> tensor<6xf32>
  %c11_buf = bufferization.to_buffer %c11_flat : tensor<6xf32> to memref<6xf32>
  %c11_u = memref.cast %c11_buf : memref<6xf32> to memref<*xf32>
  call @printMemrefF32(%c11_u) : (memref<*xf32>) -> ()

  // global_max_pool
  // CHECK: {{\[}}1.5,  2,  1.25,  1.75,  1.75,  2]
  %c12_x = nnc.constant dense<[[[[0.25, 1.5, 1.5],   [0.75, -0.75, -0.5]],  [[1.0, -1.75, -1.25],   [0.0, 2.0, 1.0]],  [[1.25, -1.25, -1.0],   [-1.0, 1.0, 0.25]]], [[[-1.25, 1.0, 0.5],   [1.75, 0.25, -1.5]],  [[1.75, -1.25, -2.0],   [1.25, -0.25, 0.5]],  [[-1.5, 1.0, -0.5],   [2.0, 0.5, 1.75]]]]> : tensor<2x3x2x3xf32>
  %c12_r = nnc.global_max_pool %c12_x : tensor<2x3x2x3xf32>
  %c12_flat = nnc.reshape %c12_r : tensor<2x3x1x1xf32> -> tensor<6xf32>
  %c12_buf = bufferization.to_buffer %c12_flat : tensor<6xf32> to memref<6xf32>
  %c12_u = memref.cast %c12_buf : memref<6xf32> to memref<*xf32>
  call @printMemrefF32(%c12_u) : (memref<*xf32>) -> ()

  // batch_norm (inference), epsilon 1e-3
  // CHECK: {{\[}}0.709126,  0.556084,  2.54563,  0.709126,  -1.46661,  -2.60018,  -2.88357,  -1.46661,  -0.687406,  -0.687406,  -1.37456,  -1.24963,  1.16825,  0.862168,  1.93346,  0.862168,  -3.45035,  -2.31678,  -3.73375,  -2.60018,  -0.812344,  -0.937281,  -0.99975,  -0.5]
  %c13_x = nnc.constant dense<[[[[1.25, 1.5],   [-1.75, 1.25]],  [[0.5, -0.5],   [-0.75, 0.5]],  [[-1.25, -1.25],   [1.5, 1.0]]], [[[0.5, 1.0],   [-0.75, 1.0]],  [[-1.25, -0.25],   [-1.5, -0.5]],  [[-0.75, -0.25],   [0.0, -2.0]]]]> : tensor<2x3x2x2xf32>
  %c13_sc = nnc.constant dense<[-0.75, 1.5, -0.25]> : tensor<3xf32>
  %c13_b = nnc.constant dense<[0.25, -1.75, -0.5]> : tensor<3xf32>
  %c13_m = nnc.constant dense<[2.0, 0.25, -2.0]> : tensor<3xf32>
  %c13_v = nnc.constant dense<[1.5, 1.75, 1.0]> : tensor<3xf32>
  %c13_r = nnc.batch_norm %c13_x, %c13_sc, %c13_b, %c13_m, %c13_v epsilon = 1.000000e-03 : tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  %c13_flat = nnc.reshape %c13_r : tensor<2x3x2x2xf32> -> tensor<24xf32>
  %c13_buf = bufferization.to_buffer %c13_flat : tensor<24xf32> to memref<24xf32>
  %c13_u = memref.cast %c13_buf : memref<24xf32> to memref<*xf32>
  call @printMemrefF32(%c13_u) : (memref<*xf32>) -> ()

  // batch_norm_train, momentum 0.8, unbiased_running_var = true: y, batch mean/var, new running mean/var
  // CHECK: {{\[}}-0.273112,  -0.447483,  1.81934,  -0.273112,  0.392584,  -1.81912,  -2.37204,  0.392584,  -0.30311,  -0.30311,  -0.921906,  -0.809398,  0.25,  -0.0987414,  1.12185,  -0.0987414,  -3.47789,  -1.26619,  -4.03082,  -1.81912,  -0.415619,  -0.528127,  -0.584381,  -0.134348,  0.5,  -0.46875,  -0.375,  1.15625,  0.459961,  1.23438,  1.7,  0.10625,  -1.675,  1.46429,  1.50513,  1.08214]
  %c14_x = nnc.constant dense<[[[[1.25, 1.5],   [-1.75, 1.25]],  [[0.5, -0.5],   [-0.75, 0.5]],  [[-1.25, -1.25],   [1.5, 1.0]]], [[[0.5, 1.0],   [-0.75, 1.0]],  [[-1.25, -0.25],   [-1.5, -0.5]],  [[-0.75, -0.25],   [0.0, -2.0]]]]> : tensor<2x3x2x2xf32>
  %c14_sc = nnc.constant dense<[-0.75, 1.5, -0.25]> : tensor<3xf32>
  %c14_b = nnc.constant dense<[0.25, -1.75, -0.5]> : tensor<3xf32>
  %c14_m = nnc.constant dense<[2.0, 0.25, -2.0]> : tensor<3xf32>
  %c14_v = nnc.constant dense<[1.5, 1.75, 1.0]> : tensor<3xf32>
  %c14_y, %c14_bm, %c14_bv, %c14_rm, %c14_rv = nnc.batch_norm_train %c14_x, %c14_sc, %c14_b, %c14_m, %c14_v momentum = 8.000000e-01 {unbiased_running_var = true} : tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  %c14_yf = nnc.reshape %c14_y : tensor<2x3x2x2xf32> -> tensor<24xf32>
  %c14_r = nnc.concat %c14_yf, %c14_bm, %c14_bv, %c14_rm, %c14_rv axis = 0 : tensor<24xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  %c14_buf = bufferization.to_buffer %c14_r : tensor<36xf32> to memref<36xf32>
  %c14_u = memref.cast %c14_buf : memref<36xf32> to memref<*xf32>
  call @printMemrefF32(%c14_u) : (memref<*xf32>) -> ()

  // batch_norm_train, momentum 0.8, unbiased_running_var = false: y, batch mean/var, new running mean/var
  // CHECK: {{\[}}-0.273112,  -0.447483,  1.81934,  -0.273112,  0.392584,  -1.81912,  -2.37204,  0.392584,  -0.30311,  -0.30311,  -0.921906,  -0.809398,  0.25,  -0.0987414,  1.12185,  -0.0987414,  -3.47789,  -1.26619,  -4.03082,  -1.81912,  -0.415619,  -0.528127,  -0.584381,  -0.134348,  0.5,  -0.46875,  -0.375,  1.15625,  0.459961,  1.23438,  1.7,  0.10625,  -1.675,  1.43125,  1.49199,  1.04688]
  %c15_x = nnc.constant dense<[[[[1.25, 1.5],   [-1.75, 1.25]],  [[0.5, -0.5],   [-0.75, 0.5]],  [[-1.25, -1.25],   [1.5, 1.0]]], [[[0.5, 1.0],   [-0.75, 1.0]],  [[-1.25, -0.25],   [-1.5, -0.5]],  [[-0.75, -0.25],   [0.0, -2.0]]]]> : tensor<2x3x2x2xf32>
  %c15_sc = nnc.constant dense<[-0.75, 1.5, -0.25]> : tensor<3xf32>
  %c15_b = nnc.constant dense<[0.25, -1.75, -0.5]> : tensor<3xf32>
  %c15_m = nnc.constant dense<[2.0, 0.25, -2.0]> : tensor<3xf32>
  %c15_v = nnc.constant dense<[1.5, 1.75, 1.0]> : tensor<3xf32>
  %c15_y, %c15_bm, %c15_bv, %c15_rm, %c15_rv = nnc.batch_norm_train %c15_x, %c15_sc, %c15_b, %c15_m, %c15_v momentum = 8.000000e-01 {unbiased_running_var = false} : tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  %c15_yf = nnc.reshape %c15_y : tensor<2x3x2x2xf32> -> tensor<24xf32>
  %c15_r = nnc.concat %c15_yf, %c15_bm, %c15_bv, %c15_rm, %c15_rv axis = 0 : tensor<24xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  %c15_buf = bufferization.to_buffer %c15_r : tensor<36xf32> to memref<36xf32>
  %c15_u = memref.cast %c15_buf : memref<36xf32> to memref<*xf32>
  call @printMemrefF32(%c15_u) : (memref<*xf32>) -> ()

  // instance_norm: y, mean, inv_std
  // CHECK: {{\[}}0.778571,  -2.78809,  -0.240476,  -1.12131,  2.06066,  2.06066,  -2.84956,  0.037334,  0.562223,  3.05916,  0.411668,  -0.47083,  -0.5,  0.25,  -0.75,  1.58333,  0.679365,  0.942805,  0.699852,  2.35333]
  %c16_x = nnc.constant dense<[[[-2.0, 1.5, -1.0],  [1.75, -0.5, -0.5]], [[1.25, -1.5, -2.0],  [1.0, 1.75, 2.0]]]> : tensor<2x2x3xf32>
  %c16_sc = nnc.constant dense<[-1.5, -1.5]> : tensor<2xf32>
  %c16_b = nnc.constant dense<[-0.75, 1.0]> : tensor<2xf32>
  %c16_y, %c16_m, %c16_i = nnc.instance_norm %c16_x, %c16_sc, %c16_b : tensor<2x2x3xf32>, tensor<2xf32>, tensor<2xf32>
  %c16_yf = nnc.reshape %c16_y : tensor<2x2x3xf32> -> tensor<12xf32>
  %c16_mf = nnc.reshape %c16_m : tensor<2x2x1xf32> -> tensor<4xf32>
  %c16_if = nnc.reshape %c16_i : tensor<2x2x1xf32> -> tensor<4xf32>
  %c16_r = nnc.concat %c16_yf, %c16_mf, %c16_if axis = 0 : tensor<12xf32>, tensor<4xf32>, tensor<4xf32>
  %c16_buf = bufferization.to_buffer %c16_r : tensor<20xf32> to memref<20xf32>
  %c16_u = memref.cast %c16_buf : memref<20xf32> to memref<*xf32>
  call @printMemrefF32(%c16_u) : (memref<*xf32>) -> ()

  // layer_norm axis = -2, scale [4] and bias [3, 1] broadcast to the normalized shape, epsilon 1e-2
  // CHECK: {{\[}}-0.262941,  -2.83304,  -1.9479,  0.0463239,  -2.38986,  -0.523605,  -1.94196,  -3.18968,  -0.445456,  -2.75961,  -2.72762,  -2.43968,  -2.85066,  0.188326,  -1.63156,  -1.60963,  -0.364257,  -1.11414,  0.012876,  -1.07028,  -0.035242,  0.688326,  -1.76304,  0.469063,  -0.0625,  0.354167,  0.682515,  0.841971]
  %c17_x = nnc.constant dense<[[[1.75, 1.5, -0.5, 1.75],  [-1.0, -1.5, -0.25, -1.75],  [0.75, 2.0, -1.75, -1.75]], [[-1.25, -1.25, 0.25, 0.25],  [2.0, -0.25, 1.75, 1.0],  [1.5, -1.25, -0.25, 1.75]]]> : tensor<2x3x4xf32>
  %c17_sc = nnc.constant dense<[1.0, -1.25, 1.5, 1.25]> : tensor<4xf32>
  %c17_b = nnc.constant dense<[[-1.5], [-1.75], [-1.0]]> : tensor<3x1xf32>
  %c17_y, %c17_m, %c17_i = nnc.layer_norm %c17_x scale(%c17_sc : tensor<4xf32>) bias(%c17_b : tensor<3x1xf32>) axis = -2 epsilon = 1.000000e-02 : tensor<2x3x4xf32>
  %c17_yf = nnc.reshape %c17_y : tensor<2x3x4xf32> -> tensor<24xf32>
  %c17_mf = nnc.reshape %c17_m : tensor<2x1x1xf32> -> tensor<2xf32>
  %c17_if = nnc.reshape %c17_i : tensor<2x1x1xf32> -> tensor<2xf32>
  %c17_r = nnc.concat %c17_yf, %c17_mf, %c17_if axis = 0 : tensor<24xf32>, tensor<2xf32>, tensor<2xf32>
  %c17_buf = bufferization.to_buffer %c17_r : tensor<28xf32> to memref<28xf32>
  %c17_u = memref.cast %c17_buf : memref<28xf32> to memref<*xf32>
  call @printMemrefF32(%c17_u) : (memref<*xf32>) -> ()

  // layer_norm in f16 without scale or bias (statistics in f32)
  // CHECK: {{\[}}0.662109,  0.397461,  -1.72168,  0.662109,  0.218262,  -0.654785,  1.52734,  -1.09082,  0.577148,  1.34668,  -0.962402,  -0.962402,  -1,  -1,  1,  1,  1,  -1.57129,  0.714355,  -0.142822,  0.855469,  -1.3584,  -0.553711,  1.05664]
  %c18_x32 = nnc.constant dense<[[[1.75, 1.5, -0.5, 1.75],  [-1.0, -1.5, -0.25, -1.75],  [0.75, 2.0, -1.75, -1.75]], [[-1.25, -1.25, 0.25, 0.25],  [2.0, -0.25, 1.75, 1.0],  [1.5, -1.25, -0.25, 1.75]]]> : tensor<2x3x4xf32>
  %c18_x = nnc.cast %c18_x32 : tensor<2x3x4xf32> to tensor<2x3x4xf16>
  %c18_y, %c18_m, %c18_i = nnc.layer_norm %c18_x : tensor<2x3x4xf16>
  %c18_y32 = nnc.cast %c18_y : tensor<2x3x4xf16> to tensor<2x3x4xf32>
  %c18_r = nnc.reshape %c18_y32 : tensor<2x3x4xf32> -> tensor<24xf32>
  %c18_buf = bufferization.to_buffer %c18_r : tensor<24xf32> to memref<24xf32>
  %c18_u = memref.cast %c18_buf : memref<24xf32> to memref<*xf32>
  call @printMemrefF32(%c18_u) : (memref<*xf32>) -> ()

  // group_norm with 2 groups of 2 channels: y, mean [N, G], inv_std [N, G]
  // CHECK: {{\[}}-3.88901,  -1.27346,  -0.401611,  2,  2,  2,  1.35722,  0.399181,  -1.99591,  1.80604,  1.56653,  1.16735,  -0.264091,  -3.15727,  -3.35015,  2,  2,  2,  -2.10079,  -0.87106,  1.28097,  1.86721,  1.61102,  1.30358,  -1.08333,  -0.0416667,  0.25,  0.0416667,  1.39496,  1.27738,  0.617212,  0.819822]
  %c19_x = nnc.constant dense<[[[0.0, -1.5, -2.0],  [-1.75, -0.75, -0.5],  [-0.75, -0.25, 1.0],  [-1.0, -0.25, 1.0]], [[-2.0, 1.75, 2.0],  [-1.0, 1.75, -1.0],  [1.75, 0.75, -1.0],  [-1.75, -0.5, 1.0]]]> : tensor<2x4x3xf32>
  %c19_sc = nnc.constant dense<[-1.25, 0.0, -1.5, -0.25]> : tensor<4xf32>
  %c19_b = nnc.constant dense<[-2.0, 2.0, 0.0, 1.5]> : tensor<4xf32>
  %c19_y, %c19_m, %c19_i = nnc.group_norm %c19_x, %c19_sc, %c19_b num_groups = 2 : tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>
  %c19_yf = nnc.reshape %c19_y : tensor<2x4x3xf32> -> tensor<24xf32>
  %c19_mf = nnc.reshape %c19_m : tensor<2x2xf32> -> tensor<4xf32>
  %c19_if = nnc.reshape %c19_i : tensor<2x2xf32> -> tensor<4xf32>
  %c19_r = nnc.concat %c19_yf, %c19_mf, %c19_if axis = 0 : tensor<24xf32>, tensor<4xf32>, tensor<4xf32>
  %c19_buf = bufferization.to_buffer %c19_r : tensor<32xf32> to memref<32xf32>
  %c19_u = memref.cast %c19_buf : memref<32xf32> to memref<*xf32>
  call @printMemrefF32(%c19_u) : (memref<*xf32>) -> ()

  // dropout (inference) is the identity with an all-true mask
  // CHECK: {{\[}}-0.5,  -0.5,  -0.5,  1.25,  2.5,  1.5]
  %c20_x = nnc.constant dense<[[-1.5, -1.5, -1.5], [0.25, 1.5, 0.5]]> : tensor<2x3xf32>
  %c20_y, %c20_mask = nnc.dropout %c20_x : tensor<2x3xf32>
  %c20_mf = nnc.cast %c20_mask : tensor<2x3xi1> to tensor<2x3xf32>
  %c20_sc = nnc.add %c20_y, %c20_mf : tensor<2x3xf32>, tensor<2x3xf32>
  %c20_r = nnc.reshape %c20_sc : tensor<2x3xf32> -> tensor<6xf32>
  %c20_buf = bufferization.to_buffer %c20_r : tensor<6xf32> to memref<6xf32>
  %c20_u = memref.cast %c20_buf : memref<6xf32> to memref<*xf32>
  call @printMemrefF32(%c20_u) : (memref<*xf32>) -> ()

  // nll_loss [N, C, d1], weight, ignore_index -1 (out of [0, C)), reduction = none (mean: weighted)
  // CHECK: {{\[}}0.612403,  1.9854,  0,  0.871053]
  %c21_p = nnc.constant dense<[[[-1.2248057126998901, -0.49269914627075195],  [-2.4748058319091797, -3.992699146270752],  [-0.47480571269989014, -0.992699146270752]], [[-1.55144464969635, -3.1210525035858154],  [-0.5514446496963501, -0.8710525631904602],  [-1.55144464969635, -0.6210525631904602]]]> : tensor<2x3x2xf32>
  %c21_t = nnc.constant dense<[[ 0,  2], [-1,  1]]> : tensor<2x2xi64>
  %c21_w = nnc.constant dense<[0.5, 1.0, 2.0]> : tensor<3xf32>
  %c21_l = nnc.nll_loss %c21_p, %c21_t weight(%c21_w : tensor<3xf32>) reduction = none ignore_index = -1 : tensor<2x3x2xf32>, tensor<2x2xi64>
  %c21_r = nnc.reshape %c21_l : tensor<2x2xf32> -> tensor<4xf32>
  %c21_buf = bufferization.to_buffer %c21_r : tensor<4xf32> to memref<4xf32>
  %c21_u = memref.cast %c21_buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%c21_u) : (memref<*xf32>) -> ()

  // nll_loss [N, C, d1], weight, ignore_index -1 (out of [0, C)), reduction = sum (mean: weighted)
  // CHECK: {{\[}}3.46885]
  %c22_p = nnc.constant dense<[[[-1.2248057126998901, -0.49269914627075195],  [-2.4748058319091797, -3.992699146270752],  [-0.47480571269989014, -0.992699146270752]], [[-1.55144464969635, -3.1210525035858154],  [-0.5514446496963501, -0.8710525631904602],  [-1.55144464969635, -0.6210525631904602]]]> : tensor<2x3x2xf32>
  %c22_t = nnc.constant dense<[[ 0,  2], [-1,  1]]> : tensor<2x2xi64>
  %c22_w = nnc.constant dense<[0.5, 1.0, 2.0]> : tensor<3xf32>
  %c22_l = nnc.nll_loss %c22_p, %c22_t weight(%c22_w : tensor<3xf32>) reduction = sum ignore_index = -1 : tensor<2x3x2xf32>, tensor<2x2xi64>
  %c22_r = nnc.reshape %c22_l : tensor<f32> -> tensor<1xf32>
  %c22_buf = bufferization.to_buffer %c22_r : tensor<1xf32> to memref<1xf32>
  %c22_u = memref.cast %c22_buf : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%c22_u) : (memref<*xf32>) -> ()

  // nll_loss [N, C, d1], weight, ignore_index -1 (out of [0, C)), reduction = mean (mean: weighted)
  // CHECK: {{\[}}0.991101]
  %c23_p = nnc.constant dense<[[[-1.2248057126998901, -0.49269914627075195],  [-2.4748058319091797, -3.992699146270752],  [-0.47480571269989014, -0.992699146270752]], [[-1.55144464969635, -3.1210525035858154],  [-0.5514446496963501, -0.8710525631904602],  [-1.55144464969635, -0.6210525631904602]]]> : tensor<2x3x2xf32>
  %c23_t = nnc.constant dense<[[ 0,  2], [-1,  1]]> : tensor<2x2xi64>
  %c23_w = nnc.constant dense<[0.5, 1.0, 2.0]> : tensor<3xf32>
  %c23_l = nnc.nll_loss %c23_p, %c23_t weight(%c23_w : tensor<3xf32>) reduction = mean ignore_index = -1 : tensor<2x3x2xf32>, tensor<2x2xi64>
  %c23_r = nnc.reshape %c23_l : tensor<f32> -> tensor<1xf32>
  %c23_buf = bufferization.to_buffer %c23_r : tensor<1xf32> to memref<1xf32>
  %c23_u = memref.cast %c23_buf : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%c23_u) : (memref<*xf32>) -> ()

  // nll_loss default mean without weight, i32 labels
  // CHECK: {{\[}}2.16]
  %c24_p = nnc.constant dense<[[[-1.2248057126998901, -0.49269914627075195],  [-2.4748058319091797, -3.992699146270752],  [-0.47480571269989014, -0.992699146270752]], [[-1.55144464969635, -3.1210525035858154],  [-0.5514446496963501, -0.8710525631904602],  [-1.55144464969635, -0.6210525631904602]]]> : tensor<2x3x2xf32>
  %c24_t = nnc.constant dense<[[1, 1], [0, 2]]> : tensor<2x2xi32>
  %c24_l = nnc.nll_loss %c24_p, %c24_t : tensor<2x3x2xf32>, tensor<2x2xi32>
  %c24_r = nnc.reshape %c24_l : tensor<f32> -> tensor<1xf32>
  %c24_buf = bufferization.to_buffer %c24_r : tensor<1xf32> to memref<1xf32>
  %c24_u = memref.cast %c24_buf : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%c24_u) : (memref<*xf32>) -> ()

  // cross_entropy [N, C, d1], weight, ignore_index 5, label_smoothing 0.2, mean
  // CHECK: {{\[}}1.36799]
  %c25_z = nnc.constant dense<[[[0.0, 0.75],  [0.5, 0.0],  [0.25, 2.0],  [-0.5, 2.0]], [[1.25, -1.25],  [1.5, -0.5],  [-1.25, -1.0],  [-1.5, -0.75]], [[-1.75, 0.25],  [2.0, 2.0],  [2.0, -1.0],  [-1.25, 0.75]]]> : tensor<3x4x2xf32>
  %c25_t = nnc.constant dense<[[3, 0], [2, 5], [1, 1]]> : tensor<3x2xi64>
  %c25_w = nnc.constant dense<[1.0, 2.0, 0.5, 1.5]> : tensor<4xf32>
  %c25_l = nnc.cross_entropy %c25_z, %c25_t weight(%c25_w : tensor<4xf32>) ignore_index = 5 label_smoothing = 2.000000e-01 : tensor<3x4x2xf32>, tensor<3x2xi64>
  %c25_r = nnc.reshape %c25_l : tensor<f32> -> tensor<1xf32>
  %c25_buf = bufferization.to_buffer %c25_r : tensor<1xf32> to memref<1xf32>
  %c25_u = memref.cast %c25_buf : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%c25_u) : (memref<*xf32>) -> ()

  // cross_entropy none with ignore_index: ignored elements are 0
  // CHECK: {{\[}}2.01277,  2.13453,  3.38791,  0,  0.723818,  0.412153]
  %c26_z = nnc.constant dense<[[[0.0, 0.75],  [0.5, 0.0],  [0.25, 2.0],  [-0.5, 2.0]], [[1.25, -1.25],  [1.5, -0.5],  [-1.25, -1.0],  [-1.5, -0.75]], [[-1.75, 0.25],  [2.0, 2.0],  [2.0, -1.0],  [-1.25, 0.75]]]> : tensor<3x4x2xf32>
  %c26_t = nnc.constant dense<[[3, 0], [2, 5], [1, 1]]> : tensor<3x2xi64>
  %c26_l = nnc.cross_entropy %c26_z, %c26_t reduction = none ignore_index = 5 : tensor<3x4x2xf32>, tensor<3x2xi64>
  %c26_r = nnc.reshape %c26_l : tensor<3x2xf32> -> tensor<6xf32>
  %c26_buf = bufferization.to_buffer %c26_r : tensor<6xf32> to memref<6xf32>
  %c26_u = memref.cast %c26_buf : memref<6xf32> to memref<*xf32>
  call @printMemrefF32(%c26_u) : (memref<*xf32>) -> ()

  return
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
