// RUN: nnc-opt %s --split-input-file --verify-diagnostics

// matmul: an unranked lhs is rejected by the parser
func.func @matmul_unranked_lhs(%a: tensor<*xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.matmul %a, %b : tensor<*xf32>, tensor<4x5xf32>
  return
}

// -----

// matmul: an unranked rhs is rejected
func.func @matmul_unranked_rhs(%a: tensor<4x5xf32>, %b: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.matmul %a, %b : tensor<4x5xf32>, tensor<*xf32>
  return
}

// -----

// matmul: scalars cannot be multiplied as matrices
func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects operands of rank >= 1, got ranks 0 and 1}}
  %0 = nnc.matmul %a, %b : tensor<f32>, tensor<4xf32>
  return
}

// -----

// matmul: operands must share an element type
func.func @matmul_element_types(%a: tensor<2x4xf32>, %b: tensor<4x5xf16>) {
  // expected-error @+1 {{expects rhs element type 'f16' to equal the input's 'f32'}}
  %0 = nnc.matmul %a, %b : tensor<2x4xf32>, tensor<4x5xf16>
  return
}

// -----

// matmul: static contracted dims must agree
func.func @matmul_k_mismatch(%a: tensor<?x2x4xf32>, %b: tensor<5x3xf32>) {
  // expected-error @+1 {{contracted dimensions differ: lhs ?x2x4 has K = 4 but rhs 5x3 has K = 5}}
  %0 = nnc.matmul %a, %b : tensor<?x2x4xf32>, tensor<5x3xf32>
  return
}

// -----

// matmul: the K of a promoted vector is checked too
func.func @matmul_vector_k_mismatch(%a: tensor<3x4xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{contracted dimensions differ: lhs 3x4 has K = 4 but rhs 5 has K = 5}}
  %0 = nnc.matmul %a, %b : tensor<3x4xf32>, tensor<5xf32>
  return
}

// -----

// matmul: batch dims must broadcast
func.func @matmul_batch_mismatch(%a: tensor<2x3x4xf32>, %b: tensor<5x4x6xf32>) {
  // expected-error @+1 {{batch dimensions 2 and 5 do not broadcast}}
  %0 = nnc.matmul %a, %b : tensor<2x3x4xf32>, tensor<5x4x6xf32>
  return
}

// -----

// matmul: booleans are not numeric
func.func @matmul_bool(%a: tensor<2x2xi1>, %b: tensor<2x2xi1>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of numeric values}}
  %0 = "nnc.matmul"(%a, %b) : (tensor<2x2xi1>, tensor<2x2xi1>) -> tensor<2x2xi1>
  return
}

// -----

// matmul: a spelled-out result type must equal the inferred one
func.func @matmul_wrong_result(%a: tensor<2x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{'nnc.matmul' op inferred type(s) 'tensor<2x5xf32>' are incompatible with return type(s) of operation 'tensor<2x6xf32>'}}
  // expected-error @+1 {{'nnc.matmul' op failed to infer returned types}}
  %0 = "nnc.matmul"(%a, %b) : (tensor<2x4xf32>, tensor<4x5xf32>) -> tensor<2x6xf32>
  return
}

// -----

// gemm: an unranked a is rejected
func.func @gemm_unranked_a(%a: tensor<*xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.gemm %a, %b : tensor<*xf32>, tensor<4x5xf32>
  return
}

// -----

// gemm: an unranked b is rejected
func.func @gemm_unranked_b(%a: tensor<4x5xf32>, %b: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.gemm %a, %b : tensor<4x5xf32>, tensor<*xf32>
  return
}

// -----

// gemm: an unranked c is rejected
func.func @gemm_unranked_c(%a: tensor<2x4xf32>, %b: tensor<4x5xf32>, %c: tensor<*xf32>) {
  // expected-error @+1 {{expects c to be a ranked tensor, got 'tensor<*xf32>'}}
  %0 = nnc.gemm %a, %b, %c : tensor<2x4xf32>, tensor<4x5xf32>, tensor<*xf32>
  return
}

// -----

// gemm: operands must be matrices
func.func @gemm_rank(%a: tensor<3x2x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{expects matrices (rank 2), got ranks 3 and 2}}
  %0 = nnc.gemm %a, %b : tensor<3x2x4xf32>, tensor<4x5xf32>
  return
}

// -----

// gemm: a and b must share an element type
func.func @gemm_b_element_type(%a: tensor<2x4xf32>, %b: tensor<4x5xf64>) {
  // expected-error @+1 {{expects b element type 'f64' to equal the input's 'f32'}}
  %0 = nnc.gemm %a, %b : tensor<2x4xf32>, tensor<4x5xf64>
  return
}

// -----

// gemm: c must share the element type
func.func @gemm_c_element_type(%a: tensor<2x4xi32>, %b: tensor<4x5xi32>, %c: tensor<5xi64>) {
  // expected-error @+1 {{expects c element type 'i64' to equal the input's 'i32'}}
  %0 = nnc.gemm %a, %b, %c : tensor<2x4xi32>, tensor<4x5xi32>, tensor<5xi64>
  return
}

// -----

// gemm: K is checked after the transposes
func.func @gemm_k_mismatch(%a: tensor<2x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{contracted dimensions differ: op(a) is 4x2 but op(b) is 4x5}}
  %0 = nnc.gemm %a, %b trans_a = true : tensor<2x4xf32>, tensor<4x5xf32>
  return
}

// -----

// gemm: c must broadcast to [M, N]
func.func @gemm_c_shape(%a: tensor<2x4xf32>, %b: tensor<4x5xf32>, %c: tensor<3x5xf32>) {
  // expected-error @+1 {{c of shape 3x5 does not broadcast to the result shape 2x5}}
  %0 = nnc.gemm %a, %b, %c : tensor<2x4xf32>, tensor<4x5xf32>, tensor<3x5xf32>
  return
}

// -----

// gemm: c of higher rank than the result is rejected
func.func @gemm_c_rank(%a: tensor<2x4xf32>, %b: tensor<4x5xf32>, %c: tensor<1x2x5xf32>) {
  // expected-error @+1 {{c of shape 1x2x5 does not broadcast to the result shape 2x5}}
  %0 = nnc.gemm %a, %b, %c : tensor<2x4xf32>, tensor<4x5xf32>, tensor<1x2x5xf32>
  return
}

// -----

// conv: an unranked input is rejected
func.func @conv_unranked_input(%x: tensor<*xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.conv %x, %w : tensor<*xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

// conv: the input needs batch, channel and at least one spatial dim
func.func @conv_input_rank(%x: tensor<3x8xf32>, %w: tensor<4x3xf32>) {
  // expected-error @+1 {{expects input of rank >= 3 ([N, C, spatial...]), got rank 2}}
  %0 = nnc.conv %x, %w : tensor<3x8xf32>, tensor<4x3xf32>
  return
}

// -----

// conv: an unranked weight is rejected
func.func @conv_unranked_weight(%x: tensor<1x3x8x8xf32>, %w: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.conv %x, %w : tensor<1x3x8x8xf32>, tensor<*xf32>
  return
}

// -----

// conv: weight rank must equal input rank
func.func @conv_weight_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+1 {{expects weight of rank 4 like the input, got rank 3}}
  %0 = nnc.conv %x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3xf32>
  return
}

// -----

// conv: weight element type must match
func.func @conv_weight_element_type(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf16>) {
  // expected-error @+1 {{expects weight element type 'f16' to equal the input's 'f32'}}
  %0 = nnc.conv %x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf16>
  return
}

// -----

// conv: integer tensors are not convolved
func.func @conv_integer(%x: tensor<1x3x8x8xi32>, %w: tensor<4x3x3x3xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = "nnc.conv"(%x, %w) : (tensor<1x3x8x8xi32>, tensor<4x3x3x3xi32>) -> tensor<1x4x6x6xi32>
  return
}

// -----

// conv: groups must be positive
func.func @conv_groups_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{groups is 0, must be positive}}
  %0 = nnc.conv %x, %w groups = 0 : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

// conv: input channels must be divisible by groups
func.func @conv_channels_groups(%x: tensor<1x3x8x8xf32>, %w: tensor<4x1x3x3xf32>) {
  // expected-error @+1 {{input channels 3 are not divisible by groups 2}}
  %0 = nnc.conv %x, %w groups = 2 : tensor<1x3x8x8xf32>, tensor<4x1x3x3xf32>
  return
}

// -----

// conv: a zero-sized kernel is rejected
func.func @conv_empty_kernel(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x0xf32>) {
  // expected-error @+1 {{kernel dimension 1 is 0, must be positive}}
  %0 = nnc.conv %x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x0xf32>
  return
}

// -----

// conv: strides need one entry per spatial dim
func.func @conv_strides_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{strides has 1 entries but expected 2}}
  %0 = nnc.conv %x, %w strides = [2] : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

// conv: strides must be positive
func.func @conv_strides_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{strides entry 1 is 0, must be positive}}
  %0 = nnc.conv %x, %w strides = [1, 0] : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

// conv: dilations need one entry per spatial dim
func.func @conv_dilations_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{dilations has 3 entries but expected 2}}
  %0 = nnc.conv %x, %w dilations = [1, 1, 1] : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

// conv: dilations must be positive
func.func @conv_dilations_negative(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{dilations entry 0 is -1, must be positive}}
  %0 = nnc.conv %x, %w dilations = [-1, 1] : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

// conv: pads need begin and end entries per spatial dim
func.func @conv_pads_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{pads has 2 entries but expected 4}}
  %0 = nnc.conv %x, %w pads = [1, 1] : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

// conv: pads must be non-negative
func.func @conv_pads_negative(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{pads entry 3 is -2, must be non-negative}}
  %0 = nnc.conv %x, %w pads = [0, 0, 0, -2] : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

// conv: weight dim 1 must be channels / groups
func.func @conv_weight_channels(%x: tensor<1x8x8x8xf32>, %w: tensor<4x8x3x3xf32>) {
  // expected-error @+1 {{weight has 8 input channels per group but the input has 8 channels in 2 groups}}
  %0 = nnc.conv %x, %w groups = 2 : tensor<1x8x8x8xf32>, tensor<4x8x3x3xf32>
  return
}

// -----

// conv: output channels must be divisible by groups
func.func @conv_out_channels_groups(%x: tensor<1x8x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error @+1 {{output channels 6 are not divisible by groups 4}}
  %0 = nnc.conv %x, %w groups = 4 : tensor<1x8x8x8xf32>, tensor<6x2x3x3xf32>
  return
}

// -----

// conv: an unranked bias is rejected
func.func @conv_unranked_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<*xf32>) {
  // expected-error @+1 {{expects bias to be a ranked tensor, got 'tensor<*xf32>'}}
  %0 = nnc.conv %x, %w, %b : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<*xf32>
  return
}

// -----

// conv: bias element type must match
func.func @conv_bias_element_type(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xbf16>) {
  // expected-error @+1 {{expects bias element type 'bf16' to equal the input's 'f32'}}
  %0 = nnc.conv %x, %w, %b : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xbf16>
  return
}

// -----

// conv: bias must have one entry per output channel
func.func @conv_bias_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{expects bias of shape 4, got 3}}
  %0 = nnc.conv %x, %w, %b : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>
  return
}

// -----

// conv: bias must be rank 1
func.func @conv_bias_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<1x4xf32>) {
  // expected-error @+1 {{expects bias of shape 4, got 1x4}}
  %0 = nnc.conv %x, %w, %b : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<1x4xf32>
  return
}

// -----

// conv: the dilated kernel must fit into the padded input
func.func @conv_kernel_too_large(%x: tensor<1x3x8x4xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{output spatial dimension 1 is empty: padded input size 4 is smaller than the dilated kernel size 5}}
  %0 = nnc.conv %x, %w dilations = [1, 2] : tensor<1x3x8x4xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

// conv: shape arithmetic that overflows int64 is an error, not UB
func.func @conv_overflow(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{output spatial dimension 0 overflows int64}}
  %0 = nnc.conv %x, %w dilations = [4611686018427387904, 1] : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

// conv_weight_grad: grad must have the convolution's output size
func.func @conv_weight_grad_output(%x: tensor<1x3x8x8xf32>, %g: tensor<1x4x7x7xf32>) {
  // expected-error @+1 {{grad spatial dimension 0 is 7 but the convolution's output has 6}}
  %0 = nnc.conv_weight_grad %x, %g kernel_shape = [3, 3] : tensor<1x3x8x8xf32>, tensor<1x4x7x7xf32>
  return
}

// -----

// conv_weight_grad: one kernel size per spatial dimension
func.func @conv_weight_grad_kernel(%x: tensor<1x3x8x8xf32>, %g: tensor<1x4x6x6xf32>) {
  // expected-error @+1 {{kernel_shape has 1 entries but expected 2}}
  %0 = nnc.conv_weight_grad %x, %g kernel_shape = [3] : tensor<1x3x8x8xf32>, tensor<1x4x6x6xf32>
  return
}

// -----

// conv_weight_grad: the batches agree
func.func @conv_weight_grad_batch(%x: tensor<2x3x8x8xf32>, %g: tensor<1x4x6x6xf32>) {
  // expected-error @+1 {{input batch 2 differs from grad batch 1}}
  %0 = nnc.conv_weight_grad %x, %g kernel_shape = [3, 3] : tensor<2x3x8x8xf32>, tensor<1x4x6x6xf32>
  return
}

// -----

// conv_weight_grad: grad channels are divisible by groups
func.func @conv_weight_grad_groups(%x: tensor<1x4x8x8xf32>, %g: tensor<1x3x6x6xf32>) {
  // expected-error @+1 {{grad channels 3 are not divisible by groups 2}}
  %0 = nnc.conv_weight_grad %x, %g kernel_shape = [3, 3] groups = 2 : tensor<1x4x8x8xf32>, tensor<1x3x6x6xf32>
  return
}

// -----

// conv_transpose: an unranked input is rejected
func.func @conv_transpose_unranked(%x: tensor<*xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.conv_transpose %x, %w : tensor<*xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

// conv_transpose: weight rank must equal input rank
func.func @conv_transpose_weight_rank(%x: tensor<1x4x8x8xf32>, %w: tensor<4x3x3x3x3xf32>) {
  // expected-error @+1 {{expects weight of rank 4 like the input, got rank 5}}
  %0 = nnc.conv_transpose %x, %w : tensor<1x4x8x8xf32>, tensor<4x3x3x3x3xf32>
  return
}

// -----

// conv_transpose: input channels must be divisible by groups
func.func @conv_transpose_groups(%x: tensor<1x5x8x8xf32>, %w: tensor<5x1x3x3xf32>) {
  // expected-error @+1 {{input channels 5 are not divisible by groups 2}}
  %0 = nnc.conv_transpose %x, %w groups = 2 : tensor<1x5x8x8xf32>, tensor<5x1x3x3xf32>
  return
}

// -----

// conv_transpose: output_padding needs one entry per spatial dim
func.func @conv_transpose_output_padding_length(%x: tensor<1x4x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{output_padding has 1 entries but expected 2}}
  %0 = nnc.conv_transpose %x, %w strides = [2, 2] output_padding = [1] : tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

// conv_transpose: output_padding must be non-negative
func.func @conv_transpose_output_padding_negative(%x: tensor<1x4x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{output_padding entry 0 is -1, must be non-negative}}
  %0 = nnc.conv_transpose %x, %w output_padding = [-1, 0] : tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

// conv_transpose: output_padding must be below max(stride, dilation)
func.func @conv_transpose_output_padding_bound(%x: tensor<1x4x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{output_padding entry 1 is 2, must be less than max(stride, dilation) = 2}}
  %0 = nnc.conv_transpose %x, %w strides = [2, 2] output_padding = [1, 2] : tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

// conv_transpose: strides are checked like conv's
func.func @conv_transpose_strides(%x: tensor<1x4x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{strides entry 0 is 0, must be positive}}
  %0 = nnc.conv_transpose %x, %w strides = [0, 1] : tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

// conv_transpose: weight dim 0 must be the input channels
func.func @conv_transpose_weight_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<3x4x3x3xf32>) {
  // expected-error @+1 {{weight has 3 input channels but the input has 4}}
  %0 = nnc.conv_transpose %x, %w : tensor<1x4x8x8xf32>, tensor<3x4x3x3xf32>
  return
}

// -----

// conv_transpose: bias must have M = weight dim 1 * groups entries
func.func @conv_transpose_bias(%x: tensor<1x4x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{expects bias of shape 6, got 3}}
  %0 = nnc.conv_transpose %x, %w, %b groups = 2 : tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>
  return
}

// -----

// conv_transpose: output channels that overflow int64 are rejected
func.func @conv_transpose_channels_overflow(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4611686018427387904x3x3xf32>) {
  // expected-error @+1 {{output channels overflow int64}}
  %0 = nnc.conv_transpose %x, %w groups = 2 : tensor<1x4x8x8xf32>, tensor<4x4611686018427387904x3x3xf32>
  return
}

// -----

// conv_transpose: pads larger than the output are rejected
func.func @conv_transpose_negative_output(%x: tensor<1x4x2x2xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{output spatial dimension 0 is -1, must be positive}}
  %0 = nnc.conv_transpose %x, %w pads = [3, 0, 2, 0] : tensor<1x4x2x2xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

// conv_transpose: output dims that overflow int64 are rejected
func.func @conv_transpose_overflow(%x: tensor<1x4x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{output spatial dimension 1 overflows int64}}
  %0 = nnc.conv_transpose %x, %w strides = [1, 4611686018427387904] : tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

// max_pool: an unranked input is rejected
func.func @max_pool_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.max_pool %x kernel_shape = [2, 2] : tensor<*xf32>
  return
}

// -----

// max_pool: the input needs a spatial dim
func.func @max_pool_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expects input of rank >= 3 ([N, C, spatial...]), got rank 2}}
  %0 = nnc.max_pool %x kernel_shape = [2] : tensor<2x3xf32>
  return
}

// -----

// max_pool_grad: grad must have the pooling's result shape
func.func @max_pool_grad_shape(%x: tensor<1x3x8x8xf32>, %g: tensor<1x3x3x4xf32>) {
  // expected-error @+1 {{grad dimension 2 is 3 but the pooling's result has 4}}
  %0 = nnc.max_pool_grad %x, %g kernel_shape = [2, 2] strides = [2, 2] : tensor<1x3x8x8xf32>, tensor<1x3x3x4xf32>
  return
}

// -----

// max_pool_grad: grad has the pooling's rank
func.func @max_pool_grad_rank(%x: tensor<1x3x8x8xf32>, %g: tensor<1x3x16xf32>) {
  // expected-error @+1 {{expects grad of rank 4 like the pooling's result, got rank 3}}
  %0 = nnc.max_pool_grad %x, %g kernel_shape = [2, 2] strides = [2, 2] : tensor<1x3x8x8xf32>, tensor<1x3x16xf32>
  return
}

// -----

// max_pool_grad: grad has the input's element type
func.func @max_pool_grad_type(%x: tensor<1x3x8x8xf32>, %g: tensor<1x3x4x4xf16>) {
  // expected-error @+1 {{grad}}
  %0 = nnc.max_pool_grad %x, %g kernel_shape = [2, 2] strides = [2, 2] : tensor<1x3x8x8xf32>, tensor<1x3x4x4xf16>
  return
}

// -----

// max_pool_grad: the window attributes are checked as the pooling's
func.func @max_pool_grad_kernel(%x: tensor<1x3x8x8xf32>, %g: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{kernel_shape has 1 entries but expected 2}}
  %0 = nnc.max_pool_grad %x, %g kernel_shape = [2] strides = [2, 2] : tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>
  return
}

// -----

// max_pool: kernel_shape is required
func.func @max_pool_no_kernel(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{requires attribute 'kernel_shape'}}
  %0 = "nnc.max_pool"(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

// max_pool: kernel_shape needs one entry per spatial dim
func.func @max_pool_kernel_length(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{kernel_shape has 3 entries but expected 2}}
  %0 = nnc.max_pool %x kernel_shape = [2, 2, 2] : tensor<1x3x8x8xf32>
  return
}

// -----

// max_pool: kernel_shape entries must be positive
func.func @max_pool_kernel_zero(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{kernel_shape entry 0 is 0, must be positive}}
  %0 = nnc.max_pool %x kernel_shape = [0, 2] : tensor<1x3x8x8xf32>
  return
}

// -----

// max_pool: dilations are checked
func.func @max_pool_dilations(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{dilations entry 1 is 0, must be positive}}
  %0 = nnc.max_pool %x kernel_shape = [2, 2] dilations = [1, 0] : tensor<1x3x8x8xf32>
  return
}

// -----

// max_pool: the window must fit into the padded input
func.func @max_pool_window_too_large(%x: tensor<1x3x2x8xf32>) {
  // expected-error @+1 {{output spatial dimension 0 is empty: padded input size 2 is smaller than the dilated kernel size 3}}
  %0 = nnc.max_pool %x kernel_shape = [3, 3] : tensor<1x3x2x8xf32>
  return
}

// -----

// max_pool: booleans are not pooled
func.func @max_pool_bool(%x: tensor<1x3x8x8xi1>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of numeric values}}
  %0 = "nnc.max_pool"(%x) <{kernel_shape = array<i64: 1, 1>}> : (tensor<1x3x8x8xi1>) -> tensor<1x3x8x8xi1>
  return
}

// -----

// avg_pool: pads are checked
func.func @avg_pool_pads(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{pads has 3 entries but expected 4}}
  %0 = nnc.avg_pool %x kernel_shape = [2, 2] pads = [1, 1, 1] : tensor<1x3x8x8xf32>
  return
}

// -----

// avg_pool: integer tensors are not averaged
func.func @avg_pool_integer(%x: tensor<1x3x8x8xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = "nnc.avg_pool"(%x) <{kernel_shape = array<i64: 2, 2>}> : (tensor<1x3x8x8xi32>) -> tensor<1x3x7x7xi32>
  return
}

// -----

// avg_pool: a spelled-out result must equal the inferred one
func.func @avg_pool_wrong_result(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x4x4xf32>' are incompatible with return type(s) of operation 'tensor<1x3x7x7xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "nnc.avg_pool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
  return
}

// -----

// global_avg_pool: an unranked input is rejected
func.func @global_avg_pool_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.global_avg_pool %x : tensor<*xf32>
  return
}

// -----

// conv: an unranked operand in generic form fails the type constraint, not inference
func.func @conv_unranked_generic(%x: tensor<*xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = "nnc.conv"(%x, %w) : (tensor<*xf32>, tensor<4x3x3x3xf32>) -> tensor<*xf32>
  return
}

// -----

// global_max_pool: the input needs a spatial dim
func.func @global_max_pool_rank(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expects input of rank >= 3 ([N, C, spatial...]), got rank 2}}
  %0 = nnc.global_max_pool %x : tensor<4x8xf32>
  return
}
