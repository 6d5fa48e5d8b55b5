// A traced model with a shape mistake: the error names the C++ file and the
// line of the offending call and the op's message, nothing is printed as IR,
// and the program exits 1.
// RUN: not nnc-trace-examples shape-error 2>&1 | FileCheck %s

// CHECK: expected error at line [[LINE:[0-9]+]]
// CHECK-NEXT: error: {{.*}}TraceExamples.cpp:[[LINE]]: nnc.matmul: contracted dimensions differ: lhs ?x32 has K = 32 but rhs 64x10 has K = 64
// CHECK-NOT: func.func
// CHECK-NOT: nnc.softmax
