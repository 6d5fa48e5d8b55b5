// RUN: nnc-opt %s --split-input-file --nnc-cpu-collectives --verify-diagnostics | FileCheck %s

// On buffers: a call into the runtime with both addresses, the element
// count and the runtime's dtype code (its row in DTypes.def: f32 0, bf16
// 2); what it moves is the step's figure.
// CHECK-DAG: func.func private @nnc_runtime_all_reduce(!llvm.ptr, !llvm.ptr, i64, i32)
// CHECK-LABEL: func.func @buffers
// CHECK-DAG: %[[N:.*]] = arith.constant 32 : i64
// CHECK-DAG: %[[T:.*]] = arith.constant 0 : i32
// CHECK: call @nnc_runtime_all_reduce(%{{.*}}, %{{.*}}, %[[N]], %[[T]]) {nnc.library_bytes = array<i64: 128, 128>}
// CHECK: %[[N2:.*]] = arith.constant 3 : i64
// CHECK: %[[T2:.*]] = arith.constant 2 : i32
// CHECK: call @nnc_runtime_all_reduce(%{{.*}}, %{{.*}}, %[[N2]], %[[T2]]) {nnc.library_bytes = array<i64: 6, 6>}
// CHECK-NOT: nnc.library_all_reduce
func.func @buffers(%x: memref<2x16xf32>, %y: memref<2x16xf32>, %h: memref<3xbf16>) {
  nnc.library_all_reduce ins(%x : memref<2x16xf32>) outs(%y : memref<2x16xf32>)
  nnc.library_all_reduce ins(%h : memref<3xbf16>) outs(%h : memref<3xbf16>)
  return
}

// -----

// A strided output is reduced in a dense temporary and copied back.
// CHECK-LABEL: func.func @strided
// CHECK: %[[T:.*]] = memref.alloc() : memref<2x2xf32>
// CHECK: call @nnc_runtime_all_reduce
// CHECK: linalg.copy ins(%[[T]] : memref<2x2xf32>) outs(%{{.*}} : memref<2x2xf32, strided<[4, 2]>>)
func.func @strided(%x: memref<2x2xf32>, %y: memref<2x2xf32, strided<[4, 2]>>) {
  nnc.library_all_reduce ins(%x : memref<2x2xf32>) outs(%y : memref<2x2xf32, strided<[4, 2]>>)
  return
}

// -----

func.func @tensors(%x: tensor<4xf32>, %e: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{must be bufferized before --nnc-cpu-collectives}}
  %r = nnc.library_all_reduce ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
