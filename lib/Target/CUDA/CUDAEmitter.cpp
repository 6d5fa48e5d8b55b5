//===- CUDAEmitter.cpp - kernels as CUDA C++ ------------------------------===//
//
// Emits loop kernels (scf, memref, arith, math on static views) as CUDA
// C++. Every function is a nnc kernel; each of its top-level loop nests
// becomes one __global__ function, launched in order: a parallel loop as a
// grid-stride loop over its flattened iteration space (one iteration per
// thread), anything else (a sequential loop, a lone store) on one thread.
// The ops before a nest that compute no effects (constants, views, index
// arithmetic) are emitted again in every __global__ that follows them.
//
//===----------------------------------------------------------------------===//

#include "nnc/Target/CUDA/CUDAEmitter.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <limits>

using namespace mlir;

void nnc::cuda::buildLoopPipeline(OpPassManager &pm) {
  pm.addPass(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(math::createMathExtendToSupportedTypes());
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"f16", "bf16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

namespace {

/// The C++ type of a scalar.
FailureOr<std::string> scalarType(Type type) {
  if (type.isF32())
    return std::string("float");
  if (type.isF64())
    return std::string("double");
  if (type.isF16())
    return std::string("__half");
  if (type.isBF16())
    return std::string("__nv_bfloat16");
  if (type.isIndex())
    return std::string("long long");
  if (auto integer = dyn_cast<IntegerType>(type)) {
    switch (integer.getWidth()) {
    case 1:
      return std::string("bool");
    case 8:
      return std::string("signed char");
    case 16:
      return std::string("short");
    case 32:
      return std::string("int");
    case 64:
      return std::string("long long");
    default:
      break;
    }
  }
  return failure();
}

/// The unsigned type of the same width (for unsigned integer ops).
std::string unsignedType(Type type) {
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  switch (width) {
  case 1:
    return "bool";
  case 8:
    return "unsigned char";
  case 16:
    return "unsigned short";
  case 32:
    return "unsigned int";
  default:
    return "unsigned long long";
  }
}

/// The file-scope array holding the bits of constant global `symbol`.
std::string globalName(StringRef symbol) {
  std::string name = "nnc_global_";
  for (char c : symbol)
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

/// Emits the constant globals as arrays of their elements' bits.
LogicalResult emitGlobals(ModuleOp module, llvm::raw_ostream &os) {
  for (auto global : module.getOps<memref::GlobalOp>()) {
    auto value =
        dyn_cast_or_null<DenseElementsAttr>(global.getInitialValueAttr());
    if (!global.getConstant() || !value)
      continue;
    Type element = value.getElementType();
    unsigned width = element.getIntOrFloatBitWidth();
    const char *type = width <= 8    ? "unsigned char"
                       : width <= 16 ? "unsigned short"
                       : width <= 32 ? "unsigned int"
                                     : "unsigned long long";
    if (width > 64 || width == 0)
      return global.emitError("the CUDA emitter cannot hold ") << element;
    int64_t count = global.getType().getNumElements();
    os << "__device__ const " << type << " " << globalName(global.getSymName())
       << "[" << std::max<int64_t>(count, 1) << "] = {";
    auto bits = [&](int64_t i) -> uint64_t {
      if (isa<FloatType>(element))
        return value.getValues<APFloat>()[value.isSplat() ? 0 : i]
            .bitcastToAPInt()
            .getZExtValue();
      return value.getValues<APInt>()[value.isSplat() ? 0 : i]
          .getZExtValue();
    };
    for (int64_t i = 0; i < count; ++i)
      os << (i ? ", " : "") << bits(i) << (width > 32 ? "ULL" : "U");
    os << "};\n";
  }
  os << "\n";
  return success();
}

/// A view's base pointer (where offset 0 of its layout lies) and layout.
struct Buffer {
  std::string base;
  MemRefType type;
  /// The offset in elements: a number, or an expression of loop values
  /// (a subview at a dynamic position).
  std::string offset = "0";
  SmallVector<int64_t> strides;
};

class KernelEmitter {
public:
  KernelEmitter(func::FuncOp func, llvm::raw_ostream &os,
                std::vector<nnc::cuda::Launch> &launches)
      : func_(func), os_(os), launches_(launches) {}

  LogicalResult emit() {
    Block &body = func_.getBody().front();
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    // Each top-level parallel loop is a launch; each run of other work
    // between them (a sequential loop, the scalar code of a 0-d
    // computation) is one single-thread launch, in order.
    SmallVector<SmallVector<Operation *>> launched;
    int index = 0;
    for (size_t i = 0; i < ops.size();) {
      if (isPrelude(ops[i])) {
        ++i;
        continue;
      }
      size_t last = i;
      if (!isa<scf::ParallelOp>(ops[i]))
        for (size_t j = i; j < ops.size() && !isa<scf::ParallelOp>(ops[j]);
             ++j)
          if (!isPrelude(ops[j]))
            last = j;
      SmallVector<Operation *> prelude, work(ops.begin() + i,
                                             ops.begin() + last + 1);
      // The setup before the launch that its work uses, directly or
      // through other setup: what the launch emits again.
      llvm::SmallPtrSet<Operation *, 16> needed;
      SmallVector<Value> uses;
      for (Operation *op : work)
        op->walk([&](Operation *inner) {
          llvm::append_range(uses, inner->getOperands());
        });
      while (!uses.empty()) {
        Operation *def = uses.pop_back_val().getDefiningOp();
        if (def && def->getBlock() == &body && isPrelude(def) &&
            needed.insert(def).second)
          llvm::append_range(uses, def->getOperands());
      }
      for (size_t k = 0; k < i; ++k)
        if (needed.contains(ops[k]))
          prelude.push_back(ops[k]);
      // A load before the launch is read again in it: no launch since may
      // write its buffer.
      for (Operation *p : prelude)
        if (auto load = dyn_cast<memref::LoadOp>(p))
          for (ArrayRef<Operation *> earlier : launched)
            for (Operation *l : earlier)
              if (load->isBeforeInBlock(l) &&
                  writes(l, regionOf(load.getMemRef())))
                return load.emitError("the CUDA emitter reads this again in "
                                      "a later launch of @")
                       << func_.getName()
                       << ", after one that may write its buffer ("
                       << l->getName() << ")";
      // Nor may a parallel launch write it: its threads read it at their
      // start, in any order with the others' writes.
      if (isa<scf::ParallelOp>(work.front()))
        for (Operation *p : prelude)
          if (auto load = dyn_cast<memref::LoadOp>(p))
            if (writes(work.front(), regionOf(load.getMemRef())))
              return load.emitError("the CUDA emitter reads this in every "
                                    "thread of a launch of @")
                     << func_.getName() << " that writes its buffer";
      if (failed(emitLaunch(work, prelude, index++)))
        return failure();
      launched.push_back(work);
      i = last + 1;
    }
    return success();
  }

private:
  /// Ops that set up a nest, emitted in each launch: those without effects,
  /// and scalar loads.
  static bool isPrelude(Operation *op) {
    return op->getNumRegions() == 0 &&
           (isMemoryEffectFree(op) ||
            isa<memref::LoadOp, memref::GetGlobalOp, ViewLikeOpInterface>(op));
  }

  /// The bytes of a buffer a view may reach: the buffer (a kernel
  /// argument or global) and a byte range of it, narrowed by views of the
  /// arena at constant offsets.
  struct Region {
    Value root;
    int64_t begin = 0, end = std::numeric_limits<int64_t>::max();
  };

  static Region regionOf(Value memref) {
    if (auto view = memref.getDefiningOp<memref::ViewOp>()) {
      Region region = regionOf(view.getSource());
      std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
      MemRefType type = view.getType();
      if (shift && type.hasStaticShape() && region.begin == 0) {
        region.begin = *shift;
        region.end = *shift + type.getNumElements() *
                                  std::max<int64_t>(
                                      1, type.getElementTypeBitWidth() / 8);
      }
      return region;
    }
    if (Operation *def = memref.getDefiningOp())
      if (def->getNumOperands() && isa<MemRefType>(def->getOperand(0).getType()))
        return regionOf(def->getOperand(0));
    return Region{memref};
  }

  static bool overlap(const Region &a, const Region &b) {
    return a.root == b.root && a.begin < b.end && b.begin < a.end;
  }

  /// Whether `op` (a launch) may write the bytes of `region`.
  static bool writes(Operation *op, const Region &region) {
    bool found = false;
    op->walk([&](Operation *inner) {
      Value target;
      if (auto store = dyn_cast<memref::StoreOp>(inner))
        target = store.getMemRef();
      else if (auto rmw = dyn_cast<memref::AtomicRMWOp>(inner))
        target = rmw.getMemref();
      if (target && overlap(regionOf(target), region))
        found = true;
      // Anything else that takes the buffer may write it.
      if (!target && !isa<memref::LoadOp>(inner) &&
          !isa<ViewLikeOpInterface>(inner))
        for (Value operand : inner->getOperands())
          if (isa<MemRefType>(operand.getType()) &&
              overlap(regionOf(operand), region))
            found = true;
    });
    return found;
  }

  LogicalResult emitLaunch(ArrayRef<Operation *> work,
                           ArrayRef<Operation *> prelude, int index) {
    names_.clear();
    buffers_.clear();
    counter_ = 0;
    nnc::cuda::Launch launch;
    launch.kernel = func_.getName().str();
    launch.name = launch.kernel + "_l" + std::to_string(index);
    launch.numArguments = func_.getNumArguments();
    os_ << "extern \"C\" __global__ void __launch_bounds__(" << launch.block
        << ") " << launch.name << "(";
    for (unsigned i = 0; i < func_.getNumArguments(); ++i)
      os_ << (i ? ", " : "") << "char *a" << i;
    os_ << ") {\n";
    indent_ = 1;
    for (auto [i, arg] : llvm::enumerate(func_.getArguments())) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type)
        return func_.emitError("CUDA kernels take buffers only, not ")
               << arg.getType();
      if (failed(bindBuffer(arg, "a" + std::to_string(i), type)))
        return failure();
    }
    for (Operation *p : prelude)
      if (failed(emitOp(p)))
        return failure();
    auto parallel = dyn_cast<scf::ParallelOp>(work.front());
    if (parallel) {
      if (failed(emitGridLoop(parallel, launch.iterations)))
        return failure();
    } else {
      line() << "if (blockIdx.x != 0 || threadIdx.x != 0)\n";
      line() << "  return;\n";
      for (Operation *op : work)
        if (failed(emitOp(op)))
          return failure();
    }
    os_ << "}\n\n";
    launches_.push_back(launch);
    return success();
  }

  /// The top-level parallel loop: thread t of the grid takes iterations
  /// t, t + threads, ... of its flattened space (the last dimension
  /// fastest).
  LogicalResult emitGridLoop(scf::ParallelOp loop, int64_t &total) {
    if (loop.getNumResults())
      return loop.emitError("CUDA kernels take parallel loops without "
                            "reductions");
    SmallVector<int64_t> lower, counts, steps;
    for (auto [lb, ub, step] : llvm::zip(
             loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      std::optional<int64_t> l = getConstantIntValue(lb),
                             u = getConstantIntValue(ub),
                             s = getConstantIntValue(step);
      if (!l || !u || !s || *s <= 0)
        return loop.emitError("a CUDA kernel's parallel loop needs static "
                              "bounds and positive steps");
      lower.push_back(*l);
      steps.push_back(*s);
      counts.push_back(*u > *l ? (*u - *l + *s - 1) / *s : 0);
    }
    total = 1;
    for (int64_t c : counts)
      total *= c;
    line() << "for (long long t = (long long)blockIdx.x * blockDim.x + "
              "threadIdx.x; t < "
           << total << "LL; t += (long long)gridDim.x * blockDim.x) {\n";
    ++indent_;
    line() << "long long r = t;\n";
    for (size_t d = counts.size(); d-- > 0;) {
      std::string iv = fresh();
      names_[loop.getInductionVars()[d]] = iv;
      line() << "const long long " << iv << " = " << lower[d] << "LL + (r % "
             << counts[d] << "LL) * " << steps[d] << "LL;\n";
      if (d)
        line() << "r /= " << counts[d] << "LL;\n";
    }
    if (failed(emitBlock(loop.getBody())))
      return failure();
    --indent_;
    line() << "}\n";
    return success();
  }

  LogicalResult emitBlock(Block *block) {
    for (Operation &op : block->without_terminator())
      if (failed(emitOp(&op)))
        return failure();
    return success();
  }

  llvm::raw_ostream &line() {
    for (int i = 0; i < indent_; ++i)
      os_ << "  ";
    return os_;
  }

  std::string fresh() { return "v" + std::to_string(counter_++); }

  FailureOr<std::string> name(Value value) {
    auto it = names_.find(value);
    if (it == names_.end()) {
      if (Operation *def = value.getDefiningOp())
        return def->emitError("the CUDA emitter has no value for this");
      return func_.emitError("the CUDA emitter has no value for an argument");
    }
    return it->second;
  }

  LogicalResult bindBuffer(Value value, const std::string &bytes,
                           MemRefType type) {
    FailureOr<std::string> element = scalarType(type.getElementType());
    if (failed(element))
      return func_.emitError("CUDA kernels cannot hold ")
             << type.getElementType();
    Buffer buffer;
    buffer.type = type;
    int64_t offset = 0;
    if (failed(type.getStridesAndOffset(buffer.strides, offset)) ||
        ShapedType::isDynamic(offset) ||
        llvm::any_of(buffer.strides, ShapedType::isDynamic))
      return func_.emitError("CUDA kernels need static layouts, not ") << type;
    buffer.offset = std::to_string(offset);
    buffer.base = fresh();
    line() << *element << " *" << buffer.base << " = (" << *element << " *)("
           << bytes << ");\n";
    buffers_[value] = buffer;
    return success();
  }

  /// A view of `source` with `type`: the same base (offsets in memref
  /// layouts are from it). Strides must be static; a dynamic offset is
  /// computed: a subview's from its position, the others keep their
  /// source's.
  LogicalResult bindView(Operation *op, Value source, MemRefType type) {
    Value value = op->getResult(0);
    auto it = buffers_.find(source);
    if (it == buffers_.end())
      return emitErrorFor(value, "a view of an unknown buffer");
    const Buffer from = it->second;
    Buffer buffer = from;
    buffer.type = type;
    buffer.strides.clear();
    int64_t offset = 0;
    if (failed(type.getStridesAndOffset(buffer.strides, offset)) ||
        llvm::any_of(buffer.strides, ShapedType::isDynamic))
      return emitErrorFor(value, "CUDA kernels need static strides");
    if (!ShapedType::isDynamic(offset)) {
      buffer.offset = std::to_string(offset);
    } else if (auto subview = dyn_cast<memref::SubViewOp>(op)) {
      std::string expr = "(" + from.offset;
      for (auto [position, stride] :
           llvm::zip(subview.getMixedOffsets(), from.strides)) {
        if (auto attr = dyn_cast<Attribute>(position)) {
          expr += " + " +
                  std::to_string(cast<IntegerAttr>(attr).getInt() * stride) +
                  "LL";
          continue;
        }
        FailureOr<std::string> v = name(cast<Value>(position));
        if (failed(v))
          return failure();
        expr += " + " + *v + " * " + std::to_string(stride) + "LL";
      }
      buffer.offset = expr + ")";
    } else if (isa<memref::ReinterpretCastOp>(op)) {
      return emitErrorFor(value, "CUDA kernels need static offsets in "
                                 "reinterpret casts");
    }
    // Expand, collapse, cast, transpose and reshape keep the offset.
    buffers_[value] = buffer;
    return success();
  }

  LogicalResult emitErrorFor(Value value, const Twine &message) {
    if (Operation *def = value.getDefiningOp())
      return def->emitError(message);
    return func_.emitError(message);
  }

  /// `base[offset + i0 * s0 + ...]` for a load or store.
  FailureOr<std::string> element(Value memref, ValueRange indices) {
    auto it = buffers_.find(memref);
    if (it == buffers_.end())
      return emitErrorFor(memref, "an access to an unknown buffer");
    const Buffer &buffer = it->second;
    std::string text = buffer.base + "[" + buffer.offset;
    for (auto [index, stride] : llvm::zip(indices, buffer.strides)) {
      FailureOr<std::string> i = name(index);
      if (failed(i))
        return failure();
      text += " + " + *i + " * " + std::to_string(stride) + "LL";
    }
    return text + "]";
  }

  /// Declares the result of `op` as `expr`.
  LogicalResult define(Operation *op, const std::string &expr) {
    FailureOr<std::string> type = scalarType(op->getResult(0).getType());
    if (failed(type))
      return op->emitError("CUDA kernels cannot compute ")
             << op->getResult(0).getType();
    std::string v = fresh();
    names_[op->getResult(0)] = v;
    line() << "const " << *type << " " << v << " = " << expr << ";\n";
    return success();
  }

  LogicalResult emitConstant(arith::ConstantOp op) {
    Attribute value = op.getValue();
    Type type = op.getType();
    if (auto f = dyn_cast<FloatAttr>(value)) {
      uint64_t bits = f.getValue().bitcastToAPInt().getZExtValue();
      std::string text;
      llvm::raw_string_ostream os(text);
      if (type.isF32())
        os << "__int_as_float(0x" << llvm::format_hex_no_prefix(bits, 8)
           << ")";
      else if (type.isF64())
        os << "__longlong_as_double(0x"
           << llvm::format_hex_no_prefix(bits, 16) << "LL)";
      else if (type.isF16())
        os << "__ushort_as_half((unsigned short)0x"
           << llvm::format_hex_no_prefix(bits, 4) << ")";
      else if (type.isBF16())
        os << "__ushort_as_bfloat16((unsigned short)0x"
           << llvm::format_hex_no_prefix(bits, 4) << ")";
      else
        return op.emitError("CUDA kernels cannot hold ") << type;
      return define(op, text);
    }
    if (auto i = dyn_cast<IntegerAttr>(value)) {
      if (type.isInteger(1))
        return define(op, i.getValue().isZero() ? "false" : "true");
      FailureOr<std::string> t = scalarType(type);
      if (failed(t))
        return op.emitError("CUDA kernels cannot hold ") << type;
      return define(op, "(" + *t + ")" +
                            std::to_string(i.getValue().getSExtValue()) +
                            "LL");
    }
    return op.emitError("CUDA kernels take scalar constants only");
  }

  /// `a op b` (or `f(a, b)`) on the operands of `op`.
  LogicalResult binary(Operation *op, StringRef infix, bool asUnsigned = false) {
    FailureOr<std::string> a = name(op->getOperand(0)),
                           b = name(op->getOperand(1));
    if (failed(a) || failed(b))
      return failure();
    if (asUnsigned) {
      std::string u = unsignedType(op->getOperand(0).getType());
      return define(op, "(" + u + ")" + *a + " " + infix.str() + " (" + u +
                            ")" + *b);
    }
    return define(op, *a + " " + infix.str() + " " + *b);
  }

  LogicalResult call(Operation *op, StringRef function) {
    std::string args;
    for (Value operand : op->getOperands()) {
      FailureOr<std::string> v = name(operand);
      if (failed(v))
        return failure();
      args += (args.empty() ? "" : ", ") + *v;
    }
    return define(op, function.str() + "(" + args + ")");
  }

  /// A libm-style function: `f` for f32 (expf), the plain name for f64.
  LogicalResult mathCall(Operation *op, StringRef function) {
    Type type = op->getOperand(0).getType();
    if (type.isF32())
      return call(op, (function + "f").str());
    if (type.isF64())
      return call(op, function);
    return op->emitError("CUDA math on ") << type << " (extend it to f32)";
  }

  LogicalResult convert(Operation *op) {
    FailureOr<std::string> v = name(op->getOperand(0));
    FailureOr<std::string> t = scalarType(op->getResult(0).getType());
    if (failed(v) || failed(t))
      return op->emitError("CUDA kernels cannot convert to ")
             << op->getResult(0).getType();
    Type from = op->getOperand(0).getType(), to = op->getResult(0).getType();
    // Half and bfloat go through float.
    auto widen = [&](const std::string &x) -> std::string {
      if (from.isF16())
        return "__half2float(" + x + ")";
      if (from.isBF16())
        return "__bfloat162float(" + x + ")";
      return x;
    };
    std::string value = widen(*v);
    if (to.isF16())
      return define(op, "__float2half_rn((float)" + value + ")");
    if (to.isBF16())
      return define(op, "__float2bfloat16_rn((float)" + value + ")");
    if (isa<arith::UIToFPOp, arith::ExtUIOp, arith::IndexCastUIOp>(op))
      value = "(" + unsignedType(from) + ")" + value;
    if (isa<arith::FPToUIOp>(op))
      return define(op, "(" + *t + ")(" + unsignedType(to) + ")" + value);
    return define(op, "(" + *t + ")" + value);
  }

  LogicalResult cmpf(arith::CmpFOp op) {
    FailureOr<std::string> a = name(op.getLhs()), b = name(op.getRhs());
    if (failed(a) || failed(b))
      return failure();
    std::string x = *a, y = *b, e;
    using P = arith::CmpFPredicate;
    switch (op.getPredicate()) {
    case P::AlwaysFalse:
      e = "false";
      break;
    case P::AlwaysTrue:
      e = "true";
      break;
    case P::OEQ:
      e = x + " == " + y;
      break;
    case P::OGT:
      e = x + " > " + y;
      break;
    case P::OGE:
      e = x + " >= " + y;
      break;
    case P::OLT:
      e = x + " < " + y;
      break;
    case P::OLE:
      e = x + " <= " + y;
      break;
    case P::ONE:
      e = "(" + x + " < " + y + " || " + x + " > " + y + ")";
      break;
    case P::ORD:
      e = "(!isnan(" + x + ") && !isnan(" + y + "))";
      break;
    case P::UEQ:
      e = "!(" + x + " < " + y + " || " + x + " > " + y + ")";
      break;
    case P::UGT:
      e = "!(" + x + " <= " + y + ")";
      break;
    case P::UGE:
      e = "!(" + x + " < " + y + ")";
      break;
    case P::ULT:
      e = "!(" + x + " >= " + y + ")";
      break;
    case P::ULE:
      e = "!(" + x + " > " + y + ")";
      break;
    case P::UNE:
      e = "!(" + x + " == " + y + ")";
      break;
    case P::UNO:
      e = "(isnan(" + x + ") || isnan(" + y + "))";
      break;
    }
    return define(op, e);
  }

  LogicalResult cmpi(arith::CmpIOp op) {
    using P = arith::CmpIPredicate;
    bool isUnsigned = false;
    StringRef infix;
    switch (op.getPredicate()) {
    case P::eq:
      infix = "==";
      break;
    case P::ne:
      infix = "!=";
      break;
    case P::slt:
      infix = "<";
      break;
    case P::sle:
      infix = "<=";
      break;
    case P::sgt:
      infix = ">";
      break;
    case P::sge:
      infix = ">=";
      break;
    case P::ult:
      infix = "<", isUnsigned = true;
      break;
    case P::ule:
      infix = "<=", isUnsigned = true;
      break;
    case P::ugt:
      infix = ">", isUnsigned = true;
      break;
    case P::uge:
      infix = ">=", isUnsigned = true;
      break;
    }
    return binary(op, infix, isUnsigned);
  }

  /// Declares the results of a region op as variables, assigned by its
  /// yields.
  LogicalResult declareResults(Operation *op, SmallVectorImpl<std::string> &vars) {
    for (Value result : op->getResults()) {
      FailureOr<std::string> t = scalarType(result.getType());
      if (failed(t))
        return op->emitError("CUDA kernels cannot carry ") << result.getType();
      std::string v = fresh();
      names_[result] = v;
      vars.push_back(v);
      line() << *t << " " << v << ";\n";
    }
    return success();
  }

  LogicalResult assignYield(Block *block, ArrayRef<std::string> vars) {
    auto yield = cast<scf::YieldOp>(block->getTerminator());
    for (auto [var, value] : llvm::zip(vars, yield.getOperands())) {
      FailureOr<std::string> v = name(value);
      if (failed(v))
        return failure();
      line() << var << " = " << *v << ";\n";
    }
    return success();
  }

  LogicalResult emitFor(scf::ForOp loop) {
    FailureOr<std::string> lb = name(loop.getLowerBound()),
                           ub = name(loop.getUpperBound()),
                           step = name(loop.getStep());
    if (failed(lb) || failed(ub) || failed(step))
      return failure();
    SmallVector<std::string> vars;
    if (failed(declareResults(loop, vars)))
      return failure();
    for (auto [var, init] : llvm::zip(vars, loop.getInitArgs())) {
      FailureOr<std::string> v = name(init);
      if (failed(v))
        return failure();
      line() << var << " = " << *v << ";\n";
    }
    std::string iv = fresh();
    names_[loop.getInductionVar()] = iv;
    FailureOr<std::string> ivType =
        scalarType(loop.getInductionVar().getType());
    if (failed(ivType))
      return loop.emitError("a loop over ") << loop.getInductionVar().getType();
    line() << "for (" << *ivType << " " << iv << " = " << *lb << "; " << iv
           << " < " << *ub << "; " << iv << " += " << *step << ") {\n";
    ++indent_;
    for (auto [var, arg] : llvm::zip(vars, loop.getRegionIterArgs()))
      names_[arg] = var;
    if (failed(emitBlock(loop.getBody())) ||
        failed(assignYield(loop.getBody(), vars)))
      return failure();
    --indent_;
    line() << "}\n";
    return success();
  }

  LogicalResult emitIf(scf::IfOp op) {
    FailureOr<std::string> c = name(op.getCondition());
    if (failed(c))
      return failure();
    SmallVector<std::string> vars;
    if (failed(declareResults(op, vars)))
      return failure();
    line() << "if (" << *c << ") {\n";
    ++indent_;
    if (failed(emitBlock(op.thenBlock())) ||
        failed(assignYield(op.thenBlock(), vars)))
      return failure();
    --indent_;
    if (op.elseBlock()) {
      line() << "} else {\n";
      ++indent_;
      if (failed(emitBlock(op.elseBlock())) ||
          failed(assignYield(op.elseBlock(), vars)))
        return failure();
      --indent_;
    }
    line() << "}\n";
    return success();
  }

  /// A parallel loop inside a thread: nested sequential loops.
  LogicalResult emitNestedParallel(scf::ParallelOp loop) {
    if (loop.getNumResults())
      return loop.emitError("CUDA kernels take parallel loops without "
                            "reductions");
    size_t depth = loop.getNumLoops();
    for (size_t d = 0; d < depth; ++d) {
      FailureOr<std::string> lb = name(loop.getLowerBound()[d]),
                             ub = name(loop.getUpperBound()[d]),
                             step = name(loop.getStep()[d]);
      if (failed(lb) || failed(ub) || failed(step))
        return failure();
      std::string iv = fresh();
      names_[loop.getInductionVars()[d]] = iv;
      line() << "for (long long " << iv << " = " << *lb << "; " << iv << " < "
             << *ub << "; " << iv << " += " << *step << ") {\n";
      ++indent_;
    }
    if (failed(emitBlock(loop.getBody())))
      return failure();
    for (size_t d = 0; d < depth; ++d) {
      --indent_;
      line() << "}\n";
    }
    return success();
  }

  LogicalResult emitOp(Operation *op) {
    return llvm::TypeSwitch<Operation *, LogicalResult>(op)
        .Case([&](arith::ConstantOp c) { return emitConstant(c); })
        .Case([&](memref::ViewOp view) -> LogicalResult {
          auto it = buffers_.find(view.getSource());
          FailureOr<std::string> shift = name(view.getByteShift());
          if (it == buffers_.end() || failed(shift))
            return view.emitError("a view of an unknown buffer");
          if (!view.getSizes().empty())
            return view.emitError("CUDA kernels need static views");
          FailureOr<std::string> element =
              scalarType(view.getType().getElementType());
          if (failed(element))
            return view.emitError("CUDA kernels cannot hold ")
                   << view.getType().getElementType();
          Buffer buffer;
          buffer.type = view.getType();
          int64_t offset = 0;
          if (failed(buffer.type.getStridesAndOffset(buffer.strides,
                                                     offset)) ||
              offset != 0)
            return view.emitError("CUDA kernels need identity views");
          buffer.base = fresh();
          line() << *element << " *" << buffer.base << " = (" << *element
                 << " *)((char *)(" << it->second.base << " + "
                 << it->second.offset << ") + " << *shift << ");\n";
          buffers_[view.getResult()] = buffer;
          return success();
        })
        .Case([&](memref::GetGlobalOp get) -> LogicalResult {
          // The constant, emitted at file scope by emitCuda as its bits.
          return bindBuffer(get.getResult(),
                            "(char *)" + globalName(get.getName()),
                            get.getType());
        })
        .Case<memref::SubViewOp, memref::ReinterpretCastOp,
              memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp,
              memref::TransposeOp, memref::ReshapeOp>([&](Operation *view) {
          return bindView(view, view->getOperand(0),
                          cast<MemRefType>(view->getResult(0).getType()));
        })
        .Case([&](memref::LoadOp load) -> LogicalResult {
          FailureOr<std::string> at =
              element(load.getMemRef(), load.getIndices());
          if (failed(at))
            return failure();
          return define(load, *at);
        })
        .Case([&](memref::StoreOp store) -> LogicalResult {
          FailureOr<std::string> at =
              element(store.getMemRef(), store.getIndices());
          FailureOr<std::string> v = name(store.getValue());
          if (failed(at) || failed(v))
            return failure();
          line() << *at << " = " << *v << ";\n";
          return success();
        })
        .Case([&](memref::AtomicRMWOp rmw) -> LogicalResult {
          FailureOr<std::string> at = element(rmw.getMemref(), rmw.getIndices());
          FailureOr<std::string> v = name(rmw.getValue());
          if (failed(at) || failed(v))
            return failure();
          const char *helper = nullptr;
          switch (rmw.getKind()) {
          case arith::AtomicRMWKind::assign:
            helper = "nnc_atomic_assign";
            break;
          case arith::AtomicRMWKind::addf:
          case arith::AtomicRMWKind::addi:
            helper = "nnc_atomic_add";
            break;
          case arith::AtomicRMWKind::maxs:
            helper = "nnc_atomic_max";
            break;
          case arith::AtomicRMWKind::mins:
            helper = "nnc_atomic_min";
            break;
          default:
            return rmw.emitError("the CUDA emitter cannot emit atomic ")
                   << arith::stringifyAtomicRMWKind(rmw.getKind()) << " yet";
          }
          return define(rmw, std::string(helper) + "(&" + *at + ", " + *v + ")");
        })
        .Case([&](scf::ForOp loop) { return emitFor(loop); })
        .Case([&](scf::IfOp branch) { return emitIf(branch); })
        .Case([&](scf::ParallelOp loop) { return emitNestedParallel(loop); })
        .Case([&](arith::AddFOp o) { return binary(o, "+"); })
        .Case([&](arith::SubFOp o) { return binary(o, "-"); })
        .Case([&](arith::MulFOp o) { return binary(o, "*"); })
        .Case([&](arith::DivFOp o) { return binary(o, "/"); })
        .Case([&](arith::RemFOp o) { return mathCall(o, "fmod"); })
        .Case([&](arith::NegFOp o) -> LogicalResult {
          FailureOr<std::string> a = name(o.getOperand());
          if (failed(a))
            return failure();
          return define(o, "-" + *a);
        })
        .Case([&](arith::MaximumFOp o) { return call(o, "nnc_maximum"); })
        .Case([&](arith::MinimumFOp o) { return call(o, "nnc_minimum"); })
        .Case([&](arith::MaxNumFOp o) { return mathCall(o, "fmax"); })
        .Case([&](arith::MinNumFOp o) { return mathCall(o, "fmin"); })
        .Case([&](arith::CmpFOp o) { return cmpf(o); })
        .Case([&](arith::CmpIOp o) { return cmpi(o); })
        .Case([&](arith::SelectOp o) -> LogicalResult {
          FailureOr<std::string> c = name(o.getCondition()),
                                 a = name(o.getTrueValue()),
                                 b = name(o.getFalseValue());
          if (failed(c) || failed(a) || failed(b))
            return failure();
          return define(o, *c + " ? " + *a + " : " + *b);
        })
        .Case([&](arith::AddIOp o) { return binary(o, "+", true); })
        .Case([&](arith::SubIOp o) { return binary(o, "-", true); })
        .Case([&](arith::MulIOp o) { return binary(o, "*", true); })
        .Case([&](arith::DivSIOp o) { return binary(o, "/"); })
        .Case([&](arith::RemSIOp o) { return binary(o, "%"); })
        .Case([&](arith::DivUIOp o) { return binary(o, "/", true); })
        .Case([&](arith::RemUIOp o) { return binary(o, "%", true); })
        .Case([&](arith::AndIOp o) { return binary(o, "&"); })
        .Case([&](arith::OrIOp o) { return binary(o, "|"); })
        .Case([&](arith::XOrIOp o) { return binary(o, "^"); })
        .Case([&](arith::ShLIOp o) { return binary(o, "<<", true); })
        .Case([&](arith::ShRSIOp o) { return binary(o, ">>"); })
        .Case([&](arith::ShRUIOp o) { return binary(o, ">>", true); })
        .Case([&](arith::MaxSIOp o) { return call(o, "nnc_max"); })
        .Case([&](arith::MinSIOp o) { return call(o, "nnc_min"); })
        .Case([&](arith::FloorDivSIOp o) { return call(o, "nnc_floordiv"); })
        .Case([&](arith::CeilDivSIOp o) { return call(o, "nnc_ceildiv"); })
        .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::SIToFPOp,
              arith::UIToFPOp, arith::FPToSIOp, arith::FPToUIOp,
              arith::ExtFOp, arith::TruncFOp, arith::ExtSIOp, arith::ExtUIOp,
              arith::TruncIOp>([&](Operation *o) { return convert(o); })
        .Case([&](arith::BitcastOp o) -> LogicalResult {
          FailureOr<std::string> a = name(o.getIn());
          FailureOr<std::string> t = scalarType(o.getType());
          if (failed(a) || failed(t))
            return o.emitError("a bitcast CUDA kernels cannot do");
          return define(o, "nnc_bitcast<" + *t + ">(" + *a + ")");
        })
        .Case([&](math::ExpOp o) { return mathCall(o, "exp"); })
        .Case([&](math::Exp2Op o) { return mathCall(o, "exp2"); })
        .Case([&](math::ExpM1Op o) { return mathCall(o, "expm1"); })
        .Case([&](math::LogOp o) { return mathCall(o, "log"); })
        .Case([&](math::Log2Op o) { return mathCall(o, "log2"); })
        .Case([&](math::Log10Op o) { return mathCall(o, "log10"); })
        .Case([&](math::Log1pOp o) { return mathCall(o, "log1p"); })
        .Case([&](math::SqrtOp o) { return mathCall(o, "sqrt"); })
        .Case([&](math::RsqrtOp o) { return mathCall(o, "rsqrt"); })
        .Case([&](math::CbrtOp o) { return mathCall(o, "cbrt"); })
        .Case([&](math::TanhOp o) { return mathCall(o, "tanh"); })
        .Case([&](math::SinhOp o) { return mathCall(o, "sinh"); })
        .Case([&](math::CoshOp o) { return mathCall(o, "cosh"); })
        .Case([&](math::SinOp o) { return mathCall(o, "sin"); })
        .Case([&](math::CosOp o) { return mathCall(o, "cos"); })
        .Case([&](math::TanOp o) { return mathCall(o, "tan"); })
        .Case([&](math::AsinOp o) { return mathCall(o, "asin"); })
        .Case([&](math::AcosOp o) { return mathCall(o, "acos"); })
        .Case([&](math::AtanOp o) { return mathCall(o, "atan"); })
        .Case([&](math::Atan2Op o) { return mathCall(o, "atan2"); })
        .Case([&](math::AsinhOp o) { return mathCall(o, "asinh"); })
        .Case([&](math::AcoshOp o) { return mathCall(o, "acosh"); })
        .Case([&](math::AtanhOp o) { return mathCall(o, "atanh"); })
        .Case([&](math::ErfOp o) { return mathCall(o, "erf"); })
        .Case([&](math::ErfcOp o) { return mathCall(o, "erfc"); })
        .Case([&](math::AbsFOp o) { return mathCall(o, "fabs"); })
        .Case([&](math::FloorOp o) { return mathCall(o, "floor"); })
        .Case([&](math::CeilOp o) { return mathCall(o, "ceil"); })
        .Case([&](math::RoundOp o) { return mathCall(o, "round"); })
        .Case([&](math::RoundEvenOp o) { return mathCall(o, "rint"); })
        .Case([&](math::TruncOp o) { return mathCall(o, "trunc"); })
        .Case([&](math::PowFOp o) { return mathCall(o, "pow"); })
        .Case([&](math::FmaOp o) { return mathCall(o, "fma"); })
        .Case([&](math::CopySignOp o) { return mathCall(o, "copysign"); })
        .Case([&](math::AbsIOp o) { return call(o, "nnc_absi"); })
        .Case([&](math::IsNaNOp o) { return call(o, "isnan"); })
        .Case([&](math::IsInfOp o) { return call(o, "isinf"); })
        .Case([&](math::IsFiniteOp o) { return call(o, "isfinite"); })
        .Default([&](Operation *o) -> LogicalResult {
          return o->emitError("the CUDA emitter cannot emit '")
                 << o->getName() << "' yet";
        });
  }

  func::FuncOp func_;
  llvm::raw_ostream &os_;
  std::vector<nnc::cuda::Launch> &launches_;
  llvm::DenseMap<Value, std::string> names_;
  llvm::DenseMap<Value, Buffer> buffers_;
  int counter_ = 0;
  int indent_ = 0;
};

/// The helpers every kernel source starts with: NaN-propagating min/max
/// (arith.maximumf), integer helpers, bit casts.
constexpr const char *kPrelude = R"(// Generated by nnc: CUDA C++ for NVRTC.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

template <typename T> __device__ inline T nnc_maximum(T a, T b) {
  return a != a ? a : (b != b ? b : (a > b ? a : b));
}
template <typename T> __device__ inline T nnc_minimum(T a, T b) {
  return a != a ? a : (b != b ? b : (a < b ? a : b));
}
template <typename T> __device__ inline T nnc_max(T a, T b) { return a > b ? a : b; }
template <typename T> __device__ inline T nnc_min(T a, T b) { return a < b ? a : b; }
template <typename T> __device__ inline T nnc_absi(T a) { return a < 0 ? -a : a; }
template <typename T> __device__ inline T nnc_floordiv(T a, T b) {
  T q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
template <typename T> __device__ inline T nnc_ceildiv(T a, T b) {
  T q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}
template <typename To, typename From> __device__ inline To nnc_bitcast(From v) {
  union { From from; To to; } u;
  u.from = v;
  return u.to;
}
// Atomics: the old value, as memref.atomic_rmw returns it.
template <typename T> __device__ inline T nnc_atomic_assign(T *p, T v) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "32 or 64 bits");
  if constexpr (sizeof(T) == 8)
    return nnc_bitcast<T>(atomicExch((unsigned long long *)p,
                                     nnc_bitcast<unsigned long long>(v)));
  else
    return nnc_bitcast<T>(
        atomicExch((unsigned int *)p, nnc_bitcast<unsigned int>(v)));
}
__device__ inline float nnc_atomic_add(float *p, float v) { return atomicAdd(p, v); }
__device__ inline double nnc_atomic_add(double *p, double v) { return atomicAdd(p, v); }
__device__ inline int nnc_atomic_add(int *p, int v) { return atomicAdd(p, v); }
__device__ inline long long nnc_atomic_add(long long *p, long long v) {
  return (long long)atomicAdd((unsigned long long *)p, (unsigned long long)v);
}
__device__ inline int nnc_atomic_max(int *p, int v) { return atomicMax(p, v); }
__device__ inline long long nnc_atomic_max(long long *p, long long v) { return atomicMax(p, v); }
__device__ inline int nnc_atomic_min(int *p, int v) { return atomicMin(p, v); }
__device__ inline long long nnc_atomic_min(long long *p, long long v) { return atomicMin(p, v); }

)";

} // namespace

LogicalResult nnc::cuda::emitCuda(ModuleOp module, std::string &source,
                                  std::vector<Launch> &launches) {
  source.clear();
  launches.clear();
  llvm::raw_string_ostream os(source);
  os << kPrelude;
  if (failed(emitGlobals(module, os)))
    return failure();
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() || func->hasAttr("nnc.cuda_skip"))
      continue;
    if (!func.getBody().hasOneBlock())
      return func.emitError("CUDA kernels have one block");
    KernelEmitter emitter(func, os, launches);
    if (failed(emitter.emit()))
      return failure();
  }
  return success();
}
