//===- AutotuneTest.cpp - the rule of the autotuner's program check -------===//
//
// nnc::decideProgramCheck with timings made up here: which set of measured
// choices the check of the whole program keeps, how many sets it tries and
// which figures it reports (docs/Autotuning.md). The compile and the
// timing around it run in test/Tools/nnc-run-autotune.mlir.
//
//===----------------------------------------------------------------------===//

#include "Autotune.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace {

/// Times per set size: (defaults ms, tuned ms); a size not listed fails.
struct FakeTimer {
  std::map<size_t, std::pair<double, double>> times;
  std::vector<size_t> asked;

  nnc::VariantTiming operator()(size_t count) {
    asked.push_back(count);
    nnc::VariantTiming timing;
    auto it = times.find(count);
    if (it == times.end())
      return timing;
    timing.ok = true;
    timing.defaultMs = it->second.first;
    timing.tunedMs = it->second.second;
    return timing;
  }
};

size_t decide(size_t changes, FakeTimer &timer, nnc::TuningCheck &check,
              int budgetSets = 100) {
  int sets = 0;
  return nnc::decideProgramCheck(
      changes, [&](size_t count) { return timer(count); },
      [&] { return ++sets < budgetSets; }, check);
}

TEST(ProgramCheckTest, KeepsEveryChoiceWhenTheProgramIsFaster) {
  FakeTimer timer{{{6, {100.0, 80.0}}}, {}};
  nnc::TuningCheck check;
  EXPECT_EQ(decide(6, timer, check), 6u);
  EXPECT_EQ(timer.asked, (std::vector<size_t>{6}));
  EXPECT_EQ(check.changes, 6u);
  EXPECT_EQ(check.kept, 6u);
  EXPECT_EQ(check.variants, 1u);
  EXPECT_DOUBLE_EQ(check.defaultMs, 100.0);
  EXPECT_DOUBLE_EQ(check.tunedMs, 80.0);
}

TEST(ProgramCheckTest, HalvesUntilASetIsFaster) {
  // All six lose, the first three lose, the first one wins.
  FakeTimer timer{{{6, {100.0, 120.0}}, {3, {101.0, 99.0}}, {1, {99.0, 90.0}}},
                  {}};
  nnc::TuningCheck check;
  EXPECT_EQ(decide(6, timer, check), 1u);
  EXPECT_EQ(timer.asked, (std::vector<size_t>{6, 3, 1}));
  EXPECT_EQ(check.kept, 1u);
  EXPECT_EQ(check.variants, 3u);
  // The figures of the set kept.
  EXPECT_DOUBLE_EQ(check.defaultMs, 99.0);
  EXPECT_DOUBLE_EQ(check.tunedMs, 90.0);
}

TEST(ProgramCheckTest, TurnsEverythingDownWhenNoSetIsFaster) {
  FakeTimer timer{{{32, {100.0, 110.0}},
                   {16, {100.0, 100.0}},
                   {8, {100.0, 96.0}}, // less than 5 % faster: noise
                   {4, {100.0, 101.0}},
                   {2, {100.0, 50.0}}},
                  {}};
  nnc::TuningCheck check;
  EXPECT_EQ(decide(32, timer, check), 0u);
  // At most four sets: the two that would win are never tried.
  EXPECT_EQ(timer.asked, (std::vector<size_t>{32, 16, 8, 4}));
  EXPECT_EQ(check.kept, 0u);
  EXPECT_EQ(check.variants, 4u);
  // The figures of the first set, all the choices.
  EXPECT_DOUBLE_EQ(check.defaultMs, 100.0);
  EXPECT_DOUBLE_EQ(check.tunedMs, 110.0);
}

TEST(ProgramCheckTest, LessThanFivePercentFasterIsNoise) {
  FakeTimer timer{{{1, {100.0, 96.9}}}, {}};
  nnc::TuningCheck check;
  EXPECT_EQ(decide(1, timer, check), 0u);
  EXPECT_EQ(timer.asked, (std::vector<size_t>{1}));
  FakeTimer exact{{{1, {100.0, 94.9}}}, {}};
  nnc::TuningCheck checkExact;
  EXPECT_EQ(decide(1, exact, checkExact), 1u);
}

TEST(ProgramCheckTest, ASetThatFailsLoses) {
  // The set of four fails to compile or run; two of them win.
  FakeTimer timer{{{2, {100.0, 70.0}}}, {}};
  nnc::TuningCheck check;
  EXPECT_EQ(decide(4, timer, check), 2u);
  EXPECT_EQ(timer.asked, (std::vector<size_t>{4, 2}));
  EXPECT_EQ(check.variants, 2u);
  EXPECT_DOUBLE_EQ(check.tunedMs, 70.0);
}

TEST(ProgramCheckTest, StopsWhenTheBudgetRunsOut) {
  FakeTimer timer{{{8, {100.0, 130.0}}, {4, {100.0, 60.0}}}, {}};
  nnc::TuningCheck check;
  // The first set is always timed; the budget allows no second.
  EXPECT_EQ(decide(8, timer, check, /*budgetSets=*/1), 0u);
  EXPECT_EQ(timer.asked, (std::vector<size_t>{8}));
  EXPECT_EQ(check.variants, 1u);
  EXPECT_DOUBLE_EQ(check.tunedMs, 130.0);
}

TEST(ProgramCheckTest, NothingToCheck) {
  FakeTimer timer;
  nnc::TuningCheck check;
  EXPECT_EQ(decide(0, timer, check), 0u);
  EXPECT_TRUE(timer.asked.empty());
  EXPECT_EQ(check.variants, 0u);
  EXPECT_LT(check.defaultMs, 0);
}

} // namespace

namespace {

// The tuner measures the costliest kernels first, a key's uses summed, so
// that a budget that runs out leaves the cheapest ones untuned; equal
// costs keep program order.
TEST(AutotuneOrder, CostliestKeysFirst) {
  std::vector<std::string> keys = {"conv1", "bn", "conv2", "bn", "fc"};
  std::vector<double> costs = {100, 30, 50, 30, 5};
  // bn's two uses (60) come before conv2 (50), after conv1 (100).
  EXPECT_EQ(nnc::measuringOrder(keys, costs),
            (std::vector<size_t>{0, 1, 3, 2, 4}));
}

TEST(AutotuneOrder, TiesKeepProgramOrder) {
  std::vector<std::string> keys = {"a", "b", "c"};
  std::vector<double> costs = {7, 7, 7};
  EXPECT_EQ(nnc::measuringOrder(keys, costs),
            (std::vector<size_t>{0, 1, 2}));
  EXPECT_TRUE(nnc::measuringOrder({}, {}).empty());
}

} // namespace
