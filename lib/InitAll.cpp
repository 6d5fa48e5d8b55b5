//===- InitAll.cpp - register everything nnc uses -------------------------===//
//
// The single list of dialects and passes that nnc's tools and libraries
// register.
//
//===----------------------------------------------------------------------===//

#include "nnc/InitAll.h"

#include "nnc/NNCDialect.h"
#include "nnc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void nnc::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<nnc::NNCDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::tensor::TensorDialect>();
  mlir::func::registerInlinerExtension(registry);
}

void nnc::registerAllPasses() {
  // Upstream passes used in nnc pipelines: canonicalize, cse, inline,
  // symbol-dce, and the rest of the generic transforms.
  mlir::registerTransformsPasses();
  nnc::registerNNCPasses();
}
