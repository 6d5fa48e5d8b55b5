// gather_elements along axis 1 of a 2x3 tensor, i32 indices.
func.func @main(%data: tensor<2x3xf32> loc("data"), %idx: tensor<2x2xi32> loc("idx"))
    -> tensor<2x2xf32> {
  %0 = nnc.gather_elements %data, %idx axis = 1 : tensor<2x3xf32>, tensor<2x2xi32> loc("ge")
  return %0 : tensor<2x2xf32>
}
