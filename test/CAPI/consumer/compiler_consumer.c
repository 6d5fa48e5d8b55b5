/*===- compiler_consumer.c - nnc.h from an install tree -----------*- C -*-===*\
|*                                                                            *|
|* Compiles y = x + b from MLIR text, runs it and saves the executable to     *|
|* argv[1] for runtime_consumer. Exits non-zero, saying why, on a failure.    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "nnc-c/nnc.h"

#include <stdio.h>
#include <string.h>

static const char model_text[] =
    "func.func @main(%x: tensor<2x3xf32> loc(\"x\"),\n"
    "                %b: tensor<3xf32> loc(\"b\")) -> tensor<2x3xf32> {\n"
    "  %0 = nnc.add %x, %b : tensor<2x3xf32>, tensor<3xf32>\n"
    "  return %0 : tensor<2x3xf32>\n"
    "}\n";

static int fail(nnc_status_t status) {
  fprintf(stderr, "compiler_consumer: %s\n", nnc_status_message(status));
  nnc_status_destroy(status);
  return 1;
}

int main(int argc, char **argv) {
  nnc_context_t *context = NULL;
  nnc_model_t *model = NULL;
  nnc_executable_t *executable = NULL;
  nnc_compile_options_t options;
  nnc_status_t status;
  float x[6] = {0, 1, 2, 3, 4, 5}, b[3] = {10, 20, 30};
  const int64_t x_dims[2] = {2, 3}, b_dims[1] = {3};
  nnc_tensor_t *inputs[2] = {NULL, NULL}, *y = NULL;
  const float *ys;

  if (argc != 2) {
    fprintf(stderr, "usage: compiler_consumer OUT.nncx\n");
    return 2;
  }
  if ((status = nnc_context_create(NULL, &context)))
    return fail(status);
  if ((status = nnc_model_parse_mlir(
           context, model_text, sizeof(model_text) - 1, "add.mlir", &model)))
    return fail(status);
  nnc_compile_options_initialize(&options);
  options.cache_dir = "";
  if ((status = nnc_model_compile(model, &options, 0, NULL, &executable)))
    return fail(status);
  if ((status = nnc_tensor_create_view(NNC_DTYPE_F32, 2, x_dims, x, sizeof(x),
                                       &inputs[0])) ||
      (status = nnc_tensor_create_view(NNC_DTYPE_F32, 1, b_dims, b, sizeof(b),
                                       &inputs[1])))
    return fail(status);
  if ((status = nnc_executable_run(executable, 2,
                                   (const nnc_tensor_t *const *)inputs, 1, &y)))
    return fail(status);
  ys = (const float *)nnc_tensor_const_data(y);
  if (ys[0] != 10.0f || ys[5] != 35.0f) {
    fprintf(stderr, "compiler_consumer: wrong output %g .. %g\n", ys[0], ys[5]);
    return 1;
  }
  if ((status = nnc_executable_save(executable, argv[1])))
    return fail(status);
  nnc_tensor_destroy(y);
  nnc_tensor_destroy(inputs[0]);
  nnc_tensor_destroy(inputs[1]);
  nnc_executable_destroy(executable);
  nnc_model_destroy(model);
  nnc_context_destroy(context);
  printf("compiler_consumer: ok\n");
  return 0;
}
