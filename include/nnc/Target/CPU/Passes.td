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
  }];
  let options = [
    Option<"minFlops", "min-flops", "int64_t", /*default=*/"4096",
           "Smallest M * N * K (per batch) that becomes a library call">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::LLVM::LLVMDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect"
  ];
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//


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
    `scf.for` (a convolution's loop over the images) becomes sequential
    whatever its size unless `parallel-in-loops` is set: every iteration
    would fork and join the threads again, while the GEMM library calls in
    the same iterations use the threads themselves (resnet18's batch-8
    inference: 384 ms with the copies parallel, 228 ms sequential). Loops
    with dynamic bounds stay parallel.

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

#endif // NNC_TARGET_CPU_PASSES_TD
