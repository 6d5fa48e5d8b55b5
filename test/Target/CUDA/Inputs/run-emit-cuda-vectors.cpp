// Runs the kernels of emit-cuda-vectors.mlir as emitted (KERNELS names the
// source) through nnc_cuda_emulation.h, on a grid smaller than their
// threads so that the grid-stride loops wrap, and prints the results.

#include KERNELS

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

template <typename Kernel, typename... Buffers>
void run(Kernel kernel, unsigned grid, unsigned block, Buffers *...buffers) {
  nnc_emulate_launch(kernel, grid, block, reinterpret_cast<char *>(buffers)...);
}

// Buffers as the runtime hands them to kernels: 16-byte aligned at least.
template <typename T> T *buffer(size_t count) {
  void *p = std::aligned_alloc(64, (count * sizeof(T) + 63) / 64 * 64);
  std::memset(p, 0, count * sizeof(T));
  return static_cast<T *>(p);
}

template <typename T>
void print(const char *name, const T *values, int rows, int cols) {
  std::printf("%s:", name);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      std::printf("%s %g", r && !c ? " |" : "", double(values[r * cols + c]));
  std::printf("\n");
}

static float fromBf16(unsigned short bits) {
  unsigned int wide = unsigned(bits) << 16;
  float f;
  std::memcpy(&f, &wide, 4);
  return f;
}

/// `count` bf16 values (bits), as print() prints one row.
static void printBf16(const char *name, const unsigned short *bits,
                      int count) {
  std::vector<float> values(count);
  for (int i = 0; i < count; ++i)
    values[i] = fromBf16(bits[i]);
  print(name, values.data(), 1, count);
}

// Small integers as f16 bits (exact).
static unsigned short toF16(int v) {
  if (v == 0)
    return 0;
  int e = 0;
  while ((1 << (e + 1)) <= v)
    ++e;
  unsigned mantissa = (unsigned(v) << (10 - e)) & 0x3ff;
  return (unsigned short)(((e + 15) << 10) | mantissa);
}

int main() {
  // v0: x[i][j] = 8 i + j plus b[j] = 10 j.
  float *x0 = buffer<float>(24), *b0 = buffer<float>(8), *y0 = buffer<float>(24);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 8; ++j)
      x0[i * 8 + j] = float(8 * i + j);
  for (int j = 0; j < 8; ++j)
    b0[j] = float(10 * j);
  run(v0_l0, 1, 4, x0, b0, y0); // 4 threads, 6 groups of 4
  print("v0", y0, 3, 8);

  float *x1 = buffer<float>(32), *y1 = buffer<float>(32);
  for (int i = 0; i < 32; ++i)
    x1[i] = float(i);
  run(v1_l0, 1, 3, x1, y1);
  print("v1", y1, 4, 8);

  double *x2 = buffer<double>(12), *y2 = buffer<double>(12);
  float *p2 = buffer<float>(12), *q2 = buffer<float>(12);
  for (int i = 0; i < 12; ++i) {
    x2[i] = i;
    p2[i] = float(i);
  }
  run(v2_l0, 1, 4, x2, y2, p2, q2);
  std::printf("v2:");
  for (int i = 0; i < 12; ++i)
    std::printf(" %g", y2[i]);
  std::printf(" |");
  for (int i = 0; i < 12; ++i)
    std::printf(" %g", double(q2[i]));
  std::printf("\n");

  float *x3 = buffer<float>(10), *y3 = buffer<float>(10);
  for (int i = 0; i < 10; ++i)
    x3[i] = float(i);
  run(v3_l0, 1, 4, x3, y3);
  print("v3", y3, 1, 10);

  float *x4 = buffer<float>(8), *y4 = buffer<float>(8);
  for (int i = 0; i < 8; ++i)
    x4[i] = float(i);
  run(v4_l0, 1, 3, x4, y4);
  std::printf("v4: x");
  for (int i = 0; i < 8; ++i)
    std::printf(" %g", double(x4[i]));
  std::printf(" y");
  for (int i = 0; i < 8; ++i)
    std::printf(" %g", double(y4[i]));
  std::printf("\n");

  float *x5 = buffer<float>(8);
  unsigned char *arena = buffer<unsigned char>(96);
  for (int i = 0; i < 8; ++i)
    x5[i] = float(i);
  run(v5_l0, 1, 1, x5, arena);
  run(v5_l1, 1, 3, x5, arena);
  float y5[8];
  std::memcpy(y5, arena + 52, sizeof y5);
  print("v5", y5, 1, 8);

  unsigned short *x6 = buffer<unsigned short>(16), *y6 = buffer<unsigned short>(16);
  for (int i = 0; i < 16; ++i)
    x6[i] = toF16(i);
  run(v6_l0, 1, 3, x6, y6);
  printBf16("v6", y6, 16);

  float *x7 = buffer<float>(8), *y7 = buffer<float>(12);
  for (int i = 0; i < 8; ++i)
    x7[i] = float(i);
  run(v7_l0, 1, 1, x7, y7);
  print("v7", y7, 2, 6);

  float *y8 = buffer<float>(8);
  run(v8_l0, 1, 1, y8);
  print("v8", y8, 1, 8);

  float *x9 = buffer<float>(16);
  unsigned short *y9 = buffer<unsigned short>(16);
  for (int i = 0; i < 16; ++i)
    x9[i] = float(i);
  run(v9_l0, 1, 3, x9, y9);
  printBf16("v9", y9, 16);
  return 0;
}
