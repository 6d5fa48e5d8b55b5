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
