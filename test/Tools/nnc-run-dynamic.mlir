// nnc-run compiles a model with dynamic dimensions for the shapes of the
// inputs it is given, one executable per set of shapes.
//
// XFAIL: *
// nnc_model_compile does not specialize dynamic shapes yet: the compile
// driver (lib/Compiler/Compiler.cpp) parses its shape-inference pipeline as
// "builtin.module(...)" into a module-anchored PassManager, which nests it
// one module too deep, so it never runs. Remove the XFAIL with that fix.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npy write %t/x2.npy f4 2x3 0:6
// RUN: %npy write %t/x4.npy f4 4x3 0:12
// RUN: %npy write %t/b.npy f4 3 10,20,30
// RUN: nnc-run %S/Inputs/add-dynamic.mlir --input x=%t/x2.npy \
// RUN:   --input b=%t/b.npy --cache-dir= | FileCheck %s --check-prefix=TWO
// TWO: output_0: f32 [2, 3] = [10, 21, 32, 13, 24, 35]
// RUN: %npy npz %t/in.npz x=%t/x4.npy b=%t/b.npy
// RUN: nnc-run %S/Inputs/add-dynamic.mlir --inputs %t/in.npz --cache-dir= \
// RUN:   | FileCheck %s --check-prefix=FOUR
// FOUR: output_0: f32 [4, 3] = [10, 21, 32, 13, 24, 35, 16, 27, ...]
