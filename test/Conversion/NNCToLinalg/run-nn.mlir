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

  // conv 2-D as im2col + matmul: batch 2 (the [M, N*OH*OW] product is transposed to NCHW), stride 2, pads 1, bias;
  // inputs ((i * a) mod p - (p - 1) / 2) / 4 + ((5 * i) mod 29 - 14) / 8
  // over the flat index i
  // CHECK: {{\[}}-38.5938,  -67.0312,  -110.5,  189.688,  -238.562,  342.125,  -271.141,  -51.1094,  473.453,  -436.766,  539.516,  -374.125,  -315.891,  562.516,  -530.359,  694.859,  -58.6719,  182.328,  -280.609,  431.844,  -184.172,  -29.4375,  -74.4219,  -312.359,  301.688,  -385.656,  114.094,  -237.188,  -309.531,  797,  -440.234,  466.734,  -223.828,  482.562,  -429.094,  535.625,  68.0625,  -284.703,  390.031,  -410.922,  89.7656,  -124.219,  -157.578,  189.547,  -351.828,  440.531,  -367.844,  17.7969,  -225.766,  446.688,  -286.969,  215.047,  350.297,  -379.734,  703.203,  -450.016,  -226.281,  100.109,  -364.938,  447.141,  -237.703,  38.4062,  -105.859,  -251.594,  -203.688,  188.812,  -327.203,  410.344,  -202.125,  -90.6406,  15.4375,  -389.641,  266.953,  -349.312,  209.203,  -208.406,  -310.328,  721.484,  -375.938,  398.766,  -158.766,  427.766,  -282.703,  444.344,  31.5469,  -242.453,  412.188,  -432.047,  8.14062,  -247.484,  -128.125,  88.4844,  -279.203,  349.953,  -332.734,  -10.7812,  -214.516,  613.188,  -345.719,  258.406,  274.109,  -459.672,  719.016,  -558.719,  -148.438,  77.3594,  -370.594,  510.219,  -147.656,  38.375,  -58.5,  -178.797,  -314.578,  164.344,  -249.531,  -57.1719,  529.328,  -523.906,  635.078,  -431.078,  -208.406,  507.375,  -437.734,  785.266,  -31.875,  -229.422,  208.672,  -428.266]
  %g0_x_one = nnc.constant dense<1.0> : tensor<8192xf32>
  %g0_x_i = nnc.cumsum %g0_x_one axis = 0 exclusive = true : tensor<8192xf32>
  %g0_x_a = nnc.constant dense<7.0> : tensor<f32>
  %g0_x_p = nnc.constant dense<31.0> : tensor<f32>
  %g0_x_h = nnc.constant dense<15.0> : tensor<f32>
  %g0_x_q = nnc.constant dense<0.25> : tensor<f32>
  %g0_x_ia = nnc.mul %g0_x_i, %g0_x_a : tensor<8192xf32>, tensor<f32>
  %g0_x_r = nnc.rem %g0_x_ia, %g0_x_p {fmod = true} : tensor<8192xf32>, tensor<f32>
  %g0_x_c = nnc.sub %g0_x_r, %g0_x_h : tensor<8192xf32>, tensor<f32>
  %g0_x_s0 = nnc.mul %g0_x_c, %g0_x_q : tensor<8192xf32>, tensor<f32>
  %g0_x_5 = nnc.constant dense<5.0> : tensor<f32>
  %g0_x_29 = nnc.constant dense<29.0> : tensor<f32>
  %g0_x_14 = nnc.constant dense<14.0> : tensor<f32>
  %g0_x_e = nnc.constant dense<0.125> : tensor<f32>
  %g0_x_i5 = nnc.mul %g0_x_i, %g0_x_5 : tensor<8192xf32>, tensor<f32>
  %g0_x_r29 = nnc.rem %g0_x_i5, %g0_x_29 {fmod = true} : tensor<8192xf32>, tensor<f32>
  %g0_x_c14 = nnc.sub %g0_x_r29, %g0_x_14 : tensor<8192xf32>, tensor<f32>
  %g0_x_t = nnc.mul %g0_x_c14, %g0_x_e : tensor<8192xf32>, tensor<f32>
  %g0_x_s = nnc.add %g0_x_s0, %g0_x_t : tensor<8192xf32>, tensor<8192xf32>
  %g0_x = nnc.reshape %g0_x_s : tensor<8192xf32> -> tensor<2x64x8x8xf32>
  %g0_w_one = nnc.constant dense<1.0> : tensor<2304xf32>
  %g0_w_i = nnc.cumsum %g0_w_one axis = 0 exclusive = true : tensor<2304xf32>
  %g0_w_a = nnc.constant dense<3.0> : tensor<f32>
  %g0_w_p = nnc.constant dense<11.0> : tensor<f32>
  %g0_w_h = nnc.constant dense<5.0> : tensor<f32>
  %g0_w_q = nnc.constant dense<0.25> : tensor<f32>
  %g0_w_ia = nnc.mul %g0_w_i, %g0_w_a : tensor<2304xf32>, tensor<f32>
  %g0_w_r = nnc.rem %g0_w_ia, %g0_w_p {fmod = true} : tensor<2304xf32>, tensor<f32>
  %g0_w_c = nnc.sub %g0_w_r, %g0_w_h : tensor<2304xf32>, tensor<f32>
  %g0_w_s0 = nnc.mul %g0_w_c, %g0_w_q : tensor<2304xf32>, tensor<f32>
  %g0_w_5 = nnc.constant dense<5.0> : tensor<f32>
  %g0_w_29 = nnc.constant dense<29.0> : tensor<f32>
  %g0_w_14 = nnc.constant dense<14.0> : tensor<f32>
  %g0_w_e = nnc.constant dense<0.125> : tensor<f32>
  %g0_w_i5 = nnc.mul %g0_w_i, %g0_w_5 : tensor<2304xf32>, tensor<f32>
  %g0_w_r29 = nnc.rem %g0_w_i5, %g0_w_29 {fmod = true} : tensor<2304xf32>, tensor<f32>
  %g0_w_c14 = nnc.sub %g0_w_r29, %g0_w_14 : tensor<2304xf32>, tensor<f32>
  %g0_w_t = nnc.mul %g0_w_c14, %g0_w_e : tensor<2304xf32>, tensor<f32>
  %g0_w_s = nnc.add %g0_w_s0, %g0_w_t : tensor<2304xf32>, tensor<2304xf32>
  %g0_w = nnc.reshape %g0_w_s : tensor<2304xf32> -> tensor<4x64x3x3xf32>
  %g0_b = nnc.constant dense<[0.5, -1.0, 0.25, 2.0]> : tensor<4xf32>
  %g0_o = nnc.conv %g0_x, %g0_w, %g0_b strides = [2, 2] pads = [1, 1, 1, 1] : tensor<2x64x8x8xf32>, tensor<4x64x3x3xf32>, tensor<4xf32>
  %g0_flat = nnc.reshape %g0_o : tensor<2x4x4x4xf32> -> tensor<128xf32>
  %g0_buf = bufferization.to_buffer %g0_flat : tensor<128xf32> to memref<128xf32>
  %g0_u = memref.cast %g0_buf : memref<128xf32> to memref<*xf32>
  call @printMemrefF32(%g0_u) : (memref<*xf32>) -> ()

  // conv 2-D as im2col + batch_matmul over 2 groups: dilations 2, stride 2, pads 2, no bias;
  // inputs ((i * a) mod p - (p - 1) / 2) / 4 + ((5 * i) mod 29 - 14) / 8
  // over the flat index i
  // CHECK: {{\[}}-37.0312,  -0.78125,  19.3906,  -24.4375,  -48.4062,  27.2344,  -50.7188,  16.3906,  8.89062,  20.3281,  22.375,  9.4375,  55.5625,  18.375,  22.6875,  -24.5156,  12.8125,  -5.39062,  -16.3594,  -22.5156,  42.1406,  -26.2969,  -39.5781,  14.875,  28.625,  30.0312,  -8.25,  -25.0312,  51.5938,  29.7656,  11.0312,  1.42188,  -37.0625,  31.4062,  -29.1406,  -19.6719,  16.3906,  -12,  -38.6875,  63.2812,  -21,  12.4531,  25.7031,  -4.51562,  -20.375,  11.0938,  -0.859375,  7.48438,  -33.8594,  19.5,  1.78125,  -19.4219,  9.14062,  -23.6562,  42.2031,  -16.8438,  -42.6406,  78.1094,  -9.0625,  24.4062,  -54.375,  -8.4375,  -11.3906,  18.0156,  -24.2969,  13.4688,  -42.375,  35.8438,  16.0938,  -1.01562,  7.20312,  -19.6875,  45.6562,  -11.375,  16.2812,  13.6562,  -13.7656,  -35.9844,  24.0625,  6.375,  -24.8281,  -34.2656,  0.84375,  -21.5156,  30.3438,  -14.4375,  25.2656,  -9.01562,  -19.5,  66.0156,  -2.125,  41.9531,  -25.7344,  -0.46875,  -9.5,  5.54688,  52.3281,  32.9688,  -23.5781,  50.5469,  -44.2031,  -63.25,  -10.6875,  -14.375,  9.45312,  -59.4375,  13.2812,  51.6562,  1.375,  -15.0469,  17.0312,  -52.125,  53.3594,  -5.96875,  -8.10938,  -34.9844,  25.6719,  -21.3125,  58.0625,  5.46875,  11.1406,  -2.9375,  29.5,  3.78125,  5.90625,  -35.4219,  41.4844,  -13.3906,  -10.0625,  -25,  15.6719,  47.9062,  12.6562,  10.3438,  -25.5625,  -22.375,  57.9062,  -18.0938,  59.0469,  -57.3438,  50.2812,  6.26562,  -34.4062,  0.25,  1.73438,  -61.875,  38.3438,  15.5469,  -43.6094,  9.42188,  28.7031,  14.4531,  60.5781,  -29.9219,  -9.42188,  14.1562,  52.0781,  -16.6406,  10.9375,  -29.6094,  -3.625,  45.2656,  33.25,  -30.6562,  48.0156,  -0.125,  -23.7969,  -29.3125,  -23.25,  -23.5312,  18.8594,  -6.65625,  9.10938,  27.375,  24.1094,  40.6875,  -2.82812,  9.65625,  -21.4062,  -25.5781,  27.8594,  -3.84375,  -55.5312,  19.7656,  16.5,  -33.7344,  -29.9844,  12.2031,  32.4531,  -31.125,  44.4219,  39.6406,  41.9062,  -41.1875,  -11.8438,  -32.7031,  36.0156,  -20.5469,  3.03125,  25.8906,  -12.0156,  -34.9688,  70.9062,  -2.98438,  40.3594,  -6.04688,  -15.8281,  -34.0781,  0.140625,  -48.7344,  -16.1875,  -29.375,  53.6719,  -36.375,  -10,  44.875,  -16.0938,  58.1562,  -43.5625,  9.21875,  40.7344,  -21.875,  16.9531,  8.82812,  -1.21875,  24.3125,  -25.2188,  -72.8281,  -37.2344,  19.75,  1.6875,  7.875,  4.34375,  2.15625,  16.7188,  -27.4688,  -24.1562,  47.5156,  -14.8125,  -28.0938,  -35.5156,  66.2656,  -41.1562,  29.7188,  47.875,  14.9219,  -21.1875,  -84.3281,  37.4531,  37.3438,  -71.875,  6.1875,  -63.3125,  -11.6719,  37.8438,  -9.64062,  -29.4375,  10.7188,  -3.42188,  -2.125,  6.65625,  -33.4062,  -8.375,  28.7344,  20.0781,  16.6562,  -10.4844,  30.7188,  -5.26562,  65.3438,  -32.5781,  3.76562,  -19.4062,  17.4844,  -43.6875,  12.3906,  -36.7656,  37.5781,  24.7188,  -6.95312,  -35.9375,  36.7031,  32.9375,  -5.46875,  -48.6719,  58.9375,  -2.8125,  0.546875]
  %g1_x_one = nnc.constant dense<1.0> : tensor<18432xf32>
  %g1_x_i = nnc.cumsum %g1_x_one axis = 0 exclusive = true : tensor<18432xf32>
  %g1_x_a = nnc.constant dense<11.0> : tensor<f32>
  %g1_x_p = nnc.constant dense<31.0> : tensor<f32>
  %g1_x_h = nnc.constant dense<15.0> : tensor<f32>
  %g1_x_q = nnc.constant dense<0.25> : tensor<f32>
  %g1_x_ia = nnc.mul %g1_x_i, %g1_x_a : tensor<18432xf32>, tensor<f32>
  %g1_x_r = nnc.rem %g1_x_ia, %g1_x_p {fmod = true} : tensor<18432xf32>, tensor<f32>
  %g1_x_c = nnc.sub %g1_x_r, %g1_x_h : tensor<18432xf32>, tensor<f32>
  %g1_x_s0 = nnc.mul %g1_x_c, %g1_x_q : tensor<18432xf32>, tensor<f32>
  %g1_x_5 = nnc.constant dense<5.0> : tensor<f32>
  %g1_x_29 = nnc.constant dense<29.0> : tensor<f32>
  %g1_x_14 = nnc.constant dense<14.0> : tensor<f32>
  %g1_x_e = nnc.constant dense<0.125> : tensor<f32>
  %g1_x_i5 = nnc.mul %g1_x_i, %g1_x_5 : tensor<18432xf32>, tensor<f32>
  %g1_x_r29 = nnc.rem %g1_x_i5, %g1_x_29 {fmod = true} : tensor<18432xf32>, tensor<f32>
  %g1_x_c14 = nnc.sub %g1_x_r29, %g1_x_14 : tensor<18432xf32>, tensor<f32>
  %g1_x_t = nnc.mul %g1_x_c14, %g1_x_e : tensor<18432xf32>, tensor<f32>
  %g1_x_s = nnc.add %g1_x_s0, %g1_x_t : tensor<18432xf32>, tensor<18432xf32>
  %g1_x = nnc.reshape %g1_x_s : tensor<18432xf32> -> tensor<1x128x12x12xf32>
  %g1_w_one = nnc.constant dense<1.0> : tensor<4608xf32>
  %g1_w_i = nnc.cumsum %g1_w_one axis = 0 exclusive = true : tensor<4608xf32>
  %g1_w_a = nnc.constant dense<2.0> : tensor<f32>
  %g1_w_p = nnc.constant dense<13.0> : tensor<f32>
  %g1_w_h = nnc.constant dense<6.0> : tensor<f32>
  %g1_w_q = nnc.constant dense<0.25> : tensor<f32>
  %g1_w_ia = nnc.mul %g1_w_i, %g1_w_a : tensor<4608xf32>, tensor<f32>
  %g1_w_r = nnc.rem %g1_w_ia, %g1_w_p {fmod = true} : tensor<4608xf32>, tensor<f32>
  %g1_w_c = nnc.sub %g1_w_r, %g1_w_h : tensor<4608xf32>, tensor<f32>
  %g1_w_s0 = nnc.mul %g1_w_c, %g1_w_q : tensor<4608xf32>, tensor<f32>
  %g1_w_5 = nnc.constant dense<5.0> : tensor<f32>
  %g1_w_29 = nnc.constant dense<29.0> : tensor<f32>
  %g1_w_14 = nnc.constant dense<14.0> : tensor<f32>
  %g1_w_e = nnc.constant dense<0.125> : tensor<f32>
  %g1_w_i5 = nnc.mul %g1_w_i, %g1_w_5 : tensor<4608xf32>, tensor<f32>
  %g1_w_r29 = nnc.rem %g1_w_i5, %g1_w_29 {fmod = true} : tensor<4608xf32>, tensor<f32>
  %g1_w_c14 = nnc.sub %g1_w_r29, %g1_w_14 : tensor<4608xf32>, tensor<f32>
  %g1_w_t = nnc.mul %g1_w_c14, %g1_w_e : tensor<4608xf32>, tensor<f32>
  %g1_w_s = nnc.add %g1_w_s0, %g1_w_t : tensor<4608xf32>, tensor<4608xf32>
  %g1_w = nnc.reshape %g1_w_s : tensor<4608xf32> -> tensor<8x64x3x3xf32>
  %g1_o = nnc.conv %g1_x, %g1_w strides = [2, 2] dilations = [2, 2] pads = [2, 2, 2, 2] groups = 2 : tensor<1x128x12x12xf32>, tensor<8x64x3x3xf32>
  %g1_flat = nnc.reshape %g1_o : tensor<1x8x6x6xf32> -> tensor<288xf32>
  %g1_buf = bufferization.to_buffer %g1_flat : tensor<288xf32> to memref<288xf32>
  %g1_u = memref.cast %g1_buf : memref<288xf32> to memref<*xf32>
  call @printMemrefF32(%g1_u) : (memref<*xf32>) -> ()

  // conv 2-D 1x1, one image: the input is the im2col matrix as it lies;
  // inputs ((i * a) mod p - (p - 1) / 2) / 4 + ((5 * i) mod 29 - 14) / 8
  // over the flat index i
  // CHECK: {{\[}}90.2812,  82.25,  6.53125,  -73.5781,  -34.4844,  -37.5625,  32.5,  38.75,  69.1094,  -20,  -49.2812,  -18.0469,  26.6875,  -36.4844,  -15.125,  37.6875,  -3.78125,  -23.2031,  27.0312,  -7.54688,  -26.4688,  -23.625,  22.8594,  45.5,  25.0938,  -30.6875,  -61.7969,  -22.4219,  2.1875,  87.3125,  79.2812,  17.125,  -48.4531,  -47.1406,  -50.2188,  59.5625,  12.5312,  33.2031,  -3.59375,  -14.4688,  -36.5156,  19.8438,  1.23438,  -8.40625,  9.53125,  -20.3125,  -8.73438,  31.8125,  -34.7344,  -35.25,  -1.40625,  56.7031,  18.3125,  16.3125,  3.15625,  -65.7344,  -54.4531,  -8.53125,  97.9062,  83.0938,  14.1562,  -51.4219,  -36.5469,  -25.0938,  76.1875,  19.4375,  -34.1719,  -74.1719,  -41.0625,  20.875,  5.65625,  43.7344,  -12.0938,  -10.0312,  -17.2031,  30.8906,  -18.7188,  7.15625,  11.1875,  -24.125,  -33.5156,  31.4531,  -33.0625,  -37.625,  3.625,  69.5469,  29.8438,  33.2188,  -41.6562,  -48.2656,  -75.3906,  -27.1875,  83.75,  108.844,  17.2188,  -46.0781,  -36.6719,  -13.25,  13.8125,  10.2188,  31.8281,  -33.6875,  -42.2812,  -31.0469,  48.0469,  10.0625,  1.0625,  23.5,  9.5,  -37.6719,  4.04688,  -48.8438,  -29.1875,  -18.9375,  43.1094,  43.125,  67.8125,  -16.75,  -58.2344,  -66.9531,  2.5625,  52.4688,  49.4688,  7.25,  -13.4219,  -38.8906,  -25.1562,  51.3125,  20.75,  -13.2656,  -54.9062,  -7.375,  30.9219,  5.9375,  11.7656,  -28.6094,  -51.1562,  -19.6875,  34.5156,  28.625,  0.96875,  42.7812,  -20.0469,  -17.2344,  -21.4375,  -45.3281,  -48.9219,  5.82812,  49.0781,  36.1094,  75.9062,  -7.64062,  -70.0938,  -72.5469,  -10.2031,  69.3438,  55.2969,  -17.875,  -2.48438,  -34.4375,  6.3125,  41.7031,  38.0312,  27.3906,  -34.2969,  -66.5312,  -38.9375,  5.57812,  -4.1875,  7.875,  75.8438,  3.32812,  -7.42188,  6.78125,  -31.6406,  -79.7969,  -28.9219,  32.7344,  43.9844,  46,  -18.1719,  -12.8125,  -22.0469,  -18.7969,  53.9688,  65.1094,  -14.8438,  -62.4219,  -73.0625,  17.0938,  62.1719,  51.7188,  -52.125,  -7.21875,  -5.60938,  63.2969,  23.3906,  57.8438,  -48.5,  -59.0156,  -41.5,  9.40625,  -11.4062,  2.14062,  52.625,  26.9844,  -2.5625,  3.5,  -29.5,  -55.2656,  -54.125,  31.8438,  46.2969,  41.4219,  -3.76562,  -27.875,  -10.375,  -8.67188,  65.6406,  58.2656,  -14.6094,  -56.4375,  -67.7188,  -30.2656,  88.0469,  38.4531,  66.125,  -21.8125,  -23.6094,  -50.6562,  -3.625,  -27.3438,  -17.6719,  16.3438,  8.14062,  25.0938,  52.4688,  -18.3125,  -63.4531,  -22.5938,  38.1875,  -13.2344,  27.4219,  0.640625,  -55.4375,  -26.3125,  24.7969,  117.516,  75.2656,  -19.8906,  -68.5,  -65.25,  -34.5781,  27.5469,  13.7969,  90.875]
  %g2_x_one = nnc.constant dense<1.0> : tensor<16384xf32>
  %g2_x_i = nnc.cumsum %g2_x_one axis = 0 exclusive = true : tensor<16384xf32>
  %g2_x_a = nnc.constant dense<3.0> : tensor<f32>
  %g2_x_p = nnc.constant dense<31.0> : tensor<f32>
  %g2_x_h = nnc.constant dense<15.0> : tensor<f32>
  %g2_x_q = nnc.constant dense<0.25> : tensor<f32>
  %g2_x_ia = nnc.mul %g2_x_i, %g2_x_a : tensor<16384xf32>, tensor<f32>
  %g2_x_r = nnc.rem %g2_x_ia, %g2_x_p {fmod = true} : tensor<16384xf32>, tensor<f32>
  %g2_x_c = nnc.sub %g2_x_r, %g2_x_h : tensor<16384xf32>, tensor<f32>
  %g2_x_s0 = nnc.mul %g2_x_c, %g2_x_q : tensor<16384xf32>, tensor<f32>
  %g2_x_5 = nnc.constant dense<5.0> : tensor<f32>
  %g2_x_29 = nnc.constant dense<29.0> : tensor<f32>
  %g2_x_14 = nnc.constant dense<14.0> : tensor<f32>
  %g2_x_e = nnc.constant dense<0.125> : tensor<f32>
  %g2_x_i5 = nnc.mul %g2_x_i, %g2_x_5 : tensor<16384xf32>, tensor<f32>
  %g2_x_r29 = nnc.rem %g2_x_i5, %g2_x_29 {fmod = true} : tensor<16384xf32>, tensor<f32>
  %g2_x_c14 = nnc.sub %g2_x_r29, %g2_x_14 : tensor<16384xf32>, tensor<f32>
  %g2_x_t = nnc.mul %g2_x_c14, %g2_x_e : tensor<16384xf32>, tensor<f32>
  %g2_x_s = nnc.add %g2_x_s0, %g2_x_t : tensor<16384xf32>, tensor<16384xf32>
  %g2_x = nnc.reshape %g2_x_s : tensor<16384xf32> -> tensor<1x256x8x8xf32>
  %g2_w_one = nnc.constant dense<1.0> : tensor<1024xf32>
  %g2_w_i = nnc.cumsum %g2_w_one axis = 0 exclusive = true : tensor<1024xf32>
  %g2_w_a = nnc.constant dense<7.0> : tensor<f32>
  %g2_w_p = nnc.constant dense<11.0> : tensor<f32>
  %g2_w_h = nnc.constant dense<5.0> : tensor<f32>
  %g2_w_q = nnc.constant dense<0.25> : tensor<f32>
  %g2_w_ia = nnc.mul %g2_w_i, %g2_w_a : tensor<1024xf32>, tensor<f32>
  %g2_w_r = nnc.rem %g2_w_ia, %g2_w_p {fmod = true} : tensor<1024xf32>, tensor<f32>
  %g2_w_c = nnc.sub %g2_w_r, %g2_w_h : tensor<1024xf32>, tensor<f32>
  %g2_w_s0 = nnc.mul %g2_w_c, %g2_w_q : tensor<1024xf32>, tensor<f32>
  %g2_w_5 = nnc.constant dense<5.0> : tensor<f32>
  %g2_w_29 = nnc.constant dense<29.0> : tensor<f32>
  %g2_w_14 = nnc.constant dense<14.0> : tensor<f32>
  %g2_w_e = nnc.constant dense<0.125> : tensor<f32>
  %g2_w_i5 = nnc.mul %g2_w_i, %g2_w_5 : tensor<1024xf32>, tensor<f32>
  %g2_w_r29 = nnc.rem %g2_w_i5, %g2_w_29 {fmod = true} : tensor<1024xf32>, tensor<f32>
  %g2_w_c14 = nnc.sub %g2_w_r29, %g2_w_14 : tensor<1024xf32>, tensor<f32>
  %g2_w_t = nnc.mul %g2_w_c14, %g2_w_e : tensor<1024xf32>, tensor<f32>
  %g2_w_s = nnc.add %g2_w_s0, %g2_w_t : tensor<1024xf32>, tensor<1024xf32>
  %g2_w = nnc.reshape %g2_w_s : tensor<1024xf32> -> tensor<4x256x1x1xf32>
  %g2_b = nnc.constant dense<[1.0, -0.5, 0.0, 0.75]> : tensor<4xf32>
  %g2_o = nnc.conv %g2_x, %g2_w, %g2_b strides = [1, 1] : tensor<1x256x8x8xf32>, tensor<4x256x1x1xf32>, tensor<4xf32>
  %g2_flat = nnc.reshape %g2_o : tensor<1x4x8x8xf32> -> tensor<256xf32>
  %g2_buf = bufferization.to_buffer %g2_flat : tensor<256xf32> to memref<256xf32>
  %g2_u = memref.cast %g2_buf : memref<256xf32> to memref<*xf32>
  call @printMemrefF32(%g2_u) : (memref<*xf32>) -> ()

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
