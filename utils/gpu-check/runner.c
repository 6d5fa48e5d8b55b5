/*===- runner.c - the GPU check's runner, on libnnc_runtime alone --------===*
 *
 * Runs what utils/gpu-check.sh prepared (compiled here, where the compiler
 * is) on a machine that has only the runtime, through the C API of
 * nnc-c/runtime.h:
 *
 *   runner infer EXE.nncx INPUTS.npz OUTPUTS.npz RUNS [graph]
 *     runs the executable on the arrays of INPUTS.npz (archive order =
 *     input order), writes its outputs (out0, out1, ...), then runs it RUNS
 *     more times and prints the median milliseconds per run.
 *   runner train TRAINER.nncx DATA.npz BATCH STEPS PARAMS.npz [graph]
 *     takes STEPS steps of a saved trainer on DATA.npz in order (no
 *     shuffling, batches of BATCH), prints the first and last loss and the
 *     median milliseconds per step after the first, and writes the
 *     parameters and buffers by name.
 *
 * With `graph`, the executable or the trainer's programs run as CUDA
 * graphs (nnc_executable_enable_cuda_graph, nnc_trainer_enable_cuda_graph):
 * recorded on the first run, replayed after.
 *
 * Exit status 0 on success, 1 with the runtime's message on stderr.
 *
 *===----------------------------------------------------------------------===*/

#define _POSIX_C_SOURCE 199309L

#include "nnc-c/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int fail(const char *what, nnc_status_t status) {
  fprintf(stderr, "gpu-check runner: %s: %s\n", what,
          status ? nnc_status_message(status) : "failed");
  nnc_status_destroy(status);
  return 1;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int compareDoubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *values, size_t count) {
  if (count == 0)
    return 0;
  qsort(values, count, sizeof *values, compareDoubles);
  return count % 2 ? values[count / 2]
                   : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

static int infer(const char *exePath, const char *inPath, const char *outPath,
                 long runs, int graph) {
  nnc_executable_t *exe = NULL;
  nnc_status_t status = nnc_executable_load_file(exePath, &exe);
  if (status)
    return fail(exePath, status);
  if (graph && (status = nnc_executable_enable_cuda_graph(exe)))
    return fail(exePath, status);
  size_t count = 0;
  char **names = NULL;
  nnc_tensor_t **inputs = NULL;
  if ((status = nnc_npz_read(inPath, &count, &names, &inputs)))
    return fail(inPath, status);
  if (count != nnc_executable_input_count(exe)) {
    fprintf(stderr, "gpu-check runner: %s holds %zu arrays; %s takes %zu\n",
            inPath, count, exePath, nnc_executable_input_count(exe));
    return 1;
  }
  size_t numOutputs = nnc_executable_output_count(exe);
  nnc_tensor_t **outputs = calloc(numOutputs, sizeof *outputs);
  double *times = calloc(runs > 0 ? runs : 1, sizeof *times);
  if ((status = nnc_executable_run(exe, count,
                                   (const nnc_tensor_t *const *)inputs,
                                   numOutputs, outputs)))
    return fail("run", status);
  char **outNames = calloc(numOutputs, sizeof *outNames);
  for (size_t i = 0; i < numOutputs; ++i) {
    outNames[i] = malloc(32);
    snprintf(outNames[i], 32, "out%zu", i);
  }
  if ((status = nnc_npz_write(outPath, numOutputs,
                              (const char *const *)outNames,
                              (const nnc_tensor_t *const *)outputs)))
    return fail(outPath, status);
  for (long r = 0; r < runs; ++r) {
    nnc_tensor_t **again = calloc(numOutputs, sizeof *again);
    double start = now();
    if ((status = nnc_executable_run(exe, count,
                                     (const nnc_tensor_t *const *)inputs,
                                     numOutputs, again)))
      return fail("run", status);
    times[r] = (now() - start) * 1e3;
    for (size_t i = 0; i < numOutputs; ++i)
      nnc_tensor_destroy(again[i]);
    free(again);
  }
  printf("infer %s%s: %ld runs, median %.3f ms/run\n", exePath,
         graph ? " (CUDA graph)" : "", runs, median(times, runs));
  for (size_t i = 0; i < numOutputs; ++i) {
    nnc_tensor_destroy(outputs[i]);
    free(outNames[i]);
  }
  for (size_t i = 0; i < count; ++i) {
    nnc_tensor_destroy(inputs[i]);
    nnc_string_destroy(names[i]);
  }
  nnc_array_destroy(inputs);
  nnc_array_destroy(names);
  free(outputs);
  free(outNames);
  free(times);
  nnc_executable_destroy(exe);
  return 0;
}

static int train(const char *trainerPath, const char *dataPath, long batch,
                 long steps, const char *paramsPath, int graph) {
  nnc_trainer_t *trainer = NULL;
  nnc_status_t status = nnc_trainer_load_file(trainerPath, &trainer);
  if (status)
    return fail(trainerPath, status);
  if (graph && (status = nnc_trainer_enable_cuda_graph(trainer)))
    return fail(trainerPath, status);
  size_t count = nnc_trainer_data_count(trainer);
  const char **names = calloc(count, sizeof *names);
  for (size_t i = 0; i < count; ++i) {
    const nnc_value_info_t *info = NULL;
    if ((status = nnc_trainer_data_info(trainer, i, &info)))
      return fail("data info", status);
    names[i] = info->name ? info->name : "labels";
  }
  nnc_loader_options_t options;
  nnc_loader_options_initialize(&options);
  options.batch_size = batch;
  options.shuffle = 0;
  /* A saved trainer has no compiler: every batch must have the step's shape. */
  options.drop_last = 1;
  nnc_loader_t *loader = NULL;
  if ((status = nnc_loader_create_npz(dataPath, count, names, &options,
                                      &loader)))
    return fail(dataPath, status);
  double *times = calloc(steps, sizeof *times), firstLoss = 0, lastLoss = 0;
  for (long s = 0; s < steps; ++s) {
    nnc_batch_t *b = NULL;
    if ((status = nnc_loader_next(loader, &b)))
      return fail("data", status);
    const nnc_tensor_t **data = calloc(count, sizeof *data);
    for (size_t i = 0; i < count; ++i)
      data[i] = nnc_batch_tensor(b, i);
    nnc_step_info_t info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    double start = now();
    if ((status = nnc_trainer_step(trainer, count, data, &info)))
      return fail("step", status);
    times[s] = (now() - start) * 1e3;
    if (s == 0)
      firstLoss = info.loss;
    lastLoss = info.loss;
    free(data);
    nnc_batch_destroy(b);
  }
  printf("train %s%s: %ld steps of %ld, loss %.5f -> %.5f, first step %.1f "
         "ms, median %.3f ms/step after it\n",
         trainerPath, graph ? " (CUDA graphs)" : "", steps, batch, firstLoss,
         lastLoss, times[0],
         median(times + 1, steps > 1 ? steps - 1 : 0));
  size_t numParams = nnc_trainer_parameter_count(trainer);
  const char **paramNames = calloc(numParams, sizeof *paramNames);
  const nnc_tensor_t **values = calloc(numParams, sizeof *values);
  for (size_t i = 0; i < numParams; ++i) {
    const nnc_value_info_t *info = NULL;
    if ((status = nnc_trainer_parameter(trainer, i, &info, &values[i])))
      return fail("parameter", status);
    paramNames[i] = info->name;
  }
  if ((status = nnc_npz_write(paramsPath, numParams, paramNames, values)))
    return fail(paramsPath, status);
  free(paramNames);
  free(values);
  free(times);
  free(names);
  nnc_loader_destroy(loader);
  nnc_trainer_destroy(trainer);
  return 0;
}

/* A count from the command line: digits only, within [min, 1e9]. */
static int count(const char *text, long min, long *out) {
  char *end = NULL;
  long value = strtol(text, &end, 10);
  if (!*text || *end || value < min || value > 1000000000L) {
    fprintf(stderr, "gpu-check runner: '%s' is not a count >= %ld\n", text,
            min);
    return 0;
  }
  *out = value;
  return 1;
}

int main(int argc, char **argv) {
  long a = 0, b = 0;
  const char *mode = argc > 1 ? argv[1] : "";
  int infers = strcmp(mode, "infer") == 0, trains = strcmp(mode, "train") == 0;
  /* The optional last word. */
  int plain = infers ? 6 : 7;
  int graph = argc == plain + 1 && strcmp(argv[plain], "graph") == 0;
  if (infers && (argc == plain || graph))
    return count(argv[5], 0, &a) ? infer(argv[2], argv[3], argv[4], a, graph)
                                 : 2;
  if (trains && (argc == plain || graph))
    return count(argv[4], 1, &a) && count(argv[5], 1, &b)
               ? train(argv[2], argv[3], a, b, argv[6], graph)
               : 2;
  fprintf(stderr,
          "usage: runner infer EXE.nncx INPUTS.npz OUTPUTS.npz RUNS [graph]\n"
          "       runner train TRAINER.nncx DATA.npz BATCH STEPS PARAMS.npz "
          "[graph]\n");
  return 2;
}
