// RUN: %nvrtc_env nnc-translate --emit-cuda %s --cuda-arch=sm_80,sm_90,compute_90 > %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %host_cxx -std=c++17 -I %S/Inputs/emulation -include nnc_cuda_emulation.h \
// RUN:   -DKERNELS='"%t.cu"' %S/Inputs/run-emit-cuda-reductions.cpp -o %t.exe
// RUN: %t.exe | FileCheck %s --check-prefix=EMU

// Reductions (linalg's, lowered to loops that fold values into an output)
// spread over threads by how many values a row has: from 1024 a block per
// row (warp shuffles, then the warps' totals in shared memory), from 32 a
// warp per row (shuffles), below that a thread per row. NVRTC compiles
// them; the emulation (fibers, so the shuffles and barriers are real) runs
// them on a grid smaller than the rows, so that the row loops wrap, and the
// values are checked (sums of small integers are exact in any order).

#row = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#all = affine_map<(d0) -> (d0)>
#none = affine_map<(d0) -> ()>

// 3 rows of 40: a warp per row; lanes take every 32nd value, a butterfly
// of shuffles sums them, lane 0 folds the total into the output (filled
// with 1 by the first launch).
// CHECK-LABEL: r0_l1(char *a0, char *a1) {
// CHECK: // 3 rows of 40 values, one warp per row.
// CHECK: for (long long [[ROW:v[0-9]+]] = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; [[ROW]] < 3LL; [[ROW]] += ((long long)gridDim.x * blockDim.x) >> 5) {
// CHECK: float [[ACC:v[0-9]+]] = float();
// CHECK: for (long long [[K:v[0-9]+]] = (long long)(threadIdx.x & 31u); [[K]] < 40LL; [[K]] += 32LL) {
// CHECK: [[ACC]] = [[K]] == (long long)(threadIdx.x & 31u) ? [[V:v[0-9]+]] : [[ACC]] + [[V]];
// CHECK: for (int o = 16; o > 0; o >>= 1)
// CHECK-NEXT: [[ACC]] = [[ACC]] + __shfl_xor_sync(0xffffffffu, [[ACC]], o);
// CHECK: if ((threadIdx.x & 31u) == 0) {
// CHECK-NEXT: [[OUT:v[0-9]+\[.*\]]] = [[ACC]] + [[OUT]];
func.func @r0(%x: memref<3x40xf32>, %s: memref<3xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%s : memref<3xf32>)
  linalg.generic {indexing_maps = [#row, #red], iterator_types = ["parallel", "reduction"]} ins(%x : memref<3x40xf32>) outs(%s : memref<3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  }
  return
}

// 2 rows of 1100, two outputs at once (a sum and a NaN-propagating
// maximum): a block per row, each fold through shared memory.
// CHECK-LABEL: r1_l1(char *a0, char *a1, char *a2) {
// CHECK: // 2 rows of 1100 values, one block per row.
// CHECK: for (long long [[ROW:v[0-9]+]] = (long long)blockIdx.x; [[ROW]] < 2LL; [[ROW]] += (long long)gridDim.x) {
// CHECK: for (long long [[K:v[0-9]+]] = (long long)threadIdx.x; [[K]] < 1100LL; [[K]] += (long long)blockDim.x) {
// CHECK: __shfl_xor_sync
// CHECK: nnc_maximum({{.*}}__shfl_xor_sync
// CHECK: __shared__ float [[SUM:v[0-9]+]]_warps[32];
// CHECK: __shared__ float [[MAX:v[0-9]+]]_warps[32];
// CHECK: __syncthreads();
// CHECK: for (unsigned w = 1; w < (blockDim.x >> 5); ++w)
// CHECK: __syncthreads();
// CHECK: if (threadIdx.x == 0) {
func.func @r1(%x: memref<2x1100xf32>, %s: memref<2xf32>, %m: memref<2xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<2xf32>)
  linalg.fill ins(%ninf : f32) outs(%m : memref<2xf32>)
  linalg.generic {indexing_maps = [#row, #red, #red], iterator_types = ["parallel", "reduction"]} ins(%x : memref<2x1100xf32>) outs(%s, %m : memref<2xf32>, memref<2xf32>) {
  ^bb0(%in: f32, %acc: f32, %mx: f32):
    %a = arith.addf %in, %acc : f32
    %b = arith.maximumf %mx, %in : f32
    linalg.yield %a, %b : f32, f32
  }
  return
}

// Column sums, the reduced loop outermost (a sequential loop around a
// parallel one): once one thread ran it all; now the rows (columns) go
// one per thread, each folded in the nest's order from the output, as on
// the CPU (5 values); with 40 values, one per warp.
// CHECK-LABEL: r2_l1(char *a0, char *a1, char *a2) {
// CHECK: // 3 rows of 5 values, one thread per row.
// CHECK: for (long long [[ROW:v[0-9]+]] = (long long)blockIdx.x * blockDim.x + threadIdx.x; [[ROW]] < 3LL; [[ROW]] += (long long)gridDim.x * blockDim.x) {
// CHECK: float [[ACC:v[0-9]+]] = [[OUT:v[0-9]+\[.*\]]];
// CHECK: for (long long [[K:v[0-9]+]] = 0LL; [[K]] < 5LL; [[K]] += 1LL) {
// CHECK: [[ACC]] = {{v[0-9]+}} + [[ACC]];
// CHECK: [[OUT]] = [[ACC]];
// CHECK-LABEL: r2_l2(char *a0, char *a1, char *a2) {
// CHECK: // 3 rows of 40 values, one warp per row.
func.func @r2(%x: memref<5x3xf32>, %s: memref<3xf32>, %y: memref<40x3xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<3xf32>)
  linalg.generic {indexing_maps = [#row, #col], iterator_types = ["reduction", "parallel"]} ins(%x : memref<5x3xf32>) outs(%s : memref<3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#row, #col], iterator_types = ["reduction", "parallel"]} ins(%y : memref<40x3xf32>) outs(%s : memref<3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  }
  return
}

// Integers (wrapping unsigned arithmetic, as addi is) and a reduction to a
// scalar: one row, one warp.
// CHECK-LABEL: r3_l0(char *a0, char *a1) {
// CHECK: // 1 row of 100 values, one warp per row.
// CHECK: (int)((unsigned int){{v[0-9]+}} + (unsigned int)__shfl_xor_sync(0xffffffffu, {{v[0-9]+}}, o));
func.func @r3(%x: memref<100xi32>, %s: memref<i32>) {
  linalg.generic {indexing_maps = [#all, #none], iterator_types = ["reduction"]} ins(%x : memref<100xi32>) outs(%s : memref<i32>) {
  ^bb0(%in: i32, %acc: i32):
    %a = arith.addi %in, %acc : i32
    linalg.yield %a : i32
  }
  return
}

// Not a fold the emitter regroups (an argmax: the output's value picks
// what is stored): a thread per output, as before.
// CHECK-LABEL: r4_l0(char *a0, char *a1, char *a2) {
// CHECK-NOT: per row
// CHECK: t < 2LL
func.func @r4(%x: memref<2x50xf32>, %m: memref<2xf32>, %i: memref<2xi32>) {
  linalg.generic {indexing_maps = [#row, #red, #red], iterator_types = ["parallel", "reduction"]} ins(%x : memref<2x50xf32>) outs(%m, %i : memref<2xf32>, memref<2xi32>) {
  ^bb0(%in: f32, %mx: f32, %ix: i32):
    %k = linalg.index 1 : index
    %k32 = arith.index_cast %k : index to i32
    %gt = arith.cmpf ogt, %in, %mx : f32
    %nm = arith.select %gt, %in, %mx : f32
    %ni = arith.select %gt, %k32, %ix : i32
    linalg.yield %nm, %ni : f32, i32
  }
  return
}

// Column sums and maxima of 40 values over 4100 columns (from 4096, a
// bias gradient's shape): the rows (columns) go one per lane, 32 adjacent
// ones per block, so that a warp's loads coalesce; the block's warps take
// every W-th value (W warps), and the first warp folds the warps' totals,
// in order, into the outputs. 129 tiles, the last one mostly past the
// rows; the emulation runs them on one block, whose tile loop wraps.
// CHECK-LABEL: r5_l1(char *a0, char *a1, char *a2) {
// CHECK: // 4100 rows of 40 values, a row per lane: 32 rows per block, its warps splitting the values.
// CHECK-NEXT: for (long long [[TILE:v[0-9]+]] = (long long)blockIdx.x; [[TILE]] < 129LL; [[TILE]] += (long long)gridDim.x) {
// CHECK-NEXT: const long long [[ROW:v[0-9]+]] = [[TILE]] * 32LL + (long long)(threadIdx.x & 31u);
// CHECK-NEXT: const bool [[ACTIVE:v[0-9]+]] = [[ROW]] < 4100LL;
// CHECK: if ([[ACTIVE]]) {
// CHECK-NEXT: for (long long [[K:v[0-9]+]] = (long long)(threadIdx.x >> 5); [[K]] < 40LL; [[K]] += (long long)(blockDim.x >> 5)) {
// CHECK: __shared__ float [[ACC:v[0-9]+]]_warps[32][33];
// CHECK: __syncthreads();
// CHECK-NEXT: if (threadIdx.x < 32u && [[ACTIVE]]) {
// CHECK: for (unsigned w = 1; w < (blockDim.x >> 5); ++w)
// CHECK: nnc_maximum
// CHECK: __syncthreads();
func.func @r5(%x: memref<40x4100xf32>, %s: memref<4100xf32>, %m: memref<4100xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<4100xf32>)
  linalg.fill ins(%ninf : f32) outs(%m : memref<4100xf32>)
  linalg.generic {indexing_maps = [#row, #col, #col], iterator_types = ["reduction", "parallel"]} ins(%x : memref<40x4100xf32>) outs(%s, %m : memref<4100xf32>, memref<4100xf32>) {
  ^bb0(%in: f32, %acc: f32, %mx: f32):
    %a = arith.addf %in, %acc : f32
    %b = arith.maximumf %in, %mx : f32
    linalg.yield %a, %b : f32, f32
  }
  return
}

// CHECK: // launch r0_l1 (kernel r0, 2 buffers): 96 iterations, block 256
// CHECK: // launch r1_l1 (kernel r1, 3 buffers): 512 iterations, block 256
// CHECK: // launch r2_l1 (kernel r2, 3 buffers): 3 iterations, block 256
// CHECK: // launch r2_l2 (kernel r2, 3 buffers): 96 iterations, block 256
// CHECK: // launch r3_l0 (kernel r3, 2 buffers): 32 iterations, block 256
// CHECK: // launch r5_l1 (kernel r5, 3 buffers): 33024 iterations, block 256
// CHECK: // nvrtc {{[0-9.]+}} sm_80: cubin, not empty
// CHECK: // nvrtc {{[0-9.]+}} sm_90: cubin, not empty
// CHECK: // nvrtc {{[0-9.]+}} compute_90: ptx, not empty

// EMU: r0: 781 2381 3981
// EMU: r1 sums: 604450 nan
// EMU: r1 maxima: 1099 nan
// EMU: r2: 10 15 20
// EMU: r2 then: 2350 2395 2440
// EMU: r3: -50
// EMU: r4: 49 49 / 49 0
// EMU: r5: ok (column 4099: 970 49)
