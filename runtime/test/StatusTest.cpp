//===- StatusTest.cpp - runtime status values -----------------------------===//

#include "nnc/runtime/Status.h"

#include <gtest/gtest.h>

using namespace nnc::runtime;

namespace {

Status failIfNegative(int x) {
  if (x < 0)
    return Status(StatusCode::OutOfRange, "x is " + std::to_string(x));
  return Status::ok();
}

Status chain(int x, bool &reachedEnd) {
  NNC_RUNTIME_RETURN_IF_ERROR(failIfNegative(x));
  reachedEnd = true;
  return Status::ok();
}

TEST(Status, OkByDefault) {
  Status s;
  EXPECT_TRUE(s.isOk());
  EXPECT_EQ(s.toString(), "ok");
}

TEST(Status, CarriesCodeAndMessage) {
  Status s(StatusCode::NotFound, "weights.bin");
  EXPECT_FALSE(s.isOk());
  EXPECT_EQ(s.code(), StatusCode::NotFound);
  EXPECT_EQ(s.toString(), "not found: weights.bin");
}

TEST(Status, ReturnIfErrorPropagates) {
  bool reached = false;
  Status s = chain(-3, reached);
  EXPECT_EQ(s.code(), StatusCode::OutOfRange);
  EXPECT_EQ(s.message(), "x is -3");
  EXPECT_FALSE(reached);
  EXPECT_TRUE(chain(2, reached).isOk());
  EXPECT_TRUE(reached);
}

} // namespace
