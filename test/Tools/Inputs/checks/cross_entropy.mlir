// Mean cross-entropy of 4 samples over 3 classes, ignoring label -100.
func.func @main(%logits: tensor<4x3xf32> loc("logits"), %labels: tensor<4xi64> loc("labels"))
    -> tensor<f32> {
  %0 = nnc.cross_entropy %logits, %labels ignore_index = -100
      : tensor<4x3xf32>, tensor<4xi64> loc("loss")
  return %0 : tensor<f32>
}
