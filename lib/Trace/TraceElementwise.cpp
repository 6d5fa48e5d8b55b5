//===- TraceElementwise.cpp - elementwise ops and operators ---------------===//
//
// Unary, binary and ternary elementwise ops, comparisons, casts, scalar
// constants and the arithmetic operators on traced values.
//
//===----------------------------------------------------------------------===//

#include "TraceDetail.h"

#include "nnc/Compiler/ElementTypes.h"

using namespace mlir;
using namespace nnc;
using namespace nnc::trace_impl;

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

#define NNC_TRACE_UNARY(name, OpT)                                             \
  TValue nnc::name(TValue x, Site site) { return trace<OpT>(site, {x}); }
NNC_TRACE_UNARY(exp, ExpOp)
NNC_TRACE_UNARY(log, LogOp)
NNC_TRACE_UNARY(sqrt, SqrtOp)
NNC_TRACE_UNARY(rsqrt, RsqrtOp)
NNC_TRACE_UNARY(reciprocal, ReciprocalOp)
NNC_TRACE_UNARY(sin, SinOp)
NNC_TRACE_UNARY(cos, CosOp)
NNC_TRACE_UNARY(tan, TanOp)
NNC_TRACE_UNARY(asin, AsinOp)
NNC_TRACE_UNARY(acos, AcosOp)
NNC_TRACE_UNARY(atan, AtanOp)
NNC_TRACE_UNARY(sinh, SinhOp)
NNC_TRACE_UNARY(cosh, CoshOp)
NNC_TRACE_UNARY(tanh, TanhOp)
NNC_TRACE_UNARY(asinh, AsinhOp)
NNC_TRACE_UNARY(acosh, AcoshOp)
NNC_TRACE_UNARY(atanh, AtanhOp)
NNC_TRACE_UNARY(erf, ErfOp)
NNC_TRACE_UNARY(sigmoid, SigmoidOp)
NNC_TRACE_UNARY(softplus, SoftplusOp)
NNC_TRACE_UNARY(softsign, SoftsignOp)
NNC_TRACE_UNARY(silu, SiluOp)
NNC_TRACE_UNARY(mish, MishOp)
NNC_TRACE_UNARY(hardSwish, HardSwishOp)
NNC_TRACE_UNARY(floor, FloorOp)
NNC_TRACE_UNARY(ceil, CeilOp)
NNC_TRACE_UNARY(round, RoundOp)
NNC_TRACE_UNARY(neg, NegOp)
NNC_TRACE_UNARY(abs, AbsOp)
NNC_TRACE_UNARY(sign, SignOp)
NNC_TRACE_UNARY(relu, ReluOp)
NNC_TRACE_UNARY(logicalNot, NotOp)
NNC_TRACE_UNARY(isNan, IsNanOp)
#undef NNC_TRACE_UNARY

/// Traces a unary op with f64 attributes named in `names`.
template <typename OpT>
static TValue unaryWithF64(const Site &site, TValue x,
                           ArrayRef<std::pair<StringRef, double>> attrs) {
  return trace<OpT>(site, {x}, {}, [&](Tracer &t) {
    AttrList list;
    for (auto [name, value] : attrs)
      list.push_back(namedF64(t, name, value));
    return list;
  });
}

TValue nnc::leakyRelu(TValue x, double alpha, Site site) {
  return unaryWithF64<LeakyReluOp>(site, x, {{"alpha", alpha}});
}

TValue nnc::elu(TValue x, double alpha, Site site) {
  return unaryWithF64<EluOp>(site, x, {{"alpha", alpha}});
}

TValue nnc::celu(TValue x, double alpha, Site site) {
  return unaryWithF64<CeluOp>(site, x, {{"alpha", alpha}});
}

TValue nnc::selu(TValue x, double alpha, double gamma, Site site) {
  return unaryWithF64<SeluOp>(site, x, {{"alpha", alpha}, {"gamma", gamma}});
}

TValue nnc::thresholdedRelu(TValue x, double alpha, Site site) {
  return unaryWithF64<ThresholdedReluOp>(site, x, {{"alpha", alpha}});
}

TValue nnc::hardSigmoid(TValue x, double alpha, double beta, Site site) {
  return unaryWithF64<HardSigmoidOp>(site, x,
                                     {{"alpha", alpha}, {"beta", beta}});
}

TValue nnc::gelu(TValue x, GeluApproximation approximation, Site site) {
  return trace<GeluOp>(site, {x}, {}, [&](Tracer &t) {
    AttrList list;
    if (approximation != GeluApproximation::none)
      list.push_back(
          namedAttr(t, "approximation",
                    GeluApproximationAttr::get(t.getContext(), approximation)));
    return list;
  });
}

TValue nnc::clip(TValue x, std::optional<double> min, std::optional<double> max,
                 Site site) {
  return trace<ClipOp>(site, {x}, {}, [&](Tracer &t) {
    AttrList list;
    if (min)
      list.push_back(namedF64(t, "min", *min));
    if (max)
      list.push_back(namedF64(t, "max", *max));
    return list;
  });
}

TValue nnc::isInf(TValue x, bool detectPositive, bool detectNegative,
                  Site site) {
  return trace<IsInfOp>(site, {x}, {}, [&](Tracer &t) {
    return AttrList{namedBool(t, "detect_positive", detectPositive),
                    namedBool(t, "detect_negative", detectNegative)};
  });
}

//===----------------------------------------------------------------------===//
// Binary, comparison, select
//===----------------------------------------------------------------------===//

#define NNC_TRACE_BINARY(name, OpT)                                            \
  TValue nnc::name(TValue x, TValue y, Site site) {                            \
    return trace<OpT>(site, {x, y});                                           \
  }
NNC_TRACE_BINARY(add, AddOp)
NNC_TRACE_BINARY(sub, SubOp)
NNC_TRACE_BINARY(mul, MulOp)
NNC_TRACE_BINARY(div, DivOp)
NNC_TRACE_BINARY(pow, PowOp)
NNC_TRACE_BINARY(maximum, MaxOp)
NNC_TRACE_BINARY(minimum, MinOp)
NNC_TRACE_BINARY(prelu, PReluOp)
NNC_TRACE_BINARY(logicalAnd, AndOp)
NNC_TRACE_BINARY(logicalOr, OrOp)
NNC_TRACE_BINARY(logicalXor, XorOp)
#undef NNC_TRACE_BINARY

TValue nnc::rem(TValue x, TValue y, bool fmod, Site site) {
  return trace<RemOp>(site, {x, y}, {}, [&](Tracer &t) {
    return AttrList{namedBool(t, "fmod", fmod)};
  });
}

TValue nnc::cmp(CmpPredicate predicate, TValue x, TValue y, Site site) {
  return trace<CmpOp>(site, {x, y}, {}, [&](Tracer &t) {
    return AttrList{namedAttr(
        t, "predicate", CmpPredicateAttr::get(t.getContext(), predicate))};
  });
}

TValue nnc::eq(TValue x, TValue y, Site site) {
  return cmp(CmpPredicate::eq, x, y, site);
}
TValue nnc::ne(TValue x, TValue y, Site site) {
  return cmp(CmpPredicate::ne, x, y, site);
}
TValue nnc::lt(TValue x, TValue y, Site site) {
  return cmp(CmpPredicate::lt, x, y, site);
}
TValue nnc::le(TValue x, TValue y, Site site) {
  return cmp(CmpPredicate::le, x, y, site);
}
TValue nnc::gt(TValue x, TValue y, Site site) {
  return cmp(CmpPredicate::gt, x, y, site);
}
TValue nnc::ge(TValue x, TValue y, Site site) {
  return cmp(CmpPredicate::ge, x, y, site);
}

TValue nnc::where(TValue condition, TValue x, TValue y, Site site) {
  return trace<WhereOp>(site, {condition, x, y});
}

//===----------------------------------------------------------------------===//
// Casts and scalars
//===----------------------------------------------------------------------===//

TValue nnc::cast(TValue x, DType dtype, Site site) {
  Tracer *t = resolve(site, CastOp::getOperationName(), {x});
  if (!t)
    return Traced{x.tracer(), {}};
  Type type = x.getType().clone(getElementType(t->getContext(), dtype));
  return Traced{t, buildSpelled<CastOp>(*t, site, {type}, {x.value()})};
}

/// The DType of an nnc element type (which the op constraints guarantee).
static DType tracedDTypeOf(Type type) {
  FailureOr<runtime::DType> dtype = dtypeOf(type);
  std::optional<DType> traced =
      succeeded(dtype) ? trace_impl::fromRuntimeDType(*dtype) : std::nullopt;
  return traced.value_or(DType::F32);
}

TValue nnc::scalarLike(TValue like, double value, Site site) {
  Tracer *t = resolve(site, ConstantOp::getOperationName(), {like});
  if (!t)
    return Traced{like.tracer(), {}};
  // constant() checks that integer values are integral and in range.
  return t->constant({value}, {},
                     tracedDTypeOf(like.getType().getElementType()), site);
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

TValue nnc::operator+(Operand x, Operand y) {
  return add(x.value, y.value, x.site);
}
TValue nnc::operator-(Operand x, Operand y) {
  return sub(x.value, y.value, x.site);
}
TValue nnc::operator*(Operand x, Operand y) {
  return mul(x.value, y.value, x.site);
}
TValue nnc::operator/(Operand x, Operand y) {
  return div(x.value, y.value, x.site);
}
TValue nnc::operator-(Operand x) { return neg(x.value, x.site); }

TValue nnc::operator+(Operand x, double y) {
  return add(x.value, scalarLike(x.value, y, x.site), x.site);
}
TValue nnc::operator-(Operand x, double y) {
  return sub(x.value, scalarLike(x.value, y, x.site), x.site);
}
TValue nnc::operator*(Operand x, double y) {
  return mul(x.value, scalarLike(x.value, y, x.site), x.site);
}
TValue nnc::operator/(Operand x, double y) {
  return div(x.value, scalarLike(x.value, y, x.site), x.site);
}
TValue nnc::operator+(double x, Operand y) {
  return add(scalarLike(y.value, x, y.site), y.value, y.site);
}
TValue nnc::operator-(double x, Operand y) {
  return sub(scalarLike(y.value, x, y.site), y.value, y.site);
}
TValue nnc::operator*(double x, Operand y) {
  return mul(scalarLike(y.value, x, y.site), y.value, y.site);
}
TValue nnc::operator/(double x, Operand y) {
  return div(scalarLike(y.value, x, y.site), y.value, y.site);
}
