//===- TestKernels.cpp - kernels for the Program tests --------------------===//
//
// A shared object with the kernel ABI of compiled code (`void k(void **)`),
// which ProgramTest.cpp puts in an executable's code section. The plan they
// serve: x f32[4] (input), arena u8[256] (scratch), y f32[4] and where
// i64[1] (outputs): y = 2 * x + 1 through the arena, `where` the arena's
// address.
//
//===----------------------------------------------------------------------===//

#include <cstdint>

extern "C" {

// x, arena, where: arena[0..4) = 2 * x; where = the arena's address.
void nnc_test_stage(void **args) {
  const float *x = static_cast<const float *>(args[0]);
  float *staged = static_cast<float *>(args[1]);
  for (int i = 0; i < 4; ++i)
    staged[i] = 2.0f * x[i];
  *static_cast<int64_t *>(args[2]) =
      static_cast<int64_t>(reinterpret_cast<uintptr_t>(args[1]));
}

// arena, y: y = arena[0..4) + 1.
void nnc_test_finish(void **args) {
  const float *staged = static_cast<const float *>(args[0]);
  float *y = static_cast<float *>(args[1]);
  for (int i = 0; i < 4; ++i)
    y[i] = staged[i] + 1.0f;
}

} // extern "C"
