//===- DnnlConvolution.cpp - the oneDNN glue of the CPU backend -----------===//
//
// libnnc_dnnl.so: convolutions and their two gradients through oneDNN's
// primitives, as PyTorch runs them on the CPU, and bf16 GEMMs (f32
// accumulation) through its matmul primitive where the CPU has bf16
// instructions. Generated code calls
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
#include <map>
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

using Type = memory::data_type;

memory::desc plain(const Dims &dims, Type type = Type::f32) {
  return memory::desc(dims, type, denseStrides(dims));
}

/// [N, C, D...] `dims` laid out channels-last: [N, D..., C] dense.
memory::desc channelsLast(const Dims &dims, Type type) {
  Dims strides(dims.size(), 1);
  int64_t stride = dims[1];
  for (size_t i = dims.size(); i-- > 2;) {
    strides[i] = stride;
    stride *= dims[i];
  }
  strides[0] = stride;
  return memory::desc(dims, type, strides);
}

memory::desc anyLayout(const Dims &dims, Type type) {
  return memory::desc(dims, type, memory::format_tag::any);
}

/// The oneDNN type of a descriptor's type slot; nothing for an unknown one.
std::optional<Type> elementType(int64_t slot) {
  switch (static_cast<ElementType>(slot)) {
  case ElementType::F32:
    return Type::f32;
  case ElementType::BF16:
    return Type::bf16;
  case ElementType::F16:
    return Type::f16;
  }
  return std::nullopt;
}

/// The descriptor's length in slots by its format; 0 for an unknown one.
size_t descriptorLength(const int64_t *d) {
  switch (d[kVersion]) {
  case 1:
    return kLengthFormat1;
  case 2:
    return kLengthFormat2;
  case 3:
    return kLengthFormat3;
  case 4:
    return kLengthFormat4;
  case kFormat:
    return kLength;
  default:
    return 0;
  }
}

const char *typeName(Type type) {
  switch (type) {
  case Type::bf16:
    return "bf16";
  case Type::f16:
    return "f16";
  default:
    return "f32";
  }
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

/// Constant weights (the descriptor's kConstantWeights) in the layout a
/// primitive wants, made by the first call that passes them and kept until
/// nnc_dnnl_forget_constants drops them: keyed by the user buffer's
/// address and the primitive (which fixes the layout). A run holds its
/// copy through a shared pointer, so that a forget meanwhile frees it only
/// after that run.
struct ConstantCopy {
  ConstantCopy(size_t bytes)
      : data(static_cast<char *>(std::aligned_alloc(Staging::kAlignment,
                                                    Staging::round(bytes)))) {}
  ConstantCopy(const ConstantCopy &) = delete;
  ConstantCopy &operator=(const ConstantCopy &) = delete;
  ~ConstantCopy() { std::free(data); }
  char *data;
};

struct ConstantStore {
  std::mutex mutex;
  /// By (the weights' address, the Convolution's address).
  std::map<std::pair<uintptr_t, uintptr_t>, std::shared_ptr<ConstantCopy>>
      copies;
};

ConstantStore &constants() {
  static ConstantStore *store = new ConstantStore; // never destroyed
  return *store;
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
  /// The weights (operand b of a forward convolution) are constants: their
  /// reordered copy is kept (ConstantStore).
  bool constantWeights = false;
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
    // Constant weights: the copy in the primitive's layout, made once.
    std::shared_ptr<ConstantCopy> kept;
    if (constantWeights && b.reorder) {
      ConstantStore &store = constants();
      std::lock_guard<std::mutex> keep(store.mutex);
      auto key = std::make_pair(reinterpret_cast<uintptr_t>(pb),
                                reinterpret_cast<uintptr_t>(this));
      auto found = store.copies.find(key);
      if (found != store.copies.end()) {
        kept = found->second;
      } else {
        auto copy = std::make_shared<ConstantCopy>(b.inside.get_size());
        if (!copy->data)
          throw std::bad_alloc();
        memory into(b.inside, engine(), copy->data);
        b.reorder->execute(stream, userB, into);
        stream.wait();
        kept = store.copies.emplace(key, std::move(copy)).first->second;
      }
    }
    size_t total = a.stagingBytes + (kept ? 0 : b.stagingBytes) +
                   out.stagingBytes + scratchpadBytes;
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
    memory insideA = inside(a, userA),
           insideB = kept ? memory(b.inside, engine(), kept->data)
                          : inside(b, userB),
           insideOut = inside(out, userOut);
    if (a.reorder)
      a.reorder->execute(stream, userA, insideA);
    if (b.reorder && !kept)
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
  // Format 1 has no type slots: every operand is f32.
  Type srcType = Type::f32, weightsType = Type::f32, dstType = Type::f32,
       biasType = Type::f32;
  if (d[kVersion] >= 2) {
    std::optional<Type> types[4];
    for (int i = 0; i < 4; ++i)
      types[i] = elementType(d[kSrcType + i]);
    if (!types[0] || !types[1] || !types[2] || !types[3]) {
      error = "invalid element type in the convolution descriptor";
      return nullptr;
    }
    srcType = *types[0], weightsType = *types[1], dstType = *types[2],
    biasType = *types[3];
  }
  bool lowPrecision = srcType != Type::f32 || weightsType != Type::f32 ||
                      dstType != Type::f32 || biasType != Type::f32;
  int64_t spatial = d[kSpatial], groups = d[kGroups];
  int64_t n = d[kBatch], c = d[kInChannels], m = d[kOutChannels];
  int64_t layout = d[kVersion] >= 3
                       ? d[kActivationLayout]
                       : static_cast<int64_t>(ActivationLayout::ChannelsFirst);
  bool imagesLast =
      layout == static_cast<int64_t>(ActivationLayout::ChannelsLast);
  if (spatial < 1 || spatial > kMaxSpatial || groups < 1 || n < 1 || c < 1 ||
      m < 1 || c % groups || m % groups || d[kDirection] < 0 ||
      d[kDirection] > 2 ||
      (layout != static_cast<int64_t>(ActivationLayout::ChannelsFirst) &&
       !imagesLast)) {
    error = "invalid convolution descriptor";
    return nullptr;
  }
  if (imagesLast && d[kDirection] != static_cast<int64_t>(Direction::Forward)) {
    error = "channels-last images are for forward convolutions only";
    return nullptr;
  }
  int64_t algorithmSlot = d[kVersion] >= 4
                              ? d[kAlgorithm]
                              : static_cast<int64_t>(Algorithm::Direct);
  bool winograd = algorithmSlot == static_cast<int64_t>(Algorithm::Winograd);
  if (!winograd && algorithmSlot != static_cast<int64_t>(Algorithm::Direct)) {
    error = "invalid convolution descriptor: algorithm " +
            std::to_string(algorithmSlot);
    return nullptr;
  }
  auto conv = std::make_unique<Convolution>();
  conv->direction = static_cast<Direction>(d[kDirection]);
  int64_t constantFlag = d[kVersion] >= 5 ? d[kConstantWeights] : 0;
  if (constantFlag != 0 && constantFlag != 1) {
    error = "invalid convolution descriptor: constant weights flag " +
            std::to_string(constantFlag);
    return nullptr;
  }
  conv->constantWeights =
      constantFlag == 1 && conv->direction == Direction::Forward;
  conv->bias = d[kHasBias] != 0;
  if (conv->bias && conv->direction == Direction::BackwardData && lowPrecision) {
    // The glue adds that bias itself, in f32 only.
    error = "a transposed convolution with a bias runs in f32 only";
    return nullptr;
  }
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
    auto algorithm = winograd ? dnnl::algorithm::convolution_winograd
                              : dnnl::algorithm::convolution_direct;
    // A forward Winograd primitive for inference expects its weights
    // already transformed (a reorder that costs more than the convolution
    // on every call, the weights being an argument); the training one
    // transforms them inside. Constant weights are transformed once, by
    // the reorder whose result the glue keeps.
    auto forwardKind =
        conv->direction == Direction::Forward &&
                (!winograd || conv->constantWeights)
            ? dnnl::prop_kind::forward_inference
            : dnnl::prop_kind::forward_training;
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    // An image operand in the buffer nnc passes.
    auto userImage = [&](const Dims &dims, Type type) {
      return imagesLast ? channelsLast(dims, type) : plain(dims, type);
    };
    auto image = [&](const Dims &dims, Type type) {
      return plainActivations ? userImage(dims, type) : anyLayout(dims, type);
    };
    memory::desc srcAny = image(src, srcType), dstAny = image(dst, dstType),
                 weightsAny = anyLayout(weights, weightsType);
    // The forward primitive a weight gradient is the gradient of reads its
    // weights in the activations' type, whatever type the gradient has.
    memory::desc hintWeights =
        conv->direction == Direction::BackwardWeights
            ? anyLayout(weights, srcType)
            : weightsAny;
    memory::desc biasDesc = plain({m}, biasType);
    conv->biasDesc = biasDesc;
    bool forwardBias = conv->bias && conv->direction == Direction::Forward;
    // The forward primitive: what runs, or the hint of a backward one.
    auto forwardDesc =
        forwardBias
            ? dnnl::convolution_forward::desc(forwardKind, algorithm, srcAny,
                                              weightsAny, biasDesc, dstAny,
                                              strides, dilates, padsBegin,
                                              padsEnd)
            : dnnl::convolution_forward::desc(forwardKind, algorithm, srcAny,
                                              hintWeights, dstAny, strides,
                                              dilates, padsBegin, padsEnd);
    dnnl::convolution_forward::primitive_desc forward(forwardDesc, attr, eng);
    // In a low type the reference implementation (scalar loops) is no
    // kernel to prefer over f32 copies: the CPU has no instructions for it.
    auto native = [&](const char *impl) {
      if (!lowPrecision || std::strncmp(impl, "ref", 3) != 0)
        return true;
      error = std::string("oneDNN has only its reference implementation (") +
              impl + ") for this convolution in " + typeName(srcType) +
              " on this CPU";
      return false;
    };
    switch (conv->direction) {
    case Direction::Forward:
      if (!native(forward.impl_info_str()))
        return nullptr;
      conv->a.user = userImage(src, srcType);
      conv->b.user = plain(weights, weightsType);
      conv->out.user = userImage(dst, dstType);
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
      dnnl::convolution_backward_data::desc desc(algorithm, srcAny, weightsAny,
                                                 dstAny, strides, dilates,
                                                 padsBegin, padsEnd);
      dnnl::convolution_backward_data::primitive_desc pd(desc, attr, eng,
                                                         forward);
      if (!native(pd.impl_info_str()))
        return nullptr;
      conv->a.user = plain(dst, dstType);
      conv->b.user = plain(weights, weightsType);
      conv->out.user = plain(src, srcType);
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
          algorithm, srcAny, weightsAny, dstAny, strides, dilates, padsBegin,
          padsEnd);
      dnnl::convolution_backward_weights::primitive_desc pd(desc, attr, eng,
                                                            forward);
      if (!native(pd.impl_info_str()))
        return nullptr;
      conv->a.user = plain(src, srcType);
      conv->b.user = plain(dst, dstType);
      conv->out.user = plain(weights, weightsType);
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
    if (winograd && e.status == dnnl_unimplemented)
      error = "oneDNN has no Winograd kernel for this convolution on this "
              "CPU (" +
              error + ")";
    return nullptr;
  } catch (const std::exception &e) {
    error = e.what();
    return nullptr;
  }
  return conv;
}

/// The primitive for a descriptor: with the layouts oneDNN prefers, unless
/// they take more than twice the memory of nnc's plain ones for an image
/// operand (blocked layouts pad the channels: an average pooling's
/// gradient, a transposed convolution over one channel per image, would be
/// staged 16 times its size), then with plain images.
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
  size_t length = descriptorLength(descriptor);
  if (!length) {
    error = "descriptor format " + std::to_string(descriptor[kVersion]) +
            " (this library reads 1 to " + std::to_string(kFormat) + ")";
    return nullptr;
  }
  std::string key(reinterpret_cast<const char *>(descriptor),
                  sizeof(int64_t) * length);
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

/// One GEMM shape (operand type, row-major, transposes, leading dimensions,
/// alpha and beta): oneDNN's matmul primitive for it, built on first use.
struct Gemm {
  dnnl::matmul primitive;
  memory::desc a, b, c, scratchpad;
  size_t scratchpadBytes = 0;
  std::string impl; // oneDNN's implementation, "brg:avx512_core"
  /// The arguments, made once: each call sets their buffers (under the
  /// mutex), so that a call allocates nothing.
  std::unordered_map<int, memory> args;
  std::mutex mutex;
};

constexpr int32_t kRowMajor = 101, kColMajor = 102, kNoTrans = 111,
                  kTrans = 112;

/// The primitive for C[M, N] (f32, row stride ldc) = alpha * op(A) * op(B)
/// + beta * C, A and B of `type` (bf16 or f32) in row-major storage; null
/// with the reason in `error` when oneDNN has none, or only its reference
/// loops.
std::unique_ptr<Gemm> buildGemm(Type type, bool transA, bool transB, int64_t m,
                                int64_t n, int64_t k, float alpha, int64_t lda,
                                int64_t ldb, float beta, int64_t ldc,
                                std::string &error) {
  auto gemm = std::make_unique<Gemm>();
  try {
    // op(A) is [M, K]: A's storage is [M, lda] or, transposed, [K, lda].
    gemm->a =
        memory::desc({m, k}, type, transA ? Dims{1, lda} : Dims{lda, 1});
    gemm->b =
        memory::desc({k, n}, type, transB ? Dims{1, ldb} : Dims{ldb, 1});
    gemm->c = memory::desc({m, n}, Type::f32, Dims{ldc, 1});
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (alpha != 1.0f)
      attr.set_output_scales(0, {alpha});
    if (beta != 0.0f) {
      dnnl::post_ops ops;
      ops.append_sum(beta);
      attr.set_post_ops(ops);
    }
    dnnl::matmul::primitive_desc pd(
        dnnl::matmul::desc(gemm->a, gemm->b, gemm->c), attr, engine());
    if (std::strncmp(pd.impl_info_str(), "ref", 3) == 0) {
      error = std::string("oneDNN has only its reference implementation (") +
              pd.impl_info_str() + ") for " +
              (type == Type::bf16 ? "bf16" : "f32") +
              " matrix products on this CPU";
      return nullptr;
    }
    gemm->primitive = dnnl::matmul(pd);
    gemm->impl = pd.impl_info_str();
    gemm->args = {{DNNL_ARG_SRC, memory(gemm->a, engine(), DNNL_MEMORY_NONE)},
                  {DNNL_ARG_WEIGHTS,
                   memory(gemm->b, engine(), DNNL_MEMORY_NONE)},
                  {DNNL_ARG_DST, memory(gemm->c, engine(), DNNL_MEMORY_NONE)}};
    gemm->scratchpad = pd.scratchpad_desc();
    gemm->scratchpadBytes = Staging::round(gemm->scratchpad.get_size());
    if (gemm->scratchpadBytes)
      gemm->args.insert(
          {DNNL_ARG_SCRATCHPAD,
           memory(gemm->scratchpad, engine(), DNNL_MEMORY_NONE)});
  } catch (const dnnl::error &e) {
    error = std::string("oneDNN: ") + e.what();
    return nullptr;
  }
  return gemm;
}

Gemm *lookupGemm(Type type, bool transA, bool transB, int64_t m, int64_t n,
                 int64_t k, float alpha, int64_t lda, int64_t ldb, float beta,
                 int64_t ldc, std::string &error) {
  static auto *table = new std::unordered_map<std::string,
                                              std::unique_ptr<Gemm>>;
  static auto *mutex = new std::mutex;
  char key[176];
  std::snprintf(key, sizeof key,
                "%d %d %d %lld %lld %lld %a %lld %lld %a %lld",
                static_cast<int>(type), transA, transB, (long long)m,
                (long long)n, (long long)k, alpha, (long long)lda,
                (long long)ldb, beta, (long long)ldc);
  std::lock_guard<std::mutex> lock(*mutex);
  auto it = table->find(key);
  if (it != table->end())
    return it->second.get();
  std::unique_ptr<Gemm> gemm = buildGemm(type, transA, transB, m, n, k, alpha,
                                         lda, ldb, beta, ldc, error);
  if (!gemm)
    return nullptr;
  return table->emplace(key, std::move(gemm)).first->second.get();
}

[[noreturn]] void gemmFailed(Type type, const std::string &error) {
  std::fprintf(stderr, "nnc: a oneDNN %s GEMM failed: %s\n",
               type == Type::bf16 ? "bf16" : "f32", error.c_str());
  std::abort();
}

/// CBLAS's gemm with A and B of `type`, C f32, run by oneDNN's matmul.
void runGemm(Type type, int32_t order, int32_t transA, int32_t transB,
             int32_t m, int32_t n, int32_t k, float alpha, const void *a,
             int32_t lda, const void *b, int32_t ldb, float beta, float *c,
             int32_t ldc) {
  if (order == kColMajor) {
    // C^T = op(B)^T op(A)^T, all row-major.
    runGemm(type, kRowMajor, transB, transA, n, m, k, alpha, b, ldb, a, lda,
            beta, c, ldc);
    return;
  }
  if (order != kRowMajor || (transA != kNoTrans && transA != kTrans) ||
      (transB != kNoTrans && transB != kTrans))
    gemmFailed(type, "invalid order or transpose");
  if (m <= 0 || n <= 0)
    return;
  if (k <= 0) {
    // No products: C = beta * C.
    for (int32_t i = 0; i < m; ++i)
      for (int32_t j = 0; j < n; ++j)
        c[int64_t(i) * ldc + j] =
            beta == 0.0f ? 0.0f : beta * c[int64_t(i) * ldc + j];
    return;
  }
  std::string error;
  Gemm *gemm = lookupGemm(type, transA == kTrans, transB == kTrans, m, n, k,
                          alpha, lda, ldb, beta, ldc, error);
  if (!gemm)
    gemmFailed(type, error);
  try {
    std::lock_guard<std::mutex> lock(gemm->mutex);
    thread_local dnnl::stream stream(engine());
    gemm->args.at(DNNL_ARG_SRC).set_data_handle(const_cast<void *>(a));
    gemm->args.at(DNNL_ARG_WEIGHTS).set_data_handle(const_cast<void *>(b));
    gemm->args.at(DNNL_ARG_DST).set_data_handle(c);
    if (gemm->scratchpadBytes) {
      char *scratch = staging().reserve(gemm->scratchpadBytes);
      if (!scratch)
        throw std::bad_alloc();
      gemm->args.at(DNNL_ARG_SCRATCHPAD).set_data_handle(scratch);
    }
    gemm->primitive.execute(stream, gemm->args);
    stream.wait();
  } catch (const dnnl::error &e) {
    gemmFailed(type, std::string("oneDNN: ") + e.what());
  } catch (const std::exception &e) {
    gemmFailed(type, e.what());
  }
}

/// Whether oneDNN has matmul kernels (not its reference loops) for `type`,
/// and their implementation's name, or why not. A GEMM of the sizes models
/// have: oneDNN picks its kernels by ISA, not by shape, so one answers for
/// all.
struct GemmProbe {
  bool ok = false;
  std::string text;
};
GemmProbe gemmProbe(Type type) {
  GemmProbe probe;
  std::unique_ptr<Gemm> gemm = buildGemm(type, false, false, 64, 64, 64, 1.0f,
                                         64, 64, 0.0f, 64, probe.text);
  probe.ok = gemm != nullptr;
  if (gemm)
    probe.text = gemm->impl;
  else if (probe.text.empty())
    probe.text = "oneDNN built no matmul";
  return probe;
}

int reportProbe(const GemmProbe &probe, char *error, size_t size) {
  if (error && size)
    std::snprintf(error, size, "%s", probe.text.c_str());
  return probe.ok ? 0 : 1;
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) void
nnc_dnnl_sbgemm(int32_t order, int32_t transA, int32_t transB, int32_t m,
                int32_t n, int32_t k, float alpha, const void *a, int32_t lda,
                const void *b, int32_t ldb, float beta, float *c,
                int32_t ldc) {
  runGemm(Type::bf16, order, transA, transB, m, n, k, alpha, a, lda, b, ldb,
          beta, c, ldc);
}

__attribute__((visibility("default"))) int nnc_dnnl_sbgemm_check(char *error,
                                                                 size_t size) {
  static const GemmProbe probe = gemmProbe(Type::bf16);
  return reportProbe(probe, error, size);
}

__attribute__((visibility("default"))) void
nnc_dnnl_sgemm(int32_t order, int32_t transA, int32_t transB, int32_t m,
               int32_t n, int32_t k, float alpha, const float *a, int32_t lda,
               const float *b, int32_t ldb, float beta, float *c,
               int32_t ldc) {
  runGemm(Type::f32, order, transA, transB, m, n, k, alpha, a, lda, b, ldb,
          beta, c, ldc);
}

__attribute__((visibility("default"))) int nnc_dnnl_sgemm_check(char *error,
                                                                size_t size) {
  static const GemmProbe probe = gemmProbe(Type::f32);
  return reportProbe(probe, error, size);
}

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

__attribute__((visibility("default"))) void
nnc_dnnl_forget_constants(const void *begin, size_t size) {
  uintptr_t first = reinterpret_cast<uintptr_t>(begin);
  ConstantStore &store = constants();
  std::lock_guard<std::mutex> lock(store.mutex);
  auto it = store.copies.lower_bound(std::make_pair(first, uintptr_t(0)));
  while (it != store.copies.end() && it->first.first - first < size)
    it = store.copies.erase(it);
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

__attribute__((visibility("default"))) int
nnc_dnnl_convolution_prefers_channels_last(const int64_t *descriptor) {
  size_t length = descriptorLength(descriptor);
  if (!length ||
      descriptor[kDirection] != static_cast<int64_t>(Direction::Forward))
    return 0;
  // The same convolution with channels-first images: oneDNN picks its
  // layouts; the reorders it needs from plain NCHW buffers say which. The
  // compiler's check of that descriptor already built it into the table.
  int64_t d[kLength] = {0};
  std::memcpy(d, descriptor, sizeof(int64_t) * length);
  if (length < kLengthFormat2)
    for (int64_t slot = kLengthFormat1; slot < kLengthFormat2; ++slot)
      d[slot] = static_cast<int64_t>(ElementType::F32);
  d[kVersion] = kFormat;
  d[kActivationLayout] = static_cast<int64_t>(ActivationLayout::ChannelsFirst);
  std::string error;
  Convolution *conv = lookup(d, error);
  if (!conv)
    return 0;
  auto isChannelsLast = [](const Operand &operand) {
    const memory::desc &user = operand.user;
    return operand.inside ==
           channelsLast(user.dims(), user.data_type());
  };
  return isChannelsLast(conv->a) && isChannelsLast(conv->out) ? 1 : 0;
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
