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
|*                                  on those inputs, saving y to expected.npz)*|
|*   runtime_only_test train DIR    trains from DIR/trainer.nncx (nnc-run     *|
|*                                  saved it after 2 steps on DIR/data.npz)   *|
|*                                  for 2 more steps and compares with the    *|
|*                                  parameters nnc-run reached after 4 steps  *|
|*                                  (DIR/params4.npz) and its checkpoint      *|
|*                                  after 2 (DIR/ckpt2.npz), bit for bit      *|
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

/* Frees what nnc_npz_read returned. */
static void free_npz(size_t count, char **names, nnc_tensor_t **tensors) {
  size_t i;
  for (i = 0; i < count; ++i) {
    nnc_string_destroy(names[i]);
    nnc_tensor_destroy(tensors[i]);
  }
  nnc_array_destroy(names);
  nnc_array_destroy(tensors);
}

/* The tensor named `name` of an .npz read, or NULL. */
static nnc_tensor_t *npz_find(size_t count, char **names,
                              nnc_tensor_t **tensors, const char *name) {
  size_t i;
  for (i = 0; i < count; ++i)
    if (strcmp(names[i], name) == 0)
      return tensors[i];
  return NULL;
}

/* Views of rows [first, first + rows) of each of `count` tensors. */
static int slice_rows(nnc_tensor_t *const *full, size_t count, int64_t first,
                      int64_t rows, nnc_tensor_t **out) {
  size_t i, d;
  for (i = 0; i < count; ++i) {
    const int64_t *dims = nnc_tensor_dims(full[i]);
    size_t rank = nnc_tensor_rank(full[i]);
    int64_t sliced[8];
    size_t row_bytes = nnc_dtype_size(nnc_tensor_dtype(full[i]));
    out[i] = NULL;
    if (rank == 0 || rank > 8 || dims[0] < first + rows)
      return 0;
    for (d = 1; d < rank; ++d)
      row_bytes *= (size_t)dims[d];
    memcpy(sliced, dims, rank * sizeof(int64_t));
    sliced[0] = rows;
    if (!EXPECT_OK(nnc_tensor_create_view(
            nnc_tensor_dtype(full[i]), rank, sliced,
            (char *)nnc_tensor_data(full[i]) + (size_t)first * row_bytes,
            (size_t)rows * row_bytes, &out[i])))
      return 0;
  }
  return 1;
}

/* Whether every parameter of `trainer` equals, byte for byte, the tensor of
 * its name in `path` (an .npz of parameters or a checkpoint). */
static int params_equal(nnc_trainer_t *trainer, const char *path) {
  size_t count = 0, i, n = nnc_trainer_parameter_count(trainer);
  char **names = NULL;
  nnc_tensor_t **tensors = NULL;
  int equal = 1;
  if (!EXPECT_OK(nnc_npz_read(path, &count, &names, &tensors)))
    return 0;
  CHECK(n > 0);
  for (i = 0; i < n; ++i) {
    const nnc_value_info_t *info = NULL;
    const nnc_tensor_t *value = NULL;
    nnc_tensor_t *want;
    if (!EXPECT_OK(nnc_trainer_parameter(trainer, i, &info, &value))) {
      equal = 0;
      continue;
    }
    want = npz_find(count, names, tensors, info->name);
    if (!want || nnc_tensor_byte_size(want) != nnc_tensor_byte_size(value) ||
        memcmp(nnc_tensor_const_data(want), nnc_tensor_const_data(value),
               nnc_tensor_byte_size(value)) != 0) {
      fprintf(stderr, "parameter '%s' differs from %s\n", info->name, path);
      equal = 0;
    }
  }
  free_npz(count, names, tensors);
  return equal;
}

static int train(const char *dir) {
  char path[4096], trainer_path[4096], saved[4096];
  nnc_trainer_t *trainer = NULL, *again = NULL;
  size_t count = 0, i, num_data, size = 0;
  char **names = NULL;
  nnc_tensor_t **tensors = NULL;
  nnc_tensor_t *full[8], *batch[8], *small[8];
  const int64_t batch_size = 8;
  nnc_step_info_t info;
  nnc_executable_t *executable = NULL;
  char *bytes;
  int step;

  path_in(trainer_path, sizeof(trainer_path), dir, "trainer.nncx");
  if (!EXPECT_OK(nnc_trainer_load_file(trainer_path, &trainer)))
    return 0;
  {
    nnc_trainer_info_t about;
    about.struct_size = sizeof(about);
    if (EXPECT_OK(nnc_trainer_info(trainer, &about)))
      CHECK(about.class_loss && about.accumulate == 1 &&
            about.loss_output == 0 && about.seed == 0);
    about.struct_size = 1;
    EXPECT_ERROR(nnc_trainer_info(trainer, &about), NNC_STATUS_INVALID_ARGUMENT,
                 "struct_size");
  }
  /* It resumes where nnc-run stopped: 2 steps, the checkpoint's values. */
  CHECK(nnc_trainer_step_count(trainer) == 2);
  path_in(path, sizeof(path), dir, "ckpt2.npz");
  CHECK(params_equal(trainer, path));

  /* The data in nnc-run's order (--no-shuffle): batches 3 and 4 are rows
   * 16 to 31. */
  num_data = nnc_trainer_data_count(trainer);
  CHECK(num_data >= 2 && num_data <= 8);
  path_in(path, sizeof(path), dir, "data.npz");
  if (!EXPECT_OK(nnc_npz_read(path, &count, &names, &tensors)) ||
      num_data < 2 || num_data > 8) {
    nnc_trainer_destroy(trainer);
    return 0;
  }
  for (i = 0; i < num_data; ++i) {
    const nnc_value_info_t *data_info = NULL;
    full[i] = NULL;
    if (EXPECT_OK(nnc_trainer_data_info(trainer, i, &data_info)))
      full[i] = npz_find(count, names, tensors,
                         i + 1 == num_data ? "labels" : data_info->name);
    CHECK(full[i] != NULL);
    if (!full[i]) {
      free_npz(count, names, tensors);
      nnc_trainer_destroy(trainer);
      return 0;
    }
  }
  for (step = 0; step < 2; ++step) {
    if (!slice_rows(full, num_data, (2 + step) * batch_size, batch_size, batch))
      break;
    info.struct_size = sizeof(info);
    if (EXPECT_OK(nnc_trainer_step(
            trainer, num_data, (const nnc_tensor_t *const *)batch, &info))) {
      CHECK(info.applied && !info.skipped && !info.compiled);
      CHECK(info.step == 3 + step);
      CHECK(info.loss > 0 && info.loss < 100);
    }
    for (i = 0; i < num_data; ++i)
      nnc_tensor_destroy(batch[i]);
  }
  path_in(path, sizeof(path), dir, "params4.npz");
  CHECK(params_equal(trainer, path));
  {
    nnc_executable_stats_t stats;
    stats.struct_size = sizeof(stats);
    if (EXPECT_OK(nnc_trainer_step_stats(trainer, &stats)))
      CHECK(stats.kernel_count > 0 && stats.compile_seconds == 0);
  }

  /* Evaluation runs the program nnc-run compiled for --eval-batch-size. */
  CHECK(nnc_trainer_output_count(trainer) == 1);
  if (slice_rows(full, num_data - 1, 0, batch_size, batch)) {
    nnc_tensor_t *first = NULL, *second = NULL;
    if (EXPECT_OK(nnc_trainer_evaluate(trainer, num_data - 1,
                                       (const nnc_tensor_t *const *)batch, 1,
                                       &first)) &&
        EXPECT_OK(nnc_trainer_evaluate(trainer, num_data - 1,
                                       (const nnc_tensor_t *const *)batch, 1,
                                       &second))) {
      CHECK(nnc_tensor_rank(first) >= 1 &&
            nnc_tensor_dims(first)[0] == batch_size);
      CHECK(memcmp(nnc_tensor_const_data(first), nnc_tensor_const_data(second),
                   nnc_tensor_byte_size(first)) == 0);
    }
    nnc_tensor_destroy(first);
    nnc_tensor_destroy(second);
    for (i = 0; i + 1 < num_data; ++i)
      nnc_tensor_destroy(batch[i]);
  }

  /* A batch size it holds no program for: NOT_FOUND naming what it has. */
  if (slice_rows(full, num_data, 0, 3, small)) {
    EXPECT_ERROR(nnc_trainer_step(trainer, num_data,
                                  (const nnc_tensor_t *const *)small, NULL),
                 NNC_STATUS_NOT_FOUND, "no step program for data of shapes");
    EXPECT_ERROR(nnc_trainer_prepare(trainer, num_data,
                                     (const nnc_tensor_t *const *)small, 0,
                                     NULL),
                 NNC_STATUS_NOT_FOUND, "[8");
    for (i = 0; i < num_data; ++i)
      nnc_tensor_destroy(small[i]);
  }
  CHECK(nnc_trainer_step_count(trainer) == 4);

  /* Saved again and loaded, it is the same trainer; a checkpoint round
   * trip restores it; both continue alike. */
  path_in(saved, sizeof(saved), dir, "trainer4.nncx");
  EXPECT_OK(nnc_trainer_save(trainer, saved));
  path_in(path, sizeof(path), dir, "ckpt4.npz");
  EXPECT_OK(nnc_trainer_save_checkpoint(trainer, path, 0, NULL, NULL));
  if (EXPECT_OK(nnc_trainer_load_file(saved, &again))) {
    CHECK(nnc_trainer_step_count(again) == 4);
    path_in(path, sizeof(path), dir, "params4.npz");
    CHECK(params_equal(again, path));
    if (slice_rows(full, num_data, 4 * batch_size, batch_size, batch)) {
      EXPECT_OK(nnc_trainer_step(trainer, num_data,
                                 (const nnc_tensor_t *const *)batch, NULL));
      EXPECT_OK(nnc_trainer_step(again, num_data,
                                 (const nnc_tensor_t *const *)batch, NULL));
      {
        /* Write `again`'s parameters through a checkpoint and compare. */
        char ckpt5[4096];
        path_in(ckpt5, sizeof(ckpt5), dir, "ckpt5.npz");
        EXPECT_OK(nnc_trainer_save_checkpoint(again, ckpt5, 0, NULL, NULL));
        CHECK(params_equal(trainer, ckpt5));
      }
      path_in(path, sizeof(path), dir, "ckpt4.npz");
      EXPECT_OK(nnc_trainer_load_checkpoint(trainer, path));
      CHECK(nnc_trainer_step_count(trainer) == 4);
      path_in(path, sizeof(path), dir, "params4.npz");
      CHECK(params_equal(trainer, path));
      for (i = 0; i < num_data; ++i)
        nnc_tensor_destroy(batch[i]);
    }
  }
  nnc_trainer_destroy(again);
  again = NULL;

  /* What is not a saved trainer, or is a damaged one, is refused. */
  path_in(path, sizeof(path), dir, "add.nncx");
  EXPECT_ERROR(nnc_trainer_load_file(path, &again), NNC_STATUS_INVALID_ARGUMENT,
               "not a saved trainer");
  CHECK(again == NULL);
  EXPECT_ERROR(nnc_executable_load_file(trainer_path, &executable),
               NNC_STATUS_INVALID_ARGUMENT, "is a saved trainer");
  CHECK(executable == NULL);
  bytes = read_all(trainer_path, &size);
  CHECK(bytes != NULL && size > 1000);
  if (bytes && size > 1000) {
    path_in(path, sizeof(path), dir, "truncated.nncx");
    CHECK(write_all(path, bytes, size / 2));
    EXPECT_ERROR(nnc_trainer_load_file(path, &again), NNC_STATUS_DATA_LOSS,
                 "truncated.nncx");
    bytes[size - 100] ^= 0x5a;
    EXPECT_ERROR(nnc_trainer_load_memory(bytes, size, &again),
                 NNC_STATUS_DATA_LOSS, "<memory>");
    CHECK(again == NULL);
  }
  free(bytes);
  path_in(path, sizeof(path), dir, "missing.nncx");
  EXPECT_ERROR(nnc_trainer_load_file(path, &again), NNC_STATUS_NOT_FOUND,
               "missing.nncx");

  free_npz(count, names, tensors);
  nnc_trainer_destroy(trainer);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "prepare") && strcmp(argv[1], "run") &&
                    strcmp(argv[1], "train"))) {
    fprintf(stderr, "usage: %s prepare|run|train DIR\n", argv[0]);
    return 2;
  }
  CHECK(nnc_api_version() == NNC_API_VERSION);
  if (strcmp(argv[1], "prepare") == 0)
    prepare(argv[2]);
  else if (strcmp(argv[1], "run") == 0)
    run(argv[2]);
  else
    train(argv[2]);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
