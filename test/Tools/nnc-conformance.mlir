// nnc-conformance on a small suite made from the ONNX test data: a pass, a
// wrong expected output, a model nnc cannot import, a crash and a hang
// (injected), with --expected, --write-expected and --filter.
// RUN: rm -rf %t && mkdir -p %t/data/mini
// RUN: cp -r %onnx_data/node/test_add %t/data/mini/test_add
// RUN: cp -r %onnx_data/node/test_relu %t/data/mini/test_relu
// RUN: cp -r %onnx_data/node/test_add %t/data/mini/test_wrong
// RUN: cp %t/data/mini/test_wrong/test_data_set_0/input_0.pb %t/data/mini/test_wrong/test_data_set_0/output_0.pb
// RUN: cp -r %onnx_data/node/test_add %t/data/mini/test_garbage
// RUN: echo garbage > %t/data/mini/test_garbage/model.onnx
// RUN: cp -r %onnx_data/node/test_relu %t/data/mini/test_crash
// RUN: cp -r %onnx_data/node/test_relu %t/data/mini/test_hang
// RUN: mkdir %t/data/mini/not_a_test

// RUN: env NNC_CONFORMANCE_TEST_FAULT=crash:test_crash \
// RUN:   nnc-conformance --data %t/data --suite mini -j 2 --timeout 5 \
// RUN:     --filter 'test_(add|relu|wrong|garbage|crash)$' --cache-dir= \
// RUN:     --write-expected %t/passed.txt | FileCheck %s --check-prefix=MINI
// MINI-DAG: FAIL mini/test_crash: crashed: signal 6 (Aborted)
// MINI-DAG: SKIP mini/test_garbage: import unsupported: not a valid ONNX model
// MINI-DAG: FAIL mini/test_wrong: output 'x' index {{[0-9]+}}: got {{.*}}, expected {{.*}} ({{[0-9]+}} of 60 elements differ)
// MINI: mini: 2 passed, 2 failed, 1 skipped
// RUN: FileCheck %s --check-prefix=PASSED < %t/passed.txt
// PASSED: # Conformance tests that must pass
// PASSED-NEXT: mini/test_add
// PASSED-NEXT: mini/test_relu
// PASSED-NOT: mini/

// A hang is killed at the timeout.
// RUN: env NNC_CONFORMANCE_TEST_FAULT=hang:test_hang \
// RUN:   nnc-conformance --data %t/data --suite mini --timeout 1 \
// RUN:     --filter hang --cache-dir= | FileCheck %s --check-prefix=HANG
// HANG: FAIL mini/test_hang: timed out after 1 s
// HANG: mini: 0 passed, 1 failed, 0 skipped

// --expected: tests that must pass; ones outside the filter are not judged.
// RUN: nnc-conformance --data %t/data --suite mini --filter 'add|relu' \
// RUN:   --expected %t/passed.txt --cache-dir= | FileCheck %s --check-prefix=OK
// OK: mini: 2 passed, 0 failed, 0 skipped
// RUN: echo mini/test_wrong >> %t/passed.txt
// RUN: echo mini/test_nonexistent >> %t/passed.txt
// RUN: not nnc-conformance --data %t/data --suite mini --filter 'add|relu|wrong|nonexistent' \
// RUN:   --expected %t/passed.txt --cache-dir= | FileCheck %s --check-prefix=REGRESSED
// REGRESSED: 2 expected-pass tests did not pass:
// REGRESSED-NEXT:   mini/test_wrong
// REGRESSED-NEXT:   mini/test_nonexistent (no such test)

// Command-line errors.
// RUN: not nnc-conformance --data %t/data --suite nope 2>&1 | FileCheck %s --check-prefix=NO-SUITE
// NO-SUITE: nnc-conformance: error: no suite 'nope'
// RUN: not nnc-conformance -j 0 2>&1 | FileCheck %s --check-prefix=JOBS
// JOBS: nnc-conformance: error: -j expects a positive number, got '0'
// RUN: not nnc-conformance --filter '(' 2>&1 | FileCheck %s --check-prefix=REGEX
// REGEX: nnc-conformance: error: --filter '(' is not a valid regular expression
// RUN: not nnc-conformance --expected %t/missing.txt 2>&1 | FileCheck %s --check-prefix=EXPECTED
// EXPECTED: nnc-conformance: error: cannot read '{{.*}}missing.txt'
// RUN: not nnc-conformance --frobnicate 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: nnc-conformance: error: unknown option '--frobnicate'
// RUN: nnc-conformance --help | FileCheck %s --check-prefix=HELP
// HELP: usage: nnc-conformance [options]
