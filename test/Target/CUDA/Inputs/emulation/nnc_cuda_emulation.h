//===- nnc_cuda_emulation.h - CUDA's execution model on the host -*- C++ -*-===//
//
// Test-only: what emitted CUDA C++ uses, for the host compiler, so that the
// emitter's output, unchanged, runs on a machine without a GPU. The threads
// of a block run on one host thread as fibers (ucontext), switched only at
// barriers (__syncthreads) and warp operations (shuffles, votes,
// __syncwarp), so those work as on a GPU; blocks run one after another.
// __shared__ variables are one per block. Warps are 32 consecutive threads
// that meet at every warp operation (no independent scheduling within a
// warp is emulated). __half and __nv_bfloat16 are their bits, converted
// with IEEE round-to-nearest-even as cuda_fp16.h / cuda_bf16.h do.
//
// Two launchers: nnc_emulate_launch, for programs that include the kernels
// directly (test/Target/CUDA/Inputs/run-emit-cuda.cpp), and
// nnc_emulator_launch, exported from every kernel module that the emulated
// CUDA driver (test/Target/CUDA/emulator) compiles, because the variables
// below live in each module and only code compiled into it can set them.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_CUDA_EMULATION_H
#define NNC_CUDA_EMULATION_H

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <ucontext.h>

#define __global__
#define __device__
#define __launch_bounds__(n)

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};
// Hidden: GCC would make default-visibility inline variables process-wide
// (STB_GNU_UNIQUE), shared by every module the emulated driver opens and
// keeping them loaded. thread_local: it runs launches on different streams
// from different threads at once.
#pragma GCC visibility push(hidden)
inline thread_local dim3 threadIdx, blockIdx, blockDim, gridDim;
#pragma GCC visibility pop

// CUDA's warpSize, and __shared__ variables: one per block, and a block's
// threads all run on one host thread, so a thread_local static is one per
// block running at a time (CUDA does not initialize shared memory either).
#define __shared__ static thread_local
constexpr int warpSize = 32;

#pragma GCC visibility push(hidden)
namespace nnc_emulation {

/// What each thread of a launch runs: the kernel, called with its arguments.
struct Body {
  void (*run)(const void *context);
  const void *context;
};

/// A thread of a block run as a fiber: its own stack, switched to and from
/// by the block's scheduler (swapcontext), so that it can wait at barriers.
struct Fiber {
  ucontext_t context;
  dim3 index;
  unsigned linear = 0;
  bool done = false;
  /// What it waits at (for the deadlock report), or null.
  const char *waiting = nullptr;
};

/// The lanes of one warp at a warp operation.
struct Warp {
  unsigned arrived = 0, mask = 0;
  unsigned long long generation = 0;
  uint64_t slots[32] = {};
  bool posted[32] = {};
};

/// The block being run on this host thread.
struct Block {
  Body body;
  /// Whether its threads run as fibers (the first block of every launch
  /// does; the others do when it reached a barrier or warp operation).
  bool fibers = false;
  /// Whether a barrier or warp operation ran in it.
  bool synchronized = false;
  unsigned numThreads = 0, current = 0, alive = 0, arrived = 0;
  unsigned long long generation = 0, progress = 0;
  std::vector<Fiber> threads;
  std::vector<Warp> warps;
  ucontext_t scheduler;
};

inline thread_local Block *activeBlock = nullptr;

/// Stack of a fiber: kernels are flat (no recursion), a few KiB at most.
constexpr size_t kFiberStack = 128 * 1024;

[[noreturn]] inline void fail(const char *what) {
  std::fprintf(stderr,
               "nnc_cuda_emulation: block (%u, %u, %u), thread (%u, %u, %u): "
               "%s\n",
               blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y,
               threadIdx.z, what);
  std::fflush(stderr);
  std::abort();
}

/// The calling thread's block, for a barrier or warp operation `what`.
inline Block &syncing(const char *what) {
  Block *block = activeBlock;
  if (!block)
    fail("a barrier or warp operation outside a kernel launch");
  if (!block->fibers) {
    static thread_local char message[160];
    std::snprintf(message, sizeof message,
                  "%s in a block whose launch's first block reached no "
                  "barrier or warp operation (the emulation cannot go on)",
                  what);
    fail(message);
  }
  block->synchronized = true;
  return *block;
}

/// Back to the scheduler; returns when it runs this fiber again.
inline void yield(Block &block) {
  swapcontext(&block.threads[block.current].context, &block.scheduler);
}

/// __syncthreads: waits until every thread of the block that has not
/// exited arrives.
inline void blockBarrier(const char *what) {
  Block &block = syncing(what);
  Fiber &self = block.threads[block.current];
  unsigned long long generation = block.generation;
  ++block.progress;
  if (++block.arrived == block.alive) {
    block.arrived = 0;
    ++block.generation;
    return;
  }
  self.waiting = what;
  while (block.generation == generation)
    yield(block);
  self.waiting = nullptr;
}

/// The lanes of warp `warp` that exist (the last warp of a block may be
/// partial).
inline unsigned existingLanes(const Block &block, unsigned warp) {
  unsigned first = warp * 32;
  unsigned count = block.numThreads - first < 32 ? block.numThreads - first : 32;
  return count == 32 ? 0xffffffffu : (1u << count) - 1;
}

/// Waits until every lane in `mask` arrives (all at one warp operation with
/// the same mask).
inline void warpWait(Block &block, unsigned mask, const char *what) {
  Fiber &self = block.threads[block.current];
  unsigned lane = self.linear % 32;
  Warp &warp = block.warps[self.linear / 32];
  if (!(mask >> lane & 1))
    fail("a warp operation on a lane its mask leaves out");
  if (warp.arrived == 0)
    warp.mask = mask;
  else if (warp.mask != mask)
    fail("lanes of one warp at warp operations with different masks");
  unsigned need = __builtin_popcount(mask & existingLanes(block, self.linear / 32));
  unsigned long long generation = warp.generation;
  ++block.progress;
  if (++warp.arrived == need) {
    warp.arrived = 0;
    ++warp.generation;
    return;
  }
  self.waiting = what;
  while (warp.generation == generation)
    yield(block);
  self.waiting = nullptr;
}

/// A warp operation: posts `bits`, waits for the lanes of `mask`, has
/// `read` see every lane's posted bits, and waits again so that no lane
/// posts anew before all have read.
template <typename Read>
void warpExchange(unsigned mask, uint64_t bits, const char *what, Read read) {
  Block &block = syncing(what);
  Fiber &self = block.threads[block.current];
  Warp &warp = block.warps[self.linear / 32];
  unsigned lane = self.linear % 32;
  warp.slots[lane] = bits;
  warp.posted[lane] = true;
  warpWait(block, mask, what);
  read(warp);
  warpWait(block, mask, what);
  warp.posted[lane] = false;
}

template <typename T> uint64_t toBits(T value) {
  static_assert(sizeof(T) <= 8, "warp operations take values of 8 bytes or less");
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}

/// The value of `var` on lane `source` (CUDA's shuffles, once the source
/// lane is worked out).
template <typename T> T shuffle(unsigned mask, T var, unsigned source) {
  T result = var;
  warpExchange(mask, toBits(var), "a warp shuffle", [&](const Warp &warp) {
    if (source >= 32 || !warp.posted[source])
      fail("a warp shuffle reads a lane that is not taking part");
    std::memcpy(&result, &warp.slots[source], sizeof(T));
  });
  return result;
}

inline unsigned laneId() {
  Block &block = syncing("a warp operation");
  return block.threads[block.current].linear % 32;
}

/// Called when a fiber's kernel returns: it has exited, and a barrier
/// waiting only for it opens.
inline void exitThread(Block &block) {
  block.threads[block.current].done = true;
  --block.alive;
  ++block.progress;
  if (block.arrived && block.arrived == block.alive) {
    block.arrived = 0;
    ++block.generation;
  }
}

inline void fiberEntry() {
  Block &block = *activeBlock;
  block.body.run(block.body.context);
  exitThread(block);
  // Returning resumes uc_link: the scheduler.
}

/// Runs the block's threads as fibers, round after round, each until it
/// waits or exits; fails when a round moves none (a deadlock).
inline void runFibers(Block &block) {
  unsigned n = block.numThreads;
  size_t bytes = kFiberStack * n;
  void *stacks = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (stacks == MAP_FAILED)
    fail("no memory for the block's thread stacks");
  block.threads.assign(n, Fiber());
  block.warps.assign((n + 31) / 32, Warp());
  block.alive = n;
  block.arrived = 0;
  for (unsigned i = 0; i < n; ++i) {
    Fiber &fiber = block.threads[i];
    fiber.linear = i;
    fiber.index = dim3{i % blockDim.x, i / blockDim.x % blockDim.y,
                       i / (blockDim.x * blockDim.y)};
    getcontext(&fiber.context);
    fiber.context.uc_stack.ss_sp = static_cast<char *>(stacks) + i * kFiberStack;
    fiber.context.uc_stack.ss_size = kFiberStack;
    fiber.context.uc_link = &block.scheduler;
    makecontext(&fiber.context, fiberEntry, 0);
  }
  for (;;) {
    unsigned long long before = block.progress;
    bool running = false;
    for (unsigned i = 0; i < n; ++i) {
      if (block.threads[i].done)
        continue;
      running = true;
      block.current = i;
      threadIdx = block.threads[i].index;
      swapcontext(&block.scheduler, &block.threads[i].context);
    }
    if (!running)
      break;
    if (block.progress == before) {
      unsigned atBarrier = 0, atWarp = 0;
      for (const Fiber &fiber : block.threads)
        if (fiber.waiting && std::strcmp(fiber.waiting, "__syncthreads") == 0)
          ++atBarrier;
        else if (fiber.waiting)
          ++atWarp;
      static thread_local char message[200];
      std::snprintf(message, sizeof message,
                    "the block cannot go on: %u threads wait at "
                    "__syncthreads, %u at warp operations, %u have exited",
                    atBarrier, atWarp, n - block.alive);
      fail(message);
    }
  }
  munmap(stacks, bytes);
}

/// Runs `body` on every thread of grid x block, blocks one after another.
/// The first block's threads run as fibers; the other blocks' too when it
/// reached a barrier or warp operation, else one after another (fast),
/// where a barrier is an error (no kernel nnc emits takes one in only some
/// blocks).
inline void launchGrid(Body body, dim3 grid, dim3 block) {
  Block state;
  state.body = body;
  state.numThreads = block.x * block.y * block.z;
  Block *saved = activeBlock;
  activeBlock = &state;
  gridDim = grid;
  blockDim = block;
  bool fibers = true;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        blockIdx = dim3{bx, by, bz};
        state.fibers = fibers;
        state.synchronized = false;
        if (fibers) {
          runFibers(state);
          if (bx == 0 && by == 0 && bz == 0)
            fibers = state.synchronized;
          continue;
        }
        for (unsigned tz = 0; tz < block.z; ++tz)
          for (unsigned ty = 0; ty < block.y; ++ty)
            for (unsigned tx = 0; tx < block.x; ++tx) {
              threadIdx = dim3{tx, ty, tz};
              body.run(body.context);
            }
      }
  activeBlock = saved;
}

/// The most parameters nnc_emulator_launch passes (every one a `char *`).
constexpr int kMaxKernelParams = 64;

template <std::size_t> using CharPtr = char *;
using CallFn = void (*)(void *, char *const *);

template <std::size_t... I>
void call(void *kernel, char *const *args, std::index_sequence<I...>) {
  reinterpret_cast<void (*)(CharPtr<I>...)>(kernel)(args[I]...);
}
template <std::size_t N> void callWith(void *kernel, char *const *args) {
  call(kernel, args, std::make_index_sequence<N>());
}

// Only the call depends on the arity.
template <std::size_t... N>
CallFn callOfArity(int arity, std::index_sequence<N...>) {
  // A table on the stack, not a static one: GCC would make a static local of
  // an inline function process-wide (STB_GNU_UNIQUE) as above.
  const CallFn table[] = {&callWith<N>...};
  return table[arity];
}

struct KernelCall {
  CallFn fn;
  void *kernel;
  char *const *args;
};

} // namespace nnc_emulation
#pragma GCC visibility pop

/// Runs `kernel(args...)` on a 1-D grid of `grid` blocks of `block` threads.
template <typename Kernel, typename... Args>
void nnc_emulate_launch(Kernel kernel, unsigned grid, unsigned block,
                        Args... args) {
  auto call = [&] { kernel(args...); };
  using Call = decltype(call);
  nnc_emulation::launchGrid(
      {[](const void *c) { (*static_cast<const Call *>(c))(); }, &call},
      dim3{grid, 1, 1}, dim3{block, 1, 1});
}

/// The emulated driver's launch: runs `kernel`, a
/// `void (char *a0, ..., char *a<numParams-1>)`, with the argument values
/// `args` on every thread of grid[0] x grid[1] x grid[2] blocks of
/// block[0] x block[1] x block[2] threads (launchGrid says how). Returns 0,
/// or -1 for a parameter count above 64. Inline and `used`: every module
/// that includes this header exports one, and a program that includes it
/// from several files still links.
extern "C" inline __attribute__((used, visibility("default"))) int
nnc_emulator_launch(void *kernel, int numParams, char *const *args,
                    const unsigned grid[3], const unsigned block[3]) {
  using namespace nnc_emulation;
  if (numParams < 0 || numParams > kMaxKernelParams)
    return -1;
  KernelCall call{
      callOfArity(numParams, std::make_index_sequence<kMaxKernelParams + 1>()),
      kernel, args};
  launchGrid({[](const void *c) {
                const auto *k = static_cast<const KernelCall *>(c);
                k->fn(k->kernel, k->args);
              },
              &call},
             dim3{grid[0], grid[1], grid[2]},
             dim3{block[0], block[1], block[2]});
  return 0;
}

// Barriers, warp shuffles and votes (warp operations take every lane of
// their mask, as CUDA requires of the *_sync forms).
inline void __syncthreads() { nnc_emulation::blockBarrier("__syncthreads"); }
inline void __syncwarp(unsigned mask = 0xffffffffu) {
  nnc_emulation::warpExchange(mask, 0, "__syncwarp",
                              [](const nnc_emulation::Warp &) {});
}
template <typename T>
T __shfl_sync(unsigned mask, T var, int srcLane, int width = 32) {
  unsigned lane = nnc_emulation::laneId();
  unsigned base = lane & ~unsigned(width - 1);
  return nnc_emulation::shuffle(mask, var,
                                base + (unsigned(srcLane) & unsigned(width - 1)));
}
template <typename T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  unsigned lane = nnc_emulation::laneId();
  return nnc_emulation::shuffle(
      mask, var, (lane & unsigned(width - 1)) < delta ? lane : lane - delta);
}
template <typename T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  unsigned lane = nnc_emulation::laneId();
  return nnc_emulation::shuffle(
      mask, var,
      (lane & unsigned(width - 1)) + delta >= unsigned(width) ? lane
                                                              : lane + delta);
}
template <typename T>
T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = 32) {
  unsigned lane = nnc_emulation::laneId();
  unsigned base = lane & ~unsigned(width - 1), source = lane ^ unsigned(laneMask);
  return nnc_emulation::shuffle(mask, var,
                                source >= base + unsigned(width) ? lane : source);
}
inline unsigned __ballot_sync(unsigned mask, int predicate) {
  unsigned result = 0;
  nnc_emulation::warpExchange(
      mask, predicate != 0, "a warp vote", [&](const nnc_emulation::Warp &w) {
        for (unsigned lane = 0; lane < 32; ++lane)
          if ((mask >> lane & 1) && w.posted[lane] && w.slots[lane])
            result |= 1u << lane;
      });
  return result;
}
inline int __any_sync(unsigned mask, int predicate) {
  return __ballot_sync(mask, predicate) != 0;
}
inline int __all_sync(unsigned mask, int predicate) {
  unsigned voted = 0;
  nnc_emulation::warpExchange(mask, predicate != 0, "a warp vote",
                              [&](const nnc_emulation::Warp &w) {
                                for (unsigned lane = 0; lane < 32; ++lane)
                                  if ((mask >> lane & 1) && w.posted[lane] &&
                                      !w.slots[lane])
                                    voted = 1;
                              });
  return !voted;
}

// Atomics: a block's threads run one at a time (fibers switch only at
// barriers and warp operations), so a plain read-modify-write.
template <typename T> T atomicExch(T *p, T v) {
  T old = *p;
  *p = v;
  return old;
}
template <typename T> T atomicAdd(T *p, T v) {
  T old = *p;
  *p = old + v;
  return old;
}
template <typename T> T atomicMax(T *p, T v) {
  T old = *p;
  *p = old > v ? old : v;
  return old;
}
template <typename T> T atomicMin(T *p, T v) {
  T old = *p;
  *p = old < v ? old : v;
  return old;
}

using std::isfinite;
using std::isinf;
using std::isnan;

inline float __int_as_float(int32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline double __longlong_as_double(long long bits) {
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }

struct __half {
  uint16_t bits;
};
struct __nv_bfloat16 {
  uint16_t bits;
};
inline __half __ushort_as_half(unsigned short bits) { return {bits}; }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short bits) {
  return {bits};
}

inline float __half2float(__half h) {
  uint32_t sign = (h.bits & 0x8000u) << 16, exp = (h.bits >> 10) & 0x1f,
           man = h.bits & 0x3ff, bits;
  if (exp == 0x1f)
    bits = sign | 0x7f800000u | (man << 13);
  else if (exp)
    bits = sign | ((exp + 112) << 23) | (man << 13);
  else if (!man)
    bits = sign;
  else {
    // Subnormal: normalize.
    int e = -1;
    do {
      ++e;
      man <<= 1;
    } while (!(man & 0x400));
    bits = sign | ((112 - e) << 23) | ((man & 0x3ff) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline __half __float2half_rn(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint16_t sign = (x >> 16) & 0x8000;
  uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) // inf or NaN
    return {uint16_t(sign | 0x7c00 | (abs > 0x7f800000u ? 0x200 : 0))};
  if (abs >= 0x477ff000u) // rounds to at least 65520: inf
    return {uint16_t(sign | 0x7c00)};
  if (abs < 0x38800000u) { // below the smallest normal half: subnormal
    float scaled = std::fabs(f) * 16777216.0f; // units of 2^-24
    return {uint16_t(sign | uint16_t(std::nearbyint(scaled)))};
  }
  uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1);
  return {uint16_t(sign | ((rounded - 0x38000000u) >> 13))};
}

inline float __bfloat162float(__nv_bfloat16 b) {
  uint32_t bits = uint32_t(b.bits) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline __nv_bfloat16 __float2bfloat16_rn(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return {uint16_t((x >> 16) | 0x40)};
  x += 0x7fffu + ((x >> 16) & 1);
  return {uint16_t(x >> 16)};
}

#endif // NNC_CUDA_EMULATION_H
