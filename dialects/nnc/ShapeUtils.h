//===- ShapeUtils.h - shape helpers for nnc ops -----------------*- C++ -*-===//
//
// Shape arithmetic shared by the op verifiers, type inference and the shape
// inference pass: numpy broadcasting, axis normalization, and dimension
// helpers that treat ShapedType::kDynamic ('?') soundly.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_DIALECT_SHAPEUTILS_H
#define NNC_DIALECT_SHAPEUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace nnc {

/// True if `d` is a dynamic dimension.
inline bool isDynamicDim(int64_t d) { return mlir::ShapedType::isDynamic(d); }

/// Broadcasts two shapes as numpy does. Dimensions are aligned from the back;
/// a pair broadcasts if equal or if either is 1. A dynamic dimension paired
/// with a static N != 1 yields N (the program is only valid if it is N or 1).
/// Returns false if some pair of static dimensions is incompatible.
bool broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs,
                     llvm::SmallVectorImpl<int64_t> &result);

/// Whether `from` can be broadcast to exactly `to` (unidirectional, as in
/// ONNX Expand's output or a bias broadcast to an activation).
bool isBroadcastableTo(llvm::ArrayRef<int64_t> from,
                       llvm::ArrayRef<int64_t> to);

/// Whether two dimensions may be equal at run time.
inline bool dimsCompatible(int64_t a, int64_t b) {
  return isDynamicDim(a) || isDynamicDim(b) || a == b;
}

/// Whether two shapes have the same rank and pairwise compatible dimensions.
bool shapesCompatible(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// Maps `axis` in [-rank, rank) to [0, rank); std::nullopt if out of range.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

/// Normalizes every axis of `axes` into `result`, emitting an error at `loc`
/// naming `what` if one is out of range or repeated.
mlir::LogicalResult normalizeAxes(std::optional<mlir::Location> loc,
                                  llvm::StringRef what,
                                  llvm::ArrayRef<int64_t> axes, int64_t rank,
                                  llvm::SmallVectorImpl<int64_t> &result);

/// Product of the dimensions, or kDynamic if any is dynamic. Returns
/// std::nullopt if the product overflows int64.
std::optional<int64_t> getNumElements(llvm::ArrayRef<int64_t> shape);

/// Returns `type` as a ranked tensor type, or emits "expects <what> to be a
/// ranked tensor" at `loc`. Type inference runs before the ODS type
/// constraints are verified (while parsing and building), so it must check
/// operand types itself rather than cast<>.
mlir::FailureOr<mlir::RankedTensorType>
getRankedTensor(std::optional<mlir::Location> loc, mlir::Type type,
                llvm::StringRef what);

/// Infers the result type of a broadcasting binary op from its operand types.
/// The operands must be ranked tensors of one element type; the result has
/// the broadcast shape and `resultElementType`, or the operands' element type
/// when it is null. Errors are emitted at `loc` when it is given.
mlir::LogicalResult
inferBroadcastBinary(std::optional<mlir::Location> loc, mlir::Type lhs,
                     mlir::Type rhs, mlir::Type resultElementType,
                     llvm::SmallVectorImpl<mlir::Type> &inferred);

/// Formats a shape as "2x?x4" for diagnostics.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

} // namespace nnc

#endif // NNC_DIALECT_SHAPEUTILS_H
