//===- NNCNNOps.td - nn nnc ops ------------------------------*- tablegen -*-===//
//
// Neural-network ops: softmax and log-softmax, normalization (batch, layer,
// group, instance), dropout, and the losses (cross-entropy, NLL, MSE).
//
//===----------------------------------------------------------------------===//

#ifndef NNC_NN_OPS_TD
#define NNC_NN_OPS_TD

include "nnc/NNCBase.td"

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

class NNC_SoftmaxBaseOp<string mnemonic, string math>
    : NNC_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = math # " along one axis";
  let description = "Computes `" # math # "` along `axis` (default -1, the "
    # "last; negative values count from the back and must lie in "
    # "[-rank, rank)). The result has the operand's type; a rank-0 operand "
    # "has no axis and is rejected.\n\n"
    # "```mlir\n%y = nnc." # mnemonic # " %x axis = 1 : tensor<8x?x16xf32>\n"
    # "%z = nnc." # mnemonic # " %x : tensor<8x?x16xf32>\n```";
  let arguments = (ins NNC_FloatTensor:$input,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs NNC_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`axis` `=` $axis^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The axis in [0, rank); only valid on a verified op.
    int64_t getNormalizedAxis() {
      int64_t axis = getAxisAttr().getInt();
      return axis < 0 ? axis + getType().getRank() : axis;
    }
  }];
}

def NNC_SoftmaxOp : NNC_SoftmaxBaseOp<"softmax",
    "exp(x) / sum(exp(x))">;
def NNC_LogSoftmaxOp : NNC_SoftmaxBaseOp<"log_softmax",
    "x - log(sum(exp(x)))">;

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

def NNC_BatchNormOp : NNC_Op<"batch_norm", [Pure, InferTypeOpAdaptor]> {
  let summary = "batch normalization with running statistics (inference)";
  let description = [{
    Normalizes `input` of shape `[N, C, d1, ...]` (rank >= 2) per channel with
    the given statistics:
    `y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + bias[c]`.
    `scale` and `bias` share one element type, `mean` and `var` share one
    element type (either may differ from the input's, as in ONNX, so f16
    activations can use f32 parameters); all four are `[C]` and their sizes
    must agree with the input's channel dimension. `epsilon` must be
    positive. The result has the input's type. For training use
    `nnc.batch_norm_train`; `momentum` (ONNX convention, the weight of the old
    running value) does not change the result and is what
    `--nnc-prepare-training` gives the training op.

    ```mlir
    %y = nnc.batch_norm %x, %scale, %bias, %mean, %var epsilon = 1.000000e-03
        : tensor<?x16x32x32xf16>, tensor<16xf32>, tensor<16xf32>,
          tensor<16xf32>, tensor<16xf32>
    ```
  }];
  let arguments = (ins NNC_FloatTensor:$input, NNC_FloatTensor:$scale,
                       NNC_FloatTensor:$bias, NNC_FloatTensor:$mean,
                       NNC_FloatTensor:$var,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon,
                       DefaultValuedAttr<F64Attr, "0.9">:$momentum);
  let results = (outs NNC_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `,` $mean `,` $var
    (`epsilon` `=` $epsilon^)? (`momentum` `=` $momentum^)? attr-dict `:`
    type($input) `,` type($scale)
    `,` type($bias) `,` type($mean) `,` type($var)
  }];
  let hasVerifier = 1;
}

def NNC_BatchNormTrainOp : NNC_Op<"batch_norm_train",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "batch normalization with batch statistics (training)";
  let description = [{
    Normalizes `input` of shape `[N, C, d1, ...]` (rank >= 2) per channel with
    the statistics of the batch, and updates the running statistics.

    With `M = N * d1 * ...` elements per channel:
    - `batch_mean[c] = sum(x[:, c]) / M`
    - `batch_var[c] = sum((x[:, c] - batch_mean[c])^2) / M` (biased; this is
      what normalizes)
    - `y = (x - batch_mean[c]) / sqrt(batch_var[c] + epsilon) * scale[c] + bias[c]`
    - `new_running_mean = running_mean * momentum + batch_mean * (1 - momentum)`
    - `new_running_var = running_var * momentum
                         + batch_var * M / (M - 1) * (1 - momentum)`
      (the running variance is updated with the unbiased estimate, as
      PyTorch does); with `unbiased_running_var = false` the biased
      `batch_var` is used instead, as ONNX BatchNormalization specifies.

    `momentum` follows the ONNX convention (the weight of the old running
    value, default 0.9), which is `1 - momentum` in PyTorch's convention; it
    must lie in [0, 1]. `epsilon` must be positive. Operand rules are those of
    `nnc.batch_norm`. `y` has the input's type; the four `[C]` results have
    the running statistics' element type, with C taken from whichever of the
    input and the operands has it static. `batch_mean` and `batch_var` are
    what the backward pass needs.

    ```mlir
    %y, %bm, %bv, %rm, %rv = nnc.batch_norm_train %x, %scale, %bias, %mean, %var
        momentum = 9.900000e-01
        : tensor<?x16x?x?xf32>, tensor<16xf32>, tensor<16xf32>,
          tensor<16xf32>, tensor<16xf32>
    ```
  }];
  let arguments = (ins NNC_FloatTensor:$input, NNC_FloatTensor:$scale,
                       NNC_FloatTensor:$bias, NNC_FloatTensor:$running_mean,
                       NNC_FloatTensor:$running_var,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon,
                       DefaultValuedAttr<F64Attr, "0.9">:$momentum,
                       DefaultValuedAttr<BoolAttr, "true">:$unbiased_running_var);
  let results = (outs NNC_FloatTensor:$result, NNC_FloatTensor:$batch_mean,
                      NNC_FloatTensor:$batch_var,
                      NNC_FloatTensor:$new_running_mean,
                      NNC_FloatTensor:$new_running_var);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `,` $running_mean `,` $running_var
    (`epsilon` `=` $epsilon^)? (`momentum` `=` $momentum^)? attr-dict `:`
    type($input) `,` type($scale) `,` type($bias) `,` type($running_mean) `,`
    type($running_var)
  }];
  let hasVerifier = 1;
}

def NNC_LayerNormOp : NNC_Op<"layer_norm",
    [Pure, InferTypeOpAdaptor, AttrSizedOperandSegments]> {
  let summary = "layer normalization over the trailing dimensions";
  let description = [{
    Normalizes `input` over the dimensions `axis, ..., rank - 1` (the
    normalized shape `input.shape[axis:]`; `axis` defaults to -1 and must lie
    in [-rank, rank)):
    `y = (x - mean) * inv_std * scale + bias`, with
    `inv_std = 1 / sqrt(var + epsilon)` and the biased variance. The optional
    `scale` and `bias` have the input's element type and shapes that
    broadcast (numpy rules, unidirectionally) to the normalized shape.
    `epsilon` must be positive.

    Results, following ONNX LayerNormalization: `y` has the input's type;
    `mean` and `inv_std` have the input's shape with the normalized
    dimensions set to 1, and element type f32 for f16/bf16 inputs (the
    statistics are kept in f32) and the input's otherwise. The backward pass
    reuses them.

    ```mlir
    %y, %mean, %inv_std = nnc.layer_norm %x scale(%g : tensor<768xf32>)
        bias(%b : tensor<768xf32>) epsilon = 1.000000e-06 : tensor<8x?x768xf32>
    %y2, %m2, %r2 = nnc.layer_norm %x axis = 1 : tensor<8x?x768xf32>
    ```
  }];
  let arguments = (ins NNC_FloatTensor:$input,
                       Optional<NNC_FloatTensor>:$scale,
                       Optional<NNC_FloatTensor>:$bias,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);
  let results = (outs NNC_FloatTensor:$result, NNC_FloatTensor:$mean,
                      NNC_FloatTensor:$inv_std);
  let assemblyFormat = [{
    $input (`scale` `(` $scale^ `:` type($scale) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`axis` `=` $axis^)? (`epsilon` `=` $epsilon^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The first normalized axis in [0, rank); only valid on a verified op.
    int64_t getNormalizedAxis() {
      int64_t axis = getAxisAttr().getInt();
      return axis < 0 ? axis + getInput().getType().getRank() : axis;
    }
  }];
}

def NNC_GroupNormOp : NNC_Op<"group_norm", [Pure, InferTypeOpAdaptor]> {
  let summary = "group normalization";
  let description = [{
    Splits the C channels of `input` (shape `[N, C, d1, ...]`, rank >= 2)
    into `num_groups` groups of `C / num_groups` consecutive channels and
    normalizes each (sample, group) over its channels and spatial dimensions;
    then applies the per-channel `scale` and `bias` (`[C]`, the input's
    element type). `num_groups` must be positive and divide C; `epsilon` must
    be positive.

    Results: `y` has the input's type; `mean` and `inv_std` are
    `[N, num_groups]` (as PyTorch's native_group_norm), element type f32 for
    f16/bf16 inputs and the input's otherwise.

    ```mlir
    %y, %mean, %inv_std = nnc.group_norm %x, %scale, %bias num_groups = 8
        : tensor<?x32x56x56xf32>, tensor<32xf32>, tensor<32xf32>
    ```
  }];
  let arguments = (ins NNC_FloatTensor:$input, NNC_FloatTensor:$scale,
                       NNC_FloatTensor:$bias, I64Attr:$num_groups,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);
  let results = (outs NNC_FloatTensor:$result, NNC_FloatTensor:$mean,
                      NNC_FloatTensor:$inv_std);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `num_groups` `=` $num_groups
    (`epsilon` `=` $epsilon^)? attr-dict `:` type($input) `,` type($scale)
    `,` type($bias)
  }];
  let hasVerifier = 1;
}

def NNC_InstanceNormOp : NNC_Op<"instance_norm", [Pure, InferTypeOpAdaptor]> {
  let summary = "instance normalization";
  let description = [{
    Normalizes each (sample, channel) of `input` (shape `[N, C, d1, ...]`,
    rank >= 3) over its spatial dimensions, then applies the per-channel
    `scale` and `bias` (`[C]`, the input's element type). `epsilon` must be
    positive.

    Results: `y` has the input's type; `mean` and `inv_std` have the input's
    shape with the spatial dimensions set to 1 (as `nnc.layer_norm`), element
    type f32 for f16/bf16 inputs and the input's otherwise.

    ```mlir
    %y, %mean, %inv_std = nnc.instance_norm %x, %scale, %bias
        : tensor<?x3x?x?xf32>, tensor<3xf32>, tensor<3xf32>
    ```
  }];
  let arguments = (ins NNC_FloatTensor:$input, NNC_FloatTensor:$scale,
                       NNC_FloatTensor:$bias,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);
  let results = (outs NNC_FloatTensor:$result, NNC_FloatTensor:$mean,
                      NNC_FloatTensor:$inv_std);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias (`epsilon` `=` $epsilon^)? attr-dict `:`
    type($input) `,` type($scale) `,` type($bias)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

def NNC_DropoutOp : NNC_Op<"dropout", [InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "randomly zeroes elements while training";
  let description = [{
    With `training = true`, draws a random `mask` that is false with
    probability `ratio` and returns `output = input * mask / (1 - ratio)`.
    With `training = false` (the default) or `ratio = 0`, `output` is the
    input and `mask` is all true. `ratio` must lie in [0, 1). `seed`, when
    given, makes the draw reproducible.

    `mask` (i1, the input's shape) is what the backward pass needs. A random
    dropout (training with `ratio > 0`) reads and writes the random state, so
    it is neither CSE'd, nor hoisted, nor erased while unused, nor recomputed
    with new randomness; otherwise the op is pure, and it folds to its input
    (and a constant all-true mask when the shape is static).

    ```mlir
    %y, %mask = nnc.dropout %x ratio = 1.000000e-01 seed = 42 training = true
        : tensor<?x128xf32>
    ```
  }];
  let arguments = (ins NNC_FloatTensor:$input,
                       DefaultValuedAttr<F64Attr, "0.5">:$ratio,
                       OptionalAttr<I64Attr>:$seed,
                       DefaultValuedAttr<BoolAttr, "false">:$training);
  let results = (outs NNC_FloatTensor:$output, NNC_BoolTensor:$mask);
  let assemblyFormat = [{
    $input (`ratio` `=` $ratio^)? (`seed` `=` $seed^)?
    (`training` `=` $training^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// Whether the op draws random numbers (training with a non-zero ratio).
    bool isRandom() {
      return getTraining() && getRatio().convertToDouble() != 0.0;
    }
  }];
}

def NNC_RandomUniformOp : NNC_Op<"random_uniform",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "counter-based uniform random numbers in [0, 1)";
  let description = [{
    Returns a tensor of `like`'s type (whose elements are not read) filled
    with numbers uniform in [0, 1), a pure function of `seed`, `stream` and
    the element's position: element `i` (row-major) is the first word of
    Philox4x32-10 with key `(seed mod 2^32, seed >> 32)` and counter
    `(i mod 2^32, i >> 32, stream, 0)`, its top 24 bits times 2^-24. The same
    seed and stream give the same numbers wherever the op is computed (the
    forward pass, a recomputation, another device), and different streams
    or seeds independent ones, so a training step draws fresh numbers by
    being fed a new `seed` and stays reproducible.

    ```mlir
    %u = nnc.random_uniform %seed, %x stream = 3 : tensor<i64>, tensor<?x128xf32>
    ```
  }];
  let arguments = (ins 0DTensorOf<[I64]>:$seed, NNC_FloatTensor:$like,
                       I64Attr:$stream);
  let results = (outs NNC_FloatTensor:$result);
  let assemblyFormat = [{
    $seed `,` $like `stream` `=` $stream attr-dict `:` type($seed) `,`
    type($like)
  }];
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

def NNC_CrossEntropyOp : NNC_Op<"cross_entropy", [Pure, InferTypeOpAdaptor]> {
  let summary = "softmax cross-entropy loss with class-index labels";
  let description = [{
    `logits` is `[N, C]` or `[N, C, d1, ...]`; `labels` (i32 or i64) is `[N]`
    or `[N, d1, ...]` with the same N and spatial dimensions. For each
    element with label `t`, the loss is `-w[t] * log_softmax(logits)[t]` over
    the class axis 1; with `label_smoothing = s` (in [0, 1]) the target
    distribution is `(1 - s) * onehot(t) + s / C`, as in PyTorch. The
    optional `weight` is `[C]` with the logits' element type (default all
    ones). Elements whose label equals `ignore_index` (when given) contribute
    nothing.

    `reduction`: `none` returns the per-element losses `[N, d1, ...]`; `sum`
    their sum; `mean` (the default) their weighted mean
    `sum(w[t_i] * l_i) / sum(w[t_i])` over the elements not ignored. `sum`
    and `mean` return a rank-0 tensor. The result has the logits' element
    type. Labels must lie in [0, C) unless ignored (checked at run time).

    ```mlir
    %l = nnc.cross_entropy %logits, %labels weight(%w : tensor<10xf32>)
        ignore_index = -100 label_smoothing = 1.000000e-01
        : tensor<?x10xf32>, tensor<?xi64>
    %per = nnc.cross_entropy %logits, %labels reduction = none
        : tensor<?x10xf32>, tensor<?xi64>
    ```
  }];
  let arguments = (ins NNC_FloatTensor:$logits, NNC_IndexTensor:$labels,
                       Optional<NNC_FloatTensor>:$weight,
                       DefaultValuedAttr<NNC_LossReduction,
                           "::nnc::LossReduction::mean">:$reduction,
                       OptionalAttr<I64Attr>:$ignore_index,
                       DefaultValuedAttr<F64Attr, "0.0">:$label_smoothing);
  let results = (outs NNC_FloatTensor:$result);
  let assemblyFormat = [{
    $logits `,` $labels (`weight` `(` $weight^ `:` type($weight) `)`)?
    (`reduction` `=` $reduction^)? (`ignore_index` `=` $ignore_index^)?
    (`label_smoothing` `=` $label_smoothing^)? attr-dict `:` type($logits)
    `,` type($labels)
  }];
  let hasVerifier = 1;
}

def NNC_NllLossOp : NNC_Op<"nll_loss", [Pure, InferTypeOpAdaptor]> {
  let summary = "negative log-likelihood loss with class-index labels";
  let description = [{
    `input` holds log-probabilities, `[N, C]` or `[N, C, d1, ...]`; `labels`
    (i32 or i64) is `[N]` or `[N, d1, ...]` with the same N and spatial
    dimensions. The loss of an element with label `t` is
    `-w[t] * input[n, t, ...]`, with the optional `[C]` `weight` (the input's
    element type, default all ones); elements whose label equals
    `ignore_index` (when given) contribute nothing. `reduction` is as in
    `nnc.cross_entropy`: `none` gives `[N, d1, ...]`, `sum` the sum, `mean`
    (the default) the weighted mean; the latter two are rank 0.

    ```mlir
    %l = nnc.nll_loss %logp, %labels reduction = sum
        : tensor<4x10x?xf32>, tensor<4x?xi32>
    ```
  }];
  let arguments = (ins NNC_FloatTensor:$input, NNC_IndexTensor:$labels,
                       Optional<NNC_FloatTensor>:$weight,
                       DefaultValuedAttr<NNC_LossReduction,
                           "::nnc::LossReduction::mean">:$reduction,
                       OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs NNC_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $labels (`weight` `(` $weight^ `:` type($weight) `)`)?
    (`reduction` `=` $reduction^)? (`ignore_index` `=` $ignore_index^)?
    attr-dict `:` type($input) `,` type($labels)
  }];
}

def NNC_MseLossOp : NNC_Op<"mse_loss", [Pure, InferTypeOpAdaptor]> {
  let summary = "mean squared error loss";
  let description = [{
    `(input - target)^2` elementwise; `input` and `target` have one element
    type and the same shape (no broadcasting, as PyTorch requires). With
    `reduction = none` the result has that shape, with `sum` and `mean` (the
    default) it is rank 0.

    ```mlir
    %l = nnc.mse_loss %pred, %target : tensor<?x1xf32>, tensor<?x1xf32>
    ```
  }];
  let arguments = (ins NNC_FloatTensor:$input, NNC_FloatTensor:$target,
                       DefaultValuedAttr<NNC_LossReduction,
                           "::nnc::LossReduction::mean">:$reduction);
  let results = (outs NNC_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $target (`reduction` `=` $reduction^)? attr-dict `:`
    type($input) `,` type($target)
  }];
}

#endif // NNC_NN_OPS_TD
