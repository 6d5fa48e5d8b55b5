//===- nnc_cuda_emulation.h - CUDA's execution model on the host -*- C++ -*-===//
//
// Test-only: what emitted CUDA C++ uses, for the host compiler, so that the
// emitter's output, unchanged, runs on a machine without a GPU. The threads
// of a block run on one host thread as fibers, switched only at
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
#if !defined(__x86_64__)
#include <ucontext.h>
#endif

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

/// A fiber's saved state. On x86-64 its stack pointer, where the switch
/// below left the frame pointer and the address to resume at (no system
/// call: swapcontext's signal mask costs one per switch, and a block
/// reduction switches hundreds of thousands of times); elsewhere a
/// ucontext.
#if defined(__x86_64__)
struct Context {
  void *sp = nullptr;
};

/// Saves the running code's state into `from` and resumes `to`. Every
/// register the compiler may keep a value in is declared clobbered, so it
/// saves what it needs; the frame pointer and the resume address go on the
/// stack, below the red zone (128 bytes a leaf function may use under its
/// stack pointer).
inline void switchTo(Context &from, const Context &to) {
  void **fromSp = &from.sp;
  void *toSp = to.sp;
  asm volatile("subq $128, %%rsp\n\t"
               "leaq 1f(%%rip), %%rax\n\t"
               "pushq %%rax\n\t"
               "pushq %%rbp\n\t"
               "movq %%rsp, (%%rdi)\n\t"
               "movq %%rsi, %%rsp\n\t"
               "popq %%rbp\n\t"
               "popq %%rax\n\t"
               "jmpq *%%rax\n\t"
               "1:\n\t"
               "addq $128, %%rsp\n\t"
               // In rdi and rsi, and changed as far as the compiler knows:
               // the code resumed leaves them as it likes.
               : "+D"(fromSp), "+S"(toSp)
               :
               : "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10",
                 "r11", "r12", "r13", "r14", "r15", "xmm0", "xmm1", "xmm2",
                 "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
                 "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "st",
                 "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)",
                 "st(7)", "memory", "cc");
}

/// A context that starts `entry` (which must never return) on the stack
/// [stack, stack + size).
inline Context startContext(void (*entry)(), char *stack, size_t size,
                            Context &) {
  auto top = reinterpret_cast<uintptr_t>(stack + size) & ~uintptr_t(15);
  void **frame = reinterpret_cast<void **>(top);
  frame[-1] = nullptr; // where `entry` would return to: nowhere
  frame[-2] = reinterpret_cast<void *>(entry);
  frame[-3] = nullptr; // its caller's frame pointer
  return Context{frame - 3};
}
#else
struct Context {
  ucontext_t context;
};
inline void switchTo(Context &from, const Context &to) {
  swapcontext(&from.context, &to.context);
}
inline Context startContext(void (*entry)(), char *stack, size_t size,
                            Context &scheduler) {
  Context c;
  getcontext(&c.context);
  c.context.uc_stack.ss_sp = stack;
  c.context.uc_stack.ss_size = size;
  c.context.uc_link = &scheduler.context;
  makecontext(&c.context, entry, 0);
  return c;
}
#endif

/// A thread of a block run as a fiber: its own stack, switched to and from
/// by the block's scheduler, so that it can wait at barriers.
struct Fiber {
  Context context;
  dim3 index;
  unsigned linear = 0;
  bool done = false;
  /// What it waits at (for the deadlock report), or null.
  const char *waiting = nullptr;
};

/// The lanes of one warp at a warp operation. Values posted for the
/// operation of generation g are in slots[g % 2], stamped g + 1: a lane
/// reads them after all have posted, and none can post for g + 2 before
/// every lane has arrived at g + 1, so after it read (one wait per
/// operation).
struct Warp {
  unsigned arrived = 0, mask = 0;
  unsigned long long generation = 0;
  uint64_t slots[2][32] = {};
  unsigned long long stamps[2][32] = {};
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
  Context scheduler;
};

inline thread_local Block *activeBlock = nullptr;

/// Stack of a fiber: kernels are flat (no recursion), a few KiB at most.
constexpr size_t kFiberStack = 64 * 1024;

/// Reports `what` of the running thread (or, with `wholeBlock`, of its
/// block) and aborts.
[[noreturn]] inline void fail(const char *what, bool wholeBlock = false) {
  if (wholeBlock)
    std::fprintf(stderr, "nnc_cuda_emulation: block (%u, %u, %u): %s\n",
                 blockIdx.x, blockIdx.y, blockIdx.z, what);
  else
    std::fprintf(stderr,
                 "nnc_cuda_emulation: block (%u, %u, %u), thread (%u, %u, "
                 "%u): %s\n",
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
  switchTo(block.threads[block.current].context, block.scheduler);
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

/// A warp operation: posts `bits`, waits for the lanes of `mask`, and has
/// `read(lane)` return what lane `lane` posted, or fail if it is not
/// taking part.
struct Posted {
  const Warp &warp;
  unsigned long long stamp;
  bool has(unsigned lane) const {
    return lane < 32 && warp.stamps[(stamp - 1) % 2][lane] == stamp;
  }
  uint64_t operator[](unsigned lane) const {
    return warp.slots[(stamp - 1) % 2][lane];
  }
};
template <typename Read>
void warpExchange(unsigned mask, uint64_t bits, const char *what, Read read) {
  Block &block = syncing(what);
  Fiber &self = block.threads[block.current];
  Warp &warp = block.warps[self.linear / 32];
  unsigned lane = self.linear % 32;
  unsigned long long generation = warp.generation;
  warp.slots[generation % 2][lane] = bits;
  warp.stamps[generation % 2][lane] = generation + 1;
  warpWait(block, mask, what);
  read(Posted{warp, generation + 1});
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
  warpExchange(mask, toBits(var), "a warp shuffle", [&](const Posted &posted) {
    if (!posted.has(source))
      fail("a warp shuffle reads a lane that is not taking part");
    uint64_t bits = posted[source];
    std::memcpy(&result, &bits, sizeof(T));
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

[[noreturn]] inline void fiberEntry() {
  Block &block = *activeBlock;
  block.body.run(block.body.context);
  exitThread(block);
  switchTo(block.threads[block.current].context, block.scheduler);
  __builtin_unreachable();
}

/// Runs the block's threads as fibers, round after round, each until it
/// waits or exits; fails when a round moves none (a deadlock).
inline void runFibers(Block &block, char *stacks) {
  unsigned n = block.numThreads;
  block.threads.assign(n, Fiber());
  block.warps.assign((n + 31) / 32, Warp());
  block.alive = n;
  block.arrived = 0;
  for (unsigned i = 0; i < n; ++i) {
    Fiber &fiber = block.threads[i];
    fiber.linear = i;
    fiber.index = dim3{i % blockDim.x, i / blockDim.x % blockDim.y,
                       i / (blockDim.x * blockDim.y)};
    fiber.context =
        startContext(fiberEntry, stacks + i * kFiberStack,
                     kFiberStack, block.scheduler);
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
      switchTo(block.scheduler, block.threads[i].context);
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
      fail(message, /*wholeBlock=*/true);
    }
  }
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
  // The fibers' stacks, mapped once for the launch (its blocks reuse the
  // pages they touched).
  size_t bytes = kFiberStack * state.numThreads;
  void *stacks = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (stacks == MAP_FAILED)
    fail("no memory for the block's thread stacks");
  bool fibers = true;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        blockIdx = dim3{bx, by, bz};
        state.fibers = fibers;
        state.synchronized = false;
        if (fibers) {
          runFibers(state, static_cast<char *>(stacks));
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
  munmap(stacks, bytes);
  activeBlock = saved;
}

/// The most parameters nnc_emulator_launch passes from its own table
/// (every one a `char *`); larger counts, up to CUDA's limit (4 KiB of
/// parameters), must be registered (NNC_EMULATION_ARITY below), which the
/// emulated driver does for the kernels it compiles: a table of every
/// arity up to 4095 would take minutes to compile.
constexpr int kMaxKernelParams = 64;
constexpr int kMaxRegisteredParams = 4095;

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

inline CallFn registeredCalls[kMaxRegisteredParams + 1] = {};
template <std::size_t N> struct RegisterArity {
  RegisterArity() { registeredCalls[N] = &callWith<N>; }
};

struct KernelCall {
  CallFn fn;
  void *kernel;
  char *const *args;
};

} // namespace nnc_emulation
#pragma GCC visibility pop

/// Makes nnc_emulator_launch able to call kernels of `n` (> 64) parameters.
#define NNC_EMULATION_ARITY(n)                                                 \
  static const nnc_emulation::RegisterArity<n> nnc_emulation_arity_##n;

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
/// or -1 for a parameter count above 64 that was not registered. Inline and `used`: every module
/// that includes this header exports one, and a program that includes it
/// from several files still links.
extern "C" inline __attribute__((used, visibility("default"))) int
nnc_emulator_launch(void *kernel, int numParams, char *const *args,
                    const unsigned grid[3], const unsigned block[3]) {
  using namespace nnc_emulation;
  if (numParams < 0 || numParams > kMaxRegisteredParams)
    return -1;
  CallFn fn = numParams <= kMaxKernelParams
                  ? callOfArity(numParams,
                                std::make_index_sequence<kMaxKernelParams + 1>())
                  : registeredCalls[numParams];
  if (!fn)
    return -1;
  KernelCall call{fn, kernel, args};
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
                              [](const nnc_emulation::Posted &) {});
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
      mask, predicate != 0, "a warp vote",
      [&](const nnc_emulation::Posted &posted) {
        for (unsigned lane = 0; lane < 32; ++lane)
          if ((mask >> lane & 1) && posted.has(lane) && posted[lane])
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
                              [&](const nnc_emulation::Posted &posted) {
                                for (unsigned lane = 0; lane < 32; ++lane)
                                  if ((mask >> lane & 1) && posted.has(lane) &&
                                      !posted[lane])
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
