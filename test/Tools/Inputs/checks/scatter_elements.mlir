// scatter_elements (add) of ones into a 2x3 tensor along axis 1.
func.func @main(%data: tensor<2x3xf32> loc("data"), %idx: tensor<2x2xi64> loc("idx"))
    -> tensor<2x3xf32> {
  %u = nnc.constant dense<1.0> : tensor<2x2xf32>
  %0 = nnc.scatter_elements %data, %idx, %u axis = 1 reduction = add
      : tensor<2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32> loc("se")
  return %0 : tensor<2x3xf32>
}
