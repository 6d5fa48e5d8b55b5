/*===- capi_test.c - tests of the nnc C API -----------------------*- C -*-===*\
|*                                                                            *|
|* A plain C99 client of libnnc: imports a small ONNX model from memory,      *|
|* checks its signature and IR, round-trips tensors through .npy, .npz and    *|
|* ONNX TensorProtos, traces and parses models, and checks that every misuse  *|
|* returns the right status code with a message.                              *|
|* Prints "N passed, M failed" and exits non-zero on a failure.               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/* mkdtemp and rmdir are POSIX, outside strict C99. */
#define _POSIX_C_SOURCE 200809L

#include "nnc-c/nnc.h"

#include "mlp_model.h"

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
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

/* Tuning databases merged from one file into another (nnc-run tuning is
 * the full test; this checks the C API's contract). */
static void test_tuning_database(const char *dir) {
  char from[4200], into[4200];
  char *warnings = NULL, *path = NULL;
  size_t merged = 7;
  FILE *file;

  snprintf(from, sizeof(from), "%s/tuning-from.nnctune", dir);
  snprintf(into, sizeof(into), "%s/tuning/sub/into.nnctune", dir);
  EXPECT_ERROR(nnc_tuning_database_merge(NULL, into, NULL, NULL),
               NNC_STATUS_INVALID_ARGUMENT, "from");
  EXPECT_ERROR(nnc_tuning_database_merge(from, NULL, NULL, NULL),
               NNC_STATUS_INVALID_ARGUMENT, "into");
  EXPECT_ERROR(nnc_tuning_database_merge(from, into, &merged, &warnings),
               NNC_STATUS_NOT_FOUND, "no tuning database at");
  CHECK(merged == 0 && warnings == NULL);
  /* A database of no entries, merged into a folder that does not exist. */
  file = fopen(from, "w");
  CHECK(file != NULL);
  if (!file)
    return;
  fputs("nnc-tuning-database 1\n", file);
  fclose(file);
  EXPECT_OK(nnc_tuning_database_merge(from, into, &merged, &warnings));
  CHECK(merged == 0 && warnings && strcmp(warnings, "") == 0);
  nnc_string_destroy(warnings);
  file = fopen(into, "r");
  CHECK(file != NULL);
  if (file)
    fclose(file);
  /* A file that is not one. */
  file = fopen(from, "w");
  if (file) {
    fputs("key\tvalue\n", file);
    fclose(file);
  }
  EXPECT_ERROR(nnc_tuning_database_merge(from, into, NULL, NULL),
               NNC_STATUS_INVALID_ARGUMENT, "is not a tuning database");
  EXPECT_ERROR(nnc_tuning_database_default_path(NULL),
               NNC_STATUS_INVALID_ARGUMENT, "out_path");
  if (getenv("HOME") || getenv("XDG_CACHE_HOME") || getenv("NNC_CACHE_DIR")) {
    EXPECT_OK(nnc_tuning_database_default_path(&path));
    CHECK(path && strstr(path, "/tuning.nnctune") != NULL);
    nnc_string_destroy(path);
  }
  remove(from);
  remove(into);
  snprintf(into, sizeof(into), "%s/tuning/sub/into.nnctune.lock", dir);
  remove(into);
  snprintf(into, sizeof(into), "%s/tuning/sub", dir);
  remove(into);
  snprintf(into, sizeof(into), "%s/tuning", dir);
  remove(into);
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
  CHECK(import_options.integer_inputs_directory == NULL);

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

/* A model whose Reshape target is its integer input 1 ("shape"): compiled
 * for the inputs it runs with, the executable is specialized on that value
 * and refuses another; a session compiles one executable per value and
 * keeps at most its capacity. */
static void test_shape_input(nnc_context_t *context, const char *path,
                             const char *data_dir) {
  char file[4096];
  nnc_model_t *model = NULL;
  nnc_tensor_t *inputs[2] = {NULL, NULL};
  nnc_tensor_t *expected = NULL;
  nnc_tensor_t *other_shape = NULL;
  nnc_tensor_t *output = NULL;
  nnc_executable_t *executable = NULL;
  nnc_session_t *session = NULL;
  const nnc_value_info_t *info = NULL;
  const nnc_tensor_t *run_inputs[2];
  int64_t dims0[3] = {2, 3, 4};
  int64_t dims1[1] = {3};
  nnc_shape_t shapes[2] = {{3, dims0}, {1, dims1}};
  int64_t other_values[3] = {3, 4, 2};
  nnc_compile_options_t options;
  size_t i;

  EXPECT_OK(nnc_model_import_onnx_file(context, path, NULL, &model));
  CHECK(nnc_model_input_count(model) == 2);
  for (i = 0; i < 2; ++i) {
    snprintf(file, sizeof(file), "%s/input_%zu.pb", data_dir, i);
    EXPECT_OK(nnc_tensor_read_onnx(file, &inputs[i], NULL));
    run_inputs[i] = inputs[i];
  }
  snprintf(file, sizeof(file), "%s/output_0.pb", data_dir);
  EXPECT_OK(nnc_tensor_read_onnx(file, &expected, NULL));
  nnc_compile_options_initialize(&options);
  options.cache_dir = "";
  /* Compiled for the shapes alone, the target shape is not known. */
  EXPECT_ERROR(nnc_model_compile(model, &options, 2, shapes, &executable),
               NNC_STATUS_UNIMPLEMENTED,
               "the value of the shape input 'shape'");
  EXPECT_OK(
      nnc_model_compile_inputs(model, &options, 2, run_inputs, &executable));
  /* The signature lists the values the executable is specialized on. */
  EXPECT_OK(nnc_executable_input_info(executable, 1, &info));
  CHECK(info && info->specialized_count == 3 && info->specialized_values &&
        info->specialized_values[0] == 4 && info->specialized_values[1] == 2 &&
        info->specialized_values[2] == 3);
  EXPECT_OK(nnc_executable_input_info(executable, 0, &info));
  CHECK(info && info->specialized_count == 0 &&
        info->specialized_values == NULL);
  EXPECT_OK(nnc_executable_run(executable, 2, run_inputs, 1, &output));
  CHECK(nnc_tensor_byte_size(output) == nnc_tensor_byte_size(expected) &&
        memcmp(nnc_tensor_data(output), nnc_tensor_data(expected),
               nnc_tensor_byte_size(expected)) == 0);
  nnc_tensor_destroy(output);
  output = NULL;
  /* Another value of the shape input: refused, both values named. */
  EXPECT_OK(nnc_tensor_create(NNC_DTYPE_I64, 1, dims1, &other_shape));
  memcpy(nnc_tensor_data(other_shape), other_values, sizeof(other_values));
  run_inputs[1] = other_shape;
  EXPECT_ERROR(nnc_executable_run(executable, 2, run_inputs, 1, &output),
               NNC_STATUS_INVALID_ARGUMENT,
               "'shape' holds [3, 4, 2], but this executable was specialized "
               "on its value [4, 2, 3]");
  CHECK(output == NULL);
  nnc_executable_destroy(executable);
  executable = NULL;
  /* Mixed precision: the value is checked, overrides need a low type and
   * name known ops. A reshape has no f32 math to narrow: same result. */
  options.precision = (nnc_precision_t)7;
  EXPECT_ERROR(
      nnc_model_compile_inputs(model, &options, 2, run_inputs, &executable),
      NNC_STATUS_INVALID_ARGUMENT, "precision is 7");
  options.precision = NNC_PRECISION_F32;
  options.amp_f32_ops = "nnc.add";
  EXPECT_ERROR(
      nnc_model_compile_inputs(model, &options, 2, run_inputs, &executable),
      NNC_STATUS_INVALID_ARGUMENT, "need precision");
  options.precision = NNC_PRECISION_BF16;
  options.amp_f32_ops = "nnc.add, nnc.bogus";
  EXPECT_ERROR(
      nnc_model_compile_inputs(model, &options, 2, run_inputs, &executable),
      NNC_STATUS_INVALID_ARGUMENT, "'nnc.bogus' in f32-ops is not a known op");
  options.amp_f32_ops = NULL;
  run_inputs[1] = inputs[1];
  EXPECT_OK(
      nnc_model_compile_inputs(model, &options, 2, run_inputs, &executable));
  EXPECT_OK(nnc_executable_run(executable, 2, run_inputs, 1, &output));
  CHECK(nnc_tensor_byte_size(output) == nnc_tensor_byte_size(expected) &&
        memcmp(nnc_tensor_data(output), nnc_tensor_data(expected),
               nnc_tensor_byte_size(expected)) == 0);
  nnc_tensor_destroy(output);
  output = NULL;
  nnc_executable_destroy(executable);
  options.precision = NNC_PRECISION_F32;
  run_inputs[1] = other_shape;
  /* A session: one specialization per value, the least recent evicted. */
  EXPECT_OK(nnc_session_create(model, &options, &session));
  CHECK(nnc_session_last_run_source(session) == -1);
  EXPECT_OK(nnc_session_run(session, 2, run_inputs, 1, &output, NULL));
  CHECK(nnc_tensor_dims(output)[0] == 3 && nnc_tensor_dims(output)[1] == 4 &&
        nnc_tensor_dims(output)[2] == 2);
  nnc_tensor_destroy(output);
  CHECK(nnc_session_last_run_source(session) == 1); /* compiled */
  EXPECT_OK(nnc_session_run(session, 2, run_inputs, 1, &output, NULL));
  nnc_tensor_destroy(output);
  CHECK(nnc_session_last_run_source(session) == 0); /* in memory */
  run_inputs[1] = inputs[1];
  EXPECT_OK(nnc_session_run(session, 2, run_inputs, 1, &output, NULL));
  CHECK(nnc_tensor_dims(output)[0] == 4 && nnc_tensor_dims(output)[1] == 2 &&
        nnc_tensor_dims(output)[2] == 3);
  nnc_tensor_destroy(output);
  CHECK(nnc_session_specialization_count(session) == 2);
  EXPECT_OK(nnc_session_set_capacity(session, 1));
  CHECK(nnc_session_specialization_count(session) == 1);
  run_inputs[1] = other_shape;
  EXPECT_OK(nnc_session_run(session, 2, run_inputs, 1, &output, NULL));
  nnc_tensor_destroy(output);
  CHECK(nnc_session_specialization_count(session) == 1);
  EXPECT_ERROR(nnc_session_set_capacity(NULL, 1), NNC_STATUS_INVALID_ARGUMENT,
               "'session'");
  nnc_session_destroy(session);
  nnc_tensor_destroy(other_shape);
  nnc_tensor_destroy(expected);
  for (i = 0; i < 2; ++i)
    nnc_tensor_destroy(inputs[i]);
  nnc_model_destroy(model);
}

/* integer_inputs_directory, on the ONNX test data when it is installed
 * (Debian's libonnx-testdata, which utils/setup.sh installs). */
static void test_integer_inputs(void) {
  static const char test_dir[] = "/usr/share/libonnx-testdata/data/node/"
                                 "test_reshape_reordered_all_dims";
  char path[4096];
  char data_dir[4096];
  FILE *probe;
  nnc_context_t *context = NULL;
  nnc_model_t *model = NULL;
  nnc_import_options_t options;
  const nnc_value_info_t *info = NULL;

  snprintf(path, sizeof(path), "%s/model.onnx", test_dir);
  snprintf(data_dir, sizeof(data_dir), "%s/test_data_set_0", test_dir);
  probe = fopen(path, "rb");
  if (!probe) {
    printf("note: %s is missing; integer_inputs_directory untested\n", path);
    return;
  }
  fclose(probe);
  EXPECT_OK(nnc_context_create(NULL, &context));
  /* Reshape's shape is graph input 1, a shape input: the plain import keeps
   * it, and compiling for the inputs specializes on its value. */
  test_shape_input(context, path, data_dir);
  /* Bound to test_data_set_0/input_1.pb at import, it leaves one input. */
  nnc_import_options_initialize(&options);
  options.integer_inputs_directory = data_dir;
  EXPECT_OK(nnc_model_import_onnx_file(context, path, &options, &model));
  CHECK(nnc_model_input_count(model) == 1);
  EXPECT_OK(nnc_model_input_info(model, 0, &info));
  CHECK(info && info->dtype == NNC_DTYPE_F32);
  EXPECT_OK(nnc_model_output_info(model, 0, &info));
  CHECK(info && info->rank == 3 && info->dims[0] == 4 && info->dims[1] == 2 &&
        info->dims[2] == 3);
  nnc_model_destroy(model);
  model = NULL;
  /* A folder without the file is an import error naming it. */
  options.integer_inputs_directory = "/nonexistent/nnc-capi";
  EXPECT_ERROR(nnc_model_import_onnx_file(context, path, &options, &model),
               NNC_STATUS_INVALID_ARGUMENT, "/nonexistent/nnc-capi");
  CHECK(model == NULL);
  nnc_context_destroy(context);
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

/*===----------------------------------------------------------------------===*
 * ONNX tensors, .npz archives
 *===----------------------------------------------------------------------===*/

/* Writes `size` bytes to `dir`/`name` and the path to `path`. */
static int write_file(const char *dir, const char *name, const void *bytes,
                      size_t size, char *path, size_t path_size) {
  FILE *file;
  snprintf(path, path_size, "%s/%s", dir, name);
  file = fopen(path, "wb");
  if (!file)
    return 0;
  if (size && fwrite(bytes, 1, size, file) != size) {
    fclose(file);
    return 0;
  }
  return fclose(file) == 0;
}

/* Serialized TensorProtos, written field by field: dims = 1, data_type = 2,
 * int32_data = 5, int64_data = 7, name = 8, raw_data = 9,
 * data_location = 14. */
/* clang-format off */
static const unsigned char pb_f32_raw[] = {
    0x08, 0x02, 0x08, 0x03, /* dims [2, 3] */
    0x10, 0x01,             /* FLOAT */
    0x42, 0x01, 'x',        /* name "x" */
    0x4a, 0x18,             /* raw_data, 24 bytes: 1..6 */
    0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x40, 0x40,
    0x00, 0x00, 0x80, 0x40, 0x00, 0x00, 0xa0, 0x40, 0x00, 0x00, 0xc0, 0x40};
static const unsigned char pb_i64_typed[] = {
    0x08, 0x03,                  /* dims [3] */
    0x10, 0x07,                  /* INT64 */
    0x3a, 0x0d,                  /* int64_data packed: 5, -1, 300 */
    0x05, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0xac,
    0x02};
static const unsigned char pb_bool_typed[] = {
    0x08, 0x04,                  /* dims [4] */
    0x10, 0x09,                  /* BOOL */
    0x2a, 0x04, 0x01, 0x00, 0x07, 0x00}; /* int32_data 1 0 7 0 */
static const unsigned char pb_f16_typed[] = {
    0x08, 0x02,                 /* dims [2] */
    0x10, 0x0a,                 /* FLOAT16 */
    0x2a, 0x05, 0x80, 0x78, 0x80, 0x80, 0x03}; /* 0x3c00, 0xc000 */
static const unsigned char pb_u8_raw[] = {
    0x10, 0x02,                 /* UINT8, rank 0 */
    0x4a, 0x01, 0xfe};          /* raw_data 254 */
static const unsigned char pb_raw_short[] = {
    0x08, 0x02, 0x10, 0x01, 0x4a, 0x04, 0x00, 0x00, 0x80, 0x3f};
static const unsigned char pb_typed_short[] = {
    0x08, 0x03, 0x10, 0x07, 0x3a, 0x01, 0x05};
static const unsigned char pb_string[] = {
    0x08, 0x01, 0x10, 0x08, 0x32, 0x01, 'a'};  /* STRING */
static const unsigned char pb_external[] = {
    0x08, 0x01, 0x10, 0x01, 0x70, 0x01};       /* data_location EXTERNAL */
static const unsigned char pb_negative[] = {
    0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
    0x10, 0x01};
/* dims [2^40, 2^20] and no data: rejected before anything is allocated. */
static const unsigned char pb_huge[] = {
    0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0x08, 0x80, 0x80, 0x40,
    0x10, 0x01};
/* dims [2^62, 8]: the element count overflows. */
static const unsigned char pb_overflow[] = {
    0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40, 0x08, 0x08,
    0x10, 0x01};
static const unsigned char pb_garbage[] = {0x0a, 0xff, 0xff, 0xff, 0x7f, 0x01};
/* clang-format on */

static void test_onnx_tensors(const char *dir) {
  char path[4096];
  nnc_tensor_t *tensor = NULL;
  char *name = NULL;

  CHECK(write_file(dir, "f32.pb", pb_f32_raw, sizeof(pb_f32_raw), path,
                   sizeof(path)));
  EXPECT_OK(nnc_tensor_read_onnx(path, &tensor, &name));
  if (tensor) {
    const float *data = (const float *)nnc_tensor_data(tensor);
    CHECK(nnc_tensor_dtype(tensor) == NNC_DTYPE_F32);
    CHECK(nnc_tensor_rank(tensor) == 2);
    CHECK(nnc_tensor_dims(tensor)[0] == 2 && nnc_tensor_dims(tensor)[1] == 3);
    CHECK(data[0] == 1.0f && data[5] == 6.0f);
  }
  CHECK(name && strcmp(name, "x") == 0);
  nnc_string_destroy(name);
  nnc_tensor_destroy(tensor);
  tensor = NULL;
  /* The name is optional. */
  EXPECT_OK(nnc_tensor_read_onnx(path, &tensor, NULL));
  nnc_tensor_destroy(tensor);
  tensor = NULL;
  remove(path);

  CHECK(write_file(dir, "i64.pb", pb_i64_typed, sizeof(pb_i64_typed), path,
                   sizeof(path)));
  EXPECT_OK(nnc_tensor_read_onnx(path, &tensor, &name));
  if (tensor) {
    const int64_t *data = (const int64_t *)nnc_tensor_data(tensor);
    CHECK(nnc_tensor_dtype(tensor) == NNC_DTYPE_I64);
    CHECK(nnc_tensor_rank(tensor) == 1 && nnc_tensor_dims(tensor)[0] == 3);
    CHECK(data[0] == 5 && data[1] == -1 && data[2] == 300);
  }
  CHECK(name && strcmp(name, "") == 0);
  nnc_string_destroy(name);
  name = NULL;
  nnc_tensor_destroy(tensor);
  tensor = NULL;
  remove(path);

  CHECK(write_file(dir, "bool.pb", pb_bool_typed, sizeof(pb_bool_typed), path,
                   sizeof(path)));
  EXPECT_OK(nnc_tensor_read_onnx(path, &tensor, NULL));
  if (tensor) {
    const unsigned char *data = (const unsigned char *)nnc_tensor_data(tensor);
    CHECK(nnc_tensor_dtype(tensor) == NNC_DTYPE_BOOL);
    CHECK(nnc_tensor_byte_size(tensor) == 4);
    CHECK(data[0] == 1 && data[1] == 0 && data[2] == 1 && data[3] == 0);
  }
  nnc_tensor_destroy(tensor);
  tensor = NULL;
  remove(path);

  CHECK(write_file(dir, "f16.pb", pb_f16_typed, sizeof(pb_f16_typed), path,
                   sizeof(path)));
  EXPECT_OK(nnc_tensor_read_onnx(path, &tensor, NULL));
  if (tensor) {
    const uint16_t *data = (const uint16_t *)nnc_tensor_data(tensor);
    CHECK(nnc_tensor_dtype(tensor) == NNC_DTYPE_F16);
    CHECK(data[0] == 0x3c00 && data[1] == 0xc000);
  }
  nnc_tensor_destroy(tensor);
  tensor = NULL;
  remove(path);

  CHECK(write_file(dir, "u8.pb", pb_u8_raw, sizeof(pb_u8_raw), path,
                   sizeof(path)));
  EXPECT_OK(nnc_tensor_read_onnx(path, &tensor, NULL));
  if (tensor) {
    CHECK(nnc_tensor_dtype(tensor) == NNC_DTYPE_U8);
    CHECK(nnc_tensor_rank(tensor) == 0 && nnc_tensor_byte_size(tensor) == 1);
    CHECK(*(const unsigned char *)nnc_tensor_data(tensor) == 254);
  }
  nnc_tensor_destroy(tensor);
  tensor = NULL;
  remove(path);

  /* Malformed and unsupported files. */
  CHECK(write_file(dir, "bad.pb", pb_raw_short, sizeof(pb_raw_short), path,
                   sizeof(path)));
  EXPECT_ERROR(nnc_tensor_read_onnx(path, &tensor, &name), NNC_STATUS_DATA_LOSS,
               "raw_data holds 4 bytes");
  CHECK(write_file(dir, "bad.pb", pb_typed_short, sizeof(pb_typed_short), path,
                   sizeof(path)));
  EXPECT_ERROR(nnc_tensor_read_onnx(path, &tensor, &name), NNC_STATUS_DATA_LOSS,
               "int64_data holds 1");
  CHECK(write_file(dir, "bad.pb", pb_string, sizeof(pb_string), path,
                   sizeof(path)));
  EXPECT_ERROR(nnc_tensor_read_onnx(path, &tensor, &name),
               NNC_STATUS_UNIMPLEMENTED, "STRING");
  CHECK(write_file(dir, "bad.pb", pb_external, sizeof(pb_external), path,
                   sizeof(path)));
  EXPECT_ERROR(nnc_tensor_read_onnx(path, &tensor, &name),
               NNC_STATUS_UNIMPLEMENTED, "external");
  CHECK(write_file(dir, "bad.pb", pb_negative, sizeof(pb_negative), path,
                   sizeof(path)));
  EXPECT_ERROR(nnc_tensor_read_onnx(path, &tensor, &name), NNC_STATUS_DATA_LOSS,
               "negative");
  CHECK(
      write_file(dir, "bad.pb", pb_huge, sizeof(pb_huge), path, sizeof(path)));
  EXPECT_ERROR(nnc_tensor_read_onnx(path, &tensor, &name), NNC_STATUS_DATA_LOSS,
               "float_data holds 0");
  CHECK(write_file(dir, "bad.pb", pb_overflow, sizeof(pb_overflow), path,
                   sizeof(path)));
  EXPECT_ERROR(nnc_tensor_read_onnx(path, &tensor, &name),
               NNC_STATUS_OUT_OF_RANGE, "bad.pb': the element count");
  {
    /* Rank 33: dims 1 thirty-three times, FLOAT, one float. */
    unsigned char deep[33 * 2 + 2 + 6];
    size_t n = 0;
    int k;
    for (k = 0; k < 33; ++k) {
      deep[n++] = 0x08;
      deep[n++] = 0x01;
    }
    deep[n++] = 0x10;
    deep[n++] = 0x01;
    deep[n++] = 0x22; /* float_data, packed, 4 bytes */
    deep[n++] = 0x04;
    deep[n++] = 0x00;
    deep[n++] = 0x00;
    deep[n++] = 0x80;
    deep[n++] = 0x3f;
    CHECK(write_file(dir, "bad.pb", deep, n, path, sizeof(path)));
    EXPECT_ERROR(nnc_tensor_read_onnx(path, &tensor, &name),
                 NNC_STATUS_UNIMPLEMENTED, "has rank 33");
  }
  CHECK(write_file(dir, "bad.pb", pb_garbage, sizeof(pb_garbage), path,
                   sizeof(path)));
  EXPECT_ERROR(nnc_tensor_read_onnx(path, &tensor, &name), NNC_STATUS_DATA_LOSS,
               "not a valid ONNX TensorProto");
  remove(path);
  EXPECT_ERROR(
      nnc_tensor_read_onnx("/nonexistent/nnc-capi/t.pb", &tensor, &name),
      NNC_STATUS_NOT_FOUND, "/nonexistent/nnc-capi/t.pb");
  /* A folder is refused before it is read, as the runtime's readers do. */
  EXPECT_ERROR(nnc_tensor_read_onnx(dir, &tensor, &name),
               NNC_STATUS_INVALID_ARGUMENT, "a folder, not a regular file");
  EXPECT_ERROR(nnc_tensor_read_onnx(NULL, &tensor, &name),
               NNC_STATUS_INVALID_ARGUMENT, "'path'");
  EXPECT_ERROR(nnc_tensor_read_onnx(path, NULL, &name),
               NNC_STATUS_INVALID_ARGUMENT, "'out_tensor'");
  CHECK(tensor == NULL && name == NULL);
  nnc_string_destroy(NULL);
}

static void test_npz(const char *dir) {
  char path[4096];
  char bad[4096];
  int64_t dims[2] = {2, 3};
  float values[6] = {1, 2, 3, 4, 5, 6};
  nnc_tensor_t *view = NULL;
  nnc_tensor_t *scalar = NULL;
  const nnc_tensor_t *tensors[2];
  const char *names[2] = {"logits", "step"};
  const char *dup_names[2] = {"a", "a"};
  const char *empty_names[2] = {"a", ""};
  const char *null_names[2] = {"a", NULL};
  const nnc_tensor_t *null_tensors[2];
  size_t count = 99;
  char **read_names = NULL;
  nnc_tensor_t **read_tensors = NULL;
  size_t i;

  EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, values,
                                   sizeof(values), &view));
  EXPECT_OK(nnc_tensor_create(NNC_DTYPE_I64, 0, NULL, &scalar));
  if (!view || !scalar)
    return;
  *(int64_t *)nnc_tensor_data(scalar) = 7;
  tensors[0] = view;
  tensors[1] = scalar;
  null_tensors[0] = view;
  null_tensors[1] = NULL;
  snprintf(path, sizeof(path), "%s/t.npz", dir);
  EXPECT_OK(nnc_npz_write(path, 2, names, tensors));
  EXPECT_OK(nnc_npz_read(path, &count, &read_names, &read_tensors));
  CHECK(count == 2);
  if (count == 2 && read_names && read_tensors) {
    CHECK(strcmp(read_names[0], "logits") == 0);
    CHECK(strcmp(read_names[1], "step") == 0);
    CHECK(nnc_tensor_dtype(read_tensors[0]) == NNC_DTYPE_F32);
    CHECK(nnc_tensor_rank(read_tensors[0]) == 2);
    CHECK(nnc_tensor_dims(read_tensors[0])[1] == 3);
    CHECK(memcmp(nnc_tensor_data(read_tensors[0]), values, sizeof(values)) ==
          0);
    CHECK(nnc_tensor_dtype(read_tensors[1]) == NNC_DTYPE_I64);
    CHECK(nnc_tensor_rank(read_tensors[1]) == 0);
    CHECK(*(const int64_t *)nnc_tensor_data(read_tensors[1]) == 7);
  }
  for (i = 0; read_names && read_tensors && i < count; ++i) {
    nnc_string_destroy(read_names[i]);
    nnc_tensor_destroy(read_tensors[i]);
  }
  nnc_array_destroy(read_names);
  nnc_array_destroy(read_tensors);
  nnc_array_destroy(NULL);

  /* An empty archive. */
  EXPECT_OK(nnc_npz_write(path, 0, NULL, NULL));
  count = 99;
  read_names = NULL;
  read_tensors = NULL;
  EXPECT_OK(nnc_npz_read(path, &count, &read_names, &read_tensors));
  CHECK(count == 0);
  nnc_array_destroy(read_names);
  nnc_array_destroy(read_tensors);
  remove(path);

  /* Misuse. */
  read_names = NULL;
  read_tensors = NULL;
  EXPECT_ERROR(nnc_npz_write(NULL, 2, names, tensors),
               NNC_STATUS_INVALID_ARGUMENT, "'path'");
  EXPECT_ERROR(nnc_npz_write(path, 2, NULL, tensors),
               NNC_STATUS_INVALID_ARGUMENT, "'names'");
  EXPECT_ERROR(nnc_npz_write(path, 2, names, NULL), NNC_STATUS_INVALID_ARGUMENT,
               "'tensors'");
  EXPECT_ERROR(nnc_npz_write(path, 2, dup_names, tensors),
               NNC_STATUS_INVALID_ARGUMENT, "not unique");
  EXPECT_ERROR(nnc_npz_write(path, 2, empty_names, tensors),
               NNC_STATUS_INVALID_ARGUMENT, "'names[1]' is empty");
  EXPECT_ERROR(nnc_npz_write(path, 2, null_names, tensors),
               NNC_STATUS_INVALID_ARGUMENT, "'names[1]'");
  EXPECT_ERROR(nnc_npz_write(path, 2, names, null_tensors),
               NNC_STATUS_INVALID_ARGUMENT, "'tensors[1]'");
  EXPECT_ERROR(nnc_npz_write("/nonexistent/nnc-capi/t.npz", 2, names, tensors),
               NNC_STATUS_UNAVAILABLE, "/nonexistent/nnc-capi");
  EXPECT_ERROR(nnc_npz_read(NULL, &count, &read_names, &read_tensors),
               NNC_STATUS_INVALID_ARGUMENT, "'path'");
  EXPECT_ERROR(nnc_npz_read(path, NULL, &read_names, &read_tensors),
               NNC_STATUS_INVALID_ARGUMENT, "'out_count'");
  EXPECT_ERROR(nnc_npz_read(path, &count, NULL, &read_tensors),
               NNC_STATUS_INVALID_ARGUMENT, "'out_names'");
  EXPECT_ERROR(nnc_npz_read(path, &count, &read_names, NULL),
               NNC_STATUS_INVALID_ARGUMENT, "'out_tensors'");
  EXPECT_ERROR(nnc_npz_read("/nonexistent/nnc-capi/t.npz", &count, &read_names,
                            &read_tensors),
               NNC_STATUS_NOT_FOUND, "t.npz");
  /* Not a ZIP; a .npy is not an .npz either. */
  CHECK(write_file(dir, "bad.npz", "hello, world", 12, bad, sizeof(bad)));
  EXPECT_ERROR(nnc_npz_read(bad, &count, &read_names, &read_tensors),
               NNC_STATUS_INVALID_ARGUMENT, "bad.npz");
  remove(bad);
  snprintf(bad, sizeof(bad), "%s/t.npy", dir);
  EXPECT_OK(nnc_tensor_write_npy(view, bad));
  EXPECT_ERROR(nnc_npz_read(bad, &count, &read_names, &read_tensors),
               NNC_STATUS_INVALID_ARGUMENT, "t.npy");
  remove(bad);
  CHECK(read_names == NULL && read_tensors == NULL);
  nnc_tensor_destroy(view);
  nnc_tensor_destroy(scalar);
}

/*===----------------------------------------------------------------------===*
 * Tracing and MLIR text
 *===----------------------------------------------------------------------===*/

/* Counts the occurrences of `needle` in `text`. */
static int count_of(const char *text, const char *needle) {
  int n = 0;
  while (text && (text = strstr(text, needle)) != NULL) {
    ++n;
    text += strlen(needle);
  }
  return n;
}

static void test_graph(void) {
  nnc_context_t *context = NULL;
  nnc_graph_t *graph = NULL;
  nnc_model_t *model = NULL;
  nnc_tensor_t *w_init = NULL;
  nnc_tensor_t *c_tensor = NULL;
  nnc_tensor_t *bad_init = NULL;
  const nnc_value_info_t *info = NULL;
  text_buffer ir = {NULL, 0, 0};
  int64_t x_dims[2] = {-1, 4};
  int64_t w_dims[2] = {4, 3};
  int64_t b_dims[1] = {3};
  int64_t bad_dims[2] = {4, -2};
  int64_t dyn_dims[2] = {-1, 3};
  int64_t many_dims[NNC_MAX_RANK + 1];
  nnc_value_t x = -1, w = -1, b = -1, c = -1, mm = -1, sum = -1, t = -1;
  nnc_value_t parts[2] = {-1, -1};
  nnc_value_t results[4];
  nnc_value_t operands[2];
  nnc_value_t outputs[2];
  nnc_value_t unused = -1;
  size_t num_results = 0;
  size_t i;

  EXPECT_OK(nnc_context_create(NULL, &context));
  if (!context)
    return;
  EXPECT_OK(nnc_graph_create(context, "linear", &graph));
  if (!graph) {
    nnc_context_destroy(context);
    return;
  }
  /* The graph keeps its context alive. */
  nnc_context_destroy(context);

  EXPECT_OK(nnc_tensor_create(NNC_DTYPE_F32, 2, w_dims, &w_init));
  EXPECT_OK(nnc_tensor_create(NNC_DTYPE_F32, 1, b_dims, &c_tensor));
  for (i = 0; w_init && i < 12; ++i)
    ((float *)nnc_tensor_data(w_init))[i] = (float)i;
  for (i = 0; c_tensor && i < 3; ++i)
    ((float *)nnc_tensor_data(c_tensor))[i] = 0.5f;

  /* A parameter first: inputs still come first in the signature. */
  EXPECT_OK(nnc_graph_add_argument(graph, NNC_VALUE_TRAINABLE, "w",
                                   NNC_DTYPE_F32, 2, w_dims, w_init, &w));
  EXPECT_OK(nnc_graph_add_argument(graph, NNC_VALUE_INPUT, "x", NNC_DTYPE_F32,
                                   2, x_dims, NULL, &x));
  EXPECT_OK(nnc_graph_add_argument(graph, NNC_VALUE_FROZEN, "b", NNC_DTYPE_F32,
                                   1, b_dims, NULL, &b));
  EXPECT_OK(nnc_graph_add_constant(graph, c_tensor, &c));
  CHECK(w == 0 && x == 1 && b == 2 && c == 3);

  operands[0] = x;
  operands[1] = w;
  EXPECT_OK(nnc_graph_add_op(graph, "nnc.matmul", 2, operands, NULL, 1, &mm,
                             &num_results));
  CHECK(num_results == 1 && mm == 4);
  operands[0] = mm;
  operands[1] = b;
  EXPECT_OK(
      nnc_graph_add_op(graph, "add", 2, operands, "", 1, &sum, &num_results));
  operands[0] = sum;
  EXPECT_OK(nnc_graph_add_op(graph, "transpose", 1, operands,
                             " {perm = array<i64: 1, 0>} ", 4, results,
                             &num_results));
  CHECK(num_results == 1);
  t = results[0];
  operands[0] = w;
  EXPECT_OK(nnc_graph_add_op(graph, "nnc.split", 1, operands,
                             "{axis = 1 : i64, sizes = array<i64: 1, 2>}", 2,
                             parts, &num_results));
  CHECK(num_results == 2 && parts[0] >= 0 && parts[1] == parts[0] + 1);
  /* Optional operands through operandSegmentSizes: a scale, no bias. */
  operands[0] = mm;
  operands[1] = c;
  EXPECT_OK(nnc_graph_add_op(graph, "layer_norm", 2, operands,
                             "{operandSegmentSizes = array<i32: 1, 1, 0>, "
                             "epsilon = 1.0e-3 : f64}",
                             4, results, &num_results));
  CHECK(num_results == 3);

  /* Misuse of arguments. */
  EXPECT_ERROR(nnc_graph_add_argument(NULL, NNC_VALUE_INPUT, "y", NNC_DTYPE_F32,
                                      2, x_dims, NULL, &unused),
               NNC_STATUS_INVALID_ARGUMENT, "'graph'");
  EXPECT_ERROR(nnc_graph_add_argument(graph, NNC_VALUE_INPUT, "y",
                                      NNC_DTYPE_F32, 2, x_dims, NULL, NULL),
               NNC_STATUS_INVALID_ARGUMENT, "'out_value'");
  EXPECT_ERROR(nnc_graph_add_argument(graph, NNC_VALUE_OUTPUT, "y",
                                      NNC_DTYPE_F32, 2, x_dims, NULL, &unused),
               NNC_STATUS_INVALID_ARGUMENT, "'kind'");
  EXPECT_ERROR(nnc_graph_add_argument(graph, (nnc_value_kind_t)42, "y",
                                      NNC_DTYPE_F32, 2, x_dims, NULL, &unused),
               NNC_STATUS_INVALID_ARGUMENT, "'kind'");
  EXPECT_ERROR(nnc_graph_add_argument(graph, NNC_VALUE_INPUT, "y",
                                      (nnc_dtype_t)99, 2, x_dims, NULL,
                                      &unused),
               NNC_STATUS_INVALID_ARGUMENT, "'dtype'");
  EXPECT_ERROR(nnc_graph_add_argument(graph, NNC_VALUE_INPUT, "y",
                                      NNC_DTYPE_UNKNOWN, 2, x_dims, NULL,
                                      &unused),
               NNC_STATUS_INVALID_ARGUMENT, "'dtype'");
  EXPECT_ERROR(nnc_graph_add_argument(graph, NNC_VALUE_INPUT, "y", NNC_DTYPE_U8,
                                      2, x_dims, NULL, &unused),
               NNC_STATUS_INVALID_ARGUMENT, "u8");
  for (i = 0; i < NNC_MAX_RANK + 1; ++i)
    many_dims[i] = 1;
  EXPECT_ERROR(nnc_graph_add_argument(graph, NNC_VALUE_INPUT, "y",
                                      NNC_DTYPE_F32, NNC_MAX_RANK + 1,
                                      many_dims, NULL, &unused),
               NNC_STATUS_INVALID_ARGUMENT, "'rank'");
  EXPECT_ERROR(nnc_graph_add_argument(graph, NNC_VALUE_INPUT, "y",
                                      NNC_DTYPE_F32, 2, NULL, NULL, &unused),
               NNC_STATUS_INVALID_ARGUMENT, "'dims'");
  EXPECT_ERROR(nnc_graph_add_argument(graph, NNC_VALUE_INPUT, "y",
                                      NNC_DTYPE_F32, 2, bad_dims, NULL,
                                      &unused),
               NNC_STATUS_INVALID_ARGUMENT, "dimension 1 is -2");
  EXPECT_ERROR(nnc_graph_add_argument(graph, NNC_VALUE_TRAINABLE, "v",
                                      NNC_DTYPE_F32, 2, dyn_dims, NULL,
                                      &unused),
               NNC_STATUS_INVALID_ARGUMENT, "static");
  EXPECT_ERROR(nnc_graph_add_argument(graph, NNC_VALUE_INPUT, "x",
                                      NNC_DTYPE_F32, 2, x_dims, NULL, &unused),
               NNC_STATUS_INVALID_ARGUMENT, "'x' is already declared");
  EXPECT_ERROR(nnc_graph_add_argument(graph, NNC_VALUE_INPUT, "y",
                                      NNC_DTYPE_F32, 2, w_dims, w_init,
                                      &unused),
               NNC_STATUS_INVALID_ARGUMENT, "no initial value");
  EXPECT_ERROR(nnc_graph_add_argument(graph, NNC_VALUE_TRAINABLE, "v",
                                      NNC_DTYPE_F32, 1, b_dims, w_init,
                                      &unused),
               NNC_STATUS_INVALID_ARGUMENT,
               "is f32 [4, 3] but the parameter "
               "is f32 [3]");
  EXPECT_ERROR(nnc_graph_add_argument(graph, NNC_VALUE_TRAINABLE, "v",
                                      NNC_DTYPE_F64, 2, w_dims, w_init,
                                      &unused),
               NNC_STATUS_INVALID_ARGUMENT, "f64");
  CHECK(unused == -1);

  /* Misuse of constants. */
  EXPECT_ERROR(nnc_graph_add_constant(NULL, c_tensor, &unused),
               NNC_STATUS_INVALID_ARGUMENT, "'graph'");
  EXPECT_ERROR(nnc_graph_add_constant(graph, NULL, &unused),
               NNC_STATUS_INVALID_ARGUMENT, "'tensor'");
  EXPECT_ERROR(nnc_graph_add_constant(graph, c_tensor, NULL),
               NNC_STATUS_INVALID_ARGUMENT, "'out_value'");
  EXPECT_OK(nnc_tensor_create(NNC_DTYPE_U8, 1, b_dims, &bad_init));
  EXPECT_ERROR(nnc_graph_add_constant(graph, bad_init, &unused),
               NNC_STATUS_INVALID_ARGUMENT, "u8");
  nnc_tensor_destroy(bad_init);

  /* Misuse of ops: each leaves the graph as it was. */
  operands[0] = x;
  operands[1] = w;
  EXPECT_ERROR(nnc_graph_add_op(NULL, "matmul", 2, operands, NULL, 1, results,
                                &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "'graph'");
  EXPECT_ERROR(nnc_graph_add_op(graph, NULL, 2, operands, NULL, 1, results,
                                &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "'op_name'");
  EXPECT_ERROR(nnc_graph_add_op(graph, "matmul", 2, NULL, NULL, 1, results,
                                &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "'operands'");
  EXPECT_ERROR(nnc_graph_add_op(graph, "matmul", 2, operands, NULL, 1, NULL,
                                &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "'out_results'");
  EXPECT_ERROR(
      nnc_graph_add_op(graph, "matmul", 2, operands, NULL, 1, results, NULL),
      NNC_STATUS_INVALID_ARGUMENT, "'out_num_results'");
  EXPECT_ERROR(nnc_graph_add_op(graph, "nnc.frobnicate", 2, operands, NULL, 1,
                                results, &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "unknown op 'nnc.frobnicate'");
  EXPECT_ERROR(nnc_graph_add_op(graph, "func.return", 1, operands, NULL, 1,
                                results, &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "not an nnc op");
  EXPECT_ERROR(nnc_graph_add_op(graph, "reshape", 1, operands, NULL, 1, results,
                                &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "does not infer");
  operands[1] = 99;
  EXPECT_ERROR(nnc_graph_add_op(graph, "matmul", 2, operands, NULL, 1, results,
                                &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "operand 1 is value 99");
  operands[1] = -1;
  EXPECT_ERROR(nnc_graph_add_op(graph, "matmul", 2, operands, NULL, 1, results,
                                &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "operand 1 is value -1");
  /* Shapes that do not fit: [?, 4] x [3]. */
  operands[1] = b;
  EXPECT_ERROR(nnc_graph_add_op(graph, "matmul", 2, operands, NULL, 1, results,
                                &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "'nnc.matmul'");
  /* Operand counts are checked before inference reads the operands. */
  EXPECT_ERROR(nnc_graph_add_op(graph, "matmul", 1, operands, NULL, 1, results,
                                &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "takes 2 operands, got 1");
  EXPECT_ERROR(
      nnc_graph_add_op(graph, "relu", 0, NULL, NULL, 1, results, &num_results),
      NNC_STATUS_INVALID_ARGUMENT, "takes 1 operands, got 0");
  operands[0] = x;
  operands[1] = b;
  EXPECT_ERROR(nnc_graph_add_op(graph, "layer_norm", 2, operands, NULL, 3,
                                results, &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "operandSegmentSizes");
  EXPECT_ERROR(nnc_graph_add_op(graph, "layer_norm", 2, operands,
                                "{operandSegmentSizes = array<i32: 1, 1, 1>}",
                                3, results, &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "adding up to the 2 operands");
  EXPECT_ERROR(nnc_graph_add_op(graph, "layer_norm", 2, operands,
                                "{operandSegmentSizes = array<i32: 2, -1, 1>}",
                                3, results, &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "non-negative");
  operands[0] = sum;
  EXPECT_ERROR(nnc_graph_add_op(graph, "transpose", 1, operands, "{perm = }", 1,
                                results, &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "cannot parse");
  EXPECT_ERROR(nnc_graph_add_op(graph, "transpose", 1, operands, "[1, 0]", 1,
                                results, &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "attribute dictionary");
  EXPECT_ERROR(nnc_graph_add_op(graph, "transpose", 1, operands,
                                "{perm = array<i64: 1, 0>} x", 1, results,
                                &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "trailing");
  EXPECT_ERROR(nnc_graph_add_op(graph, "transpose", 1, operands,
                                "{perm = 3 : i64}", 1, results, &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "perm");
  EXPECT_ERROR(nnc_graph_add_op(graph, "transpose", 1, operands, NULL, 1,
                                results, &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "perm");
  EXPECT_ERROR(nnc_graph_add_op(graph, "transpose", 1, operands,
                                "{perm = array<i64: 0, 0>}", 1, results,
                                &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "permutation");
  operands[0] = w;
  EXPECT_ERROR(nnc_graph_add_op(graph, "split", 1, operands,
                                "{axis = 1 : i64, sizes = array<i64: 1, 2>}", 1,
                                results, &num_results),
               NNC_STATUS_INVALID_ARGUMENT, "'max_results' is 1");

  /* The graph is intact: finish it and look at the model. */
  outputs[0] = t;
  outputs[1] = parts[1];
  EXPECT_OK(nnc_graph_finish(graph, 2, outputs, &model));
  graph = NULL;
  if (model) {
    CHECK(nnc_model_input_count(model) == 3);
    CHECK(nnc_model_output_count(model) == 2);
    EXPECT_OK(nnc_model_input_info(model, 0, &info));
    CHECK(info && info->name && strcmp(info->name, "x") == 0 &&
          info->kind == NNC_VALUE_INPUT && info->dims[0] == -1);
    EXPECT_OK(nnc_model_input_info(model, 1, &info));
    CHECK(info && info->name && strcmp(info->name, "w") == 0 &&
          info->kind == NNC_VALUE_TRAINABLE);
    EXPECT_OK(nnc_model_input_info(model, 2, &info));
    CHECK(info && info->name && strcmp(info->name, "b") == 0 &&
          info->kind == NNC_VALUE_FROZEN);
    EXPECT_OK(nnc_model_output_info(model, 0, &info));
    CHECK(info && info->rank == 2 && info->dims[0] == 3 && info->dims[1] == -1);
    EXPECT_OK(nnc_model_output_info(model, 1, &info));
    CHECK(info && info->rank == 2 && info->dims[0] == 4 && info->dims[1] == 2);
    EXPECT_OK(nnc_model_print(model, append_text, &ir));
    CHECK(count_of(ir.text, "nnc.matmul") == 1);
    CHECK(count_of(ir.text, "nnc.transpose") == 1);
    CHECK(count_of(ir.text, "nnc.split") == 1);
    CHECK(count_of(ir.text, "nnc.constant") == 1);
    CHECK(count_of(ir.text, "nnc.layer_norm") == 1);
    CHECK(count_of(ir.text, "scale(") == 1);
    CHECK(count_of(ir.text, "func.func @linear") == 1);
    CHECK(count_of(ir.text, "nnc.value = dense_resource<nnc_value_w>") == 1);
    CHECK(count_of(ir.text, "#nnc.param<frozen>") == 1);
    /* The initial value travels with the IR, little-endian f32 0..11. */
    CHECK(count_of(ir.text, "nnc_value_w: \"0x40000000000000000000803F") == 1);
    free(ir.text);
    ir.text = NULL;
    ir.length = 0;
  }
  nnc_model_destroy(model);
  model = NULL;

  /* Finishing consumes the graph even when it fails. */
  EXPECT_ERROR(nnc_graph_finish(NULL, 1, outputs, &model),
               NNC_STATUS_INVALID_ARGUMENT, "'graph'");
  EXPECT_OK(nnc_context_create(NULL, &context));
  EXPECT_OK(nnc_graph_create(context, NULL, &graph));
  EXPECT_ERROR(nnc_graph_finish(graph, 0, outputs, &model),
               NNC_STATUS_INVALID_ARGUMENT, "'num_outputs' is 0");
  EXPECT_OK(nnc_graph_create(context, NULL, &graph));
  EXPECT_OK(nnc_graph_add_argument(graph, NNC_VALUE_INPUT, NULL, NNC_DTYPE_I64,
                                   0, NULL, NULL, &x));
  EXPECT_ERROR(nnc_graph_finish(graph, 1, NULL, &model),
               NNC_STATUS_INVALID_ARGUMENT, "'outputs'");
  EXPECT_OK(nnc_graph_create(context, NULL, &graph));
  EXPECT_OK(nnc_graph_add_argument(graph, NNC_VALUE_INPUT, NULL, NNC_DTYPE_I64,
                                   0, NULL, NULL, &x));
  outputs[0] = 1;
  EXPECT_ERROR(nnc_graph_finish(graph, 1, outputs, &model),
               NNC_STATUS_INVALID_ARGUMENT, "outputs[0] is value 1");
  EXPECT_OK(nnc_graph_create(context, NULL, &graph));
  EXPECT_OK(nnc_graph_add_argument(graph, NNC_VALUE_INPUT, NULL, NNC_DTYPE_I64,
                                   0, NULL, NULL, &x));
  outputs[0] = x;
  EXPECT_ERROR(nnc_graph_finish(graph, 1, outputs, NULL),
               NNC_STATUS_INVALID_ARGUMENT, "'out_model'");
  CHECK(model == NULL);
  /* An unnamed input passed straight through; main by default. */
  EXPECT_OK(nnc_graph_create(context, NULL, &graph));
  EXPECT_OK(nnc_graph_add_argument(graph, NNC_VALUE_INPUT, NULL, NNC_DTYPE_BOOL,
                                   0, NULL, NULL, &x));
  EXPECT_OK(nnc_graph_finish(graph, 1, &x, &model));
  EXPECT_OK(nnc_model_input_info(model, 0, &info));
  CHECK(info && info->name == NULL && info->dtype == NNC_DTYPE_BOOL);
  EXPECT_OK(nnc_model_print(model, append_text, &ir));
  CHECK(count_of(ir.text, "func.func @main") == 1);
  free(ir.text);
  nnc_model_destroy(model);
  /* An unfinished graph with ops is destroyed whole. */
  EXPECT_OK(nnc_graph_create(context, NULL, &graph));
  EXPECT_OK(nnc_graph_add_constant(graph, c_tensor, &c));
  operands[0] = c;
  EXPECT_OK(nnc_graph_add_op(graph, "relu", 1, operands, NULL, 1, results,
                             &num_results));
  nnc_graph_destroy(graph);
  nnc_graph_destroy(NULL);
  EXPECT_ERROR(nnc_graph_create(NULL, NULL, &graph),
               NNC_STATUS_INVALID_ARGUMENT, "'context'");
  EXPECT_ERROR(nnc_graph_create(context, NULL, NULL),
               NNC_STATUS_INVALID_ARGUMENT, "'out_graph'");
  nnc_context_destroy(context);
  nnc_tensor_destroy(w_init);
  nnc_tensor_destroy(c_tensor);
}

static const char linear_mlir[] =
    "func.func @f(%x: tensor<?x2xf32>,\n"
    "             %w: tensor<2xf32> {nnc.param = #nnc.param<frozen>,\n"
    "                                nnc.value = dense<[1.0, 2.0]> : "
    "tensor<2xf32>})\n"
    "    -> tensor<?x2xf32> {\n"
    "  %0 = nnc.mul %x, %w : tensor<?x2xf32>, tensor<2xf32>\n"
    "  return %0 : tensor<?x2xf32>\n"
    "}\n"
    "GARBAGE AFTER THE GIVEN SIZE";

static void test_parse_mlir(void) {
  nnc_context_t *context = NULL;
  nnc_model_t *model = NULL;
  const nnc_value_info_t *info = NULL;
  size_t size = strlen(linear_mlir) - strlen("GARBAGE AFTER THE GIVEN SIZE");
  static const char two_funcs[] =
      "func.func @a(%x: tensor<f32>) -> tensor<f32> { return %x : tensor<f32> }"
      "func.func @b(%x: tensor<f32>) -> tensor<f32> { return %x : tensor<f32> "
      "}";
  static const char bad_syntax[] =
      "func.func @a(%x: tensor<f32>) -> tensor<f32> {\n  return %y\n}";
  static const char bad_op[] =
      "func.func @a(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %0 = nnc.transpose %x perm = [1, 0] : tensor<2xf32>\n"
      "  return %0 : tensor<2xf32>\n}";
  static const char value_on_input[] =
      "func.func @a(%x: tensor<2xf32> {nnc.value = dense<1.0> : "
      "tensor<2xf32>}) -> tensor<2xf32> { return %x : tensor<2xf32> }";
  static const char value_wrong_type[] =
      "func.func @a(%x: tensor<2xf32> {nnc.param = #nnc.param<trainable>, "
      "nnc.value = dense<1.0> : tensor<3xf32>}) -> tensor<2xf32> "
      "{ return %x : tensor<2xf32> }";
  static const char resource[] =
      "func.func @a(%x: tensor<2xf32>, %w: tensor<2xf32> {nnc.param = "
      "#nnc.param<trainable>, nnc.value = dense_resource<blob> : "
      "tensor<2xf32>}) -> tensor<2xf32> {\n"
      "  %0 = nnc.add %x, %w : tensor<2xf32>, tensor<2xf32>\n"
      "  return %0 : tensor<2xf32>\n}\n"
      "{-#\n  dialect_resources: {\n    builtin: {\n"
      "      blob: \"0x040000000000803F00000040\"\n    }\n  }\n#-}\n";

  EXPECT_OK(nnc_context_create(NULL, &context));
  if (!context)
    return;
  EXPECT_OK(
      nnc_model_parse_mlir(context, linear_mlir, size, "linear.mlir", &model));
  if (model) {
    CHECK(nnc_model_input_count(model) == 2);
    EXPECT_OK(nnc_model_input_info(model, 1, &info));
    CHECK(info && info->kind == NNC_VALUE_FROZEN && info->dims[0] == 2);
    EXPECT_OK(nnc_model_output_info(model, 0, &info));
    CHECK(info && info->dims[0] == -1 && info->dims[1] == 2);
  }
  nnc_model_destroy(model);
  model = NULL;
  EXPECT_OK(nnc_model_parse_mlir(context, resource, sizeof(resource) - 1, NULL,
                                 &model));
  CHECK(nnc_model_input_count(model) == 2);
  nnc_model_destroy(model);
  model = NULL;

  EXPECT_ERROR(nnc_model_parse_mlir(context, linear_mlir, sizeof(linear_mlir),
                                    "linear.mlir", &model),
               NNC_STATUS_INVALID_ARGUMENT, "linear.mlir:8:");
  EXPECT_ERROR(nnc_model_parse_mlir(context, bad_syntax, sizeof(bad_syntax) - 1,
                                    "bad.mlir", &model),
               NNC_STATUS_INVALID_ARGUMENT, "bad.mlir:2:");
  EXPECT_ERROR(nnc_model_parse_mlir(context, bad_op, sizeof(bad_op) - 1,
                                    "bad.mlir", &model),
               NNC_STATUS_INVALID_ARGUMENT, "perm");
  EXPECT_ERROR(nnc_model_parse_mlir(context, two_funcs, sizeof(two_funcs) - 1,
                                    NULL, &model),
               NNC_STATUS_INVALID_ARGUMENT, "exactly one function");
  EXPECT_ERROR(nnc_model_parse_mlir(context, "", 0, "empty.mlir", &model),
               NNC_STATUS_INVALID_ARGUMENT, "holds no function");
  EXPECT_ERROR(nnc_model_parse_mlir(context, value_on_input,
                                    sizeof(value_on_input) - 1, NULL, &model),
               NNC_STATUS_INVALID_ARGUMENT, "nnc.param");
  EXPECT_ERROR(nnc_model_parse_mlir(context, value_wrong_type,
                                    sizeof(value_wrong_type) - 1, NULL, &model),
               NNC_STATUS_INVALID_ARGUMENT, "tensor<2xf32>");
  EXPECT_ERROR(nnc_model_parse_mlir(NULL, two_funcs, 10, NULL, &model),
               NNC_STATUS_INVALID_ARGUMENT, "'context'");
  EXPECT_ERROR(nnc_model_parse_mlir(context, NULL, 10, NULL, &model),
               NNC_STATUS_INVALID_ARGUMENT, "'text'");
  EXPECT_ERROR(nnc_model_parse_mlir(context, two_funcs, 10, NULL, NULL),
               NNC_STATUS_INVALID_ARGUMENT, "'out_model'");
  CHECK(model == NULL);
  nnc_context_destroy(context);
}

/* A convolution whose weights are the executable's own: oneDNN's glue
 * keeps them in its layout between runs, and drops that copy when the
 * executable goes, so that another executable's weights, which may come to
 * the same address, are read. Ones through 3x3 kernels of the splat w over
 * 32 channels: 288 w at every interior pixel. */
static void test_constant_weights(void) {
  static const char fmt[] =
      "func.func @main(%%x: tensor<1x32x8x8xf32>,\n"
      "    %%w: tensor<32x32x3x3xf32> {nnc.param = #nnc.param<frozen>,\n"
      "      nnc.value = dense<%.6e> : tensor<32x32x3x3xf32>})\n"
      "    -> tensor<1x32x8x8xf32> {\n"
      "  %%0 = nnc.conv %%x, %%w pads = [1, 1, 1, 1] : tensor<1x32x8x8xf32>, "
      "tensor<32x32x3x3xf32>\n"
      "  return %%0 : tensor<1x32x8x8xf32>\n}\n";
  static const double splats[] = {0.5, 0.25, 2.0, 0.5};
  nnc_context_t *context = NULL;
  nnc_compile_options_t options;
  int64_t dims[4] = {1, 32, 8, 8};
  nnc_shape_t shape = {4, dims};
  nnc_tensor_t *x = NULL;
  size_t k, i;
  EXPECT_OK(nnc_context_create(NULL, &context));
  EXPECT_OK(nnc_tensor_create(NNC_DTYPE_F32, 4, dims, &x));
  if (!context || !x)
    goto done;
  for (i = 0; i < 32 * 64; ++i)
    ((float *)nnc_tensor_data(x))[i] = 1.0f;
  nnc_compile_options_initialize(&options);
  options.cache_dir = "";
  for (k = 0; k < sizeof(splats) / sizeof(splats[0]); ++k) {
    char text[1024];
    nnc_model_t *model = NULL;
    nnc_executable_t *executable = NULL;
    const nnc_tensor_t *inputs[1];
    int run;
    snprintf(text, sizeof(text), fmt, splats[k]);
    EXPECT_OK(nnc_model_parse_mlir(context, text, strlen(text), "conv.mlir",
                                   &model));
    if (model)
      EXPECT_OK(nnc_model_compile(model, &options, 1, &shape, &executable));
    inputs[0] = x;
    /* The second run reads the kept copy. */
    for (run = 0; executable && run < 2; ++run) {
      nnc_tensor_t *y = NULL;
      EXPECT_OK(nnc_executable_run(executable, 1, inputs, 1, &y));
      if (y) {
        const float *v = (const float *)nnc_tensor_data(y);
        /* Channel 3, row 4, column 4: an interior pixel. */
        float got = v[3 * 64 + 4 * 8 + 4];
        if (fabs(got - 288.0 * splats[k]) > 1e-3 * 288.0 * splats[k]) {
          fprintf(stderr, "constant weights %g, run %d: %g, expected %g\n",
                  splats[k], run, got, 288.0 * splats[k]);
          CHECK(0);
        }
      }
      nnc_tensor_destroy(y);
    }
    nnc_executable_destroy(executable);
    nnc_model_destroy(model);
  }
done:
  nnc_tensor_destroy(x);
  nnc_context_destroy(context);
}

/* Training: y = x * w (w trainable, 1 at first) with MSE against targets,
 * so every number is known in closed form. */
static const char train_mlir[] =
    "func.func @main(%x: tensor<?x3xf32> loc(\"x\"),\n"
    "    %w: tensor<3xf32> {nnc.param = #nnc.param<trainable>,\n"
    "                       nnc.value = dense<1.0> : tensor<3xf32>} "
    "loc(\"w\"))\n"
    "    -> tensor<?x3xf32> attributes {nnc.result_names = [\"y\"]} {\n"
    "  %0 = nnc.mul %x, %w : tensor<?x3xf32>, tensor<3xf32>\n"
    "  return %0 : tensor<?x3xf32>\n}\n";

static int close_to(double a, double b) { return fabs(a - b) <= 1e-6; }

static void test_training(const char *dir) {
  nnc_context_t *context = NULL;
  nnc_model_t *model = NULL;
  nnc_trainer_t *trainer = NULL;
  nnc_trainer_t *second = NULL;
  nnc_train_options_t options;
  nnc_compile_options_t compile;
  nnc_step_info_t info;
  const nnc_value_info_t *value_info = NULL;
  const nnc_tensor_t *param = NULL;
  nnc_tensor_t *x = NULL, *t = NULL, *grad = NULL, *y = NULL;
  const nnc_tensor_t *data[2];
  const nnc_tensor_t *wrong[2];
  int64_t dims[2] = {4, 3};
  float ones[12], zeros[12];
  double loss = 0;
  char path[4096], damaged[4096];
  const char *keys[1] = {"data.epoch"};
  const char *values[1] = {"3"};
  size_t i;
  FILE *file;

  for (i = 0; i < 12; ++i) {
    ones[i] = 1.0f;
    zeros[i] = 0.0f;
  }
  nnc_train_options_initialize(&options);
  CHECK(options.struct_size == sizeof(options));
  CHECK(options.accumulate == 1 && options.loss_scale == 1.0);
  CHECK(options.optimizer == NNC_OPTIMIZER_ADAM);
  nnc_compile_options_initialize(&compile);
  compile.cache_dir = ""; /* nothing left behind in `dir` */

  EXPECT_OK(nnc_context_create(NULL, &context));
  if (!context)
    return;
  EXPECT_OK(nnc_model_parse_mlir(context, train_mlir, sizeof(train_mlir) - 1,
                                 "train.mlir", &model));
  if (!model) {
    nnc_context_destroy(context);
    return;
  }

  /* Misuse and bad options. */
  EXPECT_ERROR(nnc_trainer_create(NULL, NULL, NULL, &trainer),
               NNC_STATUS_INVALID_ARGUMENT, "model");
  options.learning_rate = 0;
  EXPECT_ERROR(nnc_trainer_create(model, &options, NULL, &trainer),
               NNC_STATUS_INVALID_ARGUMENT, "learning_rate must be positive");
  nnc_train_options_initialize(&options);
  options.loss = NNC_LOSS_MSE;
  options.label_smoothing = 0.1;
  EXPECT_ERROR(nnc_trainer_create(model, &options, NULL, &trainer),
               NNC_STATUS_INVALID_ARGUMENT, "cross-entropy loss only");
  options.label_smoothing = 0;
  options.accumulate = 0;
  EXPECT_ERROR(nnc_trainer_create(model, &options, NULL, &trainer),
               NNC_STATUS_INVALID_ARGUMENT, "accumulate must be at least 1");
  options.accumulate = 1;
  options.output = "z";
  EXPECT_ERROR(nnc_trainer_create(model, &options, NULL, &trainer),
               NNC_STATUS_INVALID_ARGUMENT, "no result named 'z'");
  options.output = NULL;
  options.struct_size = 1;
  EXPECT_ERROR(nnc_trainer_create(model, &options, NULL, &trainer),
               NNC_STATUS_INVALID_ARGUMENT, "struct_size");
  CHECK(trainer == NULL);

  /* SGD, lr 0.5: loss = mean((x w - t)^2) over 12 elements is 1 with
   * x = 1, w = 1, t = 0; dL/dw_j = 2 * 4 / 12, so w becomes 2/3. */
  nnc_train_options_initialize(&options);
  options.loss = NNC_LOSS_MSE;
  options.optimizer = NNC_OPTIMIZER_SGD;
  options.learning_rate = 0.5;
  EXPECT_OK(nnc_trainer_create(model, &options, &compile, &trainer));
  if (!trainer)
    goto done;
  CHECK(nnc_trainer_data_count(trainer) == 2);
  EXPECT_OK(nnc_trainer_data_info(trainer, 1, &value_info));
  CHECK(value_info && value_info->dtype == NNC_DTYPE_F32 &&
        value_info->rank == 2 && value_info->dims[0] == -1);
  EXPECT_ERROR(nnc_trainer_data_info(trainer, 2, &value_info),
               NNC_STATUS_OUT_OF_RANGE, "past the 2");
  CHECK(nnc_trainer_parameter_count(trainer) == 1);
  EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, ones,
                                   sizeof(ones), &x));
  EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, zeros,
                                   sizeof(zeros), &t));
  data[0] = x;
  data[1] = t;
  memset(&info, 0, sizeof(info));
  info.struct_size = sizeof(info);
  /* A parameter handed out before a step shows the value after it. */
  EXPECT_OK(nnc_trainer_parameter(trainer, 0, NULL, &param));
  EXPECT_OK(nnc_trainer_step(trainer, 2, data, &info));
  CHECK(param && close_to(((const float *)nnc_tensor_const_data(param))[2],
                          2.0 / 3.0));
  CHECK(close_to(info.loss, 1.0));
  CHECK(info.applied == 1 && info.skipped == 0 && info.step == 1);
  CHECK(info.compiled == 1 && close_to(info.learning_rate, 0.5));
  EXPECT_OK(nnc_trainer_parameter(trainer, 0, &value_info, &param));
  CHECK(value_info && strcmp(value_info->name, "w") == 0 &&
        value_info->kind == NNC_VALUE_TRAINABLE);
  CHECK(param && close_to(((const float *)nnc_tensor_const_data(param))[2],
                          2.0 / 3.0));
  CHECK(nnc_trainer_step_count(trainer) == 1);

  /* Gradients without an update: 2 * 4 * (2/3) / 12 per weight. */
  EXPECT_OK(nnc_trainer_gradients(trainer, 2, data, &loss, 1, &grad));
  CHECK(close_to(loss, 4.0 / 9.0));
  CHECK(grad && close_to(((float *)nnc_tensor_data(grad))[0], 4.0 / 9.0));
  CHECK(nnc_trainer_step_count(trainer) == 1);
  EXPECT_OK(nnc_trainer_evaluate(trainer, 1, data, 1, &y));
  CHECK(y && close_to(((float *)nnc_tensor_data(y))[11], 2.0 / 3.0));

  /* Data that does not fit, named. */
  wrong[0] = t;
  wrong[1] = NULL;
  EXPECT_ERROR(nnc_trainer_step(trainer, 1, data, NULL),
               NNC_STATUS_INVALID_ARGUMENT, "expected 2 data tensors, got 1");
  EXPECT_ERROR(nnc_trainer_step(trainer, 2, wrong, NULL),
               NNC_STATUS_INVALID_ARGUMENT, "is NULL");
  EXPECT_ERROR(nnc_trainer_gradients(trainer, 2, data, &loss, 2, &grad),
               NNC_STATUS_INVALID_ARGUMENT, "1 trainable parameters");

  /* Checkpoints: a second trainer picks up step count, parameters and the
   * caller's metadata; a damaged file changes nothing. */
  snprintf(path, sizeof(path), "%s/train.ckpt", dir);
  EXPECT_OK(nnc_trainer_save_checkpoint(trainer, path, 1, keys, values));
  EXPECT_OK(nnc_trainer_create(model, &options, &compile, &second));
  if (second) {
    CHECK(nnc_trainer_checkpoint_metadata(second, "data.epoch") == NULL);
    EXPECT_OK(nnc_trainer_load_checkpoint(second, path));
    CHECK(nnc_trainer_step_count(second) == 1);
    CHECK(nnc_trainer_checkpoint_metadata(second, "data.epoch") &&
          strcmp(nnc_trainer_checkpoint_metadata(second, "data.epoch"),
                 "3") == 0);
    EXPECT_OK(nnc_trainer_parameter(second, 0, NULL, &param));
    CHECK(param && close_to(((const float *)nnc_tensor_const_data(param))[0],
                            2.0 / 3.0));
    snprintf(damaged, sizeof(damaged), "%s/damaged.ckpt", dir);
    file = fopen(damaged, "wb");
    if (file) {
      fputs("PK not a checkpoint", file);
      fclose(file);
    }
    EXPECT_ERROR(nnc_trainer_load_checkpoint(second, damaged),
                 NNC_STATUS_INVALID_ARGUMENT, "not a checkpoint");
    /* The real one cut short. */
    file = fopen(path, "rb");
    if (file) {
      static char bytes[1 << 16];
      size_t n = fread(bytes, 1, sizeof(bytes), file);
      FILE *out = fopen(damaged, "wb");
      fclose(file);
      if (out) {
        fwrite(bytes, 1, n - 7, out);
        fclose(out);
      }
    }
    EXPECT_ERROR(nnc_trainer_load_checkpoint(second, damaged),
                 NNC_STATUS_DATA_LOSS, "damaged.ckpt");
    CHECK(nnc_trainer_step_count(second) == 1);
    remove(damaged);
  }
  nnc_trainer_destroy(second);
  second = NULL;

  /* Another optimizer cannot resume from it. */
  options.optimizer = NNC_OPTIMIZER_ADAM;
  EXPECT_OK(nnc_trainer_create(model, &options, &compile, &second));
  if (second)
    EXPECT_ERROR(nnc_trainer_load_checkpoint(second, path),
                 NNC_STATUS_INVALID_ARGUMENT, "another model or training");
  nnc_trainer_destroy(second);
  second = NULL;

  /* Accumulation: no update until the second call, and no checkpoint in
   * between. */
  options.optimizer = NNC_OPTIMIZER_SGD;
  options.accumulate = 2;
  EXPECT_OK(nnc_trainer_create(model, &options, &compile, &second));
  if (second) {
    int32_t compiled = 0;
    nnc_trainer_t *loaded = NULL;
    snprintf(damaged, sizeof(damaged), "%s/trainer.nncx", dir);
    /* Nothing to save before its functions exist; prepare compiles them
     * (gradient, apply and evaluation) without a step. */
    EXPECT_ERROR(nnc_trainer_save(second, damaged), NNC_STATUS_INVALID_ARGUMENT,
                 "no compiled programs");
    CHECK(nnc_trainer_output_count(second) == 0);
    EXPECT_OK(nnc_trainer_prepare(second, 2, data, 1, &compiled));
    CHECK(compiled == 1 && nnc_trainer_output_count(second) == 1);
    EXPECT_OK(nnc_trainer_prepare(second, 2, data, 1, &compiled));
    CHECK(compiled == 0);
    EXPECT_OK(nnc_trainer_step(second, 2, data, &info));
    CHECK(info.applied == 0 && info.step == 0 && info.compiled == 0);
    EXPECT_ERROR(nnc_trainer_save_checkpoint(second, path, 0, NULL, NULL),
                 NNC_STATUS_INVALID_ARGUMENT, "accumulation");
    EXPECT_ERROR(nnc_trainer_save(second, damaged), NNC_STATUS_INVALID_ARGUMENT,
                 "accumulation");
    EXPECT_OK(nnc_trainer_step(second, 2, data, &info));
    CHECK(info.applied == 1 && info.step == 1);
    EXPECT_OK(nnc_trainer_parameter(second, 0, NULL, &param));
    CHECK(param && close_to(((const float *)nnc_tensor_const_data(param))[1],
                            2.0 / 3.0));
    /* Saved and loaded, it trains on as the original does. */
    EXPECT_OK(nnc_trainer_save(second, damaged));
    EXPECT_OK(nnc_trainer_load_file(damaged, &loaded));
    if (loaded) {
      const nnc_tensor_t *mine = NULL, *theirs = NULL;
      CHECK(nnc_trainer_step_count(loaded) == 1);
      EXPECT_OK(nnc_trainer_step(loaded, 2, data, NULL));
      EXPECT_OK(nnc_trainer_step(loaded, 2, data, &info));
      CHECK(info.applied == 1 && info.step == 2 && info.compiled == 0);
      EXPECT_OK(nnc_trainer_step(second, 2, data, NULL));
      EXPECT_OK(nnc_trainer_step(second, 2, data, NULL));
      EXPECT_OK(nnc_trainer_parameter(second, 0, NULL, &mine));
      EXPECT_OK(nnc_trainer_parameter(loaded, 0, NULL, &theirs));
      CHECK(mine && theirs &&
            memcmp(nnc_tensor_const_data(mine), nnc_tensor_const_data(theirs),
                   nnc_tensor_byte_size(mine)) == 0);
    }
    nnc_trainer_destroy(loaded);
    remove(damaged);
  }
  nnc_trainer_destroy(second);
  remove(path);

done:
  nnc_tensor_destroy(grad);
  nnc_tensor_destroy(y);
  nnc_tensor_destroy(x);
  nnc_tensor_destroy(t);
  nnc_trainer_destroy(trainer);
  nnc_model_destroy(model);
  nnc_context_destroy(context);
}

/* A step whose gradients are not finite is skipped, changes nothing, and
 * names the first value that was not finite: here the input, an inf in x. */
/* target = "cuda": a malformed variant is refused before anything runs; with
 * no driver, the compile fails naming it (before NVRTC runs); and when CTest
 * hands over the emulated driver (NNC_CAPI_TEST_CUDA_DRIVER: a plain build),
 * an executable and a trainer run on the CUDA device and give the closed
 * forms of test_training. */
static void test_cuda_target(const char *dir) {
  nnc_context_t *context = NULL;
  nnc_model_t *model = NULL;
  nnc_executable_t *executable = NULL;
  nnc_trainer_t *trainer = NULL, *loaded = NULL;
  nnc_compile_options_t compile;
  nnc_train_options_t options;
  nnc_tensor_t *x = NULL, *t = NULL;
  nnc_shape_t shape;
  char path[4200];
  const nnc_tensor_t *loadedParam = NULL;
  nnc_tensor_t *outputs[1] = {NULL};
  const nnc_tensor_t *inputs[1];
  const nnc_tensor_t *data[2];
  const nnc_tensor_t *param = NULL;
  nnc_step_info_t info;
  int64_t dims[2] = {4, 3};
  float ones[12], zeros[12];
  const char *emulator = getenv("NNC_CAPI_TEST_CUDA_DRIVER");
  const char *old = getenv("NNC_CUDA_DRIVER");
  char *saved = old ? strdup(old) : NULL;
  int i;

  for (i = 0; i < 12; ++i) {
    ones[i] = 1.0f;
    zeros[i] = 0.0f;
  }
  shape.rank = 2;
  shape.dims = dims;
  EXPECT_OK(nnc_context_create(NULL, &context));
  if (!context)
    goto done;
  EXPECT_OK(nnc_model_parse_mlir(context, train_mlir, sizeof(train_mlir) - 1,
                                 "train.mlir", &model));
  if (!model)
    goto done;
  nnc_compile_options_initialize(&compile);
  compile.cache_dir = "";
  /* CUDA graphs need a device that records them. */
  compile.cuda_graph = 1;
  EXPECT_ERROR(nnc_model_compile(model, &compile, 1, &shape, &executable),
               NNC_STATUS_INVALID_ARGUMENT,
               "graph replay (CUDA graphs) needs a device that records graphs");
  compile.cuda_graph = 0;
  /* Nor can a loaded program on the CPU switch to graphs. */
  EXPECT_OK(nnc_model_compile(model, &compile, 1, &shape, &executable));
  if (executable)
    EXPECT_ERROR(nnc_executable_enable_cuda_graph(executable),
                 NNC_STATUS_UNIMPLEMENTED,
                 "graph replay needs a device that records graphs");
  nnc_executable_destroy(executable);
  executable = NULL;
  EXPECT_ERROR(nnc_executable_enable_cuda_graph(NULL),
               NNC_STATUS_INVALID_ARGUMENT, "executable");
  EXPECT_ERROR(nnc_trainer_enable_cuda_graph(NULL),
               NNC_STATUS_INVALID_ARGUMENT, "trainer");
  compile.target = "cuda:gpu";
  EXPECT_ERROR(nnc_model_compile(model, &compile, 1, &shape, &executable),
               NNC_STATUS_INVALID_ARGUMENT, "after 'cuda:' comes a device");
  compile.target = "cuda";
  setenv("NNC_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
  EXPECT_ERROR(nnc_model_compile(model, &compile, 1, &shape, &executable),
               NNC_STATUS_UNAVAILABLE, "/nonexistent/libcuda.so.1");
  nnc_train_options_initialize(&options);
  options.loss = NNC_LOSS_MSE;
  options.optimizer = NNC_OPTIMIZER_SGD;
  options.learning_rate = 0.5;
  EXPECT_ERROR(nnc_trainer_create(model, &options, &compile, &trainer),
               NNC_STATUS_UNAVAILABLE, "cannot load the CUDA driver");
  CHECK(executable == NULL && trainer == NULL);
  if (!emulator || !*emulator)
    goto done;

  setenv("NNC_CUDA_DRIVER", emulator, 1);
  EXPECT_OK(nnc_model_compile(model, &compile, 1, &shape, &executable));
  EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, ones,
                                   sizeof(ones), &x));
  EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, zeros,
                                   sizeof(zeros), &t));
  if (executable) {
    /* y = x * w with w = 1 (its value in the model) on the device. */
    inputs[0] = x;
    EXPECT_OK(nnc_executable_run(executable, 1, inputs, 1, outputs));
    CHECK(outputs[0] && close_to(((float *)nnc_tensor_data(outputs[0]))[11],
                                 1.0));
    /* Switched to a graph after an eager run (as a loaded .nncx is): the
     * next run records it, the one after replays it with new inputs. */
    EXPECT_OK(nnc_executable_enable_cuda_graph(executable));
    EXPECT_OK(nnc_executable_enable_cuda_graph(executable));
    for (i = 0; i < 2; ++i) {
      ones[7] = (float)(i + 5);
      nnc_tensor_destroy(outputs[0]);
      outputs[0] = NULL;
      EXPECT_OK(nnc_executable_run(executable, 1, inputs, 1, outputs));
      CHECK(outputs[0] &&
            close_to(((float *)nnc_tensor_data(outputs[0]))[7], i + 5.0));
    }
    ones[7] = 1.0f;
  }
  /* The same as a CUDA graph: recorded on the first run, replayed on the
   * second, with new inputs copied in. */
  nnc_executable_destroy(executable);
  executable = NULL;
  compile.cuda_graph = 1;
  EXPECT_OK(nnc_model_compile(model, &compile, 1, &shape, &executable));
  compile.cuda_graph = 0;
  if (executable) {
    for (i = 0; i < 2; ++i) {
      ones[5] = (float)(i + 2);
      nnc_tensor_destroy(outputs[0]);
      outputs[0] = NULL;
      inputs[0] = x;
      EXPECT_OK(nnc_executable_run(executable, 1, inputs, 1, outputs));
      CHECK(outputs[0] &&
            close_to(((float *)nnc_tensor_data(outputs[0]))[5], i + 2.0));
    }
    ones[5] = 1.0f;
  }
  EXPECT_OK(nnc_trainer_create(model, &options, &compile, &trainer));
  if (trainer) {
    data[0] = x;
    data[1] = t;
    memset(&info, 0, sizeof(info));
    info.struct_size = sizeof(info);
    EXPECT_OK(nnc_trainer_step(trainer, 2, data, &info));
    CHECK(close_to(info.loss, 1.0) && info.applied == 1);
    EXPECT_OK(nnc_trainer_parameter(trainer, 0, NULL, &param));
    CHECK(param && close_to(((const float *)nnc_tensor_const_data(param))[2],
                            2.0 / 3.0));
    EXPECT_OK(nnc_trainer_step(trainer, 2, data, &info));
    /* w = 2/3 - 0.5 * 2 * 4 * (2/3) / 12 = 4/9. */
    CHECK(param && close_to(((const float *)nnc_tensor_const_data(param))[0],
                            4.0 / 9.0));
    /* A trainer that compiles takes graphs as a compile option; a saved
     * one, loaded, switches to them: its next steps equal the original's
     * launch by launch. */
    EXPECT_ERROR(nnc_trainer_enable_cuda_graph(trainer),
                 NNC_STATUS_INVALID_ARGUMENT, "compile option");
    snprintf(path, sizeof(path), "%s/cuda-trainer.nncx", dir);
    EXPECT_OK(nnc_trainer_save(trainer, path));
    EXPECT_OK(nnc_trainer_load_file(path, &loaded));
    remove(path);
    if (loaded) {
      EXPECT_OK(nnc_trainer_enable_cuda_graph(loaded));
      for (i = 0; i < 2; ++i) {
        EXPECT_OK(nnc_trainer_step(trainer, 2, data, &info));
        EXPECT_OK(nnc_trainer_step(loaded, 2, data, &info));
      }
      EXPECT_OK(nnc_trainer_parameter(trainer, 0, NULL, &param));
      EXPECT_OK(nnc_trainer_parameter(loaded, 0, NULL, &loadedParam));
      CHECK(param && loadedParam &&
            memcmp(nnc_tensor_const_data(param),
                   nnc_tensor_const_data(loadedParam),
                   3 * sizeof(float)) == 0 &&
            !close_to(((const float *)nnc_tensor_const_data(param))[0],
                      4.0 / 9.0));
    }
  }

done:
  if (saved) {
    setenv("NNC_CUDA_DRIVER", saved, 1);
    free(saved);
  } else {
    unsetenv("NNC_CUDA_DRIVER");
  }
  nnc_trainer_destroy(trainer);
  nnc_trainer_destroy(loaded);
  nnc_tensor_destroy(outputs[0]);
  nnc_tensor_destroy(x);
  nnc_tensor_destroy(t);
  nnc_executable_destroy(executable);
  nnc_model_destroy(model);
  nnc_context_destroy(context);
}

static void test_skipped_step(void) {
  nnc_context_t *context = NULL;
  nnc_model_t *model = NULL;
  nnc_trainer_t *trainer = NULL;
  nnc_train_options_t options;
  nnc_compile_options_t compile;
  nnc_step_info_t info;
  nnc_mixed_precision_t amp;
  nnc_tuned_kernel_t tuned;
  const nnc_tensor_t *param = NULL;
  nnc_tensor_t *x = NULL, *t = NULL;
  const nnc_tensor_t *data[2];
  int64_t dims[2] = {4, 3};
  float xs[12], zeros[12], before[3];
  size_t i;

  for (i = 0; i < 12; ++i) {
    xs[i] = 1.0f;
    zeros[i] = 0.0f;
  }
  nnc_train_options_initialize(&options);
  CHECK(options.name_nonfinite == 1);
  options.loss = NNC_LOSS_MSE;
  options.loss_scale = 0; /* dynamic */
  nnc_compile_options_initialize(&compile);
  compile.cache_dir = "";
  EXPECT_OK(nnc_context_create(NULL, &context));
  if (!context)
    return;
  EXPECT_OK(nnc_model_parse_mlir(context, train_mlir, sizeof(train_mlir) - 1,
                                 "train.mlir", &model));
  if (model)
    EXPECT_OK(nnc_trainer_create(model, &options, &compile, &trainer));
  if (!trainer)
    goto done;
  EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, xs, sizeof(xs), &x));
  EXPECT_OK(
      nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, zeros, sizeof(zeros), &t));
  data[0] = x;
  data[1] = t;
  memset(&info, 0, sizeof(info));
  info.struct_size = sizeof(info);
  EXPECT_OK(nnc_trainer_step(trainer, 2, data, &info));
  CHECK(info.skipped == 0 && info.nonfinite == NULL && info.step == 1);
  CHECK(info.loss_scale == 65536.0);
  EXPECT_OK(nnc_trainer_parameter(trainer, 0, NULL, &param));
  if (param)
    memcpy(before, nnc_tensor_const_data(param), sizeof(before));

  xs[4] = INFINITY;
  EXPECT_OK(nnc_trainer_step(trainer, 2, data, &info));
  CHECK(info.skipped == 1 && info.step == 1);
  CHECK(info.nonfinite &&
        strcmp(info.nonfinite, "input 'x' tensor<4x3xf32>") == 0);
  if (info.nonfinite)
    fprintf(stderr, "skipped step: %s (%.3f s)\n", info.nonfinite,
            info.probe_seconds);
  CHECK(info.probe_seconds > 0);
  EXPECT_OK(nnc_trainer_parameter(trainer, 0, NULL, &param));
  CHECK(param &&
        memcmp(before, nnc_tensor_const_data(param), sizeof(before)) == 0);

  /* The scale halved; a caller built before the non-finite fields passes
   * the older struct_size and gets the rest. */
  info.struct_size = offsetof(nnc_step_info_t, nonfinite);
  info.nonfinite = NULL;
  EXPECT_OK(nnc_trainer_step(trainer, 2, data, &info));
  CHECK(info.skipped == 1 && info.loss_scale == 32768.0);
  CHECK(info.nonfinite == NULL);
  info.struct_size = 3;
  EXPECT_ERROR(nnc_trainer_step(trainer, 2, data, &info),
               NNC_STATUS_INVALID_ARGUMENT, "struct_size");

  /* Training goes on with finite data. */
  xs[4] = 1.0f;
  info.struct_size = sizeof(info);
  EXPECT_OK(nnc_trainer_step(trainer, 2, data, &info));
  CHECK(info.skipped == 0 && info.step == 2 && info.loss_scale == 16384.0);
  CHECK(info.nonfinite == NULL);

  /* An f32 trainer's mixed-precision figures are all zero; a wrong
   * struct_size is refused. */
  memset(&amp, 0xff, sizeof(amp));
  amp.struct_size = sizeof(amp);
  EXPECT_OK(nnc_trainer_mixed_precision(trainer, &amp));
  CHECK(amp.struct_size == sizeof(amp) && amp.precision == NNC_PRECISION_F32 &&
        amp.low_ops == 0 && amp.casts == 0 && amp.narrowed_bytes == 0 &&
        amp.weight_copies == 0 && amp.weight_copy_bytes == 0);
  amp.struct_size = 1;
  EXPECT_ERROR(nnc_trainer_mixed_precision(trainer, &amp),
               NNC_STATUS_INVALID_ARGUMENT, "struct_size");
  EXPECT_ERROR(nnc_trainer_mixed_precision(trainer, NULL),
               NNC_STATUS_INVALID_ARGUMENT, "out");

  /* A model without convolutions has no kernels with candidates: none to
   * list, and an index is out of range (nnc-run-tuning.mlir lists some). */
  CHECK(nnc_trainer_tuned_kernel_count(trainer) == 0);
  CHECK(nnc_trainer_tuning_seconds(trainer) == 0.0);
  CHECK(nnc_trainer_tuned_kernel_count(NULL) == 0);
  memset(&tuned, 0, sizeof(tuned));
  tuned.struct_size = sizeof(tuned);
  EXPECT_ERROR(nnc_trainer_tuned_kernel(trainer, 0, &tuned),
               NNC_STATUS_INVALID_ARGUMENT,
               "index 0 is out of range (the trainer has 0 tuned kernels)");
  EXPECT_ERROR(nnc_trainer_tuned_kernel(NULL, 0, &tuned),
               NNC_STATUS_INVALID_ARGUMENT, "trainer");
  EXPECT_ERROR(nnc_trainer_tuned_kernel(trainer, 0, NULL),
               NNC_STATUS_INVALID_ARGUMENT, "out_kernel");

done:
  nnc_tensor_destroy(x);
  nnc_tensor_destroy(t);
  nnc_trainer_destroy(trainer);
  nnc_model_destroy(model);
  nnc_context_destroy(context);
}

/* Four tanh layers of 8 on a batch of 512: the activations make the
 * training step's peak. */
static const char remat_mlir[] =
    "func.func @main(%x: tensor<?x8xf32> loc(\"x\"),\n"
    "    %w1: tensor<8x8xf32> {nnc.param = #nnc.param<trainable>,\n"
    "      nnc.value = dense<0.1> : tensor<8x8xf32>} loc(\"w1\"),\n"
    "    %w2: tensor<8x8xf32> {nnc.param = #nnc.param<trainable>,\n"
    "      nnc.value = dense<0.2> : tensor<8x8xf32>} loc(\"w2\"),\n"
    "    %w3: tensor<8x8xf32> {nnc.param = #nnc.param<trainable>,\n"
    "      nnc.value = dense<-0.1> : tensor<8x8xf32>} loc(\"w3\"),\n"
    "    %w4: tensor<8x8xf32> {nnc.param = #nnc.param<trainable>,\n"
    "      nnc.value = dense<0.3> : tensor<8x8xf32>} loc(\"w4\"))\n"
    "    -> tensor<?x8xf32> attributes {nnc.result_names = [\"y\"]} {\n"
    "  %0 = nnc.matmul %x, %w1 : tensor<?x8xf32>, tensor<8x8xf32> "
    "loc(\"fc1\")\n"
    "  %1 = nnc.tanh %0 : tensor<?x8xf32> loc(\"tanh1\")\n"
    "  %2 = nnc.matmul %1, %w2 : tensor<?x8xf32>, tensor<8x8xf32> "
    "loc(\"fc2\")\n"
    "  %3 = nnc.tanh %2 : tensor<?x8xf32> loc(\"tanh2\")\n"
    "  %4 = nnc.matmul %3, %w3 : tensor<?x8xf32>, tensor<8x8xf32> "
    "loc(\"fc3\")\n"
    "  %5 = nnc.tanh %4 : tensor<?x8xf32> loc(\"tanh3\")\n"
    "  %6 = nnc.matmul %5, %w4 : tensor<?x8xf32>, tensor<8x8xf32> "
    "loc(\"fc4\")\n"
    "  return %6 : tensor<?x8xf32>\n}\n";

/* Trains two steps of remat_mlir with `fraction` of the planned peak or
 * `bytes` as the memory budget (both 0: none); leaves the first weight in
 * `w1` and the trainer in `*out` (caller destroys). */
static nnc_status_t train_with_budget(nnc_model_t *model, double fraction,
                                      uint64_t bytes, float *xs, float *ts,
                                      float w1[64], nnc_trainer_t **out) {
  nnc_train_options_t options;
  nnc_compile_options_t compile;
  nnc_tensor_t *x = NULL, *t = NULL;
  const nnc_tensor_t *data[2], *param = NULL;
  int64_t dims[2] = {512, 8};
  nnc_status_t status;
  int step;

  nnc_train_options_initialize(&options);
  CHECK(options.memory_budget_bytes == 0 &&
        options.memory_budget_fraction == 0.0 && options.sync_batch_norm == 0 &&
        options.weight_copies == 1);
  options.loss = NNC_LOSS_MSE;
  options.optimizer = NNC_OPTIMIZER_SGD;
  options.memory_budget_fraction = fraction;
  options.memory_budget_bytes = bytes;
  nnc_compile_options_initialize(&compile);
  compile.cache_dir = "";
  *out = NULL;
  status = nnc_trainer_create(model, &options, &compile, out);
  if (status)
    return status;
  EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, xs,
                                   512 * 8 * sizeof(float), &x));
  EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, ts,
                                   512 * 8 * sizeof(float), &t));
  data[0] = x;
  data[1] = t;
  for (step = 0; step < 2 && !status; ++step)
    status = nnc_trainer_step(*out, 2, data, NULL);
  if (!status) {
    EXPECT_OK(nnc_trainer_parameter(*out, 0, NULL, &param));
    if (param)
      memcpy(w1, nnc_tensor_const_data(param), 64 * sizeof(float));
  }
  nnc_tensor_destroy(x);
  nnc_tensor_destroy(t);
  return status;
}

static void test_memory_budget(void) {
  nnc_context_t *context = NULL;
  nnc_model_t *model = NULL;
  nnc_trainer_t *plain = NULL, *budgeted = NULL, *over = NULL;
  nnc_remat_stats_t stats;
  nnc_train_options_t options;
  static float xs[512 * 8], ts[512 * 8];
  float w1[64], w1_budgeted[64];
  char *text = NULL;
  size_t i;

  for (i = 0; i < 512 * 8; ++i) {
    xs[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
    ts[i] = (float)((i * 11) % 13) / 13.0f;
  }
  EXPECT_OK(nnc_context_create(NULL, &context));
  if (!context)
    return;
  EXPECT_OK(nnc_model_parse_mlir(context, remat_mlir, sizeof(remat_mlir) - 1,
                                 "remat.mlir", &model));
  if (!model)
    goto done;

  /* A fraction outside (0, 1] is refused when the trainer is made. */
  nnc_train_options_initialize(&options);
  options.memory_budget_fraction = 1.5;
  EXPECT_ERROR(nnc_trainer_create(model, &options, NULL, &over),
               NNC_STATUS_INVALID_ARGUMENT, "memory_budget_fraction");
  CHECK(over == NULL);

  EXPECT_OK(train_with_budget(model, 0, 0, xs, ts, w1, &plain));
  EXPECT_OK(train_with_budget(model, 0.9, 0, xs, ts, w1_budgeted, &budgeted));
  if (!plain || !budgeted)
    goto done;
  /* The same kernels on the same numbers: the same weights. */
  CHECK(memcmp(w1, w1_budgeted, sizeof(w1)) == 0);

  /* No budget: zeros. */
  memset(&stats, 0xff, sizeof(stats));
  stats.struct_size = sizeof(stats);
  EXPECT_OK(nnc_trainer_remat_stats(plain, &stats));
  CHECK(stats.struct_size == sizeof(stats) && stats.budget_bytes == 0 &&
        stats.peak_before_bytes == 0 && stats.recomputed_count == 0);

  stats.struct_size = sizeof(stats);
  EXPECT_OK(nnc_trainer_remat_stats(budgeted, &stats));
  fprintf(stderr,
          "memory budget %llu: planned peak %llu -> %llu, arena predicted "
          "%llu planned %llu, extra FLOPs %.0f of %.0f, %u recomputed\n",
          (unsigned long long)stats.budget_bytes,
          (unsigned long long)stats.peak_before_bytes,
          (unsigned long long)stats.peak_after_bytes,
          (unsigned long long)stats.predicted_arena_bytes,
          (unsigned long long)stats.planned_arena_bytes, stats.extra_flops,
          stats.flops, stats.recomputed_count);
  CHECK(stats.budget_bytes > 0 && stats.peak_before_bytes > stats.budget_bytes);
  CHECK(stats.peak_after_bytes <= stats.budget_bytes);
  CHECK(stats.recomputed_count > 0 && stats.extra_flops > 0 &&
        stats.extra_flops < stats.flops);
  CHECK(stats.planned_arena_bytes > 0 && stats.predicted_arena_bytes > 0);
  EXPECT_OK(nnc_trainer_remat_value(budgeted, 0, 0, &text));
  CHECK(text && strstr(text, "nnc.") && strstr(text, " bytes"));
  nnc_string_destroy(text);
  text = NULL;
  EXPECT_ERROR(
      nnc_trainer_remat_value(budgeted, 0, stats.recomputed_count, &text),
      NNC_STATUS_INVALID_ARGUMENT, "past the");
  EXPECT_ERROR(nnc_trainer_remat_value(budgeted, 1, 0, NULL),
               NNC_STATUS_INVALID_ARGUMENT, "out");
  stats.struct_size = 8;
  EXPECT_ERROR(nnc_trainer_remat_stats(budgeted, &stats),
               NNC_STATUS_INVALID_ARGUMENT, "struct_size");
  EXPECT_ERROR(nnc_trainer_remat_stats(NULL, &stats),
               NNC_STATUS_INVALID_ARGUMENT, "trainer");

  /* A budget nothing reaches fails the step that compiles, saying so. */
  EXPECT_ERROR(train_with_budget(model, 0, 1000, xs, ts, w1, &over),
               NNC_STATUS_INVALID_ARGUMENT, "cannot be met");

done:
  nnc_trainer_destroy(over);
  nnc_trainer_destroy(budgeted);
  nnc_trainer_destroy(plain);
  nnc_model_destroy(model);
  nnc_context_destroy(context);
}

/* What a training step of remat_mlir takes, and what a memory budget, bf16
 * and accumulation would make of it, planned without compiling; each figure
 * checked against a trainer that does what it says. */
static void test_memory_alternatives(const char *dir) {
  nnc_context_t *context = NULL;
  nnc_model_t *model = NULL;
  nnc_trainer_t *plain = NULL, *budgeted = NULL, *accumulating = NULL,
                *loaded = NULL;
  nnc_memory_alternatives_t alt, micro;
  nnc_executable_stats_t stats;
  nnc_train_options_t options;
  nnc_compile_options_t compile;
  nnc_tensor_t *x = NULL, *t = NULL, *half_x = NULL, *half_t = NULL,
               *narrow = NULL;
  const nnc_tensor_t *data[2], *half[2], *param = NULL;
  static float xs[512 * 8], ts[512 * 8];
  float w1[64];
  int64_t dims[2] = {512, 8}, half_dims[2] = {256, 8},
          narrow_dims[2] = {512, 7};
  uint64_t gradient_bytes = 0;
  char path[4200];
  size_t i;

  for (i = 0; i < 512 * 8; ++i) {
    xs[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
    ts[i] = (float)((i * 11) % 13) / 13.0f;
  }
  EXPECT_OK(nnc_context_create(NULL, &context));
  if (!context)
    return;
  EXPECT_OK(nnc_model_parse_mlir(context, remat_mlir, sizeof(remat_mlir) - 1,
                                 "remat.mlir", &model));
  if (model)
    EXPECT_OK(train_with_budget(model, 0, 0, xs, ts, w1, &plain));
  if (!plain)
    goto done;
  EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, xs, sizeof(xs), &x));
  EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, ts, sizeof(ts), &t));
  EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_F32, 2, half_dims, xs,
                                   sizeof(xs) / 2, &half_x));
  EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_F32, 2, half_dims, ts,
                                   sizeof(ts) / 2, &half_t));
  data[0] = x;
  data[1] = t;
  half[0] = half_x;
  half[1] = half_t;
  memset(&alt, 0, sizeof(alt));
  alt.struct_size = sizeof(alt);
  EXPECT_OK(nnc_trainer_memory_alternatives(plain, 2, data, &alt));
  fprintf(stderr,
          "memory alternatives: current %llu, budget %llu: %llu (+%.3f "
          "FLOPs), bf16 %llu, accumulate %lld: %llu (%.3f s)\n",
          (unsigned long long)alt.current_bytes,
          (unsigned long long)alt.budget_bytes,
          (unsigned long long)alt.budget_peak_bytes, alt.budget_extra_flops,
          (unsigned long long)alt.amp_bytes, (long long)alt.accumulate,
          (unsigned long long)alt.accumulate_bytes, alt.seconds);
  CHECK(alt.struct_size == sizeof(alt) && alt.seconds > 0);
  /* As configured: the peak of the step the trainer ran. */
  memset(&stats, 0, sizeof(stats));
  stats.struct_size = sizeof(stats);
  EXPECT_OK(nnc_trainer_step_stats(plain, &stats));
  CHECK(alt.current_bytes == stats.peak_memory_bytes);
  CHECK(alt.budget_bytes > 0 && alt.budget_bytes < alt.current_bytes);
  CHECK(alt.budget_peak_bytes > 0 && alt.budget_peak_bytes <= alt.budget_bytes);
  CHECK(alt.budget_extra_flops > 0 && alt.budget_extra_flops < 1);
  CHECK(alt.amp_bytes > 0 && alt.amp_bytes != alt.current_bytes);
  CHECK(alt.accumulate == 2 && alt.accumulate_bytes > 0 &&
        alt.accumulate_bytes < alt.current_bytes);

  /* A trainer given the budget meets it, at the figure said. */
  EXPECT_OK(
      train_with_budget(model, 0, alt.budget_bytes, xs, ts, w1, &budgeted));
  if (budgeted) {
    EXPECT_OK(nnc_trainer_step_stats(budgeted, &stats));
    CHECK(stats.peak_memory_bytes == alt.budget_peak_bytes);
  }

  /* Two micro-batches of 256: the gradient step's peak and the gradients
   * summed meanwhile (SGD without momentum holds no other state). */
  nnc_train_options_initialize(&options);
  options.loss = NNC_LOSS_MSE;
  options.optimizer = NNC_OPTIMIZER_SGD;
  options.accumulate = 2;
  nnc_compile_options_initialize(&compile);
  compile.cache_dir = "";
  EXPECT_OK(nnc_trainer_create(model, &options, &compile, &accumulating));
  if (accumulating) {
    EXPECT_OK(nnc_trainer_step(accumulating, 2, half, NULL));
    EXPECT_OK(nnc_trainer_step(accumulating, 2, half, NULL));
    EXPECT_OK(nnc_trainer_step_stats(accumulating, &stats));
    for (i = 0; i < nnc_trainer_parameter_count(accumulating); ++i)
      if (!nnc_trainer_parameter(accumulating, i, NULL, &param))
        gradient_bytes += nnc_tensor_byte_size(param);
    CHECK(alt.accumulate_bytes == stats.peak_memory_bytes + gradient_bytes);
    memset(&micro, 0, sizeof(micro));
    micro.struct_size = sizeof(micro);
    EXPECT_OK(nnc_trainer_memory_alternatives(accumulating, 2, half, &micro));
    CHECK(micro.current_bytes == alt.accumulate_bytes);
    CHECK(micro.accumulate == 4 &&
          micro.accumulate_bytes < alt.accumulate_bytes);
  }

  /* Data that does not fit, a short struct, a trainer without a compiler. */
  EXPECT_ERROR(nnc_trainer_memory_alternatives(plain, 1, data, &alt),
               NNC_STATUS_INVALID_ARGUMENT, "data tensors");
  EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_F32, 2, narrow_dims, xs,
                                   512 * 7 * sizeof(float), &narrow));
  data[0] = narrow;
  EXPECT_ERROR(nnc_trainer_memory_alternatives(plain, 2, data, &alt),
               NNC_STATUS_INVALID_ARGUMENT, "must be");
  data[0] = x;
  alt.struct_size = 8;
  EXPECT_ERROR(nnc_trainer_memory_alternatives(plain, 2, data, &alt),
               NNC_STATUS_INVALID_ARGUMENT, "struct_size");
  alt.struct_size = sizeof(alt);
  snprintf(path, sizeof(path), "%s/alternatives.nncx", dir);
  EXPECT_OK(nnc_trainer_save(plain, path));
  EXPECT_OK(nnc_trainer_load_file(path, &loaded));
  if (loaded)
    EXPECT_ERROR(nnc_trainer_memory_alternatives(loaded, 2, data, &alt),
                 NNC_STATUS_UNIMPLEMENTED, "loaded from a file");
  remove(path);

done:
  nnc_tensor_destroy(x);
  nnc_tensor_destroy(t);
  nnc_tensor_destroy(half_x);
  nnc_tensor_destroy(half_t);
  nnc_tensor_destroy(narrow);
  nnc_trainer_destroy(loaded);
  nnc_trainer_destroy(accumulating);
  nnc_trainer_destroy(budgeted);
  nnc_trainer_destroy(plain);
  nnc_model_destroy(model);
  nnc_context_destroy(context);
}

/* A loader transform that takes 15 ms per batch (a slow loader) and one that
 * fails on batch 2. */
static int32_t slow_transform(void *user_data, int64_t epoch, int64_t index,
                              size_t count, nnc_tensor_t *const *tensors) {
  struct timespec pause = {0, 15 * 1000 * 1000};
  (void)epoch;
  (void)index;
  ++*(int *)user_data;
  CHECK(count == 2 && tensors[0] && nnc_tensor_data(tensors[0]));
  nanosleep(&pause, NULL);
  return 0;
}

static int32_t failing_transform(void *user_data, int64_t epoch, int64_t index,
                                 size_t count, nnc_tensor_t *const *tensors) {
  (void)user_data;
  (void)epoch;
  (void)count;
  (void)tensors;
  return index == 2 ? 7 : 0;
}

static void test_monitor(void) {
  nnc_context_t *context = NULL;
  nnc_model_t *model = NULL;
  nnc_trainer_t *trainer = NULL;
  nnc_loader_t *loader = NULL, *failing = NULL;
  nnc_monitor_t *monitor = NULL, *bad = NULL;
  nnc_monitor_options_t options;
  nnc_loader_options_t loader_options;
  nnc_train_options_t train_options;
  nnc_compile_options_t compile;
  nnc_interval_stats_t stats;
  nnc_executable_stats_t step_stats;
  nnc_batch_t *batch = NULL;
  nnc_tensor_t *arrays[2] = {NULL, NULL};
  static float xs[64 * 8], ts[64 * 8];
  const char *names[2] = {"x", "labels"};
  int64_t dims[2] = {64, 8};
  uint32_t raised = 0;
  int transformed = 0, interval, step;
  size_t i;

  for (i = 0; i < 64 * 8; ++i) {
    xs[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
    ts[i] = (float)((i * 11) % 13) / 13.0f;
  }
  EXPECT_OK(nnc_context_create(NULL, &context));
  if (!context)
    return;
  EXPECT_OK(nnc_model_parse_mlir(context, remat_mlir, sizeof(remat_mlir) - 1,
                                 "remat.mlir", &model));
  nnc_train_options_initialize(&train_options);
  train_options.loss = NNC_LOSS_MSE;
  train_options.optimizer = NNC_OPTIMIZER_SGD;
  nnc_compile_options_initialize(&compile);
  compile.cache_dir = "";
  if (model)
    EXPECT_OK(nnc_trainer_create(model, &train_options, &compile, &trainer));
  EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, xs, sizeof(xs),
                                   &arrays[0]));
  EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, ts, sizeof(ts),
                                   &arrays[1]));
  nnc_loader_options_initialize(&loader_options);
  CHECK(loader_options.transform == NULL);
  loader_options.batch_size = 8;
  loader_options.workers = 1;
  loader_options.prefetch = 1;
  loader_options.transform = slow_transform;
  loader_options.transform_user_data = &transformed;
  EXPECT_OK(nnc_loader_create(2, names, (const nnc_tensor_t *const *)arrays,
                              &loader_options, &loader));
  if (!trainer || !loader)
    goto done;

  /* Bad arguments. */
  nnc_monitor_options_initialize(&options);
  options.data_wait_share = 0;
  EXPECT_ERROR(nnc_monitor_create(trainer, loader, &options, &bad),
               NNC_STATUS_INVALID_ARGUMENT, "data_wait_share");
  CHECK(bad == NULL);
  EXPECT_ERROR(nnc_monitor_create(NULL, loader, NULL, &bad),
               NNC_STATUS_INVALID_ARGUMENT, "trainer");
  options.struct_size = 3;
  EXPECT_ERROR(nnc_monitor_create(trainer, loader, &options, &bad),
               NNC_STATUS_INVALID_ARGUMENT, "struct_size");

  /* A memory limit of one byte and a kernel share any kernel passes: every
   * topic is raised, each once. */
  nnc_monitor_options_initialize(&options);
  options.memory_limit_bytes = 1;
  options.kernel_share = 0.01;
  EXPECT_OK(nnc_monitor_create(trainer, loader, &options, &monitor));
  if (!monitor)
    goto done;
  memset(&stats, 0, sizeof(stats));
  stats.struct_size = sizeof(stats) - 1;
  EXPECT_ERROR(nnc_monitor_interval(monitor, &stats),
               NNC_STATUS_INVALID_ARGUMENT, "struct_size");
  for (interval = 0; interval < 3; ++interval) {
    for (step = 0; step < 4; ++step) {
      const nnc_tensor_t *data[2];
      EXPECT_OK(nnc_loader_next(loader, &batch));
      if (!batch)
        goto done;
      data[0] = nnc_batch_tensor(batch, 0);
      data[1] = nnc_batch_tensor(batch, 1);
      EXPECT_OK(nnc_trainer_step(trainer, 2, data, NULL));
      nnc_batch_destroy(batch);
      batch = NULL;
    }
    memset(&stats, 0, sizeof(stats));
    stats.struct_size = sizeof(stats);
    EXPECT_OK(nnc_monitor_interval(monitor, &stats));
    /* The parts add up to the wall time, exactly as doubles add. */
    CHECK(stats.busy_seconds >= 0 && stats.data_wait_seconds >= 0 &&
          stats.other_seconds >= 0);
    CHECK(stats.busy_seconds + stats.data_wait_seconds + stats.other_seconds ==
          stats.wall_seconds);
    CHECK(stats.steps == 4 && stats.step == 4 * (interval + 1) &&
          stats.micro_batches == 4 && stats.samples == 32);
    CHECK(stats.samples_per_second > 0 &&
          fabs(stats.samples_per_second * stats.wall_seconds - 32) < 1e-6);
    CHECK(stats.resident_bytes > 0 &&
          stats.peak_resident_bytes >= stats.resident_bytes);
    CHECK(stats.memory_available_bytes == 1 && stats.memory_source &&
          strcmp(stats.memory_source, "the limit given") == 0);
    step_stats.struct_size = sizeof(step_stats);
    EXPECT_OK(nnc_trainer_step_stats(trainer, &step_stats));
    CHECK(stats.planned_peak_bytes == step_stats.peak_memory_bytes &&
          stats.planned_peak_bytes > 0);
    /* Four 15 ms batches on one worker against steps of microseconds. */
    if (interval > 0)
      CHECK(stats.data_wait_seconds > 0.02);
    CHECK((stats.advice & raised) == 0);
    CHECK((stats.advice != 0) == (stats.advice_text != NULL));
    if (stats.advice & NNC_ADVICE_DATA_WAIT)
      CHECK(strstr(stats.advice_text, "raise the loader's workers "
                                      "(--workers, now 1) or prefetch "
                                      "(--prefetch, now 1)") != NULL);
    if (stats.advice & NNC_ADVICE_MEMORY)
      CHECK(strstr(stats.advice_text, "memory is near its limit") != NULL);
    if (stats.advice & NNC_ADVICE_KERNELS)
      CHECK(strstr(stats.advice_text, "the step is dominated by") != NULL);
    raised |= stats.advice;
  }
  CHECK(raised ==
        (NNC_ADVICE_DATA_WAIT | NNC_ADVICE_MEMORY | NNC_ADVICE_KERNELS));
  CHECK(transformed >= 12);

  /* A transform that fails stops the loader with what it returned. */
  loader_options.transform = failing_transform;
  loader_options.transform_user_data = NULL;
  EXPECT_OK(nnc_loader_create(2, names, (const nnc_tensor_t *const *)arrays,
                              &loader_options, &failing));
  if (failing) {
    for (i = 0; i < 2; ++i) {
      EXPECT_OK(nnc_loader_next(failing, &batch));
      nnc_batch_destroy(batch);
      batch = NULL;
    }
    EXPECT_ERROR(nnc_loader_next(failing, &batch), NNC_STATUS_INTERNAL,
                 "transform returned 7 on batch 2 of epoch 0");
    CHECK(batch == NULL);
  }

done:
  nnc_batch_destroy(batch);
  nnc_monitor_destroy(monitor);
  nnc_loader_destroy(failing);
  nnc_loader_destroy(loader);
  nnc_tensor_destroy(arrays[0]);
  nnc_tensor_destroy(arrays[1]);
  nnc_trainer_destroy(trainer);
  nnc_model_destroy(model);
  nnc_context_destroy(context);
}

static void test_loader(const char *dir) {
  char path[4096];
  int64_t dims[2] = {5, 2};
  int64_t label_dims[1] = {5};
  float xs[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  int64_t labels[5] = {0, 1, 2, 3, 4};
  nnc_tensor_t *x = NULL, *y = NULL;
  const nnc_tensor_t *tensors[2];
  const char *names[2] = {"x", "labels"};
  const char *order[2] = {"labels", "x"};
  const char *missing[1] = {"z"};
  const char *twice[2] = {"x", "x"};
  nnc_loader_options_t options;
  nnc_loader_t *loader = NULL;
  nnc_batch_t *batch = NULL;
  int64_t epoch = -1, index = -1;
  int seen[5] = {0, 0, 0, 0, 0};
  int b;

  EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, xs, sizeof(xs),
                                   &x));
  EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_I64, 1, label_dims, labels,
                                   sizeof(labels), &y));
  tensors[0] = x;
  tensors[1] = y;
  snprintf(path, sizeof(path), "%s/data.npz", dir);
  EXPECT_OK(nnc_npz_write(path, 2, names, tensors));
  nnc_loader_options_initialize(&options);
  CHECK(options.batch_size == 32 && options.shuffle == 1);
  options.batch_size = 2;
  options.seed = 5;

  EXPECT_ERROR(nnc_loader_create_npz(path, 1, missing, &options, &loader),
               NNC_STATUS_NOT_FOUND, "no array 'z' (it has 'x', 'labels')");
  EXPECT_ERROR(nnc_loader_create_npz(path, 2, twice, &options, &loader),
               NNC_STATUS_INVALID_ARGUMENT, "asked for twice");
  options.batch_size = 0;
  EXPECT_ERROR(nnc_loader_create_npz(path, 2, order, &options, &loader),
               NNC_STATUS_INVALID_ARGUMENT, "");
  options.batch_size = 2;
  EXPECT_OK(nnc_loader_create_npz(path, 2, order, &options, &loader));
  if (!loader)
    goto done;
  CHECK(nnc_loader_sample_count(loader) == 5);
  CHECK(nnc_loader_batches_per_epoch(loader) == 3);
  /* One epoch covers every sample once, arrays in the asked order, rows
   * of one sample together. */
  for (b = 0; b < 3; ++b) {
    const nnc_tensor_t *l, *v;
    int64_t r;
    EXPECT_OK(nnc_loader_next(loader, &batch));
    if (!batch)
      break;
    CHECK(nnc_batch_epoch(batch) == 0 && nnc_batch_index(batch) == b);
    CHECK(nnc_batch_size(batch) == (b == 2 ? 1 : 2));
    CHECK(nnc_batch_tensor_count(batch) == 2);
    CHECK(nnc_batch_tensor(batch, 2) == NULL);
    l = nnc_batch_tensor(batch, 0);
    v = nnc_batch_tensor(batch, 1);
    CHECK(nnc_tensor_dtype(l) == NNC_DTYPE_I64 && nnc_tensor_rank(v) == 2);
    for (r = 0; r < nnc_batch_size(batch); ++r) {
      int64_t label =
          ((const int64_t *)nnc_tensor_const_data(l))[r];
      float first = ((const float *)nnc_tensor_const_data(v))[2 * r];
      if (label >= 0 && label < 5)
        seen[label] += 1;
      CHECK(first == (float)(2 * label));
    }
    nnc_batch_destroy(batch);
    batch = NULL;
  }
  CHECK(seen[0] == 1 && seen[1] == 1 && seen[2] == 1 && seen[3] == 1 &&
        seen[4] == 1);
  nnc_loader_position(loader, &epoch, &index);
  CHECK(epoch == 1 && index == 0);
  EXPECT_OK(nnc_loader_seek(loader, 4, 1));
  EXPECT_OK(nnc_loader_next(loader, &batch));
  CHECK(batch && nnc_batch_epoch(batch) == 4 && nnc_batch_index(batch) == 1);
  CHECK(nnc_loader_wait_seconds(loader) >= 0.0);
  /* A batch may outlive its loader. */
  nnc_loader_destroy(loader);
  CHECK(batch && nnc_tensor_dims(nnc_batch_tensor(batch, 1))[1] == 2);
  nnc_batch_destroy(batch);

done:
  remove(path);
  nnc_tensor_destroy(x);
  nnc_tensor_destroy(y);
}

/* The profiler records compiles and kernels while started. */
/* autotune=on and what the check of the whole program reports: each
 * kernel's program_check agrees with its choice, and the executable's check
 * with the kernels (docs/Autotuning.md). Which candidates win depends on
 * the machine; what must hold does not. */
static const char two_matmuls_mlir[] =
    "func.func @main(%x: tensor<64x96xf32> loc(\"x\"),\n"
    "    %w: tensor<96x96xf32> {nnc.param = #nnc.param<frozen>,\n"
    "        nnc.value = dense<0.01> : tensor<96x96xf32>} loc(\"w\"))\n"
    "    -> tensor<64x96xf32> {\n"
    "  %0 = nnc.matmul %x, %w : tensor<64x96xf32>, tensor<96x96xf32>\n"
    "  %1 = nnc.relu %0 : tensor<64x96xf32>\n"
    "  %2 = nnc.matmul %1, %w : tensor<64x96xf32>, tensor<96x96xf32>\n"
    "  return %2 : tensor<64x96xf32>\n}\n";

static void test_tuning_check(const char *dir) {
  nnc_context_t *context = NULL;
  nnc_model_t *model = NULL;
  nnc_executable_t *executable = NULL;
  nnc_compile_options_t compile;
  nnc_tuning_check_t check;
  nnc_tuned_kernel_t kernel;
  char db[4096];
  size_t i, count, changed = 0, kept = 0, turned_down = 0;

  snprintf(db, sizeof(db), "%s/check.nnctune", dir);
  nnc_compile_options_initialize(&compile);
  compile.cache_dir = "";
  compile.autotune = NNC_AUTOTUNE_ON;
  compile.tuning_database = db;
  EXPECT_OK(nnc_context_create(NULL, &context));
  if (context)
    EXPECT_OK(nnc_model_parse_mlir(context, two_matmuls_mlir,
                                   sizeof(two_matmuls_mlir) - 1,
                                   "two_matmuls.mlir", &model));
  if (model)
    EXPECT_OK(nnc_model_compile(model, &compile, 0, NULL, &executable));
  if (executable) {
    count = nnc_executable_tuned_kernel_count(executable);
    CHECK(count == 2);
    for (i = 0; i < count; ++i) {
      memset(&kernel, 0, sizeof(kernel));
      kernel.struct_size = sizeof(kernel);
      EXPECT_OK(nnc_executable_tuned_kernel(executable, i, &kernel));
      CHECK(kernel.source == 2);
      CHECK(kernel.program_check >= 0 && kernel.program_check <= 2);
      /* Kept: another candidate compiles; turned down: the default. */
      if (kernel.program_check == 1)
        CHECK(strcmp(kernel.choice, kernel.default_choice) != 0);
      if (kernel.program_check == 2)
        CHECK(strcmp(kernel.choice, kernel.default_choice) == 0);
      changed += strcmp(kernel.choice, kernel.default_choice) != 0;
      kept += kernel.program_check == 1;
      turned_down += kernel.program_check == 2;
    }
    memset(&check, 0, sizeof(check));
    check.struct_size = sizeof(check);
    EXPECT_OK(nnc_executable_tuning_check(executable, &check));
    /* The two matmuls are one kernel (one key): at most one change. */
    if (kept + turned_down) {
      CHECK(check.checked == 1 && check.skipped == 0);
      CHECK(check.changes == 1);
      CHECK(check.kept == (int32_t)(kept ? 1 : 0));
      CHECK(check.variants == 1);
      CHECK(check.default_ms > 0 && check.tuned_ms > 0);
      CHECK(!kept || check.tuned_ms <= check.default_ms * 0.95);
      CHECK(kept || check.tuned_ms > check.default_ms * 0.95);
    } else {
      /* The default measured fastest: nothing to check. */
      CHECK(changed == 0 && check.checked == 0);
    }
    CHECK(changed == kept);

    /* Misuse. */
    EXPECT_ERROR(nnc_executable_tuning_check(NULL, &check),
                 NNC_STATUS_INVALID_ARGUMENT, "'executable'");
    EXPECT_ERROR(nnc_executable_tuning_check(executable, NULL),
                 NNC_STATUS_INVALID_ARGUMENT, "'out'");
    check.struct_size = sizeof(check) - 1;
    EXPECT_ERROR(nnc_executable_tuning_check(executable, &check),
                 NNC_STATUS_INVALID_ARGUMENT, "struct_size");
    nnc_executable_destroy(executable);
    executable = NULL;
  }
  /* From the database, there is nothing to check. */
  compile.autotune = NNC_AUTOTUNE_REQUIRE;
  if (model)
    EXPECT_OK(nnc_model_compile(model, &compile, 0, NULL, &executable));
  if (executable) {
    memset(&check, 0, sizeof(check));
    check.struct_size = sizeof(check);
    EXPECT_OK(nnc_executable_tuning_check(executable, &check));
    CHECK(check.checked == 0);
    CHECK(nnc_executable_tuned_kernel_count(executable) == 2);
    memset(&kernel, 0, sizeof(kernel));
    kernel.struct_size = sizeof(kernel);
    EXPECT_OK(nnc_executable_tuned_kernel(executable, 0, &kernel));
    CHECK(kernel.source == 1 && kernel.program_check == 0);
    CHECK((strcmp(kernel.choice, kernel.default_choice) != 0) ==
          (kept != 0));
    nnc_executable_destroy(executable);
  }
  nnc_model_destroy(model);
  nnc_context_destroy(context);
  remove(db);
  snprintf(db, sizeof(db), "%s/check.nnctune.lock", dir);
  remove(db);
}

static void test_profiler(void) {
  nnc_context_t *context = NULL;
  nnc_model_t *model = NULL;
  nnc_executable_t *executable = NULL;
  nnc_compile_options_t compile;
  nnc_profile_event_t event;
  text_buffer table = {NULL, 0, 0};
  size_t i, count, kernels = 0, compiles = 0;

  nnc_profiler_start();
  nnc_compile_options_initialize(&compile);
  compile.cache_dir = "";
  EXPECT_OK(nnc_context_create(NULL, &context));
  if (context)
    EXPECT_OK(nnc_model_parse_mlir(context, train_mlir, sizeof(train_mlir) - 1,
                                   "train.mlir", &model));
  if (model) {
    int64_t dims[2] = {4, 3};
    nnc_shape_t shape;
    shape.rank = 2;
    shape.dims = dims;
    EXPECT_OK(nnc_model_compile(model, &compile, 1, &shape, &executable));
  }
  if (executable) {
    int64_t dims[2] = {4, 3};
    float data[12] = {0};
    nnc_tensor_t *x = NULL, *y = NULL;
    const nnc_tensor_t *inputs[1];
    EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, data,
                                     sizeof(data), &x));
    inputs[0] = x;
    EXPECT_OK(nnc_executable_run(executable, 1, inputs, 1, &y));
    nnc_tensor_destroy(x);
    nnc_tensor_destroy(y);
  }
  nnc_profiler_stop();
  count = nnc_profiler_event_count();
  for (i = 0; i < count; ++i) {
    EXPECT_OK(nnc_profiler_event(i, &event));
    CHECK(event.name && event.category && event.duration_ns >= 0);
    /* The kernel is named after what it computes and where its op is. */
    if (strcmp(event.category, "kernel") == 0 &&
        strcmp(event.name, "main/generic: train.mlir:5") == 0)
      ++kernels;
    if (strcmp(event.category, "compile") == 0)
      ++compiles;
  }
  CHECK(kernels == 1 && compiles == 1);
  EXPECT_ERROR(nnc_profiler_event(count, &event), NNC_STATUS_OUT_OF_RANGE,
               "past the");
  EXPECT_OK(nnc_profiler_summary(append_text, &table));
  CHECK(table.text && strstr(table.text, "main/generic: train.mlir:5"));
  free(table.text);
  EXPECT_ERROR(nnc_profiler_write_trace("/nonexistent/nnc/trace.json"),
               NNC_STATUS_UNAVAILABLE, "/nonexistent/nnc/trace.json");
  nnc_executable_destroy(executable);
  nnc_model_destroy(model);
  nnc_context_destroy(context);
}

/* One rank of the data-parallel check below, in a process of its own:
 * SGD at lr 0.5 on y = x * w with w = 1, mean squared error against 0;
 * rank r's batch is 4 rows of r + 1. The averaged gradient of both ranks
 * is that of the 8 rows together: 2/24 * (4 * 1 + 4 * 4) = 5/3 per weight,
 * so w becomes 1 - 0.5 * 5/3 = 1/6 on both. Returns the exit status. */
static int run_rank(int rank, int port) {
  nnc_context_t *context = NULL;
  nnc_model_t *model = NULL;
  nnc_trainer_t *trainer = NULL;
  nnc_train_options_t options;
  nnc_compile_options_t compile;
  nnc_distributed_options_t dist;
  nnc_distributed_info_t info;
  nnc_distributed_bucket_t bucket;
  nnc_step_info_t step;
  const nnc_tensor_t *param = NULL;
  nnc_tensor_t *x = NULL, *t = NULL;
  const nnc_tensor_t *data[2];
  int64_t dims[2] = {4, 3};
  float xs[12], zeros[12];
  int i;

  for (i = 0; i < 12; ++i) {
    xs[i] = (float)(rank + 1);
    zeros[i] = 0.0f;
  }
  nnc_train_options_initialize(&options);
  options.loss = NNC_LOSS_MSE;
  options.optimizer = NNC_OPTIMIZER_SGD;
  options.learning_rate = 0.5;
  nnc_compile_options_initialize(&compile);
  compile.cache_dir = "";
  EXPECT_OK(nnc_context_create(NULL, &context));
  if (context)
    EXPECT_OK(nnc_model_parse_mlir(context, train_mlir, sizeof(train_mlir) - 1,
                                   "train.mlir", &model));
  if (model)
    EXPECT_OK(nnc_trainer_create(model, &options, &compile, &trainer));
  if (trainer) {
    nnc_distributed_options_initialize(&dist);
    dist.from_environment = 0;
    dist.rank = rank;
    dist.world_size = 2;
    dist.master_port = port;
    dist.timeout_seconds = 60;
    EXPECT_OK(nnc_trainer_distribute(trainer, &dist));
    info.struct_size = sizeof(info);
    EXPECT_OK(nnc_trainer_distributed_info(trainer, &info));
    CHECK(info.rank == rank && info.world_size == 2);
    CHECK(strstr(info.backend, "gloo") != NULL);
    EXPECT_ERROR(nnc_trainer_distribute(trainer, &dist),
                 NNC_STATUS_INVALID_ARGUMENT, "already distributed");
    EXPECT_OK(
        nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, xs, sizeof(xs), &x));
    EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_F32, 2, dims, zeros,
                                     sizeof(zeros), &t));
    data[0] = x;
    data[1] = t;
    memset(&step, 0, sizeof(step));
    step.struct_size = sizeof(step);
    EXPECT_OK(nnc_trainer_step(trainer, 2, data, &step));
    CHECK(step.applied && step.step == 1);
    EXPECT_OK(nnc_trainer_parameter(trainer, 0, NULL, &param));
    if (param) {
      const float *w = (const float *)nnc_tensor_const_data(param);
      for (i = 0; i < 3; ++i)
        CHECK(close_to(w[i], 1.0 / 6.0));
    }
    EXPECT_OK(nnc_trainer_distributed_info(trainer, &info));
    CHECK(info.reductions == 1 && info.buckets == 1 &&
          info.bytes_per_step == 12 && info.buffer_bytes_per_step == 0);
    CHECK(info.seconds > 0 && info.exposed_seconds > 0);
    CHECK(info.gradient_steps > 0 && info.program_collectives_per_step == 0);
    bucket.struct_size = sizeof(bucket);
    EXPECT_OK(nnc_trainer_distributed_bucket(trainer, 0, &bucket));
    CHECK(bucket.gradients == 1 && bucket.bytes == 12);
    CHECK(bucket.ready_step >= -1 && bucket.ready_step < info.gradient_steps);
    CHECK(strcmp(bucket.first_gradient, bucket.last_gradient) == 0);
    EXPECT_ERROR(nnc_trainer_distributed_bucket(trainer, 1, &bucket),
                 NNC_STATUS_OUT_OF_RANGE, "bucket 1 of 1");
    bucket.struct_size = 0;
    EXPECT_ERROR(nnc_trainer_distributed_bucket(trainer, 0, &bucket),
                 NNC_STATUS_INVALID_ARGUMENT, "struct_size");
  }
  nnc_tensor_destroy(x);
  nnc_tensor_destroy(t);
  nnc_trainer_destroy(trainer);
  nnc_model_destroy(model);
  nnc_context_destroy(context);
  return failed ? 1 : 0;
}

/* Launch options, checked without joining; then two ranks, each a new
 * process running this program's run_rank. */
static void test_distributed(const char *self) {
  nnc_distributed_options_t dist;
  nnc_distributed_info_t info;
  nnc_loader_options_t loader;
  struct sockaddr_in address;
  socklen_t length = sizeof(address);
  pid_t ranks[2];
  int fd, port = 0, r;

  nnc_distributed_options_initialize(&dist);
  CHECK(dist.from_environment == 1 && dist.world_size == 1 &&
        dist.master_port == 29500 && dist.bucket_bytes == 25 << 20 &&
        dist.broadcast_buffers == 1 && dist.overlap == 1);
  nnc_loader_options_initialize(&loader);
  CHECK(loader.shard_index == 0 && loader.shard_count == 1);
  dist.from_environment = 0;
  dist.rank = 1;
  dist.world_size = 3;
  info.struct_size = sizeof(info);
  EXPECT_OK(nnc_distributed_launch(&dist, &info));
  CHECK(info.rank == 1 && info.world_size == 3 && info.reductions == 0 &&
        info.backend && !*info.backend);
  dist.rank = 3;
  EXPECT_ERROR(nnc_distributed_launch(&dist, &info),
               NNC_STATUS_INVALID_ARGUMENT,
               "rank 3 is not a rank of a world of 3");
  dist.rank = 0;
  dist.bucket_bytes = 0;
  EXPECT_ERROR(nnc_distributed_launch(&dist, &info),
               NNC_STATUS_INVALID_ARGUMENT, "bucket_bytes 0 is not positive");
  dist.bucket_bytes = 1024;
  dist.timeout_seconds = 0;
  EXPECT_ERROR(nnc_distributed_launch(&dist, &info),
               NNC_STATUS_INVALID_ARGUMENT, "timeout_seconds");
  dist.struct_size = 3;
  EXPECT_ERROR(nnc_distributed_launch(&dist, &info),
               NNC_STATUS_INVALID_ARGUMENT, "struct_size");
  info.struct_size = 1;
  EXPECT_ERROR(nnc_distributed_launch(NULL, &info), NNC_STATUS_INVALID_ARGUMENT,
               "struct_size");

  /* Shards: 5 samples in order, padded to 6 with sample 0, batches of 2
   * per shard; shard r's batch i is piece r of the 4-row global batch i
   * (the last global batch, 2 rows, gives each shard one). */
  {
    const int64_t expected[2][3] = {{0, 1, 4}, {2, 3, 0}};
    int64_t dims[1] = {5}, values[5] = {0, 1, 2, 3, 4};
    const char *names[1] = {"v"};
    nnc_tensor_t *v = NULL;
    const nnc_tensor_t *arrays[1];
    int shard;
    EXPECT_OK(nnc_tensor_create_view(NNC_DTYPE_I64, 1, dims, values,
                                     sizeof(values), &v));
    arrays[0] = v;
    loader.batch_size = 2;
    loader.shuffle = 0;
    loader.workers = 1;
    loader.shard_count = 2;
    for (shard = 0; shard < 2 && v; ++shard) {
      nnc_loader_t *l = NULL;
      nnc_batch_t *batch = NULL;
      int row = 0, b;
      loader.shard_index = shard;
      EXPECT_OK(nnc_loader_create(1, names, arrays, &loader, &l));
      if (!l)
        continue;
      CHECK(nnc_loader_batches_per_epoch(l) == 2);
      for (b = 0; b < 2; ++b) {
        int64_t k;
        EXPECT_OK(nnc_loader_next(l, &batch));
        if (!batch)
          break;
        CHECK(nnc_batch_size(batch) == (b == 0 ? 2 : 1));
        for (k = 0; k < nnc_batch_size(batch); ++k, ++row)
          CHECK(((const int64_t *)nnc_tensor_const_data(
                    nnc_batch_tensor(batch, 0)))[k] == expected[shard][row]);
        nnc_batch_destroy(batch);
        batch = NULL;
      }
      nnc_loader_destroy(l);
    }
    loader.shard_index = 2;
    {
      nnc_loader_t *l = NULL;
      EXPECT_ERROR(nnc_loader_create(1, names, arrays, &loader, &l),
                   NNC_STATUS_INVALID_ARGUMENT, "shard 2 of 2 is not a shard");
      loader.shard_index = 0;
      loader.shard_count = 6;
      EXPECT_ERROR(nnc_loader_create(1, names, arrays, &loader, &l),
                   NNC_STATUS_INVALID_ARGUMENT,
                   "the 5 samples cannot be split into 6 shards");
    }
    nnc_tensor_destroy(v);
  }

  fd = socket(AF_INET, SOCK_STREAM, 0);
  memset(&address, 0, sizeof(address));
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && bind(fd, (struct sockaddr *)&address, sizeof(address)) == 0 &&
      getsockname(fd, (struct sockaddr *)&address, &length) == 0)
    port = ntohs(address.sin_port);
  if (fd >= 0)
    close(fd);
  CHECK(port > 0);
  if (port <= 0)
    return;
  for (r = 0; r < 2; ++r) {
    char rank_text[16], port_text[16];
    snprintf(rank_text, sizeof(rank_text), "%d", r);
    snprintf(port_text, sizeof(port_text), "%d", port);
    ranks[r] = fork();
    if (ranks[r] == 0) {
      execl(self, self, "--rank", rank_text, port_text, (char *)NULL);
      _exit(127);
    }
  }
  for (r = 0; r < 2; ++r) {
    int status = 0;
    CHECK(ranks[r] > 0 && waitpid(ranks[r], &status, 0) == ranks[r] &&
          WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
}

int main(int argc, char **argv) {
  char dir[4096];
  if (argc == 4 && strcmp(argv[1], "--rank") == 0)
    return run_rank(atoi(argv[2]), atoi(argv[3]));
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof(dir), "%s/nnc-capi-test-XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_basics();
  test_tuning_database(dir);
  test_model();
  test_import_errors();
  test_model_file(dir);
  test_integer_inputs();
  test_tensors(dir);
  test_onnx_tensors(dir);
  test_npz(dir);
  test_graph();
  test_parse_mlir();
  test_constant_weights();
  test_training(dir);
  test_cuda_target(dir);
  test_skipped_step();
  test_memory_budget();
  test_memory_alternatives(dir);
  test_loader(dir);
  test_monitor();
  test_tuning_check(dir);
  test_profiler();
  test_distributed("/proc/self/exe");
  rmdir(dir);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
