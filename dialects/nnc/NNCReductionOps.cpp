//===- NNCReductionOps.cpp - reduction nnc ops ----------------------------===//
//
// Type inference (which checks axes and element types), verifiers and
// folders of the reduction op family.
//
//===----------------------------------------------------------------------===//

#include "nnc/NNCOps.h"
#include "nnc/ShapeValues.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace nnc;

void NNCDialect::registerReductionOps() {
  addOperations<
#define GET_OP_LIST
#include "nnc/NNCReductionOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

/// Whether reduction `kind` needs a floating-point element type (it takes a
/// square root, logarithm or exponential).
static bool isFloatOnlyKind(ReduceKind kind) {
  return kind == ReduceKind::l2 || kind == ReduceKind::log_sum ||
         kind == ReduceKind::log_sum_exp;
}

/// Computes the distinct, non-negative axes reduced over: `axes` normalized,
/// all axes when it is empty, or none when it is empty and `noop` is set.
static LogicalResult computeReducedAxes(std::optional<Location> loc,
                                        ArrayRef<int64_t> axes, bool noop,
                                        int64_t rank,
                                        SmallVectorImpl<int64_t> &result) {
  if (axes.empty()) {
    result.clear();
    if (!noop)
      for (int64_t i = 0; i < rank; ++i)
        result.push_back(i);
    return success();
  }
  return normalizeAxes(loc, "reduction", axes, rank, result);
}

/// The shape left after reducing `shape` over the normalized `axes`.
static SmallVector<int64_t> reduceShape(ArrayRef<int64_t> shape,
                                        ArrayRef<int64_t> axes, bool keepdims) {
  SmallVector<int64_t> result;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (!llvm::is_contained(axes, static_cast<int64_t>(i)))
      result.push_back(d);
    else if (keepdims)
      result.push_back(1);
  }
  return result;
}

LogicalResult ReduceOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> input =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(input))
    return failure();
  if (ReduceKindAttr kind = adaptor.getKindAttr();
      kind && isFloatOnlyKind(kind.getValue()) &&
      !isa<FloatType>(input->getElementType()))
    return emitOptionalError(loc, "reduction kind '",
                             stringifyReduceKind(kind.getValue()),
                             "' requires a floating-point element type, got ",
                             input->getElementType());
  ArrayRef<int64_t> axes;
  if (DenseI64ArrayAttr attr = adaptor.getAxesAttr())
    axes = attr.asArrayRef();
  bool noop = adaptor.getNoopWithEmptyAxesAttr() &&
              adaptor.getNoopWithEmptyAxesAttr().getValue();
  bool keepdims =
      !adaptor.getKeepdimsAttr() || adaptor.getKeepdimsAttr().getValue();
  SmallVector<int64_t> reduced;
  if (failed(computeReducedAxes(loc, axes, noop, input->getRank(), reduced)))
    return failure();
  types.push_back(
      input->clone(reduceShape(input->getShape(), reduced, keepdims)));
  return success();
}

SmallVector<int64_t> ReduceOp::getReducedAxes() {
  SmallVector<int64_t> reduced;
  // The op verified, so the axes are valid.
  (void)computeReducedAxes(std::nullopt, getAxes(), getNoopWithEmptyAxes(),
                           getInput().getType().getRank(), reduced);
  return reduced;
}

OpFoldResult ReduceOp::fold(FoldAdaptor) {
  if (Attribute known = foldKnownShapeValue(getResult()))
    return known;
  if (getInput().getType() != getType())
    return {};
  if (getAxes().empty() && getNoopWithEmptyAxes())
    return getInput();
  // Reducing only unit dimensions leaves every element alone for these kinds
  // (not for l1, l2 or the logarithmic ones, which transform the element).
  ReduceKind kind = getKind();
  bool identityOnOne = kind == ReduceKind::sum || kind == ReduceKind::mean ||
                       kind == ReduceKind::max || kind == ReduceKind::min ||
                       kind == ReduceKind::prod;
  ArrayRef<int64_t> shape = getInput().getType().getShape();
  if (identityOnOne && llvm::all_of(getReducedAxes(), [&](int64_t axis) {
        return shape[axis] == 1;
      }))
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// ArgReduceOp
//===----------------------------------------------------------------------===//

LogicalResult ArgReduceOp::inferReturnTypes(MLIRContext *ctx,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> input =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(input))
    return failure();
  int64_t axis = adaptor.getAxisAttr() ? adaptor.getAxisAttr().getInt() : 0;
  std::optional<int64_t> norm = normalizeAxis(axis, input->getRank());
  if (!norm)
    return emitOptionalError(loc, "axis ", axis, " is out of range for rank ",
                             input->getRank());
  bool keepdims =
      !adaptor.getKeepdimsAttr() || adaptor.getKeepdimsAttr().getValue();
  types.push_back(
      RankedTensorType::get(reduceShape(input->getShape(), {*norm}, keepdims),
                            IntegerType::get(ctx, 64)));
  return success();
}

//===----------------------------------------------------------------------===//
// CumSumOp
//===----------------------------------------------------------------------===//

LogicalResult CumSumOp::verify() {
  int64_t rank = getInput().getType().getRank();
  if (!normalizeAxis(getAxis(), rank))
    return emitOpError("axis ")
           << getAxis() << " is out of range for rank " << rank;
  return success();
}

OpFoldResult CumSumOp::fold(FoldAdaptor) {
  // An inclusive running sum along a unit axis is the input itself.
  RankedTensorType type = getInput().getType();
  std::optional<int64_t> axis = normalizeAxis(getAxis(), type.getRank());
  if (axis && !getExclusive() && type.getDimSize(*axis) == 1)
    return getInput();
  return {};
}

#define GET_OP_CLASSES
#include "nnc/NNCReductionOps.cpp.inc"
