// The ONNX backend test suites converted from PyTorch (pytorch-converted,
// pytorch-operator; opset 6 mostly) and the `simple` suite go through the
// importer: those in old-suites-expected.txt must import and verify (the
// list only grows), and no model may crash. The others use sequences,
// strings or the training domain's Gradient.
// RUN: %python %S/node_tests.py nnc-translate --data /usr/share/libonnx-testdata/data/pytorch-converted /usr/share/libonnx-testdata/data/pytorch-operator /usr/share/libonnx-testdata/data/simple --expected %S/old-suites-expected.txt | FileCheck %s
// CHECK-NOT: CRASH
// CHECK: pytorch-converted: 82 of 82
// CHECK: pytorch-operator: 35 of 35
// CHECK: simple: {{[0-9]+}} of 23
// CHECK-NOT: REGRESSION
// CHECK: {{[0-9]+}} passed, 0 failed
