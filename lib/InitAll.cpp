//===- InitAll.cpp - register everything nnc uses -------------------------===//
//
// The single list of dialects and passes that nnc's tools and libraries
// register, including the upstream ones of the CPU pipeline
// (linalg -> bufferization -> loops -> LLVM).
//
//===----------------------------------------------------------------------===//

#include "nnc/InitAll.h"

#include "nnc/Compiler/Pipelines.h"
#include "nnc/Conversion/Passes.h"
#include "nnc/NNCDialect.h"
#include "nnc/Target/Target.h"
#include "nnc/Training/Pipeline.h"
#include "nnc/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
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
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <mutex>

void nnc::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<nnc::NNCDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::tensor::TensorDialect>();
  mlir::func::registerInlinerExtension(registry);

  // The shared pipeline: linalg on tensors, bufferized to memrefs, kernels
  // of loops.
  registry.insert<mlir::affine::AffineDialect,
                  mlir::bufferization::BufferizationDialect,
                  mlir::cf::ControlFlowDialect, mlir::index::IndexDialect,
                  mlir::linalg::LinalgDialect, mlir::math::MathDialect,
                  mlir::memref::MemRefDialect, mlir::scf::SCFDialect,
                  mlir::ub::UBDialect>();
  mlir::arith::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  mlir::cf::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::linalg::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::scf::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::tensor::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::memref::registerAllocationOpInterfaceExternalModels(registry);
  nnc::registerBufferizableOpInterfaceExternalModels(registry);

  // Each target's own dialects and translations.
  nnc::registerAllTargetDialects(registry);
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

  // The upstream half of the shared pipeline.
  mlir::bufferization::registerBufferizationPasses();
  mlir::bufferization::registerBufferizationPipelines();
  mlir::registerLinalgPasses();
  mlir::registerConvertBufferizationToMemRefPass();

  // Each target's passes.
  nnc::registerAllTargetPasses();

  nnc::registerAllTargets();
  nnc::registerInferencePipeline();
  nnc::registerTrainingPipeline();
}
