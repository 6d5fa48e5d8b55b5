// nnc-opt behaves like mlir-opt: it lists the nnc passes, takes textual
// pipelines, splits input files and reports errors with locations.

// RUN: nnc-opt --help | FileCheck %s --check-prefix=HELP
// HELP: --nnc-shape-inference
// HELP: --canonicalize

// RUN: nnc-opt %s --pass-pipeline="builtin.module(nnc-shape-inference{input-shapes=0:2x3},canonicalize)" | FileCheck %s --check-prefix=PIPE
// PIPE-LABEL: func @f
// PIPE-SAME: tensor<2x3xf32>
// PIPE-NOT: nnc.neg
func.func @f(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = nnc.neg %x : tensor<?x3xf32>
  %1 = nnc.neg %0 : tensor<?x3xf32>
  return %1 : tensor<?x3xf32>
}

// RUN: not nnc-opt %S/Inputs/malformed.mlir 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: malformed.mlir:4:{{[0-9]+}}: error: operand shapes 2x3 and 4 do not broadcast

// RUN: not nnc-opt %S/Inputs/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
