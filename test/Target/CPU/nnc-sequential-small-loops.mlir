// RUN: nnc-opt %s --split-input-file --nnc-sequential-small-loops="min-iterations=1024" | FileCheck %s
// RUN: nnc-opt %s --split-input-file --nnc-sequential-small-loops="min-iterations=1024 parallel-in-loops=1" | FileCheck %s --check-prefix=PAR

// 16 x 8 iterations: sequential.
// CHECK-LABEL: func @small
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.store
func.func @small(%m: memref<16x8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c8) step (%c1, %c1) {
    memref.store %v, %m[%i, %j] : memref<16x8xf32>
    scf.reduce
  }
  return
}

// -----

// 16 parallel iterations around a 128-iteration loop: 2048 >= 1024, parallel.
// CHECK-LABEL: func @nested_work
// CHECK: scf.parallel
// CHECK: scf.for
func.func @nested_work(%m: memref<16x128xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    scf.for %k = %c0 to %c128 step %c1 {
      memref.store %v, %m[%i, %k] : memref<16x128xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Dynamic bounds: unknown work, parallel.
// CHECK-LABEL: func @dynamic
// CHECK: scf.parallel
func.func @dynamic(%m: memref<?xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %v, %m[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// A large loop nest inside a sequential loop that also calls a library (a
// convolution's loop over the images, one GEMM per image) runs
// sequentially too, unless parallel-in-loops is set.
// CHECK-LABEL: func @in_loop_with_call
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: call @gemm
// PAR-LABEL: func @in_loop_with_call
// PAR: scf.for
// PAR: scf.parallel
func.func private @gemm(memref<4x64x64xf32>)
func.func @in_loop_with_call(%m: memref<4x64x64xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  scf.for %n = %c0 to %c4 step %c1 {
    scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
      memref.store %v, %m[%n, %i, %j] : memref<4x64x64xf32>
      scf.reduce
    }
    func.call @gemm(%m) : (memref<4x64x64xf32>) -> ()
  }
  return
}

// -----

// Without a call in the loop around it (max-pool's gradient walks the
// window positions in an scf.for), a large nest stays parallel; a small
// one still becomes sequential.
// CHECK-LABEL: func @in_loop_without_call
// CHECK: scf.for
// CHECK-NEXT: scf.parallel
// CHECK: scf.for
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: scf.for
func.func @in_loop_without_call(%m: memref<4x64x64xf32>, %s: memref<4x8x8xf32>,
                                %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.for %n = %c0 to %c4 step %c1 {
    scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
      memref.store %v, %m[%n, %i, %j] : memref<4x64x64xf32>
      scf.reduce
    }
  }
  scf.for %n = %c0 to %c4 step %c1 {
    scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
      memref.store %v, %s[%n, %i, %j] : memref<4x8x8xf32>
      scf.reduce
    }
  }
  return
}

// -----

// A loop schedule in the loop's location (nnc/LoopSchedule.h) decides
// alone: loops_serial makes 65536 iterations sequential, loops_outer and
// loops_wide keep 16 parallel.
// CHECK-LABEL: func @schedules
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.store
// CHECK: scf.parallel
// CHECK: scf.parallel
// PAR-LABEL: func @schedules
// PAR: scf.for
// PAR: scf.parallel
// PAR: scf.parallel
func.func @schedules(%big: memref<256x256xf32>, %small: memref<16xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c256, %c256) step (%c1, %c1) {
    memref.store %v, %big[%i, %j] : memref<256x256xf32>
    scf.reduce
  } loc(fused<{nnc.loops = "loops_serial"}>["serial"])
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    memref.store %v, %small[%i] : memref<16xf32>
    scf.reduce
  } loc(fused<{nnc.loops = "loops_outer"}>["outer"])
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    memref.store %v, %small[%i] : memref<16xf32>
    scf.reduce
  } loc(fused<{nnc.loops = "loops_wide"}>["wide"])
  return
}

// -----

// A parallel loop inside another (a sum over a middle dimension: parallel
// outer dimensions, the reduction, a parallel inner one) runs
// sequentially: OpenMP would open a region per iteration and run it on one
// thread. The outer loop, with enough work, stays parallel.
// CHECK-LABEL: func @nested
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) =
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.load
// PAR-LABEL: func @nested
// PAR: scf.parallel
// PAR-NOT: scf.parallel
// PAR: memref.load
func.func @nested(%x: memref<8x16x16x32xf32>, %y: memref<8x16x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c16) step (%c1, %c1) {
    scf.for %k = %c0 to %c16 step %c1 {
      scf.parallel (%l) = (%c0) to (%c32) step (%c1) {
        %a = memref.load %x[%i, %j, %k, %l] : memref<8x16x16x32xf32>
        %b = memref.load %y[%i, %j, %l] : memref<8x16x32xf32>
        %s = arith.addf %a, %b : f32
        memref.store %s, %y[%i, %j, %l] : memref<8x16x32xf32>
        scf.reduce
      }
    }
    scf.reduce
  }
  return
}
