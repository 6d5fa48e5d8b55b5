// RUN: nnc-opt %s --nnc-convert-to-linalg | FileCheck %s

// nnc.all_reduce becomes the library form into a fresh tensor, never a
// linalg op that fusion could take into a kernel.
// CHECK-LABEL: func.func @graph
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[R:.*]] = nnc.library_all_reduce ins(%{{.*}} : tensor<2x3xf32>) outs(%[[E]] : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: return %[[R]]
func.func @graph(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = nnc.all_reduce %x : tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

