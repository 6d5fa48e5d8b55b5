//===- NNCLinalgOps.td - linalg nnc ops -----------------*- tablegen -*-===//
//
// Contractions and sliding-window ops with ONNX semantics: matmul, gemm,
// convolution, transposed convolution and pooling.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LINALG_OPS_TD
#define NNC_LINALG_OPS_TD

include "nnc/NNCBase.td"

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def NNC_MatMulOp : NNC_Op<"matmul", [Pure, InferTypeOpAdaptor]> {
  let summary = "matrix product with numpy semantics";
  let description = [{
    Matrix product as numpy's `matmul` (ONNX MatMul). Operands of rank >= 2
    are stacks of matrices: the last two dimensions multiply
    (`[..., M, K] x [..., K, N] -> [..., M, N]`) and the leading batch
    dimensions broadcast as in numpy. A rank-1 `lhs` `[K]` is promoted to
    `[1, K]` and a rank-1 `rhs` `[K]` to `[K, 1]`; the promoted dimension is
    removed from the result again. The contracted dimensions must agree when
    both are static. Both operands have one element type, which the result
    keeps.

    ```mlir
    %y = nnc.matmul %x, %w : tensor<8x?x64xf32>, tensor<64x10xf32>
    %v = nnc.matmul %x, %u : tensor<8x?x64xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins NNC_NumericTensor:$lhs, NNC_NumericTensor:$rhs);
  let results = (outs NNC_NumericTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
}

def NNC_GemmOp : NNC_Op<"gemm", [Pure, InferTypeOpAdaptor]> {
  let summary = "general matrix multiply, alpha * op(A) * op(B) + beta * C";
  let description = [{
    ONNX Gemm: `alpha * op(a) * op(b) + beta * c`, where `op(x)` is `x`
    transposed when `trans_a` (resp. `trans_b`) is true. `a` and `b` are
    matrices; after the optional transposes `op(a)` is `[M, K]` and `op(b)` is
    `[K, N]`, and the contracted dimensions must agree when static. The
    optional `c` must broadcast (unidirectionally) to `[M, N]`. All operands
    have one element type. `alpha` and `beta` default to 1, the transposes to
    false.

    ```mlir
    %y = nnc.gemm %x, %w, %b trans_b = true beta = 0.5
        : tensor<?x64xf32>, tensor<10x64xf32>, tensor<10xf32>
    ```
  }];
  let arguments = (ins NNC_NumericTensor:$a, NNC_NumericTensor:$b,
                       Optional<NNC_NumericTensor>:$c,
                       DefaultValuedAttr<F64Attr, "1.0">:$alpha,
                       DefaultValuedAttr<F64Attr, "1.0">:$beta,
                       DefaultValuedAttr<BoolAttr, "false">:$trans_a,
                       DefaultValuedAttr<BoolAttr, "false">:$trans_b);
  let results = (outs NNC_NumericTensor:$result);
  let assemblyFormat = [{
    $a `,` $b (`,` $c^)? (`trans_a` `=` $trans_a^)? (`trans_b` `=` $trans_b^)?
    (`alpha` `=` $alpha^)? (`beta` `=` $beta^)? attr-dict
    `:` type($a) `,` type($b) (`,` type($c)^)?
  }];
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

def NNC_ConvOp : NNC_Op<"conv", [Pure, InferTypeOpAdaptor]> {
  let summary = "N-D grouped convolution (ONNX Conv)";
  let description = [{
    Cross-correlation of `input` `[N, C, D1, ..., Dn]` with `weight`
    `[M, C / groups, K1, ..., Kn]` for n >= 1 spatial dimensions, plus an
    optional `bias` `[M]`. The result is `[N, M, O1, ..., On]` with

        Oi = floor((Di + pad_begin_i + pad_end_i
                    - dilation_i * (Ki - 1) - 1) / stride_i) + 1

    (dynamic when `Di` or `Ki` is). `strides` and `dilations` hold n positive
    entries (default all 1), `pads` holds 2n non-negative entries, all the
    begin pads and then all the end pads (default all 0). `groups` (default
    1) must divide both `C` and `M`. ONNX's `auto_pad` is resolved into
    explicit `pads` by the importer.

    ```mlir
    %y = nnc.conv %x, %w, %b strides = [2, 2] pads = [1, 1, 1, 1]
        : tensor<?x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins NNC_FloatTensor:$input, NNC_FloatTensor:$weight,
                       Optional<NNC_FloatTensor>:$bias,
                       OptionalAttr<DenseI64ArrayAttr>:$strides,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs NNC_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? (`strides` `=` $strides^)?
    (`dilations` `=` $dilations^)? (`pads` `=` $pads^)?
    (`groups` `=` $groups^)? attr-dict
    `:` type($input) `,` type($weight) (`,` type($bias)^)?
  }];
}

def NNC_ConvTransposeOp : NNC_Op<"conv_transpose",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "N-D grouped transposed convolution (ONNX ConvTranspose)";
  let description = [{
    The gradient of `nnc.conv` with respect to its input, used as a learned
    upsampling. `input` is `[N, C, D1, ..., Dn]`, `weight` is
    `[C, M / groups, K1, ..., Kn]` and the optional `bias` is `[M]`. The
    result is `[N, M, O1, ..., On]` with

        Oi = stride_i * (Di - 1) + output_padding_i
             + dilation_i * (Ki - 1) + 1 - pad_begin_i - pad_end_i

    (dynamic when `Di` or `Ki` is). `strides`, `dilations` and `pads` are as
    for `nnc.conv`; `output_padding` holds n non-negative entries, each less
    than the larger of its stride and dilation (default all 0). `groups` must
    divide `C`. ONNX's `output_shape` and `auto_pad` are resolved into
    explicit `pads` and `output_padding` by the importer.

    ```mlir
    %y = nnc.conv_transpose %x, %w strides = [2, 2] pads = [1, 1, 1, 1]
        output_padding = [1, 1]
        : tensor<1x64x?x16xf32>, tensor<64x32x3x3xf32>
    ```
  }];
  let arguments = (ins NNC_FloatTensor:$input, NNC_FloatTensor:$weight,
                       Optional<NNC_FloatTensor>:$bias,
                       OptionalAttr<DenseI64ArrayAttr>:$strides,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$output_padding,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs NNC_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? (`strides` `=` $strides^)?
    (`dilations` `=` $dilations^)? (`pads` `=` $pads^)?
    (`output_padding` `=` $output_padding^)? (`groups` `=` $groups^)?
    attr-dict `:` type($input) `,` type($weight) (`,` type($bias)^)?
  }];
}

def NNC_ConvWeightGradOp : NNC_Op<"conv_weight_grad",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "gradient of a convolution with respect to its weight";
  let description = [{
    The weight gradient of `nnc.conv`, as autodiff emits it: for the
    convolution's `input` `[N, C, D1, ..., Dn]` and the gradient `grad`
    `[N, M, O1, ..., On]` of its result, the result `[M, C / groups,
    K1, ..., Kn]` is

        dw[m, c, k] = sum_{n, o} grad[n, m, o]
                                 * input[n, g(m) * C / groups + c,
                                         o * stride + k * dilation - pad_begin]

    where `g(m)` is the group of output channel `m` and reads outside the
    input are zero. `kernel_shape` holds the n kernel sizes; `strides`,
    `dilations`, `pads` and `groups` are the convolution's (same defaults),
    and `grad`'s spatial sizes must be the convolution's output sizes. One
    op rather than a convolution of transposed operands, so that the
    backend can read both operands as they lie (a GEMM per image on CPU).

    ```mlir
    %dw = nnc.conv_weight_grad %x, %g kernel_shape = [3, 3]
        pads = [1, 1, 1, 1] : tensor<?x3x32x32xf32>, tensor<?x16x32x32xf32>
    ```
  }];
  let arguments = (ins NNC_FloatTensor:$input, NNC_FloatTensor:$grad,
                       DenseI64ArrayAttr:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$strides,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs NNC_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $grad `kernel_shape` `=` $kernel_shape
    (`strides` `=` $strides^)? (`dilations` `=` $dilations^)?
    (`pads` `=` $pads^)? (`groups` `=` $groups^)? attr-dict
    `:` type($input) `,` type($grad)
  }];
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

class NNC_PoolOp<string mnemonic, Type tensorType, string what,
                 dag extraArgs, string extraFormat, string extraDoc,
                 string exampleAttrs>
    : NNC_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = "N-D " # what # " pooling";
  let description = "Slides a window of `kernel_shape` over the spatial "
    # "dimensions of `input` `[N, C, D1, ..., Dn]` (n >= 1) and takes the "
    # what # " of each window; the result is `[N, C, O1, ..., On]` with\n\n"
    # "    Oi = floor((Di + pad_begin_i + pad_end_i\n"
    # "                - dilation_i * (Ki - 1) - 1) / stride_i) + 1\n\n"
    # "(dynamic when `Di` is). With `ceil_mode` the division rounds up, "
    # "except that a last window starting inside the end padding is "
    # "dropped (as ONNX and PyTorch do). `kernel_shape`, `strides` and "
    # "`dilations` hold n positive entries (the last two default to all 1), "
    # "`pads` holds 2n non-negative entries, the begin pads then the end "
    # "pads (default all 0). " # extraDoc # "\n\n"
    # "```mlir\n%y = nnc." # mnemonic # " %x kernel_shape = [3, 3] "
    # "strides = [2, 2] pads = [1, 1, 1, 1]" # exampleAttrs
    # " : tensor<?x64x112x112xf32>\n```";
  let arguments = !con((ins tensorType:$input,
                            DenseI64ArrayAttr:$kernel_shape,
                            OptionalAttr<DenseI64ArrayAttr>:$strides,
                            OptionalAttr<DenseI64ArrayAttr>:$pads,
                            OptionalAttr<DenseI64ArrayAttr>:$dilations,
                            DefaultValuedAttr<BoolAttr, "false">:$ceil_mode),
                       extraArgs);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$input `kernel_shape` `=` $kernel_shape "
    # "(`strides` `=` $strides^)? (`pads` `=` $pads^)? "
    # "(`dilations` `=` $dilations^)? (`ceil_mode` `=` $ceil_mode^)? "
    # extraFormat # " attr-dict `:` type($input)";
  let hasFolder = 1;
}

def NNC_MaxPoolOp : NNC_PoolOp<"max_pool", NNC_NumericTensor, "maximum",
    (ins), "", "Integer element types are allowed; padding never wins the "
    # "maximum.", " ceil_mode = true">;

def NNC_MaxPoolGradOp : NNC_Op<"max_pool_grad",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "gradient of a max pooling with respect to its input";
  let description = [{
    The input gradient of `nnc.max_pool`, as autodiff emits it: for the
    pooling's `input` `[N, C, D1, ..., Dn]` and the gradient `grad` of its
    result (`[N, C, O1, ..., On]`, the pooling's result shape), the result
    has the input's shape and each window's gradient added at the position
    of the window's maximum: the first in the window's row-major order
    when several hold it (PyTorch's index), the first NaN when the window
    has NaNs, never the padding. Where windows overlap, a position that is
    the maximum of several collects their sum. The window attributes are
    the pooling's, with the same defaults. One op rather than a
    composition, so that the backend finds each window's maximum once and
    gathers the gradient without materializing the windows.

    ```mlir
    %dx = nnc.max_pool_grad %x, %g kernel_shape = [3, 3] strides = [2, 2]
        pads = [1, 1, 1, 1] : tensor<?x64x112x112xf32>, tensor<?x64x56x56xf32>
    ```
  }];
  let arguments = (ins NNC_FloatTensor:$input, NNC_FloatTensor:$grad,
                       DenseI64ArrayAttr:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$strides,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
  let results = (outs NNC_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $grad `kernel_shape` `=` $kernel_shape
    (`strides` `=` $strides^)? (`pads` `=` $pads^)?
    (`dilations` `=` $dilations^)? (`ceil_mode` `=` $ceil_mode^)? attr-dict
    `:` type($input) `,` type($grad)
  }];
}

def NNC_AvgPoolOp : NNC_PoolOp<"avg_pool", NNC_FloatTensor, "average",
    (ins DefaultValuedAttr<BoolAttr, "false">:$count_include_pad),
    "(`count_include_pad` `=` $count_include_pad^)?",
    "With `count_include_pad` the padded positions count in each window's "
    # "divisor; without it (the default) only input positions do.",
    " count_include_pad = true">;

class NNC_GlobalPoolOp<string mnemonic, string what>
    : NNC_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = "global " # what # " pooling over all spatial dimensions";
  let description = "Takes the " # what # " over all spatial dimensions "
    # "of `input` `[N, C, D1, ..., Dn]` (n >= 1); the result is "
    # "`[N, C, 1, ..., 1]`.\n\n"
    # "```mlir\n%y = nnc." # mnemonic # " %x : tensor<?x512x7x7xf32>\n```";
  let arguments = (ins NNC_FloatTensor:$input);
  let results = (outs NNC_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

def NNC_GlobalAvgPoolOp : NNC_GlobalPoolOp<"global_avg_pool", "average">;
def NNC_GlobalMaxPoolOp : NNC_GlobalPoolOp<"global_max_pool", "maximum">;

#endif // NNC_LINALG_OPS_TD
