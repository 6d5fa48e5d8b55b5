// nnc-run MODEL --amp: inference in bf16 or f16 where the op policy says,
// inputs and outputs in their declared types.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npy write %t/x.npy f4 2x2 1.00390625,0,0,1

// f32: 1 + 2^-8 times the weights.
// RUN: nnc-run %S/Inputs/linear.mlir --input input_0=%t/x.npy --cache-dir= \
// RUN:   | FileCheck %s --check-prefix=F32
// F32: output_0: f32 [2, 3] = [1.00391, 0, 3.01172, 4, 5, 0]
// bf16 has 8 bits of mantissa: the input rounds to 1 before the matmul.
// RUN: nnc-run %S/Inputs/linear.mlir --input input_0=%t/x.npy --cache-dir= \
// RUN:   --amp bf16 | FileCheck %s --check-prefix=BF16
// BF16: output_0: f32 [2, 3] = [1, 0, 3, 4, 5, 0]
// BF16-NEXT: output_1: bool [2, 3] = [true, false, true, true, true, false]
// f16 has 11: it holds the input exactly.
// RUN: nnc-run %S/Inputs/linear.mlir --input input_0=%t/x.npy --cache-dir= \
// RUN:   --amp f16 | FileCheck %s --check-prefix=F32
// Keeping the matmul in f32 by an override gives the f32 result.
// RUN: nnc-run %S/Inputs/linear.mlir --input input_0=%t/x.npy --cache-dir= \
// RUN:   --amp bf16 --amp-f32-ops nnc.matmul | FileCheck %s --check-prefix=F32

// The compile cache keeps f32 and bf16 apart.
// RUN: nnc-run %S/Inputs/linear.mlir --input input_0=%t/x.npy \
// RUN:   --cache-dir=%t/cache | FileCheck %s --check-prefix=F32
// RUN: nnc-run %S/Inputs/linear.mlir --input input_0=%t/x.npy \
// RUN:   --cache-dir=%t/cache --amp bf16 | FileCheck %s --check-prefix=BF16

// Errors: a bad type, an override without --amp, an unknown op.
// RUN: not nnc-run %S/Inputs/linear.mlir --input input_0=%t/x.npy \
// RUN:   --amp fp8 2>&1 | FileCheck %s --check-prefix=BAD-TYPE
// BAD-TYPE: nnc-run: error: --amp must be bf16, f16 or off, got 'fp8'
// RUN: not nnc-run %S/Inputs/linear.mlir --input input_0=%t/x.npy \
// RUN:   --amp-low-ops nnc.add 2>&1 | FileCheck %s --check-prefix=NO-AMP
// NO-AMP: nnc-run: error: --amp-low-ops and --amp-f32-ops need --amp bf16 or f16
// RUN: not nnc-run %S/Inputs/linear.mlir --input input_0=%t/x.npy \
// RUN:   --cache-dir= --amp bf16 --amp-low-ops nnc.bogus 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: --nnc-mixed-precision: 'nnc.bogus' in low-ops is not a known op

// --report says what mixed precision did: the matmul by the policy, the
// relu and the comparison following it, the casts of the input and the
// weights down and of the relu's result back up.
// RUN: nnc-run %S/Inputs/linear.mlir --input input_0=%t/x.npy --cache-dir= \
// RUN:   --amp bf16 --report | FileCheck %s --check-prefix=REPORT
// REPORT: mixed precision: bf16
// REPORT-NEXT:   ops in bf16: 3 (1 by the policy, 2 following their inputs)
// REPORT-NEXT:   ops kept in f32: 0
// REPORT-NEXT:   casts inserted: 3
// REPORT-NEXT:   bytes saved by results stored in bf16: 24
// Without --amp there is nothing to say.
// RUN: nnc-run %S/Inputs/linear.mlir --input input_0=%t/x.npy --cache-dir= \
// RUN:   --report | FileCheck %s --check-prefix=NO-REPORT
// NO-REPORT-NOT: mixed precision
