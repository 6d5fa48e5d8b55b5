//===- nnc_cuda_emulation.h - CUDA's execution model on the host -*- C++ -*-===//
//
// Test-only: what emitted CUDA C++ uses, for the host compiler, so that the
// emitter's output, unchanged, runs on a machine without a GPU. Threads of
// the grid run one after another (the emitted kernels take no barriers or
// shared memory yet, so neither is emulated); __half and __nv_bfloat16 are
// their bits, converted with IEEE round-to-nearest-even as cuda_fp16.h /
// cuda_bf16.h do.
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
#include <utility>

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

/// Runs `kernel(args...)` on a 1-D grid of `grid` blocks of `block` threads.
template <typename Kernel, typename... Args>
void nnc_emulate_launch(Kernel kernel, unsigned grid, unsigned block,
                        Args... args) {
  gridDim = dim3{grid, 1, 1};
  blockDim = dim3{block, 1, 1};
  blockIdx = threadIdx = dim3{0, 0, 0};
  for (unsigned b = 0; b < grid; ++b)
    for (unsigned t = 0; t < block; ++t) {
      blockIdx.x = b;
      threadIdx.x = t;
      kernel(args...);
    }
}

#pragma GCC visibility push(hidden)
namespace nnc_emulation {

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

// Only the call depends on the arity: 65 copies of the grid loops would
// add about a second to every module's compilation.
template <std::size_t... N>
CallFn callOfArity(int arity, std::index_sequence<N...>) {
  // A table on the stack, not a static one: GCC would make a static local of
  // an inline function process-wide (STB_GNU_UNIQUE) as above.
  const CallFn table[] = {&callWith<N>...};
  return table[arity];
}

} // namespace nnc_emulation
#pragma GCC visibility pop

/// The emulated driver's launch: runs `kernel`, a
/// `void (char *a0, ..., char *a<numParams-1>)`, with the argument values
/// `args` on every thread of grid[0] x grid[1] x grid[2] blocks of
/// block[0] x block[1] x block[2] threads, one after another, blocks then
/// threads, x fastest. Returns 0, or -1 for a parameter count above 64.
/// Inline and `used`: every module that includes this header exports one,
/// and a program that includes it from several files still links.
extern "C" inline __attribute__((used, visibility("default"))) int
nnc_emulator_launch(void *kernel, int numParams, char *const *args,
                    const unsigned grid[3], const unsigned block[3]) {
  using namespace nnc_emulation;
  if (numParams < 0 || numParams > kMaxKernelParams)
    return -1;
  CallFn fn =
      callOfArity(numParams, std::make_index_sequence<kMaxKernelParams + 1>());
  gridDim = dim3{grid[0], grid[1], grid[2]};
  blockDim = dim3{block[0], block[1], block[2]};
  for (unsigned bz = 0; bz < grid[2]; ++bz)
    for (unsigned by = 0; by < grid[1]; ++by)
      for (unsigned bx = 0; bx < grid[0]; ++bx) {
        blockIdx = dim3{bx, by, bz};
        for (unsigned tz = 0; tz < block[2]; ++tz)
          for (unsigned ty = 0; ty < block[1]; ++ty)
            for (unsigned tx = 0; tx < block[0]; ++tx) {
              threadIdx = dim3{tx, ty, tz};
              fn(kernel, args);
            }
      }
  return 0;
}

// Atomics: threads run one at a time, so a plain read-modify-write.
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
