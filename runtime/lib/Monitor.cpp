//===- Monitor.cpp - the training monitor ---------------------------------===//

#include "nnc/runtime/Monitor.h"

#include "nnc/runtime/DataLoader.h"
#include "nnc/runtime/Profiler.h"
#include "nnc/runtime/Trainer.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

namespace nnc::runtime {

namespace {

/// The first number of a one-line file (a cgroup limit), or -1 when the
/// file is absent, says "max" or holds something else.
int64_t readLimit(const std::string &path) {
  std::ifstream in(path);
  std::string text;
  if (!in || !(in >> text) || text.empty() ||
      text.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  try {
    return static_cast<int64_t>(std::stoull(text));
  } catch (...) {
    return -1;
  }
}

/// A "Key: N kB" line of a /proc file, in bytes; -1 when absent.
int64_t procField(const char *path, const std::string &key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size() + 1, key + ":") != 0)
      continue;
    std::istringstream fields(line.substr(key.size() + 1));
    int64_t value = -1;
    std::string unit;
    fields >> value >> unit;
    return unit == "kB" ? value * 1024 : value;
  }
  return -1;
}

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.0f %%", 100.0 * share);
  return text;
}

} // namespace

int64_t memoryAvailable(std::string &source) {
  int64_t best = -1;
  // The process's cgroups: "0::/path" (v2) or "N:memory:/path" (v1); a
  // limit on any ancestor holds too. Limits past the physical memory mean
  // none (v1 writes a huge number for "unlimited").
  std::ifstream cgroups("/proc/self/cgroup");
  std::string line;
  while (std::getline(cgroups, line)) {
    size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos)
      continue;
    std::string controllers = line.substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    bool v2 = controllers.empty();
    if (!v2 && controllers.find("memory") == std::string::npos)
      continue;
    std::string root = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
    const char *file = v2 ? "memory.max" : "memory.limit_in_bytes";
    while (true) {
      std::string folder = root + (path == "/" ? "" : path);
      int64_t limit = readLimit(folder + "/" + file);
      if (limit > 0 && (best < 0 || limit < best)) {
        best = limit;
        source = "cgroup " + folder + "/" + file;
      }
      if (path.empty() || path == "/")
        break;
      size_t slash = path.rfind('/');
      path = slash == 0 ? "/" : path.substr(0, slash);
    }
  }
  int64_t physical = procField("/proc/meminfo", "MemTotal");
  if (physical > 0 && (best < 0 || best >= physical)) {
    best = physical;
    source = "physical memory";
  }
  return best > 0 ? best : 0;
}

void residentMemory(int64_t &now, int64_t &peak) {
  now = procField("/proc/self/status", "VmRSS");
  peak = procField("/proc/self/status", "VmHWM");
  if (now < 0)
    now = 0;
  if (peak < now)
    peak = now;
}

std::string formatBytes(int64_t bytes) {
  const char *units[] = {"B", "kB", "MB", "GB", "TB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1000 && unit < 4) {
    value /= 1000;
    ++unit;
  }
  // Three significant digits: 1.78 MB, 17.0 kB, 183 MB.
  int decimals = unit == 0 || value >= 100 ? 0 : value >= 10 ? 1 : 2;
  char text[32];
  std::snprintf(text, sizeof(text), "%.*f %s", decimals, value, units[unit]);
  return text;
}

Monitor::Monitor(const MonitorOptions &options, const Trainer *trainer,
                 const DataLoader *loader)
    : options_(options), trainer_(trainer), loader_(loader),
      profiling_(options.profileKernels ? Profiling::Pending
                                        : Profiling::Done) {
  last_ = mark();
}

Monitor::~Monitor() {
  if (profiling_ == Profiling::Own)
    Profiler::global().stop();
}

Monitor::Mark Monitor::mark() const {
  Mark m;
  m.time = Clock::now();
  if (trainer_) {
    const TrainerCounters &c = trainer_->counters();
    m.stepSeconds = c.stepSeconds;
    m.hostSeconds = c.hostSeconds;
    m.samples = c.samples;
    m.calls = c.calls;
    m.steps = trainer_->steps();
  }
  if (loader_)
    m.waitSeconds = loader_->waitSeconds();
  return m;
}

IntervalStats Monitor::interval() {
  Mark now = mark();
  IntervalStats stats;
  stats.step = now.steps;
  stats.steps = now.steps - last_.steps;
  stats.samples = now.samples - last_.samples;
  stats.microBatches = now.calls - last_.calls;
  stats.wallSeconds =
      std::chrono::duration<double>(now.time - last_.time).count();
  // Each part is clamped so that they add up to the wall time exactly,
  // whatever the clocks' rounding.
  double wall = stats.wallSeconds;
  stats.busySeconds = std::clamp((now.stepSeconds - last_.stepSeconds) -
                                     (now.hostSeconds - last_.hostSeconds),
                                 0.0, wall);
  stats.dataWaitSeconds = std::clamp(now.waitSeconds - last_.waitSeconds, 0.0,
                                     wall - stats.busySeconds);
  // Rounding: the wall time becomes busy + data + other as doubles add
  // (left to right), which moves it by an ulp at most; wall - (busy +
  // data) does not always give the wall time back when added.
  stats.otherSeconds =
      std::max(0.0, wall - (stats.busySeconds + stats.dataWaitSeconds));
  stats.wallSeconds = wall =
      stats.busySeconds + stats.dataWaitSeconds + stats.otherSeconds;
  stats.samplesPerSecond = wall > 0 ? stats.samples / wall : 0;
  if (trainer_)
    if (const TrainProgram *last = trainer_->lastStep())
      stats.plannedPeakBytes =
          static_cast<int64_t>(last->program->plannedPeakBytes());
  residentMemory(stats.residentBytes, stats.peakResidentBytes);
  if (options_.memoryLimitBytes > 0) {
    stats.memoryAvailableBytes = options_.memoryLimitBytes;
    stats.memorySource = "the limit given";
  } else {
    stats.memoryAvailableBytes = memoryAvailable(stats.memorySource);
  }
  last_ = now;
  ++intervals_;

  auto raise = [&](AdviceTopic topic, std::string text) {
    if (advised_ & static_cast<uint32_t>(topic))
      return;
    advised_ |= static_cast<uint32_t>(topic);
    stats.advice.push_back({topic, std::move(text)});
  };
  if (loader_ && wall > 0 &&
      stats.dataWaitSeconds > options_.dataWaitShare * wall) {
    const DataLoaderOptions &loading = loader_->options();
    raise(AdviceTopic::DataWait,
          "data loading stalls the step: waiting for batches took " +
              percent(stats.dataWaitSeconds / wall) + " of the time (over " +
              percent(options_.dataWaitShare) +
              "); raise the loader's workers (--workers, now " +
              std::to_string(loading.workers) +
              ") or prefetch (--prefetch, "
              "now " +
              std::to_string(loading.prefetch) + ")");
  }
  if (stats.memoryAvailableBytes > 0 &&
      stats.residentBytes >
          options_.memoryShare * double(stats.memoryAvailableBytes)) {
    std::string text = "memory is near its limit: the process holds " +
                       formatBytes(stats.residentBytes) + " of " +
                       formatBytes(stats.memoryAvailableBytes) + " (" +
                       stats.memorySource + "), " +
                       percent(double(stats.residentBytes) /
                               double(stats.memoryAvailableBytes)) +
                       ", over " + percent(options_.memoryShare);
    if (stats.plannedPeakBytes)
      text += "; the training step's planned peak is " +
              formatBytes(stats.plannedPeakBytes);
    raise(AdviceTopic::Memory, std::move(text));
  }
  adviseKernels(stats);
  return stats;
}

void Monitor::adviseKernels(IntervalStats &stats) {
  Profiler &profiler = Profiler::global();
  if (profiling_ == Profiling::Pending) {
    // The first interval compiles; the next is profiled, once steps ran.
    if (!trainer_ || stats.microBatches == 0)
      return;
    if (profiler.enabled()) {
      profiling_ = Profiling::Borrowed;
    } else {
      profiler.start();
      profiling_ = Profiling::Own;
    }
    profileStartNs_ = profiler.now();
    return;
  }
  if (profiling_ != Profiling::Own && profiling_ != Profiling::Borrowed)
    return;
  std::vector<ProfileEvent> events = profiler.events();
  if (profiling_ == Profiling::Own)
    profiler.stop();
  profiling_ = Profiling::Done;
  std::map<std::string, int64_t> byName;
  int64_t total = 0;
  for (const ProfileEvent &event : events) {
    if (event.startNs < profileStartNs_ ||
        (event.category != "kernel" && event.category != "library"))
      continue;
    byName[event.name] += event.durationNs;
    total += event.durationNs;
  }
  if (total <= 0 || stats.microBatches == 0)
    return;
  std::vector<std::pair<int64_t, std::string>> ranked;
  for (const auto &[name, ns] : byName)
    ranked.push_back({ns, name});
  std::sort(ranked.begin(), ranked.end(), std::greater<>());
  // The fewest kernels (up to 3) that reach the share; none when even 3 do
  // not, or when there are too few kernels for "a few" to mean anything.
  constexpr size_t kFew = 3;
  if (ranked.size() <= kFew)
    return;
  int64_t top = 0;
  size_t count = 0;
  while (count < kFew && top < options_.kernelShare * double(total))
    top += ranked[count++].first;
  if (top < options_.kernelShare * double(total))
    return;
  std::string names;
  for (size_t k = 0; k < count; ++k) {
    char figure[96];
    std::snprintf(figure, sizeof(figure), " %s (%.2f ms per micro-batch)",
                  percent(double(ranked[k].first) / double(total)).c_str(),
                  ranked[k].first * 1e-6 / double(stats.microBatches));
    names += (k ? ", '" : "'") + ranked[k].second + "'" + figure;
  }
  std::string what = std::to_string(count) + " of " +
                     std::to_string(ranked.size()) + " kernels take" +
                     (count == 1 ? "s " : " ");
  if ((advised_ & static_cast<uint32_t>(AdviceTopic::Kernels)) == 0) {
    advised_ |= static_cast<uint32_t>(AdviceTopic::Kernels);
    stats.advice.push_back(
        {AdviceTopic::Kernels,
         "the step is dominated by a few kernels: " + what +
             percent(double(top) / double(total)) +
             " of the kernel time: " + names +
             "; see all the kernels' times with --profile, and measure the "
             "alternatives of convolutions among them with --autotune on"});
  }
}

} // namespace nnc::runtime
