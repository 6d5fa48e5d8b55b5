// nnc-run: inputs from .npy, .npz and TensorProto files, outputs printed or
// written to .npz, for .mlir and .onnx models.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npy write %t/x.npy f4 2x3 0:6
// RUN: %npy write %t/b.npy f4 3 10,20,30

// A summary of the outputs when there is no --output.
// RUN: nnc-run %S/Inputs/add.mlir --input x=%t/x.npy --input b=%t/b.npy \
// RUN:   --cache-dir= | FileCheck %s --check-prefix=SUMMARY
// SUMMARY: output_0: f32 [2, 3] = [10, 21, 32, 13, 24, 35]

// --output writes the outputs to .npz; the option forms `--opt=value` work.
// RUN: nnc-run %S/Inputs/add.mlir --input=x=%t/x.npy --input b=%t/b.npy \
// RUN:   --output=%t/out.npz --cache-dir= | count 0
// RUN: %npy dump %t/out.npz | FileCheck %s --check-prefix=NPZ
// NPZ: output_0: f4 [2, 3] = [10, 21, 32, 13, 24, 35]

// --inputs reads every array of an archive by name.
// RUN: %npy npz %t/in.npz x=%t/x.npy b=%t/b.npy
// RUN: nnc-run %S/Inputs/add.mlir --inputs %t/in.npz --cache-dir= \
// RUN:   | FileCheck %s --check-prefix=ARCHIVE
// ARCHIVE: output_0: f32 [2, 3] = [10, 21, 32, 13, 24, 35]

// Parameters with nnc.value are compiled in; unnamed arguments and results
// are input_<k> / output_<k>; booleans print as true/false.
// RUN: %npy write %t/eye.npy f4 2x2 1,0,0,1
// RUN: nnc-run %S/Inputs/linear.mlir --input input_0=%t/eye.npy \
// RUN:   --cache-dir= | FileCheck %s --check-prefix=LINEAR
// LINEAR: output_0: f32 [2, 3] = [1, 0, 3, 4, 5, 0]
// LINEAR-NEXT: output_1: bool [2, 3] = [true, false, true, true, true, false]

// A parameter without a value is given like an input.
// RUN: %npy write %t/s.npy f4 3 2,3,4
// RUN: nnc-run %S/Inputs/scale.mlir --input x=%t/b.npy --input s=%t/s.npy \
// RUN:   --cache-dir= | FileCheck %s --check-prefix=PARAM
// PARAM: output_0: f32 [3] = [20, 60, 120]

// An ONNX model with TensorProto inputs: named explicitly, or by the name
// stored in the .pb file; outputs are named after the graph's outputs.
// RUN: nnc-run %onnx_data/node/test_add/model.onnx --cache-dir= \
// RUN:   --input x=%onnx_data/node/test_add/test_data_set_0/input_0.pb \
// RUN:   --input %onnx_data/node/test_add/test_data_set_0/input_1.pb \
// RUN:   --output %t/add.npz
// RUN: %npy dump %t/add.npz | FileCheck %s --check-prefix=ONNX
// ONNX: sum: f4 [3, 4, 5] = [

// --bind-integer-inputs makes a shape given as an input known at compile
// time; the bound input leaves the signature. The summary shows 8 values.
// RUN: nnc-run %onnx_data/node/test_reshape_reordered_all_dims/model.onnx \
// RUN:   --bind-integer-inputs \
// RUN:     %onnx_data/node/test_reshape_reordered_all_dims/test_data_set_0 \
// RUN:   --input %onnx_data/node/test_reshape_reordered_all_dims/test_data_set_0/input_0.pb \
// RUN:   --cache-dir= | FileCheck %s --check-prefix=BIND
// BIND: reshaped: f32 [4, 2, 3] = [0.548814, 0.715189, 0.602763, 0.544883, 0.423655, 0.645894, 0.437587, 0.891773, ...]{{$}}

// --help describes every option.
// RUN: nnc-run --help | FileCheck %s --check-prefix=HELP
// HELP: usage: nnc-run MODEL
// HELP-DAG: --input NAME=FILE
// HELP-DAG: --inputs FILE.npz
// HELP-DAG: --output FILE.npz
// HELP-DAG: --save-compiled FILE
// HELP-DAG: --report
// HELP-DAG: --bench N
// HELP-DAG: --cache-dir DIR
// HELP-DAG: --bind-integer-inputs
// HELP-DAG: --threads N
