// The CPU's inline exp, log, tanh, erf, expm1, log1p, sqrt and floor
// (--nnc-cpu-inline-math) and the activations built on them, on 4096
// values (special values, a grid over [-20, 20], magnitudes 1e-6 to 1e6),
// against float64: NaN and infinities exact, subnormal results of exp and
// log of subnormals computed, sqrt and floor exact, the rest within each
// function's bound (Inputs/check_math.py).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/check_math.py write %t/x.npy
// RUN: nnc-run %S/Inputs/inline-math.mlir --input input_0=%t/x.npy \
// RUN:   --output %t/out.npz --cache-dir=
// RUN: %python %S/Inputs/check_math.py check %t/out.npz | FileCheck %s
// CHECK-COUNT-11: output_{{[0-9]+}}: worst {{0\.[0-9]+}} of the bound
// CHECK-NOT: MISMATCH
