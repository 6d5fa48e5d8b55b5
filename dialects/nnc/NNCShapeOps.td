//===- NNCShapeOps.td - shape nnc ops ----------------------*- tablegen -*-===//
//
// Ops that move, select, replicate or rearrange elements without computing on
// them: reshape, transpose, concat/split, slice, gather/scatter, pad, expand,
// tile, squeeze/unsqueeze/flatten, trilu, one_hot, depth_to_space and
// space_to_depth. Semantics follow ONNX; shapes, axes and sizes that ONNX
// passes as tensors are attributes here because the importer folds shape
// computations.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_SHAPE_OPS_TD
#define NNC_SHAPE_OPS_TD

include "nnc/NNCBase.td"

//===----------------------------------------------------------------------===//
// Ops with a spelled-out result type
//===----------------------------------------------------------------------===//

def NNC_ReshapeOp : NNC_Op<"reshape", [Pure,
    DeclareOpInterfaceMethods<NNC_ShapeRefinementOpInterface>]> {
  let summary = "reinterprets a tensor's elements in a new shape";
  let description = [{
    Returns the input's elements in row-major order in the shape of the
    result type, which is spelled out (ONNX `Reshape` after the importer has
    resolved its `0` and `-1` entries). The element types must agree and the
    element counts must be able to agree: when one side is static its count
    must be a multiple of the other side's static dimensions.

    Shape inference computes a single `?` of the result from a fully static
    input. A reshape to its input's type with at most one `?` folds to the
    input, a reshape of a reshape reads the inner input, and a reshape of a
    constant folds to a constant.

    ```mlir
    %y = nnc.reshape %x : tensor<2x?x4xf32> -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins NNC_Tensor:$input);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def NNC_ExpandOp : NNC_Op<"expand", [Pure,
    DeclareOpInterfaceMethods<NNC_ShapeRefinementOpInterface>]> {
  let summary = "broadcasts a tensor to a larger shape";
  let description = [{
    Broadcasts the input as numpy does to the result type, which is spelled
    out: ONNX `Expand` whose output shape (the broadcast of the input shape
    and the requested shape) the importer has computed. Dimensions are
    aligned from the back; each input dimension must equal the result's or
    be 1. The element types must agree.

    Shape inference copies static input dimensions other than 1 into `?`
    result dimensions. An expand to its input's type folds to the input when
    the input is static (a `?` input dimension might be a 1 that is
    broadcast).

    ```mlir
    %y = nnc.expand %x : tensor<3x1xf32> -> tensor<2x3x?xf32>
    ```
  }];
  let arguments = (ins NNC_Tensor:$input);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Inferred-shape rearrangements
//===----------------------------------------------------------------------===//

def NNC_TransposeOp : NNC_Op<"transpose", [Pure, InferTypeOpAdaptor]> {
  let summary = "permutes the dimensions of a tensor";
  let description = [{
    Result dimension `i` is input dimension `perm[i]`. `perm` is required
    (the importer spells ONNX's default, the reversed dimensions) and must be
    a permutation of `[0, rank)`. An identity permutation folds to the input
    and a transpose of a transpose composes the permutations.

    ```mlir
    %y = nnc.transpose %x perm = [1, 0, 2] : tensor<2x?x4xf32>
    ```
  }];
  let arguments = (ins NNC_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = "$input `perm` `=` $perm attr-dict `:` type($input)";
  let hasFolder = 1;
}

def NNC_ConcatOp : NNC_Op<"concat", [Pure, InferTypeOpAdaptor]> {
  let summary = "joins tensors along an axis";
  let description = [{
    Concatenates one or more tensors of one element type and rank along
    `axis` (negative counts from the back). The other dimensions must agree;
    the result's `axis` dimension is the sum of the inputs' (`?` if any is
    `?`). A concat of one input folds to it.

    ```mlir
    %y = nnc.concat %a, %b axis = 1 : tensor<2x3xf32>, tensor<?x5xf32>
    ```
  }];
  let arguments = (ins Variadic<NNC_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = [{
    $inputs `axis` `=` $axis attr-dict `:` type($inputs)
  }];
  let hasFolder = 1;
}

def NNC_SplitOp : NNC_Op<"split", [Pure, InferTypeOpAdaptor]> {
  let summary = "splits a tensor into pieces along an axis";
  let description = [{
    Splits the input along `axis` (negative counts from the back) into one
    result per entry of `sizes`, result `i` having `sizes[i]` elements along
    the axis. The sizes are required (the importer spells ONNX's equal split)
    and non-negative; their sum must equal the axis dimension when it is
    static. A split into one piece folds to the input.

    ```mlir
    %a, %b = nnc.split %x axis = 1 sizes = [2, 6] : tensor<?x8xf32>
    ```
  }];
  let arguments = (ins NNC_Tensor:$input, I64Attr:$axis,
                       DenseI64ArrayAttr:$sizes);
  let results = (outs Variadic<NNC_Tensor>:$results);
  let assemblyFormat = [{
    $input `axis` `=` $axis `sizes` `=` $sizes attr-dict `:` type($input)
  }];
  let hasFolder = 1;
}

def NNC_SliceOp : NNC_Op<"slice", [Pure, InferTypeOpAdaptor]> {
  let summary = "strided slice along some axes";
  let description = [{
    ONNX `Slice`: for each `axes[i]` (default `[0, len(starts))`, negative
    counts from the back) takes the elements from `starts[i]` towards
    `ends[i]` (exclusive) in steps of `steps[i]` (default 1, never 0).
    Negative starts and ends count from the end of the dimension; then,
    for a positive step, both are clamped to `[0, dim]`, and for a negative
    step the start is clamped to `[0, dim - 1]` and the end to
    `[-1, dim - 1]`, so ends such as INT64_MAX/INT64_MIN select "to the
    end". A sliced `?` dimension gives a `?` result dimension. A slice that
    selects everything folds to the input.

    ```mlir
    %y = nnc.slice %x starts = [1, -1] ends = [9223372036854775807, -4]
        axes = [0, 2] steps = [2, -1] : tensor<8x?x6xf32>
    ```
  }];
  let arguments = (ins NNC_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$ends,
                       OptionalAttr<DenseI64ArrayAttr>:$axes,
                       OptionalAttr<DenseI64ArrayAttr>:$steps);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = [{
    $input `starts` `=` $starts `ends` `=` $ends (`axes` `=` $axes^)?
    (`steps` `=` $steps^)? attr-dict `:` type($input)
  }];
  let hasFolder = 1;
}

def NNC_PadOp : NNC_Op<"pad", [Pure, InferTypeOpAdaptor]> {
  let summary = "pads (or crops) a tensor";
  let description = [{
    ONNX `Pad` with the pads as an attribute: `pads` has `2 * rank` entries,
    first the amounts added before each dimension, then the amounts added
    after each. A negative amount removes elements (crops). `mode` is
    `constant` (fill with `value`), `reflect` (mirror without repeating the
    edge; each pad must be smaller than the dimension), `edge` (repeat the
    edge element; a padded dimension must be non-empty) or `wrap` (cyclic).

    The fill value is an `f64` attribute (default 0), not an operand: ONNX
    models give it as a constant that the importer folds. It must be
    integral for integer tensors and 0 or 1 for `i1`, and may only be
    non-zero in `constant` mode. Padding by zero everywhere folds to the
    input.

    ```mlir
    %y = nnc.pad %x pads = [0, 1, 0, -1] mode = edge : tensor<2x?xf32>
    %z = nnc.pad %x pads = [1, 1, 2, 2] value = -1.0 : tensor<2x?xf32>
    ```
  }];
  let arguments = (ins NNC_Tensor:$input, DenseI64ArrayAttr:$pads,
      DefaultValuedAttr<NNC_PadMode, "::nnc::PadMode::constant">:$mode,
      DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = [{
    $input `pads` `=` $pads (`mode` `=` $mode^)? (`value` `=` $value^)?
    attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def NNC_TileOp : NNC_Op<"tile", [Pure, InferTypeOpAdaptor]> {
  let summary = "repeats a tensor along each dimension";
  let description = [{
    Result dimension `i` is input dimension `i` times `repeats[i]`; `repeats`
    has one non-negative entry per dimension. Repeating by ones folds to the
    input.

    ```mlir
    %y = nnc.tile %x repeats = [2, 1, 3] : tensor<2x?x4xi64>
    ```
  }];
  let arguments = (ins NNC_Tensor:$input, DenseI64ArrayAttr:$repeats);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = "$input `repeats` `=` $repeats attr-dict `:` type($input)";
  let hasFolder = 1;
}

def NNC_SqueezeOp : NNC_Op<"squeeze", [Pure, InferTypeOpAdaptor]> {
  let summary = "removes dimensions of size 1";
  let description = [{
    Removes the dimensions listed in `axes` (negative counts from the back,
    no repeats), which must be 1 when static. Without `axes` every dimension
    of size 1 is removed, which needs a static input shape; an explicit
    empty list removes nothing. A squeeze that removes nothing folds to the
    input, and a squeeze of exactly the dimensions an unsqueeze inserted
    folds to the unsqueeze's input.

    ```mlir
    %y = nnc.squeeze %x axes = [0, -1] : tensor<1x?x1xf32>
    %z = nnc.squeeze %w : tensor<1x3x1xf32>
    ```
  }];
  let arguments = (ins NNC_Tensor:$input,
                       OptionalAttr<DenseI64ArrayAttr>:$axes);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = [{
    $input (`axes` `=` $axes^)? attr-dict `:` type($input)
  }];
  let hasFolder = 1;
}

def NNC_UnsqueezeOp : NNC_Op<"unsqueeze", [Pure, InferTypeOpAdaptor]> {
  let summary = "inserts dimensions of size 1";
  let description = [{
    Inserts a dimension of size 1 at each of `axes`, which index the
    result (rank = input rank + number of axes; negative counts from the
    back of the result; no repeats). An empty `axes` folds to the input.

    ```mlir
    %y = nnc.unsqueeze %x axes = [0, -1] : tensor<?x4xf32>
    ```
  }];
  let arguments = (ins NNC_Tensor:$input, DenseI64ArrayAttr:$axes);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = "$input `axes` `=` $axes attr-dict `:` type($input)";
  let hasFolder = 1;
}

def NNC_FlattenOp : NNC_Op<"flatten", [Pure, InferTypeOpAdaptor]> {
  let summary = "reshapes a tensor to 2-D around an axis";
  let description = [{
    Returns a 2-D tensor whose first dimension is the product of the input
    dimensions before `axis` and whose second is the product of the rest.
    `axis` is in `[-rank, rank]` (default 1); negative counts from the back.
    A flatten that does not change the type folds to the input.

    ```mlir
    %y = nnc.flatten %x axis = 2 : tensor<2x3x4x5xf32>
    %z = nnc.flatten %x : tensor<2x3x4x5xf32>
    ```
  }];
  let arguments = (ins NNC_Tensor:$input,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = [{
    $input (`axis` `=` $axis^)? attr-dict `:` type($input)
  }];
  let hasFolder = 1;
}

def NNC_TriluOp : NNC_Op<"trilu", [Pure, InferTypeOpAdaptor]> {
  let summary = "keeps the upper or lower triangle of matrices";
  let description = [{
    Applies to the last two dimensions (rank at least 2). With `upper`
    (default true) it keeps the elements with `col - row >= k`, otherwise
    those with `col - row <= k`, and zeroes the rest. `k` defaults to 0. A
    trilu that keeps every element (for static matrix dimensions) folds to
    the input.

    ```mlir
    %y = nnc.trilu %x upper = false k = -1 : tensor<?x4x4xf32>
    ```
  }];
  let arguments = (ins NNC_Tensor:$input,
                       DefaultValuedAttr<BoolAttr, "true">:$upper,
                       DefaultValuedAttr<I64Attr, "0">:$k);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = [{
    $input (`upper` `=` $upper^)? (`k` `=` $k^)? attr-dict `:` type($input)
  }];
  let hasFolder = 1;
}

def NNC_DepthToSpaceOp : NNC_Op<"depth_to_space", [Pure, InferTypeOpAdaptor]> {
  let summary = "moves channel blocks into spatial blocks";
  let description = [{
    ONNX `DepthToSpace` on an NCHW tensor: `[N, C, H, W]` becomes
    `[N, C / (b * b), H * b, W * b]` for `blocksize` b > 0, C a multiple of
    `b * b` when static. `mode` is the string `"DCR"` (depth-column-row,
    default) or `"CRD"` (column-row-depth).

    ```mlir
    %y = nnc.depth_to_space %x blocksize = 2 mode = "CRD" : tensor<1x8x?x3xf32>
    ```
  }];
  let arguments = (ins NNC_Tensor:$input, I64Attr:$blocksize,
                       DefaultValuedStrAttr<StrAttr, "DCR">:$mode);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = [{
    $input `blocksize` `=` $blocksize (`mode` `=` $mode^)? attr-dict `:`
    type($input)
  }];
  let hasVerifier = 1;
}

def NNC_SpaceToDepthOp : NNC_Op<"space_to_depth", [Pure, InferTypeOpAdaptor]> {
  let summary = "moves spatial blocks into channels";
  let description = [{
    ONNX `SpaceToDepth` on an NCHW tensor: `[N, C, H, W]` becomes
    `[N, C * b * b, H / b, W / b]` for `blocksize` b > 0, H and W multiples
    of b when static.

    ```mlir
    %y = nnc.space_to_depth %x blocksize = 2 : tensor<1x3x?x8xf32>
    ```
  }];
  let arguments = (ins NNC_Tensor:$input, I64Attr:$blocksize);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = [{
    $input `blocksize` `=` $blocksize attr-dict `:` type($input)
  }];
}

//===----------------------------------------------------------------------===//
// Gather and scatter
//===----------------------------------------------------------------------===//

def NNC_GatherOp : NNC_Op<"gather", [Pure, InferTypeOpAdaptor]> {
  let summary = "gathers slices along an axis";
  let description = [{
    ONNX `Gather`: with data of rank r and indices of rank q, the result has
    rank `r + q - 1` and shape `data[:axis] + indices + data[axis + 1:]`.
    `axis` defaults to 0; negative counts from the back. Negative indices
    count from the end of the axis.

    ```mlir
    %y = nnc.gather %data, %idx axis = 1 : tensor<4x?x8xf32>, tensor<2x3xi64>
    ```
  }];
  let arguments = (ins NNC_Tensor:$data, NNC_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = [{
    $data `,` $indices (`axis` `=` $axis^)? attr-dict `:` type($data) `,`
    type($indices)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def NNC_GatherElementsOp : NNC_Op<"gather_elements",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "gathers elements along an axis by per-element indices";
  let description = [{
    ONNX `GatherElements`: the indices have the data's rank and the result
    has the indices' shape; `result[i][j] = data[indices[i][j]][j]` for
    `axis = 0`. Along the other axes the indices may not be larger than the
    data. `axis` defaults to 0; negative counts from the back.

    ```mlir
    %y = nnc.gather_elements %data, %idx axis = 1 : tensor<3x?xf32>, tensor<3x2xi32>
    ```
  }];
  let arguments = (ins NNC_Tensor:$data, NNC_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = [{
    $data `,` $indices (`axis` `=` $axis^)? attr-dict `:` type($data) `,`
    type($indices)
  }];
  let hasVerifier = 1;
}

def NNC_ScatterElementsOp : NNC_Op<"scatter_elements",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "scatters updates along an axis by per-element indices";
  let description = [{
    ONNX `ScatterElements`: a copy of `data` where, for `axis = 0`,
    `result[indices[i][j]][j] = updates[i][j]`, combined with the existing
    value by `reduction` (default `none`: replace). The indices have the
    data's rank and are no larger than the data along the other axes; the
    updates have the indices' shape and the data's element type.

    ```mlir
    %y = nnc.scatter_elements %data, %idx, %upd axis = 1 reduction = add
        : tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>
    ```
  }];
  let arguments = (ins NNC_Tensor:$data, NNC_IndexTensor:$indices,
      NNC_Tensor:$updates, DefaultValuedAttr<I64Attr, "0">:$axis,
      DefaultValuedAttr<NNC_ScatterReduction,
                        "::nnc::ScatterReduction::none">:$reduction);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = [{
    $data `,` $indices `,` $updates (`axis` `=` $axis^)?
    (`reduction` `=` $reduction^)? attr-dict `:` type($data) `,`
    type($indices) `,` type($updates)
  }];
  let hasVerifier = 1;
}

def NNC_ScatterNDOp : NNC_Op<"scatter_nd", [Pure, InferTypeOpAdaptor]> {
  let summary = "scatters slices at N-dimensional indices";
  let description = [{
    ONNX `ScatterND`: with data of rank r >= 1 and indices of rank q >= 1
    whose last dimension k is in `[1, r]`, each index tuple (a row of the
    indices along their last dimension) selects a slice of `data` of shape
    `data[k:]` that is replaced by (or, per `reduction`, combined with) the
    matching slice of `updates`. The updates have shape
    `indices[:-1] + data[k:]` and the data's element type. When k is `?` it
    is deduced from the updates' rank.

    ```mlir
    %y = nnc.scatter_nd %data, %idx, %upd reduction = mul
        : tensor<4x5x6xf32>, tensor<?x2xi64>, tensor<?x6xf32>
    ```
  }];
  let arguments = (ins NNC_Tensor:$data, NNC_IndexTensor:$indices,
      NNC_Tensor:$updates,
      DefaultValuedAttr<NNC_ScatterReduction,
                        "::nnc::ScatterReduction::none">:$reduction);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = [{
    $data `,` $indices `,` $updates (`reduction` `=` $reduction^)? attr-dict
    `:` type($data) `,` type($indices) `,` type($updates)
  }];
  let hasVerifier = 1;
}

def NNC_OneHotOp : NNC_Op<"one_hot", [Pure, InferTypeOpAdaptor]> {
  let summary = "one-hot encodes indices";
  let description = [{
    ONNX `OneHot` with depth and values as attributes: inserts a dimension
    of size `depth` (> 0) at `axis` (in `[-(r + 1), r]`, default -1, the
    last) of the indices' shape; the result is `on_value` (default 1) where
    the new coordinate equals the index (negative indices count from
    `depth`) and `off_value` (default 0) elsewhere. The result element type
    is the `element_type` attribute, spelled after `->`; the values must be
    integral for integer types and 0 or 1 for `i1`.

    ```mlir
    %y = nnc.one_hot %idx depth = 10 axis = 0 on_value = 5.0 off_value = -1.0
        : tensor<?x3xi64> -> f32
    ```
  }];
  let arguments = (ins NNC_IndexTensor:$indices, I64Attr:$depth,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F64Attr, "1.0">:$on_value,
                       DefaultValuedAttr<F64Attr, "0.0">:$off_value,
                       TypeAttrOf<NNC_Element>:$element_type);
  let results = (outs NNC_Tensor:$result);
  let assemblyFormat = [{
    $indices `depth` `=` $depth (`axis` `=` $axis^)?
    (`on_value` `=` $on_value^)? (`off_value` `=` $off_value^)? attr-dict
    `:` type($indices) `->` $element_type
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Run-time checks
//===----------------------------------------------------------------------===//

/// What run-time checks write: the checks buffer of the executable, which
/// the runtime reads after each kernel that takes it.
def NNC_CheckResource : Resource<"::nnc::CheckResource">;

def NNC_CheckIndexOp
    : NNC_Op<"check_index", [MemoryEffects<[MemWrite<NNC_CheckResource>]>]> {
  let summary = "checks at run time that an index lies in a range";
  let description = [{
    A scalar op of the kernels that the ops taking indices and labels
    (gathers, scatters, class losses) lower to: `in_range` is whether
    `lower <= index < upper`, and `result` is `index` when it is and 0
    otherwise, so that the kernel reads and writes only inside its buffers
    whatever the data. An index out of range is recorded by
    `--nnc-lower-checks` in a slot of the executable's checks buffer, and
    the runtime fails the run after the kernel with `what`, the index and
    the range. `what` names the op and the index, e.g.
    "gather '/embed/Gather' index into axis 0 of f32[100x16]". Lies inside
    `linalg.generic` bodies and loops until the checks are lowered.

    ```mlir
    %safe, %ok = nnc.check_index %i in [%lo, %hi) "gather 'g' index"
    ```
  }];
  let arguments = (ins Index:$index, Index:$lower, Index:$upper, StrAttr:$what);
  let results = (outs Index:$result, I1:$in_range);
  let assemblyFormat = [{
    $index `in` `[` $lower `,` $upper `)` $what attr-dict
  }];
  let builders = [OpBuilder<(ins "::mlir::Value":$index, "::mlir::Value":$lower,
                                "::mlir::Value":$upper,
                                "::llvm::StringRef":$what),
                            [{
      build($_builder, $_state, $_builder.getIndexType(),
            $_builder.getI1Type(), index, lower, upper, what);
    }]>];
}

#endif // NNC_SHAPE_OPS_TD
