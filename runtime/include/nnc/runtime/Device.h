//===- Device.h - where kernels run -----------------------------*- C++ -*-===//
//
// The device interface the runtime drives: memory, copies between host and
// device, loading a code section into kernels, launching them, waiting. The
// CPU device implements it with host memory and a shared object loaded from
// memory; the CUDA device (CudaDevice.cpp) with the driver API (cuMemAlloc,
// cuModuleLoadData, cuLaunchKernel on a stream), which is why copies and
// launches are explicit and launches carry a configuration.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_DEVICE_H
#define NNC_RUNTIME_DEVICE_H

#include "nnc/runtime/DynamicLibrary.h"
#include "nnc/runtime/LibraryConvolution.h"
#include "nnc/runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nnc::runtime {

/// How a kernel is launched. The CPU device uses `threads` (0: all cores).
/// The CUDA device takes the grid, block and shared memory sizes of each
/// launch from its code section (CudaModule) and ignores these.
struct LaunchConfig {
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t sharedMemoryBytes = 0;
  uint32_t threads = 0;
};

/// A kernel of a loaded module: an opaque handle the module launches.
struct Kernel {
  void *handle = nullptr;
  std::string name;
};

/// Code loaded onto a device.
class DeviceModule {
public:
  virtual ~DeviceModule();
  /// Finds the kernel `name`; fails naming it.
  virtual Status getKernel(const std::string &name, Kernel &out) = 0;
  /// Launches `kernel` with `args`: one device pointer per buffer argument.
  /// The CPU device returns when the kernel is done; the CUDA device queues
  /// it on its stream.
  virtual Status launch(const Kernel &kernel, void *const *args, size_t numArgs,
                        const LaunchConfig &config) = 0;
};

/// What a code section needs from the machine that loads it.
struct CodeRequirements {
  std::vector<std::string> cpuFeatures;
  bool needsOpenMP = false;
  /// OpenBLAS (cblas_sgemm, cblas_dgemm), opened with its symbols global.
  bool needsBlas = false;
  /// The oneDNN glue libnnc_dnnl.so (nnc_dnnl_convolution), opened with its
  /// symbols global after the OpenMP runtime, so that oneDNN runs on it.
  bool needsDnnl = false;
  /// The runtime's nnc_runtime_all_reduce (Collectives.h), which the CPU
  /// device makes visible to the code it loads.
  bool needsCollectives = false;
};

/// Launches recorded once on a device (Device::beginCapture to endCapture)
/// and replayed as one unit on the same buffers: a CUDA graph. Destroyed
/// before its device.
class DeviceGraph {
public:
  virtual ~DeviceGraph();
  /// Queues the recorded launches, after the work queued so far.
  virtual Status replay() = 0;
};

class Device {
public:
  virtual ~Device();
  /// E.g. "cpu".
  virtual const char *name() const = 0;
  /// Whether the host can read and write this device's memory through the
  /// pointers allocate() returns. Where it cannot (CUDA), a Program copies
  /// inputs, outputs and weights between host and device memory.
  virtual bool hostAccessible() const = 0;
  /// Whether this device runs executables built for `executableTarget`
  /// (ExecutableReader::target()).
  virtual bool runsTarget(const std::string &executableTarget) const = 0;
  /// What this device runs, for messages: e.g. "x86_64-unknown-linux-gnu".
  virtual std::string target() const = 0;
  /// Allocates `bytes` of device memory aligned to 64 bytes.
  virtual Status allocate(size_t bytes, void **out) = 0;
  virtual void deallocate(void *pointer) = 0;
  virtual Status copyHostToDevice(void *device, const void *host,
                                  size_t bytes) = 0;
  virtual Status copyDeviceToHost(void *host, const void *device,
                                  size_t bytes) = 0;
  /// Loads a code section (for the CPU: a shared object) after checking
  /// `requirements`. `source` names it in errors.
  virtual Status loadModule(const uint8_t *code, size_t size,
                            const CodeRequirements &requirements,
                            const std::string &source,
                            std::unique_ptr<DeviceModule> &out) = 0;
  /// Waits for everything launched so far.
  virtual Status synchronize() = 0;

  /// Whether launches can be recorded into a DeviceGraph (CUDA: yes).
  virtual bool supportsGraphs() const { return false; }
  /// From now until endCapture, the launches the calling thread makes on
  /// this device are recorded, not run; the work of other threads waits.
  /// Between the two the thread may only launch kernels: no copies,
  /// allocations or synchronization. Unimplemented where !supportsGraphs().
  virtual Status beginCapture();
  /// Ends what beginCapture began (always, even when it fails) and makes
  /// what was recorded a graph.
  virtual Status endCapture(std::unique_ptr<DeviceGraph> &out);
};

/// The host CPU. One instance serves the whole process.
Device &getCpuDevice();

/// The CUDA device `ordinal` (as the driver numbers them), through the
/// driver CudaDriver::load opens ($NNC_CUDA_DRIVER, else libcuda). It is
/// opened on the first successful call for that ordinal (its primary
/// context retained, one stream created) and then serves the whole process
/// until it exits; calls from any thread are safe. A failure is not
/// remembered: the next call tries again (with the environment as it is
/// then), so a process can load a driver after a failed attempt. Errors:
/// the driver's load status (Unavailable naming the library) when it does
/// not load, Unavailable "no CUDA device" when cuInit fails or the driver
/// sees none, InvalidArgument naming the device count when `ordinal` is out
/// of range.
Status getCudaDevice(int ordinal, Device *&out);

/// deviceForExecutable's cudaOrdinal for "the ordinal $NNC_CUDA_DEVICE
/// holds".
inline constexpr int kCudaOrdinalFromEnvironment = -1;

/// The CUDA device ordinal the environment selects: the non-negative
/// integer in NNC_CUDA_DEVICE, 0 when it is unset or empty; any other value
/// is an InvalidArgument naming it.
Status cudaOrdinalFromEnvironment(int &out);

/// The device that runs executables built for `executableTarget`: the CPU
/// for Program::hostCpuTarget(), the CUDA device `cudaOrdinal` (or, for
/// kCudaOrdinalFromEnvironment, the one NNC_CUDA_DEVICE selects) for
/// kCudaExecutableTarget; any other target is an InvalidArgument naming it.
Status deviceForExecutable(const std::string &executableTarget, int cudaOrdinal,
                           Device *&out);

/// The oneDNN glue (libnnc_dnnl.so; nnc/runtime/LibraryConvolution.h),
/// opened once per process: from $NNC_DNNL_GLUE when it is set, else next to
/// libnnc_runtime.so or from the loader's path. The compiler asks it whether
/// oneDNN can run a convolution before it emits a call.
struct DnnlGlue {
  Status status;
  std::string path;
  /// nnc_dnnl_convolution, as generated code calls it.
  void (*convolution)(const int64_t *descriptor, void *a, void *b, void *c,
                      void *out) = nullptr;
  /// nnc_dnnl_convolution_check: 0 when oneDNN can run the descriptor.
  int (*check)(const int64_t *descriptor, char *error, size_t size) = nullptr;
  /// nnc_dnnl_version: oneDNN's version and the ISA it uses.
  const char *(*version)() = nullptr;
  /// nnc_dnnl_convolution_prefers_channels_last (LibraryConvolution.h);
  /// null in a glue older than it.
  libconv::PrefersChannelsLastFn prefersChannelsLast = nullptr;
  /// nnc_dnnl_sbgemm and its check (LibraryConvolution.h); null in a glue
  /// older than them.
  libconv::SbgemmFn sbgemm = nullptr;
  libconv::SbgemmCheckFn sbgemmCheck = nullptr;
  /// nnc_dnnl_sgemm and its check; null in a glue without them.
  libconv::SgemmFn sgemm = nullptr;
  libconv::SbgemmCheckFn sgemmCheck = nullptr;
  /// nnc_dnnl_forget_constants; null in a glue without it.
  libconv::ForgetConstantsFn forgetConstants = nullptr;
};
const DnnlGlue &dnnlGlue();

/// The BLAS library CPU kernels call, as it describes itself (OpenBLAS:
/// openblas_get_config(), its version, build options and core), or "no
/// BLAS"; opens it on the first call. Part of the CPU target's fingerprint.
std::string blasDescription();

/// Whether the host CPU has `feature` (names as LLVM spells them: "avx2",
/// "fma", "avx512f", ...). Unknown names answer false.
bool hostHasCpuFeature(const std::string &feature);

} // namespace nnc::runtime

#endif // NNC_RUNTIME_DEVICE_H
