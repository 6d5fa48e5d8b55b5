//===- NNCToLinalg.cpp - lower nnc to linalg on tensors -------------------===//
//
// Implements --nnc-convert-to-linalg and the builders shared by its
// patterns (see Utils.h); the patterns live in ElementwisePatterns.cpp,
// StructuredPatterns.cpp, NNPatterns.cpp and ShapePatterns.cpp.
//
//===----------------------------------------------------------------------===//

#include "nnc/Conversion/Passes.h"

#include "Utils.h"
#include "nnc/NNCDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"

namespace nnc {
#define GEN_PASS_DEF_CONVERTNNCTOLINALGPASS
#include "nnc/Conversion/Passes.h.inc"
} // namespace nnc

using namespace mlir;

namespace nnc::detail {

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
    Value size;
    for (Value input : inputs) {
      auto inType = cast<RankedTensorType>(input.getType());
      int64_t j = static_cast<int64_t>(i) - (rank - inType.getRank());
      if (j < 0 || inType.getDimSize(j) == 1)
        continue;
      size = tensor::DimOp::create(b, loc, input, j);
      break;
    }
    if (!size) {
      reason = "dynamic result dimension " + std::to_string(i) +
               " has no operand dimension to take its size from";
      return failure();
    }
    dims.push_back(size);
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

} // namespace nnc::detail

void nnc::populateNNCToLinalgPatterns(RewritePatternSet &patterns,
                                      bool perImageConvolutions) {
  detail::populateElementwisePatterns(patterns);
  detail::populateStructuredPatterns(patterns);
  detail::populateShapePatterns(patterns);
  detail::populateNNPatterns(patterns, perImageConvolutions);
}

namespace {

struct ConvertNNCToLinalgPass
    : public nnc::impl::ConvertNNCToLinalgPassBase<ConvertNNCToLinalgPass> {
  using ConvertNNCToLinalgPassBase::ConvertNNCToLinalgPassBase;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<nnc::NNCDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect>();
    target.addLegalOp<ModuleOp, func::FuncOp, func::ReturnOp, func::CallOp>();

    RewritePatternSet patterns(ctx);
    nnc::populateNNCToLinalgPatterns(patterns, perImageConvolutions);
    // The framework reports the first op left illegal ("failed to legalize
    // operation 'nnc.conv' ..."); a pattern that does not apply first says
    // why through notifyMatchFailure, visible with --debug.
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
