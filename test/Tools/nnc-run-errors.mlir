// nnc-run: every error is one line naming what is wrong, and a non-zero exit.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %npy write %t/x.npy f4 2x3 0:6
// RUN: %npy write %t/x64.npy f8 2x3 0:6
// RUN: %npy write %t/x24.npy f4 2x4 0:8
// RUN: %npy write %t/b.npy f4 3 10,20,30
// RUN: %npy write %t/rank.npy f4 6 0:6
// RUN: echo garbage > %t/bad.npy
// RUN: echo garbage > %t/bad.npz
// RUN: echo garbage > %t/bad.nncx
// RUN: echo "func.func @main(" > %t/bad.mlir

// The command line.
// RUN: not nnc-run 2>&1 | FileCheck %s --check-prefix=NO-MODEL
// NO-MODEL: nnc-run: error: no model given (see --help)
// RUN: not nnc-run %S/Inputs/add.mlir --frobnicate 2>&1 | FileCheck %s --check-prefix=UNKNOWN-OPTION
// UNKNOWN-OPTION: nnc-run: error: unknown option '--frobnicate'
// RUN: not nnc-run %S/Inputs/add.mlir --input 2>&1 | FileCheck %s --check-prefix=NO-VALUE
// NO-VALUE: nnc-run: error: option '--input' needs a value
// RUN: not nnc-run %S/Inputs/add.mlir --report=yes 2>&1 | FileCheck %s --check-prefix=REPORT-VALUE
// REPORT-VALUE: nnc-run: error: option '--report' takes no value
// RUN: not nnc-run %S/Inputs/add.mlir %S/Inputs/linear.mlir 2>&1 | FileCheck %s --check-prefix=TWO-MODELS
// TWO-MODELS: nnc-run: error: more than one model given
// RUN: not nnc-run %S/Inputs/add.mlir --bench 0 2>&1 | FileCheck %s --check-prefix=BENCH
// BENCH: nnc-run: error: --bench expects a positive number of runs, got '0'
// RUN: not nnc-run %S/Inputs/add.mlir --threads -1 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS: nnc-run: error: --threads expects a non-negative number, got '-1'
// RUN: not nnc-run %t/model.txt 2>&1 | FileCheck %s --check-prefix=MODEL-TYPE
// MODEL-TYPE: nnc-run: error: model '{{.*}}model.txt' is none of .onnx, .mlir and .nncx
// RUN: not nnc-run %S/Inputs/add.mlir --bind-integer-inputs %t 2>&1 | FileCheck %s --check-prefix=BIND-MLIR
// BIND-MLIR: nnc-run: error: --bind-integer-inputs applies to .onnx models only
// RUN: not nnc-run %t/bad.nncx --cache-dir %t 2>&1 | FileCheck %s --check-prefix=CACHE-NNCX
// CACHE-NNCX: nnc-run: error: --cache-dir applies when compiling, not to a compiled .nncx
// RUN: not nnc-run %t/bad.nncx --threads 2 2>&1 | FileCheck %s --check-prefix=THREADS-NNCX
// THREADS-NNCX: nnc-run: error: --threads applies when compiling, not to a compiled .nncx

// Input files.
// RUN: not nnc-run %S/Inputs/add.mlir --input x=%t/missing.npy 2>&1 | FileCheck %s --check-prefix=MISSING-FILE
// MISSING-FILE: nnc-run: error: input 'x': nnc_tensor_read_npy: {{.*}}missing.npy
// RUN: not nnc-run %S/Inputs/add.mlir --input x=%t/bad.npy 2>&1 | FileCheck %s --check-prefix=BAD-NPY
// BAD-NPY: nnc-run: error: input 'x': nnc_tensor_read_npy: {{.*}}bad.npy
// RUN: not nnc-run %S/Inputs/add.mlir --input x=%t/x.csv 2>&1 | FileCheck %s --check-prefix=FILE-TYPE
// FILE-TYPE: nnc-run: error: input file '{{.*}}x.csv' is neither .npy nor .pb (use --inputs for .npz)
// RUN: not nnc-run %S/Inputs/add.mlir --input %t/x.npy 2>&1 | FileCheck %s --check-prefix=NO-NAME
// NO-NAME: nnc-run: error: --input '{{.*}}x.npy' needs a name: --input NAME=FILE.npy
// RUN: not nnc-run %S/Inputs/add.mlir --input =%t/x.npy 2>&1 | FileCheck %s --check-prefix=EMPTY-NAME
// EMPTY-NAME: nnc-run: error: --input '={{.*}}x.npy' has an empty name
// RUN: not nnc-run %S/Inputs/add.mlir --inputs %t/bad.npz 2>&1 | FileCheck %s --check-prefix=BAD-NPZ
// BAD-NPZ: nnc-run: error: nnc_npz_read: {{.*}}bad.npz: not a valid .npz
// RUN: not nnc-run %S/Inputs/add.mlir --input x=%t/bad.pb 2>&1 | FileCheck %s --check-prefix=MISSING-PB
// MISSING-PB: nnc-run: error: input 'x': nnc_tensor_read_onnx: cannot read ONNX tensor '{{.*}}bad.pb'
// RUN: %npy npz %t/xb.npz x=%t/x.npy
// RUN: not nnc-run %S/Inputs/add.mlir --input x=%t/x.npy --inputs %t/xb.npz 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: nnc-run: error: input 'x' is given twice (by {{.*}}x.npy and {{.*}}xb.npz)

// Inputs against the model's signature, before anything is compiled.
// RUN: not nnc-run %S/Inputs/add-dynamic.mlir --input x=%t/x.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: nnc-run: error: missing input 'b' (f32 [3])
// RUN: not nnc-run %S/Inputs/add-dynamic.mlir --input x=%t/x.npy --input b=%t/b.npy --input y=%t/b.npy 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: nnc-run: error: unknown input 'y' (from {{.*}}b.npy); the model's arguments are x, b
// RUN: not nnc-run %S/Inputs/add-dynamic.mlir --input x=%t/x64.npy --input b=%t/b.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: nnc-run: error: input 'x' expects f32 [?, 3] but {{.*}}x64.npy holds f64 [2, 3]
// RUN: not nnc-run %S/Inputs/add-dynamic.mlir --input x=%t/x24.npy --input b=%t/b.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: nnc-run: error: input 'x' expects f32 [?, 3] but {{.*}}x24.npy holds f32 [2, 4]
// RUN: not nnc-run %S/Inputs/add-dynamic.mlir --input x=%t/rank.npy --input b=%t/b.npy 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: nnc-run: error: input 'x' expects f32 [?, 3] but {{.*}}rank.npy holds f32 [6]

// A parameter without a value that is not given: the compile error says so.
// RUN: not nnc-run %S/Inputs/scale.mlir --input x=%t/b.npy --cache-dir= 2>&1 | FileCheck %s --check-prefix=PARAM
// PARAM: nnc-run: error: nnc_session_run: {{.*}}expected 2 input shapes (one per argument without a value), got 1
// PARAM: (parameters without an initial value must be given as inputs; not given: s)

// Models.
// RUN: not nnc-run %t/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING-MODEL
// MISSING-MODEL: nnc-run: error: cannot read model '{{.*}}missing.mlir': No such file or directory
// RUN: not nnc-run %t/missing.onnx 2>&1 | FileCheck %s --check-prefix=MISSING-ONNX
// MISSING-ONNX: nnc-run: error: nnc_model_import_onnx_file: cannot read ONNX model '{{.*}}missing.onnx'
// RUN: not nnc-run %t/bad.mlir 2>&1 | FileCheck %s --check-prefix=BAD-MLIR
// BAD-MLIR: nnc-run: error: nnc_model_parse_mlir: cannot parse '{{.*}}bad.mlir': {{.*}}bad.mlir:1:{{[0-9]+}}: expected
// RUN: not nnc-run %t/bad.nncx --input x=%t/x.npy 2>&1 | FileCheck %s --check-prefix=BAD-NNCX
// BAD-NNCX: nnc-run: error: nnc_executable_load_file:
// RUN: not nnc-run %t/missing.nncx 2>&1 | FileCheck %s --check-prefix=MISSING-NNCX
// MISSING-NNCX: nnc-run: error: nnc_executable_load_file: {{.*}}missing.nncx

// A compiled executable checks its (now fixed) shapes and names too.
// RUN: nnc-run %S/Inputs/add.mlir --input x=%t/x.npy --input b=%t/b.npy \
// RUN:   --cache-dir= --save-compiled %t/add.nncx > /dev/null
// RUN: %npy write %t/x43.npy f4 4x3 0:12
// RUN: not nnc-run %t/add.nncx --input x=%t/x43.npy --input b=%t/b.npy 2>&1 | FileCheck %s --check-prefix=NNCX-SHAPE
// NNCX-SHAPE: nnc-run: error: input 'x' expects f32 [2, 3] but {{.*}}x43.npy holds f32 [4, 3]
// RUN: not nnc-run %t/add.nncx --input x=%t/x.npy 2>&1 | FileCheck %s --check-prefix=NNCX-MISSING
// NNCX-MISSING: nnc-run: error: missing input 'b' (f32 [3])
// RUN: not nnc-run %t/add.nncx --input x=%t/x.npy --input b=%t/b.npy --input c=%t/b.npy 2>&1 | FileCheck %s --check-prefix=NNCX-UNKNOWN
// NNCX-UNKNOWN: nnc-run: error: unknown input 'c' (from {{.*}}b.npy); the executable's inputs are x, b

// Outputs that cannot be written.
// RUN: not nnc-run %t/add.nncx --input x=%t/x.npy --input b=%t/b.npy --output %t/no/such/dir/out.npz 2>&1 | FileCheck %s --check-prefix=OUTPUT
// OUTPUT: nnc-run: error: nnc_npz_write: {{.*}}out.npz
// RUN: not nnc-run %t/add.nncx --input x=%t/x.npy --input b=%t/b.npy --save-compiled %t/no/such/dir/a.nncx 2>&1 | FileCheck %s --check-prefix=SAVE
// SAVE: nnc-run: error: nnc_executable_save: {{.*}}a.nncx

// A shape given as an input is a shape input: without it the run names it;
// given, the executable is specialized on its value (no binding needed).
// RUN: not nnc-run %onnx_data/node/test_reshape_reordered_all_dims/model.onnx \
// RUN:   --input %onnx_data/node/test_reshape_reordered_all_dims/test_data_set_0/input_0.pb \
// RUN:   2>&1 | FileCheck %s --check-prefix=SHAPE-MISSING
// SHAPE-MISSING: nnc-run: error: missing input 'shape' (i64 [3])
// A second run with another value of the shape is another specialization.
// RUN: %python -c "import numpy as np; np.save('%t/shape342.npy', np.array([3, 4, 2], np.int64))"
// RUN: nnc-run %onnx_data/node/test_reshape_reordered_all_dims/model.onnx \
// RUN:   --input %onnx_data/node/test_reshape_reordered_all_dims/test_data_set_0/input_0.pb \
// RUN:   --input %onnx_data/node/test_reshape_reordered_all_dims/test_data_set_0/input_1.pb \
// RUN:   --output %t/reshaped.npz --then \
// RUN:   --input %onnx_data/node/test_reshape_reordered_all_dims/test_data_set_0/input_0.pb \
// RUN:   --input shape=%t/shape342.npy --output %t/reshaped342.npz \
// RUN:   --report --cache-dir= | FileCheck %s --check-prefix=SHAPE-INPUT
// SHAPE-INPUT: specialization: data f32 [2, 3, 4], shape i64 [3] = [4, 2, 3] (compiled)
// SHAPE-INPUT: specialization: data f32 [2, 3, 4], shape i64 [3] = [3, 4, 2] (compiled)
// RUN: %python -c "import numpy as np; y = np.load('%t/reshaped.npz')['reshaped']; z = np.load('%t/reshaped342.npz')['reshaped']; assert y.shape == (4, 2, 3) and z.shape == (3, 4, 2) and (y.ravel() == z.ravel()).all(), (y.shape, z.shape)"

// A .pb input of an element type nnc has no dtype for.
// RUN: not nnc-run %onnx_data/node/test_add/model.onnx \
// RUN:   --input x=%onnx_data/node/test_cast_FLOAT_to_BFLOAT16/test_data_set_0/output_0.pb \
// RUN:   2>&1 | FileCheck %s --check-prefix=PB-TYPE
// PB-TYPE: nnc-run: error: input 'x': nnc_tensor_read_onnx: {{.*}}output_0.pb' has element type UINT16, which has no nnc_dtype_t

// Dimensions that share a name must agree when a run binds the shapes.
// RUN: %npy write %t/y22.npy f4 2x2 0:4
// RUN: %npy write %t/y42.npy f4 4x2 0:8
// RUN: nnc-run %S/Inputs/dim-names.mlir --input x=%t/x.npy --input y=%t/y22.npy --cache-dir= \
// RUN:   | FileCheck %s --check-prefix=NAMES-AGREE
// NAMES-AGREE: output_0: f32 [2, 3]
// RUN: not nnc-run %S/Inputs/dim-names.mlir --input x=%t/x.npy --input y=%t/y42.npy --cache-dir= \
// RUN:   2>&1 | FileCheck %s --check-prefix=NAMES
// NAMES: nnc-run: error: nnc_session_run: {{.*}}input 1 ('y') has 4 in dimension 0 ('batch'), but input 'x' has 2 in its dimension 0 of that name: dimensions named 'batch' must agree
