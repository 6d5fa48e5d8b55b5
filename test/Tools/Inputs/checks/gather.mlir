// Rows of a 5x3 table picked by four indices (negative count from the end).
func.func @main(%data: tensor<5x3xf32> loc("data"), %idx: tensor<4xi64> loc("idx"))
    -> tensor<4x3xf32> {
  %0 = nnc.gather %data, %idx : tensor<5x3xf32>, tensor<4xi64> loc("/embed/Gather")
  return %0 : tensor<4x3xf32>
}
