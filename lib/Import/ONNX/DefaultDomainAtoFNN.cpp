//===- DefaultDomainAtoFNN.cpp - ONNX ops A to F: nn ops ------------------===//
//
// Converters of the A-F default-domain ops that build networks rather than
// compute elementwise: Conv, ConvTranspose, AveragePool,
// BatchNormalization, Dropout and Einsum. Registered through
// populateDefaultDomainAtoF.
//
//===----------------------------------------------------------------------===//

#include "DefaultDomainAtoF.h"

#include "nnc/ShapeUtils.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <array>

using namespace mlir;

namespace nnc::onnx_import {

namespace {
using namespace atof;

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

/// The kernel shape from the weight's spatial dims when kernel_shape is
/// absent; nullopt lets getWindowParams read the attribute.
FailureOr<std::optional<SmallVector<int64_t>>>
kernelFromWeight(NodeContext &ctx, RankedTensorType input,
                 RankedTensorType weight) {
  if (weight.getRank() != input.getRank())
    return ctx.emitError() << "weight has rank " << weight.getRank()
                           << " but input has rank " << input.getRank();
  if (ctx.hasAttr("kernel_shape"))
    return std::optional<SmallVector<int64_t>>();
  SmallVector<int64_t> kernel(weight.getShape().drop_front(2));
  if (llvm::any_of(kernel, isDynamicDim))
    return ctx.emitError() << "kernel_shape is absent and the weight's spatial "
                              "dims are dynamic";
  return std::optional<SmallVector<int64_t>>(kernel);
}

/// Adds the window attributes, leaving out the all-default ones.
void addWindowAttrs(AttrList &attrs, const WindowParams &p) {
  auto allEqual = [](ArrayRef<int64_t> v, int64_t x) {
    return llvm::all_of(v, [&](int64_t e) { return e == x; });
  };
  if (!allEqual(p.strides, 1))
    attrs.i64s("strides", p.strides);
  if (!allEqual(p.dilations, 1))
    attrs.i64s("dilations", p.dilations);
  if (!allEqual(p.pads, 0))
    attrs.i64s("pads", p.pads);
}

LogicalResult convertConv(NodeContext &ctx) {
  auto x = rankedInput(ctx, 0, "X");
  if (failed(x))
    return failure();
  auto w = rankedInput(ctx, 1, "W");
  if (failed(w))
    return failure();
  if (x->second.getRank() < 3)
    return ctx.emitError() << "expects an input of rank >= 3, got "
                           << x->second.getRank();
  auto kernel = kernelFromWeight(ctx, x->second, w->second);
  if (failed(kernel))
    return failure();
  std::optional<ArrayRef<int64_t>> k;
  if (*kernel)
    k = ArrayRef<int64_t>(**kernel);
  FailureOr<WindowParams> p = getWindowParams(ctx, x->second, k);
  if (failed(p))
    return failure();
  if (ctx.hasAttr("kernel_shape") &&
      !llvm::equal(p->kernel, w->second.getShape().drop_front(2)) &&
      !llvm::any_of(w->second.getShape().drop_front(2), isDynamicDim))
    return ctx.emitError() << "kernel_shape " << formatShape(p->kernel)
                           << " disagrees with the weight's spatial dims "
                           << formatShape(w->second.getShape().drop_front(2));
  SmallVector<Value> operands{x->first, w->first};
  if (Value bias = ctx.input(2))
    operands.push_back(bias);
  AttrList attrs(ctx);
  addWindowAttrs(attrs, *p);
  int64_t group = ctx.getInt("group", 1);
  if (group != 1)
    attrs.i64("groups", group);
  return ctx.setResultOf(ctx.create<ConvOp>(operands, attrs));
}

LogicalResult convertConvTranspose(NodeContext &ctx) {
  auto x = rankedInput(ctx, 0, "X");
  if (failed(x))
    return failure();
  auto w = rankedInput(ctx, 1, "W");
  if (failed(w))
    return failure();
  RankedTensorType inputType = x->second;
  if (inputType.getRank() < 3)
    return ctx.emitError() << "expects an input of rank >= 3, got "
                           << inputType.getRank();
  auto kernel = kernelFromWeight(ctx, inputType, w->second);
  if (failed(kernel))
    return failure();
  std::optional<ArrayRef<int64_t>> k;
  if (*kernel)
    k = ArrayRef<int64_t>(**kernel);
  FailureOr<WindowParams> p =
      getWindowParams(ctx, inputType, k, /*transposed=*/true);
  if (failed(p))
    return failure();
  int64_t n = inputType.getRank() - 2;
  SmallVector<int64_t> outputPadding =
      ctx.getInts("output_padding", SmallVector<int64_t>(n, 0));
  if (static_cast<int64_t>(outputPadding.size()) != n)
    return ctx.emitError() << "output_padding has " << outputPadding.size()
                           << " entries for " << n << " spatial dims";
  std::string autoPad = ctx.getString("auto_pad", "NOTSET");
  std::optional<SmallVector<int64_t>> outputShape =
      ctx.getOptionalInts("output_shape");
  // SAME pads aim at an output of input * stride; resolve them as for an
  // explicit output_shape, which also accounts for output_padding.
  if (!outputShape && (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER")) {
    outputShape.emplace();
    for (int64_t i = 0; i < n; ++i)
      outputShape->push_back(inputType.getDimSize(i + 2) * p->strides[i]);
  }
  if (outputShape) {
    // A full [N, C, spatial...] shape is accepted too.
    if (static_cast<int64_t>(outputShape->size()) == n + 2)
      outputShape->erase(outputShape->begin(), outputShape->begin() + 2);
    if (static_cast<int64_t>(outputShape->size()) != n)
      return ctx.emitError() << "output_shape has " << outputShape->size()
                             << " entries for " << n << " spatial dims";
    for (int64_t i = 0; i < n; ++i) {
      int64_t in = inputType.getDimSize(i + 2);
      if (isDynamicDim(in))
        return ctx.unsupported("output_shape with dynamic spatial dim " +
                               Twine(i + 2));
      int64_t total = p->strides[i] * (in - 1) + outputPadding[i] +
                      (p->kernel[i] - 1) * p->dilations[i] + 1 -
                      (*outputShape)[i];
      if (total < 0) {
        // A larger output than the full convolution: extra zeros at the end.
        p->pads[i] = p->pads[i + n] = 0;
        outputPadding[i] -= total;
        continue;
      }
      int64_t half = total / 2;
      bool upper = autoPad == "SAME_UPPER";
      p->pads[i] = upper ? half : total - half;
      p->pads[i + n] = upper ? total - half : half;
    }
  }
  SmallVector<Value> operands{x->first, w->first};
  if (Value bias = ctx.input(2))
    operands.push_back(bias);
  AttrList attrs(ctx);
  addWindowAttrs(attrs, *p);
  if (llvm::any_of(outputPadding, [](int64_t v) { return v != 0; }))
    attrs.i64s("output_padding", outputPadding);
  int64_t group = ctx.getInt("group", 1);
  if (group != 1)
    attrs.i64("groups", group);
  return ctx.setResultOf(ctx.create<ConvTransposeOp>(operands, attrs));
}

LogicalResult convertAveragePool(NodeContext &ctx) {
  auto x = rankedInput(ctx, 0, "X");
  if (failed(x))
    return failure();
  FailureOr<WindowParams> p = getWindowParams(ctx, x->second, std::nullopt);
  if (failed(p))
    return failure();
  AttrList attrs(ctx);
  attrs.i64s("kernel_shape", p->kernel);
  addWindowAttrs(attrs, *p);
  if (ctx.getInt("ceil_mode", 0))
    attrs.boolean("ceil_mode", true);
  if (ctx.getInt("count_include_pad", 0))
    attrs.boolean("count_include_pad", true);
  return ctx.setResultOf(ctx.create<AvgPoolOp>(x->first, attrs));
}

//===----------------------------------------------------------------------===//
// Normalization and dropout
//===----------------------------------------------------------------------===//

LogicalResult convertBatchNormalization(NodeContext &ctx) {
  SmallVector<Value> operands;
  static constexpr const char *names[] = {"X", "scale", "B", "input_mean",
                                          "input_var"};
  for (unsigned i = 0; i < 5; ++i) {
    FailureOr<Value> v = ctx.requireInput(i, names[i]);
    if (failed(v))
      return failure();
    operands.push_back(*v);
  }
  // Before opset 7, is_test = 0 (the default) means training: Y normalized
  // with the batch statistics and the running statistics updated.
  if (ctx.opset() < 7 && ctx.getInt("is_test", 0) == 0)
    return ctx.unsupported("training mode (is_test = 0) of "
                           "BatchNormalization before opset 7");
  if (ctx.opset() < 9 && ctx.getInt("spatial", 1) != 1)
    return ctx.unsupported("attribute spatial = " +
                           Twine(ctx.getInt("spatial", 1)));
  double epsilon = ctx.getFloat("epsilon", 1e-5);
  double momentum = ctx.getFloat("momentum", 0.9);
  bool training = ctx.opset() >= 14 && ctx.getInt("training_mode", 0) != 0;
  if (training) {
    // ONNX updates the running variance with the biased batch variance.
    auto op = ctx.create<BatchNormTrainOp>(
        operands, AttrList(ctx)
                      .f64("epsilon", epsilon)
                      .f64("momentum", momentum)
                      .boolean("unbiased_running_var", false));
    if (!op)
      return failure();
    return ctx.setResults(
        {op.getResult(), op.getNewRunningMean(), op.getNewRunningVar()});
  }
  if (ctx.opset() < 14)
    for (unsigned i = 1; i < ctx.numOutputs(); ++i)
      if (ctx.hasOutput(i))
        return ctx.unsupported("training outputs of BatchNormalization "
                               "before opset 14 (output " +
                               Twine(i) + ")");
  auto op =
      ctx.create<BatchNormOp>(operands, AttrList(ctx)
                                            .f64("epsilon", epsilon)
                                            .f64("momentum", momentum));
  if (!op)
    return failure();
  // Inference leaves the running statistics as they are.
  return ctx.setResults({op.getResult(), operands[3], operands[4]});
}

LogicalResult convertDropout(NodeContext &ctx) {
  auto x = rankedInput(ctx, 0, "data");
  if (failed(x))
    return failure();
  double ratio = 0.5;
  bool training = false;
  AttrList attrs(ctx);
  if (ctx.opset() < 12) {
    ratio = ctx.getFloat("ratio", 0.5);
    // Before opset 7, is_test = 0 (the default) drops out at random.
    training = ctx.opset() < 7 && ctx.getInt("is_test", 0) == 0;
  } else {
    if (ctx.hasInput(2)) {
      FailureOr<SmallVector<int64_t>> mode =
          ctx.constantInts(2, "training_mode");
      if (failed(mode))
        return failure();
      if (mode->size() != 1)
        return ctx.emitError() << "input 2 (training_mode) must hold one "
                                  "value, got "
                               << mode->size();
      training = (*mode)[0] != 0;
    }
    // Without training the ratio does not matter and may be computed.
    if (training) {
      FailureOr<std::optional<double>> r = optionalScalarFloat(ctx, 1, "ratio");
      if (failed(r))
        return failure();
      ratio = r->value_or(0.5);
    }
    if (std::optional<int64_t> seed = ctx.getOptionalInt("seed"))
      attrs.i64("seed", *seed);
  }
  attrs.f64("ratio", ratio).boolean("training", training);
  auto op = ctx.create<DropoutOp>(x->first, attrs);
  if (!op)
    return failure();
  Value mask = op.getMask();
  // Before opset 10 the mask has the data's type.
  if (ctx.opset() < 10 && ctx.hasOutput(1)) {
    auto type =
        RankedTensorType::get(x->second.getShape(), x->second.getElementType());
    auto cast = ctx.create<CastOp>(mask, {}, TypeRange{type});
    if (!cast)
      return failure();
    mask = cast;
  }
  return ctx.setResults({op.getOutput(), mask});
}

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

/// Sums `value` over the subscripts of `letters` that `keep` rejects and
/// returns the remaining letters.
FailureOr<Value> sumOut(NodeContext &ctx, Value value, std::string &letters,
                        function_ref<bool(char)> keep) {
  SmallVector<int64_t> axes;
  std::string kept;
  for (auto [i, c] : llvm::enumerate(letters)) {
    if (keep(c))
      kept.push_back(c);
    else
      axes.push_back(i);
  }
  if (axes.empty())
    return value;
  auto op = ctx.create<ReduceOp>(
      value,
      AttrList(ctx)
          .attr("kind", ReduceKindAttr::get(ctx.context(), ReduceKind::sum))
          .i64s("axes", axes)
          .boolean("keepdims", false));
  if (!op)
    return failure();
  letters = kept;
  return op.getResult();
}

/// Transposes `value` from subscripts `from` to the order of `to` (a
/// permutation of `from`).
FailureOr<Value> permute(NodeContext &ctx, Value value, StringRef from,
                         StringRef to) {
  if (from == to)
    return value;
  SmallVector<int64_t> perm;
  for (char c : to)
    perm.push_back(from.find(c));
  auto op = ctx.create<TransposeOp>(value, AttrList(ctx).i64s("perm", perm));
  if (!op)
    return failure();
  return op.getResult();
}

LogicalResult convertEinsum(NodeContext &ctx) {
  std::string equation = ctx.getString("equation", "");
  auto unsupportedEq = [&](const Twine &why) {
    return ctx.unsupported("Einsum equation '" + Twine(equation) + "' (" + why +
                           ")");
  };
  std::string eq;
  for (char c : equation)
    if (c != ' ')
      eq.push_back(c);
  if (eq.find("...") != std::string::npos)
    return unsupportedEq("ellipsis");
  StringRef lhs = eq, rhs;
  bool explicitOutput = false;
  if (size_t arrow = eq.find("->"); arrow != std::string::npos) {
    lhs = StringRef(eq).take_front(arrow);
    rhs = StringRef(eq).drop_front(arrow + 2);
    explicitOutput = true;
  }
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != ctx.numInputs())
    return ctx.emitError() << "equation '" << equation << "' has "
                           << terms.size() << " operands but the node has "
                           << ctx.numInputs() << " inputs";
  if (terms.size() > 2)
    return unsupportedEq("more than two operands");
  // Count every subscript; letters only, none repeated within a term.
  std::array<int, 256> count{};
  SmallVector<std::pair<Value, RankedTensorType>> inputs;
  for (auto [i, term] : llvm::enumerate(terms)) {
    auto in = rankedInput(ctx, i, "Inputs");
    if (failed(in))
      return failure();
    if (static_cast<int64_t>(term.size()) != in->second.getRank())
      return ctx.emitError() << "equation term '" << term << "' has "
                             << term.size() << " subscripts but input " << i
                             << " has rank " << in->second.getRank();
    for (auto [j, c] : llvm::enumerate(term)) {
      if (!llvm::isAlpha(c))
        return ctx.emitError() << "invalid subscript '" << c
                               << "' in equation '" << equation << "'";
      if (term.find(c, j + 1) != StringRef::npos)
        return unsupportedEq("repeated subscript, a diagonal");
      ++count[static_cast<unsigned char>(c)];
    }
    inputs.push_back(*in);
  }
  std::string out;
  if (explicitOutput) {
    for (auto [j, c] : llvm::enumerate(rhs)) {
      if (!llvm::isAlpha(c) || !count[static_cast<unsigned char>(c)])
        return ctx.emitError() << "output subscript '" << c
                               << "' does not appear in the inputs";
      if (rhs.find(c, j + 1) != StringRef::npos)
        return ctx.emitError() << "output subscript '" << c << "' repeats";
    }
    out = rhs.str();
  } else {
    for (int c = 0; c < 256; ++c)
      if (count[c] == 1)
        out.push_back(static_cast<char>(c));
  }
  auto inOut = [&](char c) { return StringRef(out).contains(c); };

  std::string a = terms[0].str();
  FailureOr<Value> va = sumOut(ctx, inputs[0].first, a, [&](char c) {
    return inOut(c) || (terms.size() == 2 && terms[1].contains(c));
  });
  if (failed(va))
    return failure();
  if (terms.size() == 1) {
    FailureOr<Value> result = permute(ctx, *va, a, out);
    return failed(result) ? failure() : ctx.setResult(*result);
  }

  std::string b = terms[1].str();
  FailureOr<Value> vb = sumOut(ctx, inputs[1].first, b, [&](char c) {
    return inOut(c) || StringRef(a).contains(c);
  });
  if (failed(vb))
    return failure();
  // Classify: batch (both, kept), contracted (both, summed), m (a only),
  // n (b only).
  std::string batch, contracted, m, nn;
  for (char c : a) {
    bool inB = StringRef(b).contains(c);
    if (inB)
      (inOut(c) ? batch : contracted).push_back(c);
    else
      m.push_back(c);
  }
  for (char c : b)
    if (!StringRef(a).contains(c))
      nn.push_back(c);
  auto aType = cast<RankedTensorType>(va->getType());
  auto bType = cast<RankedTensorType>(vb->getType());
  auto dimOf = [&](char c) {
    size_t i = a.find(c);
    if (i != std::string::npos)
      return aType.getDimSize(i);
    return bType.getDimSize(b.find(c));
  };
  auto groupSize = [&](StringRef letters) {
    int64_t size = 1;
    for (char c : letters) {
      int64_t d = dimOf(c);
      if (isDynamicDim(d))
        return d;
      size *= d;
    }
    return size;
  };
  auto batchOf = [&](RankedTensorType t, StringRef letters) {
    SmallVector<int64_t> dims;
    for (char c : batch)
      dims.push_back(t.getDimSize(letters.find(c)));
    return dims;
  };
  // a -> [batch..., M, K], b -> [batch..., K, N].
  FailureOr<Value> pa = permute(ctx, *va, a, batch + m + contracted);
  if (failed(pa))
    return failure();
  SmallVector<int64_t> aShape = batchOf(aType, a);
  aShape.append({groupSize(m), groupSize(contracted)});
  pa = reshapeTo(ctx, *pa, aShape, "Einsum '" + equation + "'");
  if (failed(pa))
    return failure();
  FailureOr<Value> pb = permute(ctx, *vb, b, batch + contracted + nn);
  if (failed(pb))
    return failure();
  SmallVector<int64_t> bShape = batchOf(bType, b);
  bShape.append({groupSize(contracted), groupSize(nn)});
  pb = reshapeTo(ctx, *pb, bShape, "Einsum '" + equation + "'");
  if (failed(pb))
    return failure();
  auto mm = ctx.create<MatMulOp>(ValueRange{*pa, *pb});
  if (!mm)
    return failure();
  // [batch..., M, N] -> [batch..., m..., n...] -> output order.
  SmallVector<int64_t> shape(
      cast<RankedTensorType>(mm.getType()).getShape().drop_back(2));
  for (char c : m + nn)
    shape.push_back(dimOf(c));
  FailureOr<Value> result =
      reshapeTo(ctx, mm.getResult(), shape, "Einsum '" + equation + "'");
  if (failed(result))
    return failure();
  result = permute(ctx, *result, batch + m + nn, out);
  if (failed(result))
    return failure();
  return ctx.setResult(*result);
}

} // namespace

void populateDefaultDomainAtoFNN(OpRegistry &registry) {
  registry.onOp("Conv", 1, convertConv);
  registry.onOp("ConvTranspose", 1, convertConvTranspose);
  registry.onOp("AveragePool", 1, convertAveragePool);
  registry.onOp("BatchNormalization", 1, convertBatchNormalization);
  registry.onOp("Dropout", 1, convertDropout);
  registry.onOp("Einsum", 12, convertEinsum);
}

} // namespace nnc::onnx_import
