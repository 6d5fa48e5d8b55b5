// RUN: nnc-opt %s --split-input-file --nnc-convert-to-linalg | FileCheck %s

// unsqueeze is an expand_shape that keeps the dynamic size.
// CHECK-LABEL: func @unsqueeze
// CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x4xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2, 3]] output_shape [1, %[[D]], 4, 1] : tensor<?x4xf32> into tensor<1x?x4x1xf32>
func.func @unsqueeze(%x: tensor<?x4xf32>) -> tensor<1x?x4x1xf32> {
  %0 = nnc.unsqueeze %x axes = [0, -1] : tensor<?x4xf32>
  return %0 : tensor<1x?x4x1xf32>
}

// -----

// squeeze of a `?` dimension casts it to 1 before collapsing.
// CHECK-LABEL: func @squeeze
// CHECK: %[[C:.*]] = tensor.cast %{{.*}} : tensor<?x3x1xf32> to tensor<1x3x1xf32>
// CHECK: tensor.collapse_shape %[[C]] {{\[}}[0, 1, 2]] : tensor<1x3x1xf32> into tensor<3xf32>
func.func @squeeze(%x: tensor<?x3x1xf32>) -> tensor<3xf32> {
  %0 = nnc.squeeze %x axes = [0, -1] : tensor<?x3x1xf32>
  return %0 : tensor<3xf32>
}

// -----

// squeeze without axes removes the static unit dimensions.
// CHECK-LABEL: func @squeeze_all
// CHECK-NOT: tensor.cast
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2, 3]] : tensor<1x3x1x2xi1> into tensor<3x2xi1>
func.func @squeeze_all(%x: tensor<1x3x1x2xi1>) -> tensor<3x2xi1> {
  %0 = nnc.squeeze %x : tensor<1x3x1x2xi1>
  return %0 : tensor<3x2xi1>
}

// -----

// flatten at axis 0 collapses everything and adds the leading 1; at -2 it
// collapses both halves.
// CHECK-LABEL: func @flatten
// CHECK: %[[A:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: tensor.expand_shape %[[A]] {{\[}}[0, 1]] output_shape [1, 6] : tensor<6xf32> into tensor<1x6xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2, 3]] : tensor<2x?x4x5xf32> into tensor<?x20xf32>
func.func @flatten(%x: tensor<2x3xf32>, %y: tensor<2x?x4x5xf32>) -> (tensor<1x6xf32>, tensor<?x20xf32>) {
  %0 = nnc.flatten %x axis = 0 : tensor<2x3xf32>
  %1 = nnc.flatten %y axis = -2 : tensor<2x?x4x5xf32>
  return %0, %1 : tensor<1x6xf32>, tensor<?x20xf32>
}

// -----

// flatten of a scalar is a [1, 1] expand_shape.
// CHECK-LABEL: func @flatten_scalar
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
func.func @flatten_scalar(%x: tensor<f32>) -> tensor<1x1xf32> {
  %0 = nnc.flatten %x axis = 0 : tensor<f32>
  return %0 : tensor<1x1xf32>
}

// -----

// split slices at running offsets; an empty piece is a tensor.empty.
// CHECK-LABEL: func @split
// CHECK: %[[D:.*]] = tensor.dim
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [%[[D]], 2] [1, 1] : tensor<?x8xf32> to tensor<?x2xf32>
// CHECK: tensor.empty(%[[D]]) : tensor<?x0xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 2] [%[[D]], 6] [1, 1] : tensor<?x8xf32> to tensor<?x6xf32>
func.func @split(%x: tensor<?x8xf32>) -> (tensor<?x2xf32>, tensor<?x0xf32>, tensor<?x6xf32>) {
  %0:3 = nnc.split %x axis = 1 sizes = [2, 0, 6] : tensor<?x8xf32>
  return %0#0, %0#1, %0#2 : tensor<?x2xf32>, tensor<?x0xf32>, tensor<?x6xf32>
}

// -----

// tile broadcasts to [r0, d0, r1, d1] and collapses the pairs.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-LABEL: func @tile
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<2x2x3x?xi64>
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[IN]], {{.*}}]{{.*}} outs(%[[E]]
// CHECK: tensor.collapse_shape %[[G]] {{\[}}[0, 1], [2, 3]] : tensor<2x2x3x?xi64> into tensor<4x?xi64>
func.func @tile(%x: tensor<2x?xi64>) -> tensor<4x?xi64> {
  %0 = nnc.tile %x repeats = [2, 3] : tensor<2x?xi64>
  return %0 : tensor<4x?xi64>
}

// -----

// trilu compares col - row with k on the last two loop indices.
// CHECK-LABEL: func @trilu
// CHECK: linalg.generic
// CHECK: %[[R:.*]] = linalg.index 1 : index
// CHECK: %[[C:.*]] = linalg.index 2 : index
// CHECK: %[[D:.*]] = arith.subi %[[C]], %[[R]] : index
// CHECK: %[[K:.*]] = arith.constant -1 : index
// CHECK: %[[KEEP:.*]] = arith.cmpi sle, %[[D]], %[[K]] : index
// CHECK: %[[Z:.*]] = arith.constant 0 : i32
// CHECK: arith.select %[[KEEP]], %{{.*}}, %[[Z]] : i32
func.func @trilu(%x: tensor<?x4x4xi32>) -> tensor<?x4x4xi32> {
  %0 = nnc.trilu %x upper = false k = -1 : tensor<?x4x4xi32>
  return %0 : tensor<?x4x4xi32>
}

// -----

// depth_to_space: expand C into (b, b, C') for DCR and (C', b, b) for CRD,
// transpose, collapse.
// CHECK-LABEL: func @depth_to_space
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2, 3], [4], [5]] output_shape [1, 2, 2, 2, %{{.*}}, 3] : tensor<1x8x?x3xf32> into tensor<1x2x2x2x?x3xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x2x2x2x?x3xf32>) outs(%{{.*}} : tensor<1x2x?x2x3x2xf32>) permutation = [0, 3, 4, 1, 5, 2]
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3], [4, 5]] : tensor<1x2x?x2x3x2xf32> into tensor<1x2x?x6xf32>
// CHECK: linalg.transpose {{.*}} permutation = [0, 1, 4, 2, 5, 3]
func.func @depth_to_space(%x: tensor<1x8x?x3xf32>) -> (tensor<1x2x?x6xf32>, tensor<1x2x?x6xf32>) {
  %0 = nnc.depth_to_space %x blocksize = 2 : tensor<1x8x?x3xf32>
  %1 = nnc.depth_to_space %x blocksize = 2 mode = "CRD" : tensor<1x8x?x3xf32>
  return %0, %1 : tensor<1x2x?x6xf32>, tensor<1x2x?x6xf32>
}

// -----

// space_to_depth: expand H and W into blocks, move the blocks in front of C.
// CHECK-LABEL: func @space_to_depth
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3], [4, 5]] output_shape [1, 3, 2, 2, 4, 2] : tensor<1x3x4x8xf32> into tensor<1x3x2x2x4x2xf32>
// CHECK: linalg.transpose {{.*}} outs(%{{.*}} : tensor<1x2x2x3x2x4xf32>) permutation = [0, 3, 5, 1, 2, 4]
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3], [4], [5]] : tensor<1x2x2x3x2x4xf32> into tensor<1x12x2x4xf32>
func.func @space_to_depth(%x: tensor<1x3x4x8xf32>) -> tensor<1x12x2x4xf32> {
  %0 = nnc.space_to_depth %x blocksize = 2 : tensor<1x3x4x8xf32>
  return %0 : tensor<1x12x2x4xf32>
}

// -----

// gather reads the indices on the axis's loop dimensions, checks each
// against [-n, n) for the axis size n at run time and extracts from the
// data with a negative index shifted by n.
// CHECK-DAG: #[[IDX:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
// CHECK-LABEL: func @gather
// CHECK: %[[N:.*]] = tensor.dim %[[DATA:.*]], %{{.*}} : tensor<4x?x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IDX]], {{.*}}]{{.*}} ins(%{{.*}} : tensor<2x3xi32>) outs(%{{.*}} : tensor<4x2x3x8xf32>)
// CHECK: %[[I0:.*]] = linalg.index 0 : index
// CHECK: %[[X:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[LO:.*]] = arith.subi %{{.*}}, %[[N]] : index
// CHECK: %[[I:.*]], %{{.*}} = nnc.check_index %[[X]] in[%[[LO]], %[[N]]) "gather index into axis 1 of f32[4x?x8]"
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[I]]
// CHECK: %[[SH:.*]] = arith.addi %[[I]], %[[N]] : index
// CHECK: %[[W:.*]] = arith.select %[[NEG]], %[[SH]], %[[I]] : index
// CHECK: %[[I3:.*]] = linalg.index 3 : index
// CHECK: tensor.extract %[[DATA]][%[[I0]], %[[W]], %[[I3]]] : tensor<4x?x8xf32>
func.func @gather(%d: tensor<4x?x8xf32>, %i: tensor<2x3xi32>) -> tensor<4x2x3x8xf32> {
  %0 = nnc.gather %d, %i axis = -2 : tensor<4x?x8xf32>, tensor<2x3xi32>
  return %0 : tensor<4x2x3x8xf32>
}

// -----

// gather with scalar indices drops the axis.
// CHECK-DAG: #[[IDX:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func @gather_scalar
// CHECK: linalg.generic {indexing_maps = [#[[IDX]], {{.*}}]{{.*}} ins(%{{.*}} : tensor<i64>) outs(%{{.*}} : tensor<5xf16>)
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<3x5xf16>
func.func @gather_scalar(%d: tensor<3x5xf16>, %i: tensor<i64>) -> tensor<5xf16> {
  %0 = nnc.gather %d, %i : tensor<3x5xf16>, tensor<i64>
  return %0 : tensor<5xf16>
}

// -----

// gather_elements replaces the axis coordinate by the (wrapped) index.
// CHECK-LABEL: func @gather_elements
// CHECK: %[[N:.*]] = tensor.dim %[[DATA:.*]], %{{.*}} : tensor<3x?xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<3x2xi64>) outs(%{{.*}} : tensor<3x2xf32>)
// CHECK: %[[I0:.*]] = linalg.index 0 : index
// CHECK: arith.addi %{{.*}}, %[[N]] : index
// CHECK: %[[W:.*]] = arith.select
// CHECK: tensor.extract %[[DATA]][%[[I0]], %[[W]]] : tensor<3x?xf32>
func.func @gather_elements(%d: tensor<3x?xf32>, %i: tensor<3x2xi64>) -> tensor<3x2xf32> {
  %0 = nnc.gather_elements %d, %i axis = 1 : tensor<3x?xf32>, tensor<3x2xi64>
  return %0 : tensor<3x2xf32>
}

// -----

// one_hot compares the (depth-shifted) index with the new dimension's loop
// index.
// CHECK-DAG: #[[IDX:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @one_hot
// CHECK: linalg.generic {indexing_maps = [#[[IDX]], {{.*}}]{{.*}} outs(%{{.*}} : tensor<?x3x10xi1>)
// CHECK: %[[I:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[DEPTH:.*]] = arith.constant 10 : i64
// CHECK: arith.addi %[[I]], %[[DEPTH]] : i64
// CHECK: %[[W:.*]] = arith.select
// CHECK: %[[P:.*]] = linalg.index 2 : index
// CHECK: %[[PI:.*]] = arith.index_cast %[[P]] : index to i64
// CHECK: %[[HIT:.*]] = arith.cmpi eq, %[[W]], %[[PI]] : i64
// CHECK: %[[ON:.*]] = arith.constant true
// CHECK: %[[OFF:.*]] = arith.constant false
// CHECK: arith.select %[[HIT]], %[[ON]], %[[OFF]] : i1
func.func @one_hot(%i: tensor<?x3xi32>) -> tensor<?x3x10xi1> {
  %0 = nnc.one_hot %i depth = 10 : tensor<?x3xi32> -> i1
  return %0 : tensor<?x3x10xi1>
}

// -----

// cumsum: an scf.for along the axis, from the end for reverse; the f16
// running sum is kept in f32, written (truncated) before the add for
// exclusive, and updated in place.
// CHECK-LABEL: func @cumsum
// CHECK: %[[N:.*]] = tensor.dim %[[X:.*]], %{{.*}} : tensor<4x?xf16>
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[OUT:.*]] = tensor.empty(%[[N]]) : tensor<4x?xf16>
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[O:.*]] = %[[OUT]], %[[A:.*]] = %[[ACC]])
// CHECK: %[[LAST:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK: %[[POS:.*]] = arith.subi %[[LAST]], %[[IV]] : index
// CHECK: %[[S:.*]] = tensor.extract_slice %[[X]][0, %[[POS]]] [4, 1] [1, 1] : tensor<4x?xf16> to tensor<4xf16>
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<4xf32>)
// CHECK: arith.truncf
// CHECK: %[[INS:.*]] = tensor.insert_slice %[[T]] into %[[O]][0, %[[POS]]] [4, 1] [1, 1]
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<4xf16>)
// CHECK: arith.extf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[E]] : tensor<4xf32>) outs(%[[A]] : tensor<4xf32>)
// CHECK: arith.addf
// CHECK: scf.yield %[[INS]], %[[SUM]]
func.func @cumsum(%x: tensor<4x?xf16>) -> tensor<4x?xf16> {
  %0 = nnc.cumsum %x axis = 1 exclusive = true reverse = true : tensor<4x?xf16>
  return %0 : tensor<4x?xf16>
}

// -----

// scatter_elements: a loop nest over the indices combining into a copy of
// the data (not the caller's buffer).
// CHECK-LABEL: func @scatter_elements
// CHECK-SAME: (%[[D:.*]]: tensor<3x5xi64>, %[[I:.*]]: tensor<3x2xi32>, %[[U:.*]]: tensor<3x2xi64>)
// CHECK: %[[CP:.*]] = linalg.copy ins(%[[D]] : tensor<3x5xi64>)
// CHECK: scf.for %[[A:.*]] = {{.*}} iter_args(%[[T0:.*]] = %[[CP]])
// CHECK: scf.for %[[B:.*]] = {{.*}} iter_args(%[[T:.*]] = %[[T0]])
// CHECK: %[[IDX:.*]] = tensor.extract %[[I]][%[[A]], %[[B]]] : tensor<3x2xi32>
// CHECK: arith.index_cast %[[IDX]] : i32 to index
// CHECK: %{{.*}}, %[[OK:.*]] = nnc.check_index
// CHECK: %[[W:.*]] = arith.select
// CHECK: %[[UPD:.*]] = tensor.extract %[[U]][%[[A]], %[[B]]]
// CHECK: %[[OLD:.*]] = tensor.extract %[[T]][%[[A]], %[[W]]]
// CHECK: %[[M:.*]] = arith.maxsi %[[OLD]], %[[UPD]] : i64
// An index out of range leaves the element as it was.
// CHECK: %[[K:.*]] = arith.select %[[OK]], %[[M]], %[[OLD]] : i64
// CHECK: %[[NEW:.*]] = tensor.insert %[[K]] into %[[T]][%[[A]], %[[W]]]
// CHECK: scf.yield %[[NEW]]
func.func @scatter_elements(%d: tensor<3x5xi64>, %i: tensor<3x2xi32>, %u: tensor<3x2xi64>) -> tensor<3x5xi64> {
  %0 = nnc.scatter_elements %d, %i, %u axis = 1 reduction = max : tensor<3x5xi64>, tensor<3x2xi32>, tensor<3x2xi64>
  return %0 : tensor<3x5xi64>
}

// -----

// scatter_elements without reduction inserts the update (here booleans),
// or the old element when the index is out of range.
// CHECK-LABEL: func @scatter_elements_none
// CHECK: %[[UPD:.*]] = tensor.extract %{{.*}} : tensor<4xi1>
// CHECK-NEXT: %[[OLD:.*]] = tensor.extract %{{.*}} : tensor<6xi1>
// CHECK-NEXT: %[[V:.*]] = arith.select %{{.*}}, %[[UPD]], %[[OLD]] : i1
// CHECK-NEXT: tensor.insert %[[V]]
func.func @scatter_elements_none(%d: tensor<6xi1>, %i: tensor<4xi64>, %u: tensor<4xi1>) -> tensor<6xi1> {
  %0 = nnc.scatter_elements %d, %i, %u : tensor<6xi1>, tensor<4xi64>, tensor<4xi1>
  return %0 : tensor<6xi1>
}

// -----

// scatter_nd: a loop nest over the updates; the index tuple comes from the
// indices row of the outer loops.
// CHECK-LABEL: func @scatter_nd
// CHECK-SAME: (%[[D:.*]]: tensor<4x5x6xf32>, %[[I:.*]]: tensor<?x2xi64>, %[[U:.*]]: tensor<?x6xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[U]], %{{.*}} : tensor<?x6xf32>
// CHECK: %[[CP:.*]] = linalg.copy ins(%[[D]] : tensor<4x5x6xf32>)
// CHECK: scf.for %[[A:.*]] = %{{.*}} to %[[N]] {{.*}} iter_args(%{{.*}} = %[[CP]])
// CHECK: scf.for %[[B:.*]] = {{.*}} iter_args(%[[T:.*]] = %{{.*}})
// CHECK: tensor.extract %[[I]][%[[A]], %{{.*}}] : tensor<?x2xi64>
// CHECK: %{{.*}}, %[[OK0:.*]] = nnc.check_index {{.*}} "scatter_nd index into axis 0 of f32[4x5x6]"
// CHECK: %[[W0:.*]] = arith.select
// CHECK: tensor.extract %[[I]][%[[A]], %{{.*}}] : tensor<?x2xi64>
// CHECK: %{{.*}}, %[[OK1:.*]] = nnc.check_index {{.*}} "scatter_nd index into axis 1 of f32[4x5x6]"
// CHECK: %[[W1:.*]] = arith.select
// CHECK: %[[OK:.*]] = arith.andi %[[OK0]], %[[OK1]] : i1
// CHECK: %[[UPD:.*]] = tensor.extract %[[U]][%[[A]], %[[B]]]
// CHECK: %[[OLD:.*]] = tensor.extract %[[T]][%[[W0]], %[[W1]], %[[B]]]
// CHECK: %[[M:.*]] = arith.mulf %[[OLD]], %[[UPD]] : f32
// CHECK: %[[K:.*]] = arith.select %[[OK]], %[[M]], %[[OLD]] : f32
// CHECK: tensor.insert %[[K]] into %[[T]][%[[W0]], %[[W1]], %[[B]]]
func.func @scatter_nd(%d: tensor<4x5x6xf32>, %i: tensor<?x2xi64>, %u: tensor<?x6xf32>) -> tensor<4x5x6xf32> {
  %0 = nnc.scatter_nd %d, %i, %u reduction = mul : tensor<4x5x6xf32>, tensor<?x2xi64>, tensor<?x6xf32>
  return %0 : tensor<4x5x6xf32>
}

// -----

// reflect padding: a generic reading the input at the mirrored index of the
// padded dimension only.
// CHECK-LABEL: func @pad_reflect
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<4x?xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<4x?xf32>)
// CHECK: %[[I0:.*]] = linalg.index 0 : index
// CHECK: %[[S:.*]] = arith.subi %[[I0]], %{{.*}} : index
// CHECK: arith.cmpi slt, %[[S]]
// CHECK: arith.cmpi sgt
// CHECK: %[[R:.*]] = arith.select
// CHECK: %[[I1:.*]] = linalg.index 1 : index
// CHECK: tensor.extract %{{.*}}[%[[R]], %[[I1]]] : tensor<2x?xf32>
func.func @pad_reflect(%x: tensor<2x?xf32>) -> tensor<4x?xf32> {
  %0 = nnc.pad %x pads = [1, 0, 1, 0] mode = reflect : tensor<2x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// edge padding clamps, wrap padding takes a non-negative remainder.
// CHECK-LABEL: func @pad_edge_wrap
// CHECK: linalg.generic
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: tensor.extract
// CHECK: linalg.generic
// CHECK: arith.remsi
// CHECK: tensor.extract
func.func @pad_edge_wrap(%x: tensor<2x3xbf16>) -> (tensor<2x6xbf16>, tensor<5x3xbf16>) {
  %0 = nnc.pad %x pads = [0, 1, 0, 2] mode = edge : tensor<2x3xbf16>
  %1 = nnc.pad %x pads = [3, 0, 0, 0] mode = wrap : tensor<2x3xbf16>
  return %0, %1 : tensor<2x6xbf16>, tensor<5x3xbf16>
}

// -----

// Negative pads crop with extract_slice before padding.
// CHECK-LABEL: func @pad_crop
// CHECK: %[[S:.*]] = tensor.extract_slice %{{.*}}[1, 0] [3, 3] [1, 1] : tensor<4x5xf32> to tensor<3x3xf32>
// CHECK: tensor.pad %[[S]] low[0, 1] high[1, 0]
// CHECK: tensor.yield %{{.*}} : f32
// CHECK: } : tensor<3x3xf32> to tensor<4x4xf32>
func.func @pad_crop(%x: tensor<4x5xf32>) -> tensor<4x4xf32> {
  %0 = nnc.pad %x pads = [-1, 1, 1, -2] value = 2.0 : tensor<4x5xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// A negative step extracts with the positive stride from the last element
// read and reverses the axis.
// CHECK-DAG: #[[REV:.*]] = affine_map<(d0, d1) -> (-d0 + 2, d1)>
// CHECK-LABEL: func @slice_negative_step
// CHECK: %[[S:.*]] = tensor.extract_slice %{{.*}}[1, 0] [3, 6] [3, 1] : tensor<8x6xf32> to tensor<3x6xf32>
// CHECK: linalg.generic {indexing_maps = [#[[REV]], {{.*}}]{{.*}} ins(%[[S]] : tensor<3x6xf32>)
func.func @slice_negative_step(%x: tensor<8x6xf32>) -> tensor<3x6xf32> {
  %0 = nnc.slice %x starts = [-1] ends = [0] steps = [-3] : tensor<8x6xf32>
  return %0 : tensor<3x6xf32>
}

// -----

// A slice starting at the end of the axis is empty: no extract_slice with
// an out-of-bounds offset.
// CHECK-LABEL: func @slice_empty
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<0x?xf32>
// CHECK: return %[[E]]
func.func @slice_empty(%x: tensor<10x?xf32>) -> tensor<0x?xf32> {
  %0 = nnc.slice %x starts = [10] ends = [1000] : tensor<10x?xf32>
  return %0 : tensor<0x?xf32>
}
