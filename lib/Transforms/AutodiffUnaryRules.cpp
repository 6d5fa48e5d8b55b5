//===- AutodiffUnaryRules.cpp - elementwise gradient rules ----------------===//
//
// Gradients of the unary elementwise ops and activations, and of pow, rem
// and prelu: g times the derivative.
//
//===----------------------------------------------------------------------===//

#include "AutodiffRules.h"

#include "nnc/NNCOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace nnc;
using namespace nnc::autodiff;

/// Elementwise unary ops and activations, and the binary ops pow, rem and
/// prelu: g times the derivative, written with the forward result where
/// that is cheaper.
std::optional<LogicalResult> nnc::autodiff::unaryRules(Rule &r) {
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
