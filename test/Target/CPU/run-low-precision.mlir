// f16 and bf16 kernels on the CPU compute what they should: see
// Inputs/low-precision.mlir.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npy write %t/x.npy f4 4 1.00390625,1.01171875,-2.5,70000
// RUN: nnc-run %S/Inputs/low-precision.mlir --input input_0=%t/x.npy \
// RUN:   --cache-dir= | FileCheck %s

// 4096 products of ones: 4096, not the 256 (bf16) or 2048 (f16) a sum in
// the low type would reach.
// CHECK: output_0: f32 [1, 1] = [4096]
// CHECK-NEXT: output_1: f32 [1, 1] = [4096]
// To bf16: 1 + 2^-8 and 1 + 3 * 2^-8 are ties and go to the even neighbour;
// 70000 to the nearest multiple of 512.
// CHECK-NEXT: output_2: f32 [4] = [1, 1.01562, -2.5, 70144]
// To f16: exact, and 70000 overflows to inf.
// CHECK-NEXT: output_3: f32 [4] = [1.00391, 1.01172, -2.5, inf]
// exp(x) + x with each op's result rounded to bf16.
// CHECK-NEXT: output_4: f32 [4] = [3.71875, 3.78125, -2.42188, inf]
