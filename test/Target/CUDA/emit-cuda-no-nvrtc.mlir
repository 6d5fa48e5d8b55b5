// RUN: env NNC_NVRTC_LIBRARY=/nonexistent/libnvrtc.so.13 not nnc-translate --emit-cuda %s --cuda-arch=sm_80 -o /dev/null 2>&1 | FileCheck %s

// Without NVRTC the source is still emitted, but compiling it fails
// naming the library and where it was looked for.
// CHECK: error: cannot load NVRTC, which compiles the CUDA target's kernels (the CUDA toolkit's libnvrtc.so; or set NNC_NVRTC_LIBRARY)
// CHECK: /nonexistent/libnvrtc.so.13
func.func @k(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %x[%c0] : memref<4xf32>
  return
}
