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
  for (Value input : inputs) {
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t offset = rank - inType.getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t j = 0; j < inType.getRank(); ++j) {
      bool broadcast =
          inType.getDimSize(j) == 1 && resultType.getDimSize(j + offset) != 1;
      exprs.push_back(broadcast ? b.getAffineConstantExpr(0)
                                : b.getAffineDimExpr(j + offset));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, b.getContext()));
  }
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

bool isFloat(Type t) { return isa<FloatType>(t); }

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

void nnc::populateNNCToLinalgPatterns(RewritePatternSet &patterns) {
  detail::populateElementwisePatterns(patterns);
  detail::populateStructuredPatterns(patterns);
  detail::populateShapePatterns(patterns);
  detail::populateNNPatterns(patterns);
}

namespace {

struct ConvertNNCToLinalgPass
    : public nnc::impl::ConvertNNCToLinalgPassBase<ConvertNNCToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<nnc::NNCDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect>();
    target.addLegalOp<ModuleOp, func::FuncOp, func::ReturnOp, func::CallOp>();

    RewritePatternSet patterns(ctx);
    nnc::populateNNCToLinalgPatterns(patterns);
    // The framework reports the first op left illegal ("failed to legalize
    // operation 'nnc.conv' ..."); a pattern that does not apply first says
    // why through notifyMatchFailure, visible with --debug.
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
