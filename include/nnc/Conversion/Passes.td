//===- Passes.td - nnc conversion passes ---------------------*- tablegen -*-===//
//
// Declarations of the passes that lower the nnc dialect to upstream dialects.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_CONVERSION_PASSES_TD
#define NNC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// NNCToLinalg
//===----------------------------------------------------------------------===//

def ConvertNNCToLinalgPass : Pass<"nnc-convert-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lower nnc ops to linalg on tensors";
  let description = [{
    Rewrites nnc ops into upstream linalg-on-tensors IR: `linalg.generic` for
    elementwise ops (numpy broadcasting through affine maps with constant 0
    for size-1 dimensions), `linalg.matmul`/`linalg.batch_matmul` for
    products, `linalg.reduce` for reductions, `linalg.transpose`, `tensor`
    ops for shape manipulation and `arith.constant` for constants. Scalar
    bodies use `arith` and `math`. The result is the input of the CPU
    pipeline (one-shot bufferization, loops, LLVM).

    ```mlir
    %0 = nnc.add %x, %b : tensor<4x8xf32>, tensor<8xf32>
    // becomes
    %e = tensor.empty() : tensor<4x8xf32>
    %0 = linalg.generic {
        indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                         affine_map<(d0, d1) -> (d1)>,
                         affine_map<(d0, d1) -> (d0, d1)>],
        iterator_types = ["parallel", "parallel"]}
        ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>)
        outs(%e : tensor<4x8xf32>) {
    ^bb0(%a: f32, %c: f32, %out: f32):
      %s = arith.addf %a, %c : f32
      linalg.yield %s : f32
    } -> tensor<4x8xf32>
    ```

    A dynamic operand dimension is assumed to equal the corresponding result
    dimension, i.e. never to be a 1 that broadcasts at run time (static
    size-1 dimensions broadcast as usual). Every nnc op must convert. Before
    anything is rewritten, a legality check reports each op that its pattern
    cannot lower (a convolution with a dynamic channel dimension, a dynamic
    reshape result, training dropout that still needs random numbers...)
    with one error naming the op and why, and the pass fails.

    With `per-image-convolutions` (the default), 2-D convolutions without
    groups, their transposed convolutions and weight gradients
    (`nnc.conv_weight_grad`) become an `scf.for` over the images: each
    iteration copies its image's windows into a [C*KH*KW, OH*OW] tile and
    multiplies it with the weight into the image's block of the NCHW result
    (or accumulates the weight gradient). Without it they take the whole
    batch's windows at once (the unfused pipeline's baseline).
  }];
  let options = [
    Option<"perImageConvolutions", "per-image-convolutions", "bool",
           /*default=*/"true",
           "lower 2-D convolutions image by image (one GEMM per image)">,
    Option<"lowPrecisionConvGemms", "low-precision-conv-gemms", "bool",
           /*default=*/"false",
           "f16/bf16 2-D convolutions as im2col + a GEMM on f16/bf16 "
           "operands summed in f32 too (a target whose library takes them)">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect",
    "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect"
  ];
}

#endif // NNC_CONVERSION_PASSES_TD
