//===- Device.h - where kernels run -----------------------------*- C++ -*-===//
//
// The device interface the runtime drives: memory, copies between host and
// device, loading a code section into kernels, launching them, waiting. The
// CPU device implements it with host memory and a shared object loaded from
// memory; the CUDA device will implement it with the driver API (cuMemAlloc,
// cuModuleLoadData, cuLaunchKernel on a stream), which is why copies and
// launches are explicit and launches carry a configuration.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_DEVICE_H
#define NNC_RUNTIME_DEVICE_H

#include "nnc/runtime/DynamicLibrary.h"
#include "nnc/runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nnc::runtime {

/// How a kernel is launched. The CPU device uses `threads` (0: all cores);
/// the CUDA device will use the grid, block and shared memory sizes.
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
  /// The CPU device returns when the kernel is done; the CUDA device will
  /// queue it on its stream.
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

class Device {
public:
  virtual ~Device();
  /// E.g. "cpu".
  virtual const char *name() const = 0;
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
};

/// The host CPU. One instance serves the whole process.
Device &getCpuDevice();

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
