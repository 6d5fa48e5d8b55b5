//===- LibraryCalls.h - buffers handed to library calls ---------*- C++ -*-===//
//
// What the CPU passes that turn library ops on buffers into calls (oneDNN
// convolutions, the runtime's collectives) share: a buffer's address as an
// LLVM pointer, and a dense row-major view of a buffer.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LIB_TARGET_CPU_LIBRARYCALLS_H
#define NNC_LIB_TARGET_CPU_LIBRARYCALLS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace nnc::cpu {

/// Whether `type` is laid out dense and row-major (any offset).
bool isDense(mlir::MemRefType type);

/// The address of `memref`'s first element, as an !llvm.ptr.
mlir::Value bufferAddress(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value memref);

/// `memref` itself when it is dense, else a dense temporary (holding a copy
/// of it when `copyIn`); the caller copies a written temporary back.
mlir::Value denseBuffer(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value memref, bool copyIn);

} // namespace nnc::cpu

#endif // NNC_LIB_TARGET_CPU_LIBRARYCALLS_H
