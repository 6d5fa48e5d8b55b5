// RUN: nnc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(nnc-plan-memory))' | FileCheck %s
// RUN: nnc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(nnc-plan-memory{in-place=false}))' | FileCheck %s --check-prefix=NOIP
// RUN: nnc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(nnc-plan-memory{alignment=16}))' | FileCheck %s --check-prefix=A16
// RUN: not nnc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(nnc-plan-memory{alignment=48}))' 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: alignment must be a power of two, not 48

// Lifetimes that do not overlap share offset 0: %a dies at the second exp,
// before %b is first written. The arena is a new last argument marked
// nnc.arena and its size is on the function.
// CHECK-LABEL: func.func @reuse
// CHECK-SAME: (%[[X:.*]]: memref<256xf32>, %[[OUT:.*]]: memref<256xf32>, %[[ARENA:[a-z0-9_]+]]: memref<1024xi8> {nnc.arena})
// CHECK-SAME: attributes {nnc.arena_size = 1024 : i64}
// CHECK-NOT: memref.alloc
// CHECK: %[[O1:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.view %[[ARENA]][%[[O1]]][] : memref<1024xi8> to memref<256xf32>
// CHECK: linalg.exp ins(%[[X]] : memref<256xf32>) outs(%[[A]] : memref<256xf32>)
// CHECK: linalg.exp ins(%[[A]] : memref<256xf32>) outs(%[[OUT]] : memref<256xf32>)
// CHECK: %[[O2:.*]] = arith.constant 0 : index
// CHECK: %[[B:.*]] = memref.view %[[ARENA]][%[[O2]]][] : memref<1024xi8> to memref<256xf32>
// CHECK: linalg.exp ins(%[[X]] : memref<256xf32>) outs(%[[B]] : memref<256xf32>)
// CHECK: linalg.exp ins(%[[B]] : memref<256xf32>) outs(%[[OUT]] : memref<256xf32>)
// CHECK-NOT: memref.alloc
func.func @reuse(%x: memref<256xf32>, %out: memref<256xf32>) {
  %a = memref.alloc() : memref<256xf32>
  linalg.exp ins(%x : memref<256xf32>) outs(%a : memref<256xf32>)
  linalg.exp ins(%a : memref<256xf32>) outs(%out : memref<256xf32>)
  %b = memref.alloc() : memref<256xf32>
  linalg.exp ins(%x : memref<256xf32>) outs(%b : memref<256xf32>)
  linalg.exp ins(%b : memref<256xf32>) outs(%out : memref<256xf32>)
  return
}

// -----

// Overlapping lifetimes get disjoint ranges: 0 and 1024, arena 2048.
// CHECK-LABEL: func.func @overlap
// CHECK-SAME: %[[ARENA:[a-z0-9_]+]]: memref<2048xi8> {nnc.arena}
// CHECK-SAME: attributes {nnc.arena_size = 2048 : i64}
// CHECK: %[[O1:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.view %[[ARENA]][%[[O1]]][]
// CHECK: %[[O2:.*]] = arith.constant 1024 : index
// CHECK: %[[B:.*]] = memref.view %[[ARENA]][%[[O2]]][]
// CHECK: linalg.add ins(%[[A]], %[[B]] : memref<256xf32>, memref<256xf32>)
func.func @overlap(%x: memref<256xf32>, %out: memref<256xf32>) {
  %a = memref.alloc() : memref<256xf32>
  %b = memref.alloc() : memref<256xf32>
  linalg.exp ins(%x : memref<256xf32>) outs(%a : memref<256xf32>)
  linalg.exp ins(%x : memref<256xf32>) outs(%b : memref<256xf32>)
  linalg.add ins(%a, %b : memref<256xf32>, memref<256xf32>) outs(%out : memref<256xf32>)
  return
}

// -----

// Greedy by size, best fit. Placed largest first: %b1 (2048 B) at 0, %f1
// (1024 B) at 2048, %b2 (512 B) at 3072, %f2 (256 B) at 3584, %b3 (128 B)
// at 3840. %z (64 B) lives only after %f1 and %f2 died, so the gaps around
// the live %b1, %b2, %b3 are [2048, 3072) (1024 B, first) and [3584, 3840)
// (256 B, smallest): best fit puts %z at 3584, not first fit's 2048.
// CHECK-LABEL: func.func @best_fit
// CHECK-SAME: (%[[ARENA:[a-z0-9_]+]]: memref<3968xi8> {nnc.arena})
// CHECK-SAME: attributes {nnc.arena_size = 3968 : i64}
// CHECK: %[[O1:.*]] = arith.constant 0 : index
// CHECK: %[[B1:.*]] = memref.view %[[ARENA]][%[[O1]]][] : memref<3968xi8> to memref<512xf32>
// CHECK: %[[O2:.*]] = arith.constant 2048 : index
// CHECK: %[[F1:.*]] = memref.view %[[ARENA]][%[[O2]]][] : memref<3968xi8> to memref<256xf32>
// CHECK: %[[O3:.*]] = arith.constant 3072 : index
// CHECK: %[[B2:.*]] = memref.view %[[ARENA]][%[[O3]]][] : memref<3968xi8> to memref<128xf32>
// CHECK: %[[O4:.*]] = arith.constant 3584 : index
// CHECK: %[[F2:.*]] = memref.view %[[ARENA]][%[[O4]]][] : memref<3968xi8> to memref<64xf32>
// CHECK: %[[O5:.*]] = arith.constant 3840 : index
// CHECK: %[[B3:.*]] = memref.view %[[ARENA]][%[[O5]]][] : memref<3968xi8> to memref<32xf32>
// CHECK: %[[O6:.*]] = arith.constant 3584 : index
// CHECK: %[[Z:.*]] = memref.view %[[ARENA]][%[[O6]]][] : memref<3968xi8> to memref<16xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[Z]] : memref<16xf32>)
func.func @best_fit() {
  %cst = arith.constant 0.0 : f32
  %b1 = memref.alloc() : memref<512xf32>
  %f1 = memref.alloc() : memref<256xf32>
  %b2 = memref.alloc() : memref<128xf32>
  %f2 = memref.alloc() : memref<64xf32>
  %b3 = memref.alloc() : memref<32xf32>
  %z = memref.alloc() : memref<16xf32>
  linalg.fill ins(%cst : f32) outs(%b1 : memref<512xf32>)
  linalg.fill ins(%cst : f32) outs(%b2 : memref<128xf32>)
  linalg.fill ins(%cst : f32) outs(%b3 : memref<32xf32>)
  linalg.fill ins(%cst : f32) outs(%f1 : memref<256xf32>)
  linalg.fill ins(%cst : f32) outs(%f2 : memref<64xf32>)
  linalg.fill ins(%cst : f32) outs(%f1 : memref<256xf32>)
  linalg.fill ins(%cst : f32) outs(%f2 : memref<64xf32>)
  linalg.fill ins(%cst : f32) outs(%z : memref<16xf32>)
  linalg.fill ins(%cst : f32) outs(%b1 : memref<512xf32>)
  linalg.fill ins(%cst : f32) outs(%b2 : memref<128xf32>)
  linalg.fill ins(%cst : f32) outs(%b3 : memref<32xf32>)
  return
}

// -----

// Offsets are aligned to 64 bytes (16 with alignment=16), the arena size
// too: %b (20 B) at 0, %a (3 B) at 64, 67 B rounded up to 128 (32 and 48).
// CHECK-LABEL: func.func @odd_sizes
// CHECK-SAME: %[[ARENA:[a-z0-9_]+]]: memref<128xi8> {nnc.arena}
// CHECK-SAME: attributes {nnc.arena_size = 128 : i64}
// CHECK: %[[O1:.*]] = arith.constant 64 : index
// CHECK: memref.view %[[ARENA]][%[[O1]]][] : memref<128xi8> to memref<3xi8>
// CHECK: %[[O2:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[ARENA]][%[[O2]]][] : memref<128xi8> to memref<5xf32>
// A16-LABEL: func.func @odd_sizes
// A16-SAME: %[[ARENA:[a-z0-9_]+]]: memref<48xi8> {nnc.arena}
// A16-SAME: attributes {nnc.arena_size = 48 : i64}
// A16: %[[O1:.*]] = arith.constant 32 : index
// A16: memref.view %[[ARENA]][%[[O1]]][] : memref<48xi8> to memref<3xi8>
// A16: %[[O2:.*]] = arith.constant 0 : index
// A16: memref.view %[[ARENA]][%[[O2]]][] : memref<48xi8> to memref<5xf32>
func.func @odd_sizes(%out: memref<5xf32>, %out8: memref<3xi8>) {
  %a = memref.alloc() : memref<3xi8>
  %b = memref.alloc() : memref<5xf32>
  %c1 = arith.constant 1 : i8
  %cst = arith.constant 1.0 : f32
  linalg.fill ins(%c1 : i8) outs(%a : memref<3xi8>)
  linalg.fill ins(%cst : f32) outs(%b : memref<5xf32>)
  memref.copy %a, %out8 : memref<3xi8> to memref<3xi8>
  memref.copy %b, %out : memref<5xf32> to memref<5xf32>
  return
}

// -----

// In place: %b starts its life at the negf that reads %a for the last
// time, with the same type and indexing map, so it takes %a's offset (the
// lifetimes overlap at that op). Without in-place it gets its own range.
// CHECK-LABEL: func.func @in_place
// CHECK-SAME: %[[ARENA:[a-z0-9_]+]]: memref<1024xi8> {nnc.arena}
// CHECK-SAME: attributes {nnc.arena_size = 1024 : i64}
// CHECK: %[[O1:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.view %[[ARENA]][%[[O1]]][]
// CHECK: linalg.exp ins(%{{.*}} : memref<256xf32>) outs(%[[A]] : memref<256xf32>)
// CHECK: %[[O2:.*]] = arith.constant 0 : index
// CHECK: %[[B:.*]] = memref.view %[[ARENA]][%[[O2]]][]
// CHECK: linalg.negf ins(%[[A]] : memref<256xf32>) outs(%[[B]] : memref<256xf32>)
// NOIP-LABEL: func.func @in_place
// NOIP-SAME: %[[ARENA:[a-z0-9_]+]]: memref<2048xi8> {nnc.arena}
// NOIP-SAME: attributes {nnc.arena_size = 2048 : i64}
// NOIP: %[[O1:.*]] = arith.constant 0 : index
// NOIP: %[[A:.*]] = memref.view %[[ARENA]][%[[O1]]][]
// NOIP: %[[O2:.*]] = arith.constant 1024 : index
// NOIP: %[[B:.*]] = memref.view %[[ARENA]][%[[O2]]][]
// NOIP: linalg.negf ins(%[[A]] : memref<256xf32>) outs(%[[B]] : memref<256xf32>)
func.func @in_place(%x: memref<256xf32>, %out: memref<256xf32>) {
  %a = memref.alloc() : memref<256xf32>
  linalg.exp ins(%x : memref<256xf32>) outs(%a : memref<256xf32>)
  %b = memref.alloc() : memref<256xf32>
  linalg.negf ins(%a : memref<256xf32>) outs(%b : memref<256xf32>)
  linalg.exp ins(%b : memref<256xf32>) outs(%out : memref<256xf32>)
  return
}

// -----

// In place along a chain: %b over %a, then %c over %b; one 1024-byte slot.
// CHECK-LABEL: func.func @in_place_chain
// CHECK-SAME: attributes {nnc.arena_size = 1024 : i64}
// CHECK-COUNT-3: arith.constant 0 : index
// CHECK-NOT: arith.constant {{[1-9][0-9]*}} : index
// CHECK: return
func.func @in_place_chain(%x: memref<256xf32>, %out: memref<256xf32>) {
  %a = memref.alloc() : memref<256xf32>
  linalg.exp ins(%x : memref<256xf32>) outs(%a : memref<256xf32>)
  %b = memref.alloc() : memref<256xf32>
  linalg.negf ins(%a : memref<256xf32>) outs(%b : memref<256xf32>)
  %c = memref.alloc() : memref<256xf32>
  linalg.exp ins(%b : memref<256xf32>) outs(%c : memref<256xf32>)
  linalg.copy ins(%c : memref<256xf32>) outs(%out : memref<256xf32>)
  return
}

// -----

// Not in place: %b's life starts before the negf (it is filled first), so
// it holds data while %a is still live.
// CHECK-LABEL: func.func @in_place_result_live_before
// CHECK-SAME: attributes {nnc.arena_size = 2048 : i64}
// CHECK: %[[O1:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.view %{{.*}}[%[[O1]]][]
// CHECK: %[[O2:.*]] = arith.constant 1024 : index
// CHECK: %[[B:.*]] = memref.view %{{.*}}[%[[O2]]][]
func.func @in_place_result_live_before(%x: memref<256xf32>, %out: memref<256xf32>) {
  %cst = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<256xf32>
  %b = memref.alloc() : memref<256xf32>
  linalg.fill ins(%cst : f32) outs(%b : memref<256xf32>)
  linalg.exp ins(%x : memref<256xf32>) outs(%a : memref<256xf32>)
  linalg.negf ins(%a : memref<256xf32>) outs(%b : memref<256xf32>)
  linalg.exp ins(%b : memref<256xf32>) outs(%out : memref<256xf32>)
  return
}

// -----

// Not in place: %a is read again after the negf.
// CHECK-LABEL: func.func @in_place_input_live
// CHECK-SAME: attributes {nnc.arena_size = 2048 : i64}
// CHECK: arith.constant 0 : index
// CHECK: %[[O2:.*]] = arith.constant 1024 : index
// CHECK: %[[B:.*]] = memref.view %{{.*}}[%[[O2]]][]
// CHECK: linalg.negf ins(%{{.*}} : memref<256xf32>) outs(%[[B]] : memref<256xf32>)
func.func @in_place_input_live(%x: memref<256xf32>, %out: memref<256xf32>) {
  %a = memref.alloc() : memref<256xf32>
  linalg.exp ins(%x : memref<256xf32>) outs(%a : memref<256xf32>)
  %b = memref.alloc() : memref<256xf32>
  linalg.negf ins(%a : memref<256xf32>) outs(%b : memref<256xf32>)
  linalg.add ins(%a, %b : memref<256xf32>, memref<256xf32>) outs(%out : memref<256xf32>)
  return
}

// -----

// Not in place: the input is read through a transposed indexing map, so
// writing element (i, j) would clobber the input element (j, i) read later.
// CHECK-LABEL: func.func @in_place_other_map
// CHECK-SAME: attributes {nnc.arena_size = 2048 : i64}
// CHECK: %[[O1:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.view %{{.*}}[%[[O1]]][]
// CHECK: %[[O2:.*]] = arith.constant 1024 : index
// CHECK: %[[B:.*]] = memref.view %{{.*}}[%[[O2]]][]
// CHECK: linalg.generic {{.*}} ins(%[[A]] : memref<16x16xf32>) outs(%[[B]] : memref<16x16xf32>)
func.func @in_place_other_map(%x: memref<16x16xf32>, %out: memref<16x16xf32>) {
  %a = memref.alloc() : memref<16x16xf32>
  linalg.exp ins(%x : memref<16x16xf32>) outs(%a : memref<16x16xf32>)
  %b = memref.alloc() : memref<16x16xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<16x16xf32>) outs(%b : memref<16x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  linalg.exp ins(%b : memref<16x16xf32>) outs(%out : memref<16x16xf32>)
  return
}

// -----

// Not in place: the result type (i32) differs from the input's (f32).
// CHECK-LABEL: func.func @in_place_other_type
// CHECK-SAME: attributes {nnc.arena_size = 2048 : i64}
// CHECK: %[[O1:.*]] = arith.constant 0 : index
// CHECK: memref.view %{{.*}}[%[[O1]]][] : memref<2048xi8> to memref<256xf32>
// CHECK: %[[O2:.*]] = arith.constant 1024 : index
// CHECK: memref.view %{{.*}}[%[[O2]]][] : memref<2048xi8> to memref<256xi32>
func.func @in_place_other_type(%x: memref<256xf32>, %out: memref<256xi32>) {
  %a = memref.alloc() : memref<256xf32>
  linalg.exp ins(%x : memref<256xf32>) outs(%a : memref<256xf32>)
  %b = memref.alloc() : memref<256xi32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%a : memref<256xf32>) outs(%b : memref<256xi32>) {
  ^bb0(%in: f32, %o: i32):
    %n = arith.fptosi %in : f32 to i32
    linalg.yield %n : i32
  }
  linalg.copy ins(%b : memref<256xi32>) outs(%out : memref<256xi32>)
  return
}

// -----

// Not in place: a reduction (over d1), even though %a and %b have the same
// type and indexing map.
// CHECK-LABEL: func.func @in_place_reduction
// CHECK-SAME: attributes {nnc.arena_size = 128 : i64}
// CHECK: %[[O1:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.view %{{.*}}[%[[O1]]][]
// CHECK: %[[O2:.*]] = arith.constant 64 : index
// CHECK: %[[B:.*]] = memref.view %{{.*}}[%[[O2]]][]
// CHECK: linalg.generic {{.*}} ins(%[[A]], %{{.*}} : memref<16xf32>, memref<16x8xf32>) outs(%[[B]] : memref<16xf32>)
func.func @in_place_reduction(%x: memref<16xf32>, %m: memref<16x8xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  linalg.exp ins(%x : memref<16xf32>) outs(%a : memref<16xf32>)
  %b = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a, %m : memref<16xf32>, memref<16x8xf32>) outs(%b : memref<16xf32>) {
  ^bb0(%in: f32, %w: f32, %acc: f32):
    %p = arith.mulf %in, %w : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  }
  linalg.exp ins(%b : memref<16xf32>) outs(%out : memref<16xf32>)
  return
}

// -----

// Not in place: the op reads %a through a second operand as well.
// CHECK-LABEL: func.func @in_place_read_twice
// CHECK-SAME: attributes {nnc.arena_size = 2048 : i64}
// CHECK: %[[O2:.*]] = arith.constant 1024 : index
// CHECK: %[[B:.*]] = memref.view %{{.*}}[%[[O2]]][]
// CHECK: linalg.add ins(%[[A:.*]], %[[A]] : memref<256xf32>, memref<256xf32>) outs(%[[B]] : memref<256xf32>)
func.func @in_place_read_twice(%x: memref<256xf32>, %out: memref<256xf32>) {
  %a = memref.alloc() : memref<256xf32>
  linalg.exp ins(%x : memref<256xf32>) outs(%a : memref<256xf32>)
  %b = memref.alloc() : memref<256xf32>
  linalg.add ins(%a, %a : memref<256xf32>, memref<256xf32>) outs(%b : memref<256xf32>)
  linalg.exp ins(%b : memref<256xf32>) outs(%out : memref<256xf32>)
  return
}

// -----

// A use of a view (expand_shape) keeps the buffer alive: %a lives until
// the copy out of %v, past all of %b's life, so they do not share.
// CHECK-LABEL: func.func @view_expand_shape
// CHECK-SAME: attributes {nnc.arena_size = 2048 : i64}
// CHECK: %[[O1:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.view %{{.*}}[%[[O1]]][]
// CHECK: %[[O2:.*]] = arith.constant 1024 : index
// CHECK: %[[B:.*]] = memref.view %{{.*}}[%[[O2]]][]
// CHECK: memref.expand_shape %[[A]]
func.func @view_expand_shape(%out: memref<256xf32>, %out2: memref<16x16xf32>) {
  %cst = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<256xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<256xf32>)
  %b = memref.alloc() : memref<256xf32>
  linalg.fill ins(%cst : f32) outs(%b : memref<256xf32>)
  linalg.copy ins(%b : memref<256xf32>) outs(%out : memref<256xf32>)
  %v = memref.expand_shape %a [[0, 1]] output_shape [16, 16] : memref<256xf32> into memref<16x16xf32>
  linalg.copy ins(%v : memref<16x16xf32>) outs(%out2 : memref<16x16xf32>)
  return
}

// -----

// The same through memref.reshape, defined before %b is written and used
// after %b dies.
// CHECK-LABEL: func.func @view_reshape
// CHECK-SAME: attributes {nnc.arena_size = 2048 : i64}
// CHECK: %[[O1:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.view %{{.*}}[%[[O1]]][]
// CHECK: memref.reshape %[[A]]
// CHECK: %[[O2:.*]] = arith.constant 1024 : index
// CHECK: %[[B:.*]] = memref.view %{{.*}}[%[[O2]]][]
func.func @view_reshape(%shape: memref<2xi64>, %out: memref<256xf32>, %out2: memref<16x16xf32>) {
  %cst = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<256xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<256xf32>)
  %v = memref.reshape %a(%shape) : (memref<256xf32>, memref<2xi64>) -> memref<16x16xf32>
  %b = memref.alloc() : memref<256xf32>
  linalg.fill ins(%cst : f32) outs(%b : memref<256xf32>)
  linalg.copy ins(%b : memref<256xf32>) outs(%out : memref<256xf32>)
  linalg.copy ins(%v : memref<16x16xf32>) outs(%out2 : memref<16x16xf32>)
  return
}

// -----

// The same through a subview.
// CHECK-LABEL: func.func @view_subview
// CHECK-SAME: attributes {nnc.arena_size = 2048 : i64}
// CHECK: %[[O1:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.view %{{.*}}[%[[O1]]][]
// CHECK: %[[O2:.*]] = arith.constant 1024 : index
// CHECK: %[[B:.*]] = memref.view %{{.*}}[%[[O2]]][]
// CHECK: memref.subview %[[A]][0] [128] [1]
func.func @view_subview(%out: memref<256xf32>, %out2: memref<128xf32>) {
  %cst = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<256xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<256xf32>)
  %b = memref.alloc() : memref<256xf32>
  linalg.fill ins(%cst : f32) outs(%b : memref<256xf32>)
  linalg.copy ins(%b : memref<256xf32>) outs(%out : memref<256xf32>)
  %v = memref.subview %a[0] [128] [1] : memref<256xf32> to memref<128xf32, strided<[1]>>
  linalg.copy ins(%v : memref<128xf32, strided<[1]>>) outs(%out2 : memref<128xf32>)
  return
}

// -----

// A returned buffer escapes and stays an allocation; the other one is
// planned and its dealloc goes away.
// CHECK-LABEL: func.func @escapes
// CHECK-SAME: %[[ARENA:[a-z0-9_]+]]: memref<1024xi8> {nnc.arena}) -> memref<256xf32>
// CHECK-SAME: attributes {nnc.arena_size = 1024 : i64}
// CHECK-DAG: %[[R:.*]] = memref.alloc() : memref<256xf32>
// CHECK-DAG: %[[T:.*]] = memref.view %[[ARENA]]
// CHECK: linalg.exp ins(%[[T]] : memref<256xf32>) outs(%[[R]] : memref<256xf32>)
// CHECK-NOT: memref.dealloc
// CHECK: return %[[R]]
func.func @escapes(%x: memref<256xf32>) -> memref<256xf32> {
  %t = memref.alloc() : memref<256xf32>
  linalg.exp ins(%x : memref<256xf32>) outs(%t : memref<256xf32>)
  %r = memref.alloc() : memref<256xf32>
  linalg.exp ins(%t : memref<256xf32>) outs(%r : memref<256xf32>)
  memref.dealloc %t : memref<256xf32>
  return %r : memref<256xf32>
}

// -----

// Only an escaping buffer: nothing to plan, the function is left alone.
// CHECK-LABEL: func.func @only_escapes
// CHECK-SAME: (%{{.*}}: memref<256xf32>) -> memref<256xf32> {
// CHECK-NOT: nnc.arena
// CHECK: memref.alloc() : memref<256xf32>
func.func @only_escapes(%x: memref<256xf32>) -> memref<256xf32> {
  %r = memref.alloc() : memref<256xf32>
  linalg.exp ins(%x : memref<256xf32>) outs(%r : memref<256xf32>)
  return %r : memref<256xf32>
}

// -----

// Deallocations of planned buffers are removed.
// CHECK-LABEL: func.func @deallocs
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @deallocs(%x: memref<256xf32>, %out: memref<256xf32>) {
  %a = memref.alloc() : memref<256xf32>
  linalg.exp ins(%x : memref<256xf32>) outs(%a : memref<256xf32>)
  linalg.exp ins(%a : memref<256xf32>) outs(%out : memref<256xf32>)
  memref.dealloc %a : memref<256xf32>
  return
}

// -----

// A function without allocations is untouched: no arena argument or size.
// CHECK-LABEL: func.func @no_allocs
// CHECK-SAME: (%{{.*}}: memref<256xf32>, %{{.*}}: memref<256xf32>) {
// CHECK-NOT: nnc.arena
// CHECK: linalg.exp
// NOIP-LABEL: func.func @no_allocs
// NOIP-NOT: nnc.arena
func.func @no_allocs(%x: memref<256xf32>, %out: memref<256xf32>) {
  linalg.exp ins(%x : memref<256xf32>) outs(%out : memref<256xf32>)
  return
}

// -----

// A function that is called keeps its signature (its callers, planned in
// parallel, cannot pass it an arena): it is left alone, and the module stays
// valid.
// CHECK-LABEL: func.func private @callee
// CHECK-SAME: (%{{[a-z0-9_]+}}: memref<4xf32>, %{{[a-z0-9_]+}}: memref<4xf32>) {
// CHECK-NOT: nnc.arena
// CHECK: memref.alloc() : memref<4xf32>
// CHECK-LABEL: func.func @caller
// CHECK: call @callee(%{{.*}}, %{{.*}}) : (memref<4xf32>, memref<4xf32>) -> ()
func.func private @callee(%x: memref<4xf32>, %y: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  linalg.exp ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  linalg.exp ins(%a : memref<4xf32>) outs(%y : memref<4xf32>)
  return
}
func.func @caller(%x: memref<4xf32>, %y: memref<4xf32>) {
  call @callee(%x, %y) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

// Output donation: an optimizer step p_new = p - lr * g writes the
// out-parameter %out (argument 2) in one all-parallel op that reads %p
// (argument 0) at the element it writes. %out is donated to %p: the op
// writes %p in place, and nnc.donated records the pair.
// CHECK-LABEL: func.func @donate_sgd
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: memref<4x8xf32>, %[[G:[a-z0-9_]+]]: memref<4x8xf32>, %{{[a-z0-9_]+}}: memref<4x8xf32>)
// CHECK-SAME: attributes {nnc.donated = array<i64: 2, 0>}
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]], %[[G]] : memref<4x8xf32>, memref<4x8xf32>) outs(%[[P]] : memref<4x8xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @donate_sgd(%p: memref<4x8xf32>, %g: memref<4x8xf32>, %out: memref<4x8xf32>) attributes {nnc.donate = array<i64: 2, 0>} {
  %lr = arith.constant 0.01 : f32
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %g : memref<4x8xf32>, memref<4x8xf32>) outs(%out : memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %lr, %b : f32
    %r = arith.subf %a, %s : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The same op reading %p through two operands (siblings fused), each at the
// element written: donated.
// CHECK-LABEL: func.func @donate_read_twice
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: memref<4x8xf32>, %[[G:[a-z0-9_]+]]: memref<4x8xf32>, %{{[a-z0-9_]+}}: memref<4x8xf32>)
// CHECK-SAME: attributes {nnc.donated = array<i64: 2, 0>}
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]], %[[G]], %[[P]] : memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>) outs(%[[P]] : memref<4x8xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @donate_read_twice(%p: memref<4x8xf32>, %g: memref<4x8xf32>, %out: memref<4x8xf32>) attributes {nnc.donate = array<i64: 2, 0>} {
  linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %g, %p : memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>) outs(%out : memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %s = arith.mulf %c, %b : f32
    %r = arith.subf %a, %s : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Every read of %p comes before the first use of %out: donated, with the
// temporary still planned in the arena (in-place or not).
// CHECK-LABEL: func.func @donate_after_last_read
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: memref<256xf32>, %{{[a-z0-9_]+}}: memref<256xf32>, %[[ARENA:[a-z0-9_]+]]: memref<1024xi8> {nnc.arena})
// CHECK-SAME: attributes {nnc.arena_size = 1024 : i64, nnc.donated = array<i64: 1, 0>}
// CHECK: %[[A:.*]] = memref.view %[[ARENA]]
// CHECK: linalg.exp ins(%[[P]] : memref<256xf32>) outs(%[[A]] : memref<256xf32>)
// CHECK: linalg.exp ins(%[[A]] : memref<256xf32>) outs(%[[P]] : memref<256xf32>)
// NOIP-LABEL: func.func @donate_after_last_read
// NOIP-SAME: nnc.donated = array<i64: 1, 0>
func.func @donate_after_last_read(%p: memref<256xf32>, %out: memref<256xf32>) attributes {nnc.donate = array<i64: 1, 0>} {
  %a = memref.alloc() : memref<256xf32>
  linalg.exp ins(%p : memref<256xf32>) outs(%a : memref<256xf32>)
  linalg.exp ins(%a : memref<256xf32>) outs(%out : memref<256xf32>)
  return
}

// -----

// %out is used as scratch before the last read of %p: writing it into %p
// would clobber %p before it is read. Not donated; the request is dropped.
// CHECK-LABEL: func.func @no_donate_scratch
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: memref<256xf32>, %[[OUT:[a-z0-9_]+]]: memref<256xf32>)
// CHECK-NOT: nnc.donate
// CHECK: linalg.exp ins(%[[P]] : memref<256xf32>) outs(%[[OUT]] : memref<256xf32>)
// CHECK: linalg.add ins(%[[OUT]], %[[P]] : memref<256xf32>, memref<256xf32>) outs(%[[OUT]] : memref<256xf32>)
func.func @no_donate_scratch(%p: memref<256xf32>, %out: memref<256xf32>) attributes {nnc.donate = array<i64: 1, 0>} {
  linalg.exp ins(%p : memref<256xf32>) outs(%out : memref<256xf32>)
  linalg.add ins(%out, %p : memref<256xf32>, memref<256xf32>) outs(%out : memref<256xf32>)
  return
}

// -----

// %p is read after %out is written: not donated.
// CHECK-LABEL: func.func @no_donate_read_after
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: memref<256xf32>, %[[OUT:[a-z0-9_]+]]: memref<256xf32>, %[[OUT2:[a-z0-9_]+]]: memref<256xf32>)
// CHECK-NOT: nnc.donate
// CHECK: linalg.exp ins(%[[P]] : memref<256xf32>) outs(%[[OUT]] : memref<256xf32>)
// CHECK: linalg.negf ins(%[[P]] : memref<256xf32>) outs(%[[OUT2]] : memref<256xf32>)
func.func @no_donate_read_after(%p: memref<256xf32>, %out: memref<256xf32>, %out2: memref<256xf32>) attributes {nnc.donate = array<i64: 1, 0>} {
  linalg.exp ins(%p : memref<256xf32>) outs(%out : memref<256xf32>)
  linalg.negf ins(%p : memref<256xf32>) outs(%out2 : memref<256xf32>)
  return
}

// -----

// The op writes %out through a transposed map while reading %p directly:
// element (i, j) of %p would be overwritten before (j, i) reads it. Not
// donated.
// CHECK-LABEL: func.func @no_donate_transposed
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: memref<8x8xf32>, %[[OUT:[a-z0-9_]+]]: memref<8x8xf32>)
// CHECK-NOT: nnc.donate
// CHECK: ins(%[[P]] : memref<8x8xf32>) outs(%[[OUT]] : memref<8x8xf32>)
func.func @no_donate_transposed(%p: memref<8x8xf32>, %out: memref<8x8xf32>) attributes {nnc.donate = array<i64: 1, 0>} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%p : memref<8x8xf32>) outs(%out : memref<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The types differ: not donated.
// CHECK-LABEL: func.func @no_donate_types
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: memref<256xf32>, %[[OUT:[a-z0-9_]+]]: memref<256xf16>)
// CHECK-NOT: nnc.donate
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]] : memref<256xf32>) outs(%[[OUT]] : memref<256xf16>)
func.func @no_donate_types(%p: memref<256xf32>, %out: memref<256xf16>) attributes {nnc.donate = array<i64: 1, 0>} {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%p : memref<256xf32>) outs(%out : memref<256xf16>) {
  ^bb0(%a: f32, %o: f16):
    %r = arith.truncf %a : f32 to f16
    linalg.yield %r : f16
  }
  return
}

// -----

// Two pairs: %o1 to %p is legal, %o2 to %q is not (%q is read after %o2 is
// written). nnc.donated lists only the first pair.
// CHECK-LABEL: func.func @donate_some
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: memref<256xf32>, %[[Q:[a-z0-9_]+]]: memref<256xf32>, %{{[a-z0-9_]+}}: memref<256xf32>, %[[O2:[a-z0-9_]+]]: memref<256xf32>)
// CHECK-SAME: attributes {nnc.donated = array<i64: 2, 0>}
// CHECK: linalg.exp ins(%[[Q]] : memref<256xf32>) outs(%[[O2]] : memref<256xf32>)
// CHECK: linalg.add ins(%[[P]], %[[Q]] : memref<256xf32>, memref<256xf32>) outs(%[[P]] : memref<256xf32>)
func.func @donate_some(%p: memref<256xf32>, %q: memref<256xf32>, %o1: memref<256xf32>, %o2: memref<256xf32>) attributes {nnc.donate = array<i64: 2, 0, 3, 1>} {
  linalg.exp ins(%q : memref<256xf32>) outs(%o2 : memref<256xf32>)
  linalg.add ins(%p, %q : memref<256xf32>, memref<256xf32>) outs(%o1 : memref<256xf32>)
  return
}

// -----

// The op that meets %p and %out also reads %p through a view (its
// transpose): writing (i, j) of %p would clobber what (j, i) reads. Not
// donated.
// CHECK-LABEL: func.func @no_donate_view_read
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: memref<4x4xf32>, %[[OUT:[a-z0-9_]+]]: memref<4x4xf32>)
// CHECK-NOT: nnc.donate
// CHECK: %[[PT:.*]] = memref.transpose %[[P]]
// CHECK: ins(%[[P]], %[[PT]] : memref<4x4xf32>, memref<4x4xf32, strided<[1, 4]>>) outs(%[[OUT]] : memref<4x4xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @no_donate_view_read(%p: memref<4x4xf32>, %out: memref<4x4xf32>) attributes {nnc.donate = array<i64: 1, 0>} {
  %pt = memref.transpose %p (d0, d1) -> (d1, d0) : memref<4x4xf32> to memref<4x4xf32, strided<[1, 4]>>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %pt : memref<4x4xf32>, memref<4x4xf32, strided<[1, 4]>>) outs(%out : memref<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Two outputs asked to take the same input: %o1 takes %p (legal), then %o2
// may not, since %p now holds %o1's result, which must survive to the end.
// Only the first pair is done.
// CHECK-LABEL: func.func @no_donate_twice
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: memref<256xf32>, %[[X:[a-z0-9_]+]]: memref<256xf32>, %{{[a-z0-9_]+}}: memref<256xf32>, %[[O2:[a-z0-9_]+]]: memref<256xf32>)
// CHECK-SAME: attributes {nnc.donated = array<i64: 2, 0>}
// CHECK: linalg.exp ins(%[[P]] : memref<256xf32>) outs(%[[P]] : memref<256xf32>)
// CHECK: linalg.exp ins(%[[X]] : memref<256xf32>) outs(%[[O2]] : memref<256xf32>)
func.func @no_donate_twice(%p: memref<256xf32>, %x: memref<256xf32>, %o1: memref<256xf32>, %o2: memref<256xf32>) attributes {nnc.donate = array<i64: 2, 0, 3, 0>} {
  linalg.exp ins(%p : memref<256xf32>) outs(%o1 : memref<256xf32>)
  linalg.exp ins(%x : memref<256xf32>) outs(%o2 : memref<256xf32>)
  return
}

// -----

// A per-image tile allocated in the body of an scf.for (a convolution image
// by image) is hoisted and planned once: every iteration reuses it, the
// view is marked nnc.loop_local, and it shares the arena with what dies
// before the loop. A buffer yielded out of the loop stays an allocation in
// the loop.
// CHECK-LABEL: func.func @loop_tile
// CHECK-SAME: %[[ARENA:[a-z0-9_]+]]: memref<4096xi8> {nnc.arena}
// CHECK: arith.constant 0.0
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.view %[[ARENA]][%[[Z]]][] : memref<4096xi8> to memref<1024xf32>
// CHECK: %[[Z2:.*]] = arith.constant 0 : index
// CHECK: %[[T:.*]] = memref.view %[[ARENA]][%[[Z2]]][] {nnc.loop_local} : memref<4096xi8> to memref<16x64xf32>
// CHECK: scf.for
// CHECK-NOT: memref.alloc
// CHECK: linalg.exp ins(%{{.*}} : memref<16x64xf32, strided<[64, 1], offset: ?>>) outs(%[[T]] : memref<16x64xf32>)
// CHECK: linalg.exp ins(%[[T]] : memref<16x64xf32>)
// CHECK: scf.for
// CHECK: memref.alloc() : memref<4xf32>
// CHECK: scf.yield
// NOIP-LABEL: func.func @loop_tile
// NOIP: memref.view {{.*}} {nnc.loop_local}
func.func @loop_tile(%x: memref<4x16x64xf32>, %out: memref<4x16x64xf32>, %init: memref<4xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c0f = arith.constant 0.0 : f32
  %early = memref.alloc() : memref<1024xf32>
  linalg.fill ins(%c0f : f32) outs(%early : memref<1024xf32>)
  scf.for %n = %c0 to %c4 step %c1 {
    %tile = memref.alloc() : memref<16x64xf32>
    %xn = memref.subview %x[%n, 0, 0] [1, 16, 64] [1, 1, 1] : memref<4x16x64xf32> to memref<16x64xf32, strided<[64, 1], offset: ?>>
    %on = memref.subview %out[%n, 0, 0] [1, 16, 64] [1, 1, 1] : memref<4x16x64xf32> to memref<16x64xf32, strided<[64, 1], offset: ?>>
    linalg.exp ins(%xn : memref<16x64xf32, strided<[64, 1], offset: ?>>) outs(%tile : memref<16x64xf32>)
    linalg.exp ins(%tile : memref<16x64xf32>) outs(%on : memref<16x64xf32, strided<[64, 1], offset: ?>>)
  }
  %r = scf.for %n = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (memref<4xf32>) {
    %fresh = memref.alloc() : memref<4xf32>
    linalg.exp ins(%acc : memref<4xf32>) outs(%fresh : memref<4xf32>)
    scf.yield %fresh : memref<4xf32>
  }
  return %r : memref<4xf32>
}
