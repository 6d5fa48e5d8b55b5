//===- CudaEmulator.cpp - the CUDA driver, emulated on the host -----------===//
//
// Test-only: libnnc_cuda_emulator.so, a stand-in for libcuda that the
// runtime's CUDA device opens through $NNC_CUDA_DRIVER, so that the CUDA
// backend runs, end to end, on a machine without a GPU. It exports every
// entry point of nnc/runtime/CudaDriverSymbols.def and
// nnc_emulated_module_load_source, through which the device hands it a
// module's CUDA C++ source (KernelCompiler.cpp compiles it for the host).
//
// What it emulates: $NNC_EMULATOR_DEVICES devices (default 1) of compute
// capability 9.0 and 16 GiB each, with primary contexts; device memory as
// host memory (device addresses are host addresses), every device range of
// a copy, memset or kernel argument checked against the live allocations;
// streams, run synchronously in issue order on the calling thread; stream
// capture into graphs (launches, copies and memsets are recorded, with the
// arguments' values of the time of capture, and replayed by cuGraphLaunch),
// with CUDA's rules on what capture forbids (synchronizing a capturing
// stream, synchronous copies, cuMemAlloc/cuMemFree in global or own
// thread-local capture, the legacy stream against a capturing blocking
// stream), each violation invalidating the capture as CUDA does; events as
// host timestamps. Failures print why to stderr: the emulator is there to
// catch the runtime's bugs.
//
// Kernels run as nnc_cuda_emulation.h runs them: blocks one after another,
// a block's threads as fibers that meet at barriers and warp operations.
//
// The same library is an emulated cuBLASLt (CublasLtEmulator.cpp): the
// runtime opens it as its libcublasLt when it runs on this driver, and the
// GEMMs run as host work on these streams, ordered with launches and copies
// and recorded by captures like them.
//
// What it does not: concurrency within a launch (a warp's lanes are not
// independently scheduled, blocks do not overlap), dynamic shared memory
// (sharedMemBytes > 0 is CUDA_ERROR_NOT_SUPPORTED), `extra` launch
// parameters, memory spaces (kernels may touch any host memory; only the
// driver's own calls are checked), cubin or PTX images (cuModuleLoadData is
// CUDA_ERROR_NOT_SUPPORTED), events recorded inside a capture (they are
// "captured events", CUDA_ERROR_CAPTURED_EVENT for timing, as in CUDA but
// never replayed), capture on the per-thread default stream, the device's
// timing (elapsed times are the host's), and the teardown of a primary
// context's resources when its last retain is released.
//
//===----------------------------------------------------------------------===//

#include "Emulator.h"

#include "nnc/runtime/CudaDriver.h"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <type_traits>
#include <vector>

using nnc::cuda_emulator::CUresult;

// The entry points, declared from the runtime's table: a definition below
// whose parameters differ from the .def conflicts with its declaration and
// fails to compile.
#define NNC_CU_PFN(name, ...)                                                  \
  extern "C" __attribute__((visibility("default"))) CUresult name(__VA_ARGS__);
#include "nnc/runtime/CudaDriverSymbols.def"
#undef NNC_CU_PFN

extern "C" __attribute__((visibility("default"))) CUresult
nnc_emulated_module_load_source(void **module, const char *source, size_t size);
static_assert(std::is_same_v<
                  decltype(&nnc_emulated_module_load_source),
                  decltype(nnc::runtime::CudaDriver::emulatedModuleLoadSource)>,
              "the emulator's module loading differs from the runtime's seam");

// Referenced, so that an entry point of the .def left undefined fails to
// link (or to load) rather than to resolve at run time.
__attribute__((used)) static void *const kEntryPoints[] = {
#define NNC_CU_PFN(name, ...) reinterpret_cast<void *>(&name),
#include "nnc/runtime/CudaDriverSymbols.def"
#undef NNC_CU_PFN
    reinterpret_cast<void *>(&nnc_emulated_module_load_source)};

namespace nnc::cuda_emulator {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kMaxDevices = 64;
constexpr size_t kDeviceMemory = 16ull << 30;
constexpr size_t kDeviceAlignment = 256; // what cuMemAlloc guarantees
constexpr size_t kHostAlignment = 4096;  // pages, as pinned memory is
constexpr unsigned kStreamNonBlocking = 0x1;
constexpr unsigned kEventFlags = 0x3; // blocking sync, disable timing
constexpr unsigned kEventDisableTiming = 0x2;
constexpr unsigned long long kGraphInstantiateFlags = 0xf;
enum CaptureMode {
  kCaptureGlobal = 0,
  kCaptureThreadLocal = 1,
  kCaptureRelaxed = 2
};
constexpr const char *kDeviceName = "nnc emulated CUDA device";

/// Device attributes (CUdevice_attribute) and an H100-like value; others are
/// CUDA_ERROR_INVALID_VALUE.
constexpr std::pair<int, int> kAttributes[] = {
    {1, 1024},        // max threads per block
    {2, 1024},        // max block dim x
    {3, 1024},        // max block dim y
    {4, 64},          // max block dim z
    {5, 0x7fffffff},  // max grid dim x
    {6, 65535},       // max grid dim y
    {7, 65535},       // max grid dim z
    {8, 0},           // shared memory per block: none emulated
    {9, 65536},       // total constant memory
    {10, 32},         // warp size
    {11, 0x7fffffff}, // max pitch
    {12, 65536},      // registers per block
    {13, 1755000},    // clock rate, kHz
    {14, 512},        // texture alignment
    {16, 132},        // multiprocessors
    {17, 0},          // kernel execution timeout
    {18, 0},          // integrated
    {19, 1},          // can map host memory
    {20, 0},          // compute mode: default
    {31, 1},          // concurrent kernels
    {32, 0},          // ECC
    {33, 0},          // PCI bus id (the ordinal is added)
    {34, 0},          // PCI device id
    {36, 2619000},    // memory clock rate, kHz
    {37, 5120},       // memory bus width, bits
    {38, 50 << 20},   // L2 cache bytes
    {39, 2048},       // max threads per multiprocessor
    {40, 2},          // async engines
    {41, 1},          // unified addressing: device addresses are host ones
    {50, 0},          // PCI domain id
    {75, 9},          // compute capability major
    {76, 0},          // compute capability minor
    {81, 0},          // shared memory per multiprocessor: none emulated
    {82, 65536},      // registers per multiprocessor
    {97, 0},          // opt-in shared memory per block: none emulated
    {106, 32},        // max blocks per multiprocessor
};

struct Context;
struct Function;

/// One launch, copy, memset or host work: run at once, or recorded by a
/// capture.
struct Op {
  enum Kind { Launch, CopyHtoD, CopyDtoH, CopyDtoD, Memset, HostWork };
  Op(Kind kind, const char *call) : kind(kind), call(call) {}
  Kind kind;
  const char *call; // the entry point that issued it, for diagnostics
  // Launch: the function as a handle, checked live (by serial) whenever the
  // op runs, and the argument values.
  Function *function = nullptr;
  uint64_t serial = 0;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  std::vector<char *> args;
  // Copies and memsets.
  void *dst = nullptr;
  const void *src = nullptr;
  size_t bytes = 0;
  unsigned char value = 0;
  // Host work (submitHostWork): what it does, with its values of the time
  // of issue, and the device memory it touches.
  std::function<void()> work;
  std::vector<DeviceRange> ranges;
};

struct Graph {
  Context *ctx;
  std::vector<Op> ops;
};

struct GraphExec {
  Context *ctx;
  // Shared with the launches in flight, which run outside the lock.
  std::shared_ptr<const std::vector<Op>> ops;
};

struct Capture {
  int mode;
  std::thread::id thread;
  bool invalidated = false;
  std::unique_ptr<Graph> graph;
};

struct Stream {
  enum Kind { Created, Legacy, PerThread };
  Stream(Kind kind, Context *ctx, unsigned flags = 0)
      : kind(kind), ctx(ctx), flags(flags) {}
  Kind kind;
  Context *ctx;
  unsigned flags;
  std::unique_ptr<Capture> capture;
};

struct Context {
  int device;
  int retained = 0;
  Stream legacy{Stream::Legacy, this};
  Stream perThread{Stream::PerThread, this};
};

struct Module {
  Context *ctx;
  void *handle;
  ModuleLauncher launcher;
  std::map<std::string, KernelSignature> kernels;
  std::map<std::string, std::unique_ptr<Function>> functions;
};

struct Function {
  Module *module;
  std::string name;
  void *symbol;
  KernelSignature sig;
  uint64_t serial;
};

struct Event {
  Event(Context *ctx, unsigned flags) : ctx(ctx), flags(flags) {}
  Context *ctx;
  unsigned flags;
  enum { Unrecorded, Recorded, Captured } state = Unrecorded;
  Clock::time_point when;
};

struct Allocation {
  size_t size;
  int device;
};

template <typename T> using Table = std::map<const void *, std::unique_ptr<T>>;

struct State {
  std::mutex mutex;
  bool initialized = false;
  std::vector<std::unique_ptr<Context>> contexts; // one per device
  std::vector<size_t> used;                       // bytes per device
  std::map<uintptr_t, Allocation> deviceMemory;
  std::map<uintptr_t, size_t> hostMemory;
  Table<Stream> streams;
  std::set<Stream *> capturing;
  Table<Module> modules;
  std::map<const Function *, uint64_t> functions; // live, by serial
  uint64_t nextSerial = 1;
  Table<Event> events;
  Table<Graph> graphs;
  Table<GraphExec> execs;
};

State *state = new State;
thread_local Context *current = nullptr;

using Lock = std::unique_lock<std::mutex>;

template <typename T> T *find(const Table<T> &table, const void *handle) {
  auto it = table.find(handle);
  return it == table.end() ? nullptr : it->second.get();
}

CUresult requireInit(const char *call) {
  if (state->initialized)
    return CUDA_SUCCESS;
  diag("%s before cuInit", call);
  return CUDA_ERROR_NOT_INITIALIZED;
}

CUresult requireDevice(int device, const char *call) {
  if (CUresult r = requireInit(call))
    return r;
  int count = static_cast<int>(state->contexts.size());
  if (count == 0) {
    diag("%s: no devices ($NNC_EMULATOR_DEVICES=0)", call);
    return CUDA_ERROR_NO_DEVICE;
  }
  if (device < 0 || device >= count) {
    diag("%s: device %d of %d", call, device, count);
    return CUDA_ERROR_INVALID_DEVICE;
  }
  return CUDA_SUCCESS;
}

/// The calling thread's current context, which must be retained.
CUresult requireContext(const char *call, Context *&ctx) {
  if (CUresult r = requireInit(call))
    return r;
  if (!current || current->retained == 0) {
    diag("%s: no current context on this thread (cuCtxSetCurrent with a "
         "retained primary context first)",
         call);
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  ctx = current;
  return CUDA_SUCCESS;
}

/// Null and CU_STREAM_LEGACY name the current context's legacy default
/// stream, CU_STREAM_PER_THREAD its per-thread one.
CUresult resolveStream(void *handle, const char *call, Stream *&stream) {
  if (CUresult r = requireInit(call))
    return r;
  uintptr_t h = reinterpret_cast<uintptr_t>(handle);
  if (h <= 2) {
    Context *ctx;
    if (CUresult r = requireContext(call, ctx))
      return r;
    stream = h == 2 ? &ctx->perThread : &ctx->legacy;
    return CUDA_SUCCESS;
  }
  stream = find(state->streams, handle);
  if (stream)
    return CUDA_SUCCESS;
  diag("%s: unknown stream %p", call, handle);
  return CUDA_ERROR_INVALID_HANDLE;
}

/// Work on the legacy stream waits for every blocking stream of its
/// context, which a capture cannot express.
CUresult checkLegacyStream(Context *ctx, const char *call) {
  bool conflict = false;
  for (Stream *s : state->capturing)
    if (s->ctx == ctx && !(s->flags & kStreamNonBlocking)) {
      s->capture->invalidated = true;
      conflict = true;
    }
  if (!conflict)
    return CUDA_SUCCESS;
  diag("%s on the legacy default stream while a blocking stream of its "
       "context is capturing: the capture is invalidated",
       call);
  return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
}

/// The "potentially unsafe" calls (allocation, freeing, synchronous
/// copies): forbidden during a global-mode capture of any thread and a
/// thread-local one of the calling thread.
CUresult checkUnsafeCall(const char *call) {
  bool conflict = false;
  std::thread::id self = std::this_thread::get_id();
  for (Stream *s : state->capturing)
    if (s->capture->mode == kCaptureGlobal ||
        (s->capture->mode == kCaptureThreadLocal &&
         s->capture->thread == self)) {
      s->capture->invalidated = true;
      conflict = true;
    }
  if (!conflict)
    return CUDA_SUCCESS;
  diag("%s is not permitted while a stream is capturing (in global mode, or "
       "thread-local on this thread): the capture is invalidated",
       call);
  return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
}

/// Whether work may go to `stream` (into its capture, if it has one).
CUresult admit(Stream *stream, const char *call) {
  if (stream->capture) {
    if (!stream->capture->invalidated)
      return CUDA_SUCCESS;
    diag("%s: the capture on this stream was invalidated by an earlier "
         "error; end it",
         call);
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  }
  if (stream->kind == Stream::Legacy)
    return checkLegacyStream(stream->ctx, call);
  return CUDA_SUCCESS;
}

CUresult checkDeviceRange(const void *p, size_t bytes, const char *call,
                          const char *what) {
  if (bytes == 0)
    return CUDA_SUCCESS;
  uintptr_t address = reinterpret_cast<uintptr_t>(p);
  auto it = state->deviceMemory.upper_bound(address);
  if (it != state->deviceMemory.begin()) {
    --it;
    size_t offset = address - it->first;
    if (offset < it->second.size && bytes <= it->second.size - offset)
      return CUDA_SUCCESS;
  }
  diag("%s: %s [%p, +%zu bytes) is not inside a live cuMemAlloc allocation",
       call, what, p, bytes);
  return CUDA_ERROR_INVALID_VALUE;
}

/// A kernel argument: null, or an address within (or one past the end of)
/// a live device or pinned host allocation, as mapped pinned memory is
/// addressable from kernels.
bool isLiveAddress(const void *p) {
  if (!p)
    return true;
  uintptr_t address = reinterpret_cast<uintptr_t>(p);
  auto dev = state->deviceMemory.upper_bound(address);
  if (dev != state->deviceMemory.begin() &&
      address - std::prev(dev)->first <= std::prev(dev)->second.size)
    return true;
  auto host = state->hostMemory.upper_bound(address);
  return host != state->hostMemory.begin() &&
         address - std::prev(host)->first <= std::prev(host)->second;
}

CUresult checkHostPointer(const void *p, size_t bytes, const char *call) {
  if (p || bytes == 0)
    return CUDA_SUCCESS;
  diag("%s: null host pointer", call);
  return CUDA_ERROR_INVALID_VALUE;
}

/// Checks `op` against the live state, for `stream`; under the lock.
CUresult validate(const Op &op, const Stream *stream) {
  switch (op.kind) {
  case Op::Launch: {
    auto it = state->functions.find(op.function);
    if (it == state->functions.end() || it->second != op.serial) {
      diag("%s: the function's module was unloaded", op.call);
      return CUDA_ERROR_INVALID_HANDLE;
    }
    const Function &f = *op.function;
    if (f.module->ctx != stream->ctx) {
      diag("%s %s: the stream belongs to another context than the "
           "function's module",
           op.call, f.name.c_str());
      return CUDA_ERROR_INVALID_HANDLE;
    }
    const unsigned *g = op.grid, *b = op.block;
    unsigned long long threads = 1ull * b[0] * b[1] * b[2];
    if (!g[0] || !g[1] || !g[2] || g[0] > 0x7fffffffu || g[1] > 65535 ||
        g[2] > 65535 || !b[0] || !b[1] || !b[2] || b[0] > 1024 || b[1] > 1024 ||
        b[2] > 64 || threads > 1024 || threads > f.sig.maxThreads) {
      diag("%s %s: grid %ux%ux%u of blocks %ux%ux%u is beyond CUDA's limits "
           "or the kernel's __launch_bounds__(%u)",
           op.call, f.name.c_str(), g[0], g[1], g[2], b[0], b[1], b[2],
           f.sig.maxThreads);
      return CUDA_ERROR_INVALID_VALUE;
    }
    for (size_t i = 0; i < op.args.size(); ++i)
      if (!isLiveAddress(op.args[i])) {
        diag("%s %s: argument %zu (%p) is not in a live allocation", op.call,
             f.name.c_str(), i, static_cast<void *>(op.args[i]));
        return CUDA_ERROR_INVALID_VALUE;
      }
    return CUDA_SUCCESS;
  }
  case Op::CopyHtoD:
    if (CUresult r = checkHostPointer(op.src, op.bytes, op.call))
      return r;
    return checkDeviceRange(op.dst, op.bytes, op.call, "destination");
  case Op::CopyDtoH:
    if (CUresult r = checkHostPointer(op.dst, op.bytes, op.call))
      return r;
    return checkDeviceRange(op.src, op.bytes, op.call, "source");
  case Op::CopyDtoD:
    if (CUresult r = checkDeviceRange(op.src, op.bytes, op.call, "source"))
      return r;
    return checkDeviceRange(op.dst, op.bytes, op.call, "destination");
  case Op::Memset:
    return checkDeviceRange(op.dst, op.bytes, op.call, "destination");
  case Op::HostWork:
    for (const DeviceRange &range : op.ranges)
      if (CUresult r =
              checkDeviceRange(range.begin, range.bytes, op.call, range.what))
        return r;
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

/// Runs `op`, outside the lock: launches on different streams may run at
/// once on different threads.
CUresult execute(const Op &op) {
  switch (op.kind) {
  case Op::Launch: {
    const Function &f = *op.function;
    if (f.module->launcher(f.symbol, static_cast<int>(op.args.size()),
                           op.args.data(), op.grid, op.block) != 0) {
      diag("%s %s: the module's launcher refused %zu parameters", op.call,
           f.name.c_str(), op.args.size());
      return CUDA_ERROR_LAUNCH_FAILED;
    }
    return CUDA_SUCCESS;
  }
  case Op::CopyHtoD:
  case Op::CopyDtoH:
    if (op.bytes)
      std::memcpy(op.dst, op.src, op.bytes);
    return CUDA_SUCCESS;
  case Op::CopyDtoD:
    if (op.bytes)
      std::memmove(op.dst, op.src, op.bytes);
    return CUDA_SUCCESS;
  case Op::Memset:
    if (op.bytes)
      std::memset(op.dst, op.value, op.bytes);
    return CUDA_SUCCESS;
  case Op::HostWork:
    op.work();
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

/// Issues `op` on the stream `handle`: recorded if it is capturing (an
/// invalid op invalidates the capture, as in CUDA), else run now.
CUresult submit(Lock &lock, void *handle, Op op) {
  Stream *stream;
  if (CUresult r = resolveStream(handle, op.call, stream))
    return r;
  if (CUresult r = admit(stream, op.call))
    return r;
  if (CUresult r = validate(op, stream)) {
    if (stream->capture)
      stream->capture->invalidated = true;
    return r;
  }
  if (stream->capture) {
    stream->capture->graph->ops.push_back(std::move(op));
    return CUDA_SUCCESS;
  }
  lock.unlock();
  return execute(op);
}

/// A synchronous copy: a potentially unsafe call, on the legacy stream.
CUresult submitSynchronous(Op op) {
  Lock lock(state->mutex);
  Context *ctx;
  if (CUresult r = requireContext(op.call, ctx))
    return r;
  if (CUresult r = checkUnsafeCall(op.call))
    return r;
  return submit(lock, nullptr, std::move(op));
}

Op copyOp(Op::Kind kind, const char *call, void *dst, const void *src,
          size_t bytes) {
  Op op(kind, call);
  op.dst = dst;
  op.src = src;
  op.bytes = bytes;
  return op;
}

void *devicePointer(unsigned long long address) {
  return reinterpret_cast<void *>(static_cast<uintptr_t>(address));
}

/// $NNC_EMULATOR_DEVICES, default 1.
bool deviceCount(int &count) {
  count = 1;
  const char *text = std::getenv("NNC_EMULATOR_DEVICES");
  if (!text || !*text)
    return true;
  char *end = nullptr;
  long n = std::strtol(text, &end, 10);
  if (*end || n < 0 || n > kMaxDevices) {
    diag("cuInit: $NNC_EMULATOR_DEVICES=%s is not a count from 0 to %d", text,
         kMaxDevices);
    return false;
  }
  count = static_cast<int>(n);
  return true;
}

// Runs when the library is closed or at exit, after every C++ static
// destructor (which may still free device memory through the driver).
__attribute__((destructor)) void unloadEmulator() {
  removePrivateDirectory();
  for (auto &[address, allocation] : state->deviceMemory)
    std::free(reinterpret_cast<void *>(address));
  for (auto &[address, size] : state->hostMemory)
    std::free(reinterpret_cast<void *>(address));
  // Modules stay mapped: the host may still hold pointers into them.
  delete state;
  state = nullptr;
}

} // namespace

CUresult submitHostWork(void *stream, const char *call,
                        std::vector<DeviceRange> ranges,
                        std::function<void()> work) {
  Op op(Op::HostWork, call);
  op.work = std::move(work);
  op.ranges = std::move(ranges);
  Lock lock(state->mutex);
  return submit(lock, stream, std::move(op));
}

} // namespace nnc::cuda_emulator

using namespace nnc::cuda_emulator;

//===----------------------------------------------------------------------===//
// Initialization, devices, errors
//===----------------------------------------------------------------------===//

extern "C" CUresult cuInit(unsigned int flags) {
  if (flags != 0) {
    diag("cuInit: flags must be 0, got %u", flags);
    return CUDA_ERROR_INVALID_VALUE;
  }
  Lock lock(state->mutex);
  if (state->initialized)
    return CUDA_SUCCESS;
  int count;
  if (!deviceCount(count))
    return CUDA_ERROR_INVALID_VALUE;
  for (int d = 0; d < count; ++d) {
    state->contexts.push_back(std::make_unique<Context>());
    state->contexts.back()->device = d;
  }
  state->used.assign(count, 0);
  state->initialized = true;
  return CUDA_SUCCESS;
}

extern "C" CUresult cuDriverGetVersion(int *version) {
  if (!version)
    return CUDA_ERROR_INVALID_VALUE;
  *version = 13000;
  return CUDA_SUCCESS;
}

extern "C" CUresult cuDeviceGetCount(int *count) {
  Lock lock(state->mutex);
  if (CUresult r = requireInit("cuDeviceGetCount"))
    return r;
  if (!count)
    return CUDA_ERROR_INVALID_VALUE;
  *count = static_cast<int>(state->contexts.size());
  return CUDA_SUCCESS;
}

extern "C" CUresult cuDeviceGet(int *device, int ordinal) {
  Lock lock(state->mutex);
  if (CUresult r = requireDevice(ordinal, "cuDeviceGet"))
    return r;
  if (!device)
    return CUDA_ERROR_INVALID_VALUE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

extern "C" CUresult cuDeviceGetName(char *name, int length, int device) {
  Lock lock(state->mutex);
  if (CUresult r = requireDevice(device, "cuDeviceGetName"))
    return r;
  if (!name || length <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  std::strncpy(name, kDeviceName, static_cast<size_t>(length) - 1);
  name[length - 1] = '\0';
  return CUDA_SUCCESS;
}

extern "C" CUresult cuDeviceGetAttribute(int *value, int attribute,
                                         int device) {
  Lock lock(state->mutex);
  if (CUresult r = requireDevice(device, "cuDeviceGetAttribute"))
    return r;
  if (!value)
    return CUDA_ERROR_INVALID_VALUE;
  for (auto [key, v] : kAttributes)
    if (key == attribute) {
      *value = key == 33 ? v + device : v;
      return CUDA_SUCCESS;
    }
  // No diagnostic: a runtime may probe attributes it can do without.
  return CUDA_ERROR_INVALID_VALUE;
}

extern "C" CUresult cuDeviceTotalMem_v2(size_t *bytes, int device) {
  Lock lock(state->mutex);
  if (CUresult r = requireDevice(device, "cuDeviceTotalMem_v2"))
    return r;
  if (!bytes)
    return CUDA_ERROR_INVALID_VALUE;
  *bytes = kDeviceMemory;
  return CUDA_SUCCESS;
}

extern "C" CUresult cuGetErrorString(int error, const char **text) {
  if (!text)
    return CUDA_ERROR_INVALID_VALUE;
  switch (error) {
#define NNC_CU_ERROR(name, value, description)                                 \
  case value:                                                                  \
    *text = #name ": " description;                                            \
    return CUDA_SUCCESS;
#include "CudaErrors.def"
#undef NNC_CU_ERROR
  default:
    *text = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
}

//===----------------------------------------------------------------------===//
// Contexts
//===----------------------------------------------------------------------===//

extern "C" CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  Lock lock(state->mutex);
  if (CUresult r = requireDevice(device, "cuDevicePrimaryCtxRetain"))
    return r;
  if (!context)
    return CUDA_ERROR_INVALID_VALUE;
  Context *ctx = state->contexts[device].get();
  ++ctx->retained;
  *context = ctx;
  return CUDA_SUCCESS;
}

extern "C" CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  Lock lock(state->mutex);
  if (CUresult r = requireDevice(device, "cuDevicePrimaryCtxRelease_v2"))
    return r;
  Context *ctx = state->contexts[device].get();
  if (ctx->retained == 0) {
    diag("cuDevicePrimaryCtxRelease_v2: device %d's primary context is not "
         "retained",
         device);
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  --ctx->retained;
  return CUDA_SUCCESS;
}

extern "C" CUresult cuCtxSetCurrent(void *context) {
  Lock lock(state->mutex);
  if (CUresult r = requireInit("cuCtxSetCurrent"))
    return r;
  if (!context) {
    current = nullptr;
    return CUDA_SUCCESS;
  }
  for (const auto &ctx : state->contexts)
    if (ctx.get() == context) {
      if (ctx->retained == 0)
        break;
      current = ctx.get();
      return CUDA_SUCCESS;
    }
  diag("cuCtxSetCurrent: %p is not a retained primary context", context);
  return CUDA_ERROR_INVALID_CONTEXT;
}

extern "C" CUresult cuCtxSynchronize(void) {
  Lock lock(state->mutex);
  Context *ctx;
  if (CUresult r = requireContext("cuCtxSynchronize", ctx))
    return r;
  bool conflict = false;
  for (Stream *s : state->capturing)
    if (s->ctx == ctx) {
      s->capture->invalidated = true;
      conflict = true;
    }
  if (conflict) {
    diag("cuCtxSynchronize while a stream of the context is capturing: the "
         "capture is invalidated");
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  }
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Streams
//===----------------------------------------------------------------------===//

extern "C" CUresult cuStreamCreate(void **stream, unsigned int flags) {
  Lock lock(state->mutex);
  Context *ctx;
  if (CUresult r = requireContext("cuStreamCreate", ctx))
    return r;
  if (!stream || (flags & ~kStreamNonBlocking)) {
    diag("cuStreamCreate: null result or flags %#x", flags);
    return CUDA_ERROR_INVALID_VALUE;
  }
  auto s = std::make_unique<Stream>(Stream::Created, ctx, flags);
  *stream = s.get();
  state->streams.emplace(s.get(), std::move(s));
  return CUDA_SUCCESS;
}

extern "C" CUresult cuStreamDestroy_v2(void *stream) {
  Lock lock(state->mutex);
  if (CUresult r = requireInit("cuStreamDestroy_v2"))
    return r;
  Stream *s = find(state->streams, stream);
  if (!s) {
    diag("cuStreamDestroy_v2: unknown stream %p", stream);
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (s->capture) {
    diag("cuStreamDestroy_v2: the stream is capturing; end the capture "
         "first");
    return CUDA_ERROR_ILLEGAL_STATE;
  }
  state->streams.erase(stream);
  return CUDA_SUCCESS;
}

/// cuStreamSynchronize and cuStreamQuery: all work is done, but waiting on
/// a capturing stream is forbidden.
static CUresult waitForStream(void *handle, const char *call) {
  Lock lock(state->mutex);
  Stream *s;
  if (CUresult r = resolveStream(handle, call, s))
    return r;
  if (s->capture) {
    s->capture->invalidated = true;
    diag("%s on a capturing stream: the capture is invalidated", call);
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  }
  if (s->kind == Stream::Legacy)
    return checkLegacyStream(s->ctx, call);
  return CUDA_SUCCESS;
}

extern "C" CUresult cuStreamSynchronize(void *stream) {
  return waitForStream(stream, "cuStreamSynchronize");
}

extern "C" CUresult cuStreamQuery(void *stream) {
  return waitForStream(stream, "cuStreamQuery");
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

static size_t roundUp(size_t bytes, size_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

extern "C" CUresult cuMemAlloc_v2(unsigned long long *address, size_t bytes) {
  Lock lock(state->mutex);
  Context *ctx;
  if (CUresult r = requireContext("cuMemAlloc_v2", ctx))
    return r;
  if (!address || bytes == 0) {
    diag("cuMemAlloc_v2: null result or 0 bytes");
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (CUresult r = checkUnsafeCall("cuMemAlloc_v2"))
    return r;
  size_t rounded = roundUp(bytes, kDeviceAlignment);
  size_t &used = state->used[ctx->device];
  void *p = rounded <= kDeviceMemory - used
                ? std::aligned_alloc(kDeviceAlignment, rounded)
                : nullptr;
  if (!p) {
    diag("cuMemAlloc_v2: %zu bytes with %zu of %zu in use on device %d", bytes,
         used, kDeviceMemory, ctx->device);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  used += rounded;
  state->deviceMemory[reinterpret_cast<uintptr_t>(p)] = {bytes, ctx->device};
  *address = reinterpret_cast<uintptr_t>(p);
  return CUDA_SUCCESS;
}

extern "C" CUresult cuMemFree_v2(unsigned long long address) {
  Lock lock(state->mutex);
  if (CUresult r = requireInit("cuMemFree_v2"))
    return r;
  if (address == 0) // as cudaFree(nullptr)
    return CUDA_SUCCESS;
  auto it = state->deviceMemory.find(static_cast<uintptr_t>(address));
  if (it == state->deviceMemory.end()) {
    diag("cuMemFree_v2: %#llx is not the start of a live allocation", address);
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (CUresult r = checkUnsafeCall("cuMemFree_v2"))
    return r;
  state->used[it->second.device] -= roundUp(it->second.size, kDeviceAlignment);
  std::free(devicePointer(address));
  state->deviceMemory.erase(it);
  return CUDA_SUCCESS;
}

extern "C" CUresult cuMemAllocHost_v2(void **pointer, size_t bytes) {
  Lock lock(state->mutex);
  Context *ctx;
  if (CUresult r = requireContext("cuMemAllocHost_v2", ctx))
    return r;
  if (!pointer || bytes == 0) {
    diag("cuMemAllocHost_v2: null result or 0 bytes");
    return CUDA_ERROR_INVALID_VALUE;
  }
  void *p = std::aligned_alloc(kHostAlignment, roundUp(bytes, kHostAlignment));
  if (!p)
    return CUDA_ERROR_OUT_OF_MEMORY;
  state->hostMemory[reinterpret_cast<uintptr_t>(p)] = bytes;
  *pointer = p;
  return CUDA_SUCCESS;
}

extern "C" CUresult cuMemFreeHost(void *pointer) {
  Lock lock(state->mutex);
  if (CUresult r = requireInit("cuMemFreeHost"))
    return r;
  auto it = state->hostMemory.find(reinterpret_cast<uintptr_t>(pointer));
  if (it == state->hostMemory.end()) {
    diag("cuMemFreeHost: %p is not from cuMemAllocHost_v2", pointer);
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (CUresult r = checkUnsafeCall("cuMemFreeHost"))
    return r;
  std::free(pointer);
  state->hostMemory.erase(it);
  return CUDA_SUCCESS;
}

extern "C" CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void *src,
                                    size_t bytes) {
  return submitSynchronous(
      copyOp(Op::CopyHtoD, "cuMemcpyHtoD_v2", devicePointer(dst), src, bytes));
}

extern "C" CUresult cuMemcpyDtoH_v2(void *dst, unsigned long long src,
                                    size_t bytes) {
  return submitSynchronous(
      copyOp(Op::CopyDtoH, "cuMemcpyDtoH_v2", dst, devicePointer(src), bytes));
}

extern "C" CUresult cuMemcpyHtoDAsync_v2(unsigned long long dst,
                                         const void *src, size_t bytes,
                                         void *stream) {
  Lock lock(state->mutex);
  return submit(lock, stream,
                copyOp(Op::CopyHtoD, "cuMemcpyHtoDAsync_v2", devicePointer(dst),
                       src, bytes));
}

extern "C" CUresult cuMemcpyDtoHAsync_v2(void *dst, unsigned long long src,
                                         size_t bytes, void *stream) {
  Lock lock(state->mutex);
  return submit(lock, stream,
                copyOp(Op::CopyDtoH, "cuMemcpyDtoHAsync_v2", dst,
                       devicePointer(src), bytes));
}

extern "C" CUresult cuMemcpyDtoDAsync_v2(unsigned long long dst,
                                         unsigned long long src, size_t bytes,
                                         void *stream) {
  Lock lock(state->mutex);
  return submit(lock, stream,
                copyOp(Op::CopyDtoD, "cuMemcpyDtoDAsync_v2", devicePointer(dst),
                       devicePointer(src), bytes));
}

extern "C" CUresult cuMemsetD8Async(unsigned long long dst, unsigned char value,
                                    size_t bytes, void *stream) {
  Op op =
      copyOp(Op::Memset, "cuMemsetD8Async", devicePointer(dst), nullptr, bytes);
  op.value = value;
  Lock lock(state->mutex);
  return submit(lock, stream, std::move(op));
}

//===----------------------------------------------------------------------===//
// Modules and launches
//===----------------------------------------------------------------------===//

extern "C" CUresult cuModuleLoadData(void **module, const void *image) {
  Lock lock(state->mutex);
  if (CUresult r = requireInit("cuModuleLoadData"))
    return r;
  diag("cuModuleLoadData: the emulator runs kernels from their CUDA C++ "
       "source (nnc_emulated_module_load_source), not from cubin or PTX "
       "images");
  return CUDA_ERROR_NOT_SUPPORTED;
}

extern "C" CUresult nnc_emulated_module_load_source(void **module,
                                                    const char *source,
                                                    size_t size) {
  Context *ctx;
  {
    Lock lock(state->mutex);
    if (CUresult r = requireContext("nnc_emulated_module_load_source", ctx))
      return r;
  }
  if (!module || !source) {
    diag("nnc_emulated_module_load_source: null module or source");
    return CUDA_ERROR_INVALID_VALUE;
  }
  std::string text(source, size);
  while (!text.empty() && text.back() == '\0')
    text.pop_back();
  auto m = std::make_unique<Module>();
  m->ctx = ctx;
  if (CUresult r = parseKernels(text, m->kernels))
    return r;
  // Compiling takes seconds: outside the lock.
  if (CUresult r = compileModule(withLaunchers(text, m->kernels), m->handle,
                                 m->launcher))
    return r;
  Lock lock(state->mutex);
  *module = m.get();
  state->modules.emplace(m.get(), std::move(m));
  return CUDA_SUCCESS;
}

extern "C" CUresult cuModuleUnload(void *module) {
  Lock lock(state->mutex);
  if (CUresult r = requireInit("cuModuleUnload"))
    return r;
  Module *m = find(state->modules, module);
  if (!m) {
    diag("cuModuleUnload: unknown module %p", module);
    return CUDA_ERROR_INVALID_HANDLE;
  }
  for (const auto &entry : m->functions)
    state->functions.erase(entry.second.get());
  dlclose(m->handle);
  state->modules.erase(module);
  return CUDA_SUCCESS;
}

extern "C" CUresult cuModuleGetFunction(void **function, void *module,
                                        const char *name) {
  Lock lock(state->mutex);
  if (CUresult r = requireInit("cuModuleGetFunction"))
    return r;
  if (!function || !name)
    return CUDA_ERROR_INVALID_VALUE;
  Module *m = find(state->modules, module);
  if (!m) {
    diag("cuModuleGetFunction: unknown module %p", module);
    return CUDA_ERROR_INVALID_HANDLE;
  }
  auto known = m->functions.find(name);
  if (known != m->functions.end()) {
    *function = known->second.get();
    return CUDA_SUCCESS;
  }
  auto kernel = m->kernels.find(name);
  void *symbol = kernel == m->kernels.end() ? nullptr : dlsym(m->handle, name);
  if (!symbol) {
    diag("cuModuleGetFunction: the module defines no __global__ function "
         "'%s'",
         name);
    return CUDA_ERROR_NOT_FOUND;
  }
  auto f = std::make_unique<Function>(
      Function{m, name, symbol, kernel->second, state->nextSerial++});
  state->functions[f.get()] = f->serial;
  *function = f.get();
  m->functions.emplace(name, std::move(f));
  return CUDA_SUCCESS;
}

extern "C" CUresult cuLaunchKernel(void *function, unsigned int gridX,
                                   unsigned int gridY, unsigned int gridZ,
                                   unsigned int blockX, unsigned int blockY,
                                   unsigned int blockZ,
                                   unsigned int sharedMemBytes, void *stream,
                                   void **kernelParams, void **extra) {
  const char *call = "cuLaunchKernel";
  Lock lock(state->mutex);
  if (CUresult r = requireInit(call))
    return r;
  auto *f = static_cast<Function *>(function);
  if (!state->functions.count(f)) {
    diag("%s: unknown function %p (or its module was unloaded)", call,
         function);
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (sharedMemBytes > 0 || extra) {
    diag("%s %s: %s is not emulated", call, f->name.c_str(),
         sharedMemBytes > 0 ? "dynamic shared memory" : "`extra`");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  Op op(Op::Launch, call);
  op.function = f;
  op.serial = f->serial;
  op.grid[0] = gridX, op.grid[1] = gridY, op.grid[2] = gridZ;
  op.block[0] = blockX, op.block[1] = blockY, op.block[2] = blockZ;
  // The values now: a capture replays them, whatever the caller's
  // variables hold later.
  for (unsigned i = 0; i < f->sig.numParams; ++i) {
    if (!kernelParams || !kernelParams[i]) {
      diag("%s %s: parameter %u of %u missing from kernelParams", call,
           f->name.c_str(), i, f->sig.numParams);
      return CUDA_ERROR_INVALID_VALUE;
    }
    op.args.push_back(*static_cast<char **>(kernelParams[i]));
  }
  return submit(lock, stream, std::move(op));
}

//===----------------------------------------------------------------------===//
// Events
//===----------------------------------------------------------------------===//

extern "C" CUresult cuEventCreate(void **event, unsigned int flags) {
  Lock lock(state->mutex);
  Context *ctx;
  if (CUresult r = requireContext("cuEventCreate", ctx))
    return r;
  if (!event || (flags & ~kEventFlags)) {
    diag("cuEventCreate: null result or flags %#x", flags);
    return CUDA_ERROR_INVALID_VALUE;
  }
  auto e = std::make_unique<Event>(ctx, flags);
  *event = e.get();
  state->events.emplace(e.get(), std::move(e));
  return CUDA_SUCCESS;
}

static CUresult findEvent(void *handle, const char *call, Event *&event) {
  if (CUresult r = requireInit(call))
    return r;
  event = find(state->events, handle);
  if (event)
    return CUDA_SUCCESS;
  diag("%s: unknown event %p", call, handle);
  return CUDA_ERROR_INVALID_HANDLE;
}

extern "C" CUresult cuEventRecord(void *event, void *stream) {
  const char *call = "cuEventRecord";
  Lock lock(state->mutex);
  Event *e;
  Stream *s;
  if (CUresult r = findEvent(event, call, e))
    return r;
  if (CUresult r = resolveStream(stream, call, s))
    return r;
  if (e->ctx != s->ctx) {
    diag("%s: the event and the stream belong to different contexts", call);
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (CUresult r = admit(s, call))
    return r;
  if (s->capture) {
    e->state = Event::Captured;
    return CUDA_SUCCESS;
  }
  e->state = Event::Recorded;
  e->when = Clock::now();
  return CUDA_SUCCESS;
}

extern "C" CUresult cuEventSynchronize(void *event) {
  Lock lock(state->mutex);
  Event *e;
  if (CUresult r = findEvent(event, "cuEventSynchronize", e))
    return r;
  if (e->state == Event::Captured) {
    diag("cuEventSynchronize: the event was last recorded in a capture");
    return CUDA_ERROR_CAPTURED_EVENT;
  }
  return CUDA_SUCCESS;
}

extern "C" CUresult cuEventElapsedTime(float *milliseconds, void *start,
                                       void *end) {
  const char *call = "cuEventElapsedTime";
  Lock lock(state->mutex);
  Event *a, *b;
  if (CUresult r = findEvent(start, call, a))
    return r;
  if (CUresult r = findEvent(end, call, b))
    return r;
  if (!milliseconds)
    return CUDA_ERROR_INVALID_VALUE;
  for (Event *e : {a, b}) {
    if (e->state == Event::Captured) {
      diag("%s: an event was last recorded in a capture", call);
      return CUDA_ERROR_CAPTURED_EVENT;
    }
    if (e->state != Event::Recorded || (e->flags & kEventDisableTiming)) {
      diag("%s: an event %s", call,
           e->state != Event::Recorded ? "was never recorded"
                                       : "was created without timing");
      return CUDA_ERROR_INVALID_HANDLE;
    }
  }
  *milliseconds =
      std::chrono::duration<float, std::milli>(b->when - a->when).count();
  return CUDA_SUCCESS;
}

extern "C" CUresult cuEventDestroy_v2(void *event) {
  Lock lock(state->mutex);
  Event *e;
  if (CUresult r = findEvent(event, "cuEventDestroy_v2", e))
    return r;
  state->events.erase(event);
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Stream capture and graphs
//===----------------------------------------------------------------------===//

extern "C" CUresult cuStreamBeginCapture_v2(void *stream, int mode) {
  const char *call = "cuStreamBeginCapture_v2";
  Lock lock(state->mutex);
  Stream *s;
  if (CUresult r = resolveStream(stream, call, s))
    return r;
  if (mode != kCaptureGlobal && mode != kCaptureThreadLocal &&
      mode != kCaptureRelaxed) {
    diag("%s: capture mode %d", call, mode);
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (s->kind == Stream::Legacy) {
    diag("%s: the legacy default stream cannot be captured", call);
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  }
  if (s->kind == Stream::PerThread) {
    diag("%s: capture on the per-thread default stream is not emulated", call);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (s->capture) {
    diag("%s: the stream is already capturing", call);
    return CUDA_ERROR_ILLEGAL_STATE;
  }
  s->capture = std::make_unique<Capture>();
  s->capture->mode = mode;
  s->capture->thread = std::this_thread::get_id();
  s->capture->graph = std::make_unique<Graph>();
  s->capture->graph->ctx = s->ctx;
  state->capturing.insert(s);
  return CUDA_SUCCESS;
}

extern "C" CUresult cuStreamEndCapture(void *stream, void **graph) {
  const char *call = "cuStreamEndCapture";
  Lock lock(state->mutex);
  Stream *s;
  if (CUresult r = resolveStream(stream, call, s))
    return r;
  if (!graph)
    return CUDA_ERROR_INVALID_VALUE;
  if (!s->capture) {
    diag("%s: the stream is not capturing", call);
    return CUDA_ERROR_ILLEGAL_STATE;
  }
  if (s->capture->mode != kCaptureRelaxed &&
      s->capture->thread != std::this_thread::get_id()) {
    diag("%s: a capture not begun in relaxed mode ends on its own thread",
         call);
    return CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
  }
  std::unique_ptr<Capture> capture = std::move(s->capture);
  state->capturing.erase(s);
  *graph = nullptr;
  if (capture->invalidated) {
    diag("%s: the capture was invalidated; no graph", call);
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  }
  *graph = capture->graph.get();
  state->graphs.emplace(capture->graph.get(), std::move(capture->graph));
  return CUDA_SUCCESS;
}

extern "C" CUresult cuGraphInstantiateWithFlags(void **exec, void *graph,
                                                unsigned long long flags) {
  const char *call = "cuGraphInstantiateWithFlags";
  Lock lock(state->mutex);
  if (CUresult r = requireInit(call))
    return r;
  Graph *g = find(state->graphs, graph);
  if (!g) {
    diag("%s: unknown graph %p", call, graph);
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (!exec || (flags & ~kGraphInstantiateFlags)) {
    diag("%s: null result or flags %#llx", call, flags);
    return CUDA_ERROR_INVALID_VALUE;
  }
  // A copy: the executable graph outlives changes to (and the end of) its
  // graph, as in CUDA.
  auto e = std::make_unique<GraphExec>(
      GraphExec{g->ctx, std::make_shared<const std::vector<Op>>(g->ops)});
  *exec = e.get();
  state->execs.emplace(e.get(), std::move(e));
  return CUDA_SUCCESS;
}

extern "C" CUresult cuGraphLaunch(void *exec, void *stream) {
  const char *call = "cuGraphLaunch";
  Lock lock(state->mutex);
  if (CUresult r = requireInit(call))
    return r;
  GraphExec *e = find(state->execs, exec);
  if (!e) {
    diag("%s: unknown executable graph %p", call, exec);
    return CUDA_ERROR_INVALID_HANDLE;
  }
  Stream *s;
  if (CUresult r = resolveStream(stream, call, s))
    return r;
  if (e->ctx != s->ctx) {
    diag("%s: the graph and the stream belong to different contexts", call);
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (CUresult r = admit(s, call))
    return r;
  for (const Op &op : *e->ops)
    if (CUresult r = validate(op, s)) {
      diag("%s: a node of the graph (%s) no longer holds", call, op.call);
      if (s->capture)
        s->capture->invalidated = true;
      return r;
    }
  if (s->capture) {
    // Captured into another capture: its nodes, in order.
    std::vector<Op> &ops = s->capture->graph->ops;
    ops.insert(ops.end(), e->ops->begin(), e->ops->end());
    return CUDA_SUCCESS;
  }
  std::shared_ptr<const std::vector<Op>> ops = e->ops;
  lock.unlock();
  for (const Op &op : *ops)
    if (CUresult r = execute(op))
      return r;
  return CUDA_SUCCESS;
}

extern "C" CUresult cuGraphExecDestroy(void *exec) {
  Lock lock(state->mutex);
  if (CUresult r = requireInit("cuGraphExecDestroy"))
    return r;
  if (!state->execs.erase(exec)) {
    diag("cuGraphExecDestroy: unknown executable graph %p", exec);
    return CUDA_ERROR_INVALID_HANDLE;
  }
  return CUDA_SUCCESS;
}

extern "C" CUresult cuGraphDestroy(void *graph) {
  Lock lock(state->mutex);
  if (CUresult r = requireInit("cuGraphDestroy"))
    return r;
  if (!state->graphs.erase(graph)) {
    diag("cuGraphDestroy: unknown graph %p", graph);
    return CUDA_ERROR_INVALID_HANDLE;
  }
  return CUDA_SUCCESS;
}
