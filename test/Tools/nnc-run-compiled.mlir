// nnc-run: compiled executables (--save-compiled, .nncx), --report, --bench,
// --cache-dir and --threads.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npy write %t/x.npy f4 2x3 0:6
// RUN: %npy write %t/b.npy f4 3 10,20,30

// The first compile fills the cache, the second is served from it.
// RUN: nnc-run %S/Inputs/add.mlir --input x=%t/x.npy --input b=%t/b.npy \
// RUN:   --cache-dir %t/cache --report | FileCheck %s --check-prefix=FIRST
// FIRST: output_0: f32 [2, 3] = [10, 21, 32, 13, 24, 35]
// FIRST-NEXT: report:
// FIRST-NEXT:   kernels: {{[1-9][0-9]*}}
// FIRST-NEXT:   library calls: {{[0-9]+}}
// FIRST-NEXT:   code bytes: {{[1-9][0-9]*}}
// FIRST-NEXT:   weight bytes: 0
// FIRST-NEXT:   peak memory bytes: {{[1-9][0-9]*}}
// x (24 bytes) and b (12) read, y (24) written.
// FIRST-NEXT:   arena bytes: 0
// FIRST-NEXT:   kernel allocation bytes: 0
// FIRST-NEXT:   bytes moved: 60
// FIRST-NEXT:   unfused: 1 kernels, 60 bytes moved
// FIRST-NEXT:   compile seconds: {{[0-9]+\.[0-9]+}}
// FIRST-NEXT:   from cache: no
// RUN: nnc-run %S/Inputs/add.mlir --input x=%t/x.npy --input b=%t/b.npy \
// RUN:   --cache-dir=%t/cache --report | FileCheck %s --check-prefix=SECOND
// SECOND: from cache: yes

// Weights are embedded: 6 f32 of w.
// RUN: %npy write %t/eye.npy f4 2x2 1,0,0,1
// RUN: nnc-run %S/Inputs/linear.mlir --input input_0=%t/eye.npy \
// RUN:   --cache-dir= --report --threads 1 | FileCheck %s --check-prefix=WEIGHTS
// WEIGHTS: weight bytes: 24
// WEIGHTS: from cache: no

// --save-compiled writes an executable that runs without the model; its
// shapes are fixed, its inputs keep their names.
// RUN: nnc-run %S/Inputs/add.mlir --input x=%t/x.npy --input b=%t/b.npy \
// RUN:   --cache-dir= --save-compiled %t/add.nncx | FileCheck %s --check-prefix=SAVED
// SAVED: output_0: f32 [2, 3]
// RUN: nnc-run %t/add.nncx --input x=%t/x.npy --input b=%t/b.npy --report \
// RUN:   | FileCheck %s --check-prefix=LOADED
// LOADED: output_0: f32 [2, 3] = [10, 21, 32, 13, 24, 35]
// LOADED: compile seconds: 0.000
// LOADED: from cache: no

// --bench N runs once to warm up, then N times.
// RUN: nnc-run %t/add.nncx --input x=%t/x.npy --input b=%t/b.npy --bench 3 \
// RUN:   | FileCheck %s --check-prefix=BENCH
// BENCH: bench: 3 runs, median {{[0-9]+\.[0-9]+}} ms, min {{[0-9]+\.[0-9]+}} ms
