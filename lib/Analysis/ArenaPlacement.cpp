//===- ArenaPlacement.cpp - buffers with lifetimes at arena offsets -------===//

#include "nnc/Analysis/ArenaPlacement.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <limits>
#include <utility>

using namespace nnc;

namespace {
int64_t alignTo(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}
} // namespace

int64_t nnc::placeInArena(llvm::ArrayRef<BufferLifetime> buffers,
                          int64_t alignment,
                          llvm::SmallVectorImpl<int64_t> &offsets) {
  offsets.assign(buffers.size(), -1);
  llvm::SmallVector<size_t> order;
  for (size_t i = 0; i < buffers.size(); ++i)
    order.push_back(i);
  llvm::sort(order, [&](size_t a, size_t b) {
    return buffers[a].size != buffers[b].size
               ? buffers[a].size > buffers[b].size
               : a < b;
  });
  llvm::SmallVector<size_t> placed;
  llvm::SmallVector<std::pair<int64_t, int64_t>> busy; // [offset, end)
  int64_t arenaSize = 0;
  for (size_t i : order) {
    const BufferLifetime &buffer = buffers[i];
    busy.clear();
    for (size_t j : placed) {
      const BufferLifetime &other = buffers[j];
      if (other.first <= buffer.last && buffer.first <= other.last)
        busy.push_back({offsets[j], offsets[j] + other.size});
    }
    llvm::sort(busy);
    int64_t best = -1, bestGap = std::numeric_limits<int64_t>::max();
    int64_t cursor = 0;
    for (auto [begin, end] : busy) {
      int64_t start = alignTo(cursor, alignment);
      if (begin - start >= buffer.size && begin - start < bestGap) {
        best = start;
        bestGap = begin - start;
      }
      cursor = std::max(cursor, end);
    }
    offsets[i] = best >= 0 ? best : alignTo(cursor, alignment);
    arenaSize = std::max(arenaSize, offsets[i] + buffer.size);
    placed.push_back(i);
  }
  return alignTo(arenaSize, alignment);
}

int64_t nnc::peakLiveBytes(llvm::ArrayRef<BufferLifetime> buffers) {
  // Sweep: +size at first, -size after last.
  llvm::SmallVector<std::pair<int64_t, int64_t>> events;
  events.reserve(2 * buffers.size());
  for (const BufferLifetime &buffer : buffers) {
    events.push_back({buffer.first, buffer.size});
    events.push_back({buffer.last + 1, -buffer.size});
  }
  // Frees before allocations at the same time.
  llvm::sort(events);
  int64_t live = 0, peak = 0;
  for (auto [time, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak;
}
