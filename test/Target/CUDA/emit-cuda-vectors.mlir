// RUN: %nvrtc_env nnc-translate --emit-cuda %s --cuda-arch=sm_80,sm_90,compute_90 > %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %host_cxx -std=c++17 -I %S/Inputs/emulation -include nnc_cuda_emulation.h \
// RUN:   -DKERNELS='"%t.cu"' %S/Inputs/run-emit-cuda-vectors.cpp -o %t.exe
// RUN: %t.exe | FileCheck %s --check-prefix=EMU

// A parallel nest whose innermost loop walks its stores contiguously hands
// each thread 8, 4 or 2 consecutive iterations: loads and stores of
// consecutive, aligned elements become one vector access (nnc_vec, 16
// bytes at most: ld.global.v4.f32, 8 halves), the rest runs once per
// iteration, in order. NVRTC compiles every form; the emulation runs them and the
// values are checked.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>

// 3x8 plus a row vector: 6 threads of 4; the bias is read as a vector too.
// CHECK-LABEL: v0_l0(char *a0, char *a1, char *a2) {
// CHECK: t < 6LL;
// CHECK: const long long [[J:v[0-9]+]] = 0LL + (r % 2LL) * 4LL;
// CHECK: const long long [[I:v[0-9]+]] = 0LL + (r % 3LL) * 1LL;
// CHECK: const nnc_vec<float, 4> [[X:v[0-9]+]] = *(const nnc_vec<float, 4> *)&{{v[0-9]+}}[0 + [[I]] * 8LL + [[J]] * 1LL];
// CHECK: const nnc_vec<float, 4> [[B:v[0-9]+]] = *(const nnc_vec<float, 4> *)&{{v[0-9]+}}[0 + [[J]] * 1LL];
// CHECK: = [[X]].v[0] + [[B]].v[0];
// CHECK-NEXT: = [[X]].v[1] + [[B]].v[1];
// CHECK: = [[X]].v[3] + [[B]].v[3];
// CHECK: nnc_vec<float, 4> [[S:v[0-9]+]];
// CHECK-NEXT: [[S]].v[0] = {{v[0-9]+}};
// CHECK: *(nnc_vec<float, 4> *)&{{v[0-9]+}}[0 + [[I]] * 8LL + [[J]] * 1LL] = [[S]];
func.func @v0(%x: memref<3x8xf32>, %b: memref<8xf32>, %y: memref<3x8xf32>) {
  linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %b : memref<3x8xf32>, memref<8xf32>) outs(%y : memref<3x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  }
  return
}

// A transpose: the store is a vector, the loads (a column) one per lane.
// CHECK-LABEL: v1_l0(char *a0, char *a1) {
// CHECK: t < 8LL;
// CHECK-NOT: const nnc_vec
// CHECK: *(nnc_vec<float, 4> *)&
func.func @v1(%x: memref<8x4xf32>, %y: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [#tr, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x4xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}

// f64 rows of 6: two per thread (16 bytes); f32 rows of 6 as well (6 is
// not a multiple of 4). The two nests touch different buffers: one launch
// takes both, threads 0-5 the first, 6-11 the second.
// CHECK-LABEL: v2_l0(char *a0, char *a1, char *a2, char *a3) {
// CHECK: t < 12LL;
// CHECK: if (t < 6LL) {
// CHECK-NEXT: long long r = t - 0LL;
// CHECK: const nnc_vec<double, 2>
// CHECK: *(nnc_vec<double, 2> *)&
// CHECK: } else if (t < 12LL) {
// CHECK-NEXT: long long r = t - 6LL;
// CHECK: const nnc_vec<float, 2>
// CHECK: *(nnc_vec<float, 2> *)&
// CHECK-NOT: v2_l1(
func.func @v2(%x: memref<2x6xf64>, %y: memref<2x6xf64>, %p: memref<2x6xf32>, %q: memref<2x6xf32>) {
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : memref<2x6xf64>) outs(%y : memref<2x6xf64>) {
  ^bb0(%a: f64, %o: f64):
    %s = arith.mulf %a, %a : f64
    linalg.yield %s : f64
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%p : memref<2x6xf32>) outs(%q : memref<2x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.negf %a : f32
    linalg.yield %s : f32
  }
  return
}

// Rows of 5: one iteration per thread, as before.
// CHECK-LABEL: v3_l0(char *a0, char *a1) {
// CHECK: t < 10LL;
// CHECK-NOT: nnc_vec
// CHECK: }
func.func @v3(%x: memref<2x5xf32>, %y: memref<2x5xf32>) {
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : memref<2x5xf32>) outs(%y : memref<2x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  return
}

// A load after a store of the same bytes: the stores would come too late
// for it, so one iteration per thread.
// CHECK-LABEL: v4_l0(char *a0, char *a1) {
// CHECK: t < 8LL;
// CHECK-NOT: nnc_vec
// CHECK: }
func.func @v4(%x: memref<8xf32>, %y: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %a = memref.load %x[%i] : memref<8xf32>
    %d = arith.mulf %a, %two : f32
    memref.store %d, %x[%i] : memref<8xf32>
    %b = memref.load %x[%i] : memref<8xf32>
    %e = arith.addf %b, %two : f32
    memref.store %e, %y[%i] : memref<8xf32>
    scf.reduce
  }
  return
}

// Views of an arena: at byte 16 a vector of 4 fits; at byte 52 (aligned to
// 4 bytes only) no vector does, so the nest storing there takes one
// iteration per thread.
// CHECK-LABEL: v5_l0(char *a0, char *a1) {
// CHECK: t < 2LL;
// CHECK: const nnc_vec<float, 4>
// CHECK: *(nnc_vec<float, 4> *)&
// CHECK-LABEL: v5_l1(char *a0, char *a1) {
// CHECK: t < 8LL;
// CHECK-NOT: nnc_vec
// CHECK: }
func.func @v5(%x: memref<8xf32>, %arena: memref<96xi8>) {
  %c52 = arith.constant 52 : index
  %c16 = arith.constant 16 : index
  %at16 = memref.view %arena[%c16][] : memref<96xi8> to memref<8xf32>
  %at52 = memref.view %arena[%c52][] : memref<96xi8> to memref<8xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : memref<8xf32>) outs(%at16 : memref<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%at16 : memref<8xf32>) outs(%at52 : memref<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  return
}

// f16 and bf16: eight halves (16 bytes) per access.
// CHECK-LABEL: v6_l0(char *a0, char *a1) {
// CHECK: t < 2LL;
// CHECK: const nnc_vec<__half, 8>
// CHECK: *(nnc_vec<__nv_bfloat16, 8> *)&
func.func @v6(%x: memref<2x8xf16>, %y: memref<2x8xbf16>) {
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : memref<2x8xf16>) outs(%y : memref<2x8xbf16>) {
  ^bb0(%a: f16, %o: bf16):
    %w = arith.extf %a : f16 to f32
    %s = arith.mulf %w, %w : f32
    %n = arith.truncf %s : f32 to bf16
    linalg.yield %n : bf16
  }
  return
}

// f32 in, bf16 out (a cast of mixed precision): 8 would take the bf16
// store but leave the f32 loads scalar; 4 takes both (float4 loads, 8-byte
// stores).
// CHECK-LABEL: v9_l0(char *a0, char *a1) {
// CHECK: t < 4LL;
// CHECK: const nnc_vec<float, 4>
// CHECK: *(nnc_vec<__nv_bfloat16, 4> *)&
func.func @v9(%x: memref<2x8xf32>, %y: memref<2x8xbf16>) {
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : memref<2x8xf32>) outs(%y : memref<2x8xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %s = arith.mulf %a, %a : f32
    %n = arith.truncf %s : f32 to bf16
    linalg.yield %n : bf16
  }
  return
}

// The induction variable may index any dimension of stride 1; constant
// indices count by their value: [1, i] of 2x6 is 6 floats in, aligned to
// 8 bytes, so two per thread.
// CHECK-LABEL: v7_l0(char *a0, char *a1) {
// CHECK: t < 2LL;
// CHECK: const nnc_vec<float, 2> {{v[0-9]+}} = *(const nnc_vec<float, 2> *)&
// CHECK: *(nnc_vec<float, 2> *)&
func.func @v7(%x: memref<1x8x1x1xf32>, %y: memref<2x6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %a = memref.load %x[%c0, %i, %c0, %c0] : memref<1x8x1x1xf32>
    memref.store %a, %y[%c1, %i] : memref<2x6xf32>
    scf.reduce
  }
  return
}

// A body that reads the induction variable: each lane has its own.
// CHECK-LABEL: v8_l0(char *a0) {
// CHECK: t < 2LL;
// CHECK: const long long [[I:v[0-9]+]] = 0LL + (r % 2LL) * 4LL;
// CHECK: = (int)[[I]];
// CHECK: const long long [[I1:v[0-9]+]] = [[I]] + 1LL;
// CHECK: = (int)[[I1]];
// CHECK: *(nnc_vec<float, 4> *)&
func.func @v8(%y: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %n = arith.index_cast %i : index to i32
    %f = arith.sitofp %n : i32 to f32
    memref.store %f, %y[%i] : memref<8xf32>
    scf.reduce
  }
  return
}

// EMU: v0: 0 11 22 33 44 55 66 77 | 8 19 30 41 52 63 74 85 | 16 27 38 49 60 71 82 93
// EMU-NEXT: v1: 0 4 8 12 16 20 24 28 | 1 5 9 13 17 21 25 29 | 2 6 10 14 18 22 26 30 | 3 7 11 15 19 23 27 31
// EMU-NEXT: v2: 0 1 4 9 16 25 36 49 64 81 100 121 | -0 -1 -2 -3 -4 -5 -6 -7 -8 -9 -10 -11
// EMU-NEXT: v3: 0 2 4 6 8 10 12 14 16 18
// EMU-NEXT: v4: x 0 2 4 6 8 10 12 14 y 2 4 6 8 10 12 14 16
// EMU-NEXT: v5: 0 4 8 12 16 20 24 28
// EMU-NEXT: v6: 0 1 4 9 16 25 36 49 64 81 100 121 144 169 196 225
// EMU-NEXT: v7: 0 0 0 0 0 0 | 0 1 2 3 0 0
// EMU-NEXT: v8: 0 1 2 3 4 5 6 7
// EMU-NEXT: v9: 0 1 4 9 16 25 36 49 64 81 100 121 144 169 196 225
