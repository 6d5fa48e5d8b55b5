//===- NNCLibraryOps.cpp - kernels a library runs -------------------------===//
//
// library_conv: which operand plays which part of the convolution, the
// verifier (shapes consistent in the convolution's terms, one form of
// operands throughout) and the memory effects of its buffer form; the
// all-reduce and its library form.
//
//===----------------------------------------------------------------------===//

#include "nnc/NNCOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace nnc;

#define GET_OP_CLASSES
#include "nnc/NNCLibraryOps.cpp.inc"

void NNCDialect::registerLibraryOps() {
  addOperations<
#define GET_OP_LIST
#include "nnc/NNCLibraryOps.cpp.inc"
      >();
}

Value LibraryConvOp::getSrc() {
  StringRef d = getDirection();
  if (d == "backward_data")
    return getInit();
  return getInputs()[0];
}

Value LibraryConvOp::getWeights() {
  if (getDirection() == "backward_weights")
    return getInit();
  return getInputs()[1];
}

Value LibraryConvOp::getDst() {
  StringRef d = getDirection();
  if (d == "forward")
    return getInit();
  return d == "backward_data" ? getInputs()[0] : getInputs()[1];
}

Value LibraryConvOp::getBias() {
  return getInputs().size() == 3 ? getInputs()[2] : Value();
}

SmallVector<int64_t> LibraryConvOp::getChannelsFirstShape(Value image) {
  SmallVector<int64_t> shape(cast<ShapedType>(image.getType()).getShape());
  if (getChannelsLast() && shape.size() >= 3) {
    int64_t channels = shape.back();
    shape.pop_back();
    shape.insert(shape.begin() + 1, channels);
  }
  return shape;
}

/// Whether a library convolution takes elements of `type`.
static bool isLibraryElement(Type type) {
  return type.isF32() || type.isBF16() || type.isF16();
}

LogicalResult LibraryConvOp::verify() {
  StringRef d = getDirection();
  bool weightsGrad = d == "backward_weights";
  if (d != "forward" && d != "backward_data" && !weightsGrad)
    return emitOpError("direction must be \"forward\", \"backward_data\" or "
                       "\"backward_weights\", not \"")
           << d << "\"";
  size_t numInputs = getInputs().size();
  if (numInputs < 2 || numInputs > (weightsGrad ? 2u : 3u))
    return emitOpError("takes ")
           << (weightsGrad ? "2" : "2 or 3") << " inputs for direction \"" << d
           << "\", not " << numInputs;
  bool tensors = isa<RankedTensorType>(getInit().getType());
  SmallVector<Value> operands(getInputs());
  operands.push_back(getInit());
  for (Value v : operands) {
    auto shaped = dyn_cast<ShapedType>(v.getType());
    bool isTensor = isa<RankedTensorType>(v.getType());
    bool isMemref = isa<MemRefType>(v.getType());
    if (!shaped || (!isTensor && !isMemref) || isTensor != tensors)
      return emitOpError("operands must be all ranked tensors or all memrefs");
    if (!shaped.hasStaticShape() ||
        !isLibraryElement(shaped.getElementType()))
      return emitOpError("operands must have static shapes and f32, bf16 or "
                         "f16 elements, not ")
             << v.getType();
  }
  if (tensors) {
    if (getNumResults() != 1 || getResult()[0].getType() != getInit().getType())
      return emitOpError("on tensors returns one result of the type of init");
  } else if (getNumResults() != 0) {
    return emitOpError("on buffers returns nothing");
  }
  auto srcType = cast<ShapedType>(getSrc().getType());
  auto weights = cast<ShapedType>(getWeights().getType());
  auto dstType = cast<ShapedType>(getDst().getType());
  int64_t rank = srcType.getRank();
  if (rank < 3 || rank > 5 || weights.getRank() != rank ||
      dstType.getRank() != rank)
    return emitOpError("src, weights and dst must have the same rank, 3 to 5 "
                       "(1 to 3 spatial dimensions)");
  if (getChannelsLast() && d != "forward")
    return emitOpError("channels_last is for direction \"forward\" only");
  // The images' sizes in the convolution's terms, [N, C, D...].
  SmallVector<int64_t> src = getChannelsFirstShape(getSrc());
  SmallVector<int64_t> dst = getChannelsFirstShape(getDst());
  int64_t spatial = rank - 2;
  if (static_cast<int64_t>(getStrides().size()) != spatial ||
      static_cast<int64_t>(getDilations().size()) != spatial ||
      static_cast<int64_t>(getPads().size()) != 2 * spatial)
    return emitOpError("needs ") << spatial << " strides and dilations and "
                                 << 2 * spatial << " pads";
  int64_t groups = getGroups();
  int64_t n = src[0], c = src[1], m = dst[1];
  if (groups < 1 || c % groups || m % groups)
    return emitOpError("groups ")
           << groups << " must divide the channels " << c << " and " << m;
  if (dst[0] != n || weights.getDimSize(0) != m ||
      weights.getDimSize(1) != c / groups)
    return emitOpError("src ")
           << srcType << ", weights " << weights << " and dst " << dstType
           << " are not one convolution's"
           << (getChannelsLast() ? " (channels last)" : "");
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t stride = getStrides()[i], dilation = getDilations()[i];
    int64_t begin = getPads()[i], end = getPads()[spatial + i];
    if (stride < 1 || dilation < 1 || begin < 0 || end < 0)
      return emitOpError("strides and dilations must be positive and pads "
                         "non-negative");
    int64_t extent = dilation * (weights.getDimSize(2 + i) - 1) + 1;
    int64_t span = src[2 + i] + begin + end - extent;
    if (span < 0 || span / stride + 1 != dst[2 + i])
      return emitOpError("spatial dimension ")
             << i << " of dst is " << dst[2 + i]
             << ", not what src, weights, strides, dilations and pads give";
  }
  if (Value bias = getBias()) {
    auto type = cast<ShapedType>(bias.getType());
    int64_t channels = d == "forward" ? m : c;
    if (type.getRank() != 1 || type.getDimSize(0) != channels)
      return emitOpError("bias must be [") << channels << "], not " << type;
  }
  if (getWinograd()) {
    bool unit = llvm::all_of(getStrides(), [](int64_t s) { return s == 1; }) &&
                llvm::all_of(getDilations(), [](int64_t s) { return s == 1; });
    bool f32 = llvm::all_of(operands, [](Value v) {
      return cast<ShapedType>(v.getType()).getElementType().isF32();
    });
    if (spatial != 2 || weights.getDimSize(2) != 3 ||
        weights.getDimSize(3) != 3 || !unit || groups != 1 || !f32)
      return emitOpError("winograd needs a 2-D 3x3 convolution with strides "
                         "and dilations 1, one group and f32 operands");
  }
  return success();
}

void LibraryConvOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (!isa<MemRefType>(getInit().getType()))
    return;
  for (OpOperand &input : getInputsMutable())
    effects.emplace_back(MemoryEffects::Read::get(), &input,
                         SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), &getInitMutable(),
                       SideEffects::DefaultResource::get());
}

std::optional<std::string>
nnc::whyNotWinograd(const LibraryConvolution &conv) {
  auto ones = [](ArrayRef<int64_t> v) {
    return llvm::all_of(v, [](int64_t x) { return x == 1; });
  };
  auto f32 = [](Type t) { return t && t.isF32(); };
  if (conv.weights.size() != 4 || conv.weights[2] != 3 ||
      conv.weights[3] != 3 || !ones(conv.strides) || !ones(conv.dilations) ||
      conv.groups != 1 || !f32(conv.srcElement) ||
      !f32(conv.weightsElement) || !f32(conv.dstElement))
    return std::string("Winograd's algorithm takes 2-D 3x3 convolutions "
                       "with strides and dilations 1, one group and f32 "
                       "operands");
  return std::nullopt;
}

namespace {

/// The shape of `type` when it is a static f32, bf16 or f16 ranked tensor
/// of rank 3 to 5.
std::optional<SmallVector<int64_t>> convShape(Type type, std::string &why) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape()) {
    why = "its shapes are not static";
    return std::nullopt;
  }
  if (!isLibraryElement(tensor.getElementType())) {
    why = "its element type is not f32, bf16 or f16";
    return std::nullopt;
  }
  if (tensor.getRank() < 3 || tensor.getRank() > 5) {
    why = "it has more than 3 spatial dimensions";
    return std::nullopt;
  }
  return SmallVector<int64_t>(tensor.getShape());
}

/// The window attributes of a convolution with `spatial` dimensions, the
/// defaults filled in.
void fillWindow(LibraryConvolution &conv, int64_t spatial,
                std::optional<ArrayRef<int64_t>> strides,
                std::optional<ArrayRef<int64_t>> dilations,
                std::optional<ArrayRef<int64_t>> pads) {
  conv.strides = strides ? SmallVector<int64_t>(*strides)
                         : SmallVector<int64_t>(spatial, 1);
  conv.dilations = dilations ? SmallVector<int64_t>(*dilations)
                             : SmallVector<int64_t>(spatial, 1);
  conv.pads =
      pads ? SmallVector<int64_t>(*pads) : SmallVector<int64_t>(2 * spatial, 0);
}

} // namespace

std::optional<LibraryConvolution> nnc::getLibraryConvolution(Operation *op,
                                                             std::string &why) {
  LibraryConvolution conv;
  std::optional<SmallVector<int64_t>> a, b, r;
  auto biasElement = [&](Value bias) {
    if (!bias ||
        isLibraryElement(cast<ShapedType>(bias.getType()).getElementType()))
      return true;
    why = "its bias's element type is not f32, bf16 or f16";
    return false;
  };
  auto element = [](Value v) { return getElementTypeOrSelf(v.getType()); };
  auto setElements = [&](Value src, Value weights, Value dst, Value bias) {
    conv.srcElement = element(src);
    conv.weightsElement = element(weights);
    conv.dstElement = element(dst);
    conv.biasElement =
        bias ? element(bias) : Float32Type::get(op->getContext());
  };
  auto shapes = [&](Value x, Value y, Value result) {
    a = convShape(x.getType(), why);
    b = a ? convShape(y.getType(), why) : std::nullopt;
    r = b ? convShape(result.getType(), why) : std::nullopt;
    return r.has_value();
  };
  if (auto c = dyn_cast<ConvOp>(op)) {
    if (!shapes(c.getInput(), c.getWeight(), c.getResult()))
      return std::nullopt;
    if (!biasElement(c.getBias()))
      return std::nullopt;
    conv.direction = "forward";
    conv.src = *a, conv.weights = *b, conv.dst = *r;
    setElements(c.getInput(), c.getWeight(), c.getResult(), c.getBias());
    conv.groups = c.getGroups();
    conv.bias = static_cast<bool>(c.getBias());
    fillWindow(conv, a->size() - 2, c.getStrides(), c.getDilations(),
               c.getPads());
    return conv;
  }
  if (auto t = dyn_cast<ConvTransposeOp>(op)) {
    if (!shapes(t.getInput(), t.getWeight(), t.getResult()))
      return std::nullopt;
    if (!biasElement(t.getBias()))
      return std::nullopt;
    // The input gradient of the convolution from the result's shape to the
    // input's: src is the result, dst the input. Which src positions each
    // dst position reads depends on the begin pad alone; the end pad only
    // has to give the convolution D outputs: any e with
    // 0 <= output_padding - pad_end + e < stride does, the least
    // non-negative one is taken.
    conv.direction = "backward_data";
    conv.src = *r, conv.weights = *b, conv.dst = *a;
    setElements(t.getResult(), t.getWeight(), t.getInput(), t.getBias());
    conv.groups = t.getGroups();
    conv.bias = static_cast<bool>(t.getBias());
    int64_t spatial = a->size() - 2;
    fillWindow(conv, spatial, t.getStrides(), t.getDilations(), t.getPads());
    std::optional<ArrayRef<int64_t>> outputPadding = t.getOutputPadding();
    for (int64_t i = 0; outputPadding && i < spatial; ++i) {
      int64_t excess = (*outputPadding)[i] - conv.pads[spatial + i];
      if (excess >= conv.strides[i]) {
        why = "its output_padding exceeds its end pad by a stride or more";
        return std::nullopt;
      }
      conv.pads[spatial + i] = std::max<int64_t>(0, -excess);
    }
    return conv;
  }
  if (auto g = dyn_cast<ConvWeightGradOp>(op)) {
    if (!shapes(g.getInput(), g.getGrad(), g.getResult()))
      return std::nullopt;
    conv.direction = "backward_weights";
    conv.src = *a, conv.dst = *b, conv.weights = *r;
    setElements(g.getInput(), g.getResult(), g.getGrad(), Value());
    conv.groups = g.getGroups();
    fillWindow(conv, a->size() - 2, g.getStrides(), g.getDilations(),
               g.getPads());
    return conv;
  }
  why = "it is not a convolution";
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

LogicalResult AllReduceOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, AllReduceOp::Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  inferred.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult LibraryAllReduceOp::verify() {
  Type input = getInput().getType(), init = getInit().getType();
  bool tensors = isa<RankedTensorType>(init);
  if (tensors != isa<RankedTensorType>(input) ||
      (!tensors && (!isa<MemRefType>(init) || !isa<MemRefType>(input))))
    return emitOpError("takes two tensors or two buffers");
  auto in = cast<ShapedType>(input), out = cast<ShapedType>(init);
  if (!in.hasStaticShape() || in.getShape() != out.getShape() ||
      in.getElementType() != out.getElementType())
    return emitOpError("input ")
           << input << " and init " << init
           << " must have the same static shape and element type";
  if (!isa<FloatType>(in.getElementType()))
    return emitOpError("reduces floats, not ") << in.getElementType();
  if (tensors ? getResult().size() != 1 || getResult()[0].getType() != init
              : !getResult().empty())
    return emitOpError(tensors ? "returns init's type on tensors"
                               : "returns nothing on buffers");
  return success();
}

void LibraryAllReduceOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (!isa<MemRefType>(getInit().getType()))
    return;
  effects.emplace_back(MemoryEffects::Read::get(), &getInputMutable(),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), &getInitMutable(),
                       SideEffects::DefaultResource::get());
}
