//===- Rematerialization.cpp - what recomputing forward values saves ------===//
//
// The model, the prediction and the searches of --nnc-remat-budget
// (nnc/Analysis/Rematerialization.h; Passes.td states the model).
//
//===----------------------------------------------------------------------===//

#include "nnc/Analysis/Rematerialization.h"

#include "nnc/Analysis/CostModel.h"
#include "nnc/NNCOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <functional>

using namespace mlir;
using namespace nnc;
using namespace nnc::remat;

namespace {
/// "name" of a location: a NameLoc's name, a file:line:col, the first of a
/// fused location; empty for anything else.
std::string locationName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().str() + ":" + std::to_string(file.getLine()) +
            ":" + std::to_string(file.getColumn()));
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string name = locationName(inner); !name.empty())
        return name;
  return "";
}

} // namespace

bool nnc::remat::Model::build(func::FuncOp func) {
  Block &body = func.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  if (ret.getNumOperands() == 0)
    return false;
  for (Operation &op : body.without_terminator()) {
    index[&op] = ops.size();
    ops.push_back(&op);
  }
  // The forward pass: what the loss (the first result) depends on.
  forward.assign(ops.size(), false);
  SmallVector<Value> worklist = {ret.getOperand(0)};
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != &body)
      continue;
    int i = index.lookup(def);
    if (forward[i])
      continue;
    forward[i] = true;
    for (Value operand : def->getOperands())
      worklist.push_back(operand);
  }
  DenseSet<Value> returned(ret.getOperands().begin(), ret.getOperands().end());
  // Values fusion folds into their readers, or that view their operand
  // (docs/FusionAndMemory.md): an elementwise value whose readers are
  // elementwise ops or reductions is folded into them when it has one
  // reader, or when what it is computed from is at hand wherever it is
  // read (arguments, constants, values the backward reads anyway, or
  // values folded the same way): the linalg-level --nnc-rematerialize
  // recomputes it at its late readers then. Otherwise it is stored.
  auto atHand = [&](Value value) {
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != &body || transparent.contains(value) ||
        def->hasTrait<OpTrait::ConstantLike>())
      return true;
    return llvm::any_of(value.getUsers(), [&](Operation *user) {
      auto found = index.find(user);
      return found != index.end() && !forward[found->second];
    });
  };
  // batch_norm_train's normalized result is elementwise in its input and
  // the batch statistics (its other results, which stay stored): the
  // lowering's normalization fuses into its readers like any elementwise
  // op.
  auto elementwise = [](Operation *op, Value result) {
    if (auto bn = dyn_cast<nnc::BatchNormTrainOp>(op))
      return result == bn->getResult(0);
    return nnc::isPointwise(op);
  };
  // A max pooling and its gradient without padding read their input
  // through the window loops of linalg generics, which fusion folds an
  // elementwise producer into (a padded input is copied into the padding
  // first).
  auto readsThroughWindows = [](Operation *op) {
    auto unpadded = [](std::optional<ArrayRef<int64_t>> pads) {
      return !pads || llvm::all_of(*pads, [](int64_t p) { return p == 0; });
    };
    if (auto pool = dyn_cast<nnc::MaxPoolOp>(op))
      return unpadded(pool.getPads()) && !pool.getCeilMode();
    if (auto grad = dyn_cast<nnc::MaxPoolGradOp>(op))
      return unpadded(grad.getPads()) && !grad.getCeilMode();
    return false;
  };
  // A transpose of the last two dimensions that one GEMM alone reads: the
  // CPU target's BLAS calls read its source transposed (GemmToBlas), so it
  // is never stored.
  auto readTransposedByGemm = [](Operation *op) {
    auto transpose = dyn_cast<nnc::TransposeOp>(op);
    if (!transpose || !transpose->hasOneUse())
      return false;
    ArrayRef<int64_t> perm = transpose.getPerm();
    int64_t rank = perm.size();
    if (rank < 2 || perm[rank - 2] != rank - 1 || perm[rank - 1] != rank - 2)
      return false;
    for (int64_t d = 0; d + 2 < rank; ++d)
      if (perm[d] != d)
        return false;
    return isa<nnc::MatMulOp, nnc::GemmOp>(*transpose->getUsers().begin());
  };
  for (Operation *op : ops)
    for (Value result : op->getResults()) {
      if (readTransposedByGemm(op)) {
        transparent.insert(result);
        continue;
      }
      bool fusible =
          elementwise(op, result) && !result.use_empty() &&
          !returned.contains(result) &&
          llvm::all_of(result.getUsers(), [&](Operation *user) {
            return user->getBlock() == &body &&
                   !user->hasTrait<OpTrait::IsTerminator>() &&
                   (nnc::isPointwise(user) || isa<nnc::ReduceOp>(user) ||
                    readsThroughWindows(user));
          });
      Operation *reader =
          result.use_empty() ? nullptr : *result.getUsers().begin();
      bool folded =
          fusible &&
          (llvm::all_of(result.getUsers(),
                        [&](Operation *user) { return user == reader; }) ||
           llvm::all_of(op->getOperands(), atHand));
      if (folded || nnc::isReshapeLike(op))
        transparent.insert(result);
    }
  defines.resize(ops.size());
  for (auto [i, op] : llvm::enumerate(ops))
    for (Value result : op->getResults()) {
      if (transparent.contains(result) || returned.contains(result) ||
          op->hasTrait<OpTrait::ConstantLike>())
        continue;
      int64_t bytes = nnc::tensorBytes(result.getType());
      if (bytes < 0) {
        if (isa<RankedTensorType>(result.getType()))
          return false; // dynamic shapes: nothing to plan
        continue;
      }
      storedId[result] = stored.size();
      defines[i].push_back(stored.size());
      stored.push_back({result, bytes, static_cast<int>(i)});
    }
  // What each value stands for in memory.
  DenseMap<Value, SmallVector<int, 2>> roots;
  std::function<const SmallVector<int, 2> &(Value)> rootsOf =
      [&](Value value) -> const SmallVector<int, 2> & {
    auto found = roots.find(value);
    if (found != roots.end())
      return found->second;
    SmallVector<int, 2> list;
    if (auto id = storedId.find(value); id != storedId.end()) {
      list.push_back(id->second);
    } else if (transparent.contains(value)) {
      for (Value operand : value.getDefiningOp()->getOperands())
        for (int root : rootsOf(operand))
          if (!llvm::is_contained(list, root))
            list.push_back(root);
    }
    return roots[value] = std::move(list);
  };
  reads.resize(ops.size());
  readers.resize(stored.size());
  for (auto [i, op] : llvm::enumerate(ops)) {
    if (llvm::any_of(op->getResults(),
                     [&](Value r) { return transparent.contains(r); }))
      continue; // read where its readers are
    SmallVector<int> &list = reads[i];
    for (Value operand : op->getOperands())
      for (int root : rootsOf(operand))
        if (!llvm::is_contained(list, root))
          list.push_back(root);
    for (int root : list)
      readers[root].push_back(i);
  }
  recomputable.assign(ops.size(), false);
  saved.assign(ops.size(), false);
  flops.assign(ops.size(), 0);
  for (auto [i, op] : llvm::enumerate(ops)) {
    flops[i] = nnc::costOf(op).flops;
    // An op with a returned result among others (batch_norm_train's
    // running statistics) may be recomputed too: the function still
    // returns the original's, the backward reads the clone's, which are
    // the same numbers.
    if (!forward[i] || defines[i].empty() || !isMemoryEffectFree(op) ||
        op->getNumRegions() != 0)
      continue;
    recomputable[i] = true;
    saved[i] = llvm::any_of(defines[i], [&](int id) {
      return llvm::any_of(readers[id], [&](int j) { return !forward[j]; });
    });
  }
  return true;
}

void nnc::remat::evaluate(const Model &m, const std::vector<bool> &recompute,
                          Evaluation &e, int64_t target) {
  size_t n = m.ops.size();
  e.time.assign(n, kNever);
  // Latest ops first: a recomputation's readers come after it.
  for (size_t k = n; k-- > 0;) {
    if (!recompute[k])
      continue;
    int64_t first = kNever;
    for (int id : m.defines[k])
      for (int j : m.readers[id]) {
        if (!m.forward[j])
          first = std::min(first, int64_t(j) * kSpacing);
        else if (recompute[j])
          first = std::min(first, e.time[j]);
      }
    e.time[k] = first == kNever ? kNever : first - 1;
  }
  size_t s = m.stored.size();
  e.originals.resize(s);
  e.clones.resize(s);
  for (size_t id = 0; id < s; ++id) {
    int d = m.stored[id].op;
    int64_t size = m.stored[id].bytes;
    bool again = recompute[d] && e.time[d] != kNever;
    nnc::BufferLifetime original{size, int64_t(d) * kSpacing,
                                 int64_t(d) * kSpacing};
    nnc::BufferLifetime clone{again ? size : 0, again ? e.time[d] : 0,
                              again ? e.time[d] : 0};
    for (int j : m.readers[id]) {
      if (m.forward[j]) {
        original.last = std::max(original.last, int64_t(j) * kSpacing);
        if (recompute[j] && e.time[j] != kNever) {
          nnc::BufferLifetime &reader = again ? clone : original;
          reader.last = std::max(reader.last, e.time[j]);
        }
      } else {
        nnc::BufferLifetime &reader = again ? clone : original;
        reader.last = std::max(reader.last, int64_t(j) * kSpacing);
      }
    }
    e.originals[id] = original;
    e.clones[id] = clone;
  }
  // The sweep: frees before allocations at one time.
  std::vector<std::pair<int64_t, int64_t>> events;
  events.reserve(4 * s);
  for (const auto *list : {&e.originals, &e.clones})
    for (const nnc::BufferLifetime &b : *list)
      if (b.size > 0) {
        events.push_back({b.first, b.size});
        events.push_back({b.last + 1, -b.size});
      }
  llvm::sort(events);
  int64_t live = 0;
  e.peak = 0;
  e.peakTime = 0;
  e.excess = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    auto [t, delta] = events[i];
    live += delta;
    if (live > e.peak) {
      e.peak = live;
      e.peakTime = t;
    }
    if (target >= 0 && live > target && i + 1 < events.size())
      e.excess += double(live - target) *
                  (double(events[i + 1].first - t) / double(kSpacing));
  }
}

/// The arena the memory plan would make of an evaluation's lifetimes.
int64_t nnc::remat::placedArena(const Evaluation &e, int64_t alignment) {
  SmallVector<nnc::BufferLifetime> buffers;
  for (const auto *list : {&e.originals, &e.clones})
    for (const nnc::BufferLifetime &b : *list)
      if (b.size > 0)
        buffers.push_back(b);
  SmallVector<int64_t> offsets;
  return nnc::placeInArena(buffers, alignment, offsets);
}

bool nnc::remat::covers(const BufferLifetime &b, int64_t t) {
  return b.size > 0 && b.first <= t && t <= b.last;
}

/// "nnc.gemm 'fc1' tensor<8x32xf32> 1024 bytes".
std::string nnc::remat::describe(const Model &m, int id) {
  const Model::Stored &value = m.stored[id];
  Operation *op = m.ops[value.op];
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getName().getStringRef();
  if (std::string name = locationName(op->getLoc()); !name.empty())
    os << " '" << name << "'";
  os << " " << value.value.getType() << " " << value.bytes << " bytes";
  return text;
}

/// The greedy descent of Passes.td: returns the recomputed ops for the
/// smallest prediction at or below `target` it finds (or the smallest it
/// reaches when none is).
std::vector<bool> nnc::remat::search(const Model &m, int64_t target,
                                     Evaluation &e) {
  size_t n = m.ops.size();
  std::vector<bool> chosen(n, false);
  evaluate(m, chosen, e, target);
  Evaluation trial;
  while (e.peak > target) {
    // Forward ops with a saved value alive at the peak, largest first.
    SmallVector<std::pair<int64_t, int>> candidates;
    for (size_t k = 0; k < n; ++k) {
      if (!m.saved[k] || chosen[k])
        continue;
      int64_t bytes = 0;
      for (int id : m.defines[k])
        if (covers(e.originals[id], e.peakTime))
          bytes += m.stored[id].bytes;
      if (bytes > 0)
        candidates.push_back({bytes, static_cast<int>(k)});
    }
    llvm::sort(candidates, [](auto a, auto b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    if (candidates.size() > 64)
      candidates.resize(64);
    // A candidate goes with the producers it would otherwise keep alive
    // into backward (values dead at the peak), a few deep; looking ahead,
    // also with the producers alive at the peak (one level), when no
    // group lowers the peak without them.
    auto groupOf = [&](int k, bool lookAhead) {
      SmallVector<int> group = {k};
      SmallVector<std::pair<int, int>> stack = {{k, 0}};
      while (!stack.empty()) {
        auto [op, depth] = stack.pop_back_val();
        if (depth >= 6)
          continue;
        for (int id : m.reads[op]) {
          int p = m.stored[id].op;
          if (!m.recomputable[p] || chosen[p] || llvm::is_contained(group, p))
            continue;
          bool alive = covers(e.originals[id], e.peakTime);
          if (alive && !(lookAhead && depth == 0))
            continue;
          group.push_back(p);
          stack.push_back({p, depth + 1});
        }
      }
      return group;
    };
    for (int lookAhead = 0; lookAhead < 2; ++lookAhead) {
      double bestScore = 0;
      SmallVector<int> best;
      for (auto [bytes, k] : candidates) {
        SmallVector<int> group = groupOf(k, lookAhead);
        if (lookAhead && group == groupOf(k, false))
          continue;
        std::vector<bool> trialSet = chosen;
        int64_t cost = 1;
        for (int g : group) {
          trialSet[g] = true;
          cost += m.flops[g];
        }
        evaluate(m, trialSet, trial, target);
        // A lower peak first; on a plateau, less memory above the target.
        double gain =
            double(e.peak - trial.peak) * double(n) + (e.excess - trial.excess);
        if (trial.peak > e.peak || !(gain > 0))
          continue;
        double score = gain / double(cost);
        if (score > bestScore) {
          bestScore = score;
          best = group;
        }
      }
      if (!best.empty()) {
        for (int g : best)
          chosen[g] = true;
        break;
      }
      if (lookAhead)
        return chosen; // nothing lowers the peak: the smallest reached
    }
    evaluate(m, chosen, e, target);
  }
  return chosen;
}

/// Takes back the recomputations a choice does not need: the greedy descent
/// never undoes a step, so an early pick can become useless after later
/// ones, and a step that only lowered the memory above the target without
/// lowering the peak can end a descent that fails. The most expensive
/// first, each is dropped when the prediction stays at or below `target`
/// (or, when the choice does not reach it, at or below its own peak).
void nnc::remat::prune(const Model &m, int64_t target,
                       std::vector<bool> &chosen, Evaluation &e) {
  evaluate(m, chosen, e, target);
  int64_t bound = std::max(target, e.peak);
  SmallVector<int> order;
  for (size_t k = 0; k < m.ops.size(); ++k)
    if (chosen[k])
      order.push_back(k);
  llvm::stable_sort(order,
                    [&](int a, int b) { return m.flops[a] > m.flops[b]; });
  Evaluation trial;
  for (int k : order) {
    chosen[k] = false;
    evaluate(m, chosen, trial, target);
    if (trial.peak > bound)
      chosen[k] = true;
  }
  evaluate(m, chosen, e, target);
}

/// The exact search of Passes.td on graphs with few candidates: the forward
/// ops that are saved for backward, and the recomputable producers their
/// recomputation would otherwise keep alive (transitively). A branch and
/// bound over subsets of them, cheapest extra FLOPs first, seeded with the
/// greedy choice `seed`: a subset is pruned as soon as it costs at least the
/// best found, and one that fits `target` is not extended. It stops after
/// `limit` evaluations (a bound on work rather than on a clock, so that a
/// compile chooses the same on any machine) and returns whether it finished,
/// in which case `best` is the least costly subset that fits (or `seed`
/// when none does). Returns std::nullopt when there are more than
/// `maxCandidates` candidates.
std::optional<bool> nnc::remat::exactSearch(const Model &m, int64_t target,
                                            const std::vector<bool> &seed,
                                            int64_t seedPeak, int maxCandidates,
                                            int64_t limit,
                                            std::vector<bool> &best) {
  size_t n = m.ops.size();
  std::vector<bool> isCandidate(n, false);
  SmallVector<int> worklist;
  for (size_t k = 0; k < n; ++k)
    if (m.saved[k]) {
      isCandidate[k] = true;
      worklist.push_back(k);
    }
  while (!worklist.empty()) {
    int k = worklist.pop_back_val();
    for (int id : m.reads[k]) {
      int p = m.stored[id].op;
      if (m.recomputable[p] && !isCandidate[p]) {
        isCandidate[p] = true;
        worklist.push_back(p);
      }
    }
  }
  SmallVector<int> candidates;
  for (size_t k = 0; k < n; ++k)
    if (isCandidate[k])
      candidates.push_back(k);
  if (static_cast<int>(candidates.size()) > maxCandidates)
    return std::nullopt;
  // Cheap ones first: the first fitting subsets found are cheap, which
  // prunes the rest early.
  llvm::stable_sort(candidates,
                    [&](int a, int b) { return m.flops[a] < m.flops[b]; });
  auto costOf = [&](const std::vector<bool> &set) {
    int64_t cost = 0;
    for (size_t k = 0; k < n; ++k)
      if (set[k])
        cost += m.flops[k];
    return cost;
  };
  best = seed;
  bool bestFits = seedPeak <= target;
  int64_t bestCost =
      bestFits ? costOf(seed) : std::numeric_limits<int64_t>::max();
  int64_t evaluations = 0;
  bool finished = true;
  std::vector<bool> set(n, false);
  Evaluation e;
  // Depth first: candidate i is taken, then left out.
  std::function<void(size_t, int64_t)> visit = [&](size_t i, int64_t cost) {
    if (!finished || cost >= bestCost)
      return;
    if (++evaluations > limit) {
      finished = false;
      return;
    }
    evaluate(m, set, e);
    if (e.peak <= target) {
      best = set;
      bestCost = cost;
      bestFits = true;
      return;
    }
    for (size_t j = i; j < candidates.size() && finished; ++j) {
      int k = candidates[j];
      set[k] = true;
      visit(j + 1, cost + m.flops[k]);
      set[k] = false;
    }
  };
  visit(0, 0);
  return finished;
}
