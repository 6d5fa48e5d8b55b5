// Runs the kernels of emit-cuda-reductions.mlir as emitted (KERNELS names
// the source) through nnc_cuda_emulation.h, on grids with fewer warps or
// blocks than rows, so that the row loops wrap, and prints the results.

#include KERNELS

#include <cmath>
#include <cstdio>
#include <vector>

template <typename Kernel, typename... Buffers>
void run(Kernel kernel, unsigned grid, unsigned block, Buffers *...buffers) {
  nnc_emulate_launch(kernel, grid, block, reinterpret_cast<char *>(buffers)...);
}

int main() {
  // r0: row r holds 40 r + k; its sum plus the 1 filled in.
  float x0[3 * 40], s0[3];
  for (int i = 0; i < 3 * 40; ++i)
    x0[i] = float(i);
  run(r0_l0, 1, 64, x0, s0);
  run(r0_l1, 1, 64, x0, s0); // 2 warps, 3 rows
  std::printf("r0: %g %g %g\n", s0[0], s0[1], s0[2]);

  // r1: row 0 holds 0..1099, row 1 the same with a NaN.
  std::vector<float> x1(2 * 1100);
  for (int i = 0; i < 1100; ++i)
    x1[i] = x1[1100 + i] = float(i);
  x1[1100 + 517] = NAN;
  float s1[2], m1[2];
  run(r1_l0, 1, 64, x1.data(), s1, m1); // both initial values at once
  run(r1_l1, 1, 64, x1.data(), s1, m1); // 1 block, 2 rows
  std::printf("r1 sums: %g %g\nr1 maxima: %g %g\n", s1[0], s1[1], m1[0],
              m1[1]);

  // r2: column sums of 5x3 (x[i][j] = i + j), then of 40x3 added.
  float x2[5 * 3], y2[40 * 3], s2[3];
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j)
      x2[i * 3 + j] = float(i + j);
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 3; ++j)
      y2[i * 3 + j] = float(3 * i + j);
  run(r2_l0, 1, 64, x2, s2, y2);
  run(r2_l1, 1, 64, x2, s2, y2);
  std::printf("r2: %g %g %g\n", s2[0], s2[1], s2[2]);
  run(r2_l2, 1, 64, x2, s2, y2);
  std::printf("r2 then: %g %g %g\n", s2[0], s2[1], s2[2]);

  // r3: 1 - 2 + 3 - ... - 100 = -50, added to 0.
  int x3[100], s3 = 0;
  for (int i = 0; i < 100; ++i)
    x3[i] = i % 2 ? -(i + 1) : i + 1;
  run(r3_l0, 2, 64, x3, &s3);
  std::printf("r3: %d\n", s3);

  // r4: argmax of two rows, from -inf and index 0.
  float x4[2 * 50], m4[2] = {-INFINITY, -INFINITY};
  int i4[2] = {0, 0};
  for (int i = 0; i < 50; ++i) {
    x4[i] = float(i);
    x4[50 + i] = float(49 - i);
  }
  run(r4_l0, 1, 64, x4, m4, i4);
  std::printf("r4: %g %g / %d %d\n", m4[0], m4[1], i4[0], i4[1]);

  // r5: column j holds (i * 7 + j) % 50 for rows i; checked against the
  // sums and maxima computed here (integers: exact in any order).
  const int n5 = 40, c5 = 4100;
  std::vector<float> x5(n5 * c5), s5(c5), m5(c5);
  bool ok5 = true;
  for (int i = 0; i < n5; ++i)
    for (int j = 0; j < c5; ++j)
      x5[i * c5 + j] = float((i * 7 + j) % 50);
  run(r5_l0, 1, 64, x5.data(), s5.data(), m5.data());
  run(r5_l1, 2, 64, x5.data(), s5.data(), m5.data()); // 2 blocks of 2 warps
  for (int j = 0; j < c5; ++j) {
    float sum = 0, max = -INFINITY;
    for (int i = 0; i < n5; ++i) {
      sum += x5[i * c5 + j];
      max = std::fmax(max, x5[i * c5 + j]);
    }
    ok5 = ok5 && s5[j] == sum && m5[j] == max;
  }
  std::printf("r5: %s (column 4099: %g %g)\n", ok5 ? "ok" : "wrong",
              s5[c5 - 1], m5[c5 - 1]);
  return 0;
}
