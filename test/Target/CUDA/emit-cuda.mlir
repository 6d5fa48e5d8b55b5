// RUN: %nvrtc_env nnc-translate --emit-cuda %s --cuda-arch=sm_80,sm_90,compute_90 > %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %host_cxx -std=c++17 -I %S/Inputs/emulation -include nnc_cuda_emulation.h \
// RUN:   -DKERNELS='"%t.cu"' %S/Inputs/run-emit-cuda.cpp -o %t.exe
// RUN: %t.exe | FileCheck %s --check-prefix=EMU

// The CUDA emitter (issue 19, first part): kernels on buffers, lowered to
// loops, as CUDA C++; NVRTC compiles the source for sm_80 and sm_90 (cubins)
// and compute_90 (PTX); the same source, unchanged, compiled by the host
// compiler against a header that emulates CUDA's execution model
// (Inputs/emulation) and run, gives the values of the loops.

// A parallel loop is a grid-stride loop over its iterations (here two per
// thread, with vector loads and stores: emit-cuda-vectors.mlir); a view of
// the arena is a typed pointer at its byte offset; constants keep their
// bits.
// CHECK-LABEL: extern "C" __global__ void __launch_bounds__(256) k0_l0(char *a0, char *a1) {
// CHECK: float *[[X:v[0-9]+]] = (float *)(a0);
// CHECK: signed char *[[A:v[0-9]+]] = (signed char *)(a1);
// CHECK-DAG: const float [[TWO:v[0-9]+]] = __int_as_float(0x40000000);
// CHECK-DAG: float *[[Y:v[0-9]+]] = (float *)((char *)([[A]] + 0) + {{v[0-9]+}});
// CHECK: for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < 3LL; t += (long long)gridDim.x * blockDim.x) {
// CHECK: = expf(
// CHECK: = expf(
// CHECK: *(nnc_vec<float, 2> *)&[[Y]][0 + {{v[0-9]+}} * 1LL] =
#id = affine_map<(d0) -> (d0)>
#row = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#red = affine_map<(d0, d1) -> (d0)>
func.func @k0(%x: memref<6xf32>, %arena: memref<256xi8>) {
  %c64 = arith.constant 64 : index
  %y = memref.view %arena[%c64][] : memref<256xi8> to memref<6xf32>
  %two = arith.constant 2.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : memref<6xf32>) outs(%y : memref<6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    %m = arith.mulf %e, %two : f32
    linalg.yield %m : f32
  }
  return
}

// Two nests, two launches in order: the fill, then the sums (a row of 3
// per thread, folded in a register and stored once).
// CHECK-LABEL: k1_l0(char *a0, char *a1) {
// CHECK: t < 1LL
// CHECK-LABEL: k1_l1(char *a0, char *a1) {
// CHECK: // 2 rows of 3 values, one thread per row.
// CHECK: float [[ACC:v[0-9]+]] = [[S:v[0-9]+]][0 + [[ROW:v[0-9]+]] * 1LL];
// CHECK: for (long long [[K:v[0-9]+]] = 0LL; [[K]] < 3LL; [[K]] += 1LL) {
// CHECK: [[ACC]] = {{v[0-9]+}} + [[ACC]];
// CHECK: [[S]][0 + [[ROW]] * 1LL] = [[ACC]];
func.func @k1(%x: memref<2x3xf32>, %s: memref<2xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<2xf32>)
  linalg.generic {indexing_maps = [#row, #red], iterator_types = ["parallel", "reduction"]} ins(%x : memref<2x3xf32>) outs(%s : memref<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  }
  return
}

// bf16 and f16 are storage: arithmetic in f32, converted at the edges.
// CHECK-LABEL: k2_l0(
// CHECK: __bfloat162float(
// CHECK: tanhf(
// CHECK: __float2half_rn(
func.func @k2(%x: memref<4xbf16>, %y: memref<4xf16>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : memref<4xbf16>) outs(%y : memref<4xf16>) {
  ^bb0(%in: bf16, %out: f16):
    %t = arith.extf %in : bf16 to f32
    %r = math.tanh %t : f32
    %h = arith.truncf %r : f32 to f16
    linalg.yield %h : f16
  }
  return
}

// NaN-propagating maximum, a comparison and a select, and a transposed
// read through a strided view at an offset.
// CHECK-LABEL: k3_l0(
// CHECK: nnc_maximum(
// CHECK: ? {{v[0-9]+}} : {{v[0-9]+}};
func.func @k3(%x: memref<2x3xf32>, %y: memref<3x2xf32>, %z: memref<3x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %slope = arith.constant 0.125 : f32
  linalg.generic {indexing_maps = [#tr, #row, #row], iterator_types = ["parallel", "parallel"]} ins(%x : memref<2x3xf32>) outs(%y, %z : memref<3x2xf32>, memref<3x2xf32>) {
  ^bb0(%in: f32, %o1: f32, %o2: f32):
    %relu = arith.maximumf %in, %zero : f32
    %pos = arith.cmpf ogt, %in, %zero : f32
    %neg = arith.mulf %in, %slope : f32
    %leaky = arith.select %pos, %in, %neg : f32
    linalg.yield %relu, %leaky : f32, f32
  }
  return
}

// Integers: division rounding toward zero, shifts, a cast to float.
// CHECK-LABEL: k4_l0(
func.func @k4(%x: memref<4xi64>, %y: memref<4xf32>) {
  %c3 = arith.constant 3 : i64
  %c1 = arith.constant 1 : i64
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : memref<4xi64>) outs(%y : memref<4xf32>) {
  ^bb0(%in: i64, %out: f32):
    %d = arith.divsi %in, %c3 : i64
    %s = arith.shli %d, %c1 : i64
    %f = arith.sitofp %s : i64 to f32
    linalg.yield %f : f32
  }
  return
}

// A scalar read before the launches, from bytes of the arena no launch
// writes, is read again in each; the 0-d computation runs on one thread.
// CHECK-LABEL: k5_l0(char *a0, char *a1) {
// CHECK: if (blockIdx.x != 0 || threadIdx.x != 0)
// CHECK-LABEL: k5_l1(char *a0, char *a1) {
// CHECK: t < 1LL
func.func @k5(%y: memref<4xf32>, %arena: memref<64xi8>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.view %arena[%c0][] : memref<64xi8> to memref<f32>
  %b = memref.view %arena[%c16][] : memref<64xi8> to memref<f32>
  %v = memref.load %a[] : memref<f32>
  %w = arith.addf %v, %v : f32
  memref.store %w, %b[] : memref<f32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %x = arith.index_cast %i : index to i32
    %f = arith.sitofp %x : i32 to f32
    %r = arith.mulf %f, %v : f32
    memref.store %r, %y[%i] : memref<4xf32>
  }
  return
}

// CHECK: // launch k0_l0 (kernel k0, 2 buffers): 3 iterations, block 256
// CHECK: // launch k1_l0 (kernel k1, 2 buffers): 1 iterations, block 256
// CHECK: // launch k1_l1 (kernel k1, 2 buffers): 2 iterations, block 256
// CHECK: // nvrtc {{[0-9.]+}} sm_80: cubin, not empty
// CHECK: // nvrtc {{[0-9.]+}} sm_90: cubin, not empty
// CHECK: // nvrtc {{[0-9.]+}} compute_90: ptx, not empty

// EMU: k0: 2 5.43656 14.7781 0.735759 2 2
// EMU: k0 arena untouched: yes
// EMU: k1: 6 -1.5
// EMU: k2: 0 0.761719 -0.963867 nan
// EMU: k3 relu: 1 0 3 0 nan 0
// EMU: k3 leaky: 1 -0.25 3 -0.5 nan -0.0625
// EMU: k4: 4 -4 0 -6
// EMU: k5: 3 0 1.5 3 4.5

