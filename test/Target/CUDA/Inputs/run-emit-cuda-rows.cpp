// Runs the kernels of emit-cuda-rows.mlir as emitted (KERNELS names the
// source) through nnc_cuda_emulation.h, on grids with fewer warps, blocks
// or threads than rows, so that the row loops wrap, and compares the
// results with a reference computed in double.

#include KERNELS

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

template <typename Kernel, typename... Buffers>
void run(Kernel kernel, unsigned grid, unsigned block, Buffers *...buffers) {
  nnc_emulate_launch(kernel, grid, block, reinterpret_cast<char *>(buffers)...);
}

/// The largest difference between `got` and `want`, relative to 1 or to
/// the size of `want`.
double worst(const float *got, const std::vector<double> &want) {
  double w = 0;
  for (size_t i = 0; i < want.size(); ++i)
    w = std::fmax(w, std::fabs(got[i] - want[i]) /
                         std::fmax(1.0, std::fabs(want[i])));
  return w;
}

/// The maximum of a row of `n`, and the sum of exp(x - maximum).
void rowStats(const float *row, int n, double &max, double &sumExp) {
  max = -INFINITY;
  sumExp = 0;
  for (int k = 0; k < n; ++k)
    max = std::fmax(max, row[k]);
  for (int k = 0; k < n; ++k)
    sumExp += std::exp(row[k] - max);
}

void report(const char *name, double error) {
  if (error < 1e-5)
    std::printf("%s: ok\n", name);
  else
    std::printf("%s: off by %g\n", name, error);
}

int main() {
  // r0: softmax of 4 rows of 40, in the arena's first 640 bytes.
  {
    float x[4 * 40];
    for (int i = 0; i < 4 * 40; ++i)
      x[i] = float((i * 37) % 23) / 4.0f - 3.0f;
    std::vector<float> arena(256, NAN);
    run(r0_l0, 1, 64, x, arena.data()); // 2 warps, 4 rows
    std::vector<double> want(4 * 40);
    for (int r = 0; r < 4; ++r) {
      double m, s;
      rowStats(x + r * 40, 40, m, s);
      for (int k = 0; k < 40; ++k)
        want[r * 40 + k] = std::exp(x[r * 40 + k] - m) / s;
    }
    report("r0", worst(arena.data(), want));
  }

  // r1: layer norm of 3 rows of 1100, scaled by w, into y.
  {
    std::vector<float> x(3 * 1100), w(1100), y(3 * 1100, NAN),
        arena(4096, NAN);
    for (int i = 0; i < 3 * 1100; ++i)
      x[i] = float((i * 53) % 101) / 10.0f + float(i / 1100);
    for (int k = 0; k < 1100; ++k)
      w[k] = 0.5f + float(k % 7) / 8.0f;
    run(r1_l0, 2, 64, x.data(), w.data(), y.data(),
        arena.data()); // 2 blocks, 3 rows
    std::vector<double> want(3 * 1100);
    for (int r = 0; r < 3; ++r) {
      double mean = 0, var = 0;
      for (int k = 0; k < 1100; ++k)
        mean += x[r * 1100 + k];
      mean /= 1100;
      for (int k = 0; k < 1100; ++k)
        var += (x[r * 1100 + k] - mean) * (x[r * 1100 + k] - mean);
      double scale = 1 / std::sqrt(var / 1100 + 1e-5);
      for (int k = 0; k < 1100; ++k)
        want[r * 1100 + k] = (x[r * 1100 + k] - mean) * scale * w[k];
    }
    report("r1", worst(y.data(), want));
  }

  // r2: log-softmax of 5 rows of 10, a thread per row.
  {
    float x[5 * 10];
    for (int i = 0; i < 5 * 10; ++i)
      x[i] = float((i * 29) % 17) / 3.0f - 2.0f;
    std::vector<float> arena(128, NAN);
    run(r2_l0, 1, 2, x, arena.data()); // 2 threads, 5 rows
    std::vector<double> want(5 * 10);
    for (int r = 0; r < 5; ++r) {
      double m, s;
      rowStats(x + r * 10, 10, m, s);
      for (int k = 0; k < 10; ++k)
        want[r * 10 + k] = x[r * 10 + k] - m - std::log(s);
    }
    report("r2", worst(arena.data(), want));
  }

  // r3: the row sums, then each row of y filled with the sum of the row
  // opposite (integers: exact).
  {
    float x[4 * 40], y[4 * 40], arena[16];
    for (int i = 0; i < 4 * 40; ++i)
      x[i] = float(i % 40 + 100 * (i / 40));
    run(r3_l0, 1, 64, x, y, arena);
    run(r3_l1, 1, 64, x, y, arena);
    std::printf("r3: %g %g %g %g\n", y[0], y[40], y[80], y[120]);
  }

  // r4: the sums of the arena's rows as they were, each row then
  // overwritten by x's, then the first 80 floats by ones.
  {
    float x[4 * 40];
    std::vector<float> arena(256);
    for (int i = 0; i < 4 * 40; ++i) {
      x[i] = float(-i);
      arena[i] = float(i / 40 + 1);
    }
    run(r4_l0, 1, 64, x, arena.data());
    run(r4_l1, 1, 64, x, arena.data());
    std::printf("r4: sums %g %g %g %g; %g %g %g %g\n", arena[160], arena[161],
                arena[162], arena[163], arena[79], arena[80], arena[81],
                arena[159]);
  }

  // r5: row sums into an argument.
  {
    float x[4 * 40], s[4];
    for (int i = 0; i < 4 * 40; ++i)
      x[i] = 1.0f;
    run(r5_l0, 1, 64, x, s);
    run(r5_l1, 1, 64, x, s);
    std::printf("r5: %g %g %g %g\n", s[0], s[1], s[2], s[3]);
  }
  // r6: rows of 256 centered, a warp per row taking 4 values per lane.
  {
    std::vector<float> x(3 * 256), y(3 * 256, NAN), arena(16, NAN);
    for (int i = 0; i < 3 * 256; ++i)
      x[i] = float((i * 61) % 97) / 8.0f;
    run(r6_l0, 1, 64, x.data(), y.data(), arena.data()); // 2 warps, 3 rows
    std::vector<double> want(3 * 256);
    for (int r = 0; r < 3; ++r) {
      double mean = 0;
      for (int k = 0; k < 256; ++k)
        mean += x[r * 256 + k];
      mean /= 256;
      for (int k = 0; k < 256; ++k)
        want[r * 256 + k] = x[r * 256 + k] - mean;
    }
    report("r6", worst(y.data(), want));
  }

  // r7: sums of 0..4095 and twice that (integers below 2^24 at every step
  // of any order: exact).
  {
    std::vector<float> x(2 * 4096);
    float s[2];
    for (int k = 0; k < 4096; ++k) {
      x[k] = float(k);
      x[4096 + k] = float(2 * k);
    }
    run(r7_l0, 1, 64, x.data(), s);
    run(r7_l1, 1, 64, x.data(), s); // 1 block, 2 rows
    std::printf("r7: %.0f %.0f\n", s[0], s[1]);
  }
  // r8: 1 + the sum of 0..599 (exact).
  {
    float x[600], arena[16];
    for (int i = 0; i < 600; ++i)
      x[i] = float(i);
    run(r8_l0, 1, 64, x, arena);
    std::printf("r8: %.0f\n", arena[0]);
  }
  // r9: bf16 rows of 4 x (0..127) and twice that (exact in bf16 and in
  // the f32 sums).
  {
    std::vector<unsigned short> x(2 * 512);
    for (int k = 0; k < 512; ++k)
      for (int r = 0; r < 2; ++r) {
        float value = float((r + 1) * (k % 128));
        unsigned bits;
        std::memcpy(&bits, &value, sizeof bits);
        x[r * 512 + k] = static_cast<unsigned short>(bits >> 16);
      }
    float s[2];
    run(r9_l0, 1, 64, x.data(), s);
    run(r9_l1, 1, 32, x.data(), s); // 1 warp, 2 rows
    std::printf("r9: %.0f %.0f\n", s[0], s[1]);
  }
  return 0;
}
