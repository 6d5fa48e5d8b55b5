// Two inputs whose first dimension is named "batch" (an ONNX dim_param they
// share): a run must give both the same size, though the graph alone would
// not notice.
func.func @main(%x: tensor<?x3xf32> {nnc.dim_names = ["batch", ""]} loc("x"),
                %y: tensor<?x2xf32> {nnc.dim_names = ["batch", ""]} loc("y"))
    -> (tensor<?x3xf32>, tensor<?x2xf32>) {
  %0 = nnc.relu %x : tensor<?x3xf32>
  %1 = nnc.relu %y : tensor<?x2xf32>
  return %0, %1 : tensor<?x3xf32>, tensor<?x2xf32>
}
