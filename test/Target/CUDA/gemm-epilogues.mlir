// A bias add (and ReLU) that alone reads a product's temporary runs in
// place on its output, which the product now writes; marked so that the
// outliner keeps it in the product's kernel and --nnc-cuda-gemm-to-cublaslt
// makes it the GEMM's epilogue. What does not fit stays as it was.
// RUN: nnc-opt --nnc-cuda-gemm-epilogues %s | FileCheck %s

#mA = affine_map<(d0, d1, d2) -> (d0, d2)>
#mBt = affine_map<(d0, d1, d2) -> (d1, d2)>
#mC = affine_map<(d0, d1, d2) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#last3 = affine_map<(d0, d1, d2) -> (d2)>

// A linear layer and ReLU: the temporary goes, the fill and the product
// write y, the add reads and writes y right after the product.
// CHECK-LABEL: func.func @linear_relu(
// CHECK-SAME: %[[X:.*]]: memref<8x32xf32>, %[[W:.*]]: memref<16x32xf32>, %[[B:.*]]: memref<16xf32>, %[[Y:.*]]: memref<8x16xf32>)
// CHECK-NOT: memref.alloc
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[Y]] : memref<8x16xf32>)
// CHECK-NEXT: linalg.matmul {{.*}} ins(%[[X]], %[[W]] : {{.*}}) outs(%[[Y]] : memref<8x16xf32>)
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[B]], %[[Y]] : memref<16xf32>, memref<8x16xf32>) outs(%[[Y]] : memref<8x16xf32>) attrs = {nnc.epilogue = "bias_relu"}
// CHECK: arith.addf
// CHECK: arith.maximumf
func.func @linear_relu(%x: memref<8x32xf32>, %w: memref<16x32xf32>, %b: memref<16xf32>, %y: memref<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x16xf32>)
  linalg.matmul indexing_maps = [#mA, #mBt, #mC] ins(%x, %w : memref<8x32xf32>, memref<16x32xf32>) outs(%c : memref<8x16xf32>)
  linalg.generic {indexing_maps = [#col, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%b, %c : memref<16xf32>, memref<8x16xf32>) outs(%y : memref<8x16xf32>) {
  ^bb0(%bv: f32, %cv: f32, %o: f32):
    %s = arith.addf %bv, %cv : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// A transformer's projection: the product [4*8, 16] viewed as [4, 8, 16]
// for the bias add; the product writes a collapsed view of y, which is
// allocated after the product and moves up.
// CHECK-LABEL: func.func @projection(
// CHECK: %[[YA:.*]] = memref.alloc() : memref<4x8x16xf32>
// CHECK: %[[YC:.*]] = memref.collapse_shape %[[YA]] {{\[}}[0, 1], [2]] : memref<4x8x16xf32> into memref<32x16xf32>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[YC]] : memref<32x16xf32>)
// CHECK-NEXT: linalg.matmul {{.*}} outs(%[[YC]] : memref<32x16xf32>)
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[YA]] : memref<4x8x16xf32>) attrs = {nnc.epilogue = "bias"}
// CHECK: return %[[YA]]
func.func @projection(%x: memref<32x32xf32>, %w: memref<16x32xf32>, %b: memref<16xf32>) -> memref<4x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<32x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x16xf32>)
  linalg.matmul indexing_maps = [#mA, #mBt, #mC] ins(%x, %w : memref<32x32xf32>, memref<16x32xf32>) outs(%c : memref<32x16xf32>)
  %v = memref.expand_shape %c [[0, 1], [2]] output_shape [4, 8, 16] : memref<32x16xf32> into memref<4x8x16xf32>
  %y = memref.alloc() : memref<4x8x16xf32>
  linalg.generic {indexing_maps = [#id3, #last3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v, %b : memref<4x8x16xf32>, memref<16xf32>) outs(%y : memref<4x8x16xf32>) {
  ^bb0(%cv: f32, %bv: f32, %o: f32):
    %s = arith.addf %cv, %bv : f32
    linalg.yield %s : f32
  }
  return %y : memref<4x8x16xf32>
}

// Left alone: the product also read elsewhere (a later op needs it); an
// add of something other than a bias vector; an op between the product and
// the add that writes memory.
// CHECK-LABEL: func.func @product_kept(
// CHECK: memref.alloc() : memref<8x16xf32>
// CHECK-NOT: nnc.epilogue
// CHECK-LABEL: func.func @not_bias(
// CHECK-NOT: nnc.epilogue
// CHECK-LABEL: func.func @store_between(
// CHECK-NOT: nnc.epilogue
// CHECK-LABEL: func.func @gelu(
// CHECK-NOT: nnc.epilogue
func.func @product_kept(%x: memref<8x32xf32>, %w: memref<16x32xf32>, %b: memref<16xf32>, %y: memref<8x16xf32>, %z: memref<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x16xf32>)
  linalg.matmul indexing_maps = [#mA, #mBt, #mC] ins(%x, %w : memref<8x32xf32>, memref<16x32xf32>) outs(%c : memref<8x16xf32>)
  linalg.generic {indexing_maps = [#col, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%b, %c : memref<16xf32>, memref<8x16xf32>) outs(%y : memref<8x16xf32>) {
  ^bb0(%bv: f32, %cv: f32, %o: f32):
    %s = arith.addf %bv, %cv : f32
    linalg.yield %s : f32
  }
  memref.copy %c, %z : memref<8x16xf32> to memref<8x16xf32>
  return
}
func.func @not_bias(%x: memref<8x32xf32>, %w: memref<16x32xf32>, %r: memref<8x16xf32>, %y: memref<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x16xf32>)
  linalg.matmul indexing_maps = [#mA, #mBt, #mC] ins(%x, %w : memref<8x32xf32>, memref<16x32xf32>) outs(%c : memref<8x16xf32>)
  linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%r, %c : memref<8x16xf32>, memref<8x16xf32>) outs(%y : memref<8x16xf32>) {
  ^bb0(%rv: f32, %cv: f32, %o: f32):
    %s = arith.addf %rv, %cv : f32
    linalg.yield %s : f32
  }
  return
}
func.func @store_between(%x: memref<8x32xf32>, %w: memref<16x32xf32>, %b: memref<16xf32>, %y: memref<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %i = arith.constant 0 : index
  %c = memref.alloc() : memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x16xf32>)
  linalg.matmul indexing_maps = [#mA, #mBt, #mC] ins(%x, %w : memref<8x32xf32>, memref<16x32xf32>) outs(%c : memref<8x16xf32>)
  memref.store %zero, %b[%i] : memref<16xf32>
  linalg.generic {indexing_maps = [#col, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%b, %c : memref<16xf32>, memref<8x16xf32>) outs(%y : memref<8x16xf32>) {
  ^bb0(%bv: f32, %cv: f32, %o: f32):
    %s = arith.addf %bv, %cv : f32
    linalg.yield %s : f32
  }
  return
}
// (cuBLASLt's GELU epilogue is the tanh approximation; PyTorch's and
// ONNX's default GELU is erf's: not the same values, so not taken.)
func.func @gelu(%x: memref<8x32xf32>, %w: memref<16x32xf32>, %b: memref<16xf32>, %y: memref<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %c = memref.alloc() : memref<8x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x16xf32>)
  linalg.matmul indexing_maps = [#mA, #mBt, #mC] ins(%x, %w : memref<8x32xf32>, memref<16x32xf32>) outs(%c : memref<8x16xf32>)
  linalg.generic {indexing_maps = [#col, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%b, %c : memref<16xf32>, memref<8x16xf32>) outs(%y : memref<8x16xf32>) {
  ^bb0(%bv: f32, %cv: f32, %o: f32):
    %s = arith.addf %bv, %cv : f32
    %e = math.erf %s : f32
    %m = arith.mulf %e, %half : f32
    linalg.yield %m : f32
  }
  return
}

// The bias read from y's own buffer: the product would overwrite it first.
// CHECK-LABEL: func.func @bias_in_y(
// CHECK-NOT: nnc.epilogue
func.func @bias_in_y(%x: memref<8x32xf32>, %w: memref<16x32xf32>, %y: memref<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<8x16xf32>
  %b = memref.subview %y[0, 0] [1, 16] [1, 1] : memref<8x16xf32> to memref<16xf32, strided<[1]>>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x16xf32>)
  linalg.matmul indexing_maps = [#mA, #mBt, #mC] ins(%x, %w : memref<8x32xf32>, memref<16x32xf32>) outs(%c : memref<8x16xf32>)
  linalg.generic {indexing_maps = [#col, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%b, %c : memref<16xf32, strided<[1]>>, memref<8x16xf32>) outs(%y : memref<8x16xf32>) {
  ^bb0(%bv: f32, %cv: f32, %o: f32):
    %s = arith.addf %bv, %cv : f32
    linalg.yield %s : f32
  }
  return
}
