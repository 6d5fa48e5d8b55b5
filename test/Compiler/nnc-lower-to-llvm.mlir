// RUN: nnc-opt %s --split-input-file --nnc-lower-to-llvm | FileCheck %s
// RUN: nnc-opt %s --split-input-file --nnc-lower-to-llvm="parallel=0" | FileCheck %s --check-prefix=SEQ

// The CPU pipeline: the function becomes kernels (here one), each taking one
// pointer per input and per result (an out-parameter the runtime
// allocates) it uses, no memref descriptors, parallel loops through OpenMP
// for loops with enough work (65536 iterations here) unless parallel=0; the
// function calls its kernels in order.
// CHECK-LABEL: llvm.func @relu_k0(
// CHECK-SAME: %{{[a-z0-9]*}}: !llvm.ptr, %{{[a-z0-9]*}}: !llvm.ptr) attributes
// CHECK-SAME: nnc.bytes_read = 262144 : i64, nnc.bytes_written = 262144 : i64
// CHECK: omp.parallel
// CHECK-LABEL: llvm.func @relu(
// CHECK-SAME: attributes {nnc.kernels = 1 : i64}
// CHECK: llvm.call @relu_k0(
// SEQ-LABEL: llvm.func @relu_k0(
// SEQ-NOT: omp.
// SEQ: llvm.return
func.func @relu(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = nnc.relu %x : tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

// A small loop stays sequential even in the parallel pipeline: a thread fork
// would cost more than its 32 iterations.
// CHECK-LABEL: llvm.func @small_k0(
// CHECK-NOT: omp.
// CHECK: llvm.return
// SEQ-LABEL: llvm.func @small_k0(
func.func @small(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = nnc.relu %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A padded convolution (generated: oneDNN would take it otherwise) copies
// into a strided view: that becomes loops, never a call to MLIR's
// memrefCopy runtime function. Its temporaries are views
// of the arena, the last argument.
// CHECK-LABEL: llvm.func @pad_k0(
// CHECK-NOT: memrefCopy
// CHECK-LABEL: llvm.func @pad(
// CHECK-SAME: %{{[a-z0-9]*}}: !llvm.ptr {nnc.arena}) attributes {nnc.arena_size = 320 : i64, nnc.kernels = 4 : i64}
// SEQ-LABEL: llvm.func @pad_k0(
// SEQ-NOT: memrefCopy
func.func @pad(%x: tensor<1x1x4x4xf32>, %w: tensor<2x1x3x3xf32>) -> tensor<1x2x4x4xf32> {
  %0 = nnc.conv %x, %w pads = [1, 1, 1, 1] {nnc.impl = "loops"} : tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// A large f32 matmul calls the BLAS library, into its zero-filled output
// with beta = 0 (no fill).
// CHECK-LABEL: llvm.func @matmul_k0(
// CHECK-SAME: nnc.bytes_read = 14336 : i64, nnc.bytes_written = 12288 : i64
// CHECK-SAME: nnc.library
// CHECK: llvm.call @{{cblas_sgemm|nnc_dnnl_sgemm}}
// SEQ-LABEL: llvm.func @matmul_k0(
// SEQ: llvm.call @{{cblas_sgemm|nnc_dnnl_sgemm}}
func.func @matmul(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>) -> tensor<64x48xf32> {
  %0 = nnc.matmul %a, %b : tensor<64x32xf32>, tensor<32x48xf32>
  return %0 : tensor<64x48xf32>
}
