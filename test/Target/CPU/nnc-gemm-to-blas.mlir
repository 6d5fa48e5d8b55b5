// RUN: nnc-opt %s --split-input-file --nnc-gemm-to-blas | FileCheck %s
// RUN: nnc-opt %s --split-input-file --nnc-gemm-to-blas="min-flops=1000000" | FileCheck %s --check-prefix=LARGE
// RUN: nnc-opt %s --split-input-file --nnc-gemm-to-blas="bf16-gemm=1" | FileCheck %s --check-prefix=BF16

// An f32 matmul becomes one row-major cblas_sgemm with alpha = beta = 1:
// M = 64, N = 96, K = 80, lda = 80, ldb = ldc = 96.
// CHECK-LABEL: func.func private @cblas_sgemm(i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i32, !llvm.ptr, i32, f32, !llvm.ptr, i32)
// CHECK-LABEL: func @matmul_f32
// CHECK-SAME: (%[[A:.*]]: memref<64x80xf32>, %[[B:.*]]: memref<80x96xf32>, %[[C:.*]]: memref<64x96xf32>)
// CHECK-NOT: linalg.matmul
// CHECK-DAG: %[[PA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK-DAG: %[[PB:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
// CHECK-DAG: %[[PC:.*]] = memref.extract_aligned_pointer_as_index %[[C]]
// CHECK-DAG: %[[ROW:.*]] = arith.constant 101 : i32
// CHECK-DAG: %[[NT:.*]] = arith.constant 111 : i32
// CHECK-DAG: %[[M:.*]] = arith.constant 64 : i32
// CHECK-DAG: %[[N:.*]] = arith.constant 96 : i32
// CHECK-DAG: %[[K:.*]] = arith.constant 80 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[XA:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr
// CHECK: call @cblas_sgemm(%[[ROW]], %[[NT]], %[[NT]], %[[M]], %[[N]], %[[K]], %[[ONE]], %{{.*}}, %[[K]], %{{.*}}, %[[N]], %[[ONE]], %{{.*}}, %[[N]]) {nnc.accumulate, nnc.gemm = array<i64: 1, 64, 96, 80, 4>}
// CHECK-NOT: linalg.matmul
// LARGE-LABEL: func @matmul_f32
// LARGE: linalg.matmul
// LARGE-NOT: cblas
func.func @matmul_f32(%a: memref<64x80xf32>, %b: memref<80x96xf32>, %c: memref<64x96xf32>) {
  linalg.matmul ins(%a, %b : memref<64x80xf32>, memref<80x96xf32>) outs(%c : memref<64x96xf32>)
  return
}

// -----

// f64 calls cblas_dgemm; a view with a row stride larger than its row (and
// an offset) passes the stride as the leading dimension and adds the offset
// in bytes (6 elements * 8).
// CHECK-LABEL: func.func private @cblas_dgemm(i32, i32, i32, i32, i32, i32, f64, !llvm.ptr, i32, !llvm.ptr, i32, f64, !llvm.ptr, i32)
// CHECK-LABEL: func @matmul_f64_view
// CHECK: %[[PA:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<32x32xf64, strided<[40, 1], offset: 6>>
// CHECK: %[[OFF:.*]] = arith.constant 48 : index
// CHECK: arith.addi %[[PA]], %[[OFF]]
// CHECK: %[[LDA:.*]] = arith.constant 40 : i32
// CHECK: call @cblas_dgemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[LDA]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {{{.*}}} : (i32, i32, i32, i32, i32, i32, f64, !llvm.ptr, i32, !llvm.ptr, i32, f64, !llvm.ptr, i32) -> ()
func.func @matmul_f64_view(%a: memref<40x40xf64>, %b: memref<32x32xf64>, %c: memref<32x32xf64>) {
  %v = memref.subview %a[0, 6] [32, 32] [1, 1] : memref<40x40xf64> to memref<32x32xf64, strided<[40, 1], offset: 6>>
  linalg.matmul ins(%v, %b : memref<32x32xf64, strided<[40, 1], offset: 6>>, memref<32x32xf64>) outs(%c : memref<32x32xf64>)
  return
}

// -----

// A dynamic offset is read from the descriptor.
// CHECK-LABEL: func @matmul_dynamic_offset
// CHECK: memref.extract_strided_metadata
// CHECK: call @cblas_sgemm
func.func @matmul_dynamic_offset(%a: memref<32x32xf32, strided<[32, 1], offset: ?>>, %b: memref<32x32xf32>, %c: memref<32x32xf32>) {
  linalg.matmul ins(%a, %b : memref<32x32xf32, strided<[32, 1], offset: ?>>, memref<32x32xf32>) outs(%c : memref<32x32xf32>)
  return
}

// -----

// A batch matmul becomes a loop over the batch, one call per matrix, each
// pointer advanced by its batch stride in bytes (64x80, 80x96, 64x96 f32).
// CHECK-LABEL: func @batch_matmul
// CHECK-NOT: linalg.batch_matmul
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: scf.for %[[I:.*]] = %[[C0]] to %[[C3]] step %[[C1]]
// CHECK-DAG: arith.constant 20480 : index
// CHECK-DAG: arith.constant 30720 : index
// CHECK-DAG: arith.constant 24576 : index
// CHECK: call @cblas_sgemm
// CHECK: }
// CHECK-NOT: call @cblas_sgemm
func.func @batch_matmul(%a: memref<3x64x80xf32>, %b: memref<3x80x96xf32>, %c: memref<3x64x96xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<3x64x80xf32>, memref<3x80x96xf32>) outs(%c : memref<3x64x96xf32>)
  return
}

// -----

// Small products (M * N * K < 4096) stay loops.
// CHECK-LABEL: func @small
// CHECK: linalg.matmul
// CHECK-NOT: cblas
func.func @small(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  return
}

// -----

// Integer and f16 matmuls stay loops.
// CHECK-LABEL: func @other_types
// CHECK: linalg.matmul
// CHECK: linalg.matmul
// CHECK-NOT: cblas
func.func @other_types(%a: memref<32x32xi32>, %c: memref<32x32xi32>, %h: memref<32x32xf16>, %hc: memref<32x32xf16>) {
  linalg.matmul ins(%a, %a : memref<32x32xi32>, memref<32x32xi32>) outs(%c : memref<32x32xi32>)
  linalg.matmul ins(%h, %h : memref<32x32xf16>, memref<32x32xf16>) outs(%hc : memref<32x32xf16>)
  return
}

// -----

// bf16 operands into an f32 C (a bf16 nnc.matmul, summed in f32) call the
// oneDNN glue's bf16 GEMM with bf16-gemm, transposes and all (beta = 0
// after a zero fill: no nnc.accumulate; nnc.gemm
// counts the operands' 2 bytes); bf16 into bf16 and mixed operands stay
// loops, and so does everything without the option.
// BF16-LABEL: func.func private @nnc_dnnl_sbgemm(i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i32, !llvm.ptr, i32, f32, !llvm.ptr, i32)
// BF16-LABEL: func @bf16
// BF16-DAG: %[[ROW:.*]] = arith.constant 101 : i32
// BF16-DAG: %[[NT:.*]] = arith.constant 111 : i32
// BF16-DAG: %[[T:.*]] = arith.constant 112 : i32
// BF16-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// BF16: call @nnc_dnnl_sbgemm(%[[ROW]], %[[NT]], %[[T]], %{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {nnc.gemm = array<i64: 1, 32, 48, 64, 2>} :
// BF16-NOT: linalg.fill
// BF16: linalg.matmul ins({{.*}} : memref<32x64xbf16>, memref<64x48xbf16>) outs({{.*}} : memref<32x48xbf16>)
// BF16: linalg.matmul ins({{.*}} : memref<32x64xbf16>, memref<64x48xf32>) outs({{.*}} : memref<32x48xf32>)
// BF16-NOT: call
// CHECK-LABEL: func @bf16
// CHECK-NOT: call
func.func @bf16(%a: memref<32x64xbf16>, %bt: memref<48x64xbf16>, %b: memref<64x48xbf16>, %bf: memref<64x48xf32>, %c: memref<32x48xf32>, %h: memref<32x48xbf16>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<32x48xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %bt : memref<32x64xbf16>, memref<48x64xbf16>) outs(%c : memref<32x48xf32>)
  linalg.matmul ins(%a, %b : memref<32x64xbf16>, memref<64x48xbf16>) outs(%h : memref<32x48xbf16>)
  linalg.matmul ins(%a, %bf : memref<32x64xbf16>, memref<64x48xf32>) outs(%c : memref<32x48xf32>)
  return
}

// -----

// Columns that are not contiguous, dynamic shapes, tensors and broadcast
// indexing maps stay as they are (transposed maps become CblasTrans:
// nnc-gemm-to-blas-fusion.mlir).
// CHECK-LABEL: func @not_row_major
// CHECK-COUNT-4: linalg.matmul
// CHECK-NOT: cblas
func.func @not_row_major(%a: memref<32x64xf32>, %b: memref<32x32xf32>, %c: memref<32x32xf32>,
                         %d: memref<?x32xf32>, %dc: memref<?x32xf32>, %t: tensor<32x32xf32>,
                         %row: memref<32xf32>) -> tensor<32x32xf32> {
  %v = memref.subview %a[0, 0] [32, 32] [1, 2] : memref<32x64xf32> to memref<32x32xf32, strided<[64, 2]>>
  linalg.matmul ins(%v, %b : memref<32x32xf32, strided<[64, 2]>>, memref<32x32xf32>) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%d, %b : memref<?x32xf32>, memref<32x32xf32>) outs(%dc : memref<?x32xf32>)
  %r = linalg.matmul ins(%t, %t : tensor<32x32xf32>, tensor<32x32xf32>) outs(%t : tensor<32x32xf32>) -> tensor<32x32xf32>
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
                ins(%row, %b : memref<32xf32>, memref<32x32xf32>) outs(%c : memref<32x32xf32>)
  return %r : tensor<32x32xf32>
}
