/*===- capi_test.c - tests of the nnc C API -----------------------*- C -*-===*\
|*                                                                            *|
|* A plain C99 client of libnnc: imports a small ONNX model from memory,      *|
|* checks its signature and IR, round-trips a tensor through .npy, and        *|
|* checks that every misuse returns the right status code with a message.     *|
|* Prints "N passed, M failed" and exits non-zero on a failure.               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/* mkdtemp and rmdir are POSIX, outside strict C99. */
#define _POSIX_C_SOURCE 200809L

#include "nnc-c/nnc.h"

#include "mlp_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
static void expect_ok(nnc_status_t status, const char *what, int line) {
  if (!status) {
    ++passed;
    return;
  }
  ++failed;
  fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, line, what,
          nnc_status_message(status));
  nnc_status_destroy(status);
}
#define EXPECT_OK(expr) expect_ok((expr), #expr, __LINE__)

/* Takes `status` (owned) and checks its code, and that its message is
 * non-empty and contains `needle`. */
static void expect_error(nnc_status_t status, nnc_status_code_t code,
                         const char *needle, const char *what, int line) {
  if (!status) {
    ++failed;
    fprintf(stderr, "%s:%d: %s succeeded; expected '%s'\n", __FILE__, line,
            what, nnc_status_code_name(code));
    return;
  }
  if (nnc_status_code(status) == code && *nnc_status_message(status) &&
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

/* Accumulates printed IR. */
typedef struct {
  char *text;
  size_t length;
  int calls;
} text_buffer;

static void append_text(const char *data, size_t length, void *user_data) {
  text_buffer *buffer = (text_buffer *)user_data;
  char *grown = (char *)realloc(buffer->text, buffer->length + length + 1);
  if (!grown)
    return;
  memcpy(grown + buffer->length, data, length);
  buffer->length += length;
  grown[buffer->length] = '\0';
  buffer->text = grown;
  ++buffer->calls;
}

/* Shows NNC_RETURN_IF_ERROR in a C helper. */
static nnc_status_t make_two(nnc_tensor_t **a, nnc_tensor_t **b) {
  int64_t dims[1] = {2};
  NNC_RETURN_IF_ERROR(nnc_tensor_create(NNC_DTYPE_F32, 1, dims, a));
  NNC_RETURN_IF_ERROR(nnc_tensor_create(NNC_DTYPE_I64, 99, dims, b));
  return NULL;
}

static void test_basics(void) {
  nnc_context_options_t options;
  nnc_import_options_t import_options;

  CHECK(nnc_api_version() == NNC_API_VERSION);
  CHECK(nnc_status_code(NULL) == NNC_STATUS_OK);
  CHECK(strcmp(nnc_status_message(NULL), "") == 0);
  CHECK(strcmp(nnc_status_code_name(NNC_STATUS_NOT_FOUND), "not found") == 0);
  nnc_status_destroy(NULL);
  CHECK(nnc_dtype_size(NNC_DTYPE_BF16) == 2);
  CHECK(nnc_dtype_size(NNC_DTYPE_UNKNOWN) == 0);
  CHECK(strcmp(nnc_dtype_name(NNC_DTYPE_BOOL), "bool") == 0);

  nnc_context_options_initialize(&options);
  CHECK(options.struct_size == sizeof(options));
  CHECK(options.abi_version == NNC_ABI_VERSION);
  nnc_import_options_initialize(&import_options);
  CHECK(import_options.struct_size == sizeof(import_options));
  CHECK(import_options.function_name == NULL);

  /* The destroy functions accept NULL. */
  nnc_context_destroy(NULL);
  nnc_model_destroy(NULL);
  nnc_tensor_destroy(NULL);
}

static void test_model(void) {
  nnc_context_options_t options;
  nnc_import_options_t import_options;
  nnc_context_t *context = NULL;
  nnc_model_t *model = NULL;
  const nnc_value_info_t *info = NULL;
  text_buffer ir = {NULL, 0, 0};

  nnc_context_options_initialize(&options);
  options.enable_multithreading = 0;
  EXPECT_OK(nnc_context_create(&options, &context));
  if (!context)
    return;

  nnc_import_options_initialize(&import_options);
  import_options.function_name = "forward";
  import_options.freeze_initializers = 1;
  EXPECT_OK(nnc_model_import_onnx_memory(context, mlp_onnx, mlp_onnx_len,
                                         "mlp.onnx", &import_options, &model));
  if (!model) {
    nnc_context_destroy(context);
    return;
  }

  /* x, then the initializers w and b as frozen parameters. */
  CHECK(nnc_model_input_count(model) == 3);
  CHECK(nnc_model_output_count(model) == 1);
  EXPECT_OK(nnc_model_input_info(model, 0, &info));
  if (info) {
    CHECK(info->name && strcmp(info->name, "x") == 0);
    CHECK(info->kind == NNC_VALUE_INPUT);
    CHECK(info->dtype == NNC_DTYPE_F32);
    CHECK(info->rank == 2);
    CHECK(info->dims && info->dims[0] == -1 && info->dims[1] == 4);
  }
  info = NULL;
  EXPECT_OK(nnc_model_input_info(model, 1, &info));
  if (info) {
    CHECK(info->name && strcmp(info->name, "w") == 0);
    CHECK(info->kind == NNC_VALUE_FROZEN);
    CHECK(info->rank == 2 && info->dims[0] == 4 && info->dims[1] == 3);
  }
  info = NULL;
  EXPECT_OK(nnc_model_input_info(model, 2, &info));
  if (info) {
    CHECK(info->name && strcmp(info->name, "b") == 0);
    CHECK(info->rank == 1 && info->dims[0] == 3);
  }
  info = NULL;
  EXPECT_OK(nnc_model_output_info(model, 0, &info));
  if (info) {
    CHECK(info->kind == NNC_VALUE_OUTPUT);
    CHECK(info->dtype == NNC_DTYPE_F32);
    CHECK(info->rank == 2 && info->dims[0] == -1 && info->dims[1] == 3);
  }

  EXPECT_OK(nnc_model_print(model, append_text, &ir));
  CHECK(ir.calls > 0);
  CHECK(ir.text && strstr(ir.text, "nnc.matmul"));
  CHECK(ir.text && strstr(ir.text, "func.func @forward"));
  CHECK(ir.text && strstr(ir.text, "#nnc.param<frozen>"));
  free(ir.text);

  /* Misuse of models. */
  info = NULL;
  EXPECT_ERROR(nnc_model_input_info(model, 3, &info), NNC_STATUS_OUT_OF_RANGE,
               "'index'");
  EXPECT_ERROR(nnc_model_output_info(model, 1, &info), NNC_STATUS_OUT_OF_RANGE,
               "'index'");
  CHECK(info == NULL);
  EXPECT_ERROR(nnc_model_input_info(NULL, 0, &info),
               NNC_STATUS_INVALID_ARGUMENT, "'model'");
  EXPECT_ERROR(nnc_model_output_info(NULL, 0, &info),
               NNC_STATUS_INVALID_ARGUMENT, "'model'");
  EXPECT_ERROR(nnc_model_input_info(model, 0, NULL),
               NNC_STATUS_INVALID_ARGUMENT, "'out_info'");
  EXPECT_ERROR(nnc_model_output_info(model, 0, NULL),
               NNC_STATUS_INVALID_ARGUMENT, "'out_info'");
  EXPECT_ERROR(nnc_model_print(NULL, append_text, &ir),
               NNC_STATUS_INVALID_ARGUMENT, "'model'");
  EXPECT_ERROR(nnc_model_print(model, NULL, NULL), NNC_STATUS_INVALID_ARGUMENT,
               "'callback'");
  CHECK(nnc_model_input_count(NULL) == 0);
  CHECK(nnc_model_output_count(NULL) == 0);

  /* Models keep their context alive: destroying it first is allowed. */
  nnc_context_destroy(context);
  info = NULL;
  EXPECT_OK(nnc_model_input_info(model, 0, &info));
  CHECK(info && info->name && strcmp(info->name, "x") == 0);
  nnc_model_destroy(model);
}

static void test_import_errors(void) {
  nnc_context_options_t options;
  nnc_import_options_t import_options;
  nnc_context_t *context = NULL;
  nnc_model_t *model = NULL;
  static const unsigned char garbage[] = {0xff, 0xff, 0xff, 0xff, 0x0f, 0x42};

  /* Contexts. */
  EXPECT_ERROR(nnc_context_create(NULL, NULL), NNC_STATUS_INVALID_ARGUMENT,
               "'out_context'");
  nnc_context_options_initialize(&options);
  options.struct_size = sizeof(options) + 8;
  EXPECT_ERROR(nnc_context_create(&options, &context),
               NNC_STATUS_INVALID_ARGUMENT, "struct_size");
  CHECK(context == NULL);
  nnc_context_options_initialize(&options);
  options.abi_version = NNC_ABI_VERSION + 1;
  EXPECT_ERROR(nnc_context_create(&options, &context),
               NNC_STATUS_INVALID_ARGUMENT, "abi_version");
  EXPECT_OK(nnc_context_create(NULL, &context));
  if (!context)
    return;

  /* Import arguments. */
  EXPECT_ERROR(nnc_model_import_onnx_memory(NULL, mlp_onnx, mlp_onnx_len, NULL,
                                            NULL, &model),
               NNC_STATUS_INVALID_ARGUMENT, "'context'");
  EXPECT_ERROR(
      nnc_model_import_onnx_memory(context, NULL, 10, NULL, NULL, &model),
      NNC_STATUS_INVALID_ARGUMENT, "'data'");
  EXPECT_ERROR(nnc_model_import_onnx_memory(context, mlp_onnx, mlp_onnx_len,
                                            NULL, NULL, NULL),
               NNC_STATUS_INVALID_ARGUMENT, "'out_model'");
  nnc_import_options_initialize(&import_options);
  import_options.struct_size = 4;
  EXPECT_ERROR(nnc_model_import_onnx_memory(context, mlp_onnx, mlp_onnx_len,
                                            NULL, &import_options, &model),
               NNC_STATUS_INVALID_ARGUMENT, "struct_size");
  EXPECT_ERROR(nnc_model_import_onnx_file(NULL, "x.onnx", NULL, &model),
               NNC_STATUS_INVALID_ARGUMENT, "'context'");
  EXPECT_ERROR(nnc_model_import_onnx_file(context, NULL, NULL, &model),
               NNC_STATUS_INVALID_ARGUMENT, "'path'");
  EXPECT_ERROR(nnc_model_import_onnx_file(context, "x.onnx", NULL, NULL),
               NNC_STATUS_INVALID_ARGUMENT, "'out_model'");
  EXPECT_ERROR(
      nnc_model_import_onnx_file(context, "x.onnx", &import_options, &model),
      NNC_STATUS_INVALID_ARGUMENT, "struct_size");

  /* Bad models. The messages come from MLIR diagnostics, not stderr. */
  EXPECT_ERROR(nnc_model_import_onnx_memory(context, garbage, sizeof(garbage),
                                            "garbage.onnx", NULL, &model),
               NNC_STATUS_INVALID_ARGUMENT, "not a valid ONNX model");
  EXPECT_ERROR(nnc_model_import_onnx_memory(context, garbage, sizeof(garbage),
                                            "garbage.onnx", NULL, &model),
               NNC_STATUS_INVALID_ARGUMENT, "garbage.onnx");
  /* Truncated: the protobuf stops inside the graph. */
  EXPECT_ERROR(
      nnc_model_import_onnx_memory(context, mlp_onnx, 40, NULL, NULL, &model),
      NNC_STATUS_INVALID_ARGUMENT, "<memory>");
  EXPECT_ERROR(nnc_model_import_onnx_file(
                   context, "/nonexistent/nnc-capi/model.onnx", NULL, &model),
               NNC_STATUS_NOT_FOUND, "/nonexistent/nnc-capi/model.onnx");
  CHECK(model == NULL);

  /* The context still works after failures. */
  EXPECT_OK(nnc_model_import_onnx_memory(context, mlp_onnx, mlp_onnx_len, NULL,
                                         NULL, &model));
  nnc_model_destroy(model);
  nnc_context_destroy(context);
}

static void test_model_file(const char *dir) {
  char path[4096];
  FILE *file;
  nnc_context_t *context = NULL;
  nnc_model_t *model = NULL;

  snprintf(path, sizeof(path), "%s/mlp.onnx", dir);
  file = fopen(path, "wb");
  CHECK(file != NULL);
  if (!file)
    return;
  CHECK(fwrite(mlp_onnx, 1, mlp_onnx_len, file) == mlp_onnx_len);
  fclose(file);
  EXPECT_OK(nnc_context_create(NULL, &context));
  EXPECT_OK(nnc_model_import_onnx_file(context, path, NULL, &model));
  CHECK(nnc_model_input_count(model) == 3);
  nnc_model_destroy(model);
  nnc_context_destroy(context);
  remove(path);
}

static void test_tensors(const char *dir) {
  int64_t dims[2] = {2, 3};
  int64_t bad_dims[2] = {2, -3};
  int64_t huge_dims[3] = {INT64_MAX, INT64_MAX, 4};
  int64_t many_dims[NNC_MAX_RANK + 1];
  float values[6] = {1, 2, 3, 4, 5, 6};
  nnc_tensor_t *tensor = NULL;
  nnc_tensor_t *view = NULL;
  nnc_tensor_t *read = NULL;
  nnc_tensor_t *other = NULL;
  char path[4096];
  size_t i;

  EXPECT_OK(nnc_tensor_create(NNC_DTYPE_F32, 2, dims, &tensor));
  if (tensor) {
    const float *data = (const float *)nnc_tensor_data(tensor);
    int zero = 1;
    CHECK(nnc_tensor_dtype(tensor) == NNC_DTYPE_F32);
    CHECK(nnc_tensor_rank(tensor) == 2);
    CHECK(nnc_tensor_dims(tensor)[0] == 2 && nnc_tensor_dims(tensor)[1] == 3);
    CHECK(nnc_tensor_byte_size(tensor) == 24);
    CHECK(data && ((size_t)data % 64) == 0);
    for (i = 0; data && i < 6; ++i)
      zero &= data[i] == 0.0f;
    CHECK(zero);
  }
  nnc_tensor_destroy(tensor);
  tensor = NULL;

  /* A scalar and an empty tensor. */
  EXPECT_OK(nnc_tensor_create(NNC_DTYPE_I64, 0, NULL, &tensor));
  CHECK(nnc_tensor_byte_size(tensor) == 8 && nnc_tensor_dims(tensor) == NULL);
  nnc_tensor_destroy(tensor);
  tensor = NULL;
  dims[0] = 0;
  EXPECT_OK(nnc_tensor_create(NNC_DTYPE_BOOL, 2, dims, &tensor));
  CHECK(nnc_tensor_byte_size(tensor) == 0 && nnc_tensor_data(tensor) != NULL);
  nnc_tensor_destroy(tensor);
  tensor = NULL;
  dims[0] = 2;

  /* A view, written to .npy and read back as an owned tensor. */
  EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, values,
                                   sizeof(values), &view));
  CHECK(nnc_tensor_data(view) == (void *)values);
  snprintf(path, sizeof(path), "%s/t.npy", dir);
  EXPECT_OK(nnc_tensor_write_npy(view, path));
  EXPECT_OK(nnc_tensor_read_npy(path, &read));
  if (read) {
    CHECK(nnc_tensor_dtype(read) == NNC_DTYPE_F32);
    CHECK(nnc_tensor_rank(read) == 2);
    CHECK(nnc_tensor_dims(read)[0] == 2 && nnc_tensor_dims(read)[1] == 3);
    CHECK(nnc_tensor_byte_size(read) == sizeof(values));
    CHECK(memcmp(nnc_tensor_data(read), values, sizeof(values)) == 0);
    /* And an owned tensor round-trips too. */
    ((float *)nnc_tensor_data(read))[5] = 42.0f;
    EXPECT_OK(nnc_tensor_write_npy(read, path));
    EXPECT_OK(nnc_tensor_read_npy(path, &other));
    CHECK(other && ((const float *)nnc_tensor_data(other))[5] == 42.0f);
    nnc_tensor_destroy(other);
  }
  nnc_tensor_destroy(read);
  nnc_tensor_destroy(view);
  CHECK(values[5] == 6.0f);
  remove(path);

  /* Misuse of tensors. */
  EXPECT_ERROR(nnc_tensor_create(NNC_DTYPE_F32, 2, dims, NULL),
               NNC_STATUS_INVALID_ARGUMENT, "'out_tensor'");
  EXPECT_ERROR(nnc_tensor_create(NNC_DTYPE_F32, 2, NULL, &tensor),
               NNC_STATUS_INVALID_ARGUMENT, "'dims'");
  EXPECT_ERROR(nnc_tensor_create(NNC_DTYPE_F32, 2, bad_dims, &tensor),
               NNC_STATUS_INVALID_ARGUMENT, "negative");
  EXPECT_ERROR(nnc_tensor_create(NNC_DTYPE_F32, 3, huge_dims, &tensor),
               NNC_STATUS_OUT_OF_RANGE, "overflows");
  for (i = 0; i < NNC_MAX_RANK + 1; ++i)
    many_dims[i] = 1;
  EXPECT_ERROR(
      nnc_tensor_create(NNC_DTYPE_F32, NNC_MAX_RANK + 1, many_dims, &tensor),
      NNC_STATUS_INVALID_ARGUMENT, "'rank'");
  EXPECT_OK(nnc_tensor_create(NNC_DTYPE_F32, NNC_MAX_RANK, many_dims, &tensor));
  nnc_tensor_destroy(tensor);
  tensor = NULL;
  EXPECT_ERROR(nnc_tensor_create(NNC_DTYPE_UNKNOWN, 2, dims, &tensor),
               NNC_STATUS_INVALID_ARGUMENT, "'dtype'");
  EXPECT_ERROR(nnc_tensor_create((nnc_dtype_t)99, 2, dims, &tensor),
               NNC_STATUS_INVALID_ARGUMENT, "'dtype'");
  EXPECT_ERROR(nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, values,
                                      sizeof(values) - 4, &tensor),
               NNC_STATUS_INVALID_ARGUMENT, "'byte_size'");
  EXPECT_ERROR(nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, NULL,
                                      sizeof(values), &tensor),
               NNC_STATUS_INVALID_ARGUMENT, "'data'");
  EXPECT_ERROR(nnc_tensor_create_view(NNC_DTYPE_F32, 1, dims,
                                      (char *)values + 1, 8, &tensor),
               NNC_STATUS_INVALID_ARGUMENT, "aligned");
  EXPECT_ERROR(nnc_tensor_create_view(NNC_DTYPE_F32, 2, bad_dims, values,
                                      sizeof(values), &tensor),
               NNC_STATUS_INVALID_ARGUMENT, "negative");
  EXPECT_ERROR(nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, values,
                                      sizeof(values), NULL),
               NNC_STATUS_INVALID_ARGUMENT, "'out_tensor'");
  CHECK(tensor == NULL);
  EXPECT_ERROR(nnc_tensor_read_npy(NULL, &tensor), NNC_STATUS_INVALID_ARGUMENT,
               "'path'");
  EXPECT_ERROR(nnc_tensor_read_npy(path, NULL), NNC_STATUS_INVALID_ARGUMENT,
               "'out_tensor'");
  EXPECT_ERROR(nnc_tensor_read_npy("/nonexistent/nnc-capi/t.npy", &tensor),
               NNC_STATUS_NOT_FOUND, "t.npy");
  EXPECT_ERROR(nnc_tensor_write_npy(NULL, path), NNC_STATUS_INVALID_ARGUMENT,
               "'tensor'");
  EXPECT_OK(nnc_tensor_create(NNC_DTYPE_F32, 2, dims, &tensor));
  EXPECT_ERROR(nnc_tensor_write_npy(tensor, NULL), NNC_STATUS_INVALID_ARGUMENT,
               "'path'");
  nnc_tensor_destroy(tensor);
  tensor = NULL;
  CHECK(nnc_tensor_dtype(NULL) == NNC_DTYPE_UNKNOWN);
  CHECK(nnc_tensor_rank(NULL) == 0 && nnc_tensor_dims(NULL) == NULL);
  CHECK(nnc_tensor_data(NULL) == NULL && nnc_tensor_byte_size(NULL) == 0);

  /* NNC_RETURN_IF_ERROR stops at the first failure. */
  tensor = NULL;
  other = NULL;
  EXPECT_ERROR(make_two(&tensor, &other), NNC_STATUS_INVALID_ARGUMENT,
               "'rank'");
  CHECK(tensor != NULL && other == NULL);
  nnc_tensor_destroy(tensor);
}

int main(void) {
  char dir[4096];
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof(dir), "%s/nnc-capi-test-XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_basics();
  test_model();
  test_import_errors();
  test_model_file(dir);
  test_tensors(dir);
  rmdir(dir);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
