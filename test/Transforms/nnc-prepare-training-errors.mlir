// RUN: nnc-opt %s -split-input-file -verify-diagnostics --nnc-prepare-training="output=probs"
// RUN: not nnc-opt %s -split-input-file --nnc-prepare-training="loss=hinge" 2>&1 | FileCheck %s --check-prefix=LOSS
// RUN: not nnc-opt %s -split-input-file --nnc-prepare-training="loss=mse label-smoothing=0.5" 2>&1 | FileCheck %s --check-prefix=SMOOTH
// RUN: not nnc-opt %s -split-input-file --nnc-prepare-training="function=net" 2>&1 | FileCheck %s --check-prefix=MISSING

// LOSS: unknown loss 'hinge'; expected cross_entropy, nll or mse
// SMOOTH: label-smoothing applies to cross_entropy only
// MISSING: nnc-prepare-training: no function named 'net'

// expected-error @+1 {{nnc-prepare-training: no result named 'probs'; results: 'logits'}}
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32>
    attributes {nnc.result_names = ["logits"]} {
  return %x : tensor<2x3xf32>
}
