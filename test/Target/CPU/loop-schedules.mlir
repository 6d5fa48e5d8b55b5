// RUN: nnc-opt %s --split-input-file --nnc-inference-pipeline | FileCheck %s
// RUN: nnc-opt %s --split-input-file --nnc-convert-to-linalg \
// RUN:   --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=LINALG

// A softmax's loop schedule (nnc.impl; nnc/LoopSchedule.h) reaches the
// loops its four nests become, through fusion and bufferization, in their
// locations. Without one, the size rules decide: the nests are parallel
// over all their dimensions but the innermost (collapsed by OpenMP), the
// small one sequential. The first kernel fills the maxima (64x16, below
// the rules' 32768 iterations: sequential) and reduces the rows into them
// (65536: parallel over the 64 rows, 64 x 16 >= 256 iterations would take
// both, but a nest of two keeps its innermost); the second subtracts and
// exponentiates (parallel over two of three dimensions).
// CHECK-LABEL: llvm.func @rules_k0(
// CHECK: omp.loop_nest ({{%[a-z0-9]+}}) : i64
// CHECK-NOT: omp.loop_nest
// CHECK-LABEL: llvm.func @rules_k1(
// CHECK: omp.loop_nest ({{%[a-z0-9]+}}, {{%[a-z0-9]+}}) : i64 {{.*}} collapse(2)
// CHECK-LABEL: llvm.func @rules(
// LINALG-LABEL: func.func @rules(
// LINALG-NOT: nnc.loops
// LINALG: return
func.func @rules(%x: tensor<64x16x64xf32>) -> tensor<64x16x64xf32> {
  %0 = nnc.softmax %x {axis = 2 : i64} : tensor<64x16x64xf32>
  return %0 : tensor<64x16x64xf32>
}

// -----

// loops_serial: one thread.
// CHECK-LABEL: llvm.func @serial_k0(
// CHECK-NOT: omp.
// CHECK-LABEL: llvm.func @serial(
// LINALG-LABEL: func.func @serial(
// LINALG: linalg.fill {{.*}} loc(fused<{nnc.loops = "loops_serial"}>
func.func @serial(%x: tensor<64x16x64xf32>) -> tensor<64x16x64xf32> {
  %0 = nnc.softmax %x {axis = 2 : i64, nnc.impl = "loops_serial"} : tensor<64x16x64xf32>
  return %0 : tensor<64x16x64xf32>
}

// -----

// loops_outer: parallel over the 64 rows only, every nest, even the fill
// the rules keep sequential.
// CHECK-LABEL: llvm.func @outer_k0(
// CHECK-COUNT-2: omp.loop_nest ({{%[a-z0-9]+}}) : i64
// CHECK-NOT: omp.loop_nest
// CHECK-LABEL: llvm.func @outer_k1(
// CHECK: omp.loop_nest ({{%[a-z0-9]+}}) : i64
// CHECK-NOT: omp.loop_nest
// CHECK-LABEL: llvm.func @outer_k2(
// LINALG-LABEL: func.func @outer(
// LINALG: linalg.fill {{.*}} loc(fused<{nnc.loops = "loops_outer"}>
func.func @outer(%x: tensor<64x16x64xf32>) -> tensor<64x16x64xf32> {
  %0 = nnc.softmax %x {axis = 2 : i64, nnc.impl = "loops_outer"} : tensor<64x16x64xf32>
  return %0 : tensor<64x16x64xf32>
}

// -----

// loops_wide: all but the innermost dimension of every nest, the fill's
// too.
// CHECK-LABEL: llvm.func @wide_k0(
// CHECK-COUNT-2: omp.loop_nest ({{%[a-z0-9]+}}) : i64
// CHECK-NOT: omp.loop_nest
// CHECK-LABEL: llvm.func @wide_k1(
// CHECK: omp.loop_nest ({{%[a-z0-9]+}}, {{%[a-z0-9]+}}) : i64 {{.*}} collapse(2)
// CHECK-LABEL: llvm.func @wide_k2(
func.func @wide(%x: tensor<64x16x64xf32>) -> tensor<64x16x64xf32> {
  %0 = nnc.softmax %x {axis = 2 : i64, nnc.impl = "loops_wide"} : tensor<64x16x64xf32>
  return %0 : tensor<64x16x64xf32>
}

// -----

// A recomputed op (--nnc-remat-budget's mark in its location's metadata)
// keeps its mark beside the schedule.
// LINALG-LABEL: func.func @remat(
// LINALG: linalg.fill {nnc.recompute = 1 : i64} {{.*}} loc(fused<{nnc.loops = "loops_wide", nnc.recompute = 1 : i64}>["here"])
func.func @remat(%x: tensor<64x16x64xf32>) -> tensor<64x16x64xf32> {
  %0 = nnc.softmax %x {axis = 2 : i64, nnc.impl = "loops_wide"} : tensor<64x16x64xf32> loc(fused<{nnc.recompute = 1 : i64}>["here"])
  return %0 : tensor<64x16x64xf32>
}

// -----

// Threads and lanes (--nnc-cpu-loop-hints): every parallel region of the
// softmax runs on 2 threads, and every innermost loop (the rows' 64
// values) asks LLVM's loop vectorizer for 16 lanes. Nothing else is
// marked: the loops around the rows and other kernels keep theirs.
// CHECK: #llvm.loop_vectorize<disable = false, width = 16 : i32>
// CHECK-LABEL: llvm.func @hints_k0(
// CHECK: omp.parallel num_threads(%{{.*}} : i32)
// CHECK: llvm.br ^{{.*}} {loop_annotation = #[[HINT:loop_annotation[0-9]*]]}
// CHECK-LABEL: llvm.func @hints_k1(
// CHECK: llvm.mlir.constant(2 : i32) : i32
// CHECK: omp.parallel num_threads(%{{.*}} : i32)
// CHECK: llvm.br ^{{.*}} {loop_annotation = #[[HINT]]}
// CHECK-LABEL: llvm.func @hints(
// LINALG-LABEL: func.func @hints(
// LINALG: linalg.fill {{.*}} loc(fused<{nnc.loops = "loops_wide.t2.v16"}>
func.func @hints(%x: tensor<64x16x64xf32>) -> tensor<64x16x64xf32> {
  %0 = nnc.softmax %x {axis = 2 : i64, nnc.impl = "loops_wide.t2.v16"} : tensor<64x16x64xf32>
  return %0 : tensor<64x16x64xf32>
}

// -----

// Lanes alone leave the parallel loops and their threads to the rules; a
// width of 1 turns vectorizing off.
// CHECK: #llvm.loop_vectorize<disable = true>
// CHECK-LABEL: llvm.func @scalar_k0(
// CHECK-NOT: num_threads
// CHECK: llvm.br ^{{.*}} {loop_annotation = #[[OFF:loop_annotation[0-9]*]]}
// CHECK-LABEL: llvm.func @scalar(
func.func @scalar(%x: tensor<64x16x64xf32>) -> tensor<64x16x64xf32> {
  %0 = nnc.softmax %x {axis = 2 : i64, nnc.impl = "loops.v1"} : tensor<64x16x64xf32>
  return %0 : tensor<64x16x64xf32>
}
