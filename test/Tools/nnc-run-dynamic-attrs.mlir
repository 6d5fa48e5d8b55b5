// Integer inputs that ops take as attributes (Trilu's k here) are shape
// inputs: each value is its own specialization, reported with the value.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npy write %t/x45.npy i8 4x5 1:21
// RUN: %npy write %t/km1.npy i8 "" -1
// RUN: %npy write %t/k1.npy i8 "" 1
// RUN: %npy write %t/k5.npy i8 "" 5
// RUN: %npy write %t/k6.npy i8 "" 6
// RUN: nnc-run %onnx_data/node/test_tril_neg/model.onnx --input x=%t/x45.npy \
// RUN:   --input k=%t/km1.npy --output %t/neg.npz --then \
// RUN:   --input x=%t/x45.npy --input k=%t/k1.npy --output %t/pos.npz \
// RUN:   --report --cache-dir= | FileCheck %s --check-prefix=TWO
// TWO: specialization: x i64 [4, 5], k i64 [] = [-1] (compiled)
// TWO: specialization: x i64 [4, 5], k i64 [] = [1] (compiled)
// RUN: %npy dump %t/neg.npz | FileCheck %s --check-prefix=NEG
// NEG: y: i8 [4, 5] = [0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 11, 12, 0, 0, 0, 16, 17, 18, 0, 0]
// RUN: %npy dump %t/pos.npz | FileCheck %s --check-prefix=POS
// POS: y: i8 [4, 5] = [1, 2, 0, 0, 0, 6, 7, 8, 0, 0, 11, 12, 13, 14, 0, 16, 17, 18, 19, 20]

// k = 5 and k = 6 keep every element of a 4x5 matrix and compile to the
// same code; the disk cache still keeps one executable per value.
// RUN: nnc-run %onnx_data/node/test_tril_neg/model.onnx --input x=%t/x45.npy \
// RUN:   --input k=%t/k5.npy --cache-dir=%t/cache --report \
// RUN:   | FileCheck %s --check-prefix=K5
// K5: specialization: x i64 [4, 5], k i64 [] = [5] (compiled)
// RUN: nnc-run %onnx_data/node/test_tril_neg/model.onnx --input x=%t/x45.npy \
// RUN:   --input k=%t/k6.npy --cache-dir=%t/cache --report \
// RUN:   | FileCheck %s --check-prefix=K6
// K6: specialization: x i64 [4, 5], k i64 [] = [6] (compiled)

// An input that is not marked a shape input cannot be specialized on: the
// compile names the attribute, the op and the input.
// RUN: %npy write %t/x.npy f4 3x4 0:12
// RUN: %npy write %t/k.npy i8 1 1
// RUN: not nnc-run %S/Inputs/trilu-k.mlir --input x=%t/x.npy --input k=%t/k.npy \
// RUN:   --cache-dir= 2>&1 | FileCheck %s --check-prefix=UNMARKED
// UNMARKED: trilu-k.mlir:6:8: the attribute k of 'nnc.trilu' is not known after shape specialization: it depends on the values of the input 'k' (argument 1)
