//===- AutodiffNNRules.cpp - reduction, loss and nn rules -----------------===//
//
// Gradients of the reductions, the class losses (weights, ignored labels,
// smoothing), grouped and transposed convolutions, the inference-mode and
// instance/group normalizations, dropout and rank-1 matmul.
//
//===----------------------------------------------------------------------===//

#include "AutodiffRules.h"

#include "nnc/NNCOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace nnc;
using namespace nnc::autodiff;

/// The gradient of a max or min over `axes` of `x` (result `y`): g split
/// evenly between the elements equal to the extremum, as PyTorch's
/// amax/amin do.
static Value extremumGrad(Rule &r, Value x, Value y, Value g,
                          ArrayRef<int64_t> axes) {
  auto xType = r.type(x);
  Value ye = r.gb.unreduce(r.loc, y, xType, axes, x);
  Value isExtremum = r.cmp(CmpPredicate::eq, x, ye);
  Value count = r.sumKeep(r.toFloat(isExtremum, x), axes);
  Value share = r.gb.unreduce(r.loc, g, xType, axes, x);
  return r.where(isExtremum, r.div(share, count), r.scalar(x, 0.0));
}

/// Reductions and cumulative sums: g broadcast back over the reduced axes,
/// times the derivative of the reduction.
std::optional<LogicalResult> nnc::autodiff::reductionRules(Rule &r) {
  Value g = r.g;
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(r.op)
      .Case([&](ReduceOp reduce) -> LogicalResult {
        Value x = r.operand(0), y = r.y;
        auto xType = r.type(x);
        if (reduce.getAxes().empty() && reduce.getNoopWithEmptyAxes()) {
          r.grads[0] = g;
          return success();
        }
        SmallVector<int64_t> axes = reduce.getReducedAxes();
        auto expand = [&](Value v) {
          return r.gb.unreduce(r.loc, v, xType, axes, x);
        };
        switch (reduce.getKind()) {
        case ReduceKind::sum:
          r.grads[0] = expand(g);
          break;
        case ReduceKind::mean: {
          if (llvm::any_of(axes, [&](int64_t axis) {
                return xType.isDynamicDim(axis);
              })) {
            // The count at run time, from ones of x's shape.
            Value counts = r.sumKeep(r.gb.onesLike(r.loc, x), axes);
            r.grads[0] = r.div(expand(g), counts);
            break;
          }
          int64_t count = 1;
          for (int64_t axis : axes)
            count *= xType.getDimSize(axis);
          r.grads[0] = expand(r.mul(g, 1.0 / double(count)));
          break;
        }
        case ReduceKind::max:
        case ReduceKind::min:
          r.grads[0] = extremumGrad(r, x, y, g, axes);
          break;
        case ReduceKind::sum_square:
          r.grads[0] = r.mul(expand(g), r.mul(x, 2.0));
          break;
        case ReduceKind::l1:
          r.grads[0] = r.mul(expand(g), SignOp::create(r.b, r.loc, x));
          break;
        case ReduceKind::l2: {
          // x / y, 0 where the norm is 0.
          Value ye = expand(y);
          Value d = r.where(r.cmp(CmpPredicate::eq, ye, 0.0), r.scalar(x, 0.0),
                            r.div(x, ye));
          r.grads[0] = r.mul(expand(g), d);
          break;
        }
        case ReduceKind::log_sum:
          // 1 / sum(x) = exp(-y).
          r.grads[0] = expand(r.div(g, ExpOp::create(r.b, r.loc, y)));
          break;
        case ReduceKind::log_sum_exp:
          r.grads[0] =
              r.mul(expand(g), ExpOp::create(r.b, r.loc, r.sub(x, expand(y))));
          break;
        case ReduceKind::prod: {
          // The product of the other elements, exact with zeros: with the
          // zeros replaced by ones, p = prod(x'), it is p / x' without
          // zeros, p at the only zero, and 0 elsewhere.
          Value isZero = r.cmp(CmpPredicate::eq, x, 0.0);
          Value xnz = r.where(isZero, r.scalar(x, 1.0), x);
          Value p = ReduceOp::create(r.b, r.loc, ReduceKind::prod, xnz, axes,
                                     /*keepdims=*/true);
          Value zeros = r.sumKeep(r.toFloat(isZero, x), axes);
          Value atOnlyZero = AndOp::create(r.b, r.loc, isZero,
                                           r.cmp(CmpPredicate::eq, zeros, 1.0));
          Value d = r.where(r.cmp(CmpPredicate::eq, zeros, 0.0), r.div(p, xnz),
                            r.where(atOnlyZero, p, r.scalar(x, 0.0)));
          r.grads[0] = r.mul(expand(g), d);
          break;
        }
        }
        return success();
      })
      .Case([&](GlobalMaxPoolOp) {
        Value x = r.operand(0);
        SmallVector<int64_t> axes;
        for (int64_t i = 2; i < r.type(x).getRank(); ++i)
          axes.push_back(i);
        r.grads[0] = extremumGrad(r, x, r.y, g, axes);
        return success();
      })
      .Case([&](CumSumOp cumsum) {
        // Each input element reaches the sums after it (before it when
        // reversed): the cumulative sum of g the other way round.
        r.grads[0] = CumSumOp::create(r.b, r.loc, g, cumsum.getAxisAttr(),
                                      cumsum.getExclusiveAttr(),
                                      r.b.getBoolAttr(!cumsum.getReverse()));
        return success();
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// The gradient of a class-index loss (nll_loss on `input`, or
/// cross_entropy on logits when `softmax`). Per element with label t the
/// forward loss is -sum_c a[c] input[c] (input = log_softmax(logits) for
/// cross_entropy) with a = valid * w[c] * ((1 - s) onehot(t) + s / C),
/// valid = (t != ignore_index), and the weighted mean divides by
/// sum(valid * w[t]), so d input = -a gl and d logits = (sum_c a) p - a gl,
/// with gl the gradient of each element's loss.
static LogicalResult classLossGrad(Rule &r, Value input, Value labels,
                                   Value weight, IntegerAttr ignoreIndex,
                                   double s, LossReduction reduction,
                                   bool softmax) {
  auto inputType = r.type(input);
  if (inputType.isDynamicDim(1))
    return noRule(r.op, "with a dynamic class dimension");
  int64_t classes = inputType.getDimSize(1);
  Type et = inputType.getElementType();
  auto labelsType = r.type(labels);
  // [N, d...] -> [N, 1, d...], to broadcast over the class axis.
  auto overClasses = [&](Value v) {
    SmallVector<int64_t> shape(r.type(v).getShape());
    shape.insert(shape.begin() + 1, 1);
    return r.reshape(v, RankedTensorType::get(shape, et));
  };

  Value safe = labels, valid;
  if (ignoreIndex) {
    auto scalarType = RankedTensorType::get({}, labelsType.getElementType());
    auto constant = [&](int64_t v) -> Value {
      return ConstantOp::create(
          r.b, r.loc,
          DenseElementsAttr::get(
              scalarType, r.b.getIntegerAttr(labelsType.getElementType(), v)));
    };
    Value keep =
        r.cmp(CmpPredicate::ne, labels, constant(ignoreIndex.getInt()));
    // An ignored label may lie outside [0, C): read class 0 instead.
    safe = r.where(keep, labels, constant(0));
    valid = r.toFloat(keep, input);
  }
  Value p;
  if (softmax)
    p = SoftmaxOp::create(r.b, r.loc, input, /*axis=*/1);
  Value q = OneHotOp::create(r.b, r.loc, safe, classes, /*axis=*/1,
                             APFloat(1.0 - s + s / double(classes)),
                             APFloat(s / double(classes)), et);
  Value a = q;
  if (weight) {
    SmallVector<int64_t> shape(inputType.getRank(), 1);
    shape[1] = classes;
    a = r.mul(a, r.reshape(weight, RankedTensorType::get(shape, et)));
  }
  if (valid)
    a = r.mul(a, overClasses(valid));

  Value d = r.neg(a);
  if (softmax) {
    d = weight || valid ? r.sub(r.mul(p, r.sumKeep(a, {1})), a) : r.sub(p, a);
  }

  Value gl = r.g;
  switch (reduction) {
  case LossReduction::none:
    gl = overClasses(r.g);
    break;
  case LossReduction::sum:
    break;
  case LossReduction::mean: {
    if (!weight && !valid) {
      if (inputType.hasStaticShape()) {
        // The labels' count, from the static input (the labels' type may
        // still spell a `?`).
        double count = double(inputType.getNumElements() / classes);
        gl = r.mul(r.g, 1.0 / count);
        break;
      }
      // Counted at run time, from ones of the labels' shape.
      Value ones = r.toFloat(r.cmp(CmpPredicate::eq, labels, labels), input);
      Value count = ReduceOp::create(r.b, r.loc, ReduceKind::sum, ones,
                                     ArrayRef<int64_t>{}, /*keepdims=*/false);
      gl = r.div(r.g, count);
      break;
    }
    Value elementWeight = valid;
    if (weight) {
      Value wt =
          GatherOp::create(r.b, r.loc, weight, safe, r.b.getI64IntegerAttr(0));
      elementWeight = valid ? r.mul(wt, valid) : wt;
    }
    Value total = ReduceOp::create(r.b, r.loc, ReduceKind::sum, elementWeight,
                                   ArrayRef<int64_t>{}, /*keepdims=*/false);
    gl = r.div(r.g, total);
    break;
  }
  }
  r.grads[0] = r.mul(d, gl);

  if (weight && r.gb.isActive(weight)) {
    // Per element dl/dw[c] = -valid q[c] logp[c], summed over the elements;
    // the mean S / D also depends on w through D = sum(valid w[t]):
    // (dS/dw[c] - y count[c]) / D, count[c] the labels t = c not ignored.
    Value logp =
        softmax
            ? LogSoftmaxOp::create(r.b, r.loc, input, /*axis=*/1).getResult()
            : input;
    Value perElement = r.neg(r.mul(q, logp));
    if (valid)
      perElement = r.mul(perElement, overClasses(valid));
    SmallVector<int64_t> axes{0};
    for (int64_t i = 2; i < inputType.getRank(); ++i)
      axes.push_back(i);
    auto perClass = [&](Value v) {
      return ReduceOp::create(r.b, r.loc, ReduceKind::sum, v, axes,
                              /*keepdims=*/false)
          .getResult();
    };
    Value dw;
    switch (reduction) {
    case LossReduction::none:
      dw = perClass(r.mul(perElement, gl));
      break;
    case LossReduction::sum:
      dw = r.mul(perClass(perElement), gl);
      break;
    case LossReduction::mean: {
      Value hits = OneHotOp::create(r.b, r.loc, safe, classes, /*axis=*/1,
                                    APFloat(1.0), APFloat(0.0), et);
      if (valid)
        hits = r.mul(hits, overClasses(valid));
      dw = r.mul(r.sub(perClass(perElement), r.mul(perClass(hits), r.y)), gl);
      break;
    }
    }
    r.grads[2] = r.reshape(dw, weight.getType());
  }
  return success();
}

/// The class-index losses; labels get no gradient.
std::optional<LogicalResult> nnc::autodiff::lossRules(Rule &r) {
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(r.op)
      .Case([&](CrossEntropyOp ce) {
        return classLossGrad(r, ce.getLogits(), ce.getLabels(), ce.getWeight(),
                             ce.getIgnoreIndexAttr(),
                             ce.getLabelSmoothing().convertToDouble(),
                             ce.getReduction(), /*softmax=*/true);
      })
      .Case([&](NllLossOp nll) {
        return classLossGrad(r, nll.getInput(), nll.getLabels(),
                             nll.getWeight(), nll.getIgnoreIndexAttr(), 0.0,
                             nll.getReduction(), /*softmax=*/false);
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// `v` with dimensions 0 and 1 swapped.
static Value swap01(Rule &r, Value v) {
  SmallVector<int64_t> perm{1, 0};
  for (int64_t i = 2; i < r.type(v).getRank(); ++i)
    perm.push_back(i);
  return TransposeOp::create(r.b, r.loc, v, perm);
}

/// `v` [A, B, D...] regrouped for a grouped convolution over its batch:
/// [B / groups, groups * A, D...], element [j, k * A + a] = v[a, k * B /
/// groups + j]. With one group this is v with dimensions 0 and 1 swapped.
static Value groupsToChannels(Rule &r, Value v, int64_t groups) {
  if (groups == 1)
    return swap01(r, v);
  auto type = r.type(v);
  int64_t a = type.getDimSize(0), per = type.getDimSize(1) / groups;
  ArrayRef<int64_t> rest = type.getShape().drop_front(2);
  Type et = type.getElementType();
  SmallVector<int64_t> split{a, groups, per}, perm{2, 1, 0},
      merged{per, ShapedType::isDynamic(a) ? a : groups * a};
  llvm::append_range(split, rest);
  llvm::append_range(merged, rest);
  for (size_t i = 0; i < rest.size(); ++i)
    perm.push_back(3 + i);
  Value s = r.reshape(v, RankedTensorType::get(split, et));
  Value t = TransposeOp::create(r.b, r.loc, s, perm);
  return r.reshape(t, RankedTensorType::get(merged, et));
}

/// `v` sliced to `[0, size)` along the spatial dimensions 2... where it is
/// larger.
static Value cropSpatial(Rule &r, Value v, ArrayRef<int64_t> sizes) {
  auto type = r.type(v);
  if (type.getShape().drop_front(2) == sizes)
    return v;
  SmallVector<int64_t> starts(sizes.size(), 0), axes;
  for (size_t i = 0; i < sizes.size(); ++i)
    axes.push_back(2 + i);
  return SliceOp::create(r.b, r.loc, v, r.b.getDenseI64ArrayAttr(starts),
                         r.b.getDenseI64ArrayAttr(sizes),
                         r.b.getDenseI64ArrayAttr(axes), DenseI64ArrayAttr());
}

/// The weight gradient of conv_transpose (`a` = g, `b` = x): a convolution of
/// `a` regrouped to [C / G, G * N, ...] with `b` transposed to [M, N, ...] as
/// the kernel, G groups, strides and dilations swapped, cropped to the kernel's
/// spatial `sizes` (the windows may reach past them) and transposed back.
static Value weightGrad(Rule &r, Value a, Value b, int64_t groups,
                        ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                        ArrayRef<int64_t> pads, ArrayRef<int64_t> sizes) {
  Value regrouped = groupsToChannels(r, a, groups);
  Value kernel = swap01(r, b);
  Value dwt = ConvOp::create(
      r.b, r.loc, regrouped, kernel, Value(),
      r.b.getDenseI64ArrayAttr(dilations), r.b.getDenseI64ArrayAttr(strides),
      r.b.getDenseI64ArrayAttr(pads), r.b.getI64IntegerAttr(groups));
  return swap01(r, cropSpatial(r, dwt, sizes));
}

/// The sum of `g` over every dimension but 1, reshaped to `type` ([C]).
static Value channelSum(Rule &r, Value g, Type type) {
  SmallVector<int64_t> axes{0};
  for (int64_t i = 2; i < r.type(g).getRank(); ++i)
    axes.push_back(i);
  Value s = ReduceOp::create(r.b, r.loc, ReduceKind::sum, g, axes,
                             /*keepdims=*/false);
  return r.reshape(s, type);
}

/// `v` ([C]) reshaped to [1, C, 1...] of rank `rank`.
static Value perChannel(Rule &r, Value v, int64_t rank) {
  SmallVector<int64_t> shape(rank, 1);
  shape[1] = r.type(v).getDimSize(0);
  return r.reshape(v, RankedTensorType::get(shape, r.type(v).getElementType()));
}

/// The input gradient of a normalization over `axes` (M elements) given
/// the normalized input `xhat`, its gradient `dxhat` and the inverse
/// standard deviation: inv_std / M (M dxhat - sum(dxhat) - xhat
/// sum(dxhat xhat)).
static Value normalizedGrad(Rule &r, Value xhat, Value dxhat, Value invStd,
                            ArrayRef<int64_t> axes, int64_t count) {
  Value sumD = r.sumKeep(dxhat, axes);
  Value sumDX = r.sumKeep(r.mul(dxhat, xhat), axes);
  Value inner =
      r.sub(r.sub(r.mul(dxhat, double(count)), sumD), r.mul(xhat, sumDX));
  return r.mul(inner, r.mul(invStd, 1.0 / double(count)));
}

/// Convolutions with groups, transposed convolutions, the normalizations
/// other than batch_norm_train and layer_norm, dropout, and matmul with a
/// rank-1 operand.
std::optional<LogicalResult> nnc::autodiff::nnRules(Rule &r) {
  Value g = r.g;
  // Static shapes, except perhaps the batch of the input and the result.
  auto staticButBatch = [&]() {
    return isStaticButBatch(r.operand(0).getType()) &&
           isStaticButBatch(r.y.getType()) &&
           llvm::all_of(llvm::drop_begin(r.op->getOperandTypes()),
                        [](Type t) { return isStatic(t); });
  };
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(r.op)
      .Case([&](ConvOp conv) -> LogicalResult {
        if (!staticButBatch())
          return noRule(r.op, "on a dynamic shape");
        Value x = conv.getInput(), w = conv.getWeight();
        auto xType = r.type(x), wType = r.type(w), yType = r.type(r.y);
        int64_t n = xType.getRank() - 2, groups = conv.getGroups();
        SmallVector<int64_t> strides = spatialAttr(conv.getStrides(), n, 1);
        SmallVector<int64_t> dilations = spatialAttr(conv.getDilations(), n, 1);
        SmallVector<int64_t> pads = spatialAttr(conv.getPads(), 2 * n, 0);
        // dx: the transposed convolution of g with the same kernel and
        // groups; the output padding restores the input positions the last
        // window never reached.
        SmallVector<int64_t> outputPadding;
        for (int64_t i = 0; i < n; ++i) {
          int64_t reached = strides[i] * (yType.getDimSize(2 + i) - 1) +
                            dilations[i] * (wType.getDimSize(2 + i) - 1) + 1 -
                            pads[i] - pads[n + i];
          outputPadding.push_back(xType.getDimSize(2 + i) - reached);
        }
        r.grads[0] = ConvTransposeOp::create(
            r.b, r.loc, xType, g, w, Value(), r.b.getDenseI64ArrayAttr(strides),
            r.b.getDenseI64ArrayAttr(dilations), r.b.getDenseI64ArrayAttr(pads),
            r.b.getDenseI64ArrayAttr(outputPadding),
            r.b.getI64IntegerAttr(groups));
        // dw[m, c, k] = sum_{n, o} g[n, m, o] x[n, c, o * s + k * d - p]:
        // one op, which the backends compute from x and g as they lie.
        r.grads[1] = ConvWeightGradOp::create(
            r.b, r.loc, x, g,
            r.b.getDenseI64ArrayAttr(wType.getShape().drop_front(2)),
            r.b.getDenseI64ArrayAttr(strides),
            r.b.getDenseI64ArrayAttr(dilations), r.b.getDenseI64ArrayAttr(pads),
            r.b.getI64IntegerAttr(groups));
        if (Value bias = conv.getBias())
          r.grads[2] = channelSum(r, g, bias.getType());
        return success();
      })
      .Case([&](ConvTransposeOp conv) -> LogicalResult {
        if (!staticButBatch())
          return noRule(r.op, "on a dynamic shape");
        Value x = conv.getInput(), w = conv.getWeight();
        auto xType = r.type(x), wType = r.type(w);
        int64_t n = xType.getRank() - 2, groups = conv.getGroups();
        SmallVector<int64_t> strides = spatialAttr(conv.getStrides(), n, 1);
        SmallVector<int64_t> dilations = spatialAttr(conv.getDilations(), n, 1);
        SmallVector<int64_t> pads = spatialAttr(conv.getPads(), 2 * n, 0);
        // dx: the convolution of g with the same kernel (its [C, M / G]
        // layout is a convolution's [out, in / G]), cropped where the
        // output padding added positions.
        Value dx = ConvOp::create(
            r.b, r.loc, g, w, Value(), r.b.getDenseI64ArrayAttr(strides),
            r.b.getDenseI64ArrayAttr(dilations), r.b.getDenseI64ArrayAttr(pads),
            r.b.getI64IntegerAttr(groups));
        r.grads[0] = cropSpatial(r, dx, xType.getShape().drop_front(2));
        // dw[c, m, k] = sum_{n, i} x[n, c, i] g[n, m, i * s + k * d - p]: a
        // convolution of g regrouped to [M / G, G * N, O] with x^T [C, N, D]
        // as the kernel, G groups, strides and dilations swapped.
        r.grads[1] = weightGrad(r, g, x, groups, strides, dilations, pads,
                                wType.getShape().drop_front(2));
        if (Value bias = conv.getBias())
          r.grads[2] = channelSum(r, g, bias.getType());
        return success();
      })
      .Case([&](BatchNormOp bn) -> LogicalResult {
        // Frozen statistics: y = (x - mean) inv_std scale + bias, computed
        // in the statistics' element type.
        Value x = bn.getInput();
        auto xType = r.type(x);
        Type ct = r.type(bn.getMean()).getElementType();
        int64_t rank = xType.getRank();
        auto param = [&](Value v) {
          return perChannel(r, r.castTo(v, ct), rank);
        };
        auto paramGrad = [&](Value v, Value operand) {
          auto type = r.type(operand);
          return r.castTo(channelSum(r, v, type.clone(ct)),
                          type.getElementType());
        };
        Value gc = r.castTo(g, ct);
        Value scale = param(bn.getScale());
        Value centered = r.sub(r.castTo(x, ct), param(bn.getMean()));
        Value invStd = RsqrtOp::create(
            r.b, r.loc,
            r.add(param(bn.getVar()), bn.getEpsilon().convertToDouble()));
        Value factor = r.mul(scale, invStd);
        r.grads[0] = r.castTo(r.mul(gc, factor), xType.getElementType());
        r.grads[1] =
            paramGrad(r.mul(gc, r.mul(centered, invStd)), bn.getScale());
        r.grads[2] = paramGrad(gc, bn.getBias());
        // d mean = -sum(g) scale inv_std; d var = -sum(g (x - mean)) scale
        // inv_std^3 / 2.
        r.grads[3] = paramGrad(r.neg(r.mul(gc, factor)), bn.getMean());
        Value cube = r.mul(r.mul(invStd, invStd), r.mul(factor, -0.5));
        r.grads[4] = paramGrad(r.mul(r.mul(gc, centered), cube), bn.getVar());
        return success();
      })
      .Case([&](InstanceNormOp in) -> LogicalResult {
        // In the statistics' element type (f32 for f16/bf16 inputs).
        Value x = in.getInput();
        auto xType = r.type(x);
        if (!isStaticButBatch(xType))
          return noRule(r.op, "on a dynamic shape");
        Type ct = r.type(in.getMean()).getElementType();
        SmallVector<int64_t> axes;
        int64_t count = 1;
        for (int64_t i = 2; i < xType.getRank(); ++i) {
          axes.push_back(i);
          count *= xType.getDimSize(i);
        }
        Value gc = r.castTo(g, ct);
        Value centered = r.sub(r.castTo(x, ct), in.getMean());
        Value xhat = r.mul(centered, in.getInvStd());
        Value dxhat = r.mul(
            gc, perChannel(r, r.castTo(in.getScale(), ct), xType.getRank()));
        Value dx = normalizedGrad(r, xhat, dxhat, in.getInvStd(), axes, count);
        if (Value d = statisticsGrad(
                r, centered, r.resultGrads[1],
                invStdToVar(r, r.resultGrads[2], in.getInvStd()), count))
          dx = r.add(dx, d);
        r.grads[0] = r.castTo(dx, xType.getElementType());
        auto scaleType = r.type(in.getScale());
        r.grads[1] =
            r.castTo(channelSum(r, r.mul(gc, xhat), scaleType.clone(ct)),
                     scaleType.getElementType());
        r.grads[2] = r.castTo(channelSum(r, gc, scaleType.clone(ct)),
                              scaleType.getElementType());
        return success();
      })
      .Case([&](GroupNormOp gn) -> LogicalResult {
        // On the view [N, G, C / G * D...] with statistics [N, G, 1], in
        // the statistics' element type.
        Value x = gn.getInput();
        auto xType = r.type(x);
        if (!isStaticButBatch(xType))
          return noRule(r.op, "on a dynamic shape");
        Type ct = r.type(gn.getMean()).getElementType();
        int64_t groups = gn.getNumGroups(), batch = xType.getDimSize(0);
        int64_t count = 1;
        for (int64_t d : xType.getShape().drop_front())
          count *= d;
        count /= groups;
        auto viewType = RankedTensorType::get({batch, groups, count}, ct);
        auto statType = RankedTensorType::get({batch, groups, 1}, ct);
        Value gc = r.castTo(g, ct);
        Value invStd = r.reshape(gn.getInvStd(), statType);
        Value centered = r.sub(r.reshape(r.castTo(x, ct), viewType),
                               r.reshape(gn.getMean(), statType));
        Value xhat = r.mul(centered, invStd);
        Value dxhat =
            r.reshape(r.mul(gc, perChannel(r, r.castTo(gn.getScale(), ct),
                                           xType.getRank())),
                      viewType);
        Value dx = normalizedGrad(r, xhat, dxhat, invStd, {2}, count);
        auto stat = [&](Value v) { return v ? r.reshape(v, statType) : v; };
        if (Value d = statisticsGrad(
                r, centered, stat(r.resultGrads[1]),
                invStdToVar(r, stat(r.resultGrads[2]), invStd), count))
          dx = r.add(dx, d);
        r.grads[0] =
            r.castTo(r.reshape(dx, xType.clone(ct)), xType.getElementType());
        auto scaleType = r.type(gn.getScale());
        r.grads[1] =
            r.castTo(channelSum(r, r.mul(gc, r.reshape(xhat, xType.clone(ct))),
                                scaleType.clone(ct)),
                     scaleType.getElementType());
        r.grads[2] = r.castTo(channelSum(r, gc, scaleType.clone(ct)),
                              scaleType.getElementType());
        return success();
      })
      .Case([&](DropoutOp dropout) {
        // The op's own mask, scaled as the forward scaled it.
        if (!dropout.isRandom()) {
          r.grads[0] = g;
          return success();
        }
        double keep = 1.0 - dropout.getRatio().convertToDouble();
        Value mask = r.toFloat(dropout.getMask(), g);
        r.grads[0] = r.mul(r.mul(g, mask), 1.0 / keep);
        return success();
      })
      .Case([&](MatMulOp) -> std::optional<LogicalResult> {
        Value a = r.operand(0), bm = r.operand(1);
        auto aType = r.type(a), bType = r.type(bm);
        if (aType.getRank() >= 2 && bType.getRank() >= 2)
          return std::nullopt;
        // A rank-1 operand as a matrix ([1, K] on the left, [K, 1] on the
        // right) and g with the matching unit dimension.
        Type et = aType.getElementType();
        SmallVector<int64_t> gShape(r.type(g).getShape());
        Value a2 = a, b2 = bm;
        if (aType.getRank() == 1) {
          a2 =
              r.reshape(a, RankedTensorType::get({1, aType.getDimSize(0)}, et));
          gShape.insert(gShape.end() - (bType.getRank() == 1 ? 0 : 1), 1);
        }
        if (bType.getRank() == 1) {
          b2 = r.reshape(bm,
                         RankedTensorType::get({bType.getDimSize(0), 1}, et));
          gShape.push_back(1);
        }
        Value g2 = r.reshape(g, RankedTensorType::get(gShape, et));
        Value da = r.gb.unbroadcast(
            r.loc,
            MatMulOp::create(r.b, r.loc, g2, r.gb.swapLastTwo(r.loc, b2)),
            a2.getType());
        Value db = r.gb.unbroadcast(
            r.loc,
            MatMulOp::create(r.b, r.loc, r.gb.swapLastTwo(r.loc, a2), g2),
            b2.getType());
        r.grads[0] = r.reshape(da, aType);
        r.grads[1] = r.reshape(db, bType);
        return success();
      })
      .Default([](Operation *) { return std::nullopt; });
}
