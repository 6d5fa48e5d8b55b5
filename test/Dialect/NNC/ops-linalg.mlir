// RUN: nnc-opt %s --split-input-file | FileCheck %s
// RUN: nnc-opt %s --split-input-file | nnc-opt --split-input-file | FileCheck %s
// RUN: nnc-opt %s --split-input-file --mlir-print-op-generic | nnc-opt --split-input-file | FileCheck %s

// matmul: matrices with static and dynamic dims infer [M, N]
// CHECK-LABEL: func @matmul_2d
func.func @matmul_2d(%a: tensor<?x64xf32>, %b: tensor<64x10xf32>) -> tensor<?x10xf32> {
  // CHECK: nnc.matmul %{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<64x10xf32>
  %0 = nnc.matmul %a, %b : tensor<?x64xf32>, tensor<64x10xf32>
  return %0 : tensor<?x10xf32>
}

// -----

// matmul: a dynamic K agrees with a static one
// CHECK-LABEL: func @matmul_dynamic_k
func.func @matmul_dynamic_k(%a: tensor<3x?xf16>, %b: tensor<5x7xf16>) -> tensor<3x7xf16> {
  // CHECK: nnc.matmul %{{.*}}, %{{.*}} : tensor<3x?xf16>, tensor<5x7xf16>
  %0 = nnc.matmul %a, %b : tensor<3x?xf16>, tensor<5x7xf16>
  return %0 : tensor<3x7xf16>
}

// -----

// matmul: batch dimensions broadcast as in numpy
// CHECK-LABEL: func @matmul_batched
func.func @matmul_batched(%a: tensor<2x1x?x4x8xbf16>, %b: tensor<3x1x8x6xbf16>) -> tensor<2x3x?x4x6xbf16> {
  // CHECK: nnc.matmul %{{.*}}, %{{.*}} : tensor<2x1x?x4x8xbf16>, tensor<3x1x8x6xbf16>
  %0 = nnc.matmul %a, %b : tensor<2x1x?x4x8xbf16>, tensor<3x1x8x6xbf16>
  return %0 : tensor<2x3x?x4x6xbf16>
}

// -----

// matmul: a batched matrix times a matrix keeps the batch dims
// CHECK-LABEL: func @matmul_batch_times_matrix
func.func @matmul_batch_times_matrix(%a: tensor<8x?x64xi32>, %b: tensor<64x10xi32>) -> tensor<8x?x10xi32> {
  // CHECK: nnc.matmul %{{.*}}, %{{.*}} : tensor<8x?x64xi32>, tensor<64x10xi32>
  %0 = nnc.matmul %a, %b : tensor<8x?x64xi32>, tensor<64x10xi32>
  return %0 : tensor<8x?x10xi32>
}

// -----

// matmul: a rank-1 rhs is a column vector whose unit dim is dropped
// CHECK-LABEL: func @matmul_matrix_vector
func.func @matmul_matrix_vector(%a: tensor<8x?x64xf64>, %b: tensor<64xf64>) -> tensor<8x?xf64> {
  // CHECK: nnc.matmul %{{.*}}, %{{.*}} : tensor<8x?x64xf64>, tensor<64xf64>
  %0 = nnc.matmul %a, %b : tensor<8x?x64xf64>, tensor<64xf64>
  return %0 : tensor<8x?xf64>
}

// -----

// matmul: a rank-1 lhs is a row vector whose unit dim is dropped
// CHECK-LABEL: func @matmul_vector_matrix
func.func @matmul_vector_matrix(%a: tensor<?xi8>, %b: tensor<5x4x7xi8>) -> tensor<5x7xi8> {
  // CHECK: nnc.matmul %{{.*}}, %{{.*}} : tensor<?xi8>, tensor<5x4x7xi8>
  %0 = nnc.matmul %a, %b : tensor<?xi8>, tensor<5x4x7xi8>
  return %0 : tensor<5x7xi8>
}

// -----

// matmul: vector times vector is a scalar
// CHECK-LABEL: func @matmul_dot
func.func @matmul_dot(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<i64> {
  // CHECK: nnc.matmul %{{.*}}, %{{.*}} : tensor<4xi64>, tensor<4xi64>
  %0 = nnc.matmul %a, %b : tensor<4xi64>, tensor<4xi64>
  return %0 : tensor<i64>
}

// -----

// gemm: no C, every attribute at its default
// CHECK-LABEL: func @gemm_plain
func.func @gemm_plain(%a: tensor<?x64xf32>, %b: tensor<64x10xf32>) -> tensor<?x10xf32> {
  // CHECK: nnc.gemm %{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<64x10xf32>
  %0 = nnc.gemm %a, %b : tensor<?x64xf32>, tensor<64x10xf32>
  return %0 : tensor<?x10xf32>
}

// -----

// gemm: all attributes given; a vector C broadcasts over rows
// CHECK-LABEL: func @gemm_all_attrs
func.func @gemm_all_attrs(%a: tensor<64x?xf64>, %b: tensor<10x64xf64>, %c: tensor<10xf64>) -> tensor<?x10xf64> {
  // CHECK: nnc.gemm %{{.*}}, %{{.*}}, %{{.*}} trans_a = true trans_b = true alpha = 2.500000e-01 beta = 5.000000e-01 : tensor<64x?xf64>, tensor<10x64xf64>, tensor<10xf64>
  %0 = nnc.gemm %a, %b, %c trans_a = true trans_b = true alpha = 0.25 beta = 0.5
      : tensor<64x?xf64>, tensor<10x64xf64>, tensor<10xf64>
  return %0 : tensor<?x10xf64>
}

// -----

// gemm: default-valued attributes are elided when printed
// CHECK-LABEL: func @gemm_defaults_elided
func.func @gemm_defaults_elided(%a: tensor<3x4xi64>, %b: tensor<4x5xi64>, %c: tensor<3x1xi64>) -> tensor<3x5xi64> {
  // CHECK: nnc.gemm %{{.*}}, %{{.*}}, %{{.*}} : tensor<3x4xi64>, tensor<4x5xi64>, tensor<3x1xi64>
  %0 = nnc.gemm %a, %b, %c trans_a = false alpha = 1.0 beta = 1.0
      : tensor<3x4xi64>, tensor<4x5xi64>, tensor<3x1xi64>
  return %0 : tensor<3x5xi64>
}

// -----

// gemm: scalar C with dynamic dims
// CHECK-LABEL: func @gemm_scalar_c
func.func @gemm_scalar_c(%a: tensor<?x?xbf16>, %b: tensor<?x?xbf16>, %c: tensor<bf16>) -> tensor<?x?xbf16> {
  // CHECK: nnc.gemm %{{.*}}, %{{.*}}, %{{.*}} beta = 0.000000e+00 : tensor<?x?xbf16>, tensor<?x?xbf16>, tensor<bf16>
  %0 = nnc.gemm %a, %b, %c beta = 0.0 : tensor<?x?xbf16>, tensor<?x?xbf16>, tensor<bf16>
  return %0 : tensor<?x?xbf16>
}

// -----

// conv: 2-D with bias, strides and pads (ResNet stem)
// CHECK-LABEL: func @conv_2d
func.func @conv_2d(%x: tensor<?x3x224x224xf32>, %w: tensor<64x3x7x7xf32>, %b: tensor<64xf32>) -> tensor<?x64x110x110xf32> {
  // CHECK: nnc.conv %{{.*}}, %{{.*}}, %{{.*}} strides = [2, 2] pads = [1, 1, 1, 1] : tensor<?x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>
  %0 = nnc.conv %x, %w, %b strides = [2, 2] pads = [1, 1, 1, 1]
      : tensor<?x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>
  return %0 : tensor<?x64x110x110xf32>
}

// -----

// conv: 1-D without attributes, no bias
// CHECK-LABEL: func @conv_1d_defaults
func.func @conv_1d_defaults(%x: tensor<2x8x10xf16>, %w: tensor<4x8x3xf16>) -> tensor<2x4x8xf16> {
  // CHECK: nnc.conv %{{.*}}, %{{.*}} : tensor<2x8x10xf16>, tensor<4x8x3xf16>
  %0 = nnc.conv %x, %w : tensor<2x8x10xf16>, tensor<4x8x3xf16>
  return %0 : tensor<2x4x8xf16>
}

// -----

// conv: 3-D with dilations, asymmetric pads and groups; a dynamic spatial dim stays dynamic
// CHECK-LABEL: func @conv_3d_grouped
func.func @conv_3d_grouped(%x: tensor<1x6x?x9x10xf64>, %w: tensor<4x3x3x3x3xf64>, %b: tensor<4xf64>) -> tensor<1x4x?x3x9xf64> {
  // CHECK: nnc.conv %{{.*}}, %{{.*}}, %{{.*}} strides = [1, 2, 1] dilations = [2, 2, 1] pads = [0, 1, 0, 0, 0, 1] groups = 2 : tensor<1x6x?x9x10xf64>, tensor<4x3x3x3x3xf64>, tensor<4xf64>
  %0 = nnc.conv %x, %w, %b strides = [1, 2, 1] dilations = [2, 2, 1] pads = [0, 1, 0, 0, 0, 1] groups = 2
      : tensor<1x6x?x9x10xf64>, tensor<4x3x3x3x3xf64>, tensor<4xf64>
  return %0 : tensor<1x4x?x3x9xf64>
}

// -----

// conv: depthwise with dynamic channels and a dynamic kernel
// CHECK-LABEL: func @conv_depthwise_dynamic
func.func @conv_depthwise_dynamic(%x: tensor<?x?x16x16xbf16>, %w: tensor<32x1x3x?xbf16>) -> tensor<?x32x14x?xbf16> {
  // CHECK: nnc.conv %{{.*}}, %{{.*}} groups = 32 : tensor<?x?x16x16xbf16>, tensor<32x1x3x?xbf16>
  %0 = nnc.conv %x, %w groups = 32 : tensor<?x?x16x16xbf16>, tensor<32x1x3x?xbf16>
  return %0 : tensor<?x32x14x?xbf16>
}

// -----

// conv: explicit default attributes are kept as written except groups = 1
// CHECK-LABEL: func @conv_explicit_defaults
func.func @conv_explicit_defaults(%x: tensor<1x2x5x5xf32>, %w: tensor<2x2x5x5xf32>) -> tensor<1x2x1x1xf32> {
  // CHECK: nnc.conv %{{.*}}, %{{.*}} strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] : tensor<1x2x5x5xf32>, tensor<2x2x5x5xf32>
  %0 = nnc.conv %x, %w strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1
      : tensor<1x2x5x5xf32>, tensor<2x2x5x5xf32>
  return %0 : tensor<1x2x1x1xf32>
}

// -----

// conv_weight_grad: the weight gradient of a padded, strided 2-D conv; the
// result is [M, C, KH, KW]
// CHECK-LABEL: func @conv_weight_grad_2d
func.func @conv_weight_grad_2d(%x: tensor<?x3x9x9xf32>, %g: tensor<?x8x5x5xf32>) -> tensor<8x3x3x3xf32> {
  // CHECK: nnc.conv_weight_grad %{{.*}}, %{{.*}} kernel_shape = [3, 3] strides = [2, 2] pads = [1, 1, 1, 1] : tensor<?x3x9x9xf32>, tensor<?x8x5x5xf32>
  %0 = nnc.conv_weight_grad %x, %g kernel_shape = [3, 3] strides = [2, 2] pads = [1, 1, 1, 1]
      : tensor<?x3x9x9xf32>, tensor<?x8x5x5xf32>
  return %0 : tensor<8x3x3x3xf32>
}

// -----

// conv_weight_grad: 1-D with dilation and groups: [M, C / groups, K]
// CHECK-LABEL: func @conv_weight_grad_grouped
func.func @conv_weight_grad_grouped(%x: tensor<2x6x10xf64>, %g: tensor<2x4x6xf64>) -> tensor<4x3x3xf64> {
  // CHECK: nnc.conv_weight_grad %{{.*}}, %{{.*}} kernel_shape = [3] dilations = [2] groups = 2 : tensor<2x6x10xf64>, tensor<2x4x6xf64>
  %0 = nnc.conv_weight_grad %x, %g kernel_shape = [3] dilations = [2] groups = 2
      : tensor<2x6x10xf64>, tensor<2x4x6xf64>
  return %0 : tensor<4x3x3xf64>
}

// -----

// conv_transpose: 2x upsampling with pads and output_padding
// CHECK-LABEL: func @conv_transpose_2d
func.func @conv_transpose_2d(%x: tensor<1x64x?x16xf32>, %w: tensor<64x32x3x3xf32>) -> tensor<1x32x?x32xf32> {
  // CHECK: nnc.conv_transpose %{{.*}}, %{{.*}} strides = [2, 2] pads = [1, 1, 1, 1] output_padding = [1, 1] : tensor<1x64x?x16xf32>, tensor<64x32x3x3xf32>
  %0 = nnc.conv_transpose %x, %w strides = [2, 2] pads = [1, 1, 1, 1] output_padding = [1, 1]
      : tensor<1x64x?x16xf32>, tensor<64x32x3x3xf32>
  return %0 : tensor<1x32x?x32xf32>
}

// -----

// conv_transpose: 1-D defaults with bias
// CHECK-LABEL: func @conv_transpose_1d
func.func @conv_transpose_1d(%x: tensor<?x4x10xf16>, %w: tensor<4x3x5xf16>, %b: tensor<3xf16>) -> tensor<?x3x14xf16> {
  // CHECK: nnc.conv_transpose %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x4x10xf16>, tensor<4x3x5xf16>, tensor<3xf16>
  %0 = nnc.conv_transpose %x, %w, %b : tensor<?x4x10xf16>, tensor<4x3x5xf16>, tensor<3xf16>
  return %0 : tensor<?x3x14xf16>
}

// -----

// conv_transpose: 3-D grouped with dilations; output channels are weight dim 1 times groups
// CHECK-LABEL: func @conv_transpose_3d_grouped
func.func @conv_transpose_3d_grouped(%x: tensor<2x6x3x4x5xf64>, %w: tensor<6x2x2x2x3xf64>, %b: tensor<6xf64>) -> tensor<2x6x6x8x7xf64> {
  // CHECK: nnc.conv_transpose %{{.*}}, %{{.*}}, %{{.*}} strides = [1, 2, 1] dilations = [2, 1, 1] pads = [0, 0, 0, 0, 1, 0] output_padding = [1, 1, 0] groups = 3 : tensor<2x6x3x4x5xf64>, tensor<6x2x2x2x3xf64>, tensor<6xf64>
  %0 = nnc.conv_transpose %x, %w, %b strides = [1, 2, 1] dilations = [2, 1, 1] pads = [0, 0, 0, 0, 1, 0] output_padding = [1, 1, 0] groups = 3
      : tensor<2x6x3x4x5xf64>, tensor<6x2x2x2x3xf64>, tensor<6xf64>
  return %0 : tensor<2x6x6x8x7xf64>
}

// -----

// conv_transpose: a dynamic per-group channel count gives dynamic output channels
// CHECK-LABEL: func @conv_transpose_dynamic_channels
func.func @conv_transpose_dynamic_channels(%x: tensor<1x?x4x4xbf16>, %w: tensor<?x?x2x2xbf16>) -> tensor<1x?x8x8xbf16> {
  // CHECK: nnc.conv_transpose %{{.*}}, %{{.*}} strides = [2, 2] : tensor<1x?x4x4xbf16>, tensor<?x?x2x2xbf16>
  %0 = nnc.conv_transpose %x, %w strides = [2, 2] : tensor<1x?x4x4xbf16>, tensor<?x?x2x2xbf16>
  return %0 : tensor<1x?x8x8xbf16>
}

// -----

// max_pool: 2-D with strides and pads
// CHECK-LABEL: func @max_pool_2d
func.func @max_pool_2d(%x: tensor<?x64x112x112xf32>) -> tensor<?x64x56x56xf32> {
  // CHECK: nnc.max_pool %{{.*}} kernel_shape = [3, 3] strides = [2, 2] pads = [1, 1, 1, 1] : tensor<?x64x112x112xf32>
  %0 = nnc.max_pool %x kernel_shape = [3, 3] strides = [2, 2] pads = [1, 1, 1, 1] : tensor<?x64x112x112xf32>
  return %0 : tensor<?x64x56x56xf32>
}

// -----

// max_pool_grad: the input's type; grad has the pooling's result shape
// CHECK-LABEL: func @max_pool_grad_2d
func.func @max_pool_grad_2d(%x: tensor<?x64x112x112xf32>, %g: tensor<?x64x56x56xf32>) -> tensor<?x64x112x112xf32> {
  // CHECK: nnc.max_pool_grad %{{.*}}, %{{.*}} kernel_shape = [3, 3] strides = [2, 2] pads = [1, 1, 1, 1] : tensor<?x64x112x112xf32>, tensor<?x64x56x56xf32>
  %0 = nnc.max_pool_grad %x, %g kernel_shape = [3, 3] strides = [2, 2] pads = [1, 1, 1, 1] : tensor<?x64x112x112xf32>, tensor<?x64x56x56xf32>
  return %0 : tensor<?x64x112x112xf32>
}

// -----

// max_pool_grad: 1-D, dilation and ceil_mode in bf16
// CHECK-LABEL: func @max_pool_grad_ceil
func.func @max_pool_grad_ceil(%x: tensor<2x3x9xbf16>, %g: tensor<2x3x4xbf16>) -> tensor<2x3x9xbf16> {
  // CHECK: nnc.max_pool_grad %{{.*}}, %{{.*}} kernel_shape = [2] strides = [2] dilations = [2] ceil_mode = true : tensor<2x3x9xbf16>, tensor<2x3x4xbf16>
  %0 = nnc.max_pool_grad %x, %g kernel_shape = [2] strides = [2] dilations = [2] ceil_mode = true : tensor<2x3x9xbf16>, tensor<2x3x4xbf16>
  return %0 : tensor<2x3x9xbf16>
}

// -----

// max_pool: ceil_mode rounds up; a dynamic spatial dim stays dynamic
// CHECK-LABEL: func @max_pool_ceil
func.func @max_pool_ceil(%x: tensor<1x3x?x6xf16>) -> tensor<1x3x?x3xf16> {
  // CHECK: nnc.max_pool %{{.*}} kernel_shape = [2, 2] strides = [2, 2] ceil_mode = true : tensor<1x3x?x6xf16>
  %0 = nnc.max_pool %x kernel_shape = [2, 2] strides = [2, 2] ceil_mode = true : tensor<1x3x?x6xf16>
  return %0 : tensor<1x3x?x3xf16>
}

// -----

// max_pool: ceil_mode adds a partial window at the end: (5 - 2) / 2 rounds up to 2, so 3 windows
// CHECK-LABEL: func @max_pool_ceil_partial
func.func @max_pool_ceil_partial(%x: tensor<1x3x5xf32>) -> tensor<1x3x3xf32> {
  // CHECK: nnc.max_pool %{{.*}} kernel_shape = [2] strides = [2] ceil_mode = true : tensor<1x3x5xf32>
  %0 = nnc.max_pool %x kernel_shape = [2] strides = [2] ceil_mode = true : tensor<1x3x5xf32>
  return %0 : tensor<1x3x3xf32>
}

// -----

// max_pool: ceil_mode drops a last window that would start in the end padding
// CHECK-LABEL: func @max_pool_ceil_drop
func.func @max_pool_ceil_drop(%x: tensor<1x1x4xf32>) -> tensor<1x1x2xf32> {
  // CHECK: nnc.max_pool %{{.*}} kernel_shape = [2] strides = [3] pads = [0, 1] ceil_mode = true : tensor<1x1x4xf32>
  %0 = nnc.max_pool %x kernel_shape = [2] strides = [3] pads = [0, 1] ceil_mode = true : tensor<1x1x4xf32>
  return %0 : tensor<1x1x2xf32>
}

// -----

// max_pool: integer elements, 3-D with dilations
// CHECK-LABEL: func @max_pool_3d_int
func.func @max_pool_3d_int(%x: tensor<2x4x8x8x8xi8>) -> tensor<2x4x4x5x6xi8> {
  // CHECK: nnc.max_pool %{{.*}} kernel_shape = [2, 2, 2] strides = [2, 1, 1] dilations = [1, 3, 2] : tensor<2x4x8x8x8xi8>
  %0 = nnc.max_pool %x kernel_shape = [2, 2, 2] strides = [2, 1, 1] dilations = [1, 3, 2] ceil_mode = false : tensor<2x4x8x8x8xi8>
  return %0 : tensor<2x4x4x5x6xi8>
}

// -----

// avg_pool: count_include_pad with pads
// CHECK-LABEL: func @avg_pool_include_pad
func.func @avg_pool_include_pad(%x: tensor<?x?x7x7xbf16>) -> tensor<?x?x7x7xbf16> {
  // CHECK: nnc.avg_pool %{{.*}} kernel_shape = [3, 3] pads = [1, 1, 1, 1] count_include_pad = true : tensor<?x?x7x7xbf16>
  %0 = nnc.avg_pool %x kernel_shape = [3, 3] pads = [1, 1, 1, 1] count_include_pad = true : tensor<?x?x7x7xbf16>
  return %0 : tensor<?x?x7x7xbf16>
}

// -----

// avg_pool: 1-D with every optional attribute at its default
// CHECK-LABEL: func @avg_pool_1d
func.func @avg_pool_1d(%x: tensor<4x2x10xf64>) -> tensor<4x2x3xf64> {
  // CHECK: nnc.avg_pool %{{.*}} kernel_shape = [4] strides = [3] : tensor<4x2x10xf64>
  %0 = nnc.avg_pool %x kernel_shape = [4] strides = [3] ceil_mode = false count_include_pad = false : tensor<4x2x10xf64>
  return %0 : tensor<4x2x3xf64>
}

// -----

// global_avg_pool: spatial dims become 1, dynamic or not
// CHECK-LABEL: func @global_avg_pool
func.func @global_avg_pool(%x: tensor<?x512x?x7xf32>) -> tensor<?x512x1x1xf32> {
  // CHECK: nnc.global_avg_pool %{{.*}} : tensor<?x512x?x7xf32>
  %0 = nnc.global_avg_pool %x : tensor<?x512x?x7xf32>
  return %0 : tensor<?x512x1x1xf32>
}

// -----

// global_max_pool: 1-D and 3-D spatial
// CHECK-LABEL: func @global_max_pool
func.func @global_max_pool(%x: tensor<2x3x9xf16>, %y: tensor<1x?x4x5x6xf64>) -> (tensor<2x3x1xf16>, tensor<1x?x1x1x1xf64>) {
  // CHECK: nnc.global_max_pool %{{.*}} : tensor<2x3x9xf16>
  // CHECK: nnc.global_max_pool %{{.*}} : tensor<1x?x4x5x6xf64>
  %0 = nnc.global_max_pool %x : tensor<2x3x9xf16>
  %1 = nnc.global_max_pool %y : tensor<1x?x4x5x6xf64>
  return %0, %1 : tensor<2x3x1xf16>, tensor<1x?x1x1x1xf64>
}
