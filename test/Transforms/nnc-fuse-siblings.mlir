// RUN: nnc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(nnc-fuse-siblings))' | FileCheck %s
// RUN: nnc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(nnc-fuse-siblings{window=1}))' | FileCheck %s --check-prefix=WIN

// Two independent generics over the same domain (Adam's m and v updates
// both reading %g) become one with the inputs and outputs of both.
// CHECK-LABEL: func.func @independent
// CHECK-SAME: (%[[G:[a-z0-9]+]]: memref<8x16xf32>, %[[M:[a-z0-9]+]]: memref<8x16xf32>, %[[V:[a-z0-9]+]]: memref<8x16xf32>, %[[M2:[a-z0-9]+]]: memref<8x16xf32>, %[[V2:[a-z0-9]+]]: memref<8x16xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID:map[0-9]*]], #[[ID]], #[[ID]], #[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[G]], %[[M]], %[[G]], %[[V]] : memref<8x16xf32>, memref<8x16xf32>, memref<8x16xf32>, memref<8x16xf32>)
// CHECK-SAME: outs(%[[M2]], %[[V2]] : memref<8x16xf32>, memref<8x16xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[C:.*]]: f32, %[[D:.*]]: f32, %{{[a-z0-9_]+}}: f32, %{{[a-z0-9_]+}}: f32):
// CHECK: %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK: %[[P:.*]] = arith.mulf %[[C]], %[[D]] : f32
// CHECK: linalg.yield %[[S]], %[[P]] : f32, f32
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @independent(%g: memref<8x16xf32>, %m: memref<8x16xf32>, %v: memref<8x16xf32>, %m2: memref<8x16xf32>, %v2: memref<8x16xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %m : memref<8x16xf32>, memref<8x16xf32>) outs(%m2 : memref<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %v : memref<8x16xf32>, memref<8x16xf32>) outs(%v2 : memref<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A fused op is visited again: three siblings become one with three outputs.
// CHECK-LABEL: func.func @three
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<64xf32>, memref<64xf32>, memref<64xf32>)
// CHECK-SAME: outs(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<64xf32>, memref<64xf32>, memref<64xf32>)
// CHECK: math.exp
// CHECK: math.log
// CHECK: math.sqrt
// CHECK: linalg.yield %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : f32, f32, f32
// CHECK-NOT: linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @three(%x: memref<64xf32>, %a: memref<64xf32>, %b: memref<64xf32>, %c: memref<64xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.exp %i : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.log %i : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%c : memref<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.sqrt %i : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The second reads the first's output %t through the same map: it takes the
// value the first yields; %t is written but no longer read as an input.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[X:[a-z0-9]+]]: memref<8x16xf32>, %[[T:[a-z0-9]+]]: memref<8x16xf32>, %[[Y:[a-z0-9]+]]: memref<8x16xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID:map[0-9]*]], #[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[X]] : memref<8x16xf32>, memref<8x16xf32>) outs(%[[T]], %[[Y]] : memref<8x16xf32>, memref<8x16xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{[a-z0-9_]+}}: f32, %{{[a-z0-9_]+}}: f32):
// CHECK: %[[E:.*]] = math.exp %[[A]] : f32
// CHECK: %[[P:.*]] = arith.mulf %[[E]], %[[B]] : f32
// CHECK: linalg.yield %[[E]], %[[P]] : f32, f32
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%x: memref<8x16xf32>, %t: memref<8x16xf32>, %y: memref<8x16xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x16xf32>) outs(%t : memref<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %x : memref<8x16xf32>, memref<8x16xf32>) outs(%y : memref<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The second reads the first's output transposed: element (i, j) needs
// %t(j, i), written in another iteration. Not fused.
// CHECK-LABEL: func.func @forward_transposed
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{[a-z0-9_]+}} : memref<16x16xf32>)
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK: arith.mulf
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @forward_transposed(%x: memref<16x16xf32>, %t: memref<16x16xf32>, %y: memref<16x16xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<16x16xf32>) outs(%t : memref<16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#tr, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %x : memref<16x16xf32>, memref<16x16xf32>) outs(%y : memref<16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An op in between writes %x, which the first reads: the first cannot move
// below it. Not fused; the order is kept.
// CHECK-LABEL: func.func @between_writes_input
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: linalg.fill
// CHECK: linalg.generic
// CHECK: math.log
#id = affine_map<(d0) -> (d0)>
func.func @between_writes_input(%x: memref<64xf32>, %z: memref<64xf32>, %a: memref<64xf32>, %b: memref<64xf32>) {
  %cst = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.exp %i : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%cst : f32) outs(%x : memref<64xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%z : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.log %i : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// An op in between reads %a, which the first writes (through a view). Not
// fused.
// CHECK-LABEL: func.func @between_reads_output
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: memref.copy
// CHECK: linalg.generic
// CHECK: math.log
#id = affine_map<(d0) -> (d0)>
func.func @between_reads_output(%x: memref<64xf32>, %z: memref<64xf32>, %a: memref<64xf32>, %b: memref<64xf32>, %w: memref<8x8xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.exp %i : f32
    linalg.yield %r : f32
  }
  %v = memref.expand_shape %a [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  memref.copy %v, %w : memref<8x8xf32> to memref<8x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%z : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.log %i : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Different loop ranges (8x16 and 16x8): not fused.
// CHECK-LABEL: func.func @different_ranges
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{[a-z0-9_]+}} : memref<8x16xf32>)
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{[a-z0-9_]+}} : memref<16x8xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @different_ranges(%x: memref<8x16xf32>, %a: memref<8x16xf32>, %z: memref<16x8xf32>, %b: memref<16x8xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x16xf32>) outs(%a : memref<8x16xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.exp %i : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%z : memref<16x8xf32>) outs(%b : memref<16x8xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.log %i : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A reduction over the same loop ranges is not a sibling: not fused.
// CHECK-LABEL: func.func @reduction
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: outs(%{{[a-z0-9_]+}} : memref<8x16xf32>)
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: outs(%{{[a-z0-9_]+}} : memref<8xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @reduction(%x: memref<8x16xf32>, %a: memref<8x16xf32>, %s: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x16xf32>) outs(%a : memref<8x16xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.exp %i : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x16xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.addf %i, %o : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The first moves down past an independent reduction to its sibling; the
// reduction stays as it is.
// CHECK-LABEL: func.func @past_reduction
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: outs(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<8x16xf32>, memref<8x16xf32>)
// CHECK: math.exp
// CHECK: math.log
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @past_reduction(%x: memref<8x16xf32>, %a: memref<8x16xf32>, %s: memref<8xf32>, %b: memref<8x16xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x16xf32>) outs(%a : memref<8x16xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.exp %i : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x16xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.addf %i, %o : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x16xf32>) outs(%b : memref<8x16xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.log %i : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The second writes %m, which the first reads, at the element the first
// reads in the same iteration (an in-place parameter update): fused.
// CHECK-LABEL: func.func @write_read_same_element
// CHECK-SAME: (%[[G:[a-z0-9]+]]: memref<16x16xf32>, %[[M:[a-z0-9]+]]: memref<16x16xf32>, %[[T:[a-z0-9]+]]: memref<16x16xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[M]], %[[G]] : memref<16x16xf32>, memref<16x16xf32>) outs(%[[T]], %[[M]] : memref<16x16xf32>, memref<16x16xf32>)
// CHECK: math.exp
// CHECK: arith.subf
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @write_read_same_element(%g: memref<16x16xf32>, %m: memref<16x16xf32>, %t: memref<16x16xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : memref<16x16xf32>) outs(%t : memref<16x16xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.exp %i : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g : memref<16x16xf32>) outs(%m : memref<16x16xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.subf %o, %i : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The second writes %m transposed, where the first reads it straight: the
// first would read elements the second already overwrote. Not fused.
// CHECK-LABEL: func.func @write_read_other_element
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK: arith.subf
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @write_read_other_element(%g: memref<16x16xf32>, %m: memref<16x16xf32>, %t: memref<16x16xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : memref<16x16xf32>) outs(%t : memref<16x16xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.exp %i : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #tr], iterator_types = ["parallel", "parallel"]}
      ins(%g : memref<16x16xf32>) outs(%m : memref<16x16xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.subf %o, %i : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The second writes a buffer the first writes: not fused.
// CHECK-LABEL: func.func @write_write
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK: math.log
#id = affine_map<(d0) -> (d0)>
func.func @write_write(%x: memref<64xf32>, %z: memref<64xf32>, %a: memref<64xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.exp %i : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%z : memref<64xf32>) outs(%a : memref<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = math.log %i : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Two unrelated copies in between: the default window looks past them and
// the fused op takes the second's place; window=1 stops at the first copy.
// CHECK-LABEL: func.func @window
// CHECK: memref.copy
// CHECK: memref.copy
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} : memref<64xf32>, memref<64xf32>)
// CHECK: math.exp
// CHECK: math.log
// CHECK-NOT: linalg.generic
// WIN-LABEL: func.func @window
// WIN: linalg.generic
// WIN: math.exp
// WIN: memref.copy
// WIN: memref.copy
// WIN: linalg.generic
// WIN: math.log
#id = affine_map<(d0) -> (d0)>
func.func @window(%x: memref<64xf32>, %a: memref<64xf32>, %b: memref<64xf32>, %p: memref<4xf32>, %q: memref<4xf32>, %r: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %e = math.exp %i : f32
    linalg.yield %e : f32
  }
  memref.copy %p, %q : memref<4xf32> to memref<4xf32>
  memref.copy %p, %r : memref<4xf32> to memref<4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %e = math.log %i : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A generic whose body reads a buffer by address (cross-entropy's gather of
// the picked log-probability) reads it as a whole: the generic writing that
// buffer does not move below it to join a later sibling.
// CHECK-LABEL: func.func @gather_between
// CHECK: linalg.generic {{.*}} outs(%[[LOGP:[a-z0-9]+]] : memref<6x5xf32>)
// CHECK: linalg.generic
// CHECK: memref.load %[[LOGP]]
// CHECK: linalg.generic {{.*}} outs(%{{[a-z0-9]+}} : memref<6x5xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0) -> (d0)>
func.func @gather_between(%x: memref<6x5xf32>, %labels: memref<6xindex>, %logp: memref<6x5xf32>, %picked: memref<6xf32>, %other: memref<6x5xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<6x5xf32>) outs(%logp : memref<6x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %l = math.log %a : f32
    linalg.yield %l : f32
  }
  linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel"]}
      ins(%labels : memref<6xindex>) outs(%picked : memref<6xf32>) {
  ^bb0(%c: index, %o: f32):
    %i = linalg.index 0 : index
    %v = memref.load %logp[%i, %c] : memref<6x5xf32>
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<6x5xf32>) outs(%other : memref<6x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A loop nest that computes a value into a temporary and, fused with its
// consumer, hands it over in a register (an optimizer's new moment, then
// the select that skips the update on a non-finite gradient) no longer
// writes the temporary that nothing else reads: the output goes, with its
// allocation.
// CHECK-LABEL: func.func @dead_output
// CHECK-NOT: memref.alloc
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{[a-z0-9]+}} : memref<64xf32>)
// CHECK: math.exp
// CHECK: arith.select
// CHECK: linalg.yield %{{.*}} : f32
// CHECK-NOT: memref.alloc
#id1 = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
func.func @dead_output(%m: memref<64xf32>, %skip: memref<i1>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%m : memref<64xf32>) outs(%t : memref<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#scalar, #id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%skip, %m, %t : memref<i1>, memref<64xf32>, memref<64xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%s: i1, %old: f32, %new: f32, %o: f32):
    %r = arith.select %s, %old, %new : f32
    linalg.yield %r : f32
  }
  memref.dealloc %t : memref<64xf32>
  return
}

// -----

// A gather that reads by address (memref.load) the buffer its sibling
// writes may read any element of it, not only the one written in the same
// iteration: the two stay apart (found by nnc-graph-fuzz: a Gather of a
// Gather read the first one's output before it was written).
// CHECK-LABEL: func.func @gather_of_sibling
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[T:.*]] : memref<5x2xf64>)
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : memref<5x2xf64>)
// CHECK: memref.load %[[T]]
// WIN-LABEL: func.func @gather_of_sibling
func.func @gather_of_sibling(%x: memref<5x2x3xf64>, %out: memref<5x2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = memref.alloc() : memref<5x2xf64>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      outs(%t : memref<5x2xf64>) {
  ^bb0(%o: f64):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = memref.load %x[%i, %j, %c1] : memref<5x2x3xf64>
    linalg.yield %v : f64
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      outs(%out : memref<5x2xf64>) {
  ^bb0(%o: f64):
    %i = linalg.index 0 : index
    %v = memref.load %t[%i, %c0] : memref<5x2xf64>
    linalg.yield %v : f64
  }
  memref.dealloc %t : memref<5x2xf64>
  return
}

// -----

// A target's GEMM epilogue (nnc.epilogue) is not fused with a sibling: it
// must stay the bias add the target matched.
// CHECK-LABEL: func.func @epilogue_alone(
// CHECK: linalg.generic {{.*}}outs(%{{.*}} : memref<4x4xf32>) attrs = {nnc.epilogue = "bias"}
// CHECK: linalg.generic {{.*}}outs(%{{.*}} : memref<4x4xf32>) {
func.func @epilogue_alone(%b: memref<4xf32>, %y: memref<4x4xf32>, %x: memref<4x4xf32>, %z: memref<4x4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%b, %y : memref<4xf32>, memref<4x4xf32>) outs(%y : memref<4x4xf32>) attrs = {nnc.epilogue = "bias"} {
  ^bb0(%bv: f32, %cv: f32, %o: f32):
    %s = arith.addf %bv, %cv : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x4xf32>) outs(%z : memref<4x4xf32>) {
  ^bb0(%xv: f32, %o: f32):
    %s = arith.mulf %xv, %xv : f32
    linalg.yield %s : f32
  }
  return
}
