// RUN: nnc-opt %s --nnc-convert-to-linalg %cpu_pipeline \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s

// max_pool_grad lowered to linalg and JIT-executed on the CPU. The expected
// values come from a numpy reference (direct loops: each window's gradient
// added at its first maximum, padding never taken); PyTorch's max_pool
// backward gave the same values bit for bit on the cases it has (symmetric
// pads, no -inf windows) when the checks were written.

func.func @main() {
  // 3x3 stride 2 pads 1 (ResNet's stem), many ties: overlapping windows add up
  // CHECK: {{\[}}-1.5,  0,  0,  1.75,  0,  -0.25,  1,  0,  0,  0,  0,  0,  0,  0,  1.5,  1.25,  0,  0.5,  0,  0,  0,  0,  0,  0,  -0.25,  0,  -1,  0,  0,  0,  0,  0,  0,  0.25,  0,  -0.5,  0,  0,  0,  0,  -2,  0,  -1.75,  0,  -1.25,  0,  0,  0,  0,  0]
  %c0_x = nnc.constant dense<[[[[2.0, 1.0, 2.0, 2.0, 1.0],   [2.0, 2.0, 0.0, 0.0, 0.0],   [0.0, 2.0, 2.0, 0.0, 1.0],   [2.0, 0.0, 2.0, 0.0, 1.0],   [2.0, 0.0, 1.0, 0.0, 2.0]],  [[0.0, 2.0, 1.0, 1.0, 1.0],   [1.0, 1.0, 1.0, 2.0, 2.0],   [2.0, 2.0, 1.0, 1.0, 2.0],   [1.0, 0.0, 2.0, 0.0, 2.0],   [1.0, 0.0, 0.0, 1.0, 0.0]]]]> : tensor<1x2x5x5xf32>
  %c0_g = nnc.constant dense<[[[[-1.5, 0.0, 1.75],   [-0.25, 1.0, 1.5],   [1.25, 0.5, -0.25]],  [[0.0, -1.0, -0.25],   [-0.5, -1.25, 1.75],   [-2.0, -1.75, -1.25]]]]> : tensor<1x2x3x3xf32>
  %c0_r = nnc.max_pool_grad %c0_x, %c0_g kernel_shape = [3, 3] strides = [2, 2] pads = [1, 1, 1, 1] : tensor<1x2x5x5xf32>, tensor<1x2x3x3xf32>
  %c0_flat = nnc.reshape %c0_r : tensor<1x2x5x5xf32> -> tensor<50xf32>
  %c0_buf = bufferization.to_buffer %c0_flat : tensor<50xf32> to memref<50xf32>
  %c0_u = memref.cast %c0_buf : memref<50xf32> to memref<*xf32>
  call @printMemrefF32(%c0_u) : (memref<*xf32>) -> ()

  // dilations [2, 1], asymmetric pads, ceil_mode
  // CHECK: {{\[}}0,  0,  0,  0,  0,  0,  0,  0,  0,  -2.25,  -0.75,  0,  0,  0,  0,  0,  0,  0,  0,  0,  -1.75,  0,  0,  -1,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  1.75,  0,  2.25,  0,  -3.25,  0,  0,  0,  0,  0,  0,  0,  0,  -3,  0,  -0.25,  0,  1.25,  0,  0,  0,  0,  0,  0]
  %c1_x = nnc.constant dense<[[[[1.75, 0.75, 1.5, -1.25, 0.75, -0.75],   [-0.25, -2.0, 0.25, 1.25, 0.5, -1.5],   [0.0, -1.0, 1.75, 1.5, -1.5, 0.0],   [1.75, 1.25, 0.75, 0.5, -2.0, 0.75],   [-0.25, -1.75, -1.25, 0.0, 0.75, 0.0]],  [[0.25, 1.25, 0.5, -0.75, 0.5, 0.25],   [-1.75, -2.0, 0.5, -0.5, 0.25, -0.75],   [-1.25, -1.5, -0.5, 1.25, -0.5, -0.5],   [0.25, 1.75, -0.5, 0.25, -0.25, 0.25],   [-0.25, 0.5, 0.0, 0.5, 1.75, -1.5]]]]> : tensor<1x2x5x6xf32>
  %c1_g = nnc.constant dense<[[[[0.0, -0.25, -0.75],   [-1.25, -2.0, -0.5],   [1.25, -1.75, -0.5]],  [[1.75, 1.75, -1.25],   [-2.0, 0.5, -2.0],   [-1.0, -0.25, 1.25]]]]> : tensor<1x2x3x3xf32>
  %c1_r = nnc.max_pool_grad %c1_x, %c1_g kernel_shape = [2, 2] strides = [2, 2] pads = [1, 0, 0, 1] dilations = [2, 1] ceil_mode = true : tensor<1x2x5x6xf32>, tensor<1x2x3x3xf32>
  %c1_flat = nnc.reshape %c1_r : tensor<1x2x5x6xf32> -> tensor<60xf32>
  %c1_buf = bufferization.to_buffer %c1_flat : tensor<60xf32> to memref<60xf32>
  %c1_u = memref.cast %c1_buf : memref<60xf32> to memref<*xf32>
  call @printMemrefF32(%c1_u) : (memref<*xf32>) -> ()

  // 1-D, stride 3 > kernel 2: positions no window reads get 0
  // CHECK: {{\[}}0,  1,  0,  0,  1.5,  0,  0,  -1.25,  0,  0,  0,  -2,  0,  0,  -1.5,  0]
  %c2_x = nnc.constant dense<[[[-1.75, 0.5, 0.0, -1.5, 1.25, 1.25, -0.25, 1.75]], [[0.25, 1.5, 1.75, 0.25, -1.0, -1.5, 0.25, -1.25]]]> : tensor<2x1x8xf32>
  %c2_g = nnc.constant dense<[[[1.0, 1.5, -1.25]], [[0.0, -2.0, -1.5]]]> : tensor<2x1x3xf32>
  %c2_r = nnc.max_pool_grad %c2_x, %c2_g kernel_shape = [2] strides = [3] pads = [0, 0] : tensor<2x1x8xf32>, tensor<2x1x3xf32>
  %c2_flat = nnc.reshape %c2_r : tensor<2x1x8xf32> -> tensor<16xf32>
  %c2_buf = bufferization.to_buffer %c2_flat : tensor<16xf32> to memref<16xf32>
  %c2_u = memref.cast %c2_buf : memref<16xf32> to memref<*xf32>
  call @printMemrefF32(%c2_u) : (memref<*xf32>) -> ()

  // 1-D, stride 1: every position in up to 3 windows
  // CHECK: {{\[}}0,  0.5,  1.5,  0.25,  -0.25,  0,  0,  1,  -1,  -0.25,  1,  0]
  %c3_x = nnc.constant dense<[[[1.0, 2.0, 2.0, 1.0, 1.0, 1.0],  [0.0, 1.0, 2.0, 1.0, 0.0, 0.0]]]> : tensor<1x2x6xf32>
  %c3_g = nnc.constant dense<[[[0.75, -2.0, 1.75, 1.5, 0.25, -0.25],  [1.0, 0.0, -0.25, -0.75, -0.25, 1.0]]]> : tensor<1x2x6xf32>
  %c3_r = nnc.max_pool_grad %c3_x, %c3_g kernel_shape = [3] strides = [1] pads = [1, 1] : tensor<1x2x6xf32>, tensor<1x2x6xf32>
  %c3_flat = nnc.reshape %c3_r : tensor<1x2x6xf32> -> tensor<12xf32>
  %c3_buf = bufferization.to_buffer %c3_flat : tensor<12xf32> to memref<12xf32>
  %c3_u = memref.cast %c3_buf : memref<12xf32> to memref<*xf32>
  call @printMemrefF32(%c3_u) : (memref<*xf32>) -> ()

  // windows of -inf take their first input position, never the padding
  // CHECK: {{\[}}-0.5,  0,  0,  0,  0,  0,  1.25,  0,  0,  -0.25,  0,  0,  0,  0,  0,  0]
  %c4_x = nnc.constant dense<[[[[0xFF800000, 0xFF800000, 0.75, -0.75],   [0xFF800000, 0xFF800000, 1.5, -1.75],   [-0.5, 1.75, -1.75, 0.5],   [0.75, -0.5, -1.75, 0.0]]]]> : tensor<1x1x4x4xf32>
  %c4_g = nnc.constant dense<[[[[-0.5, 1.25],   [0.5, -0.75]]]]> : tensor<1x1x2x2xf32>
  %c4_r = nnc.max_pool_grad %c4_x, %c4_g kernel_shape = [3, 3] strides = [2, 2] pads = [1, 1, 1, 1] : tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>
  %c4_flat = nnc.reshape %c4_r : tensor<1x1x4x4xf32> -> tensor<16xf32>
  %c4_buf = bufferization.to_buffer %c4_flat : tensor<16xf32> to memref<16xf32>
  %c4_u = memref.cast %c4_buf : memref<16xf32> to memref<*xf32>
  call @printMemrefF32(%c4_u) : (memref<*xf32>) -> ()

  // 3-D, strides [1, 2, 2]
  // CHECK: {{\[}}0,  0,  0,  0,  -1,  0,  1.75,  0,  0,  0,  0,  0.25,  1.25,  0,  0,  0,  0,  0,  0,  0,  0,  1.75,  0,  0,  0,  0,  0,  0,  -1.5,  0,  0,  0,  0,  0,  -0.75,  0,  0,  0,  0,  0,  0,  0,  -1,  0,  0,  0,  0,  0]
  %c5_x = nnc.constant dense<[[[[[-2.0, 0.25, -1.0, 0.5],    [1.25, -0.75, 1.5, 0.0],    [0.0, 1.0, 1.0, 1.5],    [1.75, -1.5, -0.5, 1.5]],   [[-1.0, -2.0, 0.25, 1.0],    [0.75, 1.0, 0.5, -1.5],    [1.25, -0.5, 1.25, 1.25],    [1.75, -2.0, 1.25, 0.5]],   [[-0.25, 1.0, 1.75, 0.0],    [-1.75, 0.75, -1.25, -1.25],    [-1.25, -1.25, 1.5, -0.75],    [-1.75, -1.5, -0.5, -0.75]]]]]> : tensor<1x1x3x4x4xf32>
  %c5_g = nnc.constant dense<[[[[[-1.0, 1.75],    [1.25, 0.25]],   [[1.75, -0.75],    [-1.5, -1.0]]]]]> : tensor<1x1x2x2x2xf32>
  %c5_r = nnc.max_pool_grad %c5_x, %c5_g kernel_shape = [2, 2, 2] strides = [1, 2, 2] pads = [0, 0, 0, 0, 0, 0] : tensor<1x1x3x4x4xf32>, tensor<1x1x2x2x2xf32>
  %c5_flat = nnc.reshape %c5_r : tensor<1x1x3x4x4xf32> -> tensor<48xf32>
  %c5_buf = bufferization.to_buffer %c5_flat : tensor<48xf32> to memref<48xf32>
  %c5_u = memref.cast %c5_buf : memref<48xf32> to memref<*xf32>
  call @printMemrefF32(%c5_u) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }
