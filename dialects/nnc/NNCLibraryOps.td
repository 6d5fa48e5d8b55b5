//===- NNCLibraryOps.td - kernels a library runs ------------*- tablegen -*-===//
//
// Ops that stand for a call into a tuned library after lowering: the
// conversion to linalg produces one where the kernel choice of an nnc op
// says so (`nnc.impl = "library"`), bufferization turns its tensors into
// buffers, and the target's pass on buffers emits the call (the CPU:
// oneDNN through the runtime's glue). Destination style, like linalg, so
// that one op serves both the tensor and the buffer form.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LIBRARY_OPS_TD
#define NNC_LIBRARY_OPS_TD

include "nnc/NNCBase.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def NNC_LibraryConvOp : NNC_Op<"library_conv", [
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "a convolution or one of its gradients, run by a library";
  let description = [{
    One convolution in the library's terms: `src` `[N, C, D1, ..., Dn]`,
    `weights` `[M, C / groups, K1, ..., Kn]` and `dst` `[N, M, O1, ..., On]`
    with `Oi` as for `nnc.conv` (1 <= n <= 3; static shapes of f32, bf16 or
    f16 elements, which need not agree: the library accumulates in f32). The
    `direction` says which of the three `init` receives (entirely: its
    contents are not read):

    - `"forward"`: `ins(src, weights[, bias [M]])`, `init` is dst (`nnc.conv`);
    - `"backward_data"`: `ins(dst, weights[, bias [C]])`, `init` is src,
      the input gradient of the convolution for the output gradient `dst`
      plus the bias (`nnc.conv_transpose`);
    - `"backward_weights"`: `ins(src, dst)`, `init` is weights, the weight
      gradient (`nnc.conv_weight_grad`).

    `strides` and `dilations` hold n entries, `pads` 2n (begin pads, then
    end pads). On tensors it returns the result; on buffers it writes
    `init` and returns nothing.

    With `channels_last` (forward only) the images are laid out with the
    channels last, `src` `[N, D1, ..., Dn, C]` and `dst` `[N, O1, ..., On,
    M]` (NHWC), as the library's kernel keeps them; the weights keep their
    layout.

    With `winograd` the library computes it with Winograd's minimal
    filtering (2-D, 3x3 kernels, strides and dilations 1, one group, f32
    operands): about half the multiplications, results that differ from
    the direct convolution's by rounding.

    ```mlir
    %y = nnc.library_conv "forward" ins(%x, %w : tensor<8x64x56x56xf32>,
        tensor<64x64x3x3xf32>) outs(%e : tensor<8x64x56x56xf32>)
        strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1
        -> tensor<8x64x56x56xf32>
    ```
  }];
  let arguments = (ins StrAttr:$direction, Variadic<AnyShaped>:$inputs,
                       AnyShaped:$init, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations, DenseI64ArrayAttr:$pads,
                       I64Attr:$groups, UnitAttr:$channels_last,
                       UnitAttr:$winograd);
  let results = (outs Variadic<AnyRankedTensor>:$result);
  let assemblyFormat = [{
    $direction `ins` `(` $inputs `:` type($inputs) `)`
    `outs` `(` $init `:` type($init) `)`
    `strides` `=` $strides `dilations` `=` $dilations `pads` `=` $pads
    `groups` `=` $groups (`channels_last` $channels_last^)?
    (`winograd` $winograd^)? attr-dict
    (`->` type($result)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getInitMutable();
    }
    /// The shape of an image operand (src or dst) in the convolution's
    /// terms, [N, C, D...], whatever its layout.
    ::llvm::SmallVector<int64_t> getChannelsFirstShape(::mlir::Value image);
    /// The operand or result that plays the convolution's src, weights and
    /// dst (by direction), and its bias (null: none).
    ::mlir::Value getSrc();
    ::mlir::Value getWeights();
    ::mlir::Value getDst();
    ::mlir::Value getBias();
  }];
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

def NNC_AllReduceOp : NNC_Op<"all_reduce", [Pure, InferTypeOpAdaptor]> {
  let summary = "the sum of a tensor over the ranks of data-parallel training";
  let description = [{
    Every rank running the program passes its `input`; each gets back the
    elementwise sum of all ranks' inputs, in the input's type. In a single
    process (a world of one) the result is the input. Every rank must reach
    the same all-reduces in the same order, which holds because all ranks
    run the same compiled program; it is what synchronized batch
    normalization (`--nnc-sync-batch-norm`) uses for its statistics, and
    its gradient is the all-reduce of the result's gradient.

    ```mlir
    %s = nnc.all_reduce %x : tensor<2x16xf32>
    ```
  }];
  let arguments = (ins NNC_FloatTensor:$input);
  let results = (outs NNC_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def NNC_LibraryAllReduceOp : NNC_Op<"library_all_reduce", [
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "an all-reduce (sum over the ranks) run by the runtime";
  let description = [{
    `nnc.all_reduce` after the conversion to linalg: the sum over the ranks
    of `input` into `init` (same shape and element type, static; its
    contents are not read). On tensors it returns the result; on buffers it
    writes `init` and returns nothing, and the target's pass on buffers
    emits the call into the runtime.

    ```mlir
    %s = nnc.library_all_reduce ins(%x : tensor<2x16xf32>)
        outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
    ```
  }];
  let arguments = (ins AnyShaped:$input, AnyShaped:$init);
  let results = (outs Variadic<AnyRankedTensor>:$result);
  let assemblyFormat = [{
    `ins` `(` $input `:` type($input) `)` `outs` `(` $init `:` type($init) `)`
    attr-dict (`->` type($result)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getInitMutable();
    }
  }];
}

#endif // NNC_LIBRARY_OPS_TD
