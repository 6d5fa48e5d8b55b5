// REQUIRES: cpu-bf16
// RUN: nnc-opt %s --nnc-cpu-widen-low-precision="native-convolutions=1" | FileCheck %s

// On a CPU with bf16 instructions (AVX-512 BF16, AMX) oneDNN runs bf16
// convolutions and both their gradients natively: they stay in bf16, with
// no kernel choice or the library's, and their weight gradient may be f32.
// CHECK-LABEL: func.func @convolutions
// CHECK-NEXT:    nnc.conv %arg0, %arg1 : tensor<2x3x8x8xbf16>, tensor<4x3x3x3xbf16>
// CHECK-NEXT:    nnc.conv_transpose %arg2, %arg1 {nnc.impl = "library"} : tensor<2x4x6x6xbf16>, tensor<4x3x3x3xbf16>
// CHECK-NEXT:    nnc.conv_weight_grad %arg0, %arg2 kernel_shape = [3, 3] : tensor<2x3x8x8xbf16>, tensor<2x4x6x6xbf16>
// CHECK-NEXT:    return
func.func @convolutions(%x: tensor<2x3x8x8xbf16>, %w: tensor<4x3x3x3xbf16>, %g: tensor<2x4x6x6xbf16>)
    -> (tensor<2x4x6x6xbf16>, tensor<2x3x8x8xbf16>, tensor<4x3x3x3xbf16>) {
  %0 = nnc.conv %x, %w : tensor<2x3x8x8xbf16>, tensor<4x3x3x3xbf16>
  %1 = nnc.conv_transpose %g, %w {nnc.impl = "library"} : tensor<2x4x6x6xbf16>, tensor<4x3x3x3xbf16>
  %2 = nnc.conv_weight_grad %x, %g kernel_shape = [3, 3] : tensor<2x3x8x8xbf16>, tensor<2x4x6x6xbf16>
  return %0, %1, %2 : tensor<2x4x6x6xbf16>, tensor<2x3x8x8xbf16>, tensor<4x3x3x3xbf16>
}
