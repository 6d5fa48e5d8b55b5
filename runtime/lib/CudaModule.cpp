//===- CudaModule.cpp - encoding and checking of CUDA code sections -------===//

#include "nnc/runtime/CudaModule.h"

#include "ByteCodec.h"

#include <set>

namespace nnc::runtime {

namespace {

constexpr uint8_t kMagic[4] = {'N', 'N', 'C', 'U'};
constexpr uint32_t kMaxImages = 64;
constexpr uint32_t kMaxKernels = 1u << 20;
constexpr uint32_t kMaxLaunches = 1u << 16;
constexpr uint32_t kMaxName = 4096;
constexpr uint32_t kMaxSource = 1u << 30;
constexpr uint64_t kMaxImageBytes = 1ull << 32;
// The most blocks in x and threads in a block CUDA allows.
constexpr uint32_t kMaxGrid = 0x7fffffffu;
constexpr uint32_t kMaxBlock = 1024;

constexpr uint64_t kMaxGemmSize = 1ull << 31;

void writeMatrix(detail::Writer &w, const CudaMatrix &m) {
  w.u32(m.buffer);
  w.u64(m.offset);
  w.u64(m.ld);
  w.u64(m.batchStride);
  w.u8(m.transposed ? 1 : 0);
}

void writeGemm(detail::Writer &w, const CudaGemm &g) {
  w.u64(g.m);
  w.u64(g.n);
  w.u64(g.k);
  w.u32(g.batch);
  w.u8(static_cast<uint8_t>(g.inputType));
  w.u8(static_cast<uint8_t>(g.outputType));
  w.u8(g.accumulate ? 1 : 0);
  writeMatrix(w, g.a);
  writeMatrix(w, g.b);
  writeMatrix(w, g.c);
  w.u8(static_cast<uint8_t>(g.epilogue));
  if (g.epilogue != CudaEpilogue::None) {
    w.u32(g.biasBuffer);
    w.u64(g.biasOffset);
  }
}

Status readFlag(detail::Reader &r, bool &out, const char *what) {
  uint8_t v = 0;
  NNC_RUNTIME_RETURN_IF_ERROR(r.u8(v, what));
  if (v > 1)
    return r.fail(std::string(what) + " is " + std::to_string(v) +
                  ", not 0 or 1");
  out = v != 0;
  return Status::ok();
}

Status readType(detail::Reader &r, CudaElementType &out, const char *what) {
  uint8_t v = 0;
  NNC_RUNTIME_RETURN_IF_ERROR(r.u8(v, what));
  if (v > static_cast<uint8_t>(CudaElementType::BF16))
    return r.fail(std::string(what) + " " + std::to_string(v) +
                  " is not an element type");
  out = static_cast<CudaElementType>(v);
  return Status::ok();
}

Status readMatrix(detail::Reader &r, CudaMatrix &m) {
  NNC_RUNTIME_RETURN_IF_ERROR(r.u32(m.buffer, "a GEMM matrix's buffer"));
  NNC_RUNTIME_RETURN_IF_ERROR(r.u64(m.offset, "a GEMM matrix's offset"));
  NNC_RUNTIME_RETURN_IF_ERROR(r.u64(m.ld, "a GEMM matrix's row stride"));
  NNC_RUNTIME_RETURN_IF_ERROR(
      r.u64(m.batchStride, "a GEMM matrix's batch stride"));
  return readFlag(r, m.transposed, "a GEMM matrix's transposed flag");
}

Status readGemm(detail::Reader &r, CudaGemm &g) {
  NNC_RUNTIME_RETURN_IF_ERROR(r.u64(g.m, "a GEMM's m"));
  NNC_RUNTIME_RETURN_IF_ERROR(r.u64(g.n, "a GEMM's n"));
  NNC_RUNTIME_RETURN_IF_ERROR(r.u64(g.k, "a GEMM's k"));
  NNC_RUNTIME_RETURN_IF_ERROR(r.u32(g.batch, "a GEMM's batch"));
  NNC_RUNTIME_RETURN_IF_ERROR(readType(r, g.inputType, "a GEMM's input type"));
  NNC_RUNTIME_RETURN_IF_ERROR(
      readType(r, g.outputType, "a GEMM's output type"));
  NNC_RUNTIME_RETURN_IF_ERROR(
      readFlag(r, g.accumulate, "a GEMM's accumulate flag"));
  NNC_RUNTIME_RETURN_IF_ERROR(readMatrix(r, g.a));
  NNC_RUNTIME_RETURN_IF_ERROR(readMatrix(r, g.b));
  NNC_RUNTIME_RETURN_IF_ERROR(readMatrix(r, g.c));
  uint8_t epilogue = 0;
  NNC_RUNTIME_RETURN_IF_ERROR(r.u8(epilogue, "a GEMM's epilogue"));
  if (epilogue > static_cast<uint8_t>(CudaEpilogue::BiasRelu))
    return r.fail("a GEMM's epilogue " + std::to_string(epilogue) +
                  " is not one this runtime knows");
  g.epilogue = static_cast<CudaEpilogue>(epilogue);
  if (g.epilogue == CudaEpilogue::None)
    return Status::ok();
  NNC_RUNTIME_RETURN_IF_ERROR(r.u32(g.biasBuffer, "a GEMM's bias buffer"));
  return r.u64(g.biasOffset, "a GEMM's bias offset");
}

/// What is wrong with `g` in a kernel of `numPointers` buffers; empty when
/// nothing is.
std::string checkGemm(const CudaGemm &g, uint32_t numPointers) {
  auto in = [](uint64_t v) { return v >= 1 && v <= kMaxGemmSize; };
  if (!in(g.m) || !in(g.n) || !in(g.k) || g.batch == 0)
    return "has sizes m " + std::to_string(g.m) + ", n " +
           std::to_string(g.n) + ", k " + std::to_string(g.k) + ", batch " +
           std::to_string(g.batch);
  if (g.outputType != CudaElementType::F32 && g.outputType != g.inputType)
    return std::string("writes ") + cudaElementTypeName(g.outputType) +
           " from " + cudaElementTypeName(g.inputType) + " inputs";
  if (g.c.transposed)
    return "writes C transposed";
  if (g.epilogue != CudaEpilogue::None &&
      (g.biasBuffer >= numPointers || g.batch != 1 ||
       g.biasOffset > (1ull << 48)))
    return "has its bias in buffer " + std::to_string(g.biasBuffer) +
           " of a kernel of " + std::to_string(numPointers) + " (batch " +
           std::to_string(g.batch) + ")";
  struct Named {
    const char *name;
    const CudaMatrix &m;
    uint64_t rows, cols;
  };
  for (const Named &x : {Named{"A", g.a, g.m, g.k}, Named{"B", g.b, g.k, g.n},
                         Named{"C", g.c, g.m, g.n}}) {
    if (x.m.buffer >= numPointers)
      return std::string(x.name) + " is in buffer " +
             std::to_string(x.m.buffer) + " of a kernel of " +
             std::to_string(numPointers);
    uint64_t width = x.m.transposed ? x.rows : x.cols;
    if (x.m.ld < width || x.m.ld > kMaxGemmSize || x.m.offset > (1ull << 48) ||
        x.m.batchStride > (1ull << 48))
      return std::string(x.name) + " has row stride " + std::to_string(x.m.ld) +
             " for rows of " + std::to_string(width);
  }
  return "";
}

} // namespace

const char *cudaEpilogueName(CudaEpilogue epilogue) {
  switch (epilogue) {
  case CudaEpilogue::None:
    return "none";
  case CudaEpilogue::Bias:
    return "bias";
  case CudaEpilogue::BiasRelu:
    return "bias_relu";
  }
  return "?";
}

const char *cudaElementTypeName(CudaElementType type) {
  switch (type) {
  case CudaElementType::F32:
    return "f32";
  case CudaElementType::F16:
    return "f16";
  case CudaElementType::BF16:
    return "bf16";
  }
  return "?";
}

std::vector<uint8_t> serializeCudaModule(const CudaModule &module) {
  std::vector<uint8_t> out;
  detail::Writer w(out);
  for (uint8_t b : kMagic)
    w.u8(b);
  w.u32(CudaModule::kVersion);
  w.str(module.compiler);
  w.str(module.source);
  w.u32(static_cast<uint32_t>(module.images.size()));
  for (const CudaImage &image : module.images) {
    w.u8(static_cast<uint8_t>(image.kind));
    w.u32(image.arch);
    w.blob(image.bytes.data(), image.bytes.size());
  }
  w.u32(static_cast<uint32_t>(module.kernels.size()));
  for (const CudaKernel &kernel : module.kernels) {
    w.str(kernel.symbol);
    w.u32(kernel.numPointers);
    w.u32(static_cast<uint32_t>(kernel.launches.size()));
    for (const CudaLaunch &launch : kernel.launches) {
      w.str(launch.function);
      w.u8(static_cast<uint8_t>(launch.kind));
      if (launch.kind == CudaLaunch::Kind::Gemm) {
        writeGemm(w, launch.gemm);
        continue;
      }
      w.u32(launch.grid);
      w.u32(launch.block);
      w.u32(launch.sharedBytes);
    }
  }
  return out;
}

Status parseCudaModule(const uint8_t *data, size_t size,
                       const std::string &source, CudaModule &out) {
  out = CudaModule();
  detail::Reader r(data, size, source);
  for (uint8_t b : kMagic) {
    uint8_t got = 0;
    NNC_RUNTIME_RETURN_IF_ERROR(r.u8(got, "the magic"));
    if (got != b)
      return r.fail("not a CUDA module (bad magic)");
  }
  uint32_t version = 0;
  NNC_RUNTIME_RETURN_IF_ERROR(r.u32(version, "the version"));
  if (version == 0 || version > CudaModule::kVersion)
    return r.fail("CUDA module version " + std::to_string(version) +
                  " is not supported (this runtime reads 1 to " +
                  std::to_string(CudaModule::kVersion) + ")");
  NNC_RUNTIME_RETURN_IF_ERROR(r.str(out.compiler, "the compiler", kMaxName));
  NNC_RUNTIME_RETURN_IF_ERROR(
      r.str(out.source, "the source", kMaxSource, /*multiline=*/true));
  uint32_t numImages = 0;
  NNC_RUNTIME_RETURN_IF_ERROR(
      r.count(numImages, kMaxImages, "the image count", 13));
  for (uint32_t i = 0; i < numImages; ++i) {
    CudaImage image;
    uint8_t kind = 0;
    NNC_RUNTIME_RETURN_IF_ERROR(r.u8(kind, "an image's kind"));
    if (kind > static_cast<uint8_t>(CudaImage::Kind::Ptx))
      return r.fail("image " + std::to_string(i) + " has unknown kind " +
                    std::to_string(kind));
    image.kind = static_cast<CudaImage::Kind>(kind);
    NNC_RUNTIME_RETURN_IF_ERROR(r.u32(image.arch, "an image's architecture"));
    if (image.arch < 10 || image.arch > 1000)
      return r.fail("image " + std::to_string(i) + " has architecture " +
                    std::to_string(image.arch));
    NNC_RUNTIME_RETURN_IF_ERROR(
        r.blob(image.bytes, kMaxImageBytes, "an image's bytes"));
    if (image.bytes.empty())
      return r.fail("image " + std::to_string(i) + " (" +
                    describeCudaImage(image) + ") is empty");
    out.images.push_back(std::move(image));
  }
  uint32_t numKernels = 0;
  NNC_RUNTIME_RETURN_IF_ERROR(
      r.count(numKernels, kMaxKernels, "the kernel count", 12));
  std::set<std::string> symbols;
  for (uint32_t k = 0; k < numKernels; ++k) {
    CudaKernel kernel;
    NNC_RUNTIME_RETURN_IF_ERROR(r.str(kernel.symbol, "a kernel's symbol"));
    if (kernel.symbol.empty() || !symbols.insert(kernel.symbol).second)
      return r.fail("kernel " + std::to_string(k) + "'s symbol '" +
                    kernel.symbol + "' is empty or repeated");
    NNC_RUNTIME_RETURN_IF_ERROR(
        r.u32(kernel.numPointers, "a kernel's buffer count"));
    uint32_t numLaunches = 0;
    NNC_RUNTIME_RETURN_IF_ERROR(
        r.count(numLaunches, kMaxLaunches, "a kernel's launch count", 16));
    for (uint32_t l = 0; l < numLaunches; ++l) {
      CudaLaunch launch;
      NNC_RUNTIME_RETURN_IF_ERROR(
          r.str(launch.function, "a launch's function", kMaxName));
      if (version >= 2) {
        uint8_t kind = 0;
        NNC_RUNTIME_RETURN_IF_ERROR(r.u8(kind, "a launch's kind"));
        if (kind > static_cast<uint8_t>(CudaLaunch::Kind::Gemm))
          return r.fail("kernel '" + kernel.symbol + "' launch " +
                        std::to_string(l) + " has unknown kind " +
                        std::to_string(kind));
        launch.kind = static_cast<CudaLaunch::Kind>(kind);
      }
      if (launch.kind == CudaLaunch::Kind::Gemm) {
        NNC_RUNTIME_RETURN_IF_ERROR(readGemm(r, launch.gemm));
        std::string wrong = checkGemm(launch.gemm, kernel.numPointers);
        if (launch.function.empty() || !wrong.empty())
          return r.fail("kernel '" + kernel.symbol + "' GEMM launch " +
                        std::to_string(l) + " '" + launch.function + "' " +
                        (wrong.empty() ? std::string("has no name") : wrong));
        kernel.launches.push_back(std::move(launch));
        continue;
      }
      NNC_RUNTIME_RETURN_IF_ERROR(r.u32(launch.grid, "a launch's grid"));
      NNC_RUNTIME_RETURN_IF_ERROR(r.u32(launch.block, "a launch's block"));
      NNC_RUNTIME_RETURN_IF_ERROR(
          r.u32(launch.sharedBytes, "a launch's shared memory"));
      if (launch.function.empty() || launch.grid == 0 ||
          launch.grid > kMaxGrid || launch.block == 0 ||
          launch.block > kMaxBlock)
        return r.fail("kernel '" + kernel.symbol + "' launch " +
                      std::to_string(l) + " of '" + launch.function +
                      "' has grid " + std::to_string(launch.grid) +
                      " and block " + std::to_string(launch.block));
      kernel.launches.push_back(std::move(launch));
    }
    out.kernels.push_back(std::move(kernel));
  }
  if (!r.atEnd())
    return r.fail("trailing bytes after the CUDA module");
  return Status::ok();
}

const CudaImage *selectCudaImage(const CudaModule &module, int major,
                                 int minor) {
  int device = 10 * major + minor;
  const CudaImage *cubin = nullptr, *ptx = nullptr;
  for (const CudaImage &image : module.images) {
    int arch = static_cast<int>(image.arch);
    if (arch > device)
      continue;
    if (image.kind == CudaImage::Kind::Cubin) {
      if (arch / 10 == major && (!cubin || arch > int(cubin->arch)))
        cubin = &image;
    } else if (!ptx || arch > int(ptx->arch)) {
      ptx = &image;
    }
  }
  return cubin ? cubin : ptx;
}

std::string describeCudaImage(const CudaImage &image) {
  return (image.kind == CudaImage::Kind::Cubin ? "sm_" : "compute_") +
         std::to_string(image.arch);
}

} // namespace nnc::runtime
