// RUN: nnc-opt %s --split-input-file --verify-diagnostics

// softmax: axis out of range
func.func @softmax_bad_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = nnc.softmax %x axis = 2 : tensor<2x3xf32>
  return
}

// -----

// log_softmax: negative axis out of range
func.func @log_softmax_bad_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis -3 is out of range for rank 2}}
  %0 = nnc.log_softmax %x axis = -3 : tensor<2x3xf32>
  return
}

// -----

// softmax: a rank-0 operand has no axis
func.func @softmax_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{axis -1 is out of range for rank 0}}
  %0 = nnc.softmax %x : tensor<f32>
  return
}

// -----

// softmax: integer operands are rejected
func.func @softmax_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{must be ranked tensor of floating-point values}}
  %0 = nnc.softmax %x : tensor<4xi32>
  return
}

// -----

// softmax: unranked operands are rejected
func.func @softmax_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'}}
  %0 = nnc.softmax %x : tensor<*xf32>
  return
}

// -----

// batch_norm: unranked input in the generic form fails the operand constraint
func.func @batch_norm_unranked_generic(%x: tensor<*xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values, but got 'tensor<*xf32>'}}
  %0 = "nnc.batch_norm"(%x, %p, %p, %p, %p) : (tensor<*xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<*xf32>
  return
}

// -----

// batch_norm: unranked input is a parse error in the custom form
func.func @batch_norm_unranked(%x: tensor<*xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found}}
  %0 = nnc.batch_norm %x, %p, %p, %p, %p : tensor<*xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// batch_norm: input needs [N, C, ...]
func.func @batch_norm_rank1(%x: tensor<4xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{expects input of rank >= 2 ([N, C, ...]), got rank 1}}
  %0 = nnc.batch_norm %x, %p, %p, %p, %p : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// batch_norm: unranked parameter
func.func @batch_norm_unranked_param(%x: tensor<2x4xf32>, %p: tensor<4xf32>, %u: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found}}
  %0 = nnc.batch_norm %x, %p, %p, %p, %u : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<*xf32>
  return
}

// -----

// batch_norm: parameters are [C]
func.func @batch_norm_param_rank(%x: tensor<2x4xf32>, %p: tensor<4xf32>, %s: tensor<1x4xf32>) {
  // expected-error @+1 {{expects scale of rank 1 ([C]), got rank 2}}
  %0 = nnc.batch_norm %x, %s, %p, %p, %p : tensor<2x4xf32>, tensor<1x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// batch_norm: parameter size must equal the input's C
func.func @batch_norm_c_mismatch(%x: tensor<2x4x?xf32>, %p: tensor<4xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{expects bias to have 4 elements (C of input), got 3}}
  %0 = nnc.batch_norm %x, %p, %b, %p, %p : tensor<2x4x?xf32>, tensor<4xf32>, tensor<3xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// batch_norm: with a dynamic C the parameters must still agree with each other
func.func @batch_norm_params_disagree(%x: tensor<2x?xf32>, %p: tensor<4xf32>, %d: tensor<?xf32>, %m: tensor<5xf32>) {
  // expected-error @+1 {{expects mean to have 4 elements (C of scale), got 5}}
  %0 = nnc.batch_norm %x, %p, %d, %m, %d : tensor<2x?xf32>, tensor<4xf32>, tensor<?xf32>, tensor<5xf32>, tensor<?xf32>
  return
}

// -----

// batch_norm: scale and bias share an element type
func.func @batch_norm_scale_bias_type(%x: tensor<2x4xf16>, %p: tensor<4xf32>, %h: tensor<4xf16>) {
  // expected-error @+1 {{expects scale and bias of one element type, got 'f32' and 'f16'}}
  %0 = nnc.batch_norm %x, %p, %h, %p, %p : tensor<2x4xf16>, tensor<4xf32>, tensor<4xf16>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// batch_norm: mean and var share an element type
func.func @batch_norm_mean_var_type(%x: tensor<2x4xf16>, %p: tensor<4xf32>, %h: tensor<4xf16>) {
  // expected-error @+1 {{expects mean and var of one element type, got 'f16' and 'f32'}}
  %0 = nnc.batch_norm %x, %p, %p, %h, %p : tensor<2x4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>, tensor<4xf32>
  return
}

// -----

// batch_norm: integer input is rejected
func.func @batch_norm_int(%x: tensor<2x4xi32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = nnc.batch_norm %x, %p, %p, %p, %p : tensor<2x4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// batch_norm: epsilon must be positive
func.func @batch_norm_epsilon(%x: tensor<2x4xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{epsilon must be positive, got 0}}
  %0 = nnc.batch_norm %x, %p, %p, %p, %p epsilon = 0.0 : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// batch_norm_train: the running statistics are named in its diagnostics
func.func @batch_norm_train_running_var(%x: tensor<2x4xf32>, %p: tensor<4xf32>, %v: tensor<8xf32>) {
  // expected-error @+1 {{expects running_var to have 4 elements (C of input), got 8}}
  %y, %bm, %bv, %rm, %rv = nnc.batch_norm_train %x, %p, %p, %p, %v : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>
  return
}

// -----

// batch_norm_train: running_mean and running_var share an element type
func.func @batch_norm_train_stats_type(%x: tensor<2x4xf32>, %p: tensor<4xf32>, %d: tensor<4xf64>) {
  // expected-error @+1 {{expects running_mean and running_var of one element type, got 'f32' and 'f64'}}
  %y, %bm, %bv, %rm, %rv = nnc.batch_norm_train %x, %p, %p, %p, %d : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf64>
  return
}

// -----

// batch_norm_train: momentum must lie in [0, 1]
func.func @batch_norm_train_momentum(%x: tensor<2x4xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{momentum must be in [0, 1], got 1.5}}
  %y, %bm, %bv, %rm, %rv = nnc.batch_norm_train %x, %p, %p, %p, %p momentum = 1.5 : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// batch_norm_train: negative momentum
func.func @batch_norm_train_momentum_neg(%x: tensor<2x4xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{momentum must be in [0, 1], got -5.000000e-01}}
  %y, %bm, %bv, %rm, %rv = nnc.batch_norm_train %x, %p, %p, %p, %p momentum = -0.5 : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// batch_norm_train: epsilon must be positive
func.func @batch_norm_train_epsilon(%x: tensor<2x4xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{epsilon must be positive, got -1}}
  %y, %bm, %bv, %rm, %rv = nnc.batch_norm_train %x, %p, %p, %p, %p epsilon = -1.0 : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// batch_norm_train: a generic op whose declared statistics contradict C
func.func @batch_norm_train_result(%x: tensor<2x4xf32>, %p: tensor<4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x4xf32>', 'tensor<4xf32>', 'tensor<4xf32>', 'tensor<4xf32>', 'tensor<4xf32>' are incompatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:5 = "nnc.batch_norm_train"(%x, %p, %p, %p, %p) : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// layer_norm: unranked input
func.func @layer_norm_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found}}
  %y, %m, %r = nnc.layer_norm %x : tensor<*xf32>
  return
}

// -----

// layer_norm: axis out of range
func.func @layer_norm_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %y, %m, %r = nnc.layer_norm %x axis = 2 : tensor<2x3xf32>
  return
}

// -----

// layer_norm: unranked scale
func.func @layer_norm_unranked_scale(%x: tensor<2x3xf32>, %g: tensor<*xf32>) {
  // expected-error @+1 {{expects scale to be a ranked tensor, got 'tensor<*xf32>'}}
  %y, %m, %r = nnc.layer_norm %x scale(%g : tensor<*xf32>) : tensor<2x3xf32>
  return
}

// -----

// layer_norm: scale has the input's element type
func.func @layer_norm_scale_type(%x: tensor<2x3xf16>, %g: tensor<3xf32>) {
  // expected-error @+1 {{expects scale of element type 'f16' (the input's), got 'f32'}}
  %y, %m, %r = nnc.layer_norm %x scale(%g : tensor<3xf32>) : tensor<2x3xf16>
  return
}

// -----

// layer_norm: bias must broadcast to the normalized shape
func.func @layer_norm_bias_shape(%x: tensor<2x3x4xf32>, %b: tensor<2x3x4xf32>) {
  // expected-error @+1 {{bias shape 2x3x4 does not broadcast to the normalized shape 3x4}}
  %y, %m, %r = nnc.layer_norm %x bias(%b : tensor<2x3x4xf32>) axis = 1 : tensor<2x3x4xf32>
  return
}

// -----

// layer_norm: scale dims must agree with the normalized dims
func.func @layer_norm_scale_shape(%x: tensor<2x?x4xf32>, %g: tensor<5xf32>) {
  // expected-error @+1 {{scale shape 5 does not broadcast to the normalized shape 4}}
  %y, %m, %r = nnc.layer_norm %x scale(%g : tensor<5xf32>) : tensor<2x?x4xf32>
  return
}

// -----

// layer_norm: epsilon must be positive
func.func @layer_norm_epsilon(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{epsilon must be positive, got 0}}
  %y, %m, %r = nnc.layer_norm %x epsilon = 0.0 : tensor<2x3xf32>
  return
}

// -----

// group_norm: input needs [N, C, ...]
func.func @group_norm_rank(%x: tensor<4xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{expects input of rank >= 2 ([N, C, ...]), got rank 1}}
  %y, %m, %r = nnc.group_norm %x, %p, %p num_groups = 2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// group_norm: unranked input
func.func @group_norm_unranked(%x: tensor<*xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found}}
  %y, %m, %r = nnc.group_norm %x, %p, %p num_groups = 2 : tensor<*xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// group_norm: scale has the input's element type
func.func @group_norm_scale_type(%x: tensor<2x4xf32>, %p: tensor<4xf16>) {
  // expected-error @+1 {{expects scale of element type 'f32' (the input's), got 'f16'}}
  %y, %m, %r = nnc.group_norm %x, %p, %p num_groups = 2 : tensor<2x4xf32>, tensor<4xf16>, tensor<4xf16>
  return
}

// -----

// group_norm: bias size must equal C
func.func @group_norm_bias_size(%x: tensor<2x4xf32>, %p: tensor<4xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{expects bias to have 4 elements (C of input), got 2}}
  %y, %m, %r = nnc.group_norm %x, %p, %b num_groups = 2 : tensor<2x4xf32>, tensor<4xf32>, tensor<2xf32>
  return
}

// -----

// group_norm: num_groups must be positive
func.func @group_norm_groups_zero(%x: tensor<2x4xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{num_groups must be positive, got 0}}
  %y, %m, %r = nnc.group_norm %x, %p, %p num_groups = 0 : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// group_norm: num_groups must divide C (C known from the parameters)
func.func @group_norm_groups_divide(%x: tensor<2x?xf32>, %p: tensor<6xf32>) {
  // expected-error @+1 {{num_groups 4 does not divide C = 6}}
  %y, %m, %r = nnc.group_norm %x, %p, %p num_groups = 4 : tensor<2x?xf32>, tensor<6xf32>, tensor<6xf32>
  return
}

// -----

// group_norm: epsilon must be positive
func.func @group_norm_epsilon(%x: tensor<2x4xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{epsilon must be positive, got -1.000000e-03}}
  %y, %m, %r = nnc.group_norm %x, %p, %p num_groups = 2 epsilon = -1.0e-3 : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// instance_norm: needs spatial dims
func.func @instance_norm_rank(%x: tensor<2x4xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{expects input of rank >= 3 ([N, C, ...]), got rank 2}}
  %y, %m, %r = nnc.instance_norm %x, %p, %p : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// instance_norm: unranked input
func.func @instance_norm_unranked(%x: tensor<*xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found}}
  %y, %m, %r = nnc.instance_norm %x, %p, %p : tensor<*xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// instance_norm: bias has the input's element type
func.func @instance_norm_bias_type(%x: tensor<2x4x3xf32>, %p: tensor<4xf32>, %b: tensor<4xbf16>) {
  // expected-error @+1 {{expects bias of element type 'f32' (the input's), got 'bf16'}}
  %y, %m, %r = nnc.instance_norm %x, %p, %b : tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xbf16>
  return
}

// -----

// instance_norm: scale size must equal C
func.func @instance_norm_scale_size(%x: tensor<2x4x3xf32>, %p: tensor<3xf32>) {
  // expected-error @+1 {{expects scale to have 4 elements (C of input), got 3}}
  %y, %m, %r = nnc.instance_norm %x, %p, %p : tensor<2x4x3xf32>, tensor<3xf32>, tensor<3xf32>
  return
}

// -----

// instance_norm: epsilon must be positive
func.func @instance_norm_epsilon(%x: tensor<2x4x3xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{epsilon must be positive, got 0}}
  %y, %m, %r = nnc.instance_norm %x, %p, %p epsilon = 0.0 : tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// dropout: unranked input
func.func @dropout_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found}}
  %y, %m = nnc.dropout %x : tensor<*xf32>
  return
}

// -----

// dropout: ratio 1 is excluded
func.func @dropout_ratio_one(%x: tensor<4xf32>) {
  // expected-error @+1 {{ratio must be in [0, 1), got 1}}
  %y, %m = nnc.dropout %x ratio = 1.0 training = true : tensor<4xf32>
  return
}

// -----

// dropout: negative ratio
func.func @dropout_ratio_negative(%x: tensor<4xf32>) {
  // expected-error @+1 {{ratio must be in [0, 1), got -2.500000e-01}}
  %y, %m = nnc.dropout %x ratio = -0.25 : tensor<4xf32>
  return
}

// -----

// dropout: integer input is rejected
func.func @dropout_int(%x: tensor<4xi64>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %y, %m = nnc.dropout %x : tensor<4xi64>
  return
}

// -----

// cross_entropy: unranked logits
func.func @cross_entropy_unranked_logits(%l: tensor<*xf32>, %t: tensor<4xi64>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found}}
  %0 = nnc.cross_entropy %l, %t : tensor<*xf32>, tensor<4xi64>
  return
}

// -----

// cross_entropy: unranked labels
func.func @cross_entropy_unranked_labels(%l: tensor<4x3xf32>, %t: tensor<*xi64>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found}}
  %0 = nnc.cross_entropy %l, %t : tensor<4x3xf32>, tensor<*xi64>
  return
}

// -----

// cross_entropy: logits need [N, C]
func.func @cross_entropy_rank1(%l: tensor<4xf32>, %t: tensor<4xi64>) {
  // expected-error @+1 {{expects logits of rank >= 2 ([N, C, d1, ...]), got rank 1}}
  %0 = nnc.cross_entropy %l, %t : tensor<4xf32>, tensor<4xi64>
  return
}

// -----

// cross_entropy: labels have one rank less than the logits
func.func @cross_entropy_label_rank(%l: tensor<4x3x5xf32>, %t: tensor<4xi64>) {
  // expected-error @+1 {{expects labels of rank 2 ([N, d1, ...]) for logits of rank 3, got rank 1}}
  %0 = nnc.cross_entropy %l, %t : tensor<4x3x5xf32>, tensor<4xi64>
  return
}

// -----

// cross_entropy: labels' N must match
func.func @cross_entropy_label_n(%l: tensor<4x3xf32>, %t: tensor<5xi64>) {
  // expected-error @+1 {{expects labels shape 5 to match [N, d1, ...] = 4 of logits shape 4x3}}
  %0 = nnc.cross_entropy %l, %t : tensor<4x3xf32>, tensor<5xi64>
  return
}

// -----

// cross_entropy: labels' spatial dims must match
func.func @cross_entropy_label_spatial(%l: tensor<?x3x5xf32>, %t: tensor<4x6xi32>) {
  // expected-error @+1 {{expects labels shape 4x6 to match [N, d1, ...] = 4x5 of logits shape ?x3x5}}
  %0 = nnc.cross_entropy %l, %t : tensor<?x3x5xf32>, tensor<4x6xi32>
  return
}

// -----

// cross_entropy: float labels are rejected
func.func @cross_entropy_float_labels(%l: tensor<4x3xf32>, %t: tensor<4xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of index (i32 or i64) values}}
  %0 = nnc.cross_entropy %l, %t : tensor<4x3xf32>, tensor<4xf32>
  return
}

// -----

// cross_entropy: i8 labels are rejected
func.func @cross_entropy_i8_labels(%l: tensor<4x3xf32>, %t: tensor<4xi8>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of index (i32 or i64) values}}
  %0 = nnc.cross_entropy %l, %t : tensor<4x3xf32>, tensor<4xi8>
  return
}

// -----

// cross_entropy: unranked weight
func.func @cross_entropy_unranked_weight(%l: tensor<4x3xf32>, %t: tensor<4xi64>, %w: tensor<*xf32>) {
  // expected-error @+1 {{expects weight to be a ranked tensor, got 'tensor<*xf32>'}}
  %0 = nnc.cross_entropy %l, %t weight(%w : tensor<*xf32>) : tensor<4x3xf32>, tensor<4xi64>
  return
}

// -----

// cross_entropy: weight is [C]
func.func @cross_entropy_weight_rank(%l: tensor<4x3xf32>, %t: tensor<4xi64>, %w: tensor<1x3xf32>) {
  // expected-error @+1 {{expects weight of rank 1 ([C]), got rank 2}}
  %0 = nnc.cross_entropy %l, %t weight(%w : tensor<1x3xf32>) : tensor<4x3xf32>, tensor<4xi64>
  return
}

// -----

// cross_entropy: weight size must equal C
func.func @cross_entropy_weight_size(%l: tensor<4x3xf32>, %t: tensor<4xi64>, %w: tensor<4xf32>) {
  // expected-error @+1 {{expects weight to have 3 elements (C of logits), got 4}}
  %0 = nnc.cross_entropy %l, %t weight(%w : tensor<4xf32>) : tensor<4x3xf32>, tensor<4xi64>
  return
}

// -----

// cross_entropy: weight has the logits' element type
func.func @cross_entropy_weight_type(%l: tensor<4x3xf32>, %t: tensor<4xi64>, %w: tensor<3xf16>) {
  // expected-error @+1 {{expects weight of element type 'f32' (the logits's), got 'f16'}}
  %0 = nnc.cross_entropy %l, %t weight(%w : tensor<3xf16>) : tensor<4x3xf32>, tensor<4xi64>
  return
}

// -----

// cross_entropy: label_smoothing must lie in [0, 1]
func.func @cross_entropy_smoothing(%l: tensor<4x3xf32>, %t: tensor<4xi64>) {
  // expected-error @+1 {{label_smoothing must be in [0, 1], got 1.5}}
  %0 = nnc.cross_entropy %l, %t label_smoothing = 1.5 : tensor<4x3xf32>, tensor<4xi64>
  return
}

// -----

// cross_entropy: a generic op declaring a per-element result for mean
func.func @cross_entropy_result(%l: tensor<4x3xf32>, %t: tensor<4xi64>) {
  // expected-error @+2 {{inferred type(s) 'tensor<f32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "nnc.cross_entropy"(%l, %t) : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

// nll_loss: diagnostics name the input
func.func @nll_loss_rank(%p: tensor<4xf32>, %t: tensor<4xi64>) {
  // expected-error @+1 {{expects input of rank >= 2 ([N, C, d1, ...]), got rank 1}}
  %0 = nnc.nll_loss %p, %t : tensor<4xf32>, tensor<4xi64>
  return
}

// -----

// nll_loss: labels' N must match
func.func @nll_loss_label_n(%p: tensor<4x3x?xf32>, %t: tensor<2x7xi32>) {
  // expected-error @+1 {{expects labels shape 2x7 to match [N, d1, ...] = 4x? of input shape 4x3x?}}
  %0 = nnc.nll_loss %p, %t : tensor<4x3x?xf32>, tensor<2x7xi32>
  return
}

// -----

// nll_loss: weight size must equal C
func.func @nll_loss_weight(%p: tensor<4x3xf32>, %t: tensor<4xi64>, %w: tensor<2xf32>) {
  // expected-error @+1 {{expects weight to have 3 elements (C of input), got 2}}
  %0 = nnc.nll_loss %p, %t weight(%w : tensor<2xf32>) : tensor<4x3xf32>, tensor<4xi64>
  return
}

// -----

// nll_loss: float labels are rejected
func.func @nll_loss_float_labels(%p: tensor<4x3xf32>, %t: tensor<4xf16>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of index (i32 or i64) values}}
  %0 = nnc.nll_loss %p, %t : tensor<4x3xf32>, tensor<4xf16>
  return
}

// -----

// mse_loss: unranked input
func.func @mse_loss_unranked_input(%a: tensor<*xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found}}
  %0 = nnc.mse_loss %a, %b : tensor<*xf32>, tensor<4xf32>
  return
}

// -----

// mse_loss: unranked target
func.func @mse_loss_unranked_target(%a: tensor<4xf32>, %b: tensor<*xf32>) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.tensor, but found}}
  %0 = nnc.mse_loss %a, %b : tensor<4xf32>, tensor<*xf32>
  return
}

// -----

// mse_loss: one element type
func.func @mse_loss_types(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{expects input and target of one element type, got 'f32' and 'f16'}}
  %0 = nnc.mse_loss %a, %b : tensor<4xf32>, tensor<4xf16>
  return
}

// -----

// mse_loss: no broadcasting
func.func @mse_loss_broadcast(%a: tensor<4x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{expects target shape 3 to equal input shape 4x3}}
  %0 = nnc.mse_loss %a, %b : tensor<4x3xf32>, tensor<3xf32>
  return
}

// -----

// mse_loss: static dims must agree
func.func @mse_loss_dims(%a: tensor<?x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{expects target shape 2x4 to equal input shape ?x3}}
  %0 = nnc.mse_loss %a, %b reduction = none : tensor<?x3xf32>, tensor<2x4xf32>
  return
}

// -----

// mse_loss: integer operands are rejected
func.func @mse_loss_int(%a: tensor<4xi32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = nnc.mse_loss %a, %b : tensor<4xi32>, tensor<4xi32>
  return
}

// -----

// batch_norm: the running statistics' momentum lies in [0, 1]
func.func @batch_norm_momentum(%x: tensor<2x4xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{momentum must be in [0, 1], got 1.5}}
  %0 = nnc.batch_norm %x, %p, %p, %p, %p momentum = 1.5 : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// random_uniform: the seed is a rank-0 i64 tensor
func.func @random_uniform_seed(%s: tensor<2xi64>, %x: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be 0D tensor of 64-bit signless integer values}}
  %0 = nnc.random_uniform %s, %x stream = 0 : tensor<2xi64>, tensor<4xf32>
  return
}
