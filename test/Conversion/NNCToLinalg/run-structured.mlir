// RUN: nnc-opt %s --nnc-convert-to-linalg %cpu_pipeline \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s

// Contractions, reductions, softmax, shape ops and losses lowered to linalg
// and JIT-executed on the CPU.

func.func @main() {
  %a = nnc.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = nnc.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>

  // CHECK: {{\[}}[4, 5],
  // CHECK-NEXT: [10, 11]]
  %mm = nnc.matmul %a, %b : tensor<2x3xf32>, tensor<3x2xf32>
  call @print2x2(%mm) : (tensor<2x2xf32>) -> ()

  // Batched with a broadcast rhs: [2, 2, 3] x [3, 2].
  // CHECK: {{\[}}{{\[}}[4, 5],
  // CHECK-NEXT: [10, 11]],
  // CHECK-NEXT: {{\[}}[-4, -5],
  // CHECK-NEXT: [-10, -11]]]
  %neg = nnc.neg %a : tensor<2x3xf32>
  %a3 = nnc.concat %a, %neg axis = 0 : tensor<2x3xf32>, tensor<2x3xf32>
  %ab = nnc.reshape %a3 : tensor<4x3xf32> -> tensor<2x2x3xf32>
  %bmm = nnc.matmul %ab, %b : tensor<2x2x3xf32>, tensor<3x2xf32>
  call @print2x2x2(%bmm) : (tensor<2x2x2xf32>) -> ()

  // gemm: 2 * a^T^T * b + 0.5 * [1, 2].
  // CHECK: {{\[}}[8.5, 11],
  // CHECK-NEXT: [20.5, 23]]
  %c = nnc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %bt = nnc.transpose %b perm = [1, 0] : tensor<3x2xf32>
  %g = nnc.gemm %a, %bt, %c trans_b = true alpha = 2.0 beta = 0.5
      : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>
  call @print2x2(%g) : (tensor<2x2xf32>) -> ()

  // CHECK: {{\[}}[6],
  // CHECK-NEXT: [15]]
  %sum = nnc.reduce sum %a axes = [1] : tensor<2x3xf32>
  call @print2x1(%sum) : (tensor<2x1xf32>) -> ()
  // CHECK: [2.5, 3.5, 4.5]
  %mean = nnc.reduce mean %a axes = [0] keepdims = false : tensor<2x3xf32>
  call @print3(%mean) : (tensor<3xf32>) -> ()
  // CHECK: [4, 5, 6]
  %max = nnc.reduce max %a axes = [0] keepdims = false : tensor<2x3xf32>
  call @print3(%max) : (tensor<3xf32>) -> ()
  // CHECK: [1, 2, 3]
  %min = nnc.reduce min %a axes = [-2] keepdims = false : tensor<2x3xf32>
  call @print3(%min) : (tensor<3xf32>) -> ()
  // CHECK: [4, 10, 18]
  %prod = nnc.reduce prod %a axes = [0] keepdims = false : tensor<2x3xf32>
  call @print3(%prod) : (tensor<3xf32>) -> ()
  // CHECK: [5, 7, 9]
  %l1 = nnc.reduce l1 %neg axes = [0] keepdims = false : tensor<2x3xf32>
  call @print3(%l1) : (tensor<3xf32>) -> ()
  // CHECK: [4.12311, 5.38516, 6.7082]
  %l2 = nnc.reduce l2 %a axes = [0] keepdims = false : tensor<2x3xf32>
  call @print3(%l2) : (tensor<3xf32>) -> ()
  // CHECK: [17, 29, 45]
  %ss = nnc.reduce sum_square %a axes = [0] keepdims = false : tensor<2x3xf32>
  call @print3(%ss) : (tensor<3xf32>) -> ()
  // log(e^1 + e^4) etc.
  // CHECK: [4.04859, 5.04859, 6.04859]
  %lse = nnc.reduce log_sum_exp %a axes = [0] keepdims = false
      : tensor<2x3xf32>
  call @print3(%lse) : (tensor<3xf32>) -> ()
  // All axes, keepdims: 21.
  // CHECK: {{\[}}[21]]
  %all = nnc.reduce sum %a : tensor<2x3xf32>
  call @print1x1(%all) : (tensor<1x1xf32>) -> ()
  // argmax of [[1, 3, 3], [0, -1, 2]] along 1: first tie wins, last with
  // select_last_index.
  // CHECK: [1, 2]
  // CHECK: [2, 2]
  %t = nnc.constant dense<[[1.0, 3.0, 3.0], [0.0, -1.0, 2.0]]> : tensor<2x3xf32>
  %am = nnc.arg_reduce argmax %t axis = 1 keepdims = false : tensor<2x3xf32>
  %amf = nnc.cast %am : tensor<2xi64> to tensor<2xf32>
  call @print2(%amf) : (tensor<2xf32>) -> ()
  %aml = nnc.arg_reduce argmax %t axis = 1 keepdims = false
      select_last_index = true : tensor<2x3xf32>
  %amlf = nnc.cast %aml : tensor<2xi64> to tensor<2xf32>
  call @print2(%amlf) : (tensor<2xf32>) -> ()
  // CHECK: [1, 1, 1]
  %amin = nnc.arg_reduce argmin %t keepdims = false : tensor<2x3xf32>
  %aminf = nnc.cast %amin : tensor<3xi64> to tensor<3xf32>
  call @print3(%aminf) : (tensor<3xf32>) -> ()

  // CHECK: [0.0900306, 0.244728, 0.665241]
  %v = nnc.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %sm = nnc.softmax %v : tensor<3xf32>
  call @print3(%sm) : (tensor<3xf32>) -> ()
  // Large inputs do not overflow: the maximum is subtracted first.
  // CHECK: [0.0900306, 0.244728, 0.665241]
  %big = nnc.constant dense<[1001.0, 1002.0, 1003.0]> : tensor<3xf32>
  %smb = nnc.softmax %big : tensor<3xf32>
  call @print3(%smb) : (tensor<3xf32>) -> ()
  // CHECK: [-2.40761, -1.40761, -0.407606]
  %lsm = nnc.log_softmax %v : tensor<3xf32>
  call @print3(%lsm) : (tensor<3xf32>) -> ()

  // CHECK: {{\[}}[1, 4],
  // CHECK-NEXT: [2, 5],
  // CHECK-NEXT: [3, 6]]
  %tr = nnc.transpose %a perm = [1, 0] : tensor<2x3xf32>
  call @print3x2(%tr) : (tensor<3x2xf32>) -> ()
  // CHECK: {{\[}}[1, 2],
  // CHECK-NEXT: [3, 4],
  // CHECK-NEXT: [5, 6]]
  %rs = nnc.reshape %a : tensor<2x3xf32> -> tensor<3x2xf32>
  call @print3x2(%rs) : (tensor<3x2xf32>) -> ()
  // CHECK: {{\[}}[1, 2],
  // CHECK-NEXT: [1, 2],
  // CHECK-NEXT: [1, 2]]
  %ex = nnc.expand %c : tensor<2xf32> -> tensor<3x2xf32>
  call @print3x2(%ex) : (tensor<3x2xf32>) -> ()
  // CHECK: {{\[}}[2, 3],
  // CHECK-NEXT: [5, 6]]
  %sl = nnc.slice %a starts = [1] ends = [3] axes = [1] : tensor<2x3xf32>
  call @print2x2(%sl) : (tensor<2x2xf32>) -> ()
  // CHECK: {{\[}}[1, 3],
  // CHECK-NEXT: [4, 6]]
  %sl2 = nnc.slice %a starts = [0] ends = [9223372036854775807] axes = [-1]
      steps = [2] : tensor<2x3xf32>
  call @print2x2(%sl2) : (tensor<2x2xf32>) -> ()
  // CHECK: [-1, 1, 2, 3, -1]
  %pd = nnc.pad %v pads = [1, 1] value = -1.0 : tensor<3xf32>
  call @print5(%pd) : (tensor<5xf32>) -> ()
  // CHECK: [1, 2, 3, 1, 2]
  %cc = nnc.concat %v, %c axis = 0 : tensor<3xf32>, tensor<2xf32>
  call @print5(%cc) : (tensor<5xf32>) -> ()

  // mean((a - 2)^2) = (1 + 0 + 1 + 4 + 9 + 16) / 6
  // CHECK: [5.16667]
  %two = nnc.constant dense<2.0> : tensor<2x3xf32>
  %mse = nnc.mse_loss %a, %two : tensor<2x3xf32>, tensor<2x3xf32>
  %mse1 = nnc.reshape %mse : tensor<f32> -> tensor<1xf32>
  call @print1(%mse1) : (tensor<1xf32>) -> ()
  // Rows [1, 2, 3] and [4, 5, 6] with labels 2 and 0:
  // (0.407606 + 2.40761) / 2.
  // CHECK: [1.40761]
  %labels = nnc.constant dense<[2, 0]> : tensor<2xi64>
  %ce = nnc.cross_entropy %a, %labels : tensor<2x3xf32>, tensor<2xi64>
  %ce1 = nnc.reshape %ce : tensor<f32> -> tensor<1xf32>
  call @print1(%ce1) : (tensor<1xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @print1(%t: tensor<1xf32>) {
  %m = bufferization.to_buffer %t : tensor<1xf32> to memref<1xf32>
  %u = memref.cast %m : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @print2(%t: tensor<2xf32>) {
  %m = bufferization.to_buffer %t : tensor<2xf32> to memref<2xf32>
  %u = memref.cast %m : memref<2xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @print3(%t: tensor<3xf32>) {
  %m = bufferization.to_buffer %t : tensor<3xf32> to memref<3xf32>
  %u = memref.cast %m : memref<3xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @print5(%t: tensor<5xf32>) {
  %m = bufferization.to_buffer %t : tensor<5xf32> to memref<5xf32>
  %u = memref.cast %m : memref<5xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @print2x1(%t: tensor<2x1xf32>) {
  %m = bufferization.to_buffer %t : tensor<2x1xf32> to memref<2x1xf32>
  %u = memref.cast %m : memref<2x1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @print1x1(%t: tensor<1x1xf32>) {
  %m = bufferization.to_buffer %t : tensor<1x1xf32> to memref<1x1xf32>
  %u = memref.cast %m : memref<1x1xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @print2x2(%t: tensor<2x2xf32>) {
  %m = bufferization.to_buffer %t : tensor<2x2xf32> to memref<2x2xf32>
  %u = memref.cast %m : memref<2x2xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @print3x2(%t: tensor<3x2xf32>) {
  %m = bufferization.to_buffer %t : tensor<3x2xf32> to memref<3x2xf32>
  %u = memref.cast %m : memref<3x2xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @print2x2x2(%t: tensor<2x2x2xf32>) {
  %m = bufferization.to_buffer %t : tensor<2x2x2xf32> to memref<2x2x2xf32>
  %u = memref.cast %m : memref<2x2x2xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
