//===- DefaultDomainGtoM.cpp - ONNX ops G to M
//-----------------------------===//
//
// Converters of the default-domain ONNX ops whose names start with G
// to M, keyed by the opset they apply from.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "nnc/ShapeUtils.h"

using namespace mlir;

namespace nnc::onnx_import {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The largest result an import-time fold computes; larger constant
/// computations are left to the nnc ops.
static constexpr int64_t kMaxFoldElements = 1 << 16;

/// An integer (not i1) constant input, if known at import time.
static std::optional<DenseElementsAttr> intConstantInput(NodeContext &ctx,
                                                         unsigned i) {
  std::optional<DenseElementsAttr> value = ctx.constantInput(i);
  if (!value || !value->getElementType().isSignlessInteger() ||
      value->getElementType().isInteger(1))
    return std::nullopt;
  return value;
}

/// Requires every listed input of a variadic op; fails naming the first
/// absent one, or when there is none.
static FailureOr<SmallVector<Value>> variadicInputs(NodeContext &ctx) {
  if (ctx.numInputs() == 0)
    return ctx.emitError() << "expects at least one input";
  SmallVector<Value> inputs;
  for (unsigned i = 0, e = ctx.numInputs(); i < e; ++i) {
    FailureOr<Value> v = ctx.requireInput(i, "data_" + std::to_string(i));
    if (failed(v))
      return failure();
    inputs.push_back(*v);
  }
  return inputs;
}

/// A rank-0 constant with `input`'s element type, for scalar operands of
/// broadcasting ops.
static Value scalarLike(NodeContext &ctx, Value input, double value) {
  return ctx.scalarConstant(
      cast<RankedTensorType>(input.getType()).getElementType(), value);
}

/// Creates a broadcasting binary op; null on failure (already reported).
template <typename OpTy>
static Value binary(NodeContext &ctx, Value lhs, Value rhs) {
  OpTy op = ctx.create<OpTy>(ValueRange{lhs, rhs});
  return op ? op.getResult() : Value();
}

/// Applies `fn` (which computes along one axis) with the pre-opset-13
/// semantics of Softmax, LogSoftmax and Hardmax: the input is coerced to 2-D
/// at `axis` and the op runs along the second dimension, then the result is
/// reshaped back. When `axis` is the last dimension this is the same as
/// running along it, and no reshape is emitted.
static LogicalResult convertCoerced2D(NodeContext &ctx, int64_t axisValue,
                                      function_ref<Value(Value, int64_t)> fn) {
  FailureOr<Value> x = ctx.requireInput(0, "input");
  if (failed(x))
    return failure();
  RankedTensorType type = ctx.inputType(0);
  int64_t rank = type.getRank();
  std::optional<int64_t> axis = normalizeAxis(axisValue, rank);
  if (!axis)
    return ctx.emitError() << "axis " << axisValue
                           << " is out of range for an input of rank " << rank;
  if (*axis == rank - 1) {
    Value y = fn(*x, *axis);
    return y ? ctx.setResult(y) : failure();
  }
  auto flat = ctx.create<FlattenOp>(*x, AttrList(ctx).i64("axis", *axis));
  if (!flat)
    return failure();
  Value y = fn(flat, 1);
  if (!y)
    return failure();
  auto back = ctx.create<ReshapeOp>(y, {}, TypeRange{type});
  return ctx.setResultOf(back);
}

//===----------------------------------------------------------------------===//
// Elementwise and comparisons
//===----------------------------------------------------------------------===//

template <CmpPredicate predicate>
static LogicalResult convertCompare(NodeContext &ctx) {
  FailureOr<Value> a = ctx.requireInput(0, "A");
  FailureOr<Value> b = ctx.requireInput(1, "B");
  if (failed(a) || failed(b))
    return failure();
  auto op = ctx.create<CmpOp>(
      ValueRange{*a, *b},
      AttrList(ctx).attr("predicate",
                         CmpPredicateAttr::get(ctx.context(), predicate)));
  return ctx.setResultOf(op);
}

static LogicalResult convertMod(NodeContext &ctx) {
  FailureOr<Value> a = ctx.requireInput(0, "A");
  FailureOr<Value> b = ctx.requireInput(1, "B");
  if (failed(a) || failed(b))
    return failure();
  int64_t fmod = ctx.getInt("fmod", 0);
  if (fmod != 0 && fmod != 1)
    return ctx.emitError() << "fmod must be 0 or 1, got " << fmod;
  if (fmod == 0 && isa<FloatType>(ctx.inputType(0).getElementType()))
    return ctx.emitError()
           << "fmod = 0 is only defined for integer inputs; floating-point "
              "Mod needs fmod = 1";
  return ctx.setResultOf(ctx.create<RemOp>(
      ValueRange{*a, *b}, AttrList(ctx).boolean("fmod", fmod == 1)));
}

/// Max and Min: variadic with broadcasting, folded pairwise.
template <typename OpTy>
static LogicalResult convertVariadic(NodeContext &ctx) {
  FailureOr<SmallVector<Value>> inputs = variadicInputs(ctx);
  if (failed(inputs))
    return failure();
  Value acc = (*inputs)[0];
  for (Value next : ArrayRef<Value>(*inputs).drop_front()) {
    acc = binary<OpTy>(ctx, acc, next);
    if (!acc)
      return failure();
  }
  return ctx.setResult(acc);
}

static LogicalResult convertMean(NodeContext &ctx) {
  FailureOr<SmallVector<Value>> inputs = variadicInputs(ctx);
  if (failed(inputs))
    return failure();
  Value acc = (*inputs)[0];
  if (!isa<FloatType>(ctx.inputType(0).getElementType()))
    return ctx.emitError() << "expects floating-point inputs, got "
                           << ctx.inputType(0).getElementType();
  if (inputs->size() == 1)
    return ctx.setResult(acc);
  for (Value next : ArrayRef<Value>(*inputs).drop_front()) {
    acc = binary<AddOp>(ctx, acc, next);
    if (!acc)
      return failure();
  }
  Value count = scalarLike(ctx, acc, static_cast<double>(inputs->size()));
  Value mean = binary<DivOp>(ctx, acc, count);
  return mean ? ctx.setResult(mean) : failure();
}

static LogicalResult convertHardSigmoid(NodeContext &ctx) {
  FailureOr<Value> x = ctx.requireInput(0, "X");
  if (failed(x))
    return failure();
  return ctx.setResultOf(ctx.create<HardSigmoidOp>(
      *x, AttrList(ctx)
              .f64("alpha", ctx.getFloat("alpha", 0.2))
              .f64("beta", ctx.getFloat("beta", 0.5))));
}

static LogicalResult convertLeakyRelu(NodeContext &ctx) {
  FailureOr<Value> x = ctx.requireInput(0, "X");
  if (failed(x))
    return failure();
  return ctx.setResultOf(ctx.create<LeakyReluOp>(
      *x, AttrList(ctx).f64("alpha", ctx.getFloat("alpha", 0.01))));
}

static LogicalResult convertGelu(NodeContext &ctx) {
  FailureOr<Value> x = ctx.requireInput(0, "X");
  if (failed(x))
    return failure();
  std::string approximate = ctx.getString("approximate", "none");
  GeluApproximation kind;
  if (approximate == "none")
    kind = GeluApproximation::none;
  else if (approximate == "tanh")
    kind = GeluApproximation::tanh;
  else
    return ctx.emitError() << "approximate must be 'none' or 'tanh', got '"
                           << approximate << "'";
  return ctx.setResultOf(ctx.create<GeluOp>(
      *x, AttrList(ctx).attr("approximation",
                             GeluApproximationAttr::get(ctx.context(), kind))));
}

static LogicalResult convertIsInf(NodeContext &ctx) {
  FailureOr<Value> x = ctx.requireInput(0, "X");
  if (failed(x))
    return failure();
  return ctx.setResultOf(ctx.create<IsInfOp>(
      *x,
      AttrList(ctx)
          .boolean("detect_positive", ctx.getInt("detect_positive", 1) != 0)
          .boolean("detect_negative", ctx.getInt("detect_negative", 1) != 0)));
}

static LogicalResult convertIdentity(NodeContext &ctx) {
  FailureOr<Value> x = ctx.requireInput(0, "input");
  if (failed(x))
    return failure();
  return ctx.setResult(*x);
}

//===----------------------------------------------------------------------===//
// Gather
//===----------------------------------------------------------------------===//

/// Folds Gather on integer constant data and constant indices.
static std::optional<LogicalResult> foldGather(NodeContext &ctx,
                                               int64_t axisValue) {
  std::optional<DenseElementsAttr> data = intConstantInput(ctx, 0);
  std::optional<DenseElementsAttr> indices = intConstantInput(ctx, 1);
  if (!data || !indices)
    return std::nullopt;
  auto dataType = cast<RankedTensorType>(data->getType());
  auto indicesType = cast<RankedTensorType>(indices->getType());
  int64_t rank = dataType.getRank();
  std::optional<int64_t> axis = normalizeAxis(axisValue, rank);
  if (!axis)
    return std::nullopt; // Reported by nnc.gather.
  ArrayRef<int64_t> dims = dataType.getShape();
  SmallVector<int64_t> shape(dims.take_front(*axis));
  llvm::append_range(shape, indicesType.getShape());
  llvm::append_range(shape, dims.drop_front(*axis + 1));
  std::optional<int64_t> count = getNumElements(shape);
  if (!count || *count > kMaxFoldElements)
    return std::nullopt;
  int64_t axisSize = dims[*axis];
  int64_t inner = *getNumElements(dims.drop_front(*axis + 1));
  int64_t outer = *getNumElements(dims.take_front(*axis));
  SmallVector<APInt> values(data->getValues<APInt>());
  SmallVector<int64_t> index;
  for (const APInt &v : indices->getValues<APInt>()) {
    int64_t i = v.getSExtValue();
    if (i < -axisSize || i >= axisSize)
      return LogicalResult(ctx.emitError()
                           << "index " << i << " is out of range for axis "
                           << *axis << " of size " << axisSize);
    index.push_back(i < 0 ? i + axisSize : i);
  }
  SmallVector<APInt> result;
  result.reserve(*count);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i : index)
      for (int64_t k = 0; k < inner; ++k)
        result.push_back(values[(o * axisSize + i) * inner + k]);
  return ctx.setResult(ctx.constant(DenseElementsAttr::get(
      RankedTensorType::get(shape, dataType.getElementType()), result)));
}

static LogicalResult convertGather(NodeContext &ctx) {
  FailureOr<Value> data = ctx.requireInput(0, "data");
  FailureOr<Value> indices = ctx.requireInput(1, "indices");
  if (failed(data) || failed(indices))
    return failure();
  int64_t axis = ctx.getInt("axis", 0);
  if (std::optional<LogicalResult> folded = foldGather(ctx, axis))
    return *folded;
  return ctx.setResultOf(ctx.create<GatherOp>(ValueRange{*data, *indices},
                                              AttrList(ctx).i64("axis", axis)));
}

static LogicalResult convertGatherElements(NodeContext &ctx) {
  FailureOr<Value> data = ctx.requireInput(0, "data");
  FailureOr<Value> indices = ctx.requireInput(1, "indices");
  if (failed(data) || failed(indices))
    return failure();
  return ctx.setResultOf(ctx.create<GatherElementsOp>(
      ValueRange{*data, *indices},
      AttrList(ctx).i64("axis", ctx.getInt("axis", 0))));
}

/// GatherND with batch_dims = 0, as a Gather along the flattened leading
/// dimensions: each index tuple (i_0, ..., i_{k-1}) (negative entries wrapped
/// by a floor-mod with the dimension) becomes the linear index
/// sum(i_j * stride_j) into data reshaped to [d_0 * ... * d_{k-1}, d_k, ...].
/// Needs static d_0..d_{k-1} and a static k.
static LogicalResult convertGatherND(NodeContext &ctx) {
  FailureOr<Value> data = ctx.requireInput(0, "data");
  FailureOr<Value> indices = ctx.requireInput(1, "indices");
  if (failed(data) || failed(indices))
    return failure();
  int64_t batchDims = ctx.getInt("batch_dims", 0);
  if (batchDims != 0)
    return ctx.unsupported("batch_dims = " + Twine(batchDims));
  RankedTensorType dataType = ctx.inputType(0);
  RankedTensorType indicesType = ctx.inputType(1);
  Type indexType = indicesType.getElementType();
  if (!indexType.isInteger(64) && !indexType.isInteger(32))
    return ctx.emitError() << "expects i32 or i64 indices, got " << indexType;
  if (indicesType.getRank() < 1)
    return ctx.emitError() << "expects indices of rank >= 1";
  int64_t k = indicesType.getShape().back();
  if (isDynamicDim(k))
    return ctx.unsupported("a dynamic last dimension of the indices");
  if (k < 1 || k > dataType.getRank())
    return ctx.emitError() << "the last dimension of the indices (" << k
                           << ") must lie in [1, " << dataType.getRank()
                           << "], the data's rank";
  ArrayRef<int64_t> lead = dataType.getShape().take_front(k);
  if (llvm::any_of(lead, isDynamicDim))
    return ctx.unsupported("GatherND over dynamic data dimensions (the first " +
                           Twine(k) + " of " +
                           formatShape(dataType.getShape()) + ")");
  std::optional<int64_t> flatSize = getNumElements(lead);
  unsigned width = indexType.getIntOrFloatBitWidth();
  if (!flatSize || (width == 32 && *flatSize > INT32_MAX))
    return ctx.emitError() << "the data's leading dimensions "
                           << formatShape(lead) << " are too large";
  SmallVector<APInt> dims, strides(k, APInt(width, 0));
  int64_t stride = 1;
  for (int64_t j = k - 1; j >= 0; --j) {
    strides[j] = APInt(width, stride, /*isSigned=*/true);
    stride *= lead[j];
  }
  for (int64_t d : lead)
    dims.push_back(APInt(width, d, /*isSigned=*/true));
  auto vectorType = RankedTensorType::get({k}, indexType);
  Value dimsConst = ctx.constant(DenseElementsAttr::get(vectorType, dims));
  Value stridesConst =
      ctx.constant(DenseElementsAttr::get(vectorType, strides));
  Value wrapped = binary<RemOp>(ctx, *indices, dimsConst);
  Value scaled = wrapped ? binary<MulOp>(ctx, wrapped, stridesConst) : Value();
  if (!scaled)
    return failure();
  auto linear = ctx.create<ReduceOp>(
      scaled,
      AttrList(ctx)
          .attr("kind", ReduceKindAttr::get(ctx.context(), ReduceKind::sum))
          .i64s("axes", {-1})
          .boolean("keepdims", false));
  if (!linear)
    return failure();
  Value source = *data;
  if (k > 1) {
    SmallVector<int64_t> shape{*flatSize};
    llvm::append_range(shape, dataType.getShape().drop_front(k));
    auto flat = ctx.create<ReshapeOp>(
        source, {},
        TypeRange{RankedTensorType::get(shape, dataType.getElementType())});
    if (!flat)
      return failure();
    source = flat;
  }
  return ctx.setResultOf(ctx.create<GatherOp>(
      ValueRange{source, linear.getResult()}, AttrList(ctx).i64("axis", 0)));
}

//===----------------------------------------------------------------------===//
// Linear algebra and pooling
//===----------------------------------------------------------------------===//

static LogicalResult convertGemm(NodeContext &ctx) {
  FailureOr<Value> a = ctx.requireInput(0, "A");
  FailureOr<Value> b = ctx.requireInput(1, "B");
  if (failed(a) || failed(b))
    return failure();
  SmallVector<Value> operands{*a, *b};
  if (Value c = ctx.input(2))
    operands.push_back(c);
  else if (ctx.opset() < 11)
    return ctx.emitError() << "input 2 (C) is required before opset 11";
  auto gemm = ctx.create<GemmOp>(
      operands, AttrList(ctx)
                    .f64("alpha", ctx.getFloat("alpha", 1.0))
                    .f64("beta", ctx.getFloat("beta", 1.0))
                    .boolean("trans_a", ctx.getInt("transA", 0) != 0)
                    .boolean("trans_b", ctx.getInt("transB", 0) != 0));
  if (!gemm)
    return failure();
  // Before opset 7, C broadcasts only with broadcast = 1 (as it always does
  // from 7); otherwise it has the result's shape.
  RankedTensorType cType = ctx.inputType(2);
  if (ctx.opset() < 7 && ctx.getInt("broadcast", 0) == 0 && cType) {
    ArrayRef<int64_t> c = cType.getShape();
    ArrayRef<int64_t> y = gemm.getType().getShape();
    if (!shapesCompatible(c, y))
      return ctx.emitError()
             << "C has shape " << formatShape(c) << " but the result has "
             << formatShape(y)
             << " and broadcast is 0 (before opset 7 they must be equal)";
  }
  return ctx.setResult(gemm);
}

static LogicalResult convertMaxPool(NodeContext &ctx) {
  FailureOr<Value> x = ctx.requireInput(0, "X");
  if (failed(x))
    return failure();
  if (ctx.hasOutput(1))
    return ctx.unsupported("the Indices output of MaxPool");
  int64_t storageOrder = ctx.getInt("storage_order", 0);
  if (storageOrder != 0 && storageOrder != 1)
    return ctx.emitError() << "storage_order must be 0 or 1, got "
                           << storageOrder;
  int64_t ceilMode = ctx.getInt("ceil_mode", 0);
  if (ceilMode != 0 && ceilMode != 1)
    return ctx.emitError() << "ceil_mode must be 0 or 1, got " << ceilMode;
  FailureOr<WindowParams> window =
      getWindowParams(ctx, ctx.inputType(0), std::nullopt);
  if (failed(window))
    return failure();
  return ctx.setResultOf(
      ctx.create<MaxPoolOp>(*x, AttrList(ctx)
                                    .i64s("kernel_shape", window->kernel)
                                    .i64s("strides", window->strides)
                                    .i64s("pads", window->pads)
                                    .i64s("dilations", window->dilations)
                                    .boolean("ceil_mode", ceilMode == 1)));
}

//===----------------------------------------------------------------------===//
// Softmax-like ops
//===----------------------------------------------------------------------===//

static LogicalResult convertLogSoftmax(NodeContext &ctx) {
  auto logSoftmax = [&](Value x, int64_t axis) -> Value {
    auto op = ctx.create<LogSoftmaxOp>(x, AttrList(ctx).i64("axis", axis));
    return op ? op.getResult() : Value();
  };
  if (ctx.opset() < 13)
    return convertCoerced2D(ctx, ctx.getInt("axis", 1), logSoftmax);
  FailureOr<Value> x = ctx.requireInput(0, "input");
  if (failed(x))
    return failure();
  Value y = logSoftmax(*x, ctx.getInt("axis", -1));
  return y ? ctx.setResult(y) : failure();
}

/// Hardmax along `axis` (normalized): one_hot(argmax(x)).
static Value hardmax(NodeContext &ctx, Value x, int64_t axis) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t depth = type.getDimSize(axis);
  if (isDynamicDim(depth)) {
    (void)ctx.unsupported("Hardmax along a dynamic dimension (axis " +
                          Twine(axis) + ")");
    return {};
  }
  auto argmax = ctx.create<ArgReduceOp>(
      x, AttrList(ctx)
             .attr("kind",
                   ArgReduceKindAttr::get(ctx.context(), ArgReduceKind::argmax))
             .i64("axis", axis)
             .boolean("keepdims", false));
  if (!argmax)
    return {};
  auto oneHot = ctx.create<OneHotOp>(
      argmax.getResult(),
      AttrList(ctx)
          .i64("depth", depth)
          .i64("axis", axis)
          .attr("element_type", TypeAttr::get(type.getElementType())));
  return oneHot ? oneHot.getResult() : Value();
}

static LogicalResult convertHardmax(NodeContext &ctx) {
  auto fn = [&](Value x, int64_t axis) { return hardmax(ctx, x, axis); };
  if (ctx.opset() < 13)
    return convertCoerced2D(ctx, ctx.getInt("axis", 1), fn);
  FailureOr<Value> x = ctx.requireInput(0, "input");
  if (failed(x))
    return failure();
  int64_t rank = ctx.inputType(0).getRank();
  int64_t axisValue = ctx.getInt("axis", -1);
  std::optional<int64_t> axis = normalizeAxis(axisValue, rank);
  if (!axis)
    return ctx.emitError() << "axis " << axisValue
                           << " is out of range for an input of rank " << rank;
  Value y = fn(*x, *axis);
  return y ? ctx.setResult(y) : failure();
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

static LogicalResult convertInstanceNorm(NodeContext &ctx) {
  FailureOr<Value> x = ctx.requireInput(0, "input");
  FailureOr<Value> scale = ctx.requireInput(1, "scale");
  FailureOr<Value> bias = ctx.requireInput(2, "B");
  if (failed(x) || failed(scale) || failed(bias))
    return failure();
  return ctx.setResultOf(ctx.create<InstanceNormOp>(
      ValueRange{*x, *scale, *bias},
      AttrList(ctx).f64("epsilon", ctx.getFloat("epsilon", 1e-5))));
}

/// Expands a per-group parameter `[G]` to per-channel `[C]` (each entry
/// repeated C / G times), for GroupNormalization-18.
static Value expandPerGroup(NodeContext &ctx, Value param, int64_t groups,
                            int64_t channels) {
  auto type = cast<RankedTensorType>(param.getType());
  auto column = ctx.create<UnsqueezeOp>(param, AttrList(ctx).i64s("axes", {1}));
  if (!column)
    return {};
  auto tiled =
      ctx.create<TileOp>(column.getResult(),
                         AttrList(ctx).i64s("repeats", {1, channels / groups}));
  if (!tiled)
    return {};
  auto flat = ctx.create<ReshapeOp>(
      tiled.getResult(), {},
      TypeRange{RankedTensorType::get({channels}, type.getElementType())});
  return flat ? flat.getResult() : Value();
}

static LogicalResult convertGroupNorm(NodeContext &ctx) {
  FailureOr<Value> x = ctx.requireInput(0, "X");
  FailureOr<Value> scale = ctx.requireInput(1, "scale");
  FailureOr<Value> bias = ctx.requireInput(2, "bias");
  if (failed(x) || failed(scale) || failed(bias))
    return failure();
  std::optional<int64_t> groups = ctx.getOptionalInt("num_groups");
  if (!groups)
    return ctx.emitError() << "missing attribute 'num_groups'";
  if (*groups <= 0)
    return ctx.emitError() << "num_groups must be positive, got " << *groups;
  int64_t stashType = ctx.getInt("stash_type", 1);
  if (stashType != 1)
    return ctx.unsupported("stash_type = " + Twine(stashType) +
                           " (statistics are kept in f32 for f16/bf16 "
                           "inputs and in the input's type otherwise)");
  Value s = *scale, b = *bias;
  RankedTensorType input = ctx.inputType(0);
  if (ctx.opset() < 21 && input.getRank() >= 2) {
    // Opset 18: scale and bias are per group.
    RankedTensorType scaleType = ctx.inputType(1);
    RankedTensorType biasType = ctx.inputType(2);
    if (scaleType.getRank() != 1 || biasType.getRank() != 1 ||
        !dimsCompatible(scaleType.getDimSize(0), *groups) ||
        !dimsCompatible(biasType.getDimSize(0), *groups))
      return ctx.emitError()
             << "expects scale and bias of shape [num_groups] = [" << *groups
             << "] before opset 21, got " << scaleType << " and " << biasType;
    int64_t channels = input.getDimSize(1);
    if (isDynamicDim(channels))
      return ctx.unsupported("GroupNormalization before opset 21 (per-group "
                             "scale and bias) with a dynamic channel count");
    if (channels % *groups != 0)
      return ctx.emitError()
             << "num_groups " << *groups << " does not divide C = " << channels;
    if (channels != *groups) {
      s = expandPerGroup(ctx, s, *groups, channels);
      b = s ? expandPerGroup(ctx, b, *groups, channels) : Value();
      if (!s || !b)
        return failure();
    }
  }
  return ctx.setResultOf(ctx.create<GroupNormOp>(
      ValueRange{*x, s, b},
      AttrList(ctx)
          .i64("num_groups", *groups)
          .f64("epsilon", ctx.getFloat("epsilon", 1e-5))));
}

static LogicalResult convertLayerNorm(NodeContext &ctx) {
  FailureOr<Value> x = ctx.requireInput(0, "X");
  FailureOr<Value> scale = ctx.requireInput(1, "Scale");
  if (failed(x) || failed(scale))
    return failure();
  Value bias = ctx.input(2);
  SmallVector<Value> operands{*x, *scale};
  if (bias)
    operands.push_back(bias);
  Builder b(ctx.context());
  auto op = ctx.create<LayerNormOp>(
      operands, AttrList(ctx)
                    .i64("axis", ctx.getInt("axis", -1))
                    .f64("epsilon", ctx.getFloat("epsilon", 1e-5))
                    .attr("operandSegmentSizes",
                          b.getDenseI32ArrayAttr({1, 1, bias ? 1 : 0})));
  if (!op)
    return failure();
  SmallVector<Value> results(op->getResults());
  if (ctx.hasOutput(1) || ctx.hasOutput(2)) {
    // Mean and InvStdDev have the stash type, float by default.
    int64_t stashType = ctx.getInt("stash_type", 1);
    std::string reason;
    Type stash = convertDataType(ctx.context(), stashType, reason);
    if (!stash || !isa<FloatType>(stash))
      return ctx.emitError()
             << "stash_type " << stashType << " is not a floating-point type";
    for (unsigned i : {1u, 2u}) {
      auto type = cast<RankedTensorType>(results[i].getType());
      if (!ctx.hasOutput(i) || type.getElementType() == stash)
        continue;
      auto cast =
          ctx.create<CastOp>(results[i], {}, TypeRange{type.clone(stash)});
      if (!cast)
        return failure();
      results[i] = cast.getResult();
    }
  }
  return ctx.setResults(results);
}

static LogicalResult convertLpNormalization(NodeContext &ctx) {
  FailureOr<Value> x = ctx.requireInput(0, "input");
  if (failed(x))
    return failure();
  int64_t p = ctx.getInt("p", 2);
  if (p != 1 && p != 2)
    return ctx.emitError() << "p must be 1 or 2, got " << p;
  auto norm = ctx.create<ReduceOp>(
      *x, AttrList(ctx)
              .attr("kind",
                    ReduceKindAttr::get(ctx.context(), p == 1 ? ReduceKind::l1
                                                              : ReduceKind::l2))
              .i64s("axes", {ctx.getInt("axis", -1)})
              .boolean("keepdims", true));
  if (!norm)
    return failure();
  Value y = binary<DivOp>(ctx, *x, norm.getResult());
  return y ? ctx.setResult(y) : failure();
}

static LogicalResult convertMeanVarianceNorm(NodeContext &ctx) {
  FailureOr<Value> x = ctx.requireInput(0, "X");
  if (failed(x))
    return failure();
  SmallVector<int64_t> axes = ctx.getInts("axes", {0, 2, 3});
  auto reduceMean = [&](Value v) -> Value {
    auto op = ctx.create<ReduceOp>(
        v,
        AttrList(ctx)
            .attr("kind", ReduceKindAttr::get(ctx.context(), ReduceKind::mean))
            .i64s("axes", axes)
            .boolean("keepdims", true));
    return op ? op.getResult() : Value();
  };
  // (x - mean) / (sqrt(mean((x - mean)^2)) + 1e-9), as ONNX's function body
  // (which computes the variance as E[x^2] - E[x]^2).
  Value mean = reduceMean(*x);
  if (!mean)
    return failure();
  Value centered = binary<SubOp>(ctx, *x, mean);
  Value squared = centered ? binary<MulOp>(ctx, centered, centered) : Value();
  Value variance = squared ? reduceMean(squared) : Value();
  if (!variance)
    return failure();
  auto stddev = ctx.create<SqrtOp>(variance);
  if (!stddev)
    return failure();
  Value denominator = binary<AddOp>(ctx, stddev, scalarLike(ctx, stddev, 1e-9));
  Value y = denominator ? binary<DivOp>(ctx, centered, denominator) : Value();
  return y ? ctx.setResult(y) : failure();
}

/// LRN: x / (bias + alpha / size * square_sum)^beta, where square_sum sums
/// x^2 over a window of `size` channels. The windowed mean comes from an
/// average pool (padding counted) over the channels of x^2 moved to a
/// spatial position: [N, C, ...] -> [N, 1, C, ...].
static LogicalResult convertLRN(NodeContext &ctx) {
  FailureOr<Value> x = ctx.requireInput(0, "X");
  if (failed(x))
    return failure();
  std::optional<int64_t> size = ctx.getOptionalInt("size");
  if (!size)
    return ctx.emitError() << "missing attribute 'size'";
  if (*size <= 0)
    return ctx.emitError() << "size must be positive, got " << *size;
  int64_t rank = ctx.inputType(0).getRank();
  if (rank < 2)
    return ctx.emitError() << "expects an input of rank >= 2 ([N, C, ...]), "
                              "got rank "
                           << rank;
  double alpha = ctx.getFloat("alpha", 1e-4);
  double beta = ctx.getFloat("beta", 0.75);
  double bias = ctx.getFloat("bias", 1.0);
  Value square = binary<MulOp>(ctx, *x, *x);
  if (!square)
    return failure();
  auto lifted =
      ctx.create<UnsqueezeOp>(square, AttrList(ctx).i64s("axes", {1}));
  if (!lifted)
    return failure();
  int64_t spatial = rank - 1;
  SmallVector<int64_t> kernel(spatial, 1), pads(2 * spatial, 0);
  kernel[0] = *size;
  pads[0] = (*size - 1) / 2;
  pads[spatial] = *size - 1 - pads[0];
  auto pooled = ctx.create<AvgPoolOp>(lifted.getResult(),
                                      AttrList(ctx)
                                          .i64s("kernel_shape", kernel)
                                          .i64s("pads", pads)
                                          .boolean("count_include_pad", true));
  if (!pooled)
    return failure();
  auto windowMean = ctx.create<SqueezeOp>(pooled.getResult(),
                                          AttrList(ctx).i64s("axes", {1}));
  if (!windowMean)
    return failure();
  Value m = windowMean.getResult();
  Value scaled = binary<MulOp>(ctx, m, scalarLike(ctx, m, alpha));
  Value shifted =
      scaled ? binary<AddOp>(ctx, scaled, scalarLike(ctx, m, bias)) : Value();
  Value denominator =
      shifted ? binary<PowOp>(ctx, shifted, scalarLike(ctx, m, beta)) : Value();
  Value y = denominator ? binary<DivOp>(ctx, *x, denominator) : Value();
  return y ? ctx.setResult(y) : failure();
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void populateDefaultDomainGtoM(OpRegistry &registry) {
  // Gather and linear algebra.
  registry.onOp("Gather", 1, convertGather);
  registry.onOp("GatherElements", 11, convertGatherElements);
  registry.onOp("GatherND", 11, convertGatherND);
  registry.onOp("Gemm", 1, convertGemm);
  registry.onOp("MatMul", 1, convertBinary<MatMulOp>);

  // Pooling.
  registry.onOp("GlobalAveragePool", 1, convertUnary<GlobalAvgPoolOp>);
  registry.onOp("GlobalMaxPool", 1, convertUnary<GlobalMaxPoolOp>);
  registry.onOp("MaxPool", 1, convertMaxPool);

  // Elementwise.
  registry.onOp("Gelu", 20, convertGelu);
  registry.onOp("HardSigmoid", 1, convertHardSigmoid);
  registry.onOp("HardSwish", 14, convertUnary<HardSwishOp>);
  registry.onOp("Identity", 1, convertIdentity);
  registry.onOp("IsInf", 10, convertIsInf);
  registry.onOp("IsNaN", 9, convertUnary<IsNanOp>);
  registry.onOp("LeakyRelu", 1, convertLeakyRelu);
  registry.onOp("Log", 1, convertUnary<LogOp>);
  registry.onOp("Max", 1, convertVariadic<MaxOp>);
  registry.onOp("Mean", 1, convertMean);
  registry.onOp("Min", 1, convertVariadic<MinOp>);
  registry.onOp("Mish", 18, convertUnary<MishOp>);
  registry.onOp("Mod", 10, convertMod);
  registry.onOp("Mul", 7, convertBinary<MulOp>);

  // Comparisons.
  registry.onOp("Greater", 7, convertCompare<CmpPredicate::gt>);
  registry.onOp("GreaterOrEqual", 12, convertCompare<CmpPredicate::ge>);
  registry.onOp("Less", 7, convertCompare<CmpPredicate::lt>);
  registry.onOp("LessOrEqual", 12, convertCompare<CmpPredicate::le>);

  // Softmax-like (flatten-to-2-D semantics before 13, per axis from 13).
  registry.onOp("Hardmax", 1, convertHardmax);
  registry.onOp("LogSoftmax", 1, convertLogSoftmax);

  // Normalization.
  registry.onOp("GroupNormalization", 18, convertGroupNorm);
  registry.onOp("InstanceNormalization", 1, convertInstanceNorm);
  registry.onOp("LayerNormalization", 17, convertLayerNorm);
  registry.onOp("LpNormalization", 1, convertLpNormalization);
  registry.onOp("LRN", 1, convertLRN);
  registry.onOp("MeanVarianceNormalization", 9, convertMeanVarianceNorm);

  // Not expressible in nnc.
  registry.unsupported("GRU", "recurrent networks");
  registry.unsupported("LSTM", "recurrent networks");
  registry.unsupported("If", "control flow");
  registry.unsupported("Loop", "control flow");
  registry.unsupported("MatMulInteger", "quantization");
  registry.unsupported("HammingWindow", "signal processing");
  registry.unsupported("HannWindow", "signal processing");
  registry.unsupported("MelWeightMatrix", "signal processing");
  registry.unsupported("Multinomial", "random number generation");
}

} // namespace nnc::onnx_import
