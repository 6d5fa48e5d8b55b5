/*===- runtime_consumer.c - runtime.h from an install tree --------*- C -*-===*\
|*                                                                            *|
|* Loads the executable compiler_consumer saved (argv[1]), runs it on inputs  *|
|* it writes as .npy files into argv[2] (for the installed nnc-run), and      *|
|* checks y = x + b. Exits non-zero, saying why, on a failure.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "nnc-c/runtime.h"

#include <stdio.h>
#include <string.h>

static int fail(nnc_status_t status) {
  fprintf(stderr, "runtime_consumer: %s\n", nnc_status_message(status));
  nnc_status_destroy(status);
  return 1;
}

int main(int argc, char **argv) {
  nnc_executable_t *executable = NULL;
  nnc_status_t status;
  const int64_t x_dims[2] = {2, 3}, b_dims[1] = {3};
  nnc_tensor_t *x = NULL, *b = NULL, *y = NULL;
  const nnc_tensor_t *inputs[2];
  char path[4096];
  float *xs, *bs;
  const float *ys;
  int i;

  if (argc != 3) {
    fprintf(stderr, "usage: runtime_consumer FILE.nncx DIR\n");
    return 2;
  }
  if ((status = nnc_executable_load_file(argv[1], &executable)))
    return fail(status);
  if ((status = nnc_tensor_create(NNC_DTYPE_F32, 2, x_dims, &x)) ||
      (status = nnc_tensor_create(NNC_DTYPE_F32, 1, b_dims, &b)))
    return fail(status);
  xs = (float *)nnc_tensor_data(x);
  bs = (float *)nnc_tensor_data(b);
  for (i = 0; i < 6; ++i)
    xs[i] = (float)i;
  for (i = 0; i < 3; ++i)
    bs[i] = 10.0f * (float)(i + 1);
  inputs[0] = x;
  inputs[1] = b;
  if ((status = nnc_executable_run(executable, 2, inputs, 1, &y)))
    return fail(status);
  ys = (const float *)nnc_tensor_const_data(y);
  for (i = 0; i < 6; ++i)
    if (ys[i] != xs[i] + bs[i % 3]) {
      fprintf(stderr, "runtime_consumer: y[%d] is %g\n", i, ys[i]);
      return 1;
    }
  snprintf(path, sizeof(path), "%s/x.npy", argv[2]);
  if ((status = nnc_tensor_write_npy(x, path)))
    return fail(status);
  snprintf(path, sizeof(path), "%s/b.npy", argv[2]);
  if ((status = nnc_tensor_write_npy(b, path)))
    return fail(status);
  nnc_tensor_destroy(y);
  nnc_tensor_destroy(x);
  nnc_tensor_destroy(b);
  nnc_executable_destroy(executable);
  printf("runtime_consumer: ok\n");
  return 0;
}
