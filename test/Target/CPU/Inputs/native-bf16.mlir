// bf16 matrix products and convolutions that oneDNN runs natively (on a
// CPU with bf16 instructions), each beside the same computation in
// generated loops: a product as multiply and sum, convolutions forced onto
// loops (which compute on f32 copies). The operands are small integers
// (x - 8 floor(x / 8) - 4 of 0, 1, 2, ...), so every sum is exact in f32
// and both sides round the same value to bf16.
func.func @main(%x: tensor<2x4x6x6xf32>) -> (tensor<12x8xf32>, tensor<12x8xf32>,
    tensor<2x8x6x6xf32>, tensor<2x8x6x6xf32>, tensor<8x4x3x3xf32>,
    tensor<8x4x3x3xf32>) {
  %eight = nnc.constant dense<8.0> : tensor<f32>
  %four = nnc.constant dense<4.0> : tensor<f32>
  %q = nnc.div %x, %eight : tensor<2x4x6x6xf32>, tensor<f32>
  %f = nnc.floor %q : tensor<2x4x6x6xf32>
  %f8 = nnc.mul %f, %eight : tensor<2x4x6x6xf32>, tensor<f32>
  %r = nnc.sub %x, %f8 : tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>
  %s = nnc.sub %r, %four : tensor<2x4x6x6xf32>, tensor<f32>
  %v = nnc.cast %s : tensor<2x4x6x6xf32> to tensor<2x4x6x6xbf16>

  // [12, 48] x [48, 8]: oneDNN's bf16 GEMM against multiply and sum.
  %k = nnc.concat %v, %v axis = 1 : tensor<2x4x6x6xbf16>, tensor<2x4x6x6xbf16>
  %a = nnc.reshape %k : tensor<2x8x6x6xbf16> -> tensor<12x48xbf16>
  %w = nnc.slice %v starts = [0, 0, 0, 0] ends = [2, 4, 6, 2] : tensor<2x4x6x6xbf16>
  %b = nnc.reshape %w : tensor<2x4x6x2xbf16> -> tensor<48x2xbf16>
  %bb = nnc.concat %b, %b, %b, %b axis = 1 : tensor<48x2xbf16>, tensor<48x2xbf16>, tensor<48x2xbf16>, tensor<48x2xbf16>
  %p = nnc.matmul %a, %bb : tensor<12x48xbf16>, tensor<48x8xbf16>
  %p32 = nnc.cast %p : tensor<12x8xbf16> to tensor<12x8xf32>
  %a32 = nnc.cast %a : tensor<12x48xbf16> to tensor<12x48xf32>
  %b32 = nnc.cast %bb : tensor<48x8xbf16> to tensor<48x8xf32>
  %a3 = nnc.reshape %a32 : tensor<12x48xf32> -> tensor<12x48x1xf32>
  %b3 = nnc.reshape %b32 : tensor<48x8xf32> -> tensor<1x48x8xf32>
  %terms = nnc.mul %a3, %b3 : tensor<12x48x1xf32>, tensor<1x48x8xf32>
  %sum = nnc.reduce sum %terms axes = [1] keepdims = false : tensor<12x48x8xf32>
  %sum16 = nnc.cast %sum : tensor<12x8xf32> to tensor<12x8xbf16>
  %ref = nnc.cast %sum16 : tensor<12x8xbf16> to tensor<12x8xf32>

  // A 3x3 convolution, pads 1, and its weight gradient.
  %kw = nnc.slice %k starts = [0, 0, 0, 0] ends = [1, 8, 6, 6] : tensor<2x8x6x6xbf16>
  %kernel = nnc.reshape %kw : tensor<1x8x6x6xbf16> -> tensor<8x4x3x3xbf16>
  %y = nnc.conv %v, %kernel pads = [1, 1, 1, 1] : tensor<2x4x6x6xbf16>, tensor<8x4x3x3xbf16>
  %yl = nnc.conv %v, %kernel pads = [1, 1, 1, 1] {nnc.impl = "loops"} : tensor<2x4x6x6xbf16>, tensor<8x4x3x3xbf16>
  %y32 = nnc.cast %y : tensor<2x8x6x6xbf16> to tensor<2x8x6x6xf32>
  %yl32 = nnc.cast %yl : tensor<2x8x6x6xbf16> to tensor<2x8x6x6xf32>
  %g = nnc.conv_weight_grad %v, %k kernel_shape = [3, 3] pads = [1, 1, 1, 1] : tensor<2x4x6x6xbf16>, tensor<2x8x6x6xbf16>
  %gl = nnc.conv_weight_grad %v, %k kernel_shape = [3, 3] pads = [1, 1, 1, 1] {nnc.impl = "loops"} : tensor<2x4x6x6xbf16>, tensor<2x8x6x6xbf16>
  %g32 = nnc.cast %g : tensor<8x4x3x3xbf16> to tensor<8x4x3x3xf32>
  %gl32 = nnc.cast %gl : tensor<8x4x3x3xbf16> to tensor<8x4x3x3xf32>
  return %p32, %ref, %y32, %yl32, %g32, %gl32 : tensor<12x8xf32>, tensor<12x8xf32>,
      tensor<2x8x6x6xf32>, tensor<2x8x6x6xf32>, tensor<8x4x3x3xf32>,
      tensor<8x4x3x3xf32>
}
