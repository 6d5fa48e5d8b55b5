//===- NNCDynamicShapeOps.cpp - shapes known at run time ------------------===//
//
// shape_of and the dynamic shape ops: verifiers, the result types that what
// is known of their shape operands gives (ShapeValues.h), and their
// resolution to the static ops once the shape operands are known.
//
//===----------------------------------------------------------------------===//

#include "nnc/NNCOps.h"
#include "nnc/ShapeValues.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseSet.h"

#include <cmath>

using namespace mlir;
using namespace nnc;

namespace nnc::detail {
/// Adds the pattern that resolves the dynamic shape op `name` once its
/// shape operands are known (the canonicalizer of each, NNCDynamicShapeOps.td).
void addResolvePattern(RewritePatternSet &results, MLIRContext *context,
                       StringRef name);
} // namespace nnc::detail

#define GET_OP_CLASSES
#include "nnc/NNCDynamicShapeOps.cpp.inc"

void NNCDialect::registerDynamicShapeOps() {
  addOperations<
#define GET_OP_LIST
#include "nnc/NNCDynamicShapeOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The most elements a range resolves to as a constant.
static constexpr int64_t kMaxRangeElements = 1 << 20;

/// What is known of a 1-D shape operand, one entry per element ('?' for an
/// unknown one); every entry unknown when nothing is known.
static SmallVector<int64_t> knownEntries(Value operand) {
  auto type = cast<RankedTensorType>(operand.getType());
  int64_t n = type.hasStaticShape() ? type.getNumElements() : 0;
  SmallVector<int64_t> entries(n, ShapedType::kDynamic);
  if (std::optional<ShapeValue> v = getShapeValue(operand))
    for (auto [i, e] : llvm::enumerate(v->elements))
      if (e)
        entries[i] = *e;
  return entries;
}

/// The meet of two shapes of one rank: static wherever either is. Fails when
/// they disagree on a static dimension.
static FailureOr<SmallVector<int64_t>> meet(ArrayRef<int64_t> a,
                                            ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return failure();
  SmallVector<int64_t> result;
  for (auto [x, y] : llvm::zip_equal(a, b)) {
    if (!isDynamicDim(x) && !isDynamicDim(y) && x != y)
      return failure();
    result.push_back(isDynamicDim(x) ? y : x);
  }
  return result;
}

/// Appends `shape` (more refined than the op's result type where it is
/// static) to `refined`, or fails with an error at `op` on a contradiction.
static LogicalResult refineTo(Operation *op, ArrayRef<int64_t> shape,
                              SmallVectorImpl<Type> &refined) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  FailureOr<SmallVector<int64_t>> dims = meet(type.getShape(), shape);
  if (failed(dims))
    return op->emitOpError("shape operands give the result shape ")
           << formatShape(shape) << ", which contradicts the result type "
           << type;
  refined.push_back(type.clone(*dims));
  return success();
}

/// Checks that a shape operand has a static length, and `expected` entries
/// when given.
static LogicalResult verifyShapeOperand(Operation *op, Value operand,
                                        StringRef name,
                                        std::optional<int64_t> expected) {
  auto type = cast<RankedTensorType>(operand.getType());
  if (type.isDynamicDim(0))
    return op->emitOpError()
           << name << " must have a static length, got " << type;
  if (expected && type.getDimSize(0) != *expected)
    return op->emitOpError() << name << " has " << type.getDimSize(0)
                             << " entries, expected " << *expected;
  return success();
}

static LogicalResult verifySameElementType(Operation *op) {
  Type in =
      cast<RankedTensorType>(op->getOperand(0).getType()).getElementType();
  Type out =
      cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
  if (in != out)
    return op->emitOpError("result element type ")
           << out << " differs from input element type " << in;
  return success();
}

/// The checks of the ops whose result keeps the input's rank: the ranks
/// agree, and what the shape operands give agrees with the result type.
static LogicalResult verifySameRankRefined(Operation *op) {
  auto in = cast<RankedTensorType>(op->getOperand(0).getType());
  auto out = cast<RankedTensorType>(op->getResult(0).getType());
  if (in.getRank() != out.getRank())
    return op->emitOpError("result rank ")
           << out.getRank() << " differs from the input rank " << in.getRank();
  SmallVector<Type> refined;
  return cast<ShapeRefinementOpInterface>(op).refineResultTypes(refined);
}

/// The resolved value typed as precisely as `declared` allows: the static
/// op's result, refined by the declared result type where the static op's
/// inference leaves a '?'.
static Value withDeclaredType(OpBuilder &builder, Location loc, Value value,
                              RankedTensorType declared) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type == declared)
    return value;
  FailureOr<SmallVector<int64_t>> dims =
      meet(type.getShape(), declared.getShape());
  if (failed(dims) || ArrayRef<int64_t>(*dims) == type.getShape())
    return value;
  return tensor::CastOp::create(builder, loc, type.clone(*dims), value);
}

namespace {
/// Replaces a dynamic shape op by its static form once that is known; the
/// value keeps the op's type through a cast when it is more refined. Shape
/// operands that are known but invalid leave the op as it is, without a
/// diagnostic: shape inference, which every compile runs, reports them.
struct ResolvePattern : public RewritePattern {
  ResolvePattern(StringRef name, MLIRContext *context)
      : RewritePattern(name, /*benefit=*/1, context) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    auto resolvable = cast<ResolvableOpInterface>(op);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op);
    SmallVector<Value> values;
    LogicalResult resolved = failure();
    {
      ScopedDiagnosticHandler quiet(op->getContext(),
                                    [](Diagnostic &) { return success(); });
      resolved = resolvable.resolve(rewriter, values);
    }
    if (failed(resolved))
      return rewriter.notifyMatchFailure(op, "invalid shape operands");
    if (values.empty())
      return rewriter.notifyMatchFailure(op, "shape operands not known");
    for (unsigned i = 0, e = op->getNumResults(); i < e; ++i) {
      Type declared = op->getResult(i).getType();
      if (values[i].getType() != declared)
        values[i] =
            tensor::CastOp::create(rewriter, op->getLoc(), declared, values[i]);
    }
    rewriter.replaceOp(op, values);
    return success();
  }
};
} // namespace

void nnc::detail::addResolvePattern(RewritePatternSet &results,
                                    MLIRContext *context, StringRef name) {
  results.add<ResolvePattern>(name, context);
}

//===----------------------------------------------------------------------===//
// ShapeOfOp
//===----------------------------------------------------------------------===//

/// The normalized [start, end) of ONNX Shape over `rank` dimensions.
static std::pair<int64_t, int64_t>
shapeRange(IntegerAttr startAttr, IntegerAttr endAttr, int64_t rank) {
  int64_t start = startAttr ? startAttr.getInt() : 0;
  int64_t end = endAttr ? endAttr.getInt() : rank;
  return {start, end};
}

int64_t ShapeOfOp::getStartDim() {
  return shapeRange(getStartAttr(), getEndAttr(),
                    getInput().getType().getRank())
      .first;
}

int64_t ShapeOfOp::getEndDim() {
  return shapeRange(getStartAttr(), getEndAttr(),
                    getInput().getType().getRank())
      .second;
}

LogicalResult ShapeOfOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> in =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(in))
    return failure();
  auto [start, end] =
      shapeRange(adaptor.getStartAttr(), adaptor.getEndAttr(), in->getRank());
  if (start < 0 || start > end || end > in->getRank())
    return emitOptionalError(loc, "dimensions [", start, ", ", end,
                             ") are not a range of the input's ",
                             in->getRank());
  types.push_back(
      RankedTensorType::get({end - start}, IntegerType::get(context, 64)));
  return success();
}

OpFoldResult ShapeOfOp::fold(FoldAdaptor) {
  return foldKnownShapeValue(getResult());
}

//===----------------------------------------------------------------------===//
// DynamicReshapeOp
//===----------------------------------------------------------------------===//

/// The result shape of a reshape to `entries` ('?' for unknown entries).
static SmallVector<int64_t> reshapeResult(ArrayRef<int64_t> inShape,
                                          ArrayRef<int64_t> entries,
                                          bool allowZero) {
  SmallVector<int64_t> dims;
  for (auto [i, e] : llvm::enumerate(entries)) {
    if (e == 0 && !allowZero)
      dims.push_back(i < inShape.size() ? inShape[i] : ShapedType::kDynamic);
    else
      dims.push_back(e < 0 ? ShapedType::kDynamic : e);
  }
  return dims;
}

LogicalResult DynamicReshapeOp::verify() {
  if (failed(verifySameElementType(*this)) ||
      failed(
          verifyShapeOperand(*this, getShape(), "shape", getType().getRank())))
    return failure();
  SmallVector<Type> refined;
  return refineResultTypes(refined);
}

LogicalResult
DynamicReshapeOp::refineResultTypes(SmallVectorImpl<Type> &refined) {
  return refineTo(*this,
                  reshapeResult(getInput().getType().getShape(),
                                knownEntries(getShape()), getAllowzero()),
                  refined);
}

LogicalResult DynamicReshapeOp::resolve(OpBuilder &builder,
                                        SmallVectorImpl<Value> &results) {
  std::optional<SmallVector<int64_t>> shape = getKnownInts(getShape());
  if (!shape)
    return success();
  std::string error;
  FailureOr<SmallVector<int64_t>> dims = computeReshapeDims(
      getInput().getType().getShape(), *shape, getAllowzero(), error);
  if (failed(dims))
    return emitOpError(error);
  FailureOr<SmallVector<int64_t>> refined = meet(*dims, getType().getShape());
  if (failed(refined))
    return emitOpError("reshape to ")
           << formatShape(*dims) << " contradicts the result type "
           << getType();
  if (llvm::count_if(*refined, isDynamicDim) > 1)
    return success(); // nnc.reshape infers at most one '?'.
  results.push_back(ReshapeOp::create(builder, getLoc(),
                                      getType().clone(*refined), getInput())
                        .getResult());
  return success();
}

//===----------------------------------------------------------------------===//
// DynamicExpandOp
//===----------------------------------------------------------------------===//

LogicalResult DynamicExpandOp::verify() {
  if (failed(verifySameElementType(*this)) ||
      failed(verifyShapeOperand(*this, getShape(), "shape", std::nullopt)))
    return failure();
  int64_t rank = std::max(getInput().getType().getRank(),
                          getShape().getType().getDimSize(0));
  if (getType().getRank() != rank)
    return emitOpError("result rank ")
           << getType().getRank() << " differs from the broadcast rank "
           << rank;
  SmallVector<Type> refined;
  return refineResultTypes(refined);
}

LogicalResult
DynamicExpandOp::refineResultTypes(SmallVectorImpl<Type> &refined) {
  // A requested 1 keeps the input's dimension; an unknown one may be 1.
  SmallVector<int64_t> requested = knownEntries(getShape()), dims;
  ArrayRef<int64_t> in = getInput().getType().getShape();
  int64_t rank = std::max<int64_t>(in.size(), requested.size());
  for (int64_t d = 0; d < rank; ++d) {
    int64_t i = d - (rank - static_cast<int64_t>(in.size()));
    int64_t r = d - (rank - static_cast<int64_t>(requested.size()));
    int64_t a = i >= 0 ? in[i] : 1, b = r >= 0 ? requested[r] : 1;
    if (!isDynamicDim(a) && !isDynamicDim(b) && a != b && a != 1 && b != 1)
      return emitOpError("cannot broadcast input of shape ")
             << formatShape(in) << " to shape " << formatShape(requested);
    if (b == 1 || (!isDynamicDim(a) && a != 1))
      dims.push_back(a);
    else if (a == 1 || (!isDynamicDim(b) && b != 1))
      dims.push_back(b);
    else
      dims.push_back(ShapedType::kDynamic);
  }
  return refineTo(*this, dims, refined);
}

LogicalResult DynamicExpandOp::resolve(OpBuilder &builder,
                                       SmallVectorImpl<Value> &results) {
  std::optional<SmallVector<int64_t>> shape = getKnownInts(getShape());
  if (!shape)
    return success();
  for (int64_t d : *shape)
    if (d < 0)
      return emitOpError("shape ")
             << formatShape(*shape) << " has a negative dimension";
  SmallVector<Type> refined;
  if (failed(refineResultTypes(refined)))
    return failure();
  auto type = cast<RankedTensorType>(refined.front());
  SmallVector<int64_t> dims;
  if (!broadcastShapes(getInput().getType().getShape(), *shape, dims))
    return emitOpError("cannot broadcast input of shape ")
           << formatShape(getInput().getType().getShape()) << " to shape "
           << formatShape(*shape);
  FailureOr<SmallVector<int64_t>> result = meet(dims, type.getShape());
  if (failed(result))
    return emitOpError("broadcast shape ")
           << formatShape(dims) << " contradicts the result type " << type;
  results.push_back(
      ExpandOp::create(builder, getLoc(), type.clone(*result), getInput())
          .getResult());
  return success();
}

//===----------------------------------------------------------------------===//
// DynamicSliceOp
//===----------------------------------------------------------------------===//

LogicalResult DynamicSliceOp::verify() {
  if (failed(verifySameElementType(*this)) ||
      failed(verifyShapeOperand(*this, getStarts(), "starts", std::nullopt)))
    return failure();
  int64_t n = getStarts().getType().getDimSize(0);
  if (failed(verifyShapeOperand(*this, getEnds(), "ends", n)) ||
      failed(verifyShapeOperand(*this, getAxes(), "axes", n)) ||
      failed(verifyShapeOperand(*this, getSteps(), "steps", n)))
    return failure();
  return verifySameRankRefined(*this);
}

LogicalResult
DynamicSliceOp::refineResultTypes(SmallVectorImpl<Type> &refined) {
  ArrayRef<int64_t> in = getInput().getType().getShape();
  SmallVector<int64_t> starts = knownEntries(getStarts());
  SmallVector<int64_t> ends = knownEntries(getEnds());
  SmallVector<int64_t> axes = knownEntries(getAxes());
  SmallVector<int64_t> steps = knownEntries(getSteps());
  int64_t rank = in.size();
  SmallVector<int64_t> dims(in);
  // Without the axes every dimension may be sliced.
  if (llvm::any_of(axes, isDynamicDim)) {
    dims.assign(rank, ShapedType::kDynamic);
    return refineTo(*this, dims, refined);
  }
  for (auto [i, a] : llvm::enumerate(axes)) {
    std::optional<int64_t> axis = normalizeAxis(a, rank);
    if (!axis)
      return emitOpError("axis ") << a << " is out of range for rank " << rank;
    if (steps[i] == 0)
      return emitOpError("steps contain a 0 step");
    bool known = !isDynamicDim(in[*axis]) && !isDynamicDim(starts[i]) &&
                 !isDynamicDim(ends[i]) && !isDynamicDim(steps[i]);
    dims[*axis] = known ? sliceSize(starts[i], ends[i], steps[i], in[*axis])
                        : ShapedType::kDynamic;
  }
  return refineTo(*this, dims, refined);
}

LogicalResult DynamicSliceOp::resolve(OpBuilder &builder,
                                      SmallVectorImpl<Value> &results) {
  std::optional<SmallVector<int64_t>> starts = getKnownInts(getStarts());
  std::optional<SmallVector<int64_t>> ends = getKnownInts(getEnds());
  std::optional<SmallVector<int64_t>> axes = getKnownInts(getAxes());
  std::optional<SmallVector<int64_t>> steps = getKnownInts(getSteps());
  if (!starts || !ends || !axes || !steps)
    return success();
  SmallVector<int64_t> normalizedAxes, normalizedSteps;
  if (failed(getSliceParams(getLoc(), *starts, *ends, ArrayRef(*axes),
                            ArrayRef(*steps), getInput().getType().getRank(),
                            normalizedAxes, normalizedSteps)))
    return failure();
  Value slice = SliceOp::create(builder, getLoc(), getInput(),
                                builder.getDenseI64ArrayAttr(*starts),
                                builder.getDenseI64ArrayAttr(*ends),
                                builder.getDenseI64ArrayAttr(*axes),
                                builder.getDenseI64ArrayAttr(*steps))
                    .getResult();
  results.push_back(withDeclaredType(builder, getLoc(), slice, getType()));
  return success();
}

//===----------------------------------------------------------------------===//
// DynamicTileOp
//===----------------------------------------------------------------------===//

LogicalResult DynamicTileOp::verify() {
  if (failed(verifySameElementType(*this)) ||
      failed(verifyShapeOperand(*this, getRepeats(), "repeats",
                                getInput().getType().getRank())))
    return failure();
  return verifySameRankRefined(*this);
}

LogicalResult DynamicTileOp::refineResultTypes(SmallVectorImpl<Type> &refined) {
  ArrayRef<int64_t> in = getInput().getType().getShape();
  SmallVector<int64_t> repeats = knownEntries(getRepeats()), dims;
  for (auto [d, r] : llvm::zip_equal(in, repeats)) {
    if (!isDynamicDim(r) && r < 0)
      return emitOpError("repeats contain the negative entry ") << r;
    bool known = !isDynamicDim(d) && !isDynamicDim(r);
    dims.push_back(known ? d * r : ShapedType::kDynamic);
  }
  return refineTo(*this, dims, refined);
}

LogicalResult DynamicTileOp::resolve(OpBuilder &builder,
                                     SmallVectorImpl<Value> &results) {
  std::optional<SmallVector<int64_t>> repeats = getKnownInts(getRepeats());
  if (!repeats)
    return success();
  SmallVector<Type> refined;
  if (failed(refineResultTypes(refined)))
    return failure();
  Value tile = TileOp::create(builder, getLoc(), getInput(),
                              builder.getDenseI64ArrayAttr(*repeats))
                   .getResult();
  results.push_back(withDeclaredType(builder, getLoc(), tile, getType()));
  return success();
}

//===----------------------------------------------------------------------===//
// DynamicRangeOp
//===----------------------------------------------------------------------===//

LogicalResult DynamicRangeOp::verify() {
  Type element = getType().getElementType();
  for (Value operand : getOperands()) {
    auto type = cast<RankedTensorType>(operand.getType());
    if (type.getRank() != 0 || type.getElementType() != element)
      return emitOpError("start, limit and delta must be rank-0 tensors of ")
             << element << ", got " << type;
  }
  if (getType().getRank() != 1)
    return emitOpError("result must be 1-D, got ") << getType();
  return success();
}

/// A rank-0 operand's value as a double when it is known.
static std::optional<double> knownScalar(Value operand) {
  auto type = cast<RankedTensorType>(operand.getType());
  if (isa<IntegerType>(type.getElementType())) {
    std::optional<SmallVector<int64_t>> v = getKnownInts(operand);
    if (!v || v->size() != 1)
      return std::nullopt;
    return static_cast<double>(v->front());
  }
  DenseElementsAttr attr;
  if (!matchPattern(operand, m_Constant(&attr)) || attr.getNumElements() != 1)
    return std::nullopt;
  return (*attr.getValues<APFloat>().begin()).convertToDouble();
}

/// The element count of a range; fails when delta is 0.
static FailureOr<int64_t> rangeCount(Operation *op, Type element,
                                     std::optional<int64_t> istart,
                                     std::optional<int64_t> ilimit,
                                     std::optional<int64_t> idelta,
                                     double start, double limit, double delta) {
  if (delta == 0)
    return op->emitOpError("delta is 0");
  if (isa<IntegerType>(element)) {
    // ceil((limit - start) / delta), in 128 bits to avoid overflow.
    __int128 span = static_cast<__int128>(*ilimit) - *istart;
    __int128 n = span / *idelta;
    if (n * *idelta != span && (span < 0) == (*idelta < 0))
      n += 1;
    return static_cast<int64_t>(std::clamp<__int128>(n, 0, INT64_MAX));
  }
  double n = std::ceil((limit - start) / delta);
  if (!(n > 0))
    return int64_t(0);
  return n > static_cast<double>(INT64_MAX) ? INT64_MAX
                                            : static_cast<int64_t>(n);
}

LogicalResult
DynamicRangeOp::refineResultTypes(SmallVectorImpl<Type> &refined) {
  refined.push_back(getType());
  return success();
}

LogicalResult DynamicRangeOp::resolve(OpBuilder &builder,
                                      SmallVectorImpl<Value> &results) {
  std::optional<double> start = knownScalar(getStart());
  std::optional<double> limit = knownScalar(getLimit());
  std::optional<double> delta = knownScalar(getDelta());
  if (!start || !limit || !delta)
    return success();
  Type element = getType().getElementType();
  std::optional<int64_t> istart, ilimit, idelta;
  if (isa<IntegerType>(element)) {
    istart = getKnownInts(getStart())->front();
    ilimit = getKnownInts(getLimit())->front();
    idelta = getKnownInts(getDelta())->front();
  }
  FailureOr<int64_t> count = rangeCount(*this, element, istart, ilimit, idelta,
                                        *start, *limit, *delta);
  if (failed(count))
    return failure();
  if (*count > kMaxRangeElements)
    return emitOpError("range of ") << *count << " elements; at most "
                                    << kMaxRangeElements << " are materialized";
  if (!getType().isDynamicDim(0) && getType().getDimSize(0) != *count)
    return emitOpError("range of ")
           << *count << " elements contradicts the result type " << getType();
  auto type = RankedTensorType::get({*count}, element);
  DenseElementsAttr value;
  if (isa<IntegerType>(element)) {
    SmallVector<int64_t> values;
    for (int64_t i = 0; i < *count; ++i)
      values.push_back(
          static_cast<int64_t>(*istart + static_cast<__int128>(i) * *idelta));
    value = getIntsAttr(type, values);
  } else {
    auto floatType = cast<FloatType>(element);
    SmallVector<APFloat> values;
    for (int64_t i = 0; i < *count; ++i) {
      APFloat v(*start + static_cast<double>(i) * *delta);
      bool lost;
      v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      values.push_back(v);
    }
    value = DenseElementsAttr::get(type, values);
  }
  results.push_back(ConstantOp::create(builder, getLoc(), value).getResult());
  return success();
}

//===----------------------------------------------------------------------===//
// DynamicAttrsOp
//===----------------------------------------------------------------------===//

/// The attribute kinds of `nnc.dynamic_attrs`.
static constexpr StringLiteral kI64Kind = "i64", kI64sKind = "i64s";

/// The registered op `op` stands for, unless it names no nnc op or one of
/// the ops that resolve (which would never become static).
static std::optional<RegisteredOperationName> getTargetOp(DynamicAttrsOp op) {
  std::optional<RegisteredOperationName> name =
      RegisteredOperationName::lookup(op.getOpName(), op.getContext());
  if (!name || &name->getDialect() != op->getDialect() ||
      name->hasInterface<ResolvableOpInterface>())
    return std::nullopt;
  return name;
}

OperandRange DynamicAttrsOp::getShapeOperands() { return getValues(); }

void DynamicAttrsOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                 MLIRContext *context) {
  nnc::detail::addResolvePattern(results, context, getOperationName());
}

LogicalResult DynamicAttrsOp::verify() {
  std::optional<RegisteredOperationName> target = getTargetOp(*this);
  if (!target)
    return emitOpError("'")
           << getOpName() << "' is not an nnc op with a static form";
  size_t n = getValues().size();
  if (getNames().size() != n || getKinds().size() != n)
    return emitOpError("has ")
           << n << " values but " << getNames().size() << " names and "
           << getKinds().size() << " kinds";
  ArrayRef<StringAttr> inherent = target->getAttributeNames();
  auto checkName = [&](StringAttr name) -> LogicalResult {
    if (!llvm::is_contained(inherent, name))
      return emitOpError("'")
             << getOpName() << "' has no attribute '" << name.getValue() << "'";
    return success();
  };
  for (NamedAttribute attr : getStaticAttrs())
    if (failed(checkName(attr.getName())))
      return failure();
  llvm::SmallDenseSet<StringAttr> seen;
  for (auto [value, nameAttr, kindAttr] :
       llvm::zip_equal(getValues(), getNames(), getKinds())) {
    auto name = cast<StringAttr>(nameAttr);
    StringRef kind = cast<StringAttr>(kindAttr).getValue();
    if (failed(checkName(name)))
      return failure();
    if (getStaticAttrs().contains(name) || !seen.insert(name).second)
      return emitOpError("attribute '")
             << name.getValue() << "' is given twice";
    if (kind != kI64Kind && kind != kI64sKind)
      return emitOpError("kind '") << kind << "' of attribute '"
                                   << name.getValue() << "' is not i64 or i64s";
    std::optional<int64_t> length;
    if (kind != kI64sKind)
      length = 1;
    if (failed(verifyShapeOperand(*this, value, name.getValue(), length)))
      return failure();
  }
  return success();
}

void DynamicAttrsOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // The static op's effects depend on its attributes (a dropout draws
  // random numbers only while training); until they are known, an op that
  // is not always speculatable is taken to read and write memory.
  std::optional<RegisteredOperationName> target = getTargetOp(*this);
  if (target && target->hasTrait<OpTrait::AlwaysSpeculatableImplTrait>())
    return;
  effects.emplace_back(MemoryEffects::Read::get());
  effects.emplace_back(MemoryEffects::Write::get());
}

LogicalResult
DynamicAttrsOp::refineResultTypes(SmallVectorImpl<Type> &refined) {
  // What the attributes give is known once they are; until then the
  // declared types hold what the importer knew.
  llvm::append_range(refined, getResultTypes());
  return success();
}

LogicalResult DynamicAttrsOp::resolve(OpBuilder &builder,
                                      SmallVectorImpl<Value> &results) {
  SmallVector<NamedAttribute> attrs(getStaticAttrs().getValue());
  for (auto [value, nameAttr, kindAttr] :
       llvm::zip_equal(getValues(), getNames(), getKinds())) {
    std::optional<SmallVector<int64_t>> known = getKnownInts(value);
    if (!known)
      return success();
    auto name = cast<StringAttr>(nameAttr);
    StringRef kind = cast<StringAttr>(kindAttr).getValue();
    Attribute attr;
    if (kind == kI64sKind)
      attr = builder.getDenseI64ArrayAttr(*known);
    else
      attr = builder.getI64IntegerAttr(known->front());
    attrs.emplace_back(name, attr);
  }

  // The static op, with the declared types until it infers its own; built
  // detached and inserted once it verifies, so that a rewriter driving the
  // resolution only ever sees a valid op.
  OperationState state(getLoc(), getOpName());
  state.addOperands(getInputs());
  state.addTypes(getResultTypes());
  Operation *op = Operation::create(state);
  auto fail = [&] {
    op->destroy();
    return failure();
  };
  if (failed(
          op->setPropertiesFromAttribute(builder.getDictionaryAttr(attrs), [&] {
            return emitOpError("attributes of '") << getOpName() << "': ";
          })))
    return fail();
  SmallVector<Type> types;
  if (failed(inferResultTypes(op, types)))
    return fail();
  if (types.empty()) // Neither inferred nor refined: as declared.
    llvm::append_range(types, getResultTypes());
  if (types.size() != getNumResults()) {
    emitOpError("'") << getOpName() << "' gives " << types.size()
                     << " results, the op declares " << getNumResults();
    return fail();
  }
  for (auto [result, type, declared] :
       llvm::zip_equal(op->getResults(), types, getResultTypes())) {
    auto inferred = cast<RankedTensorType>(type);
    auto expected = cast<RankedTensorType>(declared);
    if (inferred.getElementType() != expected.getElementType() ||
        failed(meet(inferred.getShape(), expected.getShape()))) {
      emitOpError("'") << getOpName() << "' with the attributes "
                       << builder.getDictionaryAttr(attrs) << " gives "
                       << inferred << ", which contradicts the result type "
                       << expected;
      return fail();
    }
    result.setType(inferred);
  }
  if (failed(mlir::verify(op, /*verifyRecursively=*/false)))
    return fail();
  builder.insert(op);
  for (auto [result, declared] :
       llvm::zip_equal(op->getResults(), getResultTypes()))
    results.push_back(withDeclaredType(builder, getLoc(), result,
                                       cast<RankedTensorType>(declared)));
  return success();
}
