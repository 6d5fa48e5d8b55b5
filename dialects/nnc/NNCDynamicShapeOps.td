//===- NNCDynamicShapeOps.td - shapes known at run time ----*- tablegen -*-===//
//
// Shape computations on dimensions that are only known when a run binds its
// input shapes: `shape_of` reads a tensor's dimensions as an i64 vector, and
// the dynamic forms of reshape, expand, slice, tile and range take as
// operands what their static forms take as attributes. Integer arithmetic,
// gathers and concatenations of shape vectors are the ordinary nnc ops.
//
// None of these ops is lowered: specialization (--nnc-shape-inference on
// concrete input shapes) makes their shape operands known, and each then
// resolves to its static form (`nnc.reshape`, `nnc.expand`, `nnc.slice`,
// `nnc.tile`, a constant). One whose shape operand still depends on tensor
// data at that point is reported by name.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_DYNAMIC_SHAPE_OPS_TD
#define NNC_DYNAMIC_SHAPE_OPS_TD

include "nnc/NNCBase.td"

def NNC_ShapeVector : 1DTensorOf<[I64]>;

def NNC_ShapeOfOp : NNC_Op<"shape_of", [Pure, InferTypeOpAdaptor]> {
  let summary = "the dimensions of a tensor as an i64 vector";
  let description = [{
    Returns dimensions `[start, end)` of the input (default: all) as a 1-D
    i64 tensor: ONNX `Shape`. `start` and `end` are normalized
    (0 <= start <= end <= rank). Folds to a constant when those dimensions
    are static; ops on its result fold element by element where the
    elements they read are static.

    ```mlir
    %s = nnc.shape_of %x : tensor<?x128x256xf32>
    %t = nnc.shape_of %x start = 1 end = 2 : tensor<?x?x256xf32>
    ```
  }];
  let arguments = (ins NNC_Tensor:$input, OptionalAttr<I64Attr>:$start,
                       OptionalAttr<I64Attr>:$end);
  let results = (outs NNC_ShapeVector:$result);
  let assemblyFormat = [{
    $input (`start` `=` $start^)? (`end` `=` $end^)? attr-dict `:`
    type($input)
  }];
  let extraClassDeclaration = [{
    /// The normalized `[start, end)`.
    int64_t getStartDim();
    int64_t getEndDim();
  }];
  let hasFolder = 1;
}

// Operands from `firstShapeOperand` on are shapes, indices or bounds; the
// canonicalizer resolves the op once they are known.
class NNC_DynamicShapeOp<string mnemonic, int firstShapeOperand = 1>
    : NNC_Op<mnemonic, [Pure,
        DeclareOpInterfaceMethods<NNC_ShapeRefinementOpInterface>,
        DeclareOpInterfaceMethods<NNC_ResolvableOpInterface>]> {
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDefinition = [{
    ::mlir::OperandRange $cppClass::getShapeOperands() {
      return getOperation()->getOperands().drop_front(}]
      # firstShapeOperand # [{);
    }
    void $cppClass::getCanonicalizationPatterns(
        ::mlir::RewritePatternSet &results, ::mlir::MLIRContext *context) {
      ::nnc::detail::addResolvePattern(results, context, getOperationName());
    }
  }];
}

def NNC_DynamicReshapeOp : NNC_DynamicShapeOp<"dynamic_reshape"> {
  let summary = "reshape to a shape computed at run time";
  let description = [{
    ONNX `Reshape` whose target `shape` is not known at import time: each
    entry is a dimension, `0` copies the input's dimension at the same
    position (unless `allowzero`, where it is a zero dimension) and one
    entry may be `-1`, inferred from the element count. The result type
    holds what is known: static dimensions where the entry is. Resolves to
    `nnc.reshape` once `shape` is known; an element count that does not
    divide is reported then.

    ```mlir
    %s = nnc.concat %b, %t, %h, %d axis = 0
        : tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>
    %y = nnc.dynamic_reshape %x, %s
        : (tensor<?x?x128xf32>, tensor<4xi64>) -> tensor<?x?x4x32xf32>
    ```
  }];
  let arguments = (ins NNC_Tensor:$input, NNC_ShapeVector:$shape,
                       UnitAttr:$allowzero);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $shape attr-dict `:` `(` type($input) `,` type($shape) `)`
    `->` type($result)
  }];
}

def NNC_DynamicExpandOp : NNC_DynamicShapeOp<"dynamic_expand"> {
  let summary = "broadcast to a shape computed at run time";
  let description = [{
    ONNX `Expand` (and `ConstantOfShape`, as the expand of a rank-0 value)
    whose requested `shape` is not known at import time: the result is the
    numpy broadcast of the input's shape and `shape`. Resolves to
    `nnc.expand` once `shape` is known.

    ```mlir
    %y = nnc.dynamic_expand %x, %s
        : (tensor<1x1x4xf32>, tensor<3xi64>) -> tensor<?x?x4xf32>
    ```
  }];
  let arguments = (ins NNC_Tensor:$input, NNC_ShapeVector:$shape);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $shape attr-dict `:` `(` type($input) `,` type($shape) `)`
    `->` type($result)
  }];
}

def NNC_DynamicSliceOp : NNC_DynamicShapeOp<"dynamic_slice"> {
  let summary = "strided slice with bounds computed at run time";
  let description = [{
    ONNX `Slice` whose `starts`, `ends`, `axes` or `steps` are not known at
    import time, with the semantics of `nnc.slice` (negative values count
    from the back, bounds are clamped). The four operands have one entry
    per sliced axis. Resolves to `nnc.slice` once all four are known.

    ```mlir
    %y = nnc.dynamic_slice %mask[%zero, %t, %axes, %ones]
        : (tensor<1x1x16x16xf32>, tensor<2xi64>, tensor<2xi64>,
           tensor<2xi64>, tensor<2xi64>) -> tensor<1x1x?x?xf32>
    ```
  }];
  let arguments = (ins NNC_Tensor:$input, NNC_ShapeVector:$starts,
                       NNC_ShapeVector:$ends, NNC_ShapeVector:$axes,
                       NNC_ShapeVector:$steps);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = [{
    $input `[` $starts `,` $ends `,` $axes `,` $steps `]` attr-dict `:` `(`
    type($input) `,` type($starts) `,` type($ends) `,` type($axes) `,`
    type($steps) `)` `->` type($result)
  }];
}

def NNC_DynamicTileOp : NNC_DynamicShapeOp<"dynamic_tile"> {
  let summary = "tile with repeats computed at run time";
  let description = [{
    ONNX `Tile` whose `repeats` (one non-negative entry per dimension) are
    not known at import time. Resolves to `nnc.tile` once they are.

    ```mlir
    %y = nnc.dynamic_tile %x, %r
        : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins NNC_Tensor:$input, NNC_ShapeVector:$repeats);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $repeats attr-dict `:` `(` type($input) `,` type($repeats) `)`
    `->` type($result)
  }];
}

def NNC_DynamicRangeOp : NNC_DynamicShapeOp<"dynamic_range", 0> {
  let summary = "arithmetic sequence with bounds computed at run time";
  let description = [{
    ONNX `Range`: `start`, `start + delta`, ... up to but excluding `limit`,
    `max(ceil((limit - start) / delta), 0)` elements; the three operands are
    rank-0 tensors of the result's element type and `delta` is not 0.
    Resolves to a constant once all three are known (at most 2^20
    elements), e.g. the positions `0 .. T-1` of a sequence of length `T`.

    ```mlir
    %p = nnc.dynamic_range %zero, %t, %one
        : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
    ```
  }];
  let arguments = (ins NNC_NumericTensor:$start, NNC_NumericTensor:$limit,
                       NNC_NumericTensor:$delta);
  let results = (outs NNC_NumericTensor:$result);
  let assemblyFormat = [{
    $start `,` $limit `,` $delta attr-dict `:` `(` type($start) `,`
    type($limit) `,` type($delta) `)` `->` type($result)
  }];
}

def NNC_DynamicAttrsOp : NNC_Op<"dynamic_attrs", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<NNC_ShapeRefinementOpInterface>,
    DeclareOpInterfaceMethods<NNC_ResolvableOpInterface>]> {
  let summary = "an op whose attributes are computed at run time";
  let description = [{
    The nnc op `op_name` applied to `inputs`, with the attributes
    `static_attrs` and, for each of `values`, the attribute `names[i]` built
    from that shape operand's entries as `kinds[i]` says: `i64` (one entry,
    an i64 integer attribute) or `i64s` (a dense i64 array). It stands for
    ONNX ops whose integer attribute-like inputs (Trilu's `k`, the axes of
    the reductions, Unsqueeze and Squeeze, CumSum's `axis`, Split's sizes,
    Pad's pads) are not known at import time but follow from the input
    shapes or from integer inputs given at run time. The results are typed
    with what is known; once `values` are known the op resolves to
    `op_name` with those attributes, which infers and verifies as usual (an
    invalid attribute is reported then).

    ```mlir
    %y = nnc.dynamic_attrs "nnc.trilu"(%x) [%k] names ["k"] kinds ["i64"]
        static {upper = true}
        : (tensor<4x5xf32>), (tensor<1xi64>) -> tensor<4x5xf32>
    ```
  }];
  let arguments = (ins Variadic<NNC_Tensor>:$inputs,
                       Variadic<NNC_ShapeVector>:$values,
                       StrAttr:$op_name, DictionaryAttr:$static_attrs,
                       StrArrayAttr:$names, StrArrayAttr:$kinds);
  let results = (outs Variadic<NNC_Tensor>:$results);
  let assemblyFormat = [{
    $op_name `(` $inputs `)` `[` $values `]` `names` $names `kinds` $kinds
    `static` $static_attrs attr-dict `:` `(` type($inputs) `)` `,` `(`
    type($values) `)` `->` type($results)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

#endif // NNC_DYNAMIC_SHAPE_OPS_TD
