// A two-layer MLP (4 inputs, 8 hidden, 3 classes) whose first hidden unit
// has positive weights, so that a sample of very large inputs overflows
// f32 in fc1: the crafted batch of nonfinite-step.test.
func.func @main(%x: tensor<?x4xf32> loc("x"),
  %w1: tensor<8x4xf32> {nnc.param = #nnc.param<trainable>, nnc.value = dense<[[0.5, 0.6, 0.7, 0.8], [-0.3, 0.2, 0.4, -0.1], [0.25, -0.45, 0.1, 0.35], [-0.2, -0.15, 0.3, 0.05], [0.4, 0.1, -0.35, -0.25], [-0.05, 0.3, -0.2, 0.45], [0.15, -0.4, -0.3, 0.2], [0.35, 0.05, 0.15, -0.4]]> : tensor<8x4xf32>} loc("fc1.weight"),
  %b1: tensor<8xf32> {nnc.param = #nnc.param<trainable>, nnc.value = dense<0.0> : tensor<8xf32>} loc("fc1.bias"),
  %w2: tensor<3x8xf32> {nnc.param = #nnc.param<trainable>, nnc.value = dense<[[0.3, -0.2, 0.1, 0.4, -0.3, 0.2, -0.1, 0.05], [-0.25, 0.35, -0.15, 0.1, 0.2, -0.4, 0.3, -0.05], [0.1, 0.05, 0.3, -0.35, 0.15, 0.25, -0.2, 0.4]]> : tensor<3x8xf32>} loc("fc2.weight"),
  %b2: tensor<3xf32> {nnc.param = #nnc.param<trainable>, nnc.value = dense<0.0> : tensor<3xf32>} loc("fc2.bias"))
   -> tensor<?x3xf32> attributes {nnc.result_names = ["logits"]} {
  %h = nnc.gemm %x, %w1, %b1 trans_b = true : tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32> loc("fc1")
  %r = nnc.relu %h : tensor<?x8xf32> loc("relu")
  %o = nnc.gemm %r, %w2, %b2 trans_b = true : tensor<?x8xf32>, tensor<3x8xf32>, tensor<3xf32> loc("fc2")
  return %o : tensor<?x3xf32>
}
