// RUN: nnc-opt %s --split-input-file --nnc-gemm-to-blas | FileCheck %s

// The output was just filled with zeros: beta = 0, the fill goes away and
// the call does not read C (no nnc.accumulate). nnc.gemm holds
// [batches, M, N, K, bytes per element].
// CHECK-LABEL: func.func @zero_fill
// CHECK-NOT: linalg.fill
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ROW:.*]] = arith.constant 101 : i32
// CHECK-DAG: %[[NT:.*]] = arith.constant 111 : i32
// CHECK-DAG: %[[M:.*]] = arith.constant 64 : i32
// CHECK-DAG: %[[N:.*]] = arith.constant 96 : i32
// CHECK-DAG: %[[K:.*]] = arith.constant 80 : i32
// CHECK: call @cblas_sgemm(%[[ROW]], %[[NT]], %[[NT]], %[[M]], %[[N]], %[[K]], %[[ONE]], %{{.*}}, %[[K]], %{{.*}}, %[[N]], %[[ZERO]], %{{.*}}, %[[N]]) {nnc.gemm = array<i64: 1, 64, 96, 80, 4>}
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @zero_fill(%a: memref<64x80xf32>, %b: memref<80x96xf32>, %c: memref<64x96xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<64x96xf32>)
  linalg.matmul ins(%a, %b : memref<64x80xf32>, memref<80x96xf32>) outs(%c : memref<64x96xf32>)
  return
}

// -----

// Ops that do not touch C may stand between the zero fill and the matmul.
// CHECK-LABEL: func.func @zero_fill_across
// CHECK-NOT: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<64x96xf32>)
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<8xf32>)
// CHECK-NOT: linalg.fill
// CHECK: call @cblas_sgemm
// CHECK-SAME: {nnc.gemm = array<i64: 1, 64, 96, 80, 4>}
func.func @zero_fill_across(%a: memref<64x80xf32>, %b: memref<80x96xf32>, %c: memref<64x96xf32>, %d: memref<8xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<64x96xf32>)
  linalg.fill ins(%z : f32) outs(%d : memref<8xf32>)
  linalg.matmul ins(%a, %b : memref<64x80xf32>, memref<80x96xf32>) outs(%c : memref<64x96xf32>)
  return
}

// -----

// A non-zero fill stays and the call accumulates into it: beta = 1.
// CHECK-LABEL: func.func @nonzero_fill
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<64x96xf32>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: call @cblas_sgemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]], %{{.*}}, %{{.*}}) {nnc.accumulate, nnc.gemm = array<i64: 1, 64, 96, 80, 4>}
func.func @nonzero_fill(%a: memref<64x80xf32>, %b: memref<80x96xf32>, %c: memref<64x96xf32>) {
  %z = arith.constant 2.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<64x96xf32>)
  linalg.matmul ins(%a, %b : memref<64x80xf32>, memref<80x96xf32>) outs(%c : memref<64x96xf32>)
  return
}

// -----

// An op between the zero fill and the matmul reads C (through a view):
// the fill stays, beta = 1.
// CHECK-LABEL: func.func @touched_between
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<64x96xf32>)
// CHECK: memref.copy
// CHECK: call @cblas_sgemm
// CHECK-SAME: {nnc.accumulate, nnc.gemm = array<i64: 1, 64, 96, 80, 4>}
func.func @touched_between(%a: memref<64x80xf32>, %b: memref<80x96xf32>, %c: memref<64x96xf32>, %out: memref<96xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<64x96xf32>)
  %row = memref.subview %c[3, 0] [1, 96] [1, 1] : memref<64x96xf32> to memref<96xf32, strided<[1], offset: 288>>
  memref.copy %row, %out : memref<96xf32, strided<[1], offset: 288>> to memref<96xf32>
  linalg.matmul ins(%a, %b : memref<64x80xf32>, memref<80x96xf32>) outs(%c : memref<64x96xf32>)
  return
}

// -----

// A zero fill of part of C only: the rest of C still accumulates, beta = 1.
// CHECK-LABEL: func.func @partial_fill
// CHECK: linalg.fill
// CHECK: call @cblas_sgemm
// CHECK-SAME: nnc.accumulate
func.func @partial_fill(%a: memref<64x80xf32>, %b: memref<80x96xf32>, %c: memref<64x96xf32>) {
  %z = arith.constant 0.0 : f32
  %top = memref.subview %c[0, 0] [32, 96] [1, 1] : memref<64x96xf32> to memref<32x96xf32, strided<[96, 1]>>
  linalg.fill ins(%z : f32) outs(%top : memref<32x96xf32, strided<[96, 1]>>)
  linalg.matmul ins(%a, %b : memref<64x80xf32>, memref<80x96xf32>) outs(%c : memref<64x96xf32>)
  return
}

// -----

// An earlier matmul (itself turned into a call) accumulates into the top
// half of C after the zero fill: the fill must stay for it, and the second
// matmul must accumulate (beta = 1) instead of overwriting its result.
// CHECK-LABEL: func.func @call_between
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<64x96xf32>)
// CHECK: call @cblas_sgemm
// CHECK-SAME: {nnc.accumulate, nnc.gemm = array<i64: 1, 32, 96, 80, 4>}
// CHECK: call @cblas_sgemm
// CHECK-SAME: {nnc.accumulate, nnc.gemm = array<i64: 1, 64, 96, 80, 4>}
func.func @call_between(%a1: memref<32x80xf32>, %a: memref<64x80xf32>, %b: memref<80x96xf32>, %c: memref<64x96xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<64x96xf32>)
  %top = memref.subview %c[0, 0] [32, 96] [1, 1] : memref<64x96xf32> to memref<32x96xf32, strided<[96, 1]>>
  linalg.matmul ins(%a1, %b : memref<32x80xf32>, memref<80x96xf32>) outs(%top : memref<32x96xf32, strided<[96, 1]>>)
  linalg.matmul ins(%a, %b : memref<64x80xf32>, memref<80x96xf32>) outs(%c : memref<64x96xf32>)
  return
}

// -----

// A read through a transposed map (d2, d0) of A: CblasTrans for A; A is
// stored 80x64, so M = 64, K = 80 and lda = 64 (the buffer's row stride).
// CHECK-LABEL: func.func @transposed_a
// CHECK-SAME: (%[[A:.*]]: memref<80x64xf32>,
// CHECK-DAG: memref.extract_aligned_pointer_as_index %[[A]] : memref<80x64xf32>
// CHECK-DAG: %[[ROW:.*]] = arith.constant 101 : i32
// CHECK-DAG: %[[T:.*]] = arith.constant 112 : i32
// CHECK-DAG: %[[NT:.*]] = arith.constant 111 : i32
// CHECK-DAG: %[[M:.*]] = arith.constant 64 : i32
// CHECK-DAG: %[[N:.*]] = arith.constant 96 : i32
// CHECK-DAG: %[[K:.*]] = arith.constant 80 : i32
// CHECK: call @cblas_sgemm(%[[ROW]], %[[T]], %[[NT]], %[[M]], %[[N]], %[[K]], %{{.*}}, %{{.*}}, %[[M]], %{{.*}}, %[[N]], %{{.*}}, %{{.*}}, %[[N]]) {nnc.accumulate, nnc.gemm = array<i64: 1, 64, 96, 80, 4>}
// CHECK-NOT: linalg.matmul
func.func @transposed_a(%a: memref<80x64xf32>, %b: memref<80x96xf32>, %c: memref<64x96xf32>) {
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
    ins(%a, %b : memref<80x64xf32>, memref<80x96xf32>) outs(%c : memref<64x96xf32>)
  return
}

// -----

// A read through a transposed map (d1, d2) of B: CblasTrans for B; B is
// stored 96x80, so N = 96, K = 80 and ldb = 80.
// CHECK-LABEL: func.func @transposed_b
// CHECK-DAG: %[[ROW:.*]] = arith.constant 101 : i32
// CHECK-DAG: %[[T:.*]] = arith.constant 112 : i32
// CHECK-DAG: %[[NT:.*]] = arith.constant 111 : i32
// CHECK-DAG: %[[M:.*]] = arith.constant 64 : i32
// CHECK-DAG: %[[N:.*]] = arith.constant 96 : i32
// CHECK-DAG: %[[K:.*]] = arith.constant 80 : i32
// CHECK: call @cblas_sgemm(%[[ROW]], %[[NT]], %[[T]], %[[M]], %[[N]], %[[K]], %{{.*}}, %{{.*}}, %[[K]], %{{.*}}, %[[K]], %{{.*}}, %{{.*}}, %[[N]]) {nnc.accumulate, nnc.gemm = array<i64: 1, 64, 96, 80, 4>}
// CHECK-NOT: linalg.matmul
func.func @transposed_b(%a: memref<64x80xf32>, %b: memref<96x80xf32>, %c: memref<64x96xf32>) {
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
    ins(%a, %b : memref<64x80xf32>, memref<96x80xf32>) outs(%c : memref<64x96xf32>)
  return
}

// -----

// Another indexing map (a broadcast of B) is not a GEMM: left as it is.
// CHECK-LABEL: func.func @other_map
// CHECK: linalg.matmul
// CHECK-NOT: call @cblas_sgemm
func.func @other_map(%a: memref<64x80xf32>, %b: memref<80xf32>, %c: memref<64x96xf32>) {
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
    ins(%a, %b : memref<64x80xf32>, memref<80xf32>) outs(%c : memref<64x96xf32>)
  return
}

// -----

// A buffer-level transpose into a temporary that only the matmul reads is
// absorbed: the transpose, the alloc and its dealloc go, and B is read
// transposed from %w (96x80: ldb = 80).
// CHECK-LABEL: func.func @absorb_transpose
// CHECK-SAME: (%[[A:.*]]: memref<64x80xf32>, %[[W:.*]]: memref<96x80xf32>, %[[C:.*]]: memref<64x96xf32>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.transpose
// CHECK-DAG: memref.extract_aligned_pointer_as_index %[[W]] : memref<96x80xf32>
// CHECK-DAG: %[[T:.*]] = arith.constant 112 : i32
// CHECK-DAG: %[[NT:.*]] = arith.constant 111 : i32
// CHECK-DAG: %[[M:.*]] = arith.constant 64 : i32
// CHECK-DAG: %[[N:.*]] = arith.constant 96 : i32
// CHECK-DAG: %[[K:.*]] = arith.constant 80 : i32
// CHECK: call @cblas_sgemm(%{{.*}}, %[[NT]], %[[T]], %[[M]], %[[N]], %[[K]], %{{.*}}, %{{.*}}, %[[K]], %{{.*}}, %[[K]], %{{.*}}, %{{.*}}, %[[N]]) {nnc.accumulate, nnc.gemm = array<i64: 1, 64, 96, 80, 4>}
// CHECK-NOT: linalg.transpose
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @absorb_transpose(%a: memref<64x80xf32>, %w: memref<96x80xf32>, %c: memref<64x96xf32>) {
  %t = memref.alloc() : memref<80x96xf32>
  linalg.transpose ins(%w : memref<96x80xf32>) outs(%t : memref<80x96xf32>) permutation = [1, 0]
  linalg.matmul ins(%a, %t : memref<64x80xf32>, memref<80x96xf32>) outs(%c : memref<64x96xf32>)
  memref.dealloc %t : memref<80x96xf32>
  return
}

// -----

// The same for A (%x is 80x64: lda = 64), together with a zero fill.
// CHECK-LABEL: func.func @absorb_transpose_a
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.transpose
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[T:.*]] = arith.constant 112 : i32
// CHECK-DAG: %[[NT:.*]] = arith.constant 111 : i32
// CHECK-DAG: %[[M:.*]] = arith.constant 64 : i32
// CHECK-DAG: %[[N:.*]] = arith.constant 96 : i32
// CHECK-DAG: %[[K:.*]] = arith.constant 80 : i32
// CHECK: call @cblas_sgemm(%{{.*}}, %[[T]], %[[NT]], %[[M]], %[[N]], %[[K]], %{{.*}}, %{{.*}}, %[[M]], %{{.*}}, %[[N]], %{{.*}}, %{{.*}}, %[[N]]) {nnc.gemm = array<i64: 1, 64, 96, 80, 4>}
func.func @absorb_transpose_a(%x: memref<80x64xf32>, %b: memref<80x96xf32>, %c: memref<64x96xf32>) {
  %z = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<64x80xf32>
  linalg.transpose ins(%x : memref<80x64xf32>) outs(%t : memref<64x80xf32>) permutation = [1, 0]
  linalg.fill ins(%z : f32) outs(%c : memref<64x96xf32>)
  linalg.matmul ins(%t, %b : memref<64x80xf32>, memref<80x96xf32>) outs(%c : memref<64x96xf32>)
  return
}

// -----

// The transposed temporary has another reader: it must exist, so the
// transpose stays and the matmul reads it as it is (NoTrans, ldb = 96).
// CHECK-LABEL: func.func @transpose_other_reader
// CHECK: %[[T:.*]] = memref.alloc() : memref<80x96xf32>
// CHECK: linalg.transpose ins(%{{.*}} : memref<96x80xf32>) outs(%[[T]] : memref<80x96xf32>)
// CHECK-DAG: memref.extract_aligned_pointer_as_index %[[T]] : memref<80x96xf32>
// CHECK-DAG: %[[NT:.*]] = arith.constant 111 : i32
// CHECK-DAG: %[[N:.*]] = arith.constant 96 : i32
// CHECK-DAG: %[[K:.*]] = arith.constant 80 : i32
// CHECK: call @cblas_sgemm(%{{.*}}, %[[NT]], %[[NT]], %{{.*}}, %[[N]], %[[K]], %{{.*}}, %{{.*}}, %[[K]], %{{.*}}, %[[N]], %{{.*}}, %{{.*}}, %[[N]])
// CHECK: memref.copy %[[T]]
func.func @transpose_other_reader(%a: memref<64x80xf32>, %w: memref<96x80xf32>, %c: memref<64x96xf32>, %out: memref<80x96xf32>) {
  %t = memref.alloc() : memref<80x96xf32>
  linalg.transpose ins(%w : memref<96x80xf32>) outs(%t : memref<80x96xf32>) permutation = [1, 0]
  linalg.matmul ins(%a, %t : memref<64x80xf32>, memref<80x96xf32>) outs(%c : memref<64x96xf32>)
  memref.copy %t, %out : memref<80x96xf32> to memref<80x96xf32>
  return
}

// -----

// The source of the transpose is written between the transpose and the
// matmul: reading it then would see the new values. Not absorbed.
// CHECK-LABEL: func.func @transpose_source_written
// CHECK: linalg.transpose
// CHECK: linalg.fill
// CHECK: call @cblas_sgemm(%{{.*}}, %[[NT:.*]], %[[NT]],
func.func @transpose_source_written(%a: memref<64x80xf32>, %w: memref<96x80xf32>, %c: memref<64x96xf32>) {
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<80x96xf32>
  linalg.transpose ins(%w : memref<96x80xf32>) outs(%t : memref<80x96xf32>) permutation = [1, 0]
  linalg.fill ins(%one : f32) outs(%w : memref<96x80xf32>)
  linalg.matmul ins(%a, %t : memref<64x80xf32>, memref<80x96xf32>) outs(%c : memref<64x96xf32>)
  return
}

// -----

// The same transposed temporary as both operands: the pass must not crash
// nor leave a call reading an erased buffer (it may read %w transposed for
// both operands, or keep the transpose).
// CHECK-LABEL: func.func @same_transpose_twice
// CHECK: {{call @cblas_sgemm|linalg.matmul}}
func.func @same_transpose_twice(%w: memref<64x64xf32>, %c: memref<64x64xf32>) {
  %t = memref.alloc() : memref<64x64xf32>
  linalg.transpose ins(%w : memref<64x64xf32>) outs(%t : memref<64x64xf32>) permutation = [1, 0]
  linalg.matmul ins(%t, %t : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// A batch matmul on f64 after a zero fill: one call per batch with
// beta = 0, nnc.gemm = [3 batches, 64, 96, 80, 8 bytes].
// CHECK-LABEL: func.func @batch_f64
// CHECK-NOT: linalg.fill
// CHECK: scf.for
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: func.call @cblas_dgemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]], %{{.*}}, %{{.*}}) {nnc.gemm = array<i64: 3, 64, 96, 80, 8>}
func.func @batch_f64(%a: memref<3x64x80xf64>, %b: memref<3x80x96xf64>, %c: memref<3x64x96xf64>) {
  %z = arith.constant 0.0 : f64
  linalg.fill ins(%z : f64) outs(%c : memref<3x64x96xf64>)
  linalg.batch_matmul ins(%a, %b : memref<3x64x80xf64>, memref<3x80x96xf64>) outs(%c : memref<3x64x96xf64>)
  return
}

// -----

// A batch matmul reading B transposed ((d0, d2, d3) on a 3x96x80 buffer):
// CblasTrans for B, ldb = 80, accumulating.
// CHECK-LABEL: func.func @batch_transposed_b
// CHECK: scf.for
// CHECK-DAG: %[[T:.*]] = arith.constant 112 : i32
// CHECK-DAG: %[[NT:.*]] = arith.constant 111 : i32
// CHECK-DAG: %[[K:.*]] = arith.constant 80 : i32
// CHECK: func.call @cblas_sgemm(%{{.*}}, %[[NT]], %[[T]], %{{.*}}, %{{.*}}, %[[K]], %{{.*}}, %{{.*}}, %[[K]], %{{.*}}, %[[K]], %{{.*}}, %{{.*}}, %{{.*}}) {nnc.accumulate, nnc.gemm = array<i64: 3, 64, 96, 80, 4>}
func.func @batch_transposed_b(%a: memref<3x64x80xf32>, %b: memref<3x96x80xf32>, %c: memref<3x64x96xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
    ins(%a, %b : memref<3x64x80xf32>, memref<3x96x80xf32>) outs(%c : memref<3x64x96xf32>)
  return
}

// -----

// The matmul writes the source of the transpose (W += A * W^T): reading B
// from %w in place would alias C, which BLAS does not allow, and would see
// C's partial results. The copy must stay: not absorbed.
// CHECK-LABEL: func.func @transpose_source_is_output
// CHECK: %[[T:.*]] = memref.alloc() : memref<64x64xf32>
// CHECK: linalg.transpose ins(%{{.*}} : memref<64x64xf32>) outs(%[[T]] : memref<64x64xf32>)
// CHECK-DAG: memref.extract_aligned_pointer_as_index %[[T]]
// CHECK-DAG: %[[NT:.*]] = arith.constant 111 : i32
// CHECK: call @cblas_sgemm(%{{.*}}, %[[NT]], %[[NT]],
func.func @transpose_source_is_output(%a: memref<64x64xf32>, %w: memref<64x64xf32>) {
  %t = memref.alloc() : memref<64x64xf32>
  linalg.transpose ins(%w : memref<64x64xf32>) outs(%t : memref<64x64xf32>) permutation = [1, 0]
  linalg.matmul ins(%a, %t : memref<64x64xf32>, memref<64x64xf32>) outs(%w : memref<64x64xf32>)
  return
}

// -----

// Image by image: the block of one image (a view of the output) was just
// zero-filled, so the GEMM in the loop writes it with beta = 0; the fill of
// a view that is not exactly C stays.
// CHECK-LABEL: func.func @zero_fill_block
// CHECK: scf.for
// CHECK-NOT: linalg.fill
// CHECK: call @cblas_sgemm({{.*}}) {nnc.gemm = array<i64: 1, 16, 100, 72, 4>}
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<16x50xf32, strided<[100, 1], offset: ?>>)
// CHECK: call @cblas_sgemm({{.*}}) {nnc.accumulate, nnc.gemm = array<i64: 1, 16, 100, 72, 4>}
func.func @zero_fill_block(%w: memref<16x72xf32>, %cols: memref<72x100xf32>, %out: memref<4x16x100xf32>) {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %n = %c0 to %c4 step %c1 {
    %block = memref.subview %out[%n, 0, 0] [1, 16, 100] [1, 1, 1] : memref<4x16x100xf32> to memref<16x100xf32, strided<[100, 1], offset: ?>>
    linalg.fill ins(%z : f32) outs(%block : memref<16x100xf32, strided<[100, 1], offset: ?>>)
    linalg.matmul ins(%w, %cols : memref<16x72xf32>, memref<72x100xf32>) outs(%block : memref<16x100xf32, strided<[100, 1], offset: ?>>)
    %half = memref.subview %out[%n, 0, 0] [1, 16, 50] [1, 1, 1] : memref<4x16x100xf32> to memref<16x50xf32, strided<[100, 1], offset: ?>>
    linalg.fill ins(%z : f32) outs(%half : memref<16x50xf32, strided<[100, 1], offset: ?>>)
    linalg.matmul ins(%w, %cols : memref<16x72xf32>, memref<72x100xf32>) outs(%block : memref<16x100xf32, strided<[100, 1], offset: ?>>)
  }
  return
}

// -----

// Attention's heads: a batched GEMM reading [B, T, H, D] through a
// transpose to [B, H, T, D] (a temporary nothing else reads) reads it where
// it lies: batch index i = (b, h) at b * T*H*D + h * D, rows T apart by
// H*D (lda = 64); k transposed to [B, H, D, T] is read with CblasTrans from
// the same layout. The product, zero-filled and then only transposed back
// to [B, T, H, D], is written there (ldc = 64, beta = 0). The transposes and
// their temporaries go.
// CHECK-LABEL: func.func @attention_heads
// CHECK-SAME: (%[[Q:.*]]: memref<2x32x4x16xf32>, %[[K:.*]]: memref<2x32x4x16xf32>, %[[V:.*]]: memref<2x32x4x16xf32>, %[[Y:.*]]: memref<2x32x4x16xf32>)
// CHECK-NOT: linalg.transpose
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[QP:.*]] = memref.extract_aligned_pointer_as_index %[[Q]]
// CHECK-DAG: %[[KP:.*]] = memref.extract_aligned_pointer_as_index %[[K]]
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[H:.*]] = arith.remui %[[I]], %[[C4:.*]] : index
// CHECK: %[[HB:.*]] = arith.muli %[[H]], %{{.*}} : index
// CHECK: %[[A1:.*]] = arith.addi %[[QP]], %[[HB]] : index
// CHECK: %[[B:.*]] = arith.divui %[[I]], %{{.*}} : index
// CHECK: %[[BB:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK: arith.addi %[[A1]], %[[BB]] : index
// CHECK: call @cblas_sgemm(%{{.*}}, %[[NT:.*]], %[[T:.*]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[LD:.*]], %{{.*}}, %[[LD]], %[[ZERO:.*]], %{{.*}}, %{{.*}}) {nnc.gemm = array<i64: 8, 32, 32, 16, 4>}
// CHECK-DAG: %[[VP:.*]] = memref.extract_aligned_pointer_as_index %[[V]]
// CHECK-DAG: %[[YP:.*]] = memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK: scf.for
// CHECK: arith.addi %[[VP]]
// CHECK: arith.addi %[[YP]]
// CHECK: call @cblas_sgemm(%{{.*}}, %[[NT]], %[[NT]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[LD]], %[[ZERO]], %{{.*}}, %[[LD]]) {nnc.gemm = array<i64: 8, 32, 16, 32, 4>}
// CHECK-NOT: linalg.transpose
// CHECK: return
func.func @attention_heads(%q: memref<2x32x4x16xf32>, %k: memref<2x32x4x16xf32>, %vin: memref<2x32x4x16xf32>, %y: memref<2x32x4x16xf32>) {
  %z = arith.constant 0.0 : f32
  %s3 = arith.constant dense<[8, 32, 16]> : tensor<3xi64>
  %s3m = bufferization.to_buffer %s3 : tensor<3xi64> to memref<3xi64>
  %s3k = arith.constant dense<[8, 16, 32]> : tensor<3xi64>
  %s3km = bufferization.to_buffer %s3k : tensor<3xi64> to memref<3xi64>
  %s4 = arith.constant dense<[2, 4, 32, 16]> : tensor<4xi64>
  %s4m = bufferization.to_buffer %s4 : tensor<4xi64> to memref<4xi64>
  %qt = memref.alloc() : memref<2x4x32x16xf32>
  linalg.transpose ins(%q : memref<2x32x4x16xf32>) outs(%qt : memref<2x4x32x16xf32>) permutation = [0, 2, 1, 3]
  %kt = memref.alloc() : memref<2x4x16x32xf32>
  linalg.transpose ins(%k : memref<2x32x4x16xf32>) outs(%kt : memref<2x4x16x32xf32>) permutation = [0, 2, 3, 1]
  %qm = memref.reshape %qt(%s3m) : (memref<2x4x32x16xf32>, memref<3xi64>) -> memref<8x32x16xf32>
  %km = memref.reshape %kt(%s3km) : (memref<2x4x16x32xf32>, memref<3xi64>) -> memref<8x16x32xf32>
  %c = memref.alloc() : memref<8x32x32xf32>
  linalg.fill ins(%z : f32) outs(%c : memref<8x32x32xf32>)
  linalg.batch_matmul ins(%qm, %km : memref<8x32x16xf32>, memref<8x16x32xf32>) outs(%c : memref<8x32x32xf32>)
  %vt = memref.alloc() : memref<2x4x32x16xf32>
  linalg.transpose ins(%vin : memref<2x32x4x16xf32>) outs(%vt : memref<2x4x32x16xf32>) permutation = [0, 2, 1, 3]
  %vm = memref.reshape %vt(%s3m) : (memref<2x4x32x16xf32>, memref<3xi64>) -> memref<8x32x16xf32>
  %v = memref.alloc() : memref<8x32x16xf32>
  linalg.fill ins(%z : f32) outs(%v : memref<8x32x16xf32>)
  linalg.batch_matmul ins(%c, %vm : memref<8x32x32xf32>, memref<8x32x16xf32>) outs(%v : memref<8x32x16xf32>)
  %v4 = memref.reshape %v(%s4m) : (memref<8x32x16xf32>, memref<4xi64>) -> memref<2x4x32x16xf32>
  linalg.transpose ins(%v4 : memref<2x4x32x16xf32>) outs(%y : memref<2x32x4x16xf32>) permutation = [0, 2, 1, 3]
  return
}
