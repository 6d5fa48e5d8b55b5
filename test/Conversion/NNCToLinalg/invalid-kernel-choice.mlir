// RUN: nnc-opt %s --split-input-file --nnc-convert-to-linalg --verify-diagnostics

func.func @unknown(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x2x2xf32> {
  // expected-error @+1 {{'nnc.conv' op cannot be lowered to linalg: its kernel choice nnc.impl must be one of "library", "library_winograd", "per_image", "gemm", "loops"}}
  %0 = nnc.conv %x, %w {nnc.impl = "winograd"} : tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// -----

func.func @winograd_strided(%x: tensor<1x2x5x5xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x2x2xf32> {
  // expected-error @+1 {{its kernel choice nnc.impl = "library_winograd" does not apply: Winograd's algorithm takes 2-D 3x3 convolutions with strides and dilations 1, one group and f32 operands}}
  %0 = nnc.conv %x, %w strides = [2, 2] {nnc.impl = "library_winograd"} : tensor<1x2x5x5xf32>, tensor<2x2x3x3xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// -----

func.func @winograd_5x5(%x: tensor<1x2x6x6xf32>, %w: tensor<2x2x5x5xf32>) -> tensor<1x2x2x2xf32> {
  // expected-error @+1 {{its kernel choice nnc.impl = "library_winograd" does not apply: Winograd's algorithm takes 2-D 3x3}}
  %0 = nnc.conv %x, %w {nnc.impl = "library_winograd"} : tensor<1x2x6x6xf32>, tensor<2x2x5x5xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// -----

func.func @winograd_bf16(%x: tensor<1x2x4x4xbf16>, %w: tensor<2x2x3x3xbf16>) -> tensor<1x2x2x2xbf16> {
  // expected-error @+1 {{its kernel choice nnc.impl = "library_winograd" does not apply: Winograd's algorithm takes 2-D 3x3 convolutions with strides and dilations 1, one group and f32 operands}}
  %0 = nnc.conv %x, %w {nnc.impl = "library_winograd"} : tensor<1x2x4x4xbf16>, tensor<2x2x3x3xbf16>
  return %0 : tensor<1x2x2x2xbf16>
}

// -----

func.func @library_f64(%x: tensor<1x2x4x4xf64>, %w: tensor<2x2x3x3xf64>) -> tensor<1x2x2x2xf64> {
  // expected-error @+1 {{'nnc.conv' op cannot be lowered to linalg: its kernel choice nnc.impl = "library" does not apply: its element type is not f32, bf16 or f16}}
  %0 = nnc.conv %x, %w {nnc.impl = "library"} : tensor<1x2x4x4xf64>, tensor<2x2x3x3xf64>
  return %0 : tensor<1x2x2x2xf64>
}

// -----

func.func @library_dynamic(%x: tensor<?x2x4x4xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<?x2x2x2xf32> {
  // expected-error @+1 {{its kernel choice nnc.impl = "library" does not apply: its shapes are not static}}
  %0 = nnc.conv %x, %w {nnc.impl = "library"} : tensor<?x2x4x4xf32>, tensor<2x2x3x3xf32>
  return %0 : tensor<?x2x2x2xf32>
}

// -----

func.func @per_image_groups(%x: tensor<2x4x4x4xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<2x4x2x2xf32> {
  // expected-error @+1 {{its kernel choice nnc.impl = "per_image" does not apply: it needs a static 2-D f32 or f64 convolution without groups}}
  %0 = nnc.conv %x, %w groups = 2 {nnc.impl = "per_image"} : tensor<2x4x4x4xf32>, tensor<4x2x3x3xf32>
  return %0 : tensor<2x4x2x2xf32>
}

// -----

func.func @gemm_1d(%x: tensor<2x4x8xf32>, %w: tensor<4x4x3xf32>) -> tensor<2x4x6xf32> {
  // expected-error @+1 {{its kernel choice nnc.impl = "gemm" does not apply: it needs a static 2-D f32 or f64 convolution without groups}}
  %0 = nnc.conv %x, %w {nnc.impl = "gemm"} : tensor<2x4x8xf32>, tensor<4x4x3xf32>
  return %0 : tensor<2x4x6xf32>
}

// -----

func.func @transpose_output_padding(%x: tensor<1x1x3xf32>, %w: tensor<1x1x3xf32>) -> tensor<1x1x13xf32> {
  // expected-error @+1 {{its kernel choice nnc.impl = "library" does not apply: its output_padding exceeds its end pad by a stride or more}}
  %0 = nnc.conv_transpose %x, %w strides = [2] dilations = [3] output_padding = [2] {nnc.impl = "library"} : tensor<1x1x3xf32>, tensor<1x1x3xf32>
  return %0 : tensor<1x1x13xf32>
}

// -----

func.func @not_a_string(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x2x2xf32> {
  // expected-error @+1 {{'nnc.impl' has an invalid value 1 : i64}}
  %0 = nnc.conv %x, %w {nnc.impl = 1} : tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// -----

// Matrix products choose a library or loops.
func.func @matmul_unknown(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'nnc.matmul' op cannot be lowered to linalg: its kernel choice nnc.impl must be one of "blas", "dnnl", "loops"}}
  %0 = nnc.matmul %a, %b {nnc.impl = "library"} : tensor<4x8xf32>, tensor<8x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @matmul_dnnl_f64(%a: tensor<4x8xf64>, %b: tensor<8x3xf64>) -> tensor<4x3xf64> {
  // expected-error @+1 {{'nnc.matmul' op cannot be lowered to linalg: its kernel choice nnc.impl = "dnnl" does not apply: oneDNN's GEMM takes f32 products here, not f64}}
  %0 = nnc.matmul %a, %b {nnc.impl = "dnnl"} : tensor<4x8xf64>, tensor<8x3xf64>
  return %0 : tensor<4x3xf64>
}

// -----

func.func @gemm_blas_dynamic(%a: tensor<?x8xf32>, %b: tensor<3x8xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'nnc.gemm' op cannot be lowered to linalg: its kernel choice nnc.impl = "blas" does not apply: its shapes are not static}}
  %0 = nnc.gemm %a, %b trans_b = true {nnc.impl = "blas"} : tensor<?x8xf32>, tensor<3x8xf32>
  return %0 : tensor<?x3xf32>
}

// -----

func.func @matmul_blas_bf16(%a: tensor<4x8xbf16>, %b: tensor<8x3xbf16>) -> tensor<4x3xbf16> {
  // expected-error @+1 {{its kernel choice nnc.impl = "blas" does not apply: BLAS takes f32 and f64 products, not bf16}}
  %0 = nnc.matmul %a, %b {nnc.impl = "blas"} : tensor<4x8xbf16>, tensor<8x3xbf16>
  return %0 : tensor<4x3xbf16>
}

// -----

// The ops lowered to generated loops only take loop schedules.
func.func @softmax_unknown(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'nnc.softmax' op cannot be lowered to linalg: its kernel choice nnc.impl = "loops_fast" is not one of "loops", "loops_serial", "loops_outer", "loops_wide", each optionally followed by ".t<threads>" (2 to 1024, not after "loops_serial") and then ".v<lanes>" (a power of two up to 64)}}
  %0 = nnc.softmax %x {axis = 1 : i64, nnc.impl = "loops_fast"} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// One thread is loops_serial's; threads and lanes in their order.
func.func @softmax_serial_threads(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{its kernel choice nnc.impl = "loops_serial.t2" is not one of}}
  %0 = nnc.softmax %x {axis = 1 : i64, nnc.impl = "loops_serial.t2"} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @softmax_width(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{its kernel choice nnc.impl = "loops.v12" is not one of}}
  %0 = nnc.softmax %x {axis = 1 : i64, nnc.impl = "loops.v12"} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @reduce_order(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{its kernel choice nnc.impl = "loops.v8.t2" is not one of}}
  %0 = nnc.reduce sum %x axes = [1] {nnc.impl = "loops.v8.t2"} : tensor<4x8xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// Elementwise ops fuse into their neighbours' loops: no choice of their own.
func.func @relu_choice(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'nnc.relu' op cannot be lowered to linalg: it has no kernel choices, but nnc.impl = "loops_serial"}}
  %0 = nnc.relu %x {nnc.impl = "loops_serial"} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
