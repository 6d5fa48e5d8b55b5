//===- CudaModuleTest.cpp - the CUDA target's code section ----------------===//
//
// A CUDA module round-trips through its encoding; every cut or corruption
// of it is a DataLoss status naming what is wrong, never a crash; and the
// image a device runs is chosen as the driver would run it (a cubin of the
// device's major version, else the newest PTX not above the device).
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/CudaModule.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "TestUtils.h"

using namespace nnc::runtime;
using nnc::runtime::test::contains;

namespace {

CudaImage image(CudaImage::Kind kind, uint32_t arch,
                std::vector<uint8_t> bytes = {1, 2, 3}) {
  CudaImage out;
  out.kind = kind;
  out.arch = arch;
  out.bytes = std::move(bytes);
  return out;
}

/// A batched bf16 GEMM into f32 whose A the buffer holds transposed.
CudaGemm sampleGemm() {
  CudaGemm gemm;
  gemm.m = 64, gemm.n = 48, gemm.k = 32, gemm.batch = 3;
  gemm.inputType = CudaElementType::BF16;
  gemm.outputType = CudaElementType::F32;
  gemm.accumulate = true;
  gemm.a = {0, 128, 64, 2048, true};
  gemm.b = {1, 0, 48, 0, false};
  gemm.c = {2, 4096, 48, 3072, false};
  return gemm;
}

/// Two images (sm_80 cubin, compute_90 PTX) and three kernels, the second
/// with two launches, the third a GEMM and a launch.
CudaModule sampleModule() {
  CudaModule module;
  module.compiler = "NVRTC 13.0";
  module.source = "extern \"C\" __global__ void add(char *a, char *b) {}\n"
                  "extern \"C\" __global__ void scale(char *a) {}\n";
  module.images = {image(CudaImage::Kind::Cubin, 80, {0x7f, 'E', 'L', 'F'}),
                   image(CudaImage::Kind::Ptx, 90,
                         {'.', 'v', 'e', 'r', 's', 'i', 'o', 'n', 0})};
  CudaKernel add;
  add.symbol = "nnc_kernel_0";
  add.numPointers = 2;
  add.launches = {{"add", 4, 256, 0}};
  CudaKernel scale;
  scale.symbol = "nnc_kernel_1";
  scale.numPointers = 1;
  scale.launches = {{"scale", 1, 1024, 4096}, {"add", 2147483647u, 32, 0}};
  CudaKernel gemm;
  gemm.symbol = "nnc_kernel_2";
  gemm.numPointers = 3;
  CudaLaunch product;
  product.function = "k2_l0_gemm";
  product.kind = CudaLaunch::Kind::Gemm;
  product.gemm = sampleGemm();
  // A linear layer: x (32 x 64) times w^T, then bias and ReLU.
  CudaLaunch linear;
  linear.function = "k2_l2_gemm";
  linear.kind = CudaLaunch::Kind::Gemm;
  linear.gemm.m = 32, linear.gemm.n = 16, linear.gemm.k = 64;
  linear.gemm.a = {0, 0, 64, 0, false};
  linear.gemm.b = {1, 256, 64, 0, true};
  linear.gemm.c = {2, 0, 16, 0, false};
  linear.gemm.epilogue = CudaEpilogue::BiasRelu;
  linear.gemm.biasBuffer = 1;
  linear.gemm.biasOffset = 64;
  gemm.launches = {product, {"add", 1, 32, 0}, linear};
  module.kernels = {add, scale, gemm};
  return module;
}

Status parse(const std::vector<uint8_t> &bytes, CudaModule &out) {
  return parseCudaModule(bytes.data(), bytes.size(), "exe: kernels", out);
}

} // namespace

TEST(CudaModuleTest, RoundTrip) {
  CudaModule module = sampleModule();
  CudaModule parsed;
  Status status = parse(serializeCudaModule(module), parsed);
  ASSERT_TRUE(status.isOk()) << status.toString();
  EXPECT_EQ(parsed.compiler, module.compiler);
  EXPECT_EQ(parsed.source, module.source);
  ASSERT_EQ(parsed.images.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(parsed.images[i].kind, module.images[i].kind) << i;
    EXPECT_EQ(parsed.images[i].arch, module.images[i].arch) << i;
    EXPECT_EQ(parsed.images[i].bytes, module.images[i].bytes) << i;
  }
  ASSERT_EQ(parsed.kernels.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    const CudaKernel &got = parsed.kernels[k], &want = module.kernels[k];
    EXPECT_EQ(got.symbol, want.symbol);
    EXPECT_EQ(got.numPointers, want.numPointers);
    ASSERT_EQ(got.launches.size(), want.launches.size());
    for (size_t l = 0; l < want.launches.size(); ++l) {
      EXPECT_EQ(got.launches[l].function, want.launches[l].function);
      EXPECT_EQ(got.launches[l].grid, want.launches[l].grid);
      EXPECT_EQ(got.launches[l].block, want.launches[l].block);
      EXPECT_EQ(got.launches[l].sharedBytes, want.launches[l].sharedBytes);
      EXPECT_EQ(got.launches[l].kind, want.launches[l].kind);
    }
  }
  const CudaGemm &linear = parsed.kernels[2].launches[2].gemm;
  EXPECT_EQ(linear.epilogue, CudaEpilogue::BiasRelu);
  EXPECT_EQ(linear.biasBuffer, 1u);
  EXPECT_EQ(linear.biasOffset, 64u);
  EXPECT_TRUE(linear.b.transposed);
  const CudaGemm &gemm = parsed.kernels[2].launches[0].gemm, want = sampleGemm();
  EXPECT_EQ(gemm.epilogue, CudaEpilogue::None);
  EXPECT_EQ(gemm.m, want.m);
  EXPECT_EQ(gemm.n, want.n);
  EXPECT_EQ(gemm.k, want.k);
  EXPECT_EQ(gemm.batch, want.batch);
  EXPECT_EQ(gemm.inputType, want.inputType);
  EXPECT_EQ(gemm.outputType, want.outputType);
  EXPECT_EQ(gemm.accumulate, want.accumulate);
  for (auto [got, expected] : {std::make_pair(gemm.a, want.a),
                               std::make_pair(gemm.b, want.b),
                               std::make_pair(gemm.c, want.c)}) {
    EXPECT_EQ(got.buffer, expected.buffer);
    EXPECT_EQ(got.offset, expected.offset);
    EXPECT_EQ(got.ld, expected.ld);
    EXPECT_EQ(got.batchStride, expected.batchStride);
    EXPECT_EQ(got.transposed, expected.transposed);
  }
  EXPECT_EQ(describeCudaImage(parsed.images[0]), "sm_80");
  EXPECT_EQ(describeCudaImage(parsed.images[1]), "compute_90");
  // Encoding what was decoded gives the same bytes.
  EXPECT_EQ(serializeCudaModule(parsed), serializeCudaModule(module));
}

TEST(CudaModuleTest, EveryTruncationIsDataLoss) {
  std::vector<uint8_t> bytes = serializeCudaModule(sampleModule());
  for (size_t size = 0; size < bytes.size(); ++size) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + size);
    CudaModule parsed;
    Status status = parse(cut, parsed);
    EXPECT_EQ(status.code(), StatusCode::DataLoss)
        << "cut to " << size << ": " << status.toString();
    EXPECT_TRUE(contains(status, "exe: kernels")) << status.toString();
  }
}

TEST(CudaModuleTest, CorruptionsAreNamed) {
  auto expectDataLoss = [](const std::vector<uint8_t> &bytes,
                           const std::string &what) {
    CudaModule parsed;
    Status status = parse(bytes, parsed);
    EXPECT_EQ(status.code(), StatusCode::DataLoss) << status.toString();
    EXPECT_TRUE(contains(status, what)) << status.toString();
  };

  std::vector<uint8_t> magic = serializeCudaModule(sampleModule());
  magic[0] ^= 0xff;
  expectDataLoss(magic, "exe: kernels: not a CUDA module (bad magic)");

  CudaModule kind = sampleModule();
  kind.images[1].kind = static_cast<CudaImage::Kind>(7);
  expectDataLoss(serializeCudaModule(kind), "image 1 has unknown kind 7");

  CudaModule grid = sampleModule();
  grid.kernels[0].launches[0].grid = 0;
  expectDataLoss(serializeCudaModule(grid),
                 "kernel 'nnc_kernel_0' launch 0 of 'add' has grid 0 and "
                 "block 256");

  CudaModule block = sampleModule();
  block.kernels[1].launches[1].block = 2048;
  expectDataLoss(serializeCudaModule(block),
                 "kernel 'nnc_kernel_1' launch 1 of 'add' has grid "
                 "2147483647 and block 2048");

  CudaModule repeated = sampleModule();
  repeated.kernels[1].symbol = repeated.kernels[0].symbol;
  expectDataLoss(serializeCudaModule(repeated),
                 "kernel 1's symbol 'nnc_kernel_0' is empty or repeated");

  std::vector<uint8_t> trailing = serializeCudaModule(sampleModule());
  trailing.push_back(0);
  expectDataLoss(trailing, "trailing bytes after the CUDA module");

  CudaModule version = sampleModule();
  std::vector<uint8_t> newer = serializeCudaModule(version);
  newer[4] = CudaModule::kVersion + 1;
  expectDataLoss(newer, "CUDA module version 3 is not supported (this "
                        "runtime reads 1 to 2)");

  // A GEMM's matrices lie in the kernel's buffers, their rows fit their
  // strides, its sizes are positive, its types are ones cuBLASLt sums in
  // f32.
  auto gemmCase = [&](auto edit, const std::string &what) {
    CudaModule module = sampleModule();
    edit(module.kernels[2].launches[0].gemm);
    expectDataLoss(serializeCudaModule(module),
                   "kernel 'nnc_kernel_2' GEMM launch 0 'k2_l0_gemm' " + what);
  };
  gemmCase([](CudaGemm &g) { g.c.buffer = 3; },
           "C is in buffer 3 of a kernel of 3");
  // A is 64 x 32 held transposed: its rows in the buffer are 64 long.
  gemmCase([](CudaGemm &g) { g.a.ld = 63; },
           "A has row stride 63 for rows of 64");
  gemmCase([](CudaGemm &g) { g.b.ld = 47; },
           "B has row stride 47 for rows of 48");
  gemmCase([](CudaGemm &g) { g.k = 0; }, "has sizes m 64, n 48, k 0, batch 3");
  gemmCase([](CudaGemm &g) { g.batch = 0; },
           "has sizes m 64, n 48, k 32, batch 0");
  gemmCase([](CudaGemm &g) { g.outputType = CudaElementType::F16; },
           "writes f16 from bf16 inputs");
  gemmCase([](CudaGemm &g) { g.c.transposed = true; }, "writes C transposed");
  // A bias in a buffer the kernel does not take; an epilogue on a batch.
  {
    CudaModule module = sampleModule();
    module.kernels[2].launches[2].gemm.biasBuffer = 5;
    expectDataLoss(serializeCudaModule(module),
                   "kernel 'nnc_kernel_2' GEMM launch 2 'k2_l2_gemm' has its "
                   "bias in buffer 5 of a kernel of 3 (batch 1)");
  }
  gemmCase([](CudaGemm &g) { g.epilogue = CudaEpilogue::Bias; },
           "has its bias in buffer 0 of a kernel of 3 (batch 3)");

  // The launch kind and the GEMM's flags and types are small enums.
  std::vector<uint8_t> bytes = serializeCudaModule(sampleModule());
  std::string name = "k2_l0_gemm";
  auto at = std::search(bytes.begin(), bytes.end(), name.begin(), name.end());
  ASSERT_NE(at, bytes.end());
  size_t kindAt = (at - bytes.begin()) + name.size();
  std::vector<uint8_t> kindBad = bytes;
  kindBad[kindAt] = 9;
  expectDataLoss(kindBad, "kernel 'nnc_kernel_2' launch 0 has unknown kind 9");
  // After the kind: m, n, k (u64), batch (u32), input type, output type.
  std::vector<uint8_t> typeBad = bytes;
  typeBad[kindAt + 1 + 28] = 5;
  expectDataLoss(typeBad, "a GEMM's input type 5 is not an element type");
  std::vector<uint8_t> flagBad = bytes;
  flagBad[kindAt + 1 + 30] = 2;
  expectDataLoss(flagBad, "a GEMM's accumulate flag is 2, not 0 or 1");
  // After the flags: A, B and C (29 bytes each), then the epilogue.
  std::vector<uint8_t> epilogueBad = bytes;
  epilogueBad[kindAt + 1 + 31 + 3 * 29] = 7;
  expectDataLoss(epilogueBad,
                 "a GEMM's epilogue 7 is not one this runtime knows");
}

// Modules of version 1 (before GEMM launches) still load: every launch is
// a __global__ function.
TEST(CudaModuleTest, ReadsVersionOne) {
  std::vector<uint8_t> bytes = {'N', 'N', 'C', 'U'};
  auto u32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i)
      bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  auto str = [&](const std::string &s) {
    u32(static_cast<uint32_t>(s.size()));
    bytes.insert(bytes.end(), s.begin(), s.end());
  };
  u32(1);
  str("NVRTC 13.0");
  str("extern \"C\" __global__ void f(char *a0) {}\n");
  u32(0); // images
  u32(1); // kernels
  str("nnc_kernel_0");
  u32(1);
  u32(1); // launches
  str("f");
  u32(2);
  u32(128);
  u32(0);
  CudaModule parsed;
  Status status = parse(bytes, parsed);
  ASSERT_TRUE(status.isOk()) << status.toString();
  ASSERT_EQ(parsed.kernels.size(), 1u);
  ASSERT_EQ(parsed.kernels[0].launches.size(), 1u);
  EXPECT_EQ(parsed.kernels[0].launches[0].kind, CudaLaunch::Kind::Kernel);
  EXPECT_EQ(parsed.kernels[0].launches[0].grid, 2u);
  EXPECT_EQ(parsed.kernels[0].launches[0].block, 128u);
}

TEST(CudaModuleTest, SelectsTheImageADeviceRuns) {
  using Kind = CudaImage::Kind;
  CudaModule sm80;
  sm80.images = {image(Kind::Cubin, 80)};
  // A cubin runs on its major version at its minor or above.
  EXPECT_EQ(selectCudaImage(sm80, 8, 6), &sm80.images[0]);
  EXPECT_EQ(selectCudaImage(sm80, 8, 0), &sm80.images[0]);
  EXPECT_EQ(selectCudaImage(sm80, 9, 0), nullptr);

  CudaModule all;
  all.images = {image(Kind::Ptx, 90), image(Kind::Cubin, 90),
                image(Kind::Cubin, 80)};
  // SASS for the device beats PTX the driver would have to compile.
  EXPECT_EQ(selectCudaImage(all, 9, 0), &all.images[1]);
  EXPECT_EQ(selectCudaImage(all, 8, 9), &all.images[2]);
  // A newer major version runs the newest PTX not above it.
  EXPECT_EQ(selectCudaImage(all, 10, 0), &all.images[0]);

  CudaModule lowest;
  lowest.images = {image(Kind::Cubin, 80), image(Kind::Ptx, 80)};
  EXPECT_EQ(selectCudaImage(lowest, 7, 5), nullptr);
  // PTX for compute_80 runs on 8.6 only as a fallback to a fitting cubin.
  EXPECT_EQ(selectCudaImage(lowest, 8, 6), &lowest.images[0]);
  EXPECT_EQ(selectCudaImage(lowest, 9, 0), &lowest.images[1]);

  CudaModule none;
  EXPECT_EQ(selectCudaImage(none, 9, 0), nullptr);
}
