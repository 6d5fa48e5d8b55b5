/*===- runtime_only_test.c - a client of libnnc_runtime alone -----*- C -*-===*\
|*                                                                            *|
|* A plain C99 program that includes nnc-c/runtime.h only and links           *|
|* libnnc_runtime alone (no libnnc, no MLIR, no LLVM; CheckLinks.cmake checks *|
|* that): it loads a saved executable, inspects and runs it, and checks its   *|
|* outputs against values it computes itself and against those nnc-run wrote  *|
|* when it compiled the executable; then it checks that missing, truncated    *|
|* and corrupt executables are rejected with a clear status.                  *|
|*                                                                            *|
|*   runtime_only_test prepare DIR  writes DIR/x.npy and DIR/b.npy            *|
|*   runtime_only_test run DIR      runs DIR/add.nncx (nnc-run compiled it    *|
|*                                  from test/Tools/Inputs/add.mlir, y = x+b, *|
|*                                  on those inputs, saving y to expected.npz)
*|
|*                                                                            *|
|* Prints "N passed, M failed" and exits non-zero on a failure.               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "nnc-c/runtime.h"

#ifdef NNC_C_COMPILER_H
#error "the runtime-only test must not see the compiler's API"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed = 0;
static int failed = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) {                                                                \
      ++passed;                                                                \
    } else {                                                                   \
      ++failed;                                                                \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

/* Takes `status` (owned) and checks it is success. */
static int expect_ok(nnc_status_t status, const char *what, int line) {
  if (!status) {
    ++passed;
    return 1;
  }
  ++failed;
  fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, line, what,
          nnc_status_message(status));
  nnc_status_destroy(status);
  return 0;
}
#define EXPECT_OK(expr) expect_ok((expr), #expr, __LINE__)

/* Takes `status` (owned) and checks its code, and that its message
 * contains `needle`. */
static void expect_error(nnc_status_t status, nnc_status_code_t code,
                         const char *needle, const char *what, int line) {
  if (!status) {
    ++failed;
    fprintf(stderr, "%s:%d: %s succeeded; expected '%s'\n", __FILE__, line,
            what, nnc_status_code_name(code));
    return;
  }
  if (nnc_status_code(status) == code &&
      strstr(nnc_status_message(status), needle)) {
    ++passed;
  } else {
    ++failed;
    fprintf(stderr,
            "%s:%d: %s returned '%s' (%s); expected '%s' mentioning '%s'\n",
            __FILE__, line, what, nnc_status_code_name(nnc_status_code(status)),
            nnc_status_message(status), nnc_status_code_name(code), needle);
  }
  nnc_status_destroy(status);
}
#define EXPECT_ERROR(expr, code, needle)                                       \
  expect_error((expr), (code), (needle), #expr, __LINE__)

/* x = [[0, 1, 2], [3, 4, 5]], b = [10, 20, 30]. */
static const int64_t x_dims[2] = {2, 3};
static const int64_t b_dims[1] = {3};

static void path_in(char *out, size_t size, const char *dir, const char *name) {
  snprintf(out, size, "%s/%s", dir, name);
}

static int prepare(const char *dir) {
  char path[4096];
  nnc_tensor_t *x = NULL, *b = NULL;
  int i;
  if (EXPECT_OK(nnc_tensor_create(NNC_DTYPE_F32, 2, x_dims, &x))) {
    float *data = (float *)nnc_tensor_data(x);
    for (i = 0; i < 6; ++i)
      data[i] = (float)i;
    path_in(path, sizeof(path), dir, "x.npy");
    EXPECT_OK(nnc_tensor_write_npy(x, path));
  }
  if (EXPECT_OK(nnc_tensor_create(NNC_DTYPE_F32, 1, b_dims, &b))) {
    float *data = (float *)nnc_tensor_data(b);
    for (i = 0; i < 3; ++i)
      data[i] = 10.0f * (float)(i + 1);
    path_in(path, sizeof(path), dir, "b.npy");
    EXPECT_OK(nnc_tensor_write_npy(b, path));
  }
  nnc_tensor_destroy(x);
  nnc_tensor_destroy(b);
  return 0;
}

/* Reads a whole file into a malloc'ed buffer; NULL when it cannot. */
static char *read_all(const char *path, size_t *out_size) {
  FILE *file = fopen(path, "rb");
  char *data = NULL;
  long size;
  if (!file)
    return NULL;
  if (fseek(file, 0, SEEK_END) == 0 && (size = ftell(file)) > 0 &&
      fseek(file, 0, SEEK_SET) == 0) {
    data = (char *)malloc((size_t)size);
    if (data && fread(data, 1, (size_t)size, file) != (size_t)size) {
      free(data);
      data = NULL;
    }
    *out_size = (size_t)size;
  }
  fclose(file);
  return data;
}

static int write_all(const char *path, const char *data, size_t size) {
  FILE *file = fopen(path, "wb");
  int ok;
  if (!file)
    return 0;
  ok = fwrite(data, 1, size, file) == size;
  return fclose(file) == 0 && ok;
}

/* The executable's signature is what nnc-run compiled: x f32 [2, 3] and
 * b f32 [3] in, one f32 [2, 3] out. */
static void check_signature(const nnc_executable_t *executable) {
  const nnc_value_info_t *info = NULL;
  CHECK(nnc_executable_input_count(executable) == 2);
  CHECK(nnc_executable_output_count(executable) == 1);
  if (EXPECT_OK(nnc_executable_input_info(executable, 0, &info)))
    CHECK(info->name && strcmp(info->name, "x") == 0 &&
          info->kind == NNC_VALUE_INPUT && info->dtype == NNC_DTYPE_F32 &&
          info->rank == 2 && info->dims[0] == 2 && info->dims[1] == 3);
  if (EXPECT_OK(nnc_executable_input_info(executable, 1, &info)))
    CHECK(info->name && strcmp(info->name, "b") == 0 && info->rank == 1 &&
          info->dims[0] == 3);
  if (EXPECT_OK(nnc_executable_output_info(executable, 0, &info)))
    CHECK(info->kind == NNC_VALUE_OUTPUT && info->dtype == NNC_DTYPE_F32 &&
          info->rank == 2 && info->dims[0] == 2 && info->dims[1] == 3);
  EXPECT_ERROR(nnc_executable_input_info(executable, 2, &info),
               NNC_STATUS_OUT_OF_RANGE, "past the 2 values");
}

/* Runs `executable` on x and b and checks y = x + b elementwise against
 * values computed here and against `expected` (nnc-run's output). */
static void check_run(nnc_executable_t *executable, const nnc_tensor_t *x,
                      const nnc_tensor_t *b, const nnc_tensor_t *expected) {
  const nnc_tensor_t *inputs[2];
  nnc_tensor_t *y = NULL;
  inputs[0] = x;
  inputs[1] = b;
  if (!EXPECT_OK(nnc_executable_run(executable, 2, inputs, 1, &y)))
    return;
  CHECK(nnc_tensor_dtype(y) == NNC_DTYPE_F32 && nnc_tensor_rank(y) == 2);
  CHECK(nnc_tensor_byte_size(y) == 6 * sizeof(float));
  if (nnc_tensor_byte_size(y) == 6 * sizeof(float)) {
    const float *xs = (const float *)nnc_tensor_const_data(x);
    const float *bs = (const float *)nnc_tensor_const_data(b);
    const float *ys = (const float *)nnc_tensor_const_data(y);
    int i, j, same = 1;
    for (i = 0; i < 2; ++i)
      for (j = 0; j < 3; ++j)
        same &= ys[i * 3 + j] == xs[i * 3 + j] + bs[j];
    CHECK(same);
    CHECK(ys[0] == 10.0f && ys[5] == 35.0f);
    CHECK(expected && nnc_tensor_byte_size(expected) == 6 * sizeof(float) &&
          memcmp(nnc_tensor_const_data(expected), ys, 6 * sizeof(float)) == 0);
  }
  nnc_tensor_destroy(y);
}

static void check_errors(const char *dir, const char *nncx) {
  char path[4096];
  nnc_executable_t *executable = NULL;
  size_t size = 0;
  char *bytes;

  path_in(path, sizeof(path), dir, "missing.nncx");
  EXPECT_ERROR(nnc_executable_load_file(path, &executable),
               NNC_STATUS_NOT_FOUND, "missing.nncx");
  EXPECT_ERROR(nnc_executable_load_file(NULL, &executable),
               NNC_STATUS_INVALID_ARGUMENT, "'path' is NULL");
  EXPECT_ERROR(nnc_executable_load_memory("not an executable", 17, &executable),
               NNC_STATUS_INVALID_ARGUMENT, "not an nnc executable");
  CHECK(executable == NULL);

  bytes = read_all(nncx, &size);
  CHECK(bytes && size > 64);
  if (!bytes || size <= 64) {
    free(bytes);
    return;
  }
  /* Truncated: half of the file. */
  path_in(path, sizeof(path), dir, "truncated.nncx");
  CHECK(write_all(path, bytes, size / 2));
  EXPECT_ERROR(nnc_executable_load_file(path, &executable),
               NNC_STATUS_DATA_LOSS, "truncated.nncx");
  /* Corrupt: one byte of the body flipped, which the content hash sees. */
  bytes[size - 1] = (char)(bytes[size - 1] ^ 0x5a);
  path_in(path, sizeof(path), dir, "corrupt.nncx");
  CHECK(write_all(path, bytes, size));
  EXPECT_ERROR(nnc_executable_load_file(path, &executable),
               NNC_STATUS_DATA_LOSS, "corrupt.nncx");
  EXPECT_ERROR(nnc_executable_load_memory(bytes, size, &executable),
               NNC_STATUS_DATA_LOSS, "");
  CHECK(executable == NULL);
  free(bytes);
}

static int run(const char *dir) {
  char path[4096], nncx[4096], saved[4096];
  nnc_tensor_t *x = NULL, *b = NULL, *expected = NULL;
  nnc_executable_t *executable = NULL, *copy = NULL;
  nnc_executable_stats_t stats;
  size_t count = 0, i, size = 0, kernels = 0;
  char **names = NULL;
  nnc_tensor_t **tensors = NULL;
  char *bytes;

  path_in(path, sizeof(path), dir, "x.npy");
  EXPECT_OK(nnc_tensor_read_npy(path, &x));
  path_in(path, sizeof(path), dir, "b.npy");
  EXPECT_OK(nnc_tensor_read_npy(path, &b));
  path_in(path, sizeof(path), dir, "expected.npz");
  if (EXPECT_OK(nnc_npz_read(path, &count, &names, &tensors))) {
    CHECK(count == 1);
    for (i = 0; i < count; ++i) {
      if (i == 0)
        expected = tensors[i];
      else
        nnc_tensor_destroy(tensors[i]);
      nnc_string_destroy(names[i]);
    }
    nnc_array_destroy(names);
    nnc_array_destroy(tensors);
  }

  path_in(nncx, sizeof(nncx), dir, "add.nncx");
  nnc_profiler_start();
  if (EXPECT_OK(nnc_executable_load_file(nncx, &executable))) {
    check_signature(executable);
    check_run(executable, x, b, expected);
    memset(&stats, 0, sizeof(stats));
    stats.struct_size = sizeof(stats);
    if (EXPECT_OK(nnc_executable_stats(executable, &stats)))
      CHECK(stats.kernel_count >= 1 && stats.code_bytes > 0 &&
            stats.compile_seconds == 0.0 && !stats.from_cache);
    /* Saved and loaded again, from memory this time. */
    path_in(saved, sizeof(saved), dir, "saved.nncx");
    EXPECT_OK(nnc_executable_save(executable, saved));
    bytes = read_all(saved, &size);
    CHECK(bytes != NULL);
    if (bytes && EXPECT_OK(nnc_executable_load_memory(bytes, size, &copy))) {
      check_signature(copy);
      check_run(copy, x, b, expected);
    }
    free(bytes);
  }
  nnc_profiler_stop();
  /* The runtime's profiler saw the kernels of both runs. */
  for (i = 0; i < nnc_profiler_event_count(); ++i) {
    nnc_profile_event_t event;
    if (EXPECT_OK(nnc_profiler_event(i, &event)) &&
        strcmp(event.category, "kernel") == 0)
      ++kernels;
  }
  CHECK(kernels >= 2);

  /* A run with the wrong inputs is rejected, naming what is wrong. */
  if (executable) {
    const nnc_tensor_t *swapped[2];
    nnc_tensor_t *y = NULL;
    swapped[0] = b;
    swapped[1] = x;
    EXPECT_ERROR(nnc_executable_run(executable, 2, swapped, 1, &y),
                 NNC_STATUS_INVALID_ARGUMENT, "input");
    EXPECT_ERROR(nnc_executable_run(executable, 1, swapped, 1, &y),
                 NNC_STATUS_INVALID_ARGUMENT, "takes 2 inputs, got 1");
    CHECK(y == NULL);
  }
  check_errors(dir, nncx);

  nnc_executable_destroy(copy);
  nnc_executable_destroy(executable);
  nnc_tensor_destroy(expected);
  nnc_tensor_destroy(x);
  nnc_tensor_destroy(b);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "prepare") && strcmp(argv[1], "run"))) {
    fprintf(stderr, "usage: %s prepare|run DIR\n", argv[0]);
    return 2;
  }
  CHECK(nnc_api_version() == NNC_API_VERSION);
  if (strcmp(argv[1], "prepare") == 0)
    prepare(argv[2]);
  else
    run(argv[2]);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
