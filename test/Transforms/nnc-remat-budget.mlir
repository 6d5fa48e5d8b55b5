// --nnc-remat-budget: which forward values a training step recomputes in
// backward under a budget on its temporaries, on graphs whose best choice is
// known (a chain of layers, free pointwise work, branches of given costs).
// RUN: nnc-opt %s --nnc-training-pipeline="function=chain loss=mse" -o %t.mlir
// RUN: nnc-opt %t.mlir --nnc-remat-budget="function=chain_train_step" \
// RUN:   | FileCheck %s --check-prefix=NONE
// RUN: nnc-opt %t.mlir --nnc-remat-budget="function=chain_train_step budget=1200000" \
// RUN:   | FileCheck %s --check-prefix=SQRT
// RUN: nnc-opt %t.mlir --nnc-remat-budget="function=chain_train_step budget=1200000" \
// RUN:   | grep -o "nnc.recompute = " | count 94
// RUN: nnc-opt %t.mlir --nnc-remat-budget="function=chain_train_step budget=2000000" \
// RUN:   | grep -o "nnc.recompute = " | count 70
// RUN: nnc-opt %s --nnc-training-pipeline="function=pointwise loss=mse optimizer=sgd" --nnc-remat-budget="function=pointwise_train_step budget=220000" \
// RUN:   | FileCheck %s --check-prefix=FREE
// RUN: nnc-opt %s --nnc-training-pipeline="function=pointwise loss=mse optimizer=sgd" --nnc-remat-budget="function=pointwise_train_step budget=220000 exact-candidates=0" \
// RUN:   | FileCheck %s --check-prefix=FREE
// RUN: nnc-opt %s --nnc-training-pipeline="function=branches loss=mse optimizer=sgd" --nnc-remat-budget="function=branches_train_step budget=250000" \
// RUN:   | FileCheck %s --check-prefix=ONE
// RUN: nnc-opt %s --nnc-training-pipeline="function=branches loss=mse optimizer=sgd" --nnc-remat-budget="function=branches_train_step budget=200000" \
// RUN:   | FileCheck %s --check-prefix=TWO
// RUN: nnc-opt %s --nnc-training-pipeline="function=branches loss=mse optimizer=sgd" --nnc-remat-budget="function=branches_train_step budget=200000 exact-candidates=0" \
// RUN:   | FileCheck %s --check-prefix=TWO-GREEDY
// RUN: nnc-opt %s --nnc-training-pipeline="function=branches loss=mse optimizer=sgd" --nnc-remat-budget="function=branches_train_step budget=140000" \
// RUN:   | FileCheck %s --check-prefix=THREE
// RUN: nnc-opt %s --nnc-training-pipeline="function=branches loss=mse optimizer=sgd" --nnc-remat-budget="function=branches_train_step budget=100000 allow-over-budget=true" \
// RUN:   | FileCheck %s --check-prefix=LEAST
// RUN: not nnc-opt %s --nnc-training-pipeline="function=branches loss=mse optimizer=sgd" --nnc-remat-budget="function=branches_train_step budget=100000" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=OVER
// RUN: nnc-opt %s --nnc-training-pipeline="function=branches loss=mse optimizer=sgd" --nnc-remat-budget="function=branches_train_step budget=200000 choice=0" \
// RUN:   | FileCheck %s --check-prefix=GIVEN
// RUN: not nnc-opt %s --nnc-training-pipeline="function=branches loss=mse optimizer=sgd" --nnc-remat-budget="function=branches_train_step choice=999" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADCHOICE
// RUN: nnc-opt %s --nnc-training-pipeline="function=pooled loss=mse optimizer=sgd" --nnc-remat-budget="function=pooled_train_step budget=1 allow-over-budget=true" \
// RUN:   | FileCheck %s --check-prefix=POOL
// RUN: nnc-opt %s --nnc-training-pipeline="function=padded loss=mse optimizer=sgd" --nnc-remat-budget="function=padded_train_step budget=1 allow-over-budget=true" \
// RUN:   | FileCheck %s --check-prefix=PADDED
// RUN: nnc-opt %s --nnc-training-pipeline="function=transposed loss=mse optimizer=sgd" --nnc-remat-budget="function=transposed_train_step budget=1 allow-over-budget=true" \
// RUN:   | FileCheck %s --check-prefix=TRANSPOSED
// RUN: not nnc-opt %s --nnc-remat-budget="function=missing budget=1" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOFUNC
// RUN: not nnc-opt %s --nnc-remat-budget="function=branches budget=1 alignment=48" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ALIGN
// NOFUNC: error: --nnc-remat-budget: no function 'missing'
// ALIGN: error: --nnc-remat-budget: alignment must be a power of two, not 48


// A chain of 64 layers (gemm, tanh) of 1024x16 activations (64 KiB each):
// without recomputation the backward starts with all 64 saved (tanh' reads
// each output, the weight gradients the one before), 65 activations' worth
// of temporaries. Under a budget of 18 activations the choice falls into
// segments recomputed from 17 kept checkpoints (the sqrt(n) regime: 2*sqrt(64)
// = 16 values alive at once), and recomputes less than one forward pass
// (47 of 64 layers, each a gemm and a tanh clone: 25 MFLOP of the step's
// 104).

// NONE: nnc.remat = {after = 4260864 : i64, before = 4260864 : i64,
// NONE-SAME: budget = -1 : i64, choice = array<i64>, extra_flops = 0 : i64, fits = true,
// NONE-SAME: flops = 104497219 : i64
// NONE-NOT: nnc.recompute =

// SQRT: nnc.remat = {after = 1180672 : i64, before = 4260864 : i64,
// SQRT-SAME: budget = 1200000 : i64, choice = array<i64: {{[0-9, ]+}}>, extra_flops = 25411584 : i64, fits = true
// The clones come after the forward (the loss's gradient), just before
// their backward readers; the first to run recomputes a checkpoint's
// successor from the kept checkpoint.
// SQRT: nnc.mse_loss
// SQRT: nnc.tanh {{.*}} {nnc.recompute = {{[0-9]+}} : i64}
// SQRT: nnc.gemm {{.*}} {nnc.recompute = {{[0-9]+}} : i64}

// Recomputing pointwise work is nearly free: three 64 KiB values are saved
// for backward (tanh(x) for the first weight gradient, the two GEMMs' outputs
// for the second and for the loss's gradient). tanh reads an argument, which
// is alive anyway, so recomputing it frees 64 KiB for 16384 FLOPs (0.15 % of
// the step), where either GEMM would cost 2 MFLOP: the only choice either
// search makes.
// FREE-LABEL: func.func @pointwise_train_step
// FREE-SAME: nnc.remat = {after = 212992 : i64, before = 278528 : i64
// FREE-SAME: extra_flops = 16384 : i64, fits = true, flops = 10616837 : i64
// FREE-SAME: recomputed = ["nnc.tanh 'p' tensor<256x64xf32> 65536 bytes"]
// FREE: nnc.gemm
// FREE: nnc.tanh %arg0 {nnc.recompute = {{[0-9]+}} : i64} : tensor<256x64xf32>
// FREE-NEXT: nnc.gemm
func.func @pointwise(%x: tensor<256x64xf32>,
                %w1: tensor<64x64xf32> {nnc.param = #nnc.param<trainable>},
                %w2: tensor<64x64xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<256x64xf32> {
  %p = nnc.tanh %x : tensor<256x64xf32> loc("p")
  %q = nnc.gemm %p, %w1 trans_b = true : tensor<256x64xf32>, tensor<64x64xf32> loc("q")
  %y = nnc.gemm %q, %w2 trans_b = true : tensor<256x64xf32>, tensor<64x64xf32> loc("y")
  return %y : tensor<256x64xf32>
}

// Three branches, each a GEMM of an input by a fixed weight whose output
// (gx: 128 KiB, gy and gz: 64 KiB) the next GEMM's weight gradient reads in
// backward; the branches run one after the other, so without recomputation
// all three are alive when the backward starts (278528 bytes). Recomputing
// costs 1572864 FLOPs for gx, 655360 for gy, 1048576 for gz, so the
// cheapest way to free
//  - 64 KiB (budget 250000) is gy;
//  - 128 KiB (budget 200000) is gx, not gy and gz (1703936 FLOPs): the
//    greedy descent takes gy first (the most bytes per FLOP) and then gx,
//    which makes gy useless; pruning takes it back;
//  - 192 KiB (budget 140000) is gx and gy;
// and nothing frees more: the smallest arena reachable is 139264 bytes.
// ONE-LABEL: func.func @branches_train_step
// ONE-SAME: after = 212992 : i64, before = 278528 : i64
// ONE-SAME: extra_flops = 655360 : i64, fits = true
// ONE-SAME: method = "exact"
// ONE-SAME: recomputed = ["nnc.gemm 'gy' tensor<256x64xf32> 65536 bytes"]
// TWO-LABEL: func.func @branches_train_step
// TWO-SAME: after = 147456 : i64, before = 278528 : i64
// TWO-SAME: choice = array<i64: 0>, extra_flops = 1572864 : i64, fits = true
// TWO-SAME: method = "exact"
// TWO-SAME: recomputed = ["nnc.gemm 'gx' tensor<256x128xf32> 131072 bytes"]
// TWO-GREEDY-LABEL: func.func @branches_train_step
// TWO-GREEDY-SAME: extra_flops = 1572864 : i64, fits = true
// TWO-GREEDY-SAME: method = "greedy"
// TWO-GREEDY-SAME: recomputed = ["nnc.gemm 'gx' tensor<256x128xf32> 131072 bytes"]
// THREE-LABEL: func.func @branches_train_step
// THREE-SAME: after = 139264 : i64, before = 278528 : i64
// THREE-SAME: extra_flops = 2228224 : i64, fits = true
// THREE-SAME: recomputed = ["nnc.gemm 'gx' tensor<256x128xf32> 131072 bytes", "nnc.gemm 'gy' tensor<256x64xf32> 65536 bytes"]
// A choice made before (the positions of the recomputed ops, `choice`) is
// applied again as it was, without a search.
// GIVEN-LABEL: func.func @branches_train_step
// GIVEN-SAME: after = 147456 : i64, before = 278528 : i64
// GIVEN-SAME: choice = array<i64: 0>, extra_flops = 1572864 : i64, fits = true
// GIVEN-SAME: method = "given"
// GIVEN-SAME: recomputed = ["nnc.gemm 'gx' tensor<256x128xf32> 131072 bytes"]
// BADCHOICE: error: --nnc-remat-budget: choice 999 is not a recomputable forward op of @branches_train_step
// LEAST-LABEL: func.func @branches_train_step
// LEAST-SAME: after = 139264 : i64, before = 278528 : i64, budget = 100000 : i64
// LEAST-SAME: fits = false
// OVER: error: memory budget of 100000 bytes for the temporaries cannot be met: the smallest arena the search reached by recomputation is 139264 bytes (278528 without); alive at its peak: nnc.gemm 'gx' tensor<256x128xf32> 131072 bytes
func.func @branches(%xx: tensor<256x24xf32>, %xy: tensor<256x20xf32>,
                %xz: tensor<256x32xf32>, %wx: tensor<128x24xf32>,
                %wy: tensor<64x20xf32>, %wz: tensor<64x32xf32>,
                %vx: tensor<4x128xf32> {nnc.param = #nnc.param<trainable>},
                %vy: tensor<4x64xf32> {nnc.param = #nnc.param<trainable>},
                %vz: tensor<4x64xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<256x4xf32> {
  %gx = nnc.gemm %xx, %wx trans_b = true : tensor<256x24xf32>, tensor<128x24xf32> loc("gx")
  %ox = nnc.gemm %gx, %vx trans_b = true : tensor<256x128xf32>, tensor<4x128xf32>
  %gy = nnc.gemm %xy, %wy trans_b = true : tensor<256x20xf32>, tensor<64x20xf32> loc("gy")
  %oy = nnc.gemm %gy, %vy trans_b = true : tensor<256x64xf32>, tensor<4x64xf32>
  %gz = nnc.gemm %xz, %wz trans_b = true : tensor<256x32xf32>, tensor<64x32xf32> loc("gz")
  %oz = nnc.gemm %gz, %vz trans_b = true : tensor<256x64xf32>, tensor<4x64xf32>
  %s = nnc.add %ox, %oy : tensor<256x4xf32>, tensor<256x4xf32>
  %t = nnc.add %s, %oz : tensor<256x4xf32>, tensor<256x4xf32>
  return %t : tensor<256x4xf32>
}

func.func @chain(%x: tensor<1024x16xf32>, %w0: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w1: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w2: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w3: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w4: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w5: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w6: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w7: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w8: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w9: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w10: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w11: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w12: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w13: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w14: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w15: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w16: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w17: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w18: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w19: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w20: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w21: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w22: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w23: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w24: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w25: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w26: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w27: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w28: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w29: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w30: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w31: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w32: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w33: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w34: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w35: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w36: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w37: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w38: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w39: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w40: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w41: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w42: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w43: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w44: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w45: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w46: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w47: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w48: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w49: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w50: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w51: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w52: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w53: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w54: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w55: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w56: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w57: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w58: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w59: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w60: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w61: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w62: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>}, %w63: tensor<16x16xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<1024x16xf32> {
  %a0 = nnc.gemm %x, %w0 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h0 = nnc.tanh %a0 : tensor<1024x16xf32>
  %a1 = nnc.gemm %h0, %w1 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h1 = nnc.tanh %a1 : tensor<1024x16xf32>
  %a2 = nnc.gemm %h1, %w2 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h2 = nnc.tanh %a2 : tensor<1024x16xf32>
  %a3 = nnc.gemm %h2, %w3 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h3 = nnc.tanh %a3 : tensor<1024x16xf32>
  %a4 = nnc.gemm %h3, %w4 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h4 = nnc.tanh %a4 : tensor<1024x16xf32>
  %a5 = nnc.gemm %h4, %w5 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h5 = nnc.tanh %a5 : tensor<1024x16xf32>
  %a6 = nnc.gemm %h5, %w6 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h6 = nnc.tanh %a6 : tensor<1024x16xf32>
  %a7 = nnc.gemm %h6, %w7 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h7 = nnc.tanh %a7 : tensor<1024x16xf32>
  %a8 = nnc.gemm %h7, %w8 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h8 = nnc.tanh %a8 : tensor<1024x16xf32>
  %a9 = nnc.gemm %h8, %w9 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h9 = nnc.tanh %a9 : tensor<1024x16xf32>
  %a10 = nnc.gemm %h9, %w10 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h10 = nnc.tanh %a10 : tensor<1024x16xf32>
  %a11 = nnc.gemm %h10, %w11 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h11 = nnc.tanh %a11 : tensor<1024x16xf32>
  %a12 = nnc.gemm %h11, %w12 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h12 = nnc.tanh %a12 : tensor<1024x16xf32>
  %a13 = nnc.gemm %h12, %w13 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h13 = nnc.tanh %a13 : tensor<1024x16xf32>
  %a14 = nnc.gemm %h13, %w14 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h14 = nnc.tanh %a14 : tensor<1024x16xf32>
  %a15 = nnc.gemm %h14, %w15 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h15 = nnc.tanh %a15 : tensor<1024x16xf32>
  %a16 = nnc.gemm %h15, %w16 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h16 = nnc.tanh %a16 : tensor<1024x16xf32>
  %a17 = nnc.gemm %h16, %w17 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h17 = nnc.tanh %a17 : tensor<1024x16xf32>
  %a18 = nnc.gemm %h17, %w18 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h18 = nnc.tanh %a18 : tensor<1024x16xf32>
  %a19 = nnc.gemm %h18, %w19 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h19 = nnc.tanh %a19 : tensor<1024x16xf32>
  %a20 = nnc.gemm %h19, %w20 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h20 = nnc.tanh %a20 : tensor<1024x16xf32>
  %a21 = nnc.gemm %h20, %w21 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h21 = nnc.tanh %a21 : tensor<1024x16xf32>
  %a22 = nnc.gemm %h21, %w22 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h22 = nnc.tanh %a22 : tensor<1024x16xf32>
  %a23 = nnc.gemm %h22, %w23 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h23 = nnc.tanh %a23 : tensor<1024x16xf32>
  %a24 = nnc.gemm %h23, %w24 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h24 = nnc.tanh %a24 : tensor<1024x16xf32>
  %a25 = nnc.gemm %h24, %w25 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h25 = nnc.tanh %a25 : tensor<1024x16xf32>
  %a26 = nnc.gemm %h25, %w26 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h26 = nnc.tanh %a26 : tensor<1024x16xf32>
  %a27 = nnc.gemm %h26, %w27 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h27 = nnc.tanh %a27 : tensor<1024x16xf32>
  %a28 = nnc.gemm %h27, %w28 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h28 = nnc.tanh %a28 : tensor<1024x16xf32>
  %a29 = nnc.gemm %h28, %w29 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h29 = nnc.tanh %a29 : tensor<1024x16xf32>
  %a30 = nnc.gemm %h29, %w30 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h30 = nnc.tanh %a30 : tensor<1024x16xf32>
  %a31 = nnc.gemm %h30, %w31 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h31 = nnc.tanh %a31 : tensor<1024x16xf32>
  %a32 = nnc.gemm %h31, %w32 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h32 = nnc.tanh %a32 : tensor<1024x16xf32>
  %a33 = nnc.gemm %h32, %w33 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h33 = nnc.tanh %a33 : tensor<1024x16xf32>
  %a34 = nnc.gemm %h33, %w34 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h34 = nnc.tanh %a34 : tensor<1024x16xf32>
  %a35 = nnc.gemm %h34, %w35 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h35 = nnc.tanh %a35 : tensor<1024x16xf32>
  %a36 = nnc.gemm %h35, %w36 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h36 = nnc.tanh %a36 : tensor<1024x16xf32>
  %a37 = nnc.gemm %h36, %w37 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h37 = nnc.tanh %a37 : tensor<1024x16xf32>
  %a38 = nnc.gemm %h37, %w38 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h38 = nnc.tanh %a38 : tensor<1024x16xf32>
  %a39 = nnc.gemm %h38, %w39 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h39 = nnc.tanh %a39 : tensor<1024x16xf32>
  %a40 = nnc.gemm %h39, %w40 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h40 = nnc.tanh %a40 : tensor<1024x16xf32>
  %a41 = nnc.gemm %h40, %w41 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h41 = nnc.tanh %a41 : tensor<1024x16xf32>
  %a42 = nnc.gemm %h41, %w42 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h42 = nnc.tanh %a42 : tensor<1024x16xf32>
  %a43 = nnc.gemm %h42, %w43 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h43 = nnc.tanh %a43 : tensor<1024x16xf32>
  %a44 = nnc.gemm %h43, %w44 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h44 = nnc.tanh %a44 : tensor<1024x16xf32>
  %a45 = nnc.gemm %h44, %w45 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h45 = nnc.tanh %a45 : tensor<1024x16xf32>
  %a46 = nnc.gemm %h45, %w46 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h46 = nnc.tanh %a46 : tensor<1024x16xf32>
  %a47 = nnc.gemm %h46, %w47 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h47 = nnc.tanh %a47 : tensor<1024x16xf32>
  %a48 = nnc.gemm %h47, %w48 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h48 = nnc.tanh %a48 : tensor<1024x16xf32>
  %a49 = nnc.gemm %h48, %w49 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h49 = nnc.tanh %a49 : tensor<1024x16xf32>
  %a50 = nnc.gemm %h49, %w50 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h50 = nnc.tanh %a50 : tensor<1024x16xf32>
  %a51 = nnc.gemm %h50, %w51 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h51 = nnc.tanh %a51 : tensor<1024x16xf32>
  %a52 = nnc.gemm %h51, %w52 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h52 = nnc.tanh %a52 : tensor<1024x16xf32>
  %a53 = nnc.gemm %h52, %w53 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h53 = nnc.tanh %a53 : tensor<1024x16xf32>
  %a54 = nnc.gemm %h53, %w54 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h54 = nnc.tanh %a54 : tensor<1024x16xf32>
  %a55 = nnc.gemm %h54, %w55 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h55 = nnc.tanh %a55 : tensor<1024x16xf32>
  %a56 = nnc.gemm %h55, %w56 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h56 = nnc.tanh %a56 : tensor<1024x16xf32>
  %a57 = nnc.gemm %h56, %w57 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h57 = nnc.tanh %a57 : tensor<1024x16xf32>
  %a58 = nnc.gemm %h57, %w58 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h58 = nnc.tanh %a58 : tensor<1024x16xf32>
  %a59 = nnc.gemm %h58, %w59 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h59 = nnc.tanh %a59 : tensor<1024x16xf32>
  %a60 = nnc.gemm %h59, %w60 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h60 = nnc.tanh %a60 : tensor<1024x16xf32>
  %a61 = nnc.gemm %h60, %w61 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h61 = nnc.tanh %a61 : tensor<1024x16xf32>
  %a62 = nnc.gemm %h61, %w62 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h62 = nnc.tanh %a62 : tensor<1024x16xf32>
  %a63 = nnc.gemm %h62, %w63 trans_b = true : tensor<1024x16xf32>, tensor<16x16xf32>
  %h63 = nnc.tanh %a63 : tensor<1024x16xf32>
  return %h63 : tensor<1024x16xf32>
}

// What fusion folds into its readers is not stored: batch normalization's
// result, elementwise in the convolution's output and the batch statistics,
// and the ReLU after it, which a max pooling and its gradient without
// padding read through the loops of their windows. The backward keeps the
// convolution's output (the batch norm gradient reads it) and recomputes
// the two from it where the pooling's gradient reads them. Only the
// convolution, the statistics, the pooling and the logits are saved values.
// POOL-LABEL: func.func @pooled_train_step
// POOL-SAME: kept = ["nnc.conv 'conv' tensor<8x8x16x16xf32> 65536 bytes", "nnc.batch_norm_train 'bn' tensor<8xf32> 32 bytes", "nnc.batch_norm_train 'bn' tensor<8xf32> 32 bytes", "nnc.max_pool 'pool' tensor<8x8x8x8xf32> 16384 bytes", "nnc.gemm 'fc' tensor<8x10xf32> 320 bytes"]
// POOL-NOT: nnc.relu 'relu' tensor<8x8x16x16xf32> 65536 bytes
func.func @pooled(%x: tensor<8x4x16x16xf32>,
                  %w: tensor<8x4x3x3xf32> {nnc.param = #nnc.param<trainable>},
                  %v: tensor<10x512xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<8x10xf32> {
  %c = nnc.constant dense<1.0> : tensor<8xf32>
  %z = nnc.constant dense<0.0> : tensor<8xf32>
  %y = nnc.conv %x, %w pads = [1, 1, 1, 1] : tensor<8x4x16x16xf32>, tensor<8x4x3x3xf32> loc("conv")
  %n = nnc.batch_norm %y, %c, %z, %z, %c : tensor<8x8x16x16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32> loc("bn")
  %r = nnc.relu %n : tensor<8x8x16x16xf32> loc("relu")
  %p = nnc.max_pool %r kernel_shape = [2, 2] strides = [2, 2] : tensor<8x8x16x16xf32> loc("pool")
  %f = nnc.reshape %p : tensor<8x8x8x8xf32> -> tensor<8x512xf32>
  %o = nnc.gemm %f, %v trans_b = true : tensor<8x512xf32>, tensor<10x512xf32> loc("fc")
  return %o : tensor<8x10xf32>
}

// The same with a padded pooling, whose input is copied into its padding:
// the ReLU is a stored value there, kept for the gradient.
// PADDED-LABEL: func.func @padded_train_step
// PADDED-SAME: kept = ["nnc.conv 'conv' tensor<8x8x16x16xf32> 65536 bytes", "nnc.relu 'relu' tensor<8x8x16x16xf32> 65536 bytes",
func.func @padded(%x: tensor<8x4x16x16xf32>,
                  %w: tensor<8x4x3x3xf32> {nnc.param = #nnc.param<trainable>},
                  %v: tensor<10x512xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<8x10xf32> {
  %c = nnc.constant dense<1.0> : tensor<8xf32>
  %z = nnc.constant dense<0.0> : tensor<8xf32>
  %y = nnc.conv %x, %w pads = [1, 1, 1, 1] : tensor<8x4x16x16xf32>, tensor<8x4x3x3xf32> loc("conv")
  %n = nnc.batch_norm %y, %c, %z, %z, %c : tensor<8x8x16x16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32> loc("bn")
  %r = nnc.relu %n : tensor<8x8x16x16xf32> loc("relu")
  %p = nnc.max_pool %r kernel_shape = [3, 3] strides = [2, 2] pads = [1, 1, 1, 1] : tensor<8x8x16x16xf32> loc("pool")
  %f = nnc.reshape %p : tensor<8x8x8x8xf32> -> tensor<8x512xf32>
  %o = nnc.gemm %f, %v trans_b = true : tensor<8x512xf32>, tensor<10x512xf32> loc("fc")
  return %o : tensor<8x10xf32>
}

// The weight gradient x^T dy transposes the 1 MiB input for its matmul; the
// CPU target's BLAS call reads x transposed instead, so the model stores
// only the matmul's and tanh's results (32 KiB each), not the transpose.
// TRANSPOSED: nnc.remat = {after = 65536 : i64, before = 65536 : i64,
// TRANSPOSED-NOT: nnc.transpose
// TRANSPOSED-SAME: recomputed = []
func.func @transposed(%x: tensor<1024x256xf32>,
                      %w: tensor<256x8xf32> {nnc.param = #nnc.param<trainable>})
    -> tensor<1024x8xf32> {
  %y = nnc.matmul %x, %w : tensor<1024x256xf32>, tensor<256x8xf32>
  %t = nnc.tanh %y : tensor<1024x8xf32>
  return %t : tensor<1024x8xf32>
}
