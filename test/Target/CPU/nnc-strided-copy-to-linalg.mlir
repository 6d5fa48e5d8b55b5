// RUN: nnc-opt %s --split-input-file --nnc-strided-copy-to-linalg | FileCheck %s

// A copy into a strided view becomes linalg.copy.
// CHECK-LABEL: func @into_view
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%{{.*}} : memref<2x3xf32>) outs(%{{.*}} : memref<2x3xf32, strided<[5, 1], offset: 6>>)
func.func @into_view(%src: memref<2x3xf32>, %dst: memref<4x5xf32>) {
  %view = memref.subview %dst[1, 1] [2, 3] [1, 1] : memref<4x5xf32> to memref<2x3xf32, strided<[5, 1], offset: 6>>
  memref.copy %src, %view : memref<2x3xf32> to memref<2x3xf32, strided<[5, 1], offset: 6>>
  return
}

// -----

// A copy out of a strided view too.
// CHECK-LABEL: func @from_view
// CHECK: linalg.copy ins(%{{.*}} : memref<2x2xf32, strided<[5, 1], offset: 1>>) outs(%{{.*}} : memref<2x2xf32>)
func.func @from_view(%src: memref<4x5xf32>, %dst: memref<2x2xf32>) {
  %view = memref.subview %src[0, 1] [2, 2] [1, 1] : memref<4x5xf32> to memref<2x2xf32, strided<[5, 1], offset: 1>>
  memref.copy %view, %dst : memref<2x2xf32, strided<[5, 1], offset: 1>> to memref<2x2xf32>
  return
}

// -----

// Contiguous copies stay memref.copy (a memcpy).
// CHECK-LABEL: func @contiguous
// CHECK: memref.copy
// CHECK-NOT: linalg.copy
func.func @contiguous(%src: memref<2x3xf32>, %dst: memref<2x3xf32>) {
  memref.copy %src, %dst : memref<2x3xf32> to memref<2x3xf32>
  return
}
