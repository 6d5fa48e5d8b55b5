// RUN: nnc-opt %s --split-input-file --nnc-lower-to-llvm | FileCheck %s
// RUN: nnc-opt %s --split-input-file --nnc-lower-to-llvm="parallel=0" | FileCheck %s --check-prefix=SEQ

// The CPU pipeline: one pointer per input and per result (an out-parameter
// the runtime allocates), no memref descriptors, parallel loops through
// OpenMP for loops with enough work (65536 iterations here) unless
// parallel=0.
// CHECK-LABEL: llvm.func @relu(
// CHECK-SAME: %{{[a-z0-9]*}}: !llvm.ptr, %{{[a-z0-9]*}}: !llvm.ptr) {
// CHECK: omp.parallel
// SEQ-LABEL: llvm.func @relu(
// SEQ-NOT: omp.
// SEQ: llvm.return
func.func @relu(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = nnc.relu %x : tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

// A small loop stays sequential even in the parallel pipeline: a thread fork
// would cost more than its 32 iterations.
// CHECK-LABEL: llvm.func @small(
// CHECK-NOT: omp.
// CHECK: llvm.return
// SEQ-LABEL: llvm.func @small(
func.func @small(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = nnc.relu %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A padded convolution copies into a strided view: that becomes loops, never
// a call to MLIR's memrefCopy runtime function.
// CHECK-LABEL: llvm.func @pad(
// CHECK-NOT: memrefCopy
// SEQ-LABEL: llvm.func @pad(
// SEQ-NOT: memrefCopy
func.func @pad(%x: tensor<1x1x4x4xf32>, %w: tensor<2x1x3x3xf32>) -> tensor<1x2x4x4xf32> {
  %0 = nnc.conv %x, %w pads = [1, 1, 1, 1] : tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// A large f32 matmul calls the BLAS library.
// CHECK-LABEL: llvm.func @matmul(
// CHECK: llvm.call @cblas_sgemm
// SEQ-LABEL: llvm.func @matmul(
// SEQ: llvm.call @cblas_sgemm
func.func @matmul(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>) -> tensor<64x48xf32> {
  %0 = nnc.matmul %a, %b : tensor<64x32xf32>, tensor<32x48xf32>
  return %0 : tensor<64x48xf32>
}
