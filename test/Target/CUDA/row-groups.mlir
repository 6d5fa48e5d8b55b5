// Chains of linalg ops over the same rows with a reduction among them
// (softmax, layer norm) get their ops after the first marked
// nnc.join_kernel, so that the kernel outliner keeps each chain one kernel
// (the emitter's row group, emit-cuda-rows.mlir). What is not such a chain
// stays unmarked.
// RUN: nnc-opt --nnc-cuda-row-groups %s | FileCheck %s
// RUN: nnc-opt --nnc-cuda-row-groups --nnc-outline-kernels %s | FileCheck %s --check-prefix=OUTLINE

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
#col2 = affine_map<(d0, d1) -> (d1)>
#tr2 = affine_map<(d0, d1) -> (d1, d0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#last3 = affine_map<(d0, d1, d2) -> (d2)>

// Softmax: the maximum's fill starts the chain; the maximum, the
// exponentials, the sum's fill, the sum and the division join it. The op
// before (rows of another shape) and the one after (reading another
// row's value: a transpose) are not in it.
// CHECK-LABEL: func.func @softmax(
// CHECK: linalg.generic
// CHECK-NOT: nnc.join_kernel
// CHECK-SAME: ins(%{{.*}} : memref<8x4xf32>)
// CHECK-NEXT: ^bb0
// CHECK: linalg.fill
// CHECK-NOT: nnc.join_kernel
// CHECK-SAME: outs(%[[M:.*]] : memref<4xf32>)
// CHECK-NEXT: linalg.reduce
// CHECK: nnc.join_kernel
// CHECK: linalg.generic {{.*}}nnc.join_kernel
// CHECK: linalg.fill {{.*}}nnc.join_kernel
// CHECK-NEXT: linalg.reduce
// CHECK: nnc.join_kernel
// CHECK: linalg.generic {{.*}}nnc.join_kernel
// CHECK: linalg.generic
// CHECK-NOT: nnc.join_kernel
// CHECK-SAME: indexing_maps = [#{{.*}}, #{{.*}}]
// CHECK: return
// The outliner: the op before, the chain, the op after (buffers are
// arguments here: it runs after memory planning, which leaves no
// allocation).
// OUTLINE-LABEL: func.func @softmax(
// OUTLINE-NEXT: call @softmax_k0
// OUTLINE-NEXT: call @softmax_k1
// OUTLINE-NEXT: call @softmax_k2
// OUTLINE-NEXT: return
func.func @softmax(%a: memref<8x4xf32>, %x: memref<4x40xf32>, %y: memref<4x40xf32>, %z: memref<40x4xf32>, %m: memref<4xf32>, %s: memref<4xf32>, %b: memref<8x4xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%a : memref<8x4xf32>) outs(%b : memref<8x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  linalg.fill ins(%ninf : f32) outs(%m : memref<4xf32>)
  linalg.reduce ins(%x : memref<4x40xf32>) outs(%m : memref<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.maximumf %in, %acc : f32
      linalg.yield %r : f32
    }
  linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %m : memref<4x40xf32>, memref<4xf32>) outs(%y : memref<4x40xf32>) {
  ^bb0(%in: f32, %mx: f32, %o: f32):
    %d = arith.subf %in, %mx : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  }
  linalg.fill ins(%zero : f32) outs(%s : memref<4xf32>)
  linalg.reduce ins(%y : memref<4x40xf32>) outs(%s : memref<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y, %s : memref<4x40xf32>, memref<4xf32>) outs(%y : memref<4x40xf32>) {
  ^bb0(%in: f32, %sm: f32, %o: f32):
    %d = arith.divf %in, %sm : f32
    linalg.yield %d : f32
  }
  linalg.generic {indexing_maps = [#tr2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y : memref<4x40xf32>) outs(%z : memref<40x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  return
}

// Layer norm over the last of three dimensions: the mean (a reduction
// then a division), the deviations, the variance, and the scaling by a
// weight broadcast over the rows. One chain.
// CHECK-LABEL: func.func @layer_norm(
// CHECK: linalg.fill
// CHECK-NOT: nnc.join_kernel
// CHECK-SAME: outs
// CHECK-NEXT: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: nnc.join_kernel
// CHECK-COUNT-4: nnc.join_kernel
// CHECK: return
func.func @layer_norm(%x: memref<2x3x64xf32>, %w: memref<64xf32>, %y: memref<2x3x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %mean = memref.alloc() : memref<2x3xf32>
  %dev = memref.alloc() : memref<2x3x64xf32>
  %var = memref.alloc() : memref<2x3xf32>
  linalg.fill ins(%zero : f32) outs(%mean : memref<2x3xf32>)
  linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : memref<2x3x64xf32>) outs(%mean : memref<2x3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %mean : memref<2x3x64xf32>, memref<2x3xf32>) outs(%dev : memref<2x3x64xf32>) {
  ^bb0(%in: f32, %mu: f32, %o: f32):
    %m = arith.divf %mu, %n : f32
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  }
  linalg.fill ins(%zero : f32) outs(%var : memref<2x3xf32>)
  linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%dev : memref<2x3x64xf32>) outs(%var : memref<2x3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %r = arith.addf %sq, %acc : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id3, #row3, #last3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%dev, %var, %w : memref<2x3x64xf32>, memref<2x3xf32>, memref<64xf32>) outs(%y : memref<2x3x64xf32>) {
  ^bb0(%d: f32, %v: f32, %wv: f32, %o: f32):
    %vn = arith.divf %v, %n : f32
    %r = math.rsqrt %vn : f32
    %s = arith.mulf %d, %r : f32
    %t = arith.mulf %s, %wv : f32
    linalg.yield %t : f32
  }
  return
}

// A column sum is no chain's (its reduced loop comes first: its rows are
// not the leading loops); the subtraction of it from every row starts one
// (the sums broadcast over the rows, indexed by no row), which the
// exponentials and the row sums join. The last op reads nothing the chain
// wrote.
// CHECK-LABEL: func.func @column_then_rows(
// CHECK: linalg.reduce
// CHECK-NOT: nnc.join_kernel
// CHECK-SAME: dimensions = [0]
// CHECK: linalg.generic
// CHECK-NOT: nnc.join_kernel
// CHECK-SAME: outs
// CHECK: linalg.generic {{.*}}nnc.join_kernel
// CHECK: linalg.reduce {{.*}}dimensions = [1] {nnc.join_kernel}
// CHECK: linalg.generic
// CHECK-NOT: nnc.join_kernel
// CHECK: return
func.func @column_then_rows(%x: memref<4x40xf32>, %c: memref<40xf32>, %y: memref<4x40xf32>, %s: memref<4xf32>, %t: memref<4x40xf32>) {
  linalg.reduce ins(%x : memref<4x40xf32>) outs(%c : memref<40xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  linalg.generic {indexing_maps = [#id2, #col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %c : memref<4x40xf32>, memref<40xf32>) outs(%y : memref<4x40xf32>) {
  ^bb0(%in: f32, %cv: f32, %o: f32):
    %d = arith.subf %in, %cv : f32
    linalg.yield %d : f32
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y : memref<4x40xf32>) outs(%y : memref<4x40xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  linalg.reduce ins(%y : memref<4x40xf32>) outs(%s : memref<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x40xf32>) outs(%t : memref<4x40xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}

// Elementwise ops alone are no chain (sibling and elementwise fusion are
// theirs), nor is a reduction followed by ops of other rows (a reduction
// into the first of two dimensions, then a use of it by the second).
// CHECK-LABEL: func.func @not_chains(
// CHECK-NOT: nnc.join_kernel
// CHECK: return
func.func @not_chains(%x: memref<4x40xf32>, %y: memref<4x40xf32>, %s: memref<4xf32>, %z: memref<40x4xf32>) {
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x40xf32>) outs(%y : memref<4x40xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y : memref<4x40xf32>) outs(%y : memref<4x40xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.log %in : f32
    linalg.yield %e : f32
  }
  linalg.reduce ins(%x : memref<4x40xf32>) outs(%s : memref<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, #id2], iterator_types = ["parallel", "parallel"]} ins(%s : memref<4xf32>) outs(%z : memref<40x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  return
}
