//===- ShapeUtilsTest.cpp - broadcasting and axis helpers -----------------===//

#include "nnc/ShapeUtils.h"

#include <gtest/gtest.h>

using namespace nnc;
using llvm::SmallVector;

namespace {

constexpr int64_t kDyn = mlir::ShapedType::kDynamic;

SmallVector<int64_t> broadcast(llvm::ArrayRef<int64_t> a,
                               llvm::ArrayRef<int64_t> b, bool &ok) {
  SmallVector<int64_t> out;
  ok = broadcastShapes(a, b, out);
  return out;
}

TEST(Broadcast, NumpyRules) {
  bool ok;
  EXPECT_EQ(broadcast({8, 1, 6, 1}, {7, 1, 5}, ok),
            (SmallVector<int64_t>{8, 7, 6, 5}));
  EXPECT_TRUE(ok);
  EXPECT_EQ(broadcast({}, {3, 4}, ok), (SmallVector<int64_t>{3, 4}));
  EXPECT_TRUE(ok);
  broadcast({3}, {4}, ok);
  EXPECT_FALSE(ok);
}

TEST(Broadcast, DynamicDimensions) {
  bool ok;
  // '?' against N != 1 must be N at run time for the program to be valid.
  EXPECT_EQ(broadcast({kDyn, 4}, {3, 4}, ok), (SmallVector<int64_t>{3, 4}));
  EXPECT_TRUE(ok);
  // '?' against 1 stays unknown.
  EXPECT_EQ(broadcast({kDyn}, {1}, ok), (SmallVector<int64_t>{kDyn}));
  EXPECT_EQ(broadcast({kDyn}, {kDyn}, ok), (SmallVector<int64_t>{kDyn}));
  EXPECT_TRUE(ok);
}

TEST(Broadcast, Unidirectional) {
  EXPECT_TRUE(isBroadcastableTo({1, 4}, {3, 4}));
  EXPECT_TRUE(isBroadcastableTo({4}, {2, 3, 4}));
  EXPECT_TRUE(isBroadcastableTo({kDyn}, {5}));
  EXPECT_FALSE(isBroadcastableTo({3, 4}, {4}));
  EXPECT_FALSE(isBroadcastableTo({2}, {3}));
}

TEST(Axes, Normalize) {
  EXPECT_EQ(normalizeAxis(-1, 4), 3);
  EXPECT_EQ(normalizeAxis(0, 4), 0);
  EXPECT_EQ(normalizeAxis(4, 4), std::nullopt);
  EXPECT_EQ(normalizeAxis(-5, 4), std::nullopt);
  SmallVector<int64_t> out;
  EXPECT_TRUE(
      mlir::succeeded(normalizeAxes(std::nullopt, "reduce", {-1, 0}, 3, out)));
  EXPECT_EQ(out, (SmallVector<int64_t>{2, 0}));
  EXPECT_TRUE(
      mlir::failed(normalizeAxes(std::nullopt, "reduce", {1, -2}, 3, out)));
  EXPECT_TRUE(mlir::failed(normalizeAxes(std::nullopt, "reduce", {3}, 3, out)));
}

TEST(Shape, NumElements) {
  EXPECT_EQ(getNumElements({2, 3, 4}), 24);
  EXPECT_EQ(getNumElements({}), 1);
  EXPECT_EQ(getNumElements({2, kDyn}), kDyn);
  // Overflow is reported, not wrapped.
  EXPECT_EQ(getNumElements({int64_t(1) << 40, int64_t(1) << 40}), std::nullopt);
  EXPECT_EQ(formatShape({2, kDyn, 4}), "2x?x4");
  EXPECT_EQ(formatShape({}), "scalar");
}

} // namespace
