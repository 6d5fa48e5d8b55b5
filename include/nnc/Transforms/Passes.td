//===- Passes.td - nnc transformation passes -----------------*- tablegen -*-===//
//
// Declarations of the nnc passes, grouped by pipeline stage.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TRANSFORMS_PASSES_TD
#define NNC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Shape analysis
//===----------------------------------------------------------------------===//

def ShapeInferencePass : Pass<"nnc-shape-inference", "mlir::ModuleOp"> {
  let summary = "Refine dynamic dimensions from known input shapes";
  let description = [{
    Propagates shapes through every function of the module in program order:
    each nnc op's result type is re-inferred from its (possibly refined)
    operand types, and ops whose result type is spelled out (`nnc.reshape`,
    `nnc.expand`, `nnc.cast`) have their `?` dimensions filled in where the
    operands determine them. Function result types follow the returned values.

    `input-shapes` specializes arguments first, e.g. for the batch dimension:

    ```mlir
    // nnc-opt --nnc-shape-inference="input-shapes=0:32x784"
    func.func @f(%x: tensor<?x784xf32>) -> tensor<?x784xf32> {
      %0 = nnc.relu %x : tensor<?x784xf32>
      return %0 : tensor<?x784xf32>
    }
    // becomes
    func.func @f(%x: tensor<32x784xf32>) -> tensor<32x784xf32> {
      %0 = nnc.relu %x : tensor<32x784xf32>
      return %0 : tensor<32x784xf32>
    }
    ```

    Functions that are called from elsewhere keep their signatures: their
    arguments are not specialized and refined results are cast back to the
    declared type with `tensor.cast`. A value used by an op that cannot take a
    refined type is cast back the same way.
  }];
  let options = [
    ListOption<"inputShapes", "input-shapes", "std::string",
               "Argument shapes as 'index:dims', dims separated by 'x' "
               "('?' keeps a dimension dynamic), e.g. '0:32x784'">,
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "Only specialize the arguments of this function (default: every "
           "function that is not called)">
  ];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

//===----------------------------------------------------------------------===//
// Fusion and memory planning
//===----------------------------------------------------------------------===//

def FuseElementwisePass : Pass<"nnc-fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Fuse elementwise producers into their consumers";
  let description = [{
    linalg's elementwise fusion on tensors: an all-parallel `linalg.generic`
    (or elementwise named op) whose result has one use is folded into the op
    that uses it, its indexing composed into the consumer's maps. Pointwise
    chains become one op, pointwise producers fold into reductions (softmax,
    layer norm, losses and their gradients), and broadcasts and transposes
    become indexing instead of copies. Reshapes are propagated past
    elementwise ops. Unlike `linalg-fuse-elementwise-ops`, nothing is fused
    into or out of a contraction or convolution (`linalg.matmul`,
    `linalg.batch_matmul`, ...): fused, it would become a generic that only
    runs as loops, where unfused it is a BLAS call that reads a transposed
    operand in place (`--nnc-gemm-to-blas`).

    No fusion makes a body of more than `max-body-ops` operations (the
    yield not counted): the chain of a 10k-node graph becomes kernels of a
    few hundred operations each rather than one kernel of 10k, whose LLVM
    code generation (vectorizer, register allocation) grows faster than
    linearly with the size of one function. A kernel of a few hundred
    scalar operations already amortizes its loads and stores; 0 means no
    cap.

    ```mlir
    %t = linalg.transpose ins(%w : tensor<64x32xf32>) outs(%e : tensor<32x64xf32>) permutation = [1, 0]
    %y = linalg.matmul ins(%x, %t : ...) outs(%acc : ...)   // stays a matmul
    %a = linalg.generic ... { arith.addf }                  // %a, %b: one generic
    %b = linalg.generic ins(%a ...) { arith.maximumf }
    ```
  }];
  let options = [
    Option<"maxBodyOps", "max-body-ops", "unsigned", /*default=*/"256",
           "The most operations (yield not counted) a fused body may hold; "
           "0: no cap">
  ];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def RematerializePass : Pass<"nnc-rematerialize", "mlir::func::FuncOp"> {
  let summary = "Recompute elementwise values next to their late uses";
  let description = [{
    Runs on linalg on tensors, before elementwise fusion. A value computed
    by an all-parallel `linalg.generic` with one result and only arith/math
    in its body (a GELU's intermediate, a scaled or shifted activation) and
    used more than `distance` ops after its definition (the backward pass
    using a forward value) is recomputed just before the first such use, and
    those uses take the recomputed value, when its inputs are available
    there anyway: block arguments, constants, values used no more than
    `distance` ops before that point (or after it), or values recomputable
    the same way (up to `max-depth` producers deep). Recomputing extends an
    input's lifetime by at most `distance` ops, while the stored value's
    lifetime ends with its early uses, and fusion folds the recomputation
    into the late consumer, so it is never stored. This is activation
    checkpointing for the ops where it costs no extra memory traffic.

    ```mlir
    %t = linalg.generic ... ins(%x) { math.tanh }      // forward
    %y = linalg.generic ... ins(%t, %x) { arith.mulf } // forward use
    ... many ops ...
    %g = linalg.generic ... ins(%t, %dy) { ... }        // backward use
    // becomes
    ... many ops ...
    %t2 = linalg.generic ... ins(%x) { math.tanh }     // %x is used here anyway
    %g = linalg.generic ... ins(%t2, %dy) { ... }
    ```
  }];
  let options = [
    Option<"distance", "distance", "int64_t", /*default=*/"64",
           "Ops between a definition and a use that make the use late">,
    Option<"maxDepth", "max-depth", "int64_t", /*default=*/"8",
           "How many producers deep an input may be recomputed">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def RematerializeBudgetPass
    : Pass<"nnc-remat-budget", "mlir::ModuleOp"> {
  let summary = "Recompute forward values in backward to fit a memory budget";
  let description = [{
    Runs on a training function in the nnc dialect (`<f>_train_step` or
    `<f>_train_grad`: the loss first among the results, its forward pass,
    then the backward). The forward ops are those the loss depends on; a
    forward value a backward op reads is saved for backward. This pass
    chooses which saved values to recompute in backward instead, so that the
    function's temporaries (what the memory plan puts in its arena: every
    value but the arguments, constants and results) fit `budget` bytes at the
    least extra compute.

    The model: each op at its position in program order, each value alive
    from its definition to its last use (a reshape's uses and the uses of an
    elementwise value that fusion folds into its users count as uses of what
    they read: users that are elementwise, reductions, or max poolings and
    their gradients without padding; batch normalization's result counts as
    elementwise); a recomputed op is cloned once, just before
    the first backward op (or other recomputation) that reads it, and every
    backward use reads the clone. The arena is predicted with the memory
    plan's own placement (nnc/Analysis/ArenaPlacement.h). The search is a
    greedy descent: at the predicted peak, among the forward ops whose saved
    values are alive there, it recomputes the one that lowers the peak most
    per FLOP (nnc/Analysis/CostModel.h), looking one producer ahead when no
    single op lowers it, until the prediction fits. When at most
    `exact-candidates` ops are candidates (the saved ones and the producers
    their recomputation would keep alive), a branch and bound over subsets
    of them, seeded with the greedy choice, then finds the one of least extra
    FLOPs that fits, within `exact-evaluations` predictions (a bound on work,
    not on a clock: the same choice on any machine). Elementwise values
    recompute nearly free (fusion folds them into their consumer); on a
    chain of layers the choice falls into segments recomputed from kept
    checkpoints (Chen et al.'s sqrt(n) regime).

    Random numbers are drawn by `nnc.random_uniform`, a pure function of its
    seed and stream: a recomputation draws the same numbers. Ops with side
    effects (a random `nnc.dropout`) are never recomputed.

    When the budget cannot be met the pass fails naming the smallest
    prediction it reached and the values alive at that peak, largest first;
    with `allow-over-budget` it applies that smallest configuration instead
    (the compile driver then reports the planned figure). The function gets
    `nnc.remat`, a dictionary of the figures: `budget`, `before` and `after`
    (predicted arena bytes), `flops` (the function's), `extra_flops`,
    `recomputed` and `kept` (strings "op 'name' type bytes"), `fits`,
    `method` (`none`, `greedy`, `exact`, `exact-bounded` when the exact
    search ran out of evaluations, or `given` with the `choice` option),
    `choice` (the positions of the recomputed ops among the function's ops,
    which `choice` takes back) and `peak_values` (the largest values alive
    at the predicted peak).

    ```mlir
    // nnc-opt --nnc-remat-budget="function=main_train_step budget=4096"
    %h = nnc.tanh %a : tensor<32x32xf32>              // forward
    ... backward ...
    %g = nnc.gemm %dy, %h trans_a = true : ...        // reads %h late
    // becomes
    %h2 = nnc.tanh %a {nnc.recompute = 0 : i64} : tensor<32x32xf32>
    %g = nnc.gemm %dy, %h2 trans_a = true : ...
    ```
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"main\"",
           "The training function">,
    Option<"budget", "budget", "int64_t", /*default=*/"-1",
           "Bytes the temporaries may take (negative: report only)">,
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "The memory plan's alignment of each temporary">,
    Option<"exactCandidates", "exact-candidates", "int", /*default=*/"20",
           "Search exactly when at most this many ops are candidates for "
           "recomputation (greedy beyond)">,
    Option<"exactEvaluations", "exact-evaluations", "int64_t",
           /*default=*/"20000",
           "Predictions the exact search may make before it settles for the "
           "best choice found">,
    ListOption<"choice", "choice", "int64_t",
               "Recompute these ops (positions among the function's ops, "
               "`choice` in nnc.remat) instead of searching: a choice made "
               "before, applied again">,
    Option<"allowOverBudget", "allow-over-budget", "bool",
           /*default=*/"false",
           "Apply the smallest configuration found when the budget cannot "
           "be met, instead of failing">
  ];
}

def DistinctResultsPass : Pass<"nnc-distinct-results", "mlir::func::FuncOp"> {
  let summary = "Give every result of a function a value of its own";
  let description = [{
    A function may return one value in several places (a graph output that
    is also another output, an ONNX `Identity` of an output, an output
    listed twice). Every result becomes a buffer of its own once results are
    out-parameters, so each repetition after the first is replaced by a
    copy (`linalg.copy` into a `tensor.empty` of the same, possibly dynamic,
    shape). Run on tensors, before bufferization.

    ```mlir
    return %y, %y : tensor<2x3xf32>, tensor<2x3xf32>
    // becomes
    %e = tensor.empty() : tensor<2x3xf32>
    %c = linalg.copy ins(%y : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
    return %y, %c : tensor<2x3xf32>, tensor<2x3xf32>
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def LowerChecksPass : Pass<"nnc-lower-checks", "mlir::func::FuncOp"> {
  let summary = "Lower run-time index checks to records in a checks buffer";
  let description = [{
    Every `nnc.check_index` of the function (inside kernels' bodies and
    loops, on buffers) becomes a compare, a record of a value out of range
    in the check's slot of a checks buffer, and a select of an index in
    range. The buffer is a new last argument, `memref<N x 4 x i64>` marked
    `nnc.checks`, one row per check in walk order: a flag, the value and the
    bounds, written with atomic exchanges on the rare path (any one
    violation of a parallel loop is kept). The function's `nnc.checks`
    attribute lists what each check is, for the runtime's errors; the
    runtime zeroes the buffer before a run and reads it after each kernel
    taking it. A function without checks is left as it is. Run after memory
    planning, before the kernels are outlined.

    ```mlir
    %i, %ok = nnc.check_index %x in [%lo, %n) "gather 'g' index"
    // becomes, with %checks: memref<1x4xi64> {nnc.checks}
    %ok = arith.andi (%x >= %lo), (%x < %n)
    scf.if (not %ok) { memref.atomic_rmw assign ... %checks[0, 0..3] }
    %i = arith.select %ok, %x, %c0 : index
    ```

    With `abort=1`, for code run without the nnc runtime (mlir-runner
    tests), a check is a `cf.assert` with its description instead, and the
    function keeps its signature.
  }];
  let options = [Option<
      "abort", "abort", "bool", /*default=*/"false",
      "Abort with the check's description (cf.assert) instead of "
      "recording into a checks buffer">];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::cf::ControlFlowDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def UntieFillsPass : Pass<"nnc-untie-fills", "mlir::func::FuncOp"> {
  let summary = "Give every user of a linalg.fill its own fill";
  let description = [{
    CSE merges identical `linalg.fill`s of `tensor.empty` (every zero
    accumulator of a function becomes one value). Bufferization then fills
    one buffer and copies it into each accumulator before the op that
    accumulates into it: a full extra pass over memory per user. This pass
    clones the fill (and its `tensor.empty`) for every use but the first, so
    that each accumulator is filled where it is written. Likewise a
    `tensor.empty` that several ops write into is cloned for each: one
    buffer per value after bufferization, placed by `--nnc-plan-memory` by
    its own lifetime, instead of one buffer shared by all of them and live
    from the first to the last.

    ```mlir
    %e = tensor.empty() : tensor<4x8xf32>
    %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %a = linalg.reduce ... outs(%z : tensor<4x8xf32>)
    %b = linalg.reduce ... outs(%z : tensor<4x8xf32>)
    // the second reduce gets a fill of a tensor.empty of its own
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def FuseSiblingsPass : Pass<"nnc-fuse-siblings", "mlir::func::FuncOp"> {
  let summary = "Fuse elementwise ops over the same domain into one loop nest";
  let description = [{
    Runs on bufferized functions, before memory planning (buffers are
    still told apart by their allocation). An all-parallel `linalg.generic`
    with static loop ranges and projected-permutation maps moves down to the
    next such generic over the same loop ranges within `window` ops that
    touch memory, when no op in between writes a buffer it touches or reads
    one it writes, and the two become one generic with the inputs and
    outputs of both. The second may read an output of the first (through
    the same value and permutation map: it takes the value the first
    yields, from a register) and may write a buffer the first reads only at
    the element the first reads in the same iteration. Siblings that read
    the same tensors (Adam's moment and parameter updates) then read them
    once, and every kernel they were is one. Two bodies of more than
    `max-body-ops` operations together are not fused (the cap that
    `--nnc-fuse-elementwise` applies, so that this pass does not merge the
    kernels that one split). A body that loads from a buffer
    by address (a gather) counts as reading all of it. Afterwards, an output
    written into a temporary that no other op uses (the second now takes
    the value from a register) is dropped with its allocation.

    ```mlir
    linalg.generic {...} ins(%g, %m : ...) outs(%m_new : ...)     // m update
    linalg.generic {...} ins(%g, %v : ...) outs(%v_new : ...)     // v update
    // become
    linalg.generic {...} ins(%g, %m, %g, %v : ...) outs(%m_new, %v_new : ...)
    ```
  }];
  let options = [
    Option<"window", "window", "int64_t", /*default=*/"96",
           "How many ops that touch memory to look past for a sibling">,
    Option<"maxBodyOps", "max-body-ops", "unsigned", /*default=*/"256",
           "The most operations (yields not counted) the two bodies may "
           "hold together, as in --nnc-fuse-elementwise; 0: no cap">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def PlanMemoryPass : Pass<"nnc-plan-memory", "mlir::func::FuncOp"> {
  let summary = "Place every temporary at a static offset of one arena";
  let description = [{
    Runs on bufferized functions. Every `memref.alloc` in the function body
    with a static shape and identity layout that does not escape (is not
    returned, and no op other than side-effect-free ones without regions
    derives a memref or address from it) is live from its first to its last
    use, uses of its views included, counted in top-level ops of the body.
    A static allocation in the body of an `scf.for` that nothing passes out
    of the iteration (a per-image tile of a convolution) is first hoisted in
    front of the loop, reused by every iteration and marked
    `nnc.loop_local`. An all-parallel linalg op whose only result buffer
    starts its life at the op may write over an input buffer of the same
    type and indexing map
    that the op reads for the last time (`in-place`). The buffers are then
    placed largest first, each at the lowest `alignment`-aligned offset of
    the smallest gap left by the buffers already placed whose lifetimes
    overlap its own (greedy by size, best fit). The arena becomes a new last
    argument `memref<Nxi8>` marked `nnc.arena` (the function gets
    `nnc.arena_size = N`); each allocation becomes a `memref.view` of it at
    its offset, and its deallocations go away. Functions without such
    allocations are left as they are.

    ```mlir
    func.func @f(%x: memref<256xf32>, %out: memref<256xf32>) {
      %a = memref.alloc() : memref<256xf32>
      linalg.exp ins(%x : memref<256xf32>) outs(%a : memref<256xf32>)
      %b = memref.alloc() : memref<256xf32>
      linalg.negf ins(%a : memref<256xf32>) outs(%b : memref<256xf32>)
      linalg.exp ins(%b : memref<256xf32>) outs(%out : memref<256xf32>)
      return
    }
    // becomes (%b takes %a's place: %a dies where %b is written)
    func.func @f(%x: memref<256xf32>, %out: memref<256xf32>,
                 %arena: memref<1024xi8> {nnc.arena})
        attributes {nnc.arena_size = 1024 : i64} {
      %a = memref.view %arena[%c0][] : memref<1024xi8> to memref<256xf32>
      ...
      %b = memref.view %arena[%c0][] : memref<1024xi8> to memref<256xf32>
    ```
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "Alignment of every offset in bytes (a power of two)">,
    Option<"inPlace", "in-place", "bool", /*default=*/"true",
           "Let elementwise ops write over an input that dies at them">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def OutlineKernelsPass : Pass<"nnc-outline-kernels", "mlir::ModuleOp"> {
  let summary = "Split a bufferized function into kernel functions";
  let description = [{
    Runs on bufferized functions whose temporaries `--nnc-plan-memory` has
    placed. Each op of the body that touches memory (a linalg op, a copy, a
    library call or the loop around them) becomes a kernel: a public
    function `<name>_k<i>` that takes the function arguments it reads or
    writes (the arena included) and recomputes the views, constants and
    addresses it needs. Two rules put several ops into one kernel: an
    initializer (`linalg.fill` or `memref.copy`) goes with the op that next
    writes the buffer it initialized, and ops that pass values other than
    buffers to each other stay together. The body becomes one `func.call`
    per kernel, in order. Kernels carry `nnc.kernel_name` (what they compute
    and the source ops, from the names in their locations),
    `nnc.kernel_detail` (every source op), `nnc.bytes_read` and
    `nnc.bytes_written` (static estimates: each operand's bytes, library
    GEMMs from their sizes) and `nnc.library` when they are library calls.
    Public functions with a body are outlined; others are left alone.

    With `horizontal`, consecutive kernels that are each one all-parallel
    linalg op and do not depend on each other (neither reads nor writes a
    buffer the other writes) become one kernel of up to `max-horizontal`
    loop nests, like a multi-tensor apply: an optimizer's updates of many
    small parameters run as one kernel.
  }];
  let options = [
    Option<"horizontal", "horizontal", "bool", /*default=*/"true",
           "Group independent elementwise kernels into one">,
    Option<"maxHorizontal", "max-horizontal", "int64_t", /*default=*/"64",
           "Most loop nests in one horizontally fused kernel">
  ];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

//===----------------------------------------------------------------------===//
// Mixed precision
//===----------------------------------------------------------------------===//

def MixedPrecisionPass : Pass<"nnc-mixed-precision", "mlir::ModuleOp"> {
  let summary = "Compute in f16 or bf16 where it is safe, as torch.autocast";
  let description = [{
    Rewrites the f32 computation of `function` (default: every function of
    the module) to the low type `dtype` (`bf16` or `f16`) by an op policy
    kept as a table (lib/Transforms/MixedPrecisionPolicy.def): matrix
    products and convolutions (and their gradients) run in the low type,
    with f32 accumulation in their lowering; softmax, log-softmax,
    normalization, losses, exponentials, logarithms, powers and sums run in
    f32; every other op follows its inputs (the low type when all its
    non-constant floating-point operands are in it, else as written, the
    low operands cast back up). Casts are inserted where the types meet; a
    cast back to the type a value was cast from reuses the original, and
    casts of constants fold. The function's signature does not change: its
    arguments (the f32 master weights of a training step) are cast down
    where a low op uses them, once per use so their gradients come back
    and add up in f32, and its results are cast back to their declared
    types.

    Run before `--nnc-autodiff`, the gradients follow the forward types:
    the backward of a low op is low, the values the backward reads are
    stored in the low type. `low-ops` and `f32-ops` override the table per
    op kind (`low-ops=nnc.add f32-ops=nnc.matmul`). The function gains an
    `nnc.mixed_precision` attribute with what was done: the type, the ops
    per precision, the casts inserted and the bytes of results narrowed.

    ```mlir
    // nnc-opt --nnc-mixed-precision="dtype=bf16"
    func.func @f(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
      %0 = nnc.matmul %x, %w : tensor<8x16xf32>, tensor<16x4xf32>
      %1 = nnc.relu %0 : tensor<8x4xf32>
      return %1 : tensor<8x4xf32>
    }
    // becomes
    func.func @f(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
      %0 = nnc.cast %x : tensor<8x16xf32> to tensor<8x16xbf16>
      %1 = nnc.cast %w : tensor<16x4xf32> to tensor<16x4xbf16>
      %2 = nnc.matmul %0, %1 : tensor<8x16xbf16>, tensor<16x4xbf16>
      %3 = nnc.relu %2 : tensor<8x4xbf16>
      %4 = nnc.cast %3 : tensor<8x4xbf16> to tensor<8x4xf32>
      return %4 : tensor<8x4xf32>
    }
    ```
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "The function to convert (default: every function)">,
    Option<"dtype", "dtype", "std::string", /*default=*/"\"bf16\"",
           "The low type: bf16 or f16">,
    ListOption<"lowOps", "low-ops", "std::string",
               "Op kinds to run in the low type, overriding the policy "
               "(e.g. nnc.add)">,
    ListOption<"f32Ops", "f32-ops", "std::string",
               "Op kinds to run in f32, overriding the policy">
  ];
}

def SyncBatchNormPass : Pass<"nnc-sync-batch-norm", "mlir::ModuleOp"> {
  let summary = "Batch statistics over every rank of data-parallel training";
  let description = [{
    Rewrites each `nnc.batch_norm_train` of `function` (default: every
    function) into its computation with the batch statistics summed over
    the ranks by `nnc.all_reduce`, as PyTorch's `SyncBatchNorm`: each
    rank's per-channel sums and element counts are all-reduced together
    (one `[2, C]` all-reduce), giving the mean of the global batch; the
    sums of squared deviations from it are all-reduced next (the variance
    from centered values, as the local op computes it); the running
    statistics are updated with them (the variance unbiased by the global
    count). Every rank then normalizes with the same statistics, so N
    ranks of batch B compute what one process computes with batch N * B.
    Statistics are computed in f32 (f64 for f64 inputs); the output keeps
    the input's type.

    Run before `--nnc-autodiff`: the gradient of an all-reduce is the
    all-reduce of its result's gradient, so the backward sums the
    statistics' gradients over the ranks too (two more all-reduces). In a
    single process every all-reduce returns its input and the result is
    the local batch normalization's.

    ```mlir
    %y, %bm, %bv, %rm, %rv = nnc.batch_norm_train %x, %s, %b, %m, %v
        : tensor<8x4x5x5xf32>, ...
    // becomes (in outline)
    %sum = nnc.reduce sum %x axes = [0, 2, 3] keepdims ...
    %packed = nnc.concat %sum, %count axis = 0 ...
    %global = nnc.all_reduce %packed : tensor<2x4x1x1xf32>
    %mean = %global[0] / %global[1]
    %sq = nnc.all_reduce (nnc.reduce sum (%x - %mean)^2 ...)
    ...
    ```
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "The function to rewrite (default: every function)">
  ];
}

def NonFiniteProbePass : Pass<"nnc-nonfinite-probe", "mlir::ModuleOp"> {
  let summary = "Add a copy of a function that tells which values are not "
                "finite";
  let description = [{
    Adds `<function>_probe`: the body of `function` with the same arguments,
    returning instead of its results one `tensor<Kxf32>` with an entry per
    probed value, in program order: the floating-point arguments first, then
    the floating-point results of the ops, but for those that cannot be the
    first non-finite value (constants, ops that only move or pick elements,
    and ops whose results are finite whenever their operands are: relu,
    where, clip, max pooling, softmax, casts to a type of wider range, ...)
    and for values that hold infinities by design (derived by where, add,
    sub, max, min, neg, cast or moves from a constant holding inf: an
    attention mask of -inf).
    Entry k is NaN when value k holds an inf or a NaN, else 0 (the sum of
    the value times zero). The probe gains `nnc.probe_ops`, one description
    per entry: the op name (`input` / `parameter` for arguments), the name
    its location gives (the ONNX node or traced name), `forward` or
    `backward` for a gradient function (ops the loss does not depend on are
    backward), and the value's type. The first NaN entry names the first
    value that went non-finite: a trainer runs the probe on the batch of a
    step it skipped for non-finite gradients, so that probing costs nothing
    on the steps that were not.

    ```mlir
    // nnc-opt --nnc-nonfinite-probe="function=f"
    func.func @f(%x: tensor<4xf32> loc("x")) -> tensor<4xf32> {
      %0 = nnc.exp %x : tensor<4xf32> loc("e")
      return %0 : tensor<4xf32>
    }
    // adds
    func.func @f_probe(%x: tensor<4xf32>) -> tensor<2xf32>
        attributes {nnc.probe_ops = ["input 'x' tensor<4xf32>",
                                     "nnc.exp 'e' tensor<4xf32>"]}
    ```
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"main\"",
           "The function to probe">
  ];
}

//===----------------------------------------------------------------------===//
// Training
//===----------------------------------------------------------------------===//

def AutodiffPass : Pass<"nnc-autodiff", "mlir::ModuleOp"> {
  let summary = "Reverse-mode differentiation of a loss function";
  let description = [{
    Takes the function named by `function` (default `main`), whose first
    result is a scalar loss (`tensor<f32>` or `tensor<f64>`), and adds a
    function `<name>_grad` with the same arguments that returns the loss and
    then the gradient of the loss with respect to every argument marked
    `nnc.param = #nnc.param<trainable>`, in argument order, and then the
    forward function's other results (no gradient flows into them). The forward ops are kept once and their values reused by the
    backward ops, which are nnc ops themselves, so the result lowers like any
    other nnc function. Gradients of broadcast operands are summed over the
    broadcast dimensions; values used several times accumulate their
    gradients. Frozen parameters, buffers, constants and integer values get
    no gradient. An op on the path from a parameter to the loss without a
    gradient rule is an error naming it. See docs/Autodiff.md for the rules.

    ```mlir
    func.func @main(%x: tensor<4x3xf32>,
                    %w: tensor<3xf32> {nnc.param = #nnc.param<trainable>})
        -> tensor<f32> {
      %0 = nnc.mul %x, %w : tensor<4x3xf32>, tensor<3xf32>
      %1 = nnc.reduce sum %0 keepdims = false : tensor<4x3xf32>
      return %1 : tensor<f32>
    }
    // gains
    func.func @main_grad(%x: tensor<4x3xf32>,
                         %w: tensor<3xf32> {nnc.param = #nnc.param<trainable>})
        -> (tensor<f32>, tensor<3xf32>)
        attributes {nnc.result_names = ["loss", "grad1"]} {
      %0 = nnc.mul %x, %w : tensor<4x3xf32>, tensor<3xf32>
      %1 = nnc.reduce sum %0 keepdims = false : tensor<4x3xf32>
      %one = nnc.constant dense<1.0> : tensor<f32>
      %2 = nnc.reshape %one : tensor<f32> -> tensor<1x1xf32>
      %3 = nnc.expand %2 : tensor<1x1xf32> -> tensor<4x3xf32>
      %4 = nnc.mul %3, %x : tensor<4x3xf32>, tensor<4x3xf32>
      %5 = nnc.reduce sum %4 axes = [0] : tensor<4x3xf32>
      %6 = nnc.reshape %5 : tensor<1x3xf32> -> tensor<3xf32>
      return %1, %6 : tensor<f32>, tensor<3xf32>
    }
    ```
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"main\"",
           "The function to differentiate; its first result is the loss">
  ];
}

def OptimizerPass : Pass<"nnc-optimizer", "mlir::ModuleOp"> {
  let summary = "Build a training step: gradients plus an optimizer update";
  let description = [{
    Takes `<name>_grad`, built by `--nnc-autodiff` from the function named by
    `function` (default `main`), and adds a self-contained `<name>_step`: the
    gradient computation is inlined and followed by the update of every
    trainable parameter, as PyTorch defines it for `kind`:

    - `sgd`: `g += weight-decay * p`; with a `momentum`,
      `buf = momentum * buf + g` and `g = buf` (or `g + momentum * buf` with
      `nesterov`); `p -= lr * g`. Dampening is 0.
    - `adam`: `g += weight-decay * p`; `m = beta1 m + (1 - beta1) g`,
      `v = beta2 v + (1 - beta2) g^2`, `t += 1`,
      `p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + epsilon)`.
    - `adamw`: `p *= 1 - lr * weight-decay`, then the Adam update without L2.

    Arguments: those of `<name>_grad`, then the optimizer state, marked
    `nnc.param = #nnc.param<buffer>` (one velocity per parameter for SGD with
    momentum; all `m`, then all `v`, then the step count `t` as a scalar of
    the loss type for Adam/AdamW), then the learning rate `lr`, a scalar of
    the loss type, so a schedule changes it without recompiling. Results:
    the loss, the updated parameters in argument order, the updated state in
    the order of the state arguments (`t + 1` last), named by
    `nnc.result_names`. Start the state at zeros.

    With `updates-in-backward`, `_step` updates each parameter right after
    the last op it waits for (its gradient, and every other reader of the
    parameter and its state, which the update replaces in place), as
    PyTorch's optimizer steps in post-accumulate-grad hooks do: a gradient
    lives until its own update, not to the end of the backward pass. The
    shared scalars (1 / loss scale, Adam's corrections) open the body. With
    `loss-scale`, each update checks its gradient and all those updated
    before it (in that order) and keeps the old parameter and state from
    the first non-finite one on; the flag is set as before, and `t` moves
    on only when every gradient was finite. The default updates everything
    after the backward pass, all or nothing.

    With `low-precision-copies` (mixed precision), every trainable parameter
    that `<name>_grad` casts to f16 or bf16 gets a low-precision copy:
    `_grad` takes it as a last argument `low<i>` (marked `buffer`) and reads
    it wherever it cast the parameter, and so does `_step`, whose arguments
    are `_grad`'s; `_step` and `_apply` return the cast of each updated
    parameter as `low<i>`, after the flag: the copy is made once per step,
    by the update's own kernel. Start a copy at the cast of the parameter's
    initial value.

    ```mlir
    // nnc-opt --nnc-autodiff --nnc-optimizer="kind=sgd momentum=0.9"
    func.func @main(%x: tensor<4x3xf32>,
                    %w: tensor<3xf32> {nnc.param = #nnc.param<trainable>})
        -> tensor<f32> { ... }
    // gains, besides @main_grad,
    func.func @main_step(%x: tensor<4x3xf32>,
                         %w: tensor<3xf32> {nnc.param = #nnc.param<trainable>},
                         %buf: tensor<3xf32> {nnc.param = #nnc.param<buffer>},
                         %lr: tensor<f32>)
        -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>)
        attributes {nnc.result_names = ["loss", "param1", "velocity1"]} {
      // ... the body of @main_grad: %loss, %g ...
      %c = nnc.constant dense<0.9> : tensor<f32>
      %0 = nnc.mul %buf, %c : tensor<3xf32>, tensor<f32>
      %1 = nnc.add %0, %g : tensor<3xf32>, tensor<3xf32>
      %2 = nnc.mul %lr, %1 : tensor<f32>, tensor<3xf32>
      %3 = nnc.sub %w, %2 : tensor<3xf32>, tensor<3xf32>
      return %loss, %3, %1 : tensor<f32>, tensor<3xf32>, tensor<3xf32>
    }
    ```
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"main\"",
           "The differentiated function; `<function>_grad` must exist">,
    Option<"kind", "kind", "std::string", /*default=*/"\"sgd\"",
           "The optimizer: sgd, adam or adamw">,
    Option<"momentum", "momentum", "double", /*default=*/"0.0",
           "SGD momentum (0: no velocity state)">,
    Option<"nesterov", "nesterov", "bool", /*default=*/"false",
           "SGD with Nesterov momentum">,
    Option<"weightDecay", "weight-decay", "double", /*default=*/"0.0",
           "L2 penalty (SGD, Adam) or decoupled weight decay (AdamW)">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9",
           "Adam/AdamW decay of the first moment">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999",
           "Adam/AdamW decay of the second moment">,
    Option<"epsilon", "epsilon", "double", /*default=*/"1e-8",
           "Adam/AdamW term added to the denominator">,
    Option<"lossScale", "loss-scale", "bool", /*default=*/"false",
           "The last argument of `_grad` is the loss scale its loss was "
           "multiplied by: unscale the gradients, add the found-non-finite "
           "flag and skip the update when it is set">,
    Option<"apply", "apply", "bool", /*default=*/"false",
           "Also build `<function>_apply`, the update alone on given "
           "gradients (for gradient accumulation)">,
    Option<"lowPrecisionCopies", "low-precision-copies", "bool",
           /*default=*/"false",
           "Keep the f16/bf16 copies of the parameters `_grad` casts as "
           "arguments (of `_grad` and `_step`) and results (of `_step` and "
           "`_apply`), made by the update">,
    Option<"updatesInBackward", "updates-in-backward", "bool",
           /*default=*/"false",
           "In `_step`, update each parameter as soon as its gradient is "
           "complete (and nothing else reads the parameter or its state), "
           "not after the whole backward pass: its gradient is freed there. "
           "With loss-scale, the update checks its own gradient and those "
           "updated before it, so a non-finite gradient stops the updates "
           "from there on, while those before it stand">
  ];
}

def PrepareTrainingPass : Pass<"nnc-prepare-training", "mlir::ModuleOp"> {
  let summary = "Attach a loss to a model and switch it to training mode";
  let description = [{
    From the model function named by `function` (default `main`), builds
    `<function>_train`, the function `--nnc-autodiff` differentiates:

    - the loss `loss` (`cross_entropy`, `nll` or `mse`, reduction `mean` or
      `sum`) is attached to the model result named by `output` (its
      `nnc.result_names` entry; empty: the first result), with a new
      argument `labels`: integer class indices (`i64`, the output's shape
      without dimension 1) for `cross_entropy` and `nll`, targets of the
      output's type for `mse`;
    - `nnc.batch_norm` becomes `nnc.batch_norm_train` (batch statistics, the
      running statistics updated with the op's `momentum` and the unbiased
      batch variance, as PyTorch's train mode does); where the running
      statistics are function arguments, their updated values are results
      named like those arguments, so a driver feeds them back;
    - `nnc.dropout` with a non-zero ratio keeps an element where
      `nnc.random_uniform` (Philox, one stream per dropout op) keyed by a
      new `seed` argument (`tensor<i64>`, after `labels`) draws at least the
      ratio, and scales it by `1 / (1 - ratio)`;
    - with `loss-scale`, a last argument `loss_scale` (a scalar of the loss
      type) multiplies the loss that is differentiated, so gradients come
      out scaled (`--nnc-optimizer="loss-scale=true"` unscales them); the
      unscaled loss is the second result, named `loss`.

    Results: the (scaled) loss, then with `loss-scale` the unscaled `loss`,
    then the updated running statistics. Other results of the model are
    dropped.
  }];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"main\"",
           "The model function">,
    Option<"output", "output", "std::string", /*default=*/"\"\"",
           "The result the loss attaches to, by name (empty: the first)">,
    Option<"loss", "loss", "std::string", /*default=*/"\"cross_entropy\"",
           "The loss: cross_entropy, nll or mse">,
    Option<"reduction", "reduction", "std::string", /*default=*/"\"mean\"",
           "How per-element losses combine: mean or sum">,
    Option<"labelSmoothing", "label-smoothing", "double", /*default=*/"0.0",
           "cross_entropy label smoothing, in [0, 1]">,
    Option<"ignoreIndex", "ignore-index", "int64_t",
           /*default=*/"std::numeric_limits<int64_t>::min()",
           "Labels equal to this are ignored by cross_entropy and nll "
           "(default: none)">,
    Option<"lossScale", "loss-scale", "bool", /*default=*/"false",
           "Add the `loss_scale` argument that multiplies the loss">
  ];
}

#endif // NNC_TRANSFORMS_PASSES_TD
