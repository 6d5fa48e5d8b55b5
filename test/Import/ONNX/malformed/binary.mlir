// Damaged binary models are refused with a diagnostic, never a crash, hang or
// huge allocation: truncated files, random bytes, an empty file, protobuf
// nested deeper than the reader allows, and a file that does not exist.
// RUN: rm -rf %t && mkdir -p %t
// RUN: protoc --encode=onnx.ModelProto -I/usr/include onnx/onnx.proto < %S/../basic.onnxtxt > %t/basic.onnx
// RUN: head -c 60 %t/basic.onnx > %t/truncated.onnx
// RUN: not nnc-translate --import-onnx %t/truncated.onnx 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: %python -c "import random, sys; r = random.Random(3); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(4096)))" > %t/random.onnx
// RUN: not nnc-translate --import-onnx %t/random.onnx 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: %python %S/../Inputs/nested_model.py 200 > %t/nested.txt
// RUN: protoc --encode=onnx.ModelProto -I/usr/include onnx/onnx.proto < %t/nested.txt > %t/nested.onnx
// RUN: not nnc-translate --import-onnx %t/nested.onnx 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: error: not a valid ONNX model: the protobuf does not parse (truncated, corrupt or nested too deeply)
// RUN: : > %t/empty.onnx
// RUN: not nnc-translate --import-onnx %t/empty.onnx 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: error: the model has no graph
// RUN: not nnc-translate --import-onnx %t/missing.onnx 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: missing.onnx
