// RUN: nnc-opt %s --split-input-file --verify-diagnostics --nnc-shape-inference="input-shapes=0:8x4"

// Specializing an argument against a static dim it contradicts fails.
// expected-error @+1 {{input shape 8x4 for argument 0 contradicts its type 'tensor<2x4xf32>'}}
func.func @contradiction(%x: tensor<2x4xf32>) {
  return
}

// -----

// Only tensors can be specialized.
// expected-error @+1 {{input-shapes names argument 0 of type 'f32', which is not a ranked tensor}}
func.func @scalar(%x: f32) {
  return
}

// -----

// A refined shape that no longer broadcasts is reported at the op.
func.func @broadcast_conflict(%x: tensor<?x4xf32>, %y: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{operand shapes 8x4 and 3x4 do not broadcast}}
  %0 = nnc.add %x, %y : tensor<?x4xf32>, tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// A reshape computed from the shapes that cannot divide evenly is reported
// when the shapes are bound: 8x4 elements into rows of 3 * 4.
func.func @bad_dynamic_reshape(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %s = nnc.shape_of %x start = 1 end = 2 : tensor<?x?xf32>
  %three = nnc.constant dense<3> : tensor<1xi64>
  %s3 = nnc.mul %s, %three : tensor<1xi64>, tensor<1xi64>
  %m = nnc.constant dense<-1> : tensor<1xi64>
  %shape = nnc.concat %m, %s3 axis = 0 : tensor<1xi64>, tensor<1xi64>
  // expected-error @+1 {{cannot reshape 8x4 to [-1, 12]: the element counts do not divide}}
  %0 = nnc.dynamic_reshape %x, %shape : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// nnc.dynamic_attrs: attributes that are known but invalid for the static
// op are its error; so is a static op that contradicts the declared types.
func.func @dynamic_attrs_invalid(%x: tensor<?x4xf32>) -> tensor<?x?x?xf32> {
  %a = nnc.constant dense<7> : tensor<1xi64>
  // expected-error @+1 {{unsqueeze axis 7 is out of range for rank 3}}
  %0 = nnc.dynamic_attrs "nnc.unsqueeze"(%x) [%a] names ["axes"] kinds ["i64s"] static {} : (tensor<?x4xf32>), (tensor<1xi64>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// -----

func.func @dynamic_attrs_contradiction(%x: tensor<?x4xf32>) -> tensor<?x?x?xf32> {
  %a = nnc.constant dense<[0, 1]> : tensor<2xi64>
  // expected-error @+1 {{'nnc.unsqueeze' with the attributes {axes = array<i64: 0, 1>} gives 'tensor<1x1x8x4xf32>', which contradicts the result type 'tensor<?x?x?xf32>'}}
  %0 = nnc.dynamic_attrs "nnc.unsqueeze"(%x) [%a] names ["axes"] kinds ["i64s"] static {} : (tensor<?x4xf32>), (tensor<2xi64>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// -----

// Split sizes computed from the shape that do not cover the dimension.
func.func @dynamic_attrs_split_sizes(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %s = nnc.shape_of %x start = 0 end = 1 : tensor<?x4xf32>
  %two = nnc.constant dense<2> : tensor<1xi64>
  %sizes = nnc.concat %s, %two axis = 0 : tensor<1xi64>, tensor<1xi64>
  // expected-error @+1 {{sizes [8, 2] sum to 10 but dimension 0 has size 8}}
  %0:2 = nnc.dynamic_attrs "nnc.split"(%x) [%sizes] names ["sizes"] kinds ["i64s"] static {axis = 0 : i64} : (tensor<?x4xf32>), (tensor<2xi64>) -> tensor<?x4xf32>, tensor<?x4xf32>
  return %0#0, %0#1 : tensor<?x4xf32>, tensor<?x4xf32>
}
