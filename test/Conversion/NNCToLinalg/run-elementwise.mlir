// RUN: nnc-opt %s --nnc-convert-to-linalg %cpu_pipeline \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s

// Elementwise ops lowered to linalg and JIT-executed on the CPU.

func.func @main() {
  %x = nnc.constant dense<[-2.0, -0.5, 0.0, 1.0, 3.0]> : tensor<5xf32>

  // CHECK: [-0.0455003, -0.154269, 0, 0.841345, 2.99595]
  %gelu = nnc.gelu %x : tensor<5xf32>
  call @print(%gelu) : (tensor<5xf32>) -> ()
  // CHECK: [-0.0454023, -0.154286, 0, 0.841192, 2.99636]
  %gelut = nnc.gelu %x approximation = tanh : tensor<5xf32>
  call @print(%gelut) : (tensor<5xf32>) -> ()
  // CHECK: [0, 0, 0, 1, 3]
  %relu = nnc.relu %x : tensor<5xf32>
  call @print(%relu) : (tensor<5xf32>) -> ()
  // CHECK: [0.119203, 0.377541, 0.5, 0.731059, 0.952574]
  %sig = nnc.sigmoid %x : tensor<5xf32>
  call @print(%sig) : (tensor<5xf32>) -> ()
  // CHECK: [-0.2, -0.05, 0, 1, 3]
  %lrelu = nnc.leaky_relu %x {alpha = 0.1 : f64} : tensor<5xf32>
  call @print(%lrelu) : (tensor<5xf32>) -> ()
  // CHECK: [-1, -0.5, 0, 1, 2]
  %clip = nnc.clip %x {min = -1.0 : f64, max = 2.0 : f64} : tensor<5xf32>
  call @print(%clip) : (tensor<5xf32>) -> ()
  // CHECK: [0.135335, 0.606531, 1, 2.71828, 20.0855]
  %exp = nnc.exp %x : tensor<5xf32>
  call @print(%exp) : (tensor<5xf32>) -> ()
  // CHECK: [-0.964028, -0.462117, 0, 0.761594, 0.995055]
  %tanh = nnc.tanh %x : tensor<5xf32>
  call @print(%tanh) : (tensor<5xf32>) -> ()

  // Comparison, select and casts through i1 and i32.
  %zero = nnc.constant dense<0.0> : tensor<f32>
  %gt = nnc.cmp gt, %x, %zero : tensor<5xf32>, tensor<f32>
  // CHECK: [0, 0, 0, 1, 1]
  %gtf = nnc.cast %gt : tensor<5xi1> to tensor<5xf32>
  call @print(%gtf) : (tensor<5xf32>) -> ()
  // CHECK: [-2, -0.5, 0, 0, 0]
  %w = nnc.where %gt, %zero, %x : tensor<5xi1>, tensor<f32>, tensor<5xf32>
  call @print(%w) : (tensor<5xf32>) -> ()
  // Float to int truncates toward zero.
  // CHECK: [-2, 0, 0, 1, 3]
  %xi = nnc.cast %x : tensor<5xf32> to tensor<5xi32>
  %xf = nnc.cast %xi : tensor<5xi32> to tensor<5xf32>
  call @print(%xf) : (tensor<5xf32>) -> ()

  // Broadcasting binary ops: [2, 1] with [3] gives [2, 3].
  %col = nnc.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %row = nnc.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  // CHECK: {{\[}}[11, 21, 31],
  // CHECK-NEXT: [12, 22, 32]]
  %add = nnc.add %col, %row : tensor<2x1xf32>, tensor<3xf32>
  call @print2(%add) : (tensor<2x3xf32>) -> ()
  // CHECK: {{\[}}[-9, -19, -29],
  // CHECK-NEXT: [-8, -18, -28]]
  %sub = nnc.sub %col, %row : tensor<2x1xf32>, tensor<3xf32>
  call @print2(%sub) : (tensor<2x3xf32>) -> ()
  // CHECK: {{\[}}[0.1, 0.05, 0.0333333],
  // CHECK-NEXT: [0.2, 0.1, 0.0666667]]
  %div = nnc.div %col, %row : tensor<2x1xf32>, tensor<3xf32>
  call @print2(%div) : (tensor<2x3xf32>) -> ()

  // Python-style remainder takes the divisor's sign.
  %a = nnc.constant dense<[7, -7, 7, -7, 6]> : tensor<5xi32>
  %b = nnc.constant dense<[3, 3, -3, -3, 3]> : tensor<5xi32>
  // CHECK: [1, 2, -2, -1, 0]
  %rem = nnc.rem %a, %b : tensor<5xi32>, tensor<5xi32>
  %remf = nnc.cast %rem : tensor<5xi32> to tensor<5xf32>
  call @print(%remf) : (tensor<5xf32>) -> ()
  // Integer abs lowers to arith, which the CPU pipeline compiles
  // (math.absi it could not; found by nnc-graph-fuzz).
  // CHECK: [7, 7, 7, 7, 6]
  %abs = nnc.abs %a : tensor<5xi32>
  %absf = nnc.cast %abs : tensor<5xi32> to tensor<5xf32>
  call @print(%absf) : (tensor<5xf32>) -> ()
  // CHECK: [2, 3, 4, 3, 2]
  %ai = nnc.constant dense<[[1, -1], [-2, 1], [3, -1], [-1, 2], [0, 2]]> : tensor<5x2xi32>
  %l1 = nnc.reduce l1 %ai axes = [1] keepdims = false : tensor<5x2xi32>
  %l1f = nnc.cast %l1 : tensor<5xi32> to tensor<5xf32>
  call @print(%l1f) : (tensor<5xf32>) -> ()
  return
}

func.func @print(%t: tensor<5xf32>) {
  %m = bufferization.to_buffer %t : tensor<5xf32> to memref<5xf32>
  %u = memref.cast %m : memref<5xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @print2(%t: tensor<2x3xf32>) {
  %m = bufferization.to_buffer %t : tensor<2x3xf32> to memref<2x3xf32>
  %u = memref.cast %m : memref<2x3xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
