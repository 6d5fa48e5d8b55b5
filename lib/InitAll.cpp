//===- InitAll.cpp - register everything nnc uses -------------------------===//
//
// The single list of dialects and passes that nnc's tools and libraries
// register, including the upstream ones of the CPU pipeline
// (linalg -> bufferization -> loops -> LLVM).
//
//===----------------------------------------------------------------------===//

#include "nnc/InitAll.h"

#include "nnc/Conversion/Passes.h"
#include "nnc/NNCDialect.h"
#include "nnc/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include <mutex>

void nnc::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<nnc::NNCDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::tensor::TensorDialect>();
  mlir::func::registerInlinerExtension(registry);

  // The CPU pipeline: linalg on tensors, bufferized to memrefs, lowered to
  // loops and then to the LLVM dialect.
  registry.insert<
      mlir::affine::AffineDialect, mlir::bufferization::BufferizationDialect,
      mlir::cf::ControlFlowDialect, mlir::index::IndexDialect,
      mlir::linalg::LinalgDialect, mlir::LLVM::LLVMDialect,
      mlir::math::MathDialect, mlir::memref::MemRefDialect,
      mlir::omp::OpenMPDialect, mlir::scf::SCFDialect, mlir::ub::UBDialect>();
  mlir::arith::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  mlir::cf::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::linalg::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::scf::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::tensor::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::memref::registerAllocationOpInterfaceExternalModels(registry);

  // What --convert-to-llvm finds through dialect interfaces.
  mlir::arith::registerConvertArithToLLVMInterface(registry);
  mlir::cf::registerConvertControlFlowToLLVMInterface(registry);
  mlir::registerConvertFuncToLLVMInterface(registry);
  mlir::index::registerConvertIndexToLLVMInterface(registry);
  mlir::registerConvertMathToLLVMInterface(registry);
  mlir::registerConvertMemRefToLLVMInterface(registry);
  mlir::ub::registerConvertUBToLLVMInterface(registry);

  // Translation of the LLVM dialect (and OpenMP) to LLVM IR for codegen.
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerOpenMPDialectTranslation(registry);
}

static void registerAllPassesOnce();

void nnc::registerAllPasses() {
  // Idempotent: the compile driver registers on first use, tools at start.
  static std::once_flag once;
  std::call_once(once, registerAllPassesOnce);
}

static void registerAllPassesOnce() {
  // Upstream passes used in nnc pipelines: canonicalize, cse, inline,
  // symbol-dce, and the rest of the generic transforms.
  mlir::registerTransformsPasses();
  nnc::registerNNCPasses();
  nnc::registerNNCConversionPasses();

  // The upstream half of the CPU pipeline.
  mlir::bufferization::registerBufferizationPasses();
  mlir::bufferization::registerBufferizationPipelines();
  mlir::registerLinalgPasses();
  mlir::registerConvertBufferizationToMemRefPass();
  mlir::math::registerMathExtendToSupportedTypes();
  mlir::registerUBToLLVMConversionPass();
  mlir::registerConvertSCFToOpenMPPass();
  mlir::registerConvertOpenMPToLLVMPass();
  mlir::registerConvertLinalgToLoopsPass();
  mlir::memref::registerExpandStridedMetadataPass();
  mlir::registerLowerAffinePass();
  mlir::registerSCFToControlFlowPass();
  mlir::registerConvertMathToLibmPass();
  mlir::registerConvertToLLVMPass();
  mlir::registerArithToLLVMConversionPass();
  mlir::registerConvertControlFlowToLLVMPass();
  mlir::registerConvertFuncToLLVMPass();
  mlir::registerConvertIndexToLLVMPass();
  mlir::registerConvertMathToLLVMPass();
  mlir::registerFinalizeMemRefToLLVMConversionPass();
  mlir::registerReconcileUnrealizedCastsPass();
}
