//===- CAPIMonitor.cpp - the training monitor's C API ---------------------===//
//
// nnc_monitor_* of nnc-c/runtime.h over nnc::runtime::Monitor.
//
//===----------------------------------------------------------------------===//

#include "Handles.h"

#include "nnc/runtime/Monitor.h"
#include "nnc/runtime/Trainer.h"

using namespace nnc::capi;

struct nnc_monitor_s {
  std::unique_ptr<rt::Monitor> monitor;
  /// What the last interval's strings point at.
  std::string memorySource, adviceText;
};

extern "C" {

nnc_status_t nnc_monitor_create(const nnc_trainer_t *trainer,
                                const nnc_loader_t *loader,
                                const nnc_monitor_options_t *options,
                                nnc_monitor_t **out_monitor) {
  static const char *fn = "nnc_monitor_create";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!out_monitor)
      return nullArgument(fn, "out_monitor");
    *out_monitor = nullptr;
    if (!trainer)
      return nullArgument(fn, "trainer");
    nnc_monitor_options_t defaults;
    nnc_monitor_options_initialize(&defaults);
    if (!options)
      options = &defaults;
    if (nnc_status_t s = checkOptions(fn, "options", options))
      return s;
    for (auto [name, share] :
         {std::pair{"data_wait_share", options->data_wait_share},
          {"memory_share", options->memory_share},
          {"kernel_share", options->kernel_share}})
      if (!(share > 0 && share <= 1))
        return invalidArgument(fn, std::string("options->") + name +
                                       " must be in (0, 1], got " +
                                       std::to_string(share));
    rt::MonitorOptions converted;
    converted.dataWaitShare = options->data_wait_share;
    converted.memoryShare = options->memory_share;
    converted.memoryLimitBytes =
        static_cast<int64_t>(options->memory_limit_bytes);
    converted.kernelShare = options->kernel_share;
    converted.profileKernels = options->profile_kernels != 0;
    auto handle = std::make_unique<nnc_monitor_s>();
    handle->monitor =
        std::make_unique<rt::Monitor>(converted, trainer->trainer.get(),
                                      loader ? loader->loader.get() : nullptr);
    *out_monitor = handle.release();
    return nullptr;
  });
}

nnc_status_t nnc_monitor_interval(nnc_monitor_t *monitor,
                                  nnc_interval_stats_t *out_stats) {
  static const char *fn = "nnc_monitor_interval";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!monitor)
      return nullArgument(fn, "monitor");
    if (!out_stats)
      return nullArgument(fn, "out_stats");
    if (out_stats->struct_size != sizeof(nnc_interval_stats_t))
      return invalidArgument(fn, "out_stats->struct_size must be "
                                 "sizeof(nnc_interval_stats_t)");
    rt::IntervalStats stats = monitor->monitor->interval();
    nnc_interval_stats_t &out = *out_stats;
    out.step = stats.step;
    out.steps = stats.steps;
    out.samples = stats.samples;
    out.micro_batches = stats.microBatches;
    out.wall_seconds = stats.wallSeconds;
    out.busy_seconds = stats.busySeconds;
    out.data_wait_seconds = stats.dataWaitSeconds;
    out.other_seconds = stats.otherSeconds;
    out.samples_per_second = stats.samplesPerSecond;
    out.planned_peak_bytes = static_cast<uint64_t>(stats.plannedPeakBytes);
    out.resident_bytes = static_cast<uint64_t>(stats.residentBytes);
    out.peak_resident_bytes = static_cast<uint64_t>(stats.peakResidentBytes);
    out.memory_available_bytes =
        static_cast<uint64_t>(stats.memoryAvailableBytes);
    monitor->memorySource = stats.memorySource;
    out.memory_source = monitor->memorySource.c_str();
    out.advice = 0;
    monitor->adviceText.clear();
    for (const rt::Advice &advice : stats.advice) {
      out.advice |= static_cast<uint32_t>(advice.topic);
      monitor->adviceText += advice.text + "\n";
    }
    out.advice_text =
        monitor->adviceText.empty() ? nullptr : monitor->adviceText.c_str();
    return nullptr;
  });
}

void nnc_monitor_destroy(nnc_monitor_t *monitor) { delete monitor; }

} // extern "C"
