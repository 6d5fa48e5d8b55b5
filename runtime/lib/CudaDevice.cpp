//===- CudaDevice.cpp - a CUDA GPU as a device ----------------------------===//
//
// The Device interface over the CUDA driver table (CudaDriver.h): memory from
// cuMemAlloc, copies and launches on one stream per device, code sections
// that are CudaModules loaded with cuModuleLoadData (or, under the test-only
// emulated driver, from their source), graphs captured from the stream and
// replayed. Every entry makes the device's primary context current first,
// since the calling thread may be any, and holds the stream's lock: work of
// other threads waits while one thread captures.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/Device.h"

#include "nnc/runtime/CublasLt.h"
#include "nnc/runtime/CudaDriver.h"
#include "nnc/runtime/CudaModule.h"
#include "nnc/runtime/Program.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <map>
#include <mutex>

namespace nnc::runtime {

namespace {

// CUdevice_attribute values (cuda.h) and the CUresult the driver gives when
// memory runs out.
constexpr int kComputeCapabilityMajor = 75;
constexpr int kComputeCapabilityMinor = 76;
constexpr int kErrorOutOfMemory = 2;
// CU_STREAM_NON_BLOCKING: no implicit synchronization with stream 0, which
// libraries sharing the context may use.
constexpr unsigned kStreamNonBlocking = 1;
// CU_STREAM_CAPTURE_MODE_THREAD_LOCAL: only the capturing thread is kept
// from calls that would break the capture (the stream lock keeps the rest
// of the process off the stream).
constexpr int kCaptureModeThreadLocal = 1;
/// The workspace cuBLASLt may use, once per device: what NVIDIA suggests for
/// Hopper (32 MiB), which covers the earlier GPUs' 4 MiB.
constexpr size_t kGemmWorkspaceBytes = size_t(32) << 20;

unsigned long long toDevice(const void *pointer) {
  return static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(pointer));
}

class CudaDevice : public Device {
public:
  CudaDevice(const CudaDriver &driver, int ordinal)
      : driver(driver), ordinal(ordinal) {}
  ~CudaDevice() override {
    if (!retained)
      return;
    driver.cuCtxSetCurrent(context);
    if (gemmHandle)
      gemmLibrary->cublasLtDestroy(gemmHandle);
    if (gemmWorkspace)
      driver.cuMemFree_v2(gemmWorkspace);
    if (stream)
      driver.cuStreamDestroy_v2(stream);
    driver.cuDevicePrimaryCtxRelease_v2(device);
  }
  CudaDevice(const CudaDevice &) = delete;
  CudaDevice &operator=(const CudaDevice &) = delete;

  /// Retains the primary context and creates the stream.
  Status open() {
    NNC_RUNTIME_RETURN_IF_ERROR(
        driver.check(driver.cuDeviceGet(&device, ordinal), "cuDeviceGet"));
    char text[256] = {};
    NNC_RUNTIME_RETURN_IF_ERROR(
        driver.check(driver.cuDeviceGetName(text, sizeof(text) - 1, device),
                     "cuDeviceGetName"));
    deviceName = text;
    NNC_RUNTIME_RETURN_IF_ERROR(driver.check(
        driver.cuDeviceGetAttribute(&major, kComputeCapabilityMajor, device),
        "cuDeviceGetAttribute(compute capability major)"));
    NNC_RUNTIME_RETURN_IF_ERROR(driver.check(
        driver.cuDeviceGetAttribute(&minor, kComputeCapabilityMinor, device),
        "cuDeviceGetAttribute(compute capability minor)"));
    NNC_RUNTIME_RETURN_IF_ERROR(
        driver.check(driver.cuDevicePrimaryCtxRetain(&context, device),
                     "cuDevicePrimaryCtxRetain"));
    retained = true;
    NNC_RUNTIME_RETURN_IF_ERROR(makeCurrent());
    return driver.check(driver.cuStreamCreate(&stream, kStreamNonBlocking),
                        "cuStreamCreate");
  }

  const char *name() const override { return "cuda"; }
  bool hostAccessible() const override { return false; }
  bool runsTarget(const std::string &executableTarget) const override {
    return executableTarget == kCudaExecutableTarget;
  }
  std::string target() const override { return kCudaExecutableTarget; }

  Status allocate(size_t bytes, void **out) override {
    *out = nullptr;
    std::lock_guard<std::recursive_mutex> lock(streamMutex);
    NNC_RUNTIME_RETURN_IF_ERROR(makeCurrent());
    // cuMemAlloc refuses 0 bytes; like the CPU device, an empty buffer
    // still gets a unique pointer. Its memory is aligned to at least 256.
    unsigned long long address = 0;
    int result = driver.cuMemAlloc_v2(&address, bytes ? bytes : 1);
    if (result != 0) {
      Status status = driver.check(result, "cuMemAlloc_v2");
      return Status(result == kErrorOutOfMemory ? StatusCode::OutOfRange
                                                : status.code(),
                    "cannot allocate " + std::to_string(bytes) + " bytes on " +
                        describe() + ": " + status.message());
    }
    *out = reinterpret_cast<void *>(static_cast<uintptr_t>(address));
    return Status::ok();
  }

  void deallocate(void *pointer) override {
    std::lock_guard<std::recursive_mutex> lock(streamMutex);
    if (!pointer || !makeCurrent().isOk())
      return;
    // cuMemFree waits for work that may still use the memory; an error
    // here leaves nothing to recover.
    (void)driver.cuMemFree_v2(toDevice(pointer));
  }

  Status copyHostToDevice(void *deviceMemory, const void *host,
                          size_t bytes) override {
    if (bytes == 0)
      return Status::ok();
    std::lock_guard<std::recursive_mutex> lock(streamMutex);
    NNC_RUNTIME_RETURN_IF_ERROR(makeCurrent());
    NNC_RUNTIME_RETURN_IF_ERROR(
        named(driver.check(driver.cuMemcpyHtoDAsync_v2(toDevice(deviceMemory),
                                                       host, bytes, stream),
                           "cuMemcpyHtoDAsync_v2")));
    // The caller may reuse the host memory as soon as this returns.
    return synchronizeCurrent();
  }

  Status copyDeviceToHost(void *host, const void *deviceMemory,
                          size_t bytes) override {
    if (bytes == 0)
      return Status::ok();
    std::lock_guard<std::recursive_mutex> lock(streamMutex);
    NNC_RUNTIME_RETURN_IF_ERROR(makeCurrent());
    NNC_RUNTIME_RETURN_IF_ERROR(
        named(driver.check(driver.cuMemcpyDtoHAsync_v2(
                               host, toDevice(deviceMemory), bytes, stream),
                           "cuMemcpyDtoHAsync_v2")));
    return synchronizeCurrent();
  }

  Status loadModule(const uint8_t *code, size_t size,
                    const CodeRequirements &requirements,
                    const std::string &source,
                    std::unique_ptr<DeviceModule> &out) override;

  Status synchronize() override {
    std::lock_guard<std::recursive_mutex> lock(streamMutex);
    NNC_RUNTIME_RETURN_IF_ERROR(makeCurrent());
    return synchronizeCurrent();
  }

  bool supportsGraphs() const override { return true; }
  Status beginCapture() override;
  Status endCapture(std::unique_ptr<DeviceGraph> &out) override;

  /// "CUDA device 0 (NVIDIA H100, compute capability 9.0)", for messages.
  std::string describe() const {
    return "CUDA device " + std::to_string(ordinal) + " (" + deviceName +
           ", compute capability " + std::to_string(major) + "." +
           std::to_string(minor) + ")";
  }

  /// Makes the primary context current on the calling thread.
  Status makeCurrent() const {
    return named(
        driver.check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent"));
  }

  /// `status` with the device named, unless it is ok.
  Status named(Status status) const {
    if (status.isOk())
      return status;
    return Status(status.code(), describe() + ": " + status.message());
  }

  /// cuBLASLt, its handle and workspace on this device, opened by the first
  /// module with a GEMM (under the stream lock); an error says why not
  /// (the caller names the device).
  Status openGemmLibrary();

  const CudaDriver &driver;
  void *stream = nullptr;
  std::unique_ptr<CublasLt> gemmLibrary;
  void *gemmHandle = nullptr;
  unsigned long long gemmWorkspace = 0;
  /// Held by every call that uses the stream (or the driver on this
  /// device), and from beginCapture to endCapture by the capturing thread.
  std::recursive_mutex streamMutex;

private:
  Status synchronizeCurrent() {
    return named(driver.check(driver.cuStreamSynchronize(stream),
                              "cuStreamSynchronize"));
  }

  int ordinal;
  int device = 0;
  int major = 0, minor = 0;
  std::string deviceName;
  void *context = nullptr;
  bool retained = false;
};

Status CudaDevice::openGemmLibrary() {
  if (gemmHandle)
    return Status::ok();
  // Under the emulated driver, the emulator stands in for cuBLASLt too.
  std::vector<std::string> candidates;
  if (const char *path = std::getenv("NNC_CUBLASLT"); path && *path)
    candidates.push_back(path);
  else if (driver.emulatedModuleLoadSource)
    candidates.push_back(driver.libraryPath());
  else
    // The calls made here are the same in CUDA 12's cuBLASLt.
    candidates = {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so",
                  "/usr/local/cuda/lib64/libcublasLt.so.13"};
  auto library = std::make_unique<CublasLt>();
  NNC_RUNTIME_RETURN_IF_ERROR(CublasLt::load(candidates, *library));
  NNC_RUNTIME_RETURN_IF_ERROR(makeCurrent());
  unsigned long long workspace = 0;
  NNC_RUNTIME_RETURN_IF_ERROR(
      driver.check(driver.cuMemAlloc_v2(&workspace, kGemmWorkspaceBytes),
                   "cuMemAlloc_v2 (cuBLASLt's workspace)"));
  void *handle = nullptr;
  Status created =
      library->check(library->cublasLtCreate(&handle), "cublasLtCreate");
  if (!created.isOk()) {
    (void)driver.cuMemFree_v2(workspace);
    return created;
  }
  gemmLibrary = std::move(library);
  gemmHandle = handle;
  gemmWorkspace = workspace;
  return Status::ok();
}

/// The largest power of two, up to 16, that divides `offset`: the
/// alignment a GEMM operand at that offset of a buffer promises cuBLASLt
/// (every buffer a kernel takes starts at least 16-byte aligned).
uint32_t operandAlignment(uint64_t offset) {
  uint32_t align = 16;
  while (align > 1 && offset % align)
    align /= 2;
  return align;
}

int cudaDataType(CudaElementType type) {
  switch (type) {
  case CudaElementType::F16:
    return cublaslt::kR16F;
  case CudaElementType::BF16:
    return cublaslt::kR16BF;
  case CudaElementType::F32:
    break;
  }
  return cublaslt::kR32F;
}

/// One GEMM launch as cuBLASLt runs it, its descriptors made once. cuBLASLt
/// is column-major: the row-major C = A x B is computed as the
/// column-major C^T = B^T x A^T, whose operands are B and A as they lie
/// (a row-major buffer read column-major is its transpose), so cuBLASLt's
/// A is our B and its B our A, and m and n swap.
class GemmPlan {
public:
  GemmPlan(const CublasLt &lt) : lt(lt) {}
  ~GemmPlan() {
    for (void *layout : {layoutA, layoutB, layoutC})
      if (layout)
        lt.cublasLtMatrixLayoutDestroy(layout);
    if (desc)
      lt.cublasLtMatmulDescDestroy(desc);
  }
  GemmPlan(const GemmPlan &) = delete;
  GemmPlan &operator=(const GemmPlan &) = delete;

  Status build(void *handle, const CudaGemm &gemm) {
    this->gemm = &gemm;
    NNC_RUNTIME_RETURN_IF_ERROR(lt.check(
        lt.cublasLtMatmulDescCreate(&desc, cublaslt::kCompute32F,
                                    cublaslt::kR32F),
        "cublasLtMatmulDescCreate"));
    // cuBLASLt's A is our B: n x k as it needs it, which the buffer holds
    // (N) unless it holds B^T.
    int32_t transA = gemm.b.transposed ? cublaslt::kOpT : cublaslt::kOpN;
    int32_t transB = gemm.a.transposed ? cublaslt::kOpT : cublaslt::kOpN;
    NNC_RUNTIME_RETURN_IF_ERROR(lt.check(
        lt.cublasLtMatmulDescSetAttribute(desc, cublaslt::kDescTransA, &transA,
                                          sizeof(transA)),
        "cublasLtMatmulDescSetAttribute(TRANSA)"));
    NNC_RUNTIME_RETURN_IF_ERROR(lt.check(
        lt.cublasLtMatmulDescSetAttribute(desc, cublaslt::kDescTransB, &transB,
                                          sizeof(transB)),
        "cublasLtMatmulDescSetAttribute(TRANSB)"));
    if (gemm.epilogue != CudaEpilogue::None) {
      // Our bias is one value per column of C: per row of cuBLASLt's D.
      uint32_t epilogue = gemm.epilogue == CudaEpilogue::Bias
                              ? cublaslt::kEpilogueBias
                              : cublaslt::kEpilogueReluBias;
      NNC_RUNTIME_RETURN_IF_ERROR(lt.check(
          lt.cublasLtMatmulDescSetAttribute(desc, cublaslt::kDescEpilogue,
                                            &epilogue, sizeof(epilogue)),
          "cublasLtMatmulDescSetAttribute(EPILOGUE)"));
      // The heuristic reads only the pointer's alignment; the launch sets
      // the bias's address (its buffer may move between runs).
      alignBias = operandAlignment(gemm.biasOffset);
      NNC_RUNTIME_RETURN_IF_ERROR(setBias(
          reinterpret_cast<const void *>(static_cast<uintptr_t>(alignBias))));
    }
    // A buffer holding a row-major r x c matrix is a column-major c x r one.
    NNC_RUNTIME_RETURN_IF_ERROR(layout(layoutA, gemm.b, gemm.inputType,
                                       gemm.k, gemm.n, gemm.batch, "B"));
    NNC_RUNTIME_RETURN_IF_ERROR(layout(layoutB, gemm.a, gemm.inputType,
                                       gemm.m, gemm.k, gemm.batch, "A"));
    NNC_RUNTIME_RETURN_IF_ERROR(layout(layoutC, gemm.c, gemm.outputType,
                                       gemm.m, gemm.n, gemm.batch, "C"));
    alignA = operandAlignment(gemm.b.offset);
    alignB = operandAlignment(gemm.a.offset);
    alignC = operandAlignment(gemm.c.offset);

    void *pref = nullptr;
    NNC_RUNTIME_RETURN_IF_ERROR(lt.check(lt.cublasLtMatmulPreferenceCreate(&pref),
                                         "cublasLtMatmulPreferenceCreate"));
    uint64_t workspace = kGemmWorkspaceBytes;
    Status status = lt.check(
        lt.cublasLtMatmulPreferenceSetAttribute(
            pref, cublaslt::kPrefMaxWorkspaceBytes, &workspace,
            sizeof(workspace)),
        "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)");
    std::pair<int, uint32_t> aligns[] = {{cublaslt::kPrefMinAlignmentA, alignA},
                                         {cublaslt::kPrefMinAlignmentB, alignB},
                                         {cublaslt::kPrefMinAlignmentC, alignC},
                                         {cublaslt::kPrefMinAlignmentD, alignC}};
    for (auto [attribute, value] : aligns)
      if (status.isOk())
        status = lt.check(lt.cublasLtMatmulPreferenceSetAttribute(
                              pref, attribute, &value, sizeof(value)),
                          "cublasLtMatmulPreferenceSetAttribute(MIN_ALIGNMENT)");
    int found = 0;
    if (status.isOk())
      status = lt.check(lt.cublasLtMatmulAlgoGetHeuristic(
                            handle, desc, layoutA, layoutB, layoutC, layoutC,
                            pref, 1, &heuristic, &found),
                        "cublasLtMatmulAlgoGetHeuristic");
    lt.cublasLtMatmulPreferenceDestroy(pref);
    NNC_RUNTIME_RETURN_IF_ERROR(status);
    if (found < 1 || heuristic.state != 0)
      return Status(StatusCode::Unimplemented,
                    "cuBLASLt has no algorithm for this GEMM");
    return Status::ok();
  }

  /// Queues the product on `stream`; `args` are the kernel's buffers.
  Status run(void *handle, void *const *args, void *workspace,
             void *stream) const {
    const char *a = static_cast<const char *>(args[gemm->a.buffer]) +
                    gemm->a.offset;
    const char *b = static_cast<const char *>(args[gemm->b.buffer]) +
                    gemm->b.offset;
    char *c = static_cast<char *>(args[gemm->c.buffer]) + gemm->c.offset;
    // What the algorithm was chosen for: buffers start 16-byte aligned.
    if (reinterpret_cast<uintptr_t>(b) % alignA ||
        reinterpret_cast<uintptr_t>(a) % alignB ||
        reinterpret_cast<uintptr_t>(c) % alignC)
      return Status(StatusCode::InvalidArgument,
                    "a GEMM operand is less aligned than its offset promises "
                    "(a buffer of the kernel is not 16-byte aligned)");
    if (gemm->epilogue != CudaEpilogue::None) {
      const char *bias = static_cast<const char *>(args[gemm->biasBuffer]) +
                         gemm->biasOffset;
      if (reinterpret_cast<uintptr_t>(bias) % alignBias)
        return Status(StatusCode::InvalidArgument,
                      "the GEMM's bias is less aligned than its offset "
                      "promises");
      NNC_RUNTIME_RETURN_IF_ERROR(setBias(bias));
    }
    float alpha = 1.0f, beta = gemm->accumulate ? 1.0f : 0.0f;
    return lt.check(lt.cublasLtMatmul(handle, desc, &alpha, b, layoutA, a,
                                      layoutB, &beta, c, layoutC, c, layoutC,
                                      &heuristic.algo, workspace,
                                      kGemmWorkspaceBytes, stream),
                    "cublasLtMatmul");
  }

private:
  Status setBias(const void *bias) const {
    return lt.check(lt.cublasLtMatmulDescSetAttribute(
                        desc, cublaslt::kDescBiasPointer, &bias, sizeof(bias)),
                    "cublasLtMatmulDescSetAttribute(BIAS_POINTER)");
  }

  /// The column-major layout of `m`, whose row-major matrix is rows x cols.
  Status layout(void *&out, const CudaMatrix &m, CudaElementType type,
                uint64_t rows, uint64_t cols, uint32_t batch,
                const char *name) {
    uint64_t lrows = m.transposed ? rows : cols;
    uint64_t lcols = m.transposed ? cols : rows;
    std::string what = std::string("cublasLtMatrixLayoutCreate(") + name + ")";
    NNC_RUNTIME_RETURN_IF_ERROR(
        lt.check(lt.cublasLtMatrixLayoutCreate(&out, cudaDataType(type), lrows,
                                               lcols, static_cast<int64_t>(m.ld)),
                 what.c_str()));
    if (batch == 1)
      return Status::ok();
    int32_t count = static_cast<int32_t>(batch);
    int64_t stride = static_cast<int64_t>(m.batchStride);
    NNC_RUNTIME_RETURN_IF_ERROR(lt.check(
        lt.cublasLtMatrixLayoutSetAttribute(out, cublaslt::kLayoutBatchCount,
                                            &count, sizeof(count)),
        "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)"));
    return lt.check(
        lt.cublasLtMatrixLayoutSetAttribute(
            out, cublaslt::kLayoutStridedBatchOffset, &stride, sizeof(stride)),
        "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)");
  }

  const CublasLt &lt;
  const CudaGemm *gemm = nullptr;
  void *desc = nullptr;
  void *layoutA = nullptr, *layoutB = nullptr, *layoutC = nullptr;
  uint32_t alignA = 16, alignB = 16, alignC = 16, alignBias = 16;
  CublasLtHeuristicResult heuristic{};
};

/// "m 64, n 32, k 16, batch 4, f32", for messages.
std::string describeGemm(const CudaGemm &g) {
  return "m " + std::to_string(g.m) + ", n " + std::to_string(g.n) + ", k " +
         std::to_string(g.k) + ", batch " + std::to_string(g.batch) + ", " +
         cudaElementTypeName(g.inputType) + " to " +
         cudaElementTypeName(g.outputType) +
         (g.epilogue == CudaEpilogue::None
              ? std::string()
              : std::string(", then ") + cudaEpilogueName(g.epilogue));
}

/// A plan kernel's launches with their functions resolved; what
/// Kernel::handle points to.
struct ResolvedKernel {
  const CudaKernel *kernel = nullptr;
  std::vector<void *> functions; // one per launch
  /// One per launch: the GEMM launches' plans, null for the others.
  std::vector<std::unique_ptr<GemmPlan>> gemms;
  /// cuLaunchKernel's parameter array, one slot per buffer, filled at each
  /// launch under the device's stream lock (sized once, not per launch).
  std::vector<void *> params;
};

class CudaDeviceModule : public DeviceModule {
public:
  CudaDeviceModule(CudaDevice &device, void *module, CudaModule parsed,
                   std::string source)
      : device(device), module(module), parsed(std::move(parsed)),
        source(std::move(source)) {
    for (const CudaKernel &kernel : this->parsed.kernels)
      bySymbol.emplace(kernel.symbol, &kernel);
  }
  ~CudaDeviceModule() override {
    if (device.makeCurrent().isOk())
      (void)device.driver.cuModuleUnload(module);
  }
  CudaDeviceModule(const CudaDeviceModule &) = delete;
  CudaDeviceModule &operator=(const CudaDeviceModule &) = delete;

  Status getKernel(const std::string &name, Kernel &out) override {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = bySymbol.find(name);
    if (found == bySymbol.end())
      return Status(StatusCode::NotFound,
                    "kernel '" + name + "' is not in the CUDA module");
    std::unique_ptr<ResolvedKernel> &slot = resolved[name];
    if (!slot) {
      auto kernel = std::make_unique<ResolvedKernel>();
      kernel->kernel = found->second;
      kernel->params.resize(found->second->numPointers);
      NNC_RUNTIME_RETURN_IF_ERROR(device.makeCurrent());
      for (const CudaLaunch &launch : found->second->launches) {
        if (launch.kind == CudaLaunch::Kind::Gemm) {
          Status status = resolveGemm(launch, *kernel);
          if (!status.isOk()) {
            resolved.erase(name);
            return Status(status.code(), device.describe() + ": kernel '" +
                                             name + "': GEMM '" +
                                             launch.function + "' (" +
                                             describeGemm(launch.gemm) +
                                             "): " + status.message());
          }
          continue;
        }
        kernel->gemms.push_back(nullptr);
        void *function = nullptr;
        Status status =
            device.driver.check(device.driver.cuModuleGetFunction(
                                    &function, module, launch.function.c_str()),
                                "cuModuleGetFunction");
        if (!status.isOk()) {
          resolved.erase(name);
          return Status(status.code(),
                        "kernel '" + name + "': __global__ function '" +
                            launch.function + "': " + status.message());
        }
        kernel->functions.push_back(function);
      }
      slot = std::move(kernel);
    }
    out.handle = slot.get();
    out.name = name;
    return Status::ok();
  }

  Status launch(const Kernel &kernel, void *const *args, size_t numArgs,
                const LaunchConfig &config) override {
    // Grid, block and shared memory come from the code section.
    (void)config;
    if (!kernel.handle)
      return Status(StatusCode::InvalidArgument, "launch of a null kernel");
    auto &resolvedKernel = *static_cast<ResolvedKernel *>(kernel.handle);
    const CudaKernel &planKernel = *resolvedKernel.kernel;
    if (numArgs != planKernel.numPointers)
      return Status(StatusCode::InvalidArgument,
                    "kernel '" + planKernel.symbol + "' takes " +
                        std::to_string(planKernel.numPointers) +
                        " buffers, got " + std::to_string(numArgs));
    std::lock_guard<std::recursive_mutex> lock(device.streamMutex);
    NNC_RUNTIME_RETURN_IF_ERROR(device.makeCurrent());
    // cuLaunchKernel reads each parameter (a buffer's device address)
    // through a pointer to it, and copies the values before it returns.
    std::vector<void *> &params = resolvedKernel.params;
    for (size_t i = 0; i < numArgs; ++i)
      params[i] = const_cast<void **>(&args[i]);
    for (size_t l = 0; l < planKernel.launches.size(); ++l) {
      const CudaLaunch &launch = planKernel.launches[l];
      if (const GemmPlan *gemm = resolvedKernel.gemms[l].get()) {
        Status status =
            gemm->run(device.gemmHandle, args,
                      reinterpret_cast<void *>(
                          static_cast<uintptr_t>(device.gemmWorkspace)),
                      device.stream);
        if (!status.isOk())
          return Status(status.code(),
                        device.describe() + ": launch " + std::to_string(l) +
                            ", GEMM '" + launch.function + "' (" +
                            describeGemm(launch.gemm) + ") of kernel '" +
                            planKernel.symbol + "': " + status.message());
        continue;
      }
      Status status = device.driver.check(
          device.driver.cuLaunchKernel(
              resolvedKernel.functions[l], launch.grid, 1, 1, launch.block, 1,
              1, launch.sharedBytes, device.stream, params.data(), nullptr),
          "cuLaunchKernel");
      if (!status.isOk())
        return Status(status.code(),
                      device.describe() + ": launch " + std::to_string(l) +
                          " of '" + launch.function + "' (grid " +
                          std::to_string(launch.grid) + ", block " +
                          std::to_string(launch.block) + ") of kernel '" +
                          planKernel.symbol + "': " + status.message());
    }
    return Status::ok();
  }

private:
  /// Opens cuBLASLt on the device if this is the first GEMM, and plans
  /// `launch` (descriptors and algorithm) into `kernel`.
  Status resolveGemm(const CudaLaunch &launch, ResolvedKernel &kernel) {
    std::lock_guard<std::recursive_mutex> lock(device.streamMutex);
    NNC_RUNTIME_RETURN_IF_ERROR(device.openGemmLibrary());
    auto plan = std::make_unique<GemmPlan>(*device.gemmLibrary);
    NNC_RUNTIME_RETURN_IF_ERROR(plan->build(device.gemmHandle, launch.gemm));
    kernel.gemms.push_back(std::move(plan));
    kernel.functions.push_back(nullptr);
    return Status::ok();
  }

  CudaDevice &device;
  void *module;
  /// The launches and symbols (its source and images are dropped once the
  /// module is loaded).
  CudaModule parsed;
  std::string source;
  std::map<std::string, const CudaKernel *> bySymbol;
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<ResolvedKernel>> resolved;
};

Status CudaDevice::loadModule(const uint8_t *code, size_t size,
                              const CodeRequirements &requirements,
                              const std::string &source,
                              std::unique_ptr<DeviceModule> &out) {
  // What CPU code sections ask of the host has no meaning for CUDA kernels;
  // a plan asking for it was not built for this device.
  std::string hostNeeds;
  auto need = [&](bool needed, const std::string &what) {
    if (needed)
      hostNeeds += (hostNeeds.empty() ? "" : ", ") + what;
  };
  for (const std::string &feature : requirements.cpuFeatures)
    need(true, "the CPU feature '" + feature + "'");
  need(requirements.needsOpenMP, "OpenMP");
  need(requirements.needsBlas, "BLAS");
  need(requirements.needsDnnl, "oneDNN");
  need(requirements.needsCollectives, "the runtime's collectives");
  if (!hostNeeds.empty())
    return Status(StatusCode::InvalidArgument,
                  source + ": the plan asks for " + hostNeeds +
                      ", which CUDA kernels cannot use");

  CudaModule parsed;
  NNC_RUNTIME_RETURN_IF_ERROR(parseCudaModule(code, size, source, parsed));
  NNC_RUNTIME_RETURN_IF_ERROR(makeCurrent());
  void *module = nullptr;
  if (driver.emulatedModuleLoadSource) {
    Status status =
        driver.check(driver.emulatedModuleLoadSource(
                         &module, parsed.source.data(), parsed.source.size()),
                     "nnc_emulated_module_load_source");
    if (!status.isOk())
      return Status(status.code(), source + ": loading the CUDA source onto " +
                                       describe() + ": " + status.message());
  } else {
    const CudaImage *image = selectCudaImage(parsed, major, minor);
    if (!image) {
      std::string images;
      for (const CudaImage &candidate : parsed.images)
        images += (images.empty() ? "" : ", ") + describeCudaImage(candidate);
      return Status(StatusCode::Unimplemented,
                    source + ": no image of the executable runs on " +
                        describe() + "; it has " +
                        (images.empty() ? std::string("none") : images) +
                        " (compile it for this GPU)");
    }
    // PTX is read as a NUL-terminated string, which the image need not be.
    std::vector<uint8_t> terminated;
    const uint8_t *bytes = image->bytes.data();
    if (image->kind == CudaImage::Kind::Ptx && image->bytes.back() != 0) {
      terminated.reserve(image->bytes.size() + 1);
      terminated.assign(image->bytes.begin(), image->bytes.end());
      terminated.push_back(0);
      bytes = terminated.data();
    }
    Status status = driver.check(driver.cuModuleLoadData(&module, bytes),
                                 "cuModuleLoadData");
    if (!status.isOk())
      return Status(status.code(), source + ": loading " +
                                       describeCudaImage(*image) + " onto " +
                                       describe() + ": " + status.message());
  }
  // Launching needs only the kernels; the code is on the device now.
  parsed.images.clear();
  parsed.images.shrink_to_fit();
  parsed.source.clear();
  parsed.source.shrink_to_fit();
  out = std::make_unique<CudaDeviceModule>(*this, module, std::move(parsed),
                                           source);
  return Status::ok();
}

/// An instantiated CUDA graph, replayed on its device's stream.
class CudaGraph : public DeviceGraph {
public:
  CudaGraph(CudaDevice &device, void *exec) : device(device), exec(exec) {}
  ~CudaGraph() override {
    std::lock_guard<std::recursive_mutex> lock(device.streamMutex);
    if (device.makeCurrent().isOk())
      (void)device.driver.cuGraphExecDestroy(exec);
  }
  CudaGraph(const CudaGraph &) = delete;
  CudaGraph &operator=(const CudaGraph &) = delete;

  Status replay() override {
    std::lock_guard<std::recursive_mutex> lock(device.streamMutex);
    NNC_RUNTIME_RETURN_IF_ERROR(device.makeCurrent());
    return device.named(device.driver.check(
        device.driver.cuGraphLaunch(exec, device.stream), "cuGraphLaunch"));
  }

private:
  CudaDevice &device;
  void *exec;
};

Status CudaDevice::beginCapture() {
  streamMutex.lock();
  Status status = makeCurrent();
  if (status.isOk())
    status = named(driver.check(
        driver.cuStreamBeginCapture_v2(stream, kCaptureModeThreadLocal),
        "cuStreamBeginCapture_v2"));
  if (!status.isOk())
    streamMutex.unlock();
  return status;
}

Status CudaDevice::endCapture(std::unique_ptr<DeviceGraph> &out) {
  out.reset();
  // The lock beginCapture took is this call's to release, however it ends.
  std::lock_guard<std::recursive_mutex> lock(streamMutex, std::adopt_lock);
  void *graph = nullptr;
  NNC_RUNTIME_RETURN_IF_ERROR(makeCurrent());
  NNC_RUNTIME_RETURN_IF_ERROR(named(driver.check(
      driver.cuStreamEndCapture(stream, &graph), "cuStreamEndCapture")));
  void *exec = nullptr;
  Status status =
      named(driver.check(driver.cuGraphInstantiateWithFlags(&exec, graph, 0),
                         "cuGraphInstantiateWithFlags"));
  // The instance does not need the graph it was made from.
  (void)driver.cuGraphDestroy(graph);
  NNC_RUNTIME_RETURN_IF_ERROR(status);
  out = std::make_unique<CudaGraph>(*this, exec);
  return Status::ok();
}

/// The devices opened so far, and the driver they share. Never destroyed:
/// devices serve the process until it exits, and tearing them down in
/// static destruction could race the driver's own.
struct CudaDevices {
  std::mutex mutex;
  std::unique_ptr<CudaDriver> driver;
  int count = 0;
  std::map<int, std::unique_ptr<CudaDevice>> devices;
};

CudaDevices &cudaDevices() {
  static CudaDevices *devices = new CudaDevices;
  return *devices;
}

/// Loads the driver, initializes it and counts its devices.
Status openDriver(std::unique_ptr<CudaDriver> &out, int &count) {
  auto driver = std::make_unique<CudaDriver>();
  NNC_RUNTIME_RETURN_IF_ERROR(CudaDriver::load(*driver));
  Status init = driver->check(driver->cuInit(0), "cuInit");
  if (!init.isOk())
    return Status(StatusCode::Unavailable, "no CUDA device: " + init.message() +
                                               " (driver " +
                                               driver->libraryPath() + ")");
  count = 0;
  Status counted =
      driver->check(driver->cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (!counted.isOk())
    return Status(StatusCode::Unavailable,
                  "no CUDA device: " + counted.message() + " (driver " +
                      driver->libraryPath() + ")");
  if (count <= 0)
    return Status(StatusCode::Unavailable, "no CUDA device: the driver (" +
                                               driver->libraryPath() +
                                               ") sees none");
  out = std::move(driver);
  return Status::ok();
}

} // namespace

Status getCudaDevice(int ordinal, Device *&out) {
  out = nullptr;
  CudaDevices &devices = cudaDevices();
  std::lock_guard<std::mutex> lock(devices.mutex);
  auto found = devices.devices.find(ordinal);
  if (found != devices.devices.end()) {
    out = found->second.get();
    return Status::ok();
  }
  // Only a driver that initialized is kept; a failed load is tried again
  // on the next call.
  if (!devices.driver)
    NNC_RUNTIME_RETURN_IF_ERROR(openDriver(devices.driver, devices.count));
  if (ordinal < 0 || ordinal >= devices.count)
    return Status(StatusCode::InvalidArgument,
                  "CUDA device " + std::to_string(ordinal) +
                      " does not exist: this machine has " +
                      std::to_string(devices.count) +
                      (devices.count == 1 ? " CUDA device" : " CUDA devices") +
                      " (0 to " + std::to_string(devices.count - 1) + ")");
  auto device = std::make_unique<CudaDevice>(*devices.driver, ordinal);
  Status opened = device->open();
  if (!opened.isOk())
    return Status(opened.code(), "CUDA device " + std::to_string(ordinal) +
                                     ": " + opened.message());
  out = device.get();
  devices.devices.emplace(ordinal, std::move(device));
  return Status::ok();
}

Status cudaOrdinalFromEnvironment(int &out) {
  out = 0;
  const char *text = std::getenv("NNC_CUDA_DEVICE");
  if (!text || !*text)
    return Status::ok();
  char *end = nullptr;
  errno = 0;
  long value = std::strtol(text, &end, 10);
  // Digits only: strtol would take a sign, leading spaces or a prefix.
  bool digits = true;
  for (const char *c = text; *c; ++c)
    digits = digits && *c >= '0' && *c <= '9';
  if (!digits || *end != '\0' || errno == ERANGE || value > INT_MAX)
    return Status(StatusCode::InvalidArgument,
                  std::string("NNC_CUDA_DEVICE is '") + text +
                      "', not a CUDA device ordinal (a non-negative integer)");
  out = static_cast<int>(value);
  return Status::ok();
}

Status deviceForExecutable(const std::string &executableTarget, int cudaOrdinal,
                           Device *&out) {
  out = nullptr;
  if (executableTarget == Program::hostCpuTarget()) {
    out = &getCpuDevice();
    return Status::ok();
  }
  if (executableTarget == kCudaExecutableTarget) {
    if (cudaOrdinal == kCudaOrdinalFromEnvironment)
      NNC_RUNTIME_RETURN_IF_ERROR(cudaOrdinalFromEnvironment(cudaOrdinal));
    return getCudaDevice(cudaOrdinal, out);
  }
  return Status(StatusCode::InvalidArgument,
                "no device runs executables built for target '" +
                    executableTarget + "' (this runtime runs '" +
                    Program::hostCpuTarget() + "' on the CPU and '" +
                    kCudaExecutableTarget + "' on CUDA devices)");
}

} // namespace nnc::runtime
