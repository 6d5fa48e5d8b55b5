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
