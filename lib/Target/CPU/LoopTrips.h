//===- LoopTrips.h - static trip counts of scf loops ------------*- C++ -*-===//
//
// The static iteration counts the CPU target's loop passes decide by
// (--nnc-sequential-small-loops, --nnc-parallel-outer-dims).
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LIB_TARGET_CPU_LOOPTRIPS_H
#define NNC_LIB_TARGET_CPU_LOOPTRIPS_H

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Value.h"

#include <cstdint>
#include <limits>
#include <optional>

namespace nnc::cpu {

/// A trip count or product of them that is not known statically, or does
/// not fit: larger than any known one.
constexpr int64_t kUnknownTrips = std::numeric_limits<int64_t>::max();

/// a * b, kUnknownTrips where either is unknown or the product overflows.
inline int64_t saturatingMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0)
    return 0;
  if (a > kUnknownTrips / b)
    return kUnknownTrips;
  return a * b;
}

/// The static trip count of the loop dimension (lb, ub, step), or
/// kUnknownTrips.
inline int64_t staticTripCount(mlir::Value lb, mlir::Value ub,
                               mlir::Value step) {
  std::optional<int64_t> l = mlir::getConstantIntValue(lb);
  std::optional<int64_t> u = mlir::getConstantIntValue(ub);
  std::optional<int64_t> s = mlir::getConstantIntValue(step);
  if (!l || !u || !s || *s <= 0)
    return kUnknownTrips;
  return *u <= *l ? 0 : (*u - *l + *s - 1) / *s;
}

} // namespace nnc::cpu

#endif // NNC_LIB_TARGET_CPU_LOOPTRIPS_H
