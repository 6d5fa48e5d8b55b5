// y = x + b with a dynamic batch; nnc-run compiles it for the batch given.
func.func @main(%x: tensor<?x3xf32> loc("x"), %b: tensor<3xf32> loc("b"))
    -> tensor<?x3xf32> {
  %0 = nnc.add %x, %b : tensor<?x3xf32>, tensor<3xf32>
  return %0 : tensor<?x3xf32>
}
