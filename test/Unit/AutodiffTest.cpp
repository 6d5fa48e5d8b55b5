//===- AutodiffTest.cpp - gradients against finite differences ------------===//
//
// Each gradient rule of --nnc-autodiff on a small f64 function: the pass
// builds `main_grad`, both functions are compiled for the host CPU and run,
// and every gradient element is compared with the central difference of the
// forward loss.
//
//===----------------------------------------------------------------------===//

#include "nnc/Compiler/Compiler.h"
#include "nnc/InitAll.h"
#include "nnc/NNCOps.h"
#include "nnc/Transforms/Passes.h"
#include "nnc/runtime/Program.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mlir;
namespace rt = nnc::runtime;

namespace {

/// One argument's data: f64 values or i64 labels.
struct Arg {
  std::vector<int64_t> shape;
  bool isLabel = false;
  bool trainable = false;
  std::vector<double> values;
  std::vector<int64_t> labels;

  rt::TensorRef ref() const {
    if (isLabel)
      return {rt::DType::I64, shape.data(), shape.size(), labels.data(),
              labels.size() * sizeof(int64_t)};
    return {rt::DType::F64, shape.data(), shape.size(), values.data(),
            values.size() * sizeof(double)};
  }
};

class AutodiffTest : public ::testing::Test {
protected:
  AutodiffTest() {
    DialectRegistry registry;
    nnc::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  std::unique_ptr<rt::Program>
  compile(ModuleOp module, StringRef name,
          ArrayRef<SmallVector<int64_t>> inputShapes = {}) {
    nnc::CompileResult result =
        nnc::compile(module, name, inputShapes, options);
    EXPECT_EQ(result.failure, nnc::CompileFailure::None) << name.str();
    if (result.failure != nnc::CompileFailure::None)
      return nullptr;
    rt::ExecutableReader reader;
    EXPECT_TRUE(rt::ExecutableReader::fromBytes(
                    result.executable.data(), result.executable.size(), reader)
                    .isOk());
    std::unique_ptr<rt::Program> program;
    rt::Status load = rt::Program::load(std::move(reader), rt::getCpuDevice(),
                                        name.str(), program);
    EXPECT_TRUE(load.isOk()) << load.message();
    return program;
  }

  /// Differentiates @main of `text` and checks every gradient against central
  /// differences. Float arguments are filled in [-1, 1) (in [0.5, 1.5) with
  /// `positive`, for log and sqrt); i64 arguments with labels in [0, classes).
  /// `shapes` gives every argument's shape when some are dynamic.
  void check(const char *text, bool positive = false, int64_t classes = 1,
             ArrayRef<SmallVector<int64_t>> shapes = {}) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(module);
    auto main = module->lookupSymbol<func::FuncOp>("main");
    ASSERT_TRUE(main);

    std::vector<Arg> args;
    uint32_t state = 12345;
    auto next = [&]() {
      state = state * 1664525u + 1013904223u;
      return (state >> 8) % 2000;
    };
    for (unsigned i = 0; i < main.getNumArguments(); ++i) {
      auto type = cast<RankedTensorType>(main.getArgument(i).getType());
      Arg arg;
      if (shapes.empty())
        arg.shape.assign(type.getShape().begin(), type.getShape().end());
      else
        arg.shape.assign(shapes[i].begin(), shapes[i].end());
      auto kind = main.getArgAttrOfType<nnc::ParamKindAttr>(
          i, nnc::NNCDialect::getParamAttrName());
      arg.trainable = kind && kind.getValue() == nnc::ParamKind::trainable;
      int64_t n = 1;
      for (int64_t d : arg.shape)
        n *= d;
      if (type.getElementType().isInteger(64)) {
        arg.isLabel = true;
        for (int64_t j = 0; j < n; ++j)
          arg.labels.push_back(next() % classes);
      } else {
        for (int64_t j = 0; j < n; ++j) {
          double u = next() / 1000.0; // [0, 2)
          arg.values.push_back(positive ? 0.5 + u / 2 : u - 1);
        }
      }
      args.push_back(std::move(arg));
    }

    PassManager pm(&context);
    pm.addPass(nnc::createAutodiffPass());
    ASSERT_TRUE(succeeded(pm.run(*module)));
    ASSERT_TRUE(module->lookupSymbol<func::FuncOp>("main_grad"));

    std::unique_ptr<rt::Program> forward = compile(*module, "main", shapes);
    std::unique_ptr<rt::Program> backward =
        compile(*module, "main_grad", shapes);
    ASSERT_TRUE(forward && backward);

    auto run = [&](const rt::Program &program,
                   std::vector<rt::HostTensor> &outputs) {
      std::vector<rt::TensorRef> refs;
      for (const Arg &arg : args)
        refs.push_back(arg.ref());
      rt::Status status = program.run(refs, outputs, /*threads=*/1);
      EXPECT_TRUE(status.isOk()) << status.message();
    };
    auto loss = [&]() {
      std::vector<rt::HostTensor> outputs;
      run(*forward, outputs);
      return outputs.at(0).dataAs<double>()[0];
    };

    std::vector<rt::HostTensor> grads;
    run(*backward, grads);
    double loss0 = loss();
    EXPECT_NEAR(grads.at(0).dataAs<double>()[0], loss0,
                1e-12 * (1 + std::abs(loss0)));

    const double eps = 1e-6;
    size_t output = 1;
    for (Arg &arg : args) {
      if (!arg.trainable)
        continue;
      ASSERT_LT(output, grads.size());
      const double *grad = grads[output++].dataAs<double>();
      for (size_t j = 0; j < arg.values.size(); ++j) {
        double saved = arg.values[j];
        arg.values[j] = saved + eps;
        double up = loss();
        arg.values[j] = saved - eps;
        double down = loss();
        arg.values[j] = saved;
        double numeric = (up - down) / (2 * eps);
        EXPECT_NEAR(grad[j], numeric, 1e-6 * (1 + std::abs(numeric)))
            << "gradient " << output - 1 << " element " << j;
      }
    }
    // The forward function's other results follow the gradients.
    EXPECT_EQ(output + main.getNumResults() - 1, grads.size());
  }

  MLIRContext context;
  nnc::CompileOptions options;
};

#define P "{nnc.param = #nnc.param<trainable>}"

TEST_F(AutodiffTest, BroadcastingBinaryOps) {
  check(R"mlir(
func.func @main(%x: tensor<4x3xf64> )mlir" P R"mlir(,
                %w: tensor<3xf64> )mlir" P R"mlir(,
                %b: tensor<4x1xf64> )mlir" P R"mlir(,
                %s: tensor<f64> )mlir" P R"mlir() -> tensor<f64> {
  %0 = nnc.mul %x, %w : tensor<4x3xf64>, tensor<3xf64>
  %1 = nnc.add %0, %b : tensor<4x3xf64>, tensor<4x1xf64>
  %2 = nnc.sub %1, %s : tensor<4x3xf64>, tensor<f64>
  %3 = nnc.sub %w, %2 : tensor<3xf64>, tensor<4x3xf64>
  %4 = nnc.mul %3, %3 : tensor<4x3xf64>, tensor<4x3xf64>
  %5 = nnc.reduce sum %4 keepdims = false : tensor<4x3xf64>
  return %5 : tensor<f64>
}
)mlir");
}

TEST_F(AutodiffTest, Division) {
  check(R"mlir(
func.func @main(%x: tensor<2x3xf64> )mlir" P R"mlir(,
                %y: tensor<3xf64> )mlir" P R"mlir() -> tensor<f64> {
  %0 = nnc.div %x, %y : tensor<2x3xf64>, tensor<3xf64>
  %1 = nnc.div %0, %x : tensor<2x3xf64>, tensor<2x3xf64>
  %2 = nnc.add %0, %1 : tensor<2x3xf64>, tensor<2x3xf64>
  %3 = nnc.reduce sum %2 keepdims = false : tensor<2x3xf64>
  return %3 : tensor<f64>
}
)mlir",
        /*positive=*/true);
}

TEST_F(AutodiffTest, UnaryOps) {
  check(R"mlir(
func.func @main(%x: tensor<2x3xf64> )mlir" P R"mlir() -> tensor<f64> {
  %0 = nnc.exp %x : tensor<2x3xf64>
  %1 = nnc.log %x : tensor<2x3xf64>
  %2 = nnc.sqrt %x : tensor<2x3xf64>
  %3 = nnc.neg %x : tensor<2x3xf64>
  %4 = nnc.add %0, %1 : tensor<2x3xf64>, tensor<2x3xf64>
  %5 = nnc.mul %4, %2 : tensor<2x3xf64>, tensor<2x3xf64>
  %6 = nnc.add %5, %3 : tensor<2x3xf64>, tensor<2x3xf64>
  %7 = nnc.reduce sum %6 keepdims = false : tensor<2x3xf64>
  return %7 : tensor<f64>
}
)mlir",
        /*positive=*/true);
}

TEST_F(AutodiffTest, Activations) {
  check(R"mlir(
func.func @main(%x: tensor<3x4xf64> )mlir" P R"mlir() -> tensor<f64> {
  %0 = nnc.tanh %x : tensor<3x4xf64>
  %1 = nnc.sigmoid %x : tensor<3x4xf64>
  %2 = nnc.relu %x : tensor<3x4xf64>
  %3 = nnc.mul %0, %1 : tensor<3x4xf64>, tensor<3x4xf64>
  %4 = nnc.mul %3, %2 : tensor<3x4xf64>, tensor<3x4xf64>
  %5 = nnc.add %4, %1 : tensor<3x4xf64>, tensor<3x4xf64>
  %6 = nnc.reduce sum %5 keepdims = false : tensor<3x4xf64>
  return %6 : tensor<f64>
}
)mlir");
}

TEST_F(AutodiffTest, MatMul) {
  check(R"mlir(
func.func @main(%a: tensor<3x4xf64> )mlir" P R"mlir(,
                %b: tensor<4x2xf64> )mlir" P R"mlir() -> tensor<f64> {
  %0 = nnc.matmul %a, %b : tensor<3x4xf64>, tensor<4x2xf64>
  %1 = nnc.mul %0, %0 : tensor<3x2xf64>, tensor<3x2xf64>
  %2 = nnc.reduce sum %1 keepdims = false : tensor<3x2xf64>
  return %2 : tensor<f64>
}
)mlir");
}

TEST_F(AutodiffTest, BatchedMatMulWithBroadcastBatch) {
  check(R"mlir(
func.func @main(%a: tensor<2x3x4xf64> )mlir" P R"mlir(,
                %b: tensor<4x2xf64> )mlir" P R"mlir(,
                %c: tensor<1x2x5xf64> )mlir" P R"mlir() -> tensor<f64> {
  %0 = nnc.matmul %a, %b : tensor<2x3x4xf64>, tensor<4x2xf64>
  %1 = nnc.matmul %0, %c : tensor<2x3x2xf64>, tensor<1x2x5xf64>
  %2 = nnc.mul %1, %1 : tensor<2x3x5xf64>, tensor<2x3x5xf64>
  %3 = nnc.reduce sum %2 keepdims = false : tensor<2x3x5xf64>
  return %3 : tensor<f64>
}
)mlir");
}

TEST_F(AutodiffTest, Gemm) {
  check(R"mlir(
func.func @main(%a: tensor<3x4xf64> )mlir" P R"mlir(,
                %b: tensor<4x2xf64> )mlir" P R"mlir(,
                %at: tensor<4x3xf64> )mlir" P R"mlir(,
                %bt: tensor<2x4xf64> )mlir" P R"mlir(,
                %c: tensor<2xf64> )mlir" P R"mlir() -> tensor<f64> {
  %0 = nnc.gemm %a, %b, %c alpha = 0.5 beta = 2.0 : tensor<3x4xf64>, tensor<4x2xf64>, tensor<2xf64>
  %1 = nnc.gemm %at, %bt trans_a = true trans_b = true alpha = 1.5 : tensor<4x3xf64>, tensor<2x4xf64>
  %2 = nnc.gemm %a, %bt trans_b = true : tensor<3x4xf64>, tensor<2x4xf64>
  %3 = nnc.gemm %at, %b, %c trans_a = true : tensor<4x3xf64>, tensor<4x2xf64>, tensor<2xf64>
  %4 = nnc.mul %0, %1 : tensor<3x2xf64>, tensor<3x2xf64>
  %5 = nnc.mul %2, %3 : tensor<3x2xf64>, tensor<3x2xf64>
  %6 = nnc.add %4, %5 : tensor<3x2xf64>, tensor<3x2xf64>
  %7 = nnc.reduce sum %6 keepdims = false : tensor<3x2xf64>
  return %7 : tensor<f64>
}
)mlir");
}

TEST_F(AutodiffTest, ShapeOpsAndReductions) {
  check(R"mlir(
func.func @main(%x: tensor<2x3x4xf64> )mlir" P R"mlir() -> tensor<f64> {
  %0 = nnc.transpose %x perm = [2, 0, 1] : tensor<2x3x4xf64>
  %1 = nnc.reshape %0 : tensor<4x2x3xf64> -> tensor<8x3xf64>
  %2 = nnc.reduce mean %1 axes = [0] keepdims = false : tensor<8x3xf64>
  %3 = nnc.reduce sum %1 axes = [1] : tensor<8x3xf64>
  %4 = nnc.mul %2, %2 : tensor<3xf64>, tensor<3xf64>
  %5 = nnc.mul %3, %3 : tensor<8x1xf64>, tensor<8x1xf64>
  %6 = nnc.reduce sum %4 : tensor<3xf64>
  %7 = nnc.reduce mean %5 keepdims = false : tensor<8x1xf64>
  %8 = nnc.reshape %6 : tensor<1xf64> -> tensor<f64>
  %9 = nnc.add %8, %7 : tensor<f64>, tensor<f64>
  return %9 : tensor<f64>
}
)mlir");
}

TEST_F(AutodiffTest, SoftmaxAndLogSoftmax) {
  check(R"mlir(
func.func @main(%x: tensor<3x4xf64> )mlir" P R"mlir(,
                %t: tensor<3x4xf64>) -> tensor<f64> {
  %0 = nnc.softmax %x : tensor<3x4xf64>
  %1 = nnc.log_softmax %x axis = 0 : tensor<3x4xf64>
  %2 = nnc.mul %0, %t : tensor<3x4xf64>, tensor<3x4xf64>
  %3 = nnc.mul %1, %2 : tensor<3x4xf64>, tensor<3x4xf64>
  %4 = nnc.reduce sum %3 keepdims = false : tensor<3x4xf64>
  return %4 : tensor<f64>
}
)mlir");
}

TEST_F(AutodiffTest, MseLoss) {
  check(R"mlir(
func.func @main(%x: tensor<3x2xf64> )mlir" P R"mlir(,
                %t: tensor<3x2xf64> )mlir" P R"mlir() -> tensor<f64> {
  %0 = nnc.mse_loss %x, %t : tensor<3x2xf64>, tensor<3x2xf64>
  %1 = nnc.mse_loss %x, %t reduction = sum : tensor<3x2xf64>, tensor<3x2xf64>
  %2 = nnc.mse_loss %t, %x reduction = none : tensor<3x2xf64>, tensor<3x2xf64>
  %3 = nnc.reduce sum %2 keepdims = false : tensor<3x2xf64>
  %4 = nnc.add %0, %1 : tensor<f64>, tensor<f64>
  %5 = nnc.mul %4, %3 : tensor<f64>, tensor<f64>
  return %5 : tensor<f64>
}
)mlir");
}

TEST_F(AutodiffTest, CrossEntropy) {
  check(R"mlir(
func.func @main(%x: tensor<4x5xf64> )mlir" P R"mlir(,
                %y: tensor<4xi64>,
                %z: tensor<2x3x2xf64> )mlir" P R"mlir(,
                %l: tensor<2x2xi64>) -> tensor<f64> {
  %0 = nnc.cross_entropy %x, %y : tensor<4x5xf64>, tensor<4xi64>
  %1 = nnc.cross_entropy %x, %y reduction = sum label_smoothing = 0.1 : tensor<4x5xf64>, tensor<4xi64>
  %2 = nnc.cross_entropy %z, %l reduction = none : tensor<2x3x2xf64>, tensor<2x2xi64>
  %3 = nnc.mul %2, %2 : tensor<2x2xf64>, tensor<2x2xf64>
  %4 = nnc.reduce sum %3 keepdims = false : tensor<2x2xf64>
  %5 = nnc.add %0, %1 : tensor<f64>, tensor<f64>
  %6 = nnc.add %5, %4 : tensor<f64>, tensor<f64>
  return %6 : tensor<f64>
}
)mlir",
        /*positive=*/false, /*classes=*/3);
}

TEST_F(AutodiffTest, FlattenSqueezeUnsqueeze) {
  check(R"mlir(
func.func @main(%x: tensor<2x1x3x2xf64> )mlir" P R"mlir(,
                %t: tensor<6x2xf64>) -> tensor<f64> {
  %0 = nnc.squeeze %x axes = [1] : tensor<2x1x3x2xf64>
  %1 = nnc.unsqueeze %0 axes = [0] : tensor<2x3x2xf64>
  %2 = nnc.flatten %1 axis = 2 : tensor<1x2x3x2xf64>
  %3 = nnc.mul %2, %2 : tensor<2x6xf64>, tensor<2x6xf64>
  %4 = nnc.flatten %x axis = 3 : tensor<2x1x3x2xf64>
  %5 = nnc.mul %4, %t : tensor<6x2xf64>, tensor<6x2xf64>
  %6 = nnc.reduce sum %3 keepdims = false : tensor<2x6xf64>
  %7 = nnc.reduce sum %5 keepdims = false : tensor<6x2xf64>
  %8 = nnc.add %6, %7 : tensor<f64>, tensor<f64>
  return %8 : tensor<f64>
}
)mlir");
}

/// max/min route g to the selected operand, with broadcasting; where splits
/// g by its (non-differentiable) condition.
TEST_F(AutodiffTest, MaxMinWhere) {
  check(R"mlir(
func.func @main(%a: tensor<3x4xf64> )mlir" P R"mlir(,
                %b: tensor<4xf64> )mlir" P R"mlir(,
                %c: tensor<3x1xf64> )mlir" P R"mlir(,
                %t: tensor<3x4xf64>) -> tensor<f64> {
  %0 = nnc.max %a, %b : tensor<3x4xf64>, tensor<4xf64>
  %1 = nnc.min %0, %c : tensor<3x4xf64>, tensor<3x1xf64>
  %z = nnc.constant dense<0.0> : tensor<f64>
  %m = nnc.cmp gt, %t, %z : tensor<3x4xf64>, tensor<f64>
  %2 = nnc.where %m, %1, %b : tensor<3x4xi1>, tensor<3x4xf64>, tensor<4xf64>
  %3 = nnc.mul %2, %t : tensor<3x4xf64>, tensor<3x4xf64>
  %4 = nnc.mul %3, %2 : tensor<3x4xf64>, tensor<3x4xf64>
  %5 = nnc.reduce sum %4 keepdims = false : tensor<3x4xf64>
  return %5 : tensor<f64>
}
)mlir");
}

/// 2-D convolutions with strides, pads, dilations and a bias; the second
/// one's last windows leave input rows and columns unread (output padding
/// and a sliced weight gradient).
TEST_F(AutodiffTest, Conv) {
  check(R"mlir(
func.func @main(%x: tensor<2x2x6x6xf64> )mlir" P R"mlir(,
                %w1: tensor<3x2x2x3xf64> )mlir" P R"mlir(,
                %b1: tensor<3xf64> )mlir" P R"mlir(,
                %w2: tensor<2x2x3x3xf64> )mlir" P R"mlir() -> tensor<f64> {
  %0 = nnc.conv %x, %w1, %b1 strides = [2, 1] dilations = [1, 2]
      pads = [1, 0, 0, 1] : tensor<2x2x6x6xf64>, tensor<3x2x2x3xf64>, tensor<3xf64>
  %1 = nnc.conv %x, %w2 strides = [2, 2] : tensor<2x2x6x6xf64>, tensor<2x2x3x3xf64>
  %2 = nnc.mul %0, %0 : tensor<2x3x3x3xf64>, tensor<2x3x3x3xf64>
  %3 = nnc.mul %1, %1 : tensor<2x2x2x2xf64>, tensor<2x2x2x2xf64>
  %4 = nnc.reduce sum %2 keepdims = false : tensor<2x3x3x3xf64>
  %5 = nnc.reduce sum %3 keepdims = false : tensor<2x2x2x2xf64>
  %6 = nnc.add %4, %5 : tensor<f64>, tensor<f64>
  return %6 : tensor<f64>
}
)mlir");
}

/// 1-D and 3-D convolutions (strides, pads, dilations, groups): their
/// weight gradients are the direct loops of conv_weight_grad.
TEST_F(AutodiffTest, ConvOneAndThreeD) {
  check(R"mlir(
func.func @main(%x: tensor<2x4x9xf64> )mlir" P R"mlir(,
                %w1: tensor<6x2x3xf64> )mlir" P R"mlir(,
                %v: tensor<1x2x5x4x5xf64> )mlir" P R"mlir(,
                %w2: tensor<3x2x2x2x3xf64> )mlir" P R"mlir() -> tensor<f64> {
  %0 = nnc.conv %x, %w1 strides = [2] dilations = [2] pads = [2, 1] groups = 2
      : tensor<2x4x9xf64>, tensor<6x2x3xf64>
  %1 = nnc.conv %v, %w2 strides = [2, 1, 1] dilations = [1, 2, 1]
      pads = [1, 0, 0, 0, 1, 1] : tensor<1x2x5x4x5xf64>, tensor<3x2x2x2x3xf64>
  %2 = nnc.mul %0, %0 : tensor<2x6x4xf64>, tensor<2x6x4xf64>
  %3 = nnc.mul %1, %1 : tensor<1x3x3x3x4xf64>, tensor<1x3x3x3x4xf64>
  %4 = nnc.reduce sum %2 keepdims = false : tensor<2x6x4xf64>
  %5 = nnc.reduce sum %3 keepdims = false : tensor<1x3x3x3x4xf64>
  %6 = nnc.add %4, %5 : tensor<f64>, tensor<f64>
  return %6 : tensor<f64>
}
)mlir");
}

/// Convolutions large enough for the GEMM paths: padded stride 1, then
/// stride 2 over the first one's result, so that the input gradient of the
/// second spreads g with the stride. Fused, each is a loop over the images
/// (forward, input gradient and weight gradient one GEMM per image).
const char *kGemmConvs = R"mlir(
func.func @main(%x: tensor<2x8x11x11xf64> )mlir" P R"mlir(,
                %w1: tensor<16x8x3x3xf64> )mlir" P R"mlir(,
                %b1: tensor<16xf64> )mlir" P R"mlir(,
                %w2: tensor<16x16x3x3xf64> )mlir" P R"mlir() -> tensor<f64> {
  %s = nnc.constant dense<0.1> : tensor<f64>
  %0 = nnc.mul %x, %s : tensor<2x8x11x11xf64>, tensor<f64>
  %1 = nnc.conv %0, %w1, %b1 pads = [1, 1, 1, 1]
      : tensor<2x8x11x11xf64>, tensor<16x8x3x3xf64>, tensor<16xf64>
  %2 = nnc.mul %1, %s : tensor<2x16x11x11xf64>, tensor<f64>
  %3 = nnc.conv %2, %w2 strides = [2, 2] pads = [1, 1, 1, 1]
      : tensor<2x16x11x11xf64>, tensor<16x16x3x3xf64>
  %4 = nnc.mul %3, %3 : tensor<2x16x6x6xf64>, tensor<2x16x6x6xf64>
  %5 = nnc.reduce sum %4 keepdims = false : tensor<2x16x6x6xf64>
  %6 = nnc.reduce sum %1 keepdims = false : tensor<2x16x11x11xf64>
  %7 = nnc.add %5, %6 : tensor<f64>, tensor<f64>
  return %7 : tensor<f64>
}
)mlir";

TEST_F(AutodiffTest, ConvPerImage) { check(kGemmConvs); }

/// The same without fusion: the whole batch's windows in one GEMM.
TEST_F(AutodiffTest, ConvWholeBatch) {
  options.fuse = false;
  check(kGemmConvs);
}

/// Max pooling whose windows tile the input (the reshape/transpose path),
/// in 2-D with unequal windows and in 1-D.
TEST_F(AutodiffTest, MaxPoolTiled) {
  check(R"mlir(
func.func @main(%x: tensor<2x3x4x6xf64> )mlir" P R"mlir(,
                %v: tensor<2x3x8xf64> )mlir" P R"mlir(,
                %t: tensor<2x3x2x2xf64>) -> tensor<f64> {
  %0 = nnc.max_pool %x kernel_shape = [2, 3] strides = [2, 3]
      : tensor<2x3x4x6xf64>
  %1 = nnc.mul %0, %t : tensor<2x3x2x2xf64>, tensor<2x3x2x2xf64>
  %2 = nnc.reduce sum %1 keepdims = false : tensor<2x3x2x2xf64>
  %3 = nnc.max_pool %v kernel_shape = [4] strides = [4] : tensor<2x3x8xf64>
  %4 = nnc.mul %3, %3 : tensor<2x3x2xf64>, tensor<2x3x2xf64>
  %5 = nnc.reduce sum %4 keepdims = false : tensor<2x3x2xf64>
  %6 = nnc.add %2, %5 : tensor<f64>, tensor<f64>
  return %6 : tensor<f64>
}
)mlir");
}

/// Max pooling with overlapping padded windows and with ceil_mode.
TEST_F(AutodiffTest, MaxPool) {
  check(R"mlir(
func.func @main(%x: tensor<2x2x5x5xf64> )mlir" P R"mlir(,
                %t: tensor<2x2x3x3xf64>) -> tensor<f64> {
  %0 = nnc.max_pool %x kernel_shape = [3, 3] strides = [2, 2]
      pads = [1, 1, 1, 1] : tensor<2x2x5x5xf64>
  %1 = nnc.max_pool %x kernel_shape = [2, 2] strides = [2, 2]
      ceil_mode = true : tensor<2x2x5x5xf64>
  %2 = nnc.mul %0, %t : tensor<2x2x3x3xf64>, tensor<2x2x3x3xf64>
  %3 = nnc.mul %1, %1 : tensor<2x2x3x3xf64>, tensor<2x2x3x3xf64>
  %4 = nnc.add %2, %3 : tensor<2x2x3x3xf64>, tensor<2x2x3x3xf64>
  %5 = nnc.reduce sum %4 keepdims = false : tensor<2x2x3x3xf64>
  return %5 : tensor<f64>
}
)mlir");
}

/// Max pooling with dilations, asymmetric pads and ceil_mode, windows that
/// skip positions (stride 3 > kernel 2), overlapping 1-D windows at stride
/// 1, and 3-D windows (the op nnc.max_pool_grad in every case).
TEST_F(AutodiffTest, MaxPoolWindows) {
  check(R"mlir(
func.func @main(%x: tensor<2x2x5x6xf64> )mlir" P R"mlir(,
                %v: tensor<2x3x8xf64> )mlir" P R"mlir(,
                %u: tensor<1x2x3x4x4xf64> )mlir" P R"mlir(,
                %t: tensor<2x2x3x3xf64>) -> tensor<f64> {
  %0 = nnc.max_pool %x kernel_shape = [2, 2] strides = [2, 2]
      pads = [1, 0, 0, 1] dilations = [2, 1] ceil_mode = true
      : tensor<2x2x5x6xf64>
  %1 = nnc.mul %0, %t : tensor<2x2x3x3xf64>, tensor<2x2x3x3xf64>
  %2 = nnc.reduce sum %1 keepdims = false : tensor<2x2x3x3xf64>
  %3 = nnc.max_pool %v kernel_shape = [2] strides = [3] : tensor<2x3x8xf64>
  %4 = nnc.mul %3, %3 : tensor<2x3x3xf64>, tensor<2x3x3xf64>
  %5 = nnc.reduce sum %4 keepdims = false : tensor<2x3x3xf64>
  %6 = nnc.max_pool %v kernel_shape = [3] pads = [1, 1] : tensor<2x3x8xf64>
  %7 = nnc.mul %6, %6 : tensor<2x3x8xf64>, tensor<2x3x8xf64>
  %8 = nnc.reduce sum %7 keepdims = false : tensor<2x3x8xf64>
  %9 = nnc.max_pool %u kernel_shape = [2, 2, 2] strides = [1, 2, 2]
      pads = [0, 1, 0, 0, 0, 1] : tensor<1x2x3x4x4xf64>
  %10 = nnc.mul %9, %9 : tensor<1x2x2x2x2xf64>, tensor<1x2x2x2x2xf64>
  %11 = nnc.reduce sum %10 keepdims = false : tensor<1x2x2x2x2xf64>
  %12 = nnc.add %2, %5 : tensor<f64>, tensor<f64>
  %13 = nnc.add %8, %11 : tensor<f64>, tensor<f64>
  %14 = nnc.add %12, %13 : tensor<f64>, tensor<f64>
  return %14 : tensor<f64>
}
)mlir");
}

/// Average pooling with and without count_include_pad, with ceil_mode, and
/// global average pooling.
TEST_F(AutodiffTest, AvgPool) {
  check(R"mlir(
func.func @main(%x: tensor<2x2x5x5xf64> )mlir" P R"mlir(,
                %t: tensor<2x2x3x3xf64>) -> tensor<f64> {
  %0 = nnc.avg_pool %x kernel_shape = [3, 3] strides = [2, 2]
      pads = [1, 1, 1, 1] : tensor<2x2x5x5xf64>
  %1 = nnc.avg_pool %x kernel_shape = [2, 2] strides = [2, 2]
      pads = [1, 0, 0, 1] ceil_mode = true count_include_pad = true
      : tensor<2x2x5x5xf64>
  %2 = nnc.global_avg_pool %x : tensor<2x2x5x5xf64>
  %3 = nnc.mul %0, %t : tensor<2x2x3x3xf64>, tensor<2x2x3x3xf64>
  %4 = nnc.mul %1, %1 : tensor<2x2x3x3xf64>, tensor<2x2x3x3xf64>
  %5 = nnc.add %3, %4 : tensor<2x2x3x3xf64>, tensor<2x2x3x3xf64>
  %6 = nnc.mul %5, %2 : tensor<2x2x3x3xf64>, tensor<2x2x1x1xf64>
  %7 = nnc.reduce sum %6 keepdims = false : tensor<2x2x3x3xf64>
  return %7 : tensor<f64>
}
)mlir");
}

/// batch_norm_train with batch statistics; the running statistics are
/// buffers (no gradient) and its other results are unused.
TEST_F(AutodiffTest, BatchNormTrain) {
  check(R"mlir(
func.func @main(%x: tensor<3x2x2x2xf64> )mlir" P R"mlir(,
                %scale: tensor<2xf64> )mlir" P R"mlir(,
                %bias: tensor<2xf64> )mlir" P R"mlir(,
                %rm: tensor<2xf64>, %rv: tensor<2xf64>,
                %t: tensor<3x2x2x2xf64>) -> tensor<f64> {
  %y, %bm, %bv, %nrm, %nrv = nnc.batch_norm_train %x, %scale, %bias, %rm, %rv
      : tensor<3x2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>,
        tensor<2xf64>
  %0 = nnc.mul %y, %t : tensor<3x2x2x2xf64>, tensor<3x2x2x2xf64>
  %1 = nnc.mul %0, %y : tensor<3x2x2x2xf64>, tensor<3x2x2x2xf64>
  %2 = nnc.add %0, %1 : tensor<3x2x2x2xf64>, tensor<3x2x2x2xf64>
  %3 = nnc.reduce sum %2 keepdims = false : tensor<3x2x2x2xf64>
  return %3 : tensor<f64>
}
)mlir");
}

/// layer_norm over the last axis with scale and bias, and over the last two
/// with a broadcast scale and no bias.
TEST_F(AutodiffTest, LayerNorm) {
  check(R"mlir(
func.func @main(%x: tensor<2x3x4xf64> )mlir" P R"mlir(,
                %s1: tensor<4xf64> )mlir" P R"mlir(,
                %b1: tensor<4xf64> )mlir" P R"mlir(,
                %s2: tensor<4xf64> )mlir" P R"mlir(,
                %t: tensor<2x3x4xf64>) -> tensor<f64> {
  %y1, %m1, %r1 = nnc.layer_norm %x scale(%s1 : tensor<4xf64>)
      bias(%b1 : tensor<4xf64>) : tensor<2x3x4xf64>
  %y2, %m2, %r2 = nnc.layer_norm %x scale(%s2 : tensor<4xf64>) axis = 1
      : tensor<2x3x4xf64>
  %0 = nnc.mul %y1, %t : tensor<2x3x4xf64>, tensor<2x3x4xf64>
  %1 = nnc.mul %0, %y2 : tensor<2x3x4xf64>, tensor<2x3x4xf64>
  %2 = nnc.add %0, %1 : tensor<2x3x4xf64>, tensor<2x3x4xf64>
  %3 = nnc.reduce sum %2 keepdims = false : tensor<2x3x4xf64>
  return %3 : tensor<f64>
}
)mlir");
}

/// Activations and other unary ops on (x + 0.0005) * 3.7, which keeps every
/// kink off the grid of test values and reaches the outer pieces of
/// hard_swish and hard_sigmoid; smooth ones on x itself; piecewise constant
/// ones (floor, ceil, round, sign) multiplied by x have the gradient op(x).
TEST_F(AutodiffTest, Activations2) {
  check(R"mlir(
func.func @main(%x: tensor<2x3xf64> )mlir" P R"mlir(,
                %slope: tensor<3xf64> )mlir" P R"mlir(,
                %t: tensor<2x3xf64>) -> tensor<f64> {
  %o = nnc.constant dense<0.0005> : tensor<f64>
  %c = nnc.constant dense<3.7> : tensor<f64>
  %x0 = nnc.add %x, %o : tensor<2x3xf64>, tensor<f64>
  %s = nnc.mul %x0, %c : tensor<2x3xf64>, tensor<f64>
  %a0 = nnc.gelu %s : tensor<2x3xf64>
  %a1 = nnc.gelu %s approximation = tanh : tensor<2x3xf64>
  %a2 = nnc.silu %s : tensor<2x3xf64>
  %a3 = nnc.softplus %s : tensor<2x3xf64>
  %a4 = nnc.leaky_relu %s {alpha = 0.1 : f64} : tensor<2x3xf64>
  %a5 = nnc.elu %s {alpha = 0.7 : f64} : tensor<2x3xf64>
  %a6 = nnc.selu %s : tensor<2x3xf64>
  %a7 = nnc.celu %s {alpha = 1.3 : f64} : tensor<2x3xf64>
  %a8 = nnc.hard_sigmoid %s : tensor<2x3xf64>
  %a9 = nnc.hard_swish %s : tensor<2x3xf64>
  %a10 = nnc.mish %s : tensor<2x3xf64>
  %a11 = nnc.softsign %s : tensor<2x3xf64>
  %a12 = nnc.thresholded_relu %s {alpha = 0.3 : f64} : tensor<2x3xf64>
  %a13 = nnc.clip %s {min = -1.2 : f64, max = 2.1 : f64} : tensor<2x3xf64>
  %a14 = nnc.clip %s {max = 0.9 : f64} : tensor<2x3xf64>
  %a15 = nnc.abs %s : tensor<2x3xf64>
  %a16 = nnc.prelu %s, %slope : tensor<2x3xf64>, tensor<3xf64>
  %f0 = nnc.floor %s : tensor<2x3xf64>
  %f1 = nnc.ceil %s : tensor<2x3xf64>
  %f2 = nnc.round %s : tensor<2x3xf64>
  %f3 = nnc.sign %s : tensor<2x3xf64>
  %b0 = nnc.erf %x : tensor<2x3xf64>
  %b1 = nnc.sin %x : tensor<2x3xf64>
  %b2 = nnc.cos %x : tensor<2x3xf64>
  %b3 = nnc.tan %x : tensor<2x3xf64>
  %b4 = nnc.sinh %x : tensor<2x3xf64>
  %b5 = nnc.cosh %x : tensor<2x3xf64>
  %b6 = nnc.asinh %x : tensor<2x3xf64>
  %b7 = nnc.atan %x : tensor<2x3xf64>
  %r0 = nnc.add %a0, %a1 : tensor<2x3xf64>, tensor<2x3xf64>
  %r1 = nnc.add %r0, %a2 : tensor<2x3xf64>, tensor<2x3xf64>
  %r2 = nnc.add %r1, %a3 : tensor<2x3xf64>, tensor<2x3xf64>
  %r3 = nnc.add %r2, %a4 : tensor<2x3xf64>, tensor<2x3xf64>
  %r4 = nnc.add %r3, %a5 : tensor<2x3xf64>, tensor<2x3xf64>
  %r5 = nnc.add %r4, %a6 : tensor<2x3xf64>, tensor<2x3xf64>
  %r6 = nnc.add %r5, %a7 : tensor<2x3xf64>, tensor<2x3xf64>
  %r7 = nnc.add %r6, %a8 : tensor<2x3xf64>, tensor<2x3xf64>
  %r8 = nnc.add %r7, %a9 : tensor<2x3xf64>, tensor<2x3xf64>
  %r9 = nnc.add %r8, %a10 : tensor<2x3xf64>, tensor<2x3xf64>
  %r10 = nnc.add %r9, %a11 : tensor<2x3xf64>, tensor<2x3xf64>
  %r11 = nnc.add %r10, %a12 : tensor<2x3xf64>, tensor<2x3xf64>
  %r12 = nnc.add %r11, %a13 : tensor<2x3xf64>, tensor<2x3xf64>
  %r13 = nnc.add %r12, %a14 : tensor<2x3xf64>, tensor<2x3xf64>
  %r14 = nnc.add %r13, %a15 : tensor<2x3xf64>, tensor<2x3xf64>
  %r15 = nnc.add %r14, %a16 : tensor<2x3xf64>, tensor<2x3xf64>
  %f4 = nnc.add %f0, %f1 : tensor<2x3xf64>, tensor<2x3xf64>
  %f5 = nnc.add %f4, %f2 : tensor<2x3xf64>, tensor<2x3xf64>
  %f6 = nnc.add %f5, %f3 : tensor<2x3xf64>, tensor<2x3xf64>
  %f7 = nnc.mul %f6, %s : tensor<2x3xf64>, tensor<2x3xf64>
  %r16 = nnc.add %r15, %f7 : tensor<2x3xf64>, tensor<2x3xf64>
  %q0 = nnc.add %b0, %b1 : tensor<2x3xf64>, tensor<2x3xf64>
  %q1 = nnc.add %q0, %b2 : tensor<2x3xf64>, tensor<2x3xf64>
  %q2 = nnc.add %q1, %b3 : tensor<2x3xf64>, tensor<2x3xf64>
  %q3 = nnc.add %q2, %b4 : tensor<2x3xf64>, tensor<2x3xf64>
  %q4 = nnc.add %q3, %b5 : tensor<2x3xf64>, tensor<2x3xf64>
  %q5 = nnc.add %q4, %b6 : tensor<2x3xf64>, tensor<2x3xf64>
  %q6 = nnc.add %q5, %b7 : tensor<2x3xf64>, tensor<2x3xf64>
  %r17 = nnc.add %r16, %q6 : tensor<2x3xf64>, tensor<2x3xf64>
  %r18 = nnc.mul %r17, %t : tensor<2x3xf64>, tensor<2x3xf64>
  %l = nnc.reduce sum %r18 keepdims = false : tensor<2x3xf64>
  return %l : tensor<f64>
}
)mlir");
}

/// Unary ops on positive inputs, pow with both operands trained (the
/// exponent broadcast), and the inverse trigonometric ones on x / 2.
TEST_F(AutodiffTest, PositiveDomainOps) {
  check(R"mlir(
func.func @main(%x: tensor<2x3xf64> )mlir" P R"mlir(,
                %e: tensor<3xf64> )mlir" P R"mlir(,
                %t: tensor<2x3xf64>) -> tensor<f64> {
  %one = nnc.constant dense<1.0> : tensor<f64>
  %half = nnc.constant dense<0.5> : tensor<f64>
  %h = nnc.mul %x, %half : tensor<2x3xf64>, tensor<f64>
  %p = nnc.add %x, %one : tensor<2x3xf64>, tensor<f64>
  %a0 = nnc.reciprocal %x : tensor<2x3xf64>
  %a1 = nnc.rsqrt %x : tensor<2x3xf64>
  %a2 = nnc.pow %x, %e : tensor<2x3xf64>, tensor<3xf64>
  %a3 = nnc.acosh %p : tensor<2x3xf64>
  %a4 = nnc.asin %h : tensor<2x3xf64>
  %a5 = nnc.acos %h : tensor<2x3xf64>
  %a6 = nnc.atanh %h : tensor<2x3xf64>
  %r0 = nnc.add %a0, %a1 : tensor<2x3xf64>, tensor<2x3xf64>
  %r1 = nnc.add %r0, %a2 : tensor<2x3xf64>, tensor<2x3xf64>
  %r2 = nnc.add %r1, %a3 : tensor<2x3xf64>, tensor<2x3xf64>
  %r3 = nnc.add %r2, %a4 : tensor<2x3xf64>, tensor<2x3xf64>
  %r4 = nnc.add %r3, %a5 : tensor<2x3xf64>, tensor<2x3xf64>
  %r5 = nnc.add %r4, %a6 : tensor<2x3xf64>, tensor<2x3xf64>
  %r6 = nnc.mul %r5, %t : tensor<2x3xf64>, tensor<2x3xf64>
  %l = nnc.reduce sum %r6 keepdims = false : tensor<2x3xf64>
  return %l : tensor<f64>
}
)mlir",
        /*positive=*/true);
}

/// Shape ops: each piece squared and summed, so g is not uniform. Slices
/// with negative and non-unit steps, concat, split (one piece unused), pad
/// with a crop, expand, tile, trilu, depth_to_space (DCR and CRD), and
/// gathers with repeated indices (an embedding lookup and one along axis 1)
/// and gather_elements.
TEST_F(AutodiffTest, ShapeOps2) {
  check(R"mlir(
func.func @main(%x: tensor<3x4xf64> )mlir" P R"mlir(,
                %w: tensor<2x4xf64> )mlir" P R"mlir(,
                %b: tensor<1x4xf64> )mlir" P R"mlir(,
                %emb: tensor<5x4xf64> )mlir" P R"mlir(,
                %d: tensor<1x4x2x2xf64> )mlir" P R"mlir(,
                %idx: tensor<2x3xi64>, %i1: tensor<2xi64>,
                %ie: tensor<3x2xi64>) -> tensor<f64> {
  %0 = nnc.slice %x starts = [0, 3] ends = [3, 0] axes = [0, 1] steps = [2, -2] : tensor<3x4xf64>
  %1 = nnc.slice %x starts = [1] ends = [100] axes = [1] : tensor<3x4xf64>
  %2 = nnc.concat %x, %w axis = 0 : tensor<3x4xf64>, tensor<2x4xf64>
  %3:2 = nnc.split %x axis = 1 sizes = [1, 3] : tensor<3x4xf64>
  %4 = nnc.pad %x pads = [1, 0, -1, 2] : tensor<3x4xf64>
  %5 = nnc.expand %b : tensor<1x4xf64> -> tensor<2x3x4xf64>
  %6 = nnc.tile %x repeats = [2, 1] : tensor<3x4xf64>
  %7 = nnc.trilu %x upper = false : tensor<3x4xf64>
  %8 = nnc.gather %emb, %idx : tensor<5x4xf64>, tensor<2x3xi64>
  %9 = nnc.gather %x, %i1 axis = 1 : tensor<3x4xf64>, tensor<2xi64>
  %10 = nnc.gather_elements %x, %ie axis = 1 : tensor<3x4xf64>, tensor<3x2xi64>
  %11 = nnc.depth_to_space %d blocksize = 2 : tensor<1x4x2x2xf64>
  %13 = nnc.depth_to_space %d blocksize = 2 mode = "CRD" : tensor<1x4x2x2xf64>
  %12 = nnc.slice %w starts = [-1, 1] ends = [-3, 4] steps = [-1, 2] : tensor<2x4xf64>
  %s0 = nnc.mul %0, %0 : tensor<2x2xf64>, tensor<2x2xf64>
  %s1 = nnc.mul %1, %1 : tensor<3x3xf64>, tensor<3x3xf64>
  %s2 = nnc.mul %2, %2 : tensor<5x4xf64>, tensor<5x4xf64>
  %s3 = nnc.mul %3#1, %3#1 : tensor<3x3xf64>, tensor<3x3xf64>
  %s4 = nnc.mul %4, %4 : tensor<3x6xf64>, tensor<3x6xf64>
  %s5 = nnc.mul %5, %5 : tensor<2x3x4xf64>, tensor<2x3x4xf64>
  %s6 = nnc.mul %6, %6 : tensor<6x4xf64>, tensor<6x4xf64>
  %s7 = nnc.mul %7, %7 : tensor<3x4xf64>, tensor<3x4xf64>
  %s8 = nnc.mul %8, %8 : tensor<2x3x4xf64>, tensor<2x3x4xf64>
  %s9 = nnc.mul %9, %9 : tensor<3x2xf64>, tensor<3x2xf64>
  %s10 = nnc.mul %10, %10 : tensor<3x2xf64>, tensor<3x2xf64>
  %s11 = nnc.mul %11, %11 : tensor<1x1x4x4xf64>, tensor<1x1x4x4xf64>
  %s12 = nnc.mul %12, %12 : tensor<2x2xf64>, tensor<2x2xf64>
  %s13 = nnc.mul %13, %11 : tensor<1x1x4x4xf64>, tensor<1x1x4x4xf64>
  %r0 = nnc.reduce sum %s0 keepdims = false : tensor<2x2xf64>
  %r1 = nnc.reduce sum %s1 keepdims = false : tensor<3x3xf64>
  %r2 = nnc.reduce sum %s2 keepdims = false : tensor<5x4xf64>
  %r3 = nnc.reduce sum %s3 keepdims = false : tensor<3x3xf64>
  %r4 = nnc.reduce sum %s4 keepdims = false : tensor<3x6xf64>
  %r5 = nnc.reduce sum %s5 keepdims = false : tensor<2x3x4xf64>
  %r6 = nnc.reduce sum %s6 keepdims = false : tensor<6x4xf64>
  %r7 = nnc.reduce sum %s7 keepdims = false : tensor<3x4xf64>
  %r8 = nnc.reduce sum %s8 keepdims = false : tensor<2x3x4xf64>
  %r9 = nnc.reduce sum %s9 keepdims = false : tensor<3x2xf64>
  %r10 = nnc.reduce sum %s10 keepdims = false : tensor<3x2xf64>
  %r11 = nnc.reduce sum %s11 keepdims = false : tensor<1x1x4x4xf64>
  %r12 = nnc.reduce sum %s12 keepdims = false : tensor<2x2xf64>
  %r13 = nnc.reduce sum %s13 keepdims = false : tensor<1x1x4x4xf64>
  %t0 = nnc.add %r0, %r1 : tensor<f64>, tensor<f64>
  %t1 = nnc.add %t0, %r2 : tensor<f64>, tensor<f64>
  %t2 = nnc.add %t1, %r3 : tensor<f64>, tensor<f64>
  %t3 = nnc.add %t2, %r4 : tensor<f64>, tensor<f64>
  %t4 = nnc.add %t3, %r5 : tensor<f64>, tensor<f64>
  %t5 = nnc.add %t4, %r6 : tensor<f64>, tensor<f64>
  %t6 = nnc.add %t5, %r7 : tensor<f64>, tensor<f64>
  %t7 = nnc.add %t6, %r8 : tensor<f64>, tensor<f64>
  %t8 = nnc.add %t7, %r9 : tensor<f64>, tensor<f64>
  %t9 = nnc.add %t8, %r10 : tensor<f64>, tensor<f64>
  %t10 = nnc.add %t9, %r11 : tensor<f64>, tensor<f64>
  %t11 = nnc.add %t10, %r12 : tensor<f64>, tensor<f64>
  %t12 = nnc.add %t11, %r13 : tensor<f64>, tensor<f64>
  return %t12 : tensor<f64>
}
)mlir",
        /*positive=*/false, /*classes=*/3);
}

/// Reductions other than sum and mean (each result squared, so g is not
/// uniform; log_sum of exp(x) to stay positive), a product over a column
/// with a zero in it, global max pooling and cumulative sums.
TEST_F(AutodiffTest, Reductions2) {
  check(R"mlir(
func.func @main(%x: tensor<3x4xf64> )mlir" P R"mlir(,
                %p: tensor<1x2x2x3xf64> )mlir" P R"mlir() -> tensor<f64> {
  %z = nnc.constant dense<0.0> : tensor<1x4xf64>
  %e = nnc.exp %x : tensor<3x4xf64>
  %xz = nnc.concat %x, %z axis = 0 : tensor<3x4xf64>, tensor<1x4xf64>
  %0 = nnc.reduce max %x axes = [1] keepdims = false : tensor<3x4xf64>
  %1 = nnc.reduce min %x axes = [0] : tensor<3x4xf64>
  %2 = nnc.reduce prod %x axes = [1] : tensor<3x4xf64>
  %3 = nnc.reduce sum_square %x axes = [0] keepdims = false : tensor<3x4xf64>
  %4 = nnc.reduce l1 %x axes = [1] keepdims = false : tensor<3x4xf64>
  %5 = nnc.reduce l2 %x axes = [1] keepdims = false : tensor<3x4xf64>
  %6 = nnc.reduce log_sum %e axes = [0] keepdims = false : tensor<3x4xf64>
  %7 = nnc.reduce log_sum_exp %x axes = [1] keepdims = false : tensor<3x4xf64>
  %8 = nnc.reduce prod %xz axes = [0] keepdims = false : tensor<4x4xf64>
  %9 = nnc.global_max_pool %p : tensor<1x2x2x3xf64>
  %10 = nnc.cumsum %x axis = 1 : tensor<3x4xf64>
  %11 = nnc.cumsum %x axis = 0 exclusive = true reverse = true : tensor<3x4xf64>
  %s0 = nnc.mul %0, %0 : tensor<3xf64>, tensor<3xf64>
  %s1 = nnc.mul %1, %1 : tensor<1x4xf64>, tensor<1x4xf64>
  %s2 = nnc.mul %2, %2 : tensor<3x1xf64>, tensor<3x1xf64>
  %s3 = nnc.mul %3, %3 : tensor<4xf64>, tensor<4xf64>
  %s4 = nnc.mul %4, %4 : tensor<3xf64>, tensor<3xf64>
  %s5 = nnc.mul %5, %5 : tensor<3xf64>, tensor<3xf64>
  %s6 = nnc.mul %6, %6 : tensor<4xf64>, tensor<4xf64>
  %s7 = nnc.mul %7, %7 : tensor<3xf64>, tensor<3xf64>
  %s8 = nnc.mul %8, %8 : tensor<4xf64>, tensor<4xf64>
  %s9 = nnc.mul %9, %9 : tensor<1x2x1x1xf64>, tensor<1x2x1x1xf64>
  %s10 = nnc.mul %10, %10 : tensor<3x4xf64>, tensor<3x4xf64>
  %s11 = nnc.mul %11, %10 : tensor<3x4xf64>, tensor<3x4xf64>
  %r0 = nnc.reduce sum %s0 keepdims = false : tensor<3xf64>
  %r1 = nnc.reduce sum %s1 keepdims = false : tensor<1x4xf64>
  %r2 = nnc.reduce sum %s2 keepdims = false : tensor<3x1xf64>
  %r3 = nnc.reduce sum %s3 keepdims = false : tensor<4xf64>
  %r4 = nnc.reduce sum %s4 keepdims = false : tensor<3xf64>
  %r5 = nnc.reduce sum %s5 keepdims = false : tensor<3xf64>
  %r6 = nnc.reduce sum %s6 keepdims = false : tensor<4xf64>
  %r7 = nnc.reduce sum %s7 keepdims = false : tensor<3xf64>
  %r8 = nnc.reduce sum %s8 keepdims = false : tensor<4xf64>
  %r9 = nnc.reduce sum %s9 keepdims = false : tensor<1x2x1x1xf64>
  %r10 = nnc.reduce sum %s10 keepdims = false : tensor<3x4xf64>
  %r11 = nnc.reduce sum %s11 keepdims = false : tensor<3x4xf64>
  %t0 = nnc.add %r0, %r1 : tensor<f64>, tensor<f64>
  %t1 = nnc.add %t0, %r2 : tensor<f64>, tensor<f64>
  %t2 = nnc.add %t1, %r3 : tensor<f64>, tensor<f64>
  %t3 = nnc.add %t2, %r4 : tensor<f64>, tensor<f64>
  %t4 = nnc.add %t3, %r5 : tensor<f64>, tensor<f64>
  %t5 = nnc.add %t4, %r6 : tensor<f64>, tensor<f64>
  %t6 = nnc.add %t5, %r7 : tensor<f64>, tensor<f64>
  %t7 = nnc.add %t6, %r8 : tensor<f64>, tensor<f64>
  %t8 = nnc.add %t7, %r9 : tensor<f64>, tensor<f64>
  %t9 = nnc.add %t8, %r10 : tensor<f64>, tensor<f64>
  %t10 = nnc.add %t9, %r11 : tensor<f64>, tensor<f64>
  return %t10 : tensor<f64>
}
)mlir");
}

/// cross_entropy and nll_loss with class weights, ignore_index (labels in
/// [0, 3), so class 1 or 2 is ignored for some elements), label smoothing
/// with weights, and spatial [N, C, d] inputs; the weighted mean divides by
/// the weights of the elements not ignored. The class weight is trained
/// too.
TEST_F(AutodiffTest, WeightedClassLosses) {
  check(R"mlir(
func.func @main(%x: tensor<4x3xf64> )mlir" P R"mlir(,
                %z: tensor<2x3x2xf64> )mlir" P R"mlir(,
                %y: tensor<4xi64>, %l: tensor<2x2xi64>,
                %w: tensor<3xf64> )mlir" P R"mlir() -> tensor<f64> {
  %0 = nnc.cross_entropy %x, %y weight(%w : tensor<3xf64>) : tensor<4x3xf64>, tensor<4xi64>
  %1 = nnc.cross_entropy %x, %y weight(%w : tensor<3xf64>) ignore_index = 1 : tensor<4x3xf64>, tensor<4xi64>
  %2 = nnc.cross_entropy %x, %y weight(%w : tensor<3xf64>) reduction = sum ignore_index = 2 label_smoothing = 0.2 : tensor<4x3xf64>, tensor<4xi64>
  %3 = nnc.cross_entropy %z, %l weight(%w : tensor<3xf64>) ignore_index = 0 : tensor<2x3x2xf64>, tensor<2x2xi64>
  %4 = nnc.cross_entropy %x, %y ignore_index = 2 label_smoothing = 0.1 : tensor<4x3xf64>, tensor<4xi64>
  %p = nnc.log_softmax %x axis = 1 : tensor<4x3xf64>
  %5 = nnc.nll_loss %p, %y weight(%w : tensor<3xf64>) ignore_index = 1 : tensor<4x3xf64>, tensor<4xi64>
  %6 = nnc.nll_loss %z, %l weight(%w : tensor<3xf64>) reduction = none : tensor<2x3x2xf64>, tensor<2x2xi64>
  %7 = nnc.nll_loss %z, %l : tensor<2x3x2xf64>, tensor<2x2xi64>
  %8 = nnc.mul %6, %6 : tensor<2x2xf64>, tensor<2x2xf64>
  %9 = nnc.reduce sum %8 keepdims = false : tensor<2x2xf64>
  %t0 = nnc.add %0, %1 : tensor<f64>, tensor<f64>
  %t1 = nnc.add %t0, %2 : tensor<f64>, tensor<f64>
  %t2 = nnc.add %t1, %3 : tensor<f64>, tensor<f64>
  %t3 = nnc.add %t2, %4 : tensor<f64>, tensor<f64>
  %t4 = nnc.add %t3, %5 : tensor<f64>, tensor<f64>
  %t5 = nnc.add %t4, %9 : tensor<f64>, tensor<f64>
  %t6 = nnc.add %t5, %7 : tensor<f64>, tensor<f64>
  return %t6 : tensor<f64>
}
)mlir",
        /*positive=*/true, /*classes=*/3);
}

/// Grouped and depthwise convolutions (strides, dilations, pads, a bias),
/// and transposed convolutions, plain and grouped, with output padding.
TEST_F(AutodiffTest, GroupedAndTransposedConv) {
  check(R"mlir(
func.func @main(%x: tensor<2x4x5x5xf64> )mlir" P R"mlir(,
                %w1: tensor<4x2x2x3xf64> )mlir" P R"mlir(,
                %w2: tensor<4x1x3x3xf64> )mlir" P R"mlir(,
                %b2: tensor<4xf64> )mlir" P R"mlir(,
                %u: tensor<1x2x3x3xf64> )mlir" P R"mlir(,
                %w3: tensor<2x3x3x3xf64> )mlir" P R"mlir(,
                %b3: tensor<3xf64> )mlir" P R"mlir(,
                %w4: tensor<4x1x2x2xf64> )mlir" P R"mlir() -> tensor<f64> {
  %0 = nnc.conv %x, %w1 strides = [2, 1] dilations = [1, 2] pads = [1, 0, 0, 1]
      groups = 2 : tensor<2x4x5x5xf64>, tensor<4x2x2x3xf64>
  %1 = nnc.conv %x, %w2, %b2 strides = [2, 2] groups = 4
      : tensor<2x4x5x5xf64>, tensor<4x1x3x3xf64>, tensor<4xf64>
  %2 = nnc.conv_transpose %u, %w3, %b3 strides = [2, 2] pads = [1, 1, 1, 1]
      output_padding = [1, 1] : tensor<1x2x3x3xf64>, tensor<2x3x3x3xf64>, tensor<3xf64>
  %3 = nnc.conv_transpose %x, %w4 strides = [2, 1] dilations = [1, 2]
      pads = [0, 1, 1, 0] output_padding = [1, 1] groups = 2
      : tensor<2x4x5x5xf64>, tensor<4x1x2x2xf64>
  %s0 = nnc.mul %0, %0 : tensor<2x4x3x2xf64>, tensor<2x4x3x2xf64>
  %s1 = nnc.mul %1, %1 : tensor<2x4x2x2xf64>, tensor<2x4x2x2xf64>
  %s2 = nnc.mul %2, %2 : tensor<1x3x6x6xf64>, tensor<1x3x6x6xf64>
  %s3 = nnc.mul %3, %3 : tensor<2x2x10x7xf64>, tensor<2x2x10x7xf64>
  %r0 = nnc.reduce sum %s0 keepdims = false : tensor<2x4x3x2xf64>
  %r1 = nnc.reduce sum %s1 keepdims = false : tensor<2x4x2x2xf64>
  %r2 = nnc.reduce sum %s2 keepdims = false : tensor<1x3x6x6xf64>
  %r3 = nnc.reduce sum %s3 keepdims = false : tensor<2x2x10x7xf64>
  %t0 = nnc.add %r0, %r1 : tensor<f64>, tensor<f64>
  %t1 = nnc.add %t0, %r2 : tensor<f64>, tensor<f64>
  %t2 = nnc.add %t1, %r3 : tensor<f64>, tensor<f64>
  return %t2 : tensor<f64>
}
)mlir");
}

/// batch_norm with frozen statistics (every operand trained, the variance
/// positive), instance_norm and group_norm.
TEST_F(AutodiffTest, OtherNormalizations) {
  check(R"mlir(
func.func @main(%x: tensor<2x4x3xf64> )mlir" P R"mlir(,
                %s: tensor<4xf64> )mlir" P R"mlir(,
                %b: tensor<4xf64> )mlir" P R"mlir(,
                %m: tensor<4xf64> )mlir" P R"mlir(,
                %v: tensor<4xf64> )mlir" P R"mlir(,
                %t: tensor<2x4x3xf64>) -> tensor<f64> {
  %one = nnc.constant dense<1.0> : tensor<f64>
  %vp = nnc.add %v, %one : tensor<4xf64>, tensor<f64>
  %0 = nnc.batch_norm %x, %s, %b, %m, %vp epsilon = 0.01
      : tensor<2x4x3xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
  %1, %m1, %r1 = nnc.instance_norm %x, %s, %b
      : tensor<2x4x3xf64>, tensor<4xf64>, tensor<4xf64>
  %2, %m2, %r2 = nnc.group_norm %x, %s, %b num_groups = 2
      : tensor<2x4x3xf64>, tensor<4xf64>, tensor<4xf64>
  %3 = nnc.mul %0, %t : tensor<2x4x3xf64>, tensor<2x4x3xf64>
  %4 = nnc.mul %1, %3 : tensor<2x4x3xf64>, tensor<2x4x3xf64>
  %5 = nnc.mul %2, %t : tensor<2x4x3xf64>, tensor<2x4x3xf64>
  %6 = nnc.mul %5, %2 : tensor<2x4x3xf64>, tensor<2x4x3xf64>
  %7 = nnc.add %4, %6 : tensor<2x4x3xf64>, tensor<2x4x3xf64>
  %8 = nnc.add %7, %3 : tensor<2x4x3xf64>, tensor<2x4x3xf64>
  %9 = nnc.reduce sum %8 keepdims = false : tensor<2x4x3xf64>
  return %9 : tensor<f64>
}
)mlir");
}

/// matmul with rank-1 operands on either side and both, and dropout in
/// inference mode (the CPU lowering does not draw random numbers, so
/// training dropout is checked by FileCheck only).
TEST_F(AutodiffTest, MatVecAndDropout) {
  check(R"mlir(
func.func @main(%a: tensor<2x3x4xf64> )mlir" P R"mlir(,
                %v: tensor<4xf64> )mlir" P R"mlir(,
                %u: tensor<3xf64> )mlir" P R"mlir(,
                %m: tensor<3x4xf64> )mlir" P R"mlir() -> tensor<f64> {
  %0 = nnc.matmul %a, %v : tensor<2x3x4xf64>, tensor<4xf64>
  %1 = nnc.matmul %u, %m : tensor<3xf64>, tensor<3x4xf64>
  %2 = nnc.matmul %1, %v : tensor<4xf64>, tensor<4xf64>
  %3 = nnc.matmul %u, %a : tensor<3xf64>, tensor<2x3x4xf64>
  %e, %mask = nnc.dropout %0 : tensor<2x3xf64>
  %s0 = nnc.mul %e, %e : tensor<2x3xf64>, tensor<2x3xf64>
  %s1 = nnc.mul %3, %3 : tensor<2x4xf64>, tensor<2x4xf64>
  %r0 = nnc.reduce sum %s0 keepdims = false : tensor<2x3xf64>
  %r1 = nnc.reduce sum %s1 keepdims = false : tensor<2x4xf64>
  %q = nnc.mul %2, %2 : tensor<f64>, tensor<f64>
  %t0 = nnc.add %r0, %r1 : tensor<f64>, tensor<f64>
  %t1 = nnc.add %t0, %q : tensor<f64>, tensor<f64>
  return %t1 : tensor<f64>
}
)mlir");
}

/// Training-mode dropout as --nnc-prepare-training writes it: a mask drawn
/// by nnc.random_uniform from a fixed seed (so the finite differences see
/// the same mask), the kept elements scaled by 1 / (1 - ratio).
TEST_F(AutodiffTest, TrainingDropout) {
  check(R"mlir(
func.func @main(%x: tensor<4x5xf64> )mlir" P R"mlir(,
                %w: tensor<5xf64> )mlir" P R"mlir() -> tensor<f64> {
  %seed = nnc.constant dense<1234567> : tensor<i64>
  %h = nnc.mul %x, %w : tensor<4x5xf64>, tensor<5xf64>
  %u = nnc.random_uniform %seed, %h stream = 0 : tensor<i64>, tensor<4x5xf64>
  %ratio = nnc.constant dense<0.3> : tensor<f64>
  %keep = nnc.cmp ge, %u, %ratio : tensor<4x5xf64>, tensor<f64>
  %inv = nnc.constant dense<1.4285714285714286> : tensor<f64>
  %scaled = nnc.mul %h, %inv : tensor<4x5xf64>, tensor<f64>
  %zero = nnc.constant dense<0.0> : tensor<f64>
  %d = nnc.where %keep, %scaled, %zero : tensor<4x5xi1>, tensor<4x5xf64>, tensor<f64>
  %t = nnc.tanh %d : tensor<4x5xf64>
  %r = nnc.reduce sum %t keepdims = false : tensor<4x5xf64>
  return %r : tensor<f64>
}
)mlir");
}

/// Float rem (fmod) for both operands, with broadcasting, and
/// scatter_elements without a reduction (indices without duplicates) and
/// with add (duplicates).
TEST_F(AutodiffTest, RemAndScatterElements) {
  check(R"mlir(
func.func @main(%x: tensor<3x4xf64> )mlir" P R"mlir(,
                %y: tensor<4xf64> )mlir" P R"mlir(,
                %u1: tensor<1x4xf64> )mlir" P R"mlir(,
                %u2: tensor<2x4xf64> )mlir" P R"mlir(,
                %i1: tensor<1x4xi64>, %i2: tensor<2x4xi64>) -> tensor<f64> {
  %c = nnc.constant dense<3.0> : tensor<f64>
  %x3 = nnc.mul %x, %c : tensor<3x4xf64>, tensor<f64>
  %0 = nnc.rem %x3, %y {fmod = true} : tensor<3x4xf64>, tensor<4xf64>
  %1 = nnc.scatter_elements %x, %i1, %u1 : tensor<3x4xf64>, tensor<1x4xi64>, tensor<1x4xf64>
  %2 = nnc.scatter_elements %x, %i2, %u2 reduction = add : tensor<3x4xf64>, tensor<2x4xi64>, tensor<2x4xf64>
  %3 = nnc.mul %0, %1 : tensor<3x4xf64>, tensor<3x4xf64>
  %4 = nnc.mul %3, %2 : tensor<3x4xf64>, tensor<3x4xf64>
  %5 = nnc.reduce sum %4 keepdims = false : tensor<3x4xf64>
  return %5 : tensor<f64>
}
)mlir",
        /*positive=*/true, /*classes=*/3);
}

/// A one-block character-level GPT: token and position embeddings, layer
/// norms, causal single-head attention (a masked softmax), a GELU MLP with
/// residual connections, and cross-entropy on the next tokens.
TEST_F(AutodiffTest, TinyGpt) {
  check(R"mlir(
func.func @main(%tok: tensor<2x4xi64>, %tgt: tensor<2x4xi64>,
                %emb: tensor<5x4xf64> )mlir" P R"mlir(,
                %pos: tensor<4x4xf64> )mlir" P R"mlir(,
                %s1: tensor<4xf64> )mlir" P R"mlir(,
                %c1: tensor<4xf64> )mlir" P R"mlir(,
                %wq: tensor<4x4xf64> )mlir" P R"mlir(,
                %wk: tensor<4x4xf64> )mlir" P R"mlir(,
                %wv: tensor<4x4xf64> )mlir" P R"mlir(,
                %s2: tensor<4xf64> )mlir" P R"mlir(,
                %w1: tensor<4x8xf64> )mlir" P R"mlir(,
                %b1: tensor<8xf64> )mlir" P R"mlir(,
                %w2: tensor<8x4xf64> )mlir" P R"mlir(,
                %wo: tensor<4x5xf64> )mlir" P R"mlir() -> tensor<f64> {
  %e = nnc.gather %emb, %tok : tensor<5x4xf64>, tensor<2x4xi64>
  %h = nnc.add %e, %pos : tensor<2x4x4xf64>, tensor<4x4xf64>
  %n1, %m1, %r1 = nnc.layer_norm %h scale(%s1 : tensor<4xf64>)
      bias(%c1 : tensor<4xf64>) : tensor<2x4x4xf64>
  %q = nnc.matmul %n1, %wq : tensor<2x4x4xf64>, tensor<4x4xf64>
  %k = nnc.matmul %n1, %wk : tensor<2x4x4xf64>, tensor<4x4xf64>
  %v = nnc.matmul %n1, %wv : tensor<2x4x4xf64>, tensor<4x4xf64>
  %kt = nnc.transpose %k perm = [0, 2, 1] : tensor<2x4x4xf64>
  %a0 = nnc.matmul %q, %kt : tensor<2x4x4xf64>, tensor<2x4x4xf64>
  %half = nnc.constant dense<0.5> : tensor<f64>
  %a1 = nnc.mul %a0, %half : tensor<2x4x4xf64>, tensor<f64>
  %ones = nnc.constant dense<1.0> : tensor<4x4xf64>
  %tri = nnc.trilu %ones upper = false : tensor<4x4xf64>
  %zero = nnc.constant dense<0.0> : tensor<f64>
  %mask = nnc.cmp gt, %tri, %zero : tensor<4x4xf64>, tensor<f64>
  %ninf = nnc.constant dense<-1.0e9> : tensor<f64>
  %a2 = nnc.where %mask, %a1, %ninf : tensor<4x4xi1>, tensor<2x4x4xf64>, tensor<f64>
  %p = nnc.softmax %a2 : tensor<2x4x4xf64>
  %o = nnc.matmul %p, %v : tensor<2x4x4xf64>, tensor<2x4x4xf64>
  %h2 = nnc.add %h, %o : tensor<2x4x4xf64>, tensor<2x4x4xf64>
  %n2, %m2, %r2 = nnc.layer_norm %h2 scale(%s2 : tensor<4xf64>) : tensor<2x4x4xf64>
  %f0 = nnc.matmul %n2, %w1 : tensor<2x4x4xf64>, tensor<4x8xf64>
  %f1 = nnc.add %f0, %b1 : tensor<2x4x8xf64>, tensor<8xf64>
  %f2 = nnc.gelu %f1 approximation = tanh : tensor<2x4x8xf64>
  %f3 = nnc.matmul %f2, %w2 : tensor<2x4x8xf64>, tensor<8x4xf64>
  %h3 = nnc.add %h2, %f3 : tensor<2x4x4xf64>, tensor<2x4x4xf64>
  %lg = nnc.matmul %h3, %wo : tensor<2x4x4xf64>, tensor<4x5xf64>
  %l2 = nnc.reshape %lg : tensor<2x4x5xf64> -> tensor<8x5xf64>
  %t2 = nnc.reshape %tgt : tensor<2x4xi64> -> tensor<8xi64>
  %loss = nnc.cross_entropy %l2, %t2 : tensor<8x5xf64>, tensor<8xi64>
  return %loss : tensor<f64>
}
)mlir",
        /*positive=*/false, /*classes=*/5);
}

/// The same GPT block with a dynamic batch dimension, compiled for batch 2:
/// the embedding gradient, layer norms and the mean cross-entropy count at
/// run time.
TEST_F(AutodiffTest, TinyGptDynamicBatch) {
  check(R"mlir(
func.func @main(%tok: tensor<?x4xi64>, %tgt: tensor<?x4xi64>,
                %emb: tensor<5x4xf64> )mlir" P R"mlir(,
                %pos: tensor<4x4xf64> )mlir" P R"mlir(,
                %s1: tensor<4xf64> )mlir" P R"mlir(,
                %c1: tensor<4xf64> )mlir" P R"mlir(,
                %wq: tensor<4x4xf64> )mlir" P R"mlir(,
                %wk: tensor<4x4xf64> )mlir" P R"mlir(,
                %wv: tensor<4x4xf64> )mlir" P R"mlir(,
                %s2: tensor<4xf64> )mlir" P R"mlir(,
                %w1: tensor<4x8xf64> )mlir" P R"mlir(,
                %b1: tensor<8xf64> )mlir" P R"mlir(,
                %w2: tensor<8x4xf64> )mlir" P R"mlir(,
                %wo: tensor<4x5xf64> )mlir" P R"mlir() -> tensor<f64> {
  %e = nnc.gather %emb, %tok : tensor<5x4xf64>, tensor<?x4xi64>
  %h = nnc.add %e, %pos : tensor<?x4x4xf64>, tensor<4x4xf64>
  %n1, %m1, %r1 = nnc.layer_norm %h scale(%s1 : tensor<4xf64>)
      bias(%c1 : tensor<4xf64>) : tensor<?x4x4xf64>
  %q = nnc.matmul %n1, %wq : tensor<?x4x4xf64>, tensor<4x4xf64>
  %k = nnc.matmul %n1, %wk : tensor<?x4x4xf64>, tensor<4x4xf64>
  %v = nnc.matmul %n1, %wv : tensor<?x4x4xf64>, tensor<4x4xf64>
  %kt = nnc.transpose %k perm = [0, 2, 1] : tensor<?x4x4xf64>
  %a0 = nnc.matmul %q, %kt : tensor<?x4x4xf64>, tensor<?x4x4xf64>
  %half = nnc.constant dense<0.5> : tensor<f64>
  %a1 = nnc.mul %a0, %half : tensor<?x4x4xf64>, tensor<f64>
  %ones = nnc.constant dense<1.0> : tensor<4x4xf64>
  %tri = nnc.trilu %ones upper = false : tensor<4x4xf64>
  %zero = nnc.constant dense<0.0> : tensor<f64>
  %mask = nnc.cmp gt, %tri, %zero : tensor<4x4xf64>, tensor<f64>
  %ninf = nnc.constant dense<-1.0e9> : tensor<f64>
  %a2 = nnc.where %mask, %a1, %ninf : tensor<4x4xi1>, tensor<?x4x4xf64>, tensor<f64>
  %p = nnc.softmax %a2 : tensor<?x4x4xf64>
  %o = nnc.matmul %p, %v : tensor<?x4x4xf64>, tensor<?x4x4xf64>
  %h2 = nnc.add %h, %o : tensor<?x4x4xf64>, tensor<?x4x4xf64>
  %n2, %m2, %r2 = nnc.layer_norm %h2 scale(%s2 : tensor<4xf64>) : tensor<?x4x4xf64>
  %f0 = nnc.matmul %n2, %w1 : tensor<?x4x4xf64>, tensor<4x8xf64>
  %f1 = nnc.add %f0, %b1 : tensor<?x4x8xf64>, tensor<8xf64>
  %f2 = nnc.gelu %f1 approximation = tanh : tensor<?x4x8xf64>
  %f3 = nnc.matmul %f2, %w2 : tensor<?x4x8xf64>, tensor<8x4xf64>
  %h3 = nnc.add %h2, %f3 : tensor<?x4x4xf64>, tensor<?x4x4xf64>
  %lg = nnc.matmul %h3, %wo : tensor<?x4x4xf64>, tensor<4x5xf64>
  %l2 = nnc.reshape %lg : tensor<?x4x5xf64> -> tensor<?x5xf64>
  %t2 = nnc.reshape %tgt : tensor<?x4xi64> -> tensor<?xi64>
  %loss = nnc.cross_entropy %l2, %t2 : tensor<?x5xf64>, tensor<?xi64>
  return %loss : tensor<f64>
}
)mlir",
        /*positive=*/false, /*classes=*/5,
        {{2, 4},
         {2, 4},
         {5, 4},
         {4, 4},
         {4},
         {4},
         {4, 4},
         {4, 4},
         {4, 4},
         {4},
         {4, 8},
         {8},
         {8, 4},
         {4, 5}});
}

/// A small mobile-style CNN: conv, batch_norm_train, relu6 (clip), a
/// depthwise conv with bias, silu, global max pooling, gemm and
/// cross-entropy with a class weight.
TEST_F(AutodiffTest, DepthwiseCnn) {
  check(R"mlir(
func.func @main(%x: tensor<2x2x5x5xf64>, %labels: tensor<2xi64>,
                %w: tensor<4x2x3x3xf64> )mlir" P R"mlir(,
                %s: tensor<4xf64> )mlir" P R"mlir(,
                %t: tensor<4xf64> )mlir" P R"mlir(,
                %rm: tensor<4xf64>, %rv: tensor<4xf64>,
                %dw: tensor<4x1x3x3xf64> )mlir" P R"mlir(,
                %db: tensor<4xf64> )mlir" P R"mlir(,
                %fw: tensor<4x3xf64> )mlir" P R"mlir(,
                %cw: tensor<3xf64>) -> tensor<f64> {
  %0 = nnc.conv %x, %w pads = [1, 1, 1, 1] : tensor<2x2x5x5xf64>, tensor<4x2x3x3xf64>
  %y, %bm, %bv, %nrm, %nrv = nnc.batch_norm_train %0, %s, %t, %rm, %rv
      : tensor<2x4x5x5xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>,
        tensor<4xf64>
  %1 = nnc.clip %y {min = 0.0 : f64, max = 6.0 : f64} : tensor<2x4x5x5xf64>
  %2 = nnc.conv %1, %dw, %db strides = [2, 2] groups = 4
      : tensor<2x4x5x5xf64>, tensor<4x1x3x3xf64>, tensor<4xf64>
  %3 = nnc.silu %2 : tensor<2x4x2x2xf64>
  %4 = nnc.global_max_pool %3 : tensor<2x4x2x2xf64>
  %5 = nnc.flatten %4 : tensor<2x4x1x1xf64>
  %6 = nnc.gemm %5, %fw : tensor<2x4xf64>, tensor<4x3xf64>
  %7 = nnc.cross_entropy %6, %labels weight(%cw : tensor<3xf64>)
      : tensor<2x3xf64>, tensor<2xi64>
  return %7 : tensor<f64>
}
)mlir",
        /*positive=*/false, /*classes=*/3);
}

/// The depthwise CNN with a dynamic batch, compiled for batch 2.
TEST_F(AutodiffTest, DepthwiseCnnDynamicBatch) {
  check(R"mlir(
func.func @main(%x: tensor<?x2x5x5xf64>, %labels: tensor<?xi64>,
                %w: tensor<4x2x3x3xf64> )mlir" P R"mlir(,
                %s: tensor<4xf64> )mlir" P R"mlir(,
                %t: tensor<4xf64> )mlir" P R"mlir(,
                %rm: tensor<4xf64>, %rv: tensor<4xf64>,
                %dw: tensor<4x1x3x3xf64> )mlir" P R"mlir(,
                %db: tensor<4xf64> )mlir" P R"mlir(,
                %fw: tensor<4x3xf64> )mlir" P R"mlir(,
                %cw: tensor<3xf64>) -> tensor<f64> {
  %0 = nnc.conv %x, %w pads = [1, 1, 1, 1] : tensor<?x2x5x5xf64>, tensor<4x2x3x3xf64>
  %y, %bm, %bv, %nrm, %nrv = nnc.batch_norm_train %0, %s, %t, %rm, %rv
      : tensor<?x4x5x5xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>,
        tensor<4xf64>
  %1 = nnc.clip %y {min = 0.0 : f64, max = 6.0 : f64} : tensor<?x4x5x5xf64>
  %2 = nnc.conv %1, %dw, %db strides = [2, 2] groups = 4
      : tensor<?x4x5x5xf64>, tensor<4x1x3x3xf64>, tensor<4xf64>
  %3 = nnc.silu %2 : tensor<?x4x2x2xf64>
  %4 = nnc.global_max_pool %3 : tensor<?x4x2x2xf64>
  %5 = nnc.flatten %4 : tensor<?x4x1x1xf64>
  %6 = nnc.gemm %5, %fw : tensor<?x4xf64>, tensor<4x3xf64>
  %7 = nnc.cross_entropy %6, %labels weight(%cw : tensor<3xf64>)
      : tensor<?x3xf64>, tensor<?xi64>
  return %7 : tensor<f64>
}
)mlir",
        /*positive=*/false, /*classes=*/3,
        {{2, 2, 5, 5},
         {2},
         {4, 2, 3, 3},
         {4},
         {4},
         {4},
         {4},
         {4, 1, 3, 3},
         {4},
         {4, 3},
         {3}});
}

/// scatter_nd replacing whole rows (k = 1, labels in [0, 2) into 4 rows of
/// which two are never written) and adding elements (k = 2, duplicates).
TEST_F(AutodiffTest, ScatterNd) {
  check(R"mlir(
func.func @main(%x: tensor<4x3xf64> )mlir" P R"mlir(,
                %u1: tensor<1x3xf64> )mlir" P R"mlir(,
                %u2: tensor<3xf64> )mlir" P R"mlir(,
                %i1: tensor<1x1xi64>, %i2: tensor<3x2xi64>) -> tensor<f64> {
  %0 = nnc.scatter_nd %x, %i1, %u1 : tensor<4x3xf64>, tensor<1x1xi64>, tensor<1x3xf64>
  %1 = nnc.scatter_nd %x, %i2, %u2 reduction = add : tensor<4x3xf64>, tensor<3x2xi64>, tensor<3xf64>
  %2 = nnc.mul %0, %1 : tensor<4x3xf64>, tensor<4x3xf64>
  %3 = nnc.mul %2, %1 : tensor<4x3xf64>, tensor<4x3xf64>
  %4 = nnc.reduce sum %3 keepdims = false : tensor<4x3xf64>
  return %4 : tensor<f64>
}
)mlir",
        /*positive=*/false, /*classes=*/2);
}

/// pad in reflect, edge and wrap mode along both axes.
TEST_F(AutodiffTest, PadModes) {
  check(R"mlir(
func.func @main(%x: tensor<3x4xf64> )mlir" P R"mlir() -> tensor<f64> {
  %0 = nnc.pad %x pads = [1, 2, 2, 1] mode = reflect : tensor<3x4xf64>
  %1 = nnc.pad %x pads = [2, 0, 1, 3] mode = edge : tensor<3x4xf64>
  %2 = nnc.pad %x pads = [1, 3, 2, 2] mode = wrap : tensor<3x4xf64>
  %s0 = nnc.mul %0, %0 : tensor<6x7xf64>, tensor<6x7xf64>
  %s1 = nnc.mul %1, %1 : tensor<6x7xf64>, tensor<6x7xf64>
  %s2 = nnc.mul %2, %2 : tensor<6x9xf64>, tensor<6x9xf64>
  %s3 = nnc.mul %s0, %1 : tensor<6x7xf64>, tensor<6x7xf64>
  %r0 = nnc.reduce sum %s3 keepdims = false : tensor<6x7xf64>
  %r1 = nnc.reduce sum %s1 keepdims = false : tensor<6x7xf64>
  %r2 = nnc.reduce sum %s2 keepdims = false : tensor<6x9xf64>
  %t0 = nnc.add %r0, %r1 : tensor<f64>, tensor<f64>
  %t1 = nnc.add %t0, %r2 : tensor<f64>, tensor<f64>
  return %t1 : tensor<f64>
}
)mlir");
}

/// Gradients through the statistics results of the normalizations:
/// batch_norm_train's batch and updated running statistics (unbiased
/// running variance), layer_norm's, instance_norm's and group_norm's mean
/// and inv_std, each also through the normalized output.
TEST_F(AutodiffTest, NormalizationStatistics) {
  check(R"mlir(
func.func @main(%x: tensor<3x2x2xf64> )mlir" P R"mlir(,
                %s: tensor<2xf64> )mlir" P R"mlir(,
                %b: tensor<2xf64> )mlir" P R"mlir(,
                %rm: tensor<2xf64>, %rv: tensor<2xf64>,
                %t: tensor<3x2x2xf64>) -> tensor<f64> {
  %y, %bm, %bv, %nrm, %nrv = nnc.batch_norm_train %x, %s, %b, %rm, %rv
      momentum = 0.8 : tensor<3x2x2xf64>, tensor<2xf64>, tensor<2xf64>,
        tensor<2xf64>, tensor<2xf64>
  %y1, %m1, %r1 = nnc.layer_norm %x : tensor<3x2x2xf64>
  %y2, %m2, %r2 = nnc.instance_norm %x, %s, %b
      : tensor<3x2x2xf64>, tensor<2xf64>, tensor<2xf64>
  %y3, %m3, %r3 = nnc.group_norm %x, %s, %b num_groups = 1
      : tensor<3x2x2xf64>, tensor<2xf64>, tensor<2xf64>
  %0 = nnc.mul %y, %t : tensor<3x2x2xf64>, tensor<3x2x2xf64>
  %1 = nnc.mul %bm, %bv : tensor<2xf64>, tensor<2xf64>
  %2 = nnc.mul %nrm, %nrv : tensor<2xf64>, tensor<2xf64>
  %3 = nnc.mul %m1, %r1 : tensor<3x2x1xf64>, tensor<3x2x1xf64>
  %4 = nnc.mul %m2, %r2 : tensor<3x2x1xf64>, tensor<3x2x1xf64>
  %5 = nnc.mul %m3, %r3 : tensor<3x1xf64>, tensor<3x1xf64>
  %6 = nnc.mul %y3, %t : tensor<3x2x2xf64>, tensor<3x2x2xf64>
  %r0 = nnc.reduce sum %0 keepdims = false : tensor<3x2x2xf64>
  %q1 = nnc.reduce sum %1 keepdims = false : tensor<2xf64>
  %q2 = nnc.reduce sum %2 keepdims = false : tensor<2xf64>
  %q3 = nnc.reduce sum %3 keepdims = false : tensor<3x2x1xf64>
  %q4 = nnc.reduce sum %4 keepdims = false : tensor<3x2x1xf64>
  %q5 = nnc.reduce sum %5 keepdims = false : tensor<3x1xf64>
  %q6 = nnc.reduce sum %6 keepdims = false : tensor<3x2x2xf64>
  %a0 = nnc.add %r0, %q1 : tensor<f64>, tensor<f64>
  %a1 = nnc.add %a0, %q2 : tensor<f64>, tensor<f64>
  %a2 = nnc.add %a1, %q3 : tensor<f64>, tensor<f64>
  %a3 = nnc.add %a2, %q4 : tensor<f64>, tensor<f64>
  %a4 = nnc.add %a3, %q5 : tensor<f64>, tensor<f64>
  %a5 = nnc.add %a4, %q6 : tensor<f64>, tensor<f64>
  return %a5 : tensor<f64>
}
)mlir");
}

/// Reductions over dynamic dimensions (shapes given at compile time):
/// g is broadcast back by multiplying with ones of the input's shape, and
/// mean divides by a count computed at run time.
TEST_F(AutodiffTest, DynamicReductions) {
  check(R"mlir(
func.func @main(%x: tensor<?x3xf64> )mlir" P R"mlir() -> tensor<f64> {
  %0 = nnc.mul %x, %x : tensor<?x3xf64>, tensor<?x3xf64>
  %1 = nnc.reduce mean %0 axes = [0] keepdims = false : tensor<?x3xf64>
  %2 = nnc.reduce max %x axes = [0] : tensor<?x3xf64>
  %3 = nnc.mul %1, %2 : tensor<3xf64>, tensor<1x3xf64>
  %4 = nnc.mul %3, %1 : tensor<1x3xf64>, tensor<3xf64>
  %5 = nnc.reduce sum %4 keepdims = false : tensor<1x3xf64>
  %6 = nnc.reduce sum %0 keepdims = false : tensor<?x3xf64>
  %7 = nnc.add %5, %6 : tensor<f64>, tensor<f64>
  return %7 : tensor<f64>
}
)mlir",
        /*positive=*/false, /*classes=*/1, {{4, 3}});
}

/// mse_loss (mean), instance_norm and group_norm with a dynamic batch,
/// compiled for batch 2.
TEST_F(AutodiffTest, DynamicBatchNormsAndMse) {
  check(R"mlir(
func.func @main(%x: tensor<?x4x3xf64> )mlir" P R"mlir(,
                %s: tensor<4xf64> )mlir" P R"mlir(,
                %b: tensor<4xf64> )mlir" P R"mlir(,
                %t: tensor<?x4x3xf64>) -> tensor<f64> {
  %0, %m0, %r0 = nnc.instance_norm %x, %s, %b
      : tensor<?x4x3xf64>, tensor<4xf64>, tensor<4xf64>
  %1, %m1, %r1 = nnc.group_norm %0, %s, %b num_groups = 2
      : tensor<?x4x3xf64>, tensor<4xf64>, tensor<4xf64>
  %2 = nnc.mse_loss %1, %t : tensor<?x4x3xf64>, tensor<?x4x3xf64>
  return %2 : tensor<f64>
}
)mlir",
        /*positive=*/false, /*classes=*/1, {{2, 4, 3}, {4}, {4}, {2, 4, 3}});
}

/// Slices along static dimensions and a split with an unused piece, with a
/// dynamic batch compiled for batch 2.
TEST_F(AutodiffTest, DynamicBatchSliceAndSplit) {
  check(R"mlir(
func.func @main(%x: tensor<?x4x3xf64> )mlir" P R"mlir() -> tensor<f64> {
  %0 = nnc.slice %x starts = [0, 2] ends = [4, -4] axes = [1, 2] steps = [2, -1] : tensor<?x4x3xf64>
  %1:2 = nnc.split %x axis = 1 sizes = [1, 3] : tensor<?x4x3xf64>
  %2 = nnc.mul %0, %0 : tensor<?x2x3xf64>, tensor<?x2x3xf64>
  %3 = nnc.mul %1#1, %1#1 : tensor<?x3x3xf64>, tensor<?x3x3xf64>
  %4 = nnc.reduce sum %2 keepdims = false : tensor<?x2x3xf64>
  %5 = nnc.reduce sum %3 keepdims = false : tensor<?x3x3xf64>
  %6 = nnc.add %4, %5 : tensor<f64>, tensor<f64>
  return %6 : tensor<f64>
}
)mlir",
        /*positive=*/false, /*classes=*/1, {{2, 4, 3}});
}

/// A small CNN classifier: conv, batch_norm_train, relu, max_pool,
/// avg_pool, flatten, gemm and cross-entropy, every parameter trained.
TEST_F(AutodiffTest, CnnWithCrossEntropy) {
  check(R"mlir(
func.func @main(%x: tensor<2x1x6x6xf64>, %labels: tensor<2xi64>,
                %w: tensor<3x1x3x3xf64> )mlir" P R"mlir(,
                %b: tensor<3xf64> )mlir" P R"mlir(,
                %s: tensor<3xf64> )mlir" P R"mlir(,
                %t: tensor<3xf64> )mlir" P R"mlir(,
                %rm: tensor<3xf64>, %rv: tensor<3xf64>,
                %fw: tensor<3x4xf64> )mlir" P R"mlir(,
                %fb: tensor<4xf64> )mlir" P R"mlir() -> tensor<f64> {
  %0 = nnc.conv %x, %w, %b pads = [1, 1, 1, 1]
      : tensor<2x1x6x6xf64>, tensor<3x1x3x3xf64>, tensor<3xf64>
  %y, %bm, %bv, %nrm, %nrv = nnc.batch_norm_train %0, %s, %t, %rm, %rv
      : tensor<2x3x6x6xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>,
        tensor<3xf64>
  %1 = nnc.relu %y : tensor<2x3x6x6xf64>
  %2 = nnc.max_pool %1 kernel_shape = [2, 2] strides = [2, 2]
      : tensor<2x3x6x6xf64>
  %3 = nnc.global_avg_pool %2 : tensor<2x3x3x3xf64>
  %4 = nnc.flatten %3 : tensor<2x3x1x1xf64>
  %5 = nnc.gemm %4, %fw, %fb : tensor<2x3xf64>, tensor<3x4xf64>, tensor<4xf64>
  %6 = nnc.cross_entropy %5, %labels : tensor<2x4xf64>, tensor<2xi64>
  return %6 : tensor<f64>
}
)mlir",
        /*positive=*/false, /*classes=*/4);
}

/// The same CNN with a dynamic batch, compiled for batch 2: batch_norm_train
/// counts its elements at run time.
TEST_F(AutodiffTest, CnnDynamicBatch) {
  check(
      R"mlir(
func.func @main(%x: tensor<?x1x6x6xf64>, %labels: tensor<?xi64>,
                %w: tensor<3x1x3x3xf64> )mlir" P R"mlir(,
                %b: tensor<3xf64> )mlir" P R"mlir(,
                %s: tensor<3xf64> )mlir" P R"mlir(,
                %t: tensor<3xf64> )mlir" P R"mlir(,
                %rm: tensor<3xf64>, %rv: tensor<3xf64>,
                %fw: tensor<3x4xf64> )mlir" P R"mlir(,
                %fb: tensor<4xf64> )mlir" P R"mlir() -> tensor<f64> {
  %0 = nnc.conv %x, %w, %b pads = [1, 1, 1, 1]
      : tensor<?x1x6x6xf64>, tensor<3x1x3x3xf64>, tensor<3xf64>
  %y, %bm, %bv, %nrm, %nrv = nnc.batch_norm_train %0, %s, %t, %rm, %rv
      : tensor<?x3x6x6xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>,
        tensor<3xf64>
  %1 = nnc.relu %y : tensor<?x3x6x6xf64>
  %2 = nnc.max_pool %1 kernel_shape = [2, 2] strides = [2, 2]
      : tensor<?x3x6x6xf64>
  %3 = nnc.global_avg_pool %2 : tensor<?x3x3x3xf64>
  %4 = nnc.flatten %3 : tensor<?x3x1x1xf64>
  %5 = nnc.gemm %4, %fw, %fb : tensor<?x3xf64>, tensor<3x4xf64>, tensor<4xf64>
  %6 = nnc.cross_entropy %5, %labels : tensor<?x4xf64>, tensor<?xi64>
  return %6 : tensor<f64>
}
)mlir",
      /*positive=*/false, /*classes=*/4,
      {{2, 1, 6, 6}, {2}, {3, 1, 3, 3}, {3}, {3}, {3}, {3}, {3}, {3, 4}, {4}});
}

/// A two-layer MLP with cross-entropy; the input and labels get no gradient,
/// a frozen weight neither, and the extra result is dropped.
TEST_F(AutodiffTest, MlpWithCrossEntropy) {
  check(R"mlir(
func.func @main(%x: tensor<6x4xf64>, %labels: tensor<6xi64>,
                %w1: tensor<4x5xf64> )mlir" P R"mlir(,
                %b1: tensor<5xf64> )mlir" P R"mlir(,
                %w2: tensor<5x3xf64> )mlir" P R"mlir(,
                %b2: tensor<3xf64> )mlir" P R"mlir(,
                %f: tensor<3xf64> {nnc.param = #nnc.param<frozen>})
    -> (tensor<f64>, tensor<6x3xf64>) {
  %0 = nnc.gemm %x, %w1, %b1 : tensor<6x4xf64>, tensor<4x5xf64>, tensor<5xf64>
  %1 = nnc.tanh %0 : tensor<6x5xf64>
  %2 = nnc.matmul %1, %w2 : tensor<6x5xf64>, tensor<5x3xf64>
  %3 = nnc.add %2, %b2 : tensor<6x3xf64>, tensor<3xf64>
  %4 = nnc.mul %3, %f : tensor<6x3xf64>, tensor<3xf64>
  %5 = nnc.cross_entropy %4, %labels : tensor<6x3xf64>, tensor<6xi64>
  return %5, %4 : tensor<f64>, tensor<6x3xf64>
}
)mlir",
        /*positive=*/false, /*classes=*/3);
}

} // namespace
