// RUN: nnc-opt %s --split-input-file --verify-diagnostics

// reshape: element counts of two static shapes must be equal
func.func @reshape_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{input shape 2x3 and result shape 7 cannot have the same number of elements}}
  %0 = nnc.reshape %x : tensor<2x3xf32> -> tensor<7xf32>
  return
}

// -----

// reshape: a static input count must be a multiple of the result's static dims
func.func @reshape_count_dynamic_result(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{input shape 2x3 and result shape ?x4 cannot have the same number of elements}}
  %0 = nnc.reshape %x : tensor<2x3xf32> -> tensor<?x4xf32>
  return
}

// -----

// reshape: a static result count must be a multiple of the input's static dims
func.func @reshape_count_dynamic_input(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{input shape ?x4 and result shape 2x3 cannot have the same number of elements}}
  %0 = nnc.reshape %x : tensor<?x4xf32> -> tensor<2x3xf32>
  return
}

// -----

// reshape: a zero-sized dimension leaves no room for a non-empty input
func.func @reshape_count_zero(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{input shape 2x3 and result shape 0x? cannot have the same number of elements}}
  %0 = nnc.reshape %x : tensor<2x3xf32> -> tensor<0x?xf32>
  return
}

// -----

// reshape: an element count that overflows int64 is rejected
func.func @reshape_overflow(%x: tensor<4611686018427387904x4xf32>) {
  // expected-error @+1 {{element count of shape 4611686018427387904x4 overflows int64}}
  %0 = nnc.reshape %x : tensor<4611686018427387904x4xf32> -> tensor<?xf32>
  return
}

// -----

// reshape: element types must agree
func.func @reshape_element_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{result element type 'f16' differs from input element type 'f32'}}
  %0 = nnc.reshape %x : tensor<2x3xf32> -> tensor<6xf16>
  return
}

// -----

// reshape: unranked operands are rejected by the type constraint
func.func @reshape_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.reshape %x : tensor<*xf32> -> tensor<6xf32>
  return
}

// -----

// expand: element types must agree
func.func @expand_element_type(%x: tensor<3x1xf32>) {
  // expected-error @+1 {{result element type 'i32' differs from input element type 'f32'}}
  %0 = nnc.expand %x : tensor<3x1xf32> -> tensor<3x4xi32>
  return
}

// -----

// expand: a static input dimension other than 1 must match the result's
func.func @expand_not_broadcastable(%x: tensor<3x2xf32>) {
  // expected-error @+1 {{input shape 3x2 does not broadcast to result shape 3x4}}
  %0 = nnc.expand %x : tensor<3x2xf32> -> tensor<3x4xf32>
  return
}

// -----

// expand: the result cannot have a lower rank than the input
func.func @expand_lower_rank(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{input shape 1x4 does not broadcast to result shape 4}}
  %0 = nnc.expand %x : tensor<1x4xf32> -> tensor<4xf32>
  return
}

// -----

// transpose: the custom syntax rejects an unranked input
func.func @transpose_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.transpose %x perm = [0] : tensor<*xf32>
  return
}

// -----

// transpose: an unranked operand in generic form fails the type constraint
func.func @transpose_unranked_generic(%x: tensor<*xf32>) {
  // expected-error @+1 {{'nnc.transpose' op operand #0 must be ranked tensor of nnc element values, but got 'tensor<*xf32>'}}
  %0 = "nnc.transpose"(%x) <{perm = array<i64: 0>}> : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// transpose: perm needs one entry per dimension
func.func @transpose_perm_size(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{perm has 3 entries but input has rank 2}}
  %0 = nnc.transpose %x perm = [0, 1, 2] : tensor<2x3xf32>
  return
}

// -----

// transpose: perm must be a permutation (repeated entry)
func.func @transpose_bad_perm(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{perm [0, 0] is not a permutation of [0, 2)}}
  %0 = nnc.transpose %x perm = [0, 0] : tensor<2x3xf32>
  return
}

// -----

// transpose: perm must be a permutation (out-of-range entry)
func.func @transpose_perm_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{perm [-1, 0] is not a permutation of [0, 2)}}
  %0 = nnc.transpose %x perm = [-1, 0] : tensor<2x3xf32>
  return
}

// -----

// concat: needs an input
func.func @concat_empty() {
  // expected-error @+2 {{requires at least one input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "nnc.concat"() <{axis = 0 : i64}> : () -> tensor<2xf32>
  return
}

// -----

// concat: unranked input
func.func @concat_unranked(%a: tensor<2xf32>, %b: tensor<*xf32>) {
  // expected-error @+1 {{expects input 1 to be a ranked tensor, got 'tensor<*xf32>'}}
  %0 = nnc.concat %a, %b axis = 0 : tensor<2xf32>, tensor<*xf32>
  return
}

// -----

// concat: element types must agree
func.func @concat_element_type(%a: tensor<2xf32>, %b: tensor<2xf16>) {
  // expected-error @+1 {{input 1 has element type 'f16' but input 0 has 'f32'}}
  %0 = nnc.concat %a, %b axis = 0 : tensor<2xf32>, tensor<2xf16>
  return
}

// -----

// concat: ranks must agree
func.func @concat_rank(%a: tensor<2xf32>, %b: tensor<2x1xf32>) {
  // expected-error @+1 {{input 1 has rank 2 but input 0 has rank 1}}
  %0 = nnc.concat %a, %b axis = 0 : tensor<2xf32>, tensor<2x1xf32>
  return
}

// -----

// concat: axis out of range
func.func @concat_axis(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = nnc.concat %a, %b axis = 2 : tensor<2x3xf32>, tensor<2x3xf32>
  return
}

// -----

// concat: dimensions outside the axis must agree
func.func @concat_dims(%a: tensor<2x3xf32>, %b: tensor<4x?xf32>) {
  // expected-error @+1 {{input 1 has shape 4x?, incompatible with 2x3 outside axis 1}}
  %0 = nnc.concat %a, %b axis = -1 : tensor<2x3xf32>, tensor<4x?xf32>
  return
}

// -----

// concat: the concatenated dimension must fit in int64
func.func @concat_overflow(%a: tensor<9223372036854775807xf32>) {
  // expected-error @+1 {{concatenated dimension 0 overflows int64}}
  %0 = nnc.concat %a, %a axis = 0 : tensor<9223372036854775807xf32>, tensor<9223372036854775807xf32>
  return
}

// -----

// split: unranked input
func.func @split_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.split %x axis = 0 sizes = [1] : tensor<*xf32>
  return
}

// -----

// split: axis out of range
func.func @split_axis(%x: tensor<4xf32>) {
  // expected-error @+1 {{axis -2 is out of range for rank 1}}
  %0, %1 = nnc.split %x axis = -2 sizes = [2, 2] : tensor<4xf32>
  return
}

// -----

// split: needs at least one size
func.func @split_no_sizes(%x: tensor<4xf32>) {
  // expected-error @+1 {{requires at least one size}}
  nnc.split %x axis = 0 sizes = [] : tensor<4xf32>
  return
}

// -----

// split: sizes are non-negative
func.func @split_negative(%x: tensor<?xf32>) {
  // expected-error @+1 {{sizes [5, -1] contain a negative size}}
  %0, %1 = nnc.split %x axis = 0 sizes = [5, -1] : tensor<?xf32>
  return
}

// -----

// split: the sum of sizes must fit in int64
func.func @split_overflow(%x: tensor<?xf32>) {
  // expected-error @+1 {{sizes [9223372036854775807, 1] overflow int64}}
  %0, %1 = nnc.split %x axis = 0 sizes = [9223372036854775807, 1] : tensor<?xf32>
  return
}

// -----

// split: sizes must sum to a static dimension
func.func @split_sum(%x: tensor<3x6xf32>) {
  // expected-error @+1 {{sizes [2, 3] sum to 5 but dimension 1 has size 6}}
  %0, %1 = nnc.split %x axis = 1 sizes = [2, 3] : tensor<3x6xf32>
  return
}

// -----

// split: the number of results is the number of sizes
func.func @split_results(%x: tensor<4xf32>) {
  // expected-error @+1 {{operation defines 2 results but was provided 3 to bind}}
  %0, %1, %2 = nnc.split %x axis = 0 sizes = [2, 2] : tensor<4xf32>
  return
}

// -----

// slice: unranked input
func.func @slice_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.slice %x starts = [0] ends = [1] : tensor<*xf32>
  return
}

// -----

// slice: starts and ends have one entry per sliced axis
func.func @slice_ends(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{starts has 2 entries but ends has 1}}
  %0 = nnc.slice %x starts = [0, 0] ends = [1] : tensor<4x4xf32>
  return
}

// -----

// slice: axes have one entry per start
func.func @slice_axes_size(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{axes has 2 entries but starts has 1}}
  %0 = nnc.slice %x starts = [0] ends = [1] axes = [0, 1] : tensor<4x4xf32>
  return
}

// -----

// slice: axis out of range
func.func @slice_axis_range(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{slice axis 2 is out of range for rank 2}}
  %0 = nnc.slice %x starts = [0] ends = [1] axes = [2] : tensor<4x4xf32>
  return
}

// -----

// slice: more starts than dimensions with the default axes
func.func @slice_default_axes_range(%x: tensor<4xf32>) {
  // expected-error @+1 {{slice axis 1 is out of range for rank 1}}
  %0 = nnc.slice %x starts = [0, 0] ends = [1, 1] : tensor<4xf32>
  return
}

// -----

// slice: repeated axis
func.func @slice_axis_repeated(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{slice axis -1 is repeated}}
  %0 = nnc.slice %x starts = [0, 0] ends = [1, 1] axes = [1, -1] : tensor<4x4xf32>
  return
}

// -----

// slice: steps have one entry per start
func.func @slice_steps_size(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{steps has 2 entries but starts has 1}}
  %0 = nnc.slice %x starts = [0] ends = [1] steps = [1, 1] : tensor<4x4xf32>
  return
}

// -----

// slice: a step of 0 is invalid
func.func @slice_step_zero(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{steps [1, 0] contain a 0 step}}
  %0 = nnc.slice %x starts = [0, 0] ends = [1, 1] steps = [1, 0] : tensor<4x4xf32>
  return
}

// -----

// pad: unranked input
func.func @pad_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.pad %x pads = [0, 0] : tensor<*xf32>
  return
}

// -----

// pad: two entries per dimension
func.func @pad_size(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{pads has 2 entries but input has rank 2 (expected 4)}}
  %0 = nnc.pad %x pads = [1, 1] : tensor<2x3xf32>
  return
}

// -----

// pad: reflect pads must be smaller than the dimension
func.func @pad_reflect(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{reflect pads (0, 3) of dimension 1 must be smaller than its size 3}}
  %0 = nnc.pad %x pads = [0, 0, 0, 3] mode = reflect : tensor<2x3xf32>
  return
}

// -----

// pad: edge padding needs an element to repeat
func.func @pad_edge_empty(%x: tensor<0x3xf32>) {
  // expected-error @+1 {{edge pads (1, 0) of dimension 0 need a non-empty dimension}}
  %0 = nnc.pad %x pads = [1, 0, 0, 0] mode = edge : tensor<0x3xf32>
  return
}

// -----

// pad: wrap padding needs an element to repeat
func.func @pad_wrap_empty(%x: tensor<0xi8>) {
  // expected-error @+1 {{wrap pads (0, 2) of dimension 0 need a non-empty dimension}}
  %0 = nnc.pad %x pads = [0, 2] mode = wrap : tensor<0xi8>
  return
}

// -----

// pad: cropping cannot remove more than the dimension
func.func @pad_crop(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{pads (-2, -1) of dimension 0 of size 2 give an invalid size}}
  %0 = nnc.pad %x pads = [-2, 0, -1, 0] : tensor<2x3xf32>
  return
}

// -----

// pad: the padded size must fit in int64
func.func @pad_overflow(%x: tensor<9223372036854775807xf32>) {
  // expected-error @+1 {{pads (0, 1) of dimension 0 of size 9223372036854775807 give an invalid size}}
  %0 = nnc.pad %x pads = [0, 1] : tensor<9223372036854775807xf32>
  return
}

// -----

// pad: the fill value is only used in constant mode
func.func @pad_value_mode(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{value 1.000000e+00 is only used in constant mode}}
  %0 = nnc.pad %x pads = [1, 1, 1, 1] mode = edge value = 1.0 : tensor<2x3xf32>
  return
}

// -----

// pad: the fill value must be integral for an integer tensor
func.func @pad_value_integral(%x: tensor<2xi32>) {
  // expected-error @+1 {{value 5.000000e-01 is not representable in 'i32'}}
  %0 = nnc.pad %x pads = [1, 1] value = 0.5 : tensor<2xi32>
  return
}

// -----

// pad: the fill value must be in range for the integer type
func.func @pad_value_range(%x: tensor<2xi8>) {
  // expected-error @+1 {{value 1.280000e+02 is not representable in 'i8'}}
  %0 = nnc.pad %x pads = [1, 1] value = 128.0 : tensor<2xi8>
  return
}

// -----

// pad: the fill value of a boolean tensor is 0 or 1
func.func @pad_value_bool(%x: tensor<2xi1>) {
  // expected-error @+1 {{value 2.000000e+00 is not representable in 'i1'}}
  %0 = nnc.pad %x pads = [1, 1] value = 2.0 : tensor<2xi1>
  return
}

// -----

// tile: unranked input
func.func @tile_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.tile %x repeats = [1] : tensor<*xf32>
  return
}

// -----

// tile: one repeat per dimension
func.func @tile_size(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{repeats has 1 entries but input has rank 2}}
  %0 = nnc.tile %x repeats = [2] : tensor<2x3xf32>
  return
}

// -----

// tile: repeats are non-negative
func.func @tile_negative(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{repeats [2, -1] contain a negative count}}
  %0 = nnc.tile %x repeats = [2, -1] : tensor<2x3xf32>
  return
}

// -----

// tile: the tiled size must fit in int64
func.func @tile_overflow(%x: tensor<4611686018427387904xf32>) {
  // expected-error @+1 {{tiling dimension 0 of size 4611686018427387904 by 2 overflows int64}}
  %0 = nnc.tile %x repeats = [2] : tensor<4611686018427387904xf32>
  return
}

// -----

// squeeze: unranked input
func.func @squeeze_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.squeeze %x axes = [0] : tensor<*xf32>
  return
}

// -----

// squeeze: axis out of range
func.func @squeeze_axis_range(%x: tensor<1x3xf32>) {
  // expected-error @+1 {{squeeze axis -3 is out of range for rank 2}}
  %0 = nnc.squeeze %x axes = [-3] : tensor<1x3xf32>
  return
}

// -----

// squeeze: repeated axis
func.func @squeeze_axis_repeated(%x: tensor<1x3xf32>) {
  // expected-error @+1 {{squeeze axis -2 is repeated}}
  %0 = nnc.squeeze %x axes = [0, -2] : tensor<1x3xf32>
  return
}

// -----

// squeeze: a static squeezed dimension must be 1
func.func @squeeze_not_one(%x: tensor<1x3xf32>) {
  // expected-error @+1 {{cannot squeeze dimension 1 of size 3}}
  %0 = nnc.squeeze %x axes = [1] : tensor<1x3xf32>
  return
}

// -----

// squeeze: without axes the input shape must be static
func.func @squeeze_dynamic(%x: tensor<1x?xf32>) {
  // expected-error @+1 {{squeeze without axes needs a static input shape, got 1x?}}
  %0 = nnc.squeeze %x : tensor<1x?xf32>
  return
}

// -----

// unsqueeze: unranked input
func.func @unsqueeze_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.unsqueeze %x axes = [0] : tensor<*xf32>
  return
}

// -----

// unsqueeze: axes index the result (rank 3 here)
func.func @unsqueeze_axis_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{unsqueeze axis 3 is out of range for rank 3}}
  %0 = nnc.unsqueeze %x axes = [3] : tensor<2x3xf32>
  return
}

// -----

// unsqueeze: repeated axis
func.func @unsqueeze_axis_repeated(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{unsqueeze axis -4 is repeated}}
  %0 = nnc.unsqueeze %x axes = [0, -4] : tensor<2x3xf32>
  return
}

// -----

// flatten: unranked input
func.func @flatten_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.flatten %x : tensor<*xf32>
  return
}

// -----

// flatten: axis in [-rank, rank]
func.func @flatten_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 3 is out of range [-2, 2]}}
  %0 = nnc.flatten %x axis = 3 : tensor<2x3xf32>
  return
}

// -----

// flatten: the default axis 1 is out of range for a scalar
func.func @flatten_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{axis 1 is out of range [0, 0]}}
  %0 = nnc.flatten %x : tensor<f32>
  return
}

// -----

// flatten: the products must fit in int64
func.func @flatten_overflow(%x: tensor<4611686018427387904x4x1xf32>) {
  // expected-error @+1 {{flattening shape 4611686018427387904x4x1 overflows int64}}
  %0 = nnc.flatten %x axis = 2 : tensor<4611686018427387904x4x1xf32>
  return
}

// -----

// trilu: unranked input
func.func @trilu_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.trilu %x : tensor<*xf32>
  return
}

// -----

// trilu: needs matrices
func.func @trilu_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{expects an input of rank at least 2, got 1}}
  %0 = nnc.trilu %x : tensor<4xf32>
  return
}

// -----

// depth_to_space: unranked input
func.func @depth_to_space_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.depth_to_space %x blocksize = 2 : tensor<*xf32>
  return
}

// -----

// depth_to_space: NCHW input
func.func @depth_to_space_rank(%x: tensor<4x2x2xf32>) {
  // expected-error @+1 {{expects a rank-4 NCHW input, got rank 3}}
  %0 = nnc.depth_to_space %x blocksize = 2 : tensor<4x2x2xf32>
  return
}

// -----

// depth_to_space: blocksize must be positive
func.func @depth_to_space_blocksize(%x: tensor<1x4x2x2xf32>) {
  // expected-error @+1 {{blocksize 0 must be positive and its square fit in int64}}
  %0 = nnc.depth_to_space %x blocksize = 0 : tensor<1x4x2x2xf32>
  return
}

// -----

// depth_to_space: blocksize squared must fit in int64
func.func @depth_to_space_blocksize_overflow(%x: tensor<1x4x2x2xf32>) {
  // expected-error @+1 {{blocksize 4294967296 must be positive and its square fit in int64}}
  %0 = nnc.depth_to_space %x blocksize = 4294967296 : tensor<1x4x2x2xf32>
  return
}

// -----

// depth_to_space: channels must be a multiple of blocksize^2
func.func @depth_to_space_channels(%x: tensor<1x6x2x2xf32>) {
  // expected-error @+1 {{channels 6 are not a multiple of blocksize^2 = 4}}
  %0 = nnc.depth_to_space %x blocksize = 2 : tensor<1x6x2x2xf32>
  return
}

// -----

// depth_to_space: the spatial sizes must fit in int64
func.func @depth_to_space_overflow(%x: tensor<1x4x4611686018427387904x1xf32>) {
  // expected-error @+1 {{spatial dimensions of 1x4x4611686018427387904x1 times blocksize 2 overflow int64}}
  %0 = nnc.depth_to_space %x blocksize = 2 : tensor<1x4x4611686018427387904x1xf32>
  return
}

// -----

// depth_to_space: mode is DCR or CRD
func.func @depth_to_space_mode(%x: tensor<1x4x2x2xf32>) {
  // expected-error @+1 {{mode "RDC" is neither "DCR" nor "CRD"}}
  %0 = nnc.depth_to_space %x blocksize = 2 mode = "RDC" : tensor<1x4x2x2xf32>
  return
}

// -----

// space_to_depth: unranked input
func.func @space_to_depth_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.space_to_depth %x blocksize = 2 : tensor<*xf32>
  return
}

// -----

// space_to_depth: NCHW input
func.func @space_to_depth_rank(%x: tensor<1x4x2x2x2xf32>) {
  // expected-error @+1 {{expects a rank-4 NCHW input, got rank 5}}
  %0 = nnc.space_to_depth %x blocksize = 2 : tensor<1x4x2x2x2xf32>
  return
}

// -----

// space_to_depth: blocksize must be positive
func.func @space_to_depth_blocksize(%x: tensor<1x4x2x2xf32>) {
  // expected-error @+1 {{blocksize -2 must be positive and its square fit in int64}}
  %0 = nnc.space_to_depth %x blocksize = -2 : tensor<1x4x2x2xf32>
  return
}

// -----

// space_to_depth: spatial dimensions must be multiples of blocksize
func.func @space_to_depth_spatial(%x: tensor<1x4x?x5xf32>) {
  // expected-error @+1 {{spatial dimension 3 of size 5 is not a multiple of blocksize 2}}
  %0 = nnc.space_to_depth %x blocksize = 2 : tensor<1x4x?x5xf32>
  return
}

// -----

// space_to_depth: the channel count must fit in int64
func.func @space_to_depth_overflow(%x: tensor<1x4611686018427387904x2x2xf32>) {
  // expected-error @+1 {{channels 4611686018427387904 times blocksize^2 = 4 overflow int64}}
  %0 = nnc.space_to_depth %x blocksize = 2 : tensor<1x4611686018427387904x2x2xf32>
  return
}

// -----

// gather: unranked data
func.func @gather_unranked_data(%x: tensor<*xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.gather %x, %i : tensor<*xf32>, tensor<2xi64>
  return
}

// -----

// gather: unranked indices
func.func @gather_unranked_indices(%x: tensor<4xf32>, %i: tensor<*xi64>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xi64>'}}
  %0 = nnc.gather %x, %i : tensor<4xf32>, tensor<*xi64>
  return
}

// -----

// gather: axis out of range
func.func @gather_axis(%x: tensor<4x3xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{axis 2 is out of range for data rank 2}}
  %0 = nnc.gather %x, %i axis = 2 : tensor<4x3xf32>, tensor<2xi64>
  return
}

// -----

// gather: scalar data has no axis to gather along
func.func @gather_scalar(%x: tensor<f32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{axis 0 is out of range for data rank 0}}
  %0 = nnc.gather %x, %i : tensor<f32>, tensor<2xi64>
  return
}

// -----

// gather: indices are i32 or i64
func.func @gather_index_type(%x: tensor<4xf32>, %i: tensor<2xi8>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of index (i32 or i64) values}}
  %0 = nnc.gather %x, %i : tensor<4xf32>, tensor<2xi8>
  return
}

// -----

// gather_elements: unranked data
func.func @gather_elements_unranked_data(%x: tensor<*xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.gather_elements %x, %i : tensor<*xf32>, tensor<2xi64>
  return
}

// -----

// gather_elements: unranked indices
func.func @gather_elements_unranked_indices(%x: tensor<4xf32>, %i: tensor<*xi64>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xi64>'}}
  %0 = nnc.gather_elements %x, %i : tensor<4xf32>, tensor<*xi64>
  return
}

// -----

// gather_elements: indices have the data's rank
func.func @gather_elements_rank(%x: tensor<4x3xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{indices rank 1 differs from data rank 2}}
  %0 = nnc.gather_elements %x, %i : tensor<4x3xf32>, tensor<2xi64>
  return
}

// -----

// gather_elements: axis out of range
func.func @gather_elements_axis(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>) {
  // expected-error @+1 {{axis -3 is out of range for data rank 2}}
  %0 = nnc.gather_elements %x, %i axis = -3 : tensor<4x3xf32>, tensor<2x3xi64>
  return
}

// -----

// gather_elements: indices no larger than the data off the axis
func.func @gather_elements_dims(%x: tensor<4x3xf32>, %i: tensor<2x5xi64>) {
  // expected-error @+1 {{indices dimension 1 of size 5 exceeds the data's size 3}}
  %0 = nnc.gather_elements %x, %i : tensor<4x3xf32>, tensor<2x5xi64>
  return
}

// -----

// gather_elements: indices are i32 or i64
func.func @gather_elements_index_type(%x: tensor<4xf32>, %i: tensor<2xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of index (i32 or i64) values}}
  %0 = nnc.gather_elements %x, %i : tensor<4xf32>, tensor<2xf32>
  return
}

// -----

// scatter_elements: unranked data
func.func @scatter_elements_unranked_data(%x: tensor<*xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.scatter_elements %x, %i, %u : tensor<*xf32>, tensor<2xi64>, tensor<2xf32>
  return
}

// -----

// scatter_elements: unranked indices
func.func @scatter_elements_unranked_indices(%x: tensor<4xf32>, %i: tensor<*xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xi64>'}}
  %0 = nnc.scatter_elements %x, %i, %u : tensor<4xf32>, tensor<*xi64>, tensor<2xf32>
  return
}

// -----

// scatter_elements: unranked updates
func.func @scatter_elements_unranked_updates(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.scatter_elements %x, %i, %u : tensor<4xf32>, tensor<2xi64>, tensor<*xf32>
  return
}

// -----

// scatter_elements: indices have the data's rank
func.func @scatter_elements_rank(%x: tensor<4x3xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{indices rank 1 differs from data rank 2}}
  %0 = nnc.scatter_elements %x, %i, %u : tensor<4x3xf32>, tensor<2xi64>, tensor<2xf32>
  return
}

// -----

// scatter_elements: axis out of range
func.func @scatter_elements_axis(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{axis 1 is out of range for data rank 1}}
  %0 = nnc.scatter_elements %x, %i, %u axis = 1 : tensor<4xf32>, tensor<2xi64>, tensor<2xf32>
  return
}

// -----

// scatter_elements: indices no larger than the data off the axis
func.func @scatter_elements_dims(%x: tensor<4x3xf32>, %i: tensor<5x2xi64>, %u: tensor<5x2xf32>) {
  // expected-error @+1 {{indices dimension 0 of size 5 exceeds the data's size 4}}
  %0 = nnc.scatter_elements %x, %i, %u axis = 1 : tensor<4x3xf32>, tensor<5x2xi64>, tensor<5x2xf32>
  return
}

// -----

// scatter_elements: updates have the data's element type
func.func @scatter_elements_update_type(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf16>) {
  // expected-error @+1 {{updates element type 'f16' differs from data element type 'f32'}}
  %0 = nnc.scatter_elements %x, %i, %u : tensor<4xf32>, tensor<2xi64>, tensor<2xf16>
  return
}

// -----

// scatter_elements: updates have the indices' shape
func.func @scatter_elements_update_shape(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<3xf32>) {
  // expected-error @+1 {{updates shape 3 is incompatible with the expected 2}}
  %0 = nnc.scatter_elements %x, %i, %u : tensor<4xf32>, tensor<2xi64>, tensor<3xf32>
  return
}

// -----

// scatter_elements: reduction is one of the scatter reductions
func.func @scatter_elements_reduction(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'reduction' [none, add, mul, max, min]}}
  %0 = nnc.scatter_elements %x, %i, %u reduction = mean : tensor<4xf32>, tensor<2xi64>, tensor<2xf32>
  return
}

// -----

// scatter_nd: unranked data
func.func @scatter_nd_unranked_data(%x: tensor<*xf32>, %i: tensor<2x1xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.scatter_nd %x, %i, %u : tensor<*xf32>, tensor<2x1xi64>, tensor<2xf32>
  return
}

// -----

// scatter_nd: unranked indices
func.func @scatter_nd_unranked_indices(%x: tensor<4xf32>, %i: tensor<*xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xi64>'}}
  %0 = nnc.scatter_nd %x, %i, %u : tensor<4xf32>, tensor<*xi64>, tensor<2xf32>
  return
}

// -----

// scatter_nd: unranked updates
func.func @scatter_nd_unranked_updates(%x: tensor<4xf32>, %i: tensor<2x1xi64>, %u: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.scatter_nd %x, %i, %u : tensor<4xf32>, tensor<2x1xi64>, tensor<*xf32>
  return
}

// -----

// scatter_nd: data and indices have rank at least 1
func.func @scatter_nd_rank(%x: tensor<4xf32>, %i: tensor<i64>, %u: tensor<f32>) {
  // expected-error @+1 {{expects data and indices of rank at least 1, got 1 and 0}}
  %0 = nnc.scatter_nd %x, %i, %u : tensor<4xf32>, tensor<i64>, tensor<f32>
  return
}

// -----

// scatter_nd: the index length is at most the data rank
func.func @scatter_nd_index_length(%x: tensor<4x5xf32>, %i: tensor<2x3xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{index length 3 is outside [1, 2] for data rank 2}}
  %0 = nnc.scatter_nd %x, %i, %u : tensor<4x5xf32>, tensor<2x3xi64>, tensor<2xf32>
  return
}

// -----

// scatter_nd: a dynamic index length is deduced from the updates' rank
func.func @scatter_nd_deduced_length(%x: tensor<4x5xf32>, %i: tensor<2x?xi64>, %u: tensor<2x5x1xf32>) {
  // expected-error @+1 {{updates rank 3 implies an index length 0 outside [1, 2]}}
  %0 = nnc.scatter_nd %x, %i, %u : tensor<4x5xf32>, tensor<2x?xi64>, tensor<2x5x1xf32>
  return
}

// -----

// scatter_nd: updates have shape indices[:-1] + data[k:]
func.func @scatter_nd_update_shape(%x: tensor<4x5x6xf32>, %i: tensor<3x2xi64>, %u: tensor<3x5xf32>) {
  // expected-error @+1 {{updates shape 3x5 is incompatible with the expected 3x6}}
  %0 = nnc.scatter_nd %x, %i, %u : tensor<4x5x6xf32>, tensor<3x2xi64>, tensor<3x5xf32>
  return
}

// -----

// scatter_nd: updates of the wrong rank
func.func @scatter_nd_update_rank(%x: tensor<4x5x6xf32>, %i: tensor<3x2xi64>, %u: tensor<3xf32>) {
  // expected-error @+1 {{updates shape 3 is incompatible with the expected 3x6}}
  %0 = nnc.scatter_nd %x, %i, %u : tensor<4x5x6xf32>, tensor<3x2xi64>, tensor<3xf32>
  return
}

// -----

// scatter_nd: updates have the data's element type
func.func @scatter_nd_update_type(%x: tensor<4xi32>, %i: tensor<2x1xi64>, %u: tensor<2xi64>) {
  // expected-error @+1 {{updates element type 'i64' differs from data element type 'i32'}}
  %0 = nnc.scatter_nd %x, %i, %u : tensor<4xi32>, tensor<2x1xi64>, tensor<2xi64>
  return
}

// -----

// one_hot: unranked indices
func.func @one_hot_unranked(%i: tensor<*xi64>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xi64>'}}
  %0 = nnc.one_hot %i depth = 3 : tensor<*xi64> -> f32
  return
}

// -----

// one_hot: the element type must be an nnc element type
func.func @one_hot_element_type(%i: tensor<4xi64>) {
  // expected-error @+1 {{element type index is not an nnc element type}}
  %0 = nnc.one_hot %i depth = 3 : tensor<4xi64> -> index
  return
}

// -----

// one_hot: depth must be positive
func.func @one_hot_depth(%i: tensor<4xi64>) {
  // expected-error @+1 {{depth 0 must be positive}}
  %0 = nnc.one_hot %i depth = 0 : tensor<4xi64> -> f32
  return
}

// -----

// one_hot: axis in [-(rank + 1), rank]
func.func @one_hot_axis(%i: tensor<4xi64>) {
  // expected-error @+1 {{axis -3 is out of range [-2, 1]}}
  %0 = nnc.one_hot %i depth = 3 axis = -3 : tensor<4xi64> -> f32
  return
}

// -----

// one_hot: on_value must be representable in the element type
func.func @one_hot_on_value(%i: tensor<4xi64>) {
  // expected-error @+1 {{on_value 1.500000e+00 is not representable in 'i32'}}
  %0 = nnc.one_hot %i depth = 3 on_value = 1.5 : tensor<4xi64> -> i32
  return
}

// -----

// one_hot: off_value must be representable in the element type
func.func @one_hot_off_value(%i: tensor<4xi64>) {
  // expected-error @+1 {{off_value -1.000000e+00 is not representable in 'i1'}}
  %0 = nnc.one_hot %i depth = 3 off_value = -1.0 : tensor<4xi64> -> i1
  return
}

// -----

// one_hot: indices are i32 or i64
func.func @one_hot_index_type(%i: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of index (i32 or i64) values}}
  %0 = nnc.one_hot %i depth = 3 : tensor<4xf32> -> f32
  return
}

// -----

// Constant indices out of range for a static axis are refused (others are
// checked at run time by the kernels).
func.func @gather_constant_index(%x: tensor<4x3xf32>) {
  %i = nnc.constant dense<[0, 3, -4]> : tensor<3xi64>
  // expected-error @+1 {{constant index 3 (element 1 of the indices) is out of range [-3, 3) for axis 1 of the data}}
  %0 = nnc.gather %x, %i axis = -1 : tensor<4x3xf32>, tensor<3xi64>
  return
}

// -----

func.func @gather_constant_negative(%x: tensor<4x3xf32>) {
  %i = nnc.constant dense<-5> : tensor<2xi32>
  // expected-error @+1 {{constant index -5 (element 0 of the indices) is out of range [-4, 4) for axis 0 of the data}}
  %0 = nnc.gather %x, %i : tensor<4x3xf32>, tensor<2xi32>
  return
}

// -----

// In range, or along a dynamic axis: nothing to refuse at compile time.
func.func @gather_constant_ok(%x: tensor<4x3xf32>, %d: tensor<?x3xf32>) {
  %i = nnc.constant dense<[0, 3, -4]> : tensor<3xi64>
  %0 = nnc.gather %x, %i : tensor<4x3xf32>, tensor<3xi64>
  %j = nnc.constant dense<[100]> : tensor<1xi64>
  %1 = nnc.gather %d, %j : tensor<?x3xf32>, tensor<1xi64>
  return
}

// -----

func.func @gather_elements_constant_index(%x: tensor<2x3xf32>) {
  %i = nnc.constant dense<[[0, 1], [2, 7]]> : tensor<2x2xi64>
  // expected-error @+1 {{constant index 7 (element 3 of the indices) is out of range [-3, 3) for axis 1 of the data}}
  %0 = nnc.gather_elements %x, %i axis = 1 : tensor<2x3xf32>, tensor<2x2xi64>
  return
}

// -----

func.func @scatter_elements_constant_index(%x: tensor<2x3xf32>, %u: tensor<1x2xf32>) {
  %i = nnc.constant dense<[[0, -3]]> : tensor<1x2xi64>
  // expected-error @+1 {{constant index -3 (element 1 of the indices) is out of range [-2, 2) for axis 0 of the data}}
  %0 = nnc.scatter_elements %x, %i, %u : tensor<2x3xf32>, tensor<1x2xi64>, tensor<1x2xf32>
  return
}

// -----

// scatter_nd: each coordinate of a tuple against its own axis.
func.func @scatter_nd_constant_index(%x: tensor<4x3xf32>, %u: tensor<2xf32>) {
  %i = nnc.constant dense<[[3, 2], [1, 3]]> : tensor<2x2xi64>
  // expected-error @+1 {{constant index 3 (element 3 of the indices) is out of range [-3, 3) for axis 1 of the data}}
  %0 = nnc.scatter_nd %x, %i, %u : tensor<4x3xf32>, tensor<2x2xi64>, tensor<2xf32>
  return
}
