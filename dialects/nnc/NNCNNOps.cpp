//===- NNCNNOps.cpp - nn nnc ops ------------------------------------------===//
//
// Verifiers, type inference and folders of the nn op family: softmax,
// normalization, dropout and losses. Operand shape rules live in type
// inference (which verification re-runs); attribute ranges in the verifiers.
//
//===----------------------------------------------------------------------===//

#include "nnc/NNCOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace nnc;

void NNCDialect::registerNNOps() {
  addOperations<
#define GET_OP_LIST
#include "nnc/NNCNNOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The element type normalization statistics are kept in: f32 for 16-bit
/// floats, the input's element type otherwise.
static Type getStatsElementType(Type elementType) {
  if (elementType.isF16() || elementType.isBF16())
    return Float32Type::get(elementType.getContext());
  return elementType;
}

/// Checks that `epsilon` is positive (and not NaN).
static LogicalResult verifyEpsilon(Operation *op, APFloat epsilon) {
  double value = epsilon.convertToDouble();
  if (!(value > 0.0))
    return op->emitOpError("epsilon must be positive, got ") << value;
  return success();
}

/// Checks that `input` is `[N, C, ...]` with rank at least `minRank`.
static LogicalResult checkChannelInput(std::optional<Location> loc,
                                       RankedTensorType input,
                                       int64_t minRank) {
  if (input.getRank() < minRank)
    return emitOptionalError(loc, "expects input of rank >= ", minRank,
                             " ([N, C, ...]), got rank ", input.getRank());
  return success();
}

/// Checks that `type` is a rank-1 tensor whose size agrees with `channels`
/// (C as known so far, taken from `channelsFrom`), and refines `channels`
/// with its size. With a non-null `elementType`, also checks that `type`
/// has that element type (`elementTypeFrom` names where it comes from).
static FailureOr<RankedTensorType>
checkChannelParam(std::optional<Location> loc, StringRef what, Type type,
                  int64_t &channels, StringRef &channelsFrom,
                  Type elementType = nullptr, StringRef elementTypeFrom = "") {
  FailureOr<RankedTensorType> param = getRankedTensor(loc, type, what);
  if (failed(param))
    return failure();
  if (param->getRank() != 1)
    return emitOptionalError(loc, "expects ", what,
                             " of rank 1 ([C]), got rank ", param->getRank());
  int64_t size = param->getDimSize(0);
  if (!dimsCompatible(size, channels))
    return emitOptionalError(loc, "expects ", what, " to have ", channels,
                             " elements (C of ", channelsFrom, "), got ", size);
  if (isDynamicDim(channels) && !isDynamicDim(size)) {
    channels = size;
    channelsFrom = what;
  }
  if (elementType && param->getElementType() != elementType)
    return emitOptionalError(loc, "expects ", what, " of element type ",
                             elementType, " (", elementTypeFrom, "), got ",
                             param->getElementType());
  return param;
}

/// Checks that two operands share an element type.
static LogicalResult checkSameElementType(std::optional<Location> loc,
                                          StringRef lhsName,
                                          RankedTensorType lhs,
                                          StringRef rhsName,
                                          RankedTensorType rhs) {
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(loc, "expects ", lhsName, " and ", rhsName,
                             " of one element type, got ", lhs.getElementType(),
                             " and ", rhs.getElementType());
  return success();
}

/// Checks the operands of batch_norm and batch_norm_train: x `[N, C, ...]`,
/// scale/bias/mean/var `[C]` with agreeing sizes, scale and bias of one
/// element type, mean and var of one element type. Returns C (possibly
/// dynamic) and the statistics' element type.
static LogicalResult
checkBatchNormOperands(std::optional<Location> loc, Type inputType,
                       Type scaleType, Type biasType, Type meanType,
                       Type varType, StringRef meanName, StringRef varName,
                       int64_t &channels, Type &statsElementType) {
  FailureOr<RankedTensorType> input = getRankedTensor(loc, inputType, "input");
  if (failed(input) || failed(checkChannelInput(loc, *input, 2)))
    return failure();
  channels = input->getDimSize(1);
  StringRef channelsFrom = "input";
  FailureOr<RankedTensorType> scale =
      checkChannelParam(loc, "scale", scaleType, channels, channelsFrom);
  if (failed(scale))
    return failure();
  FailureOr<RankedTensorType> bias =
      checkChannelParam(loc, "bias", biasType, channels, channelsFrom);
  if (failed(bias))
    return failure();
  FailureOr<RankedTensorType> mean =
      checkChannelParam(loc, meanName, meanType, channels, channelsFrom);
  if (failed(mean))
    return failure();
  FailureOr<RankedTensorType> var =
      checkChannelParam(loc, varName, varType, channels, channelsFrom);
  if (failed(var))
    return failure();
  if (failed(checkSameElementType(loc, "scale", *scale, "bias", *bias)) ||
      failed(checkSameElementType(loc, meanName, *mean, varName, *var)))
    return failure();
  statsElementType = mean->getElementType();
  return success();
}

/// Checks the scale and bias of group_norm and instance_norm: `[C]`, the
/// input's element type.
static LogicalResult checkAffineParams(std::optional<Location> loc,
                                       RankedTensorType input, Type scaleType,
                                       Type biasType, int64_t &channels) {
  channels = input.getDimSize(1);
  StringRef channelsFrom = "input";
  Type elementType = input.getElementType();
  if (failed(checkChannelParam(loc, "scale", scaleType, channels, channelsFrom,
                               elementType, "the input's")) ||
      failed(checkChannelParam(loc, "bias", biasType, channels, channelsFrom,
                               elementType, "the input's")))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

template <typename OpT> static LogicalResult verifySoftmaxAxis(OpT op) {
  int64_t rank = op.getType().getRank();
  int64_t axis = op.getAxisAttr().getInt();
  if (!normalizeAxis(axis, rank))
    return op.emitOpError("axis ")
           << axis << " is out of range for rank " << rank;
  return success();
}

LogicalResult SoftmaxOp::verify() { return verifySoftmaxAxis(*this); }
LogicalResult LogSoftmaxOp::verify() { return verifySoftmaxAxis(*this); }

//===----------------------------------------------------------------------===//
// Batch normalization
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  int64_t channels;
  Type statsElementType;
  if (failed(checkBatchNormOperands(
          loc, adaptor.getInput().getType(), adaptor.getScale().getType(),
          adaptor.getBias().getType(), adaptor.getMean().getType(),
          adaptor.getVar().getType(), "mean", "var", channels,
          statsElementType)))
    return failure();
  types.push_back(adaptor.getInput().getType());
  return success();
}

/// The running statistics' momentum, in the ONNX convention.
template <typename OpT> static LogicalResult verifyMomentum(OpT op) {
  double momentum = op.getMomentum().convertToDouble();
  if (!(momentum >= 0.0 && momentum <= 1.0))
    return op.emitOpError("momentum must be in [0, 1], got ") << momentum;
  return success();
}

LogicalResult BatchNormOp::verify() {
  if (failed(verifyEpsilon(*this, getEpsilon())))
    return failure();
  return verifyMomentum(*this);
}

LogicalResult BatchNormTrainOp::inferReturnTypes(MLIRContext *,
                                                 std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  int64_t channels;
  Type statsElementType;
  if (failed(checkBatchNormOperands(
          loc, adaptor.getInput().getType(), adaptor.getScale().getType(),
          adaptor.getBias().getType(), adaptor.getRunningMean().getType(),
          adaptor.getRunningVar().getType(), "running_mean", "running_var",
          channels, statsElementType)))
    return failure();
  types.push_back(adaptor.getInput().getType());
  auto statsType = RankedTensorType::get({channels}, statsElementType);
  types.append(4, statsType);
  return success();
}

LogicalResult BatchNormTrainOp::verify() {
  if (failed(verifyEpsilon(*this, getEpsilon())))
    return failure();
  return verifyMomentum(*this);
}

//===----------------------------------------------------------------------===//
// Layer, group and instance normalization
//===----------------------------------------------------------------------===//

/// Checks that an optional layer_norm affine operand has the input's element
/// type and broadcasts to the normalized shape.
static LogicalResult checkLayerNormParam(std::optional<Location> loc,
                                         StringRef what, Value value,
                                         RankedTensorType input,
                                         ArrayRef<int64_t> normalizedShape) {
  if (!value)
    return success();
  FailureOr<RankedTensorType> param =
      getRankedTensor(loc, value.getType(), what);
  if (failed(param))
    return failure();
  if (param->getElementType() != input.getElementType())
    return emitOptionalError(loc, "expects ", what, " of element type ",
                             input.getElementType(), " (the input's), got ",
                             param->getElementType());
  if (!isBroadcastableTo(param->getShape(), normalizedShape))
    return emitOptionalError(loc, what, " shape ",
                             formatShape(param->getShape()),
                             " does not broadcast to the normalized shape ",
                             formatShape(normalizedShape));
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> input =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(input))
    return failure();
  int64_t axisValue = -1;
  if (IntegerAttr axisAttr = adaptor.getAxisAttr())
    axisValue = axisAttr.getInt();
  std::optional<int64_t> axis = normalizeAxis(axisValue, input->getRank());
  if (!axis)
    return emitOptionalError(loc, "axis ", axisValue,
                             " is out of range for rank ", input->getRank());
  ArrayRef<int64_t> normalizedShape = input->getShape().drop_front(*axis);
  if (failed(checkLayerNormParam(loc, "scale", adaptor.getScale(), *input,
                                 normalizedShape)) ||
      failed(checkLayerNormParam(loc, "bias", adaptor.getBias(), *input,
                                 normalizedShape)))
    return failure();
  SmallVector<int64_t> statsShape(input->getShape());
  std::fill(statsShape.begin() + *axis, statsShape.end(), 1);
  auto statsType = RankedTensorType::get(
      statsShape, getStatsElementType(input->getElementType()));
  types.push_back(*input);
  types.push_back(statsType);
  types.push_back(statsType);
  return success();
}

LogicalResult LayerNormOp::verify() {
  return verifyEpsilon(*this, getEpsilon());
}

LogicalResult GroupNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> input =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(input) || failed(checkChannelInput(loc, *input, 2)))
    return failure();
  int64_t channels;
  if (failed(checkAffineParams(loc, *input, adaptor.getScale().getType(),
                               adaptor.getBias().getType(), channels)))
    return failure();
  // A missing num_groups is reported by the ODS verifier.
  int64_t groups = ShapedType::kDynamic;
  if (IntegerAttr groupsAttr = adaptor.getNumGroupsAttr()) {
    groups = groupsAttr.getInt();
    if (groups <= 0)
      return emitOptionalError(loc, "num_groups must be positive, got ",
                               groups);
    if (!isDynamicDim(channels) && channels % groups != 0)
      return emitOptionalError(loc, "num_groups ", groups,
                               " does not divide C = ", channels);
  }
  auto statsType =
      RankedTensorType::get({input->getDimSize(0), groups},
                            getStatsElementType(input->getElementType()));
  types.push_back(*input);
  types.push_back(statsType);
  types.push_back(statsType);
  return success();
}

LogicalResult GroupNormOp::verify() {
  return verifyEpsilon(*this, getEpsilon());
}

LogicalResult InstanceNormOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> input =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(input) || failed(checkChannelInput(loc, *input, 3)))
    return failure();
  int64_t channels;
  if (failed(checkAffineParams(loc, *input, adaptor.getScale().getType(),
                               adaptor.getBias().getType(), channels)))
    return failure();
  SmallVector<int64_t> statsShape(input->getShape());
  std::fill(statsShape.begin() + 2, statsShape.end(), 1);
  statsShape[1] = channels;
  auto statsType = RankedTensorType::get(
      statsShape, getStatsElementType(input->getElementType()));
  types.push_back(*input);
  types.push_back(statsType);
  types.push_back(statsType);
  return success();
}

LogicalResult InstanceNormOp::verify() {
  return verifyEpsilon(*this, getEpsilon());
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

namespace {
/// The random number generator state that random ops read and advance.
struct RandomStateResource
    : public SideEffects::Resource::Base<RandomStateResource> {
  StringRef getName() final { return "nnc::RandomState"; }
};
} // namespace

LogicalResult RandomUniformOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  auto like = dyn_cast<RankedTensorType>(adaptor.getLike().getType());
  if (!like)
    return emitOptionalError(loc, "'like' must be a ranked tensor, got ",
                             adaptor.getLike().getType());
  types.push_back(like);
  return success();
}

LogicalResult DropoutOp::inferReturnTypes(MLIRContext *ctx,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> input =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(input))
    return failure();
  types.push_back(*input);
  types.push_back(input->clone(IntegerType::get(ctx, 1)));
  return success();
}

LogicalResult DropoutOp::verify() {
  double ratio = getRatio().convertToDouble();
  if (!(ratio >= 0.0 && ratio < 1.0))
    return emitOpError("ratio must be in [0, 1), got ") << ratio;
  return success();
}

void DropoutOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (!isRandom())
    return;
  effects.emplace_back(MemoryEffects::Read::get(), RandomStateResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), RandomStateResource::get());
}

LogicalResult DropoutOp::fold(FoldAdaptor,
                              SmallVectorImpl<OpFoldResult> &results) {
  // A multi-result fold must give every result; the mask is only a constant
  // when its shape is static. The canonicalization below handles the rest.
  RankedTensorType maskType = getMask().getType();
  if (isRandom() || !maskType.hasStaticShape())
    return failure();
  results.push_back(getInput());
  results.push_back(DenseElementsAttr::get(maskType, true));
  return success();
}

namespace {
/// Replaces the output of a non-random dropout with its input when the mask
/// cannot be folded (dynamic shapes); the op then dies with its mask.
struct ForwardDropoutInput : public OpRewritePattern<DropoutOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DropoutOp op,
                                PatternRewriter &rewriter) const override {
    if (op.isRandom() || op.getOutput().use_empty())
      return failure();
    rewriter.replaceAllUsesWith(op.getOutput(), op.getInput());
    return success();
  }
};
} // namespace

void DropoutOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ForwardDropoutInput>(context);
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

/// Returns the type of a loss with the given per-element shape.
static Type getLossType(LossReductionAttr reduction,
                        ArrayRef<int64_t> perElementShape, Type elementType) {
  LossReduction kind = reduction ? reduction.getValue() : LossReduction::mean;
  if (kind == LossReduction::none)
    return RankedTensorType::get(perElementShape, elementType);
  return RankedTensorType::get({}, elementType);
}

/// Infers the type of cross_entropy and nll_loss: `input` `[N, C, d1...]`,
/// `labels` `[N, d1...]`, optional `weight` `[C]` of the input's element
/// type. `inputName` names the first operand in diagnostics.
static LogicalResult inferClassLoss(std::optional<Location> loc,
                                    StringRef inputName, Type inputType,
                                    Type labelsType, Value weight,
                                    LossReductionAttr reduction,
                                    SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> input =
      getRankedTensor(loc, inputType, inputName);
  if (failed(input))
    return failure();
  FailureOr<RankedTensorType> labels =
      getRankedTensor(loc, labelsType, "labels");
  if (failed(labels))
    return failure();
  int64_t rank = input->getRank();
  if (rank < 2)
    return emitOptionalError(loc, "expects ", inputName,
                             " of rank >= 2 ([N, C, d1, ...]), got rank ",
                             rank);
  if (labels->getRank() != rank - 1)
    return emitOptionalError(loc, "expects labels of rank ", rank - 1,
                             " ([N, d1, ...]) for ", inputName, " of rank ",
                             rank, ", got rank ", labels->getRank());
  // The per-element shape: N and the spatial dimensions of the input,
  // refined by the labels' static dimensions.
  SmallVector<int64_t> shape;
  shape.push_back(input->getDimSize(0));
  llvm::append_range(shape, input->getShape().drop_front(2));
  for (auto [i, labelDim] : llvm::enumerate(labels->getShape())) {
    if (!dimsCompatible(labelDim, shape[i]))
      return emitOptionalError(
          loc, "expects labels shape ", formatShape(labels->getShape()),
          " to match [N, d1, ...] = ", formatShape(shape), " of ", inputName,
          " shape ", formatShape(input->getShape()));
    if (isDynamicDim(shape[i]))
      shape[i] = labelDim;
  }
  if (weight) {
    int64_t channels = input->getDimSize(1);
    StringRef channelsFrom = inputName;
    std::string from = ("the " + inputName + "'s").str();
    if (failed(checkChannelParam(loc, "weight", weight.getType(), channels,
                                 channelsFrom, input->getElementType(), from)))
      return failure();
  }
  types.push_back(getLossType(reduction, shape, input->getElementType()));
  return success();
}

LogicalResult CrossEntropyOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  return inferClassLoss(loc, "logits", adaptor.getLogits().getType(),
                        adaptor.getLabels().getType(), adaptor.getWeight(),
                        adaptor.getReductionAttr(), types);
}

LogicalResult CrossEntropyOp::verify() {
  double smoothing = getLabelSmoothing().convertToDouble();
  if (!(smoothing >= 0.0 && smoothing <= 1.0))
    return emitOpError("label_smoothing must be in [0, 1], got ") << smoothing;
  return success();
}

LogicalResult NllLossOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferClassLoss(loc, "input", adaptor.getInput().getType(),
                        adaptor.getLabels().getType(), adaptor.getWeight(),
                        adaptor.getReductionAttr(), types);
}

LogicalResult MseLossOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> input =
      getRankedTensor(loc, adaptor.getInput().getType(), "input");
  if (failed(input))
    return failure();
  FailureOr<RankedTensorType> target =
      getRankedTensor(loc, adaptor.getTarget().getType(), "target");
  if (failed(target))
    return failure();
  if (failed(checkSameElementType(loc, "input", *input, "target", *target)))
    return failure();
  if (!shapesCompatible(input->getShape(), target->getShape()))
    return emitOptionalError(
        loc, "expects target shape ", formatShape(target->getShape()),
        " to equal input shape ", formatShape(input->getShape()));
  SmallVector<int64_t> shape(input->getShape());
  for (auto [dim, targetDim] : llvm::zip_equal(shape, target->getShape()))
    if (isDynamicDim(dim))
      dim = targetDim;
  types.push_back(
      getLossType(adaptor.getReductionAttr(), shape, input->getElementType()));
  return success();
}

#define GET_OP_CLASSES
#include "nnc/NNCNNOps.cpp.inc"
