// RUN: nnc-opt %s --nnc-cpu-choose-kernels \
// RUN:   | FileCheck %s --check-prefixes=CHECK,%if dnnl-winograd %{WINO%} %else %{DIRECT%}

// The CPU's cost model hands oneDNN every convolution it can run (static
// f32, 1 to 3 spatial dimensions; the runtime's glue builds the primitive
// to be sure) and leaves the others, and any choice already made, alone.
// Where oneDNN has Winograd kernels (AVX-512), 2-D 3x3 f32 convolutions
// with strides and dilations 1 and one group get them from 392 output
// positions per call on (8x56x56 here) with 16 channels or more in and
// out, in every direction; smaller ones (1x14x14 = 196), ones with 8 input
// channels and strided ones keep the direct kernel.

// CHECK-LABEL: func.func @convs
// WINO: nnc.conv {{.*}} {nnc.impl = "library_winograd"} : tensor<8x64x56x56xf32>
// DIRECT: nnc.conv {{.*}} {nnc.impl = "library"} : tensor<8x64x56x56xf32>
// CHECK: nnc.conv {{.*}} {nnc.impl = "library"} : tensor<8x32x28x28xf32>
// WINO: nnc.conv_transpose {{.*}} {nnc.impl = "library_winograd"}
// DIRECT: nnc.conv_transpose {{.*}} {nnc.impl = "library"}
// WINO: nnc.conv_weight_grad {{.*}} {nnc.impl = "library_winograd"}
// DIRECT: nnc.conv_weight_grad {{.*}} {nnc.impl = "library"}
// CHECK: nnc.conv {{.*}} {nnc.impl = "loops"} : tensor<1x2x4x4xf32>
// CHECK: nnc.conv {{.*}} {nnc.impl = "library"} : tensor<1x256x14x14xf32>
// CHECK: nnc.conv {{.*}} {nnc.impl = "library"} : tensor<8x64x56x56xf32>, tensor<128x64x3x3xf32>
// CHECK: nnc.conv {{.*}} {nnc.impl = "library"} : tensor<8x8x56x56xf32>, tensor<64x8x3x3xf32>
// CHECK-NOT: nnc.impl
// CHECK: return
func.func @convs(%x: tensor<8x64x56x56xf32>, %w: tensor<64x64x3x3xf32>,
                 %dx: tensor<8x32x28x28xf32>, %dw: tensor<32x1x3x3xf32>,
                 %s: tensor<1x2x4x4xf32>, %sw: tensor<2x2x3x3xf32>,
                 %d: tensor<?x2x4x4xf32>, %h: tensor<1x2x4x4xf64>,
                 %hw: tensor<2x2x3x3xf64>, %y: tensor<1x256x14x14xf32>,
                 %yw: tensor<256x256x3x3xf32>, %sw2: tensor<128x64x3x3xf32>,
                 %few: tensor<8x8x56x56xf32>, %feww: tensor<64x8x3x3xf32>) {
  // ResNet's 3x3.
  %0 = nnc.conv %x, %w pads = [1, 1, 1, 1] : tensor<8x64x56x56xf32>, tensor<64x64x3x3xf32>
  // Depthwise.
  %1 = nnc.conv %dx, %dw pads = [1, 1, 1, 1] groups = 32 : tensor<8x32x28x28xf32>, tensor<32x1x3x3xf32>
  %2 = nnc.conv_transpose %0, %w pads = [1, 1, 1, 1] : tensor<8x64x56x56xf32>, tensor<64x64x3x3xf32>
  %3 = nnc.conv_weight_grad %x, %0 kernel_shape = [3, 3] pads = [1, 1, 1, 1] : tensor<8x64x56x56xf32>, tensor<8x64x56x56xf32>
  // Forced: stays.
  %4 = nnc.conv %s, %sw {nnc.impl = "loops"} : tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>
  // 196 output positions; strided.
  %7 = nnc.conv %y, %yw pads = [1, 1, 1, 1] : tensor<1x256x14x14xf32>, tensor<256x256x3x3xf32>
  %8 = nnc.conv %x, %sw2 strides = [2, 2] pads = [1, 1, 1, 1] : tensor<8x64x56x56xf32>, tensor<128x64x3x3xf32>
  // 8 input channels.
  %9 = nnc.conv %few, %feww pads = [1, 1, 1, 1] : tensor<8x8x56x56xf32>, tensor<64x8x3x3xf32>
  // A dynamic batch (compiled after specialization) and f64: the rules.
  %5 = nnc.conv %d, %sw : tensor<?x2x4x4xf32>, tensor<2x2x3x3xf32>
  %6 = nnc.conv %h, %hw : tensor<1x2x4x4xf64>, tensor<2x2x3x3xf64>
  return
}
