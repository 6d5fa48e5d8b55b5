//===- NNCLinalgOps.cpp - linalg nnc ops ----------------------------------===//
//
// Type inference (which also checks every shape and attribute invariant) and
// folders of the linalg op family: matmul, gemm, convolutions and pooling.
//
//===----------------------------------------------------------------------===//

#include "nnc/NNCOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace nnc;

void NNCDialect::registerLinalgOps() {
  addOperations<
#define GET_OP_LIST
#include "nnc/NNCLinalgOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

/// Checks that `type` has `elementType`, naming the operand `what`.
static LogicalResult checkElementType(std::optional<Location> loc,
                                      RankedTensorType type, Type elementType,
                                      StringRef what) {
  if (type.getElementType() == elementType)
    return success();
  return emitOptionalError(loc, "expects ", what, " element type ",
                           type.getElementType(), " to equal the input's ",
                           elementType);
}

/// Reads an optional per-spatial-dimension list attribute `name`, defaulting
/// to `count` copies of `fill`, and checks its length and that every entry is
/// at least `minValue` (1: positive, 0: non-negative).
static LogicalResult getSpatialList(std::optional<Location> loc,
                                    DenseI64ArrayAttr attr, StringRef name,
                                    int64_t count, int64_t fill,
                                    int64_t minValue,
                                    SmallVectorImpl<int64_t> &result) {
  if (!attr) {
    result.assign(count, fill);
    return success();
  }
  if (attr.size() != count)
    return emitOptionalError(loc, name, " has ", attr.size(),
                             " entries but expected ", count);
  result.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
  for (auto [i, v] : llvm::enumerate(result))
    if (v < minValue)
      return emitOptionalError(loc, name, " entry ", i, " is ", v, ", must be ",
                               minValue > 0 ? "positive" : "non-negative");
  return success();
}

/// Strides, dilations and pads of a sliding-window op, defaulted and checked
/// for `spatialRank` spatial dimensions.
struct WindowAttrs {
  SmallVector<int64_t> strides, dilations, pads;
};

static LogicalResult getWindowAttrs(std::optional<Location> loc,
                                    DenseI64ArrayAttr strides,
                                    DenseI64ArrayAttr dilations,
                                    DenseI64ArrayAttr pads, int64_t spatialRank,
                                    WindowAttrs &result) {
  if (failed(getSpatialList(loc, strides, "strides", spatialRank, 1, 1,
                            result.strides)) ||
      failed(getSpatialList(loc, dilations, "dilations", spatialRank, 1, 1,
                            result.dilations)) ||
      failed(getSpatialList(loc, pads, "pads", 2 * spatialRank, 0, 0,
                            result.pads)))
    return failure();
  return success();
}

/// Returns `type` as a ranked tensor of rank >= 3 ([N, C, spatial...]).
static FailureOr<RankedTensorType> getBatchedImage(std::optional<Location> loc,
                                                   Type type) {
  FailureOr<RankedTensorType> ranked = getRankedTensor(loc, type, "input");
  if (failed(ranked))
    return failure();
  if (ranked->getRank() < 3)
    return emitOptionalError(loc,
                             "expects input of rank >= 3 ([N, C, "
                             "spatial...]), got rank ",
                             ranked->getRank());
  return ranked;
}

/// Emits the error for spatial output dimension `i` that is not positive or
/// does not fit into int64.
static LogicalResult emitBadOutputDim(std::optional<Location> loc, size_t i,
                                      std::optional<int64_t> value) {
  if (!value)
    return emitOptionalError(loc, "output spatial dimension ", i,
                             " overflows int64");
  return emitOptionalError(loc, "output spatial dimension ", i, " is ", *value,
                           ", must be positive");
}

/// Extent of a dilated kernel, dilation * (k - 1) + 1, for k >= 1.
static std::optional<int64_t> dilatedExtent(int64_t kernel, int64_t dilation) {
  std::optional<int64_t> span = llvm::checkedMul(dilation, kernel - 1);
  return span ? llvm::checkedAdd(*span, int64_t(1)) : std::nullopt;
}

/// Output size of a forward sliding window (convolution or pooling) along
/// spatial dimension `i`; kDynamic if `in` or `kernel` is.
static FailureOr<int64_t> windowOutputDim(std::optional<Location> loc, size_t i,
                                          int64_t in, int64_t kernel,
                                          int64_t stride, int64_t dilation,
                                          int64_t padBegin, int64_t padEnd,
                                          bool ceilMode) {
  if (isDynamicDim(in) || isDynamicDim(kernel))
    return ShapedType::kDynamic;
  std::optional<int64_t> extent = dilatedExtent(kernel, dilation);
  std::optional<int64_t> padded = llvm::checkedAdd(in, padBegin);
  if (padded)
    padded = llvm::checkedAdd(*padded, padEnd);
  if (!extent || !padded)
    return emitBadOutputDim(loc, i, std::nullopt);
  // Both are non-negative, so the difference cannot overflow.
  int64_t span = *padded - *extent;
  if (span < 0)
    return emitOptionalError(
        loc, "output spatial dimension ", i, " is empty: padded input size ",
        *padded, " is smaller than the dilated kernel size ", *extent);
  int64_t out = span / stride + 1;
  if (ceilMode && span % stride != 0) {
    ++out;
    // A last window that starts inside the end padding is dropped (one
    // whose start overflows int64 certainly does).
    std::optional<int64_t> lastStart = llvm::checkedMul(out - 1, stride);
    if (!lastStart || *lastStart >= in + padBegin)
      --out;
  }
  return out;
}

/// Checks the kernel dimensions of `weight` (from index 2 on) are not zero.
static LogicalResult checkKernel(std::optional<Location> loc,
                                 ArrayRef<int64_t> kernel) {
  for (auto [i, k] : llvm::enumerate(kernel))
    if (k == 0)
      return emitOptionalError(loc, "kernel dimension ", i,
                               " is 0, must be positive");
  return success();
}

//===----------------------------------------------------------------------===//
// MatMulOp
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> lhs =
      getRankedTensor(loc, adaptor.getLhs().getType(), "lhs");
  if (failed(lhs))
    return failure();
  FailureOr<RankedTensorType> rhs =
      getRankedTensor(loc, adaptor.getRhs().getType(), "rhs");
  if (failed(rhs))
    return failure();
  if (lhs->getRank() == 0 || rhs->getRank() == 0)
    return emitOptionalError(loc, "expects operands of rank >= 1, got ranks ",
                             lhs->getRank(), " and ", rhs->getRank());
  if (failed(checkElementType(loc, *rhs, lhs->getElementType(), "rhs")))
    return failure();

  // Promote vectors to matrices; the added unit dimension is dropped below.
  SmallVector<int64_t> a(lhs->getShape()), b(rhs->getShape());
  bool lhsVector = a.size() == 1, rhsVector = b.size() == 1;
  if (lhsVector)
    a.insert(a.begin(), 1);
  if (rhsVector)
    b.push_back(1);
  int64_t m = a[a.size() - 2], k = a.back();
  int64_t kb = b[b.size() - 2], n = b.back();
  if (!dimsCompatible(k, kb))
    return emitOptionalError(loc, "contracted dimensions differ: lhs ",
                             formatShape(lhs->getShape()), " has K = ", k,
                             " but rhs ", formatShape(rhs->getShape()),
                             " has K = ", kb);
  SmallVector<int64_t> shape;
  ArrayRef<int64_t> batchA = ArrayRef<int64_t>(a).drop_back(2);
  ArrayRef<int64_t> batchB = ArrayRef<int64_t>(b).drop_back(2);
  if (!broadcastShapes(batchA, batchB, shape))
    return emitOptionalError(loc, "batch dimensions ", formatShape(batchA),
                             " and ", formatShape(batchB), " do not broadcast");
  if (!lhsVector)
    shape.push_back(m);
  if (!rhsVector)
    shape.push_back(n);
  types.push_back(RankedTensorType::get(shape, lhs->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

LogicalResult GemmOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> a =
      getRankedTensor(loc, adaptor.getA().getType(), "a");
  if (failed(a))
    return failure();
  FailureOr<RankedTensorType> b =
      getRankedTensor(loc, adaptor.getB().getType(), "b");
  if (failed(b))
    return failure();
  if (a->getRank() != 2 || b->getRank() != 2)
    return emitOptionalError(loc, "expects matrices (rank 2), got ranks ",
                             a->getRank(), " and ", b->getRank());
  if (failed(checkElementType(loc, *b, a->getElementType(), "b")))
    return failure();
  bool transA = adaptor.getTransAAttr() && adaptor.getTransAAttr().getValue();
  bool transB = adaptor.getTransBAttr() && adaptor.getTransBAttr().getValue();
  int64_t m = a->getDimSize(transA ? 1 : 0), k = a->getDimSize(transA ? 0 : 1);
  int64_t kb = b->getDimSize(transB ? 1 : 0), n = b->getDimSize(transB ? 0 : 1);
  if (!dimsCompatible(k, kb))
    return emitOptionalError(loc, "contracted dimensions differ: op(a) is ",
                             formatShape({m, k}), " but op(b) is ",
                             formatShape({kb, n}));
  SmallVector<int64_t> shape = {m, n};
  if (Value cValue = adaptor.getC()) {
    FailureOr<RankedTensorType> c = getRankedTensor(loc, cValue.getType(), "c");
    if (failed(c))
      return failure();
    if (failed(checkElementType(loc, *c, a->getElementType(), "c")))
      return failure();
    if (!isBroadcastableTo(c->getShape(), shape))
      return emitOptionalError(loc, "c of shape ", formatShape(c->getShape()),
                               " does not broadcast to the result shape ",
                               formatShape(shape));
  }
  types.push_back(RankedTensorType::get(shape, a->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

/// Checks what conv and conv_transpose share: operand ranks and element
/// types, groups, and the window attributes.
static LogicalResult
checkConvOperands(std::optional<Location> loc, Type inputType, Type weightType,
                  IntegerAttr groupsAttr, RankedTensorType &input,
                  RankedTensorType &weight, int64_t &groups) {
  FailureOr<RankedTensorType> in = getBatchedImage(loc, inputType);
  if (failed(in))
    return failure();
  FailureOr<RankedTensorType> w = getRankedTensor(loc, weightType, "weight");
  if (failed(w))
    return failure();
  input = *in;
  weight = *w;
  if (weight.getRank() != input.getRank())
    return emitOptionalError(loc, "expects weight of rank ", input.getRank(),
                             " like the input, got rank ", weight.getRank());
  if (failed(checkElementType(loc, weight, input.getElementType(), "weight")))
    return failure();
  groups = groupsAttr ? groupsAttr.getInt() : 1;
  if (groups < 1)
    return emitOptionalError(loc, "groups is ", groups, ", must be positive");
  int64_t channels = input.getDimSize(1);
  if (!isDynamicDim(channels) && channels % groups != 0)
    return emitOptionalError(loc, "input channels ", channels,
                             " are not divisible by groups ", groups);
  return checkKernel(loc, weight.getShape().drop_front(2));
}

/// Checks the optional bias against `outChannels` output channels.
static LogicalResult checkBias(std::optional<Location> loc, Value bias,
                               Type elementType, int64_t outChannels) {
  if (!bias)
    return success();
  FailureOr<RankedTensorType> type =
      getRankedTensor(loc, bias.getType(), "bias");
  if (failed(type))
    return failure();
  if (failed(checkElementType(loc, *type, elementType, "bias")))
    return failure();
  if (type->getRank() != 1 || !dimsCompatible(type->getDimSize(0), outChannels))
    return emitOptionalError(loc, "expects bias of shape ",
                             formatShape({outChannels}), ", got ",
                             formatShape(type->getShape()));
  return success();
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  RankedTensorType input, weight;
  int64_t groups;
  if (failed(checkConvOperands(loc, adaptor.getInput().getType(),
                               adaptor.getWeight().getType(),
                               adaptor.getGroupsAttr(), input, weight, groups)))
    return failure();
  int64_t spatialRank = input.getRank() - 2;
  WindowAttrs window;
  if (failed(getWindowAttrs(loc, adaptor.getStridesAttr(),
                            adaptor.getDilationsAttr(), adaptor.getPadsAttr(),
                            spatialRank, window)))
    return failure();

  int64_t channels = input.getDimSize(1);
  int64_t outChannels = weight.getDimSize(0);
  int64_t perGroup = weight.getDimSize(1);
  if (!isDynamicDim(channels) && !isDynamicDim(perGroup) &&
      // channels % groups == 0 was checked, and this cannot overflow.
      channels / groups != perGroup)
    return emitOptionalError(loc, "weight has ", perGroup,
                             " input channels per group but the input has ",
                             channels, " channels in ", groups, " groups");
  if (!isDynamicDim(outChannels) && outChannels % groups != 0)
    return emitOptionalError(loc, "output channels ", outChannels,
                             " are not divisible by groups ", groups);
  if (failed(checkBias(loc, adaptor.getBias(), input.getElementType(),
                       outChannels)))
    return failure();

  SmallVector<int64_t> shape = {input.getDimSize(0), outChannels};
  for (int64_t i = 0; i < spatialRank; ++i) {
    FailureOr<int64_t> out = windowOutputDim(
        loc, i, input.getDimSize(i + 2), weight.getDimSize(i + 2),
        window.strides[i], window.dilations[i], window.pads[i],
        window.pads[i + spatialRank], /*ceilMode=*/false);
    if (failed(out))
      return failure();
    shape.push_back(*out);
  }
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult ConvTransposeOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  RankedTensorType input, weight;
  int64_t groups;
  if (failed(checkConvOperands(loc, adaptor.getInput().getType(),
                               adaptor.getWeight().getType(),
                               adaptor.getGroupsAttr(), input, weight, groups)))
    return failure();
  int64_t spatialRank = input.getRank() - 2;
  WindowAttrs window;
  SmallVector<int64_t> outputPadding;
  if (failed(getWindowAttrs(loc, adaptor.getStridesAttr(),
                            adaptor.getDilationsAttr(), adaptor.getPadsAttr(),
                            spatialRank, window)) ||
      failed(getSpatialList(loc, adaptor.getOutputPaddingAttr(),
                            "output_padding", spatialRank, 0, 0,
                            outputPadding)))
    return failure();
  for (int64_t i = 0; i < spatialRank; ++i) {
    int64_t bound = std::max(window.strides[i], window.dilations[i]);
    if (outputPadding[i] >= bound)
      return emitOptionalError(
          loc, "output_padding entry ", i, " is ", outputPadding[i],
          ", must be less than max(stride, dilation) = ", bound);
  }

  int64_t channels = input.getDimSize(1);
  if (!dimsCompatible(weight.getDimSize(0), channels))
    return emitOptionalError(loc, "weight has ", weight.getDimSize(0),
                             " input channels but the input has ", channels);
  int64_t perGroup = weight.getDimSize(1);
  int64_t outChannels = ShapedType::kDynamic;
  if (!isDynamicDim(perGroup)) {
    std::optional<int64_t> product = llvm::checkedMul(perGroup, groups);
    if (!product)
      return emitOptionalError(loc, "output channels overflow int64");
    outChannels = *product;
  }
  if (failed(checkBias(loc, adaptor.getBias(), input.getElementType(),
                       outChannels)))
    return failure();

  SmallVector<int64_t> shape = {input.getDimSize(0), outChannels};
  for (int64_t i = 0; i < spatialRank; ++i) {
    int64_t in = input.getDimSize(i + 2), kernel = weight.getDimSize(i + 2);
    if (isDynamicDim(in) || isDynamicDim(kernel)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    // stride * (in - 1) + output_padding + extent - pad_begin - pad_end
    std::optional<int64_t> out = llvm::checkedMul(window.strides[i], in - 1);
    std::optional<int64_t> extent = dilatedExtent(kernel, window.dilations[i]);
    if (out)
      out = llvm::checkedAdd(*out, outputPadding[i]);
    if (out && extent)
      out = llvm::checkedAdd(*out, *extent);
    else
      out = std::nullopt;
    if (out)
      out = llvm::checkedSub(*out, window.pads[i]);
    if (out)
      out = llvm::checkedSub(*out, window.pads[i + spatialRank]);
    if (!out || *out <= 0)
      return emitBadOutputDim(loc, i, out);
    shape.push_back(*out);
  }
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult ConvWeightGradOp::inferReturnTypes(MLIRContext *,
                                                 std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> input =
      getBatchedImage(loc, adaptor.getInput().getType());
  if (failed(input))
    return failure();
  FailureOr<RankedTensorType> grad =
      getRankedTensor(loc, adaptor.getGrad().getType(), "grad");
  if (failed(grad))
    return failure();
  int64_t rank = input->getRank(), spatialRank = rank - 2;
  if (grad->getRank() != rank)
    return emitOptionalError(loc, "expects grad of rank ", rank,
                             " like the input, got rank ", grad->getRank());
  if (failed(checkElementType(loc, *grad, input->getElementType(), "grad")))
    return failure();
  ArrayRef<int64_t> kernel = adaptor.getKernelShape();
  if (static_cast<int64_t>(kernel.size()) != spatialRank)
    return emitOptionalError(loc, "kernel_shape has ", kernel.size(),
                             " entries but expected ", spatialRank);
  for (auto [i, k] : llvm::enumerate(kernel))
    if (k < 1)
      return emitOptionalError(loc, "kernel_shape entry ", i, " is ", k,
                               ", must be positive");
  WindowAttrs window;
  if (failed(getWindowAttrs(loc, adaptor.getStridesAttr(),
                            adaptor.getDilationsAttr(), adaptor.getPadsAttr(),
                            spatialRank, window)))
    return failure();
  int64_t groups =
      adaptor.getGroupsAttr() ? adaptor.getGroupsAttr().getInt() : 1;
  if (groups < 1)
    return emitOptionalError(loc, "groups is ", groups, ", must be positive");
  int64_t channels = input->getDimSize(1), outChannels = grad->getDimSize(1);
  if (!isDynamicDim(channels) && channels % groups != 0)
    return emitOptionalError(loc, "input channels ", channels,
                             " are not divisible by groups ", groups);
  if (!isDynamicDim(outChannels) && outChannels % groups != 0)
    return emitOptionalError(loc, "grad channels ", outChannels,
                             " are not divisible by groups ", groups);
  if (!dimsCompatible(input->getDimSize(0), grad->getDimSize(0)))
    return emitOptionalError(loc, "input batch ", input->getDimSize(0),
                             " differs from grad batch ", grad->getDimSize(0));
  for (int64_t i = 0; i < spatialRank; ++i) {
    FailureOr<int64_t> out = windowOutputDim(
        loc, i, input->getDimSize(i + 2), kernel[i], window.strides[i],
        window.dilations[i], window.pads[i], window.pads[i + spatialRank],
        /*ceilMode=*/false);
    if (failed(out))
      return failure();
    if (!dimsCompatible(*out, grad->getDimSize(i + 2)))
      return emitOptionalError(loc, "grad spatial dimension ", i, " is ",
                               grad->getDimSize(i + 2),
                               " but the convolution's output has ", *out);
  }
  SmallVector<int64_t> shape = {
      outChannels, isDynamicDim(channels) ? channels : channels / groups};
  shape.append(kernel.begin(), kernel.end());
  types.push_back(RankedTensorType::get(shape, input->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// Infers the result of a max or average pool.
template <typename Adaptor>
static LogicalResult inferPool(std::optional<Location> loc, Adaptor adaptor,
                               SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> input =
      getBatchedImage(loc, adaptor.getInput().getType());
  if (failed(input))
    return failure();
  int64_t spatialRank = input->getRank() - 2;
  DenseI64ArrayAttr kernelAttr = adaptor.getKernelShapeAttr();
  if (!kernelAttr)
    return emitOptionalError(loc, "requires a 'kernel_shape' attribute");
  SmallVector<int64_t> kernel;
  WindowAttrs window;
  if (failed(getSpatialList(loc, kernelAttr, "kernel_shape", spatialRank, 1, 1,
                            kernel)) ||
      failed(getWindowAttrs(loc, adaptor.getStridesAttr(),
                            adaptor.getDilationsAttr(), adaptor.getPadsAttr(),
                            spatialRank, window)))
    return failure();
  bool ceilMode =
      adaptor.getCeilModeAttr() && adaptor.getCeilModeAttr().getValue();
  SmallVector<int64_t> shape(input->getShape().take_front(2));
  for (int64_t i = 0; i < spatialRank; ++i) {
    FailureOr<int64_t> out =
        windowOutputDim(loc, i, input->getDimSize(i + 2), kernel[i],
                        window.strides[i], window.dilations[i], window.pads[i],
                        window.pads[i + spatialRank], ceilMode);
    if (failed(out))
      return failure();
    shape.push_back(*out);
  }
  types.push_back(input->clone(shape));
  return success();
}

/// A pool whose every window is a single element is the identity.
template <typename PoolOp> static OpFoldResult foldTrivialPool(PoolOp op) {
  auto isAll = [](std::optional<ArrayRef<int64_t>> list, int64_t value) {
    return !list || llvm::all_of(*list, [&](int64_t v) { return v == value; });
  };
  if (op.getInput().getType() == op.getType() &&
      isAll(op.getKernelShape(), 1) && isAll(op.getStrides(), 1) &&
      isAll(op.getPads(), 0))
    return op.getInput();
  return {};
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferPool(loc, adaptor, types);
}

OpFoldResult MaxPoolOp::fold(FoldAdaptor) { return foldTrivialPool(*this); }

LogicalResult AvgPoolOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferPool(loc, adaptor, types);
}

OpFoldResult AvgPoolOp::fold(FoldAdaptor) { return foldTrivialPool(*this); }

LogicalResult MaxPoolGradOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  // The pooling's result shape, which grad must have.
  SmallVector<Type> pooled;
  if (failed(inferPool(loc, adaptor, pooled)))
    return failure();
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  FailureOr<RankedTensorType> grad =
      getRankedTensor(loc, adaptor.getGrad().getType(), "grad");
  if (failed(grad))
    return failure();
  if (failed(checkElementType(loc, *grad, input.getElementType(), "grad")))
    return failure();
  auto expected = cast<RankedTensorType>(pooled.front());
  if (grad->getRank() != expected.getRank())
    return emitOptionalError(loc, "expects grad of rank ", expected.getRank(),
                             " like the pooling's result, got rank ",
                             grad->getRank());
  for (int64_t i = 0; i < expected.getRank(); ++i)
    if (!dimsCompatible(grad->getDimSize(i), expected.getDimSize(i)))
      return emitOptionalError(loc, "grad dimension ", i, " is ",
                               grad->getDimSize(i),
                               " but the pooling's result has ",
                               expected.getDimSize(i));
  types.push_back(input);
  return success();
}

/// Infers [N, C, 1, ..., 1] for a global pool.
static LogicalResult inferGlobalPool(std::optional<Location> loc, Type type,
                                     SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> input = getBatchedImage(loc, type);
  if (failed(input))
    return failure();
  SmallVector<int64_t> shape(input->getRank(), 1);
  shape[0] = input->getDimSize(0);
  shape[1] = input->getDimSize(1);
  types.push_back(input->clone(shape));
  return success();
}

LogicalResult GlobalAvgPoolOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  return inferGlobalPool(loc, adaptor.getInput().getType(), types);
}

LogicalResult GlobalMaxPoolOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  return inferGlobalPool(loc, adaptor.getInput().getType(), types);
}

// Pooling windows of one element each are the identity.
OpFoldResult GlobalAvgPoolOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

OpFoldResult GlobalMaxPoolOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

#define GET_OP_CLASSES
#include "nnc/NNCLinalgOps.cpp.inc"
