// RUN: nnc-opt %s --split-input-file --verify-diagnostics

// reduce: an unranked input is rejected by the parser
func.func @reduce_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.reduce sum %x : tensor<*xf32>
  return
}

// -----

// reduce: an axis out of range
func.func @reduce_axis_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{reduction axis 2 is out of range for rank 2}}
  %0 = nnc.reduce sum %x axes = [2] : tensor<2x3xf32>
  return
}

// -----

// reduce: a negative axis out of range
func.func @reduce_negative_axis_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{reduction axis -3 is out of range for rank 2}}
  %0 = nnc.reduce max %x axes = [-3] : tensor<2x3xf32>
  return
}

// -----

// reduce: an axis repeated after normalization
func.func @reduce_duplicate_axes(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{reduction axis -1 is repeated}}
  %0 = nnc.reduce sum %x axes = [1, -1] : tensor<2x3xf32>
  return
}

// -----

// reduce: axes on a scalar are out of range
func.func @reduce_scalar_axis(%x: tensor<f32>) {
  // expected-error @+1 {{reduction axis 0 is out of range for rank 0}}
  %0 = nnc.reduce sum %x axes = [0] : tensor<f32>
  return
}

// -----

// reduce: l2 needs floats
func.func @reduce_l2_int(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{reduction kind 'l2' requires a floating-point element type, got 'i32'}}
  %0 = nnc.reduce l2 %x axes = [1] : tensor<2x3xi32>
  return
}

// -----

// reduce: log_sum needs floats
func.func @reduce_log_sum_int(%x: tensor<2x3xi64>) {
  // expected-error @+1 {{reduction kind 'log_sum' requires a floating-point element type, got 'i64'}}
  %0 = nnc.reduce log_sum %x : tensor<2x3xi64>
  return
}

// -----

// reduce: log_sum_exp needs floats
func.func @reduce_log_sum_exp_int(%x: tensor<2x3xi8>) {
  // expected-error @+1 {{reduction kind 'log_sum_exp' requires a floating-point element type, got 'i8'}}
  %0 = nnc.reduce log_sum_exp %x : tensor<2x3xi8>
  return
}

// -----

// reduce: an unknown kind keyword
func.func @reduce_bad_kind(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, mean, max, min, prod, l1, l2, log_sum, log_sum_exp, sum_square]}}
  %0 = nnc.reduce avg %x : tensor<2x3xf32>
  return
}

// -----

// reduce: booleans are not reduced
func.func @reduce_bool(%x: tensor<2x3xi1>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of numeric values}}
  %0 = "nnc.reduce"(%x) <{kind = 0 : i32}> : (tensor<2x3xi1>) -> tensor<1x1xi1>
  return
}

// -----

// reduce: a spelled-out result must equal the inferred one
func.func @reduce_wrong_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "nnc.reduce"(%x) <{kind = 0 : i32, axes = array<i64: 1>}> : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// arg_reduce: an unranked input is rejected by the parser
func.func @arg_reduce_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.arg_reduce argmax %x : tensor<*xf32>
  return
}

// -----

// arg_reduce: axis out of range
func.func @arg_reduce_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis -3 is out of range for rank 2}}
  %0 = nnc.arg_reduce argmax %x axis = -3 : tensor<2x3xf32>
  return
}

// -----

// arg_reduce: a scalar has no axis to reduce
func.func @arg_reduce_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{axis 0 is out of range for rank 0}}
  %0 = nnc.arg_reduce argmin %x : tensor<f32>
  return
}

// -----

// arg_reduce: the result must be i64
func.func @arg_reduce_i32_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 64-bit signless integer values}}
  %0 = "nnc.arg_reduce"(%x) <{kind = 0 : i32}> : (tensor<2x3xf32>) -> tensor<1x3xi32>
  return
}

// -----

// cumsum: axis out of range
func.func @cumsum_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'nnc.cumsum' op axis 2 is out of range for rank 2}}
  %0 = nnc.cumsum %x axis = 2 : tensor<2x3xf32>
  return
}

// -----

// cumsum: a scalar has no axis
func.func @cumsum_scalar(%x: tensor<i32>) {
  // expected-error @+1 {{'nnc.cumsum' op axis 0 is out of range for rank 0}}
  %0 = nnc.cumsum %x axis = 0 : tensor<i32>
  return
}

// -----

// cumsum: the result type must equal the input type
func.func @cumsum_result_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "nnc.cumsum"(%x) <{axis = 0 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf16>
  return
}

// -----

// cumsum: an unranked input is rejected
func.func @cumsum_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of numeric values}}
  %0 = "nnc.cumsum"(%x) <{axis = 0 : i64}> : (tensor<*xf32>) -> tensor<*xf32>
  return
}
