// RUN: nnc-opt %s --split-input-file --canonicalize | FileCheck %s

// reshape: to the input's type (at most one '?') folds to the input
// CHECK-LABEL: func @reshape_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
// CHECK-NOT: nnc.reshape
// CHECK: return %[[X]]
func.func @reshape_same_type(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = nnc.reshape %x : tensor<?x4xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// reshape: with two '?' the same type may be another shape: no fold
// CHECK-LABEL: func @reshape_same_type_two_dynamic
// CHECK: %[[R:.*]] = nnc.reshape %{{.*}} : tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK: return %[[R]]
func.func @reshape_same_type_two_dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = nnc.reshape %x : tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// reshape: a reshape of a reshape reads the inner input
// CHECK-LABEL: func @reshape_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[R:.*]] = nnc.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<4x6xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_reshape(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = nnc.reshape %x : tensor<2x3x4xf32> -> tensor<24xf32>
  %1 = nnc.reshape %0 : tensor<24xf32> -> tensor<4x6xf32>
  return %1 : tensor<4x6xf32>
}

// -----

// reshape: a reshape of reshapes back to the original type folds away
// CHECK-LABEL: func @reshape_reshape_roundtrip
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: nnc.reshape
// CHECK: return %[[X]]
func.func @reshape_reshape_roundtrip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nnc.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = nnc.reshape %0 : tensor<6xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// reshape: a reshape of another op keeps its input
// CHECK-LABEL: func @reshape_of_transpose
// CHECK: %[[T:.*]] = nnc.transpose
// CHECK: nnc.reshape %[[T]] : tensor<3x2xf32> -> tensor<6xf32>
func.func @reshape_of_transpose(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = nnc.transpose %x perm = [1, 0] : tensor<2x3xf32>
  %1 = nnc.reshape %0 : tensor<3x2xf32> -> tensor<6xf32>
  return %1 : tensor<6xf32>
}

// -----

// reshape: a reshape of a constant to a static type is a constant
// CHECK-LABEL: func @reshape_constant
// CHECK: %[[C:.*]] = nnc.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
// CHECK-NOT: nnc.reshape
// CHECK: return %[[C]]
func.func @reshape_constant() -> tensor<2x3xi32> {
  %c = nnc.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %0 = nnc.reshape %c : tensor<6xi32> -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// reshape: a reshape of a constant to a dynamic type stays
// CHECK-LABEL: func @reshape_constant_dynamic
// CHECK: nnc.reshape %{{.*}} : tensor<6xi32> -> tensor<?x3xi32>
func.func @reshape_constant_dynamic() -> tensor<?x3xi32> {
  %c = nnc.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %0 = nnc.reshape %c : tensor<6xi32> -> tensor<?x3xi32>
  return %0 : tensor<?x3xi32>
}

// -----

// expand: to the input's static type folds to the input
// CHECK-LABEL: func @expand_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<3x1xf32>)
// CHECK-NOT: nnc.expand
// CHECK: return %[[X]]
func.func @expand_same_type(%x: tensor<3x1xf32>) -> tensor<3x1xf32> {
  %0 = nnc.expand %x : tensor<3x1xf32> -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

// expand: a '?' input dimension may be a broadcast 1: no fold
// CHECK-LABEL: func @expand_same_type_dynamic
// CHECK: nnc.expand %{{.*}} : tensor<?xf32> -> tensor<?xf32>
func.func @expand_same_type_dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = nnc.expand %x : tensor<?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// transpose: an identity permutation folds to the input
// CHECK-LABEL: func @transpose_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xf32>)
// CHECK-NOT: nnc.transpose
// CHECK: return %[[X]]
func.func @transpose_identity(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %0 = nnc.transpose %x perm = [0, 1] : tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

// transpose: a transpose of a transpose composes the permutations
// CHECK-LABEL: func @transpose_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[T:.*]] = nnc.transpose %[[X]] perm = [2, 1, 0] : tensor<2x3x4xf32>
// CHECK-NEXT: return %[[T]] : tensor<4x3x2xf32>
func.func @transpose_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = nnc.transpose %x perm = [1, 2, 0] : tensor<2x3x4xf32>
  %1 = nnc.transpose %0 perm = [1, 0, 2] : tensor<3x4x2xf32>
  return %1 : tensor<4x3x2xf32>
}

// -----

// transpose: inverse transposes cancel
// CHECK-LABEL: func @transpose_inverse
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NOT: nnc.transpose
// CHECK: return %[[X]]
func.func @transpose_inverse(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = nnc.transpose %x perm = [1, 2, 0] : tensor<2x3x4xf32>
  %1 = nnc.transpose %0 perm = [2, 0, 1] : tensor<3x4x2xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// transpose: a non-identity permutation stays
// CHECK-LABEL: func @transpose_swap
// CHECK: nnc.transpose %{{.*}} perm = [1, 0] : tensor<2x3xf32>
func.func @transpose_swap(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = nnc.transpose %x perm = [1, 0] : tensor<2x3xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// concat: of one input folds to it
// CHECK-LABEL: func @concat_single
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: nnc.concat
// CHECK: return %[[X]]
func.func @concat_single(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nnc.concat %x axis = 1 : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// concat: of two inputs stays
// CHECK-LABEL: func @concat_two
// CHECK: nnc.concat %{{.*}}, %{{.*}} axis = 1 : tensor<2x3xf32>, tensor<2x3xf32>
func.func @concat_two(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %0 = nnc.concat %x, %x axis = 1 : tensor<2x3xf32>, tensor<2x3xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// split: into one piece folds to the input
// CHECK-LABEL: func @split_single
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: nnc.split
// CHECK: return %[[X]]
func.func @split_single(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = nnc.split %x axis = 1 sizes = [3] : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// split: into two pieces stays
// CHECK-LABEL: func @split_two
// CHECK: nnc.split %{{.*}} axis = 1 sizes = [1, 2] : tensor<2x3xf32>
func.func @split_two(%x: tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<2x2xf32>) {
  %0, %1 = nnc.split %x axis = 1 sizes = [1, 2] : tensor<2x3xf32>
  return %0, %1 : tensor<2x1xf32>, tensor<2x2xf32>
}

// -----

// slice: selecting everything (clamped starts/ends, INT64_MAX on '?') folds
// CHECK-LABEL: func @slice_everything
// CHECK-SAME: (%[[X:.*]]: tensor<4x?xf32>)
// CHECK-NOT: nnc.slice
// CHECK: return %[[X]]
func.func @slice_everything(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %0 = nnc.slice %x starts = [-10, 0] ends = [4, 9223372036854775807] steps = [1, 1] : tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// slice: a finite end on a '?' dimension may cut it: no fold
// CHECK-LABEL: func @slice_dynamic_end
// CHECK: nnc.slice %{{.*}} starts = [0] ends = [100] axes = [1] : tensor<4x?xf32>
func.func @slice_dynamic_end(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %0 = nnc.slice %x starts = [0] ends = [100] axes = [1] : tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// slice: a full reversal keeps the type but is not the input: no fold
// CHECK-LABEL: func @slice_reverse
// CHECK: nnc.slice %{{.*}} starts = [-1] ends = [-9223372036854775808] steps = [-1] : tensor<4xf32>
func.func @slice_reverse(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nnc.slice %x starts = [-1] ends = [-9223372036854775808] steps = [-1] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// pad: by zero everywhere folds to the input
// CHECK-LABEL: func @pad_zero
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xf32>)
// CHECK-NOT: nnc.pad
// CHECK: return %[[X]]
func.func @pad_zero(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %0 = nnc.pad %x pads = [0, 0, 0, 0] mode = reflect : tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

// pad: growing one side and cropping the other keeps the type: no fold
// CHECK-LABEL: func @pad_shift
// CHECK: nnc.pad %{{.*}} pads = [1, -1] : tensor<4xf32>
func.func @pad_shift(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = nnc.pad %x pads = [1, -1] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// tile: by ones folds to the input
// CHECK-LABEL: func @tile_ones
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xi64>)
// CHECK-NOT: nnc.tile
// CHECK: return %[[X]]
func.func @tile_ones(%x: tensor<2x?xi64>) -> tensor<2x?xi64> {
  %0 = nnc.tile %x repeats = [1, 1] : tensor<2x?xi64>
  return %0 : tensor<2x?xi64>
}

// -----

// tile: a repeat on a '?' dimension keeps the type: no fold
// CHECK-LABEL: func @tile_dynamic
// CHECK: nnc.tile %{{.*}} repeats = [1, 2] : tensor<2x?xi64>
func.func @tile_dynamic(%x: tensor<2x?xi64>) -> tensor<2x?xi64> {
  %0 = nnc.tile %x repeats = [1, 2] : tensor<2x?xi64>
  return %0 : tensor<2x?xi64>
}

// -----

// squeeze: removing nothing folds to the input
// CHECK-LABEL: func @squeeze_nothing
// CHECK-SAME: (%[[X:.*]]: tensor<?x1xf32>)
// CHECK-NOT: nnc.squeeze
// CHECK: return %[[X]]
func.func @squeeze_nothing(%x: tensor<?x1xf32>) -> tensor<?x1xf32> {
  %0 = nnc.squeeze %x axes = [] : tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}

// -----

// squeeze: of exactly the dimensions an unsqueeze inserted folds away
// CHECK-LABEL: func @squeeze_unsqueeze
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
// CHECK-NOT: nnc.squeeze
// CHECK: return %[[X]]
func.func @squeeze_unsqueeze(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = nnc.unsqueeze %x axes = [0, -1] : tensor<?x4xf32>
  %1 = nnc.squeeze %0 axes = [3, 0] : tensor<1x?x4x1xf32>
  return %1 : tensor<?x4xf32>
}

// -----

// squeeze: of other dimensions than the unsqueeze inserted stays
// CHECK-LABEL: func @squeeze_unsqueeze_other
// CHECK: %[[U:.*]] = nnc.unsqueeze
// CHECK: nnc.squeeze %[[U]] axes = [1] : tensor<1x1xf32>
func.func @squeeze_unsqueeze_other(%x: tensor<1xf32>) -> tensor<1xf32> {
  %0 = nnc.unsqueeze %x axes = [0] : tensor<1xf32>
  %1 = nnc.squeeze %0 axes = [1] : tensor<1x1xf32>
  return %1 : tensor<1xf32>
}

// -----

// unsqueeze: with no axes folds to the input
// CHECK-LABEL: func @unsqueeze_nothing
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32>)
// CHECK-NOT: nnc.unsqueeze
// CHECK: return %[[X]]
func.func @unsqueeze_nothing(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = nnc.unsqueeze %x axes = [] : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// unsqueeze: with axes stays
// CHECK-LABEL: func @unsqueeze_axis
// CHECK: nnc.unsqueeze %{{.*}} axes = [0] : tensor<?xf32>
func.func @unsqueeze_axis(%x: tensor<?xf32>) -> tensor<1x?xf32> {
  %0 = nnc.unsqueeze %x axes = [0] : tensor<?xf32>
  return %0 : tensor<1x?xf32>
}

// -----

// flatten: of a matrix at axis 1 folds to the input
// CHECK-LABEL: func @flatten_matrix
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>)
// CHECK-NOT: nnc.flatten
// CHECK: return %[[X]]
func.func @flatten_matrix(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = nnc.flatten %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// flatten: of a matrix at axis 0 changes the type and stays
// CHECK-LABEL: func @flatten_matrix_axis0
// CHECK: nnc.flatten %{{.*}} axis = 0 : tensor<?x?xf32>
func.func @flatten_matrix_axis0(%x: tensor<?x?xf32>) -> tensor<1x?xf32> {
  %0 = nnc.flatten %x axis = 0 : tensor<?x?xf32>
  return %0 : tensor<1x?xf32>
}

// -----

// trilu: an upper triangle from k <= 1 - rows keeps everything and folds
// CHECK-LABEL: func @trilu_upper_all
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x5xf32>)
// CHECK-NOT: nnc.trilu
// CHECK: return %[[X]]
func.func @trilu_upper_all(%x: tensor<?x3x5xf32>) -> tensor<?x3x5xf32> {
  %0 = nnc.trilu %x k = -2 : tensor<?x3x5xf32>
  return %0 : tensor<?x3x5xf32>
}

// -----

// trilu: a lower triangle from k >= cols - 1 keeps everything and folds
// CHECK-LABEL: func @trilu_lower_all
// CHECK-SAME: (%[[X:.*]]: tensor<3x5xi1>)
// CHECK-NOT: nnc.trilu
// CHECK: return %[[X]]
func.func @trilu_lower_all(%x: tensor<3x5xi1>) -> tensor<3x5xi1> {
  %0 = nnc.trilu %x upper = false k = 4 : tensor<3x5xi1>
  return %0 : tensor<3x5xi1>
}

// -----

// trilu: one diagonal short of everything stays
// CHECK-LABEL: func @trilu_upper_partial
// CHECK: nnc.trilu %{{.*}} k = -1 : tensor<3x5xf32>
// CHECK: nnc.trilu %{{.*}} upper = false k = 3 : tensor<3x5xf32>
func.func @trilu_upper_partial(%x: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>) {
  %0 = nnc.trilu %x k = -1 : tensor<3x5xf32>
  %1 = nnc.trilu %x upper = false k = 3 : tensor<3x5xf32>
  return %0, %1 : tensor<3x5xf32>, tensor<3x5xf32>
}

// -----

// trilu: with '?' matrix dimensions nothing is known: no fold
// CHECK-LABEL: func @trilu_dynamic
// CHECK: nnc.trilu %{{.*}} k = -100 : tensor<?x?xf32>
func.func @trilu_dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = nnc.trilu %x k = -100 : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
