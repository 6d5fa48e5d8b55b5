// RUN: nnc-opt %s --split-input-file \
// RUN:   --nnc-convert-to-linalg="per-image-convolutions=0" | FileCheck %s

// (The per-image lowering of 2-D convolutions: conv-per-image.mlir.)

// Grouped 2-D conv with strides, dilations, asymmetric pads, a bias and a
// dynamic batch: zero padding, channels split into [groups, C / groups], one
// generic over (n, g, m, oh, ow, c, kh, kw) seeded with the bias.
// CHECK-DAG: #[[BIAS:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2)>
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 * 2 + d6 * 2, d4 + d7)>
// CHECK-DAG: #[[W:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func @conv_grouped
// CHECK: %[[PAD:.+]] = tensor.pad %{{.*}} low[0, 0, 1, 0] high[0, 0, 2, 1]
// CHECK: } : tensor<?x4x5x6xf32> to tensor<?x4x8x7xf32>
// CHECK: %[[X:.+]] = tensor.expand_shape %[[PAD]] {{\[}}[0], [1, 2], [3], [4]] output_shape [%{{.*}}, 2, 2, 8, 7] : tensor<?x4x8x7xf32> into tensor<?x2x2x8x7xf32>
// CHECK: %[[WG:.+]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 2, 2, 2, 3]
// CHECK: %[[B:.+]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
// CHECK: %[[INIT:.+]] = linalg.generic {indexing_maps = [#[[BIAS]], {{.*}}]{{.*}} ins(%[[B]] : tensor<2x2xf32>) outs(%{{.*}} : tensor<?x2x2x3x5xf32>)
// CHECK: %[[ACC:.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[X]], %[[WG]] : tensor<?x2x2x8x7xf32>, tensor<2x2x2x2x3xf32>) outs(%[[INIT]] : tensor<?x2x2x3x5xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: tensor.collapse_shape %[[ACC]] {{\[}}[0], [1, 2], [3], [4]] : tensor<?x2x2x3x5xf32> into tensor<?x4x3x5xf32>
func.func @conv_grouped(%x: tensor<?x4x5x6xf32>, %w: tensor<4x2x2x3xf32>, %b: tensor<4xf32>) -> tensor<?x4x3x5xf32> {
  %0 = nnc.conv %x, %w, %b strides = [2, 1] dilations = [2, 1] pads = [1, 0, 2, 1] groups = 2 : tensor<?x4x5x6xf32>, tensor<4x2x2x3xf32>, tensor<4xf32>
  return %0 : tensor<?x4x3x5xf32>
}

// -----

// f16 conv accumulates in f32 and truncates once at the end; no padding, no
// bias: a zero-filled accumulator.
// CHECK-LABEL: func @conv_f16
// CHECK-NOT: tensor.pad
// CHECK: %[[ZERO:.+]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x1x4x6xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[ZERO]] : tensor<1x1x4x6xf32>)
// CHECK: ^bb0(%[[A:.+]]: f16, %[[B:.+]]: f16, %[[ACC:.+]]: f32):
// CHECK: %[[EA:.+]] = arith.extf %[[A]] : f16 to f32
// CHECK: %[[EB:.+]] = arith.extf %[[B]] : f16 to f32
// CHECK: %[[P:.+]] = arith.mulf %[[EA]], %[[EB]] : f32
// CHECK: arith.addf %[[P]], %[[ACC]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: tensor.collapse_shape {{.*}} into tensor<1x4x6xf16>
func.func @conv_f16(%x: tensor<1x2x8xf16>, %w: tensor<4x2x3xf16>) -> tensor<1x4x6xf16> {
  %0 = nnc.conv %x, %w : tensor<1x2x8xf16>, tensor<4x2x3xf16>
  return %0 : tensor<1x4x6xf16>
}

// -----

// conv_transpose spreads the input into zeros with the stride (offset
// dilation * (K - 1)) and reads it back through o + pad_begin + offset -
// k * dilation, with weight [C, M / groups, K] grouped as [G, C/G, M/G, K].
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d3 - d5 + 3)>
// CHECK-DAG: #[[W:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d4, d2, d5)>
// CHECK-LABEL: func @conv_transpose
// CHECK: %[[Z:.+]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x4x9xf32>)
// CHECK: %[[S:.+]] = tensor.insert_slice %{{.*}} into %[[Z]][0, 0, 2] [1, 4, 3] [1, 1, 2] : tensor<1x4x3xf32> into tensor<1x4x9xf32>
// CHECK: %[[X:.+]] = tensor.expand_shape %[[S]] {{\[}}[0], [1, 2], [3]] output_shape [1, 2, 2, 9]
// CHECK: %[[W2:.+]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3]] output_shape [2, 2, 1, 3]
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[W]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[X]], %[[W2]] :
// CHECK: tensor.collapse_shape {{.*}} into tensor<1x2x6xf32>
func.func @conv_transpose(%x: tensor<1x4x3xf32>, %w: tensor<4x1x3xf32>) -> tensor<1x2x6xf32> {
  %0 = nnc.conv_transpose %x, %w strides = [2] pads = [1, 0] groups = 2 : tensor<1x4x3xf32>, tensor<4x1x3xf32>
  return %0 : tensor<1x2x6xf32>
}

// -----

// max_pool pads with the lowest value (here i8: -128, compared signed), also
// over ceil_mode's extension; a kernel-shaped empty tensor bounds the window
// loops.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4 * 2, d3 * 2 + d5)>
// CHECK-DAG: #[[K:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-LABEL: func @max_pool
// CHECK: %[[LOW:.+]] = arith.constant -128 : i8
// CHECK: %[[PAD:.+]] = tensor.pad %{{.*}} low[0, 0, 1, 0] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[LOW]] : i8
// CHECK: linalg.fill ins(%[[LOW]] : i8)
// CHECK: %[[WIN:.+]] = tensor.empty() : tensor<2x2xi8>
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[K]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[PAD]], %[[WIN]] :
// CHECK: arith.maxsi
func.func @max_pool(%x: tensor<1x2x5x6xi8>) -> tensor<1x2x3x3xi8> {
  %0 = nnc.max_pool %x kernel_shape = [2, 2] strides = [2, 2] pads = [1, 0, 0, 1] dilations = [2, 1] ceil_mode = true : tensor<1x2x5x6xi8>
  return %0 : tensor<1x2x3x3xi8>
}

// -----

// max_pool_grad: the windows' maxima (padding -inf), then each window's
// first offset holding it (minsi over offsets, 9 = none; padded positions
// never count); then per phase of the stride (4 here), a parallel generic
// over slices of the padded argmax and gradient sums the windows that pick
// the position, inserted into its slot of [N, C, 3, 2, 3, 2], whose interior
// is the input gradient.
// CHECK-LABEL: func @max_pool_grad
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PAD:.+]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[NINF]] : f32
// CHECK: %[[MAX:.+]] = linalg.generic {{.*}} ins(%[[PAD]], %{{.*}} : tensor<?x2x7x7xf32>, tensor<3x3xf32>) outs(%{{.*}} : tensor<?x2x3x3xf32>)
// CHECK: arith.maximumf
// CHECK: %[[NONE:.+]] = arith.constant 9 : i32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[NONE]] : i32)
// CHECK: %[[IDX:.+]] = linalg.generic {{.*}} ins(%[[PAD]], %{{.*}}, %[[MAX]] : {{.*}}) outs(%[[INIT]] : tensor<?x2x3x3xi32>)
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi slt
// CHECK: arith.minsi
// CHECK: %[[IP:.+]] = tensor.pad %[[IDX]] low[0, 0, 1, 1] high[0, 0, 0, 0]
// CHECK: %[[GP:.+]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 0, 0]
// CHECK: %[[FULL:.+]] = tensor.empty(%{{.*}}) : tensor<?x2x3x2x3x2xf32>
// CHECK: %[[I0:.+]] = tensor.extract_slice %[[IP]][0, 0, 1, 1] [%{{.*}}, 2, 3, 3] [1, 1, 1, 1]
// CHECK: %[[G0:.+]] = tensor.extract_slice %[[GP]][0, 0, 1, 1] [%{{.*}}, 2, 3, 3] [1, 1, 1, 1]
// CHECK: %[[P0:.+]] = linalg.generic {{.*}} ins(%[[I0]], %[[G0]], {{.*}}) outs(%{{.*}} : tensor<?x2x3x3xf32>)
// CHECK-COUNT-4: arith.cmpi eq
// CHECK: %[[F0:.+]] = tensor.insert_slice %[[P0]] into %[[FULL]][0, 0, 0, 0, 0, 0]
// CHECK: tensor.insert_slice %{{.*}}[0, 0, 0, 0, 0, 1]
// CHECK: tensor.insert_slice %{{.*}}[0, 0, 0, 1, 0, 0]
// CHECK: %[[F3:.+]] = tensor.insert_slice %{{.*}}[0, 0, 0, 1, 0, 1]
// CHECK: %[[M:.+]] = tensor.collapse_shape %[[F3]] {{\[\[}}0], [1], [2, 3], [4, 5]] : tensor<?x2x3x2x3x2xf32> into tensor<?x2x6x6xf32>
// CHECK: %[[DX:.+]] = tensor.extract_slice %[[M]][0, 0, 1, 1] [%{{.*}}, 2, 5, 5] [1, 1, 1, 1]
// CHECK: return %[[DX]]
func.func @max_pool_grad(%x: tensor<?x2x5x5xf32>, %g: tensor<?x2x3x3xf32>) -> tensor<?x2x5x5xf32> {
  %0 = nnc.max_pool_grad %x, %g kernel_shape = [3, 3] strides = [2, 2] pads = [1, 1, 1, 1] : tensor<?x2x5x5xf32>, tensor<?x2x3x3xf32>
  return %0 : tensor<?x2x5x5xf32>
}

// -----

// avg_pool without count_include_pad divides by window sums of a mask of
// ones over the input only (padded with zeros, ceil extension included).
// CHECK-DAG: #[[MASK:.+]] = affine_map<(d0, d1, d2, d3) -> (d0 * 2 + d2, d1 * 2 + d3)>
// CHECK-DAG: #[[CNT:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func @avg_pool
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1x3x3xf32>)
// CHECK: %[[ONES:.+]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<5x5xf32>)
// CHECK: %[[M:.+]] = tensor.pad %[[ONES]] low[1, 1] high[1, 1]
// CHECK: %[[COUNT:.+]] = linalg.generic {indexing_maps = [#[[MASK]], {{.*}}], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[M]], {{.*}}) outs({{.*}} : tensor<3x3xf32>)
// CHECK: linalg.generic {indexing_maps = [{{.*}}, #[[CNT]], {{.*}}]{{.*}} ins(%[[SUM]], %[[COUNT]] :
// CHECK: arith.divf
func.func @avg_pool(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %0 = nnc.avg_pool %x kernel_shape = [3, 3] strides = [2, 2] pads = [1, 1, 0, 0] ceil_mode = true : tensor<1x1x5x5xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// With count_include_pad the mask covers input and explicit pads; only the
// ceil_mode extension is zero.
// CHECK-LABEL: func @avg_pool_include_pad
// CHECK: %[[ONES:.+]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<6x6xf32>)
// CHECK: tensor.pad %[[ONES]] low[0, 0] high[1, 1]
func.func @avg_pool_include_pad(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %0 = nnc.avg_pool %x kernel_shape = [3, 3] strides = [2, 2] pads = [1, 1, 0, 0] ceil_mode = true count_include_pad = true : tensor<1x1x5x5xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// Global pools reduce the spatial dims and restore them as 1; the average of
// bf16 sums in f32.
// CHECK-LABEL: func @global_pools
// CHECK: linalg.reduce ins(%{{.*}} : tensor<?x3x4x4xbf16>) outs(%{{.*}} : tensor<?x3xf32>) dimensions = [2, 3]
// CHECK: arith.extf
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2, 3]] output_shape [%{{.*}}, 3, 1, 1] : tensor<?x3xbf16> into tensor<?x3x1x1xbf16>
// CHECK: linalg.reduce ins(%{{.*}} : tensor<?x3x4x4xbf16>) outs(%{{.*}} : tensor<?x3xbf16>) dimensions = [2, 3]
// CHECK: arith.maximumf
func.func @global_pools(%x: tensor<?x3x4x4xbf16>) -> (tensor<?x3x1x1xbf16>, tensor<?x3x1x1xbf16>) {
  %0 = nnc.global_avg_pool %x : tensor<?x3x4x4xbf16>
  %1 = nnc.global_max_pool %x : tensor<?x3x4x4xbf16>
  return %0, %1 : tensor<?x3x1x1xbf16>, tensor<?x3x1x1xbf16>
}

// -----

// batch_norm (inference) with f16 activations and f32 statistics: one
// elementwise generic computed in f32.
// CHECK-DAG: #[[C:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func @batch_norm
// CHECK: %[[INV:.+]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<3xf32>)
// CHECK: arith.constant 1.000000e-03 : f32
// CHECK: math.sqrt
// CHECK: linalg.generic {indexing_maps = [{{.*}}, #[[C]], #[[C]], #[[C]], #[[C]], {{.*}}]{{.*}} ins(%{{.*}}, %{{.*}}, %[[INV]], %{{.*}}, %{{.*}} : tensor<?x3x4xf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<?x3x4xf16>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @batch_norm(%x: tensor<?x3x4xf16>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<?x3x4xf16> {
  %0 = nnc.batch_norm %x, %s, %b, %m, %v epsilon = 1.000000e-03 : tensor<?x3x4xf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  return %0 : tensor<?x3x4xf16>
}

// -----

// batch_norm_train: batch statistics over all dims but the channel, running
// variance updated with the unbiased estimate (M / (M - 1)) by default.
// CHECK-LABEL: func @batch_norm_train
// CHECK: linalg.reduce ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<3xf32>) dimensions = [0, 2]
// CHECK: linalg.reduce ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<3xf32>) dimensions = [0, 2]
// CHECK: arith.constant 8.000000e-01 : f32
// CHECK: arith.constant 2.000000e-01 : f32
// CHECK: %[[RV:.+]] = linalg.generic
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.divf
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[RV]] :
func.func @batch_norm_train(%x: tensor<2x3x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %bm, %bv, %rm, %rv = nnc.batch_norm_train %x, %s, %b, %m, %v momentum = 8.000000e-01 : tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  return %y, %bm, %bv, %rm, %rv : tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// layer_norm over the last two dims of f16 input: statistics in f32, scale
// [4] and bias [3, 1] broadcast to the normalized shape, mean and inv_std
// kept as [2, 1, 1].
// CHECK-DAG: #[[SCALE:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[BIAS:.+]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func @layer_norm
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: linalg.reduce ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2xf32>) dimensions = [1, 2]
// CHECK: %[[MEAN:.+]] = linalg.generic
// CHECK: linalg.reduce ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2xf32>) dimensions = [1, 2]
// CHECK: linalg.generic
// CHECK: %[[INV:.+]] = linalg.generic
// CHECK: arith.constant 9.99999974E-6 : f32
// CHECK: math.sqrt
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [{{.*}}, {{.*}}, {{.*}}, #[[SCALE]], #[[BIAS]], {{.*}}]{{.*}} outs(%{{.*}} : tensor<2x3x4xf16>)
// CHECK: %[[M:.+]] = tensor.expand_shape %[[MEAN]] {{\[}}[0, 1, 2]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
// CHECK: %[[I:.+]] = tensor.expand_shape %[[INV]] {{\[}}[0, 1, 2]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
// CHECK: return %[[Y]], %[[M]], %[[I]]
func.func @layer_norm(%x: tensor<2x3x4xf16>, %s: tensor<4xf16>, %b: tensor<3x1xf16>) -> (tensor<2x3x4xf16>, tensor<2x1x1xf32>, tensor<2x1x1xf32>) {
  %y, %m, %i = nnc.layer_norm %x scale(%s : tensor<4xf16>) bias(%b : tensor<3x1xf16>) axis = -2 : tensor<2x3x4xf16>
  return %y, %m, %i : tensor<2x3x4xf16>, tensor<2x1x1xf32>, tensor<2x1x1xf32>
}

// -----

// instance_norm normalizes over the spatial dims per (sample, channel).
// CHECK-LABEL: func @instance_norm
// CHECK: linalg.reduce ins(%{{.*}} : tensor<2x3x4x5xf32>) outs(%{{.*}} : tensor<2x3xf32>) dimensions = [2, 3]
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2, 3]] output_shape [2, 3, 1, 1] : tensor<2x3xf32> into tensor<2x3x1x1xf32>
func.func @instance_norm(%x: tensor<2x3x4x5xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x3x1x1xf32>) {
  %y, %m, %i = nnc.instance_norm %x, %s, %b : tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>
  return %y, %m : tensor<2x3x4x5xf32>, tensor<2x3x1x1xf32>
}

// -----

// group_norm splits the channels into [groups, C / groups] and reads the
// per-channel scale and bias the same way.
// CHECK-DAG: #[[GC:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
// CHECK-LABEL: func @group_norm
// CHECK: %[[X:.+]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3]] output_shape [2, 2, 2, 3] : tensor<2x4x3xf32> into tensor<2x2x2x3xf32>
// CHECK: linalg.reduce ins(%[[X]] : tensor<2x2x2x3xf32>) outs(%{{.*}} : tensor<2x2xf32>) dimensions = [2, 3]
// CHECK: %[[S:.+]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [{{.*}}, {{.*}}, {{.*}}, #[[GC]], #[[GC]], {{.*}}]{{.*}} ins(%[[X]], %{{.*}}, %{{.*}}, %[[S]], %{{.*}} :
// CHECK: tensor.collapse_shape %[[Y]] {{\[}}[0], [1, 2], [3]] : tensor<2x2x2x3xf32> into tensor<2x4x3xf32>
func.func @group_norm(%x: tensor<2x4x3xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<2x4x3xf32>, tensor<2x2xf32>) {
  %y, %m, %i = nnc.group_norm %x, %s, %b num_groups = 2 : tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>
  return %y, %i : tensor<2x4x3xf32>, tensor<2x2xf32>
}

// -----

// Inference dropout: the input and an all-true mask.
// CHECK-LABEL: func @dropout
// CHECK-SAME: (%[[X:.+]]: tensor<?x3xf32>)
// CHECK: %[[TRUE:.+]] = arith.constant true
// CHECK: %[[MASK:.+]] = linalg.fill ins(%[[TRUE]] : i1) outs(%{{.*}} : tensor<?x3xi1>)
// CHECK: return %[[X]], %[[MASK]]
func.func @dropout(%x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xi1>) {
  %y, %m = nnc.dropout %x ratio = 2.000000e-01 : tensor<?x3xf32>
  return %y, %m : tensor<?x3xf32>, tensor<?x3xi1>
}

// -----

// nll_loss over [N, C, d1] with weight and ignore_index: per element the
// label (class 0 when ignored, as it may lie outside [0, C)), checked at
// run time to lie in [0, C), gathers the log-probability and the weight;
// the weighted mean divides the loss sum by the weight sum.
// CHECK-LABEL: func @nll_loss
// CHECK-SAME: (%[[P:.+]]: tensor<2x3x2xf32>, %[[T:.+]]: tensor<2x2xi64>, %[[W:.+]]: tensor<3xf32>)
// CHECK: %[[E:.+]]:2 = linalg.generic {{.*}} ins(%[[T]] : tensor<2x2xi64>)
// CHECK: %[[IDX:.+]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[KEEP:.+]] = arith.cmpi ne, %{{.*}}, %{{.*}} : i64
// CHECK: %[[LABEL:.+]] = arith.select %[[KEEP]], %[[IDX]], %{{.*}} : index
// CHECK: %[[SAFE:.+]], %{{.*}} = nnc.check_index %[[LABEL]] in[%{{.*}}, %{{.*}}) "nll_loss label"
// CHECK: %[[N:.+]] = linalg.index 0
// CHECK: %[[D:.+]] = linalg.index 1
// CHECK: %[[LP:.+]] = tensor.extract %[[P]][%[[N]], %[[SAFE]], %[[D]]]
// CHECK: %[[WT:.+]] = tensor.extract %[[W]][%[[SAFE]]]
// CHECK: %[[L:.+]] = arith.mulf %[[LP]], %[[WT]]
// CHECK: %[[NEG:.+]] = arith.negf %[[L]]
// CHECK: arith.select %[[KEEP]], %[[NEG]]
// CHECK: arith.select %[[KEEP]], %[[WT]]
// CHECK: %[[SUM:.+]] = linalg.reduce ins(%[[E]]#0 : tensor<2x2xf32>) outs(%{{.*}} : tensor<f32>) dimensions = [0, 1]
// CHECK: %[[WSUM:.+]] = linalg.reduce ins(%[[E]]#1 : tensor<2x2xf32>) outs(%{{.*}} : tensor<f32>) dimensions = [0, 1]
// CHECK: linalg.generic {{.*}} ins(%[[SUM]], %[[WSUM]] : tensor<f32>, tensor<f32>)
// CHECK: arith.divf
func.func @nll_loss(%p: tensor<2x3x2xf32>, %t: tensor<2x2xi64>, %w: tensor<3xf32>) -> tensor<f32> {
  %0 = nnc.nll_loss %p, %t weight(%w : tensor<3xf32>) ignore_index = -1 : tensor<2x3x2xf32>, tensor<2x2xi64>
  return %0 : tensor<f32>
}

// -----

// cross_entropy: log_softmax over the class axis; label smoothing s mixes in
// s / C times the sum over classes of -log p.
// CHECK-LABEL: func @cross_entropy
// CHECK: linalg.reduce {{.*}} dimensions = [1]
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: math.log
// CHECK: %[[SMOOTH:.+]] = linalg.reduce ins(%{{.*}} : tensor<2x3xf32>) outs(%{{.*}} : tensor<2xf32>) dimensions = [1]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[SMOOTH]] : tensor<2xi32>, tensor<2xf32>)
// CHECK: arith.constant 0.899999976 : f32
// CHECK: arith.constant -0.0333333351 : f32
func.func @cross_entropy(%z: tensor<2x3xf32>, %t: tensor<2xi32>) -> tensor<2xf32> {
  %0 = nnc.cross_entropy %z, %t reduction = none label_smoothing = 1.000000e-01 : tensor<2x3xf32>, tensor<2xi32>
  return %0 : tensor<2xf32>
}

// -----

// A static f32 conv with enough multiply-adds becomes im2col + matmul (for
// --nnc-gemm-to-blas): a copy into cols [C, KH, KW, N, OH, OW] over loops
// (g, c, kh, kw, n, oh, ow), read as [C*KH*KW, N*OH*OW]; the weight read as
// [M, C*KH*KW]; the bias seeds the accumulator; for one image [M, OH*OW] is
// already NCHW. tensor.reshape, not expand/collapse_shape, so that reshape
// propagation cannot fold them into the matmul.
// CHECK-DAG: #[[COLS_IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d1, d5 * 2 + d2, d6 * 2 + d3)>
// CHECK-DAG: #[[BIAS:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func @conv_im2col
// CHECK-SAME: (%[[X:.+]]: tensor<1x16x16x16xf32>, %[[W:.+]]: tensor<32x16x3x3xf32>, %[[B:.+]]: tensor<32xf32>)
// CHECK: %[[PAD:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[XG:.+]] = tensor.expand_shape %[[PAD]] {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 1, 16, 18, 18]
// CHECK: %[[COLS:.+]] = linalg.generic {indexing_maps = [#[[COLS_IN]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[XG]] : tensor<1x1x16x18x18xf32>) outs(%{{.*}} : tensor<1x16x3x3x1x8x8xf32>)
// CHECK: %[[CS:.+]] = arith.constant dense<[144, 64]> : tensor<2xi64>
// CHECK: %[[CM:.+]] = tensor.reshape %[[COLS]](%[[CS]]) : (tensor<1x16x3x3x1x8x8xf32>, tensor<2xi64>) -> tensor<144x64xf32>
// CHECK: %[[WM:.+]] = tensor.reshape %[[W]](%{{.*}}) : (tensor<32x16x3x3xf32>, tensor<2xi64>) -> tensor<32x144xf32>
// CHECK: %[[INIT:.+]] = linalg.generic {indexing_maps = [#[[BIAS]], {{.*}}]{{.*}} ins(%[[B]] : tensor<32xf32>) outs(%{{.*}} : tensor<32x64xf32>)
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[WM]], %[[CM]] : tensor<32x144xf32>, tensor<144x64xf32>) outs(%[[INIT]] : tensor<32x64xf32>)
// CHECK: %[[OUT:.+]] = tensor.reshape %[[MM]](%{{.*}}) : (tensor<32x64xf32>, tensor<4xi64>) -> tensor<1x32x8x8xf32>
// CHECK: return %[[OUT]]
func.func @conv_im2col(%x: tensor<1x16x16x16xf32>, %w: tensor<32x16x3x3xf32>, %b: tensor<32xf32>) -> tensor<1x32x8x8xf32> {
  %0 = nnc.conv %x, %w, %b strides = [2, 2] pads = [1, 1, 1, 1] : tensor<1x16x16x16xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>
  return %0 : tensor<1x32x8x8xf32>
}

// -----

// f64 and a batch of 4: the matmul accumulates from zero into
// [M, N*OH*OW]; one generic transposes it to NCHW and adds the bias.
// CHECK-DAG: #[[MMREAD:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d0 * 64 + d2 * 8 + d3)>
// CHECK-DAG: #[[BIASREAD:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func @conv_im2col_batch
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x8x3x3x4x8x8xf64>)
// CHECK: %[[CM:.+]] = tensor.reshape %{{.*}} -> tensor<72x256xf64>
// CHECK: %[[WM:.+]] = tensor.reshape %{{.*}} -> tensor<16x72xf64>
// CHECK: %[[ZERO:.+]] = linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<16x256xf64>)
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[WM]], %[[CM]] : tensor<16x72xf64>, tensor<72x256xf64>) outs(%[[ZERO]] : tensor<16x256xf64>)
// CHECK: %[[OUT:.+]] = linalg.generic {indexing_maps = [#[[MMREAD]], #[[BIASREAD]], {{.*}}]{{.*}} ins(%[[MM]], %{{.*}} : tensor<16x256xf64>, tensor<16xf64>) outs(%{{.*}} : tensor<4x16x8x8xf64>)
// CHECK: arith.addf
// CHECK: return %[[OUT]]
func.func @conv_im2col_batch(%x: tensor<4x8x10x10xf64>, %w: tensor<16x8x3x3xf64>, %b: tensor<16xf64>) -> tensor<4x16x8x8xf64> {
  %0 = nnc.conv %x, %w, %b : tensor<4x8x10x10xf64>, tensor<16x8x3x3xf64>, tensor<16xf64>
  return %0 : tensor<4x16x8x8xf64>
}

// -----

// Grouped (4 groups of 16 input and 4 output channels) and dilated: cols
// [G, C/G*KH*KW, OH*OW], weight [G, M/G, C/G*KH*KW], one batch_matmul.
// CHECK-DAG: #[[COLS_IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d1, d5 + d2 * 2, d6 + d3 * 2)>
// CHECK-LABEL: func @conv_im2col_grouped
// CHECK: %[[XG:.+]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 4, 16, 18, 18]
// CHECK: %[[COLS:.+]] = linalg.generic {indexing_maps = [#[[COLS_IN]], {{.*}}]{{.*}} ins(%[[XG]] : tensor<1x4x16x18x18xf32>) outs(%{{.*}} : tensor<4x16x3x3x1x14x14xf32>)
// CHECK: %[[CM:.+]] = tensor.reshape %[[COLS]](%{{.*}}) : (tensor<4x16x3x3x1x14x14xf32>, tensor<3xi64>) -> tensor<4x144x196xf32>
// CHECK: %[[WM:.+]] = tensor.reshape %{{.*}} : (tensor<16x16x3x3xf32>, tensor<3xi64>) -> tensor<4x4x144xf32>
// CHECK: %[[BG:.+]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [4, 4] : tensor<16xf32> into tensor<4x4xf32>
// CHECK: %[[INIT:.+]] = linalg.generic {{.*}} ins(%[[BG]] : tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4x196xf32>)
// CHECK: %[[MM:.+]] = linalg.batch_matmul ins(%[[WM]], %[[CM]] : tensor<4x4x144xf32>, tensor<4x144x196xf32>) outs(%[[INIT]] : tensor<4x4x196xf32>)
// CHECK: tensor.reshape %[[MM]](%{{.*}}) : (tensor<4x4x196xf32>, tensor<4xi64>) -> tensor<1x16x14x14xf32>
func.func @conv_im2col_grouped(%x: tensor<1x64x18x18xf32>, %w: tensor<16x16x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x14x14xf32> {
  %0 = nnc.conv %x, %w, %b dilations = [2, 2] groups = 4 : tensor<1x64x18x18xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>
  return %0 : tensor<1x16x14x14xf32>
}

// -----

// A 1x1 stride-1 conv of one image needs no im2col copy: the input is the
// [C, H*W] matrix as it lies.
// CHECK-LABEL: func @conv_im2col_pointwise
// CHECK-SAME: (%[[X:.+]]: tensor<1x64x16x16xf32>, %[[W:.+]]: tensor<32x64x1x1xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[CM:.+]] = tensor.reshape %[[X]](%{{.*}}) : (tensor<1x64x16x16xf32>, tensor<2xi64>) -> tensor<64x256xf32>
// CHECK: %[[WM:.+]] = tensor.reshape %[[W]](%{{.*}}) : (tensor<32x64x1x1xf32>, tensor<2xi64>) -> tensor<32x64xf32>
// CHECK: linalg.matmul ins(%[[WM]], %[[CM]] : tensor<32x64xf32>, tensor<64x256xf32>)
// CHECK-NOT: linalg.generic
func.func @conv_im2col_pointwise(%x: tensor<1x64x16x16xf32>, %w: tensor<32x64x1x1xf32>) -> tensor<1x32x16x16xf32> {
  %0 = nnc.conv %x, %w : tensor<1x64x16x16xf32>, tensor<32x64x1x1xf32>
  return %0 : tensor<1x32x16x16xf32>
}

// -----

// Below 1 << 16 multiply-adds (8 * 27 * 25 here) a conv stays one generic.
// CHECK-LABEL: func @conv_direct_small
// CHECK-NOT: linalg.matmul
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-NOT: linalg.matmul
func.func @conv_direct_small(%x: tensor<1x3x10x10xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x5x5xf32> {
  %0 = nnc.conv %x, %w strides = [2, 2] pads = [1, 1, 1, 1] : tensor<1x3x10x10xf32>, tensor<8x3x3x3xf32>
  return %0 : tensor<1x8x5x5xf32>
}

// -----

// A depthwise conv (one output channel per group) stays one generic however
// large: its GEMMs would be matrix-vector products.
// CHECK-LABEL: func @conv_direct_depthwise
// CHECK-NOT: linalg.batch_matmul
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-NOT: linalg.batch_matmul
func.func @conv_direct_depthwise(%x: tensor<1x64x56x56xf32>, %w: tensor<64x1x3x3xf32>) -> tensor<1x64x54x54xf32> {
  %0 = nnc.conv %x, %w groups = 64 : tensor<1x64x56x56xf32>, tensor<64x1x3x3xf32>
  return %0 : tensor<1x64x54x54xf32>
}
