//===- ElementwisePatterns.cpp - nnc elementwise ops to linalg ------------===//
//
// Every elementwise nnc op becomes one broadcasting linalg.generic whose body
// computes the op's scalar function with arith and math ops.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Utils.h"

#include "nnc/NNCOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace nnc;
using namespace nnc::detail;

namespace {

/// Scalar builder context: element type and a builder at the body.
struct Scalar {
  OpBuilder &b;
  Location loc;
  Type type;

  Value f(double v) const { return floatConst(b, loc, type, v); }
  Value i(int64_t v) const { return intConst(b, loc, type, v); }
  Value zero() const { return isFloat(type) ? f(0) : i(0); }
  template <typename OpTy, typename... Args> Value op(Args &&...args) const {
    return OpTy::create(b, loc, std::forward<Args>(args)...);
  }
  Value add(Value x, Value y) const {
    return isFloat(type) ? op<arith::AddFOp>(x, y) : op<arith::AddIOp>(x, y);
  }
  Value mul(Value x, Value y) const {
    return isFloat(type) ? op<arith::MulFOp>(x, y) : op<arith::MulIOp>(x, y);
  }
  Value sub(Value x, Value y) const {
    return isFloat(type) ? op<arith::SubFOp>(x, y) : op<arith::SubIOp>(x, y);
  }
  Value max(Value x, Value y) const {
    return isFloat(type) ? op<arith::MaximumFOp>(x, y)
                         : op<arith::MaxSIOp>(x, y);
  }
  Value min(Value x, Value y) const {
    return isFloat(type) ? op<arith::MinimumFOp>(x, y)
                         : op<arith::MinSIOp>(x, y);
  }
  Value cmpf(arith::CmpFPredicate p, Value x, Value y) const {
    return op<arith::CmpFOp>(p, x, y);
  }
  Value cmpi(arith::CmpIPredicate p, Value x, Value y) const {
    return op<arith::CmpIOp>(p, x, y);
  }
  Value select(Value c, Value x, Value y) const {
    return op<arith::SelectOp>(c, x, y);
  }
  /// x >= 0 (floats ordered) or x > 0 with `strict`.
  Value isPositive(Value x, bool strict) const {
    if (isFloat(type))
      return cmpf(strict ? arith::CmpFPredicate::OGT
                         : arith::CmpFPredicate::OGE,
                  x, zero());
    return cmpi(strict ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::sge,
                x, zero());
  }
  Value sigmoid(Value x) const {
    Value e = op<math::ExpOp>(op<arith::NegFOp>(x));
    return op<arith::DivFOp>(f(1), op<arith::AddFOp>(f(1), e));
  }
  /// log(1 + exp(x)) computed as max(x, 0) + log1p(exp(-|x|)).
  Value softplus(Value x) const {
    Value e = op<math::ExpOp>(op<arith::NegFOp>(op<math::AbsFOp>(x)));
    return op<arith::AddFOp>(op<arith::MaximumFOp>(x, f(0)),
                             op<math::Log1pOp>(e));
  }
};

// One overload per op: the scalar result from the body arguments. `s.type`
// is the element type of the first operand (of the result for cast).

#define NNC_MATH_UNARY(NNCOp, MathOp)                                          \
  Value scalarOf(NNCOp, const Scalar &s, ValueRange a) {                       \
    return s.op<MathOp>(a[0]);                                                 \
  }
NNC_MATH_UNARY(ExpOp, math::ExpOp)
NNC_MATH_UNARY(LogOp, math::LogOp)
NNC_MATH_UNARY(SqrtOp, math::SqrtOp)
NNC_MATH_UNARY(SinOp, math::SinOp)
NNC_MATH_UNARY(CosOp, math::CosOp)
NNC_MATH_UNARY(TanOp, math::TanOp)
NNC_MATH_UNARY(AsinOp, math::AsinOp)
NNC_MATH_UNARY(AcosOp, math::AcosOp)
NNC_MATH_UNARY(AtanOp, math::AtanOp)
NNC_MATH_UNARY(SinhOp, math::SinhOp)
NNC_MATH_UNARY(CoshOp, math::CoshOp)
NNC_MATH_UNARY(TanhOp, math::TanhOp)
NNC_MATH_UNARY(AsinhOp, math::AsinhOp)
NNC_MATH_UNARY(AcoshOp, math::AcoshOp)
NNC_MATH_UNARY(AtanhOp, math::AtanhOp)
NNC_MATH_UNARY(ErfOp, math::ErfOp)
NNC_MATH_UNARY(FloorOp, math::FloorOp)
NNC_MATH_UNARY(CeilOp, math::CeilOp)
NNC_MATH_UNARY(RoundOp, math::RoundEvenOp)
#undef NNC_MATH_UNARY

// libm has no rsqrt: --convert-math-to-libm would call a missing rsqrtf.
Value scalarOf(RsqrtOp, const Scalar &s, ValueRange a) {
  return s.op<arith::DivFOp>(s.f(1), s.op<math::SqrtOp>(a[0]));
}
Value scalarOf(ReciprocalOp, const Scalar &s, ValueRange a) {
  return s.op<arith::DivFOp>(s.f(1), a[0]);
}
Value scalarOf(SigmoidOp, const Scalar &s, ValueRange a) {
  return s.sigmoid(a[0]);
}
Value scalarOf(SoftplusOp, const Scalar &s, ValueRange a) {
  return s.softplus(a[0]);
}
Value scalarOf(SoftsignOp, const Scalar &s, ValueRange a) {
  Value den = s.op<arith::AddFOp>(s.f(1), s.op<math::AbsFOp>(a[0]));
  return s.op<arith::DivFOp>(a[0], den);
}
Value scalarOf(SiluOp, const Scalar &s, ValueRange a) {
  return s.op<arith::MulFOp>(a[0], s.sigmoid(a[0]));
}
Value scalarOf(MishOp, const Scalar &s, ValueRange a) {
  return s.op<arith::MulFOp>(a[0], s.op<math::TanhOp>(s.softplus(a[0])));
}
Value scalarOf(HardSwishOp, const Scalar &s, ValueRange a) {
  Value t =
      s.op<arith::AddFOp>(s.op<arith::MulFOp>(a[0], s.f(1.0 / 6.0)), s.f(0.5));
  t = s.max(s.f(0), s.min(s.f(1), t));
  return s.op<arith::MulFOp>(a[0], t);
}
Value scalarOf(NegOp, const Scalar &s, ValueRange a) {
  if (isFloat(s.type))
    return s.op<arith::NegFOp>(a[0]);
  return s.op<arith::SubIOp>(s.i(0), a[0]);
}
Value scalarOf(AbsOp, const Scalar &s, ValueRange a) {
  if (isFloat(s.type))
    return s.op<math::AbsFOp>(a[0]);
  // max(x, 0 - x), as math.absi computes it, which the CPU lowering has no
  // pattern for (math-to-libm refuses it).
  return s.op<arith::MaxSIOp>(a[0], s.op<arith::SubIOp>(s.i(0), a[0]));
}
Value scalarOf(SignOp, const Scalar &s, ValueRange a) {
  Value one = isFloat(s.type) ? s.f(1) : s.i(1);
  Value minusOne = isFloat(s.type) ? s.f(-1) : s.i(-1);
  Value neg = isFloat(s.type)
                  ? s.cmpf(arith::CmpFPredicate::OLT, a[0], s.zero())
                  : s.cmpi(arith::CmpIPredicate::slt, a[0], s.zero());
  Value rest = s.select(neg, minusOne, s.zero());
  Value sign = s.select(s.isPositive(a[0], /*strict=*/true), one, rest);
  if (!isFloat(s.type))
    return sign;
  // sign(NaN) is NaN, as in numpy.
  Value nan = s.cmpf(arith::CmpFPredicate::UNO, a[0], a[0]);
  return s.select(nan, a[0], sign);
}
Value scalarOf(ReluOp, const Scalar &s, ValueRange a) {
  return s.max(a[0], s.zero());
}
Value scalarOf(NotOp, const Scalar &s, ValueRange a) {
  return s.op<arith::XOrIOp>(a[0], s.i(1));
}
Value scalarOf(LeakyReluOp op, const Scalar &s, ValueRange a) {
  Value scaled =
      s.op<arith::MulFOp>(a[0], s.f(op.getAlpha().convertToDouble()));
  return s.select(s.isPositive(a[0], false), a[0], scaled);
}
Value scalarOf(EluOp op, const Scalar &s, ValueRange a) {
  Value neg = s.op<arith::MulFOp>(s.f(op.getAlpha().convertToDouble()),
                                  s.op<math::ExpM1Op>(a[0]));
  return s.select(s.isPositive(a[0], false), a[0], neg);
}
Value scalarOf(CeluOp op, const Scalar &s, ValueRange a) {
  Value alpha = s.f(op.getAlpha().convertToDouble());
  Value e = s.op<math::ExpM1Op>(s.op<arith::DivFOp>(a[0], alpha));
  return s.op<arith::AddFOp>(s.max(s.f(0), a[0]),
                             s.min(s.f(0), s.op<arith::MulFOp>(alpha, e)));
}
Value scalarOf(SeluOp op, const Scalar &s, ValueRange a) {
  Value neg = s.op<arith::MulFOp>(s.f(op.getAlpha().convertToDouble()),
                                  s.op<math::ExpM1Op>(a[0]));
  Value v = s.select(s.isPositive(a[0], true), a[0], neg);
  return s.op<arith::MulFOp>(s.f(op.getGamma().convertToDouble()), v);
}
Value scalarOf(ThresholdedReluOp op, const Scalar &s, ValueRange a) {
  Value above = s.cmpf(arith::CmpFPredicate::OGT, a[0],
                       s.f(op.getAlpha().convertToDouble()));
  return s.select(above, a[0], s.f(0));
}
Value scalarOf(HardSigmoidOp op, const Scalar &s, ValueRange a) {
  Value t = s.op<arith::AddFOp>(
      s.op<arith::MulFOp>(a[0], s.f(op.getAlpha().convertToDouble())),
      s.f(op.getBeta().convertToDouble()));
  return s.max(s.f(0), s.min(s.f(1), t));
}
Value scalarOf(GeluOp op, const Scalar &s, ValueRange a) {
  Value x = a[0];
  Value inner;
  if (op.getApproximation() == GeluApproximation::tanh) {
    // tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))
    Value x3 = s.op<arith::MulFOp>(x, s.op<arith::MulFOp>(x, x));
    Value poly = s.op<arith::AddFOp>(x, s.op<arith::MulFOp>(s.f(0.044715), x3));
    inner = s.op<math::TanhOp>(
        s.op<arith::MulFOp>(s.f(std::sqrt(2.0 / M_PI)), poly));
  } else {
    inner = s.op<math::ErfOp>(s.op<arith::MulFOp>(x, s.f(M_SQRT1_2)));
  }
  Value half = s.op<arith::MulFOp>(s.f(0.5), x);
  return s.op<arith::MulFOp>(half, s.op<arith::AddFOp>(s.f(1), inner));
}
Value scalarOf(ClipOp op, const Scalar &s, ValueRange a) {
  Value x = a[0];
  auto bound = [&](double v) {
    if (isFloat(s.type))
      return s.f(v);
    // An integer bound outside the element type's range saturates (it
    // clips nothing or everything) instead of wrapping around.
    unsigned width = s.type.getIntOrFloatBitWidth();
    double lo = -std::ldexp(1.0, width - 1), hi = std::ldexp(1.0, width - 1);
    if (v <= lo)
      return extremeConst(s.b, s.loc, s.type, /*lowest=*/true);
    if (v >= hi)
      return extremeConst(s.b, s.loc, s.type, /*lowest=*/false);
    return s.i(static_cast<int64_t>(v));
  };
  if (auto min = op.getMinAttr())
    x = s.max(x, bound(min.getValueAsDouble()));
  if (auto max = op.getMaxAttr())
    x = s.min(x, bound(max.getValueAsDouble()));
  return x;
}
Value scalarOf(IsNanOp, const Scalar &s, ValueRange a) {
  return s.cmpf(arith::CmpFPredicate::UNO, a[0], a[0]);
}
Value scalarOf(IsInfOp op, const Scalar &s, ValueRange a) {
  Value result =
      s.b.createOrFold<arith::ConstantOp>(s.loc, s.b.getBoolAttr(false));
  auto inf = [&](bool negative) {
    auto ft = cast<FloatType>(s.type);
    return arith::ConstantOp::create(
        s.b, s.loc,
        s.b.getFloatAttr(s.type,
                         APFloat::getInf(ft.getFloatSemantics(), negative)));
  };
  if (op.getDetectPositive())
    result = s.op<arith::OrIOp>(
        result, s.cmpf(arith::CmpFPredicate::OEQ, a[0], inf(false)));
  if (op.getDetectNegative())
    result = s.op<arith::OrIOp>(
        result, s.cmpf(arith::CmpFPredicate::OEQ, a[0], inf(true)));
  return result;
}

// Binary ops.
Value scalarOf(AddOp, const Scalar &s, ValueRange a) {
  return s.add(a[0], a[1]);
}
Value scalarOf(SubOp, const Scalar &s, ValueRange a) {
  return s.sub(a[0], a[1]);
}
Value scalarOf(MulOp, const Scalar &s, ValueRange a) {
  return s.mul(a[0], a[1]);
}
Value scalarOf(DivOp, const Scalar &s, ValueRange a) {
  if (isFloat(s.type))
    return s.op<arith::DivFOp>(a[0], a[1]);
  return s.op<arith::DivSIOp>(a[0], a[1]);
}
Value scalarOf(PowOp, const Scalar &s, ValueRange a) {
  return s.op<math::PowFOp>(a[0], a[1]);
}
Value scalarOf(MaxOp, const Scalar &s, ValueRange a) {
  return s.max(a[0], a[1]);
}
Value scalarOf(MinOp, const Scalar &s, ValueRange a) {
  return s.min(a[0], a[1]);
}
Value scalarOf(RemOp op, const Scalar &s, ValueRange a) {
  bool fl = isFloat(s.type);
  Value r =
      fl ? s.op<arith::RemFOp>(a[0], a[1]) : s.op<arith::RemSIOp>(a[0], a[1]);
  if (op.getFmod())
    return r;
  // Python's modulo takes the divisor's sign: add y when r and y differ in
  // sign and r is not zero.
  Value rNeg = fl ? s.cmpf(arith::CmpFPredicate::OLT, r, s.zero())
                  : s.cmpi(arith::CmpIPredicate::slt, r, s.zero());
  Value yNeg = fl ? s.cmpf(arith::CmpFPredicate::OLT, a[1], s.zero())
                  : s.cmpi(arith::CmpIPredicate::slt, a[1], s.zero());
  Value rNonZero = fl ? s.cmpf(arith::CmpFPredicate::ONE, r, s.zero())
                      : s.cmpi(arith::CmpIPredicate::ne, r, s.zero());
  Value differ = s.op<arith::XOrIOp>(rNeg, yNeg);
  Value fix = s.op<arith::AndIOp>(differ, rNonZero);
  return s.select(fix, s.add(r, a[1]), r);
}
Value scalarOf(PReluOp, const Scalar &s, ValueRange a) {
  Value scaled = s.op<arith::MulFOp>(a[0], a[1]);
  return s.select(s.isPositive(a[0], false), a[0], scaled);
}
Value scalarOf(AndOp, const Scalar &s, ValueRange a) {
  return s.op<arith::AndIOp>(a[0], a[1]);
}
Value scalarOf(OrOp, const Scalar &s, ValueRange a) {
  return s.op<arith::OrIOp>(a[0], a[1]);
}
Value scalarOf(XorOp, const Scalar &s, ValueRange a) {
  return s.op<arith::XOrIOp>(a[0], a[1]);
}
Value scalarOf(CmpOp op, const Scalar &s, ValueRange a) {
  if (isFloat(s.type)) {
    arith::CmpFPredicate p;
    switch (op.getPredicate()) {
    case CmpPredicate::eq:
      p = arith::CmpFPredicate::OEQ;
      break;
    case CmpPredicate::ne:
      p = arith::CmpFPredicate::UNE;
      break;
    case CmpPredicate::lt:
      p = arith::CmpFPredicate::OLT;
      break;
    case CmpPredicate::le:
      p = arith::CmpFPredicate::OLE;
      break;
    case CmpPredicate::gt:
      p = arith::CmpFPredicate::OGT;
      break;
    case CmpPredicate::ge:
      p = arith::CmpFPredicate::OGE;
      break;
    }
    return s.cmpf(p, a[0], a[1]);
  }
  // i1 compares as unsigned (false < true), other integers as signed.
  bool u = s.type.isInteger(1);
  arith::CmpIPredicate p;
  switch (op.getPredicate()) {
  case CmpPredicate::eq:
    p = arith::CmpIPredicate::eq;
    break;
  case CmpPredicate::ne:
    p = arith::CmpIPredicate::ne;
    break;
  case CmpPredicate::lt:
    p = u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
    break;
  case CmpPredicate::le:
    p = u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
    break;
  case CmpPredicate::gt:
    p = u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
    break;
  case CmpPredicate::ge:
    p = u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
    break;
  }
  return s.cmpi(p, a[0], a[1]);
}
Value scalarOf(WhereOp, const Scalar &s, ValueRange a) {
  return s.select(a[0], a[1], a[2]);
}

/// Element conversion for nnc.cast; `s.type` is the result element type.
Value scalarOf(CastOp op, const Scalar &s, ValueRange a) {
  Value x = a[0];
  Type from = x.getType(), to = s.type;
  (void)op;
  if (from == to)
    return x;
  bool fromF = isFloat(from), toF = isFloat(to);
  bool fromB = from.isInteger(1), toB = to.isInteger(1);
  if (toB) {
    if (fromF)
      return s.op<arith::CmpFOp>(arith::CmpFPredicate::UNE, x,
                                 floatConst(s.b, s.loc, from, 0));
    return s.op<arith::CmpIOp>(arith::CmpIPredicate::ne, x,
                               intConst(s.b, s.loc, from, 0));
  }
  if (fromF && toF) {
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return s.op<arith::ExtFOp>(to, x);
    if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
      return s.op<arith::TruncFOp>(to, x);
    // f16 <-> bf16: through f32.
    Value wide = s.op<arith::ExtFOp>(s.b.getF32Type(), x);
    return s.op<arith::TruncFOp>(to, wide);
  }
  if (fromF)
    return s.op<arith::FPToSIOp>(to, x);
  if (toF)
    return fromB ? s.op<arith::UIToFPOp>(to, x) : s.op<arith::SIToFPOp>(to, x);
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw > tw)
    return s.op<arith::TruncIOp>(to, x);
  return fromB ? s.op<arith::ExtUIOp>(to, x) : s.op<arith::ExtSIOp>(to, x);
}

/// Why an elementwise op cannot be lowered: a dynamic result dimension that
/// no operand sizes (the pattern learns it from buildBroadcastGeneric).
std::optional<std::string> whyCannotLowerElementwiseOp(Operation *op) {
  return whyCannotBroadcast(cast<RankedTensorType>(op->getResult(0).getType()),
                            op->getOperandTypes());
}

/// Lowers an elementwise nnc op to a broadcasting linalg.generic.
template <typename OpTy>
struct ElementwiseConversion : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Type scalarType =
        std::is_same_v<OpTy, CastOp>
            ? resultType.getElementType()
            : cast<RankedTensorType>(
                  op->getOperand(std::is_same_v<OpTy, WhereOp> ? 1 : 0)
                      .getType())
                  .getElementType();
    SmallVector<Value> inputs(adaptor.getOperands());
    std::string reason;
    FailureOr<Value> result = buildBroadcastGeneric(
        rewriter, op.getLoc(), resultType, inputs,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return scalarOf(op, Scalar{b, loc, scalarType}, args);
        },
        reason);
    if (failed(result))
      return rewriter.notifyMatchFailure(op, reason);
    rewriter.replaceOp(op, *result);
    return success();
  }
};

/// The ops ElementwiseConversion lowers, listed once for the patterns and
/// the legality check.
template <typename... OpTys> struct OpList {
  static void addPatterns(RewritePatternSet &patterns) {
    patterns.add<ElementwiseConversion<OpTys>...>(patterns.getContext());
  }
  static bool contains(Operation *op) { return isa<OpTys...>(op); }
};
using ElementwiseOps =
    OpList<ExpOp, LogOp, SqrtOp, RsqrtOp, ReciprocalOp, SinOp, CosOp, TanOp,
           AsinOp, AcosOp, AtanOp, SinhOp, CoshOp, TanhOp, AsinhOp, AcoshOp,
           AtanhOp, ErfOp, SigmoidOp, SoftplusOp, SoftsignOp, SiluOp, MishOp,
           HardSwishOp, FloorOp, CeilOp, RoundOp, NegOp, AbsOp, SignOp, ReluOp,
           NotOp, LeakyReluOp, EluOp, CeluOp, SeluOp, ThresholdedReluOp,
           HardSigmoidOp, GeluOp, ClipOp, IsNanOp, IsInfOp, AddOp, SubOp, MulOp,
           DivOp, PowOp, MaxOp, MinOp, RemOp, PReluOp, AndOp, OrOp, XorOp,
           CmpOp, WhereOp, CastOp>;

} // namespace

std::optional<std::string>
nnc::detail::whyCannotLowerElementwise(Operation *op) {
  if (!ElementwiseOps::contains(op))
    return std::nullopt;
  return whyCannotLowerElementwiseOp(op);
}

void nnc::detail::populateElementwisePatterns(RewritePatternSet &patterns) {
  ElementwiseOps::addPatterns(patterns);
}
