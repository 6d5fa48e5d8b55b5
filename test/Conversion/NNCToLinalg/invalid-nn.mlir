// RUN: nnc-opt %s --split-input-file --nnc-convert-to-linalg --verify-diagnostics

// conv: spatial dimensions must be static (only the batch may be dynamic).
func.func @conv_dynamic_spatial(%x: tensor<1x3x?x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x?x6xf32> {
  // expected-error @+1 {{'nnc.conv' op cannot be lowered to linalg: channel, spatial and kernel dimensions must be static (only the batch dimension may be dynamic)}}
  %0 = nnc.conv %x, %w : tensor<1x3x?x8xf32>, tensor<4x3x3x3xf32>
  return %0 : tensor<1x4x?x6xf32>
}

// -----

// conv: a dynamic kernel is refused too.
func.func @conv_dynamic_kernel(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x?x3xf32>) -> tensor<1x4x?x6xf32> {
  // expected-error @+1 {{'nnc.conv' op cannot be lowered to linalg: channel, spatial and kernel dimensions must be static}}
  %0 = nnc.conv %x, %w : tensor<1x3x8x8xf32>, tensor<4x3x?x3xf32>
  return %0 : tensor<1x4x?x6xf32>
}

// -----

// conv_weight_grad: spatial dimensions must be static too.
func.func @conv_weight_grad_dynamic_spatial(%x: tensor<2x3x?x8xf32>, %g: tensor<2x4x?x6xf32>) -> tensor<4x3x3x3xf32> {
  // expected-error @+1 {{'nnc.conv_weight_grad' op cannot be lowered to linalg: channel, spatial and kernel dimensions must be static (only the batch dimension may be dynamic)}}
  %0 = nnc.conv_weight_grad %x, %g kernel_shape = [3, 3] : tensor<2x3x?x8xf32>, tensor<2x4x?x6xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

// conv_transpose: dynamic channels are refused.
func.func @conv_transpose_dynamic_channels(%x: tensor<1x?x4xf32>, %w: tensor<2x2x3xf32>) -> tensor<1x2x6xf32> {
  // expected-error @+1 {{'nnc.conv_transpose' op cannot be lowered to linalg: channel, spatial and kernel dimensions must be static}}
  %0 = nnc.conv_transpose %x, %w : tensor<1x?x4xf32>, tensor<2x2x3xf32>
  return %0 : tensor<1x2x6xf32>
}

// -----

// max_pool: dynamic spatial dimensions are refused.
func.func @max_pool_dynamic(%x: tensor<1x3x?xf32>) -> tensor<1x3x?xf32> {
  // expected-error @+1 {{'nnc.max_pool' op cannot be lowered to linalg: channel, spatial and kernel dimensions must be static}}
  %0 = nnc.max_pool %x kernel_shape = [2] : tensor<1x3x?xf32>
  return %0 : tensor<1x3x?xf32>
}

// -----

// avg_pool: dynamic spatial dimensions are refused.
func.func @avg_pool_dynamic(%x: tensor<?x3x?x4xf32>) -> tensor<?x3x?x3xf32> {
  // expected-error @+1 {{'nnc.avg_pool' op cannot be lowered to linalg: channel, spatial and kernel dimensions must be static}}
  %0 = nnc.avg_pool %x kernel_shape = [2, 2] : tensor<?x3x?x4xf32>
  return %0 : tensor<?x3x?x3xf32>
}

// -----

// group_norm: the channel count must be static to form the groups.
func.func @group_norm_dynamic_channels(%x: tensor<2x?x4xf32>, %s: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<2x?x4xf32> {
  // expected-error @+1 {{'nnc.group_norm' op cannot be lowered to linalg: the channel dimension must be static}}
  %y, %m, %i = nnc.group_norm %x, %s, %b num_groups = 2 : tensor<2x?x4xf32>, tensor<?xf32>, tensor<?xf32>
  return %y : tensor<2x?x4xf32>
}

// -----

// dropout: training with a non-zero ratio needs random numbers.
func.func @dropout_training(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'nnc.dropout' op cannot be lowered to linalg: training dropout with ratio 1.000000e-01 needs random numbers, which the linalg lowering does not generate}}
  %y, %mask = nnc.dropout %x ratio = 1.000000e-01 training = true : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// nll_loss: the class dimension must be static.
func.func @nll_loss_dynamic_classes(%p: tensor<4x?xf32>, %t: tensor<4xi64>) -> tensor<f32> {
  // expected-error @+1 {{'nnc.nll_loss' op cannot be lowered to linalg: the class dimension must be static}}
  %0 = nnc.nll_loss %p, %t : tensor<4x?xf32>, tensor<4xi64>
  return %0 : tensor<f32>
}

// -----

// cross_entropy: the class dimension must be static.
func.func @cross_entropy_dynamic_classes(%z: tensor<4x?x3xf32>, %t: tensor<4x3xi32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'nnc.cross_entropy' op cannot be lowered to linalg: the class dimension must be static}}
  %0 = nnc.cross_entropy %z, %t reduction = none : tensor<4x?x3xf32>, tensor<4x3xi32>
  return %0 : tensor<4x3xf32>
}
