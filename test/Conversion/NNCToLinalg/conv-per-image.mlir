// RUN: nnc-opt %s --split-input-file --nnc-convert-to-linalg | FileCheck %s
// RUN: nnc-opt %s --split-input-file --nnc-lower-to-llvm=library-convolutions=0 \
// RUN:   | FileCheck %s --check-prefix=LLVM

// The per-image lowering of 2-D convolutions (the default; the whole-batch
// one is in nn.mlir): one scf.for over the images, each padding its image,
// copying its windows into a [C*KH*KW, OH*OW] tile and multiplying the
// weight with it into its [M, OH*OW] block of the NCHW result; the bias is
// added where the product lies. Through the CPU pipeline every GEMM is a
// BLAS call inside the loop.

// CHECK-DAG: #[[WIN:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3 * 2 + d1 * 2, d4 * 2 + d2 * 2)>
// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[X:[^:]+]]: tensor<3x32x11x11xf32>, %[[W:[^:]+]]: tensor<16x32x3x3xf32>, %[[B:[^:]+]]: tensor<16xf32>)
// CHECK: %[[WM:.+]] = tensor.reshape %[[W]]({{.*}}) : (tensor<16x32x3x3xf32>, tensor<2xi64>) -> tensor<16x288xf32>
// CHECK: %[[OUT:.+]] = tensor.empty() : tensor<3x16x25xf32>
// CHECK: %[[C3:.+]] = arith.constant 3 : index
// CHECK: %[[LOOP:.+]] = scf.for %[[N:.+]] = %{{.+}} to %[[C3]] step %{{.+}} iter_args(%[[ACC:.+]] = %[[OUT]])
// CHECK:   %[[IMG:.+]] = tensor.extract_slice %[[X]][%[[N]], 0, 0, 0] [1, 32, 11, 11] [1, 1, 1, 1] : tensor<3x32x11x11xf32> to tensor<32x11x11xf32>
// CHECK:   %[[ZERO:.+]] = linalg.fill {{.*}} -> tensor<32x13x13xf32>
// CHECK:   %[[PAD:.+]] = tensor.insert_slice %[[IMG]] into %[[ZERO]][0, 1, 1] [32, 11, 11] [1, 1, 1]
// CHECK:   %[[COLS:.+]] = linalg.generic {indexing_maps = [#[[WIN]], {{.*}}]{{.*}} ins(%[[PAD]] : tensor<32x13x13xf32>) outs(%{{.*}} : tensor<32x3x3x5x5xf32>)
// CHECK:   %[[CM:.+]] = tensor.reshape %[[COLS]]({{.*}}) : (tensor<32x3x3x5x5xf32>, tensor<2xi64>) -> tensor<288x25xf32>
// CHECK:   %[[BLOCK:.+]] = tensor.extract_slice %[[ACC]][%[[N]], 0, 0] [1, 16, 25] [1, 1, 1] : tensor<3x16x25xf32> to tensor<16x25xf32>
// CHECK:   %[[Z:.+]] = linalg.fill ins(%{{.*}} : f32) outs(%[[BLOCK]] : tensor<16x25xf32>)
// CHECK:   %[[MM:.+]] = linalg.matmul ins(%[[WM]], %[[CM]] : tensor<16x288xf32>, tensor<288x25xf32>) outs(%[[Z]] : tensor<16x25xf32>)
// CHECK:   %[[BIASED:.+]] = linalg.generic {{.*}} ins(%[[B]] : tensor<16xf32>) outs(%[[MM]] : tensor<16x25xf32>)
// CHECK:     arith.addf
// CHECK:   %[[NEXT:.+]] = tensor.insert_slice %[[BIASED]] into %[[ACC]][%[[N]], 0, 0] [1, 16, 25] [1, 1, 1]
// CHECK:   scf.yield %[[NEXT]]
// CHECK: tensor.reshape %[[LOOP]]({{.*}}) : (tensor<3x16x25xf32>, tensor<4xi64>) -> tensor<3x16x5x5xf32>
// LLVM-LABEL: llvm.func @conv
// LLVM: llvm.call @{{cblas_sgemm|nnc_dnnl_sgemm}}
func.func @conv(%x: tensor<3x32x11x11xf32>, %w: tensor<16x32x3x3xf32>, %b: tensor<16xf32>) -> tensor<3x16x5x5xf32> {
  %0 = nnc.conv %x, %w, %b strides = [2, 2] dilations = [2, 2] pads = [1, 1, 1, 1]
      : tensor<3x32x11x11xf32>, tensor<16x32x3x3xf32>, tensor<16xf32>
  return %0 : tensor<3x16x5x5xf32>
}

// -----

// A transposed convolution with a stride: each image is spread with the
// stride into zeros (the insert_slice's steps) and cropped by the pads, then
// convolved with stride 1 by the flipped kernel, transposed to [M, C, ...].
// CHECK-LABEL: func.func @conv_transpose
// CHECK: %[[FLIP:.+]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<8x16x3x3xf32>) outs(%{{.*}} : tensor<16x8x3x3xf32>)
// CHECK: scf.for
// CHECK:   %[[IMG:.+]] = tensor.extract_slice %{{.*}} : tensor<2x8x6x6xf32> to tensor<8x6x6xf32>
// CHECK:   %[[ZERO:.+]] = linalg.fill {{.*}} -> tensor<8x14x14xf32>
// CHECK:   %[[SPREAD:.+]] = tensor.insert_slice %[[IMG]] into %[[ZERO]][0, 2, 2] [8, 6, 6] [1, 2, 2]
// CHECK:   %[[CROP:.+]] = tensor.extract_slice %[[SPREAD]][0, 1, 1] [8, 13, 13] [1, 1, 1] : tensor<8x14x14xf32> to tensor<8x13x13xf32>
// CHECK:   linalg.generic {{.*}} ins(%{{.*}} : tensor<8x13x13xf32>) outs(%{{.*}} : tensor<8x3x3x11x11xf32>)
// CHECK:   linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x72xf32>, tensor<72x121xf32>)
func.func @conv_transpose(%x: tensor<2x8x6x6xf32>, %w: tensor<8x16x3x3xf32>) -> tensor<2x16x11x11xf32> {
  %0 = nnc.conv_transpose %x, %w strides = [2, 2] pads = [1, 1, 1, 1]
      : tensor<2x8x6x6xf32>, tensor<8x16x3x3xf32>
  return %0 : tensor<2x16x11x11xf32>
}

// -----

// The weight gradient: one GEMM per image accumulating g[n] [M, OH*OW]
// times the image's window tile read transposed, onto zeros filled once.
// CHECK-LABEL: func.func @weight_grad
// CHECK-SAME: (%[[X:[^:]+]]: tensor<4x8x10x10xf32>, %[[G:[^:]+]]: tensor<4x16x10x10xf32>)
// CHECK: %[[GM:.+]] = tensor.reshape %[[G]]({{.*}}) -> tensor<4x16x100xf32>
// CHECK: %[[ZERO:.+]] = linalg.fill {{.*}} -> tensor<16x72xf32>
// CHECK: %[[LOOP:.+]] = scf.for %[[N:.+]] = {{.*}} iter_args(%[[ACC:.+]] = %[[ZERO]])
// CHECK:   tensor.extract_slice %[[X]][%[[N]], 0, 0, 0]
// CHECK:   %[[CM:.+]] = tensor.reshape {{.*}} -> tensor<72x100xf32>
// CHECK:   %[[GN:.+]] = tensor.extract_slice %[[GM]][%[[N]], 0, 0] [1, 16, 100] [1, 1, 1] : tensor<4x16x100xf32> to tensor<16x100xf32>
// CHECK:   %[[MM:.+]] = linalg.matmul indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}] ins(%[[GN]], %[[CM]] : tensor<16x100xf32>, tensor<72x100xf32>) outs(%[[ACC]] : tensor<16x72xf32>)
// CHECK:   scf.yield %[[MM]]
// CHECK: tensor.reshape %[[LOOP]]({{.*}}) : (tensor<16x72xf32>, tensor<4xi64>) -> tensor<16x8x3x3xf32>
// LLVM-LABEL: llvm.func @weight_grad
// LLVM: llvm.call @{{cblas_sgemm|nnc_dnnl_sgemm}}
func.func @weight_grad(%x: tensor<4x8x10x10xf32>, %g: tensor<4x16x10x10xf32>) -> tensor<16x8x3x3xf32> {
  %0 = nnc.conv_weight_grad %x, %g kernel_shape = [3, 3] pads = [1, 1, 1, 1]
      : tensor<4x8x10x10xf32>, tensor<4x16x10x10xf32>
  return %0 : tensor<16x8x3x3xf32>
}

// -----

// Groups or too little work: the loops of one generic, as before.
// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.for
// CHECK: return
func.func @small(%x: tensor<2x2x5x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<2x4x3x3xf32> {
  %0 = nnc.conv %x, %w : tensor<2x2x5x5xf32>, tensor<4x2x3x3xf32>
  return %0 : tensor<2x4x3x3xf32>
}
