//===- AutodiffCoreRules.cpp - the first gradient rules -------------------===//
//
// The rules the pass started with: elementwise binary ops, matmul/gemm, conv,
// pools, batch/layer normalization, softmax and mse_loss.
//
//===----------------------------------------------------------------------===//

#include "AutodiffRules.h"

#include "nnc/NNCOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace nnc;
using namespace nnc::autodiff;

/// The first rules of the pass: elementwise binary ops, matmul/gemm, conv,
/// pools, normalizations, softmax and mse_loss.
std::optional<LogicalResult> nnc::autodiff::coreRules(Rule &rule) {
  Operation *op = rule.op;
  Location loc = rule.loc;
  OpBuilder &b = rule.b;
  GradientBuilder &gb = rule.gb;
  Value g = rule.g, y = rule.y;
  SmallVectorImpl<Value> &grads = rule.grads;
  auto operand = [&](unsigned i) { return op->getOperand(i); };
  // Normalizations compute in the element type of their statistics (f32
  // for f16/bf16 inputs).
  auto castElements = [&](Value v, Type et) { return rule.castTo(v, et); };
  auto elementType = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getElementType();
  };

  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(op)
      // Elementwise binary ops with numpy broadcasting.
      .Case([&](AddOp) {
        grads[0] = gb.unbroadcast(loc, g, operand(0).getType());
        grads[1] = gb.unbroadcast(loc, g, operand(1).getType());
        return success();
      })
      .Case([&](SubOp) {
        grads[0] = gb.unbroadcast(loc, g, operand(0).getType());
        grads[1] =
            gb.unbroadcast(loc, NegOp::create(b, loc, g), operand(1).getType());
        return success();
      })
      .Case([&](MulOp) {
        grads[0] = gb.unbroadcast(loc, gb.op<MulOp>(loc, g, operand(1)),
                                  operand(0).getType());
        grads[1] = gb.unbroadcast(loc, gb.op<MulOp>(loc, g, operand(0)),
                                  operand(1).getType());
        return success();
      })
      .Case([&](DivOp) {
        // d(a/b)/da = 1/b, d(a/b)/db = -(a/b)/b.
        Value gOverB = gb.op<DivOp>(loc, g, operand(1));
        grads[0] = gb.unbroadcast(loc, gOverB, operand(0).getType());
        Value gbv = NegOp::create(b, loc, gb.op<MulOp>(loc, gOverB, y));
        grads[1] = gb.unbroadcast(loc, gbv, operand(1).getType());
        return success();
      })
      .Case<MaxOp, MinOp>([&](Operation *) {
        // The selected operand gets g; a tie goes to the first operand.
        CmpPredicate pred =
            isa<MaxOp>(op) ? CmpPredicate::ge : CmpPredicate::le;
        Value first = CmpOp::create(b, loc, pred, operand(0), operand(1));
        Value zero = gb.constant(loc, y.getType(), 0.0);
        grads[0] = gb.unbroadcast(loc, WhereOp::create(b, loc, first, g, zero),
                                  operand(0).getType());
        grads[1] = gb.unbroadcast(loc, WhereOp::create(b, loc, first, zero, g),
                                  operand(1).getType());
        return success();
      })
      .Case([&](WhereOp where) {
        // The condition is boolean and gets none.
        Value zero = gb.constant(loc, y.getType(), 0.0);
        Value c = where.getCondition();
        grads[1] = gb.unbroadcast(loc, WhereOp::create(b, loc, c, g, zero),
                                  operand(1).getType());
        grads[2] = gb.unbroadcast(loc, WhereOp::create(b, loc, c, zero, g),
                                  operand(2).getType());
        return success();
      })
      // Elementwise unary ops; the forward result is reused where it helps.
      .Case([&](NegOp) {
        grads[0] = NegOp::create(b, loc, g);
        return success();
      })
      .Case([&](ExpOp) {
        grads[0] = gb.op<MulOp>(loc, g, y);
        return success();
      })
      .Case([&](LogOp) {
        grads[0] = gb.op<DivOp>(loc, g, operand(0));
        return success();
      })
      .Case([&](SqrtOp) {
        Value twoY = gb.op<MulOp>(loc, y, gb.constant(loc, y.getType(), 2.0));
        grads[0] = gb.op<DivOp>(loc, g, twoY);
        return success();
      })
      .Case([&](TanhOp) {
        Value one = gb.constant(loc, y.getType(), 1.0);
        Value d = gb.op<SubOp>(loc, one, gb.op<MulOp>(loc, y, y));
        grads[0] = gb.op<MulOp>(loc, g, d);
        return success();
      })
      .Case([&](SigmoidOp) {
        Value one = gb.constant(loc, y.getType(), 1.0);
        Value d = gb.op<MulOp>(loc, y, gb.op<SubOp>(loc, one, y));
        grads[0] = gb.op<MulOp>(loc, g, d);
        return success();
      })
      .Case([&](ReluOp) {
        Value zero = gb.constant(loc, y.getType(), 0.0);
        Value positive =
            CmpOp::create(b, loc, CmpPredicate::gt, operand(0), zero);
        grads[0] = WhereOp::create(b, loc, positive, g, zero);
        return success();
      })
      // Matrix products.
      .Case([&](MatMulOp) -> LogicalResult {
        auto lhsType = cast<RankedTensorType>(operand(0).getType());
        auto rhsType = cast<RankedTensorType>(operand(1).getType());
        if (lhsType.getRank() < 2 || rhsType.getRank() < 2)
          return noRule(op, "with a rank-1 operand");
        // g: [..., M, N]; da = g x b^T, db = a^T x g, each summed over the
        // batch dimensions its operand was broadcast along.
        grads[0] = gb.unbroadcast(
            loc, gb.op<MatMulOp>(loc, g, gb.swapLastTwo(loc, operand(1))),
            lhsType);
        auto gType = cast<RankedTensorType>(g.getType());
        if (rhsType.getRank() == 2 && lhsType.getRank() > 2 &&
            lhsType.hasStaticShape() && gType.hasStaticShape()) {
          // A matrix applied to a batch ([..., M, K] x [K, N], a linear
          // layer): db = a^T x g summed over the batch is one product over
          // all rows, [K, P] x [P, N] with P = ... * M.
          int64_t k = lhsType.getDimSize(lhsType.getRank() - 1);
          int64_t n = gType.getDimSize(gType.getRank() - 1);
          int64_t rows = lhsType.getNumElements() / std::max<int64_t>(k, 1);
          Type et = lhsType.getElementType();
          Value a2 = ReshapeOp::create(
              b, loc, RankedTensorType::get({rows, k}, et), operand(0));
          Value g2 = ReshapeOp::create(b, loc,
                                       RankedTensorType::get({rows, n}, et), g);
          grads[1] = gb.op<MatMulOp>(loc, gb.swapLastTwo(loc, a2), g2);
          return success();
        }
        grads[1] = gb.unbroadcast(
            loc, gb.op<MatMulOp>(loc, gb.swapLastTwo(loc, operand(0)), g),
            rhsType);
        return success();
      })
      .Case([&](GemmOp gemm) {
        // y = alpha * op(a) op(b) + beta * c.
        bool ta = gemm.getTransA(), tb = gemm.getTransB();
        APFloat alpha = gemm.getAlpha();
        APFloat one(1.0);
        Value a = gemm.getA(), bm = gemm.getB();
        // d op(a) = alpha * g op(b)^T; da is that, transposed when trans_a.
        grads[0] = ta ? GemmOp::create(b, loc, bm, g, Value(), alpha, one,
                                       /*trans_a=*/tb, /*trans_b=*/true)
                      : GemmOp::create(b, loc, g, bm, Value(), alpha, one,
                                       /*trans_a=*/false, /*trans_b=*/!tb);
        // d op(b) = alpha * op(a)^T g; db is that, transposed when trans_b.
        grads[1] = tb ? GemmOp::create(b, loc, g, a, Value(), alpha, one,
                                       /*trans_a=*/true, /*trans_b=*/ta)
                      : GemmOp::create(b, loc, a, g, Value(), alpha, one,
                                       /*trans_a=*/!ta, /*trans_b=*/false);
        if (Value c = gemm.getC()) {
          double beta = gemm.getBeta().convertToDouble();
          Value gc = g;
          if (beta != 1.0)
            gc = gb.op<MulOp>(loc, g, gb.constant(loc, y.getType(), beta));
          grads[2] = gb.unbroadcast(loc, gc, c.getType());
        }
        return success();
      })
      // Convolutions.
      // Pooling.
      .Case<MaxPoolOp, AvgPoolOp>([&](Operation *) -> LogicalResult {
        auto xType = cast<RankedTensorType>(operand(0).getType());
        if (!isStaticButBatch(xType) || !isStaticButBatch(y.getType()))
          return noRule(op, "on a dynamic shape");
        int64_t n = xType.getRank() - 2;
        ArrayRef<int64_t> kernel;
        SmallVector<int64_t> strides, dilations, pads;
        if (auto pool = dyn_cast<MaxPoolOp>(op)) {
          // One op: the backend finds each window's maximum once and
          // gathers the gradient (lib/Conversion/NNCToLinalg).
          grads[0] = MaxPoolGradOp::create(
              b, loc, operand(0), g, pool.getKernelShapeAttr(),
              pool.getStridesAttr(), pool.getPadsAttr(),
              pool.getDilationsAttr(), pool.getCeilModeAttr());
          return success();
        }
        auto pool = cast<AvgPoolOp>(op);
        kernel = pool.getKernelShape();
        strides = spatialAttr(pool.getStrides(), n, 1);
        dilations = spatialAttr(pool.getDilations(), n, 1);
        pads = spatialAttr(pool.getPads(), 2 * n, 0);
        // y = (sum of the window's input elements) / divisor, and the
        // divisor (which depends on count_include_pad and ceil_mode) is
        // recovered from the op itself: 1 / divisor = avg_pool(ones) /
        // valid, with valid the number of input elements in each window.
        auto yType = cast<RankedTensorType>(y.getType());
        SmallVector<int64_t> unitShape{1, 1};
        llvm::append_range(unitShape, xType.getShape().drop_front(2));
        Value ones = gb.constant(
            loc, RankedTensorType::get(unitShape, xType.getElementType()), 1.0,
            /*shaped=*/true);
        IRMapping mapping;
        mapping.map(operand(0), ones);
        Operation *onesPool = b.clone(*op, mapping);
        SmallVector<int64_t> outShape{1, 1};
        llvm::append_range(outShape, yType.getShape().drop_front(2));
        auto outType = RankedTensorType::get(outShape, xType.getElementType());
        onesPool->getResult(0).setType(outType);
        SmallVector<double> valid(outType.getNumElements(), 1.0);
        for (int64_t j = 0; j < outType.getNumElements(); ++j) {
          int64_t rest = j;
          for (int64_t i = n - 1; i >= 0; --i) {
            int64_t o = rest % outShape[2 + i];
            rest /= outShape[2 + i];
            int64_t count = 0;
            for (int64_t k = 0; k < kernel[i]; ++k) {
              int64_t p = o * strides[i] + k * dilations[i] - pads[i];
              count += p >= 0 && p < xType.getDimSize(2 + i);
            }
            valid[j] *= double(count);
          }
        }
        Value scale = gb.op<DivOp>(loc, onesPool->getResult(0),
                                   gb.dense(loc, outType, valid));
        grads[0] = gb.avgPoolGrad(loc, operand(0), y, g, scale, kernel, strides,
                                  dilations, pads);
        return success();
      })
      .Case([&](GlobalAvgPoolOp) -> LogicalResult {
        auto xType = cast<RankedTensorType>(operand(0).getType());
        if (!isStaticButBatch(xType))
          return noRule(op, "on a dynamic shape");
        SmallVector<int64_t> axes;
        int64_t count = 1;
        for (int64_t i = 2; i < xType.getRank(); ++i) {
          axes.push_back(i);
          count *= xType.getDimSize(i);
        }
        Value gi =
            gb.op<MulOp>(loc, g, gb.constant(loc, xType, 1.0 / double(count)));
        grads[0] = gb.unreduce(loc, gi, xType, axes, operand(0));
        return success();
      })
      // Shape ops.
      .Case([&](TransposeOp transpose) {
        ArrayRef<int64_t> perm = transpose.getPerm();
        SmallVector<int64_t> inverse(perm.size());
        for (auto [i, p] : llvm::enumerate(perm))
          inverse[p] = i;
        grads[0] = TransposeOp::create(b, loc, g, inverse);
        return success();
      })
      // A sum over the ranks: every rank's input reaches every rank's
      // result, so its gradient is the sum of the results' gradients over
      // the ranks.
      .Case([&](AllReduceOp) {
        grads[0] = AllReduceOp::create(b, loc, g);
        return success();
      })
      .Case<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp>([&](Operation *) {
        grads[0] = ReshapeOp::create(b, loc, operand(0).getType(), g);
        return success();
      })
      // Reductions.
      .Case([&](SoftmaxOp softmax) {
        // dx = y * (g - sum(g * y, axis)).
        int64_t axis = softmax.getNormalizedAxis();
        Value gy = gb.op<MulOp>(loc, g, y);
        Value s = ReduceOp::create(b, loc, ReduceKind::sum, gy, {axis}, true);
        grads[0] = gb.op<MulOp>(loc, y, gb.op<SubOp>(loc, g, s));
        return success();
      })
      .Case([&](LogSoftmaxOp logSoftmax) {
        // dx = g - exp(y) * sum(g, axis).
        int64_t axis = logSoftmax.getNormalizedAxis();
        Value s = ReduceOp::create(b, loc, ReduceKind::sum, g, {axis}, true);
        Value p = ExpOp::create(b, loc, y);
        grads[0] = gb.op<SubOp>(loc, g, gb.op<MulOp>(loc, p, s));
        return success();
      })
      // Normalizations: with xhat the normalized input and the sums over
      // the M normalized elements, dxhat = g * scale and
      // dx = inv_std / M * (M dxhat - sum(dxhat) - xhat sum(dxhat xhat)).
      .Case([&](BatchNormTrainOp bn) -> LogicalResult {
        // A dynamic batch makes the count M a run-time value.
        auto xType = cast<RankedTensorType>(operand(0).getType());
        if (!isStaticButBatch(xType))
          return noRule(op, "on a dynamic shape");
        bool dynamicBatch = xType.isDynamicDim(0);
        if (dynamicBatch && llvm::any_of(rule.resultGrads.drop_front(),
                                         [](Value v) { return v; }))
          return noRule(op, "through its statistics with a dynamic batch");
        Type ct = elementType(bn.getBatchMean());
        SmallVector<int64_t> axes{0}, statShape(xType.getRank(), 1);
        int64_t count = dynamicBatch ? 1 : xType.getDimSize(0);
        for (int64_t i = 2; i < xType.getRank(); ++i) {
          axes.push_back(i);
          count *= xType.getDimSize(i);
        }
        statShape[1] = xType.getDimSize(1);
        auto statType = RankedTensorType::get(statShape, ct);
        auto stat = [&](Value v) {
          return ReshapeOp::create(b, loc, statType, castElements(v, ct))
              .getResult();
        };
        Value x = castElements(operand(0), ct), gc = castElements(g, ct);
        Value eps =
            gb.constant(loc, statType, bn.getEpsilon().convertToDouble());
        Value invStd = RsqrtOp::create(
            b, loc, gb.op<AddOp>(loc, stat(bn.getBatchVar()), eps));
        Value centered = gb.op<SubOp>(loc, x, stat(bn.getBatchMean()));
        Value xhat = gb.op<MulOp>(loc, centered, invStd);
        Value sumG = ReduceOp::create(b, loc, ReduceKind::sum, gc, axes, true);
        Value sumGX = ReduceOp::create(b, loc, ReduceKind::sum,
                                       gb.op<MulOp>(loc, gc, xhat), axes, true);
        Value scale = stat(operand(1));
        Value m = dynamicBatch
                      ? ReduceOp::create(b, loc, ReduceKind::sum,
                                         gb.onesLike(loc, x), axes, true)
                            .getResult()
                      : gb.constant(loc, statType, double(count));
        Value inner =
            gb.op<SubOp>(loc, gb.op<SubOp>(loc, gb.op<MulOp>(loc, gc, m), sumG),
                         gb.op<MulOp>(loc, xhat, sumGX));
        Value factor = gb.op<DivOp>(loc, gb.op<MulOp>(loc, scale, invStd), m);
        Value dx = gb.op<MulOp>(loc, inner, factor);
        // The batch statistics' own gradients, and those reaching them
        // through the updated running statistics (running = momentum *
        // running + (1 - momentum) * batch, the variance scaled by M / (M -
        // 1) when unbiased).
        double momentum = bn.getMomentum().convertToDouble();
        auto scaled = [&](Value v, double factor) -> Value {
          if (!v || factor == 1.0)
            return v ? stat(v) : v;
          return gb.op<MulOp>(loc, stat(v), gb.constant(loc, statType, factor));
        };
        auto sum = [&](Value l, Value r) -> Value {
          return l && r ? gb.op<AddOp>(loc, l, r) : (l ? l : r);
        };
        double varScale = bn.getUnbiasedRunningVar() && count > 1
                              ? double(count) / double(count - 1)
                              : 1.0;
        Value gMean = sum(scaled(rule.resultGrads[1], 1.0),
                          scaled(rule.resultGrads[3], 1.0 - momentum));
        Value gVar =
            sum(scaled(rule.resultGrads[2], 1.0),
                scaled(rule.resultGrads[4], (1.0 - momentum) * varScale));
        if (Value d = statisticsGrad(rule, centered, gMean, gVar, count))
          dx = gb.op<AddOp>(loc, dx, d);
        grads[0] = castElements(dx, xType.getElementType());
        auto perChannelGrad = [&](Value sum, Value param) {
          auto type = cast<RankedTensorType>(param.getType());
          Value v = ReshapeOp::create(b, loc, type.clone(ct), sum);
          return castElements(v, type.getElementType());
        };
        grads[1] = perChannelGrad(sumGX, operand(1));
        grads[2] = perChannelGrad(sumG, operand(2));
        // The running statistics are buffers, but pass on what reaches them
        // through the updated ones.
        for (unsigned i : {3u, 4u})
          if (rule.resultGrads[i])
            grads[i] = castElements(
                gb.op<MulOp>(
                    loc, rule.resultGrads[i],
                    gb.constant(loc, rule.resultGrads[i].getType(), momentum)),
                elementType(operand(i)));
        return success();
      })
      .Case([&](LayerNormOp ln) -> LogicalResult {
        // The leading (batch) dimensions may be dynamic.
        auto xType = cast<RankedTensorType>(operand(0).getType());
        Type ct = elementType(ln.getMean());
        int64_t axis = ln.getNormalizedAxis();
        SmallVector<int64_t> axes;
        int64_t count = 1;
        for (int64_t i = axis; i < xType.getRank(); ++i) {
          if (xType.isDynamicDim(i))
            return noRule(op, "over a dynamic dimension");
          axes.push_back(i);
          count *= xType.getDimSize(i);
        }
        Value x = castElements(operand(0), ct), gc = castElements(g, ct);
        Value centered = gb.op<SubOp>(loc, x, ln.getMean());
        Value xhat = gb.op<MulOp>(loc, centered, ln.getInvStd());
        auto paramGrad = [&](Value v, Value param) {
          auto type = cast<RankedTensorType>(param.getType());
          return castElements(gb.unbroadcast(loc, v, type.clone(ct)),
                              type.getElementType());
        };
        unsigned next = 1;
        Value dxhat = gc;
        if (Value scale = ln.getScale()) {
          dxhat = gb.op<MulOp>(loc, gc, castElements(scale, ct));
          grads[next++] = paramGrad(gb.op<MulOp>(loc, gc, xhat), scale);
        }
        if (Value bias = ln.getBias())
          grads[next] = paramGrad(gc, bias);
        Value sumD =
            ReduceOp::create(b, loc, ReduceKind::sum, dxhat, axes, true);
        Value sumDX =
            ReduceOp::create(b, loc, ReduceKind::sum,
                             gb.op<MulOp>(loc, dxhat, xhat), axes, true);
        Value m = gb.constant(loc, ln.getInvStd().getType(), double(count));
        Value inner = gb.op<SubOp>(
            loc, gb.op<SubOp>(loc, gb.op<MulOp>(loc, dxhat, m), sumD),
            gb.op<MulOp>(loc, xhat, sumDX));
        Value dx =
            gb.op<MulOp>(loc, inner, gb.op<DivOp>(loc, ln.getInvStd(), m));
        if (Value d = statisticsGrad(
                rule, centered, rule.resultGrads[1],
                invStdToVar(rule, rule.resultGrads[2], ln.getInvStd()), count))
          dx = gb.op<AddOp>(loc, dx, d);
        grads[0] = castElements(dx, xType.getElementType());
        return success();
      })
      // Losses.
      .Case([&](MseLossOp mse) -> LogicalResult {
        auto inputType = cast<RankedTensorType>(operand(0).getType());
        double scale = 2.0;
        Value count;
        if (mse.getReduction() == LossReduction::mean) {
          if (inputType.hasStaticShape())
            scale /= double(inputType.getNumElements());
          else
            // Counted at run time, from ones of the input's shape.
            count = ReduceOp::create(b, loc, ReduceKind::sum,
                                     gb.onesLike(loc, operand(0)),
                                     ArrayRef<int64_t>{}, /*keepdims=*/false);
        }
        Value diff = gb.op<SubOp>(loc, operand(0), operand(1));
        Value scaled =
            gb.op<MulOp>(loc, diff, gb.constant(loc, inputType, scale));
        if (count)
          scaled = gb.op<DivOp>(loc, scaled, count);
        grads[0] = gb.op<MulOp>(loc, scaled, g);
        grads[1] = NegOp::create(b, loc, grads[0]);
        return success();
      })
      .Default([](Operation *) { return std::nullopt; });
}
