// Matrix products of planned kernels become GEMM launches: each matrix
// located in the kernel's buffers (buffer, byte offset, row stride, batch
// stride, transposed), a zero fill of C folded into the product; what
// cuBLASLt cannot take stays a loop nest. The emitter writes the launches.
// RUN: nnc-opt --nnc-cuda-gemm-to-cublaslt %s | FileCheck %s
// RUN: nnc-opt --nnc-cuda-gemm-to-cublaslt %s | nnc-translate --emit-cuda \
// RUN:   | FileCheck %s --check-prefix=EMIT

#mA = affine_map<(d0, d1, d2) -> (d0, d2)>
#mB = affine_map<(d0, d1, d2) -> (d2, d1)>
#mBt = affine_map<(d0, d1, d2) -> (d1, d2)>
#mC = affine_map<(d0, d1, d2) -> (d0, d1)>
#mAt = affine_map<(d0, d1, d2) -> (d2, d0)>
#bA = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#bBshared = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#bC = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

memref.global "private" constant @shape : memref<2xi64> = dense<[64, 32]>

// x @ w^T as a linear layer: x a reshape of a view at 8192 bytes, w a
// weight argument read transposed, y written (beta 0) at 0; the fill goes.
// CHECK-LABEL: func.func @linear(
// CHECK-NOT: linalg.fill
// CHECK: call @nnc_cuda_gemm_f32_f32({{.*}}) {nnc.cuda_gemm = {a = array<i64: 1, 8192, 32, 0, 0>, accumulate = false, b = array<i64: 0, 0, 32, 0, 1>, batch = 1 : i64, c = array<i64: 1, 0, 16, 0, 0>, input_type = "f32", k = 32 : i64, m = 64 : i64, n = 16 : i64, output_type = "f32"}}
// CHECK-NOT: linalg.matmul
// EMIT: // linear_l0_gemm: cuBLASLt GEMM 64x16x32, batch 1, f32 to f32, C = A x B; A a1+8192 ld 32 batch stride 0; B a0+0 transposed ld 32 batch stride 0; C a1+0 ld 16 batch stride 0
func.func @linear(%w: memref<16x32xf32>, %arena: memref<65536xi8>) {
  %c0 = arith.constant 0 : index
  %c8192 = arith.constant 8192 : index
  %cst = arith.constant 0.0 : f32
  %s = memref.get_global @shape : memref<2xi64>
  %v = memref.view %arena[%c8192][] : memref<65536xi8> to memref<4x16x32xf32>
  %x = memref.reshape %v(%s) : (memref<4x16x32xf32>, memref<2xi64>) -> memref<64x32xf32>
  %y = memref.view %arena[%c0][] : memref<65536xi8> to memref<64x16xf32>
  linalg.fill ins(%cst : f32) outs(%y : memref<64x16xf32>)
  linalg.matmul indexing_maps = [#mA, #mBt, #mC] ins(%x, %w : memref<64x32xf32>, memref<16x32xf32>) outs(%y : memref<64x16xf32>)
  return
}

// A weight gradient x^T @ dy added to what C holds (no fill): A read
// transposed from a subview of rows 2.. (offset 2 * 8 * 4 bytes).
// CHECK-LABEL: func.func @accumulate(
// CHECK: call @nnc_cuda_gemm_f32_f32({{.*}}) {nnc.cuda_gemm = {a = array<i64: 0, 64, 8, 0, 1>, accumulate = true, b = array<i64: 1, 0, 5, 0, 0>, batch = 1 : i64, c = array<i64: 2, 0, 5, 0, 0>, input_type = "f32", k = 6 : i64, m = 8 : i64, n = 5 : i64, output_type = "f32"}}
// EMIT: // accumulate_l0_gemm: cuBLASLt GEMM 8x5x6, batch 1, f32 to f32, C += A x B
func.func @accumulate(%x: memref<8x8xf32>, %dy: memref<6x5xf32>, %dw: memref<8x5xf32>) {
  %rows = memref.subview %x[2, 0] [6, 8] [1, 1] : memref<8x8xf32> to memref<6x8xf32, strided<[8, 1], offset: 16>>
  linalg.matmul indexing_maps = [#mAt, #mB, #mC] ins(%rows, %dy : memref<6x8xf32, strided<[8, 1], offset: 16>>, memref<6x5xf32>) outs(%dw : memref<8x5xf32>)
  return
}

// Attention scores: a batch of 4 products, B one matrix for all (batch
// stride 0), bf16 inputs summed into f32.
// CHECK-LABEL: func.func @batched(
// CHECK: call @nnc_cuda_gemm_bf16_f32({{.*}}) {nnc.cuda_gemm = {a = array<i64: 0, 0, 16, 128, 0>, accumulate = false, b = array<i64: 1, 0, 4, 0, 0>, batch = 4 : i64, c = array<i64: 2, 0, 4, 32, 0>, input_type = "bf16", k = 16 : i64, m = 8 : i64, n = 4 : i64, output_type = "f32"}}
// EMIT: // batched_l0_gemm: cuBLASLt GEMM 8x4x16, batch 4, bf16 to f32, C = A x B
func.func @batched(%q: memref<4x8x16xbf16>, %k: memref<16x4xbf16>, %s: memref<4x8x4xf32>) {
  %cst = arith.constant 0.0 : f32
  linalg.fill ins(%cst : f32) outs(%s : memref<4x8x4xf32>)
  linalg.batch_matmul indexing_maps = [#bA, #bBshared, #bC] ins(%q, %k : memref<4x8x16xbf16>, memref<16x4xbf16>) outs(%s : memref<4x8x4xf32>)
  return
}

// A bias add and ReLU marked by --nnc-cuda-gemm-epilogues, in place on
// the product's output (a 3-D view of the same bytes): the GEMM's epilogue,
// its bias in buffer 1 at 0; the add is gone. A marked add on other bytes
// stays a loop.
// CHECK-LABEL: func.func @epilogue(
// CHECK: call @nnc_cuda_gemm_f32_f32({{.*}}) {nnc.cuda_gemm = {a = array<i64: 0, 0, 32, 0, 0>, accumulate = false, b = array<i64: 2, 0, 32, 0, 1>, batch = 1 : i64, bias = array<i64: 1, 0>, c = array<i64: 3, 256, 16, 0, 0>, epilogue = "bias_relu", input_type = "f32", k = 32 : i64, m = 8 : i64, n = 16 : i64, output_type = "f32"}}
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @epilogue_elsewhere(
// CHECK: call @nnc_cuda_gemm_f32_f32({{.*}}) {nnc.cuda_gemm = {{{[^}]*}}output_type = "f32"}}
// CHECK: linalg.generic
// EMIT: // epilogue_l0_gemm: cuBLASLt GEMM 8x16x32, batch 1, f32 to f32, C = A x B; A a0+0 ld 32 batch stride 0; B a2+0 transposed ld 32 batch stride 0; C a3+256 ld 16 batch stride 0; then bias_relu with bias a1+0
func.func @epilogue(%x: memref<8x32xf32>, %b: memref<16xf32>, %w: memref<16x32xf32>, %arena: memref<4096xi8>) {
  %zero = arith.constant 0.0 : f32
  %c256 = arith.constant 256 : index
  %y3 = memref.view %arena[%c256][] : memref<4096xi8> to memref<2x4x16xf32>
  %y = memref.collapse_shape %y3 [[0, 1], [2]] : memref<2x4x16xf32> into memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<8x16xf32>)
  linalg.matmul indexing_maps = [#mA, #mBt, #mC] ins(%x, %w : memref<8x32xf32>, memref<16x32xf32>) outs(%y : memref<8x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b, %y3 : memref<16xf32>, memref<2x4x16xf32>) outs(%y3 : memref<2x4x16xf32>) attrs = {nnc.epilogue = "bias_relu"} {
  ^bb0(%bv: f32, %cv: f32, %o: f32):
    %s = arith.addf %bv, %cv : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  return
}
func.func @epilogue_elsewhere(%x: memref<8x32xf32>, %b: memref<16xf32>, %w: memref<16x32xf32>, %arena: memref<4096xi8>) {
  %zero = arith.constant 0.0 : f32
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  %y = memref.view %arena[%c256][] : memref<4096xi8> to memref<8x16xf32>
  %z = memref.view %arena[%c1024][] : memref<4096xi8> to memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<8x16xf32>)
  linalg.matmul indexing_maps = [#mA, #mBt, #mC] ins(%x, %w : memref<8x32xf32>, memref<16x32xf32>) outs(%y : memref<8x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%b, %z : memref<16xf32>, memref<8x16xf32>) outs(%z : memref<8x16xf32>) attrs = {nnc.epilogue = "bias"} {
  ^bb0(%bv: f32, %cv: f32, %o: f32):
    %s = arith.addf %bv, %cv : f32
    linalg.yield %s : f32
  }
  return
}

// A fill that is not zero stays, and the product adds to it.
// CHECK-LABEL: func.func @ones(
// CHECK: linalg.fill
// CHECK: call @nnc_cuda_gemm_f32_f32({{.*}}accumulate = true
// EMIT: __global__ void __launch_bounds__(256) ones_l0(
// EMIT: // ones_l1_gemm: cuBLASLt GEMM 4x4x4, batch 1, f32 to f32, C += A x B
func.func @ones(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%c : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// Stay loops: integers; a matrix strided in both dimensions; C sharing
// bytes with A; a dynamic size.
// CHECK-LABEL: func.func @integers(
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @strided(
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @overlap(
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @dynamic(
// CHECK: linalg.matmul
// EMIT-NOT: cuBLASLt GEMM
func.func @integers(%a: memref<4x4xi32>, %b: memref<4x4xi32>, %c: memref<4x4xi32>) {
  linalg.matmul ins(%a, %b : memref<4x4xi32>, memref<4x4xi32>) outs(%c : memref<4x4xi32>)
  return
}
func.func @strided(%a: memref<8x8xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  %sub = memref.subview %a[0, 0] [4, 4] [2, 2] : memref<8x8xf32> to memref<4x4xf32, strided<[16, 2]>>
  linalg.matmul ins(%sub, %b : memref<4x4xf32, strided<[16, 2]>>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}
func.func @overlap(%arena: memref<1024xi8>, %b: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %a = memref.view %arena[%c0][] : memref<1024xi8> to memref<4x4xf32>
  %c = memref.view %arena[%c32][] : memref<1024xi8> to memref<4x4xf32>
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}
// (The emitter takes static shapes only: it skips this one.)
func.func @dynamic(%a: memref<?x4xf32>, %b: memref<4x4xf32>, %c: memref<?x4xf32>) attributes {nnc.cuda_skip} {
  linalg.matmul ins(%a, %b : memref<?x4xf32>, memref<4x4xf32>) outs(%c : memref<?x4xf32>)
  return
}
