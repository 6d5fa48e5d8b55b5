// Bad options of --nnc-mixed-precision: each names the option and the value.
// RUN: nnc-opt %s --nnc-mixed-precision="low-ops=nnc.frobnicate" \
// RUN:   -verify-diagnostics
// RUN: not nnc-opt %s --nnc-mixed-precision="dtype=f8" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DTYPE
// DTYPE: error: --nnc-mixed-precision: dtype must be 'bf16' or 'f16', got 'f8'
// RUN: not nnc-opt %s --nnc-mixed-precision="f32-ops=func.call" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FOREIGN
// FOREIGN: error: --nnc-mixed-precision: 'func.call' in f32-ops is not an nnc op
// RUN: not nnc-opt %s --nnc-mixed-precision="low-ops=nnc.cast" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CAST
// CAST: error: --nnc-mixed-precision: 'nnc.cast' in low-ops cannot be overridden: it does not compute
// RUN: not nnc-opt %s \
// RUN:   --nnc-mixed-precision="low-ops=nnc.add f32-ops=nnc.mul,nnc.add" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BOTH
// BOTH: error: --nnc-mixed-precision: 'nnc.add' in f32-ops is also in low-ops
// RUN: not nnc-opt %s --nnc-mixed-precision="function=missing" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISSING
// MISSING: error: --nnc-mixed-precision: no function 'missing'

// expected-error @+1 {{--nnc-mixed-precision: 'nnc.frobnicate' in low-ops is not a known op}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = nnc.relu %x : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
