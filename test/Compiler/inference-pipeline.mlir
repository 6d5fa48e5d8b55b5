// --nnc-inference-pipeline runs exactly what a compile runs: the IR the
// compile driver hands to the shared pipeline (NNC_DUMP_IR's
// <function>.input), put through nnc-opt, prints the same as what the
// driver hands to code generation (.lowered), locations included (the
// kernels are named after them), and with lower=0 the same as
// the planned kernels it reads the plan from (.kernels). The model is the
// demo's CNN: convolutions per image, batch normalization, GEMMs through
// BLAS, fusion and the arena.
// RUN: rm -rf %t && mkdir -p %t/dump %t/seq
// RUN: %npy write %t/image.npy f4 4x1x8x8 0:256
// RUN: env NNC_DUMP_IR=%t/dump nnc-run %nnc_src_root/examples/digits/cnn.onnx \
// RUN:   --input image=%t/image.npy --cache-dir= | FileCheck %s --check-prefix=OUT
// RUN: nnc-opt %t/dump/main.input.mlir --nnc-inference-pipeline --mlir-print-debuginfo -o %t/lowered.mlir
// RUN: diff %t/lowered.mlir %t/dump/main.lowered.mlir
// RUN: nnc-opt %t/dump/main.input.mlir --nnc-inference-pipeline=lower=0 --mlir-print-debuginfo -o %t/kernels.mlir
// RUN: diff %t/kernels.mlir %t/dump/main.kernels.mlir
// RUN: FileCheck %s --input-file=%t/dump/main.lowered.mlir --check-prefix=LOWERED

// Single-threaded kernels (one thread) and no fusion are pipeline options too.
// RUN: env NNC_DUMP_IR=%t/seq nnc-run %nnc_src_root/examples/digits/cnn.onnx \
// RUN:   --input image=%t/image.npy --cache-dir= --threads 1 --no-fuse | FileCheck %s --check-prefix=OUT
// RUN: nnc-opt %t/seq/main.input.mlir --nnc-inference-pipeline="parallel=0 fuse=0" \
// RUN:   --mlir-print-debuginfo -o %t/seq.mlir
// RUN: diff %t/seq.mlir %t/seq/main.lowered.mlir
// RUN: not diff -q %t/seq.mlir %t/lowered.mlir

// An unknown target is refused, naming the registered ones.
// RUN: not nnc-opt %t/dump/main.input.mlir --nnc-inference-pipeline=target=tpu \
// RUN:   2>&1 | FileCheck %s --check-prefix=TARGET

// OUT: {{.*}}: f32 [4, 10]
// LOWERED: llvm.func @main_k0(
// LOWERED-DAG: llvm.call @nnc_dnnl_convolution
// LOWERED-DAG: llvm.call @{{cblas_sgemm|nnc_dnnl_sgemm}}
// The function that calls the kernels is lowered with them.
// LOWERED: llvm.func @main(
// TARGET: unknown target 'tpu' (registered: cpu, cuda)
