//===- ShapeValues.h - integer values of shape computations -----*- C++ -*-===//
//
// What is known of the small integer tensors that shape computations build
// (`shape_of`, gathers and concatenations of it, arithmetic on dimensions),
// element by element: the importer types the ops that take shapes as
// operands from it, folders turn fully known values into constants, and
// the dynamic shape ops resolve to their static forms once their shape
// operands are known.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_DIALECT_SHAPEVALUES_H
#define NNC_DIALECT_SHAPEVALUES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace nnc {

/// The most elements a shape computation is evaluated over (and the most an
/// `nnc.shape_input` argument holds).
constexpr int64_t kMaxShapeInputElements = 1024;

/// A static-shaped integer tensor, element by element known or not.
struct ShapeValue {
  llvm::SmallVector<int64_t> shape;
  /// Row-major; std::nullopt for an element not known before run time.
  llvm::SmallVector<std::optional<int64_t>> elements;

  bool isKnown() const {
    return llvm::all_of(elements, [](const auto &e) { return e.has_value(); });
  }
  /// The elements as integers; only when isKnown().
  llvm::SmallVector<int64_t> values() const;
};

/// What is known of `value`, an integer (or i1) tensor of static shape with
/// at most kMaxShapeInputElements elements, from the ops that compute it;
/// std::nullopt for other values. Looks through constants, `shape_of`,
/// gather, concat, slice, squeeze/unsqueeze/reshape/flatten, integer casts,
/// integer arithmetic, comparisons, where, expand of known values and
/// reductions.
std::optional<ShapeValue> getShapeValue(mlir::Value value);

/// The elements of `value` when all are known; std::nullopt otherwise.
std::optional<llvm::SmallVector<int64_t>> getKnownInts(mlir::Value value);

/// `values` as a constant attribute of `type` (an integer tensor type;
/// values truncated to its width, i1 true for non-zero).
mlir::DenseElementsAttr getIntsAttr(mlir::RankedTensorType type,
                                    llvm::ArrayRef<int64_t> values);

/// The fold of an op whose result `result` getShapeValue knows in full: a
/// constant attribute, else null.
mlir::Attribute foldKnownShapeValue(mlir::Value result);

/// Whether `value` (an integer input) reaches a shape operand of a dynamic
/// shape op through the integer computations getShapeValue evaluates: code
/// for static shapes needs its values, so the input is specialized on them
/// (`nnc.shape_input`), and its uses as data see the same values (Resize's
/// sizes both shape the result and scale the source coordinates).
bool feedsShapes(mlir::Value value);

/// Where the unknown elements of `value` come from: the function arguments
/// (data inputs, parameters, `nnc.shape_input`s without a value) and the
/// tensors with dynamic dimensions (read by `shape_of`) that its
/// computation reads, and results of ops without operands. Empty when
/// `value` is known.
llvm::SmallVector<mlir::Value> findUnknownSources(mlir::Value value);

} // namespace nnc

#endif // NNC_DIALECT_SHAPEVALUES_H
