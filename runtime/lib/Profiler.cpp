//===- Profiler.cpp - timed events of runs, steps and data loading --------===//
//
// The process-wide event recorder (Profiler.h): a mutex-guarded list while
// enabled, the key_averages-style table and the Chrome trace JSON.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/Profiler.h"

#include "nnc/runtime/AtomicFile.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <thread>
#include <tuple>

namespace nnc::runtime {

namespace {

int64_t clockNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// `s` as the contents of a JSON string.
std::string jsonEscape(const std::string &s) {
  std::string out;
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

} // namespace

Profiler &Profiler::global() {
  static Profiler profiler;
  return profiler;
}

void Profiler::start() {
  std::lock_guard<std::mutex> lock(mutex_);
  events_.clear();
  threads_.clear();
  originNs_.store(clockNs(), std::memory_order_relaxed);
  enabled_.store(true, std::memory_order_release);
}

void Profiler::stop() { enabled_.store(false, std::memory_order_release); }

int64_t Profiler::now() const {
  return clockNs() - originNs_.load(std::memory_order_relaxed);
}

uint32_t Profiler::threadIndex() {
  size_t id = std::hash<std::thread::id>()(std::this_thread::get_id());
  for (const auto &[hash, index] : threads_)
    if (hash == id)
      return index;
  uint32_t index = static_cast<uint32_t>(threads_.size());
  threads_.emplace_back(id, index);
  return index;
}

void Profiler::record(std::string category, std::string name, int64_t startNs,
                      int64_t durationNs, std::string detail,
                      uint64_t bytesRead, uint64_t bytesWritten) {
  if (!enabled())
    return;
  std::lock_guard<std::mutex> lock(mutex_);
  ProfileEvent event;
  event.name = std::move(name);
  event.category = std::move(category);
  event.startNs = startNs;
  event.durationNs = durationNs;
  event.thread = threadIndex();
  event.detail = std::move(detail);
  event.bytesRead = bytesRead;
  event.bytesWritten = bytesWritten;
  events_.push_back(std::move(event));
}

std::vector<ProfileEvent> Profiler::events() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return events_;
}

std::string Profiler::summary() const {
  struct Row {
    std::string name, category;
    int64_t count = 0, total = 0, min = INT64_MAX, max = 0;
  };
  std::map<std::pair<std::string, std::string>, Row> rows;
  int64_t sum = 0;
  for (const ProfileEvent &e : events()) {
    Row &row = rows[{e.category, e.name}];
    row.name = e.name;
    row.category = e.category;
    ++row.count;
    row.total += e.durationNs;
    row.min = std::min(row.min, e.durationNs);
    row.max = std::max(row.max, e.durationNs);
    sum += e.durationNs;
  }
  std::vector<Row> sorted;
  for (auto &[key, row] : rows)
    sorted.push_back(row);
  std::sort(sorted.begin(), sorted.end(), [](const Row &a, const Row &b) {
    if (a.total != b.total)
      return a.total > b.total;
    return std::tie(a.category, a.name) < std::tie(b.category, b.name);
  });
  size_t width = 4;
  for (const Row &row : sorted)
    width = std::max(width, row.name.size());
  std::string text;
  char line[512];
  std::snprintf(line, sizeof(line), "%-*s  %-8s %7s %11s %10s %10s %10s %7s\n",
                static_cast<int>(width), "name", "category", "count",
                "total ms", "mean ms", "min ms", "max ms", "%");
  text += line;
  text += std::string(width + 72, '-') + "\n";
  auto ms = [](int64_t ns) { return static_cast<double>(ns) / 1e6; };
  for (const Row &row : sorted) {
    std::snprintf(line, sizeof(line),
                  "%-*s  %-8s %7lld %11.3f %10.4f %10.4f %10.4f %6.1f%%\n",
                  static_cast<int>(width), row.name.c_str(),
                  row.category.c_str(), static_cast<long long>(row.count),
                  ms(row.total), ms(row.total) / static_cast<double>(row.count),
                  ms(row.min), ms(row.max),
                  sum ? 100.0 * static_cast<double>(row.total) /
                            static_cast<double>(sum)
                      : 0.0);
    text += line;
  }
  std::snprintf(line, sizeof(line), "%zu events, %.3f ms in all\n",
                events().size(), ms(sum));
  text += line;
  return text;
}

std::string Profiler::traceJson() const {
  std::string json = "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [";
  bool first = true;
  char buf[128];
  for (const ProfileEvent &e : events()) {
    json += first ? "\n" : ",\n";
    first = false;
    json += "{\"name\": \"" + jsonEscape(e.name) + "\", \"cat\": \"" +
            jsonEscape(e.category) + "\", \"ph\": \"X\"";
    std::snprintf(buf, sizeof(buf),
                  ", \"ts\": %.3f, \"dur\": %.3f, \"pid\": 1, \"tid\": %u",
                  static_cast<double>(e.startNs) / 1e3,
                  static_cast<double>(e.durationNs) / 1e3, e.thread);
    json += buf;
    if (!e.detail.empty() || e.bytesRead || e.bytesWritten) {
      json += ", \"args\": {";
      const char *separator = "";
      if (!e.detail.empty()) {
        json += "\"ops\": \"" + jsonEscape(e.detail) + "\"";
        separator = ", ";
      }
      if (e.bytesRead || e.bytesWritten) {
        std::snprintf(buf, sizeof(buf),
                      "%s\"bytes_read\": %llu, \"bytes_written\": %llu",
                      separator, static_cast<unsigned long long>(e.bytesRead),
                      static_cast<unsigned long long>(e.bytesWritten));
        json += buf;
      }
      json += "}";
    }
    json += "}";
  }
  json += "\n]}\n";
  return json;
}

Status Profiler::writeTrace(const std::string &path) const {
  std::string json = traceJson();
  return writeFileAtomically(path, json.data(), json.size());
}

ProfileScope::ProfileScope(const char *category, std::string name)
    : category_(category), name_(std::move(name)) {
  Profiler &profiler = Profiler::global();
  if (profiler.enabled())
    start_ = profiler.now();
}

ProfileScope::~ProfileScope() {
  if (start_ < 0)
    return;
  Profiler &profiler = Profiler::global();
  profiler.record(category_, std::move(name_), start_, profiler.now() - start_);
}

} // namespace nnc::runtime
