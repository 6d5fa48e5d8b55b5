// scatter_nd of two rows of 7s into a 4x3 tensor at index pairs (row, col):
// indices [2, 2] address single elements.
func.func @main(%data: tensor<4x3xf32> loc("data"), %idx: tensor<2x2xi64> loc("idx"))
    -> tensor<4x3xf32> {
  %u = nnc.constant dense<7.0> : tensor<2xf32>
  %0 = nnc.scatter_nd %data, %idx, %u
      : tensor<4x3xf32>, tensor<2x2xi64>, tensor<2xf32> loc("snd")
  return %0 : tensor<4x3xf32>
}
