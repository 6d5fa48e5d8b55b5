/*===- chargpt.c - train a character-level GPT and sample from it --------===*
 *
 * The second example of nnc, written against the public C API only
 * (include/nnc-c/nnc.h): imports examples/chargpt/model.onnx, trains it with
 * a compiled training step (AdamW, cosine schedule with warm-up) on batches
 * a data loader prepares on worker threads, reports the validation loss
 * before and after, and prints text sampled from the trained model, one
 * character per run of the inference function.
 *
 * usage: nnc-chargpt MODEL.onnx TRAIN.npz VAL.npz [STEPS [SAMPLE_CHARS]]
 *
 *===----------------------------------------------------------------------===*/

#include "nnc-c/nnc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SEQ = 32, VOCAB = 97, BATCH = 32, EVAL_SAMPLES = 256 };

static int fail(const char *what, nnc_status_t status) {
  fprintf(stderr, "nnc-chargpt: %s: %s\n", what, nnc_status_message(status));
  nnc_status_destroy(status);
  return 1;
}

/* The character of an id (docs: examples/chargpt/README.md). */
static char decode(int64_t id) {
  if (id == 0)
    return '\n';
  if (id >= 1 && id <= 95)
    return (char)(id + 31);
  return '?';
}

/* Mean cross-entropy of the model on the first EVAL_SAMPLES windows of the
 * validation set, in one run of the inference function. */
static nnc_status_t validation_loss(nnc_trainer_t *trainer,
                                    nnc_tensor_t *tokens,
                                    const nnc_tensor_t *labels,
                                    double *out) {
  nnc_tensor_t *window = NULL, *logits = NULL;
  const nnc_tensor_t *inputs[1];
  int64_t dims[2] = {EVAL_SAMPLES, SEQ};
  const int64_t *label_data = (const int64_t *)nnc_tensor_const_data(labels);
  const float *l;
  double total = 0;
  int64_t row, c;
  nnc_status_t status = nnc_tensor_create_view(
      NNC_DTYPE_I64, 2, dims, nnc_tensor_data(tokens),
      sizeof(int64_t) * EVAL_SAMPLES * SEQ, &window);
  if (status)
    return status;
  inputs[0] = window;
  status = nnc_trainer_evaluate(trainer, 1, inputs, 1, &logits);
  nnc_tensor_destroy(window);
  if (status)
    return status;
  l = (const float *)nnc_tensor_const_data(logits);
  for (row = 0; row < EVAL_SAMPLES * SEQ; ++row) {
    const float *r = l + row * VOCAB;
    double max = r[0], sum = 0;
    for (c = 1; c < VOCAB; ++c)
      if (r[c] > max)
        max = r[c];
    for (c = 0; c < VOCAB; ++c)
      sum += exp(r[c] - max);
    total += log(sum) + max - r[label_data[row]];
  }
  *out = total / (EVAL_SAMPLES * SEQ);
  nnc_tensor_destroy(logits);
  return NULL;
}

/* Appends `count` characters to the window `context` (SEQ ids): each from
 * the distribution the model predicts after the window, at temperature
 * 0.8, the window sliding by one. */
static nnc_status_t sample(nnc_trainer_t *trainer, int64_t *context,
                           int count) {
  int64_t dims[2] = {1, SEQ};
  unsigned long long state = 12345;
  int i, c;
  for (i = 0; i < count; ++i) {
    nnc_tensor_t *window = NULL, *logits = NULL;
    const nnc_tensor_t *inputs[1];
    const float *last;
    double weights[VOCAB], total = 0, pick, max;
    nnc_status_t status =
        nnc_tensor_create_view(NNC_DTYPE_I64, 2, dims, context,
                               sizeof(int64_t) * SEQ, &window);
    if (status)
      return status;
    inputs[0] = window;
    status = nnc_trainer_evaluate(trainer, 1, inputs, 1, &logits);
    nnc_tensor_destroy(window);
    if (status)
      return status;
    last = (const float *)nnc_tensor_const_data(logits) + (SEQ - 1) * VOCAB;
    max = last[0];
    for (c = 1; c < VOCAB; ++c)
      if (last[c] > max)
        max = last[c];
    for (c = 0; c < VOCAB; ++c)
      total += weights[c] = exp((last[c] - max) / 0.8);
    /* A 64-bit LCG is plenty for picking characters. */
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    pick = (double)(state >> 11) / 9007199254740992.0 * total;
    for (c = 0; c < VOCAB - 1 && pick >= weights[c]; ++c)
      pick -= weights[c];
    nnc_tensor_destroy(logits);
    putchar(decode(c));
    memmove(context, context + 1, sizeof(int64_t) * (SEQ - 1));
    context[SEQ - 1] = c;
  }
  return NULL;
}

int main(int argc, char **argv) {
  nnc_context_t *context = NULL;
  nnc_model_t *model = NULL;
  nnc_trainer_t *trainer = NULL;
  nnc_loader_t *loader = NULL;
  nnc_train_options_t options;
  nnc_loader_options_t loader_options;
  nnc_status_t status;
  const char *names[2] = {"tokens", "labels"};
  size_t count = 0, i;
  char **val_names = NULL;
  nnc_tensor_t **val = NULL;
  nnc_tensor_t *val_tokens = NULL;
  const nnc_tensor_t *val_labels = NULL;
  int64_t steps = argc > 4 ? atoll(argv[4]) : 500, step;
  int chars = argc > 5 ? atoi(argv[5]) : 300;
  int64_t prompt[SEQ];
  double before = 0, after = 0, running = 0;
  int result = 1;

  if (argc < 4 || steps < 1 || chars < 0) {
    fprintf(stderr, "usage: nnc-chargpt MODEL.onnx TRAIN.npz VAL.npz "
                    "[STEPS [SAMPLE_CHARS]]\n");
    return 2;
  }
  if ((status = nnc_context_create(NULL, &context)))
    return fail("context", status);
  if ((status = nnc_model_import_onnx_file(context, argv[1], NULL, &model))) {
    result = fail(argv[1], status);
    goto done;
  }
  nnc_train_options_initialize(&options);
  options.optimizer = NNC_OPTIMIZER_ADAMW;
  options.learning_rate = 3e-3;
  options.weight_decay = 0.01;
  options.schedule = NNC_LR_COSINE;
  options.warmup_steps = steps / 10;
  options.total_steps = steps;
  options.min_learning_rate = 3e-4;
  if ((status = nnc_trainer_create(model, &options, NULL, &trainer))) {
    result = fail("trainer", status);
    goto done;
  }
  nnc_loader_options_initialize(&loader_options);
  loader_options.batch_size = BATCH;
  if ((status = nnc_loader_create_npz(argv[2], 2, names, &loader_options,
                                      &loader))) {
    result = fail(argv[2], status);
    goto done;
  }
  if ((status = nnc_npz_read(argv[3], &count, &val_names, &val))) {
    result = fail(argv[3], status);
    goto done;
  }
  for (i = 0; i < count; ++i) {
    if (strcmp(val_names[i], "tokens") == 0)
      val_tokens = val[i];
    if (strcmp(val_names[i], "labels") == 0)
      val_labels = val[i];
  }
  if (!val_tokens || !val_labels ||
      nnc_tensor_dims(val_tokens)[0] < EVAL_SAMPLES) {
    fprintf(stderr, "nnc-chargpt: %s needs tokens and labels of at least "
                    "%d windows\n",
            argv[3], EVAL_SAMPLES);
    goto done;
  }

  if ((status = validation_loss(trainer, val_tokens, val_labels, &before))) {
    result = fail("evaluate", status);
    goto done;
  }
  printf("validation loss before training: %.3f\n", before);
  fflush(stdout);
  for (step = 1; step <= steps; ++step) {
    nnc_batch_t *batch = NULL;
    const nnc_tensor_t *data[2];
    nnc_step_info_t info;
    if ((status = nnc_loader_next(loader, &batch))) {
      result = fail("data", status);
      goto done;
    }
    data[0] = nnc_batch_tensor(batch, 0);
    data[1] = nnc_batch_tensor(batch, 1);
    memset(&info, 0, sizeof(info));
    info.struct_size = sizeof(info);
    status = nnc_trainer_step(trainer, 2, data, &info);
    nnc_batch_destroy(batch);
    if (status) {
      result = fail("step", status);
      goto done;
    }
    running = step == 1 ? info.loss : 0.95 * running + 0.05 * info.loss;
    if (step % 50 == 0 || step == steps) {
      printf("step %lld/%lld: training loss %.3f (smoothed), lr %.2g\n",
             (long long)step, (long long)steps, running, info.learning_rate);
      fflush(stdout);
    }
  }
  if ((status = validation_loss(trainer, val_tokens, val_labels, &after))) {
    result = fail("evaluate", status);
    goto done;
  }
  printf("validation loss after %lld steps: %.3f\n", (long long)steps, after);

  /* Continue the first validation window. */
  memcpy(prompt, nnc_tensor_const_data(val_tokens), sizeof(prompt));
  printf("--- prompt ---\n");
  for (i = 0; i < SEQ; ++i)
    putchar(decode(prompt[i]));
  printf("\n--- sample ---\n");
  if ((status = sample(trainer, prompt, chars))) {
    result = fail("sample", status);
    goto done;
  }
  printf("\n---\n");
  result = after < before ? 0 : 1;
  if (result)
    fprintf(stderr, "nnc-chargpt: the validation loss did not go down\n");

done:
  for (i = 0; i < count; ++i) {
    nnc_string_destroy(val_names[i]);
    nnc_tensor_destroy(val[i]);
  }
  nnc_array_destroy(val_names);
  nnc_array_destroy(val);
  nnc_loader_destroy(loader);
  nnc_trainer_destroy(trainer);
  nnc_model_destroy(model);
  nnc_context_destroy(context);
  return result;
}
