//===- nnc-translate.cpp - nnc translation driver -------------------------===//
//
// mlir-translate for nnc: imports ONNX models (`--import-onnx`, and
// `--import-onnx-text` for protobuf text format) into the nnc dialect, and
// emits kernels as CUDA C++ (`--emit-cuda`, the CUDA target's emitter). An
// input that is a FIFO or a device is refused before it is read (MLIR's
// driver would read it without end).
//
//===----------------------------------------------------------------------===//

#include "../common/FileHelpers.h"
#include "nnc/Import/ONNX/Importer.h"
#include "nnc/Target/Target.h"

#include "mlir/Support/LogicalResult.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  // mlirTranslateMain parses the command line itself: the input is its one
  // positional argument (an option's value is joined with `=`, but for
  // `-o FILE`).
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "-o") {
      ++i;
      continue;
    }
    std::string error;
    if (!arg.starts_with("-") &&
        !nnc::tools::checkReadableToEnd(arg.str(), "input", error)) {
      llvm::errs() << "nnc-translate: error: " << error << "\n";
      return 1;
    }
  }
  nnc::onnx_import::registerONNXImportTranslations();
  nnc::registerAllTargetTranslations();
  return mlir::failed(
             mlir::mlirTranslateMain(argc, argv, "nnc translation driver"))
             ? 1
             : 0;
}
