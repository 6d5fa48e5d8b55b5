//===- CpuDevice.cpp - the host CPU as a device ---------------------------===//
//
// Memory is aligned host memory; a code section is a shared object that is
// loaded straight from memory (memfd_create + dlopen of /proc/self/fd/N, or
// a private temporary file where memfd is unavailable), so nothing of the
// executable is left on disk. Kernels take one array of buffer
// pointers: `void kernel(void **args)`.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/Device.h"

#include "nnc/runtime/Collectives.h"
#include "nnc/runtime/LibraryConvolution.h"
#include "nnc/runtime/Program.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace nnc::runtime {

DeviceModule::~DeviceModule() = default;
DeviceGraph::~DeviceGraph() = default;
Device::~Device() = default;

Status Device::beginCapture() {
  return Status(StatusCode::Unimplemented,
                std::string("the ") + name() +
                    " device does not record launches into graphs");
}

Status Device::endCapture(std::unique_ptr<DeviceGraph> &out) {
  out.reset();
  return Status(StatusCode::Unimplemented,
                std::string("the ") + name() +
                    " device does not record launches into graphs");
}

bool hostHasCpuFeature(const std::string &feature) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
#define NNC_CPU_FEATURE(name)                                                  \
  if (feature == name)                                                         \
    return __builtin_cpu_supports(name);
#include "nnc/runtime/CpuFeatures.def"
#undef NNC_CPU_FEATURE
#endif
  (void)feature;
  return false;
}

namespace {

using KernelFn = void (*)(void **);

/// Calls a kernel of loaded code. UBSan's function check (in sanitizer
/// builds) reads the bytes before an indirect call's target for a type
/// signature; generated code has none, and an entry point at the start of
/// its mapping has nothing readable before it. The check cannot apply here.
#if defined(__clang__)
__attribute__((no_sanitize("function")))
#endif
void callKernel(void *handle, void **args) {
  reinterpret_cast<KernelFn>(handle)(args);
}

using SetThreadsFn = void (*)(int);

/// A runtime library generated code calls into (OpenMP, BLAS), opened once
/// with its symbols global so that kernels loaded afterwards bind to it.
struct RuntimeLibrary {
  DynamicLibrary library;
  /// Its thread-count setter, null when it has none.
  SetThreadsFn setNumThreads = nullptr;
  Status status;
};

/// Opens the first of $`envVar` and `candidates` that loads, checks that it
/// has `required`, and looks up `threadsSymbol` (optional unless listed in
/// `required`). `purpose` says what it is for and how to install it.
RuntimeLibrary *openRuntimeLibrary(const char *envVar,
                                   std::vector<std::string> candidates,
                                   const std::string &purpose,
                                   std::vector<const char *> required,
                                   const char *threadsSymbol) {
  auto *rt = new RuntimeLibrary;
  if (const char *path = std::getenv(envVar))
    candidates.insert(candidates.begin(), path);
  rt->status = DynamicLibrary::open(candidates, purpose, rt->library,
                                    /*global=*/true);
  for (const char *symbol : required) {
    if (!rt->status.isOk())
      break;
    void *fn = nullptr;
    rt->status = rt->library.lookup(symbol, &fn);
    if (!rt->status.isOk())
      rt->status =
          Status(rt->status.code(), rt->status.message() + "; " + purpose);
  }
  void *fn = nullptr;
  if (rt->status.isOk() && rt->library.lookup(threadsSymbol, &fn).isOk())
    rt->setNumThreads = reinterpret_cast<SetThreadsFn>(fn);
  return rt;
}

RuntimeLibrary &openMP() {
  static RuntimeLibrary *runtime = openRuntimeLibrary(
      "NNC_OPENMP_LIBRARY",
      {"libomp.so.5", "libomp.so", "/usr/lib/llvm-22/lib/libomp.so.5"},
      "the OpenMP runtime that parallel CPU kernels call (install libomp5, "
      "or set NNC_OPENMP_LIBRARY)",
      {"omp_set_num_threads"}, "omp_set_num_threads");
  return *runtime;
}

/// BLAS for the GEMMs the compiler hands to a library (cblas_sgemm,
/// cblas_dgemm); the thread setter is OpenBLAS's, absent from other BLAS.
RuntimeLibrary &blas() {
  static RuntimeLibrary *runtime = openRuntimeLibrary(
      "NNC_BLAS_LIBRARY",
      {"libopenblas.so.0", "libopenblas.so",
       // Debian's libopenblas0-pthread, when no alternative points at it.
       "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
       "libblas.so.3"},
      "the CBLAS library that CPU kernels call for matrix multiplies "
      "(install libopenblas0-pthread, or set NNC_BLAS_LIBRARY)",
      {"cblas_sgemm", "cblas_dgemm"}, "openblas_set_num_threads");
  return *runtime;
}

/// Code that runs collectives calls nnc_runtime_all_reduce, which this
/// library defines: a program that opened it with RTLD_LOCAL (Python's
/// ctypes) hides it from the code, so it is promoted to the global scope.
const Status &runtimeSymbolsExposed() {
  static const Status status = [] {
    const char *symbol = "nnc_runtime_all_reduce";
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&nnc_runtime_all_reduce), &info) &&
        info.dli_fname)
      (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
    if (dlsym(RTLD_DEFAULT, symbol))
      return Status::ok();
    return Status(StatusCode::Unavailable,
                  std::string("the code runs collectives through ") + symbol +
                      ", which the runtime cannot make visible to it (" +
                      (info.dli_fname ? info.dli_fname : "unknown library") +
                      ")");
  }();
  return status;
}

DnnlGlue *openDnnlGlue() {
  auto *glue = new DnnlGlue;
  // oneDNN's OpenMP calls bind to the runtime kernels use (libomp provides
  // the GNU entry points too) when it is global first: one thread pool.
  RuntimeLibrary &omp = openMP();
  if (!omp.status.isOk()) {
    glue->status = omp.status;
    return glue;
  }
  // $NNC_DNNL_GLUE, when set, is the only place looked at.
  std::vector<std::string> candidates;
  if (const char *path = std::getenv("NNC_DNNL_GLUE")) {
    candidates.push_back(path);
  } else {
    std::string dir = runtimeLibraryDirectory();
    if (!dir.empty())
      candidates.push_back(dir + "libnnc_dnnl.so");
    candidates.push_back("libnnc_dnnl.so");
  }
  static DynamicLibrary library;
  glue->status = DynamicLibrary::open(
      candidates,
      "nnc's oneDNN glue, which CPU kernels call for convolutions (it needs "
      "libdnnl.so.2: install libdnnl2; or set NNC_DNNL_GLUE)",
      library, /*global=*/true);
  void *fn = nullptr;
  auto need = [&](const char *symbol) {
    fn = nullptr;
    if (glue->status.isOk())
      glue->status = library.lookup(symbol, &fn);
    return fn;
  };
  glue->convolution = reinterpret_cast<libconv::ConvolutionFn>(
      need(libconv::kConvolutionSymbol));
  glue->check = reinterpret_cast<int (*)(const int64_t *, char *, size_t)>(
      need(libconv::kCheckSymbol));
  glue->version =
      reinterpret_cast<const char *(*)()>(need(libconv::kVersionSymbol));
  if (glue->status.isOk()) {
    glue->path = library.path();
    // Optional: without them the compiler widens bf16 GEMMs to f32.
    void *sbgemm = nullptr, *sbgemmCheck = nullptr;
    if (library.lookup(libconv::kSbgemmSymbol, &sbgemm).isOk() &&
        library.lookup(libconv::kSbgemmCheckSymbol, &sbgemmCheck).isOk()) {
      glue->sbgemm = reinterpret_cast<libconv::SbgemmFn>(sbgemm);
      glue->sbgemmCheck = reinterpret_cast<libconv::SbgemmCheckFn>(sbgemmCheck);
    }
    void *prefers = nullptr;
    if (library.lookup(libconv::kPrefersChannelsLastSymbol, &prefers).isOk())
      glue->prefersChannelsLast =
          reinterpret_cast<libconv::PrefersChannelsLastFn>(prefers);
    void *sgemm = nullptr, *sgemmCheck = nullptr;
    if (library.lookup(libconv::kSgemmSymbol, &sgemm).isOk() &&
        library.lookup(libconv::kSgemmCheckSymbol, &sgemmCheck).isOk()) {
      glue->sgemm = reinterpret_cast<libconv::SgemmFn>(sgemm);
      glue->sgemmCheck = reinterpret_cast<libconv::SbgemmCheckFn>(sgemmCheck);
    }
    // Optional: without it the compiler marks no weights constant.
    void *forget = nullptr;
    if (library.lookup(libconv::kForgetConstantsSymbol, &forget).isOk())
      glue->forgetConstants =
          reinterpret_cast<libconv::ForgetConstantsFn>(forget);
  }
  else
    glue->convolution = nullptr, glue->check = nullptr, glue->version = nullptr;
  return glue;
}

class CpuModule : public DeviceModule {
public:
  CpuModule(void *handle, bool usesOpenMP, bool usesBlas, bool usesDnnl)
      : handle(handle), usesOpenMP(usesOpenMP), usesBlas(usesBlas),
        usesDnnl(usesDnnl) {}
  ~CpuModule() override { dlclose(handle); }

  Status getKernel(const std::string &name, Kernel &out) override {
    dlerror();
    void *symbol = dlsym(handle, name.c_str());
    if (!symbol)
      return Status(StatusCode::NotFound,
                    "kernel '" + name + "' is not in the code section");
    out.handle = symbol;
    out.name = name;
    return Status::ok();
  }

  Status launch(const Kernel &kernel, void *const *args, size_t numArgs,
                const LaunchConfig &config) override {
    (void)numArgs;
    if (!kernel.handle)
      return Status(StatusCode::InvalidArgument, "launch of a null kernel");
    if ((usesOpenMP || usesDnnl) && config.threads != 0) {
      // omp_set_num_threads sets the calling thread's team size (oneDNN's
      // too: it runs on this runtime, see openDnnlGlue).
      openMP().setNumThreads(static_cast<int>(config.threads));
    }
    if (usesBlas && config.threads != 0 && blas().setNumThreads) {
      // Process-wide in OpenBLAS, unlike the OpenMP setting.
      blas().setNumThreads(static_cast<int>(config.threads));
    }
    callKernel(kernel.handle, const_cast<void **>(args));
    return Status::ok();
  }

private:
  void *handle;
  bool usesOpenMP;
  bool usesBlas;
  bool usesDnnl;
};

std::string errnoText() { return std::strerror(errno); }

/// Writes `size` bytes to `fd`, retrying short writes.
bool writeAll(int fd, const uint8_t *data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

class CpuDevice : public Device {
public:
  const char *name() const override { return "cpu"; }
  bool hostAccessible() const override { return true; }
  bool runsTarget(const std::string &executableTarget) const override {
    return executableTarget == Program::hostCpuTarget();
  }
  std::string target() const override { return Program::hostCpuTarget(); }

  Status allocate(size_t bytes, void **out) override {
    // aligned_alloc wants a multiple of the alignment; 0 bytes still gets a
    // unique pointer.
    size_t rounded = (bytes + 63) / 64 * 64;
    if (rounded < bytes)
      return Status(StatusCode::OutOfRange,
                    "allocation of " + std::to_string(bytes) + " bytes");
    void *p = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
    if (!p)
      return Status(StatusCode::OutOfRange,
                    "cannot allocate " + std::to_string(bytes) + " bytes");
    *out = p;
    return Status::ok();
  }

  void deallocate(void *pointer) override { std::free(pointer); }

  Status copyHostToDevice(void *device, const void *host,
                          size_t bytes) override {
    if (bytes)
      std::memcpy(device, host, bytes);
    return Status::ok();
  }

  Status copyDeviceToHost(void *host, const void *device,
                          size_t bytes) override {
    if (bytes)
      std::memcpy(host, device, bytes);
    return Status::ok();
  }

  Status loadModule(const uint8_t *code, size_t size,
                    const CodeRequirements &requirements,
                    const std::string &source,
                    std::unique_ptr<DeviceModule> &out) override {
    for (const std::string &feature : requirements.cpuFeatures)
      if (!hostHasCpuFeature(feature))
        return Status(StatusCode::Unimplemented,
                      source + ": the code needs the CPU feature '" + feature +
                          "', which this CPU lacks; recompile the model here");
    if (requirements.needsOpenMP) {
      RuntimeLibrary &rt = openMP();
      if (!rt.status.isOk())
        return Status(rt.status.code(), source + ": " + rt.status.message());
    }
    if (requirements.needsBlas) {
      RuntimeLibrary &rt = blas();
      if (!rt.status.isOk())
        return Status(rt.status.code(), source + ": " + rt.status.message());
    }
    if (requirements.needsDnnl) {
      const DnnlGlue &glue = dnnlGlue();
      if (!glue.status.isOk())
        return Status(glue.status.code(),
                      source + ": " + glue.status.message());
    }
    if (requirements.needsCollectives) {
      const Status &exposed = runtimeSymbolsExposed();
      if (!exposed.isOk())
        return Status(exposed.code(), source + ": " + exposed.message());
    }
    static const uint8_t kElfMagic[4] = {0x7f, 'E', 'L', 'F'};
    if (size < sizeof(kElfMagic) ||
        std::memcmp(code, kElfMagic, sizeof(kElfMagic)) != 0)
      return Status(StatusCode::DataLoss,
                    source + ": the code section is not a shared object");

    // glibc treats a dlopen of a path it has loaded before as the same
    // library, so every load goes through a name never used before in this
    // process: a fresh symlink to the memfd, or a fresh temporary file.
    static std::atomic<uint64_t> counter{0};
    const char *tmp = std::getenv("TMPDIR");
    std::string base = std::string(tmp && *tmp ? tmp : "/tmp") +
                       "/nnc-kernels-" + std::to_string(::getpid()) + "-" +
                       std::to_string(counter.fetch_add(1)) + "-XXXXXX";
    std::vector<char> name(base.begin(), base.end());
    name.push_back('\0');
    int fd = -1;
    std::string path;
#ifdef MFD_CLOEXEC
    fd = memfd_create("nnc-kernels", MFD_CLOEXEC);
#endif
    bool isMemfd = fd >= 0;
    if (isMemfd) {
      // mkdtemp gives a unique name; the link replaces the directory.
      if (mkdtemp(name.data())) {
        ::rmdir(name.data());
        std::string target = "/proc/self/fd/" + std::to_string(fd);
        if (::symlink(target.c_str(), name.data()) == 0)
          path = name.data();
      }
      if (path.empty())
        path = "/proc/self/fd/" + std::to_string(fd);
    } else {
      fd = mkstemp(name.data());
      if (fd < 0)
        return Status(
            StatusCode::Unavailable,
            source + ": cannot create a file for the code: " + errnoText());
      path = name.data();
    }
    bool written = writeAll(fd, code, size);
    std::string writeError = written ? "" : errnoText();
    void *handle = nullptr;
    std::string loadError;
    if (written) {
      handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!handle) {
        const char *error = dlerror();
        loadError = error ? error : "unknown error";
      }
    }
    if (path.rfind("/proc/", 0) != 0)
      ::unlink(path.c_str());
    // The mapping keeps the code alive; the descriptor is not needed.
    ::close(fd);
    if (!written)
      return Status(StatusCode::Unavailable,
                    source + ": cannot write the code: " + writeError);
    if (!handle)
      return Status(StatusCode::DataLoss,
                    source + ": cannot load the code: " + loadError);
    out = std::make_unique<CpuModule>(handle, requirements.needsOpenMP,
                                      requirements.needsBlas,
                                      requirements.needsDnnl);
    return Status::ok();
  }

  Status synchronize() override { return Status::ok(); }
};

} // namespace

const DnnlGlue &dnnlGlue() {
  static DnnlGlue *glue = openDnnlGlue();
  return *glue;
}

std::string blasDescription() {
  RuntimeLibrary &library = blas();
  if (!library.status.isOk())
    return "no BLAS";
  using ConfigFn = const char *(*)();
  void *fn = nullptr;
  if (library.library.lookup("openblas_get_config", &fn).isOk() && fn)
    if (const char *config = reinterpret_cast<ConfigFn>(fn)())
      return config;
  return "BLAS without openblas_get_config";
}

Device &getCpuDevice() {
  static CpuDevice device;
  return device;
}

} // namespace nnc::runtime
