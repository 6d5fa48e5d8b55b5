// Every ONNX backend node test model (Debian's libonnx-testdata) goes through
// the importer: those in node-tests-expected.txt must import and verify (the
// list only grows), and no model may crash the importer; the others must fail
// with a diagnostic naming the reason.
// RUN: %python %S/node_tests.py nnc-translate --expected %S/node-tests-expected.txt | FileCheck %s
// CHECK-NOT: CRASH
// CHECK: {{[0-9]+}} of {{[0-9]+}} node test models import and verify
// CHECK-NOT: REGRESSION
// CHECK: {{[0-9]+}} passed, 0 failed
