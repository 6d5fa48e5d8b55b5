//===- nnc-opt.cpp - nnc optimizer driver ---------------------------------===//
//
// mlir-opt for nnc: the nnc dialect, the upstream dialects it uses, every
// nnc pass and the pipelines the compiler and the trainer run
// (--nnc-inference-pipeline, --nnc-training-pipeline), with mlir-opt's
// command line and behaviour. An input that is a FIFO or a device is
// refused before it is read (MLIR's driver would read it without end).
//
//===----------------------------------------------------------------------===//

#include "../common/FileHelpers.h"
#include "nnc/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  nnc::registerAllDialects(registry);
  nnc::registerAllPasses();
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "nnc optimizer driver\n", registry);
  std::string error;
  if (input != "-" && !nnc::tools::checkReadableToEnd(input, "input", error)) {
    llvm::errs() << "nnc-opt: error: " << error << "\n";
    return 1;
  }
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, input, output, registry));
}
