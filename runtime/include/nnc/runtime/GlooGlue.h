//===- GlooGlue.h - the runtime's contract with libnnc_gloo.so --*- C++ -*-===//
//
// libnnc_gloo.so wraps Gloo (Debian's libgloo-dev, TCP transport) behind C
// functions, so that libnnc_runtime needs neither Gloo's headers nor its
// library nor C++ exceptions: the runtime opens it with dlopen when a
// communicator is asked for (runtime/lib/Collectives.cpp) and says clearly
// when it is missing. Every function returns 0 on success, else non-zero
// with a NUL-terminated message of at most `errorSize` bytes in `error`.
//
// Rendezvous goes through the runtime's own key-value store (a TCP store
// served by rank 0, as PyTorch's c10d does), handed to the glue as
// callbacks: the glue adapts them to gloo::rendezvous::Store and calls
// gloo::rendezvous::Context::connectFullMesh with them.
//
// No MLIR here, and no Gloo header either.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_GLOOGLUE_H
#define NNC_RUNTIME_GLOOGLUE_H

#include <cstddef>
#include <cstdint>

namespace nnc::runtime::gloo_glue {

/// Element types the glue reduces (bytes are moved as U8).
enum ElementType : int32_t {
  kF32 = 0,
  kF64 = 1,
  kI32 = 2,
  kI64 = 3,
  kF16 = 4,
  kU8 = 5,
};

/// Reductions.
enum Reduction : int32_t {
  kSum = 0,
  kMax = 1,
  kMin = 2,
};

extern "C" {
/// The store, as callbacks on `self`.
struct StoreCallbacks {
  void *self;
  /// Stores `size` bytes under `key`.
  int (*set)(void *self, const char *key, const void *data, size_t size,
             char *error, size_t errorSize);
  /// Waits up to `timeoutMs` for `key`, then hands its bytes to
  /// `receive(receiver, data, size)` (valid for the call only).
  int (*get)(void *self, const char *key, int64_t timeoutMs,
             void (*receive)(void *receiver, const void *data, size_t size),
             void *receiver, char *error, size_t errorSize);
};

/// Connects rank `rank` of `size` to every other rank (a full mesh of TCP
/// pairs) through `store`; the device listens on `hostname` (or the
/// interface `iface` when non-empty). Returns the context, or null with
/// the reason in `error`.
using CreateFn = void *(*)(int32_t rank, int32_t size, const char *hostname,
                           const char *iface, int64_t timeoutMs,
                           const StoreCallbacks *store, char *error,
                           size_t errorSize);
/// In place: `data` holds `count` elements on every rank and ends with
/// their reduction on all of them.
using AllReduceFn = int (*)(void *context, void *data, size_t count,
                            int32_t type, int32_t reduction, uint32_t tag,
                            int64_t timeoutMs, char *error, size_t errorSize);
/// `bytes` of `data` on rank `root` are copied to `data` on every rank.
using BroadcastFn = int (*)(void *context, void *data, size_t bytes,
                            int32_t root, uint32_t tag, int64_t timeoutMs,
                            char *error, size_t errorSize);
/// Rank r's `bytes` of `input` land at `output + r * bytes` on every rank.
using AllGatherFn = int (*)(void *context, const void *input, void *output,
                            size_t bytes, uint32_t tag, int64_t timeoutMs,
                            char *error, size_t errorSize);
using BarrierFn = int (*)(void *context, uint32_t tag, int64_t timeoutMs,
                          char *error, size_t errorSize);
using DestroyFn = void (*)(void *context);
/// Gloo's version, e.g. "gloo 0.5.0".
using VersionFn = const char *(*)();
}

constexpr const char *kCreateSymbol = "nnc_gloo_create";
constexpr const char *kAllReduceSymbol = "nnc_gloo_allreduce";
constexpr const char *kBroadcastSymbol = "nnc_gloo_broadcast";
constexpr const char *kAllGatherSymbol = "nnc_gloo_allgather";
constexpr const char *kBarrierSymbol = "nnc_gloo_barrier";
constexpr const char *kDestroySymbol = "nnc_gloo_destroy";
constexpr const char *kVersionSymbol = "nnc_gloo_version";

} // namespace nnc::runtime::gloo_glue

#endif // NNC_RUNTIME_GLOOGLUE_H
