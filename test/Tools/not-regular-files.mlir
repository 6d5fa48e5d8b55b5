// Every file a user names (models, TensorProto and .npy inputs, configs,
// checkpoints, executables, training data) is refused, naming it, when it is
// a FIFO, a device or a folder, before anything is read: a FIFO would block
// or be read without end, a device read until memory runs out. `timeout`
// turns a hang into a failure.
// RUN: rm -rf %t && mkdir -p %t/folder.onnx
// RUN: mkfifo %t/m.onnx %t/m.mlir %t/x.pb %t/x.npy %t/c.cfg %t/c.ckpt %t/e.nncx %t/d.npz %t/d.csv
// RUN: ln -s /dev/zero %t/zero.onnx && ln -s /dev/zero %t/zero.mlir
// RUN: %npy write %t/b.npy f4 3 10,20,30
// The MLIR drivers, nnc-opt and nnc-translate, too; stdin stays stdin.
// RUN: not timeout 60 nnc-opt %t/m.mlir 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: nnc-opt: error: cannot read input '{{.*}}m.mlir': a FIFO, not a regular file
// RUN: not timeout 60 nnc-opt %t/zero.mlir -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=OPTDEV
// OPTDEV: nnc-opt: error: cannot read input '{{.*}}zero.mlir': a device, not a regular file
// RUN: nnc-opt < %S/Inputs/add.mlir | FileCheck %s --check-prefix=STDIN
// STDIN: nnc.add
// RUN: not timeout 60 nnc-translate --import-onnx %t/m.onnx 2>&1 | FileCheck %s --check-prefix=TRANSLATE
// TRANSLATE: nnc-translate: error: cannot read input '{{.*}}m.onnx': a FIFO, not a regular file
// RUN: not timeout 60 nnc-translate --import-onnx -o %t/out.mlir %t/zero.onnx 2>&1 | FileCheck %s --check-prefix=TRANSLATEDEV
// TRANSLATEDEV: nnc-translate: error: cannot read input '{{.*}}zero.onnx': a device, not a regular file
// RUN: not timeout 60 nnc-run %t/m.onnx 2>&1 | FileCheck %s --check-prefix=ONNX
// ONNX: cannot read ONNX model '{{.*}}m.onnx': a FIFO, not a regular file
// RUN: not timeout 60 nnc-run %t/zero.onnx 2>&1 | FileCheck %s --check-prefix=DEV
// DEV: cannot read ONNX model '{{.*}}zero.onnx': a device, not a regular file
// RUN: not timeout 60 nnc-run %t/folder.onnx 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: cannot read ONNX model '{{.*}}folder.onnx': a folder, not a regular file
// RUN: not timeout 60 nnc-run %t/m.mlir 2>&1 | FileCheck %s --check-prefix=MLIR
// MLIR: cannot read model '{{.*}}m.mlir': a FIFO, not a regular file
// RUN: not timeout 60 nnc-run %t/zero.mlir 2>&1 | FileCheck %s --check-prefix=MLIRDEV
// MLIRDEV: cannot read model '{{.*}}zero.mlir': a device, not a regular file
// RUN: not timeout 60 nnc-run %S/Inputs/add.mlir --input x=%t/x.pb \
// RUN:   --input b=%t/b.npy 2>&1 | FileCheck %s --check-prefix=PB
// PB: cannot read ONNX tensor '{{.*}}x.pb': a FIFO, not a regular file
// RUN: not timeout 60 nnc-run %S/Inputs/add.mlir --input x=%t/x.npy \
// RUN:   --input b=%t/b.npy 2>&1 | FileCheck %s --check-prefix=NPY
// NPY: {{.*}}x.npy: not a regular file
// RUN: not timeout 60 nnc-run %t/e.nncx 2>&1 | FileCheck %s --check-prefix=NNCX
// NNCX: {{.*}}e.nncx is not a regular file
// RUN: not timeout 60 nnc-run train --config %t/c.cfg 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CFG
// CFG: cannot read config file '{{.*}}c.cfg': a FIFO, not a regular file
// RUN: not timeout 60 nnc-run train %t/m.mlir --data %t/d.npz 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TRAINMODEL
// TRAINMODEL: cannot read model '{{.*}}m.mlir': a FIFO, not a regular file
// RUN: not timeout 60 nnc-run train %S/../Training/mlp/model.onnx \
// RUN:   --data %t/d.npz 2>&1 | FileCheck %s --check-prefix=NPZ
// NPZ: {{.*}}d.npz: not a regular file
// RUN: not timeout 60 nnc-run train %S/../Training/mlp/model.onnx \
// RUN:   --data %t/d.csv 2>&1 | FileCheck %s --check-prefix=CSV
// CSV: {{.*}}d.csv: not a regular file
// RUN: not timeout 60 nnc-run train %S/../Training/mlp/model.onnx \
// RUN:   --data %S/../Training/mlp/data.npz --resume %t/c.ckpt 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CKPT
// CKPT: checkpoint {{.*}}c.ckpt: not a regular file
