// A value returned more than once (an output that is also another output,
// an ONNX Identity of an output) gets a buffer per result: each repetition
// after the first is a copy, for static and dynamic shapes, constants and
// arguments alike; the function compiles and runs with every result right.
// RUN: nnc-opt %s --split-input-file --nnc-distinct-results | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npy write %t/x.npy f4 2x3 0:6
// RUN: %npy write %t/b.npy f4 3 10,20,30
// RUN: nnc-run %S/Inputs/repeated-results.mlir --input x=%t/x.npy \
// RUN:   --input b=%t/b.npy --cache-dir= | FileCheck %s --check-prefix=OUT
// RUN: nnc-translate --import-onnx-text %S/Inputs/repeated-outputs.onnxtxt \
// RUN:   -o %t/onnx.mlir
// RUN: %npy write %t/xn.npy f4 2x3 -3:3
// RUN: nnc-run %t/onnx.mlir --input input_0=%t/xn.npy --cache-dir= \
// RUN:   | FileCheck %s --check-prefix=ONNX
// ONNX: y: f32 [2, 3] = [0, 0, 0, 0, 1, 2]
// ONNX-NEXT: z: f32 [2, 3] = [0, 0, 0, 0, 1, 2]
// ONNX-NEXT: y_1: f32 [2, 3] = [0, 0, 0, 0, 1, 2]
// RUN: nnc-opt %S/Inputs/repeated-results-static.mlir --nnc-lower-to-llvm \
// RUN:   | FileCheck %s --check-prefix=LLVM
// LLVM: llvm.func @main_k0(

// CHECK-LABEL: func.func @twice
// CHECK: %[[Y:.*]] = nnc.relu
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[C:.*]] = linalg.copy ins(%[[Y]] : tensor<2x3xf32>) outs(%[[E]] : tensor<2x3xf32>)
// CHECK: return %[[Y]], %[[C]]
func.func @twice(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %y = nnc.relu %x : tensor<2x3xf32>
  return %y, %y : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @dynamic
// CHECK: %[[D:.*]] = tensor.dim %[[X:.*]], %{{.*}} : tensor<?x3xf32>
// CHECK: tensor.empty(%[[D]]) : tensor<?x3xf32>
// CHECK: linalg.copy
// CHECK: tensor.empty(%{{.*}}) : tensor<?x3xf32>
// CHECK: linalg.copy
// CHECK-NOT: linalg.copy
// CHECK: return
func.func @dynamic(%x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>) {
  %y = nnc.relu %x : tensor<?x3xf32>
  return %y, %x, %y, %y : tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>
}

// OUT-LABEL: output_0: f32 [2, 3] = [10, 21, 32, 13, 24, 35]
// OUT-NEXT: output_1: f32 [2, 3] = [10, 21, 32, 13, 24, 35]
// OUT-NEXT: output_2: f32 [2, 3] = [10, 21, 32, 13, 24, 35]
// OUT-NEXT: output_3: f32 [3] = [1, 2, 3]
// OUT-NEXT: output_4: f32 [3] = [1, 2, 3]
// OUT-NEXT: output_5: f32 [2, 3] = [0, 1, 2, 3, 4, 5]
// OUT-NEXT: output_6: f32 [2, 3] = [0, 1, 2, 3, 4, 5]
