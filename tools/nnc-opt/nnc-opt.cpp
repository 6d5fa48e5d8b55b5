//===- nnc-opt.cpp - nnc optimizer driver ---------------------------------===//
//
// mlir-opt for nnc: the nnc dialect, the upstream dialects it uses, every
// nnc pass and the pipelines the compiler and the trainer run
// (--nnc-inference-pipeline, --nnc-training-pipeline), with mlir-opt's
// command line and behaviour.
//
//===----------------------------------------------------------------------===//

#include "nnc/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  nnc::registerAllDialects(registry);
  nnc::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "nnc optimizer driver\n", registry));
}
