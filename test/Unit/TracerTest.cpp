//===- TracerTest.cpp - the C++ tracing API -------------------------------===//
//
// Ops traced through nnc::Tracer: inferred types, operators, errors reported
// at the calling line, poisoning, mixing tracers, parameter marking and the
// verified module finish() returns.
//
//===----------------------------------------------------------------------===//

#include "nnc/Trace/Tracer.h"
#include "nnc/NNCOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace nnc;

namespace {

class TracerTest : public ::testing::Test {
protected:
  /// The type of `v` as MLIR prints it.
  static std::string typeOf(TValue v) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << v.getType();
    return text;
  }

  MLIRContext ctx;
};

TEST_F(TracerTest, BuildsOpsWithInferredTypes) {
  Tracer t(ctx, "f");
  TValue x = t.input("x", {-1, 64});
  TValue w = t.parameter("w", {64, 32});
  TValue y = matmul(x, w);
  EXPECT_EQ(typeOf(y), "tensor<?x32xf32>");
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{-1, 32}));
  EXPECT_TRUE(isa<MatMulOp>(y.value().getDefiningOp()));
  EXPECT_EQ(typeOf(softmax(y)), "tensor<?x32xf32>");
  EXPECT_EQ(typeOf(reduceSum(y, {1}, /*keepdims=*/false)), "tensor<?xf32>");
  EXPECT_EQ(typeOf(argMax(y, 1)), "tensor<?x1xi64>");
  EXPECT_EQ(typeOf(reshape(y, {-1, 4, 8})), "tensor<?x4x8xf32>");
  EXPECT_EQ(typeOf(transpose(y, {1, 0})), "tensor<32x?xf32>");
  EXPECT_EQ(typeOf(cast(y, DType::BF16)), "tensor<?x32xbf16>");
  std::vector<TValue> parts = split(y, 1, {8, 24});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(typeOf(parts[1]), "tensor<?x24xf32>");
  EXPECT_EQ(typeOf(concat({parts[1], parts[0]}, 1)), "tensor<?x32xf32>");
  NormResult ln = layerNormWithStats(y);
  EXPECT_EQ(typeOf(ln.result), "tensor<?x32xf32>");
  EXPECT_TRUE(ln.mean && ln.invStd);
  TValue img = t.input("img", {2, 3, 8, 8});
  TValue k = t.parameter("k", {4, 3, 3, 3});
  ConvOptions conv2;
  conv2.strides = {2, 2};
  conv2.pads = {1, 1, 1, 1};
  EXPECT_EQ(typeOf(conv(img, k, {}, conv2)), "tensor<2x4x4x4xf32>");
  EXPECT_EQ(typeOf(maxPool(img, {2, 2}, {.strides = {2, 2}})),
            "tensor<2x3x4x4xf32>");
  EXPECT_TRUE(t.ok()) << t.error();
}

TEST_F(TracerTest, OperatorsBroadcastAndScalars) {
  Tracer t(ctx, "f");
  TValue a = t.input("a", {-1, 1, 6});
  TValue b = t.input("b", {5, 1});
  TValue sum = a + b;
  EXPECT_EQ(typeOf(sum), "tensor<?x5x6xf32>");
  EXPECT_TRUE(isa<AddOp>(sum.value().getDefiningOp()));
  EXPECT_TRUE(isa<SubOp>((a - b).value().getDefiningOp()));
  EXPECT_TRUE(isa<MulOp>((a * b).value().getDefiningOp()));
  EXPECT_TRUE(isa<DivOp>((a / b).value().getDefiningOp()));
  EXPECT_TRUE(isa<NegOp>((-a).value().getDefiningOp()));
  TValue scaled = 2.0 * a;
  EXPECT_EQ(typeOf(scaled), "tensor<?x1x6xf32>");
  auto mul = cast<MulOp>(scaled.value().getDefiningOp());
  EXPECT_TRUE(isa<ConstantOp>(mul.getLhs().getDefiningOp()));
  EXPECT_EQ(typeOf(TValue(&t, mul.getLhs())), "tensor<f32>");
  TValue mask = lt(a, b);
  EXPECT_EQ(typeOf(mask), "tensor<?x5x6xi1>");
  EXPECT_EQ(typeOf(where(mask, a, b)), "tensor<?x5x6xf32>");
  TValue i = t.input("i", {4}, DType::I32);
  EXPECT_EQ(typeOf(i * 3.0), "tensor<4xi32>");
  EXPECT_TRUE(t.ok()) << t.error();
}

TEST_F(TracerTest, ShapeErrorNamesCallSiteAndPoisons) {
  Tracer t(ctx, "f");
  TValue x = t.input("x", {8, 64});
  TValue w = t.parameter("w", {32, 10});
  int line = __LINE__ + 1;
  TValue y = matmul(x, w);
  EXPECT_TRUE(y.isPoisoned());
  EXPECT_FALSE(t.ok());
  std::string expected = std::string(__FILE__) + ":" + std::to_string(line) +
                         ": nnc.matmul: contracted dimensions differ";
  EXPECT_EQ(t.error().rfind(expected, 0), 0u) << t.error();
  std::string first = t.error();
  // Later calls are no-ops and keep the first error.
  TValue z = relu(y + 1.0);
  EXPECT_TRUE(z.isPoisoned());
  TValue u = relu(x);
  EXPECT_TRUE(u.isPoisoned());
  t.output(z);
  EXPECT_EQ(t.error(), first);
  EXPECT_FALSE(t.finish());
  EXPECT_EQ(t.error(), first);
}

TEST_F(TracerTest, OperatorErrorNamesOperatorLine) {
  Tracer t(ctx, "f");
  TValue a = t.input("a", {3});
  TValue b = t.input("b", {4});
  int line = __LINE__ + 1;
  TValue c = a + b;
  EXPECT_TRUE(c.isPoisoned());
  EXPECT_NE(t.error().find(":" + std::to_string(line) + ": nnc.add: "),
            std::string::npos)
      << t.error();
}

TEST_F(TracerTest, VerifierErrorIsRecorded) {
  Tracer t(ctx, "f");
  TValue i = t.input("i", {4}, DType::I64);
  // exp is float-only: inference succeeds, verification rejects it.
  TValue e = exp(i);
  EXPECT_TRUE(e.isPoisoned());
  EXPECT_NE(t.error().find("nnc.exp: "), std::string::npos) << t.error();
  // The rejected op is not left in the IR.
  EXPECT_FALSE(t.finish());
}

TEST_F(TracerTest, BadDeclarationsAndAttributes) {
  {
    Tracer t(ctx, "f");
    t.input("x", {-2, 3});
    EXPECT_NE(t.error().find("input 'x': dimension 0 is -2"), std::string::npos)
        << t.error();
  }
  {
    Tracer t(ctx, "f");
    t.parameter("w", {-1, 3});
    EXPECT_NE(t.error().find("the shape must be static"), std::string::npos);
  }
  {
    Tracer t(ctx, "f");
    t.input("x", {3});
    t.input("x", {3});
    EXPECT_NE(t.error().find("'x' is already declared"), std::string::npos);
  }
  {
    Tracer t(ctx, "f");
    TValue x = t.input("x", {2, 3});
    EXPECT_TRUE(softmax(x, 5).isPoisoned());
    EXPECT_NE(t.error().find("nnc.softmax"), std::string::npos) << t.error();
  }
  {
    Tracer t(ctx, "f");
    TValue x = t.input("x", {2, 3});
    EXPECT_TRUE(reshape(x, {4, -1}).isPoisoned());
    EXPECT_NE(t.error().find("nnc.reshape: cannot reshape 2x3 to [4, -1]"),
              std::string::npos)
        << t.error();
  }
  {
    Tracer t(ctx, "f");
    t.parameter("w", {3}, DType::F32, Init::uniform(1.0, -1.0));
    EXPECT_NE(t.error().find("uniform bounds [1, -1] are empty"),
              std::string::npos)
        << t.error();
  }
  {
    Tracer t(ctx, "f");
    t.input("x", {3});
    EXPECT_FALSE(t.finish());
    EXPECT_NE(t.error().find("no outputs"), std::string::npos);
  }
}

TEST_F(TracerTest, MixingTracersIsRejected) {
  Tracer t1(ctx, "f"), t2(ctx, "g");
  TValue a = t1.input("a", {4});
  TValue b = t2.input("b", {4});
  TValue c = a + b;
  EXPECT_FALSE(c);
  EXPECT_NE(t1.error().find("operands come from different tracers"),
            std::string::npos)
      << t1.error();
  EXPECT_FALSE(t2.ok());
  Tracer t3(ctx, "h"), t4(ctx, "k");
  TValue d = t3.input("d", {4});
  t4.input("e", {4});
  t4.output(d);
  EXPECT_NE(t4.error().find("another tracer"), std::string::npos) << t4.error();
}

TEST_F(TracerTest, AbsentRequiredOperandIsAnError) {
  Tracer t(ctx, "f");
  TValue x = t.input("x", {4});
  EXPECT_TRUE(add(x, TValue()).isPoisoned());
  EXPECT_NE(t.error().find("operand 1 is empty"), std::string::npos);
  // Without any tracer there is nowhere to record: the result is absent.
  EXPECT_TRUE(relu(TValue()).isAbsent());
}

TEST_F(TracerTest, FinishMarksParamsAndVerifies) {
  Tracer t(ctx, "net");
  TValue w = t.parameter("w", {4, 2}, DType::F32, Init::normal(0.0, 0.1));
  TValue x = t.input("x", {-1, 4});
  TValue s = t.buffer("s", {2}, DType::F32, Init::ones());
  TValue f = t.frozen("f", {2});
  TValue labels = t.input("labels", {-1}, DType::I64);
  TValue logits = matmul(x, w) * s + f;
  t.outputs({crossEntropy(logits, labels), logits});
  OwningOpRef<ModuleOp> module = t.finish();
  ASSERT_TRUE(module) << t.error();
  EXPECT_TRUE(succeeded(verify(*module)));
  auto func = cast<func::FuncOp>(module->getBody()->front());
  EXPECT_EQ(func.getName(), "net");
  ASSERT_EQ(func.getNumArguments(), 5u);
  ASSERT_EQ(func.getNumResults(), 2u);
  // Inputs first, then parameters in declaration order.
  auto argType = [&](unsigned i) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << func.getArgument(i).getType();
    return text;
  };
  EXPECT_EQ(argType(0), "tensor<?x4xf32>");
  EXPECT_EQ(argType(1), "tensor<?xi64>");
  EXPECT_EQ(argType(2), "tensor<4x2xf32>");
  auto kind = [&](unsigned i) -> std::optional<ParamKind> {
    auto attr =
        func.getArgAttrOfType<ParamKindAttr>(i, NNCDialect::getParamAttrName());
    if (!attr)
      return std::nullopt;
    return attr.getValue();
  };
  EXPECT_EQ(kind(0), std::nullopt);
  EXPECT_EQ(kind(1), std::nullopt);
  EXPECT_EQ(kind(2), ParamKind::trainable);
  EXPECT_EQ(kind(3), ParamKind::buffer);
  EXPECT_EQ(kind(4), ParamKind::frozen);
  ASSERT_EQ(t.params().size(), 3u);
  EXPECT_EQ(t.params()[0].name, "w");
  EXPECT_EQ(t.params()[0].argIndex, 2u);
  EXPECT_EQ(t.params()[0].init.str(), "normal(0, 0.1)");
  EXPECT_EQ(t.params()[1].argIndex, 3u);
  EXPECT_EQ(t.params()[2].kind, ParamKind::frozen);
  // The tracer is spent.
  TValue late = relu(x);
  EXPECT_TRUE(late.isPoisoned());
  EXPECT_NE(t.error().find("already finished"), std::string::npos);
}

TEST_F(TracerTest, CoversEveryOpFamily) {
  Tracer t(ctx, "all");
  TValue x = t.input("x", {2, 4, 6, 6});
  TValue v = t.input("v", {2, 6});
  TValue idx = t.input("idx", {2}, DType::I64);
  TValue c = t.parameter("c", {4});
  std::vector<TValue> outs = {
      gelu(x, GeluApproximation::tanh),
      clip(x, 0.0, 6.0),
      leakyRelu(x),
      hardSigmoid(x),
      isInf(x),
      rem(v, v, true),
      pow(v, v),
      logicalNot(isNan(v)),
      gemm(v, v, {}, {.transB = true}),
      convTranspose(x, t.parameter("kt", {4, 2, 3, 3}), {},
                    {.strides = {2, 2}}),
      avgPool(x, {3, 3}, {.pads = {1, 1, 1, 1}, .countIncludePad = true}),
      globalMaxPool(x),
      cumsum(v, 1, true),
      logSoftmax(v, 0),
      batchNormTrain(x, c, c, c, c).newRunningVar,
      groupNorm(x, c, c, 2),
      instanceNorm(x, c, c),
      dropoutWithMask(v, {.training = true}).mask,
      nllLoss(logSoftmax(v), idx),
      mseLoss(v, v),
      expand(c, {3, -1}),
      slice(v, {0}, {3}, {1}),
      pad(v, {0, 1, 0, 1}, PadMode::reflect),
      tile(v, {2, 1}),
      squeeze(unsqueeze(v, {0})),
      flatten(x, 2),
      triu(v, 1),
      depthToSpace(x, 2),
      spaceToDepth(x, 2),
      gather(v, idx, 1),
      gatherElements(v, t.input("ie", {2, 3}, DType::I64), 1),
      scatterElements(v, t.input("is", {2, 1}, DType::I64),
                      t.input("u", {2, 1}), 1, ScatterReduction::add),
      scatterND(v, t.input("ind", {1, 1}, DType::I64), t.input("un", {1, 6})),
      oneHot(idx, 5, DType::F16),
      reduce(x, ReduceKind::log_sum_exp),
      t.constant({1, 2, 3, 4}, {2, 2}, DType::I32)};
  for (auto [i, o] : llvm::enumerate(outs))
    EXPECT_TRUE(o) << "output " << i << ": " << t.error();
  t.outputs(outs);
  OwningOpRef<ModuleOp> module = t.finish();
  EXPECT_TRUE(module) << t.error();
}

} // namespace
