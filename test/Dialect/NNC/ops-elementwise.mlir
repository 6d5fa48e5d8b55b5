// RUN: nnc-opt %s --split-input-file | FileCheck %s
// RUN: nnc-opt %s --split-input-file | nnc-opt --split-input-file | FileCheck %s
// RUN: nnc-opt %s --split-input-file --mlir-print-op-generic | nnc-opt --split-input-file | FileCheck %s

// Round trip of every elementwise op. Each function's declared result types
// must equal the inferred ones, so func.return checks type inference too.

// Float unary ops keep the operand type, dynamic dims included.
// CHECK-LABEL: func @unary_float
func.func @unary_float(%x: tensor<4x?xf32>, %h: tensor<2xbf16>) -> (tensor<4x?xf32>, tensor<2xbf16>) {
  // CHECK: nnc.exp %{{.*}} : tensor<4x?xf32>
  %f0 = nnc.exp %x : tensor<4x?xf32>
  // CHECK: nnc.log %{{.*}} : tensor<4x?xf32>
  %f1 = nnc.log %f0 : tensor<4x?xf32>
  // CHECK: nnc.sqrt %{{.*}} : tensor<4x?xf32>
  %f2 = nnc.sqrt %f1 : tensor<4x?xf32>
  // CHECK: nnc.rsqrt %{{.*}} : tensor<4x?xf32>
  %f3 = nnc.rsqrt %f2 : tensor<4x?xf32>
  // CHECK: nnc.reciprocal %{{.*}} : tensor<4x?xf32>
  %f4 = nnc.reciprocal %f3 : tensor<4x?xf32>
  // CHECK: nnc.sin %{{.*}} : tensor<4x?xf32>
  %f5 = nnc.sin %f4 : tensor<4x?xf32>
  // CHECK: nnc.cos %{{.*}} : tensor<4x?xf32>
  %f6 = nnc.cos %f5 : tensor<4x?xf32>
  // CHECK: nnc.tan %{{.*}} : tensor<4x?xf32>
  %f7 = nnc.tan %f6 : tensor<4x?xf32>
  // CHECK: nnc.asin %{{.*}} : tensor<4x?xf32>
  %f8 = nnc.asin %f7 : tensor<4x?xf32>
  // CHECK: nnc.acos %{{.*}} : tensor<4x?xf32>
  %f9 = nnc.acos %f8 : tensor<4x?xf32>
  // CHECK: nnc.atan %{{.*}} : tensor<4x?xf32>
  %f10 = nnc.atan %f9 : tensor<4x?xf32>
  // CHECK: nnc.sinh %{{.*}} : tensor<4x?xf32>
  %f11 = nnc.sinh %f10 : tensor<4x?xf32>
  // CHECK: nnc.cosh %{{.*}} : tensor<4x?xf32>
  %f12 = nnc.cosh %f11 : tensor<4x?xf32>
  // CHECK: nnc.tanh %{{.*}} : tensor<4x?xf32>
  %f13 = nnc.tanh %f12 : tensor<4x?xf32>
  // CHECK: nnc.asinh %{{.*}} : tensor<4x?xf32>
  %f14 = nnc.asinh %f13 : tensor<4x?xf32>
  // CHECK: nnc.acosh %{{.*}} : tensor<4x?xf32>
  %f15 = nnc.acosh %f14 : tensor<4x?xf32>
  // CHECK: nnc.atanh %{{.*}} : tensor<4x?xf32>
  %f16 = nnc.atanh %f15 : tensor<4x?xf32>
  // CHECK: nnc.erf %{{.*}} : tensor<4x?xf32>
  %f17 = nnc.erf %f16 : tensor<4x?xf32>
  // CHECK: nnc.sigmoid %{{.*}} : tensor<4x?xf32>
  %f18 = nnc.sigmoid %f17 : tensor<4x?xf32>
  // CHECK: nnc.softplus %{{.*}} : tensor<4x?xf32>
  %f19 = nnc.softplus %f18 : tensor<4x?xf32>
  // CHECK: nnc.softsign %{{.*}} : tensor<4x?xf32>
  %f20 = nnc.softsign %f19 : tensor<4x?xf32>
  // CHECK: nnc.silu %{{.*}} : tensor<4x?xf32>
  %f21 = nnc.silu %f20 : tensor<4x?xf32>
  // CHECK: nnc.mish %{{.*}} : tensor<4x?xf32>
  %f22 = nnc.mish %f21 : tensor<4x?xf32>
  // CHECK: nnc.hard_swish %{{.*}} : tensor<4x?xf32>
  %f23 = nnc.hard_swish %f22 : tensor<4x?xf32>
  // CHECK: nnc.floor %{{.*}} : tensor<4x?xf32>
  %f24 = nnc.floor %f23 : tensor<4x?xf32>
  // CHECK: nnc.ceil %{{.*}} : tensor<4x?xf32>
  %f25 = nnc.ceil %f24 : tensor<4x?xf32>
  // CHECK: nnc.round %{{.*}} : tensor<4x?xf32>
  %f26 = nnc.round %f25 : tensor<4x?xf32>
  // CHECK: nnc.sigmoid %{{.*}} : tensor<2xbf16>
  %h0 = nnc.sigmoid %h : tensor<2xbf16>
  return %f26, %h0 : tensor<4x?xf32>, tensor<2xbf16>
}

// -----

// Numeric unary ops accept integers and floats.
// CHECK-LABEL: func @unary_numeric
func.func @unary_numeric(%i: tensor<3xi32>, %f: tensor<f64>) -> (tensor<3xi32>, tensor<f64>) {
  // CHECK: nnc.neg %{{.*}} : tensor<3xi32>
  %n0 = nnc.neg %i : tensor<3xi32>
  // CHECK: nnc.abs %{{.*}} : tensor<3xi32>
  %n1 = nnc.abs %n0 : tensor<3xi32>
  // CHECK: nnc.sign %{{.*}} : tensor<3xi32>
  %n2 = nnc.sign %n1 : tensor<3xi32>
  // CHECK: nnc.relu %{{.*}} : tensor<3xi32>
  %n3 = nnc.relu %n2 : tensor<3xi32>
  // CHECK: nnc.abs %{{.*}} : tensor<f64>
  %a = nnc.abs %f : tensor<f64>
  return %n3, %a : tensor<3xi32>, tensor<f64>
}

// -----

// Parameterized activations print their attributes; defaults are elided.
// CHECK-LABEL: func @param_unary
func.func @param_unary(%x: tensor<8xf16>) -> tensor<8xf16> {
  // CHECK: nnc.leaky_relu %{{.*}} {alpha = 1.000000e-01 : f64} : tensor<8xf16>
  %0 = nnc.leaky_relu %x {alpha = 0.1 : f64} : tensor<8xf16>
  // CHECK: nnc.leaky_relu %{{.*}} : tensor<8xf16>
  %1 = nnc.leaky_relu %0 : tensor<8xf16>
  // CHECK: nnc.elu %{{.*}} {alpha = 5.000000e-01 : f64} : tensor<8xf16>
  %2 = nnc.elu %1 {alpha = 0.5 : f64} : tensor<8xf16>
  // CHECK: nnc.celu %{{.*}} {alpha = 2.000000e+00 : f64} : tensor<8xf16>
  %3 = nnc.celu %2 {alpha = 2.0 : f64} : tensor<8xf16>
  // CHECK: nnc.selu %{{.*}} : tensor<8xf16>
  %4 = nnc.selu %3 : tensor<8xf16>
  // CHECK: nnc.thresholded_relu %{{.*}} {alpha = 2.000000e+00 : f64} : tensor<8xf16>
  %5 = nnc.thresholded_relu %4 {alpha = 2.0 : f64} : tensor<8xf16>
  // CHECK: nnc.hard_sigmoid %{{.*}} {alpha = 1.000000e-01 : f64, beta = 2.000000e-01 : f64} : tensor<8xf16>
  %6 = nnc.hard_sigmoid %5 {alpha = 0.1 : f64, beta = 0.2 : f64} : tensor<8xf16>
  // CHECK: nnc.gelu %{{.*}} : tensor<8xf16>
  %7 = nnc.gelu %6 : tensor<8xf16>
  // CHECK: nnc.gelu %{{.*}} approximation = tanh : tensor<8xf16>
  %8 = nnc.gelu %7 approximation = tanh : tensor<8xf16>
  return %8 : tensor<8xf16>
}

// -----

// Clip with both, one or no bounds, on floats and integers.
// CHECK-LABEL: func @clip
func.func @clip(%x: tensor<2x2xf32>, %i: tensor<5xi64>) -> (tensor<2x2xf32>, tensor<5xi64>) {
  // CHECK: nnc.clip %{{.*}} {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x2xf32>
  %0 = nnc.clip %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<2x2xf32>
  // CHECK: nnc.clip %{{.*}} {min = -1.000000e+00 : f64} : tensor<2x2xf32>
  %1 = nnc.clip %0 {min = -1.0 : f64} : tensor<2x2xf32>
  // CHECK: nnc.clip %{{.*}} {max = 3.000000e+00 : f64} : tensor<5xi64>
  %2 = nnc.clip %i {max = 3.0 : f64} : tensor<5xi64>
  return %1, %2 : tensor<2x2xf32>, tensor<5xi64>
}

// -----

// NaN and infinity tests produce i1 tensors of the input's shape.
// CHECK-LABEL: func @nan_inf
func.func @nan_inf(%x: tensor<?x3xf32>) -> (tensor<?x3xi1>, tensor<?x3xi1>, tensor<?x3xi1>) {
  // CHECK: nnc.is_nan %{{.*}} : tensor<?x3xf32>
  %0 = nnc.is_nan %x : tensor<?x3xf32>
  // CHECK: nnc.is_inf %{{.*}} : tensor<?x3xf32>
  %1 = nnc.is_inf %x : tensor<?x3xf32>
  // CHECK: nnc.is_inf %{{.*}} {detect_negative = false} : tensor<?x3xf32>
  %2 = nnc.is_inf %x {detect_negative = false} : tensor<?x3xf32>
  // CHECK: nnc.not %{{.*}} : tensor<?x3xi1>
  %3 = nnc.not %2 : tensor<?x3xi1>
  return %0, %1, %3 : tensor<?x3xi1>, tensor<?x3xi1>, tensor<?x3xi1>
}

// -----

// Binary ops broadcast as numpy does: 8x1x6x1 with 7x1x5 gives 8x7x6x5.
// CHECK-LABEL: func @binary_broadcast
func.func @binary_broadcast(%a: tensor<8x1x6x1xf32>, %b: tensor<7x1x5xf32>) -> tensor<8x7x6x5xf32> {
  // CHECK: nnc.add %{{.*}}, %{{.*}} : tensor<8x1x6x1xf32>, tensor<7x1x5xf32>
  %b0 = nnc.add %a, %b : tensor<8x1x6x1xf32>, tensor<7x1x5xf32>
  // CHECK: nnc.sub %{{.*}}, %{{.*}} : tensor<8x7x6x5xf32>, tensor<7x1x5xf32>
  %b1 = nnc.sub %b0, %b : tensor<8x7x6x5xf32>, tensor<7x1x5xf32>
  // CHECK: nnc.mul %{{.*}}, %{{.*}} : tensor<8x7x6x5xf32>, tensor<7x1x5xf32>
  %b2 = nnc.mul %b1, %b : tensor<8x7x6x5xf32>, tensor<7x1x5xf32>
  // CHECK: nnc.div %{{.*}}, %{{.*}} : tensor<8x7x6x5xf32>, tensor<7x1x5xf32>
  %b3 = nnc.div %b2, %b : tensor<8x7x6x5xf32>, tensor<7x1x5xf32>
  // CHECK: nnc.max %{{.*}}, %{{.*}} : tensor<8x7x6x5xf32>, tensor<7x1x5xf32>
  %b4 = nnc.max %b3, %b : tensor<8x7x6x5xf32>, tensor<7x1x5xf32>
  // CHECK: nnc.min %{{.*}}, %{{.*}} : tensor<8x7x6x5xf32>, tensor<7x1x5xf32>
  %b5 = nnc.min %b4, %b : tensor<8x7x6x5xf32>, tensor<7x1x5xf32>
  return %b5 : tensor<8x7x6x5xf32>
}

// -----

// A dynamic dim against a static N != 1 gives N; against 1 it stays dynamic.
// CHECK-LABEL: func @binary_dynamic
func.func @binary_dynamic(%a: tensor<?x4xf32>, %b: tensor<3x1xf32>, %c: tensor<?x1xf32>) -> (tensor<3x4xf32>, tensor<?x4xf32>) {
  // CHECK: nnc.add %{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<3x1xf32>
  %0 = nnc.add %a, %b : tensor<?x4xf32>, tensor<3x1xf32>
  // CHECK: nnc.mul %{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<?x1xf32>
  %1 = nnc.mul %a, %c : tensor<?x4xf32>, tensor<?x1xf32>
  return %0, %1 : tensor<3x4xf32>, tensor<?x4xf32>
}

// -----

// pow, prelu, rem, and logical ops on booleans and integers.
// CHECK-LABEL: func @binary_misc
func.func @binary_misc(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %i: tensor<4xi32>, %j: tensor<4xi32>, %p: tensor<4xi1>, %q: tensor<1xi1>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi32>, tensor<2x3xf32>, tensor<4xi1>, tensor<4xi32>) {
  // CHECK: nnc.pow %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3xf32>
  %0 = nnc.pow %x, %s : tensor<2x3xf32>, tensor<3xf32>
  // CHECK: nnc.prelu %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3xf32>
  %1 = nnc.prelu %x, %s : tensor<2x3xf32>, tensor<3xf32>
  // CHECK: nnc.rem %{{.*}}, %{{.*}} : tensor<4xi32>, tensor<4xi32>
  %2 = nnc.rem %i, %j : tensor<4xi32>, tensor<4xi32>
  // CHECK: nnc.rem %{{.*}}, %{{.*}} {fmod = true} : tensor<2x3xf32>, tensor<3xf32>
  %3 = nnc.rem %x, %s {fmod = true} : tensor<2x3xf32>, tensor<3xf32>
  // CHECK: nnc.and %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<1xi1>
  %4 = nnc.and %p, %q : tensor<4xi1>, tensor<1xi1>
  // CHECK: nnc.or %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xi1>
  %5 = nnc.or %4, %p : tensor<4xi1>, tensor<4xi1>
  // CHECK: nnc.xor %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xi1>
  %6 = nnc.xor %5, %p : tensor<4xi1>, tensor<4xi1>
  // CHECK: nnc.and %{{.*}}, %{{.*}} : tensor<4xi32>, tensor<4xi32>
  %7 = nnc.and %i, %j : tensor<4xi32>, tensor<4xi32>
  return %0, %1, %2, %3, %6, %7 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi32>, tensor<2x3xf32>, tensor<4xi1>, tensor<4xi32>
}

// -----

// Every comparison predicate; the result is i1 with the broadcast shape.
// CHECK-LABEL: func @cmp
func.func @cmp(%x: tensor<4x8xf32>, %y: tensor<8xf32>, %i: tensor<?xi64>) -> (tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<?xi1>) {
  // CHECK: nnc.cmp eq, %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32>
  %0 = nnc.cmp eq, %x, %y : tensor<4x8xf32>, tensor<8xf32>
  // CHECK: nnc.cmp ne,
  %1 = nnc.cmp ne, %x, %y : tensor<4x8xf32>, tensor<8xf32>
  // CHECK: nnc.cmp lt,
  %2 = nnc.cmp lt, %x, %y : tensor<4x8xf32>, tensor<8xf32>
  // CHECK: nnc.cmp le,
  %3 = nnc.cmp le, %x, %y : tensor<4x8xf32>, tensor<8xf32>
  // CHECK: nnc.cmp gt,
  %4 = nnc.cmp gt, %x, %y : tensor<4x8xf32>, tensor<8xf32>
  // CHECK: nnc.cmp ge, %{{.*}}, %{{.*}} : tensor<?xi64>, tensor<?xi64>
  %5 = nnc.cmp ge, %i, %i : tensor<?xi64>, tensor<?xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<?xi1>
}

// -----

// where broadcasts condition, true and false values together.
// CHECK-LABEL: func @where
func.func @where(%c: tensor<4x1xi1>, %x: tensor<4x8xf32>, %y: tensor<f32>) -> tensor<4x8xf32> {
  // CHECK: nnc.where %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x1xi1>, tensor<4x8xf32>, tensor<f32>
  %0 = nnc.where %c, %x, %y : tensor<4x1xi1>, tensor<4x8xf32>, tensor<f32>
  return %0 : tensor<4x8xf32>
}

// -----

// Casts between every element type keep the shape.
// CHECK-LABEL: func @cast
func.func @cast(%x: tensor<2x?xf32>) -> tensor<2x?xi1> {
  // CHECK: nnc.cast %{{.*}} : tensor<2x?xf32> to tensor<2x?xf16>
  %0 = nnc.cast %x : tensor<2x?xf32> to tensor<2x?xf16>
  // CHECK: nnc.cast %{{.*}} : tensor<2x?xf16> to tensor<2x?xbf16>
  %1 = nnc.cast %0 : tensor<2x?xf16> to tensor<2x?xbf16>
  // CHECK: nnc.cast %{{.*}} : tensor<2x?xbf16> to tensor<2x?xf64>
  %2 = nnc.cast %1 : tensor<2x?xbf16> to tensor<2x?xf64>
  // CHECK: nnc.cast %{{.*}} : tensor<2x?xf64> to tensor<2x?xi64>
  %3 = nnc.cast %2 : tensor<2x?xf64> to tensor<2x?xi64>
  // CHECK: nnc.cast %{{.*}} : tensor<2x?xi64> to tensor<2x?xi32>
  %4 = nnc.cast %3 : tensor<2x?xi64> to tensor<2x?xi32>
  // CHECK: nnc.cast %{{.*}} : tensor<2x?xi32> to tensor<2x?xi8>
  %5 = nnc.cast %4 : tensor<2x?xi32> to tensor<2x?xi8>
  // CHECK: nnc.cast %{{.*}} : tensor<2x?xi8> to tensor<2x?xi1>
  %6 = nnc.cast %5 : tensor<2x?xi8> to tensor<2x?xi1>
  return %6 : tensor<2x?xi1>
}

// -----

// Constants of several element types, splat and not.
// CHECK-LABEL: func @constant
func.func @constant() -> (tensor<2xf32>, tensor<3xi64>, tensor<2x2xi1>, tensor<bf16>) {
  // CHECK: nnc.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = nnc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: nnc.constant dense<[1, -2, 3]> : tensor<3xi64>
  %1 = nnc.constant dense<[1, -2, 3]> : tensor<3xi64>
  // CHECK: nnc.constant dense<true> : tensor<2x2xi1>
  %2 = nnc.constant dense<true> : tensor<2x2xi1>
  // CHECK: nnc.constant dense<5.000000e-01> : tensor<bf16>
  %3 = nnc.constant dense<0.5> : tensor<bf16>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<3xi64>, tensor<2x2xi1>, tensor<bf16>
}

// -----

// Parameters and buffers are function arguments marked with nnc.param.
// CHECK-LABEL: func @params
// CHECK-SAME: {nnc.param = #nnc.param<trainable>}
// CHECK-SAME: {nnc.param = #nnc.param<frozen>}
// CHECK-SAME: {nnc.param = #nnc.param<buffer>}
func.func @params(%x: tensor<4x8xf32>,
                  %w: tensor<8xf32> {nnc.param = #nnc.param<trainable>},
                  %e: tensor<8xf32> {nnc.param = #nnc.param<frozen>},
                  %r: tensor<8xf32> {nnc.param = #nnc.param<buffer>}) -> tensor<4x8xf32> {
  %0 = nnc.mul %x, %w : tensor<4x8xf32>, tensor<8xf32>
  %1 = nnc.add %0, %e : tensor<4x8xf32>, tensor<8xf32>
  %2 = nnc.sub %1, %r : tensor<4x8xf32>, tensor<8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// A declaration may mark parameters too.
// CHECK-LABEL: func private @external
// CHECK-SAME: {nnc.param = #nnc.param<trainable>}
func.func private @external(tensor<8xf32> {nnc.param = #nnc.param<trainable>})
