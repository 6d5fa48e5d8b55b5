// Loop schedules (nnc.impl = "loops_serial", "loops_outer", "loops_wide",
// with ".t<threads>" and ".v<lanes>"; nnc/LoopSchedule.h) change which
// loops run on which threads, never what they compute: a softmax, a max
// pooling and its gradient, a layer norm, a sum, a cumsum and a global
// pooling give the same bytes under each parallelism and thread count as
// under the default rules (run-to-run: the reductions stay inner loops).
// A vector width lets LLVM sum a row's values in another order: within
// rounding of the default (the layer norm's outputs, up to 60 here with
// its scale and bias, move by up to 1e-5). The tuner offers them for these
// ops and keeps only measured winners.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npy write %t/x.npy f4 8x16x16x32 0:65536
// RUN: %npy write %t/g.npy f4 32 0:32
// RUN: %npy write %t/b.npy f4 32 0:32
// RUN: sed -e 's/, nnc.impl = "IMPL"//' -e 's/ {nnc.impl = "IMPL"}//' \
// RUN:   %S/Inputs/loop-schedules.mlir > %t/default.mlir
// RUN: not grep IMPL %t/default.mlir
// RUN: nnc-run %t/default.mlir --input input_0=%t/x.npy --input input_1=%t/g.npy \
// RUN:   --input input_2=%t/b.npy --cache-dir= --output %t/default.npz
// RUN: sed 's/IMPL/loops_serial/' %S/Inputs/loop-schedules.mlir > %t/serial.mlir
// RUN: nnc-run %t/serial.mlir --input input_0=%t/x.npy --input input_1=%t/g.npy \
// RUN:   --input input_2=%t/b.npy --cache-dir= --output %t/serial.npz
// RUN: cmp %t/default.npz %t/serial.npz
// RUN: sed 's/IMPL/loops_outer/' %S/Inputs/loop-schedules.mlir > %t/outer.mlir
// RUN: nnc-run %t/outer.mlir --input input_0=%t/x.npy --input input_1=%t/g.npy \
// RUN:   --input input_2=%t/b.npy --cache-dir= --output %t/outer.npz
// RUN: cmp %t/default.npz %t/outer.npz
// RUN: sed 's/IMPL/loops_wide/' %S/Inputs/loop-schedules.mlir > %t/wide.mlir
// RUN: nnc-run %t/wide.mlir --input input_0=%t/x.npy --input input_1=%t/g.npy \
// RUN:   --input input_2=%t/b.npy --cache-dir= --output %t/wide.npz
// RUN: cmp %t/default.npz %t/wide.npz
// RUN: sed 's/IMPL/loops_outer.t2/' %S/Inputs/loop-schedules.mlir > %t/outer2.mlir
// RUN: nnc-run %t/outer2.mlir --input input_0=%t/x.npy --input input_1=%t/g.npy \
// RUN:   --input input_2=%t/b.npy --cache-dir= --output %t/outer2.npz
// RUN: cmp %t/default.npz %t/outer2.npz
// RUN: sed 's/IMPL/loops_wide.t3/' %S/Inputs/loop-schedules.mlir > %t/wide3.mlir
// RUN: nnc-run %t/wide3.mlir --input input_0=%t/x.npy --input input_1=%t/g.npy \
// RUN:   --input input_2=%t/b.npy --cache-dir= --output %t/wide3.npz
// RUN: cmp %t/default.npz %t/wide3.npz
// RUN: sed 's/IMPL/loops.v1/' %S/Inputs/loop-schedules.mlir > %t/scalar.mlir
// RUN: nnc-run %t/scalar.mlir --input input_0=%t/x.npy --input input_1=%t/g.npy \
// RUN:   --input input_2=%t/b.npy --cache-dir= --output %t/scalar.npz
// RUN: %npy close %t/scalar.npz %t/default.npz 1e-5 1e-4
// RUN: sed 's/IMPL/loops.v16/' %S/Inputs/loop-schedules.mlir > %t/v16.mlir
// RUN: nnc-run %t/v16.mlir --input input_0=%t/x.npy --input input_1=%t/g.npy \
// RUN:   --input input_2=%t/b.npy --cache-dir= --output %t/v16.npz
// RUN: %npy close %t/v16.npz %t/default.npz 1e-5 1e-4
// RUN: sed 's/IMPL/loops_outer.t2.v4/' %S/Inputs/loop-schedules.mlir > %t/outer2v4.mlir
// RUN: nnc-run %t/outer2v4.mlir --input input_0=%t/x.npy --input input_1=%t/g.npy \
// RUN:   --input input_2=%t/b.npy --cache-dir= --output %t/outer2v4.npz
// RUN: %npy close %t/outer2v4.npz %t/default.npz 1e-5 1e-4
// A width LLVM cannot vectorize at (an argmax's index) leaves the loop as
// it was, and LLVM's remark about it ("loop not vectorized") is not
// printed.
// RUN: %npy write %t/rows.npy f4 64x512 0:32768
// RUN: nnc-run %S/Inputs/argmax-width.mlir --input input_0=%t/rows.npy \
// RUN:   --cache-dir= 2>&1 | FileCheck %s --check-prefix=ARGMAX \
// RUN:   --implicit-check-not=vectorized --implicit-check-not=remark
// ARGMAX: output_0: i64 [64] = [511, 511, 511,
// The check itself fails on other values.
// RUN: not %npy close %t/v16.npz %t/serial.npz 0 0 2>&1 | FileCheck %s --check-prefix=NOTCLOSE
// NOTCLOSE: not close

// The tuner measures the schedules of each op (all seven are large enough)
// beside the default; whichever it keeps, the report names one of them.
// RUN: nnc-run %t/default.mlir --input input_0=%t/x.npy --input input_1=%t/g.npy \
// RUN:   --input input_2=%t/b.npy --cache-dir=%t/cache --autotune=on --report \
// RUN:   | FileCheck %s --check-prefix=TUNE
// TUNE: autotune: 7 kernels with candidates
// TUNE-NEXT: softmax 8x16x16x32 f32 {{.*}}: {{(default|loops[a-z_]*(\.t[0-9]+)?(\.v[0-9]+)?) [0-9.]+ ms \(default default [0-9.]+ ms\) \[measured}}
// TUNE-NEXT: max_pool 8x16x16x32 f32 {{.*}}: {{(default|loops[a-z_]*(\.t[0-9]+)?(\.v[0-9]+)?) [0-9.]+ ms \(default default [0-9.]+ ms\) \[measured}}
// TUNE-NEXT: layer_norm {{.*}}: {{(default|loops[a-z_]*(\.t[0-9]+)?(\.v[0-9]+)?) [0-9.]+ ms \(default default [0-9.]+ ms\) \[measured}}
// TUNE-NEXT: reduce {{.*}}: {{(default|loops[a-z_]*(\.t[0-9]+)?(\.v[0-9]+)?) [0-9.]+ ms \(default default [0-9.]+ ms\) \[measured}}
// TUNE-NEXT: cumsum {{.*}}: {{(default|loops[a-z_]*(\.t[0-9]+)?(\.v[0-9]+)?) [0-9.]+ ms \(default default [0-9.]+ ms\) \[measured}}
// TUNE-NEXT: max_pool_grad {{.*}}: {{(default|loops[a-z_]*(\.t[0-9]+)?(\.v[0-9]+)?) [0-9.]+ ms \(default default [0-9.]+ ms\) \[measured}}
// TUNE-NEXT: global_avg_pool {{.*}}: {{(default|loops[a-z_]*(\.t[0-9]+)?(\.v[0-9]+)?) [0-9.]+ ms \(default default [0-9.]+ ms\) \[measured}}
// RUN: grep -c -E "	default=[0-9.e-]*,loops_serial=[0-9.e-]*,loops_outer=[0-9.e-]*,loops_wide=[0-9.e-]*,(loops_[a-z]+\.t[0-9]+=[0-9.e-]*,)*loops\.v[0-9]+=[0-9.e-]*,loops\.v[0-9]+=[0-9.e-]*,loops\.v[0-9]+=[0-9.e-]*[,	]" %t/cache/tuning.nnctune \
// RUN:   | FileCheck %s --check-prefix=DB
// DB: 7
