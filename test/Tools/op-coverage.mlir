// Every op defined in ODS has a round-trip test in test/Dialect/NNC/ops-*.mlir.
// RUN: %python %S/Inputs/op_coverage.py %nnc_src_root | FileCheck %s
// CHECK-NOT: has no round-trip test
// CHECK: [[N:[0-9]+]] ops, [[N]] with round-trip tests
