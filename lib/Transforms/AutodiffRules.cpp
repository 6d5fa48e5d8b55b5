//===- AutodiffRules.cpp - gradient rules of --nnc-autodiff ---------------===//
//
// The builder of backward ops the rules share, the helpers more than one
// family of rules uses, and the dispatch over the families (the other
// Autodiff*Rules.cpp files).
//
//===----------------------------------------------------------------------===//

#include "AutodiffRules.h"

#include "nnc/NNCOps.h"

#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>
#include <cmath>
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

Value GradientBuilder::avgPoolGrad(Location loc, Value x, Value y, Value g,
                                   Value scale, ArrayRef<int64_t> kernel,
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
  auto view = [&](RankedTensorType type) {
    SmallVector<int64_t> shape{nc, 1};
    llvm::append_range(shape, type.getShape().drop_front(2));
    return RankedTensorType::get(shape, elementType);
  };
  // A kernel of ones [1, 1, K...] spreads each window's g * scale over it.
  SmallVector<int64_t> kernelShape{1, 1};
  llvm::append_range(kernelShape, kernel);
  auto kernelType = RankedTensorType::get(kernelShape, elementType);
  Value w = dense(loc, kernelType,
                  SmallVector<double>(kernelType.getNumElements(), 1.0));
  Value gv = ReshapeOp::create(b, loc, view(yType), op<MulOp>(loc, g, scale));
  Value dx = ConvTransposeOp::create(
      b, loc, view(xType), gv, w, Value(), b.getDenseI64ArrayAttr(strides),
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

bool nnc::autodiff::isStatic(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape();
}

/// Whether `type` is ranked with static dimensions except perhaps the
/// first (a batch).
bool nnc::autodiff::isStaticButBatch(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && llvm::all_of(tensor.getShape().drop_front(),
                                [](int64_t d) { return d >= 0; });
}

/// The values of an optional per-spatial-dimension attribute, `count`
/// copies of `fill` when absent.
SmallVector<int64_t>
nnc::autodiff::spatialAttr(std::optional<ArrayRef<int64_t>> attr, int64_t count,
                           int64_t fill) {
  if (attr)
    return SmallVector<int64_t>(*attr);
  return SmallVector<int64_t>(count, fill);
}

/// The gradient reaching x through statistics over M (`count`) of its
/// elements: `gMean` into their mean and `gVar` into their biased variance
/// (each broadcastable against x, or null): gMean / M + gVar 2 (x - mean)
/// / M, with `centered` = x - mean. Null when both are.
Value nnc::autodiff::statisticsGrad(Rule &r, Value centered, Value gMean,
                                    Value gVar, int64_t count) {
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
Value nnc::autodiff::invStdToVar(Rule &r, Value gInvStd, Value invStd) {
  if (!gInvStd)
    return Value();
  return r.mul(r.mul(gInvStd, r.mul(r.mul(invStd, invStd), invStd)), -0.5);
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

  Rule rule{op, loc, gb, b, g, y, resultGrads, grads};
  std::optional<LogicalResult> (*families[])(Rule &) = {
      unaryRules, shapeRules, reductionRules, lossRules, nnRules};
  for (auto family : families)
    if (std::optional<LogicalResult> result = family(rule))
      return *result;
  if (std::optional<LogicalResult> result = coreRules(rule))
    return *result;
  return noRule(op);
}
