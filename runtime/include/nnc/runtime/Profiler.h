//===- Profiler.h - timed events of runs, steps and data loading -*- C++
//-*-===//
//
// A process-wide recorder of timed events: every kernel a Program launches,
// the waits of the data loader, and what clients add (compiles, training
// steps, checkpoints). Off by default, when recording costs one relaxed
// atomic load per event site. The events aggregate into a table by name (as
// PyTorch's key_averages) and export as a Chrome/Perfetto trace.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_PROFILER_H
#define NNC_RUNTIME_PROFILER_H

#include "nnc/runtime/Status.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace nnc::runtime {

struct ProfileEvent {
  std::string name;
  /// What kind of work: "kernel", "library" (a plan step that is mostly
  /// BLAS calls), "data", "compile", "step", "io", ...
  std::string category;
  /// Nanoseconds since the profiler started.
  int64_t startNs = 0;
  int64_t durationNs = 0;
  /// A small number per thread, in order of first appearance.
  uint32_t thread = 0;
  /// More about the event (for a kernel: the ops it computes); in the
  /// trace's "args", not in the table.
  std::string detail;
  /// For a plan step: the compiler's estimates of the bytes it reads and
  /// writes (0: not given); in the trace's "args" when not 0.
  uint64_t bytesRead = 0;
  uint64_t bytesWritten = 0;
};

class Profiler {
public:
  /// The one profiler of the process.
  static Profiler &global();

  /// Starts recording (dropping earlier events); the clock starts at 0.
  void start();
  /// Stops recording; the events stay until the next start().
  void stop();
  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }

  /// Nanoseconds since start().
  int64_t now() const;
  /// Adds an event (nothing while stopped).
  void record(std::string category, std::string name, int64_t startNs,
              int64_t durationNs, std::string detail = "",
              uint64_t bytesRead = 0, uint64_t bytesWritten = 0);

  std::vector<ProfileEvent> events() const;

  /// The events aggregated by (category, name), sorted by total time: name,
  /// category, count, total/mean/min/max milliseconds and the share of the
  /// summed time; a total line at the end.
  std::string summary() const;
  /// The events as Chrome trace JSON ("traceEvents", complete events with
  /// microsecond timestamps), which chrome://tracing and Perfetto open.
  std::string traceJson() const;
  /// Writes traceJson() to `path` atomically.
  Status writeTrace(const std::string &path) const;

private:
  Profiler() = default;
  uint32_t threadIndex();

  std::atomic<bool> enabled_{false};
  std::atomic<int64_t> originNs_{0};
  mutable std::mutex mutex_;
  std::vector<ProfileEvent> events_;
  std::vector<std::pair<size_t, uint32_t>> threads_; // thread id hash, index
};

/// Records the time from construction to destruction as one event, when the
/// profiler was recording at construction.
class ProfileScope {
public:
  ProfileScope(const char *category, std::string name);
  ~ProfileScope();
  ProfileScope(const ProfileScope &) = delete;
  ProfileScope &operator=(const ProfileScope &) = delete;

private:
  const char *category_;
  std::string name_;
  int64_t start_ = -1;
};

} // namespace nnc::runtime

#endif // NNC_RUNTIME_PROFILER_H
