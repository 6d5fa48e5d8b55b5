// An invalid broadcast, reported at line 4 with a non-zero exit.
func.func @bad(%x: tensor<2x3xf32>, %y: tensor<4xf32>) -> tensor<2x3xf32> {
  // The shapes below cannot broadcast.
  %0 = nnc.add %x, %y : tensor<2x3xf32>, tensor<4xf32>
  return %0 : tensor<2x3xf32>
}
