// RUN: nnc-translate --emit-cuda %s | FileCheck %s
//
// Consecutive parallel loops of a kernel that are independent (neither
// writes bytes the other touches) share one launch, their threads one range
// after another: an optimizer's updates of many parameters in one launch
// (multi-tensor). Loops that depend on each other stay launches in order.

#id1 = affine_map<(d0) -> (d0)>

// Two updates of different parameters: one launch, each thread taking 4
// consecutive elements (vector accesses), 1 + 2 threads.
// CHECK-LABEL: void __launch_bounds__(256) updates_l0(
// CHECK: t < 3LL;
// CHECK: if (t < 1LL) {
// CHECK: } else if (t < 3LL) {
// CHECK-NEXT: long long r = t - 1LL;
// CHECK-NOT: updates_l1(
func.func @updates(%w1: memref<4xf32>, %g1: memref<4xf32>, %w2: memref<8xf32>, %g2: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%g1 : memref<4xf32>) outs(%w1 : memref<4xf32>) {
  ^bb0(%g: f32, %w: f32):
    %d = arith.subf %w, %g : f32
    linalg.yield %d : f32
  }
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%g2 : memref<8xf32>) outs(%w2 : memref<8xf32>) {
  ^bb0(%g: f32, %w: f32):
    %d = arith.subf %w, %g : f32
    linalg.yield %d : f32
  }
  return
}

// The second reads what the first writes: two launches.
// CHECK-LABEL: void __launch_bounds__(256) chain_l0(
// CHECK-NOT: else if
// CHECK-LABEL: void __launch_bounds__(256) chain_l1(
func.func @chain(%x: memref<8xf32>, %y: memref<8xf32>, %z: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%x : memref<8xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.mulf %a, %a : f32
    linalg.yield %d : f32
  }
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%y : memref<8xf32>) outs(%z : memref<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.negf %a : f32
    linalg.yield %d : f32
  }
  return
}

// Views of one arena: disjoint byte ranges share a launch; the third loop
// writes bytes the first reads, so it starts the next launch.
// CHECK-LABEL: void __launch_bounds__(256) arena_l0(
// CHECK: t < 4LL;
// CHECK: } else if (t < 4LL) {
// CHECK-LABEL: void __launch_bounds__(256) arena_l1(
// CHECK: t < 2LL;
// CHECK-NOT: else if
// CHECK-NOT: arena_l2(
func.func @arena(%a: memref<128xi8>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c96 = arith.constant 96 : index
  %x = memref.view %a[%c0][] : memref<128xi8> to memref<8xf32>
  %y = memref.view %a[%c32][] : memref<128xi8> to memref<8xf32>
  %p = memref.view %a[%c64][] : memref<128xi8> to memref<8xf32>
  %q = memref.view %a[%c96][] : memref<128xi8> to memref<8xf32>
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%x : memref<8xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %d = arith.addf %v, %v : f32
    linalg.yield %d : f32
  }
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%p : memref<8xf32>) outs(%q : memref<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %d = arith.addf %v, %v : f32
    linalg.yield %d : f32
  }
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%q : memref<8xf32>) outs(%x : memref<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %d = arith.addf %v, %v : f32
    linalg.yield %d : f32
  }
  return
}
