// RUN: nnc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(nnc-rematerialize{distance=2}))' | FileCheck %s
// RUN: nnc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(nnc-rematerialize{distance=2 max-depth=2}))' | FileCheck %s --check-prefix=D2
// RUN: nnc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(nnc-rematerialize{distance=2 max-depth=1}))' | FileCheck %s --check-prefix=D1
// RUN: nnc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(nnc-rematerialize{distance=2 max-depth=0}))' | FileCheck %s --check-prefix=D0
// RUN: nnc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(nnc-rematerialize))' | FileCheck %s --check-prefix=DEF

// Positions below count top-level ops from 0. With distance=2 a use more
// than two ops after the definition is late; the tensor arith ops are
// fillers (not linalg.generic, so never candidates themselves).

// %t (1) is used early by %y (2) and late by %g (5) and %h (6). Its inputs
// are alive at %g (%x is an argument, %e is used there): the tanh is
// recomputed right before %g, both late uses take the clone, and the early
// use keeps the original.
// CHECK-LABEL: func.func @late_use
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<8xf32>, %[[DY:[a-z0-9_]+]]: tensor<8xf32>)
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT: %[[T:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8xf32>) outs(%[[E]] : tensor<8xf32>)
// CHECK: math.tanh
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[T]], %[[X]] : tensor<8xf32>, tensor<8xf32>) outs(%[[E]] : tensor<8xf32>)
// CHECK: %[[S:.*]] = arith.addf %[[Y]], %[[DY]] : tensor<8xf32>
// CHECK-NEXT: arith.mulf %[[S]], %[[S]] : tensor<8xf32>
// CHECK-NEXT: %[[T2:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8xf32>) outs(%[[E]] : tensor<8xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.tanh
// CHECK-NEXT: linalg.yield
// CHECK-NEXT: } -> tensor<8xf32>
// CHECK-NEXT: %[[G:.*]] = linalg.generic {{.*}} ins(%[[T2]], %[[DY]] : tensor<8xf32>, tensor<8xf32>) outs(%[[E]] : tensor<8xf32>)
// CHECK: %[[H:.*]] = linalg.generic {{.*}} ins(%[[T2]], %[[G]] : tensor<8xf32>, tensor<8xf32>) outs(%[[E]] : tensor<8xf32>)
// CHECK: return %[[S]], %[[H]]
// CHECK-NOT: math.tanh
// max-depth does not matter when the inputs themselves are alive.
// D0-LABEL: func.func @late_use
// D0-COUNT-2: math.tanh
// With the default distance (64) no use here is late.
// DEF-LABEL: func.func @late_use
// DEF: math.tanh
// DEF-NOT: math.tanh
// DEF: return
#id = affine_map<(d0) -> (d0)>
func.func @late_use(%x: tensor<8xf32>, %dy: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%t, %x : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %s = arith.addf %y, %dy : tensor<8xf32>
  %f = arith.mulf %s, %s : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%t, %dy : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %h = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%t, %g : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s, %h : tensor<8xf32>, tensor<8xf32>
}

// -----

// The input is an SSA value computed by a reduction, alive near the late use
// because it is used after it (by %k at 9): the exp is recomputed from it.
// CHECK-LABEL: func.func @input_used_later
// CHECK: %[[M:.*]] = linalg.reduce
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%[[M]] : tensor<8xf32>)
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[T]], %[[M]] : tensor<8xf32>, tensor<8xf32>)
// CHECK: %[[T2:.*]] = linalg.generic {{.*}} ins(%[[M]] : tensor<8xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.exp
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[T2]], %{{.*}} : tensor<8xf32>, tensor<8xf32>)
// CHECK: arith.addf %[[G]], %[[M]] : tensor<8xf32>
#id = affine_map<(d0) -> (d0)>
func.func @input_used_later(%a: tensor<8x16xf32>, %dy: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %m = linalg.reduce ins(%a : tensor<8x16xf32>) outs(%z : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%m : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%t, %m : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %s = arith.addf %y, %dy : tensor<8xf32>
  %f = arith.mulf %s, %s : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%t, %dy : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %k = arith.addf %g, %m : tensor<8xf32>
  return %s, %k : tensor<8xf32>, tensor<8xf32>
}

// -----

// The same, but the reduction's last use is early (%y): recomputing the exp
// at %g would keep %m alive until there, so nothing changes.
// CHECK-LABEL: func.func @input_dead
// CHECK: %[[M:.*]] = linalg.reduce
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%[[M]] : tensor<8xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.exp
// CHECK-NOT: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[T]], %[[M]] : tensor<8xf32>, tensor<8xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[T]], %{{.*}} : tensor<8xf32>, tensor<8xf32>)
#id = affine_map<(d0) -> (d0)>
func.func @input_dead(%a: tensor<8x16xf32>, %dy: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %m = linalg.reduce ins(%a : tensor<8x16xf32>) outs(%z : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%m : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%t, %m : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %s = arith.addf %y, %dy : tensor<8xf32>
  %f = arith.mulf %s, %s : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%t, %dy : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s, %g : tensor<8xf32>, tensor<8xf32>
}

// -----

// A chain %a -> %b -> %c where only %c is used late and its producers are
// dead there: %c is recomputed from a recomputed %b, itself recomputed from
// a recomputed %a, all before %g. That is two producers deep: max-depth=2
// allows it, max-depth=1 and max-depth=0 leave the function alone.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<8xf32>, %[[DY:[a-z0-9_]+]]: tensor<8xf32>)
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT: %[[A:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8xf32>)
// CHECK: math.exp
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<8xf32>)
// CHECK: arith.negf
// CHECK: %[[C:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<8xf32>)
// CHECK: math.tanh
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[C]], %[[X]] : tensor<8xf32>, tensor<8xf32>)
// CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<8xf32>
// CHECK-NEXT: %[[A2:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8xf32>) outs(%[[E]] : tensor<8xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.exp
// CHECK-NEXT: linalg.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[B2:.*]] = linalg.generic {{.*}} ins(%[[A2]] : tensor<8xf32>) outs(%[[E]] : tensor<8xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.negf
// CHECK-NEXT: linalg.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[C2:.*]] = linalg.generic {{.*}} ins(%[[B2]] : tensor<8xf32>) outs(%[[E]] : tensor<8xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.tanh
// CHECK-NEXT: linalg.yield
// CHECK-NEXT: }
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[C2]], %[[DY]] : tensor<8xf32>, tensor<8xf32>)
// D2-LABEL: func.func @chain
// D2-COUNT-2: math.exp
// D2-NOT: math.exp
// D1-LABEL: func.func @chain
// D1: math.exp
// D1-NOT: math.exp
// D1: math.tanh
// D1-NOT: math.tanh
// D0-LABEL: func.func @chain
// D0: math.exp
// D0-NOT: math.exp
// D0: math.tanh
// D0-NOT: math.tanh
#id = affine_map<(d0) -> (d0)>
func.func @chain(%x: tensor<8xf32>, %dy: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = math.tanh %in : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%c, %x : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %s = arith.addf %y, %dy : tensor<8xf32>
  %f = arith.mulf %s, %s : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%c, %dy : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s, %g : tensor<8xf32>, tensor<8xf32>
}

// -----

// A late use inside a loop: the recomputation goes before the loop (the
// top-level op holding the use), not into its body. %e is dead there, so
// the tensor.empty is recomputed too.
// CHECK-LABEL: func.func @late_use_in_loop
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<8xf32>, %[[DY:[a-z0-9_]+]]: tensor<8xf32>, %{{.*}}: index)
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: arith.addf %[[T]], %[[DY]] : tensor<8xf32>
// CHECK: arith.constant 1 : index
// CHECK-NEXT: %[[E2:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT: %[[T2:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8xf32>) outs(%[[E2]] : tensor<8xf32>)
// CHECK: math.exp
// CHECK: %[[L:.*]] = scf.for
// CHECK-NEXT: arith.addf %{{.*}}, %[[T2]] : tensor<8xf32>
// CHECK: arith.addf %[[T2]], %[[L]] : tensor<8xf32>
// D2-LABEL: func.func @late_use_in_loop
// D1-LABEL: func.func @late_use_in_loop
// D0-LABEL: func.func @late_use_in_loop
#id = affine_map<(d0) -> (d0)>
func.func @late_use_in_loop(%x: tensor<8xf32>, %dy: tensor<8xf32>, %n: index) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %s = arith.addf %t, %dy : tensor<8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %dy) -> tensor<8xf32> {
    %u = arith.addf %acc, %t : tensor<8xf32>
    scf.yield %u : tensor<8xf32>
  }
  %w = arith.addf %t, %l : tensor<8xf32>
  return %s, %w : tensor<8xf32>, tensor<8xf32>
}

// -----

// Recomputing needs an output tensor: %e1 is dead at %g (its last use is
// %t), so the tensor.empty is recomputed along with the exp.
// CHECK-LABEL: func.func @fresh_empty
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<8xf32>, %[[DY:[a-z0-9_]+]]: tensor<8xf32>)
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<8xf32>
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<8xf32>
// CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<8xf32>
// CHECK-NEXT: %[[E3:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT: %[[T2:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8xf32>) outs(%[[E3]] : tensor<8xf32>)
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[T2]], %[[DY]] : tensor<8xf32>, tensor<8xf32>) outs(%[[E2]] : tensor<8xf32>)
#id = affine_map<(d0) -> (d0)>
func.func @fresh_empty(%x: tensor<8xf32>, %dy: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e1 = tensor.empty() : tensor<8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %s = arith.addf %t, %dy : tensor<8xf32>
  %f = arith.mulf %s, %s : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%t, %dy : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s, %g : tensor<8xf32>, tensor<8xf32>
}

// -----

// A use exactly `distance` ops after the definition is not late: %g is two
// ops after %t.
// CHECK-LABEL: func.func @at_distance
// CHECK-COUNT-1: math.exp
// CHECK-NOT: math.exp
#id = affine_map<(d0) -> (d0)>
func.func @at_distance(%x: tensor<8xf32>, %dy: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %s = arith.addf %t, %dy : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%t, %dy : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s, %g : tensor<8xf32>, tensor<8xf32>
}

// -----

// One op further, three ops after the definition, the use is late.
// CHECK-LABEL: func.func @past_distance
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: arith.addf %[[T]], %{{.*}} : tensor<8xf32>
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: %[[T2:.*]] = linalg.generic
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[T2]], %{{.*}} : tensor<8xf32>, tensor<8xf32>)
#id = affine_map<(d0) -> (d0)>
func.func @past_distance(%x: tensor<8xf32>, %dy: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %s = arith.addf %t, %dy : tensor<8xf32>
  %f = arith.mulf %s, %s : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%t, %dy : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s, %g : tensor<8xf32>, tensor<8xf32>
}

// -----

// Every use within `distance` ops: untouched.
// CHECK-LABEL: func.func @early_only
// CHECK-COUNT-1: math.exp
// CHECK-NOT: math.exp
#id = affine_map<(d0) -> (d0)>
func.func @early_only(%x: tensor<8xf32>, %dy: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %s = arith.addf %t, %dy : tensor<8xf32>
  %u = arith.mulf %t, %s : tensor<8xf32>
  %f = arith.mulf %u, %u : tensor<8xf32>
  %k = arith.addf %f, %f : tensor<8xf32>
  return %k : tensor<8xf32>
}

// -----

// A generic with a reduction iterator is not recomputed (even one whose
// payload ignores the accumulator).
// CHECK-LABEL: func.func @reduction_iterator
// CHECK-COUNT-1: math.exp
// CHECK-NOT: math.exp
func.func @reduction_iterator(%x: tensor<8x16xf32>, %dy: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %s = arith.addf %t, %dy : tensor<8xf32>
  %f = arith.mulf %s, %s : tensor<8xf32>
  %g = arith.mulf %t, %dy : tensor<8xf32>
  return %s, %g : tensor<8xf32>, tensor<8xf32>
}

// -----

// A generic with two results is not recomputed.
// CHECK-LABEL: func.func @two_results
// CHECK-COUNT-1: math.exp
// CHECK-NOT: math.exp
#id = affine_map<(d0) -> (d0)>
func.func @two_results(%x: tensor<8xf32>, %dy: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %t:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e, %e : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%in: f32, %o1: f32, %o2: f32):
    %r = math.exp %in : f32
    %n = arith.negf %in : f32
    linalg.yield %r, %n : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  %s = arith.addf %t#0, %t#1 : tensor<8xf32>
  %f = arith.mulf %s, %s : tensor<8xf32>
  %g = arith.mulf %t#0, %dy : tensor<8xf32>
  return %s, %g : tensor<8xf32>, tensor<8xf32>
}

// -----

// A generic whose body does more than arith/math (linalg.index here) is not
// recomputed.
// CHECK-LABEL: func.func @non_arith_body
// CHECK-COUNT-1: linalg.index
// CHECK-NOT: linalg.index
#id = affine_map<(d0) -> (d0)>
func.func @non_arith_body(%x: tensor<8xf32>, %dy: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i32
    %v = arith.sitofp %c : i32 to f32
    %r = arith.addf %in, %v : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %s = arith.addf %t, %dy : tensor<8xf32>
  %f = arith.mulf %s, %s : tensor<8xf32>
  %g = arith.mulf %t, %dy : tensor<8xf32>
  return %s, %g : tensor<8xf32>, tensor<8xf32>
}

// -----

// A generic whose payload reads its output operand is not recomputed.
// CHECK-LABEL: func.func @reads_output
// CHECK-COUNT-1: math.exp
// CHECK-NOT: math.exp
#id = affine_map<(d0) -> (d0)>
func.func @reads_output(%x: tensor<8xf32>, %dy: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = math.exp %in : f32
    %a = arith.addf %r, %o : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  %s = arith.addf %t, %dy : tensor<8xf32>
  %f = arith.mulf %s, %s : tensor<8xf32>
  %g = arith.mulf %t, %dy : tensor<8xf32>
  return %s, %g : tensor<8xf32>, tensor<8xf32>
}

// -----

// Nor one whose output is not a tensor.empty, even if the payload ignores it.
// CHECK-LABEL: func.func @output_not_empty
// CHECK-COUNT-1: math.exp
// CHECK-NOT: math.exp
#id = affine_map<(d0) -> (d0)>
func.func @output_not_empty(%x: tensor<8xf32>, %dy: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%dy : tensor<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %s = arith.addf %t, %dy : tensor<8xf32>
  %f = arith.mulf %s, %s : tensor<8xf32>
  %k = arith.mulf %f, %f : tensor<8xf32>
  %g = arith.mulf %t, %dy : tensor<8xf32>
  return %s, %g : tensor<8xf32>, tensor<8xf32>
}
