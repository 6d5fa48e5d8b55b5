// RUN: nnc-opt %s --split-input-file --nnc-shape-inference | FileCheck %s --check-prefix=PROP
// RUN: nnc-opt %s --split-input-file --nnc-shape-inference="input-shapes=0:8x4" | FileCheck %s --check-prefix=SPEC
// RUN: not nnc-opt %s --split-input-file --nnc-shape-inference="input-shapes=0:8" 2>&1 | FileCheck %s --check-prefix=RANK
// RUN: not nnc-opt %s --nnc-shape-inference="input-shapes=0:8x4,7:2" 2>&1 | FileCheck %s --check-prefix=INDEX
// RUN: not nnc-opt %s --nnc-shape-inference="input-shapes=zero:8x4" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not nnc-opt %s --nnc-shape-inference="input-shapes=0:8xq" 2>&1 | FileCheck %s --check-prefix=DIM
// RUN: not nnc-opt %s --nnc-shape-inference="function=missing" 2>&1 | FileCheck %s --check-prefix=MISSING

// Specializing the batch dim flows through the ops into the signature;
// without input shapes there is nothing to refine and the IR is unchanged.
// PROP-LABEL: func @propagate
// PROP-SAME: (%{{.*}}: tensor<?x4xf32>, %{{.*}}: tensor<?x4xf32>) -> tensor<?x4xf16>
// PROP: nnc.add %{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<?x4xf32>
// SPEC-LABEL: func @propagate
// SPEC-SAME: (%{{.*}}: tensor<8x4xf32>, %{{.*}}: tensor<?x4xf32>) -> tensor<8x4xf16>
// SPEC: nnc.add %{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<?x4xf32>
// SPEC: nnc.cast %{{.*}} : tensor<8x4xf32> to tensor<8x4xf16>
// SPEC: nnc.relu %{{.*}} : tensor<8x4xf16>
// SPEC: return %{{.*}} : tensor<8x4xf16>
// PROP: return %{{.*}} : tensor<?x4xf16>
// RANK: input shape 8 for argument 0 has rank 1, expected 2
// INDEX: input-shapes names argument 7 but @propagate has 2 arguments
// FORMAT: input shape 'zero:8x4' is not of the form 'index:dims'
// DIM: input shape '0:8xq' has an invalid dimension 'q'
// MISSING: function @missing not found
func.func @propagate(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf16> {
  %0 = nnc.add %x, %y : tensor<?x4xf32>, tensor<?x4xf32>
  %1 = nnc.cast %0 : tensor<?x4xf32> to tensor<?x4xf16>
  %2 = nnc.relu %1 : tensor<?x4xf16>
  return %2 : tensor<?x4xf16>
}

// -----

// Specialization flows through unary, binary, comparison and cast ops; the
// tensor.cast users outside nnc keep their operand types through new casts.
// SPEC-LABEL: func @chain
// SPEC-SAME: (%{{.*}}: tensor<8x4xf32>, %{{.*}}: tensor<4xf32> {nnc.param = #nnc.param<trainable>}) -> (tensor<?x?xbf16>, tensor<?x?xi1>)
// SPEC: nnc.mul %{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<4xf32>
// SPEC: nnc.tanh %{{.*}} : tensor<8x4xf32>
// SPEC: nnc.cast %{{.*}} : tensor<8x4xf32> to tensor<8x4xbf16>
// SPEC: nnc.cmp gt, %{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<4xf32>
// SPEC: %[[C:.*]] = tensor.cast %{{.*}} : tensor<8x4xbf16> to tensor<?x4xbf16>
// SPEC: tensor.cast %[[C]] : tensor<?x4xbf16> to tensor<?x?xbf16>
func.func @chain(%x: tensor<?x?xf32>, %w: tensor<4xf32> {nnc.param = #nnc.param<trainable>}) -> (tensor<?x?xbf16>, tensor<?x?xi1>) {
  %0 = nnc.mul %x, %w : tensor<?x?xf32>, tensor<4xf32>
  %1 = nnc.tanh %0 : tensor<?x4xf32>
  %2 = nnc.cast %1 : tensor<?x4xf32> to tensor<?x4xbf16>
  %3 = nnc.cmp gt, %1, %w : tensor<?x4xf32>, tensor<4xf32>
  %4 = tensor.cast %2 : tensor<?x4xbf16> to tensor<?x?xbf16>
  %5 = tensor.cast %3 : tensor<?x4xi1> to tensor<?x?xi1>
  return %4, %5 : tensor<?x?xbf16>, tensor<?x?xi1>
}

// -----

// A function with callers keeps its signature while the entry function is
// specialized; the call sees its old operand type through a tensor.cast.
// SPEC-LABEL: func private @callee
// SPEC-SAME: (%{{.*}}: tensor<?x4xf32>) -> tensor<?x4xf32>
// SPEC: nnc.add %{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<?x4xf32>
// SPEC-LABEL: func @caller
// SPEC-SAME: (%[[X:.*]]: tensor<8x4xf32>) -> tensor<?x4xf32>
// SPEC: %[[C:.*]] = tensor.cast %[[X]] : tensor<8x4xf32> to tensor<?x4xf32>
// SPEC: call @callee(%[[C]]) : (tensor<?x4xf32>) -> tensor<?x4xf32>
func.func private @callee(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = nnc.add %x, %x : tensor<?x4xf32>, tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
func.func @caller(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = call @callee(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// A user outside the nnc dialect keeps seeing the type it was written
// against, through a tensor.cast.
// SPEC-LABEL: func @foreign_user
// SPEC: %[[R:.*]] = nnc.relu %{{.*}} : tensor<8x4xf32>
// SPEC: %[[C:.*]] = tensor.cast %[[R]] : tensor<8x4xf32> to tensor<?x4xf32>
// SPEC: tensor.dim %[[C]]
func.func @foreign_user(%x: tensor<?x4xf32>) -> index {
  %0 = nnc.relu %x : tensor<?x4xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %0, %c0 : tensor<?x4xf32>
  return %d : index
}
