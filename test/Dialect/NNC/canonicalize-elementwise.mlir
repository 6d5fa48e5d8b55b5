// RUN: nnc-opt %s --split-input-file --canonicalize | FileCheck %s

// Double negation and double logical not cancel.
// CHECK-LABEL: func @neg_neg
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xi1>)
// CHECK-NEXT: return %[[X]], %[[B]]
func.func @neg_neg(%x: tensor<4xf32>, %b: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xi1>) {
  %0 = nnc.neg %x : tensor<4xf32>
  %1 = nnc.neg %0 : tensor<4xf32>
  %2 = nnc.not %b : tensor<4xi1>
  %3 = nnc.not %2 : tensor<4xi1>
  return %1, %3 : tensor<4xf32>, tensor<4xi1>
}

// -----

// Adding a zero splat on either side, subtracting zero, multiplying or
// dividing by one are identities when broadcasting does not widen x.
// CHECK-LABEL: func @identities
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>)
// CHECK-NOT: nnc.add
// CHECK-NOT: nnc.sub
// CHECK-NOT: nnc.mul
// CHECK-NOT: nnc.div
// CHECK: return %[[X]] : tensor<2x4xf32>
func.func @identities(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %zero = nnc.constant dense<0.0> : tensor<4xf32>
  %one = nnc.constant dense<1.0> : tensor<f32>
  %0 = nnc.add %x, %zero : tensor<2x4xf32>, tensor<4xf32>
  %1 = nnc.add %zero, %0 : tensor<4xf32>, tensor<2x4xf32>
  %2 = nnc.sub %1, %zero : tensor<2x4xf32>, tensor<4xf32>
  %3 = nnc.mul %2, %one : tensor<2x4xf32>, tensor<f32>
  %4 = nnc.mul %one, %3 : tensor<f32>, tensor<2x4xf32>
  %5 = nnc.div %4, %one : tensor<2x4xf32>, tensor<f32>
  return %5 : tensor<2x4xf32>
}

// -----

// An identity that broadcasts x to a larger shape must stay.
// CHECK-LABEL: func @identity_widens
// CHECK: %[[R:.*]] = nnc.add
// CHECK: return %[[R]] : tensor<3x4xf32>
func.func @identity_widens(%x: tensor<4xf32>) -> tensor<3x4xf32> {
  %zero = nnc.constant dense<0.0> : tensor<3x4xf32>
  %0 = nnc.add %x, %zero : tensor<4xf32>, tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Subtracting zero from the left is not an identity.
// CHECK-LABEL: func @zero_minus_x
// CHECK: nnc.sub
func.func @zero_minus_x(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = nnc.constant dense<0.0> : tensor<4xf32>
  %0 = nnc.sub %zero, %x : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Constant operands of one type fold, floats and integers (integer division
// truncates toward zero).
// CHECK-LABEL: func @const_fold
// CHECK-DAG: %[[F:.*]] = nnc.constant dense<[-3.000000e+00, -5.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[I:.*]] = nnc.constant dense<[3, -2]> : tensor<2xi32>
// CHECK: return %[[F]], %[[I]]
func.func @const_fold() -> (tensor<2xf32>, tensor<2xi32>) {
  %a = nnc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = nnc.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %0 = nnc.add %a, %b : tensor<2xf32>, tensor<2xf32>
  // (a - (a + b) * a) / a = [(1 - 4) / 1, (2 - 12) / 2] = [-3, -5]
  %1 = nnc.mul %0, %a : tensor<2xf32>, tensor<2xf32>
  %2 = nnc.sub %a, %1 : tensor<2xf32>, tensor<2xf32>
  %3 = nnc.div %2, %a : tensor<2xf32>, tensor<2xf32>
  %i = nnc.constant dense<[7, -5]> : tensor<2xi32>
  %j = nnc.constant dense<[2, 2]> : tensor<2xi32>
  %4 = nnc.div %i, %j : tensor<2xi32>, tensor<2xi32>
  %5 = nnc.neg %3 : tensor<2xf32>
  %6 = nnc.neg %5 : tensor<2xf32>
  return %6, %4 : tensor<2xf32>, tensor<2xi32>
}

// -----

// Integer division by zero is left for run time.
// CHECK-LABEL: func @div_by_zero
// CHECK: nnc.div
func.func @div_by_zero() -> tensor<2xi32> {
  %i = nnc.constant dense<[7, 5]> : tensor<2xi32>
  %z = nnc.constant dense<[1, 0]> : tensor<2xi32>
  %0 = nnc.div %i, %z : tensor<2xi32>, tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// Negating a constant folds.
// CHECK-LABEL: func @neg_const
// CHECK: nnc.constant dense<[-1, 2]> : tensor<2xi64>
// CHECK-NOT: nnc.neg
func.func @neg_const() -> tensor<2xi64> {
  %c = nnc.constant dense<[1, -2]> : tensor<2xi64>
  %0 = nnc.neg %c : tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// x + (-y) -> x - y and (-x) + y -> y - x.
// CHECK-LABEL: func @add_neg
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<3xf32>)
// CHECK: %[[A:.*]] = nnc.sub %[[X]], %[[Y]] : tensor<2x3xf32>, tensor<3xf32>
// CHECK: %[[B:.*]] = nnc.sub %[[X]], %[[Y]] : tensor<2x3xf32>, tensor<3xf32>
// CHECK: return %[[A]], %[[B]]
func.func @add_neg(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %n = nnc.neg %y : tensor<3xf32>
  %0 = nnc.add %x, %n : tensor<2x3xf32>, tensor<3xf32>
  %1 = nnc.add %n, %x : tensor<3xf32>, tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// x - (-y) -> x + y and -(x - y) -> y - x.
// CHECK-LABEL: func @sub_neg
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[A:.*]] = nnc.add %[[X]], %[[Y]]
// CHECK-DAG: %[[B:.*]] = nnc.sub %[[Y]], %[[X]]
// CHECK: return %[[A]], %[[B]]
func.func @sub_neg(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %n = nnc.neg %y : tensor<4xf32>
  %0 = nnc.sub %x, %n : tensor<4xf32>, tensor<4xf32>
  %d = nnc.sub %x, %y : tensor<4xf32>, tensor<4xf32>
  %1 = nnc.neg %d : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// clip without bounds, a cast to the same type and where with a constant
// condition are identities.
// CHECK-LABEL: func @trivial
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]], %[[Y]], %[[X]]
func.func @trivial(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = nnc.clip %x : tensor<4xf32>
  %t = nnc.constant dense<true> : tensor<4xi1>
  %f = nnc.constant dense<false> : tensor<i1>
  %1 = nnc.where %f, %x, %y : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  %2 = nnc.where %t, %0, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  %3 = nnc.cast %2 : tensor<4xf32> to tensor<4xf32>
  return %3, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// where with a constant condition that would change the type stays.
// CHECK-LABEL: func @where_widens
// CHECK: nnc.where
func.func @where_widens(%x: tensor<4xf32>, %y: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %t = nnc.constant dense<true> : tensor<i1>
  %0 = nnc.where %t, %x, %y : tensor<i1>, tensor<4xf32>, tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Constants of different shapes fold through broadcasting, integers and
// floats, for the arithmetic ops and max/min.
// CHECK-LABEL: func @broadcast_fold
// CHECK-DAG: %[[I:.*]] = nnc.constant dense<{{\[}}[11, 22], [13, 24]]> : tensor<2x2xi64>
// CHECK-DAG: %[[F:.*]] = nnc.constant dense<[2.000000e+00, 0x7FC00000, 5.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[G:.*]] = nnc.constant dense<[1.000000e+00, 0x7FC00000, 3.000000e+00]> : tensor<3xf32>
// CHECK: return %[[I]], %[[F]], %[[G]]
func.func @broadcast_fold() -> (tensor<2x2xi64>, tensor<3xf32>, tensor<3xf32>) {
  %a = nnc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %b = nnc.constant dense<[10, 20]> : tensor<2xi64>
  %0 = nnc.add %a, %b : tensor<2x2xi64>, tensor<2xi64>
  %x = nnc.constant dense<[1.0, 0x7FC00000, 5.0]> : tensor<3xf32>
  %y = nnc.constant dense<2.0> : tensor<f32>
  %z = nnc.constant dense<[1.0, 1.0, 3.0]> : tensor<3xf32>
  %1 = nnc.max %x, %y : tensor<3xf32>, tensor<f32>
  %2 = nnc.min %x, %z : tensor<3xf32>, tensor<3xf32>
  return %0, %1, %2 : tensor<2x2xi64>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Comparisons fold (NaN is unordered: only ne holds), and so does where on
// three constants.
// CHECK-LABEL: func @cmp_where_fold
// CHECK-DAG: %[[LT:.*]] = nnc.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-DAG: %[[NE:.*]] = nnc.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK-DAG: %[[GE:.*]] = nnc.constant dense<[false, true, true]> : tensor<3xi1>
// CHECK-DAG: %[[W:.*]] = nnc.constant dense<{{\[}}[1, 9, 9], [1, 9, 9]]> : tensor<2x3xi64>
// CHECK: return %[[LT]], %[[NE]], %[[GE]], %[[W]]
func.func @cmp_where_fold() -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<2x3xi64>) {
  %x = nnc.constant dense<[1.0, 0x7FC00000, 3.0]> : tensor<3xf32>
  %y = nnc.constant dense<3.0> : tensor<f32>
  %0 = nnc.cmp lt, %x, %y : tensor<3xf32>, tensor<f32>
  %1 = nnc.cmp ne, %x, %y : tensor<3xf32>, tensor<f32>
  %i = nnc.constant dense<[-1, 5, 7]> : tensor<3xi64>
  %j = nnc.constant dense<5> : tensor<i64>
  %2 = nnc.cmp ge, %i, %j : tensor<3xi64>, tensor<i64>
  %c = nnc.constant dense<[true, false, false]> : tensor<3xi1>
  %one = nnc.constant dense<1> : tensor<2x1xi64>
  %nine = nnc.constant dense<9> : tensor<i64>
  %3 = nnc.where %c, %one, %nine : tensor<3xi1>, tensor<2x1xi64>, tensor<i64>
  return %0, %1, %2, %3 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<2x3xi64>
}

// -----

// Results larger than the folding limit (65536 elements) stay ops.
// CHECK-LABEL: func @fold_limit
// CHECK: nnc.add
func.func @fold_limit() -> tensor<256x257xf32> {
  %a = nnc.constant dense<1.0> : tensor<256x257xf32>
  %b = nnc.constant dense<2.0> : tensor<f32>
  %0 = nnc.add %a, %b : tensor<256x257xf32>, tensor<f32>
  return %0 : tensor<256x257xf32>
}

// -----

// A cast of a value another cast widened exactly reads the narrow value: a
// round trip through f32 disappears, a bf16 -> f32 -> f16 chain becomes one
// cast. A narrowing round trip (f32 -> bf16 -> f32) rounds and stays.
// CHECK-LABEL: func @cast_chains
// CHECK-SAME: (%[[B:.*]]: tensor<4xbf16>, %[[F:.*]]: tensor<4xf32>)
// CHECK: %[[H:.*]] = nnc.cast %[[B]] : tensor<4xbf16> to tensor<4xf16>
// CHECK: %[[DOWN:.*]] = nnc.cast %[[F]] : tensor<4xf32> to tensor<4xbf16>
// CHECK: %[[UP:.*]] = nnc.cast %[[DOWN]] : tensor<4xbf16> to tensor<4xf32>
// CHECK: return %[[B]], %[[H]], %[[UP]]
func.func @cast_chains(%b: tensor<4xbf16>, %f: tensor<4xf32>)
    -> (tensor<4xbf16>, tensor<4xf16>, tensor<4xf32>) {
  %0 = nnc.cast %b : tensor<4xbf16> to tensor<4xf32>
  %1 = nnc.cast %0 : tensor<4xf32> to tensor<4xbf16>
  %2 = nnc.cast %0 : tensor<4xf32> to tensor<4xf16>
  %3 = nnc.cast %f : tensor<4xf32> to tensor<4xbf16>
  %4 = nnc.cast %3 : tensor<4xbf16> to tensor<4xf32>
  return %1, %2, %4 : tensor<4xbf16>, tensor<4xf16>, tensor<4xf32>
}

// -----

// Float constants cast to another float type fold, rounded to nearest even
// (1 + 2^-8 is a tie in bf16).
// CHECK-LABEL: func @cast_float_constants
// CHECK-DAG: nnc.constant dense<1.000000e+00> : tensor<bf16>
// CHECK-DAG: nnc.constant dense<[1.000000e+00, 1.015630e+00]> : tensor<2xbf16>
// CHECK-NOT: nnc.cast
func.func @cast_float_constants() -> (tensor<bf16>, tensor<2xbf16>) {
  %0 = nnc.constant dense<1.00390625> : tensor<f32>
  %1 = nnc.cast %0 : tensor<f32> to tensor<bf16>
  %2 = nnc.constant dense<[1.00390625, 1.01171875]> : tensor<2xf32>
  %3 = nnc.cast %2 : tensor<2xf32> to tensor<2xbf16>
  return %1, %3 : tensor<bf16>, tensor<2xbf16>
}
