// nnc-run --profile prints the time per kernel and compile, aggregated by
// name and sorted by total; --trace writes the same events as Chrome trace
// JSON, which Perfetto opens: checked against the trace event format
// (complete events "X" with name, cat, ts, dur in microseconds, pid, tid).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npy write %t/x.npy f4 2x3 0:6
// RUN: %npy write %t/b.npy f4 3 10,20,30
// RUN: nnc-run %S/Inputs/add.mlir --input x=%t/x.npy --input b=%t/b.npy \
// RUN:   --cache-dir= --bench 3 --profile --trace %t/trace.json \
// RUN:   | FileCheck %s
// CHECK: profile:
// CHECK-NEXT: name category count total ms mean ms min ms max ms %
// CHECK: {{^}}[[FN:[a-z_]+]] compile 1 {{.*}}%
// CHECK: {{^}}[[FN]]/generic: add.mlir:4 kernel 5 {{.*}}%
// CHECK: 6 events, {{[0-9.]+}} ms in all
// RUN: %python %S/Inputs/check_trace.py %t/trace.json \
// RUN:   | FileCheck %s --check-prefix=TRACE
// TRACE: 6 complete events: compile 1, kernel 5
// Kernel events are named after what the kernel computes (a linalg.generic)
// and the source ops it holds (named ONNX nodes, else positions: the add on
// line 4 of add.mlir), with the bytes it reads (x and b) and writes.
// RUN: FileCheck %s --check-prefix=OPS < %t/trace.json
// OPS: "name": "main/generic: add.mlir:4", "cat": "kernel", {{.*}}, "args": {"ops": "add.mlir:4", "bytes_read": 36, "bytes_written": 24}}
// The checker itself refuses what Perfetto would not read as complete events.
// RUN: %python -c "import json; d = json.load(open('%t/trace.json')); del d['traceEvents'][1]['dur']; json.dump(d, open('%t/bad.json', 'w'))"
// RUN: not %python %S/Inputs/check_trace.py %t/bad.json | FileCheck %s --check-prefix=BAD
// BAD: invalid trace: event 1 has a bad dur: None
// The training tools record steps, data waits and checkpoint writes too
// (test/Training/nnc-run-train.test).
