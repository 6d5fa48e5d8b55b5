// RUN: nnc-opt %s --nnc-nonfinite-probe=function=f_grad --split-input-file \
// RUN:   -verify-diagnostics | FileCheck %s

// A gradient function (results named grad<i>): the probe copies it, adds an
// entry per floating-point argument and op result in program order (none for
// the reshape, which only moves elements, the widening cast, which cannot
// overflow, nor for integer values), with the
// entries NaN exactly where the value is not finite (sum of value * 0), and
// returns them in one tensor. Ops the loss depends on are the forward.
// CHECK-LABEL: func.func @f_grad(
// CHECK-SAME:      -> (tensor<f32>, tensor<4xf32>)
// CHECK-LABEL: func.func @f_grad_probe(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: tensor<2x4xf16>
// CHECK-SAME:      %[[W:[a-z0-9]+]]: tensor<4xf32> {nnc.param = #nnc.param<trainable>}
// CHECK-SAME:      %[[I:[a-z0-9]+]]: tensor<2xi64>
// CHECK-SAME:      -> tensor<5xf32>
// CHECK-SAME:      nnc.probe_ops = ["input 'x' tensor<2x4xf16>", "parameter 'w' tensor<4xf32>", "nnc.exp 'exp' (forward) tensor<2x4xf32>", "nnc.reduce 'loss' (forward) tensor<f32>", "nnc.mul 'grad' (backward) tensor<4xf32>"]
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
// CHECK:         %[[ALL:.*]] = nnc.concat %[[E0]], {{.*}} axis = 0 : tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>
// CHECK-NEXT:    return %[[ALL]] : tensor<5xf32>
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
// CHECK-SAME:      "nnc.exp '{{[^']*}}nnc-nonfinite-probe.mlir:[[@LINE+9]]:9' tensor<1xf32>"
// CHECK:         %[[S:.*]]:2 = nnc.split
// CHECK-NEXT:    nnc.exp %[[S]]#0
// CHECK:         %[[G0:.*]] = nnc.concat {{.*}} axis = 0 : tensor<1xf32>,
// CHECK-NEXT:    %[[ALL:.*]] = nnc.concat %[[G0]], %{{.*}} axis = 0 : tensor<64xf32>, tensor<1xf32>
// CHECK-NEXT:    return %[[ALL]] : tensor<65xf32>
func.func @f_grad(%x: tensor<2xf32>) -> tensor<1xf32> {
  %a, %b = nnc.split %x axis = 0 sizes = [1, 1] : tensor<2xf32>
  %n0 = nnc.exp %a : tensor<1xf32>
  %n1 = nnc.exp %n0 : tensor<1xf32>
  %n2 = nnc.exp %n1 : tensor<1xf32>
  %n3 = nnc.exp %n2 : tensor<1xf32>
  %n4 = nnc.exp %n3 : tensor<1xf32>
  %n5 = nnc.exp %n4 : tensor<1xf32>
  %n6 = nnc.exp %n5 : tensor<1xf32>
  %n7 = nnc.exp %n6 : tensor<1xf32>
  %n8 = nnc.exp %n7 : tensor<1xf32>
  %n9 = nnc.exp %n8 : tensor<1xf32>
  %n10 = nnc.exp %n9 : tensor<1xf32>
  %n11 = nnc.exp %n10 : tensor<1xf32>
  %n12 = nnc.exp %n11 : tensor<1xf32>
  %n13 = nnc.exp %n12 : tensor<1xf32>
  %n14 = nnc.exp %n13 : tensor<1xf32>
  %n15 = nnc.exp %n14 : tensor<1xf32>
  %n16 = nnc.exp %n15 : tensor<1xf32>
  %n17 = nnc.exp %n16 : tensor<1xf32>
  %n18 = nnc.exp %n17 : tensor<1xf32>
  %n19 = nnc.exp %n18 : tensor<1xf32>
  %n20 = nnc.exp %n19 : tensor<1xf32>
  %n21 = nnc.exp %n20 : tensor<1xf32>
  %n22 = nnc.exp %n21 : tensor<1xf32>
  %n23 = nnc.exp %n22 : tensor<1xf32>
  %n24 = nnc.exp %n23 : tensor<1xf32>
  %n25 = nnc.exp %n24 : tensor<1xf32>
  %n26 = nnc.exp %n25 : tensor<1xf32>
  %n27 = nnc.exp %n26 : tensor<1xf32>
  %n28 = nnc.exp %n27 : tensor<1xf32>
  %n29 = nnc.exp %n28 : tensor<1xf32>
  %n30 = nnc.exp %n29 : tensor<1xf32>
  %n31 = nnc.exp %n30 : tensor<1xf32>
  %n32 = nnc.exp %n31 : tensor<1xf32>
  %n33 = nnc.exp %n32 : tensor<1xf32>
  %n34 = nnc.exp %n33 : tensor<1xf32>
  %n35 = nnc.exp %n34 : tensor<1xf32>
  %n36 = nnc.exp %n35 : tensor<1xf32>
  %n37 = nnc.exp %n36 : tensor<1xf32>
  %n38 = nnc.exp %n37 : tensor<1xf32>
  %n39 = nnc.exp %n38 : tensor<1xf32>
  %n40 = nnc.exp %n39 : tensor<1xf32>
  %n41 = nnc.exp %n40 : tensor<1xf32>
  %n42 = nnc.exp %n41 : tensor<1xf32>
  %n43 = nnc.exp %n42 : tensor<1xf32>
  %n44 = nnc.exp %n43 : tensor<1xf32>
  %n45 = nnc.exp %n44 : tensor<1xf32>
  %n46 = nnc.exp %n45 : tensor<1xf32>
  %n47 = nnc.exp %n46 : tensor<1xf32>
  %n48 = nnc.exp %n47 : tensor<1xf32>
  %n49 = nnc.exp %n48 : tensor<1xf32>
  %n50 = nnc.exp %n49 : tensor<1xf32>
  %n51 = nnc.exp %n50 : tensor<1xf32>
  %n52 = nnc.exp %n51 : tensor<1xf32>
  %n53 = nnc.exp %n52 : tensor<1xf32>
  %n54 = nnc.exp %n53 : tensor<1xf32>
  %n55 = nnc.exp %n54 : tensor<1xf32>
  %n56 = nnc.exp %n55 : tensor<1xf32>
  %n57 = nnc.exp %n56 : tensor<1xf32>
  %n58 = nnc.exp %n57 : tensor<1xf32>
  %n59 = nnc.exp %n58 : tensor<1xf32>
  %n60 = nnc.exp %n59 : tensor<1xf32>
  %n61 = nnc.exp %n60 : tensor<1xf32>
  %n62 = nnc.exp %n61 : tensor<1xf32>
  %n63 = nnc.exp %n62 : tensor<1xf32>
  return %n63 : tensor<1xf32>
}

// -----

// An attention mask of -inf holds infinities by design: the where that
// applies it, and what adds or moves it, get no entry; the softmax (finite
// for finite inputs) and the relu neither. The exp after it does.
// CHECK-LABEL: func.func @f_grad_probe(
// CHECK-SAME:      -> tensor<3xf32>
// CHECK-SAME:      nnc.probe_ops = ["input 'x' tensor<2x2xf32>", "nnc.matmul 'scores' tensor<2x2xf32>", "nnc.exp 'exp' tensor<2x2xf32>"]
func.func @f_grad(%x: tensor<2x2xf32> loc("x"), %m: tensor<2x2xi1> loc("m"))
    -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %inf = nnc.constant dense<0xFF800000> : tensor<f32> loc("minus_inf")
  %s = nnc.matmul %x, %x : tensor<2x2xf32>, tensor<2x2xf32> loc("scores")
  %masked = nnc.where %m, %s, %inf : tensor<2x2xi1>, tensor<2x2xf32>, tensor<f32> loc("mask")
  %shifted = nnc.add %masked, %x : tensor<2x2xf32>, tensor<2x2xf32> loc("shift")
  %t = nnc.transpose %shifted perm = [1, 0] : tensor<2x2xf32> loc("t")
  %p = nnc.softmax %t axis = 1 : tensor<2x2xf32> loc("softmax")
  %r = nnc.relu %p : tensor<2x2xf32> loc("relu")
  %e = nnc.exp %r : tensor<2x2xf32> loc("exp")
  return %e, %t : tensor<2x2xf32>, tensor<2x2xf32>
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
