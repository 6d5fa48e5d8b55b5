//===- DnnlConvolutionTest.cpp - the oneDNN glue against loops ------------===//
//
// libnnc_dnnl.so's three directions against a direct loop reference, over
// groups (depthwise included), strides, pads, dilations, bias and one to
// three spatial dimensions, in f32 and (where the CPU has kernels for it)
// bf16; a malformed descriptor is refused by the check.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/Device.h"
#include "nnc/runtime/HostTensor.h"
#include "nnc/runtime/LibraryConvolution.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <malloc.h>
#include <algorithm>
#include <random>
#include <string>
#include <vector>

using namespace nnc::runtime;
using namespace nnc::runtime::libconv;

namespace {

struct Case {
  int spatial;
  int64_t n, c, m, groups;
  std::vector<int64_t> size, kernel, stride, dilation, padBegin, padEnd;
  bool bias;
};

struct Conv {
  Case k;
  std::vector<int64_t> out;
  std::vector<int64_t> desc(Direction direction) const {
    std::vector<int64_t> d(kLength, 0);
    d[kVersion] = kFormat;
    d[kDirection] = static_cast<int64_t>(direction);
    d[kSpatial] = k.spatial;
    d[kGroups] = k.groups;
    d[kHasBias] = k.bias;
    d[kBatch] = k.n;
    d[kInChannels] = k.c;
    d[kOutChannels] = k.m;
    for (int i = 0; i < kMaxSpatial; ++i) {
      bool used = i < k.spatial;
      d[kSrcSizes + i] = used ? k.size[i] : 0;
      d[kDstSizes + i] = used ? out[i] : 0;
      d[kKernelSizes + i] = used ? k.kernel[i] : 0;
      d[kStrides + i] = used ? k.stride[i] : 1;
      d[kDilations + i] = used ? k.dilation[i] : 1;
      d[kPadsBegin + i] = used ? k.padBegin[i] : 0;
      d[kPadsEnd + i] = used ? k.padEnd[i] : 0;
    }
    return d;
  }
  /// The forward convolution of `src` and `weights` plus `bias` (its
  /// first M values, when the case has one), in double.
  std::vector<double> forward(const std::vector<float> &src,
                              const std::vector<float> &weights,
                              const std::vector<float> &bias) const {
    std::vector<double> want(dstCount(), 0.0);
    if (k.bias)
      for (int64_t i = 0; i < dstCount(); ++i)
        want[i] = bias[(i / prod(out)) % k.m];
    forEachTerm([&](int64_t s, int64_t w, int64_t d) {
      want[d] += double(src[s]) * weights[w];
    });
    return want;
  }
  int64_t srcCount() const { return k.n * k.c * prod(k.size); }
  int64_t dstCount() const { return k.n * k.m * prod(out); }
  int64_t weightCount() const {
    return k.m * (k.c / k.groups) * prod(k.kernel);
  }
  static int64_t prod(const std::vector<int64_t> &v) {
    int64_t p = 1;
    for (int64_t x : v)
      p *= x;
    return p;
  }

  /// Calls f(src index, weight index, dst index) for every product term.
  template <typename F> void forEachTerm(F f) const {
    int64_t cg = k.c / k.groups, mg = k.m / k.groups;
    int64_t outPoints = prod(out), kernelPoints = prod(k.kernel);
    std::vector<int64_t> o(k.spatial), q(k.spatial), in(k.spatial);
    for (int64_t n = 0; n < k.n; ++n)
      for (int64_t m = 0; m < k.m; ++m)
        for (int64_t c = 0; c < cg; ++c)
          for (int64_t op = 0; op < outPoints; ++op)
            for (int64_t kp = 0; kp < kernelPoints; ++kp) {
              int64_t rest = op, krest = kp, srcSpatial = 0;
              bool inside = true;
              for (int i = k.spatial - 1; i >= 0; --i) {
                o[i] = rest % out[i], rest /= out[i];
                q[i] = krest % k.kernel[i], krest /= k.kernel[i];
              }
              for (int i = 0; i < k.spatial; ++i) {
                in[i] =
                    o[i] * k.stride[i] + q[i] * k.dilation[i] - k.padBegin[i];
                inside = inside && in[i] >= 0 && in[i] < k.size[i];
                srcSpatial = srcSpatial * k.size[i] + in[i];
              }
              if (!inside)
                continue;
              int64_t ic = (m / mg) * cg + c;
              int64_t s = (n * k.c + ic) * prod(k.size) + srcSpatial;
              int64_t w = (m * cg + c) * kernelPoints + kp;
              int64_t d = (n * k.m + m) * outPoints + op;
              f(s, w, d);
            }
  }
};

Conv make(Case k) {
  Conv c{k, {}};
  for (int i = 0; i < k.spatial; ++i)
    c.out.push_back((k.size[i] + k.padBegin[i] + k.padEnd[i] -
                     k.dilation[i] * (k.kernel[i] - 1) - 1) /
                        k.stride[i] +
                    1);
  return c;
}

std::vector<float> random(int64_t count, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(count);
  for (float &x : v)
    x = dist(gen);
  return v;
}

void expectNear(const std::vector<float> &got, const std::vector<double> &want,
                const char *what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(want[i])))
        << what << " element " << i;
}

class DnnlConvolution : public ::testing::TestWithParam<Case> {
protected:
  void SetUp() override {
    const DnnlGlue &glue = dnnlGlue();
    ASSERT_TRUE(glue.status.isOk()) << glue.status.message();
  }
};

/// Runs `conv` in every direction with `algorithm` and compares each with
/// the loops.
void allDirectionsMatchLoops(const Conv &conv, Algorithm algorithm) {
  const DnnlGlue &glue = dnnlGlue();
  auto desc = [&](Direction direction) {
    std::vector<int64_t> d = conv.desc(direction);
    d[kAlgorithm] = static_cast<int64_t>(algorithm);
    return d;
  };
  std::vector<float> src = random(conv.srcCount(), 1),
                     weights = random(conv.weightCount(), 2),
                     dst = random(conv.dstCount(), 3),
                     biasM = random(conv.k.m, 4), biasC = random(conv.k.c, 5);
  int64_t inPoints = Conv::prod(conv.k.size);

  // Forward.
  std::vector<double> want = conv.forward(src, weights, biasM);
  std::vector<int64_t> d = desc(Direction::Forward);
  char error[256] = {0};
  ASSERT_EQ(glue.check(d.data(), error, sizeof error), 0) << error;
  std::vector<float> got(conv.dstCount(), NAN);
  glue.convolution(d.data(), src.data(), weights.data(),
                   conv.k.bias ? biasM.data() : nullptr, got.data());
  expectNear(got, want, "forward");

  // Backward data: the input gradient for the output gradient `dst`.
  std::vector<double> wantData(conv.srcCount(), 0.0);
  if (conv.k.bias)
    for (int64_t i = 0; i < conv.srcCount(); ++i)
      wantData[i] = biasC[(i / inPoints) % conv.k.c];
  conv.forEachTerm([&](int64_t s, int64_t w, int64_t dd) {
    wantData[s] += double(dst[dd]) * weights[w];
  });
  d = desc(Direction::BackwardData);
  ASSERT_EQ(glue.check(d.data(), error, sizeof error), 0) << error;
  std::vector<float> gotData(conv.srcCount(), NAN);
  glue.convolution(d.data(), dst.data(), weights.data(),
                   conv.k.bias ? biasC.data() : nullptr, gotData.data());
  expectNear(gotData, wantData, "backward data");

  // Backward weights.
  std::vector<double> wantWeights(conv.weightCount(), 0.0);
  conv.forEachTerm([&](int64_t s, int64_t w, int64_t dd) {
    wantWeights[w] += double(src[s]) * dst[dd];
  });
  std::vector<int64_t> dw = desc(Direction::BackwardWeights);
  dw[kHasBias] = 0;
  ASSERT_EQ(glue.check(dw.data(), error, sizeof error), 0) << error;
  std::vector<float> gotWeights(conv.weightCount(), NAN);
  glue.convolution(dw.data(), src.data(), dst.data(), nullptr,
                   gotWeights.data());
  expectNear(gotWeights, wantWeights, "backward weights");
  // A second call finds the primitive built by the first.
  std::fill(gotWeights.begin(), gotWeights.end(), NAN);
  glue.convolution(dw.data(), src.data(), dst.data(), nullptr,
                   gotWeights.data());
  expectNear(gotWeights, wantWeights, "backward weights, again");
}

TEST_P(DnnlConvolution, AllDirectionsMatchLoops) {
  allDirectionsMatchLoops(make(GetParam()), Algorithm::Direct);
}

// Winograd's algorithm (descriptor format 4's algorithm slot) computes what
// the direct one does, within rounding, in every direction, for the shapes
// it takes (2-D 3x3, strides and dilations 1, one group); where oneDNN has
// no Winograd kernel on this CPU the check says so.
TEST_P(DnnlConvolution, WinogradMatchesLoops) {
  const Case &k = GetParam();
  auto ones = [](const std::vector<int64_t> &v) {
    return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 1; });
  };
  if (k.spatial != 2 || k.kernel != std::vector<int64_t>{3, 3} ||
      !ones(k.stride) || !ones(k.dilation) || k.groups != 1)
    GTEST_SKIP() << "not a shape Winograd's algorithm takes";
  Conv conv = make(k);
  std::vector<int64_t> d = conv.desc(Direction::Forward);
  d[kAlgorithm] = static_cast<int64_t>(Algorithm::Winograd);
  char error[256] = {0};
  if (dnnlGlue().check(d.data(), error, sizeof error) != 0) {
    EXPECT_NE(std::string(error).find("no Winograd kernel"), std::string::npos)
        << error;
    GTEST_SKIP() << error;
  }
  allDirectionsMatchLoops(conv, Algorithm::Winograd);
}

/// [N, C, S...] `values` (`spatial` points per channel) laid out [N, S..., C].
std::vector<float> toChannelsLast(const std::vector<float> &values, int64_t n,
                                  int64_t channels, int64_t spatial) {
  std::vector<float> out(values.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t p = 0; p < spatial; ++p)
        out[(i * spatial + p) * channels + c] =
            values[(i * channels + c) * spatial + p];
  return out;
}

// The forward convolution with channels-last images (descriptor format 3's
// layout slot) computes what the channels-first one does, on the same
// values laid out [N, D..., C]; the glue says which layout oneDNN's kernel
// keeps (an answer either way), and refuses channels-last images in the
// other directions.
TEST_P(DnnlConvolution, ChannelsLastForwardMatchesLoops) {
  const DnnlGlue &glue = dnnlGlue();
  ASSERT_NE(glue.prefersChannelsLast, nullptr);
  Conv conv = make(GetParam());
  std::vector<float> src = random(conv.srcCount(), 1),
                     weights = random(conv.weightCount(), 2),
                     biasM = random(conv.k.m, 4);
  int64_t outPoints = Conv::prod(conv.out), inPoints = Conv::prod(conv.k.size);
  std::vector<double> want = conv.forward(src, weights, biasM);
  std::vector<double> wantLast(want.size());
  for (int64_t i = 0; i < conv.k.n; ++i)
    for (int64_t m = 0; m < conv.k.m; ++m)
      for (int64_t p = 0; p < outPoints; ++p)
        wantLast[(i * outPoints + p) * conv.k.m + m] =
            want[(i * conv.k.m + m) * outPoints + p];

  std::vector<int64_t> d = conv.desc(Direction::Forward);
  int prefers = glue.prefersChannelsLast(d.data());
  EXPECT_TRUE(prefers == 0 || prefers == 1);
  d[kActivationLayout] = static_cast<int64_t>(ActivationLayout::ChannelsLast);
  char error[256] = {0};
  ASSERT_EQ(glue.check(d.data(), error, sizeof error), 0) << error;
  // The layout slot does not change the answer.
  EXPECT_EQ(glue.prefersChannelsLast(d.data()), prefers);
  std::vector<float> srcLast =
      toChannelsLast(src, conv.k.n, conv.k.c, inPoints);
  std::vector<float> got(conv.dstCount(), NAN);
  glue.convolution(d.data(), srcLast.data(), weights.data(),
                   conv.k.bias ? biasM.data() : nullptr, got.data());
  expectNear(got, wantLast, "forward, channels last");

  for (Direction other : {Direction::BackwardData, Direction::BackwardWeights}) {
    std::vector<int64_t> back = conv.desc(other);
    back[kHasBias] = 0;
    EXPECT_EQ(glue.prefersChannelsLast(back.data()), 0);
    back[kActivationLayout] =
        static_cast<int64_t>(ActivationLayout::ChannelsLast);
    EXPECT_NE(glue.check(back.data(), error, sizeof error), 0);
    EXPECT_NE(std::string(error).find("forward convolutions only"),
              std::string::npos)
        << error;
  }
}

float fromBF16(uint16_t b) {
  uint32_t bits = uint32_t(b) << 16;
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

/// `values` rounded to bf16, and the rounded values as floats.
std::vector<uint16_t> roundBF16(std::vector<float> &values) {
  std::vector<uint16_t> out;
  for (float &x : values) {
    out.push_back(roundToBFloat16(x));
    x = fromBF16(out.back());
  }
  return out;
}

/// bf16 results: exact products summed in f32, rounded once.
void expectNearBF16(const std::vector<uint16_t> &got,
                    const std::vector<double> &want, const char *what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(fromBF16(got[i]), want[i],
                std::ldexp(std::fabs(want[i]), -8) + 1e-4)
        << what << " element " << i;
}

// The same convolutions on bf16 operands (bf16 activations and weights, the
// weight gradient in f32 or bf16), where oneDNN has kernels for them; on
// other CPUs the check refuses them, naming why.
TEST_P(DnnlConvolution, BFloat16MatchesLoops) {
  const DnnlGlue &glue = dnnlGlue();
  Conv conv = make(GetParam());
  std::vector<float> src = random(conv.srcCount(), 1),
                     weights = random(conv.weightCount(), 2),
                     dst = random(conv.dstCount(), 3), bias = random(conv.k.m, 4);
  std::vector<uint16_t> src16 = roundBF16(src), weights16 = roundBF16(weights),
                        dst16 = roundBF16(dst), bias16 = roundBF16(bias);
  auto typed = [&](Direction direction, ElementType out) {
    std::vector<int64_t> d = conv.desc(direction);
    for (int slot : {kSrcType, kWeightsType, kDstType})
      d[slot] = static_cast<int64_t>(ElementType::BF16);
    d[kBiasType] = static_cast<int64_t>(
        conv.k.bias ? ElementType::BF16 : ElementType::F32);
    d[direction == Direction::BackwardWeights ? kWeightsType : kDstType] =
        static_cast<int64_t>(out);
    return d;
  };
  char error[256] = {0};
  std::vector<int64_t> d = typed(Direction::Forward, ElementType::BF16);
  if (glue.check(d.data(), error, sizeof error) != 0)
    GTEST_SKIP() << "no bf16 convolution here: " << error;

  std::vector<double> want = conv.forward(src, weights, bias);
  std::vector<uint16_t> got(conv.dstCount(), 0xffff);
  glue.convolution(d.data(), src16.data(), weights16.data(),
                   conv.k.bias ? bias16.data() : nullptr, got.data());
  expectNearBF16(got, want, "forward");

  d = typed(Direction::BackwardData, ElementType::BF16);
  d[kHasBias] = 0;
  d[kBiasType] = static_cast<int64_t>(ElementType::F32);
  ASSERT_EQ(glue.check(d.data(), error, sizeof error), 0) << error;
  std::vector<double> wantData(conv.srcCount(), 0.0);
  conv.forEachTerm([&](int64_t s, int64_t w, int64_t dd) {
    wantData[s] += double(dst[dd]) * weights[w];
  });
  std::vector<uint16_t> gotData(conv.srcCount(), 0xffff);
  glue.convolution(d.data(), dst16.data(), weights16.data(), nullptr,
                   gotData.data());
  expectNearBF16(gotData, wantData, "backward data");
  // Its bias the glue adds in f32 only.
  d[kHasBias] = 1;
  d[kBiasType] = static_cast<int64_t>(ElementType::BF16);
  EXPECT_NE(glue.check(d.data(), error, sizeof error), 0);
  EXPECT_NE(std::string(error).find("f32 only"), std::string::npos) << error;

  std::vector<double> wantWeights(conv.weightCount(), 0.0);
  conv.forEachTerm([&](int64_t s, int64_t w, int64_t dd) {
    wantWeights[w] += double(src[s]) * dst[dd];
  });
  d = typed(Direction::BackwardWeights, ElementType::F32);
  d[kHasBias] = 0;
  d[kBiasType] = static_cast<int64_t>(ElementType::F32);
  ASSERT_EQ(glue.check(d.data(), error, sizeof error), 0) << error;
  std::vector<float> gotWeights(conv.weightCount(), NAN);
  glue.convolution(d.data(), src16.data(), dst16.data(), nullptr,
                   gotWeights.data());
  expectNear(gotWeights, wantWeights, "backward weights in f32");
  d = typed(Direction::BackwardWeights, ElementType::BF16);
  d[kHasBias] = 0;
  d[kBiasType] = static_cast<int64_t>(ElementType::F32);
  ASSERT_EQ(glue.check(d.data(), error, sizeof error), 0) << error;
  std::vector<uint16_t> gotWeights16(conv.weightCount(), 0xffff);
  glue.convolution(d.data(), src16.data(), dst16.data(), nullptr,
                   gotWeights16.data());
  expectNearBF16(gotWeights16, wantWeights, "backward weights in bf16");
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, DnnlConvolution,
    ::testing::Values(
        // One channel per image (an average pooling's gradient convolves
        // such a view), nine outputs: blocked layouts would pad it; the
        // glue keeps it plain.
        Case{2,
             3,
             1,
             9,
             1,
             {12, 11},
             {3, 3},
             {2, 2},
             {1, 1},
             {1, 1},
             {1, 1},
             false},
        // ResNet-like 3x3, pad 1, with bias.
        Case{2,
             2,
             8,
             16,
             1,
             {9, 9},
             {3, 3},
             {1, 1},
             {1, 1},
             {1, 1},
             {1, 1},
             true},
        // Strided 7x7 stem, odd sizes, uneven pads.
        Case{2,
             1,
             3,
             8,
             1,
             {13, 11},
             {7, 5},
             {2, 3},
             {1, 1},
             {3, 2},
             {2, 1},
             false},
        // Depthwise (groups = channels) with a channel multiplier of 2.
        Case{2,
             2,
             6,
             12,
             6,
             {8, 8},
             {3, 3},
             {2, 2},
             {1, 1},
             {1, 1},
             {1, 1},
             true},
        // 3x3 without padding or bias, more channels than a SIMD block,
        // sizes that are no multiple of Winograd's 4x4 tiles.
        Case{2,
             3,
             20,
             24,
             1,
             {11, 7},
             {3, 3},
             {1, 1},
             {1, 1},
             {0, 0},
             {0, 0},
             false},
        // Grouped and dilated.
        Case{2,
             1,
             8,
             4,
             2,
             {10, 10},
             {3, 3},
             {1, 1},
             {2, 2},
             {2, 2},
             {2, 2},
             false},
        // One spatial dimension (audio, text).
        Case{1, 3, 4, 5, 1, {17}, {3}, {2}, {1}, {1}, {0}, true},
        // Three spatial dimensions.
        Case{3,
             1,
             2,
             3,
             1,
             {5, 6, 4},
             {3, 2, 3},
             {1, 2, 1},
             {1, 1, 1},
             {1, 0, 1},
             {1, 1, 1},
             false}));

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NNC_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define NNC_TEST_ASAN 1
#endif

/// The process's anonymous resident bytes (heap and anonymous mappings)
/// that hold live data: free memory the allocator caches (per-thread
/// arenas, which the convolutions' worker threads fill in an order that
/// varies from run to run) is handed back first.
int64_t residentAnonymousBytes() {
  malloc_trim(0);
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("RssAnon:", 0) == 0)
      return std::stoll(line.substr(8)) * 1024;
  return -1;
}

// The layouts oneDNN wants for each primitive are staging memory for one
// call: primitives built for many layers must not each keep theirs (ResNet-18's
// training step held 680 MB of them, outside the memory plan). Twelve
// convolutions whose operands oneDNN reorders, 31 MB of staging in all (and
// as much resident afterwards when each primitive kept its own), leave less
// than two of the largest calls' worth resident.
TEST(DnnlConvolutionMemory, StagingIsNotKeptPerPrimitive) {
#ifdef NNC_TEST_ASAN
  GTEST_SKIP() << "AddressSanitizer keeps freed memory in its quarantine";
#endif
  const DnnlGlue &glue = dnnlGlue();
  ASSERT_TRUE(glue.status.isOk()) << glue.status.message();
  int64_t before = residentAnonymousBytes();
  ASSERT_GT(before, 0);
  // The operands, as large as the largest case, allocated (and touched)
  // before the measurement.
  const int64_t batch = 12, channels = 16, side = 56;
  std::vector<float> src = random(batch * channels * side * side, 1);
  std::vector<float> weights = random(channels * channels * 9, 2);
  std::vector<float> dst(batch * channels * side * side, 0.f);
  before = residentAnonymousBytes();
  int64_t staging = 0;
  for (int64_t n = 1; n <= batch; ++n) {
    Conv conv = make(Case{2,
                          n,
                          channels,
                          channels,
                          1,
                          {side, side},
                          {3, 3},
                          {1, 1},
                          {1, 1},
                          {1, 1},
                          {1, 1},
                          false});
    std::vector<int64_t> d = conv.desc(Direction::Forward);
    char error[256] = {0};
    ASSERT_EQ(glue.check(d.data(), error, sizeof error), 0) << error;
    glue.convolution(d.data(), src.data(), weights.data(), nullptr, dst.data());
    staging += (conv.srcCount() + conv.dstCount()) * int64_t(sizeof(float));
  }
  int64_t grown = residentAnonymousBytes() - before;
  int64_t largestCall =
      2 * batch * channels * side * side * int64_t(sizeof(float));
  EXPECT_LT(grown, 2 * largestCall) << "grew by " << grown << " bytes over "
                                    << staging << " bytes of staging in all";
}

// Constant weights (kConstantWeights): the first call keeps them in
// oneDNN's layout and later calls use that copy, whatever the buffer holds
// by then, until nnc_dnnl_forget_constants drops the copies of that range;
// then the next call reorders what the buffer holds. A descriptor without
// the flag reads the buffer every call.
// Direct, and Winograd where oneDNN has it (its inference kernel takes the
// weights transformed: the kept copy is that transform).
class DnnlConvolutionConstants : public ::testing::TestWithParam<Algorithm> {};

TEST_P(DnnlConvolutionConstants, KeptUntilForgotten) {
  const DnnlGlue &glue = dnnlGlue();
  ASSERT_TRUE(glue.status.isOk()) << glue.status.message();
  ASSERT_NE(glue.forgetConstants, nullptr);
  // 32 channels: oneDNN's kernels want blocked weights, so there is a
  // reorder to keep.
  Conv conv = make(Case{2, 2, 32, 32, 1, {9, 9}, {3, 3}, {1, 1}, {1, 1},
                        {1, 1}, {1, 1}, false});
  std::vector<int64_t> d = conv.desc(Direction::Forward);
  d[kAlgorithm] = static_cast<int64_t>(GetParam());
  d[kConstantWeights] = 1;
  char error[256] = {0};
  if (GetParam() == Algorithm::Winograd &&
      glue.check(d.data(), error, sizeof error) != 0)
    GTEST_SKIP() << "no Winograd kernel here: " << error;
  ASSERT_EQ(glue.check(d.data(), error, sizeof error), 0) << error;
  std::vector<float> src = random(conv.srcCount(), 1);
  std::vector<float> first = random(conv.weightCount(), 2);
  std::vector<float> second = random(conv.weightCount(), 3);
  std::vector<float> weights = first;
  std::vector<float> got(conv.dstCount(), NAN);
  glue.convolution(d.data(), src.data(), weights.data(), nullptr, got.data());
  expectNear(got, conv.forward(src, first, {}), "first call");
  // Other bytes at the same address: the kept copy still answers.
  // (assignment between equal sizes keeps the vector's buffer)
  float *address = weights.data();
  weights = second;
  ASSERT_EQ(weights.data(), address);
  glue.convolution(d.data(), src.data(), weights.data(), nullptr, got.data());
  expectNear(got, conv.forward(src, first, {}), "kept copy");
  // Without the flag the same convolution reads the buffer.
  std::vector<int64_t> plainDesc = conv.desc(Direction::Forward);
  plainDesc[kAlgorithm] = d[kAlgorithm];
  ASSERT_EQ(glue.check(plainDesc.data(), error, sizeof error), 0) << error;
  glue.convolution(plainDesc.data(), src.data(), weights.data(), nullptr,
                   got.data());
  expectNear(got, conv.forward(src, second, {}), "unflagged");
  // A range that misses the buffer drops nothing; one that covers its
  // first byte drops its copy.
  glue.forgetConstants(weights.data() + weights.size(), 1 << 20);
  glue.convolution(d.data(), src.data(), weights.data(), nullptr, got.data());
  expectNear(got, conv.forward(src, first, {}), "another range forgotten");
  glue.forgetConstants(weights.data(), 1);
  glue.convolution(d.data(), src.data(), weights.data(), nullptr, got.data());
  expectNear(got, conv.forward(src, second, {}), "after forgetting");
  glue.forgetConstants(weights.data(), weights.size() * sizeof(float));
}

INSTANTIATE_TEST_SUITE_P(Algorithms, DnnlConvolutionConstants,
                         ::testing::Values(Algorithm::Direct,
                                           Algorithm::Winograd));

// A flag other than 0 or 1 is refused.
TEST(DnnlConvolutionConstantFlag, RefusesBadFlag) {
  const DnnlGlue &glue = dnnlGlue();
  ASSERT_TRUE(glue.status.isOk()) << glue.status.message();
  Conv conv = make(Case{2, 1, 8, 8, 1, {5, 5}, {3, 3}, {1, 1}, {1, 1},
                        {0, 0}, {0, 0}, false});
  std::vector<int64_t> d = conv.desc(Direction::Forward);
  d[kConstantWeights] = 2;
  char error[256] = {0};
  EXPECT_NE(glue.check(d.data(), error, sizeof error), 0);
  EXPECT_NE(std::string(error).find("constant weights flag 2"),
            std::string::npos)
      << error;
}

// Blocked layouts pad the channels to a multiple of 8 or 16: a convolution
// with one input channel and nine outputs (the compiler once extracted
// max-pool windows with one; an average pooling's gradient still
// convolves a one-channel view) would stage its images at several times
// their size, so the glue keeps them in nnc's plain layout. Its input
// gradient over 64 images of 112 x 112 stages less than its operands' size.
TEST(DnnlConvolutionMemory, PaddedLayoutsAreNotStaged) {
#ifdef NNC_TEST_ASAN
  GTEST_SKIP() << "AddressSanitizer keeps freed memory in its quarantine";
#endif
  const DnnlGlue &glue = dnnlGlue();
  ASSERT_TRUE(glue.status.isOk()) << glue.status.message();
  Conv conv = make(Case{2, 64, 1, 9, 1, {112, 112}, {3, 3}, {2, 2}, {1, 1},
                        {1, 1}, {1, 1}, false});
  std::vector<float> dst = random(conv.dstCount(), 1);
  std::vector<float> weights = random(conv.weightCount(), 2);
  std::vector<float> src(conv.srcCount(), 0.f);
  int64_t before = residentAnonymousBytes();
  std::vector<int64_t> d = conv.desc(Direction::BackwardData);
  char error[256] = {0};
  ASSERT_EQ(glue.check(d.data(), error, sizeof error), 0) << error;
  glue.convolution(d.data(), dst.data(), weights.data(), nullptr, src.data());
  int64_t grown = residentAnonymousBytes() - before;
  int64_t operands =
      (conv.srcCount() + conv.dstCount()) * int64_t(sizeof(float));
  EXPECT_LT(grown, operands) << "grew by " << grown << " bytes";
}

TEST(DnnlConvolutionCheck, RefusesMalformedDescriptors) {
  const DnnlGlue &glue = dnnlGlue();
  ASSERT_TRUE(glue.status.isOk()) << glue.status.message();
  EXPECT_NE(std::string(glue.version()).find("oneDNN "), std::string::npos);
  Conv conv = make(Case{
      2, 1, 4, 4, 1, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, false});
  char error[256] = {0};
  std::vector<int64_t> d = conv.desc(Direction::Forward);
  d[kVersion] = 99;
  EXPECT_NE(glue.check(d.data(), error, sizeof error), 0);
  EXPECT_NE(std::string(error).find("descriptor format 99"), std::string::npos)
      << error;
  d = conv.desc(Direction::Forward);
  d[kSrcType] = 7; // no such element type
  EXPECT_NE(glue.check(d.data(), error, sizeof error), 0);
  EXPECT_NE(std::string(error).find("element type"), std::string::npos)
      << error;
  // Format 1, which has no type slots (all f32), is still read, and
  // format 2, which has no layout slot (channels first).
  d = conv.desc(Direction::Forward);
  d[kVersion] = 1;
  d.resize(kLengthFormat1);
  EXPECT_EQ(glue.check(d.data(), error, sizeof error), 0) << error;
  EXPECT_GE(glue.prefersChannelsLast(d.data()), 0);
  d = conv.desc(Direction::Forward);
  d[kVersion] = 2;
  d.resize(kLengthFormat2);
  EXPECT_EQ(glue.check(d.data(), error, sizeof error), 0) << error;
  // Format 3, which has no algorithm slot (direct).
  d = conv.desc(Direction::Forward);
  d[kVersion] = 3;
  d.resize(kLengthFormat3);
  EXPECT_EQ(glue.check(d.data(), error, sizeof error), 0) << error;
  EXPECT_GE(glue.prefersChannelsLast(d.data()), 0);
  d = conv.desc(Direction::Forward);
  d[kAlgorithm] = 5; // no such algorithm
  EXPECT_NE(glue.check(d.data(), error, sizeof error), 0);
  EXPECT_NE(std::string(error).find("algorithm 5"), std::string::npos)
      << error;
  // Winograd where oneDNN has no kernel for it (pads of 2; no AVX-512).
  d = make(Case{2, 1, 4, 4, 1, {6, 6}, {3, 3}, {1, 1}, {1, 1}, {2, 2}, {2, 2},
                false})
          .desc(Direction::Forward);
  d[kAlgorithm] = static_cast<int64_t>(Algorithm::Winograd);
  EXPECT_NE(glue.check(d.data(), error, sizeof error), 0);
  EXPECT_NE(std::string(error).find("no Winograd kernel"), std::string::npos)
      << error;
  d = conv.desc(Direction::Forward);
  d[kActivationLayout] = 2; // no such layout
  EXPECT_NE(glue.check(d.data(), error, sizeof error), 0);
  EXPECT_NE(std::string(error).find("invalid convolution descriptor"),
            std::string::npos)
      << error;
  d[kVersion] = 99;
  EXPECT_EQ(glue.prefersChannelsLast(d.data()), 0);
  d = conv.desc(Direction::Forward);
  d[kGroups] = 3; // does not divide the channels
  EXPECT_NE(glue.check(d.data(), error, sizeof error), 0);
  d = conv.desc(Direction::Forward);
  d[kDstSizes] = 5; // not the size the formula gives
  EXPECT_NE(glue.check(d.data(), error, sizeof error), 0);
  EXPECT_NE(std::string(error).find("oneDNN"), std::string::npos) << error;
}

} // namespace

// nnc_dnnl_sbgemm against a double reference on bf16-rounded operands, over
// both transposes, leading dimensions wider than the rows, alpha and beta,
// and column-major order; where oneDNN has no bf16 kernels here, the check
// refuses, naming why.
/// Runs `gemm(order, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta,
/// c, ldc)` (CBLAS's arguments; it may round A and B in place to what it
/// computes on) on shapes covering both orders, every transpose, padded
/// leading dimensions, alpha and beta, against a reference in double.
template <typename Gemm> void expectGemmMatchesReference(Gemm gemm) {
  constexpr int32_t kRow = 101, kCol = 102, kN = 111, kT = 112;
  struct Shape {
    int32_t order, transA, transB, m, n, k, pad;
    float alpha, beta;
  };
  for (Shape s : {Shape{kRow, kN, kN, 33, 17, 70, 0, 1.f, 0.f},
                  Shape{kRow, kT, kN, 8, 40, 64, 3, 1.f, 1.f},
                  Shape{kRow, kN, kT, 64, 64, 9, 5, 0.5f, 0.f},
                  Shape{kRow, kT, kT, 5, 7, 130, 1, 2.f, -1.f},
                  Shape{kCol, kN, kT, 12, 20, 31, 2, 1.f, 0.25f}}) {
    bool row = s.order == kRow;
    bool ta = s.transA == kT, tb = s.transB == kT;
    // Storage of op(A) [m, k] and op(B) [k, n] in the given order.
    int32_t aRows = (ta != !row) ? s.k : s.m, aCols = (ta != !row) ? s.m : s.k;
    int32_t bRows = (tb != !row) ? s.n : s.k, bCols = (tb != !row) ? s.k : s.n;
    int32_t cRows = row ? s.m : s.n, cCols = row ? s.n : s.m;
    int32_t lda = aCols + s.pad, ldb = bCols + s.pad, ldc = cCols + s.pad;
    std::vector<float> a = random(int64_t(aRows) * lda, 7),
                       b = random(int64_t(bRows) * ldb, 8),
                       c = random(int64_t(cRows) * ldc, 9);
    auto at = [&](const std::vector<float> &v, int32_t ld, int32_t i,
                  int32_t j) { return row ? v[int64_t(i) * ld + j]
                                          : v[int64_t(j) * ld + i]; };
    std::vector<float> got = c;
    gemm(s.order, s.transA, s.transB, s.m, s.n, s.k, s.alpha, a, lda, b, ldb,
         s.beta, got.data(), ldc);
    for (int32_t i = 0; i < s.m; ++i)
      for (int32_t j = 0; j < s.n; ++j) {
        double sum = 0;
        for (int32_t p = 0; p < s.k; ++p)
          sum += double(ta ? at(a, lda, p, i) : at(a, lda, i, p)) *
                 (tb ? at(b, ldb, j, p) : at(b, ldb, p, j));
        int64_t ci = row ? int64_t(i) * ldc + j : int64_t(j) * ldc + i;
        double want = s.alpha * sum + s.beta * c[ci];
        ASSERT_NEAR(got[ci], want, 1e-4 * (1 + std::fabs(want)))
            << "order " << s.order << " trans " << s.transA << "/" << s.transB
            << " element " << i << "," << j;
      }
    // The padding between rows is not written.
    for (int32_t r = 0; r < cRows; ++r)
      for (int32_t j = cCols; j < ldc; ++j)
        ASSERT_EQ(got[int64_t(r) * ldc + j], c[int64_t(r) * ldc + j]);
  }
}

TEST(DnnlSbgemm, MatchesReference) {
  const DnnlGlue &glue = dnnlGlue();
  ASSERT_TRUE(glue.status.isOk()) << glue.status.message();
  ASSERT_TRUE(glue.sbgemm && glue.sbgemmCheck);
  char error[256] = {0};
  if (glue.sbgemmCheck(error, sizeof error) != 0)
    GTEST_SKIP() << "no bf16 GEMM here: " << error;
  expectGemmMatchesReference(
      [&](int32_t order, int32_t ta, int32_t tb, int32_t m, int32_t n,
          int32_t k, float alpha, std::vector<float> &a, int32_t lda,
          std::vector<float> &b, int32_t ldb, float beta, float *c,
          int32_t ldc) {
        std::vector<uint16_t> a16 = roundBF16(a), b16 = roundBF16(b);
        glue.sbgemm(order, ta, tb, m, n, k, alpha, a16.data(), lda,
                    b16.data(), ldb, beta, c, ldc);
      });
}

// The f32 GEMM the CPU target calls by default where oneDNN has brgemm
// kernels; its check names oneDNN's implementation.
TEST(DnnlSgemm, MatchesReference) {
  const DnnlGlue &glue = dnnlGlue();
  ASSERT_TRUE(glue.status.isOk()) << glue.status.message();
  ASSERT_TRUE(glue.sgemm && glue.sgemmCheck);
  char text[256] = {0};
  if (glue.sgemmCheck(text, sizeof text) != 0)
    GTEST_SKIP() << "no f32 GEMM here: " << text;
  EXPECT_NE(std::string(text), "");
  EXPECT_NE(std::string(text).rfind("ref", 0), 0u) << text;
  expectGemmMatchesReference(
      [&](int32_t order, int32_t ta, int32_t tb, int32_t m, int32_t n,
          int32_t k, float alpha, std::vector<float> &a, int32_t lda,
          std::vector<float> &b, int32_t ldb, float beta, float *c,
          int32_t ldc) {
        glue.sgemm(order, ta, tb, m, n, k, alpha, a.data(), lda, b.data(),
                   ldb, beta, c, ldc);
      });
}
