//===- NNCReductionOps.td - reduction nnc ops -----------------*- tablegen -*-===//
//
// Reductions over axes (sum, mean, max, ... with ONNX Reduce* semantics),
// arg-reductions (ArgMax/ArgMin) and cumulative sums.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_REDUCTION_OPS_TD
#define NNC_REDUCTION_OPS_TD

include "nnc/NNCBase.td"

def NNC_ReduceOp : NNC_Op<"reduce", [Pure, InferTypeOpAdaptor]> {
  let summary = "reduction over axes (ONNX Reduce*)";
  let description = [{
    Reduces `input` over `axes` with the reduction `kind`:

    | kind          | result                   | element types   |
    |---------------|--------------------------|-----------------|
    | `sum`         | sum(x)                   | numeric         |
    | `mean`        | sum(x) / count           | numeric (integer division truncates) |
    | `max`, `min`  | max(x), min(x)           | numeric         |
    | `prod`        | product(x)               | numeric         |
    | `l1`          | sum(abs(x))              | numeric         |
    | `l2`          | sqrt(sum(x * x))         | floating-point  |
    | `log_sum`     | log(sum(x))              | floating-point  |
    | `log_sum_exp` | log(sum(exp(x)))         | floating-point  |
    | `sum_square`  | sum(x * x)               | numeric         |

    Axes may be negative (counted from the back) and must be distinct. Empty
    `axes` (the default) reduce over all axes, unless `noop_with_empty_axes`
    is set, in which case the op is the identity. With `keepdims` (the
    default) reduced dimensions stay as size 1, otherwise they are removed.
    The result keeps the input's element type.

    ```mlir
    %s = nnc.reduce sum %x axes = [-1] keepdims = false : tensor<?x16x32xf32>
    %m = nnc.reduce max %x : tensor<?x16x32xf32>
    ```
  }];
  let arguments = (ins NNC_ReduceKind:$kind, NNC_NumericTensor:$input,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$axes,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                       DefaultValuedAttr<BoolAttr,
                                         "false">:$noop_with_empty_axes);
  let results = (outs NNC_NumericTensor:$result);
  let assemblyFormat = [{
    $kind $input (`axes` `=` $axes^)? (`keepdims` `=` $keepdims^)?
    (`noop_with_empty_axes` `=` $noop_with_empty_axes^)? attr-dict
    `:` type($input)
  }];
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// The distinct, non-negative axes this op reduces over.
    ::llvm::SmallVector<int64_t> getReducedAxes();
  }];
}

def NNC_ArgReduceOp : NNC_Op<"arg_reduce", [Pure, InferTypeOpAdaptor]> {
  let summary = "index of the maximum or minimum along an axis";
  let description = [{
    ONNX ArgMax and ArgMin. Returns the `i64` index of the largest (`argmax`) or smallest (`argmin`)
    element along `axis` (default 0; negative counts from the back). Ties
    resolve to the first occurrence, or to the last with
    `select_last_index`. With `keepdims` (the default) the reduced dimension
    stays as size 1, otherwise it is removed.

    ```mlir
    %i = nnc.arg_reduce argmax %x axis = -1 keepdims = false : tensor<?x10xf32>
    ```
  }];
  let arguments = (ins NNC_ArgReduceKind:$kind, NNC_NumericTensor:$input,
                       DefaultValuedAttr<I64Attr, "0">:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                       DefaultValuedAttr<BoolAttr,
                                         "false">:$select_last_index);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let assemblyFormat = [{
    $kind $input (`axis` `=` $axis^)? (`keepdims` `=` $keepdims^)?
    (`select_last_index` `=` $select_last_index^)? attr-dict `:` type($input)
  }];
}

def NNC_CumSumOp : NNC_Op<"cumsum", [Pure, SameOperandsAndResultType]> {
  let summary = "cumulative sum along an axis (ONNX CumSum)";
  let description = [{
    Running sum of `input` along `axis` (negative counts from the back). With
    `exclusive` each element excludes itself (the first is 0); with
    `reverse` the sum runs from the end of the axis. The result has the
    input's type. ONNX passes the axis as a tensor; the importer turns a
    constant one into this attribute.

    ```mlir
    %c = nnc.cumsum %x axis = 1 exclusive = true : tensor<4x?xi64>
    ```
  }];
  let arguments = (ins NNC_NumericTensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                       DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs NNC_NumericTensor:$result);
  let assemblyFormat = [{
    $input `axis` `=` $axis (`exclusive` `=` $exclusive^)?
    (`reverse` `=` $reverse^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

#endif // NNC_REDUCTION_OPS_TD
