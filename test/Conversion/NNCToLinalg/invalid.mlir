// RUN: nnc-opt %s --split-input-file --nnc-convert-to-linalg --verify-diagnostics

// An op left unlowered makes the pass fail, naming the op (the nn patterns'
// refusals are in invalid-nn.mlir).
func.func @conv(%x: tensor<1x3x?x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x?x6xf32> {
  // expected-error @+2 {{'nnc.conv' op cannot be lowered to linalg}}
  // expected-error @+1 {{failed to legalize operation 'nnc.conv'}}
  %0 = nnc.conv %x, %w : tensor<1x3x?x8xf32>, tensor<4x3x3x3xf32>
  return %0 : tensor<1x4x?x6xf32>
}

// -----

// Dynamic reshape results are not supported yet.
func.func @reshape_dynamic(%x: tensor<?x4xf32>) -> tensor<?xf32> {
  // expected-error @+2 {{cannot be lowered to linalg: the result type 'tensor<?xf32>' must be static}}
  // expected-error @+1 {{failed to legalize operation 'nnc.reshape'}}
  %0 = nnc.reshape %x : tensor<?x4xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
