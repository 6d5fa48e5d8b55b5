// RUN: nnc-opt %s --split-input-file --nnc-gemm-to-blas="f32-library=dnnl" | FileCheck %s
// RUN: nnc-opt %s --split-input-file --nnc-gemm-to-blas | FileCheck %s --check-prefix=BLAS

// With f32-library=dnnl, f32 products of at least dnnl-min-flops (64^3)
// multiply-adds call the oneDNN glue's nnc_dnnl_sgemm, with CBLAS's
// arguments; smaller ones still call cblas_sgemm, whose call costs less.
// CHECK-DAG: func.func private @nnc_dnnl_sgemm(i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i32, !llvm.ptr, i32, f32, !llvm.ptr, i32)
// CHECK-DAG: func.func private @cblas_sgemm(
// CHECK-LABEL: func @large
// CHECK: call @nnc_dnnl_sgemm(%{{.*}}) {nnc.accumulate, nnc.gemm = array<i64: 1, 64, 96, 80, 4>}
// CHECK-NOT: linalg.matmul
// BLAS-LABEL: func @large
// BLAS: call @cblas_sgemm(
func.func @large(%a: memref<64x80xf32>, %b: memref<80x96xf32>, %c: memref<64x96xf32>) {
  linalg.matmul ins(%a, %b : memref<64x80xf32>, memref<80x96xf32>) outs(%c : memref<64x96xf32>)
  return
}
// CHECK-LABEL: func @small
// CHECK: call @cblas_sgemm(%{{.*}}) {nnc.accumulate, nnc.gemm = array<i64: 1, 16, 16, 16, 4>}
func.func @small(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %c: memref<16x16xf32>) {
  linalg.matmul ins(%a, %b : memref<16x16xf32>, memref<16x16xf32>) outs(%c : memref<16x16xf32>)
  return
}

// -----

// An op's kernel choice (nnc.impl, from the nnc.matmul or nnc.gemm it was,
// set by the autotuner or by hand) wins over the pass's library and its
// size thresholds: dnnl and blas call their library at any size, loops
// stays a loop nest.
// CHECK-LABEL: func @forced
// CHECK: call @nnc_dnnl_sgemm(%{{.*}}) {nnc.accumulate, nnc.gemm = array<i64: 1, 4, 4, 4, 4>}
// CHECK: call @cblas_sgemm(%{{.*}}) {nnc.accumulate, nnc.gemm = array<i64: 1, 64, 96, 80, 4>}
// CHECK: linalg.matmul {nnc.impl = "loops"}
// CHECK-NOT: call
// BLAS-LABEL: func @forced
// BLAS: call @nnc_dnnl_sgemm(
// BLAS: call @cblas_sgemm(
// BLAS: linalg.matmul {nnc.impl = "loops"}
func.func @forced(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>,
                  %d: memref<64x80xf32>, %e: memref<80x96xf32>, %f: memref<64x96xf32>) {
  linalg.matmul {nnc.impl = "dnnl"} ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.matmul {nnc.impl = "blas"} ins(%d, %e : memref<64x80xf32>, memref<80x96xf32>) outs(%f : memref<64x96xf32>)
  linalg.matmul {nnc.impl = "loops"} ins(%d, %e : memref<64x80xf32>, memref<80x96xf32>) outs(%f : memref<64x96xf32>)
  return
}

// -----

// f64 products have OpenBLAS only.
// CHECK-LABEL: func @f64
// CHECK: call @cblas_dgemm(
func.func @f64(%a: memref<64x80xf64>, %b: memref<80x96xf64>, %c: memref<64x96xf64>) {
  linalg.matmul ins(%a, %b : memref<64x80xf64>, memref<80x96xf64>) outs(%c : memref<64x96xf64>)
  return
}
