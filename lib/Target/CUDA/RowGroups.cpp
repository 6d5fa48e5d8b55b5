//===- RowGroups.cpp - row-wise ops kept in one kernel --------------------===//
//
// Implements --nnc-cuda-row-groups, on the bufferized functions after
// sibling fusion and before memory planning. Softmax, log-softmax, layer
// norm and their gradients arrive as a chain of linalg ops over the same
// rows: a reduction (a row's maximum, sum or mean), an elementwise op
// using it, another reduction, and so on. Each reduction ends a kernel of
// the shared pipeline, so each op of the chain is a kernel and a launch.
//
// The pass marks the ops of such a chain after its first with
// nnc.join_kernel, and the kernel outliner keeps a marked op in the kernel
// of the op before it. The chain then is one kernel, which the emitter
// runs as one launch (a row group: the lanes of a row run the ops one
// after another, CUDAEmitter.cpp).
//
// A chain: consecutive linalg ops (generic, reduce, map, fill) with static
// shapes whose loops start with the same rows (the loops a reduction keeps,
// all before the ones it reduces), every operand indexed either by those
// rows as its leading dimensions or by none of them (a weight broadcast
// over rows), at least one of them a reduction, and each op after the
// first using a buffer an op before it writes (a fill needs not). The
// marks only group ops: the emitter checks the planned bytes again and
// emits separate launches where a row would read another's values.
//
//===----------------------------------------------------------------------===//

#include "nnc/Target/CUDA/CUDAEmitter.h"

#include "nnc/Analysis/BufferAliasing.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {

/// What the chain needs to know of one op.
struct RowOp {
  Operation *op = nullptr;
  /// The static loop ranges, and how many lead before the first reduced
  /// loop (all of them when nothing is reduced).
  SmallVector<int64_t> ranges;
  size_t leadingParallel = 0;
  bool reduces = false;
};

/// `op` as an op a chain may hold, or nothing.
std::optional<RowOp> rowOpOf(Operation *op) {
  if (!isa<linalg::GenericOp, linalg::ReduceOp, linalg::MapOp,
           linalg::FillOp>(op))
    return std::nullopt;
  auto linalgOp = cast<linalg::LinalgOp>(op);
  if (!linalgOp.hasPureBufferSemantics())
    return std::nullopt;
  RowOp row;
  row.op = op;
  row.ranges = linalgOp.getStaticLoopRanges();
  if (llvm::any_of(row.ranges, ShapedType::isDynamic))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators =
      linalgOp.getIteratorTypesArray();
  while (row.leadingParallel < iterators.size() &&
         iterators[row.leadingParallel] == utils::IteratorType::parallel)
    ++row.leadingParallel;
  // A reduction keeps its rows first: nothing parallel after a reduced
  // loop.
  for (size_t i = row.leadingParallel; i < iterators.size(); ++i)
    if (iterators[i] != utils::IteratorType::reduction)
      return std::nullopt;
  row.reduces = row.leadingParallel < iterators.size();
  return row;
}

/// Whether `op`'s loops start with `rows` (a reduction's: exactly its
/// leading parallel loops) and every operand is indexed by the rows as its
/// leading dimensions, or not by the rows at all.
bool fits(const RowOp &op, ArrayRef<int64_t> rows) {
  size_t n = rows.size();
  if (op.ranges.size() < n || ArrayRef(op.ranges).take_front(n) != rows)
    return false;
  if (op.reduces && op.leadingParallel != n)
    return false;
  for (AffineMap map :
       cast<linalg::LinalgOp>(op.op).getIndexingMapsArray()) {
    auto usesRows = [&](AffineExpr e) {
      for (size_t d = 0; d < n; ++d)
        if (e.isFunctionOfDim(d))
          return true;
      return false;
    };
    if (llvm::none_of(map.getResults(), usesRows))
      continue;
    if (map.getNumResults() < n)
      return false;
    for (auto [i, e] : llvm::enumerate(map.getResults())) {
      if (i < n) {
        auto dim = dyn_cast<AffineDimExpr>(e);
        if (!dim || dim.getPosition() != i)
          return false;
      } else if (usesRows(e)) {
        return false;
      }
    }
  }
  return true;
}

/// Whether `op` uses a buffer one of `group` writes.
bool usesWritten(const RowOp &op, ArrayRef<RowOp> group) {
  llvm::SmallPtrSet<Value, 8> written;
  for (const RowOp &member : group)
    for (Value init : cast<linalg::LinalgOp>(member.op).getDpsInits())
      written.insert(nnc::buffers::rootBuffer(init));
  return llvm::any_of(op.op->getOperands(), [&](Value v) {
    return isa<MemRefType>(v.getType()) &&
           written.contains(nnc::buffers::rootBuffer(v));
  });
}

struct RowGroupsPass
    : public PassWrapper<RowGroupsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RowGroupsPass)
  StringRef getArgument() const final { return "nnc-cuda-row-groups"; }
  StringRef getDescription() const final {
    return "Marks chains of row-wise linalg ops (softmax, layer norm) to "
           "stay in one kernel, which the CUDA emitter runs as one launch";
  }

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && func.getBody().hasOneBlock())
        mark(func.getBody().front());
  }

  void mark(Block &body) {
    SmallVector<RowOp> group;
    std::optional<SmallVector<int64_t>> rows;
    auto close = [&] {
      if (rows && group.size() >= 2)
        for (const RowOp &member : ArrayRef(group).drop_front())
          member.op->setAttr(nnc::cuda::kJoinKernelAttrName,
                             UnitAttr::get(member.op->getContext()));
      group.clear();
      rows.reset();
    };
    auto start = [&](const RowOp &op) {
      group.assign({op});
      if (op.reduces && op.leadingParallel > 0)
        rows = SmallVector<int64_t>(
            ArrayRef(op.ranges).take_front(op.leadingParallel));
    };
    for (Operation &op : body.without_terminator()) {
      // Views, scalars and allocations go where the planner puts them.
      if (nnc::buffers::isInert(&op) || isa<memref::AllocOp>(op))
        continue;
      std::optional<RowOp> row = rowOpOf(&op);
      if (!row) {
        close();
        continue;
      }
      bool isFill = isa<linalg::FillOp>(op);
      if (group.empty()) {
        start(*row);
        continue;
      }
      if (rows) {
        if (fits(*row, *rows) && (isFill || usesWritten(*row, group))) {
          group.push_back(*row);
          continue;
        }
        close();
        start(*row);
        continue;
      }
      // Nothing reduced yet: a reduction sets the rows, and the ops before
      // it that fit them stay with it.
      if (row->reduces && row->leadingParallel > 0) {
        SmallVector<int64_t> candidate(
            ArrayRef(row->ranges).take_front(row->leadingParallel));
        size_t from = group.size();
        while (from > 0 && fits(group[from - 1], candidate))
          --from;
        SmallVector<RowOp> kept(group.begin() + from, group.end());
        if (!kept.empty() && fits(*row, candidate) &&
            usesWritten(*row, kept)) {
          group = std::move(kept);
          group.push_back(*row);
          rows = std::move(candidate);
          continue;
        }
        start(*row);
        continue;
      }
      if (isFill || usesWritten(*row, group)) {
        group.push_back(*row);
        continue;
      }
      start(*row);
    }
    close();
  }
};

} // namespace

std::unique_ptr<Pass> nnc::cuda::createRowGroupsPass() {
  return std::make_unique<RowGroupsPass>();
}

void nnc::cuda::registerRowGroupsPass() { PassRegistration<RowGroupsPass>(); }
