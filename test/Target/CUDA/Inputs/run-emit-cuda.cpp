// Runs the kernels of emit-cuda.mlir as emitted (KERNELS names the source)
// on the host through nnc_cuda_emulation.h, on a grid of 2 blocks of 4
// threads (so that the grid-stride loops wrap), and prints the results.

#include KERNELS

#include <cstdio>
#include <vector>

template <typename Kernel, typename... Buffers>
void run(Kernel kernel, Buffers *...buffers) {
  nnc_emulate_launch(kernel, 2, 4, reinterpret_cast<char *>(buffers)...);
}

int main() {
  float x0[6] = {0, 1, 2, -1, 0, -0.0f};
  std::vector<unsigned char> arena(256, 0xab);
  run(k0_l0, x0, arena.data());
  float y0[6];
  std::memcpy(y0, arena.data() + 64, sizeof y0);
  std::printf("k0:");
  for (float v : y0)
    std::printf(" %g", v);
  bool untouched = true;
  for (size_t i = 0; i < arena.size(); ++i)
    if ((i < 64 || i >= 64 + sizeof y0) && arena[i] != 0xab)
      untouched = false;
  std::printf("\nk0 arena untouched: %s\n", untouched ? "yes" : "no");

  float x1[6] = {1, 2, 3, -0.5f, -0.5f, -0.5f}, s1[2] = {7, 7};
  run(k1_l0, x1, s1);
  run(k1_l1, x1, s1);
  std::printf("k1: %g %g\n", s1[0], s1[1]);

  // bf16 0, 1, -2, NaN.
  __nv_bfloat16 x2[4] = {{0x0000}, {0x3f80}, {0xc000}, {0x7fc0}};
  __half y2[4];
  run(k2_l0, x2, y2);
  std::printf("k2:");
  for (__half h : y2)
    std::printf(" %g", __half2float(h));
  std::printf("\n");

  float x3[6] = {1, 3, NAN, -2, -4, -0.5f}, r3[6], l3[6];
  run(k3_l0, x3, r3, l3);
  std::printf("k3 relu:");
  for (float v : r3)
    std::printf(" %g", v);
  std::printf("\nk3 leaky:");
  for (float v : l3)
    std::printf(" %g", v);
  std::printf("\n");

  long long x4[4] = {7, -7, 2, -9};
  float y4[4];
  run(k4_l0, x4, y4);
  std::printf("k4:");
  for (float v : y4)
    std::printf(" %g", v);
  std::printf("\n");

  float y5[4];
  std::vector<unsigned char> arena5(64, 0);
  float v5 = 1.5f;
  std::memcpy(arena5.data(), &v5, 4);
  run(k5_l0, y5, arena5.data());
  run(k5_l1, y5, arena5.data());
  float w5;
  std::memcpy(&w5, arena5.data() + 16, 4);
  std::printf("k5: %g", w5);
  for (float v : y5)
    std::printf(" %g", v);
  std::printf("\n");
  return 0;
}
