// y = x + b with static shapes; the arguments are named with loc("...").
func.func @main(%x: tensor<2x3xf32> loc("x"), %b: tensor<3xf32> loc("b"))
    -> tensor<2x3xf32> {
  %0 = nnc.add %x, %b : tensor<2x3xf32>, tensor<3xf32>
  return %0 : tensor<2x3xf32>
}
