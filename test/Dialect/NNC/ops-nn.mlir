// RUN: nnc-opt %s --split-input-file | FileCheck %s
// RUN: nnc-opt %s --split-input-file | nnc-opt --split-input-file | FileCheck %s
// RUN: nnc-opt %s --split-input-file --mlir-print-op-generic | nnc-opt --split-input-file | FileCheck %s

// softmax and log_softmax: default axis elided, explicit (negative) axis kept,
// dynamic dims, several float types
// CHECK-LABEL: func @softmax
func.func @softmax(%x: tensor<8x?x16xf32>, %h: tensor<?xbf16>, %d: tensor<2x3xf64>)
    -> (tensor<8x?x16xf32>, tensor<8x?x16xf32>, tensor<?xbf16>, tensor<2x3xf64>) {
  // CHECK: nnc.softmax %{{[^ ]*}} : tensor<8x?x16xf32>
  %0 = nnc.softmax %x : tensor<8x?x16xf32>
  // CHECK: nnc.softmax %{{.*}} axis = -2 : tensor<8x?x16xf32>
  %1 = nnc.softmax %x axis = -2 : tensor<8x?x16xf32>
  // CHECK: nnc.log_softmax %{{.*}} axis = 0 : tensor<?xbf16>
  %2 = nnc.log_softmax %h axis = 0 : tensor<?xbf16>
  // CHECK: nnc.log_softmax %{{[^ ]*}} : tensor<2x3xf64>
  %3 = nnc.log_softmax %d axis = -1 : tensor<2x3xf64>
  return %0, %1, %2, %3 : tensor<8x?x16xf32>, tensor<8x?x16xf32>, tensor<?xbf16>, tensor<2x3xf64>
}

// -----

// batch_norm: f16 activations with f32 parameters, default epsilon elided
// CHECK-LABEL: func @batch_norm
func.func @batch_norm(%x: tensor<?x16x?x?xf16>, %p: tensor<16xf32>, %x2: tensor<4x?xf64>, %q: tensor<?xf64>)
    -> (tensor<?x16x?x?xf16>, tensor<4x?xf64>) {
  // CHECK: nnc.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{[^ ]*}} : tensor<?x16x?x?xf16>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
  %0 = nnc.batch_norm %x, %p, %p, %p, %p : tensor<?x16x?x?xf16>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
  // CHECK: nnc.batch_norm %{{.*}} epsilon = 1.000000e-03 : tensor<4x?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>
  %1 = nnc.batch_norm %x2, %q, %q, %q, %q epsilon = 1.0e-3 : tensor<4x?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>
  return %0, %1 : tensor<?x16x?x?xf16>, tensor<4x?xf64>
}

// -----

// batch_norm_train: statistics are [C] of the running stats' element type,
// C taken from the input or, when the input's is dynamic, from a parameter
// CHECK-LABEL: func @batch_norm_train
func.func @batch_norm_train(%x: tensor<?x?x8xbf16>, %s: tensor<?xf32>, %m: tensor<4xf32>)
    -> (tensor<?x?x8xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK: nnc.batch_norm_train %{{.*}} epsilon = 1.000000e-03 momentum = 5.000000e-01 {unbiased_running_var = false} : tensor<?x?x8xbf16>, tensor<?xf32>, tensor<?xf32>, tensor<4xf32>, tensor<4xf32>
  %y, %bm, %bv, %rm, %rv = nnc.batch_norm_train %x, %s, %s, %m, %m epsilon = 1.0e-3 momentum = 0.5 {unbiased_running_var = false}
      : tensor<?x?x8xbf16>, tensor<?xf32>, tensor<?xf32>, tensor<4xf32>, tensor<4xf32>
  return %y, %bm, %bv, %rm, %rv : tensor<?x?x8xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// batch_norm_train: defaults elided; all of C dynamic gives ? statistics
// CHECK-LABEL: func @batch_norm_train_dynamic
func.func @batch_norm_train_dynamic(%x: tensor<2x?xf32>, %p: tensor<?xf32>)
    -> (tensor<2x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  // CHECK: nnc.batch_norm_train %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{[^ ]*}} : tensor<2x?xf32>
  %y, %bm, %bv, %rm, %rv = nnc.batch_norm_train %x, %p, %p, %p, %p momentum = 0.9
      : tensor<2x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
  return %y, %bm, %bv, %rm, %rv : tensor<2x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// layer_norm: scale and bias present, statistics keep the rank with
// normalized dims set to 1
// CHECK-LABEL: func @layer_norm_affine
func.func @layer_norm_affine(%x: tensor<8x?x768xf32>, %g: tensor<768xf32>, %b: tensor<1xf32>)
    -> (tensor<8x?x768xf32>, tensor<8x?x1xf32>, tensor<8x?x1xf32>) {
  // CHECK: nnc.layer_norm %{{.*}} scale(%{{[^ ]*}} : tensor<768xf32>) bias(%{{[^ ]*}} : tensor<1xf32>) epsilon = 1.000000e-03 : tensor<8x?x768xf32>
  %y, %m, %r = nnc.layer_norm %x scale(%g : tensor<768xf32>) bias(%b : tensor<1xf32>) epsilon = 1.0e-3 : tensor<8x?x768xf32>
  return %y, %m, %r : tensor<8x?x768xf32>, tensor<8x?x1xf32>, tensor<8x?x1xf32>
}

// -----

// layer_norm: no scale or bias, axis 1 normalizes two dims; f16 statistics
// are kept in f32
// CHECK-LABEL: func @layer_norm_plain
func.func @layer_norm_plain(%x: tensor<8x?x768xf16>)
    -> (tensor<8x?x768xf16>, tensor<8x1x1xf32>, tensor<8x1x1xf32>) {
  // CHECK: nnc.layer_norm %{{[^ ]*}} axis = 1 : tensor<8x?x768xf16>
  %y, %m, %r = nnc.layer_norm %x axis = 1 : tensor<8x?x768xf16>
  return %y, %m, %r : tensor<8x?x768xf16>, tensor<8x1x1xf32>, tensor<8x1x1xf32>
}

// -----

// layer_norm: only a bias (operand segments), 2-D scale-shaped bias over
// two normalized dims, negative axis
// CHECK-LABEL: func @layer_norm_bias_only
func.func @layer_norm_bias_only(%x: tensor<2x3x4xf64>, %b: tensor<3x4xf64>)
    -> (tensor<2x3x4xf64>, tensor<2x1x1xf64>, tensor<2x1x1xf64>) {
  // CHECK: nnc.layer_norm %{{[^ ]*}} bias(%{{[^ ]*}} : tensor<3x4xf64>) axis = -2 : tensor<2x3x4xf64>
  %y, %m, %r = nnc.layer_norm %x bias(%b : tensor<3x4xf64>) axis = -2 : tensor<2x3x4xf64>
  return %y, %m, %r : tensor<2x3x4xf64>, tensor<2x1x1xf64>, tensor<2x1x1xf64>
}

// -----

// layer_norm: only a scale
// CHECK-LABEL: func @layer_norm_scale_only
func.func @layer_norm_scale_only(%x: tensor<?x?xbf16>, %g: tensor<?xbf16>)
    -> (tensor<?x?xbf16>, tensor<?x1xf32>, tensor<?x1xf32>) {
  // CHECK: nnc.layer_norm %{{[^ ]*}} scale(%{{[^ ]*}} : tensor<?xbf16>) : tensor<?x?xbf16>
  %y, %m, %r = nnc.layer_norm %x scale(%g : tensor<?xbf16>) : tensor<?x?xbf16>
  return %y, %m, %r : tensor<?x?xbf16>, tensor<?x1xf32>, tensor<?x1xf32>
}

// -----

// group_norm: statistics are [N, num_groups]
// CHECK-LABEL: func @group_norm
func.func @group_norm(%x: tensor<?x32x56x56xf32>, %p: tensor<32xf32>, %h: tensor<2x?xf16>, %q: tensor<?xf16>)
    -> (tensor<?x32x56x56xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<2x?xf16>, tensor<2x3xf32>, tensor<2x3xf32>) {
  // CHECK: nnc.group_norm %{{.*}}, %{{.*}}, %{{.*}} num_groups = 8 : tensor<?x32x56x56xf32>, tensor<32xf32>, tensor<32xf32>
  %y, %m, %r = nnc.group_norm %x, %p, %p num_groups = 8 : tensor<?x32x56x56xf32>, tensor<32xf32>, tensor<32xf32>
  // CHECK: nnc.group_norm %{{.*}}, %{{.*}}, %{{.*}} num_groups = 3 epsilon = 1.000000e-03 : tensor<2x?xf16>, tensor<?xf16>, tensor<?xf16>
  %y2, %m2, %r2 = nnc.group_norm %h, %q, %q num_groups = 3 epsilon = 1.0e-3 : tensor<2x?xf16>, tensor<?xf16>, tensor<?xf16>
  return %y, %m, %r, %y2, %m2, %r2 : tensor<?x32x56x56xf32>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<2x?xf16>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// instance_norm: statistics have the input's shape with spatial dims set to
// 1, C refined from the parameters
// CHECK-LABEL: func @instance_norm
func.func @instance_norm(%x: tensor<?x?x?x?xf32>, %p: tensor<3xf32>, %x2: tensor<2x4x5xf64>, %q: tensor<4xf64>)
    -> (tensor<?x?x?x?xf32>, tensor<?x3x1x1xf32>, tensor<?x3x1x1xf32>, tensor<2x4x5xf64>, tensor<2x4x1xf64>, tensor<2x4x1xf64>) {
  // CHECK: nnc.instance_norm %{{.*}}, %{{.*}}, %{{[^ ]*}} : tensor<?x?x?x?xf32>, tensor<3xf32>, tensor<3xf32>
  %y, %m, %r = nnc.instance_norm %x, %p, %p : tensor<?x?x?x?xf32>, tensor<3xf32>, tensor<3xf32>
  // CHECK: nnc.instance_norm %{{.*}}, %{{.*}}, %{{.*}} epsilon = 1.000000e-03 : tensor<2x4x5xf64>, tensor<4xf64>, tensor<4xf64>
  %y2, %m2, %r2 = nnc.instance_norm %x2, %q, %q epsilon = 1.0e-3 : tensor<2x4x5xf64>, tensor<4xf64>, tensor<4xf64>
  return %y, %m, %r, %y2, %m2, %r2 : tensor<?x?x?x?xf32>, tensor<?x3x1x1xf32>, tensor<?x3x1x1xf32>, tensor<2x4x5xf64>, tensor<2x4x1xf64>, tensor<2x4x1xf64>
}

// -----

// dropout: all attributes present, and all defaulted; mask is i1 of the
// input's shape
// CHECK-LABEL: func @dropout
func.func @dropout(%x: tensor<?x128xf32>, %h: tensor<4xf16>)
    -> (tensor<?x128xf32>, tensor<?x128xi1>, tensor<4xf16>, tensor<4xi1>) {
  // CHECK: nnc.dropout %{{.*}} ratio = 1.250000e-01 seed = 42 training = true : tensor<?x128xf32>
  %y, %m = nnc.dropout %x ratio = 0.125 seed = 42 training = true : tensor<?x128xf32>
  // CHECK: nnc.dropout %{{[^ ]*}} : tensor<4xf16>
  %y2, %m2 = nnc.dropout %h ratio = 0.5 training = false : tensor<4xf16>
  return %y, %m, %y2, %m2 : tensor<?x128xf32>, tensor<?x128xi1>, tensor<4xf16>, tensor<4xi1>
}

// -----

// random_uniform: the result takes `like`'s type, dynamic dims included;
// batch_norm keeps a non-default momentum
// CHECK-LABEL: func @random_uniform
func.func @random_uniform(%seed: tensor<i64>, %x: tensor<?x128xf32>, %h: tensor<4xf64>,
                          %p: tensor<4xf32>, %b: tensor<2x4xf32>)
    -> (tensor<?x128xf32>, tensor<4xf64>, tensor<2x4xf32>) {
  // CHECK: nnc.random_uniform %{{.*}}, %{{.*}} stream = 3 : tensor<i64>, tensor<?x128xf32>
  %u = nnc.random_uniform %seed, %x stream = 3 : tensor<i64>, tensor<?x128xf32>
  // CHECK: nnc.random_uniform %{{.*}}, %{{.*}} stream = 0 : tensor<i64>, tensor<4xf64>
  %v = nnc.random_uniform %seed, %h stream = 0 : tensor<i64>, tensor<4xf64>
  // CHECK: nnc.batch_norm %{{.*}} momentum = 8.000000e-01 : tensor<2x4xf32>
  %n = nnc.batch_norm %b, %p, %p, %p, %p momentum = 0.8 : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return %u, %v, %n : tensor<?x128xf32>, tensor<4xf64>, tensor<2x4xf32>
}

// -----

// cross_entropy: weight and every attribute present, mean gives rank 0
// CHECK-LABEL: func @cross_entropy_full
func.func @cross_entropy_full(%l: tensor<?x10xf32>, %t: tensor<?xi64>, %w: tensor<10xf32>) -> tensor<f32> {
  // CHECK: nnc.cross_entropy %{{.*}}, %{{.*}} weight(%{{[^ ]*}} : tensor<10xf32>) ignore_index = -100 label_smoothing = 1.250000e-01 : tensor<?x10xf32>, tensor<?xi64>
  %0 = nnc.cross_entropy %l, %t weight(%w : tensor<10xf32>) reduction = mean ignore_index = -100 label_smoothing = 0.125 : tensor<?x10xf32>, tensor<?xi64>
  return %0 : tensor<f32>
}

// -----

// cross_entropy: spatial dims, reduction none gives [N, d1, ...] refined by
// the labels; sum gives rank 0
// CHECK-LABEL: func @cross_entropy_spatial
func.func @cross_entropy_spatial(%l: tensor<?x5x?x7xbf16>, %t: tensor<4x6x?xi32>) -> (tensor<4x6x7xbf16>, tensor<bf16>) {
  // CHECK: nnc.cross_entropy %{{.*}}, %{{.*}} reduction = none : tensor<?x5x?x7xbf16>, tensor<4x6x?xi32>
  %0 = nnc.cross_entropy %l, %t reduction = none : tensor<?x5x?x7xbf16>, tensor<4x6x?xi32>
  // CHECK: nnc.cross_entropy %{{.*}}, %{{.*}} reduction = sum : tensor<?x5x?x7xbf16>, tensor<4x6x?xi32>
  %1 = nnc.cross_entropy %l, %t reduction = sum : tensor<?x5x?x7xbf16>, tensor<4x6x?xi32>
  return %0, %1 : tensor<4x6x7xbf16>, tensor<bf16>
}

// -----

// nll_loss: with and without weight and ignore_index
// CHECK-LABEL: func @nll_loss
func.func @nll_loss(%p: tensor<4x10x?xf32>, %t: tensor<4x?xi32>, %w: tensor<?xf32>, %p2: tensor<?x3xf64>, %t2: tensor<?xi64>)
    -> (tensor<f32>, tensor<?xf64>) {
  // CHECK: nnc.nll_loss %{{.*}}, %{{.*}} weight(%{{[^ ]*}} : tensor<?xf32>) reduction = sum ignore_index = 0 : tensor<4x10x?xf32>, tensor<4x?xi32>
  %0 = nnc.nll_loss %p, %t weight(%w : tensor<?xf32>) reduction = sum ignore_index = 0 : tensor<4x10x?xf32>, tensor<4x?xi32>
  // CHECK: nnc.nll_loss %{{.*}}, %{{.*}} reduction = none : tensor<?x3xf64>, tensor<?xi64>
  %1 = nnc.nll_loss %p2, %t2 reduction = none : tensor<?x3xf64>, tensor<?xi64>
  return %0, %1 : tensor<f32>, tensor<?xf64>
}

// -----

// mse_loss: default mean is rank 0, none merges the static dims of both
// CHECK-LABEL: func @mse_loss
func.func @mse_loss(%a: tensor<?x1xf32>, %b: tensor<?x1xf32>, %c: tensor<?x3xf16>, %d: tensor<2x?xf16>)
    -> (tensor<f32>, tensor<2x3xf16>, tensor<f16>) {
  // CHECK: nnc.mse_loss %{{.*}}, %{{[^ ]*}} : tensor<?x1xf32>, tensor<?x1xf32>
  %0 = nnc.mse_loss %a, %b : tensor<?x1xf32>, tensor<?x1xf32>
  // CHECK: nnc.mse_loss %{{.*}}, %{{.*}} reduction = none : tensor<?x3xf16>, tensor<2x?xf16>
  %1 = nnc.mse_loss %c, %d reduction = none : tensor<?x3xf16>, tensor<2x?xf16>
  // CHECK: nnc.mse_loss %{{.*}}, %{{.*}} reduction = sum : tensor<?x3xf16>, tensor<2x?xf16>
  %2 = nnc.mse_loss %c, %d reduction = sum : tensor<?x3xf16>, tensor<2x?xf16>
  return %0, %1, %2 : tensor<f32>, tensor<2x3xf16>, tensor<f16>
}
