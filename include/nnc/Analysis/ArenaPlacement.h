//===- ArenaPlacement.h - buffers with lifetimes at arena offsets -*- C++ -*-//
//
// The placement model of the memory plan (--nnc-plan-memory), kept in one
// place so that a pass predicting the plan's arena (rematerialization under
// a memory budget) computes the same figure the plan will: buffers, each
// with a size and a lifetime, placed greedily by size, the largest first,
// each at the best-fitting gap among the buffers already placed whose
// lifetimes overlap it.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_ANALYSIS_ARENAPLACEMENT_H
#define NNC_ANALYSIS_ARENAPLACEMENT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace nnc {

/// A buffer of `size` bytes alive from `first` to `last` (inclusive, in
/// any monotonic clock: op positions).
struct BufferLifetime {
  int64_t size = 0;
  int64_t first = 0, last = 0;
};

/// Places `buffers` in one arena, each offset a multiple of `alignment` (a
/// power of two); returns the arena's size (aligned) and the offsets in
/// `offsets`, one per buffer.
int64_t placeInArena(llvm::ArrayRef<BufferLifetime> buffers, int64_t alignment,
                     llvm::SmallVectorImpl<int64_t> &offsets);

/// The most bytes alive at one time: a lower bound of placeInArena's size.
int64_t peakLiveBytes(llvm::ArrayRef<BufferLifetime> buffers);

} // namespace nnc

#endif // NNC_ANALYSIS_ARENAPLACEMENT_H
