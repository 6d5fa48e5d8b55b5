//===- SavedTrainerTest.cpp - what loadTrainer checks before its code -----===//
//
// A saved trainer whose programs are missing still goes through everything
// loadTrainerFromBytes verifies before it loads code: the metadata, the
// layout and the state it sizes from the layout. Programs themselves need
// the compiler (test/Unit covers a real round trip).
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/Checkpoint.h"
#include "nnc/runtime/Executable.h"
#include "nnc/runtime/Program.h"
#include "nnc/runtime/Schedule.h"
#include "nnc/runtime/Trainer.h"

#include <gtest/gtest.h>

#include "TestUtils.h"

#include <memory>
#include <string>
#include <vector>

using namespace nnc::runtime;

namespace {

/// A layout of one trainable f32 slot "w" of `dims` and one state "m.0".
std::string layoutWith(const std::string &dims) {
  return "slot\t1\tf32\t" + dims +
         "\tw\n"
         "trainable\t0\n"
         "data\t0\tf32\t-1,3\tx\n"
         "state\tm.0\n"
         "function\t0\tstep\narg\t0\t0\narg\t1\t0\nresult\t2\t0\n"
         "function\t1\tgrad\narg\t0\t0\narg\t1\t0\nresult\t5\t0\n"
         "function\t2\tapply\narg\t1\t0\narg\t6\t0\nresult\t2\t0\n"
         "function\t3\teval\narg\t0\t0\narg\t1\t0\nresult\t0\t0\n";
}

/// The checkpoint of such a trainer, "w" holding f32 `wShape`.
Checkpoint checkpointWith(const std::string &layout,
                          const std::vector<int64_t> &wShape) {
  Checkpoint c;
  c.setInt("trainer.version", 1);
  c.setString("trainer.layout", layout);
  c.setString("trainer.model", "m");
  c.setString("nnc.fingerprint", "f");
  c.setString("trainer.loss_type", "f32");
  c.setString("trainer.loss", "mse");
  c.setInt("trainer.loss_output", 0);
  c.setInt("trainer.classes", -1);
  c.setString("trainer.schedule", "constant");
  c.setDouble("trainer.learning_rate", 0.1);
  c.setInt("trainer.accumulate", 1);
  LossScaler().save(c.metadata, "trainer.loss_scaler.");
  c.setString("nnc.seed", "7");
  c.setInt("trainer.programs", 1);
  c.setString("trainer.program.0", "step\t[2,3]");
  HostTensor w, m;
  EXPECT_TRUE(HostTensor::create(DType::F32, wShape, w).isOk());
  EXPECT_TRUE(HostTensor::create(DType::F32, wShape, m).isOk());
  c.tensors.push_back({"w", std::move(w)});
  c.tensors.push_back({"optimizer.m.0", std::move(m)});
  return c;
}

Status load(const Checkpoint &checkpoint) {
  std::vector<uint8_t> image, bytes;
  Status s = serializeCheckpoint(checkpoint, image);
  if (!s.isOk())
    return s;
  ExecutableWriter writer(Program::hostCpuTarget());
  s = writer.addSection(SectionKind::Other, "nnc.trainer", image);
  if (s.isOk())
    s = writer.serialize(bytes);
  if (!s.isOk())
    return s;
  std::unique_ptr<Trainer> trainer;
  return loadTrainerFromBytes(bytes.data(), bytes.size(), "t.nnct", trainer);
}

TEST(SavedTrainerTest, StopsAtTheMissingProgram) {
  EXPECT_ERROR(load(checkpointWith(layoutWith("2,3"), {2, 3})),
               "t.nnct: no section program.0 for trainer.program.0");
}

// Found by test/Fuzz/trainer-fuzzer.cpp: the layout's shape of a slot sized
// a zero tensor (here 400 GB) before the checkpoint's value of it was
// looked at.
TEST(SavedTrainerTest, SlotShapesAreCheckedBeforeTheyAllocate) {
  EXPECT_ERROR(load(checkpointWith(layoutWith("100000,100000,10"), {2, 3})),
               "checkpoint t.nnct: tensor 'w' has shape 2x3, the model "
               "expects 100000x100000x10");
  Checkpoint noValue = checkpointWith(layoutWith("2,3"), {2, 3});
  noValue.tensors.erase(noValue.tensors.begin());
  EXPECT_ERROR(load(noValue), "checkpoint t.nnct: has no tensor 'w'");
}

} // namespace
