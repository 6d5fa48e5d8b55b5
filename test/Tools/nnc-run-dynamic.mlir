// nnc-run compiles a model with dynamic dimensions for the shapes of the
// inputs it is given; the compile cache keeps one executable per set of
// shapes.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npy write %t/x2.npy f4 2x3 0:6
// RUN: %npy write %t/x4.npy f4 4x3 0:12
// RUN: %npy write %t/b.npy f4 3 10,20,30
// RUN: nnc-run %S/Inputs/add-dynamic.mlir --input x=%t/x2.npy \
// RUN:   --input b=%t/b.npy --cache-dir=%t/cache --report \
// RUN:   | FileCheck %s --check-prefix=TWO
// TWO: output_0: f32 [2, 3] = [10, 21, 32, 13, 24, 35]
// TWO: from cache: no
// RUN: %npy npz %t/in.npz x=%t/x4.npy b=%t/b.npy
// RUN: nnc-run %S/Inputs/add-dynamic.mlir --inputs %t/in.npz \
// RUN:   --cache-dir=%t/cache --report | FileCheck %s --check-prefix=FOUR
// FOUR: output_0: f32 [4, 3] = [10, 21, 32, 13, 24, 35, 16, 27, ...]
// FOUR: from cache: no
// RUN: nnc-run %S/Inputs/add-dynamic.mlir --input x=%t/x2.npy \
// RUN:   --input b=%t/b.npy --cache-dir=%t/cache --report \
// RUN:   | FileCheck %s --check-prefix=AGAIN
// AGAIN: output_0: f32 [2, 3] = [10, 21, 32, 13, 24, 35]
// AGAIN: from cache: yes
