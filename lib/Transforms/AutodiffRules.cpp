//===- AutodiffRules.cpp - gradient rules of --nnc-autodiff ---------------===//
//
// The reverse-mode rule of every differentiable nnc op, written as nnc ops so
// the backward pass lowers like any other function.
//
//===----------------------------------------------------------------------===//

#include "AutodiffRules.h"

#include "nnc/NNCOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

using namespace mlir;
using namespace nnc;
using namespace nnc::autodiff;

Value GradientBuilder::constant(Location loc, Type type, double value,
                                bool shaped) {
  auto tensor = cast<RankedTensorType>(type);
  auto constType =
      shaped ? tensor : RankedTensorType::get({}, tensor.getElementType());
  auto attr = DenseElementsAttr::get(
      constType, b.getFloatAttr(constType.getElementType(), value));
  return ConstantOp::create(b, loc, attr);
}

Value GradientBuilder::unbroadcast(Location loc, Value grad, Type type) {
  auto target = cast<RankedTensorType>(type);
  auto gradType = cast<RankedTensorType>(grad.getType());
  if (gradType == target)
    return grad;
  int64_t lead = gradType.getRank() - target.getRank();
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < gradType.getRank(); ++i) {
    if (i < lead) {
      axes.push_back(i);
      continue;
    }
    if (target.getDimSize(i - lead) == 1 && gradType.getDimSize(i) != 1)
      axes.push_back(i);
  }
  Value reduced = grad;
  if (!axes.empty())
    reduced = ReduceOp::create(b, loc, ReduceKind::sum, grad, axes,
                               /*keepdims=*/true);
  if (reduced.getType() == target)
    return reduced;
  return ReshapeOp::create(b, loc, target, reduced);
}

Value GradientBuilder::unreduce(Location loc, Value grad, Type type,
                                ArrayRef<int64_t> axes, Value like) {
  auto target = cast<RankedTensorType>(type);
  SmallVector<int64_t> kept(target.getShape());
  for (int64_t axis : axes)
    kept[axis] = 1;
  auto keptType = RankedTensorType::get(kept, target.getElementType());
  if (grad.getType() != keptType)
    grad = ReshapeOp::create(b, loc, keptType, grad);
  if (keptType == target)
    return grad;
  if (like && !target.hasStaticShape())
    return MulOp::create(b, loc, grad, onesLike(loc, like));
  return ExpandOp::create(b, loc, target, grad);
}

Value GradientBuilder::onesLike(Location loc, Value like) {
  Value same = CmpOp::create(b, loc, CmpPredicate::eq, like, like);
  return CastOp::create(b, loc, like.getType(), same);
}

Value GradientBuilder::dense(Location loc, RankedTensorType type,
                             ArrayRef<double> values) {
  const llvm::fltSemantics &sem =
      cast<FloatType>(type.getElementType()).getFloatSemantics();
  SmallVector<APFloat> elements;
  for (double v : values) {
    APFloat f(v);
    bool lost;
    f.convert(sem, APFloat::rmNearestTiesToEven, &lost);
    elements.push_back(f);
  }
  return ConstantOp::create(b, loc, DenseElementsAttr::get(type, elements));
}

Value GradientBuilder::poolGrad(Location loc, bool isMax, Value x, Value y,
                                Value g, Value scale, ArrayRef<int64_t> kernel,
                                ArrayRef<int64_t> strides,
                                ArrayRef<int64_t> dilations,
                                ArrayRef<int64_t> pads) {
  auto xType = cast<RankedTensorType>(x.getType());
  auto yType = cast<RankedTensorType>(y.getType());
  Type elementType = xType.getElementType();
  int64_t n = xType.getRank() - 2;
  int64_t nc = xType.isDynamicDim(0)
                   ? ShapedType::kDynamic
                   : xType.getDimSize(0) * xType.getDimSize(1);
  SmallVector<int64_t> padBegin(pads.take_front(n)), padEnd(pads.drop_front(n));
  SmallVector<int64_t> outputPadding;
  for (int64_t i = 0; i < n; ++i) {
    int64_t reach = strides[i] * (yType.getDimSize(2 + i) - 1) +
                    dilations[i] * (kernel[i] - 1) + 1;
    int64_t padded = xType.getDimSize(2 + i) + padBegin[i] + padEnd[i];
    if (reach > padded)
      padEnd[i] += reach - padded;
    outputPadding.push_back(std::max<int64_t>(padded - reach, 0));
  }
  auto view = [&](RankedTensorType type, int64_t channels) {
    SmallVector<int64_t> shape{nc, channels};
    llvm::append_range(shape, type.getShape().drop_front(2));
    return RankedTensorType::get(shape, elementType);
  };
  // The window offsets as the output channels of a kernel [K, 1, K...].
  int64_t offsets = 1;
  for (int64_t k : kernel)
    offsets *= k;
  SmallVector<int64_t> kernelShape{isMax ? offsets : 1, 1};
  llvm::append_range(kernelShape, kernel);
  auto kernelType = RankedTensorType::get(kernelShape, elementType);
  SmallVector<double> kernelValues;
  for (int64_t k = 0; k < kernelType.getNumElements(); ++k)
    kernelValues.push_back(isMax ? double(k / offsets == k % offsets) : 1.0);
  Value w = dense(loc, kernelType, kernelValues);

  Value gv;
  if (isMax) {
    gv = ReshapeOp::create(b, loc, view(yType, 1), g);
    SmallVector<int64_t> explicitPads{0, 0};
    llvm::append_range(explicitPads, padBegin);
    explicitPads.append({0, 0});
    llvm::append_range(explicitPads, padEnd);
    double lowest =
        APFloat::getLargest(cast<FloatType>(elementType).getFloatSemantics(),
                            /*Negative=*/true)
            .convertToDouble();
    Value xv = ReshapeOp::create(b, loc, view(xType, 1), x);
    Value xp =
        PadOp::create(b, loc, xv, b.getDenseI64ArrayAttr(explicitPads),
                      PadModeAttr::get(b.getContext(), PadMode::constant),
                      b.getF64FloatAttr(lowest));
    // windows[nc, k, o] = the element at offset k of window o.
    Value windows =
        ConvOp::create(b, loc, xp, w, Value(), b.getDenseI64ArrayAttr(strides),
                       b.getDenseI64ArrayAttr(dilations), DenseI64ArrayAttr(),
                       /*groups=*/1);
    Value yv = ReshapeOp::create(b, loc, view(yType, 1), y);
    Value isMaxElem = CmpOp::create(b, loc, CmpPredicate::eq, windows, yv);
    auto countType = cast<RankedTensorType>(windows.getType());
    Value count =
        CumSumOp::create(b, loc, CastOp::create(b, loc, countType, isMaxElem),
                         b.getI64IntegerAttr(1));
    Value first = AndOp::create(b, loc, isMaxElem,
                                CmpOp::create(b, loc, CmpPredicate::eq, count,
                                              constant(loc, countType, 1.0)));
    gv = WhereOp::create(b, loc, first, gv, constant(loc, countType, 0.0));
  } else {
    gv = ReshapeOp::create(b, loc, view(yType, 1), op<MulOp>(loc, g, scale));
  }
  Value dx = ConvTransposeOp::create(
      b, loc, view(xType, 1), gv, w, Value(), b.getDenseI64ArrayAttr(strides),
      b.getDenseI64ArrayAttr(dilations),
      b.getDenseI64ArrayAttr(
          llvm::to_vector(llvm::concat<int64_t>(padBegin, padEnd))),
      b.getDenseI64ArrayAttr(outputPadding), /*groups=*/1);
  return ReshapeOp::create(b, loc, xType, dx);
}

Value GradientBuilder::swapLastTwo(Location loc, Value v) {
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    perm.push_back(i);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return TransposeOp::create(b, loc, v, perm);
}

static bool isStatic(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape();
}

/// Whether `type` is ranked with static dimensions except perhaps the
/// first (a batch).
static bool isStaticButBatch(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && llvm::all_of(tensor.getShape().drop_front(),
                                [](int64_t d) { return d >= 0; });
}

/// The values of an optional per-spatial-dimension attribute, `count`
/// copies of `fill` when absent.
static SmallVector<int64_t> spatialAttr(std::optional<ArrayRef<int64_t>> attr,
                                        int64_t count, int64_t fill) {
  if (attr)
    return SmallVector<int64_t>(*attr);
  return SmallVector<int64_t>(count, fill);
}

namespace {

/// What a rule reads and the arithmetic it writes: `op`, the gradient `g`
/// of its first result `y`, and the operand gradients `grads` it sets.
struct Rule {
  Operation *op;
  Location loc;
  GradientBuilder &gb;
  OpBuilder &b;
  Value g, y;
  ArrayRef<Value> resultGrads;
  SmallVectorImpl<Value> &grads;

  Value operand(unsigned i) { return op->getOperand(i); }
  RankedTensorType type(Value v) { return cast<RankedTensorType>(v.getType()); }
  /// A rank-0 constant of `like`'s element type.
  Value scalar(Value like, double v) {
    return gb.constant(loc, like.getType(), v);
  }
  Value add(Value l, Value r) { return AddOp::create(b, loc, l, r); }
  Value sub(Value l, Value r) { return SubOp::create(b, loc, l, r); }
  Value mul(Value l, Value r) { return MulOp::create(b, loc, l, r); }
  Value div(Value l, Value r) { return DivOp::create(b, loc, l, r); }
  Value mul(Value l, double r) { return mul(l, scalar(l, r)); }
  Value add(Value l, double r) { return add(l, scalar(l, r)); }
  Value neg(Value v) { return NegOp::create(b, loc, v); }
  Value cmp(CmpPredicate p, Value l, Value r) {
    return CmpOp::create(b, loc, p, l, r);
  }
  Value cmp(CmpPredicate p, Value l, double r) {
    return cmp(p, l, scalar(l, r));
  }
  Value where(Value c, Value t, Value f) {
    return WhereOp::create(b, loc, c, t, f);
  }
  /// `g` where `c` holds, else 0.
  Value gWhere(Value c) { return where(c, g, scalar(g, 0.0)); }
  /// Casts an i1 tensor to `like`'s element type.
  Value toFloat(Value mask, Value like) {
    auto maskType = type(mask);
    return CastOp::create(
        b, loc,
        RankedTensorType::get(maskType.getShape(), type(like).getElementType()),
        mask);
  }
  Value sumKeep(Value v, ArrayRef<int64_t> axes) {
    return ReduceOp::create(b, loc, ReduceKind::sum, v, axes,
                            /*keepdims=*/true);
  }
  Value reshape(Value v, Type t) {
    if (v.getType() == t)
      return v;
    return ReshapeOp::create(b, loc, t, v);
  }
  /// `v` with element type `et`.
  Value castTo(Value v, Type et) {
    if (type(v).getElementType() == et)
      return v;
    return CastOp::create(b, loc, type(v).clone(et), v);
  }
};

} // namespace

/// The gradient reaching x through statistics over M (`count`) of its
/// elements: `gMean` into their mean and `gVar` into their biased variance
/// (each broadcastable against x, or null): gMean / M + gVar 2 (x - mean)
/// / M, with `centered` = x - mean. Null when both are.
static Value statisticsGrad(Rule &r, Value centered, Value gMean, Value gVar,
                            int64_t count) {
  Value d;
  if (gVar)
    d = r.mul(r.mul(centered, gVar), 2.0 / double(count));
  if (gMean) {
    Value m = r.mul(gMean, 1.0 / double(count));
    d = d ? r.add(d, m) : m;
  }
  return d;
}

/// The gradient into a variance from one into the inverse standard
/// deviation `invStd` = (var + eps)^(-1/2): -gInvStd invStd^3 / 2.
static Value invStdToVar(Rule &r, Value gInvStd, Value invStd) {
  if (!gInvStd)
    return Value();
  return r.mul(r.mul(gInvStd, r.mul(r.mul(invStd, invStd), invStd)), -0.5);
}

/// Elementwise unary ops and activations, and the binary ops pow, rem and
/// prelu: g times the derivative, written with the forward result where
/// that is cheaper.
static std::optional<LogicalResult> unaryRules(Rule &r) {
  Value x = r.op->getNumOperands() ? r.operand(0) : Value();
  Value y = r.y, g = r.g;
  auto set = [&](Value d) {
    r.grads[0] = r.mul(g, d);
    return success();
  };
  auto one = [&]() { return r.scalar(x, 1.0); };
  auto square = [&](Value v) { return r.mul(v, v); };
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(r.op)
      .Case([&](GeluOp gelu) {
        if (gelu.getApproximation() == GeluApproximation::none) {
          // Phi(x) + x phi(x).
          Value cdf = r.mul(
              r.add(ErfOp::create(r.b, r.loc, r.mul(x, M_SQRT1_2)), 1.0), 0.5);
          Value pdf = r.mul(ExpOp::create(r.b, r.loc, r.mul(square(x), -0.5)),
                            0.5 * M_2_SQRTPI * M_SQRT1_2);
          return set(r.add(cdf, r.mul(x, pdf)));
        }
        // 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2), t = tanh(k (x + c
        // x^3)), k = sqrt(2 / pi), c = 0.044715.
        const double k = M_2_SQRTPI * M_SQRT1_2, c = 0.044715;
        Value x2 = square(x);
        Value t = TanhOp::create(r.b, r.loc,
                                 r.mul(r.mul(x, r.add(r.mul(x2, c), 1.0)), k));
        Value left = r.mul(r.add(t, 1.0), 0.5);
        Value right = r.mul(r.mul(r.mul(x, r.sub(one(), square(t))),
                                  r.add(r.mul(x2, 3 * c), 1.0)),
                            0.5 * k);
        return set(r.add(left, right));
      })
      .Case([&](ErfOp) {
        return set(
            r.mul(ExpOp::create(r.b, r.loc, r.neg(square(x))), M_2_SQRTPI));
      })
      .Case([&](SiluOp) {
        // s (1 + x (1 - s)).
        Value s = SigmoidOp::create(r.b, r.loc, x);
        return set(r.mul(s, r.add(r.mul(x, r.sub(one(), s)), 1.0)));
      })
      .Case([&](SoftplusOp) { return set(SigmoidOp::create(r.b, r.loc, x)); })
      .Case([&](SoftsignOp) {
        Value d = r.add(AbsOp::create(r.b, r.loc, x), 1.0);
        return set(ReciprocalOp::create(r.b, r.loc, square(d)));
      })
      .Case([&](MishOp) {
        // t + x (1 - t^2) sigmoid(x), t = tanh(softplus(x)).
        Value t = TanhOp::create(r.b, r.loc, SoftplusOp::create(r.b, r.loc, x));
        Value s = SigmoidOp::create(r.b, r.loc, x);
        return set(r.add(t, r.mul(r.mul(x, r.sub(one(), square(t))), s)));
      })
      .Case([&](HardSwishOp) {
        // 0 below -3, 1 above 3, x / 3 + 1 / 2 between (PyTorch's).
        Value mid = r.add(r.mul(x, 1.0 / 3.0), 0.5);
        Value d = r.where(r.cmp(CmpPredicate::lt, x, -3.0), r.scalar(x, 0.0),
                          r.where(r.cmp(CmpPredicate::le, x, 3.0), mid, one()));
        return set(d);
      })
      .Case([&](HardSigmoidOp hs) {
        double alpha = hs.getAlpha().convertToDouble();
        Value v = r.add(r.mul(x, alpha), hs.getBeta().convertToDouble());
        Value inside =
            AndOp::create(r.b, r.loc, r.cmp(CmpPredicate::gt, v, 0.0),
                          r.cmp(CmpPredicate::lt, v, 1.0));
        r.grads[0] = r.mul(r.gWhere(inside), alpha);
        return success();
      })
      .Case([&](LeakyReluOp lr) {
        Value pos = r.cmp(CmpPredicate::gt, x, 0.0);
        r.grads[0] = r.where(pos, g, r.mul(g, lr.getAlpha().convertToDouble()));
        return success();
      })
      .Case([&](EluOp elu) {
        // alpha exp(x) = y + alpha below 0.
        Value pos = r.cmp(CmpPredicate::gt, x, 0.0);
        r.grads[0] = r.where(
            pos, g, r.mul(g, r.add(y, elu.getAlpha().convertToDouble())));
        return success();
      })
      .Case([&](SeluOp selu) {
        // gamma above 0, gamma alpha exp(x) = y + gamma alpha below.
        double gamma = selu.getGamma().convertToDouble();
        double alpha = selu.getAlpha().convertToDouble();
        Value pos = r.cmp(CmpPredicate::gt, x, 0.0);
        r.grads[0] =
            r.where(pos, r.mul(g, gamma), r.mul(g, r.add(y, gamma * alpha)));
        return success();
      })
      .Case([&](CeluOp celu) {
        double alpha = celu.getAlpha().convertToDouble();
        Value pos = r.cmp(CmpPredicate::gt, x, 0.0);
        Value e = ExpOp::create(r.b, r.loc, r.mul(x, 1.0 / alpha));
        r.grads[0] = r.where(pos, g, r.mul(g, e));
        return success();
      })
      .Case([&](ThresholdedReluOp tr) {
        r.grads[0] = r.gWhere(
            r.cmp(CmpPredicate::gt, x, tr.getAlpha().convertToDouble()));
        return success();
      })
      .Case([&](SinOp) { return set(CosOp::create(r.b, r.loc, x)); })
      .Case([&](CosOp) { return set(r.neg(SinOp::create(r.b, r.loc, x))); })
      .Case([&](TanOp) { return set(r.add(square(y), 1.0)); })
      .Case([&](AsinOp) {
        return set(RsqrtOp::create(r.b, r.loc, r.sub(one(), square(x))));
      })
      .Case([&](AcosOp) {
        return set(r.neg(RsqrtOp::create(r.b, r.loc, r.sub(one(), square(x)))));
      })
      .Case([&](AtanOp) {
        return set(ReciprocalOp::create(r.b, r.loc, r.add(square(x), 1.0)));
      })
      .Case([&](SinhOp) { return set(CoshOp::create(r.b, r.loc, x)); })
      .Case([&](CoshOp) { return set(SinhOp::create(r.b, r.loc, x)); })
      .Case([&](AsinhOp) {
        return set(RsqrtOp::create(r.b, r.loc, r.add(square(x), 1.0)));
      })
      .Case([&](AcoshOp) {
        return set(RsqrtOp::create(r.b, r.loc, r.add(square(x), -1.0)));
      })
      .Case([&](AtanhOp) {
        return set(ReciprocalOp::create(r.b, r.loc, r.sub(one(), square(x))));
      })
      .Case([&](AbsOp) { return set(SignOp::create(r.b, r.loc, x)); })
      .Case([&](ReciprocalOp) { return set(r.neg(square(y))); })
      .Case([&](RsqrtOp) { return set(r.mul(r.mul(square(y), y), -0.5)); })
      // Piecewise constant: a zero gradient, i.e. none.
      .Case<FloorOp, CeilOp, RoundOp, SignOp>(
          [&](Operation *) { return success(); })
      .Case([&](ClipOp clip) {
        // g inside the bounds, bounds included (PyTorch's clamp).
        Value inside;
        if (std::optional<APFloat> lo = clip.getMin())
          inside = r.cmp(CmpPredicate::ge, x, lo->convertToDouble());
        if (std::optional<APFloat> hi = clip.getMax()) {
          Value below = r.cmp(CmpPredicate::le, x, hi->convertToDouble());
          inside = inside ? AndOp::create(r.b, r.loc, inside, below).getResult()
                          : below;
        }
        r.grads[0] = inside ? r.gWhere(inside) : g;
        return success();
      })
      .Case([&](CastOp) {
        // Between float types; integer operands are never active.
        if (isa<FloatType>(r.type(x).getElementType()))
          r.grads[0] = CastOp::create(r.b, r.loc, x.getType(), g);
        return success();
      })
      .Case([&](PowOp) {
        // d/da = b a^(b - 1); d/db = y log(a) where a > 0, else 0.
        Value a = x, e = r.operand(1);
        Value da =
            r.mul(r.mul(g, e), PowOp::create(r.b, r.loc, a, r.add(e, -1.0)));
        Value db = r.where(r.cmp(CmpPredicate::gt, a, 0.0),
                           r.mul(r.mul(g, y), LogOp::create(r.b, r.loc, a)),
                           r.scalar(g, 0.0));
        r.grads[0] = r.gb.unbroadcast(r.loc, da, a.getType());
        r.grads[1] = r.gb.unbroadcast(r.loc, db, e.getType());
        return success();
      })
      .Case([&](RemOp) {
        // Float rem is fmod, a - b trunc(a / b): d/da = 1, d/db = -trunc(a
        // / b), with trunc(q) = sign(q) floor(|q|).
        Value a = x, d = r.operand(1);
        Value q = r.div(a, d);
        Value trunc =
            r.mul(SignOp::create(r.b, r.loc, q),
                  FloorOp::create(r.b, r.loc, AbsOp::create(r.b, r.loc, q)));
        r.grads[0] = r.gb.unbroadcast(r.loc, g, a.getType());
        r.grads[1] =
            r.gb.unbroadcast(r.loc, r.neg(r.mul(g, trunc)), d.getType());
        return success();
      })
      .Case([&](PReluOp) {
        // x > 0 ? g : slope g for x, x > 0 ? 0 : x g for the slope.
        Value slope = r.operand(1);
        Value pos = r.cmp(CmpPredicate::gt, x, 0.0);
        r.grads[0] = r.gb.unbroadcast(r.loc, r.where(pos, g, r.mul(g, slope)),
                                      x.getType());
        r.grads[1] =
            r.gb.unbroadcast(r.loc, r.where(pos, r.scalar(g, 0.0), r.mul(g, x)),
                             slope.getType());
        return success();
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// A constant-mode pad of `v` by `pads` (negative amounts crop) with zeros.
static Value padZeros(Rule &r, Value v, ArrayRef<int64_t> pads) {
  return PadOp::create(r.b, r.loc, v, r.b.getDenseI64ArrayAttr(pads),
                       PadModeAttr::get(r.b.getContext(), PadMode::constant),
                       r.b.getF64FloatAttr(0.0));
}

/// Elements `[start, end)` of `v` along `axis`.
static Value sliceAxis(Rule &r, Value v, int64_t axis, int64_t start,
                       int64_t end) {
  return SliceOp::create(r.b, r.loc, v, r.b.getDenseI64ArrayAttr({start}),
                         r.b.getDenseI64ArrayAttr({end}),
                         r.b.getDenseI64ArrayAttr({axis}), DenseI64ArrayAttr());
}

static int64_t normalizedAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// `v` reversed along `axis`.
static Value reverseAxis(Rule &r, Value v, int64_t axis) {
  return SliceOp::create(
      r.b, r.loc, v, r.b.getDenseI64ArrayAttr({-1}),
      r.b.getDenseI64ArrayAttr({std::numeric_limits<int64_t>::min()}),
      r.b.getDenseI64ArrayAttr({axis}), r.b.getDenseI64ArrayAttr({-1}));
}

/// `v` padded with `before` and `after` zeros along `axis`.
static Value padAxis(Rule &r, Value v, int64_t axis, int64_t before,
                     int64_t after) {
  int64_t rank = r.type(v).getRank();
  SmallVector<int64_t> pads(2 * rank, 0);
  pads[axis] = before;
  pads[rank + axis] = after;
  return padZeros(r, v, pads);
}

/// The gradient of a reflect, edge or wrap pad along one axis of input size
/// `dim` padded by `before` and `after` (both >= 0): the middle of g plus
/// each padded element's g added where the pad copied it from.
static Value unpadAxis(Rule &r, Value g, PadMode mode, int64_t axis,
                       int64_t dim, int64_t before, int64_t after) {
  Value grad = sliceAxis(r, g, axis, before, before + dim);
  if (before > 0) {
    Value left = sliceAxis(r, g, axis, 0, before);
    // Padded position i copies input element `before - i` (reflect), 0
    // (edge) or `dim - before + i` (wrap).
    if (mode == PadMode::reflect)
      left = padAxis(r, reverseAxis(r, left, axis), axis, 1, dim - 1 - before);
    else if (mode == PadMode::edge)
      left = padAxis(r, r.sumKeep(left, {axis}), axis, 0, dim - 1);
    else
      left = padAxis(r, left, axis, dim - before, 0);
    grad = r.add(grad, left);
  }
  if (after > 0) {
    Value right = sliceAxis(r, g, axis, before + dim, before + dim + after);
    // Padded position j after the input copies element `dim - 2 - j`
    // (reflect), `dim - 1` (edge) or `j` (wrap).
    if (mode == PadMode::reflect)
      right = padAxis(r, reverseAxis(r, right, axis), axis, dim - 1 - after, 1);
    else if (mode == PadMode::edge)
      right = padAxis(r, r.sumKeep(right, {axis}), axis, dim - 1, 0);
    else
      right = padAxis(r, right, axis, 0, dim - after);
    grad = r.add(grad, right);
  }
  return grad;
}

/// The gradient of a slice along one axis of size `dim` that picked `count`
/// elements from `first` in steps of `step`: g spread back to its
/// positions with zeros between and around.
static Value unsliceAxis(Rule &r, Value g, int64_t axis, int64_t dim,
                         int64_t first, int64_t step, int64_t count) {
  if (step < 0) {
    // Reverse g so that it runs upwards from the lowest picked index.
    g = reverseAxis(r, g, axis);
    first += (count - 1) * step;
    step = -step;
  }
  auto type = r.type(g);
  int64_t rank = type.getRank();
  SmallVector<int64_t> pads(2 * rank, 0);
  int64_t length = count;
  if (step > 1) {
    // [.., count, ..] -> [.., count, 1, ..] padded to [.., count, step, ..]
    // -> [.., count * step, ..]: step - 1 zeros after every element.
    SmallVector<int64_t> shape(type.getShape());
    shape.insert(shape.begin() + axis + 1, 1);
    Value v = r.reshape(g, RankedTensorType::get(shape, type.getElementType()));
    SmallVector<int64_t> spread(2 * (rank + 1), 0);
    spread[rank + 1 + axis + 1] = step - 1;
    v = padZeros(r, v, spread);
    SmallVector<int64_t> flat(type.getShape());
    flat[axis] = count * step;
    g = r.reshape(v, RankedTensorType::get(flat, type.getElementType()));
    length = count * step;
  }
  pads[axis] = first;
  pads[rank + axis] = dim - first - length;
  return padZeros(r, g, pads);
}

/// Shape ops: g moved back to where the forward op took each element from,
/// with zeros (or sums) for elements read never (or several times). They
/// need static shapes where they build zeros or reshape.
static std::optional<LogicalResult> shapeRules(Rule &r) {
  Value g = r.g;
  auto staticOperand = [&]() -> bool {
    return r.type(r.operand(0)).hasStaticShape() &&
           r.type(r.y).hasStaticShape();
  };
  return llvm::TypeSwitch<Operation *, std::optional<LogicalResult>>(r.op)
      .Case([&](SliceOp slice) -> LogicalResult {
        // The sliced dimensions must be static; the others may not.
        auto xType = r.type(r.operand(0)), yType = r.type(r.y);
        int64_t rank = xType.getRank();
        ArrayRef<int64_t> starts = slice.getStarts(), ends = slice.getEnds();
        SmallVector<int64_t> axes, steps;
        for (size_t i = 0; i < starts.size(); ++i) {
          axes.push_back(slice.getAxes()
                             ? normalizedAxis((*slice.getAxes())[i], rank)
                             : int64_t(i));
          steps.push_back(slice.getSteps() ? (*slice.getSteps())[i] : 1);
        }
        for (int64_t axis : axes)
          if (xType.isDynamicDim(axis) || yType.isDynamicDim(axis))
            return noRule(r.op, "along a dynamic dimension");
        if (llvm::any_of(
                axes, [&](int64_t axis) { return !yType.getDimSize(axis); })) {
          if (!xType.hasStaticShape())
            return noRule(r.op, "on a dynamic shape");
          r.grads[0] = r.gb.constant(r.loc, xType, 0.0, /*shaped=*/true);
          return success();
        }
        Value gx = g;
        for (size_t i = 0; i < starts.size(); ++i) {
          int64_t dim = xType.getDimSize(axes[i]), step = steps[i];
          int64_t start = starts[i], end = ends[i];
          if (start < 0)
            start += dim;
          if (end < 0)
            end += dim;
          if (step > 0)
            start = std::clamp<int64_t>(start, 0, dim);
          else
            start = std::clamp<int64_t>(start, 0, dim - 1);
          int64_t count = r.type(r.y).getDimSize(axes[i]);
          gx = unsliceAxis(r, gx, axes[i], dim, start, step, count);
        }
        r.grads[0] = gx;
        return success();
      })
      .Case([&](ConcatOp concat) -> LogicalResult {
        auto yType = r.type(r.y);
        int64_t axis =
            normalizedAxis(concat.getAxisAttr().getInt(), yType.getRank());
        int64_t offset = 0;
        for (auto [i, input] : llvm::enumerate(concat.getInputs())) {
          int64_t size = r.type(input).getDimSize(axis);
          if (ShapedType::isDynamic(size))
            return noRule(r.op, "with a dynamic concatenated dimension");
          if (r.gb.isActive(input))
            r.grads[i] = sliceAxis(r, g, axis, offset, offset + size);
          offset += size;
        }
        return success();
      })
      .Case([&](SplitOp split) -> LogicalResult {
        // The concatenation of the pieces' gradients, zeros for pieces
        // that get none.
        int64_t axis = normalizedAxis(split.getAxisAttr().getInt(),
                                      r.type(r.operand(0)).getRank());
        SmallVector<Value> pieces;
        for (auto [result, grad] :
             llvm::zip_equal(split.getResults(), r.resultGrads)) {
          Value piece = grad;
          if (!piece && r.type(result).hasStaticShape())
            piece = r.gb.constant(r.loc, result.getType(), 0.0,
                                  /*shaped=*/true);
          else if (!piece)
            piece = r.mul(r.gb.onesLike(r.loc, result), 0.0);
          pieces.push_back(piece);
        }
        r.grads[0] =
            ConcatOp::create(r.b, r.loc, pieces, r.b.getI64IntegerAttr(axis));
        return success();
      })
      .Case([&](PadOp pad) -> LogicalResult {
        PadMode mode = pad.getMode();
        if (mode != PadMode::constant) {
          // Per padded axis, the copies' gradients added back.
          auto xType = r.type(r.operand(0));
          ArrayRef<int64_t> pads = pad.getPads();
          int64_t rank = xType.getRank();
          if (!xType.hasStaticShape())
            return noRule(r.op, "on a dynamic shape");
          for (int64_t i = 0; i < rank; ++i)
            if (pads[i] < 0 || pads[rank + i] < 0 ||
                pads[i] > xType.getDimSize(i) ||
                pads[rank + i] > xType.getDimSize(i))
              return noRule(r.op, ("in mode '" + stringifyPadMode(mode) +
                                   "' with a crop or a pad larger than its "
                                   "dimension")
                                      .str());
          Value gx = g;
          for (int64_t i = 0; i < rank; ++i)
            if (pads[i] || pads[rank + i])
              gx = unpadAxis(r, gx, mode, i, xType.getDimSize(i), pads[i],
                             pads[rank + i]);
          r.grads[0] = gx;
          return success();
        }
        SmallVector<int64_t> crop;
        for (int64_t p : pad.getPads())
          crop.push_back(-p);
        r.grads[0] = padZeros(r, g, crop);
        return success();
      })
      .Case([&](ExpandOp) {
        r.grads[0] = r.gb.unbroadcast(r.loc, g, r.operand(0).getType());
        return success();
      })
      .Case([&](TileOp tile) -> LogicalResult {
        auto xType = r.type(r.operand(0));
        if (!staticOperand())
          return noRule(r.op, "on a dynamic shape");
        // [r0 * d0, r1 * d1, ...] -> [r0, d0, r1, d1, ...], summed over
        // the repeats.
        SmallVector<int64_t> shape, axes;
        for (auto [i, repeat] : llvm::enumerate(tile.getRepeats())) {
          axes.push_back(2 * i);
          shape.push_back(repeat);
          shape.push_back(xType.getDimSize(i));
        }
        Value v =
            r.reshape(g, RankedTensorType::get(shape, xType.getElementType()));
        v = ReduceOp::create(r.b, r.loc, ReduceKind::sum, v, axes,
                             /*keepdims=*/false);
        r.grads[0] = r.reshape(v, xType);
        return success();
      })
      .Case([&](TriluOp trilu) {
        r.grads[0] = TriluOp::create(r.b, r.loc, g, trilu.getUpperAttr(),
                                     trilu.getKAttr());
        return success();
      })
      .Case([&](DepthToSpaceOp d2s) -> LogicalResult {
        if (d2s.getMode() == "DCR") {
          r.grads[0] =
              SpaceToDepthOp::create(r.b, r.loc, g, d2s.getBlocksizeAttr());
          return success();
        }
        // CRD moves x [N, C', b, b, H, W] by [0, 1, 4, 2, 5, 3] to
        // [N, C', H, b, W, b]; g goes back by the inverse permutation.
        auto xType = r.type(r.operand(0));
        if (!xType.hasStaticShape())
          return noRule(r.op, "in mode 'CRD' on a dynamic shape");
        int64_t bs = d2s.getBlocksize(), n = xType.getDimSize(0);
        int64_t c = xType.getDimSize(1) / (bs * bs);
        int64_t h = xType.getDimSize(2), w = xType.getDimSize(3);
        Type et = xType.getElementType();
        Value v = r.reshape(g, RankedTensorType::get({n, c, h, bs, w, bs}, et));
        v = TransposeOp::create(r.b, r.loc, v,
                                ArrayRef<int64_t>{0, 1, 3, 5, 2, 4});
        r.grads[0] = r.reshape(v, xType);
        return success();
      })
      .Case([&](SpaceToDepthOp s2d) {
        r.grads[0] = DepthToSpaceOp::create(
            r.b, r.loc, g, s2d.getBlocksizeAttr(), r.b.getStringAttr("DCR"));
        return success();
      })
      .Case([&](GatherOp gather) -> LogicalResult {
        // A scatter-add of g into zeros: with data [P.., A, Q..] and K
        // indices, g as [K, P * Q] rows go to the rows of [A, P * Q] the
        // indices name (scatter_nd, reduction add).
        // The indices' count K may be dynamic.
        auto dataType = r.type(gather.getData());
        auto indicesType = r.type(gather.getIndices());
        if (!dataType.hasStaticShape())
          return noRule(r.op, "on a dynamic shape");
        int64_t axis =
            normalizedAxis(gather.getAxisAttr().getInt(), dataType.getRank());
        int64_t p = 1, q = 1;
        int64_t k = indicesType.hasStaticShape() ? indicesType.getNumElements()
                                                 : ShapedType::kDynamic;
        int64_t a = dataType.getDimSize(axis);
        for (int64_t i = 0; i < axis; ++i)
          p *= dataType.getDimSize(i);
        for (int64_t i = axis + 1; i < dataType.getRank(); ++i)
          q *= dataType.getDimSize(i);
        Type et = dataType.getElementType();
        Value rows;
        if (p == 1) {
          rows = r.reshape(g, RankedTensorType::get({k, q}, et));
        } else {
          Value v = r.reshape(g, RankedTensorType::get({p, k, q}, et));
          v = TransposeOp::create(r.b, r.loc, v, ArrayRef<int64_t>{1, 0, 2});
          rows = r.reshape(v, RankedTensorType::get({k, p * q}, et));
        }
        Value idx = r.reshape(
            gather.getIndices(),
            RankedTensorType::get({k, 1}, indicesType.getElementType()));
        Value zeros = r.gb.constant(
            r.loc, RankedTensorType::get({a, p * q}, et), 0.0, /*shaped=*/true);
        Value sum = ScatterNDOp::create(
            r.b, r.loc, zeros, idx, rows,
            ScatterReductionAttr::get(r.b.getContext(), ScatterReduction::add));
        if (p != 1) {
          Value v = r.reshape(sum, RankedTensorType::get({a, p, q}, et));
          sum = TransposeOp::create(r.b, r.loc, v, ArrayRef<int64_t>{1, 0, 2});
        }
        r.grads[0] = r.reshape(sum, dataType);
        return success();
      })
      .Case([&](ScatterElementsOp scatter) -> LogicalResult {
        // Without a reduction the scattered positions of the data are
        // overwritten (their gradient is 0) and each update gets g at its
        // position (exact for indices without duplicates); with add the
        // data gets g unchanged.
        ScatterReduction kind = scatter.getReduction();
        if (kind != ScatterReduction::none && kind != ScatterReduction::add)
          return noRule(
              r.op,
              ("with reduction = " + stringifyScatterReduction(kind)).str());
        if (!r.type(scatter.getUpdates()).hasStaticShape())
          return noRule(r.op, "on a dynamic shape");
        r.grads[0] = g;
        if (kind == ScatterReduction::none)
          r.grads[0] = ScatterElementsOp::create(
              r.b, r.loc, g, scatter.getIndices(),
              r.gb.constant(r.loc, scatter.getUpdates().getType(), 0.0,
                            /*shaped=*/true),
              scatter.getAxisAttr(),
              ScatterReductionAttr::get(r.b.getContext(),
                                        ScatterReduction::none));
        r.grads[2] = GatherElementsOp::create(
            r.b, r.loc, g, scatter.getIndices(), scatter.getAxisAttr());
        return success();
      })
      .Case([&](ScatterNDOp scatter) -> LogicalResult {
        // As scatter_elements; the updates' gradient gathers g at the index
        // tuples, as rows of g viewed as [D0 * ... * Dk-1, rest] picked by
        // the tuples' row-major offsets.
        ScatterReduction kind = scatter.getReduction();
        if (kind != ScatterReduction::none && kind != ScatterReduction::add)
          return noRule(
              r.op,
              ("with reduction = " + stringifyScatterReduction(kind)).str());
        Value indices = scatter.getIndices(), updates = scatter.getUpdates();
        auto dataType = r.type(scatter.getData());
        auto indicesType = r.type(indices);
        if (!dataType.hasStaticShape() || !indicesType.hasStaticShape() ||
            !r.type(updates).hasStaticShape())
          return noRule(r.op, "on a dynamic shape");
        r.grads[0] = g;
        if (kind == ScatterReduction::none)
          r.grads[0] = ScatterNDOp::create(
              r.b, r.loc, g, indices,
              r.gb.constant(r.loc, updates.getType(), 0.0, /*shaped=*/true),
              ScatterReductionAttr::get(r.b.getContext(),
                                        ScatterReduction::none));
        int64_t k = indicesType.getShape().back();
        int64_t rows = 1, rest = 1;
        SmallVector<int64_t> dims, strides(k, 1);
        for (int64_t i = 0; i < k; ++i) {
          dims.push_back(dataType.getDimSize(i));
          rows *= dims.back();
        }
        for (int64_t i = k; i < dataType.getRank(); ++i)
          rest *= dataType.getDimSize(i);
        for (int64_t i = k - 2; i >= 0; --i)
          strides[i] = strides[i + 1] * dims[i + 1];
        Type it = indicesType.getElementType();
        auto intConstant = [&](ArrayRef<int64_t> values) -> Value {
          auto type = RankedTensorType::get({int64_t(values.size())}, it);
          SmallVector<APInt> elements;
          for (int64_t v : values)
            elements.push_back(APInt(it.getIntOrFloatBitWidth(), v,
                                     /*isSigned=*/true));
          return ConstantOp::create(r.b, r.loc,
                                    DenseElementsAttr::get(type, elements));
        };
        // Negative indices count from the end of their dimension.
        Value zero = ConstantOp::create(
            r.b, r.loc,
            DenseElementsAttr::get(RankedTensorType::get({}, it),
                                   r.b.getIntegerAttr(it, 0)));
        Value wrapped = r.where(r.cmp(CmpPredicate::lt, indices, zero),
                                r.add(indices, intConstant(dims)), indices);
        Value offsets = ReduceOp::create(
            r.b, r.loc, ReduceKind::sum, r.mul(wrapped, intConstant(strides)),
            ArrayRef<int64_t>{indicesType.getRank() - 1}, /*keepdims=*/false);
        Type et = dataType.getElementType();
        Value table = r.reshape(g, RankedTensorType::get({rows, rest}, et));
        Value picked = GatherOp::create(r.b, r.loc, table, offsets,
                                        r.b.getI64IntegerAttr(0));
        r.grads[2] = r.reshape(picked, updates.getType());
        return success();
      })
      .Case([&](GatherElementsOp gather) -> LogicalResult {
        auto dataType = r.type(gather.getData());
        if (!dataType.hasStaticShape())
          return noRule(r.op, "on a dynamic shape");
        Value zeros = r.gb.constant(r.loc, dataType, 0.0, /*shaped=*/true);
        r.grads[0] = ScatterElementsOp::create(
            r.b, r.loc, zeros, gather.getIndices(), g, gather.getAxisAttr(),
            ScatterReductionAttr::get(r.b.getContext(), ScatterReduction::add));
        return success();
      })
      .Default([](Operation *) { return std::nullopt; });
}

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
static std::optional<LogicalResult> reductionRules(Rule &r) {
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
static std::optional<LogicalResult> lossRules(Rule &r) {
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
static std::optional<LogicalResult> nnRules(Rule &r) {
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
        // dw[m, c, k] = sum_{n, o} g[n, m, o] x[n, c, o * s + k * d - p]: a
        // convolution of x regrouped to [C / G, G * N, D] with g^T [M, N, O]
        // as the kernel, G groups, strides and dilations swapped; it may
        // reach past K, so crop.
        Value xt = groupsToChannels(r, x, groups);
        Value gt = swap01(r, g);
        Value dwt = ConvOp::create(
            r.b, r.loc, xt, gt, Value(), r.b.getDenseI64ArrayAttr(dilations),
            r.b.getDenseI64ArrayAttr(strides), r.b.getDenseI64ArrayAttr(pads),
            r.b.getI64IntegerAttr(groups));
        dwt = cropSpatial(r, dwt, wType.getShape().drop_front(2));
        r.grads[1] = swap01(r, dwt);
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
        Value gt = groupsToChannels(r, g, groups);
        Value xt = swap01(r, x);
        Value dwt = ConvOp::create(
            r.b, r.loc, gt, xt, Value(), r.b.getDenseI64ArrayAttr(dilations),
            r.b.getDenseI64ArrayAttr(strides), r.b.getDenseI64ArrayAttr(pads),
            r.b.getI64IntegerAttr(groups));
        dwt = cropSpatial(r, dwt, wType.getShape().drop_front(2));
        r.grads[1] = swap01(r, dwt);
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

InFlightDiagnostic nnc::autodiff::noRule(Operation *op, StringRef what) {
  InFlightDiagnostic diag = op->emitError()
                            << "nnc-autodiff: no gradient rule for '"
                            << op->getName() << "'";
  if (!what.empty())
    diag << " " << what;
  diag << " yet";
  return diag;
}

LogicalResult nnc::autodiff::differentiate(Operation *op,
                                           ArrayRef<Value> resultGrads,
                                           GradientBuilder &gb,
                                           SmallVectorImpl<Value> &grads) {
  Location loc = op->getLoc();
  OpBuilder &b = gb.b;
  grads.assign(op->getNumOperands(), Value());
  Value g = resultGrads.empty() ? Value() : resultGrads[0];
  // Normalizations pass gradients through their statistics results too
  // (with a zero g when only those reach the loss), split through all its
  // pieces; other multi-result ops have rules for their first result only.
  bool statistics =
      isa<BatchNormTrainOp, LayerNormOp, InstanceNormOp, GroupNormOp>(op);
  if (!isa<SplitOp>(op) && !statistics &&
      (!g || llvm::any_of(resultGrads.drop_front(), [](Value v) { return v; })))
    return noRule(op);
  if (statistics && !g) {
    if (!isStatic(op->getResult(0).getType()))
      return noRule(op, "on a dynamic shape");
    g = gb.constant(loc, op->getResult(0).getType(), 0.0, /*shaped=*/true);
  }
  Value y = op->getNumResults() ? op->getResult(0) : Value();
  auto operand = [&](unsigned i) { return op->getOperand(i); };

  Rule rule{op, loc, gb, b, g, y, resultGrads, grads};
  std::optional<LogicalResult> (*families[])(Rule &) = {
      unaryRules, shapeRules, reductionRules, lossRules, nnRules};
  for (auto family : families)
    if (std::optional<LogicalResult> result = family(rule))
      return *result;

  // The first rules of the pass, written against the builder directly.
  // Normalizations compute in the element type of their statistics (f32
  // for f16/bf16 inputs).
  auto castElements = [&](Value v, Type et) { return rule.castTo(v, et); };
  auto elementType = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getElementType();
  };

  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
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
          kernel = pool.getKernelShape();
          strides = spatialAttr(pool.getStrides(), n, 1);
          dilations = spatialAttr(pool.getDilations(), n, 1);
          pads = spatialAttr(pool.getPads(), 2 * n, 0);
          grads[0] = gb.poolGrad(loc, /*isMax=*/true, operand(0), y, g, Value(),
                                 kernel, strides, dilations, pads);
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
        grads[0] = gb.poolGrad(loc, /*isMax=*/false, operand(0), y, g, scale,
                               kernel, strides, dilations, pads);
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
        if (dynamicBatch &&
            llvm::any_of(resultGrads.drop_front(), [](Value v) { return v; }))
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
        Value gMean = sum(scaled(resultGrads[1], 1.0),
                          scaled(resultGrads[3], 1.0 - momentum));
        Value gVar = sum(scaled(resultGrads[2], 1.0),
                         scaled(resultGrads[4], (1.0 - momentum) * varScale));
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
          if (resultGrads[i])
            grads[i] = castElements(
                gb.op<MulOp>(
                    loc, resultGrads[i],
                    gb.constant(loc, resultGrads[i].getType(), momentum)),
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
                rule, centered, resultGrads[1],
                invStdToVar(rule, resultGrads[2], ln.getInvStd()), count))
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
      .Default([&](Operation *) -> LogicalResult { return noRule(op); });
}
