// Damaged variants of the ONNX text models (truncated, numbers and types
// swapped, lines dropped, bytes flipped) give diagnostics, never a crash.
// RUN: %python %S/Inputs/mangle.py nnc-translate %S/../Import --onnx --count 400 --seed 2 | FileCheck %s
// CHECK: 400 passed, 0 failed
