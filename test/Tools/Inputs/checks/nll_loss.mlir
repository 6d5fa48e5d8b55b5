// Summed NLL loss of 4 samples over 3 classes, with class weights.
func.func @main(%logp: tensor<4x3xf32> loc("logp"), %labels: tensor<4xi32> loc("labels"))
    -> tensor<f32> {
  %w = nnc.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = nnc.nll_loss %logp, %labels weight(%w : tensor<3xf32>) reduction = sum
      : tensor<4x3xf32>, tensor<4xi32> loc("nll")
  return %0 : tensor<f32>
}
