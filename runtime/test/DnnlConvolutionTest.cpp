//===- DnnlConvolutionTest.cpp - the oneDNN glue against loops ------------===//
//
// libnnc_dnnl.so's three directions against a direct loop reference, over
// groups (depthwise included), strides, pads, dilations, bias and one to
// three spatial dimensions; a malformed descriptor is refused by the check.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/Device.h"
#include "nnc/runtime/LibraryConvolution.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <malloc.h>
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

TEST_P(DnnlConvolution, AllDirectionsMatchLoops) {
  const DnnlGlue &glue = dnnlGlue();
  Conv conv = make(GetParam());
  std::vector<float> src = random(conv.srcCount(), 1),
                     weights = random(conv.weightCount(), 2),
                     dst = random(conv.dstCount(), 3),
                     biasM = random(conv.k.m, 4), biasC = random(conv.k.c, 5);
  int64_t outPoints = Conv::prod(conv.out), inPoints = Conv::prod(conv.k.size);

  // Forward.
  std::vector<double> want(conv.dstCount(), 0.0);
  if (conv.k.bias)
    for (int64_t i = 0; i < conv.dstCount(); ++i)
      want[i] = biasM[(i / outPoints) % conv.k.m];
  conv.forEachTerm([&](int64_t s, int64_t w, int64_t d) {
    want[d] += double(src[s]) * weights[w];
  });
  std::vector<int64_t> d = conv.desc(Direction::Forward);
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
  d = conv.desc(Direction::BackwardData);
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
  std::vector<int64_t> dw = conv.desc(Direction::BackwardWeights);
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

INSTANTIATE_TEST_SUITE_P(
    Shapes, DnnlConvolution,
    ::testing::Values(
        // A max-pool's window extraction: one channel per image, nine
        // outputs (blocked layouts would pad it; the glue keeps it plain).
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

// Blocked layouts pad the channels to a multiple of 8 or 16: a convolution
// with one input channel and nine outputs (a max-pool's window extraction,
// which the compiler writes as one) would stage its images at several times
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
  d[kGroups] = 3; // does not divide the channels
  EXPECT_NE(glue.check(d.data(), error, sizeof error), 0);
  d = conv.desc(Direction::Forward);
  d[kDstSizes] = 5; // not the size the formula gives
  EXPECT_NE(glue.check(d.data(), error, sizeof error), 0);
  EXPECT_NE(std::string(error).find("oneDNN"), std::string::npos) << error;
}

} // namespace
