//===- Collectives.h - ranks, their rendezvous and collectives --*- C++ -*-===//
//
// Data-parallel training's communication, on the engines users already
// trust: Gloo over TCP for CPU devices (through libnnc_gloo.so, opened with
// dlopen; runtime/gloo), NCCL for CUDA devices (libnccl.so.2 and the CUDA
// driver, opened with dlopen; NcclCommunicator.cpp).
//
// - Launch: where a process learns its rank. torchrun's variables (RANK,
//   WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT),
//   Slurm's (SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID) and Open MPI's
//   (OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK), in that order; MASTER_ADDR
//   and MASTER_PORT name the store with every launcher.
// - Rendezvous: a key-value store served over TCP by rank 0 at
//   MASTER_ADDR:MASTER_PORT (what PyTorch's TCPStore does); each rank
//   publishes its transport address there and reads the others'.
// - Collectives: all-reduce, broadcast, all-gather and barrier, in order,
//   each numbered, each under a timeout. A failure (a peer gone, a timeout)
//   is a status naming this rank, the collective and its number; once one
//   fails the communicator refuses further calls.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_COLLECTIVES_H
#define NNC_RUNTIME_COLLECTIVES_H

#include "nnc/runtime/HostTensor.h"
#include "nnc/runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace nnc::runtime {

/// Where this process sits in a launch.
struct LaunchInfo {
  int rank = 0;
  int worldSize = 1;
  int localRank = 0;
  int localWorldSize = 1;
  /// The store: rank 0 serves it here, every rank connects to it.
  std::string masterAddr = "127.0.0.1";
  int masterPort = 29500;
  /// Which variables said so: "torchrun (RANK, WORLD_SIZE)", "Slurm
  /// (SLURM_PROCID, SLURM_NTASKS)", "Open MPI (...)", or "" when none.
  std::string source;
};

/// Reads the launch from the environment. `found` is false (and `out`
/// left single-process) when no launcher's variables are set; a variable
/// that is set but malformed or inconsistent (a rank outside the world, a
/// port outside 1..65535, a world of more than one without MASTER_ADDR) is
/// an InvalidArgument naming it and its value.
Status launchFromEnvironment(LaunchInfo &out, bool &found);

/// The key-value store of a rendezvous: rank 0 serves it, every rank
/// (rank 0 too) is a client. Values are bytes; `get` waits for a key.
class Store {
public:
  virtual ~Store() = default;
  virtual Status set(const std::string &key, const std::string &value) = 0;
  /// Waits up to `timeoutMs` for `key`.
  virtual Status get(const std::string &key, int64_t timeoutMs,
                     std::string &value) = 0;
  /// Adds `delta` to the integer under `key` (0 when absent), returns the
  /// sum.
  virtual Status add(const std::string &key, int64_t delta,
                     int64_t &result) = 0;
};

/// Connects to the store at `host`:`port`, serving it first when `serve`
/// (rank 0): the server listens there and lives as long as the store.
/// Connecting retries until `timeoutMs` has passed, so ranks may start in
/// any order.
Status connectTcpStore(const std::string &host, int port, bool serve,
                       int64_t timeoutMs, std::unique_ptr<Store> &out);

enum class ReduceOp { Sum, Max, Min };

/// One process's membership of a group of ranks.
class Communicator {
public:
  virtual ~Communicator() = default;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int64_t timeoutMs() const { return timeoutMs_; }
  /// Collectives issued so far (the next one is number sequence() + 1).
  uint64_t sequence() const { return sequence_; }
  /// "gloo 0.5.0 over TCP", ...
  virtual std::string backend() const = 0;

  /// In place over `count` elements of `dtype` (F32, F64, F16, I32, I64,
  /// U8).
  Status allReduce(void *data, size_t count, DType dtype, ReduceOp op);
  /// `bytes` of rank `root`'s `data` to every rank's.
  Status broadcast(void *data, size_t bytes, int root);
  /// Rank r's `bytes` of `input` to `output + r * bytes` on every rank.
  Status allGather(const void *input, void *output, size_t bytes);
  Status barrier();

  /// A new communicator over the same ranks whose collectives are
  /// independent of this one's (their own connections and numbering), so
  /// that two threads may each issue collectives in their own order: the
  /// collectives of compiled programs (synchronized batch normalization)
  /// beside the gradient buckets' thread. Every rank calls it with the same
  /// `name`, in the same order; it rendezvouses like the first. Unimplemented
  /// where the backend cannot.
  virtual Status split(const std::string &name,
                       std::unique_ptr<Communicator> &out);

protected:
  Communicator(int rank, int size, int64_t timeoutMs)
      : rank_(rank), size_(size), timeoutMs_(timeoutMs) {}

  enum class Kind { AllReduce, Broadcast, AllGather, Barrier };
  struct Call {
    Kind kind;
    void *data = nullptr;
    const void *input = nullptr;
    size_t count = 0; ///< elements for all-reduce, else bytes
    DType dtype = DType::U8;
    ReduceOp op = ReduceOp::Sum;
    int root = 0;
    uint32_t tag = 0;
  };
  /// Runs one collective; the message of a failure says what went wrong,
  /// the caller adds who, what and which.
  virtual Status run(const Call &call) = 0;

private:
  Status issue(Call call, const char *what);

  int rank_, size_;
  int64_t timeoutMs_;
  uint64_t sequence_ = 0;
  Status broken_;
};

struct CommunicatorOptions {
  LaunchInfo launch;
  /// Every collective's and the rendezvous's limit.
  int64_t timeoutMs = 300000;
  /// The address other ranks reach this one at; empty: 127.0.0.1 when
  /// MASTER_ADDR is a loopback address, else this host's name. The
  /// interface instead when `iface` is set ($GLOO_SOCKET_IFNAME, as with
  /// PyTorch).
  std::string hostname;
  std::string iface;
};

/// A Gloo communicator over TCP for `options.launch`: serves or joins the
/// store, then connects every pair of ranks. Unimplemented naming
/// libnnc_gloo.so (and how to get it) when the glue or Gloo is missing;
/// Unavailable naming the ranks not heard from when the rendezvous times
/// out.
Status createGlooCommunicator(const CommunicatorOptions &options,
                              std::unique_ptr<Communicator> &out);

/// An NCCL communicator for `options.launch` on CUDA device `device` (an
/// ordinal on this host; usually the local rank). Rank 0 makes NCCL's
/// unique id and publishes it in the TCP store at MASTER_ADDR:MASTER_PORT,
/// which every rank joins (naming the ranks not heard from), and every rank
/// reads it there before ncclCommInitRank. The collectives take memory of
/// that device (device pointers as `void *`), run on the communicator's own
/// stream and return once it has finished them; past the timeout, or on an
/// asynchronous NCCL error, the communicator is aborted and the call fails.
/// F32, F64, F16, BF16, I32, I64 and U8 reduce. Unimplemented naming
/// libnccl.so.2 when NCCL cannot be opened ($NNC_NCCL_LIBRARY overrides
/// it); Unavailable naming the CUDA driver on a machine without one.
Status createNcclCommunicator(const CommunicatorOptions &options, int device,
                              std::unique_ptr<Communicator> &out);

/// Collectives inside compiled programs: the code generated for
/// `nnc.all_reduce` calls nnc_runtime_all_reduce, which runs on the
/// communicator of the scope the calling thread is in. Outside any scope
/// the program is a world of one (the all-reduce copies its input), which
/// is what a single process, evaluation, and the rerun that names a
/// non-finite value see. A collective that fails is recorded in the scope
/// (the first failure is kept) and the program stops after that step.
class CollectiveScope {
public:
  /// Enters a scope on `communicator` (null: a world of one) for this
  /// thread; scopes nest.
  explicit CollectiveScope(Communicator *communicator);
  ~CollectiveScope();
  CollectiveScope(const CollectiveScope &) = delete;
  CollectiveScope &operator=(const CollectiveScope &) = delete;

  /// The first failure of a collective in this scope, or ok.
  const Status &status() const { return status_; }
  /// Collectives run in this scope, and the bytes they reduced.
  uint64_t calls() const { return calls_; }
  uint64_t bytes() const { return bytes_; }

  /// The failure recorded in the calling thread's innermost scope, or ok
  /// (no scope, or nothing failed).
  static Status currentFailure();

private:
  friend struct CollectiveScopeAccess;
  Communicator *communicator_;
  CollectiveScope *outer_;
  Status status_;
  uint64_t calls_ = 0;
  uint64_t bytes_ = 0;
};

} // namespace nnc::runtime

extern "C" {
/// What generated code calls for `nnc.all_reduce` (a sum over the ranks):
/// `count` elements of DType `dtype` from `input` summed over the ranks of
/// the calling thread's CollectiveScope into `output` (which may be
/// `input`). Failures are recorded in the scope, not returned.
void nnc_runtime_all_reduce(const void *input, void *output, int64_t count,
                            int32_t dtype);
}

#endif // NNC_RUNTIME_COLLECTIVES_H
