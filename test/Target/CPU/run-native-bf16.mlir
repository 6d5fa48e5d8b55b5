// REQUIRES: cpu-bf16
// bf16 matrix products and convolutions run by oneDNN on the CPU's bf16
// instructions equal the generated loops' results: see
// Inputs/native-bf16.mlir.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npy write %t/x.npy f4 2x4x6x6 0:288
// RUN: nnc-run %S/Inputs/native-bf16.mlir --input input_0=%t/x.npy \
// RUN:   --cache-dir= --output %t/out.npz
// RUN: %npy dump %t/out.npz | FileCheck %s
// RUN: nnc-run %S/Inputs/native-bf16.mlir --input input_0=%t/x.npy \
// RUN:   --cache-dir= --profile | FileCheck %s --check-prefix=PROFILE

// CHECK: output_0: f4 [12, 8] = [[P:\[.*\]]]
// CHECK-NEXT: output_1: f4 [12, 8] = [[P]]
// CHECK-NEXT: output_2: f4 [2, 8, 6, 6] = [[Y:\[.*\]]]
// CHECK-NEXT: output_3: f4 [2, 8, 6, 6] = [[Y]]
// CHECK-NEXT: output_4: f4 [8, 4, 3, 3] = [[G:\[.*\]]]
// CHECK-NEXT: output_5: f4 [8, 4, 3, 3] = [[G]]

// The library did run them.
// PROFILE-DAG: main/nnc_dnnl_sbgemm: native-bf16.mlir:25 library 1
// PROFILE-DAG: main/nnc_dnnl_convolution: native-bf16.mlir:39 library 1
// PROFILE-DAG: main/nnc_dnnl_convolution: native-bf16.mlir:43 library 1
