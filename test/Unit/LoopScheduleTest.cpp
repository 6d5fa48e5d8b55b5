//===- LoopScheduleTest.cpp - loop schedules and the CPU's candidates -----===//
//
// The names of loop schedules (nnc/LoopSchedule.h) read and written, the
// candidates the CPU target offers the autotuner for an op lowered to
// generated loops only, and the follow-up it builds from their times. The
// passes that apply a schedule run in test/Target/CPU/loop-schedules.mlir,
// the tuner in test/Target/CPU/run-loop-schedules.mlir.
//
//===----------------------------------------------------------------------===//

#include "nnc/LoopSchedule.h"
#include "nnc/Conversion/Passes.h"
#include "nnc/InitAll.h"
#include "nnc/Target/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

using namespace mlir;

namespace {

TEST(LoopSchedule, NamesRoundTrip) {
  for (const char *name :
       {"loops", "loops_serial", "loops_outer", "loops_wide", "loops.t2",
        "loops_wide.t4", "loops_outer.t1024", "loops.v1", "loops.v16",
        "loops_serial.v8", "loops_outer.t8.v64"}) {
    std::optional<nnc::LoopSchedule> schedule = nnc::loopScheduleNamed(name);
    ASSERT_TRUE(schedule.has_value()) << name;
    EXPECT_EQ(nnc::loopScheduleName(*schedule), name);
  }
  std::optional<nnc::LoopSchedule> schedule =
      nnc::loopScheduleNamed("loops_wide.t4.v16");
  ASSERT_TRUE(schedule.has_value());
  EXPECT_EQ(schedule->parallelism, nnc::LoopParallelism::Wide);
  EXPECT_EQ(schedule->threads, 4u);
  EXPECT_EQ(schedule->vectorWidth, 16u);
}

TEST(LoopSchedule, BadNames) {
  for (const char *name : {"",
                           "loop",
                           "loops_fast",
                           "default",
                           "loops.",
                           "loops.t",
                           "loops.t1",
                           "loops.t0",
                           "loops.t02",
                           "loops.t-2",
                           "loops.t1025",
                           "loops.t4x",
                           "loops_serial.t2",
                           "loops.v0",
                           "loops.v3",
                           "loops.v128",
                           "loops.v8.t2",
                           "loops.t2.t4",
                           "loops.v8.v8",
                           "loops.x2",
                           "loops.t99999999999",
                           "loops_wide.t4.v16.",
                           "loops:v8"})
    EXPECT_FALSE(nnc::loopScheduleNamed(name).has_value()) << name;
}

class CPUCandidatesTest : public ::testing::Test {
protected:
  CPUCandidatesTest() {
    DialectRegistry registry;
    nnc::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    nnc::registerAllTargets();
    target = nnc::lookupTarget("cpu");
  }

  /// The first op of the function parsed from `source`.
  Operation *firstOp(llvm::StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return nullptr;
    auto func = *module->getOps<func::FuncOp>().begin();
    return &func.getBody().front().front();
  }

  static std::vector<std::string> widths(const std::vector<std::string> &all) {
    std::vector<std::string> found;
    for (const std::string &name : all)
      if (llvm::StringRef(name).starts_with("loops.v"))
        found.push_back(name);
    return found;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  const nnc::Target *target = nullptr;
};

/// A function holding one softmax of `type` along `axis`.
std::string softmaxSource(llvm::StringRef type, int axis) {
  std::string t = "tensor<" + type.str() + ">";
  return "func.func @f(%x: " + t + ") -> " + t + " {\n  %0 = nnc.softmax %x " +
         "{axis = " + std::to_string(axis) + " : i64} : " + t +
         "\n  return %0 : " + t + "\n}\n";
}

const std::string kSoftmax = softmaxSource("64x16x32xf32", 2);

TEST_F(CPUCandidatesTest, ParallelLoopsThreadsAndWidths) {
  ASSERT_NE(target, nullptr);
  Operation *softmax = firstOp(kSoftmax);
  ASSERT_NE(softmax, nullptr);
  nnc::TargetOptions options;
  options.threads = 8;
  std::vector<std::string> choices =
      target->kernelCandidates(softmax, options).choices;
  // Parallel loops, then on half and a quarter of the 8 threads, then the
  // widths: half, once and twice the registers' lanes for f32.
  std::vector<std::string> loops(choices.begin(), choices.begin() + 7);
  EXPECT_EQ(loops, (std::vector<std::string>{"loops_serial", "loops_outer",
                                             "loops_wide", "loops_outer.t4",
                                             "loops_wide.t4", "loops_outer.t2",
                                             "loops_wide.t2"}));
  std::vector<std::string> f32Widths = widths(choices);
  ASSERT_EQ(f32Widths.size(), 3u);
  EXPECT_EQ(choices.size(), 10u);
  std::optional<nnc::LoopSchedule> narrow =
      nnc::loopScheduleNamed(f32Widths[0]);
  ASSERT_TRUE(narrow.has_value());
  EXPECT_GE(narrow->vectorWidth, 2u);
  EXPECT_EQ(f32Widths[1], "loops.v" + std::to_string(narrow->vectorWidth * 2));
  EXPECT_EQ(f32Widths[2], "loops.v" + std::to_string(narrow->vectorWidth * 4));
  // Every candidate is one the conversion takes.
  for (const std::string &choice : choices)
    EXPECT_FALSE(nnc::whyKernelChoiceDoesNotApply(softmax, choice)) << choice;

  // Two threads: nothing between one and all.
  options.threads = 2;
  choices = target->kernelCandidates(softmax, options).choices;
  EXPECT_EQ(choices.size(), 6u);
  EXPECT_FALSE(llvm::any_of(choices, [](const std::string &name) {
    return llvm::StringRef(name).contains(".t");
  }));
  // Without parallel code: the widths alone.
  options.parallel = false;
  EXPECT_EQ(target->kernelCandidates(softmax, options).choices, f32Widths);
}

TEST_F(CPUCandidatesTest, WidthsFollowTheType) {
  Operation *softmax = firstOp(softmaxSource("64x16x32xf64", 2));
  ASSERT_NE(softmax, nullptr);
  nnc::TargetOptions options;
  options.parallel = false;
  std::vector<std::string> f64Widths =
      target->kernelCandidates(softmax, options).choices;
  softmax = firstOp(kSoftmax);
  std::vector<std::string> f32Widths =
      target->kernelCandidates(softmax, options).choices;
  ASSERT_EQ(f32Widths.size(), 3u);
  // f64 has half the lanes; the narrowest may fall below 2 and go.
  EXPECT_EQ(f64Widths.back(), f32Widths[1]);
}

TEST_F(CPUCandidatesTest, SmallOpsHaveNone) {
  Operation *softmax = firstOp(softmaxSource("16x32xf32", 1));
  ASSERT_NE(softmax, nullptr);
  EXPECT_TRUE(target->kernelCandidates(softmax, {}).choices.empty());
}

TEST_F(CPUCandidatesTest, FollowUpCombinesTheFastest) {
  Operation *softmax = firstOp(kSoftmax);
  ASSERT_NE(softmax, nullptr);
  using Times = std::vector<std::pair<std::string, double>>;
  auto followUps = [&](const Times &times) {
    return target->followUpCandidates(softmax, times, {});
  };
  // The fastest loops (threads included) with the fastest width.
  EXPECT_EQ(followUps({{"default", 1.0},
                       {"loops_serial", 1.2},
                       {"loops_outer", 0.8},
                       {"loops_wide.t4", 0.7},
                       {"loops.v8", 0.95},
                       {"loops.v16", 0.6}}),
            std::vector<std::string>{"loops_wide.t4.v16"});
  // A width that does not beat the default: nothing to combine.
  EXPECT_TRUE(
      followUps({{"default", 1.0}, {"loops_outer", 0.8}, {"loops.v16", 1.1}})
          .empty());
  // Loops that do not beat it either.
  EXPECT_TRUE(
      followUps({{"default", 1.0}, {"loops_outer", 1.0}, {"loops.v16", 0.5}})
          .empty());
  // Without the default's time there is no telling.
  EXPECT_TRUE(followUps({{"loops_outer", 0.8}, {"loops.v16", 0.5}}).empty());
}

} // namespace
