// Loop schedules (nnc.impl = "loops_serial", "loops_outer", "loops_wide";
// nnc/LoopSchedule.h) change which loops run on which threads, never what
// they compute: a softmax, a max pooling and its gradient, a layer norm, a
// sum, a cumsum and a global pooling give the same bytes under each as
// under the default rules (run-to-run: the reductions stay inner loops).
// The tuner offers them for these ops and keeps only measured winners.
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

// The tuner measures the schedules of each op (all seven are large enough)
// beside the default; whichever it keeps, the report names one of them.
// RUN: nnc-run %t/default.mlir --input input_0=%t/x.npy --input input_1=%t/g.npy \
// RUN:   --input input_2=%t/b.npy --cache-dir=%t/cache --autotune=on --report \
// RUN:   | FileCheck %s --check-prefix=TUNE
// TUNE: autotune: 7 kernels with candidates
// TUNE-NEXT: softmax 8x16x16x32 f32 {{.*}}: {{(default|loops_serial|loops_outer|loops_wide) [0-9.]+ ms \(default default [0-9.]+ ms\) \[measured}}
// TUNE-NEXT: max_pool 8x16x16x32 f32 {{.*}}: {{(default|loops_serial|loops_outer|loops_wide) [0-9.]+ ms \(default default [0-9.]+ ms\) \[measured}}
// TUNE-NEXT: layer_norm {{.*}}: {{(default|loops_serial|loops_outer|loops_wide) [0-9.]+ ms \(default default [0-9.]+ ms\) \[measured}}
// TUNE-NEXT: reduce {{.*}}: {{(default|loops_serial|loops_outer|loops_wide) [0-9.]+ ms \(default default [0-9.]+ ms\) \[measured}}
// TUNE-NEXT: cumsum {{.*}}: {{(default|loops_serial|loops_outer|loops_wide) [0-9.]+ ms \(default default [0-9.]+ ms\) \[measured}}
// TUNE-NEXT: max_pool_grad {{.*}}: {{(default|loops_serial|loops_outer|loops_wide) [0-9.]+ ms \(default default [0-9.]+ ms\) \[measured}}
// TUNE-NEXT: global_avg_pool {{.*}}: {{(default|loops_serial|loops_outer|loops_wide) [0-9.]+ ms \(default default [0-9.]+ ms\) \[measured}}
// RUN: grep -c "	default=[0-9.e-]*,loops_serial=[0-9.e-]*,loops_outer=[0-9.e-]*,loops_wide=[0-9.e-]*	" %t/cache/tuning.nnctune \
// RUN:   | FileCheck %s --check-prefix=DB
// DB: 7
