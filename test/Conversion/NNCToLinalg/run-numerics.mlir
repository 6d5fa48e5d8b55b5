// RUN: nnc-opt %s --nnc-convert-to-linalg %cpu_pipeline \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s

// Numeric edge cases of the lowering, JIT-executed on the CPU: each one was
// a mismatch with the ONNX reference (numpy) semantics.

func.func @main() {
  // sign(NaN) is NaN.
  // CHECK: [nan, 0, -1, 1, 0]
  %x = nnc.constant dense<[0x7FC00000, -0.0, -2.0, 3.0, 0.0]> : tensor<5xf32>
  %sign = nnc.sign %x : tensor<5xf32>
  %sign_u = tensor.cast %sign : tensor<5xf32> to tensor<*xf32>
  call @print(%sign_u) : (tensor<*xf32>) -> ()

  // rsqrt is 1 / sqrt(x): libm has no rsqrtf to call.
  // CHECK: [2, 1, 0.5]
  %r = nnc.constant dense<[0.25, 1.0, 4.0]> : tensor<3xf32>
  %rsqrt = nnc.rsqrt %r : tensor<3xf32>
  %rsqrt_u = tensor.cast %rsqrt : tensor<3xf32> to tensor<*xf32>
  call @print(%rsqrt_u) : (tensor<*xf32>) -> ()

  // Integer clip bounds outside the element type saturate, not wrap.
  // CHECK: [-128, -5, 0, 100, 127]
  %i = nnc.constant dense<[-128, -5, 0, 100, 127]> : tensor<5xi8>
  %clip = nnc.clip %i {min = -1000.0 : f64, max = 1000.0 : f64} : tensor<5xi8>
  %clipf = nnc.cast %clip : tensor<5xi8> to tensor<5xf32>
  %clipf_u = tensor.cast %clipf : tensor<5xf32> to tensor<*xf32>
  call @print(%clipf_u) : (tensor<*xf32>) -> ()
  // CHECK: [-5, -5, 0, 100, 100]
  %clip2 = nnc.clip %i {min = -5.0 : f64, max = 100.0 : f64} : tensor<5xi8>
  %clip2f = nnc.cast %clip2 : tensor<5xi8> to tensor<5xf32>
  %clip2f_u = tensor.cast %clip2f : tensor<5xf32> to tensor<*xf32>
  call @print(%clip2f_u) : (tensor<*xf32>) -> ()

  // argmax/argmin pick NaN as numpy does: the first one, or the last one
  // with select_last_index.
  // CHECK: {{\[}}[1, 3, 1, 3, 0]]
  %a = nnc.constant dense<[[1.0, 0x7FC00000, 3.0, 0x7FC00000, 2.0]]> : tensor<1x5xf32>
  %am = nnc.arg_reduce argmax %a axis = 1 : tensor<1x5xf32>
  %aml = nnc.arg_reduce argmax %a axis = 1 select_last_index = true : tensor<1x5xf32>
  %an = nnc.arg_reduce argmin %a axis = 1 : tensor<1x5xf32>
  %anl = nnc.arg_reduce argmin %a axis = 1 select_last_index = true : tensor<1x5xf32>
  %b = nnc.constant dense<[[1.0, 3.0, 3.0]]> : tensor<1x3xf32>
  %bm = nnc.arg_reduce argmin %b axis = 1 : tensor<1x3xf32>
  %args = nnc.concat %am, %aml, %an, %anl, %bm axis = 1 : tensor<1x1xi64>, tensor<1x1xi64>, tensor<1x1xi64>, tensor<1x1xi64>, tensor<1x1xi64>
  %argsf = nnc.cast %args : tensor<1x5xi64> to tensor<1x5xf32>
  %argsf_u = tensor.cast %argsf : tensor<1x5xf32> to tensor<*xf32>
  call @print(%argsf_u) : (tensor<*xf32>) -> ()

  // log_sum_exp with an infinite maximum: all -inf gives -inf, a +inf
  // gives +inf (not NaN from inf - inf); an empty reduction gives -inf.
  // CHECK: [-inf, inf, 3.01815]
  %l = nnc.constant dense<[[0xFF800000, 0xFF800000], [0x7F800000, 1.0], [3.0, -1.0]]> : tensor<3x2xf32>
  %lse = nnc.reduce log_sum_exp %l axes = [1] keepdims = false : tensor<3x2xf32>
  %lse_u = tensor.cast %lse : tensor<3xf32> to tensor<*xf32>
  call @print(%lse_u) : (tensor<*xf32>) -> ()
  // CHECK: [-inf, -inf]
  %e = tensor.empty() : tensor<2x0xf32>
  %lse0 = nnc.reduce log_sum_exp %e axes = [1] keepdims = false : tensor<2x0xf32>
  %lse0_u = tensor.cast %lse0 : tensor<2xf32> to tensor<*xf32>
  call @print(%lse0_u) : (tensor<*xf32>) -> ()

  // f16 and bf16 reductions accumulate in f32: a sum of 3000 ones does not
  // stall at 2048, a mean of large values does not overflow.
  // CHECK: [3000]
  %ones = nnc.constant dense<1.0> : tensor<3000xf16>
  %sum = nnc.reduce sum %ones axes = [0] : tensor<3000xf16>
  %sumf = nnc.cast %sum : tensor<1xf16> to tensor<1xf32>
  %sumf_u = tensor.cast %sumf : tensor<1xf32> to tensor<*xf32>
  call @print(%sumf_u) : (tensor<*xf32>) -> ()
  // CHECK: [60000]
  %big = nnc.constant dense<60000.0> : tensor<4xf16>
  %mean = nnc.reduce mean %big axes = [0] : tensor<4xf16>
  %meanf = nnc.cast %mean : tensor<1xf16> to tensor<1xf32>
  %meanf_u = tensor.cast %meanf : tensor<1xf32> to tensor<*xf32>
  call @print(%meanf_u) : (tensor<*xf32>) -> ()
  // CHECK: [3008]
  %bones = nnc.constant dense<1.0> : tensor<3000xbf16>
  %bsum = nnc.reduce sum %bones axes = [0] : tensor<3000xbf16>
  %bsumf = nnc.cast %bsum : tensor<1xbf16> to tensor<1xf32>
  %bsumf_u = tensor.cast %bsumf : tensor<1xf32> to tensor<*xf32>
  call @print(%bsumf_u) : (tensor<*xf32>) -> ()

  // f16 softmax and log_softmax normalize in f32: 1/3000 and log(1/3000).
  // CHECK: [0.000333309]
  %sm = nnc.softmax %ones axis = 0 : tensor<3000xf16>
  %smax = nnc.reduce max %sm axes = [0] : tensor<3000xf16>
  %smf = nnc.cast %smax : tensor<1xf16> to tensor<1xf32>
  %smf_u = tensor.cast %smf : tensor<1xf32> to tensor<*xf32>
  call @print(%smf_u) : (tensor<*xf32>) -> ()
  // CHECK: [-8.00781]
  %lsm = nnc.log_softmax %ones axis = 0 : tensor<3000xf16>
  %lsmax = nnc.reduce max %lsm axes = [0] : tensor<3000xf16>
  %lsmf = nnc.cast %lsmax : tensor<1xf16> to tensor<1xf32>
  %lsmf_u = tensor.cast %lsmf : tensor<1xf32> to tensor<*xf32>
  call @print(%lsmf_u) : (tensor<*xf32>) -> ()
  return
}

func.func @print(%t: tensor<*xf32>) {
  %m = bufferization.to_buffer %t : tensor<*xf32> to memref<*xf32>
  call @printMemrefF32(%m) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
