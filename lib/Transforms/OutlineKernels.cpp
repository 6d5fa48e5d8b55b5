//===- OutlineKernels.cpp - one function per kernel -----------------------===//
//
// Implements --nnc-outline-kernels: the body of a bufferized function is
// split into kernels, each a function of its own that the runtime launches
// as one step of the plan (and the profiler times by name). Views,
// constants and addresses are recomputed inside each kernel from the
// function arguments it takes.
//
//===----------------------------------------------------------------------===//

#include "nnc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

#include <limits>
#include <set>

namespace nnc {
#define GEN_PASS_DEF_OUTLINEKERNELSPASS
#include "nnc/Transforms/Passes.h.inc"
} // namespace nnc

using namespace mlir;

namespace {

int64_t memrefBytes(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() ||
      !memref.getElementType().isIntOrFloat())
    return 0;
  int64_t bits = memref.getElementTypeBitWidth();
  return memref.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
}

using Names = llvm::SetVector<std::string, std::vector<std::string>,
                              std::set<std::string>>;

/// Appends the names of `loc` (NameLocs, through fused and call-site
/// locations) to `names`, and its file positions ("add.mlir:3") to
/// `positions`.
void collectNames(Location loc, Names &names, Names &positions) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    names.insert(name.getName().str());
    return;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location inner : fused.getLocations())
      collectNames(inner, names, positions);
    return;
  }
  if (auto site = dyn_cast<CallSiteLoc>(loc)) {
    collectNames(site.getCallee(), names, positions);
    return;
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    StringRef path = file.getFilename().getValue();
    positions.insert(
        (path.substr(path.find_last_of('/') + 1) + ":" + Twine(file.getLine()))
            .str());
  }
}

/// Whether `op` holds linalg ops or copies in its regions (a loop of work,
/// not only the BLAS calls of a batched GEMM).
bool hasLoopWork(Operation *op) {
  if (op->getNumRegions() == 0)
    return false;
  bool found = false;
  op->walk([&](Operation *inner) {
    found |= inner != op && isa<linalg::LinalgOp, memref::CopyOp>(inner);
  });
  return found;
}

/// The memref an address computed by --nnc-gemm-to-blas points into: the
/// source of the extract_aligned_pointer_as_index that the pointer is an
/// offset from, or null.
Value memrefOfPointer(Value pointer) {
  while (Operation *def = pointer.getDefiningOp()) {
    if (auto extract = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(def))
      return extract.getSource();
    if (isa<LLVM::IntToPtrOp, arith::IndexCastOp>(def))
      pointer = def->getOperand(0);
    else if (auto add = dyn_cast<arith::AddIOp>(def))
      pointer = add.getLhs(); // base + byte offset
    else
      return {};
  }
  return {};
}

/// The whole buffer `value` is a view of: an allocation, a function
/// argument or a slot of the arena (a memref.view).
Value wholeBuffer(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    auto like = dyn_cast<ViewLikeOpInterface>(def);
    if (!like || isa<memref::ViewOp>(def))
      break;
    value = like.getViewSource();
  }
  return value;
}

/// The buffers a loop of work reads and writes, each whole and once (a
/// loop over the images of a convolution sweeps its input and output):
/// linalg operands, copies, GEMM calls' A, B and C, other memref operands
/// as reads. Buffers the loop reuses in every iteration (`nnc.loop_local`,
/// per-image tiles) stay in cache and do not count.
void loopTraffic(Operation *op, int64_t &read, int64_t &written) {
  llvm::SetVector<Value> reads, writes;
  auto add = [](llvm::SetVector<Value> &set, Value v) {
    if (!v || !isa<MemRefType>(v.getType()))
      return;
    Value whole = wholeBuffer(v);
    Operation *def = whole.getDefiningOp();
    if (def && def->hasAttr("nnc.loop_local"))
      return;
    set.insert(whole);
  };
  op->walk([&](Operation *inner) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(inner)) {
      for (OpOperand *input : linalgOp.getDpsInputOperands())
        add(reads, input->get());
      for (OpOperand &init : linalgOp.getDpsInitsMutable()) {
        add(writes, init.get());
        if (linalgOp.payloadUsesValueFromOperand(&init))
          add(reads, init.get());
      }
    } else if (auto copy = dyn_cast<memref::CopyOp>(inner)) {
      add(reads, copy.getSource());
      add(writes, copy.getTarget());
    } else if (auto call = dyn_cast<func::CallOp>(inner);
               call && call->hasAttr("nnc.gemm") &&
               call.getNumOperands() == 14) {
      // (order, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc)
      add(reads, memrefOfPointer(call.getOperand(7)));
      add(reads, memrefOfPointer(call.getOperand(9)));
      add(writes, memrefOfPointer(call.getOperand(12)));
      if (call->hasAttr("nnc.accumulate"))
        add(reads, memrefOfPointer(call.getOperand(12)));
    } else if (auto store = dyn_cast<memref::StoreOp>(inner)) {
      add(writes, store.getMemRef());
    } else if (!isa<ViewLikeOpInterface>(inner) &&
               !isa<memref::ExtractAlignedPointerAsIndexOp,
                    memref::ExtractStridedMetadataOp>(inner)) {
      for (Value v : inner->getOperands())
        add(reads, v);
    }
  });
  for (Value v : reads)
    read += memrefBytes(v.getType());
  for (Value v : writes)
    written += memrefBytes(v.getType());
}

/// What an op of a kernel computes, for its name: the linalg op without
/// its dialect ("generic", "reduce", "fill"), the library function called,
/// "copy", or the op name.
std::string kindOf(Operation *op) {
  if (auto call = dyn_cast<func::CallOp>(op))
    return call.getCallee().str();
  if (hasLoopWork(op)) {
    // A loop of several ops (a convolution image by image): the kinds of
    // its ops, each once, in order.
    SmallVector<std::string> kinds;
    op->walk<WalkOrder::PreOrder>([&](Operation *inner) {
      if (inner == op ||
          !isa<linalg::LinalgOp, memref::CopyOp, func::CallOp>(inner))
        return;
      std::string kind = kindOf(inner);
      if (!llvm::is_contained(kinds, kind))
        kinds.push_back(kind);
    });
    return "for(" + llvm::join(kinds, "+") + ")";
  }
  std::string kind;
  op->walk([&](func::CallOp call) {
    if (kind.empty())
      kind = call.getCallee().str();
  });
  if (!kind.empty())
    return kind;
  if (isa<memref::CopyOp>(op))
    return "copy";
  StringRef name = op->getName().getStringRef();
  return name.substr(name.find('.') + 1).str();
}

/// A byte range of a buffer: views of the arena at constant offsets are
/// told apart by their bytes; anything else is its whole buffer.
struct Span {
  Value root;
  int64_t begin = 0, end = std::numeric_limits<int64_t>::max();
};

Span spanOf(Value value) {
  Span span;
  while (true) {
    if (auto view = value.getDefiningOp<memref::ViewOp>()) {
      std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
      int64_t bytes = memrefBytes(view.getType());
      if (shift && bytes > 0) {
        span.begin = *shift;
        span.end = *shift + bytes;
      } else {
        span.begin = 0;
        span.end = std::numeric_limits<int64_t>::max();
      }
      value = view.getSource();
      continue;
    }
    if (auto like = value.getDefiningOp<ViewLikeOpInterface>()) {
      value = like.getViewSource();
      continue;
    }
    break;
  }
  span.root = value;
  return span;
}

bool overlaps(const Span &a, const Span &b) {
  return a.root == b.root && a.begin < b.end && b.begin < a.end;
}

/// The spans a kernel op reads and writes, when it is an all-parallel
/// linalg op on buffers; false otherwise.
bool elementwiseAccess(Operation *op, SmallVector<Span> &reads,
                       SmallVector<Span> &writes) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureBufferSemantics() ||
      linalgOp.getNumLoops() != linalgOp.getNumParallelLoops())
    return false;
  // A body that reads a buffer by address (a gather) accesses more than
  // its operands' elements.
  bool nestedMemref = false;
  op->walk([&](Operation *inner) {
    if (inner != op)
      nestedMemref |= llvm::any_of(inner->getOperandTypes(),
                                   [](Type t) { return isa<MemRefType>(t); });
  });
  if (nestedMemref)
    return false;
  for (OpOperand *input : linalgOp.getDpsInputOperands())
    if (isa<MemRefType>(input->get().getType()))
      reads.push_back(spanOf(input->get()));
  for (OpOperand &init : linalgOp.getDpsInitsMutable()) {
    reads.push_back(spanOf(init.get()));
    writes.push_back(spanOf(init.get()));
  }
  return true;
}

struct Kernel {
  SmallVector<Operation *> ops;
};

struct OutlineKernelsPass
    : public nnc::impl::OutlineKernelsPassBase<OutlineKernelsPass> {
  using OutlineKernelsPassBase::OutlineKernelsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> functions;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal() &&
          !func->hasAttr("nnc.kernel_name"))
        functions.push_back(func);
    for (func::FuncOp func : functions)
      if (failed(outline(module, func)))
        return signalPassFailure();
  }

  /// Ops recomputed inside every kernel that needs them.
  static bool isRecomputable(Operation *op, Block &body,
                             const DenseSet<Operation *> &work) {
    // Views (memref.reshape reads its shape operand, a constant) and
    // anything without side effects.
    if (op->getNumRegions() != 0 || op->hasTrait<OpTrait::IsTerminator>() ||
        !(isMemoryEffectFree(op) || isa<ViewLikeOpInterface>(op)))
      return false;
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && def->getBlock() == &body && work.count(def))
        return false;
    }
    return true;
  }

  LogicalResult outline(ModuleOp module, func::FuncOp func) {
    if (!func.getBody().hasOneBlock())
      return func.emitError() << "cannot outline kernels from a function "
                                 "with more than one block";
    Block &body = func.getBody().front();
    auto ret = dyn_cast<func::ReturnOp>(body.getTerminator());
    if (!ret || ret.getNumOperands() != 0)
      return func.emitError()
             << "cannot outline kernels from a function that returns values "
                "(results must be out-parameters)";

    // Classify: ops recomputed in kernels, and work.
    DenseSet<Operation *> work;
    for (Operation &op : body.without_terminator())
      if (!isRecomputable(&op, body, work))
        work.insert(&op);

    // Group the work into kernels, in order.
    SmallVector<Kernel> kernels;
    DenseMap<Operation *, size_t> kernelOf;
    auto writtenBy = [](Operation *op) -> Value {
      if (auto fill = dyn_cast<linalg::FillOp>(op))
        return fill.hasPureBufferSemantics() ? fill.getDpsInits()[0] : Value();
      if (auto copy = dyn_cast<memref::CopyOp>(op))
        return copy.getTarget();
      return Value();
    };
    // Values (of the body) that `op` uses, through recomputed ops.
    auto usedValues = [&](Operation *op) {
      llvm::SetVector<Value> used;
      SmallVector<Value> worklist;
      op->walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          worklist.push_back(v);
      });
      while (!worklist.empty()) {
        Value v = worklist.pop_back_val();
        if (!used.insert(v))
          continue;
        Operation *def = v.getDefiningOp();
        if (def && def->getBlock() == &body && !work.count(def))
          worklist.append(def->operand_begin(), def->operand_end());
      }
      return used;
    };
    for (Operation &op : body.without_terminator()) {
      if (!work.count(&op))
        continue;
      bool joinPrevious = false;
      if (!kernels.empty()) {
        Operation *last = kernels.back().ops.back();
        Value init = writtenBy(last);
        if (init && kernels.back().ops.size() == 1 &&
            usedValues(&op).contains(init))
          joinPrevious = true;
      }
      // A GEMM epilogue a target marked (nnc.epilogue) stays with the
      // product right before it, which the target's library runs with it.
      if (op.hasAttr("nnc.epilogue") && !kernels.empty())
        joinPrevious = true;
      // So does an op a target marked to join the kernel before it
      // (nnc.join_kernel: the CUDA target's row groups).
      if (op.hasAttr("nnc.join_kernel") && !kernels.empty())
        joinPrevious = true;
      // A value other than a buffer from an earlier kernel: join it and
      // everything since.
      for (Value v : usedValues(&op)) {
        Operation *def = v.getDefiningOp();
        if (def && work.count(def) && kernelOf.count(def)) {
          size_t from = kernelOf[def];
          // In body order: the kernels since may write the same buffers.
          for (size_t k = from + 1; k < kernels.size(); ++k) {
            for (Operation *t : kernels[k].ops) {
              kernels[from].ops.push_back(t);
              kernelOf[t] = from;
            }
          }
          kernels.truncate(from + 1);
          joinPrevious = true;
        }
      }
      if (!joinPrevious)
        kernels.emplace_back();
      kernels.back().ops.push_back(&op);
      kernelOf[&op] = kernels.size() - 1;
    }

    if (horizontal)
      kernels = fuseHorizontally(std::move(kernels));

    // Outline each kernel.
    OpBuilder moduleBuilder(module.getContext());
    moduleBuilder.setInsertionPoint(func);
    SmallVector<std::pair<func::FuncOp, SmallVector<Value>>> calls;
    for (auto [index, kernel] : llvm::enumerate(kernels)) {
      llvm::SetVector<Value> used;
      for (Operation *op : kernel.ops)
        used.insert_range(usedValues(op));
      SmallVector<Value> args;
      for (Value v : used)
        if (auto arg = dyn_cast<BlockArgument>(v);
            arg && arg.getOwner() == &body)
          args.push_back(arg);
      llvm::sort(args, [](Value a, Value b) {
        return cast<BlockArgument>(a).getArgNumber() <
               cast<BlockArgument>(b).getArgNumber();
      });
      SmallVector<Type> argTypes;
      for (Value a : args)
        argTypes.push_back(a.getType());
      std::string name = (func.getName() + "_k" + Twine(index)).str();
      // Never a name the module already has.
      for (unsigned suffix = 1; module.lookupSymbol(name); ++suffix)
        name =
            (func.getName() + "_k" + Twine(index) + "_" + Twine(suffix)).str();
      auto kernelFunc = func::FuncOp::create(
          moduleBuilder, kernel.ops.front()->getLoc(), name,
          moduleBuilder.getFunctionType(argTypes, {}));
      // The arena stays marked: it is nobody's input or output, so a
      // target knows it shares no bytes with the other arguments.
      for (auto [i, a] : llvm::enumerate(args))
        if (func.getArgAttr(cast<BlockArgument>(a).getArgNumber(), "nnc.arena"))
          kernelFunc.setArgAttr(i, "nnc.arena", moduleBuilder.getUnitAttr());
      Block *entry = kernelFunc.addEntryBlock();
      OpBuilder builder = OpBuilder::atBlockEnd(entry);
      IRMapping mapping;
      for (auto [a, blockArg] : llvm::zip(args, entry->getArguments()))
        mapping.map(a, blockArg);
      // Recomputed ops first, in body order, then the work.
      for (Operation &op : body.without_terminator()) {
        if (work.count(&op))
          continue;
        bool needed = llvm::any_of(op.getResults(),
                                   [&](Value r) { return used.contains(r); });
        if (needed)
          builder.clone(op, mapping);
      }
      for (Operation *op : kernel.ops)
        builder.clone(*op, mapping);
      func::ReturnOp::create(builder, func.getLoc());
      annotate(kernelFunc, kernel);
      calls.push_back({kernelFunc, args});
    }

    // The body: one call per kernel.
    SmallVector<Operation *> old;
    for (Operation &op : body.without_terminator())
      old.push_back(&op);
    for (Operation *op : llvm::reverse(old)) {
      op->dropAllUses();
      op->erase();
    }
    OpBuilder builder(ret);
    for (auto &[kernelFunc, args] : calls)
      func::CallOp::create(builder, ret.getLoc(), kernelFunc, args);
    func->setAttr("nnc.kernels", builder.getI64IntegerAttr(
                                     static_cast<int64_t>(calls.size())));
    return success();
  }

  /// Consecutive kernels of independent all-parallel linalg ops become one.
  SmallVector<Kernel> fuseHorizontally(SmallVector<Kernel> kernels) {
    SmallVector<Kernel> result;
    SmallVector<Span> groupReads, groupWrites;
    bool groupOpen = false;
    for (Kernel &kernel : kernels) {
      SmallVector<Span> reads, writes;
      bool elementwise = true;
      for (Operation *op : kernel.ops)
        elementwise = elementwise && elementwiseAccess(op, reads, writes);
      bool independent =
          elementwise && groupOpen &&
          static_cast<int64_t>(result.back().ops.size() + kernel.ops.size()) <=
              maxHorizontal;
      auto conflict = [](ArrayRef<Span> a, ArrayRef<Span> b) {
        for (const Span &x : a)
          for (const Span &y : b)
            if (overlaps(x, y))
              return true;
        return false;
      };
      if (independent)
        independent =
            !conflict(groupWrites, reads) && !conflict(groupReads, writes);
      if (independent) {
        result.back().ops.append(kernel.ops.begin(), kernel.ops.end());
      } else {
        result.push_back(std::move(kernel));
        groupReads.clear();
        groupWrites.clear();
        groupOpen = elementwise;
      }
      if (elementwise) {
        groupReads.append(reads.begin(), reads.end());
        groupWrites.append(writes.begin(), writes.end());
      }
    }
    return result;
  }

  /// Names the kernel and estimates the bytes it reads and writes.
  void annotate(func::FuncOp kernelFunc, const Kernel &kernel) {
    Names names, positions;
    SmallVector<std::pair<std::string, int>> kinds;
    int64_t read = 0, written = 0;
    bool library = false, initializersOnly = true;
    for (Operation *op : kernel.ops) {
      op->walk([&](Operation *inner) {
        collectNames(inner->getLoc(), names, positions);
      });
      std::string kind = kindOf(op);
      if (kinds.empty() || kinds.back().first != kind)
        kinds.push_back({kind, 0});
      ++kinds.back().second;
      if (hasLoopWork(op)) {
        initializersOnly = false;
        loopTraffic(op, read, written);
        continue;
      }
      bool gemm = false;
      op->walk([&](func::CallOp call) {
        auto sizes = call->getAttrOfType<DenseI64ArrayAttr>("nnc.gemm");
        if (!sizes || sizes.size() != 5)
          return;
        gemm = true;
        // [batches, M, N, K, bytes per element]; C read when beta is 1.
        auto s = sizes.asArrayRef();
        int64_t elem = s[4];
        read += s[0] * (s[1] * s[3] + s[3] * s[2]) * elem;
        written += s[0] * s[1] * s[2] * elem;
        if (call->hasAttr("nnc.accumulate"))
          read += s[0] * s[1] * s[2] * elem;
      });
      // A library convolution: [bytes read, bytes written].
      op->walk([&](func::CallOp call) {
        auto bytes =
            call->getAttrOfType<DenseI64ArrayAttr>("nnc.library_bytes");
        if (!bytes || bytes.size() != 2)
          return;
        gemm = true;
        read += bytes[0];
        written += bytes[1];
      });
      if (gemm) {
        library = true;
        continue;
      }
      if (!isa<linalg::FillOp, memref::CopyOp>(op))
        initializersOnly = false;
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
        for (OpOperand *input : linalgOp.getDpsInputOperands())
          read += memrefBytes(input->get().getType());
        for (OpOperand &init : linalgOp.getDpsInitsMutable()) {
          int64_t bytes = memrefBytes(init.get().getType());
          written += bytes;
          if (linalgOp.payloadUsesValueFromOperand(&init))
            read += bytes;
        }
        continue;
      }
      if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        read += memrefBytes(copy.getSource().getType());
        written += memrefBytes(copy.getTarget().getType());
        continue;
      }
      // Anything else: every buffer it touches, read once.
      llvm::SetVector<Value> buffers;
      op->walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          if (isa<MemRefType>(v.getType()))
            buffers.insert(v);
      });
      for (Value v : buffers)
        read += memrefBytes(v.getType());
    }
    std::string name;
    for (auto [i, kind] : llvm::enumerate(kinds)) {
      name += (i ? "+" : "") + kind.first;
      if (kind.second > 1)
        name += "*" + std::to_string(kind.second);
    }
    // Source ops by name (ONNX nodes, traced ops), else by position.
    if (names.empty())
      names = std::move(positions);
    if (!names.empty()) {
      name += ": " + names.front();
      if (names.size() > 1)
        name += " (+" + std::to_string(names.size() - 1) + ")";
    }
    std::string detail;
    for (auto [i, n] : llvm::enumerate(names)) {
      if (i == 32) {
        detail += ", ...";
        break;
      }
      detail += (i ? ", " : "") + n;
    }
    Builder b(kernelFunc.getContext());
    kernelFunc->setAttr("nnc.kernel_name", b.getStringAttr(name));
    kernelFunc->setAttr("nnc.kernel_detail", b.getStringAttr(detail));
    kernelFunc->setAttr("nnc.bytes_read", b.getI64IntegerAttr(read));
    kernelFunc->setAttr("nnc.bytes_written", b.getI64IntegerAttr(written));
    if (library && !initializersOnly)
      library = false;
    if (library)
      kernelFunc->setAttr("nnc.library", b.getUnitAttr());
  }
};

} // namespace
