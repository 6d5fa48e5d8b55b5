//===- Utils.cpp - builders shared by the nnc-to-linalg patterns ----------===//
//
// Implements the builders declared in Utils.h, which more than one family
// of nnc-to-linalg patterns lowers through.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "nnc/NNCOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace nnc::detail {

std::string describeForCheck(Operation *op) {
  StringRef kind = op->getName().getStringRef();
  std::string text = kind.substr(kind.find('.') + 1).str();
  SmallVector<Location> worklist = {op->getLoc()};
  while (!worklist.empty()) {
    Location loc = worklist.pop_back_val();
    if (auto name = dyn_cast<NameLoc>(loc))
      return text + " '" + name.getName().str() + "'";
    if (auto fused = dyn_cast<FusedLoc>(loc))
      worklist.append(fused.getLocations().rbegin(),
                      fused.getLocations().rend());
    else if (auto site = dyn_cast<CallSiteLoc>(loc))
      worklist.push_back(site.getCallee());
  }
  return text;
}

std::string describeTensorType(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto shaped = dyn_cast<RankedTensorType>(type);
  if (!shaped) {
    os << type;
    return text;
  }
  os << shaped.getElementType() << "[";
  for (auto [i, d] : llvm::enumerate(shaped.getShape())) {
    if (i)
      os << "x";
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
  }
  os << "]";
  return text;
}

std::pair<Value, Value> checkIndex(OpBuilder &b, Location loc, Value idx,
                                   Value size, bool negativeCounts,
                                   StringRef what) {
  Value i = idx.getType().isIndex()
                ? idx
                : arith::IndexCastOp::create(b, loc, b.getIndexType(), idx)
                      .getResult();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value lower = negativeCounts
                    ? arith::SubIOp::create(b, loc, zero, size).getResult()
                    : zero;
  auto check = CheckIndexOp::create(b, loc, i, lower, size, what);
  Value checked = check.getResult();
  if (negativeCounts) {
    Value negative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, checked, zero);
    Value shifted = arith::AddIOp::create(b, loc, checked, size);
    checked = arith::SelectOp::create(b, loc, negative, shifted, checked);
  }
  return {checked, check.getInRange()};
}

SmallVector<OpFoldResult> getDims(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> dims;
  for (auto [i, d] : llvm::enumerate(type.getShape())) {
    if (ShapedType::isDynamic(d))
      dims.push_back(tensor::DimOp::create(b, loc, v, i).getResult());
    else
      dims.push_back(b.getIndexAttr(d));
  }
  return dims;
}

Value createEmpty(OpBuilder &b, Location loc, RankedTensorType type,
                  ArrayRef<OpFoldResult> dims) {
  SmallVector<Value> dynamic;
  for (auto [i, d] : llvm::enumerate(type.getShape()))
    if (ShapedType::isDynamic(d))
      dynamic.push_back(cast<Value>(dims[i]));
  return tensor::EmptyOp::create(b, loc, type, dynamic);
}

Value createFilled(OpBuilder &b, Location loc, RankedTensorType type,
                   ArrayRef<OpFoldResult> dims, Value value) {
  Value empty = createEmpty(b, loc, type, dims);
  return linalg::FillOp::create(b, loc, ValueRange{value}, ValueRange{empty})
      .getResult(0);
}

Value buildParallelGeneric(OpBuilder &b, Location loc, Value init,
                           ArrayRef<Value> inputs, ArrayRef<AffineMap> maps,
                           ScalarFn body) {
  auto type = cast<RankedTensorType>(init.getType());
  int64_t rank = type.getRank();
  SmallVector<AffineMap> allMaps(maps);
  allMaps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, inputs, ValueRange{init}, allMaps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value result = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, result);
      });
  return generic.getResult(0);
}

/// The reason a dynamic result dimension `dim` cannot be broadcast to.
static std::string unsizedDimensionReason(int64_t dim) {
  return "dynamic result dimension " + std::to_string(dim) +
         " has no operand dimension to take its size from";
}

std::optional<size_t> findBroadcastSizeSource(TypeRange inputs, int64_t rank,
                                              int64_t dim) {
  for (auto [k, type] : llvm::enumerate(inputs)) {
    auto inType = cast<RankedTensorType>(type);
    int64_t j = dim - (rank - inType.getRank());
    if (j < 0 || inType.getDimSize(j) == 1)
      continue;
    return k;
  }
  return std::nullopt;
}

std::optional<std::string> whyCannotBroadcast(RankedTensorType resultType,
                                              TypeRange inputs) {
  int64_t rank = resultType.getRank();
  for (auto [i, d] : llvm::enumerate(resultType.getShape()))
    if (ShapedType::isDynamic(d) &&
        !findBroadcastSizeSource(inputs, rank, static_cast<int64_t>(i)))
      return unsizedDimensionReason(i);
  return std::nullopt;
}

FailureOr<Value> buildBroadcastGeneric(OpBuilder &b, Location loc,
                                       RankedTensorType resultType,
                                       ArrayRef<Value> inputs, ScalarFn body,
                                       std::string &reason) {
  int64_t rank = resultType.getRank();
  SmallVector<OpFoldResult> dims;
  for (auto [i, d] : llvm::enumerate(resultType.getShape())) {
    if (!ShapedType::isDynamic(d)) {
      dims.push_back(b.getIndexAttr(d));
      continue;
    }
    std::optional<size_t> source = findBroadcastSizeSource(
        ValueRange(inputs).getTypes(), rank, static_cast<int64_t>(i));
    if (!source) {
      reason = unsizedDimensionReason(i);
      return failure();
    }
    Value input = inputs[*source];
    int64_t j = static_cast<int64_t>(i) -
                (rank - cast<RankedTensorType>(input.getType()).getRank());
    dims.push_back(tensor::DimOp::create(b, loc, input, j).getResult());
  }

  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(
        trailingBroadcastMap(b.getContext(), resultType.getShape(),
                             cast<RankedTensorType>(input.getType())));
  Value init = createEmpty(b, loc, resultType, dims);
  return buildParallelGeneric(b, loc, init, inputs, maps, body);
}

Value buildReduction(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> axes, Value init, ScalarFn combine) {
  auto inType = cast<RankedTensorType>(input.getType());
  SmallVector<OpFoldResult> inDims = getDims(b, loc, input);
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> dims;
  for (int64_t i = 0; i < inType.getRank(); ++i) {
    if (llvm::is_contained(axes, i))
      continue;
    shape.push_back(inType.getDimSize(i));
    dims.push_back(inDims[i]);
  }
  auto type = RankedTensorType::get(shape, init.getType());
  Value filled = createFilled(b, loc, type, dims, init);
  auto reduce = linalg::ReduceOp::create(
      b, loc, ValueRange{input}, ValueRange{filled}, axes,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, combine(nb, nloc, args));
      });
  return reduce.getResult(0);
}

SmallVector<ReassociationIndices>
getUnitDimReassociation(int64_t fullRank, ArrayRef<int64_t> unitDims) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (int64_t i = 0; i < fullRank; ++i) {
    pending.push_back(i);
    if (llvm::is_contained(unitDims, i))
      continue;
    groups.push_back(pending);
    pending.clear();
  }
  // Trailing unit dimensions join the last kept one.
  if (!pending.empty() && !groups.empty())
    groups.back().append(pending.begin(), pending.end());
  return groups;
}

AffineMap getDroppingMap(MLIRContext *ctx, int64_t fullRank,
                         ArrayRef<int64_t> dropped) {
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < fullRank; ++i)
    if (!llvm::is_contained(dropped, i))
      exprs.push_back(getAffineDimExpr(i, ctx));
  return AffineMap::get(fullRank, 0, exprs, ctx);
}

AffineMap trailingBroadcastMap(MLIRContext *ctx, ArrayRef<int64_t> loopShape,
                               RankedTensorType operand) {
  int64_t rank = loopShape.size();
  int64_t r = operand.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t j = 0; j < r; ++j) {
    int64_t loop = rank - r + j;
    bool broadcast = operand.getDimSize(j) == 1 && loopShape[loop] != 1;
    exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                              : getAffineDimExpr(loop, ctx));
  }
  return AffineMap::get(rank, 0, exprs, ctx);
}

Value mapTensor(OpBuilder &b, Location loc, ArrayRef<Value> inputs, Type t,
                ScalarFn body) {
  auto type = cast<RankedTensorType>(inputs[0].getType());
  auto resultType = RankedTensorType::get(type.getShape(), t);
  Value init = createEmpty(b, loc, resultType, getDims(b, loc, inputs[0]));
  SmallVector<AffineMap> maps(inputs.size(),
                              b.getMultiDimIdentityMap(type.getRank()));
  return buildParallelGeneric(b, loc, init, inputs, maps, body);
}

Value broadcastBack(OpBuilder &b, Location loc, Value full,
                    ArrayRef<Value> reduced, ArrayRef<int64_t> axes, Type t,
                    ScalarFn body) {
  auto type = cast<RankedTensorType>(full.getType());
  int64_t rank = type.getRank();
  Value init = createEmpty(b, loc, RankedTensorType::get(type.getShape(), t),
                           getDims(b, loc, full));
  SmallVector<Value> inputs = {full};
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
  for (Value r : reduced) {
    inputs.push_back(r);
    maps.push_back(getDroppingMap(b.getContext(), rank, axes));
  }
  return buildParallelGeneric(b, loc, init, inputs, maps, body);
}

Type computeType(Type t) {
  if (t.isF16() || t.isBF16())
    return Float32Type::get(t.getContext());
  return t;
}

Value convertFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw == tw) // f16 <-> bf16 goes through f32.
    v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
  if (v.getType().getIntOrFloatBitWidth() < tw)
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

Value convertTensor(OpBuilder &b, Location loc, Value v, Type t) {
  if (cast<RankedTensorType>(v.getType()).getElementType() == t)
    return v;
  return mapTensor(b, loc, {v}, t,
                   [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                     return convertFloat(nb, l, a[0], t);
                   });
}

Value sumOver(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> axes) {
  Type t = cast<RankedTensorType>(v.getType()).getElementType();
  return buildReduction(b, loc, v, axes, zeroOf(b, loc, t),
                        [](OpBuilder &nb, Location l, ValueRange a) {
                          return addValues(nb, l, a[0], a[1]);
                        });
}

Value keepDims(OpBuilder &b, Location loc, Value reduced,
               RankedTensorType keptType, ArrayRef<int64_t> axes) {
  reduced = convertTensor(b, loc, reduced, keptType.getElementType());
  if (reduced.getType() == keptType)
    return reduced;
  return tensor::ExpandShapeOp::create(
      b, loc, keptType, reduced,
      getUnitDimReassociation(keptType.getRank(), axes));
}

std::tuple<Value, Value, Value> softmaxParts(OpBuilder &b, Location loc,
                                             Value x, int64_t axis) {
  Type t = cast<RankedTensorType>(x.getType()).getElementType();
  Value max = buildReduction(
      b, loc, x, {axis}, extremeConst(b, loc, t, /*lowest=*/true),
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        return arith::MaximumFOp::create(nb, l, a[0], a[1]);
      });
  Value e = broadcastBack(b, loc, x, {max}, {axis}, t,
                          [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                            Value d = arith::SubFOp::create(nb, l, a[0], a[1]);
                            return math::ExpOp::create(nb, l, d);
                          });
  return {max, e, sumOver(b, loc, e, {axis})};
}

Value logSoftmax(OpBuilder &b, Location loc, Value x, int64_t axis) {
  auto [max, e, sum] = softmaxParts(b, loc, x, axis);
  (void)e;
  Type t = cast<RankedTensorType>(x.getType()).getElementType();
  return broadcastBack(b, loc, x, {max, sum}, {axis}, t,
                       [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         Value d = arith::SubFOp::create(nb, l, a[0], a[1]);
                         return arith::SubFOp::create(
                             nb, l, d, math::LogOp::create(nb, l, a[2]));
                       });
}

/// Reinterprets the contiguous static tensor `v` as `shape` with
/// tensor.reshape. Not expand/collapse_shape on purpose: the reshape
/// propagation of linalg-fuse-elementwise-ops folds those into an adjacent
/// linalg.matmul, generalizing it into a linalg.generic that no library call
/// takes. tensor.reshape bufferizes to memref.reshape, without a copy.
Value reshapeOpaque(OpBuilder &b, Location loc, Value v,
                    ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  auto shapeType = RankedTensorType::get({static_cast<int64_t>(shape.size())},
                                         b.getI64Type());
  Value shapeValue = arith::ConstantOp::create(
      b, loc, DenseIntElementsAttr::get(shapeType, shape));
  return tensor::ReshapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v,
      shapeValue);
}

bool isFloat(Type t) { return isa<FloatType>(t); }

Value zeroOf(OpBuilder &b, Location loc, Type t) {
  return isFloat(t) ? floatConst(b, loc, t, 0) : intConst(b, loc, t, 0);
}

Value addValues(OpBuilder &b, Location loc, Value x, Value y) {
  if (isFloat(x.getType()))
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}

Value mulValues(OpBuilder &b, Location loc, Value x, Value y) {
  if (isFloat(x.getType()))
    return arith::MulFOp::create(b, loc, x, y);
  return arith::MulIOp::create(b, loc, x, y);
}

Value floatConst(OpBuilder &b, Location loc, Type t, double v) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(t, v));
}

Value intConst(OpBuilder &b, Location loc, Type t, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, v));
}

Value extremeConst(OpBuilder &b, Location loc, Type t, bool lowest) {
  if (auto ft = dyn_cast<FloatType>(t)) {
    APFloat inf = APFloat::getInf(ft.getFloatSemantics(), /*Negative=*/lowest);
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(t, inf));
  }
  unsigned width = t.getIntOrFloatBitWidth();
  APInt v = lowest ? APInt::getSignedMinValue(width)
                   : APInt::getSignedMaxValue(width);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, v));
}

Value countAsScalar(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> axes,
                    Type t) {
  SmallVector<OpFoldResult> dims = getDims(b, loc, v);
  Value count = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t axis : axes) {
    Value d = getValueOrCreateConstantIndexOp(b, loc, dims[axis]);
    count = arith::MulIOp::create(b, loc, count, d);
  }
  Value asInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), count);
  if (isFloat(t))
    return arith::SIToFPOp::create(b, loc, t, asInt);
  if (t.getIntOrFloatBitWidth() < 64)
    return arith::TruncIOp::create(b, loc, t, asInt);
  return asInt;
}

//===----------------------------------------------------------------------===//
// Channels, spatial dimensions and windows
//===----------------------------------------------------------------------===//

SmallVector<utils::IteratorType> parallelIterators(int64_t n) {
  return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
}

Value splitDim(OpBuilder &b, Location loc, Value v, int64_t dim,
               int64_t outer) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> dims = getDims(b, loc, v);
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> outShape;
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    int64_t next = static_cast<int64_t>(shape.size());
    if (i == dim) {
      int64_t size = type.getDimSize(i);
      shape.append({outer, size / outer});
      outShape.append({b.getIndexAttr(outer), b.getIndexAttr(size / outer)});
      groups.push_back({next, next + 1});
      continue;
    }
    shape.push_back(type.getDimSize(i));
    outShape.push_back(dims[i]);
    groups.push_back({next});
  }
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  return tensor::ExpandShapeOp::create(b, loc, resultType, v, groups, outShape);
}

Value mergeDims(OpBuilder &b, Location loc, Value v, int64_t dim) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (i == dim + 1)
      continue;
    if (i == dim)
      groups.push_back({i, i + 1});
    else
      groups.push_back({i});
  }
  return tensor::CollapseShapeOp::create(b, loc, v, groups);
}

Value padSpatial(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> low,
                 ArrayRef<int64_t> high, Value value) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  int64_t first = rank - static_cast<int64_t>(low.size());
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return v;
  SmallVector<OpFoldResult> lo(rank, b.getIndexAttr(0)),
      hi(rank, b.getIndexAttr(0));
  SmallVector<int64_t> shape(type.getShape());
  for (size_t i = 0; i < low.size(); ++i) {
    lo[first + i] = b.getIndexAttr(low[i]);
    hi[first + i] = b.getIndexAttr(high[i]);
    shape[first + i] += low[i] + high[i];
  }
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  return tensor::PadOp::create(b, loc, resultType, v, lo, hi, value);
}

bool staticFrom(RankedTensorType t, int64_t from) {
  return llvm::all_of(t.getShape().drop_front(from),
                      [](int64_t d) { return !ShapedType::isDynamic(d); });
}

Window getWindow(std::optional<ArrayRef<int64_t>> strides,
                 std::optional<ArrayRef<int64_t>> dilations,
                 std::optional<ArrayRef<int64_t>> pads, int64_t n) {
  Window w;
  w.strides =
      strides ? SmallVector<int64_t>(*strides) : SmallVector<int64_t>(n, 1);
  w.dilations =
      dilations ? SmallVector<int64_t>(*dilations) : SmallVector<int64_t>(n, 1);
  if (pads) {
    w.padBegin.assign(pads->begin(), pads->begin() + n);
    w.padEnd.assign(pads->begin() + n, pads->end());
  } else {
    w.padBegin.assign(n, 0);
    w.padEnd.assign(n, 0);
  }
  return w;
}

AffineMap dimMap(MLIRContext *ctx, int64_t rank, ArrayRef<int64_t> dims) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d : dims)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

std::optional<std::string>
whyNotStaticButBatch(ArrayRef<RankedTensorType> batched,
                     ArrayRef<RankedTensorType> whole) {
  if (llvm::all_of(batched,
                   [](RankedTensorType t) { return staticFrom(t, 1); }) &&
      llvm::all_of(whole,
                   [](RankedTensorType t) { return t.hasStaticShape(); }))
    return std::nullopt;
  return std::string("channel, spatial and kernel dimensions must be static "
                     "(only the batch dimension may be dynamic)");
}

} // namespace nnc::detail
