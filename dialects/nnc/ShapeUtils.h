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

/// The number of elements ONNX Slice selects from a dimension of static size
/// `dim` (negative bounds count from the back, then are clamped).
int64_t sliceSize(int64_t start, int64_t end, int64_t step, int64_t dim);

/// The first index ONNX Slice reads from a dimension of static size `dim`.
int64_t sliceStart(int64_t start, int64_t step, int64_t dim);

/// Normalized axes (default [0, n)) and steps (default 1) of a slice of rank
/// `rank`; emits an error at `loc` if they are inconsistent.
mlir::LogicalResult getSliceParams(std::optional<mlir::Location> loc,
                                   llvm::ArrayRef<int64_t> starts,
                                   llvm::ArrayRef<int64_t> ends,
                                   std::optional<llvm::ArrayRef<int64_t>> axes,
                                   std::optional<llvm::ArrayRef<int64_t>> steps,
                                   int64_t rank,
                                   llvm::SmallVectorImpl<int64_t> &outAxes,
                                   llvm::SmallVectorImpl<int64_t> &outSteps);

/// One sliced axis of an ONNX Slice of a static dimension: the clamped first
/// index, the step and the number of elements.
struct SliceBounds {
  int64_t axis, start, step, count;
};

/// The sliced axes of a slice of `shape` (static along them); emits an
/// error at `loc` when the parameters are inconsistent.
mlir::FailureOr<llvm::SmallVector<SliceBounds>>
resolveSliceBounds(std::optional<mlir::Location> loc,
                   llvm::ArrayRef<int64_t> shape,
                   llvm::ArrayRef<int64_t> starts, llvm::ArrayRef<int64_t> ends,
                   std::optional<llvm::ArrayRef<int64_t>> axes,
                   std::optional<llvm::ArrayRef<int64_t>> steps);

/// The dimensions of ONNX Reshape of `inShape` to `shape` (0 copies the
/// input dimension unless `allowZero`, one -1 is inferred when the rest of
/// the input is static; '?' where unknown); fails setting `error` when the
/// shape is malformed or the element counts cannot agree.
mlir::FailureOr<llvm::SmallVector<int64_t>>
computeReshapeDims(llvm::ArrayRef<int64_t> inShape,
                   llvm::ArrayRef<int64_t> shape, bool allowZero,
                   std::string &error);

/// Formats a shape as "2x?x4" for diagnostics.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// Formats an integer list as "[1, 2]" for diagnostics.
std::string formatList(llvm::ArrayRef<int64_t> values);

} // namespace nnc

#endif // NNC_DIALECT_SHAPEUTILS_H
