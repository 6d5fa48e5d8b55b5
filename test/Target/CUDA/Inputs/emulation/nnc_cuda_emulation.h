//===- nnc_cuda_emulation.h - CUDA's execution model on the host -*- C++ -*-===//
//
// Test-only: what emitted CUDA C++ uses, for the host compiler, so that the
// emitter's output, unchanged, runs on a machine without a GPU. Threads of
// the grid run one after another (the emitted kernels take no barriers or
// shared memory yet); __half and __nv_bfloat16 are their bits, converted
// with IEEE round-to-nearest-even as cuda_fp16.h / cuda_bf16.h do.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_CUDA_EMULATION_H
#define NNC_CUDA_EMULATION_H

#include <cmath>
#include <cstdint>
#include <cstring>

#define __global__
#define __device__
#define __launch_bounds__(n)

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};
inline dim3 threadIdx, blockIdx, blockDim, gridDim;

/// Runs `kernel(args...)` on a grid of `grid` blocks of `block` threads.
template <typename Kernel, typename... Args>
void nnc_emulate_launch(Kernel kernel, unsigned grid, unsigned block,
                        Args... args) {
  gridDim.x = grid;
  blockDim.x = block;
  for (unsigned b = 0; b < grid; ++b)
    for (unsigned t = 0; t < block; ++t) {
      blockIdx.x = b;
      threadIdx.x = t;
      kernel(args...);
    }
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
