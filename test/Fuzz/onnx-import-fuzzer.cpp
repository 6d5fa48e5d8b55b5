//===- onnx-import-fuzzer.cpp - libFuzzer target for the ONNX importer ----===//
//
// Feeds arbitrary bytes to the ONNX importer as a binary model. Any crash,
// sanitizer report, hang or out-of-memory is a bug: malformed models must end
// in a diagnostic. Build with utils/fuzz.sh, which seeds the corpus from the
// ONNX backend test models.
//
//===----------------------------------------------------------------------===//

#include "nnc/Import/ONNX/Importer.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <cstddef>
#include <cstdint>
#include <memory>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A fresh context per input keeps runs independent; its attribute storage
  // would otherwise grow with every distinct constant the fuzzer invents.
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  nnc::onnx_import::ImportOptions options;
  auto module = nnc::onnx_import::importModel(
      context,
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz",
      options);
  (void)module;
  return 0;
}
