//===- Monitor.h - where a training run's time and memory go ---*- C++ -*-===//
//
// The training monitor: per interval of a run, where the wall time went (the
// compiled step, waiting for data, everything else), the throughput, the
// step's planned peak and the process's resident memory against what the
// machine or its cgroup allows; and, once per topic, advice when a figure
// crosses its threshold, as PyTorch's performance checklist gives it: data
// loading stalls, memory near its limit, a step dominated by a few kernels.
// It reads counters the trainer and the loader keep anyway, so watching
// costs nothing per step; the kernel advice profiles one interval.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_MONITOR_H
#define NNC_RUNTIME_MONITOR_H

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace nnc::runtime {

class DataLoader;
class Trainer;

struct MonitorOptions {
  /// Data advice: waiting for batches took more than this share of an
  /// interval's wall time.
  double dataWaitShare = 0.10;
  /// Memory advice: resident memory above this share of what is available.
  double memoryShare = 0.90;
  /// What is available, in bytes; 0: the cgroup's limit, else the physical
  /// memory (memoryAvailable()).
  int64_t memoryLimitBytes = 0;
  /// Kernel advice: the few (at most 3) slowest kernels of the profiled
  /// interval take at least this share of the kernels' time.
  double kernelShare = 0.5;
  /// Profile the second interval (the first runs compiles) for the kernel
  /// advice. When the profiler already records, its events are read instead
  /// and it is left running.
  bool profileKernels = true;
};

enum class AdviceTopic : uint32_t {
  DataWait = 1,
  Memory = 2,
  Kernels = 4,
};

struct Advice {
  AdviceTopic topic;
  std::string text;
};

struct IntervalStats {
  /// Optimizer steps taken at the end of the interval, and in it.
  int64_t step = 0;
  int64_t steps = 0;
  /// Samples (rows) and micro-batches the trainer ran in the interval.
  int64_t samples = 0;
  int64_t microBatches = 0;
  /// Wall time and its split: the compiled step running, waiting for data,
  /// everything else (compiles, evaluation, checkpoints, the caller's own
  /// work). busy + dataWait + other == wall.
  double wallSeconds = 0;
  double busySeconds = 0;
  double dataWaitSeconds = 0;
  double otherSeconds = 0;
  double samplesPerSecond = 0;
  /// The planned peak of the program the last step ran (inputs, outputs,
  /// weights, temporaries); 0 before any step.
  int64_t plannedPeakBytes = 0;
  /// The process's resident memory now and at its highest.
  int64_t residentBytes = 0;
  int64_t peakResidentBytes = 0;
  /// What the process may use, and where that figure comes from.
  int64_t memoryAvailableBytes = 0;
  std::string memorySource;
  /// Advice raised in this interval (each topic once per monitor).
  std::vector<Advice> advice;
};

/// The memory this process may use: the tightest cgroup limit on its
/// cgroup and its parents (v2 memory.max, v1 memory.limit_in_bytes), else
/// the physical memory (MemTotal). `source` says which.
int64_t memoryAvailable(std::string &source);
/// The process's resident set now and its peak (VmHWM), in bytes.
void residentMemory(int64_t &now, int64_t &peak);
/// "1.8 MB", "95.3 MB", "24.0 GB" (decimal units, as the progress line
/// prints them).
std::string formatBytes(int64_t bytes);

class Monitor {
public:
  /// Watches `trainer` and `loader` (either may be null; both borrowed and
  /// must outlive the monitor). The first interval starts now.
  Monitor(const MonitorOptions &options, const Trainer *trainer,
          const DataLoader *loader);
  ~Monitor();
  Monitor(const Monitor &) = delete;
  Monitor &operator=(const Monitor &) = delete;

  /// Ends the current interval, returns its figures and starts the next.
  IntervalStats interval();

  const MonitorOptions &options() const { return options_; }

private:
  using Clock = std::chrono::steady_clock;
  struct Mark {
    Clock::time_point time;
    double stepSeconds = 0, hostSeconds = 0, waitSeconds = 0;
    int64_t samples = 0, calls = 0, steps = 0;
  };
  Mark mark() const;
  void adviseKernels(IntervalStats &stats);

  MonitorOptions options_;
  const Trainer *trainer_;
  const DataLoader *loader_;
  Mark last_;
  int64_t intervals_ = 0;
  uint32_t advised_ = 0;
  /// The kernel profile: not yet, recording this interval (started by the
  /// monitor, or borrowed from a profiler already on), done.
  enum class Profiling { Pending, Own, Borrowed, Done } profiling_;
  int64_t profileStartNs_ = 0;
};

} // namespace nnc::runtime

#endif // NNC_RUNTIME_MONITOR_H
