//===- NNCShapeOps.cpp - shape nnc ops ------------------------------------===//
//
// Verifiers, type inference, shape refinement and folders of the shape op
// family.
//
//===----------------------------------------------------------------------===//

#include "nnc/NNCOps.h"
#include "nnc/ShapeValues.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace nnc;

void NNCDialect::registerShapeOps() {
  addOperations<
#define GET_OP_LIST
#include "nnc/NNCShapeOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

/// The values of an array attribute, empty when it is absent. Inference runs
/// before ODS verification, so required attributes may still be missing.
static ArrayRef<int64_t> arrayOrEmpty(DenseI64ArrayAttr attr) {
  return attr ? attr.asArrayRef() : ArrayRef<int64_t>();
}

/// The entries of an optional array attribute, when it is present.
static std::optional<ArrayRef<int64_t>> optionalArray(DenseI64ArrayAttr attr) {
  if (!attr)
    return std::nullopt;
  return attr.asArrayRef();
}

/// The value of an integer attribute, or `defaultValue` when it is absent.
static int64_t intOr(IntegerAttr attr, int64_t defaultValue) {
  return attr ? attr.getValue().getSExtValue() : defaultValue;
}

/// Whether `values` is [0, 1, ..., n).
static bool isIdentityPermutation(ArrayRef<int64_t> values) {
  for (auto [i, v] : llvm::enumerate(values))
    if (v != static_cast<int64_t>(i))
      return false;
  return true;
}

/// Whether `type` is one of the nnc element types.
static bool isNNCElementType(Type type) {
  return type &&
         (type.isF16() || type.isBF16() || type.isF32() || type.isF64() ||
          type.isSignlessInteger(1) || type.isSignlessInteger(8) ||
          type.isSignlessInteger(32) || type.isSignlessInteger(64));
}

/// The product of the static dimensions of `shape` and the number of dynamic
/// ones; std::nullopt if the product overflows.
static std::optional<int64_t> staticProduct(ArrayRef<int64_t> shape,
                                            int64_t &numDynamic) {
  numDynamic = 0;
  int64_t product = 1;
  for (int64_t d : shape) {
    if (isDynamicDim(d)) {
      ++numDynamic;
      continue;
    }
    if (llvm::MulOverflow(product, d, product))
      return std::nullopt;
  }
  return product;
}

/// Checks that a tensor of shape `from` can be reinterpreted with shape `to`:
/// when one side is static, its element count must be a multiple of the
/// other side's static dimensions (equal to it when both are static).
static LogicalResult checkReshapeCounts(Operation *op, ArrayRef<int64_t> from,
                                        ArrayRef<int64_t> to) {
  int64_t fromDynamic, toDynamic;
  std::optional<int64_t> fromCount = staticProduct(from, fromDynamic);
  std::optional<int64_t> toCount = staticProduct(to, toDynamic);
  if (!fromCount || !toCount)
    return op->emitOpError("element count of shape ")
           << formatShape(fromCount ? to : from) << " overflows int64";
  auto fits = [](int64_t count, int64_t product, int64_t numDynamic) {
    if (numDynamic == 0)
      return count == product;
    return product == 0 ? count == 0 : count % product == 0;
  };
  if ((fromDynamic == 0 && !fits(*fromCount, *toCount, toDynamic)) ||
      (toDynamic == 0 && !fits(*toCount, *fromCount, fromDynamic)))
    return op->emitOpError("input shape ")
           << formatShape(from) << " and result shape " << formatShape(to)
           << " cannot have the same number of elements";
  return success();
}

/// Checks that the f64 attribute value `value` named `name` is representable
/// in `elementType`: integral and in range for integers, 0 or 1 for i1.
static LogicalResult checkFillValue(Operation *op, StringRef name, double value,
                                    Type elementType) {
  auto intType = dyn_cast<IntegerType>(elementType);
  if (!intType)
    return success();
  unsigned width = intType.getWidth();
  double lo = width == 1 ? 0.0 : -std::ldexp(1.0, width - 1);
  double hi = width == 1 ? 1.0 : std::ldexp(1.0, width - 1);
  // `hi` is exclusive except for i1, where it is the value 1 itself.
  bool inRange =
      width == 1 ? (value >= lo && value <= hi) : (value >= lo && value < hi);
  if (value != std::trunc(value) || !inRange)
    return op->emitOpError() << name << " " << value
                             << " is not representable in " << elementType;
  return success();
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  RankedTensorType in = getInput().getType(), out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("result element type ")
           << out.getElementType() << " differs from input element type "
           << in.getElementType();
  return checkReshapeCounts(*this, in.getShape(), out.getShape());
}

LogicalResult ReshapeOp::refineResultTypes(SmallVectorImpl<Type> &refined) {
  RankedTensorType in = getInput().getType(), out = getType();
  if (failed(checkReshapeCounts(*this, in.getShape(), out.getShape())))
    return failure();
  SmallVector<int64_t> dims(out.getShape());
  int64_t inDynamic, outDynamic;
  std::optional<int64_t> inCount = staticProduct(in.getShape(), inDynamic);
  std::optional<int64_t> outProduct = staticProduct(dims, outDynamic);
  // The counts were checked above: the division is exact.
  if (inCount && outProduct && inDynamic == 0 && outDynamic == 1 &&
      *outProduct != 0) {
    for (int64_t &d : dims)
      if (isDynamicDim(d))
        d = *inCount / *outProduct;
  }
  refined.push_back(out.clone(dims));
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (Attribute known = foldKnownShapeValue(getResult()))
    return known;
  RankedTensorType type = getType();
  // With two or more '?' the same type may still be a different shape.
  if (getInput().getType() == type && type.getNumDynamicDims() <= 1)
    return getInput();
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  if (auto constant =
          dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    if (type.hasStaticShape())
      return constant.reshape(type);
  return {};
}

//===----------------------------------------------------------------------===//
// ExpandOp
//===----------------------------------------------------------------------===//

LogicalResult ExpandOp::verify() {
  RankedTensorType in = getInput().getType(), out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("result element type ")
           << out.getElementType() << " differs from input element type "
           << in.getElementType();
  if (!isBroadcastableTo(in.getShape(), out.getShape()))
    return emitOpError("input shape ") << formatShape(in.getShape())
                                       << " does not broadcast to result shape "
                                       << formatShape(out.getShape());
  return success();
}

LogicalResult ExpandOp::refineResultTypes(SmallVectorImpl<Type> &refined) {
  RankedTensorType in = getInput().getType(), out = getType();
  if (!isBroadcastableTo(in.getShape(), out.getShape()))
    return emitOpError("input shape ") << formatShape(in.getShape())
                                       << " does not broadcast to result shape "
                                       << formatShape(out.getShape());
  SmallVector<int64_t> dims(out.getShape());
  int64_t offset = out.getRank() - in.getRank();
  for (auto [i, d] : llvm::enumerate(in.getShape()))
    if (!isDynamicDim(d) && d != 1)
      dims[offset + i] = d;
  refined.push_back(out.clone(dims));
  return success();
}

OpFoldResult ExpandOp::fold(FoldAdaptor) {
  if (Attribute known = foldKnownShapeValue(getResult()))
    return known;
  // A '?' input dimension might be a 1 that is broadcast.
  if (getInput().getType() == getType() && getType().hasStaticShape())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> in =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(in))
    return failure();
  ArrayRef<int64_t> perm = arrayOrEmpty(adaptor.getPermAttr());
  int64_t rank = in->getRank();
  if (static_cast<int64_t>(perm.size()) != rank)
    return emitOptionalError(loc, "perm has ", perm.size(),
                             " entries but input has rank ", rank);
  SmallVector<bool> seen(rank, false);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return emitOptionalError(loc, "perm ", formatList(perm),
                               " is not a permutation of [0, ", rank, ")");
    seen[p] = true;
    shape.push_back(in->getDimSize(p));
  }
  types.push_back(in->clone(shape));
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> perm = getPerm();
  if (isIdentityPermutation(perm) && getInput().getType() == getType())
    return getInput();
  if (auto inner = getInput().getDefiningOp<TransposeOp>()) {
    ArrayRef<int64_t> innerPerm = inner.getPerm();
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(innerPerm[p]);
    if (isIdentityPermutation(composed) &&
        inner.getInput().getType() == getType())
      return inner.getInput();
    setPerm(composed);
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(loc, "requires at least one input");
  SmallVector<RankedTensorType> ins;
  for (auto [i, value] : llvm::enumerate(inputs)) {
    FailureOr<RankedTensorType> in =
        getRankedTensor(loc, value.getType(), ("input " + Twine(i)).str());
    if (failed(in))
      return failure();
    ins.push_back(*in);
  }
  RankedTensorType first = ins.front();
  int64_t rank = first.getRank();
  for (auto [i, in] : llvm::enumerate(ins)) {
    if (in.getElementType() != first.getElementType())
      return emitOptionalError(loc, "input ", i, " has element type ",
                               in.getElementType(), " but input 0 has ",
                               first.getElementType());
    if (in.getRank() != rank)
      return emitOptionalError(loc, "input ", i, " has rank ", in.getRank(),
                               " but input 0 has rank ", rank);
  }
  int64_t axisValue = intOr(adaptor.getAxisAttr(), 0);
  std::optional<int64_t> axis = normalizeAxis(axisValue, rank);
  if (!axis)
    return emitOptionalError(loc, "axis ", axisValue,
                             " is out of range for rank ", rank);
  SmallVector<int64_t> shape(first.getShape());
  shape[*axis] = 0;
  for (auto [i, in] : llvm::enumerate(ins)) {
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = in.getDimSize(d);
      if (d == *axis) {
        if (isDynamicDim(size) || isDynamicDim(shape[d]))
          shape[d] = ShapedType::kDynamic;
        else if (llvm::AddOverflow(shape[d], size, shape[d]))
          return emitOptionalError(loc, "concatenated dimension ", d,
                                   " overflows int64");
        continue;
      }
      if (!dimsCompatible(shape[d], size))
        return emitOptionalError(
            loc, "input ", i, " has shape ", formatShape(in.getShape()),
            ", incompatible with ", formatShape(first.getShape()),
            " outside axis ", *axis);
      if (isDynamicDim(shape[d]))
        shape[d] = size;
    }
  }
  types.push_back(first.clone(shape));
  return success();
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (Attribute known = foldKnownShapeValue(getResult()))
    return known;
  if (getInputs().size() == 1 && getInputs().front().getType() == getType())
    return getInputs().front();
  return {};
}

//===----------------------------------------------------------------------===//
// SplitOp
//===----------------------------------------------------------------------===//

LogicalResult SplitOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> in =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(in))
    return failure();
  int64_t axisValue = intOr(adaptor.getAxisAttr(), 0);
  std::optional<int64_t> axis = normalizeAxis(axisValue, in->getRank());
  if (!axis)
    return emitOptionalError(loc, "axis ", axisValue,
                             " is out of range for rank ", in->getRank());
  ArrayRef<int64_t> sizes = arrayOrEmpty(adaptor.getSizesAttr());
  if (sizes.empty())
    return emitOptionalError(loc, "requires at least one size");
  int64_t sum = 0;
  for (int64_t size : sizes) {
    if (size < 0)
      return emitOptionalError(loc, "sizes ", formatList(sizes),
                               " contain a negative size");
    if (llvm::AddOverflow(sum, size, sum))
      return emitOptionalError(loc, "sizes ", formatList(sizes),
                               " overflow int64");
  }
  int64_t dim = in->getDimSize(*axis);
  if (!isDynamicDim(dim) && dim != sum)
    return emitOptionalError(loc, "sizes ", formatList(sizes), " sum to ", sum,
                             " but dimension ", *axis, " has size ", dim);
  for (int64_t size : sizes) {
    SmallVector<int64_t> shape(in->getShape());
    shape[*axis] = size;
    types.push_back(in->clone(shape));
  }
  return success();
}

LogicalResult SplitOp::fold(FoldAdaptor,
                            SmallVectorImpl<OpFoldResult> &results) {
  if (getNumResults() != 1 || getResult(0).getType() != getInput().getType())
    return failure();
  results.push_back(getInput());
  return success();
}

//===----------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------===//

OpFoldResult GatherOp::fold(FoldAdaptor) {
  return foldKnownShapeValue(getResult());
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> in =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(in))
    return failure();
  ArrayRef<int64_t> starts = arrayOrEmpty(adaptor.getStartsAttr());
  ArrayRef<int64_t> ends = arrayOrEmpty(adaptor.getEndsAttr());
  SmallVector<int64_t> axes, steps;
  if (failed(getSliceParams(
          loc, starts, ends, optionalArray(adaptor.getAxesAttr()),
          optionalArray(adaptor.getStepsAttr()), in->getRank(), axes, steps)))
    return failure();
  SmallVector<int64_t> shape(in->getShape());
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t &d = shape[axes[i]];
    if (!isDynamicDim(d))
      d = sliceSize(starts[i], ends[i], steps[i], d);
  }
  types.push_back(in->clone(shape));
  return success();
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  if (Attribute known = foldKnownShapeValue(getResult()))
    return known;
  RankedTensorType in = getInput().getType();
  if (in != getType())
    return {};
  SmallVector<int64_t> axes, steps;
  if (failed(getSliceParams(std::nullopt, getStarts(), getEnds(), getAxes(),
                            getSteps(), in.getRank(), axes, steps)))
    return {};
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t dim = in.getDimSize(axes[i]);
    int64_t start = getStarts()[i], end = getEnds()[i];
    bool fromBegin = start == 0 || (!isDynamicDim(dim) && start <= -dim);
    bool toEnd = end == kInt64Max || (!isDynamicDim(dim) && end >= dim);
    if (steps[i] != 1 || !fromBegin || !toEnd)
      return {};
  }
  return getInput();
}

//===----------------------------------------------------------------------===//
// PadOp
//===----------------------------------------------------------------------===//

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> in =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(in))
    return failure();
  int64_t rank = in->getRank();
  ArrayRef<int64_t> pads = arrayOrEmpty(adaptor.getPadsAttr());
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    return emitOptionalError(loc, "pads has ", pads.size(),
                             " entries but input has rank ", rank,
                             " (expected ", 2 * rank, ")");
  PadMode mode = adaptor.getModeAttr() ? adaptor.getModeAttr().getValue()
                                       : PadMode::constant;
  SmallVector<int64_t> shape(in->getShape());
  for (int64_t i = 0; i < rank; ++i) {
    int64_t before = pads[i], after = pads[rank + i], dim = shape[i];
    if (isDynamicDim(dim))
      continue;
    if (mode == PadMode::reflect &&
        ((before > 0 && before >= dim) || (after > 0 && after >= dim)))
      return emitOptionalError(loc, "reflect pads (", before, ", ", after,
                               ") of dimension ", i,
                               " must be smaller than its size ", dim);
    if ((mode == PadMode::edge || mode == PadMode::wrap) && dim == 0 &&
        (before > 0 || after > 0))
      return emitOptionalError(loc, stringifyPadMode(mode), " pads (", before,
                               ", ", after, ") of dimension ", i,
                               " need a non-empty dimension");
    int64_t size;
    if (llvm::AddOverflow(dim, before, size) ||
        llvm::AddOverflow(size, after, size) || size < 0)
      return emitOptionalError(loc, "pads (", before, ", ", after,
                               ") of dimension ", i, " of size ", dim,
                               " give an invalid size");
    shape[i] = size;
  }
  types.push_back(in->clone(shape));
  return success();
}

LogicalResult PadOp::verify() {
  double value = getValue().convertToDouble();
  if (getMode() != PadMode::constant && value != 0.0)
    return emitOpError("value ") << value << " is only used in constant mode";
  return checkFillValue(*this, "value", value,
                        getInput().getType().getElementType());
}

OpFoldResult PadOp::fold(FoldAdaptor) {
  if (llvm::all_of(getPads(), [](int64_t p) { return p == 0; }) &&
      getInput().getType() == getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// TileOp
//===----------------------------------------------------------------------===//

LogicalResult TileOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> in =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(in))
    return failure();
  ArrayRef<int64_t> repeats = arrayOrEmpty(adaptor.getRepeatsAttr());
  if (static_cast<int64_t>(repeats.size()) != in->getRank())
    return emitOptionalError(loc, "repeats has ", repeats.size(),
                             " entries but input has rank ", in->getRank());
  SmallVector<int64_t> shape(in->getShape());
  for (auto [i, r] : llvm::enumerate(repeats)) {
    if (r < 0)
      return emitOptionalError(loc, "repeats ", formatList(repeats),
                               " contain a negative count");
    if (r == 0)
      shape[i] = 0;
    else if (!isDynamicDim(shape[i]) &&
             llvm::MulOverflow(shape[i], r, shape[i]))
      return emitOptionalError(loc, "tiling dimension ", i, " of size ",
                               in->getDimSize(i), " by ", r,
                               " overflows int64");
  }
  types.push_back(in->clone(shape));
  return success();
}

OpFoldResult TileOp::fold(FoldAdaptor) {
  if (llvm::all_of(getRepeats(), [](int64_t r) { return r == 1; }) &&
      getInput().getType() == getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// SqueezeOp, UnsqueezeOp, FlattenOp
//===----------------------------------------------------------------------===//

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> in =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(in))
    return failure();
  SmallVector<bool> removed(in->getRank(), false);
  if (DenseI64ArrayAttr axesAttr = adaptor.getAxesAttr()) {
    SmallVector<int64_t> axes;
    if (failed(normalizeAxes(loc, "squeeze", axesAttr.asArrayRef(),
                             in->getRank(), axes)))
      return failure();
    for (int64_t axis : axes) {
      int64_t dim = in->getDimSize(axis);
      if (!isDynamicDim(dim) && dim != 1)
        return emitOptionalError(loc, "cannot squeeze dimension ", axis,
                                 " of size ", dim);
      removed[axis] = true;
    }
  } else {
    if (!in->hasStaticShape())
      return emitOptionalError(loc,
                               "squeeze without axes needs a static "
                               "input shape, got ",
                               formatShape(in->getShape()));
    for (auto [i, d] : llvm::enumerate(in->getShape()))
      removed[i] = d == 1;
  }
  SmallVector<int64_t> shape;
  for (auto [i, d] : llvm::enumerate(in->getShape()))
    if (!removed[i])
      shape.push_back(d);
  types.push_back(in->clone(shape));
  return success();
}

OpFoldResult SqueezeOp::fold(FoldAdaptor) {
  if (Attribute known = foldKnownShapeValue(getResult()))
    return known;
  if (getInput().getType() == getType())
    return getInput();
  auto unsqueeze = getInput().getDefiningOp<UnsqueezeOp>();
  if (!unsqueeze || !getAxes() || unsqueeze.getInput().getType() != getType())
    return {};
  int64_t rank = getInput().getType().getRank();
  SmallVector<int64_t> squeezed, inserted;
  if (failed(
          normalizeAxes(std::nullopt, "squeeze", *getAxes(), rank, squeezed)) ||
      failed(normalizeAxes(std::nullopt, "unsqueeze", unsqueeze.getAxes(), rank,
                           inserted)))
    return {};
  llvm::sort(squeezed);
  llvm::sort(inserted);
  if (squeezed == inserted)
    return unsqueeze.getInput();
  return {};
}

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> in =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(in))
    return failure();
  ArrayRef<int64_t> rawAxes = arrayOrEmpty(adaptor.getAxesAttr());
  int64_t rank = in->getRank() + static_cast<int64_t>(rawAxes.size());
  SmallVector<int64_t> axes;
  if (failed(normalizeAxes(loc, "unsqueeze", rawAxes, rank, axes)))
    return failure();
  SmallVector<bool> inserted(rank, false);
  for (int64_t axis : axes)
    inserted[axis] = true;
  SmallVector<int64_t> shape;
  ArrayRef<int64_t> inShape = in->getShape();
  for (int64_t i = 0; i < rank; ++i) {
    if (inserted[i]) {
      shape.push_back(1);
    } else {
      shape.push_back(inShape.front());
      inShape = inShape.drop_front();
    }
  }
  types.push_back(in->clone(shape));
  return success();
}

OpFoldResult UnsqueezeOp::fold(FoldAdaptor) {
  if (Attribute known = foldKnownShapeValue(getResult()))
    return known;
  if (getAxes().empty() && getInput().getType() == getType())
    return getInput();
  return {};
}

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> in =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(in))
    return failure();
  int64_t rank = in->getRank();
  int64_t axis = intOr(adaptor.getAxisAttr(), 1);
  if (axis < -rank || axis > rank)
    return emitOptionalError(loc, "axis ", axis, " is out of range [", -rank,
                             ", ", rank, "]");
  if (axis < 0)
    axis += rank;
  std::optional<int64_t> outer =
      getNumElements(in->getShape().take_front(axis));
  std::optional<int64_t> inner =
      getNumElements(in->getShape().drop_front(axis));
  if (!outer || !inner)
    return emitOptionalError(loc, "flattening shape ",
                             formatShape(in->getShape()), " overflows int64");
  types.push_back(
      RankedTensorType::get({*outer, *inner}, in->getElementType()));
  return success();
}

OpFoldResult FlattenOp::fold(FoldAdaptor) {
  if (Attribute known = foldKnownShapeValue(getResult()))
    return known;
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// TriluOp
//===----------------------------------------------------------------------===//

LogicalResult TriluOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> in =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(in))
    return failure();
  if (in->getRank() < 2)
    return emitOptionalError(loc, "expects an input of rank at least 2, got ",
                             in->getRank());
  types.push_back(*in);
  return success();
}

OpFoldResult TriluOp::fold(FoldAdaptor) {
  RankedTensorType type = getType();
  int64_t rows = type.getDimSize(type.getRank() - 2);
  int64_t cols = type.getDimSize(type.getRank() - 1);
  int64_t k = getK();
  // upper keeps col - row >= k: everything when k <= -(rows - 1).
  // lower keeps col - row <= k: everything when k >= cols - 1.
  bool keepsAll = getUpper() ? (!isDynamicDim(rows) && k <= 1 - rows)
                             : (!isDynamicDim(cols) && k >= cols - 1);
  if (keepsAll && getInput().getType() == type)
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// DepthToSpaceOp, SpaceToDepthOp
//===----------------------------------------------------------------------===//

/// Checks the common requirements of depth_to_space and space_to_depth and
/// returns blocksize^2.
static FailureOr<int64_t> checkBlockOp(std::optional<Location> loc,
                                       RankedTensorType in,
                                       IntegerAttr blocksizeAttr) {
  if (in.getRank() != 4)
    return emitOptionalError(loc, "expects a rank-4 NCHW input, got rank ",
                             in.getRank());
  int64_t blocksize = intOr(blocksizeAttr, 0);
  int64_t area;
  if (blocksize <= 0 || llvm::MulOverflow(blocksize, blocksize, area))
    return emitOptionalError(loc, "blocksize ", blocksize,
                             " must be positive and its square fit in int64");
  return area;
}

/// Multiplies a possibly dynamic dimension by `factor`; false on overflow.
static bool scaleDim(int64_t dim, int64_t factor, int64_t &result) {
  if (isDynamicDim(dim)) {
    result = dim;
    return true;
  }
  return !llvm::MulOverflow(dim, factor, result);
}

LogicalResult DepthToSpaceOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> in =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(in))
    return failure();
  FailureOr<int64_t> area = checkBlockOp(loc, *in, adaptor.getBlocksizeAttr());
  if (failed(area))
    return failure();
  int64_t blocksize = intOr(adaptor.getBlocksizeAttr(), 0);
  SmallVector<int64_t> shape(in->getShape());
  if (!isDynamicDim(shape[1])) {
    if (shape[1] % *area != 0)
      return emitOptionalError(loc, "channels ", shape[1],
                               " are not a multiple of blocksize^2 = ", *area);
    shape[1] /= *area;
  }
  if (!scaleDim(shape[2], blocksize, shape[2]) ||
      !scaleDim(shape[3], blocksize, shape[3]))
    return emitOptionalError(loc, "spatial dimensions of ",
                             formatShape(in->getShape()), " times blocksize ",
                             blocksize, " overflow int64");
  types.push_back(in->clone(shape));
  return success();
}

LogicalResult DepthToSpaceOp::verify() {
  if (getMode() != "DCR" && getMode() != "CRD")
    return emitOpError("mode \"")
           << getMode() << "\" is neither \"DCR\" nor \"CRD\"";
  return success();
}

LogicalResult SpaceToDepthOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> in =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(in))
    return failure();
  FailureOr<int64_t> area = checkBlockOp(loc, *in, adaptor.getBlocksizeAttr());
  if (failed(area))
    return failure();
  int64_t blocksize = intOr(adaptor.getBlocksizeAttr(), 0);
  SmallVector<int64_t> shape(in->getShape());
  for (int64_t d : {2, 3}) {
    if (isDynamicDim(shape[d]))
      continue;
    if (shape[d] % blocksize != 0)
      return emitOptionalError(loc, "spatial dimension ", d, " of size ",
                               shape[d], " is not a multiple of blocksize ",
                               blocksize);
    shape[d] /= blocksize;
  }
  if (!scaleDim(shape[1], *area, shape[1]))
    return emitOptionalError(loc, "channels ", in->getDimSize(1),
                             " times blocksize^2 = ", *area, " overflow int64");
  types.push_back(in->clone(shape));
  return success();
}

//===----------------------------------------------------------------------===//
// Gather and scatter
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> data =
      getRankedTensor(loc, adaptor.getData().getType(), "data");
  if (failed(data))
    return failure();
  FailureOr<RankedTensorType> indices =
      getRankedTensor(loc, adaptor.getIndices().getType(), "indices");
  if (failed(indices))
    return failure();
  int64_t axisValue = intOr(adaptor.getAxisAttr(), 0);
  std::optional<int64_t> axis = normalizeAxis(axisValue, data->getRank());
  if (!axis)
    return emitOptionalError(loc, "axis ", axisValue,
                             " is out of range for data rank ",
                             data->getRank());
  SmallVector<int64_t> shape(data->getShape().take_front(*axis));
  llvm::append_range(shape, indices->getShape());
  llvm::append_range(shape, data->getShape().drop_front(*axis + 1));
  types.push_back(data->clone(shape));
  return success();
}

/// Checks the data/indices relation of gather_elements and scatter_elements
/// and returns the normalized axis.
static FailureOr<int64_t> checkElementsIndices(std::optional<Location> loc,
                                               RankedTensorType data,
                                               RankedTensorType indices,
                                               IntegerAttr axisAttr) {
  if (indices.getRank() != data.getRank())
    return emitOptionalError(loc, "indices rank ", indices.getRank(),
                             " differs from data rank ", data.getRank());
  int64_t axisValue = intOr(axisAttr, 0);
  std::optional<int64_t> axis = normalizeAxis(axisValue, data.getRank());
  if (!axis)
    return emitOptionalError(loc, "axis ", axisValue,
                             " is out of range for data rank ", data.getRank());
  for (int64_t d = 0; d < data.getRank(); ++d) {
    int64_t i = indices.getDimSize(d), n = data.getDimSize(d);
    if (d != *axis && !isDynamicDim(i) && !isDynamicDim(n) && i > n)
      return emitOptionalError(loc, "indices dimension ", d, " of size ", i,
                               " exceeds the data's size ", n);
  }
  return *axis;
}

LogicalResult GatherElementsOp::inferReturnTypes(MLIRContext *,
                                                 std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> data =
      getRankedTensor(loc, adaptor.getData().getType(), "data");
  if (failed(data))
    return failure();
  FailureOr<RankedTensorType> indices =
      getRankedTensor(loc, adaptor.getIndices().getType(), "indices");
  if (failed(indices))
    return failure();
  if (failed(checkElementsIndices(loc, *data, *indices, adaptor.getAxisAttr())))
    return failure();
  types.push_back(indices->clone(data->getElementType()));
  return success();
}

/// Checks that the updates have the data's element type and a shape
/// compatible with `expected`.
static LogicalResult checkUpdates(std::optional<Location> loc,
                                  RankedTensorType data,
                                  RankedTensorType updates,
                                  ArrayRef<int64_t> expected) {
  if (updates.getElementType() != data.getElementType())
    return emitOptionalError(
        loc, "updates element type ", updates.getElementType(),
        " differs from data element type ", data.getElementType());
  if (!shapesCompatible(updates.getShape(), expected))
    return emitOptionalError(
        loc, "updates shape ", formatShape(updates.getShape()),
        " is incompatible with the expected ", formatShape(expected));
  return success();
}

LogicalResult
ScatterElementsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                    Adaptor adaptor,
                                    SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> data =
      getRankedTensor(loc, adaptor.getData().getType(), "data");
  if (failed(data))
    return failure();
  FailureOr<RankedTensorType> indices =
      getRankedTensor(loc, adaptor.getIndices().getType(), "indices");
  if (failed(indices))
    return failure();
  FailureOr<RankedTensorType> updates =
      getRankedTensor(loc, adaptor.getUpdates().getType(), "updates");
  if (failed(updates))
    return failure();
  if (failed(
          checkElementsIndices(loc, *data, *indices, adaptor.getAxisAttr())) ||
      failed(checkUpdates(loc, *data, *updates, indices->getShape())))
    return failure();
  types.push_back(*data);
  return success();
}

LogicalResult ScatterNDOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> data =
      getRankedTensor(loc, adaptor.getData().getType(), "data");
  if (failed(data))
    return failure();
  FailureOr<RankedTensorType> indices =
      getRankedTensor(loc, adaptor.getIndices().getType(), "indices");
  if (failed(indices))
    return failure();
  FailureOr<RankedTensorType> updates =
      getRankedTensor(loc, adaptor.getUpdates().getType(), "updates");
  if (failed(updates))
    return failure();
  int64_t r = data->getRank(), q = indices->getRank();
  if (r < 1 || q < 1)
    return emitOptionalError(loc,
                             "expects data and indices of rank at least "
                             "1, got ",
                             r, " and ", q);
  int64_t k = indices->getDimSize(q - 1);
  if (isDynamicDim(k)) {
    // updates rank = q - 1 + r - k determines k.
    k = q - 1 + r - updates->getRank();
    if (k < 1 || k > r)
      return emitOptionalError(loc, "updates rank ", updates->getRank(),
                               " implies an index length ", k, " outside [1, ",
                               r, "]");
  } else if (k < 1 || k > r) {
    return emitOptionalError(loc, "index length ", k, " is outside [1, ", r,
                             "] for data rank ", r);
  }
  SmallVector<int64_t> expected(indices->getShape().drop_back());
  llvm::append_range(expected, data->getShape().drop_front(k));
  if (failed(checkUpdates(loc, *data, *updates, expected)))
    return failure();
  types.push_back(*data);
  return success();
}

//===----------------------------------------------------------------------===//
// OneHotOp
//===----------------------------------------------------------------------===//

LogicalResult OneHotOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> indices =
      getRankedTensor(loc, adaptor.getIndices().getType(), "indices");
  if (failed(indices))
    return failure();
  TypeAttr elementType = adaptor.getElementTypeAttr();
  if (!elementType || !isNNCElementType(elementType.getValue()))
    return emitOptionalError(loc, "element type ",
                             elementType ? Attribute(elementType) : Attribute(),
                             " is not an nnc element type");
  int64_t depth = intOr(adaptor.getDepthAttr(), 0);
  if (depth <= 0)
    return emitOptionalError(loc, "depth ", depth, " must be positive");
  int64_t rank = indices->getRank();
  int64_t axis = intOr(adaptor.getAxisAttr(), -1);
  if (axis < -(rank + 1) || axis > rank)
    return emitOptionalError(loc, "axis ", axis, " is out of range [",
                             -(rank + 1), ", ", rank, "]");
  if (axis < 0)
    axis += rank + 1;
  SmallVector<int64_t> shape(indices->getShape());
  shape.insert(shape.begin() + axis, depth);
  types.push_back(RankedTensorType::get(shape, elementType.getValue()));
  return success();
}

//===----------------------------------------------------------------------===//
// Constant indices
//===----------------------------------------------------------------------===//

/// Refuses constant `indices` with an element outside [-n, n) for the
/// static size n of the data axis it indexes (`axisOf(k)` for element k;
/// -1: no axis). Indices that are not constant are checked at run time, by
/// the kernels (nnc.check_index).
static LogicalResult
checkConstantIndices(Operation *op, Value indices, RankedTensorType data,
                     llvm::function_ref<int64_t(int64_t)> axisOf) {
  DenseIntElementsAttr values;
  if (!matchPattern(indices, m_Constant(&values)))
    return success();
  // A splat is one value at every position: the first positions cover
  // every axis an element can index.
  int64_t count = values.getNumElements();
  if (values.isSplat())
    count = std::min<int64_t>(count, 64);
  auto it = values.value_begin<APInt>();
  for (int64_t k = 0; k < count; ++k, ++it) {
    int64_t axis = axisOf(k);
    if (axis < 0 || axis >= data.getRank() || data.isDynamicDim(axis))
      continue;
    int64_t size = data.getDimSize(axis);
    int64_t index = (*it).getSExtValue();
    if (index >= -size && index < size)
      continue;
    return op->emitOpError()
           << "constant index " << index << " (element " << k
           << " of the indices) is out of range [" << -size << ", " << size
           << ") for axis " << axis << " of the data";
  }
  return success();
}

/// The data axis an op's `axis` attribute names, or -1 when out of range
/// (type inference reports it).
static int64_t dataAxis(int64_t axis, RankedTensorType data) {
  int64_t rank = data.getRank();
  if (axis < -rank || axis >= rank)
    return -1;
  return axis < 0 ? axis + rank : axis;
}

/// The constant indices of an op whose every index is into its `axis`.
template <typename OpT> static LogicalResult checkConstantAxisIndices(OpT op) {
  auto data = cast<RankedTensorType>(op.getData().getType());
  int64_t axis = dataAxis(op.getAxis(), data);
  return checkConstantIndices(op, op.getIndices(), data,
                              [&](int64_t) { return axis; });
}

LogicalResult GatherOp::verify() { return checkConstantAxisIndices(*this); }

LogicalResult GatherElementsOp::verify() {
  return checkConstantAxisIndices(*this);
}

LogicalResult ScatterElementsOp::verify() {
  return checkConstantAxisIndices(*this);
}

LogicalResult ScatterNDOp::verify() {
  auto data = cast<RankedTensorType>(getData().getType());
  auto indices = cast<RankedTensorType>(getIndices().getType());
  // Element k of the row-major indices is coordinate k % K of its tuple.
  int64_t k =
      indices.getRank() == 0 ? ShapedType::kDynamic : indices.getShape().back();
  if (ShapedType::isDynamic(k) || k == 0)
    return success();
  return checkConstantIndices(*this, getIndices(), data,
                              [&](int64_t element) { return element % k; });
}

LogicalResult OneHotOp::verify() {
  Type elementType = getType().getElementType();
  if (failed(checkFillValue(*this, "on_value", getOnValue().convertToDouble(),
                            elementType)) ||
      failed(checkFillValue(*this, "off_value", getOffValue().convertToDouble(),
                            elementType)))
    return failure();
  return success();
}

#define GET_OP_CLASSES
#include "nnc/NNCShapeOps.cpp.inc"
