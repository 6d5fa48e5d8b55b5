//===- CostModel.h - FLOPs and bytes of nnc ops ----------------*- C++ -*-===//
//
// One cost model for the passes that trade compute against memory: how many
// floating-point operations an nnc op performs and how many bytes it reads
// and writes, from its static shapes, and which ops become one elementwise
// loop nest that fusion folds into its consumer (so their results need not
// be stored). Rematerialization under a memory budget prices what it
// recomputes with it.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_ANALYSIS_COSTMODEL_H
#define NNC_ANALYSIS_COSTMODEL_H

#include <cstdint>

namespace mlir {
class Operation;
class Type;
} // namespace mlir

namespace nnc {

struct OpCost {
  /// Floating-point operations (a multiply-add counts two).
  int64_t flops = 0;
  /// Bytes of the operands and of the results.
  int64_t bytesRead = 0;
  int64_t bytesWritten = 0;
};

/// Bytes of a statically shaped tensor type; -1 for anything else.
int64_t tensorBytes(mlir::Type type);

/// Whether `op` computes each result element from the same position of its
/// (broadcast) operands: unary and binary elementwise ops, comparisons,
/// `where`, casts, `expand`, counter-based random numbers. Fusion merges
/// such an op into its consumers.
bool isPointwise(mlir::Operation *op);

/// Whether `op`'s result is its operand with another shape (reshape,
/// squeeze, unsqueeze, flatten): no copy after bufferization.
bool isReshapeLike(mlir::Operation *op);

/// The cost of `op`; zeros for ops with dynamic shapes or outside the nnc
/// dialect.
OpCost costOf(mlir::Operation *op);

} // namespace nnc

#endif // NNC_ANALYSIS_COSTMODEL_H
