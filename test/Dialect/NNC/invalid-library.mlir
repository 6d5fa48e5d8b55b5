// RUN: nnc-opt %s --split-input-file --verify-diagnostics

func.func @direction(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %e: tensor<1x4x6x6xf32>) {
  // expected-error @+1 {{direction must be "forward", "backward_data" or "backward_weights", not "sideways"}}
  %y = nnc.library_conv "sideways" ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%e : tensor<1x4x6x6xf32>) strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @weights_bias(%x: tensor<1x3x8x8xf32>, %g: tensor<1x4x6x6xf32>, %b: tensor<4xf32>, %e: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{takes 2 inputs for direction "backward_weights", not 3}}
  %y = nnc.library_conv "backward_weights" ins(%x, %g, %b : tensor<1x3x8x8xf32>, tensor<1x4x6x6xf32>, tensor<4xf32>) outs(%e : tensor<4x3x3x3xf32>) strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 -> tensor<4x3x3x3xf32>
  return
}

// -----

func.func @mixed(%x: memref<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %e: tensor<1x4x6x6xf32>) {
  // expected-error @+1 {{operands must be all ranked tensors or all memrefs}}
  %y = nnc.library_conv "forward" ins(%x, %w : memref<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%e : tensor<1x4x6x6xf32>) strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @dynamic(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %e: tensor<1x4x6x6xf32>) {
  // expected-error @+1 {{operands must have static shapes and f32, bf16 or f16 elements, not 'tensor<?x3x8x8xf32>'}}
  %y = nnc.library_conv "forward" ins(%x, %w : tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%e : tensor<1x4x6x6xf32>) strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @buffer_result(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %e: memref<1x4x6x6xf32>) {
  // expected-error @+1 {{on buffers returns nothing}}
  %y = nnc.library_conv "forward" ins(%x, %w : memref<1x3x8x8xf32>, memref<4x3x3x3xf32>) outs(%e : memref<1x4x6x6xf32>) strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @window(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %e: tensor<1x4x6x6xf32>) {
  // expected-error @+1 {{needs 2 strides and dilations and 4 pads}}
  %y = nnc.library_conv "forward" ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%e : tensor<1x4x6x6xf32>) strides = [1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @groups(%x: tensor<1x3x8x8xf32>, %w: tensor<4x1x3x3xf32>, %e: tensor<1x4x6x6xf32>) {
  // expected-error @+1 {{groups 2 must divide the channels 3 and 4}}
  %y = nnc.library_conv "forward" ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x1x3x3xf32>) outs(%e : tensor<1x4x6x6xf32>) strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 2 -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @channels(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>, %e: tensor<1x4x6x6xf32>) {
  // expected-error @+1 {{are not one convolution's}}
  %y = nnc.library_conv "forward" ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) outs(%e : tensor<1x4x6x6xf32>) strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @size(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %e: tensor<1x4x7x6xf32>) {
  // expected-error @+1 {{spatial dimension 0 of dst is 7, not what src, weights, strides, dilations and pads give}}
  %y = nnc.library_conv "forward" ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%e : tensor<1x4x7x6xf32>) strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 -> tensor<1x4x7x6xf32>
  return
}

// -----

func.func @bias(%g: tensor<1x4x6x6xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %e: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{bias must be [3], not 'tensor<4xf32>'}}
  %y = nnc.library_conv "backward_data" ins(%g, %w, %b : tensor<1x4x6x6xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) outs(%e : tensor<1x3x8x8xf32>) strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @all_reduce_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be}}
  %s = nnc.all_reduce %x : tensor<4xi32>
  return
}

// -----

func.func @library_all_reduce_shapes(%x: tensor<4xf32>, %e: tensor<5xf32>) {
  // expected-error @+1 {{must have the same static shape and element type}}
  %s = nnc.library_all_reduce ins(%x : tensor<4xf32>) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @library_all_reduce_dynamic(%x: tensor<?xf32>, %e: tensor<?xf32>) {
  // expected-error @+1 {{must have the same static shape and element type}}
  %s = nnc.library_all_reduce ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @library_all_reduce_mixed(%x: tensor<4xf32>, %e: memref<4xf32>) {
  // expected-error @+1 {{takes two tensors or two buffers}}
  nnc.library_all_reduce ins(%x : tensor<4xf32>) outs(%e : memref<4xf32>)
  return
}

// -----

func.func @library_all_reduce_int(%x: memref<4xi64>, %e: memref<4xi64>) {
  // expected-error @+1 {{reduces floats, not 'i64'}}
  nnc.library_all_reduce ins(%x : memref<4xi64>) outs(%e : memref<4xi64>)
  return
}

// -----

func.func @library_all_reduce_result(%x: memref<4xf32>, %e: memref<4xf32>) {
  // expected-error @+1 {{returns nothing on buffers}}
  %r = nnc.library_all_reduce ins(%x : memref<4xf32>) outs(%e : memref<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f64(%x: tensor<1x3x8x8xf64>, %w: tensor<4x3x3x3xf64>, %e: tensor<1x4x6x6xf64>) {
  // expected-error @+1 {{operands must have static shapes and f32, bf16 or f16 elements, not 'tensor<1x3x8x8xf64>'}}
  %y = nnc.library_conv "forward" ins(%x, %w : tensor<1x3x8x8xf64>, tensor<4x3x3x3xf64>) outs(%e : tensor<1x4x6x6xf64>) strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 -> tensor<1x4x6x6xf64>
  return
}

// -----

func.func @channels_last_backward(%g: tensor<1x6x6x4xf32>, %w: tensor<4x3x3x3xf32>, %e: tensor<1x8x8x3xf32>) {
  // expected-error @+1 {{channels_last is for direction "forward" only}}
  %y = nnc.library_conv "backward_data" ins(%g, %w : tensor<1x6x6x4xf32>, tensor<4x3x3x3xf32>) outs(%e : tensor<1x8x8x3xf32>) strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 channels_last -> tensor<1x8x8x3xf32>
  return
}

// -----

// Channels-first shapes are not a channels-last convolution's.
func.func @channels_last_shapes(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %e: tensor<1x4x6x6xf32>) {
  // expected-error @+1 {{are not one convolution's (channels last)}}
  %y = nnc.library_conv "forward" ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%e : tensor<1x4x6x6xf32>) strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 channels_last -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @channels_last_spatial(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %e: tensor<1x6x5x4xf32>) {
  // expected-error @+1 {{spatial dimension 1 of dst is 5, not what src, weights, strides, dilations and pads give}}
  %y = nnc.library_conv "forward" ins(%x, %w : tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) outs(%e : tensor<1x6x5x4xf32>) strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 channels_last -> tensor<1x6x5x4xf32>
  return
}

// -----

func.func @winograd_strided(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %e: tensor<1x4x3x3xf32>) {
  // expected-error @+1 {{winograd needs a 2-D 3x3 convolution with strides and dilations 1, one group and f32 operands}}
  %y = nnc.library_conv "forward" ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%e : tensor<1x4x3x3xf32>) strides = [2, 2] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 winograd -> tensor<1x4x3x3xf32>
  return
}

// -----

func.func @winograd_bf16(%x: tensor<1x3x8x8xbf16>, %w: tensor<4x3x3x3xbf16>, %e: tensor<1x4x6x6xbf16>) {
  // expected-error @+1 {{winograd needs a 2-D 3x3 convolution with strides and dilations 1, one group and f32 operands}}
  %y = nnc.library_conv "forward" ins(%x, %w : tensor<1x3x8x8xbf16>, tensor<4x3x3x3xbf16>) outs(%e : tensor<1x4x6x6xbf16>) strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 winograd -> tensor<1x4x6x6xbf16>
  return
}

// -----

func.func @winograd_1d(%x: tensor<1x3x8xf32>, %w: tensor<4x3x3xf32>, %e: tensor<1x4x6xf32>) {
  // expected-error @+1 {{winograd needs a 2-D 3x3 convolution}}
  %y = nnc.library_conv "forward" ins(%x, %w : tensor<1x3x8xf32>, tensor<4x3x3xf32>) outs(%e : tensor<1x4x6xf32>) strides = [1] dilations = [1] pads = [0, 0] groups = 1 winograd -> tensor<1x4x6xf32>
  return
}
