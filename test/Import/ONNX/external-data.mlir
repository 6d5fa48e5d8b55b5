// External tensor data is read relative to the model's folder only, and every
// way out of it (absolute paths, '..', symlinks) or past the file's end is an
// error naming the tensor.
// RUN: rm -rf %t && mkdir -p %t/sub
// RUN: %python -c "import struct, sys; sys.stdout.buffer.write(struct.pack('<3q2f', 1, -2, 3, 0.5, 4.0))" > %t/weights.bin
// RUN: cp %t/weights.bin %t/sub/weights.bin
// RUN: ln -s /etc/hostname %t/escape.bin
// RUN: ln -s weights.bin %t/inside.bin
// RUN: sed -e 's/@LOCATION@/weights.bin/;s/@OFFSET@/0/;s/@LENGTH@/24/' %S/Inputs/external.onnxtxt.in > %t/ok.onnxtxt
// RUN: nnc-translate --import-onnx-text %t/ok.onnxtxt | FileCheck %s --check-prefix=OK
// OK: func.func @main(%{{.*}}: tensor<2xf32> {nnc.param = #nnc.param<trainable>, nnc.value = dense<[5.000000e-01, 4.000000e+00]> : tensor<2xf32>}) -> (tensor<3xi64>, tensor<2xf32>)
// OK: nnc.constant dense<[1, -2, 3]> : tensor<3xi64>
// A symlink that stays inside the folder is fine; so is a subfolder.
// RUN: sed -e 's/@LOCATION@/inside.bin/;s/@OFFSET@/0/;s/@LENGTH@/24/' %S/Inputs/external.onnxtxt.in > %t/inside.onnxtxt
// RUN: nnc-translate --import-onnx-text %t/inside.onnxtxt | FileCheck %s --check-prefix=OK
// RUN: sed -e 's|@LOCATION@|sub/weights.bin|;s/@OFFSET@/0/;s/@LENGTH@/24/' %S/Inputs/external.onnxtxt.in > %t/sub.onnxtxt
// RUN: nnc-translate --import-onnx-text %t/sub.onnxtxt | FileCheck %s --check-prefix=OK
//
// RUN: sed -e 's|@LOCATION@|/etc/hostname|;s/@OFFSET@/0/;s/@LENGTH@/24/' %S/Inputs/external.onnxtxt.in > %t/abs.onnxtxt
// RUN: not nnc-translate --import-onnx-text %t/abs.onnxtxt 2>&1 | FileCheck %s --check-prefix=ABS
// ABS: error: initializer 'table' external data location '/etc/hostname' must be a path relative to the model's folder
// RUN: sed -e 's|@LOCATION@|sub/../weights.bin|;s/@OFFSET@/0/;s/@LENGTH@/24/' %S/Inputs/external.onnxtxt.in > %t/dotdot.onnxtxt
// RUN: not nnc-translate --import-onnx-text %t/dotdot.onnxtxt 2>&1 | FileCheck %s --check-prefix=DOTDOT
// DOTDOT: error: initializer 'table' external data location 'sub/../weights.bin' may not contain '..'
// RUN: sed -e 's/@LOCATION@/escape.bin/;s/@OFFSET@/0/;s/@LENGTH@/24/' %S/Inputs/external.onnxtxt.in > %t/escape.onnxtxt
// RUN: not nnc-translate --import-onnx-text %t/escape.onnxtxt 2>&1 | FileCheck %s --check-prefix=ESCAPE
// ESCAPE: error: initializer 'table' external data file 'escape.bin' resolves outside the model's folder
// RUN: sed -e 's/@LOCATION@/weights.bin/;s/@OFFSET@/100/;s/@LENGTH@/24/' %S/Inputs/external.onnxtxt.in > %t/offset.onnxtxt
// RUN: not nnc-translate --import-onnx-text %t/offset.onnxtxt 2>&1 | FileCheck %s --check-prefix=OFFSET
// OFFSET: error: initializer 'table' external data range [100, 100 + 24) lies outside 'weights.bin' of 32 bytes
// RUN: sed -e 's/@LOCATION@/weights.bin/;s/@OFFSET@/16/;s/@LENGTH@/24/' %S/Inputs/external.onnxtxt.in > %t/tail.onnxtxt
// RUN: not nnc-translate --import-onnx-text %t/tail.onnxtxt 2>&1 | FileCheck %s --check-prefix=TAIL
// TAIL: error: initializer 'table' external data range [16, 16 + 24) lies outside 'weights.bin' of 32 bytes
// RUN: sed -e 's/@LOCATION@/weights.bin/;s/@OFFSET@/0/;s/@LENGTH@/16/' %S/Inputs/external.onnxtxt.in > %t/length.onnxtxt
// RUN: not nnc-translate --import-onnx-text %t/length.onnxtxt 2>&1 | FileCheck %s --check-prefix=LENGTH
// LENGTH: error: initializer 'table' external data length 16 does not match 24 bytes of shape 3
// RUN: sed -e 's/@LOCATION@/weights.bin/;s/@OFFSET@/-8/;s/@LENGTH@/24/' %S/Inputs/external.onnxtxt.in > %t/negative.onnxtxt
// RUN: not nnc-translate --import-onnx-text %t/negative.onnxtxt 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: initializer 'table' external data offset '-8' is not a non-negative integer
// RUN: sed -e 's/@LOCATION@/nothere.bin/;s/@OFFSET@/0/;s/@LENGTH@/24/' %S/Inputs/external.onnxtxt.in > %t/missing.onnxtxt
// RUN: not nnc-translate --import-onnx-text %t/missing.onnxtxt 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: initializer 'table' external data file 'nothere.bin' cannot be opened: No such file or directory
// RUN: not nnc-translate --import-onnx-text < %t/ok.onnxtxt 2>&1 | FileCheck %s --check-prefix=STDIN
// STDIN: error: initializer 'table' has external data, but the model was not loaded from a file
