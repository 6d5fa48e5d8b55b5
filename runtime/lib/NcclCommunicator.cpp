//===- NcclCommunicator.cpp - collectives on CUDA devices through NCCL ----===//
//
// NCCL (the CUDA toolkit's libnccl.so.2) opened with dlopen, like the CUDA
// driver: nothing links against either, so the runtime builds and runs on
// machines without them and says so when asked for a CUDA communicator.
// Rank 0 makes NCCL's unique id and publishes it in the TCP store every rank
// joins (as PyTorch's ProcessGroupNCCL does); each collective is enqueued on
// the communicator's stream and waited for under the timeout, aborting the
// communicator when it expires or NCCL reports an asynchronous error (what
// PyTorch's NCCL watchdog does), so that a lost rank fails the others
// instead of hanging them.
//
//===----------------------------------------------------------------------===//

#include "CollectivesInternal.h"
#include "nnc/runtime/Collectives.h"
#include "nnc/runtime/CudaDriver.h"
#include "nnc/runtime/DynamicLibrary.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

namespace nnc::runtime {

namespace {

using Clock = std::chrono::steady_clock;
using collectives::secondsText;

// The parts of nccl.h's interface used here, by value: enums are ints,
// communicators and streams opaque pointers.
constexpr int kNcclSuccess = 0;
constexpr int kNcclInProgress = 7;
constexpr int kCudaErrorNotReady = 600;
struct NcclUniqueId {
  char internal[128];
};

struct NcclLibrary {
  Status status;
  std::string path;
  int version = 0;
  int (*getVersion)(int *) = nullptr;
  int (*getUniqueId)(NcclUniqueId *) = nullptr;
  int (*commInitRank)(void **, int, NcclUniqueId, int) = nullptr;
  int (*commDestroy)(void *) = nullptr;
  int (*commAbort)(void *) = nullptr;
  int (*commGetAsyncError)(void *, int *) = nullptr;
  const char *(*getErrorString)(int) = nullptr;
  int (*allReduce)(const void *, void *, size_t, int, int, void *,
                   void *) = nullptr;
  int (*broadcast)(const void *, void *, size_t, int, int, void *,
                   void *) = nullptr;
  int (*allGather)(const void *, void *, size_t, int, void *, void *) = nullptr;

  Status check(int result, const char *call) const {
    if (result == kNcclSuccess)
      return Status::ok();
    return Status(StatusCode::Unavailable, std::string(call) +
                                               " failed: NCCL error " +
                                               std::to_string(result) + " (" +
                                               getErrorString(result) + ")");
  }
};

const NcclLibrary &ncclLibrary() {
  static const NcclLibrary *loaded = [] {
    auto *nccl = new NcclLibrary;
    std::vector<std::string> candidates;
    if (const char *path = std::getenv("NNC_NCCL_LIBRARY"))
      candidates.push_back(path);
    else
      candidates = {"libnccl.so.2", "libnccl.so",
                    "/usr/local/cuda/lib64/libnccl.so.2"};
    static DynamicLibrary library;
    nccl->status = DynamicLibrary::open(
        candidates,
        "NCCL, which data-parallel training on CUDA devices uses (the CUDA "
        "toolkit's libnccl.so.2; or set NNC_NCCL_LIBRARY)",
        library);
    auto need = [&](const char *symbol, auto &fn) {
      library.lookupInto(symbol, fn, nccl->status);
    };
    need("ncclGetVersion", nccl->getVersion);
    need("ncclGetUniqueId", nccl->getUniqueId);
    need("ncclCommInitRank", nccl->commInitRank);
    need("ncclCommDestroy", nccl->commDestroy);
    need("ncclCommAbort", nccl->commAbort);
    need("ncclCommGetAsyncError", nccl->commGetAsyncError);
    need("ncclGetErrorString", nccl->getErrorString);
    need("ncclAllReduce", nccl->allReduce);
    need("ncclBroadcast", nccl->broadcast);
    need("ncclAllGather", nccl->allGather);
    if (nccl->status.isOk()) {
      nccl->path = library.path();
      nccl->getVersion(&nccl->version);
    } else {
      nccl->status = Status(StatusCode::Unimplemented, nccl->status.message());
    }
    return nccl;
  }();
  return *loaded;
}

/// NCCL's data type for `dtype`, or -1.
int ncclType(DType dtype) {
  switch (dtype) {
  case DType::U8:
    return 1;
  case DType::I32:
    return 2;
  case DType::I64:
    return 4;
  case DType::F16:
    return 6;
  case DType::F32:
    return 7;
  case DType::F64:
    return 8;
  case DType::BF16:
    return 9;
  default:
    return -1;
  }
}

/// "2.27.7" from NCCL's version code (major * 10000 + minor * 100 + patch
/// since 2.9).
std::string versionText(int code) {
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) +
         "." + std::to_string(code % 100);
}

/// The CUDA state a communicator holds: the device's primary context, a
/// stream, and four bytes of device memory for barriers.
struct CudaState {
  CudaDriver driver;
  int device = 0;
  void *context = nullptr;
  void *stream = nullptr;
  unsigned long long scratch = 0;
  bool retained = false;

  ~CudaState() {
    if (!retained)
      return;
    driver.cuCtxSetCurrent(context);
    if (scratch)
      driver.cuMemFree_v2(scratch);
    if (stream)
      driver.cuStreamDestroy_v2(stream);
    driver.cuDevicePrimaryCtxRelease_v2(device);
  }

  Status open(int ordinal) {
    NNC_RUNTIME_RETURN_IF_ERROR(CudaDriver::load(driver));
    NNC_RUNTIME_RETURN_IF_ERROR(driver.check(driver.cuInit(0), "cuInit"));
    int count = 0;
    NNC_RUNTIME_RETURN_IF_ERROR(
        driver.check(driver.cuDeviceGetCount(&count), "cuDeviceGetCount"));
    if (ordinal < 0 || ordinal >= count)
      return Status(StatusCode::InvalidArgument,
                    "CUDA device " + std::to_string(ordinal) +
                        " does not exist: this machine has " +
                        std::to_string(count));
    NNC_RUNTIME_RETURN_IF_ERROR(
        driver.check(driver.cuDeviceGet(&device, ordinal), "cuDeviceGet"));
    NNC_RUNTIME_RETURN_IF_ERROR(
        driver.check(driver.cuDevicePrimaryCtxRetain(&context, device),
                     "cuDevicePrimaryCtxRetain"));
    retained = true;
    NNC_RUNTIME_RETURN_IF_ERROR(makeCurrent());
    // CU_STREAM_NON_BLOCKING: no implicit synchronization with stream 0.
    NNC_RUNTIME_RETURN_IF_ERROR(
        driver.check(driver.cuStreamCreate(&stream, 1), "cuStreamCreate"));
    return driver.check(driver.cuMemAlloc_v2(&scratch, 4), "cuMemAlloc");
  }

  Status makeCurrent() const {
    return driver.check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  }
};

class NcclCommunicator : public Communicator {
public:
  NcclCommunicator(int rank, int size, int64_t timeoutMs,
                   const NcclLibrary &nccl, std::unique_ptr<CudaState> cuda,
                   std::unique_ptr<Store> store, void *comm)
      : Communicator(rank, size, timeoutMs), nccl_(nccl),
        cuda_(std::move(cuda)), store_(std::move(store)), comm_(comm) {}

  ~NcclCommunicator() override {
    (void)cuda_->makeCurrent();
    if (aborted_)
      return;
    // A communicator whose last collective failed may have peers that never
    // answer: abort rather than wait in destroy.
    if (failed_)
      nccl_.commAbort(comm_);
    else
      nccl_.commDestroy(comm_);
  }

  std::string backend() const override {
    return "nccl " + versionText(nccl_.version) + " on CUDA device " +
           std::to_string(cuda_->device);
  }

protected:
  Status run(const Call &call) override {
    Status status = enqueueAndWait(call);
    failed_ |= !status.isOk();
    return status;
  }

private:
  Status enqueueAndWait(const Call &call) {
    if (aborted_)
      return Status(StatusCode::Unavailable, "the communicator was aborted");
    NNC_RUNTIME_RETURN_IF_ERROR(cuda_->makeCurrent());
    void *stream = cuda_->stream;
    int result = kNcclSuccess;
    switch (call.kind) {
    case Kind::AllReduce: {
      int type = ncclType(call.dtype);
      if (type < 0)
        return Status(StatusCode::InvalidArgument,
                      std::string("NCCL does not reduce ") +
                          dtypeName(call.dtype));
      int op = call.op == ReduceOp::Max ? 2 : call.op == ReduceOp::Min ? 3 : 0;
      result = nccl_.allReduce(call.data, call.data, call.count, type, op,
                               comm_, stream);
      break;
    }
    case Kind::Broadcast:
      result = nccl_.broadcast(call.data, call.data, call.count, 1, call.root,
                               comm_, stream);
      break;
    case Kind::AllGather:
      result =
          nccl_.allGather(call.input, call.data, call.count, 1, comm_, stream);
      break;
    case Kind::Barrier:
      result = nccl_.allReduce(reinterpret_cast<void *>(cuda_->scratch),
                               reinterpret_cast<void *>(cuda_->scratch), 1, 2,
                               0, comm_, stream);
      break;
    }
    NNC_RUNTIME_RETURN_IF_ERROR(nccl_.check(result, "enqueueing it"));
    // Waits for the stream, watching for NCCL's asynchronous errors and the
    // timeout.
    auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs());
    while (true) {
      int query = cuda_->driver.cuStreamQuery(stream);
      if (query == 0)
        return Status::ok();
      if (query != kCudaErrorNotReady)
        return cuda_->driver.check(query, "cuStreamQuery");
      int async = kNcclSuccess;
      nccl_.commGetAsyncError(comm_, &async);
      if (async != kNcclSuccess && async != kNcclInProgress) {
        abort();
        return nccl_.check(async, "NCCL (asynchronous error)");
      }
      if (Clock::now() > deadline) {
        abort();
        return Status(StatusCode::Unavailable,
                      "NCCL did not finish within " + secondsText(timeoutMs()) +
                          "; the communicator was aborted");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  void abort() {
    nccl_.commAbort(comm_);
    aborted_ = true;
  }

  const NcclLibrary &nccl_;
  std::unique_ptr<CudaState> cuda_;
  std::unique_ptr<Store> store_;
  void *comm_;
  bool failed_ = false;
  bool aborted_ = false;
};

} // namespace

Status createNcclCommunicator(const CommunicatorOptions &options, int device,
                              std::unique_ptr<Communicator> &out) {
  const LaunchInfo &launch = options.launch;
  NNC_RUNTIME_RETURN_IF_ERROR(collectives::checkOptions(options));
  const NcclLibrary &nccl = ncclLibrary();
  NNC_RUNTIME_RETURN_IF_ERROR(nccl.status);
  auto cuda = std::make_unique<CudaState>();
  Status opened = cuda->open(device);
  if (!opened.isOk())
    return Status(opened.code(),
                  "NCCL needs a CUDA device: " + opened.message());

  // The unique id travels through the store rank 0 serves.
  std::unique_ptr<Store> store;
  NNC_RUNTIME_RETURN_IF_ERROR(
      connectTcpStore(launch.masterAddr, launch.masterPort, launch.rank == 0,
                      options.timeoutMs, store));
  NNC_RUNTIME_RETURN_IF_ERROR(
      collectives::join(*store, launch, "nccl",
                        "device " + std::to_string(device), options.timeoutMs));
  NcclUniqueId id;
  std::memset(&id, 0, sizeof id);
  if (launch.rank == 0) {
    NNC_RUNTIME_RETURN_IF_ERROR(
        nccl.check(nccl.getUniqueId(&id), "ncclGetUniqueId"));
    NNC_RUNTIME_RETURN_IF_ERROR(
        store->set("nccl/unique_id", std::string(id.internal, sizeof id)));
  } else {
    std::string value;
    NNC_RUNTIME_RETURN_IF_ERROR(
        store->get("nccl/unique_id", options.timeoutMs, value));
    if (value.size() != sizeof id)
      return Status(StatusCode::DataLoss,
                    "NCCL's unique id from the store has " +
                        std::to_string(value.size()) + " bytes, not " +
                        std::to_string(sizeof id));
    std::memcpy(id.internal, value.data(), sizeof id);
  }

  // ncclCommInitRank blocks until every rank has called it: on a thread of
  // its own, waited for under the timeout. A thread that never returns is
  // left behind (the process is failing anyway).
  struct Init {
    std::mutex mutex;
    std::condition_variable done;
    bool finished = false;
    int result = kNcclSuccess;
    void *comm = nullptr;
  };
  auto init = std::make_shared<Init>();
  const CudaState *state = cuda.get();
  std::thread([init, state, &nccl, id, rank = launch.rank,
               size = launch.worldSize] {
    void *comm = nullptr;
    int result = state->makeCurrent().isOk()
                     ? nccl.commInitRank(&comm, size, id, rank)
                     : -1;
    std::lock_guard<std::mutex> lock(init->mutex);
    init->finished = true;
    init->result = result;
    init->comm = comm;
    init->done.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(init->mutex);
  if (!init->done.wait_for(lock, std::chrono::milliseconds(options.timeoutMs),
                           [&] { return init->finished; })) {
    // The thread still uses the CUDA state: it must outlive it.
    cuda.release();
    return Status(StatusCode::Unavailable,
                  "rank " + std::to_string(launch.rank) + " of " +
                      std::to_string(launch.worldSize) +
                      ": ncclCommInitRank did not finish within " +
                      secondsText(options.timeoutMs));
  }
  if (init->result == -1)
    return Status(StatusCode::Internal,
                  "cannot make the CUDA context current for NCCL");
  NNC_RUNTIME_RETURN_IF_ERROR(nccl.check(init->result, "ncclCommInitRank"));
  out = std::make_unique<NcclCommunicator>(
      launch.rank, launch.worldSize, options.timeoutMs, nccl, std::move(cuda),
      std::move(store), init->comm);
  return Status::ok();
}

} // namespace nnc::runtime
