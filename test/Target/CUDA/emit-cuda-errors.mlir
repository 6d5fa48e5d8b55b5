// RUN: nnc-translate --emit-cuda %s --split-input-file --verify-diagnostics

// What the emitter cannot emit yet is named: a library call (GEMMs go to
// cuBLASLt in the CUDA target, not built yet), a layout known only at run
// time, a dynamic size, a value that is not a buffer among the kernel's
// arguments.

func.func private @cblas_sgemm(i32)
func.func @call(%x: memref<4xf32>) {
  %c = arith.constant 1 : i32
  // expected-error @+1 {{the CUDA emitter cannot emit 'func.call' yet}}
  func.call @cblas_sgemm(%c) : (i32) -> ()
  return
}

// -----

// expected-error @+1 {{CUDA kernels need static layouts, not 'memref<4xf32, strided<[?]>>'}}
func.func @strided(%x: memref<4xf32, strided<[?]>>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %x[%c0] : memref<4xf32, strided<[?]>>
  return
}

// -----

func.func @dynamic(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{the CUDA emitter cannot emit 'memref.dim' yet}}
  %n = memref.dim %x, %c0 : memref<?xf32>
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %zero, %x[%i] : memref<?xf32>
  }
  return
}

// -----

// expected-error @+1 {{CUDA kernels take buffers only, not 'index'}}
func.func @scalar(%x: memref<4xf32>, %n: index) {
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %x[%n] : memref<4xf32>
  return
}

// -----

// A scalar read before a launch that writes its bytes cannot be read again
// in every thread of that launch.
func.func @race(%s: memref<f32>, %y: memref<4xf32>, %arena: memref<64xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.view %arena[%c0][] : memref<64xi8> to memref<4xf32>
  // expected-error @+1 {{the CUDA emitter reads this in every thread of a launch of @race that writes its buffer}}
  %v = memref.load %a[%c1] : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %v, %a[%i] : memref<4xf32>
  }
  return
}

// -----

// Nor after an earlier launch wrote its bytes.
func.func @stale(%y: memref<4xf32>, %arena: memref<64xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.view %arena[%c0][] : memref<64xi8> to memref<4xf32>
  // expected-error @+1 {{the CUDA emitter reads this again in a later launch of @stale, after one that may write its buffer (memref.store)}}
  %v = memref.load %a[%c1] : memref<4xf32>
  memref.store %zero, %a[%c1] : memref<4xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %v, %y[%i] : memref<4xf32>
  }
  return
}
