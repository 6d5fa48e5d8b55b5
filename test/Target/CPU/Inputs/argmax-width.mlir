// An argmax with a vector width that LLVM's loop vectorizer cannot take
// (the index found is no reduction it knows); run-loop-schedules.mlir.
func.func @main(%x: tensor<64x512xf32>) -> tensor<64xi64> {
  %c = nnc.arg_reduce argmax %x axis = 1 keepdims = false {nnc.impl = "loops.v16"} : tensor<64x512xf32>
  return %c : tensor<64xi64>
}
