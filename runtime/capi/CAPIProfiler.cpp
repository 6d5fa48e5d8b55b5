//===- CAPIProfiler.cpp - the profiler in the C API -----------------------===//
//
// nnc_profiler_*: the runtime's process-wide Profiler, with the events
// copied out so that the pointers handed to the caller stay valid until the
// next start.
//
//===----------------------------------------------------------------------===//

#include "nnc-c/runtime.h"

#include "Handles.h"

#include "nnc/runtime/Profiler.h"

#include <deque>
#include <mutex>

using namespace nnc::capi;

namespace {

/// The events the C API hands out, owning their strings. The profiler only
/// appends until the next start, so the copy only grows too, and a deque
/// keeps every element (and the strings' addresses) in place as it does.
struct Snapshot {
  std::mutex mutex;
  std::deque<rt::ProfileEvent> events;

  /// Appends what the profiler recorded since the last update.
  void update() {
    std::vector<rt::ProfileEvent> all = rt::Profiler::global().events();
    for (size_t i = events.size(); i < all.size(); ++i)
      events.push_back(std::move(all[i]));
  }
};

Snapshot &snapshot() {
  static Snapshot s;
  return s;
}

} // namespace

extern "C" {

void nnc_profiler_start(void) {
  Snapshot &s = snapshot();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.events.clear();
  rt::Profiler::global().start();
}

void nnc_profiler_stop(void) { rt::Profiler::global().stop(); }

size_t nnc_profiler_event_count(void) {
  Snapshot &s = snapshot();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.update();
  return s.events.size();
}

nnc_status_t nnc_profiler_event(size_t index, nnc_profile_event_t *out_event) {
  static const char *fn = "nnc_profiler_event";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!out_event)
      return nullArgument(fn, "out_event");
    Snapshot &s = snapshot();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (index >= s.events.size())
      s.update();
    if (index >= s.events.size())
      return makeStatus(NNC_STATUS_OUT_OF_RANGE, fn,
                        "index " + std::to_string(index) + " is past the " +
                            std::to_string(s.events.size()) + " events");
    const rt::ProfileEvent &e = s.events[index];
    out_event->name = e.name.c_str();
    out_event->category = e.category.c_str();
    out_event->start_ns = e.startNs;
    out_event->duration_ns = e.durationNs;
    out_event->thread = e.thread;
    return nullptr;
  });
}

nnc_status_t nnc_profiler_summary(nnc_string_callback_t callback,
                                  void *user_data) {
  static const char *fn = "nnc_profiler_summary";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!callback)
      return nullArgument(fn, "callback");
    std::string text = rt::Profiler::global().summary();
    callback(text.data(), text.size(), user_data);
    return nullptr;
  });
}

nnc_status_t nnc_profiler_write_trace(const char *path) {
  static const char *fn = "nnc_profiler_write_trace";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!path)
      return nullArgument(fn, "path");
    return convertStatus(fn, rt::Profiler::global().writeTrace(path));
  });
}

} // extern "C"
