//===- RematerializeBudget.cpp - recompute to fit a memory budget ---------===//
//
// Implements --nnc-remat-budget: the compiler's activation checkpointing.
// A training function computes its forward pass, then its backward, which
// reads forward values saved until then; those saved values make the
// step's peak. The pass models the memory plan of the function (lifetimes
// in program order, placement as the plan does it), and recomputes in
// backward the saved values whose recomputation lowers the predicted peak
// most per FLOP until the prediction fits the budget (the analysis is
// nnc/Analysis/Rematerialization.h), then rewrites the function. Passes.td
// states the model; docs/Rematerialization.md the method and its limits.
//
//===----------------------------------------------------------------------===//

#include "nnc/Transforms/Passes.h"

#include "nnc/Analysis/CostModel.h"
#include "nnc/Analysis/Rematerialization.h"
#include "nnc/NNCOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/STLExtras.h"

#include <functional>

namespace nnc {
#define GEN_PASS_DEF_REMATERIALIZEBUDGETPASS
#include "nnc/Transforms/Passes.h.inc"
} // namespace nnc

using namespace mlir;
using namespace nnc::remat;

namespace {

/// How the choice was made, for the report.
enum class Method { None, Greedy, Exact, ExactBounded, Given };

const char *methodName(Method method) {
  switch (method) {
  case Method::None:
    return "none";
  case Method::Greedy:
    return "greedy";
  case Method::Exact:
    return "exact";
  case Method::ExactBounded:
    return "exact-bounded";
  case Method::Given:
    return "given";
  }
  return "none";
}

/// Clones the chosen ops just before their first backward reader and has
/// every backward op read the clones; reshapes and elementwise values
/// between them (forward values, or backward ones computed before the
/// clone they read) are cloned along where they read a clone.
void rewrite(const Model &m, const std::vector<bool> &chosen,
             const Evaluation &e) {
  MLIRContext *context = m.ops.front()->getContext();
  // Every clone is marked with a number of its own, on the op and in its
  // location (which the conversion to linalg carries to what it makes of
  // it): CSE would merge two equal clones, or a clone and its original,
  // into one value read by both readers, which is then stored.
  auto mark = StringAttr::get(context, nnc::kRecomputeAttrName);
  int64_t clones = 0;
  auto markClone = [&](Operation *copy, Operation *original) {
    auto number = IntegerAttr::get(IntegerType::get(context, 64), clones++);
    copy->setAttr(mark, number);
    copy->setLoc(FusedLoc::get(context, {original->getLoc()},
                               DictionaryAttr::get(context, {{mark, number}})));
  };
  // Recomputations and backward ops in time order.
  SmallVector<std::pair<int64_t, int>> events;
  for (size_t k = 0; k < m.ops.size(); ++k) {
    if (chosen[k] && e.time[k] != kNever)
      events.push_back({e.time[k], static_cast<int>(k)});
    else if (!m.forward[k])
      events.push_back({int64_t(k) * kSpacing, static_cast<int>(k)});
  }
  llvm::sort(events);
  DenseMap<Value, Value> again; // a forward value -> its backward version
  // The clones of folded values made for the op being rewritten: each
  // reader gets its own, which fusion folds into it, as the model has it
  // (one clone read by two ops would be stored).
  DenseMap<Value, Value> local;
  OpBuilder builder(context);
  std::function<Value(Value)> mapped = [&](Value value) -> Value {
    if (auto found = again.find(value); found != again.end())
      return found->second;
    if (auto found = local.find(value); found != local.end())
      return found->second;
    Operation *def = value.getDefiningOp();
    auto it = def ? m.index.find(def) : m.index.end();
    // Reshapes and elementwise values fused into their readers are read
    // where their readers are (Model::reads), forward or backward: one
    // that comes before the recomputation it reads is cloned at its
    // reader, after the recomputation.
    if (it == m.index.end() ||
        !(m.transparent.contains(value) || nnc::isReshapeLike(def)))
      return value;
    IRMapping map;
    bool changed = false;
    for (Value operand : def->getOperands()) {
      Value now = mapped(operand);
      changed |= now != operand;
      map.map(operand, now);
    }
    if (!changed)
      return value;
    Operation *copy = builder.clone(*def, map);
    markClone(copy, def);
    for (auto [from, to] : llvm::zip(def->getResults(), copy->getResults()))
      local[from] = to;
    return local.lookup(value);
  };
  for (auto [time, k] : events) {
    Operation *op = m.ops[k];
    local.clear();
    bool isClone = m.forward[k];
    if (isClone) {
      int64_t at = (time + kSpacing - 1) / kSpacing;
      builder.setInsertionPoint(m.ops[at]);
      IRMapping map;
      for (Value operand : op->getOperands())
        map.map(operand, mapped(operand));
      Operation *copy = builder.clone(*op, map);
      markClone(copy, op);
      for (auto [from, to] : llvm::zip(op->getResults(), copy->getResults()))
        again[from] = to;
      continue;
    }
    builder.setInsertionPoint(op);
    for (OpOperand &operand : op->getOpOperands())
      if (Value now = mapped(operand.get()); now != operand.get())
        operand.set(now);
  }
}

struct RematerializeBudgetPass
    : public nnc::impl::RematerializeBudgetPassBase<RematerializeBudgetPass> {
  using RematerializeBudgetPassBase::RematerializeBudgetPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = module.lookupSymbol<func::FuncOp>(function);
    if (!func) {
      module.emitError() << "--nnc-remat-budget: no function '" << function
                         << "'";
      return signalPassFailure();
    }
    if (alignment <= 0 || (alignment & (alignment - 1)) != 0) {
      func.emitError() << "--nnc-remat-budget: alignment must be a power of "
                          "two, not "
                       << static_cast<int64_t>(alignment);
      return signalPassFailure();
    }
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    Model m;
    if (!m.build(func) || m.ops.empty())
      return;
    Evaluation none, e;
    evaluate(m, std::vector<bool>(m.ops.size(), false), none);
    int64_t before = placedArena(none, alignment);
    std::vector<bool> chosen(m.ops.size(), false);
    e = none;
    int64_t after = before;
    Method method = Method::None;
    if (!choice.empty()) {
      for (int64_t k : choice) {
        if (k < 0 || k >= static_cast<int64_t>(m.ops.size()) ||
            !m.recomputable[k]) {
          func.emitError() << "--nnc-remat-budget: choice " << k
                           << " is not a recomputable forward op of @"
                           << function;
          return signalPassFailure();
        }
        chosen[k] = true;
      }
      method = Method::Given;
      evaluate(m, chosen, e, budget);
      after = placedArena(e, alignment);
    } else if (budget >= 0 && before > budget) {
      // Search on the sweep's peak, then correct by what placement adds.
      // Each round asks the sweep for twice the shortfall more.
      int64_t target = budget, step = alignment;
      for (int round = 0; round < 8; ++round) {
        chosen = search(m, target, e);
        prune(m, target, chosen, e);
        method = Method::Greedy;
        std::vector<bool> exact;
        if (std::optional<bool> finished =
                exactSearch(m, target, chosen, e.peak, exactCandidates,
                            exactEvaluations, exact)) {
          method = *finished ? Method::Exact : Method::ExactBounded;
          chosen = std::move(exact);
          evaluate(m, chosen, e, target);
        }
        after = placedArena(e, alignment);
        if (after <= budget || e.peak > target)
          break;
        step = std::max(step * 2, after - budget);
        target = budget - step;
      }
    }
    bool fits = budget < 0 || after <= budget;
    MLIRContext *context = &getContext();
    SmallVector<Attribute> recomputed, kept;
    SmallVector<int64_t> positions;
    int64_t extra = 0, total = 0;
    for (size_t k = 0; k < m.ops.size(); ++k) {
      total += m.flops[k];
      bool again = chosen[k] && e.time[k] != kNever;
      if (again) {
        extra += m.flops[k];
        positions.push_back(k);
      }
      for (int id : m.defines[k]) {
        bool saved = m.forward[k] && llvm::any_of(m.readers[id], [&](int j) {
                       return !m.forward[j];
                     });
        if (!saved)
          continue;
        (again ? recomputed : kept)
            .push_back(StringAttr::get(context, describe(m, id)));
      }
    }
    // What dominates the peak, largest first.
    SmallVector<std::pair<int64_t, int>> alive;
    for (size_t id = 0; id < m.stored.size(); ++id)
      if (covers(e.originals[id], e.peakTime) ||
          covers(e.clones[id], e.peakTime))
        alive.push_back({m.stored[id].bytes, static_cast<int>(id)});
    llvm::sort(alive, [](auto a, auto b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    SmallVector<Attribute> peakValues;
    for (auto [i, entry] : llvm::enumerate(alive)) {
      if (i == 5) {
        peakValues.push_back(StringAttr::get(
            context, "and " + std::to_string(alive.size() - 5) + " more"));
        break;
      }
      peakValues.push_back(StringAttr::get(context, describe(m, entry.second)));
    }
    if (!fits && !allowOverBudget) {
      auto diag = emitError(func.getLoc())
                  << "memory budget of " << static_cast<int64_t>(budget)
                  << " bytes for the temporaries cannot be met: the smallest "
                     "arena the search reached by recomputation is "
                  << after << " bytes (" << before
                  << " without); alive at its peak:";
      for (auto [i, text] : llvm::enumerate(peakValues))
        diag << (i ? ", " : " ") << cast<StringAttr>(text).getValue();
      return signalPassFailure();
    }
    if (llvm::any_of(chosen, [](bool b) { return b; }))
      rewrite(m, chosen, e);
    Builder b(context);
    NamedAttrList figures;
    figures.set("budget", b.getI64IntegerAttr(budget));
    figures.set("before", b.getI64IntegerAttr(before));
    figures.set("after", b.getI64IntegerAttr(after));
    figures.set("flops", b.getI64IntegerAttr(total));
    figures.set("extra_flops", b.getI64IntegerAttr(extra));
    figures.set("recomputed", b.getArrayAttr(recomputed));
    figures.set("kept", b.getArrayAttr(kept));
    figures.set("fits", b.getBoolAttr(fits));
    figures.set("method", b.getStringAttr(methodName(method)));
    figures.set("choice", b.getDenseI64ArrayAttr(positions));
    figures.set("peak_values", b.getArrayAttr(peakValues));
    func->setAttr(nnc::kRematAttrName, figures.getDictionary(context));
  }
};

} // namespace
