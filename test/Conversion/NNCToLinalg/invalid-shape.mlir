// RUN: nnc-opt %s --split-input-file --nnc-convert-to-linalg --verify-diagnostics

// slice needs static sizes on the sliced axes.
func.func @slice_dynamic_axis(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'nnc.slice' op cannot be lowered to linalg: sliced axis 0 must have a static size}}
  %0 = nnc.slice %x starts = [1] ends = [3] : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// scatter_nd needs the length of the index tuples statically.
func.func @scatter_nd_dynamic_k(%d: tensor<4x5xf32>, %i: tensor<3x?xi64>,
                                %u: tensor<3x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'nnc.scatter_nd' op cannot be lowered to linalg: the last dimension of the indices must be static}}
  %0 = nnc.scatter_nd %d, %i, %u : tensor<4x5xf32>, tensor<3x?xi64>, tensor<3x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// Negative pads crop first; a reflect pad must stay smaller than the
// cropped size (the verifier only sees the uncropped one).
func.func @pad_reflect_after_crop(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'nnc.pad' op cannot be lowered to linalg: reflect pads (0, 2) of dimension 1 must be smaller than its cropped size 1}}
  %0 = nnc.pad %x pads = [0, -2, 0, 2] mode = reflect : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// edge (and wrap) padding of a dimension that cropping emptied has no
// element to repeat.
func.func @pad_edge_after_crop(%x: tensor<2x3xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{'nnc.pad' op cannot be lowered to linalg: edge pads of dimension 0 need a non-empty dimension after cropping}}
  %0 = nnc.pad %x pads = [-2, 0, 3, 0] mode = edge : tensor<2x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// wrap padding likewise needs an element left after cropping.
func.func @pad_wrap_after_crop(%x: tensor<2x3xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{'nnc.pad' op cannot be lowered to linalg: wrap pads of dimension 0 need a non-empty dimension after cropping}}
  %0 = nnc.pad %x pads = [-2, 0, 3, 0] mode = wrap : tensor<2x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// expand: a dynamic result dimension needs an input dimension to size it
// (an input 1 broadcasts to any size).
func.func @expand_unsized(%x: tensor<3x1xf32>) -> tensor<3x?xf32> {
  // expected-error @+1 {{'nnc.expand' op cannot be lowered to linalg: dynamic result dimension 1 has no operand dimension to take its size from}}
  %0 = nnc.expand %x : tensor<3x1xf32> -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// -----

// ... and a result dimension the input lacks has none either.
func.func @expand_unsized_leading(%x: tensor<4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'nnc.expand' op cannot be lowered to linalg: dynamic result dimension 0 has no operand dimension to take its size from}}
  %0 = nnc.expand %x : tensor<4xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
