//===- OptimizerTest.cpp - training steps against PyTorch's update rules --===//
//
// Builds `main_step` with --nnc-autodiff and --nnc-optimizer for an f64
// least-squares problem, compiles it for the host CPU, runs 10 steps feeding
// parameters and state back in, and compares every step with a plain C++
// transcription of PyTorch's SGD, Adam and AdamW updates.
//
//===----------------------------------------------------------------------===//

#include "nnc/Compiler/Compiler.h"
#include "nnc/InitAll.h"
#include "nnc/Transforms/Passes.h"
#include "nnc/runtime/Program.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace mlir;
namespace rt = nnc::runtime;

namespace {

constexpr int64_t kRows = 8, kFeatures = 3;

// loss = mean((x w + b - y)^2); w and b are trainable.
const char *kModel = R"mlir(
func.func @main(%x: tensor<8x3xf64>, %y: tensor<8x1xf64>,
                %w: tensor<3x1xf64> {nnc.param = #nnc.param<trainable>},
                %b: tensor<1xf64> {nnc.param = #nnc.param<trainable>})
    -> tensor<f64> {
  %0 = nnc.matmul %x, %w : tensor<8x3xf64>, tensor<3x1xf64>
  %1 = nnc.add %0, %b : tensor<8x1xf64>, tensor<1xf64>
  %2 = nnc.mse_loss %1, %y : tensor<8x1xf64>, tensor<8x1xf64>
  return %2 : tensor<f64>
}
)mlir";

struct Options {
  std::string kind = "sgd";
  double momentum = 0, weightDecay = 0;
  bool nesterov = false;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;

  std::string pipeline() const {
    std::string s = "kind=" + kind;
    s += " momentum=" + std::to_string(momentum);
    s += " weight-decay=" + std::to_string(weightDecay);
    s += std::string(" nesterov=") + (nesterov ? "true" : "false");
    s += " beta1=" + std::to_string(beta1);
    s += " beta2=" + std::to_string(beta2);
    s += " epsilon=1e-8";
    return s;
  }
};

/// PyTorch's optimizers (torch/optim/{sgd,adam,adamw}.py, single-tensor,
/// dampening 0), on the flattened parameters.
struct Reference {
  Options o;
  std::vector<double> p, buf, m, v;
  double t = 0;

  void step(const std::vector<double> &gradIn, double lr) {
    std::vector<double> g = gradIn;
    size_t n = p.size();
    if (o.kind == "sgd") {
      for (size_t i = 0; i < n; ++i) {
        if (o.weightDecay != 0)
          g[i] = g[i] + o.weightDecay * p[i];
        if (o.momentum != 0) {
          buf[i] = o.momentum * buf[i] + g[i];
          g[i] = o.nesterov ? g[i] + o.momentum * buf[i] : buf[i];
        }
        p[i] = p[i] - lr * g[i];
      }
      return;
    }
    t += 1;
    double stepSize = lr / (1 - std::pow(o.beta1, t));
    double correction2Sqrt = std::sqrt(1 - std::pow(o.beta2, t));
    for (size_t i = 0; i < n; ++i) {
      if (o.weightDecay != 0) {
        if (o.kind == "adam")
          g[i] = g[i] + o.weightDecay * p[i];
        else
          p[i] = p[i] * (1 - lr * o.weightDecay);
      }
      m[i] = o.beta1 * m[i] + (1 - o.beta1) * g[i];
      v[i] = o.beta2 * v[i] + (1 - o.beta2) * (g[i] * g[i]);
      double denom = std::sqrt(v[i]) / correction2Sqrt + o.epsilon;
      p[i] = p[i] - stepSize * (m[i] / denom);
    }
  }
};

class OptimizerTest : public ::testing::Test {
protected:
  OptimizerTest() {
    DialectRegistry registry;
    nnc::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    nnc::registerAllPasses();
  }

  std::unique_ptr<rt::Program> compileStep(const Options &options) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(kModel, &context);
    EXPECT_TRUE(module);
    if (!module)
      return nullptr;
    PassManager pm(&context);
    std::string pipeline =
        "nnc-autodiff,nnc-optimizer{" + options.pipeline() + "}";
    EXPECT_TRUE(succeeded(parsePassPipeline(pipeline, pm))) << pipeline;
    EXPECT_TRUE(succeeded(pm.run(*module)));
    nnc::CompileResult result =
        nnc::compile(*module, "main_step", {}, nnc::CompileOptions());
    EXPECT_EQ(result.failure, nnc::CompileFailure::None);
    if (result.failure != nnc::CompileFailure::None)
      return nullptr;
    rt::ExecutableReader reader;
    EXPECT_TRUE(rt::ExecutableReader::fromBytes(
                    result.executable.data(), result.executable.size(), reader)
                    .isOk());
    std::unique_ptr<rt::Program> program;
    rt::Status load = rt::Program::load(std::move(reader), rt::getCpuDevice(),
                                        "main_step", program);
    EXPECT_TRUE(load.isOk()) << load.message();
    return program;
  }

  /// Runs 10 steps of the compiled step and of the reference, with a
  /// learning rate that changes every step, and compares loss, parameters
  /// and state after each.
  void check(const Options &options, double lr0) {
    std::unique_ptr<rt::Program> program = compileStep(options);
    ASSERT_TRUE(program);

    uint32_t seed = 2024;
    auto uniform = [&]() {
      seed = seed * 1664525u + 1013904223u;
      return double((seed >> 8) % 2000) / 1000.0 - 1.0; // [-1, 1)
    };
    std::vector<double> x(kRows * kFeatures), y(kRows);
    for (double &e : x)
      e = uniform();
    for (int64_t r = 0; r < kRows; ++r)
      y[r] = 0.5 * x[r * kFeatures] - 1.5 * x[r * kFeatures + 1] +
             x[r * kFeatures + 2] + 0.3 + 0.1 * uniform();

    // Parameters flattened as w (3) then b (1).
    Reference ref{options, {0.2, -0.1, 0.4, 0.0}, {}, {}, {}, 0};
    ref.buf.assign(4, 0.0);
    ref.m.assign(4, 0.0);
    ref.v.assign(4, 0.0);

    bool adam = options.kind != "sgd";
    bool velocity = !adam && options.momentum != 0;
    // The step's inputs after x and y: w, b, then the state, then lr; the
    // state tensors are shaped like w and b, t is a scalar.
    std::vector<std::vector<int64_t>> shapes{
        {kRows, kFeatures}, {kRows, 1}, {kFeatures, 1}, {1}};
    std::vector<std::vector<double>> inputs{
        x, y, {ref.p[0], ref.p[1], ref.p[2]}, {ref.p[3]}};
    unsigned stateGroups = velocity ? 1 : adam ? 2 : 0;
    for (unsigned s = 0; s < stateGroups; ++s) {
      shapes.push_back({kFeatures, 1});
      inputs.push_back(std::vector<double>(kFeatures, 0.0));
      shapes.push_back({1});
      inputs.push_back({0.0});
    }
    if (adam) {
      shapes.push_back({});
      inputs.push_back({0.0});
    }
    shapes.push_back({});
    inputs.push_back({lr0});
    size_t numOutputs = inputs.size() - 2; // loss, params, state.

    auto flat = [](const std::vector<double> &w, const std::vector<double> &b) {
      return std::vector<double>{w[0], w[1], w[2], b[0]};
    };
    auto expectClose = [](double got, double want, const char *what, int step) {
      EXPECT_NEAR(got, want, 1e-12 * std::max(std::abs(want), 1e-3))
          << what << " at step " << step;
    };

    std::vector<double> losses;
    for (int step = 0; step < 10; ++step) {
      double lr = lr0 * (1.0 - 0.05 * step);
      inputs.back() = {lr};

      // Reference loss and gradient, from the parameters before the step.
      std::vector<double> grad(4, 0.0);
      double loss = 0;
      for (int64_t r = 0; r < kRows; ++r) {
        double pred = ref.p[3];
        for (int64_t f = 0; f < kFeatures; ++f)
          pred += x[r * kFeatures + f] * ref.p[f];
        double res = pred - y[r];
        loss += res * res / kRows;
        for (int64_t f = 0; f < kFeatures; ++f)
          grad[f] += 2.0 * res * x[r * kFeatures + f] / kRows;
        grad[3] += 2.0 * res / kRows;
      }
      ref.step(grad, lr);

      std::vector<rt::TensorRef> refs;
      for (size_t i = 0; i < inputs.size(); ++i)
        refs.push_back({rt::DType::F64, shapes[i].data(), shapes[i].size(),
                        inputs[i].data(), inputs[i].size() * sizeof(double)});
      std::vector<rt::HostTensor> outputs;
      rt::Status status = program->run(refs, outputs, /*threads=*/1);
      ASSERT_TRUE(status.isOk()) << status.message();
      ASSERT_EQ(outputs.size(), numOutputs);

      double got = outputs[0].dataAs<double>()[0];
      expectClose(got, loss, "loss", step);
      losses.push_back(got);
      // Feed everything back: outputs 1.. line up with inputs 2.. (less lr).
      for (size_t o = 1; o < numOutputs; ++o) {
        const double *data = outputs[o].dataAs<double>();
        inputs[o + 1].assign(data, data + outputs[o].numElements());
      }
      std::vector<double> p = flat(inputs[2], inputs[3]);
      for (int i = 0; i < 4; ++i)
        expectClose(p[i], ref.p[i], "parameter", step);
      if (velocity)
        for (int i = 0; i < 4; ++i)
          expectClose(flat(inputs[4], inputs[5])[i], ref.buf[i], "velocity",
                      step);
      if (adam) {
        for (int i = 0; i < 4; ++i) {
          expectClose(flat(inputs[4], inputs[5])[i], ref.m[i], "m", step);
          expectClose(flat(inputs[6], inputs[7])[i], ref.v[i], "v", step);
        }
        EXPECT_EQ(inputs[8][0], double(step + 1));
      }
    }
    EXPECT_LT(losses.back(), 0.5 * losses.front());
  }

  MLIRContext context;
};

TEST_F(OptimizerTest, Sgd) { check(Options{}, 0.1); }

TEST_F(OptimizerTest, SgdMomentumWeightDecay) {
  Options o;
  o.momentum = 0.9;
  o.weightDecay = 0.01;
  check(o, 0.05);
}

TEST_F(OptimizerTest, SgdNesterov) {
  Options o;
  o.momentum = 0.8;
  o.nesterov = true;
  o.weightDecay = 0.001;
  check(o, 0.05);
}

TEST_F(OptimizerTest, Adam) {
  Options o;
  o.kind = "adam";
  o.weightDecay = 0.01;
  check(o, 0.1);
}

TEST_F(OptimizerTest, AdamW) {
  Options o;
  o.kind = "adamw";
  o.weightDecay = 0.1;
  o.beta2 = 0.99;
  check(o, 0.1);
}

} // namespace
