//===- LoopSchedule.cpp - how an op's generated loop nests run ------------===//

#include "nnc/LoopSchedule.h"

#include "nnc/NNCOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace {

/// The key of a schedule in a fused location's dictionary.
constexpr llvm::StringLiteral kMetadataKey("nnc.loops");

constexpr nnc::LoopSchedule kAll[] = {nnc::LoopSchedule::Serial,
                                 nnc::LoopSchedule::Outer,
                                 nnc::LoopSchedule::Wide};

} // namespace

llvm::StringRef nnc::loopScheduleName(LoopSchedule schedule) {
  switch (schedule) {
  case LoopSchedule::Serial:
    return "loops_serial";
  case LoopSchedule::Outer:
    return "loops_outer";
  case LoopSchedule::Wide:
    return "loops_wide";
  }
  llvm_unreachable("unknown loop schedule");
}

std::optional<nnc::LoopSchedule> nnc::loopScheduleNamed(llvm::StringRef name) {
  for (LoopSchedule schedule : kAll)
    if (loopScheduleName(schedule) == name)
      return schedule;
  return std::nullopt;
}

std::string nnc::loopScheduleNames() {
  std::string names;
  for (LoopSchedule schedule : kAll)
    names += (names.empty() ? "\"" : ", \"") + loopScheduleName(schedule).str() +
             "\"";
  return names;
}

bool nnc::takesLoopSchedule(Operation *op) {
  return isa<MaxPoolOp, MaxPoolGradOp, AvgPoolOp, GlobalAvgPoolOp,
             GlobalMaxPoolOp, SoftmaxOp, LogSoftmaxOp, BatchNormOp,
             BatchNormTrainOp, LayerNormOp, GroupNormOp, InstanceNormOp,
             ReduceOp, ArgReduceOp, CumSumOp, CrossEntropyOp, NllLossOp>(op);
}

Location nnc::withLoopSchedule(Location loc, LoopSchedule schedule) {
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
