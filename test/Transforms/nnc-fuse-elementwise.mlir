// RUN: nnc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(nnc-fuse-elementwise))' | FileCheck %s
// RUN: nnc-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(nnc-fuse-elementwise{max-body-ops=2}))' | FileCheck %s --check-prefix=CAP

// A pointwise chain (add, then relu) becomes one generic reading both
// inputs once.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x16xf32>, %[[Y:[a-z0-9]+]]: tensor<8x16xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID:map[0-9]*]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[Y]] : tensor<8x16xf32>, tensor<8x16xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK: %[[M:.*]] = arith.maximumf %[[S]], %{{.*}} : f32
// CHECK: linalg.yield %[[M]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @chain(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %cst = arith.constant 0.0 : f32
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.maximumf %p, %cst : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

// -----

// A pointwise producer (exp) folds into the reduction that sums it.
// CHECK-LABEL: func.func @into_reduction
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x16xf32>)
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: linalg.generic {indexing_maps = [#{{map[0-9]*}}, #{{map[0-9]*}}], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]] : tensor<8x16xf32>) outs(%[[Z]] : tensor<8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[E:.*]] = math.exp %[[IN]] : f32
// CHECK: %[[S:.*]] = arith.addf %[[E]], %[[ACC]] : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @into_reduction(%x: tensor<8x16xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = math.exp %p : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %cst = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<8x16xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A transpose and a broadcast become indexing maps of their consumer.
// CHECK-DAG: #[[TR:map[0-9]*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[BC:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @transpose_broadcast
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<16x8xf32>, %[[V:[a-z0-9]+]]: tensor<16xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[TR]], #[[BC]], #[[ID]]]
// CHECK-SAME: ins(%[[X]], %[[V]] : tensor<16x8xf32>, tensor<16xf32>)
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#b = affine_map<(d0, d1) -> (d1)>
func.func @transpose_broadcast(%x: tensor<16x8xf32>, %v: tensor<16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%p: f32, %o: f32):
    linalg.yield %p : f32
  } -> tensor<8x16xf32>
  %bc = linalg.generic {indexing_maps = [#b, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v : tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%p: f32, %o: f32):
    linalg.yield %p : f32
  } -> tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %bc : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// A transpose of B feeding a matmul: the matmul reads the transpose's input
// through B's swapped map (d1, d2); no transpose is left.
// CHECK-DAG: #[[MA:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[MB:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[MC:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @transpose_b
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<32x64xf32>, %[[W:[a-z0-9]+]]: tensor<16x64xf32>, %[[ACC:[a-z0-9]+]]: tensor<32x16xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[Y:.*]] = linalg.matmul indexing_maps = [#[[MA]], #[[MB]], #[[MC]]] ins(%[[X]], %[[W]] : tensor<32x64xf32>, tensor<16x64xf32>) outs(%[[ACC]] : tensor<32x16xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: return %[[Y]]
func.func @transpose_b(%x: tensor<32x64xf32>, %w: tensor<16x64xf32>, %acc: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %e = tensor.empty() : tensor<64x16xf32>
  %t = linalg.transpose ins(%w : tensor<16x64xf32>) outs(%e : tensor<64x16xf32>) permutation = [1, 0]
  %y = linalg.matmul ins(%x, %t : tensor<32x64xf32>, tensor<64x16xf32>) outs(%acc : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %y : tensor<32x16xf32>
}

// -----

// The same for A: map (d2, d0).
// CHECK-DAG: #[[MA:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[MB:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[MC:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @transpose_a
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<64x32xf32>, %[[W:[a-z0-9]+]]: tensor<64x16xf32>, %[[ACC:[a-z0-9]+]]: tensor<32x16xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [#[[MA]], #[[MB]], #[[MC]]] ins(%[[X]], %[[W]] : tensor<64x32xf32>, tensor<64x16xf32>) outs(%[[ACC]] : tensor<32x16xf32>)
func.func @transpose_a(%x: tensor<64x32xf32>, %w: tensor<64x16xf32>, %acc: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %e = tensor.empty() : tensor<32x64xf32>
  %t = linalg.transpose ins(%x : tensor<64x32xf32>) outs(%e : tensor<32x64xf32>) permutation = [1, 0]
  %y = linalg.matmul ins(%t, %w : tensor<32x64xf32>, tensor<64x16xf32>) outs(%acc : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %y : tensor<32x16xf32>
}

// -----

// A batch matmul with a [0, 2, 1] transpose of B: B's map becomes
// (d0, d2, d3).
// CHECK-DAG: #[[MA:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[MB:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[MC:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @batch_transpose_b
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x32x64xf32>, %[[W:[a-z0-9]+]]: tensor<4x16x64xf32>, %[[ACC:[a-z0-9]+]]: tensor<4x32x16xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: linalg.batch_matmul indexing_maps = [#[[MA]], #[[MB]], #[[MC]]] ins(%[[X]], %[[W]] : tensor<4x32x64xf32>, tensor<4x16x64xf32>) outs(%[[ACC]] : tensor<4x32x16xf32>)
func.func @batch_transpose_b(%x: tensor<4x32x64xf32>, %w: tensor<4x16x64xf32>, %acc: tensor<4x32x16xf32>) -> tensor<4x32x16xf32> {
  %e = tensor.empty() : tensor<4x64x16xf32>
  %t = linalg.transpose ins(%w : tensor<4x16x64xf32>) outs(%e : tensor<4x64x16xf32>) permutation = [0, 2, 1]
  %y = linalg.batch_matmul ins(%x, %t : tensor<4x32x64xf32>, tensor<4x64x16xf32>) outs(%acc : tensor<4x32x16xf32>) -> tensor<4x32x16xf32>
  return %y : tensor<4x32x16xf32>
}

// -----

// A transpose that does not swap the last two dimensions ([1, 0, 2]: the
// batch dimension) stays a transpose; the batch matmul keeps its maps.
// CHECK-LABEL: func.func @batch_transpose_other
// CHECK: %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<64x4x16xf32>) outs(%{{.*}} : tensor<4x64x16xf32>) permutation = [1, 0, 2]
// CHECK: linalg.batch_matmul ins(%{{.*}}, %[[T]] : tensor<4x32x64xf32>, tensor<4x64x16xf32>)
func.func @batch_transpose_other(%x: tensor<4x32x64xf32>, %w: tensor<64x4x16xf32>, %acc: tensor<4x32x16xf32>) -> tensor<4x32x16xf32> {
  %e = tensor.empty() : tensor<4x64x16xf32>
  %t = linalg.transpose ins(%w : tensor<64x4x16xf32>) outs(%e : tensor<4x64x16xf32>) permutation = [1, 0, 2]
  %y = linalg.batch_matmul ins(%x, %t : tensor<4x32x64xf32>, tensor<4x64x16xf32>) outs(%acc : tensor<4x32x16xf32>) -> tensor<4x32x16xf32>
  return %y : tensor<4x32x16xf32>
}

// -----

// Nothing fuses into or out of a matmul: the elementwise producer of its
// operand and the elementwise consumer of its result stay separate ops, and
// the matmul stays a linalg.matmul.
// CHECK-LABEL: func.func @matmul_boundary
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<32x64xf32>, %[[W:[a-z0-9]+]]: tensor<64x16xf32>, %[[ACC:[a-z0-9]+]]: tensor<32x16xf32>)
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<32x64xf32>)
// CHECK: math.exp
// CHECK: %[[Y:.*]] = linalg.matmul ins(%[[P]], %[[W]] : tensor<32x64xf32>, tensor<64x16xf32>) outs(%[[ACC]] : tensor<32x16xf32>)
// CHECK: %[[Z:.*]] = linalg.generic {{.*}} ins(%[[Y]] : tensor<32x16xf32>)
// CHECK: math.tanh
// CHECK: return %[[Z]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @matmul_boundary(%x: tensor<32x64xf32>, %w: tensor<64x16xf32>, %acc: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %e = tensor.empty() : tensor<32x64xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x64xf32>) outs(%e : tensor<32x64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %s = math.exp %i : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  %y = linalg.matmul ins(%p, %w : tensor<32x64xf32>, tensor<64x16xf32>) outs(%acc : tensor<32x16xf32>) -> tensor<32x16xf32>
  %e2 = tensor.empty() : tensor<32x16xf32>
  %z = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<32x16xf32>) outs(%e2 : tensor<32x16xf32>) {
  ^bb0(%i: f32, %o: f32):
    %s = math.tanh %i : f32
    linalg.yield %s : f32
  } -> tensor<32x16xf32>
  return %z : tensor<32x16xf32>
}

// -----

// A producer with two uses is not fused into either: it would be computed
// twice.
// CHECK-LABEL: func.func @two_uses
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<64xf32>)
// CHECK: %[[A:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<64xf32>)
// CHECK: math.exp
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<64xf32>)
// CHECK-NOT: math.exp
// CHECK: arith.negf
// CHECK: %[[C:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<64xf32>)
// CHECK-NOT: math.exp
// CHECK: math.sqrt
// CHECK: return %[[B]], %[[C]]
#id = affine_map<(d0) -> (d0)>
func.func @two_uses(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %s = math.exp %i : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %s = arith.negf %i : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %s = math.sqrt %i : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %b, %c : tensor<64xf32>, tensor<64xf32>
}

// -----

// Folding the transpose keeps the matmul's other attributes: an unsigned
// i8 matmul (cast_unsigned) must stay unsigned.
// CHECK-LABEL: func.func @transpose_unsigned
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul
// CHECK-SAME: cast = #linalg.type_fn<cast_unsigned>
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<32x64xi8>, tensor<16x64xi8>)
func.func @transpose_unsigned(%x: tensor<32x64xi8>, %w: tensor<16x64xi8>, %acc: tensor<32x16xi32>) -> tensor<32x16xi32> {
  %e = tensor.empty() : tensor<64x16xi8>
  %t = linalg.transpose ins(%w : tensor<16x64xi8>) outs(%e : tensor<64x16xi8>) permutation = [1, 0]
  %y = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%x, %t : tensor<32x64xi8>, tensor<64x16xi8>) outs(%acc : tensor<32x16xi32>) -> tensor<32x16xi32>
  return %y : tensor<32x16xi32>
}

// -----

// A chain of five pointwise ops fuses in balanced rounds (pairs, then pairs
// of pairs) and comes out as fusing one op at a time makes it: the inputs
// in chain order, the bodies in chain order.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @balanced_chain
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[A:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>, %[[C:.*]]: tensor<8xf32>)
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]], %[[A]], %[[B]], %[[C]] :
// CHECK: ^bb0(%[[IX:.*]]: f32, %[[IA:.*]]: f32, %[[IB:.*]]: f32, %[[IC:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[T0:.*]] = arith.addf %[[IX]], %[[IA]]
// CHECK-NEXT: %[[T1:.*]] = arith.mulf %[[T0]], %[[IB]]
// CHECK-NEXT: %[[T2:.*]] = math.tanh %[[T1]]
// CHECK-NEXT: %[[T3:.*]] = arith.subf %[[T2]], %[[IC]]
// CHECK-NEXT: %[[T4:.*]] = math.exp %[[T3]]
// CHECK-NEXT: linalg.yield %[[T4]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @balanced_chain(%x: tensor<4x8xf32>, %a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %a : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %r = arith.addf %in, %w : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%0, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %r = arith.mulf %in, %w : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.tanh %in : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %3 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%2, %c : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %r = arith.subf %in, %w : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

// -----

// A chain of five one-op bodies: one generic by default; under
// max-body-ops=2, no body holds more than two ops (three generics).
// CHECK-LABEL: func.func @capped_chain
// CHECK: linalg.generic
// CHECK-COUNT-5: {{math.tanh|arith.negf|math.exp}}
// CHECK-NOT: linalg.generic
// CHECK: return
// CAP-LABEL: func.func @capped_chain
// CAP: %[[G1:.*]] = linalg.generic
// CAP-SAME: ins(%{{.*}} : tensor<16xf32>)
// CAP: math.tanh
// CAP-NEXT: arith.negf
// CAP-NEXT: linalg.yield
// CAP: %[[G2:.*]] = linalg.generic
// CAP-SAME: ins(%[[G1]] : tensor<16xf32>)
// CAP: math.exp
// CAP-NEXT: math.tanh
// CAP-NEXT: linalg.yield
// CAP: %[[G3:.*]] = linalg.generic
// CAP-SAME: ins(%[[G2]] : tensor<16xf32>)
// CAP: arith.negf
// CAP-NEXT: linalg.yield
// CAP-NOT: linalg.generic
// CAP: return %[[G3]]
#id = affine_map<(d0) -> (d0)>
func.func @capped_chain(%x: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %a1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = math.tanh %p : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %a2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a1 : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.negf %p : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %a3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a2 : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = math.exp %p : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %a4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a3 : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = math.tanh %p : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %a5 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a4 : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.negf %p : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %a5 : tensor<16xf32>
}

// -----

// A producer read through a broadcast stays a kernel of its own when its
// body is costly (1 / sqrt(v + eps), once per channel, not once per
// element); a cheap one (a shift) still fuses.
#ch = affine_map<(d0, d1) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id1 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @costly_broadcast
// CHECK: %[[INV:.*]] = linalg.generic {indexing_maps = [#{{map[0-9]*}}, #{{map[0-9]*}}], iterator_types = ["parallel"]}
// CHECK: math.sqrt
// CHECK: arith.divf
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %[[INV]], %{{.*}} : tensor<64x16xf32>, tensor<16xf32>, tensor<16xf32>)
// CHECK-NOT: math.sqrt
// CHECK: arith.negf
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
func.func @costly_broadcast(%x: tensor<64x16xf32>, %v: tensor<16xf32>, %m: tensor<16xf32>) -> tensor<64x16xf32> {
  %e1 = tensor.empty() : tensor<16xf32>
  %inv = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%v : tensor<16xf32>) outs(%e1 : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %eps = arith.constant 1.0e-5 : f32
    %one = arith.constant 1.0 : f32
    %s = arith.addf %a, %eps : f32
    %r = math.sqrt %s : f32
    %d = arith.divf %one, %r : f32
    linalg.yield %d : f32
  } -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<16xf32>
  %shift = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%m : tensor<16xf32>) outs(%e2 : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<16xf32>
  %e3 = tensor.empty() : tensor<64x16xf32>
  %y = linalg.generic {indexing_maps = [#id2, #ch, #ch, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %inv, %shift : tensor<64x16xf32>, tensor<16xf32>, tensor<16xf32>) outs(%e3 : tensor<64x16xf32>) {
  ^bb0(%a: f32, %i: f32, %s: f32, %o: f32):
    %c = arith.addf %a, %s : f32
    %p = arith.mulf %c, %i : f32
    linalg.yield %p : f32
  } -> tensor<64x16xf32>
  return %y : tensor<64x16xf32>
}
