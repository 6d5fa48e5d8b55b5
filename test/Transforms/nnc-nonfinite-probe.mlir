// RUN: nnc-opt %s --nnc-nonfinite-probe=function=f_grad --split-input-file \
// RUN:   -verify-diagnostics | FileCheck %s

// A gradient function (results named grad<i>): the probe copies it, adds an
// entry per floating-point argument and op result in program order (none for
// the reshape, which only moves elements, nor for integer values), with the
// entries NaN exactly where the value is not finite (sum of value * 0), and
// returns them in one tensor. Ops the loss depends on are the forward.
// CHECK-LABEL: func.func @f_grad(
// CHECK-SAME:      -> (tensor<f32>, tensor<4xf32>)
// CHECK-LABEL: func.func @f_grad_probe(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: tensor<2x4xf16>
// CHECK-SAME:      %[[W:[a-z0-9]+]]: tensor<4xf32> {nnc.param = #nnc.param<trainable>}
// CHECK-SAME:      %[[I:[a-z0-9]+]]: tensor<2xi64>
// CHECK-SAME:      -> tensor<6xf32>
// CHECK-SAME:      nnc.probe_ops = ["input 'x' tensor<2x4xf16>", "parameter 'w' tensor<4xf32>", "nnc.cast 'widen' (forward) tensor<2x4xf32>", "nnc.exp 'exp' (forward) tensor<2x4xf32>", "nnc.reduce 'loss' (forward) tensor<f32>", "nnc.mul 'grad' (backward) tensor<4xf32>"]
// CHECK-SAME:      nnc.result_names = ["nonfinite"]
// The input's entry: f16 probed in f16, the sum widened.
// CHECK:         %[[Z0:.*]] = nnc.constant dense<0.000000e+00> : tensor<f16>
// CHECK-NEXT:    %[[M0:.*]] = nnc.mul %[[X]], %[[Z0]] : tensor<2x4xf16>, tensor<f16>
// CHECK-NEXT:    %[[S0:.*]] = nnc.reduce sum %[[M0]] keepdims = false : tensor<2x4xf16>
// CHECK-NEXT:    %[[C0:.*]] = nnc.cast %[[S0]] : tensor<f16> to tensor<f32>
// CHECK-NEXT:    %[[E0:.*]] = nnc.reshape %[[C0]] : tensor<f32> -> tensor<1xf32>
// CHECK:         %[[EXP:.*]] = nnc.exp
// The exp's entry comes right after it, so that it does not keep it alive.
// CHECK-NEXT:    nnc.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    nnc.mul %[[EXP]]
// CHECK:         %[[ALL:.*]] = nnc.concat %[[E0]], {{.*}} axis = 0 : tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>
// CHECK-NEXT:    return %[[ALL]] : tensor<6xf32>
func.func @f_grad(%x: tensor<2x4xf16> loc("x"),
                  %w: tensor<4xf32> {nnc.param = #nnc.param<trainable>} loc("w"),
                  %i: tensor<2xi64> loc("i"))
    -> (tensor<f32>, tensor<4xf32>)
    attributes {nnc.result_names = ["loss", "grad1"]} {
  %0 = nnc.cast %x : tensor<2x4xf16> to tensor<2x4xf32> loc("widen")
  %1 = nnc.exp %0 : tensor<2x4xf32> loc("exp")
  %2 = nnc.reshape %1 : tensor<2x4xf32> -> tensor<8xf32> loc("flat")
  %3 = nnc.reduce sum %2 keepdims = false : tensor<8xf32> loc("loss")
  %4 = nnc.mul %w, %w : tensor<4xf32>, tensor<4xf32> loc("grad")
  return %3, %4 : tensor<f32>, tensor<4xf32>
}

// -----

// Not a gradient function: no forward/backward; a location of the source
// file names a value by file:line:col; the split only moves elements (no
// entry). More than 64 entries are concatenated in groups.
// CHECK-LABEL: func.func @f_grad_probe(
// CHECK-SAME:      -> tensor<65xf32>
// CHECK-SAME:      "nnc.neg '{{[^']*}}nnc-nonfinite-probe.mlir:[[@LINE+9]]:9' tensor<1xf32>"
// CHECK:         %[[S:.*]]:2 = nnc.split
// CHECK-NEXT:    nnc.neg %[[S]]#0
// CHECK:         %[[G0:.*]] = nnc.concat {{.*}} axis = 0 : tensor<1xf32>,
// CHECK-NEXT:    %[[ALL:.*]] = nnc.concat %[[G0]], %{{.*}} axis = 0 : tensor<64xf32>, tensor<1xf32>
// CHECK-NEXT:    return %[[ALL]] : tensor<65xf32>
func.func @f_grad(%x: tensor<2xf32>) -> tensor<1xf32> {
  %a, %b = nnc.split %x axis = 0 sizes = [1, 1] : tensor<2xf32>
  %n0 = nnc.neg %a : tensor<1xf32>
  %n1 = nnc.neg %n0 : tensor<1xf32>
  %n2 = nnc.neg %n1 : tensor<1xf32>
  %n3 = nnc.neg %n2 : tensor<1xf32>
  %n4 = nnc.neg %n3 : tensor<1xf32>
  %n5 = nnc.neg %n4 : tensor<1xf32>
  %n6 = nnc.neg %n5 : tensor<1xf32>
  %n7 = nnc.neg %n6 : tensor<1xf32>
  %n8 = nnc.neg %n7 : tensor<1xf32>
  %n9 = nnc.neg %n8 : tensor<1xf32>
  %n10 = nnc.neg %n9 : tensor<1xf32>
  %n11 = nnc.neg %n10 : tensor<1xf32>
  %n12 = nnc.neg %n11 : tensor<1xf32>
  %n13 = nnc.neg %n12 : tensor<1xf32>
  %n14 = nnc.neg %n13 : tensor<1xf32>
  %n15 = nnc.neg %n14 : tensor<1xf32>
  %n16 = nnc.neg %n15 : tensor<1xf32>
  %n17 = nnc.neg %n16 : tensor<1xf32>
  %n18 = nnc.neg %n17 : tensor<1xf32>
  %n19 = nnc.neg %n18 : tensor<1xf32>
  %n20 = nnc.neg %n19 : tensor<1xf32>
  %n21 = nnc.neg %n20 : tensor<1xf32>
  %n22 = nnc.neg %n21 : tensor<1xf32>
  %n23 = nnc.neg %n22 : tensor<1xf32>
  %n24 = nnc.neg %n23 : tensor<1xf32>
  %n25 = nnc.neg %n24 : tensor<1xf32>
  %n26 = nnc.neg %n25 : tensor<1xf32>
  %n27 = nnc.neg %n26 : tensor<1xf32>
  %n28 = nnc.neg %n27 : tensor<1xf32>
  %n29 = nnc.neg %n28 : tensor<1xf32>
  %n30 = nnc.neg %n29 : tensor<1xf32>
  %n31 = nnc.neg %n30 : tensor<1xf32>
  %n32 = nnc.neg %n31 : tensor<1xf32>
  %n33 = nnc.neg %n32 : tensor<1xf32>
  %n34 = nnc.neg %n33 : tensor<1xf32>
  %n35 = nnc.neg %n34 : tensor<1xf32>
  %n36 = nnc.neg %n35 : tensor<1xf32>
  %n37 = nnc.neg %n36 : tensor<1xf32>
  %n38 = nnc.neg %n37 : tensor<1xf32>
  %n39 = nnc.neg %n38 : tensor<1xf32>
  %n40 = nnc.neg %n39 : tensor<1xf32>
  %n41 = nnc.neg %n40 : tensor<1xf32>
  %n42 = nnc.neg %n41 : tensor<1xf32>
  %n43 = nnc.neg %n42 : tensor<1xf32>
  %n44 = nnc.neg %n43 : tensor<1xf32>
  %n45 = nnc.neg %n44 : tensor<1xf32>
  %n46 = nnc.neg %n45 : tensor<1xf32>
  %n47 = nnc.neg %n46 : tensor<1xf32>
  %n48 = nnc.neg %n47 : tensor<1xf32>
  %n49 = nnc.neg %n48 : tensor<1xf32>
  %n50 = nnc.neg %n49 : tensor<1xf32>
  %n51 = nnc.neg %n50 : tensor<1xf32>
  %n52 = nnc.neg %n51 : tensor<1xf32>
  %n53 = nnc.neg %n52 : tensor<1xf32>
  %n54 = nnc.neg %n53 : tensor<1xf32>
  %n55 = nnc.neg %n54 : tensor<1xf32>
  %n56 = nnc.neg %n55 : tensor<1xf32>
  %n57 = nnc.neg %n56 : tensor<1xf32>
  %n58 = nnc.neg %n57 : tensor<1xf32>
  %n59 = nnc.neg %n58 : tensor<1xf32>
  %n60 = nnc.neg %n59 : tensor<1xf32>
  %n61 = nnc.neg %n60 : tensor<1xf32>
  %n62 = nnc.neg %n61 : tensor<1xf32>
  %n63 = nnc.neg %n62 : tensor<1xf32>
  return %n63 : tensor<1xf32>
}

// -----

// expected-error @below {{nnc-nonfinite-probe: no function named 'f_grad' with a body}}
module {
  func.func private @f_grad(tensor<2xf32>) -> tensor<2xf32>
}

// -----

// expected-error @below {{nnc-nonfinite-probe: a symbol named 'f_grad_probe' already exists}}
module {
  func.func @f_grad(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
  func.func @f_grad_probe(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}
