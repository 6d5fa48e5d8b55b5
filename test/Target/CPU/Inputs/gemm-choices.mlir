// One f32 product per kernel choice of matrix products (nnc.impl): oneDNN's
// GEMM, OpenBLAS's, generated loops, and a transposed nnc.gemm with bias
// and a batched matmul each on oneDNN and on loops. The operands are small
// integers (x - 8 floor(x / 8) - 4 of 0, 1, 2, ...), so every sum is exact
// and all choices give the same bits.
func.func @main(%x: tensor<64x96xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>,
    tensor<64x64xf32>, tensor<64x32xf32>, tensor<64x32xf32>,
    tensor<4x16x16xf32>, tensor<4x16x16xf32>) {
  %eight = nnc.constant dense<8.0> : tensor<f32>
  %four = nnc.constant dense<4.0> : tensor<f32>
  %q = nnc.div %x, %eight : tensor<64x96xf32>, tensor<f32>
  %f = nnc.floor %q : tensor<64x96xf32>
  %f8 = nnc.mul %f, %eight : tensor<64x96xf32>, tensor<f32>
  %r = nnc.sub %x, %f8 : tensor<64x96xf32>, tensor<64x96xf32>
  %a = nnc.sub %r, %four : tensor<64x96xf32>, tensor<f32>
  %b = nnc.slice %a starts = [0, 0] ends = [64, 64] : tensor<64x96xf32>
  %bt = nnc.transpose %a perm = [1, 0] : tensor<64x96xf32>
  %w = nnc.slice %bt starts = [0, 0] ends = [96, 64] : tensor<96x64xf32>

  %p0 = nnc.matmul %a, %w {nnc.impl = "dnnl"} : tensor<64x96xf32>, tensor<96x64xf32>
  %p1 = nnc.matmul %a, %w {nnc.impl = "blas"} : tensor<64x96xf32>, tensor<96x64xf32>
  %p2 = nnc.matmul %a, %w {nnc.impl = "loops"} : tensor<64x96xf32>, tensor<96x64xf32>

  %g = nnc.slice %a starts = [0, 0] ends = [32, 96] : tensor<64x96xf32>
  %c = nnc.slice %a starts = [0, 0] ends = [1, 32] : tensor<64x96xf32>
  %c1 = nnc.reshape %c : tensor<1x32xf32> -> tensor<32xf32>
  %g0 = nnc.gemm %a, %g, %c1 trans_b = true beta = 0.5 {nnc.impl = "dnnl"} : tensor<64x96xf32>, tensor<32x96xf32>, tensor<32xf32>
  %g1 = nnc.gemm %a, %g, %c1 trans_b = true beta = 0.5 {nnc.impl = "loops"} : tensor<64x96xf32>, tensor<32x96xf32>, tensor<32xf32>

  %s = nnc.slice %a starts = [0, 0] ends = [64, 16] : tensor<64x96xf32>
  %s3 = nnc.reshape %s : tensor<64x16xf32> -> tensor<4x16x16xf32>
  %m0 = nnc.matmul %s3, %s3 {nnc.impl = "dnnl"} : tensor<4x16x16xf32>, tensor<4x16x16xf32>
  %m1 = nnc.matmul %s3, %s3 {nnc.impl = "loops"} : tensor<4x16x16xf32>, tensor<4x16x16xf32>
  return %p0, %p1, %p2, %g0, %g1, %m0, %m1 : tensor<64x64xf32>, tensor<64x64xf32>,
      tensor<64x64xf32>, tensor<64x32xf32>, tensor<64x32xf32>,
      tensor<4x16x16xf32>, tensor<4x16x16xf32>
}
