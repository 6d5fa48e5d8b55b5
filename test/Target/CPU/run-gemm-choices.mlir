// f32 matrix products forced onto each kernel choice (nnc.impl = "dnnl",
// "blas", "loops") give the same results, and the libraries did run them:
// see Inputs/gemm-choices.mlir.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npy write %t/x.npy f4 64x96 0:6144
// RUN: nnc-run %S/Inputs/gemm-choices.mlir --input input_0=%t/x.npy \
// RUN:   --cache-dir= --output %t/out.npz
// RUN: %npy dump %t/out.npz | FileCheck %s
// RUN: nnc-run %S/Inputs/gemm-choices.mlir --input input_0=%t/x.npy \
// RUN:   --cache-dir= --profile | FileCheck %s --check-prefix=PROFILE

// CHECK: output_0: f4 [64, 64] = [[P:\[.*\]]]
// CHECK-NEXT: output_1: f4 [64, 64] = [[P]]
// CHECK-NEXT: output_2: f4 [64, 64] = [[P]]
// CHECK-NEXT: output_3: f4 [64, 32] = [[G:\[.*\]]]
// CHECK-NEXT: output_4: f4 [64, 32] = [[G]]
// CHECK-NEXT: output_5: f4 [4, 16, 16] = [[M:\[.*\]]]
// CHECK-NEXT: output_6: f4 [4, 16, 16] = [[M]]

// PROFILE-DAG: main/nnc_dnnl_sgemm: gemm-choices.mlir:20 library 1
// PROFILE-DAG: main/cblas_sgemm: gemm-choices.mlir:21 library 1
// PROFILE-DAG: main/nnc_dnnl_sgemm: gemm-choices.mlir:27 library 1
// PROFILE-DAG: main/nnc_dnnl_sgemm: gemm-choices.mlir:32 library 1
