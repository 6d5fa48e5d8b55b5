// f16 and bf16 on the CPU: long dot products accumulate in f32 (in the
// low type they would stop growing: 256 + 1 rounds back to 256 in bf16,
// 2048 + 1 to 2048 in f16), conversions round to nearest even, and
// elementwise math computes in f32 and rounds once.
func.func @main(%x: tensor<4xf32>) -> (tensor<1x1xf32>, tensor<1x1xf32>,
                                       tensor<4xf32>, tensor<4xf32>,
                                       tensor<4xf32>) {
  %ones = nnc.constant dense<1.0> : tensor<1x4096xf32>
  %col = nnc.constant dense<1.0> : tensor<4096x1xf32>
  %a = nnc.cast %ones : tensor<1x4096xf32> to tensor<1x4096xbf16>
  %b = nnc.cast %col : tensor<4096x1xf32> to tensor<4096x1xbf16>
  %p = nnc.matmul %a, %b : tensor<1x4096xbf16>, tensor<4096x1xbf16>
  %p32 = nnc.cast %p : tensor<1x1xbf16> to tensor<1x1xf32>
  %ah = nnc.cast %ones : tensor<1x4096xf32> to tensor<1x4096xf16>
  %bh = nnc.cast %col : tensor<4096x1xf32> to tensor<4096x1xf16>
  %ph = nnc.matmul %ah, %bh : tensor<1x4096xf16>, tensor<4096x1xf16>
  %ph32 = nnc.cast %ph : tensor<1x1xf16> to tensor<1x1xf32>
  %xb = nnc.cast %x : tensor<4xf32> to tensor<4xbf16>
  %xb32 = nnc.cast %xb : tensor<4xbf16> to tensor<4xf32>
  %xh = nnc.cast %x : tensor<4xf32> to tensor<4xf16>
  %xh32 = nnc.cast %xh : tensor<4xf16> to tensor<4xf32>
  %e = nnc.exp %xb : tensor<4xbf16>
  %s = nnc.add %e, %xb : tensor<4xbf16>, tensor<4xbf16>
  %s32 = nnc.cast %s : tensor<4xbf16> to tensor<4xf32>
  return %p32, %ph32, %xb32, %xh32, %s32
      : tensor<1x1xf32>, tensor<1x1xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>
}
