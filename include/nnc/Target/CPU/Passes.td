//===- Passes.td - passes of the CPU target ------------------*- tablegen -*-===//
//
// The CPU target's own passes: on bufferized functions (library GEMMs,
// strided copies) and on the way to OpenMP loops and the LLVM dialect.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TARGET_CPU_PASSES_TD
#define NNC_TARGET_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Kernel choices on nnc ops
//===----------------------------------------------------------------------===//

def ChooseKernelsPass : Pass<"nnc-cpu-choose-kernels", "mlir::ModuleOp"> {
  let summary = "The CPU's cost model: which convolutions oneDNN runs";
  let description = [{
    Sets the kernel choice `nnc.impl = "library"` on each `nnc.conv`,
    `nnc.conv_transpose` and `nnc.conv_weight_grad` that has none, when it
    is one library convolution (static f32 shapes, 1 to 3 spatial
    dimensions) and oneDNN, through the runtime's glue libnnc_dnnl.so, can
    build its primitive on this machine. oneDNN's convolutions (the ones
    PyTorch runs on the CPU) beat every generated or im2col + BLAS lowering
    nnc has for these, depthwise and grouped ones included; ops it cannot
    take keep the conversion's own rules. A choice already present (forced
    by a test or made by the tuner) is left alone. Without the glue (no
    libdnnl on the machine) nothing changes.

    ```mlir
    %y = nnc.conv %x, %w pads = [1, 1, 1, 1]
        : tensor<8x64x56x56xf32>, tensor<64x64x3x3xf32>
    // becomes
    %y = nnc.conv %x, %w pads = [1, 1, 1, 1] {nnc.impl = "library"}
        : tensor<8x64x56x56xf32>, tensor<64x64x3x3xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Buffers: library calls and copies
//===----------------------------------------------------------------------===//

def StridedCopyToLinalgPass
    : Pass<"nnc-strided-copy-to-linalg", "mlir::func::FuncOp"> {
  let summary = "Turn memref copies with strided layouts into linalg.copy";
  let description = [{
    The LLVM lowering of `memref.copy` between buffers that are not both
    contiguous calls `memrefCopy` from MLIR's C runner library, which nnc's
    runtime does not ship. After bufferization, such copies (for example the
    interior of a padded tensor, a strided subview) become `linalg.copy`, which
    lowers to (parallel) loops like any other linalg op. Contiguous copies stay
    `memref.copy` and become a `memcpy`.

    ```mlir
    memref.copy %src, %view : memref<2x3xf32> to memref<2x3xf32, strided<[5, 1], offset: 6>>
    // becomes
    linalg.copy ins(%src : memref<2x3xf32>) outs(%view : memref<2x3xf32, strided<[5, 1], offset: 6>>)
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def ChannelsLastPass : Pass<"nnc-cpu-channels-last", "mlir::func::FuncOp"> {
  let summary = "Forward library convolutions on channels-last images where "
                "oneDNN keeps them so";
  let description = [{
    oneDNN's fastest forward convolutions on some CPUs (brgconv on AVX-512)
    keep their images channels-last (NHWC). Fed nnc's channels-first
    buffers, each call reorders its input there and its output back: on
    MobileNetV2 more time than the convolutions themselves. For each
    forward `nnc.library_conv` on tensors whose kernel oneDNN would run on
    channels-last images (the glue's
    `nnc_dnnl_convolution_prefers_channels_last`), this pass gives the
    convolution `channels_last` images and transposes around it:

    ```mlir
    %y = nnc.library_conv "forward" ins(%x, %w : tensor<8x32x56x56xf32>,
        tensor<64x32x1x1xf32>) outs(%e : tensor<8x64x56x56xf32>) ...
    // becomes
    %xt = linalg.transpose ins(%x) outs(...) permutation = [0, 2, 3, 1]
    %yt = nnc.library_conv "forward" ins(%xt, %w : tensor<8x56x56x32xf32>,
        tensor<64x32x1x1xf32>) outs(%et : tensor<8x56x56x64xf32>) ...
        channels_last
    %y = linalg.transpose ins(%yt) outs(...) permutation = [0, 3, 1, 2]
    ```

    Elementwise fusion then folds the transposes into the elementwise
    kernels around the convolution (a batch norm and a clip between two
    convolutions read and write channels-last), and two transposes that
    meet cancel. `always` rewrites every forward convolution (for tests);
    by default the glue decides, and without it nothing changes.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
  let options = [
    Option<"always", "always", "bool", /*default=*/"false",
           "rewrite every forward library convolution, whatever oneDNN "
           "prefers">,
  ];
}

def LibraryConvToDnnlPass
    : Pass<"nnc-library-conv-to-dnnl", "mlir::ModuleOp"> {
  let summary = "Turn nnc.library_conv on buffers into oneDNN glue calls";
  let description = [{
    After bufferization, each `nnc.library_conv` becomes a call to
    `nnc_dnnl_convolution` (libnnc_dnnl.so, runtime/include/nnc/runtime/
    LibraryConvolution.h) with a constant descriptor of the convolution
    (a private `memref.global`) and the addresses of its buffers; the bias
    is a null pointer when there is none. Operands that are not dense
    row-major views are copied into dense temporaries first (and the result
    back). Each descriptor is checked with oneDNN here, so that a primitive
    it cannot build is a compile error naming the op, never a failure at run
    time. The CPU runtime opens the glue (and libdnnl) before loading code
    that calls it.

    ```mlir
    nnc.library_conv "forward" ins(%x, %w : memref<1x3x8x8xf32>,
        memref<4x3x3x3xf32>) outs(%y : memref<1x4x6x6xf32>)
        strides = [1, 1] dilations = [1, 1] pads = [0, 0, 0, 0] groups = 1
    // becomes
    func.call @nnc_dnnl_convolution(%desc, %px, %pw, %null, %py)
        : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::linalg::LinalgDialect", "mlir::LLVM::LLVMDialect",
    "mlir::memref::MemRefDialect"
  ];
}

def RuntimeCollectivesPass
    : Pass<"nnc-cpu-collectives", "mlir::ModuleOp"> {
  let summary = "Turn nnc.library_all_reduce on buffers into runtime calls";
  let description = [{
    After bufferization, each `nnc.library_all_reduce` becomes a call to
    the runtime's `nnc_runtime_all_reduce` (runtime/include/nnc/runtime/
    Collectives.h) with the addresses of its input and output, the element
    count and the runtime's dtype code. The runtime sums the buffer over the
    ranks of the calling thread's collective scope (a world of one outside
    any), and stops the run after the step when the collective fails.
    Operands that are not dense row-major views are copied into dense
    temporaries first (and the result back).

    ```mlir
    nnc.library_all_reduce ins(%x : memref<2x16xf32>)
        outs(%y : memref<2x16xf32>)
    // becomes
    func.call @nnc_runtime_all_reduce(%px, %py, %c32, %c1)
        : (!llvm.ptr, !llvm.ptr, i64, i32) -> ()
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::linalg::LinalgDialect", "mlir::LLVM::LLVMDialect",
    "mlir::memref::MemRefDialect"
  ];
}

def GemmToBlasPass : Pass<"nnc-gemm-to-blas", "mlir::ModuleOp"> {
  let summary = "Turn f32/f64 matmuls on buffers into CBLAS GEMM calls";
  let description = [{
    After bufferization, `linalg.matmul` and `linalg.batch_matmul` on f32 or
    f64 buffers with static shapes and strides, default indexing maps and
    row-major operands (unit inner stride, a row stride at least the row
    length: BLAS's leading dimension) become calls to `cblas_sgemm` /
    `cblas_dgemm` with alpha = 1 and beta = 1, since linalg matmuls accumulate
    into their output. A batch matmul becomes an `scf.for` over the batch
    with one call per matrix. The functions are declared private and
    external; the CPU runtime opens OpenBLAS before loading code that calls
    them. Products with fewer than `min-flops` multiply-adds (M * N * K, per
    batch) stay loops, where the call would cost more than it saves;
    everything that does not qualify is left as it is.

    An operand read through a map with its last two dimensions swapped, or
    a temporary that only a transpose of its last two dimensions writes, is
    read transposed (`CblasTrans`); a C zero-filled just before (nothing
    touching it in between) takes beta = 0 and the fill goes. A batched
    operand that is a reshape of a temporary written by a `linalg.transpose`
    (attention's `[B, T, H, D]` to `[B, H, T, D]`) reads the transpose's
    source where it lies, one stride per batch digit; a zero-filled C that
    only a reshape and a transpose read afterwards is written where the
    transpose would put it. Those transposes and temporaries go.

    ```mlir
    linalg.matmul ins(%a, %b : memref<64x80xf32>, memref<80x96xf32>)
                  outs(%c : memref<64x96xf32>)
    // becomes (pointers are the aligned base plus the offset, as !llvm.ptr)
    func.call @cblas_sgemm(%c101, %c111, %c111, %c64, %c96, %c80, %one,
                           %pa, %c80, %pb, %c96, %one, %pc, %c96)
        : (i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i32, !llvm.ptr, i32,
           f32, !llvm.ptr, i32) -> ()
    ```

    With `bf16-gemm`, products of bf16 operands into an f32 C (what a bf16
    `nnc.matmul` or `nnc.gemm` becomes: the sums in f32, rounded once after)
    call `nnc_dnnl_sbgemm`, the same arguments with bf16 A and B, which the
    runtime's oneDNN glue runs on the CPU's bf16 instructions; the CPU
    target sets it where the glue says it can.

    `f32-library` picks the library of f32 products: `blas` (`cblas_sgemm`,
    OpenBLAS) or `dnnl` (`nnc_dnnl_sgemm`, the same arguments, which the
    glue runs with oneDNN's matmul primitive); with `dnnl`, products below
    `dnnl-min-flops` still call BLAS, whose call costs less. An op's own kernel choice
    (`nnc.impl`, carried from the `nnc.matmul` or `nnc.gemm` it was) wins:
    `blas` or `dnnl` calls that library whatever the size (f64 and bf16
    products have one library each), `loops` leaves the op as it is.
  }];
  let options = [
    Option<"minFlops", "min-flops", "int64_t", /*default=*/"4096",
           "Smallest M * N * K (per batch) that becomes a library call">,
    Option<"bf16Gemm", "bf16-gemm", "bool", /*default=*/"false",
           "Products of bf16 operands into f32 call nnc_dnnl_sbgemm">,
    Option<"f32Library", "f32-library", "std::string", /*default=*/"\"blas\"",
           "The library of f32 products: blas (cblas_sgemm) or dnnl "
           "(nnc_dnnl_sgemm)">,
    Option<"dnnlMinFlops", "dnnl-min-flops", "int64_t",
           /*default=*/"262144",
           "With f32-library=dnnl, the smallest M * N * K that calls oneDNN "
           "(smaller ones call BLAS)">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::LLVM::LLVMDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect"
  ];
}

//===----------------------------------------------------------------------===//
// Low precision
//===----------------------------------------------------------------------===//

def WidenLowPrecisionPass
    : Pass<"nnc-cpu-widen-low-precision", "mlir::ModuleOp"> {
  let summary = "Compute f16/bf16 matrix products and convolutions on f32 "
                "copies of their operands";
  let description = [{
    The CPU libraries nnc uses have no low-precision kernels on the machines
    it runs on: Debian's OpenBLAS 0.3.21 is built without `sbgemm`, and
    oneDNN 2.6 builds bf16 convolutions only for AVX-512 (on AVX2 it makes
    no primitive), while the generated loops emulate every f16/bf16
    multiply-add with conversions. This pass rewrites `nnc.matmul`,
    `nnc.gemm`, `nnc.conv`, `nnc.conv_transpose` and `nnc.conv_weight_grad`
    whose operands are f16 or bf16 into the same op on f32 copies of them,
    its result rounded back once: the products of f16 or bf16 values are
    exact in f32 and the sums accumulate in f32, as low-precision dot
    product instructions do, so the result is that of a low-precision GEMM
    with f32 accumulation, computed by OpenBLAS, oneDNN or f32 loops. The
    widening casts fuse with the ops that produce or read them; values
    saved for the backward stay in the low type.

    ```mlir
    %y = nnc.matmul %a, %b : tensor<8x16xbf16>, tensor<16x4xbf16>
    // becomes
    %a32 = nnc.cast %a : tensor<8x16xbf16> to tensor<8x16xf32>
    %b32 = nnc.cast %b : tensor<16x4xbf16> to tensor<16x4xf32>
    %y32 = nnc.matmul %a32, %b32 : tensor<8x16xf32>, tensor<16x4xf32>
    %y = nnc.cast %y32 : tensor<8x4xf32> to tensor<8x4xbf16>
    ```

    Ops a library runs in their own types on this CPU can stay as they are:
    with `native-convolutions`, convolutions that oneDNN takes in f16 or
    bf16 with a non-reference implementation (CPUs with AVX-512 BF16 or
    AMX), unless their kernel choice (`nnc.impl`) names generated code; with
    `bf16-gemm`, bf16 matrix products, whose sums the conversion to linalg
    already keeps in f32. The CPU target sets both from what the runtime's
    oneDNN glue says it can run.
  }];
  let options = [
    Option<"nativeConvolutions", "native-convolutions", "bool",
           /*default=*/"false",
           "Keep the f16/bf16 convolutions oneDNN runs natively on this CPU">,
    Option<"bf16Gemm", "bf16-gemm", "bool", /*default=*/"false",
           "Keep bf16 matrix products (nnc-gemm-to-blas calls the glue's "
           "bf16 GEMM for them)">
  ];
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//


def InlineMathPass : Pass<"nnc-cpu-inline-math", "mlir::ModuleOp"> {
  let summary = "Compute math functions inline instead of calling libm";
  let description = [{
    Without this pass `convert-math-to-libm` turns `math.exp`, `math.log`,
    `math.tanh`, `math.erf`, `math.sqrt`, `math.fma`, `math.floor` and
    their siblings into calls of libm's scalar functions (`expf`, `sqrtf`,
    ...). A loop that calls a function that may set errno does not
    vectorize, so softmax, GELU, sigmoid, tanh, the losses, normalization
    and the Adam update ran one element at a time. This pass computes them
    inline, in two ways.

    Functions with an exact LLVM intrinsic become that intrinsic, on f32 and
    f64: `sqrt`, `fma`, `floor`, `ceil`, `trunc`, `round`, `roundeven`,
    `absf` and `copysign`. Results are those of libm bit for bit (all are
    correctly rounded); only errno is no longer set.

    The f32 forms of transcendental functions (f16 and bf16 ones computed in
    f32 and rounded once) become MLIR's polynomial approximations,
    arithmetic that LLVM vectorizes with the loop around it:

    | op | method | error |
    |---|---|---|
    | `exp` | Cephes: 2^n e^a, degree-6 polynomial | relative < 2^-22.5 |
    | `expm1` | from `exp` and `log` | as those |
    | `log`, `log2`, `log1p` | Cephes: frexp and a degree-8 polynomial | about 1 ulp |
    | `tanh` | rational 13/6 on [-7.9, 7.9], +-1 beyond | a few ulp |
    | `erf` | rational 4/4 on three intervals, +-1 beyond 3.75 | absolute < 2.5e-7 |
    | `erfc` | degree-9 polynomial of (x-2)/(x+2) | a few ulp |

    The approximations work on normal numbers; this pass covers the rest:
    exp of x below ln 2^-126 runs as exp(x + 16) * e^-16 (subnormal
    results, not zero), log and log2 of x below 2^-126 as log(x * 2^24)
    minus 24 ln 2 (or 24). exp(-inf) is 0, exp of anything above 88.72
    +inf, NaN stays NaN; log(0) is -inf and log of a negative number NaN;
    tanh and erf saturate to +-1. sin, cos, atan, pow and the other
    functions, and every f64 transcendental, keep libm.

    ```mlir
    %y = math.exp %x : f32
    // becomes arith ops, llvm.intr.floor, llvm.intr.fma and bit casts
    // ending in
    %y = arith.mulf %z, %pow2 : f32
    %r = math.sqrt %v : f32
    // becomes
    %r = llvm.intr.sqrt(%v) : (f32) -> f32
    ```
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::LLVM::LLVMDialect",
    "mlir::math::MathDialect", "mlir::vector::VectorDialect"
  ];
}

def ExpandBFloat16Pass : Pass<"nnc-cpu-expand-bf16", "mlir::ModuleOp"> {
  let summary = "Convert between bf16 and f32 with integer operations";
  let description = [{
    x86 has no scalar bf16 conversion instruction LLVM emits inline, and
    lowers `arith.truncf` f32 -> bf16 to a call of compiler-rt's
    `__truncsfbf2`, which the kernels' shared objects do not link. This pass
    rewrites `arith.extf` bf16 -> f32 (a shift of the bits) and
    `arith.truncf` f32 -> bf16 (round to nearest even, NaN kept) into
    integer operations, which vectorize with the loops around them.

    ```mlir
    %y = arith.truncf %x : f32 to bf16
    // becomes bit operations on %x as i32 ending in
    %y = arith.bitcast %t : i16 to bf16
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def BFloat16AsBitsPass : Pass<"nnc-cpu-bf16-as-bits", "mlir::ModuleOp"> {
  let summary = "Move bf16 values as i16 in the lowered LLVM dialect";
  let description = [{
    After `nnc-cpu-expand-bf16` and the lowering to the LLVM dialect, bf16
    values only move: loads, stores, bit casts from and to i16, selects,
    block arguments (phis), constants, vector element moves. On x86
    without AVX512-BF16, LLVM's code generator keeps a bf16 value that
    crosses blocks (a phi) in an f32 register and rounds it back with a call
    of compiler-rt's `__truncsfbf2`, which the kernels' shared objects do
    not link (and which would cost a call per element). This pass gives
    every such value the type i16 (same bits), folds the bit casts that
    become no-ops, turns bf16 constants into their bit patterns and GEP
    element types into i16, so no bf16 value reaches the code generator.
    A function with any other operation on bf16 (arithmetic, conversions,
    calls, a bf16 signature) is left as it is.

    ```mlir
    %a = llvm.load %p : !llvm.ptr -> bf16
    llvm.br ^bb1(%a : bf16)
    // becomes
    %a = llvm.load %p : !llvm.ptr -> i16
    llvm.br ^bb1(%a : i16)
    ```
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def ParallelOuterDimsPass
    : Pass<"nnc-parallel-outer-dims", "mlir::func::FuncOp"> {
  let summary = "Run the inner dimensions of parallel nests as inner loops";
  let description = [{
    `convert-scf-to-openmp` turns an n-dimensional `scf.parallel` into one
    OpenMP loop that collapses all n dimensions: each iteration recovers its
    indices from one linear index by division, and no loop is left for LLVM
    to vectorize. This pass keeps the fewest outer dimensions parallel
    whose iterations number at least `min-parallel-iterations` (enough to
    share among the threads), never the innermost one of a nest of two or
    more, and runs the others as `scf.for` loops inside, so the innermost
    loop walks its row with a plain induction variable and vectorizes.
    Unknown trip counts count as large. Nests with reductions (results)
    and nests inside another `scf.parallel` stay as they are. A nest made
    from an op whose kernel choice is a loop schedule (nnc/LoopSchedule.h)
    keeps its outermost dimension parallel for `loops_outer` and all but
    the innermost for `loops_wide`, whatever their trip counts.

    ```mlir
    // min-parallel-iterations=256
    scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c8, %c128, %c1024)
        step (%c1, %c1, %c1) { ... }
    // becomes (8 * 128 >= 256)
    scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c128) step (%c1, %c1) {
      scf.for %k = %c0 to %c1024 step %c1 { ... }
    }
    ```
  }];
  let options = [
    Option<"minParallelIterations", "min-parallel-iterations", "int64_t",
           /*default=*/"256",
           "Iterations the parallel dimensions of a nest should have">
  ];
  let dependentDialects = ["mlir::scf::SCFDialect"];
}

def SequentialSmallLoopsPass
    : Pass<"nnc-sequential-small-loops", "mlir::func::FuncOp"> {
  let summary = "Keep parallel loops with little work sequential";
  let description = [{
    Every linalg op becomes its own `scf.parallel` nest and, through
    `convert-scf-to-openmp`, its own OpenMP parallel region; forking and
    joining threads costs microseconds, more than a small loop's work. This
    pass turns an outermost `scf.parallel` (without reductions) whose static
    work — its trip count times the largest trip count nested in it — is
    below `min-iterations` into nested `scf.for` loops. One nested in an
    `scf.for` that also calls a function (a convolution's loop over the
    images, with a GEMM per image) becomes sequential whatever its size
    unless `parallel-in-loops` is set: every iteration would fork and join
    the threads again, while the library calls in the same iterations use
    the threads themselves (resnet18's batch-8 inference: 384 ms with the
    copies parallel, 228 ms sequential). Without a call in the loops around
    it (max-pool's gradient walking the window positions) the size rule
    alone decides: bench/'s cnn_small trains a step in 12.9 ms instead of
    14.2 (`nnc-run train --profile`, 60 steps, 2026-12-06).
    Loops with dynamic bounds stay parallel. A parallel loop nested in
    another (a reduction over a middle dimension lowers to parallel outer
    dimensions, the reduction, parallel inner ones) becomes sequential:
    OpenMP would open a nested region per iteration and run it on the one
    thread it has (a sum of 8x16x16x32 over its third dimension: 0.76 ->
    0.081 ms, `nnc-run --bench 200`, 2026-12-07). A loop made from an op whose
    kernel choice is a loop schedule (nnc/LoopSchedule.h; its location
    carries it) follows the schedule instead: `loops_serial` sequential,
    `loops_outer` and `loops_wide` parallel whatever their work (plain
    `loops`, which sets only threads or vector widths, follows the rules).

    ```mlir
    // min-iterations=1024
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) { ... }   // 16 < 1024
    // becomes
    scf.for %i = %c0 to %c16 step %c1 { ... }
    ```
  }];
  let options = [
    Option<"minIterations", "min-iterations", "int64_t", /*default=*/"32768",
           "Loops with less static work than this run sequentially">,
    Option<"parallelInLoops", "parallel-in-loops", "bool",
           /*default=*/"false",
           "Let loops nested in an scf.for run in parallel when large enough">
  ];
  let dependentDialects = ["mlir::scf::SCFDialect"];
}

def LoopHintsPass : Pass<"nnc-cpu-loop-hints", "mlir::func::FuncOp"> {
  let summary = "Apply a loop schedule's thread count and vector width";
  let description = [{
    Runs after `convert-scf-to-openmp` (or, without parallel code, after the
    conversion to loops). The loops made from an op whose kernel choice is
    a loop schedule (nnc/LoopSchedule.h) carry it in their locations; this
    pass applies the two parts of it that the parallel loops' passes do
    not:

    - `.t<N>`: every `omp.parallel` region of such loops runs on N threads
      (its `num_threads` clause), whatever the thread count of the run.
    - `.v<W>`: every innermost `scf.for` of such loops (one without a loop
      nested in it) gets LLVM's loop metadata asking the loop vectorizer
      for W lanes (`llvm.loop.vectorize.width`; 1 disables it). The
      vectorizer may then reorder a floating-point sum across the lanes
      (as it does for any loop with an explicit width), so a reduction's
      rounding can differ from the default's, deterministically.

    ```mlir
    // loc(fused<{nnc.loops = "loops.t4.v16"}>[...]) on both loops
    omp.parallel { omp.wsloop { omp.loop_nest (%i) ... {
      scf.for %j = %c0 to %c64 step %c1 { ... } } } }
    // becomes
    omp.parallel num_threads(%c4_i32 : i32) { ... scf.for %j ... {
      ... } {loop_annotation = #llvm.loop_annotation<vectorize =
          #llvm.loop_vectorize<disable = false, width = 16 : i32>>} ... }
    ```
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect",
                           "mlir::arith::ArithDialect"];
}

#endif // NNC_TARGET_CPU_PASSES_TD
