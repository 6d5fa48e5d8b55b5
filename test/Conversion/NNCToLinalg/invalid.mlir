// RUN: nnc-opt %s --split-input-file --nnc-convert-to-linalg --verify-diagnostics

// An op the patterns cannot lower makes the pass fail with one error naming
// the op and why, before anything is rewritten (the nn patterns' refusals
// are in invalid-nn.mlir, the shape ops' in invalid-shape.mlir).
func.func @conv(%x: tensor<1x3x?x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x?x6xf32> {
  // expected-error @+1 {{'nnc.conv' op cannot be lowered to linalg}}
  %0 = nnc.conv %x, %w : tensor<1x3x?x8xf32>, tensor<4x3x3x3xf32>
  return %0 : tensor<1x4x?x6xf32>
}

// -----

// Dynamic reshape results are not supported yet.
func.func @reshape_dynamic(%x: tensor<?x4xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{cannot be lowered to linalg: the result type 'tensor<?xf32>' must be static}}
  %0 = nnc.reshape %x : tensor<?x4xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Every op the patterns cannot lower is reported, each once.
func.func @two_refused(%x: tensor<1x3x?x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'nnc.conv' op cannot be lowered to linalg: channel, spatial and kernel dimensions must be static}}
  %0 = nnc.conv %x, %w : tensor<1x3x?x8xf32>, tensor<4x3x3x3xf32>
  // expected-error @+1 {{'nnc.reshape' op cannot be lowered to linalg: the result type 'tensor<?xf32>' must be static}}
  %1 = nnc.reshape %0 : tensor<1x4x?x6xf32> -> tensor<?xf32>
  return %1 : tensor<?xf32>
}
