// A value returned twice, static shapes: what crashed bufferization's
// out-parameters before each result got a buffer of its own.
func.func @main(%x: tensor<2x3xf32> loc("x")) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %y = nnc.relu %x : tensor<2x3xf32>
  return %y, %y : tensor<2x3xf32>, tensor<2x3xf32>
}
