//===- ShapeUtils.cpp - shape helpers for nnc ops -------------------------===//
//
// Implementation of the shape arithmetic shared across the dialect.
//
//===----------------------------------------------------------------------===//

#include "nnc/ShapeUtils.h"

#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <string>

using namespace mlir;
using namespace nnc;

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

std::string formatList(ArrayRef<int64_t> values) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  llvm::interleaveComma(values, os);
  os << ']';
  return s;
}

} // namespace nnc

/// The number of elements ONNX Slice selects from a dimension of static size
/// `dim` (see the op description for the clamping rules).
int64_t nnc::sliceSize(int64_t start, int64_t end, int64_t step, int64_t dim) {
  if (dim == 0)
    return 0;
  if (start < 0)
    start += dim;
  if (end < 0)
    end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    return end > start ? (end - start - 1) / step + 1 : 0;
  }
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  if (start <= end)
    return 0;
  // -step may not be representable (INT64_MIN): divide as unsigned.
  uint64_t magnitude = 0 - static_cast<uint64_t>(step);
  return static_cast<int64_t>(
      static_cast<uint64_t>(start - end - 1) / magnitude + 1);
}

LogicalResult nnc::getSliceParams(std::optional<Location> loc,
                                  ArrayRef<int64_t> starts,
                                  ArrayRef<int64_t> ends,
                                  std::optional<ArrayRef<int64_t>> rawAxes,
                                  std::optional<ArrayRef<int64_t>> rawSteps,
                                  int64_t rank, SmallVectorImpl<int64_t> &axes,
                                  SmallVectorImpl<int64_t> &steps) {
  size_t n = starts.size();
  if (ends.size() != n)
    return emitOptionalError(loc, "starts has ", n, " entries but ends has ",
                             ends.size());
  SmallVector<int64_t> given;
  if (rawAxes) {
    if (rawAxes->size() != n)
      return emitOptionalError(loc, "axes has ", rawAxes->size(),
                               " entries but starts has ", n);
    given.assign(rawAxes->begin(), rawAxes->end());
  } else {
    for (size_t i = 0; i < n; ++i)
      given.push_back(i);
  }
  if (failed(normalizeAxes(loc, "slice", given, rank, axes)))
    return failure();
  if (rawSteps) {
    if (rawSteps->size() != n)
      return emitOptionalError(loc, "steps has ", rawSteps->size(),
                               " entries but starts has ", n);
    steps.assign(rawSteps->begin(), rawSteps->end());
    if (llvm::is_contained(steps, 0))
      return emitOptionalError(loc, "steps ", formatList(steps),
                               " contain a 0 step");
  } else {
    steps.assign(n, 1);
  }
  return success();
}

int64_t nnc::sliceStart(int64_t start, int64_t step, int64_t dim) {
  if (start < 0)
    start += dim;
  if (step > 0)
    return std::clamp<int64_t>(start, 0, dim);
  return std::clamp<int64_t>(start, 0, std::max<int64_t>(dim - 1, 0));
}

FailureOr<SmallVector<SliceBounds>>
nnc::resolveSliceBounds(std::optional<Location> loc, ArrayRef<int64_t> shape,
                        ArrayRef<int64_t> starts, ArrayRef<int64_t> ends,
                        std::optional<ArrayRef<int64_t>> axesArg,
                        std::optional<ArrayRef<int64_t>> stepsArg) {
  SmallVector<int64_t> axes, steps;
  if (failed(getSliceParams(loc, starts, ends, axesArg, stepsArg, shape.size(),
                            axes, steps)))
    return failure();
  SmallVector<SliceBounds> bounds;
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t dim = shape[axes[i]];
    if (isDynamicDim(dim))
      return emitOptionalError(loc, "slice of the dynamic dimension ", axes[i]);
    bounds.push_back({axes[i], sliceStart(starts[i], steps[i], dim), steps[i],
                      sliceSize(starts[i], ends[i], steps[i], dim)});
  }
  return bounds;
}

FailureOr<SmallVector<int64_t>>
nnc::computeReshapeDims(ArrayRef<int64_t> inShape, ArrayRef<int64_t> shape,
                        bool allowZero, std::string &error) {
  SmallVector<int64_t> dims(shape.size());
  SmallVector<bool> copied(inShape.size(), false);
  std::optional<size_t> inferred;
  bool hasZero = false;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == -1) {
      if (inferred) {
        error = "shape " + formatList(shape) + " has more than one -1";
        return failure();
      }
      inferred = i;
      dims[i] = ShapedType::kDynamic;
    } else if (d < -1) {
      error = "shape " + formatList(shape) + " has the invalid entry " +
              std::to_string(d);
      return failure();
    } else if (d == 0 && !allowZero) {
      if (i >= inShape.size()) {
        error = "shape entry " + std::to_string(i) +
                " is 0 (copy the input dimension) but the input has rank " +
                std::to_string(inShape.size());
        return failure();
      }
      dims[i] = inShape[i];
      copied[i] = true;
    } else {
      hasZero |= d == 0;
      dims[i] = d;
    }
  }
  if (inferred && hasZero) {
    error = "shape " + formatList(shape) +
            " has both 0 (with allowzero = 1) and -1";
    return failure();
  }
  // Dims copied by 0 appear on both sides and cancel out; when the rest of
  // the input is static, the -1 is inferred and the counts are checked.
  int64_t inCount = 1, outCount = 1;
  bool known = true, overflow = false;
  for (auto [i, d] : llvm::enumerate(inShape)) {
    if (copied[i])
      continue;
    if (isDynamicDim(d)) {
      known = false;
      break;
    }
    overflow |= llvm::MulOverflow(inCount, d, inCount);
  }
  for (auto [i, d] : llvm::enumerate(dims))
    if (i != inferred && !(i < copied.size() && copied[i]))
      overflow |= llvm::MulOverflow(outCount, d, outCount);
  if (overflow) {
    error = "shape " + formatList(shape) + " has too many elements";
    return failure();
  }
  if (known && inferred) {
    if (outCount == 0 || inCount % outCount != 0) {
      error = "cannot reshape " + formatShape(inShape) + " to " +
              formatList(shape) + ": the element counts do not divide";
      return failure();
    }
    dims[*inferred] = inCount / outCount;
  } else if (known && inCount != outCount) {
    error = "cannot reshape " + formatShape(inShape) + " to " +
            formatList(shape) + ": the element counts differ";
    return failure();
  }
  return dims;
}
