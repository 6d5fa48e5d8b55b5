// RUN: nnc-opt %s --split-input-file --nnc-convert-to-linalg --verify-diagnostics

// An op without a lowering makes the pass fail, naming the op.
func.func @conv(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{failed to legalize operation 'nnc.conv'}}
  %0 = nnc.conv %x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// Dynamic reshape results are not supported yet.
func.func @reshape_dynamic(%x: tensor<?x4xf32>) -> tensor<?xf32> {
  // expected-error @+2 {{cannot be lowered to linalg: the result type 'tensor<?xf32>' must be static}}
  // expected-error @+1 {{failed to legalize operation 'nnc.reshape'}}
  %0 = nnc.reshape %x : tensor<?x4xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
