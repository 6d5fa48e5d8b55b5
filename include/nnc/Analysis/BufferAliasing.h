//===- BufferAliasing.h - which buffer a value points into ------*- C++ -*-===//
//
// Helpers the passes on bufferized functions share: a value that is a view
// of a buffer, or an address computed from one (a library call's pointer
// operands), points into that buffer.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_ANALYSIS_BUFFERALIASING_H
#define NNC_ANALYSIS_BUFFERALIASING_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace nnc::buffers {

/// Ops that only compute views, addresses or scalars (memref.reshape reads
/// its shape operand, a constant, and counts as one).
inline bool isInert(mlir::Operation *op) {
  return op->getNumRegions() == 0 && (mlir::isMemoryEffectFree(op) ||
                                      mlir::isa<mlir::ViewLikeOpInterface>(op));
}

/// The buffer `value` is a view of (itself if none).
inline mlir::Value rootBuffer(mlir::Value value) {
  while (auto view = value.getDefiningOp<mlir::ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// Whether `value` is `buffer`, a view into it or an address computed from
/// it.
inline bool derivesFrom(mlir::Value value, mlir::Value buffer) {
  llvm::SmallVector<mlir::Value> worklist = {value};
  llvm::DenseSet<mlir::Value> seen;
  while (!worklist.empty()) {
    mlir::Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (v == buffer ||
        (mlir::isa<mlir::MemRefType>(v.getType()) && rootBuffer(v) == buffer))
      return true;
    if (mlir::Operation *def = v.getDefiningOp(); def && isInert(def))
      worklist.append(def->operand_begin(), def->operand_end());
  }
  return false;
}

/// The buffers `value` may point into: memref roots reached backwards
/// through views and address arithmetic. `seen` holds the values already
/// walked for `roots`: their roots are in it, and they are not walked again,
/// so that the operands of a long chain of scalar ops (a fused body) are
/// collected in time linear in the chain rather than quadratic.
inline void collectRoots(mlir::Value value, llvm::SetVector<mlir::Value> &roots,
                         llvm::DenseSet<mlir::Value> &seen) {
  llvm::SmallVector<mlir::Value> worklist = {value};
  while (!worklist.empty()) {
    mlir::Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (mlir::isa<mlir::MemRefType>(v.getType())) {
      mlir::Value root = rootBuffer(v);
      roots.insert(root);
      if (mlir::Operation *def = root.getDefiningOp();
          def && isInert(def) && !mlir::isa<mlir::memref::AllocOp>(def))
        worklist.append(def->operand_begin(), def->operand_end());
      continue;
    }
    if (mlir::Operation *def = v.getDefiningOp(); def && isInert(def))
      worklist.append(def->operand_begin(), def->operand_end());
  }
}

/// The buffers `value` may point into (see above), walked afresh.
inline void collectRoots(mlir::Value value,
                         llvm::SetVector<mlir::Value> &roots) {
  llvm::DenseSet<mlir::Value> seen;
  collectRoots(value, roots, seen);
}

} // namespace nnc::buffers

#endif // NNC_ANALYSIS_BUFFERALIASING_H
