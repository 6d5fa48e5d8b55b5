// RUN: %nvrtc_env nnc-translate --emit-cuda %s --cuda-arch=sm_80,sm_90,compute_90 > %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: FileCheck %s --check-prefix=LAUNCH < %t.cu
// RUN: %host_cxx -std=c++17 -I %S/Inputs/emulation -include nnc_cuda_emulation.h \
// RUN:   -DKERNELS='"%t.cu"' %S/Inputs/run-emit-cuda-rows.cpp -o %t.exe
// RUN: %t.exe | FileCheck %s --check-prefix=EMU

// Row groups: consecutive nests over the same rows, one of them at least a
// reduction, where each reads only its own row of what the others write,
// run as one launch. The lanes of a row (a warp from 32 values, a block
// from 1024, else a thread) run the nests one after another, a barrier
// between. NVRTC compiles them; the emulation runs them on grids with
// fewer warps or blocks than rows (the row loops wrap) and the values are
// compared with a reference computed in double.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
#col2 = affine_map<(d0, d1) -> (d1)>
#all1 = affine_map<(d0) -> (d0)>

// Softmax over 4 rows of 40 in the arena: one launch, a warp per row, the
// maximum's fill, the maximum, the exponentials, the sum's fill, the sum
// and the division, in place. The exponentials and the division take 4
// values per lane at a time, with vector loads and stores.
// CHECK-LABEL: void __launch_bounds__(256) r0_l0(char *a0, char *a1) {
// CHECK: // Row group: 4 rows, 6 passes over each, one warp per row.
// CHECK-NEXT: for (long long [[ROW:v[0-9]+]] = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; [[ROW]] < 4LL; [[ROW]] += ((long long)gridDim.x * blockDim.x) >> 5) {
// CHECK-NEXT: // Pass 1: 1 value.
// CHECK: __syncwarp();
// CHECK-NEXT: // Pass 2: a reduction of 40 values.
// CHECK: __shfl_xor_sync
// CHECK: if ((threadIdx.x & 31u) == 0) {
// CHECK: __syncwarp();
// CHECK-NEXT: // Pass 3: 40 values.
// CHECK: for (long long [[K:v[0-9]+]] = (long long)(threadIdx.x & 31u); [[K]] < 10LL; [[K]] += 32LL) {
// CHECK: const nnc_vec<float, 4> [[X:v[0-9]+]] = *(const nnc_vec<float, 4> *)&
// CHECK: expf
// CHECK: *(nnc_vec<float, 4> *)&
// CHECK: __syncwarp();
// CHECK-NEXT: // Pass 4: 1 value.
// CHECK: __syncwarp();
// CHECK-NEXT: // Pass 5: a reduction of 40 values.
// CHECK: __syncwarp();
// CHECK-NEXT: // Pass 6: 40 values.
func.func @r0(%x: memref<4x40xf32>, %arena: memref<1024xi8> {nnc.arena}) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c640 = arith.constant 640 : index
  %c704 = arith.constant 704 : index
  %y = memref.view %arena[%c0][] : memref<1024xi8> to memref<4x40xf32>
  %m = memref.view %arena[%c640][] : memref<1024xi8> to memref<4xf32>
  %s = memref.view %arena[%c704][] : memref<1024xi8> to memref<4xf32>
  linalg.fill ins(%ninf : f32) outs(%m : memref<4xf32>)
  linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x40xf32>) outs(%m : memref<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.maximumf %in, %acc : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %m : memref<4x40xf32>, memref<4xf32>) outs(%y : memref<4x40xf32>) {
  ^bb0(%in: f32, %mx: f32, %o: f32):
    %d = arith.subf %in, %mx : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  }
  linalg.fill ins(%zero : f32) outs(%s : memref<4xf32>)
  linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%y : memref<4x40xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y, %s : memref<4x40xf32>, memref<4xf32>) outs(%y : memref<4x40xf32>) {
  ^bb0(%in: f32, %sm: f32, %o: f32):
    %d = arith.divf %in, %sm : f32
    linalg.yield %d : f32
  }
  return
}

// Layer norm over 3 rows of 1100, scaled by a weight broadcast over the
// rows, into an output argument (the arena shares no bytes with it): a
// block per row, a block-wide reduction (warps' totals in shared memory)
// for the mean and for the variance, __syncthreads between passes, but
// for a pass of one value after a reduction: the thread that stored the
// total runs it.
// CHECK-LABEL: void __launch_bounds__(256) r1_l0(char *a0, char *a1, char *a2, char *a3) {
// CHECK: // Row group: 3 rows, 7 passes over each, one block per row.
// CHECK-NEXT: for (long long [[ROW:v[0-9]+]] = (long long)blockIdx.x; [[ROW]] < 3LL; [[ROW]] += (long long)gridDim.x) {
// CHECK: __shared__ float
// CHECK: __syncthreads();
// CHECK: // Pass 3: 1100 values.
// CHECK: for (long long [[K:v[0-9]+]] = (long long)threadIdx.x; [[K]] < 275LL; [[K]] += (long long)blockDim.x) {
// CHECK: // Pass 5: a reduction of 1100 values.
// CHECK: if (threadIdx.x == 0) {
// CHECK-NOT: __syncthreads
// CHECK: // Pass 6: 1 value.
// CHECK: rsqrtf
// CHECK: // Pass 7: 1100 values.
func.func @r1(%x: memref<3x1100xf32>, %w: memref<1100xf32>, %y: memref<3x1100xf32>, %arena: memref<16384xi8> {nnc.arena}) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 1100.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %mean = memref.view %arena[%c0][] : memref<16384xi8> to memref<3xf32>
  %var = memref.view %arena[%c64][] : memref<16384xi8> to memref<3xf32>
  %dev = memref.view %arena[%c128][] : memref<16384xi8> to memref<3x1100xf32>
  linalg.fill ins(%zero : f32) outs(%mean : memref<3xf32>)
  linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : memref<3x1100xf32>) outs(%mean : memref<3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %mean : memref<3x1100xf32>, memref<3xf32>) outs(%dev : memref<3x1100xf32>) {
  ^bb0(%in: f32, %mu: f32, %o: f32):
    %m = arith.divf %mu, %n : f32
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  }
  linalg.fill ins(%zero : f32) outs(%var : memref<3xf32>)
  linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%dev : memref<3x1100xf32>) outs(%var : memref<3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %a = arith.addf %sq, %acc : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#all1, #all1], iterator_types = ["parallel"]} ins(%var : memref<3xf32>) outs(%var : memref<3xf32>) {
  ^bb0(%v: f32, %o: f32):
    %vn = arith.divf %v, %n : f32
    %ve = arith.addf %vn, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id2, #row2, #col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%dev, %var, %w : memref<3x1100xf32>, memref<3xf32>, memref<1100xf32>) outs(%y : memref<3x1100xf32>) {
  ^bb0(%d: f32, %r: f32, %wv: f32, %o: f32):
    %s = arith.mulf %d, %r : f32
    %t = arith.mulf %s, %wv : f32
    linalg.yield %t : f32
  }
  return
}

// Log-softmax over 5 rows of 10 logits: a thread per row, the passes in
// order on one thread (no barrier), the sums folded from the output in the
// nest's order as on the CPU.
// CHECK-LABEL: void __launch_bounds__(256) r2_l0(char *a0, char *a1) {
// CHECK: // Row group: 5 rows, 6 passes over each, one thread per row.
// CHECK-NEXT: for (long long [[ROW:v[0-9]+]] = (long long)blockIdx.x * blockDim.x + threadIdx.x; [[ROW]] < 5LL; [[ROW]] += (long long)gridDim.x * blockDim.x) {
// CHECK-NOT: __sync
// CHECK: logf
// CHECK-NOT: __sync
func.func @r2(%x: memref<5x10xf32>, %arena: memref<512xi8> {nnc.arena}) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %c320 = arith.constant 320 : index
  %y = memref.view %arena[%c0][] : memref<512xi8> to memref<5x10xf32>
  %m = memref.view %arena[%c256][] : memref<512xi8> to memref<5xf32>
  %s = memref.view %arena[%c320][] : memref<512xi8> to memref<5xf32>
  linalg.fill ins(%ninf : f32) outs(%m : memref<5xf32>)
  linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : memref<5x10xf32>) outs(%m : memref<5xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.maximumf %in, %acc : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %m : memref<5x10xf32>, memref<5xf32>) outs(%y : memref<5x10xf32>) {
  ^bb0(%in: f32, %mx: f32, %o: f32):
    %d = arith.subf %in, %mx : f32
    linalg.yield %d : f32
  }
  linalg.fill ins(%zero : f32) outs(%s : memref<5xf32>)
  linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%y : memref<5x10xf32>) outs(%s : memref<5xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %e = math.exp %in : f32
    %a = arith.addf %e, %acc : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y, %s : memref<5x10xf32>, memref<5xf32>) outs(%y : memref<5x10xf32>) {
  ^bb0(%in: f32, %sm: f32, %o: f32):
    %l = math.log %sm : f32
    %d = arith.subf %in, %l : f32
    linalg.yield %d : f32
  }
  return
}

// Where row groups stop. The sums of r3 are read by the next nest at
// another row (a reversed index): a warp per row could read a row another
// warp has not summed yet, so that nest has a launch of its own after the
// group of the fill and the sums. In r4 the copy after the sum overwrites
// the row the sum read, which is the same row (a barrier orders them),
// but the fill after it writes those bytes as rows of 20, not 40: it has
// a launch of its own. In r5 the sums go to an argument that is no arena
// and may be one buffer with the input (an output donated to it), at
// other offsets of a row: no group.
// CHECK-LABEL: void __launch_bounds__(256) r3_l0(
// CHECK: // Row group: 4 rows, 2 passes over each, one warp per row.
// CHECK: r3_l1(
// CHECK-NOT: Row group
// CHECK-LABEL: void __launch_bounds__(256) r4_l0(
// CHECK: // Row group: 4 rows, 3 passes over each, one warp per row.
// CHECK: r4_l1(
// CHECK-NOT: Row group
// CHECK-LABEL: void __launch_bounds__(256) r5_l0(
// CHECK-NOT: Row group
// CHECK: r5_l1(
// CHECK-NOT: Row group
func.func @r3(%x: memref<4x40xf32>, %y: memref<4x40xf32>, %arena: memref<64xi8> {nnc.arena}) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %s = memref.view %arena[%c0][] : memref<64xi8> to memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<4xf32>)
  linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x40xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (3 - d0)>, #id2], iterator_types = ["parallel", "parallel"]} ins(%s : memref<4xf32>) outs(%y : memref<4x40xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  return
}

func.func @r4(%x: memref<4x40xf32>, %arena: memref<1024xi8> {nnc.arena}) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %c640 = arith.constant 640 : index
  %y = memref.view %arena[%c0][] : memref<1024xi8> to memref<4x40xf32>
  %y20 = memref.view %arena[%c0][] : memref<1024xi8> to memref<4x20xf32>
  %s = memref.view %arena[%c640][] : memref<1024xi8> to memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<4xf32>)
  linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%y : memref<4x40xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x40xf32>) outs(%y : memref<4x40xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.fill ins(%one : f32) outs(%y20 : memref<4x20xf32>)
  return
}

func.func @r5(%x: memref<4x40xf32>, %s: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<4xf32>)
  linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x40xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  }
  return
}

// Vector loads in reductions: a lane takes 4 consecutive values at a time
// when every lane still gets one (a warp's 32 lanes from 128 values, a
// block's up to 1024 from 4096). r6 centers 3 rows of 256 (a warp per
// row: the sum and the subtraction both take 4 values per lane); r7 sums 2
// rows of 4096 (a block per row), alone.
// CHECK-LABEL: void __launch_bounds__(256) r6_l0(
// CHECK: // Row group: 3 rows, 3 passes over each, one warp per row.
// CHECK: // Pass 2: a reduction of 256 values.
// CHECK: for (long long [[K:v[0-9]+]] = (long long)(threadIdx.x & 31u); [[K]] < 64LL; [[K]] += 32LL) {
// CHECK: const nnc_vec<float, 4> [[V:v[0-9]+]] = *(const nnc_vec<float, 4> *)&
// CHECK: [[ACC:v[0-9]+]] = [[K]] == (long long)(threadIdx.x & 31u) ? [[V]].v[0] : [[ACC]] + [[V]].v[0];
// CHECK-NEXT: const long long
// CHECK-NEXT: [[ACC]] = [[ACC]] + [[V]].v[1];
// CHECK: [[ACC]] = [[ACC]] + [[V]].v[3];
// CHECK: // Pass 3: 256 values.
// CHECK: const nnc_vec<float, 4>
// CHECK-LABEL: void __launch_bounds__(256) r7_l1(
// CHECK: // 2 rows of 4096 values, one block per row.
// CHECK: for (long long [[K:v[0-9]+]] = (long long)threadIdx.x; [[K]] < 1024LL; [[K]] += (long long)blockDim.x) {
// CHECK: const nnc_vec<float, 4>
func.func @r6(%x: memref<3x256xf32>, %y: memref<3x256xf32>, %arena: memref<64xi8> {nnc.arena}) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 256.0 : f32
  %c0 = arith.constant 0 : index
  %s = memref.view %arena[%c0][] : memref<64xi8> to memref<3xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<3xf32>)
  linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : memref<3x256xf32>) outs(%s : memref<3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %s : memref<3x256xf32>, memref<3xf32>) outs(%y : memref<3x256xf32>) {
  ^bb0(%in: f32, %sum: f32, %o: f32):
    %m = arith.divf %sum, %n : f32
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  }
  return
}

func.func @r7(%x: memref<2x4096xf32>, %s: memref<2xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<2xf32>)
  linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : memref<2x4096xf32>) outs(%s : memref<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  }
  return
}

// bf16 values take 8 to a vector (16 bytes) where every lane still gets
// one: r9 sums 2 rows of 512 bf16 values into f32, a warp per row.
// CHECK-LABEL: void __launch_bounds__(256) r9_l1(
// CHECK: // 2 rows of 512 values, one warp per row.
// CHECK: for (long long [[K:v[0-9]+]] = (long long)(threadIdx.x & 31u); [[K]] < 64LL; [[K]] += 32LL) {
// CHECK: const nnc_vec<__nv_bfloat16, 8> [[V:v[0-9]+]] = *(const nnc_vec<__nv_bfloat16, 8> *)&
// CHECK: [[V]].v[7]
func.func @r9(%x: memref<2x512xbf16>, %s: memref<2xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<2xf32>)
  linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : memref<2x512xbf16>) outs(%s : memref<2xf32>) {
  ^bb0(%in: bf16, %acc: f32):
    %w = arith.extf %in : bf16 to f32
    %a = arith.addf %w, %acc : f32
    linalg.yield %a : f32
  }
  return
}

// A reduction into one value and the store of its initial value (a 0-d
// fill, scalar code that once was a launch of one thread): one row, one
// launch, the store by the row's first lane.
// CHECK-LABEL: void __launch_bounds__(256) r8_l0(
// CHECK: // Row group: 1 row, 2 passes over each, one warp per row.
// CHECK: // Pass 1: 1 value.
// CHECK-NEXT: if ((long long)(threadIdx.x & 31u) == 0LL) {
// CHECK: // Pass 2: a reduction of 600 values.
func.func @r8(%x: memref<2x300xf32>, %arena: memref<64xi8> {nnc.arena}) {
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %s = memref.view %arena[%c0][] : memref<64xi8> to memref<f32>
  linalg.fill ins(%one : f32) outs(%s : memref<f32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%x : memref<2x300xf32>) outs(%s : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  }
  return
}

// r0, r1, r2, r6 and r8 are one launch each; r3, r4, r5 and r7 are two.
// LAUNCH: launch r0_l0 (kernel r0, 2 buffers): 128 iterations, block 256
// LAUNCH-NEXT: launch r1_l0 (kernel r1, 4 buffers): 768 iterations, block 256
// LAUNCH-NEXT: launch r2_l0 (kernel r2, 2 buffers): 5 iterations, block 256
// LAUNCH-NEXT: launch r3_l0
// LAUNCH-NEXT: launch r3_l1
// LAUNCH-NEXT: launch r4_l0
// LAUNCH-NEXT: launch r4_l1
// LAUNCH-NEXT: launch r5_l0
// LAUNCH-NEXT: launch r5_l1
// LAUNCH-NEXT: launch r6_l0
// LAUNCH-NEXT: launch r7_l0
// LAUNCH-NEXT: launch r7_l1
// LAUNCH-NEXT: launch r9_l0
// LAUNCH-NEXT: launch r9_l1
// LAUNCH-NEXT: launch r8_l0
// LAUNCH-NOT: launch

// EMU: r0: ok
// EMU-NEXT: r1: ok
// EMU-NEXT: r2: ok
// EMU-NEXT: r3: 12780 8780 4780 780
// EMU-NEXT: r4: sums 40 80 120 160; 1 -80 -81 -159
// EMU-NEXT: r5: 40 40 40 40
// EMU-NEXT: r6: ok
// EMU-NEXT: r7: 8386560 16773120
// EMU-NEXT: r8: 179701
// EMU-NEXT: r9: 32512 65024
