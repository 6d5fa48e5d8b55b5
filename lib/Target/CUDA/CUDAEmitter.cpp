//===- CUDAEmitter.cpp - kernels as CUDA C++ ------------------------------===//
//
// Emits loop kernels (scf, memref, arith, math on static views) as CUDA
// C++. Every function is a nnc kernel; each of its top-level loop nests
// becomes one __global__ function, launched in order: a parallel loop as a
// grid-stride loop over its flattened iteration space (one iteration per
// thread), anything else (a sequential loop, a lone store) on one thread.
// Consecutive independent parallel loops share a launch (multi-tensor), and
// a GEMM call (GemmToCublasLt.cpp) is a launch the device runs in cuBLASLt.
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
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <limits>
#include <numeric>

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
  /// The bytes `base` is known to be aligned to.
  int64_t align = 1;
};

/// The bytes of one element of a buffer of `type` (i1 is a byte).
int64_t elementBytes(Type type) {
  if (type.isIndex())
    return 8;
  return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
}

/// The alignment the runtime gives every buffer a kernel takes: weights,
/// inputs, outputs and the scratch arena come from cuMemAlloc or at
/// 256-byte offsets in one, and temporaries lie at 64-byte offsets of the
/// arena (runtime/lib/Program.cpp, --nnc-plan-memory).
constexpr int64_t kArgumentAlignment = 16;

/// The most bytes one vector access moves (ld.global.v4.f32).
constexpr int64_t kMaxVectorBytes = 16;

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
      // A reduction spread over threads is a launch of its own too, and so
      // is a GEMM.
      size_t last = i;
      // Nests over the same rows, one of them a reduction, each reading
      // only its own row of what the others write: one launch.
      std::optional<RowGroup> group = matchRowGroup(ops, i, last);
      if (!group && !ownLaunch(ops[i]))
        for (size_t j = i; j < ops.size() && !ownLaunch(ops[j]); ++j)
          if (!isPrelude(ops[j]))
            last = j;
      SmallVector<Operation *> prelude, work;
      if (group)
        for (const RowPhase &phase : group->phases)
          work.push_back(phase.op);
      else
        work.assign(ops.begin() + i, ops.begin() + last + 1);
      // Independent parallel loops that follow join this one's launch.
      if (!group && mergeable(ops[i])) {
        for (size_t j = i + 1; j < ops.size() && work.size() < kMaxMerged;
             ++j) {
          if (isPrelude(ops[j]) && isMemoryEffectFree(ops[j]))
            continue;
          if (!mergeable(ops[j]) ||
              !independent(ops[j], work, ArrayRef(ops).take_front(j)))
            break;
          work.push_back(ops[j]);
          last = j;
        }
      }
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
      for (size_t k = 0; k < last; ++k)
        if (needed.contains(ops[k]) && !llvm::is_contained(work, ops[k]))
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
      // Nor may a launch of many threads (a parallel loop, a reduction)
      // write it: its threads read it at their start, in any order with the
      // others' writes.
      if (isa<scf::ParallelOp>(work.front()) || spread(work.front()) || group)
        for (Operation *p : prelude)
          if (auto load = dyn_cast<memref::LoadOp>(p))
            for (Operation *w : work)
              if (writes(w, regionOf(load.getMemRef())))
                return load.emitError("the CUDA emitter reads this in every "
                                      "thread of a launch of @")
                       << func_.getName() << " that writes its buffer";
      if (failed(emitLaunch(work, prelude, index++,
                            group ? &*group : nullptr)))
        return failure();
      launched.push_back(work);
      i = last + 1;
    }
    return success();
  }

private:
  struct RowGroup;

  /// Whether `op` is a GEMM launch (GemmToCublasLt.cpp).
  static bool isGemm(Operation *op) {
    return isa<func::CallOp>(op) && op->hasAttr(nnc::cuda::kGemmAttrName);
  }

  /// Whether `op` is a launch by itself.
  static bool ownLaunch(Operation *op) {
    return isa<scf::ParallelOp>(op) || spread(op) || isGemm(op);
  }

  /// A GEMM launch: no __global__ function, a comment in the source.
  LogicalResult emitGemmLaunch(Operation *call, int index) {
    FailureOr<nnc::runtime::CudaGemm> gemm = nnc::cuda::parseGemmAttr(call);
    if (failed(gemm))
      return call->emitError("the CUDA emitter cannot read this GEMM's ")
             << nnc::cuda::kGemmAttrName << " attribute";
    for (const nnc::runtime::CudaMatrix *m : {&gemm->a, &gemm->b, &gemm->c})
      if (m->buffer >= func_.getNumArguments())
        return call->emitError("a GEMM matrix in buffer ")
               << m->buffer << " of a kernel of " << func_.getNumArguments();
    if (gemm->epilogue != nnc::runtime::CudaEpilogue::None &&
        gemm->biasBuffer >= func_.getNumArguments())
      return call->emitError("a GEMM bias in buffer ")
             << gemm->biasBuffer << " of a kernel of "
             << func_.getNumArguments();
    nnc::cuda::Launch launch;
    launch.kernel = func_.getName().str();
    launch.name = launch.kernel + "_l" + std::to_string(index) + "_gemm";
    launch.numArguments = func_.getNumArguments();
    launch.gemm = *gemm;
    auto describe = [](const nnc::runtime::CudaMatrix &m) {
      return "a" + std::to_string(m.buffer) + "+" + std::to_string(m.offset) +
             (m.transposed ? " transposed" : "") + " ld " +
             std::to_string(m.ld) + " batch stride " +
             std::to_string(m.batchStride);
    };
    os_ << "// " << launch.name << ": cuBLASLt GEMM " << gemm->m << "x"
        << gemm->n << "x" << gemm->k << ", batch " << gemm->batch << ", "
        << cudaElementTypeName(gemm->inputType) << " to "
        << cudaElementTypeName(gemm->outputType)
        << (gemm->accumulate ? ", C +=" : ", C =") << " A x B; A "
        << describe(gemm->a) << "; B " << describe(gemm->b) << "; C "
        << describe(gemm->c);
    if (gemm->epilogue != nnc::runtime::CudaEpilogue::None)
      os_ << "; then " << cudaEpilogueName(gemm->epilogue) << " with bias a"
          << gemm->biasBuffer << "+" << gemm->biasOffset;
    os_ << "\n\n";
    launches_.push_back(launch);
    return success();
  }

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

  /// Whether `value` is the planned arena (--nnc-plan-memory marks it),
  /// which shares no bytes with any other argument.
  static bool isArena(Value value) {
    auto arg = dyn_cast<BlockArgument>(value);
    auto func = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())
                    : func::FuncOp();
    return func && func.getArgAttr(arg.getArgNumber(), "nnc.arena");
  }

  /// Whether two regions may share bytes: two kernel arguments may be one
  /// buffer (an output donated to an input lives in the input's), unless
  /// one is the arena.
  static bool mayAlias(const Region &a, const Region &b) {
    return overlap(a, b) ||
           (a.root != b.root && isa<BlockArgument>(a.root) &&
            isa<BlockArgument>(b.root) && !isArena(a.root) &&
            !isArena(b.root));
  }

  /// The most parallel loops one launch takes.
  static constexpr size_t kMaxMerged = 64;

  /// Whether `op` is a parallel loop that may share a launch with others.
  static bool mergeable(Operation *op) {
    auto loop = dyn_cast<scf::ParallelOp>(op);
    return loop && !spread(op) && gridable(loop);
  }

  /// The regions of the buffers `op` reads or writes.
  static SmallVector<Region> touched(Operation *op) {
    SmallVector<Region> regions;
    op->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (isa<MemRefType>(operand.getType()))
          regions.push_back(regionOf(operand));
    });
    return regions;
  }

  /// Whether `loop` may run beside the loops of `group` in one launch (no
  /// order among their threads): neither writes what the other touches, and
  /// it writes nothing a scalar load of the body before it (`before`)
  /// reads, which the launch's threads read at their start.
  static bool independent(Operation *loop, ArrayRef<Operation *> group,
                          ArrayRef<Operation *> before) {
    SmallVector<Region> mine = touched(loop);
    for (Operation *other : group) {
      for (const Region &region : mine)
        if (writes(other, region))
          return false;
      for (const Region &region : touched(other))
        if (writes(loop, region))
          return false;
    }
    for (Operation *op : before)
      if (auto load = dyn_cast<memref::LoadOp>(op))
        if (writes(loop, regionOf(load.getMemRef())))
          return false;
    return true;
  }

  LogicalResult emitLaunch(ArrayRef<Operation *> work,
                           ArrayRef<Operation *> prelude, int index,
                           RowGroup *group) {
    if (isGemm(work.front()))
      return emitGemmLaunch(work.front(), index);
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
      if (failed(bindBuffer(arg, "a" + std::to_string(i), type,
                            kArgumentAlignment)))
        return failure();
    }
    for (Operation *p : prelude)
      if (failed(emitOp(p)))
        return failure();
    auto parallel = dyn_cast<scf::ParallelOp>(work.front());
    std::optional<ReductionNest> reduction;
    std::optional<RowsPer> per;
    if (work.size() == 1 && (reduction = matchReduction(work.front())))
      per = rowsPer(*reduction, parallel != nullptr);
    if (group) {
      if (failed(emitRowGroup(*group, launch)))
        return failure();
    } else if (per) {
      if (failed(emitReduction(*reduction, *per, launch)))
        return failure();
    } else if (parallel && work.size() > 1) {
      if (failed(emitMergedGrids(work, launch.iterations)))
        return failure();
    } else if (parallel) {
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

  /// A reduction nest: a perfect nest of loops with static bounds whose
  /// innermost body folds values into outputs, each fold
  /// `%old = load OUT[i]; %new = combine(%x, %old); store %new, OUT[i]`
  /// (either operand order) with `i` made of constants and the induction
  /// variables of some of the loops (the rows), every store the same ones.
  /// The other loops are reduced. linalg's reductions lower to this.
  struct ReductionNest {
    struct Loop {
      Value iv;
      int64_t lower, step, count;
    };
    struct Fold {
      memref::LoadOp old;
      Operation *combine;
      memref::StoreOp store;
      Value value;
      /// Whether `old` is the combine's first operand.
      bool oldFirst;
      std::string type;
    };
    SmallVector<Loop> rows, reduced;
    /// The nest's other ops, in order: those computed from the rows alone
    /// (emitted once per row) and the rest (per reduced iteration).
    SmallVector<Operation *> perRow, perIteration;
    SmallVector<Fold> folds;
    int64_t numRows = 1, numReduced = 1;
    /// Whether the rows are the nest's outermost loops, or its innermost
    /// (a column sum: the reduced loops outside).
    bool rowsFirst = false, rowsLast = false;
    /// The nest's outermost loop.
    Operation *top = nullptr;
  };

  /// How a reduction's rows are spread: one per thread (each folds its
  /// row in the nest's order, as the CPU does), warp or block (its lanes
  /// take every 32nd or blockDim-th value, then combine across lanes).
  /// Columns: a column sum's rows are the innermost loops, adjacent in
  /// memory; a block takes 32 of them, one per lane (its loads coalesce
  /// across the lanes), and its warps split the values.
  enum class RowsPer { Thread, Warp, Block, Columns };

  /// Folds per warp or block pay off from this many values per row (a warp
  /// or block then has at least one value on each lane).
  static constexpr int64_t kWarpRowFrom = 32, kBlockRowFrom = 1024;
  /// Column sums of this many values a block's warps split (each warp then
  /// has one at least: a block has up to 32), from this many columns: 128
  /// blocks of 32 fill a GPU. Fewer columns keep a warp or block each,
  /// more blocks with strided loads; which is faster in between is for a
  /// GPU to measure (none here).
  static constexpr int64_t kColumnsFrom = 32, kColumnsRowsFrom = 4096;

  /// `combine(a, b)` in C++ for the combining op of a fold, or nothing when
  /// it is not one the emitter regroups (associative and commutative).
  static std::optional<std::string> combineExpr(Operation *op, StringRef a,
                                                StringRef b) {
    Type type = op->getResult(0).getType();
    std::string x = a.str(), y = b.str();
    if (type.isF32() || type.isF64()) {
      std::string suffix = type.isF32() ? "f" : "";
      return llvm::TypeSwitch<Operation *, std::optional<std::string>>(op)
          .Case([&](arith::AddFOp) { return x + " + " + y; })
          .Case([&](arith::MulFOp) { return x + " * " + y; })
          .Case([&](arith::MaximumFOp) {
            return "nnc_maximum(" + x + ", " + y + ")";
          })
          .Case([&](arith::MinimumFOp) {
            return "nnc_minimum(" + x + ", " + y + ")";
          })
          .Case([&](arith::MaxNumFOp) {
            return "fmax" + suffix + "(" + x + ", " + y + ")";
          })
          .Case([&](arith::MinNumFOp) {
            return "fmin" + suffix + "(" + x + ", " + y + ")";
          })
          .Default([](Operation *) { return std::nullopt; });
    }
    auto integer = dyn_cast<IntegerType>(type);
    if (!integer || integer.getWidth() > 64)
      return std::nullopt;
    FailureOr<std::string> t = scalarType(type);
    if (failed(t))
      return std::nullopt;
    std::string u = unsignedType(type);
    return llvm::TypeSwitch<Operation *, std::optional<std::string>>(op)
        .Case([&](arith::AddIOp) {
          return "(" + *t + ")((" + u + ")" + x + " + (" + u + ")" + y + ")";
        })
        .Case([&](arith::MulIOp) {
          return "(" + *t + ")((" + u + ")" + x + " * (" + u + ")" + y + ")";
        })
        .Case([&](arith::MaxSIOp) { return "nnc_max(" + x + ", " + y + ")"; })
        .Case([&](arith::MinSIOp) { return "nnc_min(" + x + ", " + y + ")"; })
        .Case([&](arith::AndIOp) { return "(" + *t + ")(" + x + " & " + y + ")"; })
        .Case([&](arith::OrIOp) { return "(" + *t + ")(" + x + " | " + y + ")"; })
        .Case([&](arith::XOrIOp) { return "(" + *t + ")(" + x + " ^ " + y + ")"; })
        .Default([](Operation *) { return std::nullopt; });
  }

  /// How to spread a reduction's rows (nothing: as any other nest, a
  /// parallel loop's iterations one per thread, the rest on one thread).
  /// Short rows go a thread each, folded in a register (a parallel loop
  /// around a reduced one would otherwise load and store the output on
  /// every reduced iteration).
  static std::optional<RowsPer> rowsPer(const ReductionNest &nest,
                                        bool parallel) {
    if (nest.rowsLast && nest.numRows >= kColumnsRowsFrom &&
        nest.numReduced >= kColumnsFrom)
      return RowsPer::Columns;
    if (nest.numReduced >= kBlockRowFrom)
      return RowsPer::Block;
    if (nest.numReduced >= kWarpRowFrom)
      return RowsPer::Warp;
    if (nest.numRows > 1 && (!parallel || nest.numReduced > 1))
      return RowsPer::Thread;
    return std::nullopt;
  }

  /// Whether `op` is a reduction nest spread over threads.
  static bool spread(Operation *op) {
    std::optional<ReductionNest> nest = matchReduction(op);
    return nest && rowsPer(*nest, isa<scf::ParallelOp>(op));
  }

  /// `top` as a reduction nest, or nothing.
  static std::optional<ReductionNest> matchReduction(Operation *top) {
    ReductionNest nest;
    SmallVector<ReductionNest::Loop> loops;
    llvm::SmallPtrSet<Operation *, 8> nestLoops;
    SmallVector<Operation *> setup;
    Block *body = nullptr;
    auto constant = [](Value v) { return getConstantIntValue(v); };
    for (Operation *op = top; op;) {
      nestLoops.insert(op);
      if (auto parallel = dyn_cast<scf::ParallelOp>(op)) {
        if (parallel.getNumResults())
          return std::nullopt;
        for (auto [iv, lb, ub, step] :
             llvm::zip(parallel.getInductionVars(), parallel.getLowerBound(),
                       parallel.getUpperBound(), parallel.getStep())) {
          auto l = constant(lb), u = constant(ub), s = constant(step);
          if (!l || !u || !s || *s <= 0)
            return std::nullopt;
          loops.push_back({iv, *l, *s, *u > *l ? (*u - *l + *s - 1) / *s : 0});
        }
        body = parallel.getBody();
      } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
        auto l = constant(loop.getLowerBound()), u = constant(loop.getUpperBound()),
             s = constant(loop.getStep());
        if (loop.getNumResults() || !l || !u || !s || *s <= 0)
          return std::nullopt;
        loops.push_back({loop.getInductionVar(), *l, *s,
                         *u > *l ? (*u - *l + *s - 1) / *s : 0});
        body = loop.getBody();
      } else {
        return std::nullopt;
      }
      Operation *inner = nullptr;
      for (Operation &o : body->without_terminator()) {
        if (isa<scf::ForOp, scf::ParallelOp>(o)) {
          if (inner)
            return std::nullopt;
          inner = &o;
        } else if (o.getNumRegions()) {
          return std::nullopt;
        }
      }
      if (!inner)
        break;
      // Between the loops: pure ops only.
      for (Operation &o : body->without_terminator())
        if (&o != inner) {
          if (!isMemoryEffectFree(&o))
            return std::nullopt;
          setup.push_back(&o);
        }
      op = inner;
    }
    // The innermost body: loads, pure ops and folds' stores.
    llvm::SmallPtrSet<Operation *, 16> foldOps;
    for (Operation &o : body->without_terminator()) {
      auto store = dyn_cast<memref::StoreOp>(&o);
      if (!store) {
        if (!isa<memref::LoadOp>(o) && !isMemoryEffectFree(&o))
          return std::nullopt;
        continue;
      }
      Operation *combine = store.getValue().getDefiningOp();
      if (!combine || combine->getBlock() != body ||
          combine->getNumOperands() != 2 || !combine->hasOneUse())
        return std::nullopt;
      ReductionNest::Fold fold;
      fold.store = store;
      fold.combine = combine;
      for (int i = 0; i < 2; ++i) {
        auto load = combine->getOperand(i).getDefiningOp<memref::LoadOp>();
        if (load && load->getBlock() == body && load->hasOneUse() &&
            load.getMemRef() == store.getMemRef() &&
            llvm::equal(load.getIndices(), store.getIndices())) {
          fold.old = load;
          fold.oldFirst = i == 0;
          fold.value = combine->getOperand(1 - i);
          break;
        }
      }
      FailureOr<std::string> type = scalarType(combine->getResult(0).getType());
      if (!fold.old || failed(type) || !combineExpr(combine, "a", "b"))
        return std::nullopt;
      fold.type = *type;
      foldOps.insert({fold.old, combine, store});
      nest.folds.push_back(fold);
    }
    if (nest.folds.empty())
      return std::nullopt;
    // Rows: the loops whose induction variables index the stores.
    auto loopOf = [&](Value v) -> int {
      for (auto [i, loop] : llvm::enumerate(loops))
        if (loop.iv == v)
          return i;
      return -1;
    };
    llvm::SmallBitVector isRow(loops.size());
    for (auto [i, fold] : llvm::enumerate(nest.folds)) {
      llvm::SmallBitVector used(loops.size());
      for (Value index : fold.store.getIndices()) {
        int l = loopOf(index);
        if (l >= 0)
          used.set(l);
        else if (!constant(index))
          return std::nullopt;
      }
      // A store's memref must not change within a row.
      if (Operation *def = fold.store.getMemRef().getDefiningOp())
        if (top->isAncestor(def))
          return std::nullopt;
      if (i == 0)
        isRow = used;
      else if (isRow != used)
        return std::nullopt;
    }
    nest.top = top;
    nest.rowsFirst = isRow.find_first_unset() == -1 ||
                     isRow.find_first_unset() == static_cast<int>(isRow.count());
    nest.rowsLast =
        isRow.any() && isRow.find_first() == static_cast<int>(isRow.size() -
                                                               isRow.count());
    for (auto [i, loop] : llvm::enumerate(loops)) {
      (isRow.test(i) ? nest.rows : nest.reduced).push_back(loop);
      (isRow.test(i) ? nest.numRows : nest.numReduced) *= loop.count;
    }
    if (nest.numRows == 0 || nest.numReduced == 0)
      return std::nullopt;
    // Nothing else reads or writes the outputs, and no two folds share
    // bytes.
    for (auto [i, fold] : llvm::enumerate(nest.folds)) {
      Region out = regionOf(fold.store.getMemRef());
      for (auto [j, other] : llvm::enumerate(nest.folds))
        if (j != i && overlap(out, regionOf(other.store.getMemRef())))
          return std::nullopt;
      for (Operation &o : body->without_terminator())
        if (auto load = dyn_cast<memref::LoadOp>(o))
          if (!foldOps.contains(load) && overlap(out, regionOf(load.getMemRef())))
            return std::nullopt;
    }
    // Split the rest: what the rows alone determine (no load: loads stay
    // where they were), and what each reduced iteration computes.
    llvm::SmallPtrSet<Operation *, 16> rowLevel;
    auto fromRows = [&](Operation *op) {
      if (isa<memref::LoadOp>(op))
        return false;
      for (Value operand : op->getOperands()) {
        if (auto arg = dyn_cast<BlockArgument>(operand)) {
          int l = loopOf(arg);
          if (l >= 0 && !isRow.test(l))
            return false;
          continue;
        }
        Operation *def = operand.getDefiningOp();
        if (top->isAncestor(def) && !rowLevel.contains(def))
          return false;
      }
      return true;
    };
    for (Operation &o : body->without_terminator())
      setup.push_back(&o);
    for (Operation *op : setup) {
      if (foldOps.contains(op))
        continue;
      if (fromRows(op)) {
        rowLevel.insert(op);
        nest.perRow.push_back(op);
      } else {
        nest.perIteration.push_back(op);
      }
    }
    return nest;
  }

  /// Declares the induction variables of `loops` from the flat index
  /// `flat` (the last loop fastest).
  void emitIndices(ArrayRef<ReductionNest::Loop> loops, StringRef flat) {
    if (loops.empty())
      return;
    std::string r = fresh();
    line() << "long long " << r << " = " << flat << ";\n";
    for (size_t d = loops.size(); d-- > 0;) {
      std::string iv = fresh();
      names_[loops[d].iv] = iv;
      line() << "const long long " << iv << " = " << loops[d].lower << "LL + ("
             << r << " % " << loops[d].count << "LL) * " << loops[d].step
             << "LL;\n";
      if (d)
        line() << r << " /= " << loops[d].count << "LL;\n";
    }
  }

  /// Opens the loop over `numRows` rows, each taken by the lanes `per`
  /// says (a warp- or block-uniform loop), and returns the row variable.
  std::string openRowLoop(RowsPer per, int64_t numRows) {
    std::string first, stride;
    switch (per) {
    case RowsPer::Thread:
      first = "(long long)blockIdx.x * blockDim.x + threadIdx.x";
      stride = "(long long)gridDim.x * blockDim.x";
      break;
    case RowsPer::Warp:
      first = "((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5";
      stride = "((long long)gridDim.x * blockDim.x) >> 5";
      break;
    case RowsPer::Block:
    case RowsPer::Columns: // (emitColumns opens its own loop)
      first = "(long long)blockIdx.x";
      stride = "(long long)gridDim.x";
      break;
    }
    std::string row = fresh();
    line() << "for (long long " << row << " = " << first << "; " << row
           << " < " << numRows << "LL; " << row << " += " << stride
           << ") {\n";
    ++indent_;
    return row;
  }

  /// A row's lane: its first value, and the stride between its values.
  static std::string laneFirst(RowsPer per) {
    return per == RowsPer::Thread ? "0LL"
           : per == RowsPer::Warp ? "(long long)(threadIdx.x & 31u)"
                                  : "(long long)threadIdx.x";
  }
  static std::string laneStride(RowsPer per) {
    return per == RowsPer::Thread ? "1LL"
           : per == RowsPer::Warp ? "32LL"
                                  : "(long long)blockDim.x";
  }

  /// A reduction nest as one launch: its rows spread over the grid as
  /// `per` says (RowsPer).
  LogicalResult emitReduction(ReductionNest &nest, RowsPer per,
                              nnc::cuda::Launch &launch) {
    if (per == RowsPer::Columns)
      return emitColumns(nest, launch);
    int64_t lanes = per == RowsPer::Thread ? 1
                    : per == RowsPer::Warp ? 32
                                           : launch.block;
    launch.iterations = nest.numRows * lanes;
    line() << "// " << nest.numRows
           << (nest.numRows == 1 ? " row of " : " rows of ") << nest.numReduced
           << " values, one "
           << (per == RowsPer::Thread ? "thread"
               : per == RowsPer::Warp ? "warp"
                                      : "block")
           << " per row.\n";
    std::string row = openRowLoop(per, nest.numRows);
    emitIndices(nest.rows, row);
    if (failed(emitRowFold(nest, per)))
      return failure();
    --indent_;
    line() << "}\n";
    return success();
  }

  /// Folds `total` (a row's combined lanes) into the fold's output, with
  /// the operands in the order the nest combines them.
  LogicalResult foldIntoOutput(ReductionNest::Fold fold,
                               StringRef total) {
    FailureOr<std::string> at =
        element(fold.store.getMemRef(), fold.store.getIndices());
    if (failed(at))
      return failure();
    line() << *at << " = "
           << *combineExpr(fold.combine, fold.oldFirst ? StringRef(*at) : total,
                           fold.oldFirst ? total : StringRef(*at))
           << ";\n";
    return success();
  }

  /// A column sum as one launch: tiles of 32 adjacent rows, a tile per
  /// block and a row per lane, so that a warp's loads of one value of its
  /// 32 rows coalesce. Warp w folds values w, w + W, ... (W warps) of its
  /// lane's row in order; the warps' totals meet in shared memory, and the
  /// first warp folds them, warp 0 first, into the outputs: the same order
  /// on every run.
  LogicalResult emitColumns(ReductionNest &nest, nnc::cuda::Launch &launch) {
    int64_t tiles = (nest.numRows + 31) / 32;
    launch.iterations = tiles * launch.block;
    line() << "// " << nest.numRows << " rows of " << nest.numReduced
           << " values, a row per lane: 32 rows per block, its warps "
              "splitting the values.\n";
    std::string tile = fresh();
    line() << "for (long long " << tile << " = (long long)blockIdx.x; " << tile
           << " < " << tiles << "LL; " << tile
           << " += (long long)gridDim.x) {\n";
    ++indent_;
    std::string row = fresh();
    line() << "const long long " << row << " = " << tile
           << " * 32LL + (long long)(threadIdx.x & 31u);\n";
    // Past the last row (a lane of the last tile): no loads, no store, but
    // the barriers all the same.
    std::string active = fresh();
    line() << "const bool " << active << " = " << row << " < "
           << nest.numRows << "LL;\n";
    emitIndices(nest.rows, row);
    for (Operation *op : nest.perRow)
      if (failed(emitOp(op)))
        return failure();
    SmallVector<std::string> acc;
    for (ReductionNest::Fold fold : nest.folds) {
      acc.push_back(fresh());
      line() << fold.type << " " << acc.back() << " = " << fold.type
             << "();\n";
    }
    line() << "if (" << active << ") {\n";
    ++indent_;
    std::string k = fresh(), kFirst = "(long long)(threadIdx.x >> 5)";
    line() << "for (long long " << k << " = " << kFirst << "; " << k << " < "
           << nest.numReduced << "LL; " << k
           << " += (long long)(blockDim.x >> 5)) {\n";
    ++indent_;
    emitIndices(nest.reduced, k);
    for (Operation *op : nest.perIteration)
      if (failed(emitOp(op)))
        return failure();
    for (auto [fold, a] : llvm::zip(nest.folds, acc)) {
      FailureOr<std::string> v = name(fold.value);
      if (failed(v))
        return failure();
      line() << a << " = " << k << " == " << kFirst << " ? " << *v << " : "
             << *combineExpr(fold.combine, a, *v) << ";\n";
    }
    --indent_;
    line() << "}\n";
    --indent_;
    line() << "}\n";
    for (auto [fold, a] : llvm::zip(nest.folds, acc)) {
      line() << "__shared__ " << fold.type << " " << a << "_warps[32][33];\n";
      line() << a << "_warps[threadIdx.x >> 5][threadIdx.x & 31u] = " << a
             << ";\n";
    }
    line() << "__syncthreads();\n";
    line() << "if (threadIdx.x < 32u && " << active << ") {\n";
    ++indent_;
    for (auto [fold, a] : llvm::zip(nest.folds, acc)) {
      line() << a << " = " << a << "_warps[0][threadIdx.x];\n";
      line() << "for (unsigned w = 1; w < (blockDim.x >> 5); ++w)\n";
      line() << "  " << a << " = "
             << *combineExpr(fold.combine, a, a + "_warps[w][threadIdx.x]")
             << ";\n";
      if (failed(foldIntoOutput(fold, a)))
        return failure();
    }
    --indent_;
    line() << "}\n";
    // Before the next tile's warps write their totals.
    line() << "__syncthreads();\n";
    --indent_;
    line() << "}\n";
    return success();
  }

  /// How many consecutive values of the innermost reduced loop a lane of
  /// a warp or block takes at a time (8, 4, 2 or 1), and in `loads` the loads
  /// that read them as one vector. Every lane must still get a value (a
  /// warp's 32, a block's up to 1024: lanes start from their first), and
  /// one load at least must be a vector one.
  int64_t planReductionVectors(const ReductionNest &nest, RowsPer per,
                               llvm::SmallPtrSetImpl<Operation *> &loads) {
    if (nest.reduced.empty() || nest.reduced.back().step != 1)
      return 1;
    const ReductionNest::Loop &inner = nest.reduced.back();
    int64_t lanes = per == RowsPer::Warp ? 32 : 1024;
    // As planVectors: the most vector loads, the widest on a tie.
    int64_t best = 1;
    llvm::SmallPtrSet<Operation *, 8> taken;
    loads.clear();
    for (int64_t width : {8, 4, 2}) {
      if (inner.count % width || inner.lower % width ||
          nest.numReduced / width < lanes)
        continue;
      taken.clear();
      for (Operation *op : nest.perIteration)
        if (auto load = dyn_cast<memref::LoadOp>(op))
          if (contiguous(load.getMemRef(), load.getIndices(), inner.iv,
                         &nest.top->getRegion(0), width))
            taken.insert(op);
      if (taken.size() > loads.size()) {
        best = width;
        loads.clear();
        loads.insert(taken.begin(), taken.end());
      }
    }
    return best;
  }

  /// The folds of one row of `nest` (its row variables bound) by the
  /// lanes `per` gives it, the totals folded into the outputs.
  LogicalResult emitRowFold(ReductionNest &nest, RowsPer per) {
    for (Operation *op : nest.perRow)
      if (failed(emitOp(op)))
        return failure();
    // One accumulator per fold. A thread starts from the output, as the
    // CPU does; lanes start from their first value.
    SmallVector<std::string> acc;
    for (ReductionNest::Fold fold : nest.folds) {
      acc.push_back(fresh());
      if (per == RowsPer::Thread) {
        FailureOr<std::string> at =
            element(fold.store.getMemRef(), fold.store.getIndices());
        if (failed(at))
          return failure();
        line() << fold.type << " " << acc.back() << " = " << *at << ";\n";
      } else {
        line() << fold.type << " " << acc.back() << " = " << fold.type
               << "();\n";
      }
    }
    // Lanes of a warp or block take `width` consecutive values at a time
    // (vector loads) when every lane still gets one.
    int64_t width = 1;
    llvm::SmallPtrSet<Operation *, 8> vectorLoads;
    if (per != RowsPer::Thread)
      width = planReductionVectors(nest, per, vectorLoads);
    SmallVector<ReductionNest::Loop> reduced = nest.reduced;
    if (width > 1) {
      reduced.back().count /= width;
      reduced.back().step *= width;
    }
    std::string k = fresh(), kFirst = laneFirst(per),
                kStride = laneStride(per);
    line() << "for (long long " << k << " = " << kFirst << "; " << k << " < "
           << nest.numReduced / width << "LL; " << k << " += " << kStride
           << ") {\n";
    ++indent_;
    emitIndices(reduced, k);
    Value iv = nest.reduced.empty() ? Value() : nest.reduced.back().iv;
    const std::string first = iv ? names_[iv] : "";
    DenseMap<Operation *, std::string> vectorOf;
    for (int64_t lane = 0; lane < width; ++lane) {
      std::string laneIv = first;
      if (lane) {
        laneIv = fresh();
        line() << "const long long " << laneIv << " = " << first << " + "
               << lane << "LL;\n";
      }
      for (Operation *op : nest.perIteration) {
        if (iv)
          names_[iv] = laneIv;
        if (!vectorLoads.contains(op)) {
          if (failed(emitOp(op)))
            return failure();
          continue;
        }
        auto load = cast<memref::LoadOp>(op);
        if (lane == 0) {
          names_[iv] = first;
          FailureOr<std::string> at = element(load.getMemRef(), load.getIndices());
          FailureOr<std::string> type = scalarType(load.getType());
          if (failed(at) || failed(type))
            return load.emitError("the CUDA emitter cannot load this as a vector");
          std::string vector =
              "nnc_vec<" + *type + ", " + std::to_string(width) + ">";
          vectorOf[op] = fresh();
          line() << "const " << vector << " " << vectorOf[op] << " = *(const "
                 << vector << " *)&" << *at << ";\n";
        }
        names_[load.getResult()] =
            vectorOf[op] + ".v[" + std::to_string(lane) + "]";
      }
      for (auto [fold, a] : llvm::zip(nest.folds, acc)) {
        FailureOr<std::string> v = name(fold.value);
        if (failed(v))
          return failure();
        if (per == RowsPer::Thread) {
          line() << a << " = "
                 << *combineExpr(fold.combine, fold.oldFirst ? a : *v,
                                 fold.oldFirst ? *v : a)
                 << ";\n";
        } else if (lane == 0) {
          line() << a << " = " << k << " == " << kFirst << " ? " << *v
                 << " : " << *combineExpr(fold.combine, a, *v) << ";\n";
        } else {
          line() << a << " = " << *combineExpr(fold.combine, a, *v) << ";\n";
        }
      }
    }
    if (iv)
      names_[iv] = first;
    --indent_;
    line() << "}\n";
    // Across the lanes: a butterfly of shuffles leaves the warp's total on
    // every lane; a block's warps then meet in shared memory.
    if (per != RowsPer::Thread)
      for (auto [fold, a] : llvm::zip(nest.folds, acc)) {
        line() << "for (int o = 16; o > 0; o >>= 1)\n";
        line() << "  " << a << " = "
               << *combineExpr(fold.combine, a,
                               "__shfl_xor_sync(0xffffffffu, " + a + ", o)")
               << ";\n";
      }
    std::string leader = "(threadIdx.x & 31u) == 0";
    if (per == RowsPer::Block) {
      for (auto [fold, a] : llvm::zip(nest.folds, acc)) {
        line() << "__shared__ " << fold.type << " " << a << "_warps[32];\n";
        line() << "if ((threadIdx.x & 31u) == 0)\n";
        line() << "  " << a << "_warps[threadIdx.x >> 5] = " << a << ";\n";
      }
      line() << "__syncthreads();\n";
      for (auto [fold, a] : llvm::zip(nest.folds, acc)) {
        line() << a << " = " << a << "_warps[0];\n";
        line() << "for (unsigned w = 1; w < (blockDim.x >> 5); ++w)\n";
        line() << "  " << a << " = "
               << *combineExpr(fold.combine, a, a + "_warps[w]") << ";\n";
      }
      // Before the next row's warps write their totals.
      line() << "__syncthreads();\n";
      leader = "threadIdx.x == 0";
    }
    if (per != RowsPer::Thread) {
      line() << "if (" << leader << ") {\n";
      ++indent_;
    }
    for (auto [fold, a] : llvm::zip(nest.folds, acc)) {
      if (per != RowsPer::Thread) {
        if (failed(foldIntoOutput(fold, a)))
          return failure();
        continue;
      }
      FailureOr<std::string> at =
          element(fold.store.getMemRef(), fold.store.getIndices());
      if (failed(at))
        return failure();
      line() << *at << " = " << a << ";\n";
    }
    if (per != RowsPer::Thread) {
      --indent_;
      line() << "}\n";
    }
    return success();
  }

  /// A row group: consecutive nests of a kernel over the same rows (the
  /// leading loops of each, with the same bounds), one of them at least a
  /// reduction, where what a nest reads of what another writes lies in
  /// the same row (softmax's maximum, exponentials, sum and division; a
  /// layer norm's mean, deviations, variance and scaling). One launch
  /// runs them: the lanes of a row (a thread, a warp or a block) run the
  /// nests, the passes, one after another with a barrier between, instead
  /// of one launch per nest.
  struct RowPhase {
    Operation *op = nullptr;
    std::optional<ReductionNest> reduction;
    /// A parallel nest's loops: the rows, then the rest.
    SmallVector<ReductionNest::Loop> rows, inner;
    int64_t numInner = 1;
    /// A store outside loops (a 0-d fill), in a group of one row.
    bool scalar = false;
  };
  struct RowGroup {
    SmallVector<int64_t> counts;
    int64_t numRows = 1;
    SmallVector<RowPhase, 4> phases;
    RowsPer per = RowsPer::Thread;
  };

  /// `op` as a pass of a row group (a reduction nest whose rows are its
  /// outer loops, or a parallel nest), its rows not yet split off.
  static std::optional<RowPhase> phaseOf(Operation *op) {
    RowPhase phase;
    phase.op = op;
    phase.reduction = matchReduction(op);
    if (phase.reduction) {
      if (!phase.reduction->rowsFirst)
        return std::nullopt;
      return phase;
    }
    if (isa<memref::StoreOp>(op)) {
      phase.scalar = true;
      return phase;
    }
    auto loop = dyn_cast<scf::ParallelOp>(op);
    if (!loop || !gridable(loop))
      return std::nullopt;
    for (auto [iv, lb, ub, step] :
         llvm::zip(loop.getInductionVars(), loop.getLowerBound(),
                   loop.getUpperBound(), loop.getStep())) {
      int64_t l = *getConstantIntValue(lb), u = *getConstantIntValue(ub),
              s = *getConstantIntValue(step);
      phase.inner.push_back({iv, l, s, u > l ? (u - l + s - 1) / s : 0});
    }
    return phase;
  }

  /// Splits `phase`'s loops into the rows `counts` (from 0 by 1) and the
  /// rest; false if its leading loops are not those rows.
  static bool splitRows(RowPhase &phase, ArrayRef<int64_t> counts) {
    auto isRow = [](const ReductionNest::Loop &loop, int64_t count) {
      return loop.lower == 0 && loop.step == 1 && loop.count == count;
    };
    if (phase.scalar)
      return llvm::all_of(counts, [](int64_t c) { return c == 1; });
    if (phase.reduction) {
      const ReductionNest &nest = *phase.reduction;
      if (nest.rows.size() != counts.size())
        return false;
      for (auto [loop, count] : llvm::zip(nest.rows, counts))
        if (!isRow(loop, count))
          return false;
      phase.rows = nest.rows;
      phase.numInner = nest.numReduced;
      return true;
    }
    if (phase.inner.size() < counts.size())
      return false;
    for (auto [loop, count] : llvm::zip(phase.inner, counts))
      if (!isRow(loop, count))
        return false;
    phase.rows.assign(phase.inner.begin(), phase.inner.begin() + counts.size());
    phase.inner.erase(phase.inner.begin(), phase.inner.begin() + counts.size());
    phase.numInner = 1;
    for (const ReductionNest::Loop &loop : phase.inner)
      phase.numInner *= loop.count;
    return true;
  }

  /// One read or write of a pass: a load, a store or an atomic at
  /// `indices`, or any other use of a buffer (then `known` is false).
  struct Access {
    Value memref;
    SmallVector<Value> indices;
    bool write = false, known = true;
  };

  static SmallVector<Access> accessesOf(Operation *op) {
    SmallVector<Access> accesses;
    op->walk([&](Operation *inner) {
      if (auto load = dyn_cast<memref::LoadOp>(inner)) {
        accesses.push_back({load.getMemRef(), llvm::to_vector(load.getIndices())});
      } else if (auto store = dyn_cast<memref::StoreOp>(inner)) {
        accesses.push_back(
            {store.getMemRef(), llvm::to_vector(store.getIndices()), true});
      } else if (auto rmw = dyn_cast<memref::AtomicRMWOp>(inner)) {
        accesses.push_back(
            {rmw.getMemref(), llvm::to_vector(rmw.getIndices()), true});
      } else if (!isa<ViewLikeOpInterface>(inner)) {
        for (Value operand : inner->getOperands())
          if (isa<MemRefType>(operand.getType()))
            accesses.push_back({operand, {}, true, false});
      }
    });
    return accesses;
  }

  /// The bytes row r of an access touches: [begin + r * rowBytes, begin +
  /// (r + 1) * rowBytes) of `root`. Known when the buffer is contiguous
  /// (an identity layout, reached from the root through views at constant
  /// offsets and reshapes), its leading dimensions are the rows, and the
  /// access indexes them with the row variables.
  struct Slab {
    Value root;
    int64_t begin = 0, rowBytes = 0;
    bool operator==(const Slab &other) const {
      return root == other.root && begin == other.begin &&
             rowBytes == other.rowBytes;
    }
  };

  static std::optional<Slab> slabOf(const Access &access,
                                    ArrayRef<ReductionNest::Loop> rows) {
    auto type = dyn_cast<MemRefType>(access.memref.getType());
    if (!access.known || !type || !type.hasStaticShape() ||
        !type.getLayout().isIdentity() ||
        type.getRank() < static_cast<int64_t>(rows.size()) ||
        access.indices.size() != static_cast<size_t>(type.getRank()))
      return std::nullopt;
    for (auto [d, row] : llvm::enumerate(rows))
      if (access.indices[d] != row.iv || type.getDimSize(d) != row.count)
        return std::nullopt;
    Slab slab;
    slab.rowBytes = elementBytes(type.getElementType());
    for (int64_t d = rows.size(); d < type.getRank(); ++d)
      slab.rowBytes *= type.getDimSize(d);
    Value v = access.memref;
    while (Operation *def = v.getDefiningOp()) {
      if (auto view = dyn_cast<memref::ViewOp>(def)) {
        std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
        if (!shift)
          return std::nullopt;
        slab.begin += *shift;
        v = view.getSource();
        continue;
      }
      if (isa<memref::ReshapeOp, memref::CollapseShapeOp,
              memref::ExpandShapeOp>(def)) {
        auto source = dyn_cast<MemRefType>(def->getOperand(0).getType());
        if (!source || !source.getLayout().isIdentity())
          return std::nullopt;
        v = def->getOperand(0);
        continue;
      }
      return std::nullopt;
    }
    if (auto root = dyn_cast<MemRefType>(v.getType()))
      if (!root.getLayout().isIdentity())
        return std::nullopt;
    slab.root = v;
    return slab;
  }

  /// Whether `later` may follow `earlier` in a row group: wherever one
  /// writes bytes the other may touch, both reach them through the same
  /// slabs (each row only its own bytes).
  static bool rowLocal(const RowPhase &earlier, const RowPhase &later) {
    SmallVector<Access> a = accessesOf(earlier.op), b = accessesOf(later.op);
    for (const Access &x : a)
      for (const Access &y : b) {
        if (!x.write && !y.write)
          continue;
        if (!mayAlias(regionOf(x.memref), regionOf(y.memref)))
          continue;
        std::optional<Slab> sx = slabOf(x, earlier.rows),
                            sy = slabOf(y, later.rows);
        // Two arguments that may alias are one buffer when they do (an
        // output donated to an input): the same slabs if laid out alike.
        if (sx && sy && sx->root != sy->root)
          sy->root = sx->root;
        if (!sx || !sy || !(*sx == *sy))
          return false;
      }
    return true;
  }

  /// The row group starting at `ops[i]`, and in `last` the index of its
  /// last nest; nothing (and `last` unchanged) if the nests from `i` make
  /// none.
  static std::optional<RowGroup> matchRowGroup(ArrayRef<Operation *> ops,
                                               size_t i, size_t &last) {
    SmallVector<RowPhase, 4> candidates;
    SmallVector<size_t> at;
    for (size_t j = i; j < ops.size(); ++j) {
      if (isPrelude(ops[j]) && isMemoryEffectFree(ops[j]))
        continue;
      std::optional<RowPhase> phase = phaseOf(ops[j]);
      if (!phase)
        break;
      candidates.push_back(std::move(*phase));
      at.push_back(j);
    }
    // The rows are the first reduction's.
    const RowPhase *first = llvm::find_if(
        candidates, [](const RowPhase &p) { return p.reduction.has_value(); });
    if (first == candidates.end())
      return std::nullopt;
    RowGroup group;
    for (const ReductionNest::Loop &loop : first->reduction->rows)
      group.counts.push_back(loop.count);
    group.numRows = first->reduction->numRows;
    size_t end = i;
    for (size_t c = 0; c < candidates.size(); ++c) {
      RowPhase &phase = candidates[c];
      if (!splitRows(phase, group.counts))
        break;
      // One row (a reduction into one value, its initial store): the
      // lanes of one thread, warp or block run every pass, in order, so
      // no pass may be large.
      if (group.numRows == 1 && phase.numInner > kBlockRowFrom &&
          !phase.reduction)
        break;
      if (group.numRows > 1 &&
          !llvm::all_of(group.phases, [&](const RowPhase &earlier) {
            return rowLocal(earlier, phase);
          }))
        break;
      group.phases.push_back(std::move(phase));
      end = at[c];
    }
    if (group.phases.size() < 2 ||
        llvm::none_of(group.phases, [](const RowPhase &p) {
          return p.reduction.has_value();
        }))
      return std::nullopt;
    last = end;
    int64_t most = 1;
    for (const RowPhase &phase : group.phases)
      most = std::max(most, phase.numInner);
    group.per = most >= kBlockRowFrom  ? RowsPer::Block
                : most >= kWarpRowFrom ? RowsPer::Warp
                                       : RowsPer::Thread;
    return group;
  }

  /// A row group as one launch: each row's passes in order, a barrier
  /// between (a reduction's total is in its output before the next pass
  /// reads it).
  LogicalResult emitRowGroup(RowGroup &group, nnc::cuda::Launch &launch) {
    RowsPer per = group.per;
    int64_t lanes = per == RowsPer::Thread ? 1
                    : per == RowsPer::Warp ? 32
                                           : launch.block;
    launch.iterations = group.numRows * lanes;
    line() << "// Row group: " << group.numRows
           << (group.numRows == 1 ? " row, " : " rows, ")
           << group.phases.size() << " passes over each, one "
           << (per == RowsPer::Thread ? "thread"
               : per == RowsPer::Warp ? "warp"
                                      : "block")
           << " per row.\n";
    std::string row = openRowLoop(per, group.numRows);
    // A pass of one value runs on a row's first lane, which also stores a
    // reduction's total (after every lane has read its values): between
    // such passes and reductions, no barrier.
    bool firstLaneOnly = true;
    for (auto [p, phase] : llvm::enumerate(group.phases)) {
      bool mine = !phase.reduction && phase.numInner == 1;
      if (p && !(mine && firstLaneOnly)) {
        if (per == RowsPer::Block)
          line() << "__syncthreads();\n";
        else if (per == RowsPer::Warp)
          line() << "__syncwarp();\n";
        firstLaneOnly = true;
      }
      if (!phase.reduction && phase.numInner > 1)
        firstLaneOnly = false;
      line() << "// Pass " << p + 1 << ": "
             << (phase.reduction ? "a reduction of " : "") << phase.numInner
             << (phase.numInner == 1 ? " value.\n" : " values.\n");
      emitIndices(phase.rows, row);
      if (phase.reduction) {
        if (failed(emitRowFold(*phase.reduction, per)))
          return failure();
        continue;
      }
      if (phase.scalar) {
        line() << "if (" << laneFirst(per) << " == 0LL) {\n";
        ++indent_;
        if (failed(emitOp(phase.op)))
          return failure();
        --indent_;
        line() << "}\n";
        continue;
      }
      // Each lane takes `width` consecutive values of the innermost loop at
      // a time, with vector accesses where the nest allows (planVectors).
      auto loop = cast<scf::ParallelOp>(phase.op);
      VectorPlan plan;
      if (!phase.inner.empty()) {
        SmallVector<int64_t> lower, counts, steps;
        for (const ReductionNest::Loop &l :
             llvm::concat<const ReductionNest::Loop>(phase.rows, phase.inner)) {
          lower.push_back(l.lower);
          counts.push_back(l.count);
          steps.push_back(l.step);
        }
        plan = planVectors(loop, lower, counts, steps);
      }
      SmallVector<ReductionNest::Loop> inner = phase.inner;
      if (plan.width > 1) {
        inner.back().count /= plan.width;
        inner.back().step *= plan.width;
      }
      std::string k = fresh(), kFirst = laneFirst(per);
      line() << "for (long long " << k << " = " << kFirst << "; " << k
             << " < " << phase.numInner / plan.width << "LL; " << k
             << " += " << laneStride(per) << ") {\n";
      ++indent_;
      emitIndices(inner, k);
      if (failed(plan.width == 1 ? emitBlock(loop.getBody())
                                 : emitLanes(loop, plan)))
        return failure();
      --indent_;
      line() << "}\n";
    }
    --indent_;
    line() << "}\n";
    return success();
  }

  /// How a parallel nest's threads take its innermost loop: `width`
  /// consecutive iterations each (1: one), with the loads and stores in
  /// `vectors` as one access of `width` elements (ld.global.v4.f32 and the
  /// like) and everything else once per iteration, in order.
  struct VectorPlan {
    int64_t width = 1;
    llvm::SmallPtrSet<Operation *, 8> vectors;
  };

  /// Whether `value` is computed from `iv` inside `region`.
  static bool dependsOn(Value value, Value iv, mlir::Region *region) {
    if (value == iv)
      return true;
    Operation *def = value.getDefiningOp();
    if (!def || !region->isAncestor(def->getParentRegion()))
      return false;
    return llvm::any_of(def->getOperands(), [&](Value operand) {
      return dependsOn(operand, iv, region);
    });
  }

  /// Whether the access of `memref` at `indices` in the loop nest `nest`
  /// reads or writes `width` consecutive, aligned elements for `width`
  /// consecutive values of the innermost induction variable `iv`: `iv` is
  /// the index of a dimension of stride 1 and no other index depends on it
  /// (a constant index, such as 0 into a dimension of size 1, counts by its
  /// value).
  bool contiguous(Value memref, ValueRange indices, Value iv,
                  mlir::Region *nest, int64_t width) {
    auto it = buffers_.find(memref);
    if (it == buffers_.end())
      return false;
    const Buffer &buffer = it->second;
    int64_t bytes = elementBytes(buffer.type.getElementType());
    int64_t offset = 0;
    if (width * bytes > kMaxVectorBytes ||
        buffer.align % (width * bytes) != 0 ||
        StringRef(buffer.offset).getAsInteger(10, offset) ||
        offset % width != 0 || llvm::count(indices, iv) != 1)
      return false;
    for (auto [index, stride] : llvm::zip(indices, buffer.strides)) {
      if (index == iv) {
        if (stride != 1)
          return false;
        continue;
      }
      std::optional<int64_t> constant = getConstantIntValue(index);
      if (constant
              ? (*constant * stride) % width != 0
              : stride % width != 0 || dependsOn(index, iv, nest))
        return false;
    }
    return true;
  }

  /// Whether and how `loop`'s threads take several innermost iterations.
  /// Every store must be a vector one at the body's top level, and no load
  /// may follow a store of bytes it may read (the stores of all of a
  /// thread's iterations happen after its last reaches them); any other
  /// writer (atomics, calls) keeps the nest scalar.
  VectorPlan planVectors(scf::ParallelOp loop, ArrayRef<int64_t> lower,
                         ArrayRef<int64_t> counts, ArrayRef<int64_t> steps) {
    Block *body = loop.getBody();
    Value iv = loop.getInductionVars().back();
    if (steps.back() != 1)
      return {};
    bool scalar = false;
    SmallVector<memref::StoreOp> stores;
    SmallVector<memref::LoadOp> loads;
    body->walk([&](Operation *op) {
      if (auto store = dyn_cast<memref::StoreOp>(op)) {
        if (op->getBlock() != body)
          scalar = true;
        stores.push_back(store);
      } else if (auto load = dyn_cast<memref::LoadOp>(op)) {
        loads.push_back(load);
      } else if (op->getNumRegions() == 0 && !isMemoryEffectFree(op) &&
                 !isa<ViewLikeOpInterface>(op)) {
        scalar = true;
      }
    });
    if (scalar || stores.empty())
      return {};
    for (memref::StoreOp store : stores)
      for (memref::LoadOp load : loads)
        if (store->isBeforeInBlock(body->findAncestorOpInBlock(*load)) &&
            mayAlias(regionOf(store.getMemRef()), regionOf(load.getMemRef())))
          return {};
    // 16 bytes at most per access: 8 halves, 4 floats. Of the widths that
    // take every store, the one with the most vector loads, the widest on
    // a tie (an f16 store of 8 does not cost f32 loads their float4).
    VectorPlan best;
    for (int64_t width : {8, 4, 2}) {
      if (counts.back() % width != 0 || lower.back() % width != 0)
        continue;
      VectorPlan plan;
      plan.width = width;
      bool ok = true;
      for (memref::StoreOp store : stores) {
        ok = ok &&
             contiguous(store.getMemRef(), store.getIndices(), iv,
                        &loop.getRegion(), width);
        plan.vectors.insert(store);
      }
      if (!ok)
        continue;
      for (memref::LoadOp load : loads)
        if (load->getBlock() == body &&
            contiguous(load.getMemRef(), load.getIndices(), iv,
                       &loop.getRegion(), width))
          plan.vectors.insert(load);
      if (best.width == 1 || plan.vectors.size() > best.vectors.size())
        best = std::move(plan);
    }
    return best;
  }

  /// The top-level parallel loop: thread t of the grid takes iterations
  /// t, t + threads, ... of its flattened space (the last dimension
  /// fastest), or groups of consecutive innermost ones (planVectors).
  /// A top-level parallel loop spread one (or `plan.width`) iterations per
  /// thread: its bounds, and the threads it takes in each dimension.
  struct Grid {
    SmallVector<int64_t> lower, steps, threads;
    VectorPlan plan;
    int64_t total = 1;
  };

  /// Whether `loop` can be a grid: static bounds and positive steps, no
  /// results.
  static bool gridable(scf::ParallelOp loop) {
    if (loop.getNumResults())
      return false;
    for (auto [lb, ub, step] : llvm::zip(
             loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      std::optional<int64_t> s = getConstantIntValue(step);
      if (!getConstantIntValue(lb) || !getConstantIntValue(ub) || !s ||
          *s <= 0)
        return false;
    }
    return true;
  }

  FailureOr<Grid> gridOf(scf::ParallelOp loop) {
    if (loop.getNumResults())
      return loop.emitError("CUDA kernels take parallel loops without "
                            "reductions");
    if (!gridable(loop))
      return loop.emitError("a CUDA kernel's parallel loop needs static "
                            "bounds and positive steps");
    Grid grid;
    SmallVector<int64_t> counts;
    for (auto [lb, ub, step] : llvm::zip(
             loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      int64_t l = *getConstantIntValue(lb), u = *getConstantIntValue(ub),
              s = *getConstantIntValue(step);
      grid.lower.push_back(l);
      grid.steps.push_back(s);
      counts.push_back(u > l ? (u - l + s - 1) / s : 0);
    }
    grid.plan = planVectors(loop, grid.lower, counts, grid.steps);
    // Each thread takes `plan.width` consecutive innermost iterations.
    grid.threads.assign(counts.begin(), counts.end());
    grid.threads.back() /= grid.plan.width;
    for (int64_t c : grid.threads)
      grid.total *= c;
    return grid;
  }

  /// The iterations of thread `r` (its index within the grid) of `loop`.
  LogicalResult emitGridBody(scf::ParallelOp loop, const Grid &grid) {
    const SmallVector<int64_t> &threads = grid.threads;
    for (size_t d = threads.size(); d-- > 0;) {
      std::string iv = fresh();
      names_[loop.getInductionVars()[d]] = iv;
      // (The innermost loop's step is 1 when threads take several.)
      int64_t step = d + 1 == threads.size()
                         ? grid.steps[d] * grid.plan.width
                         : grid.steps[d];
      line() << "const long long " << iv << " = " << grid.lower[d]
             << "LL + (r % " << threads[d] << "LL) * " << step << "LL;\n";
      if (d)
        line() << "r /= " << threads[d] << "LL;\n";
    }
    return grid.plan.width == 1 ? emitBlock(loop.getBody())
                                : emitLanes(loop, grid.plan);
  }

  /// A grid-stride loop over `total` threads.
  void openGridStride(int64_t total) {
    line() << "for (long long t = (long long)blockIdx.x * blockDim.x + "
              "threadIdx.x; t < "
           << total << "LL; t += (long long)gridDim.x * blockDim.x) {\n";
    ++indent_;
  }

  LogicalResult emitGridLoop(scf::ParallelOp loop, int64_t &total) {
    FailureOr<Grid> grid = gridOf(loop);
    if (failed(grid))
      return failure();
    total = grid->total;
    openGridStride(total);
    line() << "long long r = t;\n";
    if (failed(emitGridBody(loop, *grid)))
      return failure();
    --indent_;
    line() << "}\n";
    return success();
  }

  /// Independent parallel loops as one launch (a multi-tensor launch, as
  /// an optimizer's updates of many parameters take): their threads one
  /// range after another in one grid-stride loop, each thread running the
  /// loop its index falls in.
  LogicalResult emitMergedGrids(ArrayRef<Operation *> loops, int64_t &total) {
    std::vector<Grid> grids;
    total = 0;
    for (Operation *op : loops) {
      FailureOr<Grid> grid = gridOf(cast<scf::ParallelOp>(op));
      if (failed(grid))
        return failure();
      total += grid->total;
      grids.push_back(std::move(*grid));
    }
    openGridStride(total);
    int64_t begin = 0;
    for (auto [i, op] : llvm::enumerate(loops)) {
      int64_t end = begin + grids[i].total;
      line() << (i ? "} else " : "") << "if (t < " << end << "LL) {\n";
      ++indent_;
      line() << "long long r = t - " << begin << "LL;\n";
      if (failed(emitGridBody(cast<scf::ParallelOp>(op), grids[i])))
        return failure();
      --indent_;
      begin = end;
    }
    line() << "}\n";
    --indent_;
    line() << "}\n";
    return success();
  }

  /// The body of `loop` once per innermost iteration of a thread (lanes
  /// 0 to width - 1, the induction variable bound to the first): a vector
  /// load in lane 0 where the body has it, whose elements the lanes take;
  /// a vector store in the last lane, of the values each lane stored.
  LogicalResult emitLanes(scf::ParallelOp loop, const VectorPlan &plan) {
    Value iv = loop.getInductionVars().back();
    const std::string first = names_[iv];
    const std::string width = std::to_string(plan.width);
    DenseMap<Operation *, std::string> vectorOf;
    DenseMap<Operation *, SmallVector<std::string>> stored;
    // Whether any op but the vector accesses reads the induction variable
    // (then each lane declares its own).
    bool read = false;
    for (Operation &op : loop.getBody()->without_terminator())
      if (!plan.vectors.contains(&op))
        op.walk([&](Operation *inner) {
          read = read || llvm::is_contained(inner->getOperands(), iv);
        });
    for (int64_t lane = 0; lane < plan.width; ++lane) {
      std::string laneIv = first;
      if (lane && read) {
        laneIv = fresh();
        line() << "const long long " << laneIv << " = " << first << " + "
               << lane << "LL;\n";
      }
      for (Operation &op : loop.getBody()->without_terminator()) {
        names_[iv] = laneIv;
        if (!plan.vectors.contains(&op)) {
          if (failed(emitOp(&op)))
            return failure();
          continue;
        }
        auto load = dyn_cast<memref::LoadOp>(op);
        auto store = dyn_cast<memref::StoreOp>(op);
        Value memref = load ? load.getMemRef() : store.getMemRef();
        ValueRange indices = load ? load.getIndices() : store.getIndices();
        FailureOr<std::string> type =
            scalarType(cast<MemRefType>(memref.getType()).getElementType());
        if (failed(type))
          return op.emitError("CUDA kernels cannot hold ")
                 << cast<MemRefType>(memref.getType()).getElementType();
        std::string vector = "nnc_vec<" + *type + ", " + width + ">";
        names_[iv] = first;
        if (load) {
          if (lane == 0) {
            FailureOr<std::string> at = element(memref, indices);
            if (failed(at))
              return failure();
            std::string v = fresh();
            vectorOf[&op] = v;
            line() << "const " << vector << " " << v << " = *(const " << vector
                   << " *)&" << *at << ";\n";
          }
          names_[load.getResult()] =
              vectorOf[&op] + ".v[" + std::to_string(lane) + "]";
          continue;
        }
        FailureOr<std::string> value = name(store.getValue());
        if (failed(value))
          return failure();
        stored[&op].push_back(*value);
        if (lane + 1 < plan.width)
          continue;
        FailureOr<std::string> at = element(memref, indices);
        if (failed(at))
          return failure();
        std::string v = fresh();
        line() << vector << " " << v << ";\n";
        for (auto [i, part] : llvm::enumerate(stored[&op]))
          line() << v << ".v[" << i << "] = " << part << ";\n";
        line() << "*(" << vector << " *)&" << *at << " = " << v << ";\n";
      }
    }
    names_[iv] = first;
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
                           MemRefType type, int64_t align) {
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
    buffer.align = align;
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
          // The new base's alignment: the source's, less what its offset
          // and the shift move it by (nothing known when either is not a
          // constant).
          buffer.align = elementBytes(buffer.type.getElementType());
          int64_t from = 0;
          std::optional<int64_t> bytes =
              getConstantIntValue(view.getByteShift());
          if (bytes && !StringRef(it->second.offset).getAsInteger(10, from))
            buffer.align = std::max<int64_t>(
                1,
                std::gcd(std::gcd(it->second.align,
                                  from * elementBytes(
                                             it->second.type.getElementType())),
                         *bytes));
          line() << *element << " *" << buffer.base << " = (" << *element
                 << " *)((char *)(" << it->second.base << " + "
                 << it->second.offset << ") + " << *shift << ");\n";
          buffers_[view.getResult()] = buffer;
          return success();
        })
        .Case([&](memref::GetGlobalOp get) -> LogicalResult {
          // The constant, emitted at file scope by emitCuda as its bits.
          return bindBuffer(
              get.getResult(), "(char *)" + globalName(get.getName()),
              get.getType(), elementBytes(get.getType().getElementType()));
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
// N consecutive elements as one aligned access (a vector load or store).
template <typename T, int N> struct alignas(sizeof(T) * N) nnc_vec { T v[N]; };
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
