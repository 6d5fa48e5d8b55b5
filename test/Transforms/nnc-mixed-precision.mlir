// RUN: nnc-opt %s --split-input-file --nnc-mixed-precision | FileCheck %s
// RUN: nnc-opt %s --split-input-file --nnc-mixed-precision="dtype=f16" \
// RUN:   | FileCheck %s --check-prefix=F16
// RUN: nnc-opt %s --split-input-file \
// RUN:   --nnc-mixed-precision="low-ops=nnc.softmax f32-ops=nnc.matmul" \
// RUN:   | FileCheck %s --check-prefix=OVERRIDE

// A matmul runs in bf16; the relu follows it; the result is cast back to
// the declared f32.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: nnc.mixed_precision = {casts = 3 : i64, dtype = "bf16", f32_ops = 0 : i64, follow_ops = 1 : i64, low_ops = 1 : i64, narrowed_bytes = 128 : i64}
// CHECK: %[[X:.*]] = nnc.cast %arg0 : tensor<8x16xf32> to tensor<8x16xbf16>
// CHECK: %[[W:.*]] = nnc.cast %arg1 : tensor<16x4xf32> to tensor<16x4xbf16>
// CHECK: %[[M:.*]] = nnc.matmul %[[X]], %[[W]] : tensor<8x16xbf16>, tensor<16x4xbf16>
// CHECK: %[[R:.*]] = nnc.relu %[[M]] : tensor<8x4xbf16>
// CHECK: %[[Y:.*]] = nnc.cast %[[R]] : tensor<8x4xbf16> to tensor<8x4xf32>
// CHECK: return %[[Y]]
// F16-LABEL: func.func @linear
// F16: nnc.matmul {{.*}} : tensor<8x16xf16>, tensor<16x4xf16>
// OVERRIDE-LABEL: func.func @linear
// OVERRIDE: nnc.matmul %arg0, %arg1 : tensor<8x16xf32>, tensor<16x4xf32>
func.func @linear(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %0 = nnc.matmul %x, %w : tensor<8x16xf32>, tensor<16x4xf32>
  %1 = nnc.relu %0 : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

// Softmax runs in f32: its input is cast up, and the next matmul reads the
// cast-down softmax. A constant takes the low type by folding; a bias that
// is a parameter is a master weight, used in bf16.
// CHECK-LABEL: func.func @attention_like
// CHECK: %[[M:.*]] = nnc.matmul {{.*}} : tensor<8x16xbf16>, tensor<16x8xbf16>
// CHECK: %[[C:.*]] = nnc.constant dense<1.250000e-01> : tensor<bf16>
// CHECK: %[[S:.*]] = nnc.mul %[[M]], %[[C]] : tensor<8x8xbf16>, tensor<bf16>
// CHECK: %[[B:.*]] = nnc.cast %arg2 : tensor<8xf32> to tensor<8xbf16>
// CHECK: %[[A:.*]] = nnc.add %[[S]], %[[B]] : tensor<8x8xbf16>, tensor<8xbf16>
// CHECK: %[[UP:.*]] = nnc.cast %[[A]] : tensor<8x8xbf16> to tensor<8x8xf32>
// CHECK: %[[P:.*]] = nnc.softmax %[[UP]] {{.*}}: tensor<8x8xf32>
// CHECK: %[[DOWN:.*]] = nnc.cast %[[P]] : tensor<8x8xf32> to tensor<8x8xbf16>
// CHECK: nnc.matmul %[[DOWN]], {{.*}} : tensor<8x8xbf16>, tensor<8x16xbf16>
// OVERRIDE-LABEL: func.func @attention_like
// OVERRIDE: nnc.add {{.*}} : tensor<8x8xf32>, tensor<8xf32>
// OVERRIDE: nnc.softmax {{.*}} : tensor<8x8xbf16>
// OVERRIDE: nnc.matmul {{.*}} : tensor<8x8xf32>, tensor<8x16xf32>
func.func @attention_like(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>,
                          %bias: tensor<8xf32> {nnc.param = #nnc.param<trainable>},
                          %v: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = nnc.matmul %x, %w : tensor<8x16xf32>, tensor<16x8xf32>
  %c = nnc.constant dense<0.125> : tensor<f32>
  %1 = nnc.mul %0, %c : tensor<8x8xf32>, tensor<f32>
  %2 = nnc.add %1, %bias : tensor<8x8xf32>, tensor<8xf32>
  %3 = nnc.softmax %2 : tensor<8x8xf32>
  %4 = nnc.matmul %3, %v : tensor<8x8xf32>, tensor<8x16xf32>
  return %4 : tensor<8x16xf32>
}

// -----

// Mixed operands that are not constants or parameters promote to f32: the
// low one is cast back up, reading the value the cast came from (no
// second rounding). Sums run in f32, maxima follow their input.
// CHECK-LABEL: func.func @promote
// CHECK: %[[M:.*]] = nnc.matmul
// CHECK: %[[UP:.*]] = nnc.cast %[[M]] : tensor<4x4xbf16> to tensor<4x4xf32>
// CHECK: nnc.add %[[UP]], %arg0 : tensor<4x4xf32>, tensor<4x4xf32>
// CHECK: nnc.reduce max %[[M]] {{.*}}: tensor<4x4xbf16>
// CHECK: nnc.reduce sum {{.*}}: tensor<4x4xf32>
func.func @promote(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = nnc.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32>
  %1 = nnc.add %0, %x : tensor<4x4xf32>, tensor<4x4xf32>
  %2 = nnc.reduce max %0 axes = [1] keepdims = false : tensor<4x4xf32>
  %3 = nnc.reduce sum %0 axes = [1] keepdims = false : tensor<4x4xf32>
  return %1, %2, %3 : tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// f64 and integer code is left alone.
// CHECK-LABEL: func.func @other_types
// CHECK-NOT: xbf16
// CHECK: return
func.func @other_types(%x: tensor<4x4xf64>, %i: tensor<4x4xi32>) -> (tensor<4x4xf64>, tensor<4x4xi32>) {
  %0 = nnc.matmul %x, %x : tensor<4x4xf64>, tensor<4x4xf64>
  %1 = nnc.matmul %i, %i : tensor<4x4xi32>, tensor<4x4xi32>
  return %0, %1 : tensor<4x4xf64>, tensor<4x4xi32>
}
