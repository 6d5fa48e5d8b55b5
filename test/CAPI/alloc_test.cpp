//===- alloc_test.cpp - training steps allocate no buffers ----------------===//
//
// Counts the heap allocations a steady-state training step makes, by
// interposing malloc and its relatives in this executable (they forward to
// glibc's). With the memory plan (temporaries at static offsets of one
// arena, reused by every run) and outputs written into the previous
// generation of the outputs (parameters and optimizer state are updated in
// place, their buffers never move), a step allocates no tensor, arena or
// kernel temporary: no aligned allocation (tensors and arenas use
// aligned_alloc) and nothing of 4 KiB or more (the model's temporaries are
// 64 KiB and up).
// Not built with the sanitizers, which interpose malloc themselves.
//
//===----------------------------------------------------------------------===//

#include "nnc-c/nnc.h"

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <execinfo.h>
#include <string>
#include <unistd.h>
#include <vector>

extern "C" {
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
void __libc_free(void *);
}

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0}, aligned{0}, large{0};
constexpr size_t kLarge = 4096;

void note(size_t bytes, bool isAligned) {
  if (!counting.load(std::memory_order_relaxed))
    return;
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (isAligned)
    aligned.fetch_add(1, std::memory_order_relaxed);
  if (bytes >= kLarge) {
    large.fetch_add(1, std::memory_order_relaxed);
    // NNC_ALLOC_TEST_BACKTRACE=1 says where each large allocation comes
    // from.
    static thread_local bool inside = false;
    if (getenv("NNC_ALLOC_TEST_BACKTRACE") && !inside) {
      inside = true;
      void *frames[16];
      int n = backtrace(frames, 16);
      backtrace_symbols_fd(frames, n, 2);
      write(2, "--\n", 3);
      inside = false;
    }
  }
}
} // namespace

extern "C" {
void *malloc(size_t n) {
  note(n, false);
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t size) {
  note(n * size, false);
  return __libc_calloc(n, size);
}
void *realloc(void *p, size_t n) {
  note(n, false);
  return __libc_realloc(p, n);
}
void free(void *p) { __libc_free(p); }
void *memalign(size_t alignment, size_t n) {
  note(n, true);
  return __libc_memalign(alignment, n);
}
void *aligned_alloc(size_t alignment, size_t n) {
  note(n, true);
  return __libc_memalign(alignment, n);
}
int posix_memalign(void **out, size_t alignment, size_t n) {
  note(n, true);
  void *p = __libc_memalign(alignment, n);
  if (!p)
    return ENOMEM;
  *out = p;
  return 0;
}
} // extern "C"

namespace {

int failures = 0;

void check(bool ok, const std::string &what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what.c_str());
    ++failures;
  }
}

bool ok(nnc_status_t status, const char *what) {
  if (!status)
    return true;
  std::printf("FAILED: %s: %s\n", what, nnc_status_message(status));
  nnc_status_destroy(status);
  ++failures;
  return false;
}

// A two-layer MLP (128 -> 256 -> 10) on batches of 64: its activations
// and gradients are 64 KiB and up.
const char kModel[] =
    "func.func @main(%x: tensor<?x128xf32> loc(\"x\"),\n"
    "    %w1: tensor<128x256xf32> {nnc.param = #nnc.param<trainable>,\n"
    "        nnc.value = dense<0.01> : tensor<128x256xf32>} loc(\"w1\"),\n"
    "    %w2: tensor<256x10xf32> {nnc.param = #nnc.param<trainable>,\n"
    "        nnc.value = dense<0.02> : tensor<256x10xf32>} loc(\"w2\"))\n"
    "    -> tensor<?x10xf32> attributes {nnc.result_names = [\"logits\"]} {\n"
    "  %h = nnc.matmul %x, %w1 : tensor<?x128xf32>, tensor<128x256xf32>\n"
    "  %r = nnc.relu %h : tensor<?x256xf32>\n"
    "  %y = nnc.matmul %r, %w2 : tensor<?x256xf32>, tensor<256x10xf32>\n"
    "  return %y : tensor<?x10xf32>\n"
    "}\n";

/// Steps update a batch norm's running statistics in place; computing
/// gradients leaves them as they were (they are not donated there).
void checkGradientsUpdateNothing(nnc_context_t *context) {
  static const char bn[] =
      "func.func @main(%x: tensor<?x2x3x3xf32> loc(\"x\"),\n"
      "    %s: tensor<2xf32> {nnc.param = #nnc.param<trainable>,\n"
      "        nnc.value = dense<1.0> : tensor<2xf32>} loc(\"s\"),\n"
      "    %b: tensor<2xf32> {nnc.param = #nnc.param<trainable>,\n"
      "        nnc.value = dense<0.0> : tensor<2xf32>} loc(\"b\"),\n"
      "    %m: tensor<2xf32> {nnc.param = #nnc.param<buffer>,\n"
      "        nnc.value = dense<0.0> : tensor<2xf32>} loc(\"m\"),\n"
      "    %v: tensor<2xf32> {nnc.param = #nnc.param<buffer>,\n"
      "        nnc.value = dense<1.0> : tensor<2xf32>} loc(\"v\"))\n"
      "    -> tensor<?x2xf32> attributes {nnc.result_names = [\"y\"]} {\n"
      "  %0 = nnc.batch_norm %x, %s, %b, %m, %v momentum = 0.5 : "
      "tensor<?x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, "
      "tensor<2xf32>\n"
      "  %1 = nnc.reduce mean %0 axes = [2, 3] keepdims = false : "
      "tensor<?x2x3x3xf32>\n"
      "  return %1 : tensor<?x2xf32>\n"
      "}\n";
  nnc_model_t *model = nullptr;
  nnc_trainer_t *trainer = nullptr;
  if (!ok(nnc_model_parse_mlir(context, bn, sizeof(bn) - 1, "bn.mlir", &model),
          "parse bn") ||
      !ok(nnc_trainer_create(model, nullptr, nullptr, &trainer), "bn trainer"))
    return;
  std::vector<float> x(4 * 2 * 9);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(i % 7) + 1.0f;
  std::vector<int64_t> labels = {0, 1, 0, 1};
  int64_t xDims[4] = {4, 2, 3, 3}, lDims[1] = {4};
  nnc_tensor_t *xt = nullptr, *lt = nullptr;
  ok(nnc_tensor_create_view(NNC_DTYPE_F32, 4, xDims, x.data(),
                            x.size() * sizeof(float), &xt),
     "bn x");
  ok(nnc_tensor_create_view(NNC_DTYPE_I64, 1, lDims, labels.data(),
                            labels.size() * sizeof(int64_t), &lt),
     "bn labels");
  const nnc_tensor_t *data[2] = {xt, lt};
  // The running mean is parameter 2 (after the two trainable ones).
  auto runningMean = [&]() {
    const nnc_value_info_t *info = nullptr;
    const nnc_tensor_t *value = nullptr;
    ok(nnc_trainer_parameter(trainer, 2, &info, &value), "running mean");
    const float *p =
        value ? static_cast<const float *>(nnc_tensor_const_data(value))
              : nullptr;
    return p ? std::vector<float>(p, p + 2) : std::vector<float>();
  };
  std::vector<float> before = runningMean();
  double loss = 0;
  nnc_tensor_t *grads[2] = {nullptr, nullptr};
  ok(nnc_trainer_gradients(trainer, 2, data, &loss, 2, grads), "gradients");
  check(runningMean() == before,
        "nnc_trainer_gradients leaves the running mean as it was");
  ok(nnc_trainer_step(trainer, 2, data, nullptr), "bn step");
  check(runningMean() != before, "a step updates the running mean");
  for (nnc_tensor_t *g : grads)
    nnc_tensor_destroy(g);
  nnc_tensor_destroy(xt);
  nnc_tensor_destroy(lt);
  nnc_trainer_destroy(trainer);
  nnc_model_destroy(model);
}

} // namespace

int main() {
  nnc_context_t *context = nullptr;
  nnc_model_t *model = nullptr;
  nnc_trainer_t *trainer = nullptr;
  if (!ok(nnc_context_create(nullptr, &context), "context") ||
      !ok(nnc_model_parse_mlir(context, kModel, sizeof(kModel) - 1, "mlp.mlir",
                               &model),
          "parse"))
    return 1;
  nnc_train_options_t options;
  nnc_train_options_initialize(&options);
  options.optimizer = NNC_OPTIMIZER_ADAM;
  options.learning_rate = 1e-3;
  nnc_compile_options_t compile;
  nnc_compile_options_initialize(&compile);
  compile.cache_dir = "";
  // One thread: OpenBLAS's threaded GEMM allocates a job queue per call
  // (the library's allocation, not nnc's).
  compile.num_threads = 1;
  if (!ok(nnc_trainer_create(model, &options, &compile, &trainer), "trainer"))
    return 1;

  const int64_t batch = 64;
  std::vector<float> x(batch * 128);
  std::vector<int64_t> labels(batch);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>((i * 7919) % 97) / 97.0f - 0.5f;
  for (int64_t i = 0; i < batch; ++i)
    labels[i] = i % 10;
  int64_t xDims[2] = {batch, 128}, lDims[1] = {batch};
  nnc_tensor_t *xt = nullptr, *lt = nullptr;
  ok(nnc_tensor_create_view(NNC_DTYPE_F32, 2, xDims, x.data(),
                            x.size() * sizeof(float), &xt),
     "x");
  ok(nnc_tensor_create_view(NNC_DTYPE_I64, 1, lDims, labels.data(),
                            labels.size() * sizeof(int64_t), &lt),
     "labels");
  const nnc_tensor_t *data[2] = {xt, lt};

  // Warm-up: the first step compiles and allocates the arena, the second
  // allocates the generation of outputs that later steps write into.
  double first = 0, last = 0;
  for (int step = 0; step < 3; ++step) {
    nnc_step_info_t info;
    std::memset(&info, 0, sizeof(info));
    info.struct_size = sizeof(info);
    ok(nnc_trainer_step(trainer, 2, data, &info), "warm-up step");
    if (step == 0)
      first = info.loss;
  }
  // The parameters are updated in place: their buffers stay where they are.
  std::vector<const void *> where;
  for (size_t i = 0; i < nnc_trainer_parameter_count(trainer); ++i) {
    const nnc_value_info_t *info = nullptr;
    const nnc_tensor_t *value = nullptr;
    ok(nnc_trainer_parameter(trainer, i, &info, &value), "parameter");
    where.push_back(value ? nnc_tensor_const_data(value) : nullptr);
  }
  allocations = aligned = large = 0;
  counting = true;
  const int steps = 20;
  for (int step = 0; step < steps; ++step) {
    nnc_step_info_t info;
    info.struct_size = sizeof(info);
    ok(nnc_trainer_step(trainer, 2, data, &info), "step");
    last = info.loss;
  }
  counting = false;
  for (size_t i = 0; i < where.size(); ++i) {
    const nnc_value_info_t *info = nullptr;
    const nnc_tensor_t *value = nullptr;
    ok(nnc_trainer_parameter(trainer, i, &info, &value), "parameter");
    check(value && nnc_tensor_const_data(value) == where[i],
          "parameter " + std::to_string(i) + " updated in place");
  }

  std::printf("%d steps: %ld allocations, %ld aligned, %ld of %zu bytes or "
              "more\n",
              steps, allocations.load(), aligned.load(), large.load(), kLarge);
  check(aligned == 0, "no tensor or arena allocated per step");
  check(large == 0, "no allocation of 4 KiB or more per step");
  // The steps did train (the counting did not stop them from running).
  check(last < first, "the loss went down (" + std::to_string(first) + " -> " +
                          std::to_string(last) + ")");

  nnc_executable_stats_t stats;
  std::memset(&stats, 0, sizeof(stats));
  stats.struct_size = sizeof(stats);
  if (ok(nnc_trainer_step_stats(trainer, &stats), "stats")) {
    check(stats.kernel_alloc_bytes == 0, "every temporary is planned");
    check(stats.arena_bytes >= 64 * 256 * 4,
          "the arena holds the hidden layer");
  }

  nnc_tensor_destroy(xt);
  nnc_tensor_destroy(lt);
  nnc_trainer_destroy(trainer);
  nnc_model_destroy(model);
  checkGradientsUpdateNothing(context);
  nnc_context_destroy(context);
  if (failures == 0)
    std::printf("alloc test passed\n");
  return failures == 0 ? 0 : 1;
}
