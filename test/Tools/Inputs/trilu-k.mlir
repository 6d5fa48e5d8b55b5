// A Trilu whose diagonal offset k is an input that is not marked
// nnc.shape_input: the executable cannot be specialized on its value, and
// the compile says what k depends on.
func.func @main(%x: tensor<3x4xf32> loc("x"), %k: tensor<1xi64> loc("k"))
    -> tensor<3x4xf32> {
  %0 = nnc.dynamic_attrs "nnc.trilu"(%x) [%k] names ["k"] kinds ["i64"]
      static {upper = true}
      : (tensor<3x4xf32>), (tensor<1xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
