//===- DnnlConvolution.cpp - the oneDNN glue of the CPU backend -----------===//
//
// libnnc_dnnl.so: convolutions and their two gradients through oneDNN's
// primitives, as PyTorch runs them on the CPU. Generated code calls
// nnc_dnnl_convolution with a constant descriptor (LibraryConvolution.h);
// the first call of a descriptor creates the primitive, letting oneDNN pick
// its memory layouts (format_tag::any), plus the reorders between those and
// the plain row-major buffers nnc passes; later calls find it in a
// process-wide table. The CPU device opens this library (and with it
// libdnnl) only for code that calls it.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/LibraryConvolution.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <unordered_map>

namespace {

using namespace nnc::runtime::libconv;
using dnnl::memory;
using Dims = memory::dims;

dnnl::engine &engine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

/// Dense row-major strides of `dims`.
Dims denseStrides(const Dims &dims) {
  Dims strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;)
    strides[i - 1] = strides[i] * dims[i];
  return strides;
}

memory::desc plain(const Dims &dims) {
  return memory::desc(dims, memory::data_type::f32, denseStrides(dims));
}

memory::desc anyLayout(const Dims &dims) {
  return memory::desc(dims, memory::data_type::f32, memory::format_tag::any);
}

/// The memory a thread's convolutions reorder their operands into: the
/// layouts oneDNN wants live for one call only, so each thread keeps one
/// buffer as large as its largest call needed, rather than every primitive
/// keeping buffers of its own for good (which grew with the model, outside
/// the memory plan: about 680 MB for ResNet-18's training step at batch 8).
class Staging {
public:
  Staging() = default;
  Staging(const Staging &) = delete;
  Staging &operator=(const Staging &) = delete;
  ~Staging() { std::free(data_); }

  /// At least `bytes`, 64-byte aligned; null when the allocation fails.
  char *reserve(size_t bytes) {
    if (bytes <= size_)
      return data_;
    std::free(data_);
    size_ = 0;
    data_ = static_cast<char *>(std::aligned_alloc(kAlignment, round(bytes)));
    if (data_)
      size_ = round(bytes);
    return data_;
  }

  static size_t round(size_t bytes) {
    return (bytes + kAlignment - 1) / kAlignment * kAlignment;
  }

  static constexpr size_t kAlignment = 64;

private:
  char *data_ = nullptr;
  size_t size_ = 0;
};

Staging &staging() {
  thread_local Staging buffer;
  return buffer;
}

/// One operand: the plain buffer nnc passes and the layout the primitive
/// wants, with the reorder between them when they differ.
struct Operand {
  memory::desc user;
  memory::desc inside;
  std::optional<dnnl::reorder> reorder;
  /// Bytes of staging memory the reorder needs (0 without one).
  size_t stagingBytes = 0;

  /// For a buffer the primitive reads (`toInside`) or writes.
  void prepare(const memory::desc &wanted, bool toInside) {
    inside = wanted;
    if (inside == user)
      return;
    stagingBytes = Staging::round(inside.get_size());
    if (toInside)
      reorder.emplace(
          dnnl::reorder::primitive_desc(engine(), user, engine(), inside));
    else
      reorder.emplace(
          dnnl::reorder::primitive_desc(engine(), inside, engine(), user));
  }
};

struct Convolution {
  Direction direction = Direction::Forward;
  dnnl::primitive primitive;
  int argA = 0, argB = 0, argOut = 0;
  Operand a, b, out;
  /// The primitive's scratchpad, which this library hands it per call
  /// (scratchpad_mode::user): Debian's oneDNN is built for concurrent
  /// execution, where a library-managed scratchpad is kept by each primitive
  /// for its life (ResNet-18's weight gradients: about 300 MB in all).
  memory::desc scratchpad;
  size_t scratchpadBytes = 0;
  bool bias = false;
  memory::desc biasDesc;
  /// Backward data with a bias: added to the result after the primitive.
  int64_t biasChannels = 0, biasBatch = 0, biasInner = 0;
  /// One run of the primitive at a time.
  std::mutex mutex;

  void run(void *pa, void *pb, void *pc, void *pout) {
    std::lock_guard<std::mutex> lock(mutex);
    thread_local dnnl::stream stream(engine());
    memory userA(a.user, engine(), pa), userB(b.user, engine(), pb),
        userOut(out.user, engine(), pout);
    size_t total =
        a.stagingBytes + b.stagingBytes + out.stagingBytes + scratchpadBytes;
    char *base = staging().reserve(total);
    if (!base && total)
      throw std::bad_alloc();
    size_t offset = 0;
    auto inside = [&](Operand &op, memory &user) -> memory {
      if (!op.reorder)
        return user;
      memory staged(op.inside, engine(), base + offset);
      offset += op.stagingBytes;
      return staged;
    };
    memory insideA = inside(a, userA), insideB = inside(b, userB),
           insideOut = inside(out, userOut);
    if (a.reorder)
      a.reorder->execute(stream, userA, insideA);
    if (b.reorder)
      b.reorder->execute(stream, userB, insideB);
    std::unordered_map<int, memory> args = {
        {argA, insideA}, {argB, insideB}, {argOut, insideOut}};
    if (scratchpadBytes)
      args.insert(
          {DNNL_ARG_SCRATCHPAD, memory(scratchpad, engine(), base + offset)});
    std::optional<memory> biasMemory;
    if (bias && direction == Direction::Forward && pc) {
      biasMemory.emplace(biasDesc, engine(), pc);
      args.insert({DNNL_ARG_BIAS, *biasMemory});
    }
    primitive.execute(stream, args);
    if (out.reorder)
      out.reorder->execute(stream, insideOut, userOut);
    stream.wait();
    if (direction == Direction::BackwardData && bias && pc) {
      const float *biasValues = static_cast<const float *>(pc);
      float *result = static_cast<float *>(pout);
      for (int64_t n = 0; n < biasBatch; ++n)
        for (int64_t c = 0; c < biasChannels; ++c) {
          float v = biasValues[c];
          float *row = result + (n * biasChannels + c) * biasInner;
          for (int64_t i = 0; i < biasInner; ++i)
            row[i] += v;
        }
    }
  }
};

/// Checks the descriptor's fields and builds its primitive, or says why not.
/// With `plainActivations` the image operands keep nnc's plain layout (only
/// the weights' is oneDNN's choice).
std::unique_ptr<Convolution> buildWith(const int64_t *d, bool plainActivations,
                                       std::string &error) {
  if (d[kVersion] != kFormat) {
    error = "descriptor format " + std::to_string(d[kVersion]) +
            " (this library reads " + std::to_string(kFormat) + ")";
    return nullptr;
  }
  int64_t spatial = d[kSpatial], groups = d[kGroups];
  int64_t n = d[kBatch], c = d[kInChannels], m = d[kOutChannels];
  if (spatial < 1 || spatial > kMaxSpatial || groups < 1 || n < 1 || c < 1 ||
      m < 1 || c % groups || m % groups || d[kDirection] < 0 ||
      d[kDirection] > 2) {
    error = "invalid convolution descriptor";
    return nullptr;
  }
  auto conv = std::make_unique<Convolution>();
  conv->direction = static_cast<Direction>(d[kDirection]);
  conv->bias = d[kHasBias] != 0;
  Dims src = {n, c}, dst = {n, m}, weights;
  if (groups > 1)
    weights = {groups, m / groups, c / groups};
  else
    weights = {m, c};
  Dims strides, dilates, padsBegin, padsEnd;
  int64_t inner = 1;
  for (int64_t i = 0; i < spatial; ++i) {
    src.push_back(d[kSrcSizes + i]);
    dst.push_back(d[kDstSizes + i]);
    weights.push_back(d[kKernelSizes + i]);
    strides.push_back(d[kStrides + i]);
    // oneDNN counts dilation from 0 (dense), ONNX from 1.
    dilates.push_back(d[kDilations + i] - 1);
    padsBegin.push_back(d[kPadsBegin + i]);
    padsEnd.push_back(d[kPadsEnd + i]);
    inner *= d[kSrcSizes + i];
  }
  try {
    const dnnl::engine &eng = engine();
    auto algorithm = dnnl::algorithm::convolution_direct;
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    auto image = [&](const Dims &dims) {
      return plainActivations ? plain(dims) : anyLayout(dims);
    };
    memory::desc biasDesc = plain({m});
    conv->biasDesc = biasDesc;
    bool forwardBias = conv->bias && conv->direction == Direction::Forward;
    // The forward primitive: what runs, or the hint of a backward one.
    auto forwardDesc =
        forwardBias ? dnnl::convolution_forward::desc(
                          conv->direction == Direction::Forward
                              ? dnnl::prop_kind::forward_inference
                              : dnnl::prop_kind::forward_training,
                          algorithm, image(src), anyLayout(weights), biasDesc,
                          image(dst), strides, dilates, padsBegin, padsEnd)
                    : dnnl::convolution_forward::desc(
                          conv->direction == Direction::Forward
                              ? dnnl::prop_kind::forward_inference
                              : dnnl::prop_kind::forward_training,
                          algorithm, image(src), anyLayout(weights), image(dst),
                          strides, dilates, padsBegin, padsEnd);
    dnnl::convolution_forward::primitive_desc forward(forwardDesc, attr, eng);
    switch (conv->direction) {
    case Direction::Forward:
      conv->a.user = plain(src);
      conv->b.user = plain(weights);
      conv->out.user = plain(dst);
      conv->a.prepare(forward.src_desc(), true);
      conv->b.prepare(forward.weights_desc(), true);
      conv->out.prepare(forward.dst_desc(), false);
      conv->argA = DNNL_ARG_SRC;
      conv->argB = DNNL_ARG_WEIGHTS;
      conv->argOut = DNNL_ARG_DST;
      conv->primitive = dnnl::convolution_forward(forward);
      conv->scratchpad = forward.scratchpad_desc();
      break;
    case Direction::BackwardData: {
      dnnl::convolution_backward_data::desc desc(
          algorithm, image(src), anyLayout(weights), image(dst), strides,
          dilates, padsBegin, padsEnd);
      dnnl::convolution_backward_data::primitive_desc pd(desc, attr, eng,
                                                         forward);
      conv->a.user = plain(dst);
      conv->b.user = plain(weights);
      conv->out.user = plain(src);
      conv->a.prepare(pd.diff_dst_desc(), true);
      conv->b.prepare(pd.weights_desc(), true);
      conv->out.prepare(pd.diff_src_desc(), false);
      conv->argA = DNNL_ARG_DIFF_DST;
      conv->argB = DNNL_ARG_WEIGHTS;
      conv->argOut = DNNL_ARG_DIFF_SRC;
      conv->primitive = dnnl::convolution_backward_data(pd);
      conv->scratchpad = pd.scratchpad_desc();
      conv->biasChannels = c;
      conv->biasBatch = n;
      conv->biasInner = inner;
      break;
    }
    case Direction::BackwardWeights: {
      dnnl::convolution_backward_weights::desc desc(
          algorithm, image(src), anyLayout(weights), image(dst), strides,
          dilates, padsBegin, padsEnd);
      dnnl::convolution_backward_weights::primitive_desc pd(desc, attr, eng,
                                                            forward);
      conv->a.user = plain(src);
      conv->b.user = plain(dst);
      conv->out.user = plain(weights);
      conv->a.prepare(pd.src_desc(), true);
      conv->b.prepare(pd.diff_dst_desc(), true);
      conv->out.prepare(pd.diff_weights_desc(), false);
      conv->argA = DNNL_ARG_SRC;
      conv->argB = DNNL_ARG_DIFF_DST;
      conv->argOut = DNNL_ARG_DIFF_WEIGHTS;
      conv->primitive = dnnl::convolution_backward_weights(pd);
      conv->scratchpad = pd.scratchpad_desc();
      break;
    }
    }
    conv->scratchpadBytes = Staging::round(conv->scratchpad.get_size());
  } catch (const dnnl::error &e) {
    error = std::string("oneDNN: ") + e.what();
    return nullptr;
  } catch (const std::exception &e) {
    error = e.what();
    return nullptr;
  }
  return conv;
}

/// The primitive for a descriptor: with the layouts oneDNN prefers, unless
/// they take more than twice the memory of nnc's plain ones for an image
/// operand (blocked layouts pad the channels: a max-pool's window
/// extraction, one channel per image, staged 8 times its size, 300 MB for
/// ResNet-18's first pooling), then with plain images.
std::unique_ptr<Convolution> build(const int64_t *d, std::string &error) {
  std::unique_ptr<Convolution> conv = buildWith(d, false, error);
  if (!conv)
    return nullptr;
  bool padded = false;
  for (const Operand *op : {&conv->a, &conv->b, &conv->out})
    padded |= op->stagingBytes > 2 * op->user.get_size() + 4096;
  if (!padded)
    return conv;
  std::string plainError;
  if (std::unique_ptr<Convolution> plainConv = buildWith(d, true, plainError))
    return plainConv;
  return conv;
}

/// The primitives built so far, by descriptor.
struct Table {
  std::mutex mutex;
  std::unordered_map<std::string, std::unique_ptr<Convolution>> entries;
};

Table &table() {
  static Table *t = new Table; // never destroyed: kernels may run at exit
  return *t;
}

Convolution *lookup(const int64_t *descriptor, std::string &error) {
  std::string key(reinterpret_cast<const char *>(descriptor),
                  sizeof(int64_t) * kLength);
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.entries.find(key);
  if (it != t.entries.end())
    return it->second.get();
  std::unique_ptr<Convolution> conv = build(descriptor, error);
  if (!conv)
    return nullptr;
  return t.entries.emplace(key, std::move(conv)).first->second.get();
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) void
nnc_dnnl_convolution(const int64_t *descriptor, void *a, void *b, void *c,
                     void *out) {
  std::string error;
  Convolution *conv = lookup(descriptor, error);
  if (conv) {
    try {
      conv->run(a, b, c, out);
      return;
    } catch (const dnnl::error &e) {
      error = std::string("oneDNN: ") + e.what();
    } catch (const std::exception &e) {
      error = e.what();
    }
  }
  // The compiler checked this descriptor; only running out of memory or a
  // different libdnnl than it checked against gets here.
  std::fprintf(stderr, "nnc: a oneDNN convolution failed: %s\n", error.c_str());
  std::abort();
}

__attribute__((visibility("default"))) int
nnc_dnnl_convolution_check(const int64_t *descriptor, char *error,
                           size_t size) {
  std::string message;
  if (lookup(descriptor, message))
    return 0;
  if (error && size) {
    std::snprintf(error, size, "%s", message.c_str());
  }
  return 1;
}

__attribute__((visibility("default"))) const char *nnc_dnnl_version() {
  static const std::string text = [] {
    const dnnl_version_t *v = dnnl_version();
    std::string isa;
    switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_sse41:
      isa = "sse41";
      break;
    case dnnl_cpu_isa_avx:
      isa = "avx";
      break;
    case dnnl_cpu_isa_avx2:
      isa = "avx2";
      break;
    case dnnl_cpu_isa_avx512_core:
      isa = "avx512_core";
      break;
    case dnnl_cpu_isa_avx512_core_vnni:
      isa = "avx512_core_vnni";
      break;
    case dnnl_cpu_isa_avx512_core_bf16:
      isa = "avx512_core_bf16";
      break;
    case dnnl_cpu_isa_avx512_core_amx:
      isa = "avx512_core_amx";
      break;
    default:
      isa = std::to_string(int(dnnl_get_effective_cpu_isa()));
      break;
    }
    return "oneDNN " + std::to_string(v->major) + "." +
           std::to_string(v->minor) + "." + std::to_string(v->patch) + " (" +
           (v->hash ? v->hash : "") + ", isa " + isa + ")";
  }();
  return text.c_str();
}

} // extern "C"
