// RUN: nnc-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(nnc-parallel-outer-dims{min-parallel-iterations=256}))" | FileCheck %s

// 8 x 128 >= 256: the two outer dimensions stay parallel, the innermost
// runs as a loop with the body, indices in their order.
// CHECK-LABEL: func @three_dims
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%c0, %c0) to (%c8, %c128)
// CHECK-NEXT: scf.for %[[K:.*]] = %c0 to %c1024 step %c1 {
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]], %[[K]]]
// CHECK-NEXT: }
// CHECK-NEXT: scf.reduce
func.func @three_dims(%m: memref<8x128x1024xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c8, %c128, %c1024)
      step (%c1, %c1, %c1) {
    memref.store %v, %m[%i, %j, %k] : memref<8x128x1024xf32>
    scf.reduce
  }
  return
}

// -----

// 512 iterations in the first dimension already: the other two loop.
// CHECK-LABEL: func @first_enough
// CHECK: scf.parallel (%[[I:.*]]) = (%c0) to (%c512)
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %c4
// CHECK-NEXT: scf.for %[[K:.*]] = %c0 to %c6
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]], %[[K]]]
func.func @first_enough(%m: memref<512x4x6xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c512 = arith.constant 512 : index
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c512, %c4, %c6)
      step (%c1, %c1, %c1) {
    memref.store %v, %m[%i, %j, %k] : memref<512x4x6xf32>
    scf.reduce
  }
  return
}

// -----

// 2 x 3 < 256, but the innermost dimension never joins them: it is the
// one that vectorizes.
// CHECK-LABEL: func @never_the_last
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%c2, %c3)
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c100000
func.func @never_the_last(%m: memref<2x3x100000xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c100000 = arith.constant 100000 : index
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c2, %c3, %c100000)
      step (%c1, %c1, %c1) {
    memref.store %v, %m[%i, %j, %k] : memref<2x3x100000xf32>
    scf.reduce
  }
  return
}

// -----

// A dynamic first dimension counts as large; steps and lower bounds carry
// over to the loops.
// CHECK-LABEL: func @dynamic
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%{{.*}}) step (%c1)
// CHECK-NEXT: scf.for %{{.*}} = %c1 to %c64 step %c2
func.func @dynamic(%m: memref<?x64xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %m, %c0 : memref<?x64xf32>
  scf.parallel (%i, %j) = (%c0, %c1) to (%n, %c64) step (%c1, %c2) {
    memref.store %v, %m[%i, %j] : memref<?x64xf32>
    scf.reduce
  }
  return
}

// -----

// Left alone: one dimension, a nest with a reduction, and a nest inside
// another scf.parallel.
// CHECK-LABEL: func @unchanged
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c1024)
// CHECK-NOT: scf.for
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%c8, %c8)
// CHECK: scf.reduce(%{{.*}} : f32)
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c8)
// CHECK-NEXT: scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%c8, %c8)
func.func @unchanged(%a: memref<1024xf32>, %b: memref<8x8xf32>,
                     %c: memref<8x8x8xf32>, %v: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c1024) step (%c1) {
    memref.store %v, %a[%i] : memref<1024xf32>
    scf.reduce
  }
  %sum = scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1)
      init (%zero) -> f32 {
    %x = memref.load %b[%i, %j] : memref<8x8xf32>
    scf.reduce(%x : f32) {
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      scf.reduce.return %s : f32
    }
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.parallel (%j, %k) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
      memref.store %v, %c[%i, %j, %k] : memref<8x8x8xf32>
      scf.reduce
    }
    scf.reduce
  }
  return %sum : f32
}

// -----

// A loop schedule in the nest's location (nnc/LoopSchedule.h) decides the
// dimensions kept parallel: the outermost alone for loops_outer (where the
// rule keeps two, 8 x 128 >= 256), all but the innermost for loops_wide;
// one without a schedule's mark (another key) follows the rule.
// CHECK-LABEL: func @schedules
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}, %{{.*}}) to
// CHECK-NEXT: scf.for
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.store
func.func @schedules(%m: memref<8x128x4x64xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.parallel (%i, %j, %k, %l) = (%c0, %c0, %c0, %c0) to (%c8, %c128, %c4, %c64) step (%c1, %c1, %c1, %c1) {
    memref.store %v, %m[%i, %j, %k, %l] : memref<8x128x4x64xf32>
    scf.reduce
  } loc(fused<{nnc.loops = "loops_outer"}>["outer"])
  scf.parallel (%i, %j, %k, %l) = (%c0, %c0, %c0, %c0) to (%c8, %c128, %c4, %c64) step (%c1, %c1, %c1, %c1) {
    memref.store %v, %m[%i, %j, %k, %l] : memref<8x128x4x64xf32>
    scf.reduce
  } loc(fused<{nnc.loops = "loops_wide"}>["wide"])
  scf.parallel (%i, %j, %k, %l) = (%c0, %c0, %c0, %c0) to (%c8, %c128, %c4, %c64) step (%c1, %c1, %c1, %c1) {
    memref.store %v, %m[%i, %j, %k, %l] : memref<8x128x4x64xf32>
    scf.reduce
  } loc(fused<{other = "loops_outer"}>["rule"])
  return
}
