//===- nnc-translate.cpp - nnc translation driver -------------------------===//
//
// mlir-translate for nnc: imports ONNX models (`--import-onnx`, and
// `--import-onnx-text` for protobuf text format) into the nnc dialect.
//
//===----------------------------------------------------------------------===//

#include "nnc/Import/ONNX/Importer.h"

#include "mlir/Support/LogicalResult.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  nnc::onnx_import::registerONNXImportTranslations();
  return mlir::failed(
             mlir::mlirTranslateMain(argc, argv, "nnc translation driver"))
             ? 1
             : 0;
}
