// One value as several results: a computed one three times, a constant
// twice, an argument twice.
func.func @main(%x: tensor<?x3xf32> loc("x"), %b: tensor<3xf32> loc("b"))
    -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<3xf32>,
        tensor<3xf32>, tensor<?x3xf32>, tensor<?x3xf32>) {
  %y = nnc.add %x, %b : tensor<?x3xf32>, tensor<3xf32>
  %c = nnc.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  return %y, %y, %y, %c, %c, %x, %x : tensor<?x3xf32>, tensor<?x3xf32>,
      tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?x3xf32>,
      tensor<?x3xf32>
}
