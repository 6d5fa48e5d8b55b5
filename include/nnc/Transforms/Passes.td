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
// CPU code generation
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

#endif // NNC_TRANSFORMS_PASSES_TD
