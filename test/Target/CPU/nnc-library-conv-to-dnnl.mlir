// RUN: nnc-opt %s --split-input-file --nnc-library-conv-to-dnnl --verify-diagnostics | FileCheck %s

// Each library convolution on buffers calls the oneDNN glue with its
// descriptor (a private constant, one per distinct convolution: format 5,
// direction, spatial dims, groups, bias, N, C, M, src, dst and kernel
// sizes, strides, dilations, begin and end pads, 3 slots each, then the
// element types of src, weights, dst and bias, 0 for f32, the images'
// layout, 0 channels-first, the algorithm, 0 direct, and whether the
// weights are constants, 0 not) and the addresses
// of its buffers; no bias is a null pointer.

// CHECK-DAG: memref.global "private" constant @__nnc_dnnl_conv : memref<36xi64> = dense<[5, 0, 2, 1, 1, 2, 3, 4, 8, 8, 0, 8, 8, 0, 3, 3, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0]>
// CHECK-DAG: memref.global "private" constant @__nnc_dnnl_conv_0 : memref<36xi64> = dense<[5, 2, 1, 1, 0, 3, 4, 5, 17, 0, 0, 8, 0, 0, 3, 0, 0, 2, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]>
// CHECK-DAG: func.func private @nnc_dnnl_convolution(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
// CHECK-LABEL: func.func @two
// CHECK: %[[D:.*]] = memref.get_global @__nnc_dnnl_conv : memref<36xi64>
// CHECK: call @nnc_dnnl_convolution({{.*}}) {nnc.library_bytes = array<i64: 1984, 2048>}
// CHECK: memref.get_global @__nnc_dnnl_conv : memref<36xi64>
// CHECK: call @nnc_dnnl_convolution
// CHECK-NOT: nnc.library_conv
// CHECK-LABEL: func.func @weights
// CHECK: memref.get_global @__nnc_dnnl_conv_0
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @nnc_dnnl_convolution(%{{.*}}, %{{.*}}, %{{.*}}, %[[NULL]], %{{.*}})
func.func @two(%x: memref<2x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %b: memref<4xf32>, %y: memref<2x4x8x8xf32>, %z: memref<2x4x8x8xf32>) {
  nnc.library_conv "forward" ins(%x, %w, %b : memref<2x3x8x8xf32>, memref<4x3x3x3xf32>, memref<4xf32>) outs(%y : memref<2x4x8x8xf32>) strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1
  nnc.library_conv "forward" ins(%x, %w, %b : memref<2x3x8x8xf32>, memref<4x3x3x3xf32>, memref<4xf32>) outs(%z : memref<2x4x8x8xf32>) strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1
  return
}
func.func @weights(%x: memref<3x4x17xf32>, %g: memref<3x5x8xf32>, %dw: memref<5x4x3xf32>) {
  nnc.library_conv "backward_weights" ins(%x, %g : memref<3x4x17xf32>, memref<3x5x8xf32>) outs(%dw : memref<5x4x3xf32>) strides = [2] dilations = [1] pads = [1, 0] groups = 1
  return
}

// -----

// A strided view is copied into a dense temporary first; a view at an
// offset is read where it lies.
// CHECK-LABEL: func.func @strided
// CHECK: %[[T:.*]] = memref.alloc() : memref<1x3x8x8xf32>
// CHECK: linalg.copy ins(%{{.*}} : memref<1x3x8x8xf32, strided<[384, 128, 16, 2]>>) outs(%[[T]] : memref<1x3x8x8xf32>)
// CHECK: memref.extract_aligned_pointer_as_index %[[T]]
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<1x4x6x6xf32, strided<[144, 36, 6, 1], offset: 144>>
// CHECK: arith.addi %[[P]], %c576
// CHECK: call @nnc_dnnl_convolution
// CHECK-NOT: linalg.copy
func.func @strided(%x: memref<1x3x8x16xf32>, %w: memref<4x3x3x3xf32>, %y: memref<2x4x6x6xf32>) {
  %v = memref.subview %x[0, 0, 0, 0] [1, 3, 8, 8] [1, 1, 1, 2] : memref<1x3x8x16xf32> to memref<1x3x8x8xf32, strided<[384, 128, 16, 2]>>
  %o = memref.subview %y[1, 0, 0, 0] [1, 4, 6, 6] [1, 1, 1, 1] : memref<2x4x6x6xf32> to memref<1x4x6x6xf32, strided<[144, 36, 6, 1], offset: 144>>
  nnc.library_conv "forward" ins(%v, %w : memref<1x3x8x8xf32, strided<[384, 128, 16, 2]>>, memref<4x3x3x3xf32>) outs(%o : memref<1x4x6x6xf32, strided<[144, 36, 6, 1], offset: 144>>) strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1
  return
}

// -----

func.func @tensors(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %e: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{must be bufferized before --nnc-library-conv-to-dnnl}}
  %y = nnc.library_conv "forward" ins(%x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%e : tensor<1x4x6x6xf32>) strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1 -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

// -----

// A channels-last convolution: the descriptor holds the sizes in the
// convolution's terms (N 2, C 3, M 4, 8x8 images), read off the NHWC
// buffers, and layout 1.
// CHECK: memref.global "private" constant @__nnc_dnnl_conv : memref<36xi64> = dense<[5, 0, 2, 1, 0, 2, 3, 4, 8, 8, 0, 8, 8, 0, 3, 3, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0]>
// CHECK-LABEL: func.func @channels_last
// CHECK: call @nnc_dnnl_convolution
func.func @channels_last(%x: memref<2x8x8x3xf32>, %w: memref<4x3x3x3xf32>, %y: memref<2x8x8x4xf32>) {
  nnc.library_conv "forward" ins(%x, %w : memref<2x8x8x3xf32>, memref<4x3x3x3xf32>) outs(%y : memref<2x8x8x4xf32>) strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 channels_last
  return
}


// -----

// Weights the compiler moved into the executable (nnc.weight), passed at
// their own address (here through a cast), are constants: the last slot is
// 1, and the glue keeps them reordered. The same convolution on weights
// that are an input, or on a copy of a strided view of the weights, reads
// them every call: 0.
// CHECK-DAG: memref.global "private" constant @__nnc_dnnl_conv : memref<36xi64> = dense<[5, 0, 2, 1, 0, 2, 3, 4, 8, 8, 0, 8, 8, 0, 3, 3, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1]>
// CHECK-DAG: memref.global "private" constant @__nnc_dnnl_conv_0 : memref<36xi64> = dense<[5, 0, 2, 1, 0, 2, 3, 4, 8, 8, 0, 8, 8, 0, 3, 3, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0]>
// CHECK-LABEL: func.func @constant
// CHECK: memref.get_global @__nnc_dnnl_conv :
// CHECK: memref.get_global @__nnc_dnnl_conv_0 :
// CHECK: memref.get_global @__nnc_dnnl_conv_0 :
func.func @constant(%x: memref<2x3x8x8xf32>,
                    %w: memref<4x3x3x3xf32> {nnc.weight},
                    %v: memref<4x3x3x3xf32>,
                    %s: memref<4x3x3x6xf32> {nnc.weight},
                    %y: memref<2x4x8x8xf32>, %z: memref<2x4x8x8xf32>,
                    %u: memref<2x4x8x8xf32>) {
  %c = memref.cast %w : memref<4x3x3x3xf32> to memref<?x3x3x3xf32>
  %d = memref.cast %c : memref<?x3x3x3xf32> to memref<4x3x3x3xf32>
  nnc.library_conv "forward" ins(%x, %d : memref<2x3x8x8xf32>, memref<4x3x3x3xf32>) outs(%y : memref<2x4x8x8xf32>) strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1
  nnc.library_conv "forward" ins(%x, %v : memref<2x3x8x8xf32>, memref<4x3x3x3xf32>) outs(%z : memref<2x4x8x8xf32>) strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1
  %t = memref.subview %s[0, 0, 0, 0] [4, 3, 3, 3] [1, 1, 1, 2] : memref<4x3x3x6xf32> to memref<4x3x3x3xf32, strided<[54, 18, 6, 2]>>
  nnc.library_conv "forward" ins(%x, %t : memref<2x3x8x8xf32>, memref<4x3x3x3xf32, strided<[54, 18, 6, 2]>>) outs(%u : memref<2x4x8x8xf32>) strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1
  return
}
