//===- DnnlConvolutions.cpp - convolutions that oneDNN runs ---------------===//
//
// Implements --nnc-cpu-choose-kernels (the CPU's cost model for the kernel
// choice of convolutions: oneDNN wherever it can take one) and
// --nnc-library-conv-to-dnnl (nnc.library_conv on buffers to calls into
// the runtime's oneDNN glue, with a constant descriptor each).
//
//===----------------------------------------------------------------------===//

#include "nnc/Target/CPU/Passes.h"

#include "DnnlConvolutions.h"
#include "LibraryCalls.h"

#include "nnc/NNCDialect.h"
#include "nnc/NNCOps.h"
#include "nnc/runtime/Device.h"
#include "nnc/runtime/LibraryConvolution.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"

#include <array>

namespace nnc::cpu {
#define GEN_PASS_DEF_CHOOSEKERNELSPASS
#define GEN_PASS_DEF_LIBRARYCONVTODNNLPASS
#include "nnc/Target/CPU/Passes.h.inc"
} // namespace nnc::cpu

using namespace mlir;
namespace libconv = nnc::runtime::libconv;

using Descriptor = std::array<int64_t, libconv::kLength>;

/// A type slot's value for `type` (f32, bf16 or f16).
static int64_t elementSlot(Type type) {
  libconv::ElementType element = type && type.isBF16()
                                     ? libconv::ElementType::BF16
                                 : type && type.isF16()
                                     ? libconv::ElementType::F16
                                     : libconv::ElementType::F32;
  return static_cast<int64_t>(element);
}

Descriptor nnc::cpu::dnnlDescriptor(const LibraryConvolution &conv) {
  Descriptor d{};
  d[libconv::kVersion] = libconv::kFormat;
  libconv::Direction direction =
      conv.direction == "forward"         ? libconv::Direction::Forward
      : conv.direction == "backward_data" ? libconv::Direction::BackwardData
                                          : libconv::Direction::BackwardWeights;
  d[libconv::kDirection] = static_cast<int64_t>(direction);
  int64_t spatial = static_cast<int64_t>(conv.src.size()) - 2;
  d[libconv::kSpatial] = spatial;
  d[libconv::kGroups] = conv.groups;
  d[libconv::kHasBias] = conv.bias;
  d[libconv::kBatch] = conv.src[0];
  d[libconv::kInChannels] = conv.src[1];
  d[libconv::kOutChannels] = conv.dst[1];
  for (int64_t i = 0; i < libconv::kMaxSpatial; ++i) {
    bool used = i < spatial;
    d[libconv::kSrcSizes + i] = used ? conv.src[2 + i] : 0;
    d[libconv::kDstSizes + i] = used ? conv.dst[2 + i] : 0;
    d[libconv::kKernelSizes + i] = used ? conv.weights[2 + i] : 0;
    d[libconv::kStrides + i] = used ? conv.strides[i] : 1;
    d[libconv::kDilations + i] = used ? conv.dilations[i] : 1;
    d[libconv::kPadsBegin + i] = used ? conv.pads[i] : 0;
    d[libconv::kPadsEnd + i] = used ? conv.pads[spatial + i] : 0;
  }
  d[libconv::kSrcType] = elementSlot(conv.srcElement);
  d[libconv::kWeightsType] = elementSlot(conv.weightsElement);
  d[libconv::kDstType] = elementSlot(conv.dstElement);
  d[libconv::kBiasType] = elementSlot(conv.biasElement);
  d[libconv::kActivationLayout] = static_cast<int64_t>(
      conv.channelsLast ? libconv::ActivationLayout::ChannelsLast
                        : libconv::ActivationLayout::ChannelsFirst);
  d[libconv::kAlgorithm] = static_cast<int64_t>(
      conv.winograd ? libconv::Algorithm::Winograd : libconv::Algorithm::Direct);
  d[libconv::kConstantWeights] = conv.constantWeights ? 1 : 0;
  return d;
}

bool nnc::cpu::dnnlCanRun(const LibraryConvolution &conv, std::string &why) {
  const runtime::DnnlGlue &glue = runtime::dnnlGlue();
  if (!glue.status.isOk()) {
    why = glue.status.message();
    return false;
  }
  Descriptor d = dnnlDescriptor(conv);
  char error[512] = {0};
  if (glue.check(d.data(), error, sizeof error) == 0)
    return true;
  why = error;
  return false;
}

/// Whether the glue's GEMM check `check` (of `type`'s GEMMs) passes; in
/// `text` oneDNN's implementation when it does, else why not.
static bool dnnlRunsGemms(nnc::runtime::libconv::SbgemmCheckFn check,
                          const char *type, std::string *text) {
  const nnc::runtime::DnnlGlue &glue = nnc::runtime::dnnlGlue();
  std::string answer;
  bool runs = false;
  if (!glue.status.isOk()) {
    answer = glue.status.message();
  } else if (!check) {
    answer = "the oneDNN glue " + glue.path + " has no " + type + " GEMM";
  } else {
    char buffer[512] = {0};
    runs = check(buffer, sizeof buffer) == 0;
    answer = buffer;
  }
  if (text)
    *text = answer;
  return runs;
}

bool nnc::cpu::dnnlRunsBF16Gemms(std::string *text) {
  return dnnlRunsGemms(runtime::dnnlGlue().sbgemmCheck, "bf16", text);
}

bool nnc::cpu::dnnlRunsF32Gemms(std::string *text) {
  return dnnlRunsGemms(runtime::dnnlGlue().sgemmCheck, "f32", text);
}

std::string nnc::cpu::dnnlF32GemmKernel() {
  std::string kernel;
  return dnnlRunsF32Gemms(&kernel) ? kernel : std::string();
}

std::string nnc::cpu::defaultF32GemmLibrary() {
  static const std::string library =
      StringRef(dnnlF32GemmKernel()).starts_with("brg:") ? "dnnl" : "blas";
  return library;
}

nnc::KernelCandidates nnc::cpu::matrixProductCandidates(Operation *op) {
  nnc::KernelCandidates candidates;
  if (!isa<nnc::MatMulOp, nnc::GemmOp>(op))
    return candidates;
  // The default (no nnc.impl) is --nnc-gemm-to-blas's rule: the default
  // library above its size threshold, loops below.
  if (!dnnlF32GemmKernel().empty())
    candidates.choices.push_back("dnnl");
  candidates.choices.push_back("blas");
  candidates.choices.push_back("loops");
  return candidates;
}

std::string nnc::cpu::dnnlDescription() {
  const runtime::DnnlGlue &glue = runtime::dnnlGlue();
  if (!glue.status.isOk())
    return "no oneDNN";
  return glue.version();
}

bool nnc::cpu::dnnlTakes(Operation *op) {
  if (!isa<nnc::ConvOp, nnc::ConvTransposeOp, nnc::ConvWeightGradOp>(op))
    return false;
  std::string why;
  std::optional<nnc::LibraryConvolution> conv =
      nnc::getLibraryConvolution(op, why);
  return conv && nnc::cpu::dnnlCanRun(*conv, why);
}

bool nnc::cpu::dnnlTakesWinograd(Operation *op) {
  if (!isa<nnc::ConvOp, nnc::ConvTransposeOp, nnc::ConvWeightGradOp>(op))
    return false;
  std::string why;
  std::optional<nnc::LibraryConvolution> conv =
      nnc::getLibraryConvolution(op, why);
  if (!conv || nnc::whyNotWinograd(*conv))
    return false;
  conv->winograd = true;
  return nnc::cpu::dnnlCanRun(*conv, why);
}

bool nnc::cpu::winogradPays(Operation *op) {
  std::string why;
  std::optional<nnc::LibraryConvolution> conv =
      nnc::getLibraryConvolution(op, why);
  if (!conv)
    return false;
  int64_t positions = conv->dst[0];
  for (size_t i = 2; i < conv->dst.size(); ++i)
    positions *= conv->dst[i];
  return positions >= kWinogradPositions &&
         std::min(conv->src[1], conv->dst[1]) >= kWinogradChannels &&
         dnnlTakesWinograd(op);
}

nnc::KernelCandidates
nnc::cpu::convolutionCandidates(Operation *op, bool libraryConvolutions) {
  nnc::KernelCandidates candidates;
  if (!isa<nnc::ConvOp, nnc::ConvTransposeOp, nnc::ConvWeightGradOp>(op))
    return candidates;
  // The cost model's pick (ChooseKernelsPass) is oneDNN wherever it builds
  // a primitive; elsewhere the conversion's size rules decide.
  if (libraryConvolutions && dnnlTakes(op)) {
    candidates.choices.push_back("library");
    candidates.defaultChoice = "library";
    if (dnnlTakesWinograd(op)) {
      candidates.choices.push_back("library_winograd");
      if (winogradPays(op))
        candidates.defaultChoice = "library_winograd";
    }
  }
  for (const char *generated : {"per_image", "gemm", "loops"})
    candidates.choices.push_back(generated);
  return candidates;
}

bool nnc::cpu::dnnlPrefersChannelsLast(const LibraryConvolution &conv) {
  const runtime::DnnlGlue &glue = runtime::dnnlGlue();
  if (!glue.status.isOk() || !glue.prefersChannelsLast ||
      conv.direction != "forward" || conv.winograd)
    return false;
  LibraryConvolution first = conv;
  first.channelsLast = false;
  Descriptor d = dnnlDescriptor(first);
  return glue.prefersChannelsLast(d.data()) != 0;
}

nnc::LibraryConvolution nnc::cpu::describeLibraryConv(nnc::LibraryConvOp op) {
  nnc::LibraryConvolution conv;
  conv.direction = op.getDirection();
  auto shape = [](Value v) {
    return SmallVector<int64_t>(cast<ShapedType>(v.getType()).getShape());
  };
  conv.src = op.getChannelsFirstShape(op.getSrc());
  conv.weights = shape(op.getWeights());
  conv.dst = op.getChannelsFirstShape(op.getDst());
  conv.channelsLast = op.getChannelsLast();
  conv.winograd = op.getWinograd();
  conv.strides.assign(op.getStrides().begin(), op.getStrides().end());
  conv.dilations.assign(op.getDilations().begin(), op.getDilations().end());
  conv.pads.assign(op.getPads().begin(), op.getPads().end());
  conv.groups = op.getGroups();
  conv.bias = static_cast<bool>(op.getBias());
  auto element = [](Value v) { return getElementTypeOrSelf(v.getType()); };
  conv.srcElement = element(op.getSrc());
  conv.weightsElement = element(op.getWeights());
  conv.dstElement = element(op.getDst());
  conv.biasElement = conv.bias ? element(op.getBias())
                               : Float32Type::get(op.getContext());
  return conv;
}

namespace {

/// Whether `memref` is an argument of its function that the compiler moved
/// into the executable's weights (nnc.weight), or a dense view of one that
/// reaches the glue at the argument's address (a cast or reshape): bytes
/// that stay the same at that address for the life of a loaded program.
bool isExecutableWeight(Value memref) {
  while (Operation *def = memref.getDefiningOp()) {
    if (!isa<memref::CastOp, memref::CollapseShapeOp, memref::ExpandShapeOp>(
            def))
      return false;
    memref = def->getOperand(0);
  }
  auto arg = dyn_cast<BlockArgument>(memref);
  auto type = arg ? dyn_cast<MemRefType>(arg.getType()) : MemRefType();
  if (!type || !type.getLayout().isIdentity() ||
      !arg.getOwner()->isEntryBlock())
    return false;
  auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  return func && func.getArgAttr(arg.getArgNumber(),
                                 nnc::NNCDialect::getWeightAttrName());
}

struct ChooseKernelsPass
    : public nnc::cpu::impl::ChooseKernelsPassBase<ChooseKernelsPass> {
  void runOnOperation() override {
    StringRef name = nnc::NNCDialect::getKernelChoiceAttrName();
    getOperation().walk([&](Operation *op) {
      if (op->hasAttr(name) || !nnc::cpu::dnnlTakes(op))
        return;
      op->setAttr(name,
                  StringAttr::get(op->getContext(),
                                  nnc::cpu::winogradPays(op) ? "library_winograd"
                                                             : "library"));
    });
  }
};

struct LibraryConvToDnnlPass
    : public nnc::cpu::impl::LibraryConvToDnnlPassBase<LibraryConvToDnnlPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<nnc::LibraryConvOp> convs;
    module.walk([&](nnc::LibraryConvOp op) { convs.push_back(op); });
    if (convs.empty())
      return;
    MLIRContext *ctx = &getContext();
    SymbolTable symbols(module);
    Type ptr = LLVM::LLVMPointerType::get(ctx);
    func::FuncOp callee =
        module.lookupSymbol<func::FuncOp>(libconv::kConvolutionSymbol);
    if (!callee) {
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      callee = func::FuncOp::create(
          b, module.getLoc(), libconv::kConvolutionSymbol,
          FunctionType::get(ctx, SmallVector<Type>(5, ptr), {}));
      callee.setPrivate();
    }
    for (nnc::LibraryConvOp op : convs) {
      if (!op.hasPureBufferSemantics()) {
        op.emitOpError("must be bufferized before --nnc-library-conv-to-dnnl");
        return signalPassFailure();
      }
      nnc::LibraryConvolution conv = nnc::cpu::describeLibraryConv(op);
      conv.constantWeights = conv.direction == "forward" &&
                             nnc::runtime::dnnlGlue().forgetConstants &&
                             isExecutableWeight(op.getInputs()[1]);
      std::string why;
      if (!nnc::cpu::dnnlCanRun(conv, why)) {
        op.emitOpError("cannot run in oneDNN: ") << why;
        return signalPassFailure();
      }
      Descriptor d = nnc::cpu::dnnlDescriptor(conv);
      OpBuilder b(op);
      Location loc = op.getLoc();

      // The descriptor: one private constant per distinct convolution.
      auto descType = MemRefType::get({libconv::kLength}, b.getI64Type());
      std::string globalName = "__nnc_dnnl_conv";
      memref::GlobalOp global;
      for (auto existing : module.getOps<memref::GlobalOp>()) {
        auto value = dyn_cast_or_null<DenseIntElementsAttr>(
            existing.getInitialValueAttr());
        if (existing.getSymName().starts_with(globalName) && value &&
            llvm::equal(value.getValues<int64_t>(), d)) {
          global = existing;
          break;
        }
      }
      if (!global) {
        OpBuilder gb = OpBuilder::atBlockBegin(module.getBody());
        auto tensorType =
            RankedTensorType::get({libconv::kLength}, b.getI64Type());
        global = memref::GlobalOp::create(
            gb, loc, globalName, gb.getStringAttr("private"), descType,
            DenseIntElementsAttr::get(tensorType, ArrayRef<int64_t>(d)),
            /*constant=*/true, /*alignment=*/IntegerAttr());
        symbols.insert(global);
      }
      Value desc =
          memref::GetGlobalOp::create(b, loc, descType, global.getSymName());

      auto address = [&](Value memref) {
        return nnc::cpu::bufferAddress(b, loc, memref);
      };
      auto dense = [&](Value value, bool copyIn) {
        return nnc::cpu::denseBuffer(b, loc, value, copyIn);
      };
      SmallVector<Value> args = {address(desc)};
      for (Value input : op.getInputs())
        args.push_back(address(dense(input, /*copyIn=*/true)));
      if (!op.getBias())
        args.push_back(LLVM::ZeroOp::create(b, loc, ptr));
      Value out = dense(op.getInit(), /*copyIn=*/false);
      args.push_back(address(out));
      auto call = func::CallOp::create(b, loc, callee, args);
      // What the kernel reads and writes, for the step's figures.
      int64_t read = 0;
      for (Value input : op.getInputs()) {
        auto type = cast<MemRefType>(input.getType());
        read += type.getNumElements() * type.getElementTypeBitWidth() / 8;
      }
      auto outType = cast<MemRefType>(op.getInit().getType());
      int64_t written =
          outType.getNumElements() * outType.getElementTypeBitWidth() / 8;
      call->setAttr("nnc.library_bytes",
                    b.getDenseI64ArrayAttr({read, written}));
      if (out != op.getInit())
        linalg::CopyOp::create(b, loc, out, op.getInit());
      op.erase();
    }
  }
};

} // namespace
