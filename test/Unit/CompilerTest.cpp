//===- CompilerTest.cpp - compile, load and run on the CPU ----------------===//
//
// The compile driver end to end: a function with a weight and a dynamic
// input is specialized, compiled to native code, loaded by the runtime and
// run; the cache answers the second compile; wrong shapes and unsupported
// ops fail with diagnostics; and a real executable survives exhaustive
// corruption (every byte flipped, every truncation) with a status.
//
//===----------------------------------------------------------------------===//

#include "nnc/Compiler/Compiler.h"
#include "nnc/InitAll.h"
#include "nnc/runtime/Program.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mlir;
namespace rt = nnc::runtime;

namespace {

const char *kModel = R"mlir(
func.func @main(%x: tensor<?x3xf32>,
                %w: tensor<3xf32> {nnc.param = #nnc.param<frozen>,
                                   nnc.value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>})
    -> (tensor<?x3xf32>, tensor<?xf32>) attributes {nnc.result_names = ["y", "s"]} {
  %y = nnc.mul %x, %w : tensor<?x3xf32>, tensor<3xf32>
  %r = nnc.relu %y : tensor<?x3xf32>
  %s = nnc.reduce sum %r axes = [1] keepdims = false : tensor<?x3xf32>
  return %y, %s : tensor<?x3xf32>, tensor<?xf32>
}
)mlir";

class CompilerTest : public ::testing::Test {
protected:
  CompilerTest() {
    DialectRegistry registry;
    nnc::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> parse(const char *text) {
    return parseSourceString<ModuleOp>(text, &context);
  }

  MLIRContext context;
};

TEST_F(CompilerTest, CompilesLoadsAndRuns) {
  auto module = parse(kModel);
  ASSERT_TRUE(module);
  nnc::CompileOptions options;
  nnc::CompileResult result = nnc::compile(*module, "main", {{2, 3}}, options);
  ASSERT_EQ(result.failure, nnc::CompileFailure::None);
  EXPECT_FALSE(result.fromCache);

  rt::ExecutableReader reader;
  ASSERT_TRUE(rt::ExecutableReader::fromBytes(result.executable.data(),
                                              result.executable.size(), reader)
                  .isOk());
  std::unique_ptr<rt::Program> program;
  rt::Status load =
      rt::Program::load(std::move(reader), rt::getCpuDevice(), "t", program);
  ASSERT_TRUE(load.isOk()) << load.message();
  ASSERT_EQ(program->inputs().size(), 1u);
  ASSERT_EQ(program->outputs().size(), 2u);
  EXPECT_EQ(program->plan().values[program->outputs()[0]].name, "y");
  EXPECT_EQ(program->plan().values[program->outputs()[1]].name, "s");
  EXPECT_EQ(program->weightBytes(), 12u);

  float x[6] = {1, -1, 2, 0.5f, 0.25f, -3};
  int64_t dims[2] = {2, 3};
  rt::TensorRef input{rt::DType::F32, dims, 2, x, sizeof(x)};
  std::vector<rt::HostTensor> outputs;
  rt::Status run = program->run({input}, outputs);
  ASSERT_TRUE(run.isOk()) << run.message();
  const float *y = outputs[0].dataAs<float>();
  const float expectedY[6] = {1, -2, 6, 0.5f, 0.5f, -9};
  for (int i = 0; i < 6; ++i)
    EXPECT_FLOAT_EQ(y[i], expectedY[i]) << i;
  EXPECT_FLOAT_EQ(outputs[1].dataAs<float>()[0], 7.0f);
  EXPECT_FLOAT_EQ(outputs[1].dataAs<float>()[1], 1.0f);
  // The input is the caller's and stays as it was.
  EXPECT_FLOAT_EQ(x[1], -1.0f);

  // Wrong shape at run time.
  int64_t other[2] = {3, 3};
  float x9[9] = {};
  rt::Status wrong = program->run(
      {rt::TensorRef{rt::DType::F32, other, 2, x9, sizeof(x9)}}, outputs);
  EXPECT_EQ(wrong.code(), rt::StatusCode::InvalidArgument);
  EXPECT_NE(wrong.message().find("must be f32[2x3], got f32[3x3]"),
            std::string::npos)
      << wrong.message();
}

TEST_F(CompilerTest, CacheAnswersTheSecondCompile) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("nnc-cache-test", dir));
  auto module = parse(kModel);
  nnc::CompileOptions options;
  options.cacheDir = std::string(dir);
  nnc::CompileResult first = nnc::compile(*module, "main", {{4, 3}}, options);
  ASSERT_EQ(first.failure, nnc::CompileFailure::None);
  EXPECT_FALSE(first.fromCache);
  nnc::CompileResult second = nnc::compile(*module, "main", {{4, 3}}, options);
  ASSERT_EQ(second.failure, nnc::CompileFailure::None);
  EXPECT_TRUE(second.fromCache);
  EXPECT_EQ(first.cachePath, second.cachePath);
  EXPECT_EQ(first.executable, second.executable);
  // Another shape is another entry.
  nnc::CompileResult third = nnc::compile(*module, "main", {{5, 3}}, options);
  EXPECT_FALSE(third.fromCache);
  EXPECT_NE(third.cachePath, first.cachePath);
  // A damaged entry is compiled again, not trusted.
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(first.cachePath, ec);
    os << "garbage";
  }
  nnc::CompileResult fourth = nnc::compile(*module, "main", {{4, 3}}, options);
  ASSERT_EQ(fourth.failure, nnc::CompileFailure::None);
  EXPECT_FALSE(fourth.fromCache);
  llvm::sys::fs::remove_directories(dir);
}

TEST_F(CompilerTest, ReportsBadShapesAndUnsupportedOps) {
  auto module = parse(kModel);
  std::string errors;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    errors += diag.str() + "\n";
    return success();
  });
  nnc::CompileOptions options;
  nnc::CompileResult rank = nnc::compile(*module, "main", {{2}}, options);
  EXPECT_EQ(rank.failure, nnc::CompileFailure::InvalidInput);
  EXPECT_NE(errors.find("which shape 2 does not fit"), std::string::npos)
      << errors;
  nnc::CompileResult count =
      nnc::compile(*module, "main", {{2, 3}, {1}}, options);
  EXPECT_EQ(count.failure, nnc::CompileFailure::InvalidInput);
  nnc::CompileResult dynamic = nnc::compile(*module, "main", {}, options);
  EXPECT_EQ(dynamic.failure, nnc::CompileFailure::InvalidInput);
  EXPECT_NE(errors.find("give its concrete shape"), std::string::npos);

  auto training = parse(R"mlir(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y, %m = nnc.dropout %x ratio = 0.5 seed = 1 training = true : tensor<4xf32>
  return %y : tensor<4xf32>
}
)mlir");
  errors.clear();
  nnc::CompileResult unsupported = nnc::compile(*training, "main", {}, options);
  EXPECT_EQ(unsupported.failure, nnc::CompileFailure::Unsupported);
  EXPECT_NE(errors.find("nnc.dropout"), std::string::npos) << errors;
}

/// Fills `n` values deterministically in [-1, 1).
template <typename T> std::vector<T> pattern(size_t n, unsigned seed) {
  std::vector<T> v(n);
  uint32_t state = seed * 2654435761u + 1;
  for (T &x : v) {
    state = state * 1664525u + 1013904223u;
    x = static_cast<T>((state >> 8) % 2000) / T(1000) - T(1);
  }
  return v;
}

/// Compiles `text` (static shapes), checks the BLAS figures of its plan,
/// runs it on batch x MxK and batch x KxN inputs and compares the product
/// with one computed here in double.
template <typename T>
void checkMatmul(MLIRContext &context, const char *text, int64_t batch,
                 int64_t m, int64_t n, int64_t k, uint32_t libraryCalls) {
  auto module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  nnc::CompileOptions options;
  nnc::CompileResult result = nnc::compile(*module, "main", {}, options);
  ASSERT_EQ(result.failure, nnc::CompileFailure::None);
  rt::ExecutableReader reader;
  ASSERT_TRUE(rt::ExecutableReader::fromBytes(result.executable.data(),
                                              result.executable.size(), reader)
                  .isOk());
  std::unique_ptr<rt::Program> program;
  rt::Status load =
      rt::Program::load(std::move(reader), rt::getCpuDevice(), "t", program);
  ASSERT_TRUE(load.isOk()) << load.message();
  // f32 products call OpenBLAS or, where oneDNN has brgemm kernels, the
  // oneDNN glue; f64 ones OpenBLAS.
  EXPECT_TRUE(program->plan().needsBlas ||
              (sizeof(T) == 4 && program->plan().needsDnnl));
  EXPECT_EQ(program->plan().libraryCalls, libraryCalls);

  rt::DType dtype = sizeof(T) == 4 ? rt::DType::F32 : rt::DType::F64;
  std::vector<T> a = pattern<T>(batch * m * k, 1);
  std::vector<T> b = pattern<T>(batch * k * n, 2);
  bool batched = batch > 1;
  int64_t aDims[3] = {batch, m, k}, bDims[3] = {batch, k, n};
  size_t rank = batched ? 3 : 2;
  rt::TensorRef aRef{dtype, batched ? aDims : aDims + 1, rank, a.data(),
                     a.size() * sizeof(T)};
  rt::TensorRef bRef{dtype, batched ? bDims : bDims + 1, rank, b.data(),
                     b.size() * sizeof(T)};
  std::vector<rt::HostTensor> outputs;
  rt::Status run = program->run({aRef, bRef}, outputs);
  ASSERT_TRUE(run.isOk()) << run.message();
  const T *c = outputs[0].dataAs<T>();
  double tolerance = sizeof(T) == 4 ? 1e-4 : 1e-10;
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double expected = 0;
        for (int64_t l = 0; l < k; ++l)
          expected += static_cast<double>(a[(p * m + i) * k + l]) *
                      static_cast<double>(b[(p * k + l) * n + j]);
        double got = c[(p * m + i) * n + j];
        ASSERT_NEAR(got, expected, tolerance * (1 + std::abs(expected)))
            << "batch " << p << " row " << i << " column " << j;
      }
}

/// A large enough f32 matmul calls a library GEMM (cblas_sgemm, or
/// nnc_dnnl_sgemm) once per run.
TEST_F(CompilerTest, MatmulCallsBlas) {
  checkMatmul<float>(context, R"mlir(
func.func @main(%a: tensor<64x80xf32>, %b: tensor<80x96xf32>) -> tensor<64x96xf32> {
  %c = nnc.matmul %a, %b : tensor<64x80xf32>, tensor<80x96xf32>
  return %c : tensor<64x96xf32>
}
)mlir",
                     1, 64, 96, 80, 1);
}

/// A batched f64 matmul calls cblas_dgemm once per batch: 3 calls per run.
TEST_F(CompilerTest, BatchMatmulCallsBlasPerBatch) {
  checkMatmul<double>(context, R"mlir(
func.func @main(%a: tensor<3x64x80xf64>, %b: tensor<3x80x96xf64>) -> tensor<3x64x96xf64> {
  %c = nnc.matmul %a, %b : tensor<3x64x80xf64>, tensor<3x80x96xf64>
  return %c : tensor<3x64x96xf64>
}
)mlir",
                      3, 64, 96, 80, 3);
}

/// A small matmul stays loops: no library, no calls.
TEST_F(CompilerTest, SmallMatmulStaysLoops) {
  auto module = parse(R"mlir(
func.func @main(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c = nnc.matmul %a, %b : tensor<8x8xf32>, tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}
)mlir");
  ASSERT_TRUE(module);
  nnc::CompileResult result =
      nnc::compile(*module, "main", {}, nnc::CompileOptions());
  ASSERT_EQ(result.failure, nnc::CompileFailure::None);
  rt::ExecutableReader reader;
  ASSERT_TRUE(rt::ExecutableReader::fromBytes(result.executable.data(),
                                              result.executable.size(), reader)
                  .isOk());
  std::unique_ptr<rt::Program> program;
  ASSERT_TRUE(
      rt::Program::load(std::move(reader), rt::getCpuDevice(), "t", program)
          .isOk());
  EXPECT_FALSE(program->plan().needsBlas);
  EXPECT_EQ(program->plan().libraryCalls, 0u);
}

/// The issue's robustness bar: flip every byte of a small real executable
/// and truncate it at every length; loading must fail with a status (or, for
/// flips the content hash cannot see, which there are none of, load), never
/// crash.
TEST_F(CompilerTest, CorruptExecutablesAreRefused) {
  auto module = parse(kModel);
  nnc::CompileOptions options;
  nnc::CompileResult result = nnc::compile(*module, "main", {{1, 3}}, options);
  ASSERT_EQ(result.failure, nnc::CompileFailure::None);
  const std::vector<uint8_t> &bytes = result.executable;
  for (size_t length = 0; length < bytes.size(); ++length) {
    rt::ExecutableReader reader;
    ASSERT_FALSE(
        rt::ExecutableReader::fromBytes(bytes.data(), length, reader).isOk())
        << "length " << length;
  }
  std::vector<uint8_t> flipped = bytes;
  for (size_t i = 0; i < bytes.size(); ++i) {
    flipped[i] ^= 0x5a;
    rt::ExecutableReader reader;
    rt::Status status =
        rt::ExecutableReader::fromBytes(flipped.data(), flipped.size(), reader);
    ASSERT_FALSE(status.isOk()) << "byte " << i;
    flipped[i] = bytes[i];
  }
}

} // namespace
