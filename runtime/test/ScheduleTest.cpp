//===- ScheduleTest.cpp - learning-rate schedules and loss scaling --------===//

#include "nnc/runtime/Schedule.h"

#include <gtest/gtest.h>

#include "TestUtils.h"

#include <cmath>
#include <limits>

using namespace nnc::runtime;

namespace {


TEST(LrSchedule, Constant) {
  LrSchedule s;
  s.lr = 0.25;
  for (int64_t step : {int64_t(-3), int64_t(0), int64_t(1), int64_t(1) << 40})
    EXPECT_EQ(learningRate(s, step), 0.25);
}

TEST(LrSchedule, StepDecayAtBoundaries) {
  LrSchedule s;
  ASSERT_TRUE(parseLrSchedule("step:10:0.5", s).isOk());
  s.lr = 0.8;
  EXPECT_EQ(s.kind, LrSchedule::Kind::Step);
  EXPECT_EQ(s.stepSize, 10);
  EXPECT_EQ(s.gamma, 0.5);
  EXPECT_EQ(learningRate(s, 0), 0.8);
  EXPECT_EQ(learningRate(s, 9), 0.8);
  EXPECT_EQ(learningRate(s, 10), 0.4);
  EXPECT_EQ(learningRate(s, 19), 0.4);
  EXPECT_EQ(learningRate(s, 20), 0.2);
  EXPECT_EQ(learningRate(s, 30), 0.1);
  // stepSize 1: decays after every step, as StepLR(step_size=1).
  ASSERT_TRUE(parseLrSchedule("step:1:0.9", s).isOk());
  s.lr = 1.0;
  EXPECT_DOUBLE_EQ(learningRate(s, 3), 0.9 * 0.9 * 0.9);
}

TEST(LrSchedule, CosineWithWarmupAtBoundaries) {
  LrSchedule s;
  s.lr = 1.0;
  s.warmupSteps = 4;
  s.totalSteps = 14;
  s.minLr = 0.1;
  ASSERT_TRUE(parseLrSchedule("cosine", s).isOk());
  EXPECT_EQ(s.kind, LrSchedule::Kind::Cosine);
  EXPECT_EQ(s.warmupSteps, 4); // a bare "cosine" keeps the caller's fields
  // Warm-up: lr * (step + 1) / warmup, reaching lr on the last warm-up step.
  EXPECT_DOUBLE_EQ(learningRate(s, 0), 0.25);
  EXPECT_DOUBLE_EQ(learningRate(s, 1), 0.5);
  EXPECT_DOUBLE_EQ(learningRate(s, 3), 1.0);
  // Cosine over the 10 remaining steps: lr at its start, the midpoint half
  // way, close to minLr at its last step, then minLr.
  EXPECT_DOUBLE_EQ(learningRate(s, 4), 1.0);
  EXPECT_DOUBLE_EQ(learningRate(s, 9), 0.55);
  EXPECT_DOUBLE_EQ(learningRate(s, 13),
                   0.1 + 0.45 * (1 + std::cos(M_PI * 0.9)));
  EXPECT_EQ(learningRate(s, 14), 0.1);
  EXPECT_EQ(learningRate(s, 1000000), 0.1);
  // Monotone after warm-up.
  for (int64_t step = 4; step < 14; ++step)
    EXPECT_GT(learningRate(s, step), learningRate(s, step + 1));
}

TEST(LrSchedule, CosineWithoutWarmupOrWithOnlyWarmup) {
  LrSchedule s;
  s.lr = 2.0;
  ASSERT_TRUE(parseLrSchedule("cosine:0:4", s).isOk());
  EXPECT_EQ(s.minLr, 0.0);
  EXPECT_DOUBLE_EQ(learningRate(s, 0), 2.0);
  EXPECT_DOUBLE_EQ(learningRate(s, 2), 1.0);
  EXPECT_EQ(learningRate(s, 4), 0.0);
  ASSERT_TRUE(parseLrSchedule("cosine:4:4:0.5", s).isOk());
  EXPECT_DOUBLE_EQ(learningRate(s, 3), 2.0);
  EXPECT_EQ(learningRate(s, 4), 0.5);
}

TEST(LrSchedule, FormatReadsBack) {
  for (const char *spec : {"constant", "step:1000:0.5",
                           "cosine:500:20000:1e-05", "cosine:0:1:0"}) {
    LrSchedule s;
    ASSERT_TRUE(parseLrSchedule(spec, s).isOk()) << spec;
    EXPECT_EQ(formatLrSchedule(s), spec);
  }
  LrSchedule s;
  s.kind = LrSchedule::Kind::Cosine;
  s.totalSteps = 7;
  s.minLr = 0.1 + 0.2; // not a short decimal
  LrSchedule back;
  ASSERT_TRUE(parseLrSchedule(formatLrSchedule(s), back).isOk());
  EXPECT_EQ(back.minLr, s.minLr);
  EXPECT_EQ(back.totalSteps, 7);
}

TEST(LrSchedule, RejectsBadSpecsNamingTheField) {
  LrSchedule s;
  EXPECT_ERROR(parseLrSchedule("linear", s), "expected 'constant'");
  EXPECT_ERROR(parseLrSchedule("step:10", s), "step:SIZE:GAMMA");
  EXPECT_ERROR(parseLrSchedule("step:ten:0.5", s), "step size 'ten'");
  EXPECT_ERROR(parseLrSchedule("step:0:0.5", s), "step size 0");
  EXPECT_ERROR(parseLrSchedule("step:10:-1", s), "gamma -1");
  EXPECT_ERROR(parseLrSchedule("step:10:0.5x", s), "gamma '0.5x'");
  EXPECT_ERROR(parseLrSchedule("cosine:5:4", s), "warm-up steps 5");
  EXPECT_ERROR(parseLrSchedule("cosine:0:0", s), "total steps 0");
  EXPECT_ERROR(parseLrSchedule("cosine:1:4:-0.1", s), "minimum lr -0.1");
  EXPECT_ERROR(parseLrSchedule("constant:1", s), "'constant:1'");
  // A failed parse leaves the schedule as it was.
  EXPECT_EQ(s.kind, LrSchedule::Kind::Constant);
  s.lr = std::numeric_limits<double>::quiet_NaN();
  EXPECT_ERROR(validateLrSchedule(s), "lr nan");
}

TEST(LossScaler, BacksOffOnOverflowAndGrowsAfterTheInterval) {
  LossScaler s;
  EXPECT_EQ(s.scale, 65536.0);
  s.growthInterval = 3;
  EXPECT_FALSE(s.update(true)); // skipped
  EXPECT_EQ(s.scale, 32768.0);
  EXPECT_EQ(s.goodSteps, 0);
  EXPECT_TRUE(s.update(false));
  EXPECT_TRUE(s.update(false));
  EXPECT_EQ(s.goodSteps, 2);
  EXPECT_EQ(s.scale, 32768.0);
  EXPECT_TRUE(s.update(false)); // the third good step grows the scale
  EXPECT_EQ(s.scale, 65536.0);
  EXPECT_EQ(s.goodSteps, 0);
  // An overflow resets the count of good steps.
  EXPECT_TRUE(s.update(false));
  EXPECT_TRUE(s.update(false));
  EXPECT_FALSE(s.update(true));
  EXPECT_EQ(s.scale, 32768.0);
  EXPECT_EQ(s.goodSteps, 0);
  EXPECT_TRUE(s.update(false));
  EXPECT_EQ(s.goodSteps, 1);
  EXPECT_EQ(s.scale, 32768.0);
}

TEST(LossScaler, DefaultsMatchGradScaler) {
  LossScaler s;
  for (int i = 0; i < 1999; ++i)
    ASSERT_TRUE(s.update(false));
  EXPECT_EQ(s.scale, 65536.0);
  EXPECT_TRUE(s.update(false));
  EXPECT_EQ(s.scale, 131072.0);
}

TEST(LossScaler, GrowthNeverOverflows) {
  LossScaler s;
  s.scale = std::numeric_limits<double>::max();
  s.growthInterval = 1;
  EXPECT_TRUE(s.update(false));
  EXPECT_EQ(s.scale, std::numeric_limits<double>::max());
  EXPECT_EQ(s.goodSteps, 0);
}

TEST(LossScaler, StaticScaleNeverChanges) {
  LossScaler s = LossScaler::fixed(128.0);
  s.growthInterval = 1;
  EXPECT_TRUE(s.update(false));
  EXPECT_FALSE(s.update(true)); // still skipped: the gradients are inf/NaN
  EXPECT_TRUE(s.update(false));
  EXPECT_EQ(s.scale, 128.0);
  EXPECT_EQ(s.goodSteps, 0);
}

TEST(LossScaler, CollapsesBelowTheFloor) {
  LossScaler s;
  s.minScale = 1.0;
  for (int i = 0; i < 16; ++i) { // 2^16 halved 16 times: 1, the floor
    EXPECT_FALSE(s.update(true));
    EXPECT_FALSE(s.collapsed());
  }
  EXPECT_EQ(s.scale, 1.0);
  EXPECT_FALSE(s.update(true));
  EXPECT_EQ(s.scale, 0.5);
  EXPECT_TRUE(s.collapsed());
  // A static scale never collapses, whatever its value.
  LossScaler fixed = LossScaler::fixed(0.25);
  EXPECT_FALSE(fixed.update(true));
  EXPECT_FALSE(fixed.collapsed());
  // The default floor: 32 consecutive overflows from 2^16 reach it.
  LossScaler d;
  for (int i = 0; i < 32; ++i)
    d.update(true);
  EXPECT_FALSE(d.collapsed());
  d.update(true);
  EXPECT_TRUE(d.collapsed());
}

TEST(LossScaler, SavesAndLoadsExactly) {
  LossScaler s;
  s.scale = 0.1 * 3; // not a short decimal
  s.growthInterval = 7;
  s.goodSteps = 5;
  s.backoffFactor = 0.25;
  std::map<std::string, std::string> metadata;
  s.save(metadata);
  EXPECT_EQ(metadata.at("loss_scaler.mode"), "dynamic");
  EXPECT_EQ(metadata.at("loss_scaler.good_steps"), "5");
  LossScaler back;
  ASSERT_TRUE(back.load(metadata).isOk());
  EXPECT_EQ(back.scale, s.scale);
  EXPECT_EQ(back.growthInterval, 7);
  EXPECT_EQ(back.goodSteps, 5);
  EXPECT_EQ(back.backoffFactor, 0.25);
  EXPECT_TRUE(back.dynamic);

  LossScaler fixed = LossScaler::fixed(1024);
  fixed.save(metadata, "amp.");
  ASSERT_TRUE(back.load(metadata, "amp.").isOk());
  EXPECT_FALSE(back.dynamic);
  EXPECT_EQ(back.scale, 1024.0);
}

TEST(LossScaler, LoadRejectsMissingOrBadState) {
  LossScaler s;
  std::map<std::string, std::string> metadata;
  s.save(metadata);
  auto with = [&](const std::string &key, const std::string &value) {
    auto m = metadata;
    if (value.empty())
      m.erase(key);
    else
      m[key] = value;
    return m;
  };
  // Checkpoints from before the floor load, with the default floor.
  LossScaler older;
  older.minScale = 3;
  ASSERT_TRUE(older.load(with("loss_scaler.min_scale", "")).isOk());
  EXPECT_EQ(older.minScale, LossScaler().minScale);
  LossScaler back;
  back.scale = 3;
  EXPECT_ERROR(back.load(with("loss_scaler.min_scale", "-1")),
               "minimum scale -1");
  EXPECT_ERROR(back.load(with("loss_scaler.scale", "")),
               "no 'loss_scaler.scale'");
  EXPECT_ERROR(back.load(with("loss_scaler.scale", "abc")), "'abc'");
  EXPECT_ERROR(back.load(with("loss_scaler.scale", "inf")), "scale inf");
  EXPECT_ERROR(back.load(with("loss_scaler.scale", "0")), "scale 0");
  EXPECT_ERROR(back.load(with("loss_scaler.mode", "auto")), "'auto'");
  EXPECT_ERROR(back.load(with("loss_scaler.good_steps", "2000")),
               "good steps 2000");
  EXPECT_ERROR(back.load(with("loss_scaler.growth_interval", "1.5")),
               "not an integer");
  EXPECT_ERROR(back.load(with("loss_scaler.backoff_factor", "1.5")),
               "backoff factor 1.5");
  EXPECT_EQ(back.scale, 3.0); // unchanged by a failed load
}

TEST(Numbers, FormatAndParseExactly) {
  for (double v : {0.0, -0.0, 0.1, 1.0 / 3, 65536.0, 1e-300, 5e-324,
                   std::numeric_limits<double>::max()}) {
    double back = 1;
    ASSERT_TRUE(parseDouble(formatDouble(v), "v", back).isOk());
    EXPECT_EQ(back, v);
    EXPECT_EQ(std::signbit(back), std::signbit(v));
  }
  EXPECT_EQ(formatDouble(65536.0), "65536");
  EXPECT_EQ(formatDouble(0.1), "0.1");
  double d;
  EXPECT_TRUE(parseDouble("nan", "v", d).isOk() && std::isnan(d));
  EXPECT_TRUE(parseDouble("-inf", "v", d).isOk() && d < 0 && std::isinf(d));
  EXPECT_ERROR(parseDouble("", "the value", d), "the value '' is not");
  EXPECT_ERROR(parseDouble(" 1", "v", d), "not a number");
  int64_t i;
  EXPECT_TRUE(parseInt64("-42", "v", i).isOk() && i == -42);
  EXPECT_ERROR(parseInt64("99999999999999999999", "v", i), "out of");
  EXPECT_ERROR(parseInt64("+1", "v", i), "not an integer");
}

} // namespace
