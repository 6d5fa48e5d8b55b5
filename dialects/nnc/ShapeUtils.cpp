//===- ShapeUtils.cpp - shape helpers for nnc ops -------------------------===//
//
// Implementation of the shape arithmetic shared across the dialect.
//
//===----------------------------------------------------------------------===//

#include "nnc/ShapeUtils.h"

#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace nnc {

bool broadcastShapes(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                     SmallVectorImpl<int64_t> &result) {
  size_t rank = std::max(lhs.size(), rhs.size());
  result.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < lhs.size() ? lhs[lhs.size() - 1 - i] : 1;
    int64_t b = i < rhs.size() ? rhs[rhs.size() - 1 - i] : 1;
    int64_t &out = result[rank - 1 - i];
    if (a == 1) {
      out = b;
    } else if (b == 1) {
      out = a;
    } else if (isDynamicDim(a)) {
      out = b;
    } else if (isDynamicDim(b) || a == b) {
      out = a;
    } else {
      return false;
    }
  }
  return true;
}

bool isBroadcastableTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  size_t offset = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    int64_t f = from[i], t = to[offset + i];
    if (f == 1 || dimsCompatible(f, t))
      continue;
    return false;
  }
  return true;
}

bool shapesCompatible(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!dimsCompatible(a[i], b[i]))
      return false;
  return true;
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

LogicalResult normalizeAxes(std::optional<Location> loc, StringRef what,
                            ArrayRef<int64_t> axes, int64_t rank,
                            SmallVectorImpl<int64_t> &result) {
  llvm::SmallSet<int64_t, 8> seen;
  result.clear();
  for (int64_t axis : axes) {
    std::optional<int64_t> norm = normalizeAxis(axis, rank);
    if (!norm)
      return emitOptionalError(loc, what, " axis ", axis,
                               " is out of range for rank ", rank);
    if (!seen.insert(*norm).second)
      return emitOptionalError(loc, what, " axis ", axis, " is repeated");
    result.push_back(*norm);
  }
  return success();
}

std::optional<int64_t> getNumElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  bool dynamic = false;
  for (int64_t d : shape) {
    if (isDynamicDim(d)) {
      dynamic = true;
      continue;
    }
    if (d < 0)
      return std::nullopt;
    int64_t next;
    if (llvm::MulOverflow(n, d, next))
      return std::nullopt;
    n = next;
  }
  return dynamic ? ShapedType::kDynamic : n;
}

FailureOr<RankedTensorType> getRankedTensor(std::optional<Location> loc,
                                            Type type, StringRef what) {
  if (auto ranked = dyn_cast<RankedTensorType>(type))
    return ranked;
  return emitOptionalError(loc, "expects ", what,
                           " to be a ranked tensor, got ", type);
}

LogicalResult inferBroadcastBinary(std::optional<Location> loc, Type lhs,
                                   Type rhs, Type resultElementType,
                                   SmallVectorImpl<Type> &inferred) {
  auto lhsType = dyn_cast<RankedTensorType>(lhs);
  auto rhsType = dyn_cast<RankedTensorType>(rhs);
  if (!lhsType || !rhsType)
    return emitOptionalError(loc, "expects ranked tensor operands, got ", lhs,
                             " and ", rhs);
  if (lhsType.getElementType() != rhsType.getElementType())
    return emitOptionalError(loc, "expects operands of one element type, got ",
                             lhsType.getElementType(), " and ",
                             rhsType.getElementType());
  SmallVector<int64_t> shape;
  if (!broadcastShapes(lhsType.getShape(), rhsType.getShape(), shape))
    return emitOptionalError(
        loc, "operand shapes ", formatShape(lhsType.getShape()), " and ",
        formatShape(rhsType.getShape()), " do not broadcast");
  Type elementType =
      resultElementType ? resultElementType : lhsType.getElementType();
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (shape.empty())
    return "scalar";
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (isDynamicDim(d))
          os << '?';
        else
          os << d;
      },
      "x");
  return s;
}

} // namespace nnc
