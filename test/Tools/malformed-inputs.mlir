// Damaged variants of every lit input (truncated, numbers and types swapped,
// lines dropped, bytes flipped) give diagnostics, never a crash.
// RUN: %python %S/Inputs/mangle.py nnc-opt %S/.. --count 400 --seed 1 | FileCheck %s
// CHECK: 400 passed, 0 failed
