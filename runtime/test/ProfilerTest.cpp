//===- ProfilerTest.cpp - the process-wide event recorder -----------------===//

#include "nnc/runtime/Profiler.h"

#include <gtest/gtest.h>

#include "TestUtils.h"

#include <string>
#include <thread>

using namespace nnc::runtime;

namespace {

TEST(Profiler, RecordsOnlyWhileStarted) {
  Profiler &p = Profiler::global();
  p.stop();
  p.record("kernel", "before", 0, 10);
  p.start();
  EXPECT_TRUE(p.enabled());
  EXPECT_TRUE(p.events().empty()); // start() clears
  p.record("kernel", "a", 5, 100);
  { ProfileScope scope("step", "scoped"); }
  p.stop();
  p.record("kernel", "after", 0, 10);
  { ProfileScope scope("step", "ignored"); }
  std::vector<ProfileEvent> events = p.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].name, "a");
  EXPECT_EQ(events[0].startNs, 5);
  EXPECT_EQ(events[0].durationNs, 100);
  EXPECT_EQ(events[1].name, "scoped");
  EXPECT_EQ(events[1].category, "step");
  EXPECT_GE(events[1].durationNs, 0);
}

TEST(Profiler, SummaryAggregatesAndSortsByTotal) {
  Profiler &p = Profiler::global();
  p.start();
  p.record("kernel", "small", 0, 1000000);  // 1 ms
  p.record("kernel", "big", 0, 3000000);    // 3 ms
  p.record("kernel", "small", 0, 3000000);  // 3 ms: small totals 4 ms
  p.record("compile", "small", 0, 2000000); // another category: its own row
  p.stop();
  std::string table = p.summary();
  size_t small = table.find("small  kernel");
  size_t big = table.find("big    kernel");
  size_t compile = table.find("small  compile");
  ASSERT_NE(small, std::string::npos) << table;
  ASSERT_NE(big, std::string::npos) << table;
  ASSERT_NE(compile, std::string::npos) << table;
  EXPECT_LT(small, big);
  EXPECT_LT(big, compile);
  EXPECT_NE(table.find("2       4.000     2.0000     1.0000     3.0000"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("4 events, 9.000 ms in all"), std::string::npos)
      << table;
}

TEST(Profiler, TraceIsJsonWithEscapedNames) {
  Profiler &p = Profiler::global();
  p.start();
  p.record("kernel", "a \"quoted\"\\name\n", 1500, 2500, "conv x2, relu");
  std::thread([&] { p.record("data", "other thread", 0, 1); }).join();
  p.stop();
  std::string json = p.traceJson();
  EXPECT_NE(json.find("\"name\": \"a \\\"quoted\\\"\\\\name\\u000a\""),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"ts\": 1.500, \"dur\": 2.500, \"pid\": 1, \"tid\": 0, "
                      "\"args\": {\"ops\": \"conv x2, relu\"}}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"tid\": 1}"), std::string::npos) << json;
  EXPECT_EQ(json.rfind("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [", 0),
            0u);
}

TEST(Profiler, TraceArgsCarryStepBytes) {
  Profiler &p = Profiler::global();
  p.start();
  p.record("library", "gemm", 0, 10, "", 96, 32);
  p.record("kernel", "fill", 10, 10, "a, b", 0, 8);
  p.record("kernel", "plain", 20, 10);
  p.stop();
  std::string json = p.traceJson();
  EXPECT_NE(json.find("\"tid\": 0, \"args\": {\"bytes_read\": 96, "
                      "\"bytes_written\": 32}}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"args\": {\"ops\": \"a, b\", \"bytes_read\": 0, "
                      "\"bytes_written\": 8}}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"name\": \"plain\", \"cat\": \"kernel\", \"ph\": "
                      "\"X\", \"ts\": 0.020, \"dur\": 0.010, \"pid\": 1, "
                      "\"tid\": 0}"),
            std::string::npos)
      << json;
}

TEST(Profiler, WriteTraceNamesAMissingFolder) {
  Profiler &p = Profiler::global();
  p.start();
  p.stop();
  EXPECT_ERROR(p.writeTrace("/nonexistent/nnc/trace.json"),
               "/nonexistent/nnc/trace.json");
}

} // namespace
