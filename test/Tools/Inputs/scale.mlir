// y = x * s with s a trainable parameter that has no value: nnc-run must be
// given it like an input.
func.func @main(%x: tensor<3xf32> loc("x"),
                %s: tensor<3xf32> {nnc.param = #nnc.param<trainable>} loc("s"))
    -> tensor<3xf32> {
  %0 = nnc.mul %x, %s : tensor<3xf32>, tensor<3xf32>
  return %0 : tensor<3xf32>
}
