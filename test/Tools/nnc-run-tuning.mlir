// nnc-run tuning export|import (docs/Autotuning.md): the digits CNN's two
// convolutions and two GEMMs tuned into one cache's database are exported to a file and
// imported into an empty cache, where autotune=require, which failed
// before, then compiles from the database without measuring. Damaged lines
// are dropped with a warning; a missing or foreign source and a foreign
// destination are errors that leave the destination untouched.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npy write %t/image.npy f4 4x1x8x8 0:256
// RUN: nnc-run %nnc_src_root/examples/digits/cnn.onnx --input image=%t/image.npy \
// RUN:   --cache-dir %t/tuned --autotune=on > /dev/null
// RUN: nnc-run tuning export %t/shipped.nnctune --cache-dir %t/tuned \
// RUN:   | FileCheck %s --check-prefix=EXPORT
// EXPORT: exported 4 tuning entries from {{.*}}tuned/tuning.nnctune into {{.*}}shipped.nnctune
// RUN: cmp %t/tuned/tuning.nnctune %t/shipped.nnctune

// RUN: not nnc-run %nnc_src_root/examples/digits/cnn.onnx --input image=%t/image.npy \
// RUN:   --cache-dir %t/deployed --autotune=require 2>&1 | FileCheck %s --check-prefix=REQUIRE
// REQUIRE: autotune=require: 4 kernels are not in the tuning database
// RUN: nnc-run tuning import %t/shipped.nnctune --cache-dir %t/deployed \
// RUN:   | FileCheck %s --check-prefix=IMPORT
// IMPORT: imported 4 tuning entries from {{.*}}shipped.nnctune into {{.*}}deployed/tuning.nnctune
// RUN: nnc-run %nnc_src_root/examples/digits/cnn.onnx --input image=%t/image.npy \
// RUN:   --cache-dir %t/deployed --autotune=require --report | FileCheck %s --check-prefix=DEPLOYED
// DEPLOYED: autotune: 4 kernels with candidates, 0.00 s measuring
// DEPLOYED-NEXT: conv 4x1x8x8 {{.*}} [database]
// DEPLOYED-NEXT: conv 4x16x8x8 {{.*}} [database]
// DEPLOYED-NEXT: gemm 4x512 f32, 64x512 f32, 64 f32 -> 4x64 f32 alpha 1 beta 1 trans_a false trans_b true: {{dnnl|blas|loops|default}} {{.*}} [database]
// DEPLOYED-NEXT: gemm 4x64 f32, 10x64 f32, 10 f32 -> 4x10 f32 {{.*}} [database]

// nnc-run train --report lists the kernels its steps tuned: the forward
// convolutions and GEMMs come from the imported database, their gradients
// (and the loop schedules of a reduction over 32768 elements) are measured
// now; a second run finds them all there.
// RUN: nnc-run train %nnc_src_root/examples/digits/cnn.onnx \
// RUN:   --data %nnc_src_root/examples/digits/train.npz --steps 1 --batch-size 4 \
// RUN:   --cache-dir %t/deployed --autotune=on --report --progress none \
// RUN:   | FileCheck %s --check-prefix=TRAIN
// TRAIN: autotune: 12 kernels with candidates, {{[0-9.]+}} s measuring
// TRAIN-NEXT: conv 4x1x8x8 {{.*}} [database]
// TRAIN-NEXT: conv 4x16x8x8 {{.*}} [database]
// TRAIN-NEXT: gemm 4x512 {{.*}} [database]
// TRAIN-NEXT: gemm 4x64 {{.*}} [database]
// TRAIN-COUNT-4: gemm {{.*}} [measured{{(, kept by the program|, turned down by the program)?}}]
// TRAIN-NEXT: conv_transpose 4x32x8x8 {{.*}} [measured{{(, kept by the program|, turned down by the program)?}}]
// TRAIN-NEXT: conv_weight_grad {{.*}} [measured{{(, kept by the program|, turned down by the program)?}}]
// TRAIN-NEXT: conv_weight_grad {{.*}} [measured{{(, kept by the program|, turned down by the program)?}}]
// TRAIN-NEXT: reduce 64x512 f32 -> scalar f32 {{.*}}: {{(default|loops[a-z_]*(\.t[0-9]+)?(\.v[0-9]+)?)}} {{.*}} [measured{{(, kept by the program|, turned down by the program)?}}]
// RUN: nnc-run train %nnc_src_root/examples/digits/cnn.onnx \
// RUN:   --data %nnc_src_root/examples/digits/train.npz --steps 1 --batch-size 4 \
// RUN:   --cache-dir %t/deployed --autotune=require --report --progress none \
// RUN:   | FileCheck %s --check-prefix=TRAINED
// TRAINED: autotune: 12 kernels with candidates, 0.00 s measuring
// TRAINED-COUNT-12: [database]

// Importing keeps the destination's other entries; the default database is
// tuning.nnctune in $NNC_CACHE_DIR.
// RUN: head -2 %t/shipped.nnctune > %t/first.nnctune
// RUN: sed -n '1p;3,$p' %t/shipped.nnctune > %t/second.nnctune
// RUN: env NNC_CACHE_DIR=%t/default nnc-run tuning import %t/first.nnctune \
// RUN:   | FileCheck %s --check-prefix=ONE
// ONE: imported 1 tuning entry from {{.*}}first.nnctune into {{.*}}default/tuning.nnctune
// RUN: env NNC_CACHE_DIR=%t/default nnc-run tuning import %t/second.nnctune > /dev/null
// RUN: cmp %t/default/tuning.nnctune %t/shipped.nnctune

// A damaged line (a changed checksum byte) is dropped, with a warning.
// RUN: sed '2s/.$/x/' %t/shipped.nnctune > %t/damaged.nnctune
// RUN: nnc-run tuning import %t/damaged.nnctune --tuning-db %t/partial.nnctune 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DAMAGED
// DAMAGED: nnc-run: warning: tuning database {{.*}}damaged.nnctune:2: {{.*}}; entry ignored
// DAMAGED: imported 3 tuning entries
// RUN: cmp %t/partial.nnctune %t/second.nnctune

// Errors: exit 1 with the reason, the destination untouched.
// RUN: not nnc-run tuning import %t/absent.nnctune --tuning-db %t/partial.nnctune 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISSING
// MISSING: nnc-run: error: nnc_tuning_database_merge: no tuning database at {{.*}}absent.nnctune
// RUN: echo 'not a database' > %t/foreign.txt
// RUN: not nnc-run tuning import %t/foreign.txt --tuning-db %t/partial.nnctune 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FOREIGN
// FOREIGN: nnc-run: error: nnc_tuning_database_merge: {{.*}}foreign.txt is not a tuning database of this nnc: {{.*}}not a tuning database (it starts 'not a database')
// RUN: not nnc-run tuning export %t/foreign.txt --tuning-db %t/partial.nnctune 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FOREIGNINTO
// FOREIGNINTO: nnc-run: error: nnc_tuning_database_merge: {{.*}}foreign.txt
// RUN: cmp %t/partial.nnctune %t/second.nnctune
// RUN: echo 'not a database' | cmp - %t/foreign.txt
// RUN: env -u NNC_CACHE_DIR -u XDG_CACHE_HOME -u HOME not nnc-run tuning import \
// RUN:   %t/shipped.nnctune 2>&1 | FileCheck %s --check-prefix=NODEFAULT
// NODEFAULT: nnc-run: error: nnc_tuning_database_default_path: there is no default cache folder: none of NNC_CACHE_DIR, XDG_CACHE_HOME and HOME is set (give --tuning-db)

// Bad use: exit 2.
// RUN: not nnc-run tuning 2>&1 | FileCheck %s --check-prefix=NOACTION
// NOACTION: nnc-run: error: nnc-run tuning needs export or import
// RUN: not nnc-run tuning send %t/x 2>&1 | FileCheck %s --check-prefix=ACTION
// ACTION: nnc-run: error: unknown action 'send': export or import
// RUN: not nnc-run tuning export 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: nnc-run: error: nnc-run tuning export needs a FILE
// RUN: not nnc-run tuning export %t/x --tuning-db %t/a --cache-dir %t/b 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BOTH
// BOTH: nnc-run: error: --tuning-db and --cache-dir name the same thing: give one
// RUN: not nnc-run tuning export %t/x --threads 2 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: nnc-run: error: unknown option '--threads' (see nnc-run tuning --help)
// RUN: nnc-run tuning --help | FileCheck %s --check-prefix=HELP
// HELP: usage: nnc-run tuning export FILE
