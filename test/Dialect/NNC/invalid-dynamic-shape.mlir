// RUN: nnc-opt %s --split-input-file --verify-diagnostics

// shape_of: the range must lie in the input's dimensions
func.func @shape_of_range(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{dimensions [1, 3) are not a range of the input's 2}}
  %0 = nnc.shape_of %x start = 1 end = 3 : tensor<?x4xf32>
  return
}

// -----

// dynamic_reshape: one shape entry per result dimension
func.func @reshape_entries(%x: tensor<?x4xf32>, %s: tensor<3xi64>) {
  // expected-error @+1 {{shape has 3 entries, expected 2}}
  %0 = nnc.dynamic_reshape %x, %s : (tensor<?x4xf32>, tensor<3xi64>) -> tensor<?x?xf32>
  return
}

// -----

// dynamic_reshape: the shape operand needs a static length
func.func @reshape_dynamic_length(%x: tensor<?x4xf32>, %s: tensor<?xi64>) {
  // expected-error @+1 {{shape must have a static length, got 'tensor<?xi64>'}}
  %0 = nnc.dynamic_reshape %x, %s : (tensor<?x4xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  return
}

// -----

// dynamic_reshape: the element type is kept
func.func @reshape_element_type(%x: tensor<?x4xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{result element type 'f16' differs from input element type 'f32'}}
  %0 = nnc.dynamic_reshape %x, %s : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x?xf16>
  return
}

// -----

// dynamic_reshape: a known entry contradicts the result type
func.func @reshape_contradiction(%x: tensor<?x4xf32>) {
  %s = nnc.constant dense<[-1, 2]> : tensor<2xi64>
  // expected-error @+1 {{shape operands give the result shape ?x2, which contradicts the result type 'tensor<?x3xf32>'}}
  %0 = nnc.dynamic_reshape %x, %s : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x3xf32>
  return
}

// -----

// dynamic_expand: the result has the broadcast rank
func.func @expand_rank(%x: tensor<1x4xf32>, %s: tensor<3xi64>) {
  // expected-error @+1 {{result rank 2 differs from the broadcast rank 3}}
  %0 = nnc.dynamic_expand %x, %s : (tensor<1x4xf32>, tensor<3xi64>) -> tensor<?x4xf32>
  return
}

// -----

// dynamic_expand: known entries that do not broadcast
func.func @expand_no_broadcast(%x: tensor<3x4xf32>) {
  %s = nnc.constant dense<[2, 4]> : tensor<2xi64>
  // expected-error @+1 {{cannot broadcast input of shape 3x4 to shape 2x4}}
  %0 = nnc.dynamic_expand %x, %s : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  return
}

// -----

// dynamic_slice: one entry per sliced axis in every bound
func.func @slice_lengths(%x: tensor<8x8xf32>, %a: tensor<2xi64>, %b: tensor<1xi64>) {
  // expected-error @+1 {{ends has 1 entries, expected 2}}
  %0 = nnc.dynamic_slice %x[%a, %b, %a, %a] : (tensor<8x8xf32>, tensor<2xi64>, tensor<1xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

// dynamic_slice: a known axis out of range
func.func @slice_axis(%x: tensor<8x8xf32>, %s: tensor<1xi64>) {
  %axes = nnc.constant dense<[2]> : tensor<1xi64>
  %steps = nnc.constant dense<[1]> : tensor<1xi64>
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = nnc.dynamic_slice %x[%s, %s, %axes, %steps] : (tensor<8x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?xf32>
  return
}

// -----

// dynamic_slice: a known zero step
func.func @slice_zero_step(%x: tensor<8x8xf32>, %s: tensor<1xi64>) {
  %axes = nnc.constant dense<[0]> : tensor<1xi64>
  %steps = nnc.constant dense<[0]> : tensor<1xi64>
  // expected-error @+1 {{steps contain a 0 step}}
  %0 = nnc.dynamic_slice %x[%s, %s, %axes, %steps] : (tensor<8x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?xf32>
  return
}

// -----

// dynamic_tile: one repeat per dimension
func.func @tile_repeats(%x: tensor<2x3xf32>, %r: tensor<3xi64>) {
  // expected-error @+1 {{repeats has 3 entries, expected 2}}
  %0 = nnc.dynamic_tile %x, %r : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<?x?xf32>
  return
}

// -----

// dynamic_tile: a known negative repeat
func.func @tile_negative(%x: tensor<2x3xf32>) {
  %r = nnc.constant dense<[1, -2]> : tensor<2xi64>
  // expected-error @+1 {{repeats contain the negative entry -2}}
  %0 = nnc.dynamic_tile %x, %r : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

// dynamic_range: rank-0 operands of the result's element type
func.func @range_operands(%s: tensor<i64>, %l: tensor<1xi64>) {
  // expected-error @+1 {{start, limit and delta must be rank-0 tensors of 'i64', got 'tensor<1xi64>'}}
  %0 = nnc.dynamic_range %s, %l, %s : (tensor<i64>, tensor<1xi64>, tensor<i64>) -> tensor<?xi64>
  return
}

// -----

// nnc.shape_input: a static integer tensor
func.func @shape_input_float(%x: tensor<2xf32> {nnc.shape_input}) {
  // expected-error @-1 {{'nnc.shape_input' on argument 0 needs a static integer tensor of at most 1024 elements, got 'tensor<2xf32>'}}
  return
}

// -----

// nnc.dim_names: one name per dimension
func.func @dim_names_rank(%x: tensor<?x4xf32> {nnc.dim_names = ["batch"]}) {
  // expected-error @-1 {{'nnc.dim_names' on argument 0 has 1 names but the argument has rank 2}}
  return
}

// -----

// dynamic_attrs: op_name must name an nnc op with a static form
func.func @dynamic_attrs_unknown_op(%x: tensor<4xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{'nnc.frobnicate' is not an nnc op with a static form}}
  %0 = nnc.dynamic_attrs "nnc.frobnicate"(%x) [%k] names ["k"] kinds ["i64"] static {} : (tensor<4xf32>), (tensor<1xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @dynamic_attrs_resolvable(%x: tensor<4xf32>, %s: tensor<1xi64>) {
  // expected-error @+1 {{'nnc.dynamic_reshape' is not an nnc op with a static form}}
  %0 = nnc.dynamic_attrs "nnc.dynamic_reshape"(%x) [%s] names ["shape"] kinds ["i64s"] static {} : (tensor<4xf32>), (tensor<1xi64>) -> tensor<4xf32>
  return
}

// -----

// dynamic_attrs: every attribute is one the op has, given once
func.func @dynamic_attrs_no_such_attr(%x: tensor<4x4xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{'nnc.trilu' has no attribute 'diagonal'}}
  %0 = nnc.dynamic_attrs "nnc.trilu"(%x) [%k] names ["diagonal"] kinds ["i64"] static {} : (tensor<4x4xf32>), (tensor<1xi64>) -> tensor<4x4xf32>
  return
}

// -----

func.func @dynamic_attrs_twice(%x: tensor<4x4xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{attribute 'k' is given twice}}
  %0 = nnc.dynamic_attrs "nnc.trilu"(%x) [%k] names ["k"] kinds ["i64"] static {k = 1 : i64} : (tensor<4x4xf32>), (tensor<1xi64>) -> tensor<4x4xf32>
  return
}

// -----

// dynamic_attrs: one name and one kind per value
func.func @dynamic_attrs_counts(%x: tensor<4x4xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{has 1 values but 2 names and 1 kinds}}
  %0 = nnc.dynamic_attrs "nnc.trilu"(%x) [%k] names ["k", "upper"] kinds ["i64"] static {} : (tensor<4x4xf32>), (tensor<1xi64>) -> tensor<4x4xf32>
  return
}

// -----

func.func @dynamic_attrs_kind(%x: tensor<4x4xf32>, %k: tensor<1xi64>) {
  // expected-error @+1 {{kind 'f64' of attribute 'k' is not i64 or i64s}}
  %0 = nnc.dynamic_attrs "nnc.trilu"(%x) [%k] names ["k"] kinds ["f64"] static {} : (tensor<4x4xf32>), (tensor<1xi64>) -> tensor<4x4xf32>
  return
}

// -----

// dynamic_attrs: an i64 attribute comes from one entry
func.func @dynamic_attrs_i64_length(%x: tensor<4x4xf32>, %k: tensor<2xi64>) {
  // expected-error @+1 {{k has 2 entries, expected 1}}
  %0 = nnc.dynamic_attrs "nnc.trilu"(%x) [%k] names ["k"] kinds ["i64"] static {} : (tensor<4x4xf32>), (tensor<2xi64>) -> tensor<4x4xf32>
  return
}
