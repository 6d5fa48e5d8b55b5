// RUN: nnc-opt %s --split-input-file --verify-diagnostics

// Binary operands must share an element type.
func.func @binary_element_types(%x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{expects operands of one element type, got 'f32' and 'f16'}}
  %0 = nnc.add %x, %y : tensor<4xf32>, tensor<4xf16>
  return
}

// -----

// Static dims that are neither equal nor 1 do not broadcast.
func.func @binary_no_broadcast(%x: tensor<2x3xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{operand shapes 2x3 and 4 do not broadcast}}
  %0 = nnc.mul %x, %y : tensor<2x3xf32>, tensor<4xf32>
  return
}

// -----

// A declared result type must equal the inferred broadcast type.
func.func @binary_wrong_result(%x: tensor<2x3xf32>, %y: tensor<3xf32>) {
  // expected-error @+2 {{'nnc.sub' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x3xf32>'}}
  // expected-error @+1 {{'nnc.sub' op failed to infer returned types}}
  %0 = "nnc.sub"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return
}

// -----

// Float-only ops reject integer tensors.
func.func @float_only(%x: tensor<4xi32>) {
  // expected-error @+1 {{'nnc.exp' op operand #0 must be ranked tensor of floating-point values}}
  %0 = "nnc.exp"(%x) : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

// Unary ops keep the operand type.
func.func @unary_result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'nnc.tanh' op requires the same type for all operands and results}}
  %0 = "nnc.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

// Logical ops take booleans or integers, not floats.
func.func @logical_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{'nnc.and' op operand #0 must be ranked tensor of}}
  %0 = "nnc.and"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// celu divides by alpha.
func.func @celu_zero_alpha(%x: tensor<4xf32>) {
  // expected-error @+1 {{'nnc.celu' op alpha must be non-zero}}
  %0 = nnc.celu %x {alpha = 0.0 : f64} : tensor<4xf32>
  return
}

// -----

// clip bounds must be ordered.
func.func @clip_unordered(%x: tensor<4xf32>) {
  // expected-error @+1 {{'nnc.clip' op min 2.000000e+00 is greater than max 1.000000e+00}}
  %0 = nnc.clip %x {min = 2.0 : f64, max = 1.0 : f64} : tensor<4xf32>
  return
}

// -----

// clip bounds of integer tensors must be integral.
func.func @clip_int_fraction(%x: tensor<4xi32>) {
  // expected-error @+1 {{'nnc.clip' op bound 1.500000e+00 must be integral for an integer tensor}}
  %0 = nnc.clip %x {max = 1.5 : f64} : tensor<4xi32>
  return
}

// -----

// Float remainder only has fmod semantics.
func.func @rem_float_without_fmod(%x: tensor<4xf32>) {
  // expected-error @+1 {{'nnc.rem' op requires fmod = true for floating-point operands}}
  %0 = nnc.rem %x, %x : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// Comparison operands share an element type.
func.func @cmp_element_types(%x: tensor<4xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{expects operands of one element type, got 'f32' and 'i32'}}
  %0 = nnc.cmp lt, %x, %y : tensor<4xf32>, tensor<4xi32>
  return
}

// -----

// An unknown predicate is a parse error.
func.func @cmp_bad_predicate(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, lt, le, gt, ge]}}
  %0 = nnc.cmp lte, %x, %x : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// where's values share an element type.
func.func @where_element_types(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{expects true and false values of one element type, got 'f32' and 'f16'}}
  %0 = nnc.where %c, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf16>
  return
}

// -----

// where's three shapes must broadcast together.
func.func @where_no_broadcast(%c: tensor<3xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{condition, true and false shapes 3, 4 and 4 do not broadcast}}
  %0 = nnc.where %c, %x, %y : tensor<3xi1>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// where's condition is boolean.
func.func @where_condition_type(%c: tensor<4xi32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'nnc.where' op operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = "nnc.where"(%c, %x, %x) : (tensor<4xi32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// cast keeps the shape.
func.func @cast_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'nnc.cast' op operand type 'tensor<4xf32>' and result type 'tensor<2x2xf16>' are cast incompatible}}
  %0 = nnc.cast %x : tensor<4xf32> to tensor<2x2xf16>
  return
}

// -----

// cast does not turn a dynamic dim static; shape inference does that.
func.func @cast_refines(%x: tensor<?xf32>) {
  // expected-error @+1 {{'nnc.cast' op operand type 'tensor<?xf32>' and result type 'tensor<4xf16>' are cast incompatible}}
  %0 = nnc.cast %x : tensor<?xf32> to tensor<4xf16>
  return
}

// -----

// Constants are tensors.
func.func @constant_not_tensor() {
  // expected-error @+1 {{value must be a ranked tensor, got 'vector<2xf32>'}}
  %0 = nnc.constant dense<1.0> : vector<2xf32>
  return
}

// -----

// Element types outside the nnc set are rejected.
func.func @constant_element_type() {
  // expected-error @+1 {{'nnc.constant' op result #0 must be ranked tensor of}}
  %0 = nnc.constant dense<1> : tensor<2xi16>
  return
}

// -----

// nnc.param takes a #nnc.param value.
// expected-error @+1 {{'nnc.param' on argument 0 must be #nnc.param<trainable|frozen|buffer>}}
func.func @param_value(%w: tensor<4xf32> {nnc.param = "trainable"}) {
  return
}

// -----

// Only tensors can be parameters.
// expected-error @+1 {{parameter argument 1 must be a ranked tensor, got 'f32'}}
func.func @param_scalar(%x: tensor<4xf32>, %w: f32 {nnc.param = #nnc.param<trainable>}) {
  return
}

// -----

// A parameter's value must be an elements attribute.
// expected-error @+1 {{'nnc.value' on argument 0 must be an elements attribute}}
func.func @value_not_elements(%w: tensor<2xf32> {nnc.param = #nnc.param<frozen>, nnc.value = 1.0 : f32}) {
  return
}

// -----

// A parameter's value has the argument's type.
// expected-error @+1 {{'nnc.value' on argument 0 has type 'tensor<3xf32>' but the argument is 'tensor<2xf32>'}}
func.func @value_type(%w: tensor<2xf32> {nnc.param = #nnc.param<frozen>, nnc.value = dense<1.0> : tensor<3xf32>}) {
  return
}

// -----

// Only parameters carry values.
// expected-error @+1 {{'nnc.value' on argument 0 needs 'nnc.param' as well}}
func.func @value_not_param(%w: tensor<2xf32> {nnc.value = dense<1.0> : tensor<2xf32>}) {
  return
}

// -----

// Unknown nnc argument attributes are rejected, not ignored.
// expected-error @+1 {{unknown nnc argument attribute 'nnc.weights' on argument 0}}
func.func @param_unknown(%w: tensor<4xf32> {nnc.weights}) {
  return
}

// -----

// The compiler's mark of an executable's weights is a unit attribute.
// expected-error @+1 {{'nnc.weight' on argument 0 must be a unit attribute}}
func.func @weight_not_unit(%w: tensor<4xf32> {nnc.weight = 1 : i64}) {
  return
}

// -----

// An unknown parameter role is a parse error.
// expected-error @+2 {{expected ::nnc::ParamKind to be one of: trainable, frozen, buffer}}
// expected-error @+1 {{failed to parse NNC_ParamAttr parameter 'value' which is to be a `::nnc::ParamKind`}}
func.func @param_role(%w: tensor<4xf32> {nnc.param = #nnc.param<learned>}) {
  return
}

// -----

// Result names come one per result.
// expected-error @+1 {{'nnc.result_names' has 2 names for 1 results}}
func.func @result_names_count(%x: tensor<2xf32>) -> tensor<2xf32> attributes {nnc.result_names = ["a", "b"]} {
  return %x : tensor<2xf32>
}

// -----

// Result names are strings.
// expected-error @+1 {{'nnc.result_names' must be an array of strings}}
func.func @result_names_type(%x: tensor<2xf32>) -> tensor<2xf32> attributes {nnc.result_names = [1]} {
  return %x : tensor<2xf32>
}

// -----

// Unknown nnc attributes on operations are rejected.
// expected-error @+1 {{unknown nnc attribute 'nnc.bogus'}}
func.func @unknown_op_attr(%x: tensor<2xf32>) -> tensor<2xf32> attributes {nnc.bogus} {
  return %x : tensor<2xf32>
}
