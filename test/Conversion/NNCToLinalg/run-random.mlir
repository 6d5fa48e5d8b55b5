// RUN: nnc-opt %s --nnc-convert-to-linalg %cpu_pipeline \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s

// nnc.random_uniform is Philox4x32-10: element i of stream s under seed k
// is (word 0 of philox(counter = (i, 0, s, 0), key = (k lo, k hi))) >> 8,
// times 2^-24. The expected 24-bit integers come from a transcription of
// the algorithm in Python that reproduces the Random123 known-answer
// vectors (counter 0, key 0 -> 6627e8d5 ...; the pi-digit vector ->
// d16cfe09 ...).

func.func private @printMemrefI64(memref<*xi64>)

func.func @print(%u: tensor<?xf32>) {
  %scale = nnc.constant dense<16777216.0> : tensor<f32>
  %s = nnc.mul %u, %scale : tensor<?xf32>, tensor<f32>
  %i = nnc.cast %s : tensor<?xf32> to tensor<?xi64>
  %buf = bufferization.to_buffer %i : tensor<?xi64> to memref<?xi64>
  %u2 = memref.cast %buf : memref<?xi64> to memref<*xi64>
  call @printMemrefI64(%u2) : (memref<*xi64>) -> ()
  return
}

func.func @main() {
  %seed = nnc.constant dense<42> : tensor<i64>
  %like = nnc.constant dense<0.0> : tensor<2x3xf32>
  // CHECK: [10283760,  16571169,  13855746,  12240644,  5476387,  5282264]
  %a = nnc.random_uniform %seed, %like stream = 0 : tensor<i64>, tensor<2x3xf32>
  %af = nnc.reshape %a : tensor<2x3xf32> -> tensor<6xf32>
  %ad = tensor.cast %af : tensor<6xf32> to tensor<?xf32>
  call @print(%ad) : (tensor<?xf32>) -> ()
  // Another stream, independent numbers.
  // CHECK: [8094554,  9990443,  3577338,  10676937,  2372203,  3870332]
  %b = nnc.random_uniform %seed, %like stream = 5 : tensor<i64>, tensor<2x3xf32>
  %bf = nnc.reshape %b : tensor<2x3xf32> -> tensor<6xf32>
  %bd = tensor.cast %bf : tensor<6xf32> to tensor<?xf32>
  call @print(%bd) : (tensor<?xf32>) -> ()
  // A seed above 2^32 keys both key words; f64 results hold the same values.
  // CHECK: [16424447,  15802308,  8484281,  13766473]
  %big = nnc.constant dense<81985529216486895> : tensor<i64>
  %like64 = nnc.constant dense<0.0> : tensor<4xf64>
  %c = nnc.random_uniform %big, %like64 stream = 1 : tensor<i64>, tensor<4xf64>
  %cf = nnc.cast %c : tensor<4xf64> to tensor<4xf32>
  %cd = tensor.cast %cf : tensor<4xf32> to tensor<?xf32>
  call @print(%cd) : (tensor<?xf32>) -> ()
  return
}
