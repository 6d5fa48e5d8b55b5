//===- TraceExamples.cpp - example models traced through the C++ API -----===//
//
// nnc-trace-examples <model> traces one example model and prints its module:
// mlp, cnn, transformer (a pre-LN block), or shape-error, which makes a
// deliberate shape mistake and must report it at its line and exit 1. The
// lit tests in test/Trace check the printed IR.
//
//===----------------------------------------------------------------------===//

#include "nnc/Trace/Tracer.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace nnc;

namespace {

/// A two-layer MLP for 8x8 digits with its loss: 64 -> 256 -> 10.
void traceMlp(Tracer &t) {
  TValue x = t.input("x", {-1, 64});
  TValue labels = t.input("labels", {-1}, DType::I64);
  TValue w1 = t.parameter("w1", {64, 256}, DType::F32, Init::kaimingUniform());
  TValue b1 = t.parameter("b1", {256});
  TValue w2 = t.parameter("w2", {256, 10}, DType::F32, Init::kaimingUniform());
  TValue b2 = t.parameter("b2", {10});

  TValue h = relu(matmul(x, w1) + b1);
  TValue logits = matmul(h, w2) + b2;
  TValue loss = crossEntropy(logits, labels);
  t.outputs({loss, logSoftmax(logits)});
}

/// conv -> batch_norm -> relu -> max_pool, with its parameters and buffers.
TValue convBlock(Tracer &t, TValue x, const char *name, int64_t in,
                 int64_t out) {
  std::string p(name);
  TValue w =
      t.parameter(p + ".w", {out, in, 3, 3}, DType::F32, Init::kaimingNormal());
  TValue b = t.parameter(p + ".b", {out});
  TValue gamma = t.parameter(p + ".gamma", {out}, DType::F32, Init::ones());
  TValue beta = t.parameter(p + ".beta", {out});
  TValue mean = t.buffer(p + ".mean", {out});
  TValue var = t.buffer(p + ".var", {out}, DType::F32, Init::ones());
  TValue y = conv(x, w, b, {.pads = {1, 1, 1, 1}});
  y = relu(batchNorm(y, gamma, beta, mean, var));
  return maxPool(y, {2, 2}, {.strides = {2, 2}});
}

/// A small CNN for 1x28x28 images: two conv blocks, global average pooling
/// and a linear classifier.
void traceCnn(Tracer &t) {
  TValue x = t.input("image", {-1, 1, 28, 28});
  TValue y = convBlock(t, x, "conv1", 1, 8);
  y = convBlock(t, y, "conv2", 8, 16);
  y = flatten(globalAvgPool(y));
  TValue w = t.parameter("fc.w", {10, 16}, DType::F32, Init::xavierUniform());
  TValue b = t.parameter("fc.b", {10});
  t.output(gemm(y, w, b, {.transB = true}));
}

/// A pre-LN transformer block: causal multi-head self-attention and an MLP,
/// each with a residual connection. x is [batch, seq, model].
void traceTransformer(Tracer &t) {
  const int64_t seq = 16, model = 64, heads = 4, headDim = model / heads;
  TValue x = t.input("x", {-1, seq, model});
  auto linear = [&](TValue v, const std::string &name, int64_t in,
                    int64_t out) {
    TValue w = t.parameter(name + ".w", {in, out}, DType::F32,
                           Init::normal(0.0, 0.02));
    TValue b = t.parameter(name + ".b", {out});
    return matmul(v, w) + b;
  };
  auto norm = [&](TValue v, const std::string &name) {
    TValue g = t.parameter(name + ".g", {model}, DType::F32, Init::ones());
    TValue b = t.parameter(name + ".b", {model});
    return layerNorm(v, g, b);
  };
  // [batch, seq, model] -> [batch, heads, seq, headDim]
  auto splitHeads = [&](TValue v) {
    return transpose(reshape(v, {-1, seq, heads, headDim}), {0, 2, 1, 3});
  };

  TValue h = norm(x, "ln1");
  TValue q = splitHeads(linear(h, "q", model, model));
  TValue k = splitHeads(linear(h, "k", model, model));
  TValue v = splitHeads(linear(h, "v", model, model));
  TValue scores =
      matmul(q, transpose(k, {0, 1, 3, 2})) * (1.0 / std::sqrt(headDim));
  TValue causal = tril(t.full({seq, seq}, 1.0, DType::I1));
  scores = where(causal, scores, scalarLike(scores, -1e9));
  TValue attn = matmul(softmax(scores), v);
  attn = reshape(transpose(attn, {0, 2, 1, 3}), {-1, seq, model});
  TValue y = x + linear(attn, "proj", model, model);

  TValue m = gelu(linear(norm(y, "ln2"), "fc1", model, 4 * model));
  t.output(y + linear(m, "fc2", 4 * model, model));
}

/// A model whose second layer has the wrong input size. Returns the line of
/// the bad call so the test can check the error names it.
int traceShapeError(Tracer &t) {
  TValue x = t.input("x", {-1, 64});
  TValue w1 = t.parameter("w1", {64, 32});
  TValue w2 = t.parameter("w2", {64, 10}); // should be 32x10
  TValue h = relu(matmul(x, w1));
  int badLine = __LINE__ + 1;
  TValue y = matmul(h, w2);
  // Calls on the poisoned value do nothing; the first error stays.
  t.output(softmax(y + 1.0));
  return badLine;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: nnc-trace-examples mlp|cnn|transformer|"
                    "shape-error\n";
    return 2;
  }
  mlir::MLIRContext ctx;
  const char *name = argv[1];
  std::string funcName(name);
  for (char &c : funcName)
    if (c == '-')
      c = '_';
  Tracer t(ctx, funcName);
  if (!std::strcmp(name, "mlp")) {
    traceMlp(t);
  } else if (!std::strcmp(name, "cnn")) {
    traceCnn(t);
  } else if (!std::strcmp(name, "transformer")) {
    traceTransformer(t);
  } else if (!std::strcmp(name, "shape-error")) {
    int line = traceShapeError(t);
    llvm::errs() << "expected error at line " << line << "\n";
  } else {
    llvm::errs() << "unknown model '" << name << "'\n";
    return 2;
  }
  mlir::OwningOpRef<mlir::ModuleOp> module = t.finish();
  if (!module) {
    llvm::errs() << "error: " << t.error() << "\n";
    return 1;
  }
  module->print(llvm::outs());
  llvm::outs() << "\n";
  for (const ParamInfo &p : t.params())
    llvm::outs() << "// param " << p.argIndex << " " << p.name << " "
                 << stringifyParamKind(p.kind) << " " << p.init.str() << "\n";
  return 0;
}
