// RUN: nnc-opt %s --split-input-file | FileCheck %s
// RUN: nnc-opt %s --split-input-file | nnc-opt --split-input-file | FileCheck %s
// RUN: nnc-opt %s --split-input-file --mlir-print-op-generic | nnc-opt --split-input-file | FileCheck %s

// reshape: static and dynamic shapes, spelled-out result types
// CHECK-LABEL: func @reshape
func.func @reshape(%x: tensor<2x3xf32>, %y: tensor<2x?x4xf16>, %z: tensor<?x?xi1>)
    -> (tensor<6xf32>, tensor<?x8xf16>, tensor<?xi1>, tensor<f32>) {
  // CHECK: nnc.reshape %{{.*}} : tensor<2x3xf32> -> tensor<6xf32>
  %0 = nnc.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  // CHECK: nnc.reshape %{{.*}} : tensor<2x?x4xf16> -> tensor<?x8xf16>
  %1 = nnc.reshape %y : tensor<2x?x4xf16> -> tensor<?x8xf16>
  // CHECK: nnc.reshape %{{.*}} : tensor<?x?xi1> -> tensor<?xi1>
  %2 = nnc.reshape %z : tensor<?x?xi1> -> tensor<?xi1>
  %s = nnc.reshape %0 : tensor<6xf32> -> tensor<6x1xf32>
  %t = nnc.slice %s starts = [0, 0] ends = [1, 1] : tensor<6x1xf32>
  // CHECK: nnc.reshape %{{.*}} : tensor<1x1xf32> -> tensor<f32>
  %3 = nnc.reshape %t : tensor<1x1xf32> -> tensor<f32>
  return %0, %1, %2, %3 : tensor<6xf32>, tensor<?x8xf16>, tensor<?xi1>, tensor<f32>
}

// -----

// expand: broadcast to a larger rank, with dynamic dimensions
// CHECK-LABEL: func @expand
func.func @expand(%x: tensor<3x1xf32>, %y: tensor<?x1xi64>)
    -> (tensor<2x3x4xf32>, tensor<5x?x7xi64>) {
  // CHECK: nnc.expand %{{.*}} : tensor<3x1xf32> -> tensor<2x3x4xf32>
  %0 = nnc.expand %x : tensor<3x1xf32> -> tensor<2x3x4xf32>
  // CHECK: nnc.expand %{{.*}} : tensor<?x1xi64> -> tensor<5x?x7xi64>
  %1 = nnc.expand %y : tensor<?x1xi64> -> tensor<5x?x7xi64>
  return %0, %1 : tensor<2x3x4xf32>, tensor<5x?x7xi64>
}

// -----

// transpose: result dimension i is input dimension perm[i]
// CHECK-LABEL: func @transpose
func.func @transpose(%x: tensor<2x?x4xbf16>, %y: tensor<2x3xi8>, %z: tensor<f32>)
    -> (tensor<4x2x?xbf16>, tensor<3x2xi8>, tensor<f32>) {
  // CHECK: nnc.transpose %{{.*}} perm = [2, 0, 1] : tensor<2x?x4xbf16>
  %0 = nnc.transpose %x perm = [2, 0, 1] : tensor<2x?x4xbf16>
  // CHECK: nnc.transpose %{{.*}} perm = [1, 0] : tensor<2x3xi8>
  %1 = nnc.transpose %y perm = [1, 0] : tensor<2x3xi8>
  // CHECK: nnc.transpose %{{.*}} perm = [] : tensor<f32>
  %2 = nnc.transpose %z perm = [] : tensor<f32>
  return %0, %1, %2 : tensor<4x2x?xbf16>, tensor<3x2xi8>, tensor<f32>
}

// -----

// concat: sums the axis, merges the other dimensions, negative axis
// CHECK-LABEL: func @concat
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<?x5xf32>, %c: tensor<2x?xf32>,
                  %d: tensor<4x2xi8>)
    -> (tensor<2x8xf32>, tensor<2x?xf32>, tensor<4x3xf32>, tensor<4x2xi8>) {
  // CHECK: nnc.concat %{{.*}}, %{{.*}} axis = 1 : tensor<2x3xf32>, tensor<?x5xf32>
  %0 = nnc.concat %a, %b axis = 1 : tensor<2x3xf32>, tensor<?x5xf32>
  // CHECK: nnc.concat %{{.*}}, %{{.*}}, %{{.*}} axis = -1 : tensor<2x3xf32>, tensor<?x5xf32>, tensor<2x?xf32>
  %1 = nnc.concat %a, %b, %c axis = -1 : tensor<2x3xf32>, tensor<?x5xf32>, tensor<2x?xf32>
  // CHECK: nnc.concat %{{.*}}, %{{.*}} axis = 0 : tensor<2x3xf32>, tensor<2x?xf32>
  %2 = nnc.concat %a, %c axis = 0 : tensor<2x3xf32>, tensor<2x?xf32>
  // CHECK: nnc.concat %{{.*}} axis = 0 : tensor<4x2xi8>
  %3 = nnc.concat %d axis = 0 : tensor<4x2xi8>
  return %0, %1, %2, %3 : tensor<2x8xf32>, tensor<2x?xf32>, tensor<4x3xf32>, tensor<4x2xi8>
}

// -----

// split: one result per size, on static and dynamic dimensions
// CHECK-LABEL: func @split
func.func @split(%x: tensor<?x8xf32>, %y: tensor<5x?xi32>)
    -> (tensor<?x2xf32>, tensor<?x6xf32>, tensor<2x?xi32>, tensor<0x?xi32>,
        tensor<3x?xi32>, tensor<5x?xi32>) {
  // CHECK: %{{.*}}:2 = nnc.split %{{.*}} axis = 1 sizes = [2, 6] : tensor<?x8xf32>
  %0, %1 = nnc.split %x axis = 1 sizes = [2, 6] : tensor<?x8xf32>
  // CHECK: %{{.*}}:3 = nnc.split %{{.*}} axis = -2 sizes = [2, 0, 3] : tensor<5x?xi32>
  %2, %3, %4 = nnc.split %y axis = -2 sizes = [2, 0, 3] : tensor<5x?xi32>
  // CHECK: nnc.split %{{.*}} axis = 1 sizes = [7] : tensor<5x?xi32>
  %5 = nnc.split %y axis = 1 sizes = [7] : tensor<5x?xi32>
  %6 = tensor.cast %5 : tensor<5x7xi32> to tensor<5x?xi32>
  return %0, %1, %2, %3, %4, %6 : tensor<?x2xf32>, tensor<?x6xf32>, tensor<2x?xi32>,
      tensor<0x?xi32>, tensor<3x?xi32>, tensor<5x?xi32>
}

// -----

// slice: default axes and steps, ONNX clamping, negative steps, dynamic dims
// CHECK-LABEL: func @slice
func.func @slice(%x: tensor<10xf32>, %y: tensor<8x?x6xi64>)
    -> (tensor<3xf32>, tensor<10xf32>, tensor<4xf32>, tensor<0xf32>,
        tensor<4x?x3xi64>, tensor<8x?x6xi64>, tensor<1xf32>) {
  // CHECK: nnc.slice %{{.*}} starts = [-3] ends = [100] : tensor<10xf32>
  %0 = nnc.slice %x starts = [-3] ends = [100] : tensor<10xf32>
  // CHECK: nnc.slice %{{.*}} starts = [20] ends = [-9223372036854775808] steps = [-1] : tensor<10xf32>
  %1 = nnc.slice %x starts = [20] ends = [-9223372036854775808] steps = [-1] : tensor<10xf32>
  // CHECK: nnc.slice %{{.*}} starts = [-1] ends = [-100] axes = [0] steps = [-3] : tensor<10xf32>
  %2 = nnc.slice %x starts = [-1] ends = [-100] axes = [0] steps = [-3] : tensor<10xf32>
  // CHECK: nnc.slice %{{.*}} starts = [5] ends = [2] : tensor<10xf32>
  %3 = nnc.slice %x starts = [5] ends = [2] : tensor<10xf32>
  // CHECK: nnc.slice %{{.*}} starts = [1, -1] ends = [9223372036854775807, -4] axes = [0, 2] steps = [2, -1] : tensor<8x?x6xi64>
  %4 = nnc.slice %y starts = [1, -1] ends = [9223372036854775807, -4] axes = [0, 2] steps = [2, -1] : tensor<8x?x6xi64>
  // CHECK: nnc.slice %{{.*}} starts = [1] ends = [3] axes = [-2] : tensor<8x?x6xi64>
  %5 = nnc.slice %y starts = [1] ends = [3] axes = [-2] : tensor<8x?x6xi64>
  // CHECK: nnc.slice %{{.*}} starts = [0] ends = [9223372036854775807] steps = [9223372036854775807] : tensor<10xf32>
  %6 = nnc.slice %x starts = [0] ends = [9223372036854775807] steps = [9223372036854775807] : tensor<10xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3xf32>, tensor<10xf32>, tensor<4xf32>,
      tensor<0xf32>, tensor<4x?x3xi64>, tensor<8x?x6xi64>, tensor<1xf32>
}

// -----

// pad: every mode, negative pads crop, a fill value, dynamic dims
// CHECK-LABEL: func @pad
func.func @pad(%x: tensor<4x5xf32>, %y: tensor<2x?xi32>, %z: tensor<3xi1>)
    -> (tensor<8x6xf32>, tensor<5x?xi32>, tensor<2x?xi32>, tensor<3x7xf32>,
        tensor<6xi1>) {
  // CHECK: nnc.pad %{{.*}} pads = [1, 2, 3, -1] mode = reflect : tensor<4x5xf32>
  %0 = nnc.pad %x pads = [1, 2, 3, -1] mode = reflect : tensor<4x5xf32>
  // CHECK: nnc.pad %{{.*}} pads = [1, 1, 2, 2] value = -7.000000e+00 : tensor<2x?xi32>
  %1 = nnc.pad %y pads = [1, 1, 2, 2] value = -7.0 : tensor<2x?xi32>
  // CHECK: nnc.pad %{{.*}} pads = [0, 1, 0, -1] mode = edge : tensor<2x?xi32>
  %2 = nnc.pad %y pads = [0, 1, 0, -1] mode = edge : tensor<2x?xi32>
  // CHECK: nnc.pad %{{.*}} pads = [-1, 3, 0, -1] mode = wrap : tensor<4x5xf32>
  %3 = nnc.pad %x pads = [-1, 3, 0, -1] mode = wrap : tensor<4x5xf32>
  // CHECK: nnc.pad %{{.*}} pads = [1, 2] value = 1.000000e+00 : tensor<3xi1>
  %4 = nnc.pad %z pads = [1, 2] mode = constant value = 1.0 : tensor<3xi1>
  return %0, %1, %2, %3, %4 : tensor<8x6xf32>, tensor<5x?xi32>, tensor<2x?xi32>,
      tensor<3x7xf32>, tensor<6xi1>
}

// -----

// tile: multiplies dimensions; repeating a dynamic dimension 0 times gives 0
// CHECK-LABEL: func @tile
func.func @tile(%x: tensor<2x?x4xi64>, %y: tensor<3xf64>)
    -> (tensor<4x?x12xi64>, tensor<2x0x4xi64>, tensor<3xf64>) {
  // CHECK: nnc.tile %{{.*}} repeats = [2, 1, 3] : tensor<2x?x4xi64>
  %0 = nnc.tile %x repeats = [2, 1, 3] : tensor<2x?x4xi64>
  // CHECK: nnc.tile %{{.*}} repeats = [1, 0, 1] : tensor<2x?x4xi64>
  %1 = nnc.tile %x repeats = [1, 0, 1] : tensor<2x?x4xi64>
  // CHECK: nnc.tile %{{.*}} repeats = [1] : tensor<3xf64>
  %2 = nnc.tile %y repeats = [1] : tensor<3xf64>
  return %0, %1, %2 : tensor<4x?x12xi64>, tensor<2x0x4xi64>, tensor<3xf64>
}

// -----

// squeeze: explicit (negative, dynamic) axes, no axes, empty axes
// CHECK-LABEL: func @squeeze
func.func @squeeze(%x: tensor<1x?x1xf32>, %y: tensor<1x3x1xi8>, %z: tensor<?x1xf16>)
    -> (tensor<?xf32>, tensor<3xi8>, tensor<?x1xf16>, tensor<1xf32>) {
  // CHECK: nnc.squeeze %{{.*}} axes = [0, -1] : tensor<1x?x1xf32>
  %0 = nnc.squeeze %x axes = [0, -1] : tensor<1x?x1xf32>
  // CHECK: nnc.squeeze %{{.*}} : tensor<1x3x1xi8>
  %1 = nnc.squeeze %y : tensor<1x3x1xi8>
  // CHECK: nnc.squeeze %{{.*}} axes = [] : tensor<?x1xf16>
  %2 = nnc.squeeze %z axes = [] : tensor<?x1xf16>
  // CHECK: nnc.squeeze %{{.*}} axes = [1, 2] : tensor<1x?x1xf32>
  %3 = nnc.squeeze %x axes = [1, 2] : tensor<1x?x1xf32>
  return %0, %1, %2, %3 : tensor<?xf32>, tensor<3xi8>, tensor<?x1xf16>, tensor<1xf32>
}

// -----

// unsqueeze: axes index the result, negative ones from its back
// CHECK-LABEL: func @unsqueeze
func.func @unsqueeze(%x: tensor<?x4xf32>, %y: tensor<i1>)
    -> (tensor<1x?x4x1xf32>, tensor<1xi1>, tensor<?x1x4xf32>) {
  // CHECK: nnc.unsqueeze %{{.*}} axes = [0, -1] : tensor<?x4xf32>
  %0 = nnc.unsqueeze %x axes = [0, -1] : tensor<?x4xf32>
  // CHECK: nnc.unsqueeze %{{.*}} axes = [0] : tensor<i1>
  %1 = nnc.unsqueeze %y axes = [0] : tensor<i1>
  // CHECK: nnc.unsqueeze %{{.*}} axes = [1] : tensor<?x4xf32>
  %2 = nnc.unsqueeze %x axes = [1] : tensor<?x4xf32>
  return %0, %1, %2 : tensor<1x?x4x1xf32>, tensor<1xi1>, tensor<?x1x4xf32>
}

// -----

// flatten: default axis 1, explicit, 0, the rank, negative, dynamic dims
// CHECK-LABEL: func @flatten
func.func @flatten(%x: tensor<2x3x4x5xf32>, %y: tensor<2x?x4xi32>)
    -> (tensor<6x20xf32>, tensor<2x60xf32>, tensor<1x120xf32>, tensor<120x1xf32>,
        tensor<?x4xi32>, tensor<2x?xi32>) {
  // CHECK: nnc.flatten %{{.*}} axis = 2 : tensor<2x3x4x5xf32>
  %0 = nnc.flatten %x axis = 2 : tensor<2x3x4x5xf32>
  // CHECK: nnc.flatten %{{.*}} : tensor<2x3x4x5xf32>
  %1 = nnc.flatten %x : tensor<2x3x4x5xf32>
  // CHECK: nnc.flatten %{{.*}} axis = 0 : tensor<2x3x4x5xf32>
  %2 = nnc.flatten %x axis = 0 : tensor<2x3x4x5xf32>
  // CHECK: nnc.flatten %{{.*}} axis = 4 : tensor<2x3x4x5xf32>
  %3 = nnc.flatten %x axis = 4 : tensor<2x3x4x5xf32>
  // CHECK: nnc.flatten %{{.*}} axis = -1 : tensor<2x?x4xi32>
  %4 = nnc.flatten %y axis = -1 : tensor<2x?x4xi32>
  // CHECK: nnc.flatten %{{.*}} : tensor<2x?x4xi32>
  %5 = nnc.flatten %y axis = 1 : tensor<2x?x4xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<6x20xf32>, tensor<2x60xf32>, tensor<1x120xf32>,
      tensor<120x1xf32>, tensor<?x4xi32>, tensor<2x?xi32>
}

// -----

// trilu: default upper triangle, lower with an offset, batched and dynamic
// CHECK-LABEL: func @trilu
func.func @trilu(%x: tensor<?x4x4xf32>, %y: tensor<3x5xi1>)
    -> (tensor<?x4x4xf32>, tensor<3x5xi1>, tensor<3x5xi1>) {
  // CHECK: nnc.trilu %{{.*}} upper = false k = -1 : tensor<?x4x4xf32>
  %0 = nnc.trilu %x upper = false k = -1 : tensor<?x4x4xf32>
  // CHECK: nnc.trilu %{{.*}} : tensor<3x5xi1>
  %1 = nnc.trilu %y : tensor<3x5xi1>
  // CHECK: nnc.trilu %{{.*}} k = 2 : tensor<3x5xi1>
  %2 = nnc.trilu %y upper = true k = 2 : tensor<3x5xi1>
  return %0, %1, %2 : tensor<?x4x4xf32>, tensor<3x5xi1>, tensor<3x5xi1>
}

// -----

// depth_to_space and space_to_depth: both modes, dynamic spatial dims
// CHECK-LABEL: func @depth_space
func.func @depth_space(%x: tensor<1x8x?x3xf32>, %y: tensor<2x3x?x8xbf16>)
    -> (tensor<1x2x?x6xf32>, tensor<1x2x?x6xf32>, tensor<2x12x?x4xbf16>) {
  // CHECK: nnc.depth_to_space %{{.*}} blocksize = 2 mode = "CRD" : tensor<1x8x?x3xf32>
  %0 = nnc.depth_to_space %x blocksize = 2 mode = "CRD" : tensor<1x8x?x3xf32>
  // CHECK: nnc.depth_to_space %{{.*}} blocksize = 2 : tensor<1x8x?x3xf32>
  %1 = nnc.depth_to_space %x blocksize = 2 : tensor<1x8x?x3xf32>
  // CHECK: nnc.space_to_depth %{{.*}} blocksize = 2 : tensor<2x3x?x8xbf16>
  %2 = nnc.space_to_depth %y blocksize = 2 : tensor<2x3x?x8xbf16>
  return %0, %1, %2 : tensor<1x2x?x6xf32>, tensor<1x2x?x6xf32>, tensor<2x12x?x4xbf16>
}

// -----

// gather: result rank r + q - 1, default and negative axes, scalar indices
// CHECK-LABEL: func @gather
func.func @gather(%x: tensor<4x?x8xf32>, %i: tensor<2x3xi64>, %j: tensor<i32>, %k: tensor<?xi32>)
    -> (tensor<4x2x3x8xf32>, tensor<2x3x?x8xf32>, tensor<4x?xf32>) {
  // CHECK: nnc.gather %{{.*}}, %{{.*}} axis = 1 : tensor<4x?x8xf32>, tensor<2x3xi64>
  %0 = nnc.gather %x, %i axis = 1 : tensor<4x?x8xf32>, tensor<2x3xi64>
  // CHECK: nnc.gather %{{.*}}, %{{.*}} : tensor<4x?x8xf32>, tensor<2x3xi64>
  %1 = nnc.gather %x, %i : tensor<4x?x8xf32>, tensor<2x3xi64>
  // CHECK: nnc.gather %{{.*}}, %{{.*}} axis = -1 : tensor<4x?x8xf32>, tensor<i32>
  %2 = nnc.gather %x, %j axis = -1 : tensor<4x?x8xf32>, tensor<i32>
  return %0, %1, %2 : tensor<4x2x3x8xf32>, tensor<2x3x?x8xf32>, tensor<4x?xf32>
}

// -----

// gather_elements: the result has the indices' shape
// CHECK-LABEL: func @gather_elements
func.func @gather_elements(%x: tensor<3x?xf32>, %i: tensor<3x2xi32>, %y: tensor<4x5xi8>,
                           %j: tensor<2x?xi64>)
    -> (tensor<3x2xf32>, tensor<2x?xi8>) {
  // CHECK: nnc.gather_elements %{{.*}}, %{{.*}} axis = 1 : tensor<3x?xf32>, tensor<3x2xi32>
  %0 = nnc.gather_elements %x, %i axis = 1 : tensor<3x?xf32>, tensor<3x2xi32>
  // CHECK: nnc.gather_elements %{{.*}}, %{{.*}} : tensor<4x5xi8>, tensor<2x?xi64>
  %1 = nnc.gather_elements %y, %j : tensor<4x5xi8>, tensor<2x?xi64>
  return %0, %1 : tensor<3x2xf32>, tensor<2x?xi8>
}

// -----

// scatter_elements: default and explicit axis and reduction
// CHECK-LABEL: func @scatter_elements
func.func @scatter_elements(%d: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>,
                            %e: tensor<?x4xi64>, %j: tensor<2x4xi32>, %v: tensor<?x4xi64>)
    -> (tensor<3x5xf32>, tensor<?x4xi64>) {
  // CHECK: nnc.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} axis = -1 reduction = add : tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>
  %0 = nnc.scatter_elements %d, %i, %u axis = -1 reduction = add
      : tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>
  // CHECK: nnc.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x4xi64>, tensor<2x4xi32>, tensor<?x4xi64>
  %1 = nnc.scatter_elements %e, %j, %v : tensor<?x4xi64>, tensor<2x4xi32>, tensor<?x4xi64>
  return %0, %1 : tensor<3x5xf32>, tensor<?x4xi64>
}

// -----

// scatter_nd: slices (k < r), single elements (k = r), k deduced when dynamic
// CHECK-LABEL: func @scatter_nd
func.func @scatter_nd(%d: tensor<4x5x6xf32>, %i: tensor<?x2xi64>, %u: tensor<?x6xf32>,
                      %j: tensor<3x3xi32>, %v: tensor<3xf32>,
                      %k: tensor<2x?xi64>, %w: tensor<2x5x6xf32>)
    -> (tensor<4x5x6xf32>, tensor<4x5x6xf32>, tensor<4x5x6xf32>) {
  // CHECK: nnc.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} reduction = mul : tensor<4x5x6xf32>, tensor<?x2xi64>, tensor<?x6xf32>
  %0 = nnc.scatter_nd %d, %i, %u reduction = mul
      : tensor<4x5x6xf32>, tensor<?x2xi64>, tensor<?x6xf32>
  // CHECK: nnc.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x5x6xf32>, tensor<3x3xi32>, tensor<3xf32>
  %1 = nnc.scatter_nd %d, %j, %v : tensor<4x5x6xf32>, tensor<3x3xi32>, tensor<3xf32>
  // CHECK: nnc.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} reduction = max : tensor<4x5x6xf32>, tensor<2x?xi64>, tensor<2x5x6xf32>
  %2 = nnc.scatter_nd %d, %k, %w reduction = max
      : tensor<4x5x6xf32>, tensor<2x?xi64>, tensor<2x5x6xf32>
  return %0, %1, %2 : tensor<4x5x6xf32>, tensor<4x5x6xf32>, tensor<4x5x6xf32>
}

// -----

// one_hot: default axis (last) and values, explicit ones, several element types
// CHECK-LABEL: func @one_hot
func.func @one_hot(%i: tensor<?x3xi64>, %j: tensor<4xi32>)
    -> (tensor<?x3x10xf32>, tensor<10x?x3xf16>, tensor<4x2xi1>, tensor<2x4xi64>) {
  // CHECK: nnc.one_hot %{{.*}} depth = 10 : tensor<?x3xi64> -> f32
  %0 = nnc.one_hot %i depth = 10 : tensor<?x3xi64> -> f32
  // CHECK: nnc.one_hot %{{.*}} depth = 10 axis = 0 on_value = 5.000000e+00 off_value = -1.000000e+00 : tensor<?x3xi64> -> f16
  %1 = nnc.one_hot %i depth = 10 axis = 0 on_value = 5.0 off_value = -1.0
      : tensor<?x3xi64> -> f16
  // CHECK: nnc.one_hot %{{.*}} depth = 2 axis = 1 : tensor<4xi32> -> i1
  %2 = nnc.one_hot %j depth = 2 axis = 1 : tensor<4xi32> -> i1
  // CHECK: nnc.one_hot %{{.*}} depth = 2 axis = -2 on_value = 7.000000e+00 : tensor<4xi32> -> i64
  %3 = nnc.one_hot %j depth = 2 axis = -2 on_value = 7.0 : tensor<4xi32> -> i64
  return %0, %1, %2, %3 : tensor<?x3x10xf32>, tensor<10x?x3xf16>, tensor<4x2xi1>, tensor<2x4xi64>
}

// -----

// check_index: a scalar check inside kernels, with what it checks.
// CHECK-LABEL: func @check_index
func.func @check_index(%i: index, %n: index) -> (index, i1) {
  %c0 = arith.constant 0 : index
  // CHECK: %{{.*}}, %{{.*}} = nnc.check_index %{{.*}} in[%{{.*}}, %{{.*}}) "gather 'g' index into axis 0 of f32[4x3]"
  %r, %ok = nnc.check_index %i in [%c0, %n) "gather 'g' index into axis 0 of f32[4x3]"
  return %r, %ok : index, i1
}
