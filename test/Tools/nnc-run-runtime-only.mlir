// nnc-run on a compiled .nncx needs only libnnc_runtime: with libnnc made
// unavailable (NNC_COMPILER_LIBRARY names a file that does not exist) it
// gives the same outputs, and what needs the compiler fails naming it.
// (CTest's capi-runtime-only-links checks that nnc-run links no MLIR/LLVM.)
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npy write %t/x.npy f4 2x3 0:6
// RUN: %npy write %t/b.npy f4 3 10,20,30
// RUN: nnc-run %S/Inputs/add.mlir --input x=%t/x.npy --input b=%t/b.npy \
// RUN:   --cache-dir= --save-compiled %t/add.nncx | FileCheck %s
// RUN: env NNC_COMPILER_LIBRARY=%t/none/libnnc.so nnc-run %t/add.nncx \
// RUN:   --input x=%t/x.npy --input b=%t/b.npy | FileCheck %s
// CHECK: output_0: f32 [2, 3] = [10, 21, 32, 13, 24, 35]

// The outputs match bit for bit.
// RUN: nnc-run %S/Inputs/add.mlir --input x=%t/x.npy --input b=%t/b.npy \
// RUN:   --cache-dir= --output %t/compiled.npz
// RUN: env NNC_COMPILER_LIBRARY=%t/none/libnnc.so nnc-run %t/add.nncx \
// RUN:   --input x=%t/x.npy --input b=%t/b.npy --output %t/loaded.npz
// RUN: %npy dump %t/compiled.npz > %t/compiled.txt
// RUN: %npy dump %t/loaded.npz > %t/loaded.txt
// RUN: diff %t/compiled.txt %t/loaded.txt

// Compiling, training and ONNX tensor files need libnnc.
// RUN: not env NNC_COMPILER_LIBRARY=%t/none/libnnc.so nnc-run \
// RUN:   %S/Inputs/add.mlir --input x=%t/x.npy --input b=%t/b.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COMPILE
// COMPILE: nnc-run: error: compiling {{.*}}add.mlir needs libnnc.so: {{.*}}none/libnnc.so
// RUN: not env NNC_COMPILER_LIBRARY=%t/none/libnnc.so nnc-run grad \
// RUN:   %S/Inputs/linear.mlir --inputs %t/batch.npz --save %t/grads.npz 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TRAIN
// TRAIN: importing {{.*}}linear.mlir needs libnnc.so: {{.*}}none/libnnc.so
// RUN: not env NNC_COMPILER_LIBRARY=%t/none/libnnc.so nnc-run %t/add.nncx \
// RUN:   --input x=%t/x.pb 2>&1 | FileCheck %s --check-prefix=PB
// PB: nnc-run: error: reading the ONNX tensor {{.*}}x.pb needs libnnc.so
