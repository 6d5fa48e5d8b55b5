//===- DialectTest.cpp - building and verifying nnc IR from C++ -----------===//
//
// What the importer and the tracer rely on: ops built through the C++ API
// infer their result types, and invalid IR is rejected with diagnostics.
//
//===----------------------------------------------------------------------===//

#include "nnc/InitAll.h"
#include "nnc/NNCOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

class DialectTest : public ::testing::Test {
protected:
  DialectTest() {
    DialectRegistry registry;
    nnc::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  MLIRContext context;
};

TEST_F(DialectTest, BuilderInfersBroadcastType) {
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  auto f32 = b.getF32Type();
  auto module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module.getBody());
  auto lhsType = RankedTensorType::get({ShapedType::kDynamic, 1, 6}, f32);
  auto rhsType = RankedTensorType::get({5, 1}, f32);
  auto func = func::FuncOp::create(b, loc, "f",
                                   b.getFunctionType({lhsType, rhsType}, {}));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  auto add =
      nnc::AddOp::create(b, loc, entry->getArgument(0), entry->getArgument(1));
  EXPECT_EQ(add.getType(),
            RankedTensorType::get({ShapedType::kDynamic, 5, 6}, f32));
  auto cmp = nnc::CmpOp::create(b, loc, nnc::CmpPredicate::lt,
                                entry->getArgument(0), entry->getArgument(1));
  EXPECT_TRUE(cmp.getType().getElementType().isInteger(1));
  func::ReturnOp::create(b, loc);
  EXPECT_TRUE(succeeded(verify(module)));
  module->erase();
}

TEST_F(DialectTest, ParsesAndRejectsWithDiagnostics) {
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostics += d.str();
    return success();
  });
  auto good = parseSourceString<ModuleOp>(R"mlir(
    func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
      %0 = nnc.relu %x : tensor<2x3xf32>
      return %0 : tensor<2x3xf32>
    })mlir",
                                          &context);
  ASSERT_TRUE(good);
  EXPECT_TRUE(diagnostics.empty());

  auto bad = parseSourceString<ModuleOp>(R"mlir(
    func.func @f(%x: tensor<2x3xf32>, %y: tensor<4xf32>) {
      %0 = nnc.add %x, %y : tensor<2x3xf32>, tensor<4xf32>
      return
    })mlir",
                                         &context);
  EXPECT_FALSE(bad);
  EXPECT_NE(diagnostics.find("do not broadcast"), std::string::npos)
      << diagnostics;
}

TEST_F(DialectTest, ConstantFolding) {
  auto module = parseSourceString<ModuleOp>(R"mlir(
    func.func @f() -> tensor<2xf32> {
      %a = nnc.constant dense<[1.0, 2.0]> : tensor<2xf32>
      %b = nnc.constant dense<[3.0, 4.0]> : tensor<2xf32>
      %c = nnc.add %a, %b : tensor<2xf32>, tensor<2xf32>
      return %c : tensor<2xf32>
    })mlir",
                                            &context);
  ASSERT_TRUE(module);
  auto func = cast<func::FuncOp>(module->getBody()->front());
  nnc::AddOp add;
  func.walk([&](nnc::AddOp op) { add = op; });
  ASSERT_TRUE(add);
  SmallVector<OpFoldResult> results;
  ASSERT_TRUE(succeeded(add->fold(results)));
  ASSERT_EQ(results.size(), 1u);
  auto folded = dyn_cast<DenseElementsAttr>(dyn_cast<Attribute>(results[0]));
  ASSERT_TRUE(folded);
  auto values = llvm::to_vector(folded.getValues<float>());
  EXPECT_EQ(values, (SmallVector<float>{4.0f, 6.0f}));
}

} // namespace
