//===- Diagnostics.h - MLIR diagnostics as error text -----------*- C++ -*-===//
//
// DiagnosticCapture collects the errors MLIR raises while it lives, so that
// the libraries turn them into a status rather than letting them reach
// MLIR's default handler (stderr).
//
//===----------------------------------------------------------------------===//

#ifndef NNC_COMPILER_DIAGNOSTICS_H
#define NNC_COMPILER_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace nnc {

class DiagnosticCapture {
public:
  explicit DiagnosticCapture(mlir::MLIRContext &context)
      : handler(&context, [this](mlir::Diagnostic &diag) {
          record(diag);
          return mlir::success();
        }) {}

  /// The errors seen, one per line, each with its notes.
  std::string errors() const {
    return text.empty() ? "failed without a diagnostic" : text;
  }

private:
  static void printLocation(llvm::raw_ostream &os, mlir::Location loc) {
    if (auto name = llvm::dyn_cast<mlir::NameLoc>(loc))
      return printLocation(os, name.getChildLoc());
    if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(loc)) {
      os << file.getFilename().getValue();
      if (file.getLine() != 0)
        os << ":" << file.getLine() << ":" << file.getColumn();
      os << ": ";
      return;
    }
    if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc))
      if (!fused.getLocations().empty())
        return printLocation(os, fused.getLocations().front());
  }

  void record(mlir::Diagnostic &diag) {
    // Warnings and remarks are dropped: a status only reports failure.
    if (diag.getSeverity() != mlir::DiagnosticSeverity::Error)
      return;
    llvm::raw_string_ostream os(text);
    if (!text.empty())
      os << "\n";
    printLocation(os, diag.getLocation());
    // An op imported from a named node: name it, unless the message starts
    // with the name (the importer's own errors).
    std::string message = diag.str();
    if (auto name = llvm::dyn_cast<mlir::NameLoc>(diag.getLocation()))
      if (!llvm::StringRef(message).starts_with("node '"))
        os << "node '" << name.getName().getValue() << "': ";
    os << message;
    for (mlir::Diagnostic &note : diag.getNotes())
      os << "\n  note: " << note;
  }

  std::string text;
  mlir::ScopedDiagnosticHandler handler;
};

} // namespace nnc

#endif // NNC_COMPILER_DIAGNOSTICS_H
