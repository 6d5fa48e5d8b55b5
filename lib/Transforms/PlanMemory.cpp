//===- PlanMemory.cpp - temporaries at static offsets of one arena --------===//
//
// Implements --nnc-plan-memory. After bufferization every temporary of a
// function with static shapes is a `memref.alloc` in its body. This pass
// computes when each one is live (from its first to its last use, through
// every view of it), lets an elementwise op write its result over an operand
// that dies at it (the compiler's `x.relu_()`), and places the buffers in one
// byte arena with static offsets: greedy by size, best fit among the gaps
// left by buffers whose lifetimes overlap. The arena becomes the function's
// last argument, which the runtime allocates once and reuses for every run.
//
//===----------------------------------------------------------------------===//

#include "nnc/Transforms/Passes.h"

#include "nnc/Analysis/ArenaPlacement.h"
#include "nnc/Analysis/BufferAliasing.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

namespace nnc {
#define GEN_PASS_DEF_PLANMEMORYPASS
#include "nnc/Transforms/Passes.h.inc"
} // namespace nnc

using namespace mlir;
using nnc::buffers::derivesFrom;
using nnc::buffers::isInert;

namespace {

/// Marks a buffer that one loop reuses in every iteration (see
/// hoistLoopAllocations); --nnc-outline-kernels does not count it as
/// memory traffic of the kernel that holds the loop.
constexpr llvm::StringLiteral kLoopLocal = "nnc.loop_local";

/// One planned buffer: a slot of the arena, holding one allocation or a
/// chain of allocations that write in place over their predecessor.
struct Slot {
  int64_t size = 0;
  int64_t first = 0, last = 0; // top-level op positions, inclusive
  int64_t offset = -1;
  SmallVector<memref::AllocOp> allocs;
};

/// Bytes of a static memref type with an identity layout, or -1.
int64_t staticBytes(MemRefType type) {
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      !type.getElementType().isIntOrFloat())
    return -1;
  int64_t bits = type.getElementTypeBitWidth();
  return type.getNumElements() * std::max<int64_t>(1, (bits + 7) / 8);
}

struct PlanMemoryPass : public nnc::impl::PlanMemoryPassBase<PlanMemoryPass> {
  using PlanMemoryPassBase::PlanMemoryPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    // A new argument would break the function's callers: only functions
    // nothing in the module calls (entry points) are planned.
    if (auto module = func->getParentOfType<ModuleOp>();
        module && !SymbolTable::symbolKnownUseEmpty(func, module))
      return;
    if (alignment <= 0 || (alignment & (alignment - 1)) != 0) {
      func.emitError() << "alignment must be a power of two, not "
                       << static_cast<int64_t>(alignment);
      return signalPassFailure();
    }
    Block &body = func.getBody().front();
    DenseMap<Operation *, int64_t> position;
    for (auto [i, op] : llvm::enumerate(body.getOperations()))
      position[&op] = static_cast<int64_t>(i);
    donate(func, body, position);
    hoistLoopAllocations(body);
    for (auto [i, op] : llvm::enumerate(body.getOperations()))
      position[&op] = static_cast<int64_t>(i);

    // Every value that is (a view of) a planned buffer, and the buffer.
    DenseMap<Value, memref::AllocOp> owner;
    SmallVector<Slot> slots;
    DenseMap<Operation *, size_t> slotOf;
    SmallVector<memref::DeallocOp> deallocs;
    for (auto alloc : body.getOps<memref::AllocOp>()) {
      int64_t bytes = staticBytes(alloc.getType());
      if (bytes < 0 || !alloc.getDynamicSizes().empty() ||
          !alloc.getSymbolOperands().empty())
        continue;
      Slot slot;
      slot.size = std::max<int64_t>(bytes, 1);
      slot.first = std::numeric_limits<int64_t>::max();
      slot.last = -1;
      bool escapes = false;
      SmallVector<memref::DeallocOp> own;
      SmallVector<Value> worklist = {alloc.getResult()};
      while (!worklist.empty() && !escapes) {
        Value value = worklist.pop_back_val();
        owner[value] = alloc;
        for (OpOperand &use : value.getUses()) {
          Operation *user = use.getOwner();
          if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
            own.push_back(dealloc);
            continue;
          }
          if (user->hasTrait<OpTrait::IsTerminator>()) {
            // Returned, or yielded out of a region.
            escapes = true;
            break;
          }
          // A memref (or address) coming out of anything else could alias
          // the buffer beyond what this pass follows: leave it alone.
          bool derives = isInert(user);
          if (!derives && llvm::any_of(user->getResultTypes(), [](Type type) {
                return !type.isIntOrIndexOrFloat();
              })) {
            escapes = true;
            break;
          }
          Operation *top = body.findAncestorOpInBlock(*user);
          int64_t at = position.lookup(top);
          slot.first = std::min(slot.first, at);
          slot.last = std::max(slot.last, at);
          // Whatever a side-effect-free op derives from the buffer (views,
          // its address) keeps the buffer alive while it is used.
          if (derives)
            for (Value result : user->getResults())
              worklist.push_back(result);
        }
      }
      if (escapes)
        continue;
      if (slot.last < 0) {
        // Never used: nothing to place.
        slot.first = slot.last = position.lookup(alloc);
      }
      slot.allocs.push_back(alloc);
      slotOf[alloc] = slots.size();
      slots.push_back(std::move(slot));
      deallocs.append(own.begin(), own.end());
    }
    if (slots.empty())
      return;

    if (inPlace)
      mergeInPlace(body, position, owner, slots, slotOf);

    // Greedy by size, best fit: the largest slot first, each into the
    // smallest gap between slots already placed whose lifetimes overlap it
    // (nnc/Analysis/ArenaPlacement.h, which rematerialization predicts
    // the arena with).
    SmallVector<size_t> order;
    SmallVector<nnc::BufferLifetime> lifetimes;
    for (size_t i = 0; i < slots.size(); ++i)
      if (!slots[i].allocs.empty()) {
        order.push_back(i);
        lifetimes.push_back({slots[i].size, slots[i].first, slots[i].last});
      }
    SmallVector<int64_t> offsets;
    int64_t arenaSize = nnc::placeInArena(lifetimes, alignment, offsets);
    for (auto [i, offset] : llvm::zip_equal(order, offsets))
      slots[i].offset = offset;

    // Rewrite: the arena is a new last argument; every planned allocation
    // a view of it.
    MLIRContext *context = func.getContext();
    auto arenaType = MemRefType::get({arenaSize}, IntegerType::get(context, 8));
    unsigned index = func.getNumArguments();
    if (failed(func.insertArgument(
            index, arenaType, DictionaryAttr::get(context), func.getLoc()))) {
      func.emitError() << "cannot add the arena argument";
      return signalPassFailure();
    }
    func.setArgAttr(index, "nnc.arena", UnitAttr::get(context));
    func->setAttr("nnc.arena_size",
                  IntegerAttr::get(IntegerType::get(context, 64), arenaSize));
    Value arena = func.getArgument(index);
    for (memref::DeallocOp dealloc : deallocs)
      dealloc->erase();
    for (Slot &slot : slots)
      for (memref::AllocOp alloc : slot.allocs) {
        OpBuilder builder(alloc);
        Value shift = arith::ConstantIndexOp::create(builder, alloc.getLoc(),
                                                     slot.offset);
        auto view =
            memref::ViewOp::create(builder, alloc.getLoc(), alloc.getType(),
                                   arena, shift, ValueRange{});
        if (alloc->hasAttr(kLoopLocal))
          view->setAttr(kLoopLocal, UnitAttr::get(context));
        alloc.getResult().replaceAllUsesWith(view.getResult());
        alloc->erase();
      }
  }

  /// Moves the static allocations in the bodies of sequential loops
  /// (scf.for, as the per-image convolutions make) in front of the
  /// top-level op holding them, when nothing of them leaves the iteration:
  /// one buffer that every iteration reuses instead of one allocation per
  /// iteration, planned like the others and marked `nnc.loop_local`.
  static void hoistLoopAllocations(Block &body) {
    SmallVector<memref::AllocOp> nested;
    for (Operation &top : body)
      if (isa<scf::ForOp>(top))
        top.walk([&](memref::AllocOp alloc) { nested.push_back(alloc); });
    for (memref::AllocOp alloc : nested) {
      if (staticBytes(alloc.getType()) < 0 ||
          !alloc.getDynamicSizes().empty() ||
          !alloc.getSymbolOperands().empty())
        continue;
      Operation *top = body.findAncestorOpInBlock(*alloc);
      bool sequential = true;
      for (Operation *parent = alloc->getParentOp();
           parent != top->getParentOp(); parent = parent->getParentOp())
        sequential &= isa<scf::ForOp>(parent);
      if (!sequential || !staysInIteration(alloc))
        continue;
      alloc->moveBefore(top);
      alloc->setAttr(kLoopLocal, UnitAttr::get(alloc.getContext()));
    }
  }

  /// Whether the buffer `alloc` makes, and every view of it, is only used
  /// inside the region it is allocated in (no terminator passes it on, no
  /// op but a view derives a memref from it).
  static bool staysInIteration(memref::AllocOp alloc) {
    SmallVector<Value> worklist = {alloc.getResult()};
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      for (Operation *user : value.getUsers()) {
        if (user->hasTrait<OpTrait::IsTerminator>())
          return false;
        if (isInert(user)) {
          for (Value result : user->getResults())
            worklist.push_back(result);
          continue;
        }
        if (llvm::any_of(user->getResultTypes(),
                         [](Type type) { return !type.isIntOrIndexOrFloat(); }))
          return false;
      }
    }
    return true;
  }

  /// The first and last top-level positions where `root` or anything
  /// derived from it is used.
  static std::pair<int64_t, int64_t>
  useRange(Value root, Block &body, DenseMap<Operation *, int64_t> &position) {
    int64_t first = std::numeric_limits<int64_t>::max(), last = -1;
    SmallVector<Value> worklist = {root};
    DenseSet<Value> seen;
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      if (!seen.insert(value).second)
        continue;
      for (Operation *user : value.getUsers()) {
        Operation *top = body.findAncestorOpInBlock(*user);
        if (!top)
          continue;
        int64_t at = position.lookup(top);
        first = std::min(first, at);
        last = std::max(last, at);
        if (isInert(user))
          for (Value result : user->getResults())
            worklist.push_back(result);
      }
    }
    return {first, last};
  }

  /// Outputs donated to inputs (`nnc.donate = [out, in, ...]`, argument
  /// positions): where every read of the input comes before the first use
  /// of the output, or both meet in one elementwise op that reads the input
  /// element it writes, the output is written into the input's buffer
  /// (`nnc.donated` lists those done).
  void donate(func::FuncOp func, Block &body,
              DenseMap<Operation *, int64_t> &position) {
    auto pairs = func->getAttrOfType<DenseI64ArrayAttr>("nnc.donate");
    if (!pairs)
      return;
    func->removeAttr("nnc.donate");
    SmallVector<int64_t> done;
    llvm::SmallDenseSet<int64_t> targets;
    ArrayRef<int64_t> list = pairs.asArrayRef();
    for (size_t i = 0; i + 1 < list.size(); i += 2) {
      int64_t outPos = list[i], inPos = list[i + 1];
      // An input holds at most one output.
      if (outPos < 0 || inPos < 0 || outPos >= func.getNumArguments() ||
          inPos >= func.getNumArguments() || outPos == inPos ||
          targets.contains(inPos))
        continue;
      Value out = func.getArgument(outPos), in = func.getArgument(inPos);
      if (out.getType() != in.getType() || out.use_empty())
        continue;
      int64_t firstOut = useRange(out, body, position).first;
      int64_t lastIn = useRange(in, body, position).second;
      bool legal = lastIn < firstOut;
      if (!legal && lastIn == firstOut) {
        // One all-parallel op reads the input and writes the output, both
        // directly and through the same permutation.
        Operation *op = nullptr;
        for (Operation &candidate : body)
          if (position.lookup(&candidate) == firstOut)
            op = &candidate;
        auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
        if (linalgOp && linalgOp.hasPureBufferSemantics() &&
            linalgOp.getNumLoops() == linalgOp.getNumParallelLoops()) {
          // The input may be read through several operands (siblings
          // fused), each at the element written.
          SmallVector<OpOperand *> reads;
          OpOperand *write = nullptr;
          bool other = false;
          for (OpOperand &operand : op->getOpOperands()) {
            bool isIn = operand.get() == in, isOut = operand.get() == out;
            if (isIn && linalgOp.isDpsInput(&operand))
              reads.push_back(&operand);
            else if (isOut && linalgOp.isDpsInit(&operand) && !write)
              write = &operand;
            else if (derivesFrom(operand.get(), in) ||
                     derivesFrom(operand.get(), out))
              other = true; // a view of either: other elements
          }
          bool nested = false;
          op->walk([&](Operation *inner) {
            if (inner != op)
              for (Value v : inner->getOperands())
                nested |= v == in || v == out;
          });
          legal = !reads.empty() && write && !other && !nested &&
                  linalgOp.getMatchingIndexingMap(write).isPermutation() &&
                  llvm::all_of(reads, [&](OpOperand *read) {
                    return linalgOp.getMatchingIndexingMap(read) ==
                           linalgOp.getMatchingIndexingMap(write);
                  });
        }
      }
      if (!legal)
        continue;
      out.replaceAllUsesWith(in);
      done.append({outPos, inPos});
      targets.insert(inPos);
    }
    if (!done.empty())
      func->setAttr("nnc.donated",
                    DenseI64ArrayAttr::get(func.getContext(), done));
  }

  /// Lets an all-parallel linalg op write its result into the buffer of an
  /// operand that it reads for the last time, element for element: the two
  /// allocations share a slot.
  void mergeInPlace(Block &body, DenseMap<Operation *, int64_t> &position,
                    DenseMap<Value, memref::AllocOp> &owner,
                    SmallVector<Slot> &slots,
                    DenseMap<Operation *, size_t> &slotOf) {
    for (Operation &op : body) {
      auto linalgOp = dyn_cast<linalg::LinalgOp>(&op);
      if (!linalgOp || !linalgOp.hasPureBufferSemantics() ||
          linalgOp.getNumLoops() != linalgOp.getNumParallelLoops() ||
          linalgOp.getNumDpsInits() != 1)
        continue;
      int64_t at = position.lookup(&op);
      OpOperand *init = linalgOp.getDpsInitOperand(0);
      auto initAlloc = init->get().getDefiningOp<memref::AllocOp>();
      if (!initAlloc || !slotOf.count(initAlloc))
        continue;
      Slot &result = slots[slotOf[initAlloc]];
      if (result.allocs.size() != 1 || result.first != at)
        continue;
      AffineMap initMap = linalgOp.getMatchingIndexingMap(init);
      for (OpOperand *input : linalgOp.getDpsInputOperands()) {
        auto inputAlloc = input->get().getDefiningOp<memref::AllocOp>();
        if (!inputAlloc || !slotOf.count(inputAlloc) ||
            input->get().getType() != init->get().getType() ||
            linalgOp.getMatchingIndexingMap(input) != initMap)
          continue;
        Slot &donor = slots[slotOf[inputAlloc]];
        if (donor.last != at || &donor == &result)
          continue;
        // The op must read the donor through this operand only.
        bool readElsewhere =
            llvm::any_of(op.getOpOperands(), [&](OpOperand &o) {
              return &o != input && owner.lookup(o.get()) == inputAlloc;
            });
        bool nestedUse = false;
        op.walk([&](Operation *inner) {
          if (inner == &op)
            return;
          for (Value v : inner->getOperands())
            if (owner.lookup(v) == inputAlloc)
              nestedUse = true;
        });
        if (readElsewhere || nestedUse)
          continue;
        donor.last = result.last;
        donor.size = std::max(donor.size, result.size);
        donor.allocs.push_back(initAlloc);
        slotOf[initAlloc] = slotOf[inputAlloc];
        result.allocs.clear();
        break;
      }
    }
  }
};

} // namespace
