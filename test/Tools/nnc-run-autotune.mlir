// nnc-run --autotune (docs/Autotuning.md) on the digits CNN, whose two
// convolutions and two GEMMs are the kernels with candidates: `on` measures every
// candidate and writes the tuning database next to the compile cache;
// `cached` (the default) then reads the choices back without measuring;
// `require` fails naming the kernels a database lacks, and passes where it
// has them; `off` keeps the cost model's defaults; a damaged entry is
// ignored with a warning; another shape is another key. The logits are the
// same whatever the kernels chosen.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npy write %t/image.npy f4 4x1x8x8 0:256
// RUN: %npy write %t/image2.npy f4 2x1x8x8 0:128

// RUN: nnc-run %nnc_src_root/examples/digits/cnn.onnx --input image=%t/image.npy \
// RUN:   --cache-dir %t/cache --autotune=on --report \
// RUN:   | FileCheck %s --check-prefixes=LOGITS,ON
// LOGITS: logits: f32 [4, 10] = [1.88467, 3.74823, 1.54678, -1.05356,
// Each kernel shows what the check of the whole program made of it: the
// default measured fastest (no check), another candidate kept by the
// program, or turned down by it (the default compiled). The check's line
// follows when some kernel's choice was in question.
// ON: autotune: 4 kernels with candidates, {{[0-9.]+}} s measuring
// ON-NEXT: conv 4x1x8x8 f32, 16x1x3x3 f32 -> 4x16x8x8 f32 {{.*}}: {{(library [0-9.]+ ms \(default library [0-9.]+ ms\) \[measured(, turned down by the program)?\]|(library_winograd|per_image|gemm|loops) [0-9.]+ ms \(default library [0-9.]+ ms\) \[measured, kept by the program\])}}
// ON-NEXT: conv 4x16x8x8 f32, 32x16x3x3 f32 -> {{.*}}: {{(library [0-9.]+ ms \(default library [0-9.]+ ms\) \[measured(, turned down by the program)?\]|(library_winograd|per_image|gemm|loops) [0-9.]+ ms \(default library [0-9.]+ ms\) \[measured, kept by the program\])}}
// ON-NEXT: gemm 4x512 f32, 64x512 f32, 64 f32 -> 4x64 f32 alpha 1 beta 1 trans_a false trans_b true: {{(default [0-9.]+ ms \(default default [0-9.]+ ms\) \[measured(, turned down by the program)?\]|(dnnl|blas|loops) [0-9.]+ ms \(default default [0-9.]+ ms\) \[measured, kept by the program\])}}
// ON-NEXT: gemm 4x64 f32, 10x64 f32, 10 f32 -> 4x10 f32 {{.*}}: {{(default [0-9.]+ ms \(default default [0-9.]+ ms\) \[measured(, turned down by the program)?\]|(dnnl|blas|loops) [0-9.]+ ms \(default default [0-9.]+ ms\) \[measured, kept by the program\])}}
// ON-NEXT: {{autotune: program check: [0-9]+ of [1-4] changed kernels kept \([1-4] sets timed\): [0-9.]+ ms with the defaults, [0-9.]+ ms with (those kept|all of them)| specialization: }}

// Every candidate is in the database, with its median.
// RUN: FileCheck %s --check-prefix=DB < %t/cache/tuning.nnctune
// DB: nnc-tuning-database 1
// DB-NEXT: {{[0-9a-f]+}}	{{[a-z_]+}}	library	library={{[0-9.e-]+}},{{(library_winograd=[0-9.e-]+,)?}}per_image={{[0-9.e-]+}},gemm={{[0-9.e-]+}},loops={{[0-9.e-]+}}	conv 4x1x8x8 f32
// DB-NEXT: {{[0-9a-f]+}}	{{[a-z_]+}}	library	library=
// DB-NEXT: {{[0-9a-f]+}}	{{[a-z_]+}}	default	default={{[0-9.e-]+}},{{(dnnl=[0-9.e-]+,)?}}blas={{[0-9.e-]+}},loops={{[0-9.e-]+}}	gemm 4x512 f32

// RUN: nnc-run %nnc_src_root/examples/digits/cnn.onnx --input image=%t/image.npy \
// RUN:   --cache-dir %t/cache --report | FileCheck %s --check-prefixes=LOGITS,CACHED
// CACHED: autotune: 4 kernels with candidates, 0.00 s measuring
// CACHED-NEXT: conv 4x1x8x8 {{.*}} [database]
// CACHED-NEXT: conv 4x16x8x8 {{.*}} [database]
// CACHED-NEXT: gemm 4x512 {{.*}} [database]
// CACHED-NEXT: gemm 4x64 {{.*}} [database]
// RUN: nnc-run %nnc_src_root/examples/digits/cnn.onnx --input image=%t/image.npy \
// RUN:   --cache-dir %t/cache --autotune=require | FileCheck %s --check-prefix=LOGITS

// RUN: nnc-run %nnc_src_root/examples/digits/cnn.onnx --input image=%t/image.npy \
// RUN:   --cache-dir %t/cache --autotune=off --report \
// RUN:   | FileCheck %s --check-prefixes=LOGITS,OFF
// OFF-NOT: autotune:
// OFF: specialization:

// Another batch size is another kernel: `require` names the convolutions
// and the GEMMs.
// RUN: not nnc-run %nnc_src_root/examples/digits/cnn.onnx --input image=%t/image2.npy \
// RUN:   --cache-dir %t/cache --autotune=require 2>&1 | FileCheck %s --check-prefix=REQUIRE
// REQUIRE: nnc-run: error: nnc_session_run: {{.*}}cnn.onnx: autotune=require: 4 kernels are not in the tuning database {{.*}}tuning.nnctune for this machine and compiler; tune them with autotune=on
// REQUIRE-DAG: note: untuned: conv 2x1x8x8 f32, 16x1x3x3 f32 -> 2x16x8x8 f32
// REQUIRE-DAG: note: untuned: conv 2x16x8x8 f32, 32x16x3x3 f32 -> 2x32x8x8 f32
// REQUIRE-DAG: note: untuned: gemm 2x512 f32, 64x512 f32, 64 f32 -> 2x64 f32
// REQUIRE-DAG: note: untuned: gemm 2x64 f32, 10x64 f32, 10 f32 -> 2x10 f32

// A separate database file: none there yet.
// RUN: not nnc-run %nnc_src_root/examples/digits/cnn.onnx --input image=%t/image.npy \
// RUN:   --cache-dir %t/cache --tuning-db %t/other.nnctune --autotune=require 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OTHER
// OTHER: autotune=require: 4 kernels are not in the tuning database {{.*}}other.nnctune

// A damaged line (one byte of its checksum changed) is ignored with a warning;
// the other entry still counts.
// RUN: sed '2s/.$/x/' %t/cache/tuning.nnctune > %t/damaged.nnctune
// RUN: nnc-run %nnc_src_root/examples/digits/cnn.onnx --input image=%t/image.npy \
// RUN:   --cache-dir "" --tuning-db %t/damaged.nnctune --report 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=DAMAGED
// DAMAGED: nnc: warning: tuning database {{.*}}damaged.nnctune:2: {{.*}}entry ignored
// DAMAGED: autotune: 4 kernels with candidates
// DAMAGED-NEXT: conv 4x1x8x8 {{.*}} [untuned]
// DAMAGED-NEXT: conv 4x16x8x8 {{.*}} [database]
// DAMAGED-NEXT: gemm 4x512 {{.*}} [database]

// A foreign file is read as no database, with a warning, and never rewritten.
// RUN: echo "not a tuning database" > %t/foreign.nnctune
// RUN: cp %t/foreign.nnctune %t/foreign.orig
// RUN: nnc-run %nnc_src_root/examples/digits/cnn.onnx --input image=%t/image.npy \
// RUN:   --cache-dir "" --tuning-db %t/foreign.nnctune --autotune=on 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FOREIGN
// FOREIGN: nnc: warning: tuning database {{.*}}foreign.nnctune:1: not a tuning database
// FOREIGN-NEXT: nnc: warning: tuning database {{.*}}foreign.nnctune is not one this compiler writes; the measurements of this compile are not kept
// FOREIGN-NOT: warning
// FOREIGN: logits: f32 [4, 10]
// RUN: cmp %t/foreign.nnctune %t/foreign.orig

// Malformed values are command-line errors.
// RUN: not nnc-run %nnc_src_root/examples/digits/cnn.onnx --autotune=sometimes 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADMODE
// BADMODE: --autotune must be off, cached, on or require, got 'sometimes'
// RUN: not nnc-run %nnc_src_root/examples/digits/cnn.onnx --tuning-budget -1 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADBUDGET
// BADBUDGET: --tuning-budget expects a positive number of seconds, got '-1'

// Measuring stops at three quarters of the tuning budget (the rest is the
// check's): with almost none, every kernel keeps its default, untuned,
// with one warning, and the run goes on.
// RUN: nnc-run %nnc_src_root/examples/digits/cnn.onnx --input image=%t/image.npy \
// RUN:   --cache-dir %t/budget --autotune=on --tuning-budget 0.000001 --report \
// RUN:   2> %t/budget.err | FileCheck %s --check-prefixes=LOGITS,BUDGET
// RUN: FileCheck %s --check-prefix=BUDGETWARN < %t/budget.err
// BUDGETWARN: nnc: warning: autotune: measuring took its share (75 %) of the tuning budget of 1e-06 s; the kernels left keep their defaults, untuned
// BUDGETWARN-NOT: warning
// BUDGET: autotune: 4 kernels with candidates, 0.00 s measuring
// BUDGET-COUNT-4: [untuned]
