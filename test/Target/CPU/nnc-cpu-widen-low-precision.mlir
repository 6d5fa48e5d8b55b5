// RUN: nnc-opt %s --nnc-cpu-widen-low-precision | FileCheck %s
// RUN: nnc-opt %s --nnc-cpu-widen-low-precision="native-convolutions=1 bf16-gemm=1" | FileCheck %s --check-prefix=NATIVE

// Matrix products and convolutions of f16/bf16 operands compute on f32
// copies and round the result once: products of low-precision values are
// exact in f32, the sums accumulate in f32. The libraries take the f32 op.
// CHECK-LABEL: func.func @matmul
// CHECK-NEXT:    %[[A:.*]] = nnc.cast %arg0 : tensor<8x16xbf16> to tensor<8x16xf32>
// CHECK-NEXT:    %[[B:.*]] = nnc.cast %arg1 : tensor<16x4xbf16> to tensor<16x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = nnc.matmul %[[A]], %[[B]] : tensor<8x16xf32>, tensor<16x4xf32>
// CHECK-NEXT:    %[[R:.*]] = nnc.cast %[[Y]] : tensor<8x4xf32> to tensor<8x4xbf16>
// CHECK-NEXT:    return %[[R]]
// With bf16-gemm a bf16 product stays (the conversion sums it in f32).
// NATIVE-LABEL: func.func @matmul
// NATIVE-NEXT:    nnc.matmul %arg0, %arg1 : tensor<8x16xbf16>, tensor<16x4xbf16>
func.func @matmul(%a: tensor<8x16xbf16>, %b: tensor<16x4xbf16>) -> tensor<8x4xbf16> {
  %0 = nnc.matmul %a, %b : tensor<8x16xbf16>, tensor<16x4xbf16>
  return %0 : tensor<8x4xbf16>
}

// The bias too, and the op's attributes are kept.
// CHECK-LABEL: func.func @gemm
// CHECK:         %[[Y:.*]] = nnc.gemm {{.*}} trans_b = true alpha = 2.000000e+00 : tensor<8x16xf32>, tensor<4x16xf32>, tensor<4xf32>
// CHECK-NEXT:    nnc.cast %[[Y]] : tensor<8x4xf32> to tensor<8x4xf16>
// f16 has no native GEMM.
// NATIVE-LABEL: func.func @gemm
// NATIVE:         nnc.gemm {{.*}} : tensor<8x16xf32>, tensor<4x16xf32>, tensor<4xf32>
func.func @gemm(%a: tensor<8x16xf16>, %b: tensor<4x16xf16>, %c: tensor<4xf16>) -> tensor<8x4xf16> {
  %0 = nnc.gemm %a, %b, %c trans_b = true alpha = 2.0 : tensor<8x16xf16>, tensor<4x16xf16>, tensor<4xf16>
  return %0 : tensor<8x4xf16>
}

// Each use gets its copy right before the op, so that no f32 image of a
// value outlives the op that reads it.
// CHECK-LABEL: func.func @convolutions
// CHECK-NEXT:    %[[X:.*]] = nnc.cast %arg0 : tensor<2x3x8x8xbf16> to tensor<2x3x8x8xf32>
// CHECK-NEXT:    %[[W:.*]] = nnc.cast %arg1 : tensor<4x3x3x3xbf16> to tensor<4x3x3x3xf32>
// CHECK-NEXT:    nnc.conv %[[X]], %[[W]] : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>
// CHECK-NEXT:    nnc.cast {{.*}} to tensor<2x4x6x6xbf16>
// CHECK-NEXT:    %[[G:.*]] = nnc.cast %arg2 : tensor<2x4x6x6xbf16> to tensor<2x4x6x6xf32>
// CHECK-NEXT:    %[[W2:.*]] = nnc.cast %arg1 : tensor<4x3x3x3xbf16> to tensor<4x3x3x3xf32>
// CHECK-NEXT:    nnc.conv_transpose %[[G]], %[[W2]] : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32>
// CHECK-NEXT:    nnc.cast {{.*}} to tensor<2x3x8x8xbf16>
// CHECK-NEXT:    nnc.cast %arg0
// CHECK-NEXT:    nnc.cast %arg2
// CHECK-NEXT:    nnc.conv_weight_grad {{.*}} kernel_shape = [3, 3] : tensor<2x3x8x8xf32>, tensor<2x4x6x6xf32>
// CHECK-NEXT:    nnc.cast {{.*}} to tensor<4x3x3x3xbf16>
// CHECK-NEXT:    return
func.func @convolutions(%x: tensor<2x3x8x8xbf16>, %w: tensor<4x3x3x3xbf16>, %g: tensor<2x4x6x6xbf16>)
    -> (tensor<2x4x6x6xbf16>, tensor<2x3x8x8xbf16>, tensor<4x3x3x3xbf16>) {
  %0 = nnc.conv %x, %w : tensor<2x3x8x8xbf16>, tensor<4x3x3x3xbf16>
  %1 = nnc.conv_transpose %g, %w : tensor<2x4x6x6xbf16>, tensor<4x3x3x3xbf16>
  %2 = nnc.conv_weight_grad %x, %g kernel_shape = [3, 3] : tensor<2x3x8x8xbf16>, tensor<2x4x6x6xbf16>
  return %0, %1, %2 : tensor<2x4x6x6xbf16>, tensor<2x3x8x8xbf16>, tensor<4x3x3x3xbf16>
}

// A product of a rounded product widens the rounded value again.
// CHECK-LABEL: func.func @chained
// CHECK:         %[[Y:.*]] = nnc.matmul {{.*}} : tensor<4x4xf32>, tensor<4x4xf32>
// CHECK-NEXT:    %[[R:.*]] = nnc.cast %[[Y]] : tensor<4x4xf32> to tensor<4x4xbf16>
// CHECK-NEXT:    %[[RW:.*]] = nnc.cast %[[R]] : tensor<4x4xbf16> to tensor<4x4xf32>
// CHECK-NEXT:    nnc.cast %arg0
// CHECK-NEXT:    nnc.matmul %[[RW]],
func.func @chained(%a: tensor<4x4xbf16>) -> tensor<4x4xbf16> {
  %0 = nnc.matmul %a, %a : tensor<4x4xbf16>, tensor<4x4xbf16>
  %1 = nnc.matmul %0, %a : tensor<4x4xbf16>, tensor<4x4xbf16>
  return %1 : tensor<4x4xbf16>
}

// f32 and f64 ops, and other low-precision ops, are left alone.
// CHECK-LABEL: func.func @others
// CHECK-NEXT:    nnc.matmul %arg0, %arg0 : tensor<4x4xf32>, tensor<4x4xf32>
// CHECK-NEXT:    nnc.add %arg1, %arg1 : tensor<4xbf16>, tensor<4xbf16>
func.func @others(%a: tensor<4x4xf32>, %b: tensor<4xbf16>) -> (tensor<4x4xf32>, tensor<4xbf16>) {
  %0 = nnc.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32>
  %1 = nnc.add %b, %b : tensor<4xbf16>, tensor<4xbf16>
  return %0, %1 : tensor<4x4xf32>, tensor<4xbf16>
}

// A constant operand folds to an f32 constant of its (rounded) values.
// CHECK-LABEL: func.func @constant_weight
// CHECK-DAG:     %[[W:.*]] = nnc.constant dense<1.500000e+00> : tensor<4x4xf32>
// CHECK-DAG:     %[[X:.*]] = nnc.cast %arg0 : tensor<2x4xbf16> to tensor<2x4xf32>
// CHECK:         nnc.matmul %[[X]], %[[W]] : tensor<2x4xf32>, tensor<4x4xf32>
func.func @constant_weight(%x: tensor<2x4xbf16>) -> tensor<2x4xbf16> {
  %w = nnc.constant dense<1.5> : tensor<4x4xbf16>
  %0 = nnc.matmul %x, %w : tensor<2x4xbf16>, tensor<4x4xbf16>
  return %0 : tensor<2x4xbf16>
}

// Convolutions that stay widened whatever the CPU has: one whose kernel
// choice is generated code, and a transposed convolution with a
// low-precision bias (the oneDNN glue adds that bias in f32 only).
// NATIVE-LABEL: func.func @widened_anyway
// NATIVE:         nnc.conv {{.*}} {nnc.impl = "per_image"} : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>
// NATIVE:         nnc.conv_transpose {{.*}} : tensor<2x4x6x6xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>
func.func @widened_anyway(%x: tensor<2x3x8x8xbf16>, %w: tensor<4x3x3x3xbf16>, %g: tensor<2x4x6x6xbf16>, %b: tensor<3xbf16>)
    -> (tensor<2x4x6x6xbf16>, tensor<2x3x8x8xbf16>) {
  %0 = nnc.conv %x, %w {nnc.impl = "per_image"} : tensor<2x3x8x8xbf16>, tensor<4x3x3x3xbf16>
  %1 = nnc.conv_transpose %g, %w, %b : tensor<2x4x6x6xbf16>, tensor<4x3x3x3xbf16>, tensor<3xbf16>
  return %0, %1 : tensor<2x4x6x6xbf16>, tensor<2x3x8x8xbf16>
}
