//===- LoopSchedule.cpp - how an op's generated loop nests run ------------===//

#include "nnc/LoopSchedule.h"

#include "nnc/NNCOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace {

/// The key of a schedule in a fused location's dictionary.
constexpr llvm::StringLiteral kMetadataKey("nnc.loops");

struct ParallelismName {
  nnc::LoopParallelism parallelism;
  llvm::StringLiteral name;
};
constexpr ParallelismName kParallelisms[] = {
    {nnc::LoopParallelism::Rules, "loops"},
    {nnc::LoopParallelism::Serial, "loops_serial"},
    {nnc::LoopParallelism::Outer, "loops_outer"},
    {nnc::LoopParallelism::Wide, "loops_wide"},
};

/// Consumes ".<letter><number>" from the front of `rest` into `value`;
/// false, leaving `rest`, when it does not start with ".<letter>".
bool consumeModifier(llvm::StringRef &rest, char letter, unsigned &value,
                     bool &bad) {
  llvm::StringRef tail = rest;
  if (!tail.consume_front(".") ||
      !tail.consume_front(llvm::StringRef(&letter, 1)))
    return false;
  llvm::StringRef digits = tail.take_while(llvm::isDigit);
  // No sign, no leading zero, no overflow.
  if (digits.empty() || digits.front() == '0' ||
      digits.getAsInteger(10, value)) {
    bad = true;
    return false;
  }
  rest = tail.drop_front(digits.size());
  return true;
}

} // namespace

std::string nnc::loopScheduleName(const LoopSchedule &schedule) {
  std::string name;
  for (const ParallelismName &entry : kParallelisms)
    if (entry.parallelism == schedule.parallelism)
      name = entry.name.str();
  if (schedule.threads)
    name += ".t" + std::to_string(schedule.threads);
  if (schedule.vectorWidth)
    name += ".v" + std::to_string(schedule.vectorWidth);
  return name;
}

std::optional<nnc::LoopSchedule> nnc::loopScheduleNamed(llvm::StringRef name) {
  llvm::StringRef base = name.take_until([](char c) { return c == '.'; });
  llvm::StringRef rest = name.drop_front(base.size());
  std::optional<LoopSchedule> schedule;
  for (const ParallelismName &entry : kParallelisms)
    if (entry.name == base)
      schedule = LoopSchedule{entry.parallelism};
  if (!schedule)
    return std::nullopt;
  bool bad = false;
  if (consumeModifier(rest, 't', schedule->threads, bad) &&
      (schedule->parallelism == LoopParallelism::Serial ||
       schedule->threads < 2 || schedule->threads > LoopSchedule::kMaxThreads))
    return std::nullopt;
  if (consumeModifier(rest, 'v', schedule->vectorWidth, bad) &&
      (!llvm::isPowerOf2_32(schedule->vectorWidth) ||
       schedule->vectorWidth > LoopSchedule::kMaxVectorWidth))
    return std::nullopt;
  if (bad || !rest.empty())
    return std::nullopt;
  return schedule;
}

std::string nnc::loopScheduleNames() {
  std::string names;
  for (const ParallelismName &entry : kParallelisms)
    names += (names.empty() ? "\"" : ", \"") + entry.name.str() + "\"";
  return names + ", each optionally followed by \".t<threads>\" (2 to " +
         std::to_string(LoopSchedule::kMaxThreads) +
         ", not after \"loops_serial\") and then \".v<lanes>\" (a power "
         "of two up to " +
         std::to_string(LoopSchedule::kMaxVectorWidth) + ")";
}

bool nnc::takesLoopSchedule(Operation *op) {
  return isa<MaxPoolOp, MaxPoolGradOp, AvgPoolOp, GlobalAvgPoolOp,
             GlobalMaxPoolOp, SoftmaxOp, LogSoftmaxOp, BatchNormOp,
             BatchNormTrainOp, LayerNormOp, GroupNormOp, InstanceNormOp,
             ReduceOp, ArgReduceOp, CumSumOp, CrossEntropyOp, NllLossOp>(op);
}

Location nnc::withLoopSchedule(Location loc, const LoopSchedule &schedule) {
  MLIRContext *context = loc.getContext();
  NamedAttribute mark(StringAttr::get(context, kMetadataKey),
                      StringAttr::get(context, loopScheduleName(schedule)));
  auto fused = dyn_cast<FusedLoc>(loc);
  auto metadata =
      fused ? dyn_cast_or_null<DictionaryAttr>(fused.getMetadata()) : nullptr;
  if (metadata) {
    NamedAttrList entries(metadata);
    entries.set(mark.getName(), mark.getValue());
    return FusedLoc::get(context, fused.getLocations(),
                         entries.getDictionary(context));
  }
  return FusedLoc::get(context, {loc}, DictionaryAttr::get(context, {mark}));
}

std::optional<nnc::LoopSchedule> nnc::loopScheduleOf(Location loc) {
  std::optional<LoopSchedule> found;
  loc->walk([&](Location inner) {
    auto fused = dyn_cast<FusedLoc>(inner);
    auto metadata =
        fused ? dyn_cast_or_null<DictionaryAttr>(fused.getMetadata()) : nullptr;
    auto name =
        metadata ? dyn_cast_or_null<StringAttr>(metadata.get(kMetadataKey))
                 : nullptr;
    if (!name)
      return WalkResult::advance();
    found = loopScheduleNamed(name.getValue());
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}
