//===- FuseSiblings.cpp - elementwise ops over one domain, one loop nest --===//
//
// Implements --nnc-fuse-siblings: two all-parallel linalg.generic ops on
// buffers with the same static iteration domain become one generic with the
// outputs of both, when the first can move down to the second. Siblings that
// read the same inputs then read them once (an optimizer's moment and
// parameter updates), and a consumer of the first's output reads it from a
// register instead of memory.
//
//===----------------------------------------------------------------------===//

#include "nnc/Transforms/Passes.h"

#include "nnc/Analysis/BufferAliasing.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/SetVector.h"

namespace nnc {
#define GEN_PASS_DEF_FUSESIBLINGSPASS
#include "nnc/Transforms/Passes.h.inc"
} // namespace nnc

using namespace mlir;
using nnc::buffers::collectRoots;
using nnc::buffers::isInert;

namespace {

/// The buffers an op reads and writes (an op it cannot see into: every
/// buffer it touches, both ways).
struct Access {
  llvm::SetVector<Value> reads, writes;
  /// The values already walked for `reads` and for `writes`: a body's ops
  /// share their operands' chains, walked once per set.
  llvm::DenseSet<Value> readsSeen, writesSeen;

  void read(Value v) { collectRoots(v, reads, readsSeen); }
  void write(Value v) { collectRoots(v, writes, writesSeen); }
};

Access accessOf(Operation *op) {
  Access access;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      linalgOp && linalgOp.hasPureBufferSemantics()) {
    for (OpOperand *input : linalgOp.getDpsInputOperands())
      access.read(input->get());
    for (OpOperand &init : linalgOp.getDpsInitsMutable()) {
      access.write(init.get());
      access.read(init.get());
    }
    // Buffers its body reads by address (a gather: memref.load of another
    // buffer) or touches otherwise.
    op->walk([&](Operation *inner) {
      if (inner == op)
        return;
      bool load = isa<memref::LoadOp>(inner);
      for (Value v : inner->getOperands()) {
        access.read(v);
        if (!load)
          access.write(v);
      }
    });
    return access;
  }
  if (auto copy = dyn_cast<memref::CopyOp>(op)) {
    access.read(copy.getSource());
    access.write(copy.getTarget());
    return access;
  }
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands()) {
      access.read(v);
      access.write(v);
    }
  });
  return access;
}

bool intersects(const llvm::SetVector<Value> &a,
                const llvm::SetVector<Value> &b) {
  return llvm::any_of(a, [&](Value v) { return b.contains(v); });
}

bool isCandidate(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  // A target's GEMM epilogue (nnc.epilogue) stays the op it matched.
  return generic && !op->hasAttr("nnc.epilogue") &&
         generic.hasPureBufferSemantics() &&
         generic.getNumLoops() == generic.getNumParallelLoops() &&
         generic.getNumDpsInits() >= 1 &&
         llvm::all_of(generic.getStaticLoopRanges(),
                      [](int64_t r) { return !ShapedType::isDynamic(r); }) &&
         llvm::all_of(generic.getIndexingMapsArray(), [](AffineMap map) {
           return map.isProjectedPermutation();
         });
}

struct FuseSiblingsPass
    : public nnc::impl::FuseSiblingsPassBase<FuseSiblingsPass> {
  using FuseSiblingsPassBase::FuseSiblingsPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    Block &body = func.getBody().front();
    // Each op in order looks for a sibling below; a fused op is visited
    // again where it now stands.
    Operation *op = &body.front();
    while (op) {
      Operation *next = op->getNextNode();
      if (isCandidate(op)) {
        auto generic = cast<linalg::GenericOp>(op);
        Operation *second = findSibling(generic);
        if (second) {
          bool adjacent = next == second;
          Operation *fused = fuse(generic, cast<linalg::GenericOp>(second));
          if (adjacent)
            next = fused;
        }
      }
      op = next;
    }
    // Outputs of a fused loop nest that nothing reads afterwards (a value
    // the sibling now takes from a register) are not written at all.
    SmallVector<linalg::GenericOp> generics(body.getOps<linalg::GenericOp>());
    for (linalg::GenericOp generic : generics)
      dropDeadOutputs(generic);
  }

  /// Removes the outputs of `op` written into a temporary that no other op
  /// uses and that its body does not read, keeping at least one output.
  static void dropDeadOutputs(linalg::GenericOp op) {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInits() < 2)
      return;
    SmallVector<int64_t> dead;
    for (OpOperand &init : op.getDpsInitsMutable()) {
      auto alloc = init.get().getDefiningOp<memref::AllocOp>();
      if (!alloc || op.payloadUsesValueFromOperand(&init) ||
          llvm::count(op.getDpsInits(), init.get()) != 1 ||
          llvm::any_of(alloc->getUsers(), [&](Operation *user) {
            return user != op.getOperation() && !isa<memref::DeallocOp>(user);
          }))
        continue;
      dead.push_back(init.getOperandNumber() - op.getNumDpsInputs());
    }
    if (dead.empty() ||
        static_cast<int64_t>(dead.size()) == op.getNumDpsInits())
      return;
    SmallVector<Value> outs;
    SmallVector<AffineMap> maps;
    for (OpOperand *input : op.getDpsInputOperands())
      maps.push_back(op.getMatchingIndexingMap(input));
    SmallVector<memref::AllocOp> allocs;
    for (OpOperand &init : op.getDpsInitsMutable()) {
      int64_t index = init.getOperandNumber() - op.getNumDpsInputs();
      if (llvm::is_contained(dead, index)) {
        allocs.push_back(init.get().getDefiningOp<memref::AllocOp>());
        continue;
      }
      outs.push_back(init.get());
      maps.push_back(op.getMatchingIndexingMap(&init));
    }
    OpBuilder builder(op);
    auto fused = linalg::GenericOp::create(builder, op.getLoc(), TypeRange{},
                                           op.getDpsInputs(), outs, maps,
                                           op.getIteratorTypesArray());
    fused.getRegion().takeBody(op.getRegion());
    Block &block = fused.getRegion().front();
    Operation *yield = block.getTerminator();
    unsigned numInputs = op.getNumDpsInputs();
    for (int64_t index : llvm::reverse(dead)) {
      yield->eraseOperand(index);
      block.eraseArgument(numInputs + index);
    }
    op->erase();
    for (memref::AllocOp alloc : allocs) {
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        user->erase(); // deallocations
      alloc->erase();
    }
  }

  /// A sibling of `first` below it that `first` can move down to.
  Operation *findSibling(linalg::GenericOp first) {
    Access firstAccess = accessOf(first);
    SmallVector<int64_t> ranges = first.getStaticLoopRanges();
    int64_t seen = 0;
    for (Operation *op = first->getNextNode(); op && seen < window;
         op = op->getNextNode()) {
      if (isInert(op) || op->hasTrait<OpTrait::IsTerminator>())
        continue;
      ++seen;
      auto second = dyn_cast<linalg::GenericOp>(op);
      if (second && isCandidate(second) &&
          second.getStaticLoopRanges() == ranges && withinCap(first, second) &&
          canFuse(first, second))
        return second;
      // `first` moves below `op`: `op` must not write what `first` touches
      // nor read what it writes.
      Access access = accessOf(op);
      if (intersects(access.writes, firstAccess.reads) ||
          intersects(access.writes, firstAccess.writes) ||
          intersects(access.reads, firstAccess.writes))
        return nullptr;
    }
    return nullptr;
  }

  /// Whether the two bodies together stay within `max-body-ops`.
  bool withinCap(linalg::GenericOp first, linalg::GenericOp second) {
    size_t cap = maxBodyOps;
    auto ops = [](linalg::GenericOp op) {
      return op.getBody()->getOperations().size() - 1;
    };
    return cap == 0 || ops(first) + ops(second) <= cap;
  }

  /// Whether `second` may run in the same iteration as `first`: whatever it
  /// reads of `first`'s outputs it reads at the element `first` wrote in
  /// that iteration, and it writes nothing `first` touches except where
  /// `first` reads the same element.
  bool canFuse(linalg::GenericOp first, linalg::GenericOp second) {
    llvm::SetVector<Value> firstWrites, firstReads;
    for (OpOperand &init : first.getDpsInitsMutable())
      collectRoots(init.get(), firstWrites);
    for (OpOperand *input : first.getDpsInputOperands())
      collectRoots(input->get(), firstReads);
    // A body that reads a buffer by address (a gather) may read any element
    // of it: never one the other op writes in the same loop nest.
    auto bodyReads = [](linalg::GenericOp op) {
      llvm::SetVector<Value> roots;
      llvm::DenseSet<Value> seen; // each operand chain walked once
      op.getRegion().walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          collectRoots(v, roots, seen);
      });
      return roots;
    };
    llvm::SetVector<Value> secondWrites;
    for (OpOperand &init : second.getDpsInitsMutable())
      collectRoots(init.get(), secondWrites);
    if (intersects(bodyReads(second), firstWrites) ||
        intersects(bodyReads(first), secondWrites))
      return false;
    // The same element through the same value and map, or nothing.
    auto sameElement = [](linalg::GenericOp a, OpOperand &x,
                          linalg::GenericOp b, OpOperand &y) {
      return x.get() == y.get() &&
             a.getMatchingIndexingMap(&x) == b.getMatchingIndexingMap(&y) &&
             a.getMatchingIndexingMap(&x).isPermutation();
    };
    for (OpOperand *input : second.getDpsInputOperands()) {
      llvm::SetVector<Value> roots;
      collectRoots(input->get(), roots);
      if (!intersects(roots, firstWrites))
        continue;
      bool forwarded =
          llvm::any_of(first.getDpsInitsMutable(), [&](OpOperand &init) {
            return sameElement(first, init, second, *input);
          });
      // Every operand of `first` on that buffer must be that very output.
      bool other = llvm::any_of(first->getOpOperands(), [&](OpOperand &o) {
        llvm::SetVector<Value> r;
        collectRoots(o.get(), r);
        return intersects(r, roots) && !sameElement(first, o, second, *input);
      });
      if (!forwarded || other)
        return false;
    }
    for (OpOperand &init : second.getDpsInitsMutable()) {
      llvm::SetVector<Value> roots;
      collectRoots(init.get(), roots);
      if (intersects(roots, firstWrites))
        return false;
      if (!intersects(roots, firstReads))
        continue;
      bool sameEverywhere =
          llvm::all_of(first->getOpOperands(), [&](OpOperand &o) {
            llvm::SetVector<Value> r;
            collectRoots(o.get(), r);
            return !intersects(r, roots) || sameElement(first, o, second, init);
          });
      if (!sameEverywhere)
        return false;
    }
    return true;
  }

  /// One generic at `second`'s place computing both.
  Operation *fuse(linalg::GenericOp first, linalg::GenericOp second) {
    // Inputs of `second` that are outputs of `first` come from its yield.
    SmallVector<int64_t> forwardedFrom(second.getNumDpsInputs(), -1);
    for (auto [i, input] : llvm::enumerate(second.getDpsInputOperands()))
      for (auto [k, init] : llvm::enumerate(first.getDpsInitsMutable()))
        if (init.get() == input->get() &&
            first.getMatchingIndexingMap(&init) ==
                second.getMatchingIndexingMap(input))
          forwardedFrom[i] = static_cast<int64_t>(k);

    SmallVector<Value> inputs, outputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *input : first.getDpsInputOperands()) {
      inputs.push_back(input->get());
      maps.push_back(first.getMatchingIndexingMap(input));
    }
    for (auto [i, input] : llvm::enumerate(second.getDpsInputOperands()))
      if (forwardedFrom[i] < 0) {
        inputs.push_back(input->get());
        maps.push_back(second.getMatchingIndexingMap(input));
      }
    for (OpOperand &init : first.getDpsInitsMutable()) {
      outputs.push_back(init.get());
      maps.push_back(first.getMatchingIndexingMap(&init));
    }
    for (OpOperand &init : second.getDpsInitsMutable()) {
      outputs.push_back(init.get());
      maps.push_back(second.getMatchingIndexingMap(&init));
    }

    OpBuilder builder(second);
    Location loc = builder.getFusedLoc({first.getLoc(), second.getLoc()});
    auto fused = linalg::GenericOp::create(
        builder, loc, TypeRange{}, inputs, outputs, maps,
        first.getIteratorTypesArray(),
        [&](OpBuilder &b, Location, ValueRange args) {
          unsigned firstInputs = first.getNumDpsInputs();
          unsigned allInputs = inputs.size();
          Block *firstBody = first.getBody();
          Block *secondBody = second.getBody();
          IRMapping mapping;
          for (unsigned i = 0; i < firstInputs; ++i)
            mapping.map(firstBody->getArgument(i), args[i]);
          for (unsigned k = 0; k < first.getNumDpsInits(); ++k)
            mapping.map(firstBody->getArgument(firstInputs + k),
                        args[allInputs + k]);
          for (Operation &op : firstBody->without_terminator())
            b.clone(op, mapping);
          SmallVector<Value> yields;
          for (Value v : firstBody->getTerminator()->getOperands())
            yields.push_back(mapping.lookupOrDefault(v));
          unsigned next = firstInputs;
          for (unsigned i = 0; i < second.getNumDpsInputs(); ++i)
            mapping.map(secondBody->getArgument(i),
                        forwardedFrom[i] >= 0 ? yields[forwardedFrom[i]]
                                              : args[next++]);
          unsigned secondInits = allInputs + first.getNumDpsInits();
          for (unsigned k = 0; k < second.getNumDpsInits(); ++k)
            mapping.map(secondBody->getArgument(second.getNumDpsInputs() + k),
                        args[secondInits + k]);
          for (Operation &op : secondBody->without_terminator())
            b.clone(op, mapping);
          for (Value v : secondBody->getTerminator()->getOperands())
            yields.push_back(mapping.lookupOrDefault(v));
          linalg::YieldOp::create(b, loc, yields);
        });
    first->erase();
    second->erase();
    return fused;
  }
};

} // namespace
