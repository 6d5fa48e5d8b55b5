//===- StructuredPatterns.cpp - nnc contractions, reductions, shapes ------===//
//
// Lowers nnc matmul/gemm, reductions, softmax, the basic shape ops
// (transpose, reshape, expand, concat, slice, pad) and constants to linalg
// named ops, linalg.reduce/generic and tensor ops.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Utils.h"

#include "nnc/NNCOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace nnc;
using namespace nnc::detail;

namespace {

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

struct SoftmaxConversion : public OpConversionPattern<SoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t axis = op.getNormalizedAxis();
    Value input = adaptor.getInput();
    Type t = cast<RankedTensorType>(input.getType()).getElementType();
    Type ct = computeType(t);
    input = convertTensor(rewriter, loc, input, ct);
    auto [max, e, sum] = softmaxParts(rewriter, loc, input, axis);
    (void)max;
    Value result =
        broadcastBack(rewriter, loc, e, {sum}, {axis}, ct,
                      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                        return arith::DivFOp::create(nb, l, a[0], a[1]);
                      });
    rewriter.replaceOp(op, convertTensor(rewriter, loc, result, t));
    return success();
  }
};

struct LogSoftmaxConversion : public OpConversionPattern<LogSoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LogSoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    Type t = cast<RankedTensorType>(input.getType()).getElementType();
    input = convertTensor(rewriter, loc, input, computeType(t));
    Value result = logSoftmax(rewriter, loc, input, op.getNormalizedAxis());
    rewriter.replaceOp(op, convertTensor(rewriter, loc, result, t));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

struct ReduceConversion : public OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    SmallVector<int64_t> axes = op.getReducedAxes();
    llvm::sort(axes);
    if (axes.empty()) {
      rewriter.replaceOp(op, input);
      return success();
    }
    Type resultElement = op.getInput().getType().getElementType();
    ReduceKind kind = op.getKind();
    OpBuilder &b = rewriter;
    // 16-bit floats accumulate in f32 (numpy does too), so that sums of
    // many elements neither stall nor overflow; max and min are exact.
    Type t = resultElement;
    if (kind != ReduceKind::max && kind != ReduceKind::min) {
      t = computeType(t);
      input = convertTensor(b, loc, input, t);
    }
    bool fl = isFloat(t);

    Value reduced;
    switch (kind) {
    case ReduceKind::sum:
    case ReduceKind::mean:
    case ReduceKind::log_sum:
      reduced = buildReduction(b, loc, input, axes, zeroOf(b, loc, t),
                               [&](OpBuilder &nb, Location l, ValueRange a) {
                                 return addValues(nb, l, a[0], a[1]);
                               });
      break;
    case ReduceKind::l1:
      reduced = buildReduction(
          b, loc, input, axes, zeroOf(b, loc, t),
          [&](OpBuilder &nb, Location l, ValueRange a) {
            // Integers as max(x, 0 - x): the CPU lowering has no pattern
            // for math.absi.
            Value abs =
                fl ? math::AbsFOp::create(nb, l, a[0]).getResult()
                   : arith::MaxSIOp::create(
                         nb, l, a[0],
                         arith::SubIOp::create(nb, l, zeroOf(nb, l, t), a[0]))
                         .getResult();
            return addValues(nb, l, abs, a[1]);
          });
      break;
    case ReduceKind::l2:
    case ReduceKind::sum_square:
      reduced = buildReduction(b, loc, input, axes, zeroOf(b, loc, t),
                               [&](OpBuilder &nb, Location l, ValueRange a) {
                                 return addValues(
                                     nb, l, mulValues(nb, l, a[0], a[0]), a[1]);
                               });
      break;
    case ReduceKind::prod:
      reduced =
          buildReduction(b, loc, input, axes,
                         fl ? floatConst(b, loc, t, 1) : intConst(b, loc, t, 1),
                         [&](OpBuilder &nb, Location l, ValueRange a) {
                           return mulValues(nb, l, a[0], a[1]);
                         });
      break;
    case ReduceKind::max:
    case ReduceKind::min: {
      bool isMax = kind == ReduceKind::max;
      reduced = buildReduction(
          b, loc, input, axes, extremeConst(b, loc, t, /*lowest=*/isMax),
          [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
            if (fl)
              return isMax ? arith::MaximumFOp::create(nb, l, a[0], a[1])
                                 .getResult()
                           : arith::MinimumFOp::create(nb, l, a[0], a[1])
                                 .getResult();
            return isMax
                       ? arith::MaxSIOp::create(nb, l, a[0], a[1]).getResult()
                       : arith::MinSIOp::create(nb, l, a[0], a[1]).getResult();
          });
      break;
    }
    case ReduceKind::log_sum_exp: {
      // log(sum(exp(x - m))) + m with m the maximum, so exp cannot overflow.
      // An infinite m (all -inf, or some +inf) shifts by 0 instead: x - m
      // would be NaN where the result is -inf or +inf.
      Value max =
          buildReduction(b, loc, input, axes, extremeConst(b, loc, t, true),
                         [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                           return arith::MaximumFOp::create(nb, l, a[0], a[1]);
                         });
      Value inf = extremeConst(b, loc, t, /*lowest=*/false);
      Value zero = zeroOf(b, loc, t);
      max =
          mapTensor(b, loc, {max}, t,
                    [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                      Value abs = math::AbsFOp::create(nb, l, a[0]);
                      Value finite = arith::CmpFOp::create(
                          nb, l, arith::CmpFPredicate::ONE, abs, inf);
                      return arith::SelectOp::create(nb, l, finite, a[0], zero);
                    });
      Value e =
          broadcastBack(b, loc, input, {max}, axes, t,
                        [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                          Value d = arith::SubFOp::create(nb, l, a[0], a[1]);
                          return math::ExpOp::create(nb, l, d);
                        });
      Value sum = buildReduction(b, loc, e, axes, zeroOf(b, loc, t),
                                 [&](OpBuilder &nb, Location l, ValueRange a) {
                                   return addValues(nb, l, a[0], a[1]);
                                 });
      reduced = mapTensor(b, loc, {sum, max}, t,
                          [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                            Value lg = math::LogOp::create(nb, l, a[0]);
                            return arith::AddFOp::create(nb, l, lg, a[1]);
                          });
      break;
    }
    }

    if (kind == ReduceKind::mean) {
      Value count = countAsScalar(b, loc, input, axes, t);
      reduced =
          mapTensor(b, loc, {reduced}, t,
                    [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                      if (fl)
                        return arith::DivFOp::create(nb, l, a[0], count);
                      return arith::DivSIOp::create(nb, l, a[0], count);
                    });
    } else if (kind == ReduceKind::l2 || kind == ReduceKind::log_sum) {
      bool sqrt = kind == ReduceKind::l2;
      reduced =
          mapTensor(b, loc, {reduced}, t,
                    [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                      if (sqrt)
                        return math::SqrtOp::create(nb, l, a[0]);
                      return math::LogOp::create(nb, l, a[0]);
                    });
    }
    reduced = convertTensor(b, loc, reduced, resultElement);
    rewriter.replaceOp(op, keepDims(b, loc, reduced, op.getType(), axes));
    return success();
  }
};

struct ArgReduceConversion : public OpConversionPattern<ArgReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ArgReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    int64_t rank = inType.getRank();
    // I64Attr getters return uint64_t: read the signed value.
    int64_t axis = wrapAxis(op.getAxisAttr().getInt(), rank);
    Type t = inType.getElementType();
    bool isMax = op.getKind() == ArgReduceKind::argmax;
    bool last = op.getSelectLastIndex();

    SmallVector<OpFoldResult> inDims = getDims(b, loc, input);
    SmallVector<int64_t> shape;
    SmallVector<OpFoldResult> dims;
    for (int64_t i = 0; i < rank; ++i) {
      if (i == axis)
        continue;
      shape.push_back(inType.getDimSize(i));
      dims.push_back(inDims[i]);
    }
    Value bestInit = createFilled(b, loc, RankedTensorType::get(shape, t), dims,
                                  extremeConst(b, loc, t, /*lowest=*/isMax));
    Value indexInit =
        createFilled(b, loc, RankedTensorType::get(shape, b.getI64Type()), dims,
                     intConst(b, loc, b.getI64Type(), 0));
    AffineMap drop = getDroppingMap(b.getContext(), rank, {axis});
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators[axis] = utils::IteratorType::reduction;
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{bestInit.getType(), indexInit.getType()},
        ValueRange{input}, ValueRange{bestInit, indexInit},
        SmallVector<AffineMap>{b.getMultiDimIdentityMap(rank), drop, drop},
        iterators, [&](OpBuilder &nb, Location l, ValueRange a) {
          Value idx = linalg::IndexOp::create(nb, l, axis);
          idx = arith::IndexCastOp::create(nb, l, nb.getI64Type(), idx);
          Value better;
          if (isFloat(t)) {
            arith::CmpFPredicate p = isMax ? (last ? arith::CmpFPredicate::OGE
                                                   : arith::CmpFPredicate::OGT)
                                           : (last ? arith::CmpFPredicate::OLE
                                                   : arith::CmpFPredicate::OLT);
            better = arith::CmpFOp::create(nb, l, p, a[0], a[1]);
            // NaN wins, as in numpy: the first NaN, or the last one with
            // select_last_index.
            Value nan = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO,
                                              a[0], a[0]);
            if (!last) {
              Value bestNan = arith::CmpFOp::create(
                  nb, l, arith::CmpFPredicate::UNO, a[1], a[1]);
              Value notBestNan = arith::XOrIOp::create(
                  nb, l, bestNan,
                  arith::ConstantOp::create(nb, l, nb.getBoolAttr(true)));
              nan = arith::AndIOp::create(nb, l, nan, notBestNan);
            }
            better = arith::OrIOp::create(nb, l, better, nan);
          } else {
            arith::CmpIPredicate p = isMax ? (last ? arith::CmpIPredicate::sge
                                                   : arith::CmpIPredicate::sgt)
                                           : (last ? arith::CmpIPredicate::sle
                                                   : arith::CmpIPredicate::slt);
            better = arith::CmpIOp::create(nb, l, p, a[0], a[1]);
          }
          Value v = arith::SelectOp::create(nb, l, better, a[0], a[1]);
          Value i = arith::SelectOp::create(nb, l, better, idx, a[2]);
          linalg::YieldOp::create(nb, l, ValueRange{v, i});
        });
    rewriter.replaceOp(
        op, keepDims(b, loc, generic.getResult(1), op.getType(), {axis}));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

Value zeroFilled(OpBuilder &b, Location loc, RankedTensorType type,
                 ArrayRef<OpFoldResult> dims) {
  return createFilled(b, loc, type, dims,
                      zeroOf(b, loc, type.getElementType()));
}

/// Carries a matrix product's kernel choice (nnc.impl: which library, or
/// loops) onto the linalg contraction that computes it, for the target's
/// library passes.
Value withChoice(Operation *contraction, StringAttr choice) {
  if (choice)
    contraction->setAttr(NNCDialect::getKernelChoiceAttrName(), choice);
  return contraction->getResult(0);
}

/// [..., M, K] x [..., K, N] for operands of rank >= 2 with numpy
/// broadcasting of the batch dimensions, accumulated and returned in `et`;
/// the linalg matmul or batch_matmul made carries `choice`.
Value buildMatmulIn(OpBuilder &b, Location loc, Value lhs, Value rhs, Type et,
                    StringAttr choice) {
  auto lt = cast<RankedTensorType>(lhs.getType());
  auto rt = cast<RankedTensorType>(rhs.getType());
  int64_t lr = lt.getRank(), rr = rt.getRank();
  int64_t rank = std::max(lr, rr);
  SmallVector<OpFoldResult> lDims = getDims(b, loc, lhs);
  SmallVector<OpFoldResult> rDims = getDims(b, loc, rhs);

  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> dims;
  for (int64_t i = 0; i < rank - 2; ++i) {
    int64_t li = i - (rank - lr), ri = i - (rank - rr);
    int64_t ld = li >= 0 ? lt.getDimSize(li) : 1;
    int64_t rd = ri >= 0 ? rt.getDimSize(ri) : 1;
    // Take the size from an operand that does not broadcast.
    if (ld != 1 || ri < 0) {
      shape.push_back(ld);
      dims.push_back(li >= 0 ? lDims[li] : b.getIndexAttr(1));
    } else {
      shape.push_back(rd);
      dims.push_back(rDims[ri]);
    }
  }
  shape.push_back(lt.getDimSize(lr - 2));
  dims.push_back(lDims[lr - 2]);
  shape.push_back(rt.getDimSize(rr - 1));
  dims.push_back(rDims[rr - 1]);
  auto resultType = RankedTensorType::get(shape, et);

  // [..., M, K] x [K, N] with static shapes is one [...*M, K] x [K, N]
  // matmul (what a library GEMM takes), not a batch of small ones.
  if (rr == 2 && lr > 2 && lt.hasStaticShape() && rt.hasStaticShape()) {
    int64_t rows = lt.getNumElements() / lt.getDimSize(lr - 1);
    Value flat = reshapeOpaque(b, loc, lhs, {rows, lt.getDimSize(lr - 1)});
    auto flatType = RankedTensorType::get({rows, rt.getDimSize(1)}, et);
    Value flatInit =
        zeroFilled(b, loc, flatType,
                   {b.getIndexAttr(rows), b.getIndexAttr(rt.getDimSize(1))});
    Value product = withChoice(
        linalg::MatmulOp::create(b, loc, TypeRange{flatType},
                                 ValueRange{flat, rhs}, ValueRange{flatInit}),
        choice);
    return reshapeOpaque(b, loc, product, resultType.getShape());
  }

  // [b..., M, K] x [b..., K, N] with the same static batch dimensions (the
  // heads of attention) is one batch_matmul over their product.
  if (lr == rr && lr > 3 && lt.hasStaticShape() && rt.hasStaticShape() &&
      lt.getShape().drop_back(2) == rt.getShape().drop_back(2)) {
    int64_t batch = 1;
    for (int64_t d : lt.getShape().drop_back(2))
      batch *= d;
    int64_t m = lt.getDimSize(lr - 2), k = lt.getDimSize(lr - 1);
    int64_t n = rt.getDimSize(rr - 1);
    Value l3 = reshapeOpaque(b, loc, lhs, {batch, m, k});
    Value r3 = reshapeOpaque(b, loc, rhs, {batch, k, n});
    auto flatType = RankedTensorType::get({batch, m, n}, et);
    Value flatInit = zeroFilled(
        b, loc, flatType,
        {b.getIndexAttr(batch), b.getIndexAttr(m), b.getIndexAttr(n)});
    Value product = withChoice(
        linalg::BatchMatmulOp::create(b, loc, TypeRange{flatType},
                                      ValueRange{l3, r3}, ValueRange{flatInit}),
        choice);
    return reshapeOpaque(b, loc, product, resultType.getShape());
  }

  Value init = zeroFilled(b, loc, resultType, dims);
  if (rank == 2)
    return withChoice(linalg::MatmulOp::create(b, loc, TypeRange{resultType},
                                               ValueRange{lhs, rhs},
                                               ValueRange{init}),
                      choice);
  bool sameBatch =
      lr == 3 && rr == 3 && (lt.getDimSize(0) == 1) == (rt.getDimSize(0) == 1);
  if (sameBatch)
    return withChoice(
        linalg::BatchMatmulOp::create(b, loc, TypeRange{resultType},
                                      ValueRange{lhs, rhs}, ValueRange{init}),
        choice);

  // General case: a generic contraction whose operand maps broadcast the
  // batch dimensions; loop dims are (batch..., m, n, k).
  MLIRContext *ctx = b.getContext();
  int64_t loops = rank + 1;
  auto operandMap = [&](RankedTensorType t, bool isLhs) {
    SmallVector<AffineExpr> exprs;
    int64_t r = t.getRank();
    for (int64_t j = 0; j < r - 2; ++j) {
      int64_t i = j + (rank - r);
      bool broadcast = t.getDimSize(j) == 1 && shape[i] != 1;
      exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(i, ctx));
    }
    if (isLhs) {
      exprs.push_back(getAffineDimExpr(rank - 2, ctx));
      exprs.push_back(getAffineDimExpr(rank, ctx));
    } else {
      exprs.push_back(getAffineDimExpr(rank, ctx));
      exprs.push_back(getAffineDimExpr(rank - 1, ctx));
    }
    return AffineMap::get(loops, 0, exprs, ctx);
  };
  SmallVector<AffineMap> maps = {
      operandMap(lt, true), operandMap(rt, false),
      AffineMap::getMultiDimIdentityMap(rank, ctx).shiftDims(0)};
  SmallVector<AffineExpr> outExprs;
  for (int64_t i = 0; i < rank; ++i)
    outExprs.push_back(getAffineDimExpr(i, ctx));
  maps[2] = AffineMap::get(loops, 0, outExprs, ctx);
  SmallVector<utils::IteratorType> iterators(loops,
                                             utils::IteratorType::parallel);
  iterators.back() = utils::IteratorType::reduction;
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, ValueRange{lhs, rhs},
             ValueRange{init}, maps, iterators,
             [&](OpBuilder &nb, Location l, ValueRange a) {
               Value p = mulValues(nb, l, convertFloat(nb, l, a[0], et),
                                   convertFloat(nb, l, a[1], et));
               linalg::YieldOp::create(nb, l, addValues(nb, l, p, a[2]));
             })
      .getResult(0);
}

/// buildMatmulIn in the operands' type; f16 and bf16 products accumulate
/// in f32 (as the libraries do) and are rounded once at the end. The
/// product keeps `op`'s kernel choice.
Value buildMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                  Operation *op) {
  Type et = cast<RankedTensorType>(lhs.getType()).getElementType();
  Type acc = computeType(et);
  Value product = buildMatmulIn(
      b, loc, lhs, rhs, acc,
      op->getAttrOfType<StringAttr>(NNCDialect::getKernelChoiceAttrName()));
  return acc == et ? product : convertTensor(b, loc, product, et);
}

struct MatMulConversion : public OpConversionPattern<MatMulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lt = cast<RankedTensorType>(lhs.getType());
    auto rt = cast<RankedTensorType>(rhs.getType());
    bool lhsVector = lt.getRank() == 1, rhsVector = rt.getRank() == 1;
    if (lhsVector)
      lhs = tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({1, lt.getDimSize(0)}, lt.getElementType()),
          lhs, SmallVector<ReassociationIndices>{{0, 1}});
    if (rhsVector)
      rhs = tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({rt.getDimSize(0), 1}, rt.getElementType()),
          rhs, SmallVector<ReassociationIndices>{{0, 1}});
    Value result = buildMatmul(rewriter, loc, lhs, rhs, op);
    int64_t rank = cast<RankedTensorType>(result.getType()).getRank();
    SmallVector<int64_t> unit;
    if (lhsVector)
      unit.push_back(rank - 2);
    if (rhsVector)
      unit.push_back(rank - 1);
    if (!unit.empty())
      result =
          tensor::CollapseShapeOp::create(rewriter, loc, op.getType(), result,
                                          getUnitDimReassociation(rank, unit));
    rewriter.replaceOp(op, result);
    return success();
  }
};

Value transpose2D(OpBuilder &b, Location loc, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> dims = getDims(b, loc, v);
  auto type = RankedTensorType::get({t.getDimSize(1), t.getDimSize(0)},
                                    t.getElementType());
  Value init = createEmpty(b, loc, type, {dims[1], dims[0]});
  return linalg::TransposeOp::create(b, loc, v, init, ArrayRef<int64_t>{1, 0})
      .getResult()[0];
}

struct GemmConversion : public OpConversionPattern<GemmOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value a = adaptor.getA(), bm = adaptor.getB();
    if (op.getTransA())
      a = transpose2D(rewriter, loc, a);
    if (op.getTransB())
      bm = transpose2D(rewriter, loc, bm);
    Value product = buildMatmul(rewriter, loc, a, bm, op);
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    Value c = adaptor.getC();
    if (alpha == 1.0 && (!c || beta == 0.0)) {
      rewriter.replaceOp(op, product);
      return success();
    }
    Type t = op.getType().getElementType();
    auto scalar = [&](OpBuilder &nb, Location l, double v) {
      return isFloat(t) ? floatConst(nb, l, t, v)
                        : intConst(nb, l, t, static_cast<int64_t>(v));
    };
    SmallVector<Value> inputs = {product};
    if (c && beta != 0.0)
      inputs.push_back(c);
    auto resultType = cast<RankedTensorType>(product.getType());
    std::string reason;
    FailureOr<Value> result = buildBroadcastGeneric(
        rewriter, loc, resultType, inputs,
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value r = mulValues(nb, l, args[0], scalar(nb, l, alpha));
          if (args.size() == 2)
            r = addValues(nb, l, r,
                          mulValues(nb, l, args[1], scalar(nb, l, beta)));
          return r;
        },
        reason);
    // Unreachable: the product, an input of the result's own type, sizes
    // every dynamic dimension.
    if (failed(result))
      return rewriter.notifyMatchFailure(op, reason);
    rewriter.replaceOp(op, *result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

struct TransposeConversion : public OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> inDims =
        getDims(rewriter, loc, adaptor.getInput());
    SmallVector<OpFoldResult> dims;
    for (int64_t p : op.getPerm())
      dims.push_back(inDims[p]);
    Value init = createEmpty(rewriter, loc, op.getType(), dims);
    rewriter.replaceOp(op, linalg::TransposeOp::create(rewriter, loc,
                                                       adaptor.getInput(), init,
                                                       op.getPerm())
                               .getResult()[0]);
    return success();
  }
};

/// Why a reshape cannot be lowered: tensor.reshape takes its result shape
/// as a constant.
std::optional<std::string> whyCannotLower(ReshapeOp op) {
  RankedTensorType type = op.getType();
  if (type.hasStaticShape())
    return std::nullopt;
  std::string reason;
  llvm::raw_string_ostream os(reason);
  os << "the result type '" << type << "' must be static";
  return reason;
}

struct ReshapeConversion : public OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (std::optional<std::string> reason = whyCannotLower(op))
      return rewriter.notifyMatchFailure(op, *reason);
    RankedTensorType type = op.getType();
    Location loc = op.getLoc();
    auto shapeType =
        RankedTensorType::get({type.getRank()}, rewriter.getI64Type());
    Value shape = arith::ConstantOp::create(
        rewriter, loc, DenseIntElementsAttr::get(shapeType, type.getShape()));
    rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(op, type, adaptor.getInput(),
                                                   shape);
    return success();
  }
};

/// Why an expand cannot be lowered: a dynamic result dimension that the
/// input does not size.
std::optional<std::string> whyCannotLower(ExpandOp op) {
  Type inType = op.getInput().getType();
  return whyCannotBroadcast(op.getType(), ArrayRef<Type>(inType));
}

struct ExpandConversion : public OpConversionPattern<ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::string reason;
    FailureOr<Value> result = buildBroadcastGeneric(
        rewriter, op.getLoc(), op.getType(), {adaptor.getInput()},
        [](OpBuilder &, Location, ValueRange a) { return a[0]; }, reason);
    if (failed(result))
      return rewriter.notifyMatchFailure(op, reason);
    rewriter.replaceOp(op, *result);
    return success();
  }
};

struct ConcatConversion : public OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    // I64Attr getters return uint64_t: read the signed value.
    int64_t axis = wrapAxis(op.getAxisAttr().getInt(), rank);
    ValueRange inputs = adaptor.getInputs();

    // Result sizes: those of the first input, the axis summed over inputs.
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, inputs[0]);
    SmallVector<SmallVector<OpFoldResult>> inputDims;
    OpFoldResult total = rewriter.getIndexAttr(0);
    auto addIndex = [&](OpFoldResult x, OpFoldResult y) -> OpFoldResult {
      std::optional<int64_t> cx = getConstantIntValue(x);
      std::optional<int64_t> cy = getConstantIntValue(y);
      if (cx && cy)
        return rewriter.getIndexAttr(*cx + *cy);
      return arith::AddIOp::create(
                 rewriter, loc,
                 getValueOrCreateConstantIndexOp(rewriter, loc, x),
                 getValueOrCreateConstantIndexOp(rewriter, loc, y))
          .getResult();
    };
    for (Value input : inputs) {
      inputDims.push_back(getDims(rewriter, loc, input));
      total = addIndex(total, inputDims.back()[axis]);
    }
    dims[axis] = total;
    Value result = createEmpty(rewriter, loc, type, dims);
    OpFoldResult offset = rewriter.getIndexAttr(0);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    for (auto [input, sizes] : llvm::zip(inputs, inputDims)) {
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      offsets[axis] = offset;
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result,
                                             offsets, sizes, strides);
      offset = addIndex(offset, sizes[axis]);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The axes a slice's starts apply to, as the op spells them (negative
/// ones counted from the back).
SmallVector<int64_t> getSlicedAxes(SliceOp op) {
  SmallVector<int64_t> axes;
  if (auto a = op.getAxes())
    axes.assign(a->begin(), a->end());
  else
    for (int64_t i = 0; i < static_cast<int64_t>(op.getStarts().size()); ++i)
      axes.push_back(i);
  return axes;
}

/// Why a slice cannot be lowered: the offsets and strides of a sliced axis
/// are computed from its size at compile time.
std::optional<std::string> whyCannotLower(SliceOp op) {
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  RankedTensorType type = op.getType();
  for (int64_t axisAttr : getSlicedAxes(op)) {
    int64_t axis = wrapAxis(axisAttr, inType.getRank());
    if (!ShapedType::isDynamic(inType.getDimSize(axis)) &&
        !ShapedType::isDynamic(type.getDimSize(axis)))
      continue;
    std::string reason;
    llvm::raw_string_ostream os(reason);
    os << "sliced axis " << axis << " must have a static size";
    return reason;
  }
  return std::nullopt;
}

struct SliceConversion : public OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (std::optional<std::string> reason = whyCannotLower(op))
      return rewriter.notifyMatchFailure(op, *reason);
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    RankedTensorType type = op.getType();
    int64_t rank = inType.getRank();
    SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, input);
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    ArrayRef<int64_t> starts = op.getStarts();
    SmallVector<int64_t> axes = getSlicedAxes(op);
    SmallVector<int64_t> reversed;
    for (auto [i, axisAttr] : llvm::enumerate(axes)) {
      int64_t axis = wrapAxis(axisAttr, rank);
      int64_t step = op.getSteps() ? (*op.getSteps())[i] : 1;
      int64_t dim = inType.getDimSize(axis);
      int64_t size = type.getDimSize(axis);
      int64_t start = starts[i] < 0 ? starts[i] + dim : starts[i];
      sizes[axis] = rewriter.getIndexAttr(size);
      if (size == 0)
        continue;
      if (step > 0) {
        start = std::clamp<int64_t>(start, 0, dim);
        offsets[axis] = rewriter.getIndexAttr(start);
        strides[axis] = rewriter.getIndexAttr(step);
        continue;
      }
      // A negative step reads start, start + step, ...: extract them in
      // increasing order with the positive stride, then reverse the axis.
      start = std::clamp<int64_t>(start, 0, dim - 1);
      offsets[axis] = rewriter.getIndexAttr(start + (size - 1) * step);
      strides[axis] = rewriter.getIndexAttr(-step);
      reversed.push_back(axis);
    }
    // An empty result may start at the end of an axis, an offset that
    // extract_slice rejects: it has no elements to read anyway.
    if (llvm::is_contained(type.getShape(), 0)) {
      rewriter.replaceOp(op, createEmpty(rewriter, loc, type, sizes));
      return success();
    }
    Value result = tensor::ExtractSliceOp::create(rewriter, loc, type, input,
                                                  offsets, sizes, strides);
    if (!reversed.empty()) {
      SmallVector<AffineExpr> exprs;
      for (int64_t i = 0; i < rank; ++i) {
        AffineExpr d = rewriter.getAffineDimExpr(i);
        exprs.push_back(
            llvm::is_contained(reversed, i) ? type.getDimSize(i) - 1 - d : d);
      }
      Value init = createEmpty(rewriter, loc, type, sizes);
      result = buildParallelGeneric(
          rewriter, loc, init, {result},
          {AffineMap::get(rank, 0, exprs, rewriter.getContext())},
          [](OpBuilder &, Location, ValueRange a) { return a[0]; });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Source index along one padded dimension of size `size` for result index
/// `i` (already shifted by the low pad) in reflect, edge or wrap mode.
Value padSourceIndex(OpBuilder &b, Location loc, PadMode mode, Value i,
                     Value size) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value last = arith::SubIOp::create(b, loc, size, one);
  switch (mode) {
  case PadMode::edge: {
    Value low = arith::MaxSIOp::create(b, loc, i, zero);
    return arith::MinSIOp::create(b, loc, low, last);
  }
  case PadMode::reflect: {
    // Pads are smaller than the dimension, so one reflection suffices.
    Value negative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
    Value mirrored = arith::SubIOp::create(b, loc, zero, i);
    i = arith::SelectOp::create(b, loc, negative, mirrored, i);
    Value beyond =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, i, last);
    Value twice = arith::AddIOp::create(b, loc, last, last);
    Value back = arith::SubIOp::create(b, loc, twice, i);
    return arith::SelectOp::create(b, loc, beyond, back, i);
  }
  case PadMode::wrap: {
    Value rem = arith::RemSIOp::create(b, loc, i, size);
    Value negative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, rem, zero);
    Value shifted = arith::AddIOp::create(b, loc, rem, size);
    return arith::SelectOp::create(b, loc, negative, shifted, rem);
  }
  case PadMode::constant:
    break;
  }
  llvm_unreachable("constant padding has no source index");
}

/// Why a pad cannot be lowered: a reflect pad must be smaller than the
/// dimension it reflects, and an edge or wrap pad needs an element to
/// repeat, both after the negative pads have cropped. (The verifier checks
/// these limits against the uncropped size; a dynamic size is assumed to
/// meet them.)
std::optional<std::string> whyCannotLower(PadOp op) {
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  ArrayRef<int64_t> pads = op.getPads();
  int64_t rank = inType.getRank();
  PadMode mode = op.getMode();
  for (int64_t i = 0; i < rank; ++i) {
    int64_t low = std::max<int64_t>(0, pads[i]);
    int64_t high = std::max<int64_t>(0, pads[i + rank]);
    int64_t dim = inType.getDimSize(i);
    if (ShapedType::isDynamic(dim) || (low == 0 && high == 0))
      continue;
    int64_t size = dim - std::max<int64_t>(0, -pads[i]) -
                   std::max<int64_t>(0, -pads[i + rank]);
    std::string reason;
    llvm::raw_string_ostream os(reason);
    if (mode == PadMode::reflect && (low >= size || high >= size)) {
      os << "reflect pads (" << low << ", " << high << ") of dimension " << i
         << " must be smaller than its cropped size " << size;
      return reason;
    }
    if ((mode == PadMode::edge || mode == PadMode::wrap) && size == 0) {
      os << stringifyPadMode(mode) << " pads of dimension " << i
         << " need a non-empty dimension after cropping";
      return reason;
    }
  }
  return std::nullopt;
}

/// pad: negative pads crop first (extract_slice); then constant padding is
/// a tensor.pad and the other modes a generic that reads the cropped input
/// at the mirrored, clamped or wrapped index.
struct PadConversion : public OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (std::optional<std::string> reason = whyCannotLower(op))
      return rewriter.notifyMatchFailure(op, *reason);
    ArrayRef<int64_t> pads = op.getPads();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    Value input = adaptor.getInput();
    SmallVector<OpFoldResult> dims = getDims(b, loc, input);
    auto sub = [&](OpFoldResult x, int64_t y) -> OpFoldResult {
      if (y == 0)
        return x;
      if (std::optional<int64_t> cx = getConstantIntValue(x))
        return b.getIndexAttr(*cx - y);
      return arith::SubIOp::create(b, loc,
                                   getValueOrCreateConstantIndexOp(b, loc, x),
                                   arith::ConstantIndexOp::create(b, loc, y))
          .getResult();
    };
    if (llvm::any_of(pads, [](int64_t p) { return p < 0; })) {
      SmallVector<OpFoldResult> offsets, strides(rank, b.getIndexAttr(1));
      for (int64_t i = 0; i < rank; ++i) {
        int64_t cropLow = std::max<int64_t>(0, -pads[i]);
        int64_t cropHigh = std::max<int64_t>(0, -pads[i + rank]);
        offsets.push_back(b.getIndexAttr(cropLow));
        dims[i] = sub(dims[i], cropLow + cropHigh);
      }
      input =
          tensor::ExtractSliceOp::create(b, loc, input, offsets, dims, strides);
    }
    PadMode mode = op.getMode();
    SmallVector<int64_t> low, high;
    for (int64_t i = 0; i < rank; ++i) {
      low.push_back(std::max<int64_t>(0, pads[i]));
      high.push_back(std::max<int64_t>(0, pads[i + rank]));
    }
    SmallVector<OpFoldResult> outDims;
    for (int64_t i = 0; i < rank; ++i)
      outDims.push_back(sub(dims[i], -(low[i] + high[i])));
    Type t = type.getElementType();

    if (op.getMode() == PadMode::constant) {
      double v = op.getValue().convertToDouble();
      Value fill = isFloat(t) ? floatConst(b, loc, t, v)
                              : intConst(b, loc, t, static_cast<int64_t>(v));
      SmallVector<OpFoldResult> lowAttrs, highAttrs;
      for (int64_t i = 0; i < rank; ++i) {
        lowAttrs.push_back(b.getIndexAttr(low[i]));
        highAttrs.push_back(b.getIndexAttr(high[i]));
      }
      rewriter.replaceOpWithNewOp<tensor::PadOp>(op, type, input, lowAttrs,
                                                 highAttrs, fill);
      return success();
    }

    Value init = createEmpty(b, loc, type, outDims);
    SmallVector<Value> sizes;
    for (OpFoldResult d : dims)
      sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, d));
    Value result = buildParallelGeneric(
        b, loc, init, {}, {}, [&](OpBuilder &nb, Location l, ValueRange) {
          SmallVector<Value> coords;
          for (int64_t i = 0; i < rank; ++i) {
            Value idx = linalg::IndexOp::create(nb, l, i);
            if (low[i] == 0 && high[i] == 0) {
              coords.push_back(idx);
              continue;
            }
            if (low[i] != 0)
              idx = arith::SubIOp::create(
                  nb, l, idx, arith::ConstantIndexOp::create(nb, l, low[i]));
            coords.push_back(padSourceIndex(nb, l, mode, idx, sizes[i]));
          }
          return tensor::ExtractOp::create(nb, l, input, coords).getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Why a constant cannot be lowered: arith.constant takes a typed value.
std::optional<std::string> whyCannotLower(ConstantOp op) {
  if (isa<TypedAttr>(op.getValue()))
    return std::nullopt;
  return std::string("value is not a typed attribute");
}

struct ConstantConversion : public OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (std::optional<std::string> reason = whyCannotLower(op))
      return rewriter.notifyMatchFailure(op, *reason);
    auto value = cast<TypedAttr>(op.getValue());
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

} // namespace

std::optional<std::string>
nnc::detail::whyCannotLowerStructured(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<std::string>>(op)
      .Case<ReshapeOp, ExpandOp, SliceOp, PadOp, ConstantOp>(
          [](auto shapeOp) { return whyCannotLower(shapeOp); })
      .Case<MatMulOp, GemmOp>([](Operation *product) {
        auto choice = product->getAttrOfType<StringAttr>(
            NNCDialect::getKernelChoiceAttrName());
        if (!product->hasAttr(NNCDialect::getKernelChoiceAttrName()))
          return std::optional<std::string>();
        if (!choice)
          return std::optional<std::string>(
              "its kernel choice " +
              std::string(NNCDialect::getKernelChoiceAttrName()) +
              " must be a string");
        return nnc::detail::whyMatrixProductChoiceDoesNotApply(
            product, choice.getValue());
      })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<std::string>
nnc::detail::whyMatrixProductChoiceDoesNotApply(Operation *op,
                                                StringRef choice) {
  std::string attr = NNCDialect::getKernelChoiceAttrName().str();
  if (choice != "blas" && choice != "dnnl" && choice != "loops")
    return "its kernel choice " + attr +
           " must be one of \"blas\", \"dnnl\", \"loops\"";
  if (choice == "loops")
    return std::nullopt;
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  Type element = type.getElementType();
  auto named = [&](StringRef what) {
    return "its kernel choice " + attr + " = \"" + choice.str() +
           "\" does not apply: " + what.str();
  };
  std::string elementName;
  llvm::raw_string_ostream(elementName) << element;
  // A library call needs static shapes (--nnc-gemm-to-blas); f64 products
  // have OpenBLAS only, bf16 ones oneDNN only.
  for (Value operand : op->getOperands())
    if (!cast<ShapedType>(operand.getType()).hasStaticShape())
      return named("its shapes are not static");
  if (choice == "dnnl" && !element.isF32())
    return named("oneDNN's GEMM takes f32 products here, not " +
                 elementName);
  if (choice == "blas" && !element.isF32() && !element.isF64())
    return named("BLAS takes f32 and f64 products, not " +
                 elementName);
  return std::nullopt;
}

void nnc::detail::populateStructuredPatterns(RewritePatternSet &patterns) {
  patterns
      .add<ArgReduceConversion, ConcatConversion, ConstantConversion,
           ExpandConversion, GemmConversion, LogSoftmaxConversion,
           MatMulConversion, PadConversion, ReduceConversion, ReshapeConversion,
           SliceConversion, SoftmaxConversion, TransposeConversion>(
          patterns.getContext());
}
