//===- Importer.h - ONNX to nnc import --------------------------*- C++ -*-===//
//
// Imports an ONNX model (ModelProto, opsets 7 to 21 of the default domain,
// and older ones where the ops they use kept their meaning)
// into a module holding one func.func in the nnc dialect: arguments are the
// graph inputs followed by the floating-point initializers as parameters,
// results are the graph outputs. Errors are emitted as MLIR diagnostics that
// name the node and the reason; a failed import returns null.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_IMPORT_ONNX_IMPORTER_H
#define NNC_IMPORT_ONNX_IMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>
#include <string>

namespace nnc::onnx_import {

struct ImportOptions {
  /// Name of the imported function.
  std::string functionName = "main";
  /// Floating-point initializers become `#nnc.param<trainable>` arguments
  /// (batch-norm running statistics `#nnc.param<buffer>`), carrying their
  /// values as `nnc.value`; with this set the trainable ones are
  /// `#nnc.param<frozen>`.
  bool freezeInitializers = false;
  /// Folder that external tensor data is read from. Empty rejects external
  /// data. importModelFile sets it to the model's folder.
  std::string modelDirectory;
  /// Graph inputs whose values are fixed at compile time, as serialized
  /// TensorProtos: they become constants (shape specialization, as for a
  /// Reshape's target shape given as an input) and leave the signature.
  std::map<std::string, std::string> constantInputs;
  /// When set, every integer graph input is bound like constantInputs to
  /// the TensorProto in `<dir>/input_<k>.pb`, k being its position among the
  /// graph inputs (the layout of the ONNX backend test data).
  std::string integerInputsDirectory;
};

/// Imports a serialized ModelProto. `bufferName` names the model in
/// diagnostics.
mlir::OwningOpRef<mlir::ModuleOp> importModel(mlir::MLIRContext &context,
                                              llvm::StringRef bytes,
                                              llvm::StringRef bufferName,
                                              const ImportOptions &options);

/// Imports a ModelProto written in protobuf text format (for tests).
mlir::OwningOpRef<mlir::ModuleOp>
importModelText(mlir::MLIRContext &context, llvm::StringRef text,
                llvm::StringRef bufferName, const ImportOptions &options);

/// Reads and imports a binary .onnx file; external data is read relative to
/// the file's folder unless options.modelDirectory says otherwise.
mlir::OwningOpRef<mlir::ModuleOp> importModelFile(mlir::MLIRContext &context,
                                                  llvm::StringRef path,
                                                  ImportOptions options);

/// What protobuf parses at most: a serialized message of 2 GiB.
inline constexpr uint64_t kMaxProtobufBytes = 0x7fffffff;

/// Why readProtobufFile failed.
enum class FileError { None, Missing, Unreadable, NotRegular, TooLarge };

/// Reads the file at `path` for parsing as a protobuf message: it must be a
/// regular file (not a FIFO, device or folder, which would be read without
/// end) of at most `maxBytes` bytes, which is checked before anything is
/// read. On failure `message` says what is wrong, naming `what` ("ONNX
/// model") and the path.
FileError readProtobufFile(llvm::StringRef path, const llvm::Twine &what,
                           uint64_t maxBytes,
                           std::unique_ptr<llvm::MemoryBuffer> &out,
                           std::string &message);

/// Registers the `--import-onnx` and `--import-onnx-text` translations for
/// nnc-translate, with their command-line options.
void registerONNXImportTranslations();

} // namespace nnc::onnx_import

#endif // NNC_IMPORT_ONNX_IMPORTER_H
