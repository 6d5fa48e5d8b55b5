/*===- nnc-c/compiler.h - the compiler half of the nnc C API ------*- C -*-===*\
|*                                                                            *|
|* Contexts, ONNX and MLIR import, graph tracing, compilation to executables, *|
|* sessions that specialize on input shapes, and trainers. Implemented by     *|
|* libnnc, which links libnnc_runtime (nnc-c/runtime.h, included here) and    *|
|* MLIR/LLVM. The conventions at the top of nnc-c/runtime.h hold here too.    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef NNC_C_COMPILER_H
#define NNC_C_COMPILER_H

#include "nnc-c/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===*
 * Context
 *===----------------------------------------------------------------------===*/

/* A compiler context: an MLIRContext with the nnc dialects registered. Every
 * model lives in one. A context and the models in it may be used by one
 * thread at a time (the caller serializes); distinct contexts are
 * independent and may be used concurrently. */
typedef struct nnc_context_s nnc_context_t;

typedef struct nnc_context_options_t {
  /* Stamped by nnc_context_options_initialize; do not set by hand. */
  size_t struct_size;
  uint32_t abi_version;
  /* Nonzero (the default) lets MLIR use a thread pool inside a call; zero
   * keeps every call on the calling thread. */
  int32_t enable_multithreading;
} nnc_context_options_t;

/* Fills `options` (borrowed, written) with the defaults and stamps the size
 * and ABI version this program was compiled with. Inline so that the stamp
 * is the caller's, which is what lets the library detect a mismatch.
 * Thread-safe. */
static inline void
nnc_context_options_initialize(nnc_context_options_t *options) {
  if (!options)
    return;
  options->struct_size = sizeof(*options);
  options->abi_version = NNC_ABI_VERSION;
  options->enable_multithreading = 1;
}

/* Creates a context. `options` (borrowed) may be NULL for the defaults; a
 * struct not stamped by nnc_context_options_initialize of this ABI version is
 * rejected (INVALID_ARGUMENT). `out_context` (owned by the caller on success)
 * receives the handle. Thread-safe. */
NNC_API_EXPORT nnc_status_t nnc_context_create(
    const nnc_context_options_t *options, nnc_context_t **out_context);

/* Releases `context` (owned; NULL is a no-op). Models created in it keep it
 * alive internally, so they may be destroyed before or after it, but they
 * stay bound to its threading rule. Not thread-safe with other uses of the
 * context or its models. */
NNC_API_EXPORT void nnc_context_destroy(nnc_context_t *context);

/*===----------------------------------------------------------------------===*
 * Models
 *===----------------------------------------------------------------------===*/

/* A model: one imported function in the nnc dialect. Its arguments are the
 * graph inputs followed by the parameters (floating-point initializers); its
 * results are the graph outputs. Subject to its context's threading rule. */
typedef struct nnc_model_s nnc_model_t;

typedef struct nnc_import_options_t {
  /* Stamped by nnc_import_options_initialize; do not set by hand. */
  size_t struct_size;
  uint32_t abi_version;
  /* Name of the imported function (borrowed during the call); NULL or ""
   * means "main". */
  const char *function_name;
  /* Nonzero marks floating-point initializers as frozen parameters instead
   * of trainable ones. Default 0. */
  int32_t freeze_initializers;
  /* Folder that external tensor data is read from (borrowed during the
   * call). NULL or "": the model file's folder for
   * nnc_model_import_onnx_file; external data is rejected for
   * nnc_model_import_onnx_memory. */
  const char *model_directory;
  /* Folder of serialized TensorProtos (borrowed during the call) that bind
   * every integer graph input to a compile-time value: the input at
   * position k among the graph inputs takes the value in
   * `<dir>/input_<k>.pb` (the layout of the ONNX backend test data), becomes
   * a constant and leaves the signature. This lets shapes given as inputs
   * (a Reshape's target shape) be known at compile time. NULL or "" (the
   * default): none are bound. */
  const char *integer_inputs_directory;
} nnc_import_options_t;

/* Fills `options` (borrowed, written) with the defaults and stamps the size
 * and ABI version this program was compiled with. Thread-safe. */
static inline void
nnc_import_options_initialize(nnc_import_options_t *options) {
  if (!options)
    return;
  options->struct_size = sizeof(*options);
  options->abi_version = NNC_ABI_VERSION;
  options->function_name = NULL;
  options->freeze_initializers = 0;
  options->model_directory = NULL;
  options->integer_inputs_directory = NULL;
}

/* Reads and imports the binary ONNX model (ModelProto) at `path` (borrowed,
 * NUL-terminated) into `context` (borrowed). `options` (borrowed) may be NULL
 * for the defaults. `out_model` (owned by the caller on success) receives the
 * model. NOT_FOUND when the file does not exist; INVALID_ARGUMENT, with the
 * importer's diagnostics, when the model is invalid or uses what nnc does not
 * support. Context threading rule. */
NNC_API_EXPORT nnc_status_t nnc_model_import_onnx_file(
    nnc_context_t *context, const char *path,
    const nnc_import_options_t *options, nnc_model_t **out_model);

/* Imports the serialized ONNX model in `data[0, size)` (borrowed during the
 * call only). `name` (borrowed, may be NULL) names the model in messages.
 * Otherwise as nnc_model_import_onnx_file. Context threading rule. */
NNC_API_EXPORT nnc_status_t nnc_model_import_onnx_memory(
    nnc_context_t *context, const void *data, size_t size, const char *name,
    const nnc_import_options_t *options, nnc_model_t **out_model);

/* Writes the textual IR of `model` (borrowed) through `callback`, passing
 * `user_data` (borrowed, may be NULL) along. Context threading rule. */
NNC_API_EXPORT nnc_status_t nnc_model_print(nnc_model_t *model,
                                            nnc_string_callback_t callback,
                                            void *user_data);

/* The number of arguments (inputs and parameters) / results of `model`
 * (borrowed); 0 for NULL. Context threading rule. */
NNC_API_EXPORT size_t nnc_model_input_count(const nnc_model_t *model);
NNC_API_EXPORT size_t nnc_model_output_count(const nnc_model_t *model);

/* Sets `*out_info` to the signature of argument / result `index` of `model`
 * (borrowed); see nnc_value_info_t for its lifetime. OUT_OF_RANGE for an
 * index past the count. Context threading rule. */
NNC_API_EXPORT nnc_status_t nnc_model_input_info(
    const nnc_model_t *model, size_t index, const nnc_value_info_t **out_info);
NNC_API_EXPORT nnc_status_t nnc_model_output_info(
    const nnc_model_t *model, size_t index, const nnc_value_info_t **out_info);

/* Releases `model` (owned; NULL is a no-op). Context threading rule. */
NNC_API_EXPORT void nnc_model_destroy(nnc_model_t *model);

/*===----------------------------------------------------------------------===*
 * Tensor files of the ONNX test data
 *===----------------------------------------------------------------------===*/

/* Reads a serialized ONNX TensorProto (the `input_0.pb` files of the ONNX
 * test data) at `path` (borrowed) into a new owned tensor. `out_name`
 * (optional; owned by the caller, release with nnc_string_destroy) receives
 * the tensor's name, "" when it has none. External data and element types
 * without an nnc_dtype_t are rejected (UNIMPLEMENTED). Thread-safe. */
NNC_API_EXPORT nnc_status_t nnc_tensor_read_onnx(const char *path,
                                                 nnc_tensor_t **out_tensor,
                                                 char **out_name);

/*===----------------------------------------------------------------------===*
 * Tracing
 *===----------------------------------------------------------------------===*/

/* A graph under construction: a function in the nnc dialect built op by op,
 * as the C++ tracing API (nnc/Trace/Tracer.h) does. Values are small
 * integers (nnc_value_t) valid within their graph. A graph belongs to its
 * context and follows its threading rule. */
typedef struct nnc_graph_s nnc_graph_t;
typedef int32_t nnc_value_t;

/* Starts a graph named `name` (borrowed; NULL means "main") in `context`
 * (borrowed). `out_graph` (owned by the caller) receives it. Context
 * threading rule. */
NNC_API_EXPORT nnc_status_t nnc_graph_create(nnc_context_t *context,
                                             const char *name,
                                             nnc_graph_t **out_graph);

/* Adds a graph input (kind NNC_VALUE_INPUT) or a parameter (TRAINABLE,
 * FROZEN or BUFFER) of `dtype` and shape `dims[0, rank)` (-1 for a dynamic
 * dimension) named `name` (borrowed, may be NULL). Parameters may carry an
 * initial value: `initial` (borrowed during the call, may be NULL) with
 * exactly that dtype and shape, which a compiled executable then embeds in
 * its weights. `out_value` receives the value. Context threading rule. */
NNC_API_EXPORT nnc_status_t nnc_graph_add_argument(
    nnc_graph_t *graph, nnc_value_kind_t kind, const char *name,
    nnc_dtype_t dtype, size_t rank, const int64_t *dims,
    const nnc_tensor_t *initial, nnc_value_t *out_value);

/* Adds a constant holding a copy of `tensor` (borrowed). Context threading
 * rule. */
NNC_API_EXPORT nnc_status_t nnc_graph_add_constant(nnc_graph_t *graph,
                                                   const nnc_tensor_t *tensor,
                                                   nnc_value_t *out_value);

/* Adds the nnc op `op_name` (borrowed, e.g. "nnc.matmul" or "matmul") with
 * `num_operands` operands and the attributes `attributes` (borrowed, NULL or
 * an MLIR attribute dictionary in text, e.g. "{perm = array<i64: 1, 0>}").
 * Result types are inferred, so only ops that infer them (every op whose
 * assembly format lists no result type) are accepted. Up to `max_results`
 * result values are written to `out_results` and their number to
 * `*out_num_results`. An invalid op is rejected with the verifier's message
 * (INVALID_ARGUMENT) and leaves the graph unchanged. Context threading
 * rule. */
NNC_API_EXPORT nnc_status_t nnc_graph_add_op(
    nnc_graph_t *graph, const char *op_name, size_t num_operands,
    const nnc_value_t *operands, const char *attributes, size_t max_results,
    nnc_value_t *out_results, size_t *out_num_results);

/* Finishes `graph` (consumed: destroyed even on failure) with the results
 * `outputs[0, num_outputs)`, verifies it and turns it into a model
 * (owned by the caller). Context threading rule. */
NNC_API_EXPORT nnc_status_t nnc_graph_finish(nnc_graph_t *graph,
                                             size_t num_outputs,
                                             const nnc_value_t *outputs,
                                             nnc_model_t **out_model);

/* Releases an unfinished graph (owned; NULL is a no-op). Context threading
 * rule. */
NNC_API_EXPORT void nnc_graph_destroy(nnc_graph_t *graph);

/* Parses a module in MLIR text (borrowed, `size` bytes; `name` borrowed, may
 * be NULL, names it in messages) holding one nnc function and makes it a
 * model. Parameter arguments may carry their values as an `nnc.value`
 * argument attribute (the ONNX importer writes them so). Context threading
 * rule. */
NNC_API_EXPORT nnc_status_t nnc_model_parse_mlir(nnc_context_t *context,
                                                 const char *text, size_t size,
                                                 const char *name,
                                                 nnc_model_t **out_model);

/*===----------------------------------------------------------------------===*
 * Compilation
 *===----------------------------------------------------------------------===*/

/* Mixed precision (docs/Training.md): the op policy of torch.autocast,
 * compiled in. Matrix products and convolutions (and their gradients) in
 * the low type, softmax, normalization, losses, exponentials and sums in f32,
 * other ops in their inputs' type; inputs, outputs, parameters, gradients
 * and optimizer state keep their f32. */
typedef enum nnc_precision_t {
  NNC_PRECISION_F32 = 0,  /* compute in the model's own types */
  NNC_PRECISION_F16 = 1,  /* f16 where the policy allows (train with a
                             dynamic loss scale: loss_scale 0) */
  NNC_PRECISION_BF16 = 2, /* bf16 where the policy allows (f32's range: no
                             loss scaling needed) */
} nnc_precision_t;

/* What the autotuner does in a compile (docs/Autotuning.md). It measures
 * the kernels a target offers several candidates for (on the CPU:
 * convolutions and their gradients: oneDNN, per-image or whole-batch
 * im2col + GEMM, loops) and keeps the choices in a tuning database. */
typedef enum nnc_autotune_t {
  NNC_AUTOTUNE_OFF = 0,    /* the cost model picks every kernel */
  NNC_AUTOTUNE_CACHED = 1, /* the database's choices, defaults elsewhere */
  NNC_AUTOTUNE_ON = 2,     /* as CACHED, and measures what it lacks */
  NNC_AUTOTUNE_REQUIRE = 3 /* as CACHED; INVALID_ARGUMENT naming the
                              kernels the database lacks */
} nnc_autotune_t;

typedef struct nnc_compile_options_t {
  /* Stamped by nnc_compile_options_initialize; do not set by hand. */
  size_t struct_size;
  uint32_t abi_version;
  /* What to compile for (borrowed during the call), by target name: NULL or
   * "" is the default target, the host CPU ("cpu"); a name this build has
   * no target for is UNIMPLEMENTED, and the message lists the ones it has. */
  const char *target;
  nnc_precision_t precision;
  /* The on-disk compile cache (borrowed during the call). NULL: the
   * environment variable NNC_CACHE_DIR, else $XDG_CACHE_HOME/nnc, else
   * $HOME/.cache/nnc. "" turns the disk cache off. */
  const char *cache_dir;
  /* LLVM optimization level 0..3; default 2. */
  int32_t opt_level;
  /* Threads a run may use; 0 (the default) means every core. */
  int32_t num_threads;
  /* Fuse ops into kernels (default 1); 0 compiles one kernel per op, to
   * compare. */
  int32_t fuse;
  /* Nonzero: also count the kernels and bytes moved of the same function
   * compiled without fusion (the stats' unfused figures; default 0). */
  int32_t measure_unfused;
  /* Plan temporaries into one arena reused across the run (default 1); 0
   * leaves each temporary to its own allocation by its kernel, to compare. */
  int32_t plan_memory;
  /* Let the target's tuned libraries run the kernels its cost model gives
   * them (default 1): on the CPU, convolutions and their gradients in
   * oneDNN (when libnnc_dnnl.so and libdnnl load); on CUDA, matrix products
   * in cuBLASLt; 0 compiles generated code only, to compare. */
  int32_t library_kernels;
  /* Default NNC_AUTOTUNE_CACHED. */
  nnc_autotune_t autotune;
  /* The tuning database file (borrowed during the call). NULL (the
   * default): tuning.nnctune in the cache folder (none when the cache is
   * off); "": none (ON still measures, for this compile only). */
  const char *tuning_database;
  /* Seconds ON may spend measuring in one compile (default 120, > 0);
   * kernels left when it runs out keep their defaults, untuned. */
  double tuning_budget_seconds;
  /* With F16 or BF16 precision, op kinds moved to the low type or kept in
   * f32 against the policy, as comma-separated op names ("nnc.add,nnc.mul";
   * borrowed during the call). NULL or "": the policy as it is. An unknown
   * op is INVALID_ARGUMENT. */
  const char *amp_low_ops;
  const char *amp_f32_ops;
  /* Nonzero: run what is compiled (an executable, a trainer's steps) as a
   * CUDA graph, PyTorch's reduce-overhead mode: recorded on the first run
   * on buffers the program keeps, replayed on every run after, inputs
   * copied in and outputs out around it (default 0). Needs a target whose
   * device records graphs ("cuda"), else INVALID_ARGUMENT. */
  int32_t cuda_graph;
} nnc_compile_options_t;

/* Fills `options` (borrowed, written) with the defaults and stamps the size
 * and ABI version. Thread-safe. */
static inline void
nnc_compile_options_initialize(nnc_compile_options_t *options) {
  if (!options)
    return;
  options->struct_size = sizeof(*options);
  options->abi_version = NNC_ABI_VERSION;
  options->target = NULL;
  options->precision = NNC_PRECISION_F32;
  options->cache_dir = NULL;
  options->opt_level = 2;
  options->num_threads = 0;
  options->fuse = 1;
  options->measure_unfused = 0;
  options->plan_memory = 1;
  options->library_kernels = 1;
  options->autotune = NNC_AUTOTUNE_CACHED;
  options->tuning_database = NULL;
  options->tuning_budget_seconds = 120.0;
  options->amp_low_ops = NULL;
  options->amp_f32_ops = NULL;
  options->cuda_graph = 0;
}

/* A concrete shape for one input. */
typedef struct nnc_shape_t {
  size_t rank;
  const int64_t *dims; /* borrowed; NULL when rank is 0 */
} nnc_shape_t;

/* Compiles `model` (borrowed) for concrete input shapes: `shapes` (borrowed)
 * holds one shape per executable input (see nnc_executable_t), or is NULL
 * with `num_shapes` 0 when every input shape is static. `options` (borrowed)
 * may be NULL for the defaults. Looks in the compile cache first and fills
 * it after a compile. `out_executable` (owned by the caller) receives the
 * loaded executable. UNIMPLEMENTED names the first op the backend cannot
 * compile. Context threading rule. */
NNC_API_EXPORT nnc_status_t nnc_model_compile(
    nnc_model_t *model, const nnc_compile_options_t *options,
    size_t num_shapes, const nnc_shape_t *shapes,
    nnc_executable_t **out_executable);

/* Compiles `model` for the inputs it will run with: the shapes of `inputs`
 * (borrowed; one per input, in order, as nnc_executable_run takes them) and
 * the values of its shape inputs, integer inputs whose values only
 * determine shapes (a Reshape's target, a Range's limit): the executable
 * is specialized on those values and refuses a run with others
 * (INVALID_ARGUMENT naming the input and both values). Otherwise as
 * nnc_model_compile. Context threading rule. */
NNC_API_EXPORT nnc_status_t nnc_model_compile_inputs(
    nnc_model_t *model, const nnc_compile_options_t *options, size_t num_inputs,
    const nnc_tensor_t *const *inputs, nnc_executable_t **out_executable);

/* One kernel of a compiled executable that had candidates to choose from,
 * and what the autotuner chose (strings owned by the executable). */
typedef struct nnc_tuned_kernel_t {
  size_t struct_size; /* set by the caller to sizeof(nnc_tuned_kernel_t) */
  const char *kernel; /* "conv 8x64x56x56 f32, 64x64x3x3 f32 -> ..." */
  const char *choice; /* the candidate compiled ("library", "gemm", ...) */
  const char *default_choice; /* the cost model's ("default": its rules) */
  double choice_ms;           /* median ms measured, < 0 when not measured */
  double default_ms;          /* the default's, < 0 when not measured */
  /* 0: untuned (the default); 1: from the tuning database; 2: measured in
   * this compile. */
  int32_t source;
  /* For a kernel measured in this compile whose fastest candidate alone
   * was not the default, what the check of the whole program made of it:
   * 1 kept; 2 turned down (the program was not faster with it; the
   * default is compiled and `choice` says so). 0 otherwise, and when the
   * check could not run (see nnc_executable_tuning_check). */
  int32_t program_check;
} nnc_tuned_kernel_t;

/* The check of the whole program after autotune=on measured its kernels
 * alone (docs/Autotuning.md): the program compiled with the new choices
 * and with the defaults, timed taking turns on synthetic inputs. */
typedef struct nnc_tuning_check_t {
  size_t struct_size; /* set by the caller to sizeof(nnc_tuning_check_t) */
  /* 1 when the compile measured choices other than the defaults, so that
   * there was a check; then the fields below. */
  int32_t checked;
  /* 1 when it could not run (the choices measured alone were kept). */
  int32_t skipped;
  int32_t changes;  /* kernels whose measured choice was not the default */
  int32_t kept;     /* of those, kept after the check */
  int32_t variants; /* sets of choices compiled and timed */
  double default_ms; /* median ms of one run with the default kernels */
  double tuned_ms;   /* with the choices kept (all, when none was) */
} nnc_tuning_check_t;

/* The kernels with candidates of an executable this library compiled (0
 * for one loaded from a file), and the seconds its compile spent measuring
 * them. Thread-safe. */
NNC_API_EXPORT size_t
nnc_executable_tuned_kernel_count(const nnc_executable_t *executable);
NNC_API_EXPORT double
nnc_executable_tuning_seconds(const nnc_executable_t *executable);
/* Fills `*out_kernel` (caller sets struct_size) for kernel `index`
 * (INVALID_ARGUMENT when out of range). Thread-safe. */
NNC_API_EXPORT nnc_status_t
nnc_executable_tuned_kernel(const nnc_executable_t *executable, size_t index,
                            nnc_tuned_kernel_t *out_kernel);
/* Fills `*out` (caller sets struct_size) with the check of the whole
 * program of this executable's compile (checked 0 when there was none).
 * Thread-safe. */
NNC_API_EXPORT nnc_status_t nnc_executable_tuning_check(
    const nnc_executable_t *executable, nnc_tuning_check_t *out);

/* What mixed precision did in the compile of an executable. */
typedef struct nnc_mixed_precision_t {
  size_t struct_size; /* set by the caller to sizeof(nnc_mixed_precision_t) */
  nnc_precision_t precision; /* F32 when the compile asked for none */
  int64_t low_ops;           /* ops computing in the low type by the policy */
  int64_t follow_ops;        /* ops in the low type because their inputs are */
  int64_t f32_ops;           /* ops the policy kept in f32 */
  int64_t casts;             /* casts inserted */
  int64_t narrowed_bytes;    /* bytes of results stored in the low type */
  /* Trainers: parameters whose low-precision copies the training step
   * keeps between steps (made by the optimizer's update; weight_copies in
   * the train options), and the copies' bytes. */
  int64_t weight_copies;
  int64_t weight_copy_bytes;
} nnc_mixed_precision_t;

/* Fills `*out` (caller sets struct_size) for an executable this library
 * compiled; all zeros (precision F32) for one compiled without mixed
 * precision or loaded from a file. Thread-safe. */
NNC_API_EXPORT nnc_status_t nnc_executable_mixed_precision(
    const nnc_executable_t *executable, nnc_mixed_precision_t *out);

/*===----------------------------------------------------------------------===*
 * Sessions: shape specialization at run time
 *===----------------------------------------------------------------------===*/

/* A model plus compile options that compiles on first use for each set of
 * input shapes (and values of shape inputs, see nnc_model_compile_inputs)
 * it is run with and keeps the specializations in memory (all, or the most
 * recently used up to nnc_session_set_capacity) and in the disk cache for
 * later runs. Follows its model's context threading rule. */
typedef struct nnc_session_s nnc_session_t;

/* Creates a session over `model` (borrowed; must outlive the session) with
 * `options` (borrowed, copied; NULL for the defaults). */
NNC_API_EXPORT nnc_status_t nnc_session_create(
    nnc_model_t *model, const nnc_compile_options_t *options,
    nnc_session_t **out_session);

/* Finds or compiles the executable for the shapes of `inputs` (and the
 * values of the shape inputs), then runs it as nnc_executable_run does.
 * `out_executable` (optional, borrowed from the session, valid until the
 * session is destroyed or evicts it) receives the executable used. */
NNC_API_EXPORT nnc_status_t nnc_session_run(
    nnc_session_t *session, size_t num_inputs,
    const nnc_tensor_t *const *inputs, size_t num_outputs,
    nnc_tensor_t **outputs, nnc_executable_t **out_executable);

/* Where the last successful nnc_session_run of `session` found its
 * executable: 0 in memory (from an earlier run), 1 compiled by that run, 2
 * read from the disk cache by that run; -1 before any (or for NULL). */
NNC_API_EXPORT int nnc_session_last_run_source(const nnc_session_t *session);

/* The number of specializations the session holds in memory. */
NNC_API_EXPORT size_t nnc_session_specialization_count(
    const nnc_session_t *session);

/* Keeps at most `capacity` specializations in memory (0, the default: no
 * bound); when a new one would exceed it, the least recently run goes (the
 * disk cache still holds it). Evicts at once down to `capacity`. */
NNC_API_EXPORT nnc_status_t nnc_session_set_capacity(nnc_session_t *session,
                                                     size_t capacity);

/* Releases `session` (owned; NULL is a no-op) and its executables. */
NNC_API_EXPORT void nnc_session_destroy(nnc_session_t *session);

/*===----------------------------------------------------------------------===*
 * Training
 *===----------------------------------------------------------------------===*/

typedef enum nnc_loss_t {
  NNC_LOSS_CROSS_ENTROPY = 0, /* softmax cross-entropy, int64 class labels */
  NNC_LOSS_NLL = 1,           /* on log-probabilities, int64 class labels */
  NNC_LOSS_MSE = 2,           /* targets of the output's type */
} nnc_loss_t;

typedef enum nnc_optimizer_t {
  NNC_OPTIMIZER_SGD = 0,
  NNC_OPTIMIZER_ADAM = 1,
  NNC_OPTIMIZER_ADAMW = 2,
} nnc_optimizer_t;

typedef enum nnc_lr_schedule_t {
  NNC_LR_CONSTANT = 0, /* learning_rate throughout */
  NNC_LR_STEP = 1,     /* times gamma every step_size optimizer steps */
  NNC_LR_COSINE = 2,   /* linear warm-up, then cosine down to min_lr */
} nnc_lr_schedule_t;

typedef struct nnc_train_options_t {
  /* Stamped by nnc_train_options_initialize; do not set by hand. */
  size_t struct_size;
  uint32_t abi_version;
  /* The model output the loss attaches to, by name (borrowed during
   * nnc_trainer_create); NULL or "" for the first output. */
  const char *output;
  nnc_loss_t loss;
  int32_t loss_sum;          /* nonzero: sum instead of mean */
  double label_smoothing;    /* cross-entropy only, in [0, 1] */
  int32_t has_ignore_index;  /* nonzero: labels equal to ignore_index count
                                for nothing (cross-entropy, NLL) */
  int64_t ignore_index;
  nnc_optimizer_t optimizer;
  double learning_rate;      /* > 0; the peak for schedules */
  double momentum;           /* SGD */
  int32_t nesterov;          /* SGD */
  double weight_decay;       /* L2 (SGD, Adam) or decoupled (AdamW) */
  double beta1, beta2, epsilon; /* Adam, AdamW */
  nnc_lr_schedule_t schedule;
  int64_t warmup_steps;      /* cosine */
  int64_t total_steps;       /* cosine: steps to reach min_learning_rate */
  int64_t step_size;         /* step */
  double gamma;              /* step */
  double min_learning_rate;  /* cosine */
  /* Micro-batches whose gradients are summed before one update; 1 (the
   * default) updates after every batch. The loss must be a mean over
   * equally sized micro-batches for the update to equal that of one
   * accumulate-times larger batch. */
  int64_t accumulate;
  /* > 0: a fixed loss scale (1, the default, is no scaling); 0: dynamic
   * scaling as PyTorch's GradScaler (start 65536, halve and skip the step
   * on non-finite gradients, double after 2000 good steps). A step whose
   * gradients are not finite is skipped in either case. */
  double loss_scale;
  /* Seeds the random streams of training-mode ops (dropout). */
  uint64_t seed;
  /* Nonzero (the default): a step skipped for non-finite gradients names
   * the first value that went non-finite (nnc_step_info_t::nonfinite) by
   * rerunning its batch through a probe of the forward and backward,
   * compiled on the first skip per batch shape; steps that are not skipped
   * cost nothing either way. 0: not named. */
  int32_t name_nonfinite;
  /* A memory budget on the training step's planned peak (inputs, outputs,
   * weights and temporaries, nnc_trainer_step_stats' peak_memory_bytes):
   * forward values are recomputed in backward to fit it
   * (docs/Rematerialization.md). memory_budget_bytes > 0: that many bytes;
   * else memory_budget_fraction in (0, 1]: that fraction of the peak planned
   * without recomputation; both 0 (the default): no budget. A budget no
   * choice meets fails the step that compiles the function, naming the
   * smallest peak reachable and the values alive at it. */
  uint64_t memory_budget_bytes;
  double memory_budget_fraction;
  /* Non-zero: batch normalization's statistics are those of the global
   * batch of data-parallel training (PyTorch's SyncBatchNorm): summed over
   * the ranks by all-reduces inside the compiled step, in forward and
   * backward (docs/Distributed.md). A single process computes its local
   * statistics, as without it. 0 (the default): each rank's own batch. */
  int32_t sync_batch_norm;
  /* With mixed precision (F16 or BF16 compile options): nonzero (the
   * default) keeps the low-precision copies of the parameters the step
   * casts between steps, each made by the optimizer's update of its
   * parameter, so that the forward reads them instead of rounding the f32
   * weights again (they take 2 bytes per parameter element; checkpoints do
   * not hold them). 0: every step rounds the parameters itself. Steps
   * with gradient accumulation or data parallelism round them themselves
   * either way. */
  int32_t weight_copies;
} nnc_train_options_t;

static inline void nnc_train_options_initialize(nnc_train_options_t *options) {
  if (!options)
    return;
  options->struct_size = sizeof(*options);
  options->abi_version = NNC_ABI_VERSION;
  options->output = NULL;
  options->loss = NNC_LOSS_CROSS_ENTROPY;
  options->loss_sum = 0;
  options->label_smoothing = 0.0;
  options->has_ignore_index = 0;
  options->ignore_index = -100;
  options->optimizer = NNC_OPTIMIZER_ADAM;
  options->learning_rate = 1e-3;
  options->momentum = 0.0;
  options->nesterov = 0;
  options->weight_decay = 0.0;
  options->beta1 = 0.9;
  options->beta2 = 0.999;
  options->epsilon = 1e-8;
  options->schedule = NNC_LR_CONSTANT;
  options->warmup_steps = 0;
  options->total_steps = 0;
  options->step_size = 0;
  options->gamma = 0.1;
  options->min_learning_rate = 0.0;
  options->accumulate = 1;
  options->loss_scale = 1.0;
  options->seed = 0;
  options->name_nonfinite = 1;
  options->memory_budget_bytes = 0;
  options->memory_budget_fraction = 0.0;
  options->sync_batch_norm = 0;
  options->weight_copies = 1;
}

/* Builds a trainer (nnc-c/runtime.h runs it) for `model` (borrowed; the trainer
 * keeps its own copy) with `options` (borrowed; NULL for the defaults) and
 * `compile_options` (borrowed, copied; NULL for the defaults). Parameters start
 * at the model's initial values; UNIMPLEMENTED names an op without a gradient.
 * It compiles its training functions as they are needed, one specialization per
 * batch shape. Follows its model's context threading rule. */
NNC_API_EXPORT nnc_status_t nnc_trainer_create(
    nnc_model_t *model, const nnc_train_options_t *options,
    const nnc_compile_options_t *compile_options,
    nnc_trainer_t **out_trainer);

/* What mixed precision did to the training functions of a trainer
 * nnc_trainer_create made (`*out`, caller sets struct_size): the forward
 * and loss as the policy converted them, before the gradients were built.
 * All zeros (precision F32) before the first step has built them, without
 * mixed precision, or for a trainer loaded from a file. */
NNC_API_EXPORT nnc_status_t nnc_trainer_mixed_precision(
    const nnc_trainer_t *trainer, nnc_mixed_precision_t *out);

/* The kernels with candidates of the programs a trainer nnc_trainer_create
 * made has compiled so far (its steps for each data shape, evaluation),
 * each kernel once, and the seconds those compiles spent measuring them:
 * what nnc_executable_tuned_kernel says of an executable. 0 before the
 * first step and for a trainer loaded from a file. The strings
 * nnc_trainer_tuned_kernel hands out live until the trainer's next step or
 * preparation. */
NNC_API_EXPORT size_t
nnc_trainer_tuned_kernel_count(const nnc_trainer_t *trainer);
NNC_API_EXPORT double nnc_trainer_tuning_seconds(const nnc_trainer_t *trainer);
NNC_API_EXPORT nnc_status_t
nnc_trainer_tuned_kernel(const nnc_trainer_t *trainer, size_t index,
                         nnc_tuned_kernel_t *out_kernel);

/* What the memory budget did to the training step (or gradient function,
 * with accumulation) a trainer nnc_trainer_create made compiled last. */
typedef struct nnc_remat_stats_t {
  size_t struct_size;    /* set by the caller to sizeof(nnc_remat_stats_t) */
  uint64_t budget_bytes; /* 0: no budget (then all figures are 0) */
  /* Planned peaks, as peak_memory_bytes counts them, without and with the
   * recomputation chosen (equal when the budget held without). */
  uint64_t peak_before_bytes;
  uint64_t peak_after_bytes;
  /* The temporaries' arena as --nnc-remat-budget predicted and as planned. */
  uint64_t predicted_arena_bytes;
  uint64_t planned_arena_bytes;
  /* FLOPs of the function (the cost model's) and of what is recomputed. */
  double flops;
  double extra_flops;
  /* Forward values saved for backward: recomputed, and kept. */
  uint32_t recomputed_count;
  uint32_t kept_count;
} nnc_remat_stats_t;

/* Fills `*out` (caller sets struct_size); all zeros before the first step,
 * without a budget, or for a trainer loaded from a file. */
NNC_API_EXPORT nnc_status_t
nnc_trainer_remat_stats(const nnc_trainer_t *trainer, nnc_remat_stats_t *out);

/* `*out` (owned by the caller, release with nnc_string_destroy) receives the
 * `index`-th saved value, recomputed (kept = 0) or kept (kept != 0), as
 * "op 'source name' type N bytes"; INVALID_ARGUMENT past the count. */
NNC_API_EXPORT nnc_status_t nnc_trainer_remat_value(
    const nnc_trainer_t *trainer, int32_t kept, size_t index, char **out);

/* The memory of a training step of a trainer nnc_trainer_create made, on data
 * shaped like `data` (borrowed; read for dtypes and shapes only, checked as
 * nnc_trainer_prepare checks them), as it is configured and under each
 * alternative that would lower it, every figure planned by the compiler (no
 * code is generated; the trainer's own functions are left as they are). A
 * figure is the planned peak of the function a step runs
 * (nnc_executable_stats' peak_memory_bytes: inputs, outputs, weights,
 * temporaries) plus, with accumulation, the gradients summed so far and the
 * optimizer state the trainer holds while the gradient function runs; the
 * larger of that and the update's peak. Without accumulation, current_bytes
 * is nnc_trainer_step_stats' peak_memory_bytes after a step on such data. */
typedef struct nnc_memory_alternatives_t {
  size_t struct_size;     /* set by the caller to sizeof(this struct) */
  uint64_t current_bytes; /* as configured */
  /* The smallest memory_budget_bytes the compiler meets by recomputation in
   * backward (found to within about 1 %; it bounds the function's own
   * planned peak: without accumulation, the step's), the figure under it
   * (the step's peak_memory_bytes without accumulation; the prediction the
   * budget is met by is conservative, so it may be well below), and the
   * FLOPs it recomputes over the function's; all 0 when it lowers nothing. */
  uint64_t budget_bytes;
  uint64_t budget_peak_bytes;
  double budget_extra_flops;
  /* The alternatives below keep the rest of the trainer's options, its
   * memory budget included; each is 0 where that budget cannot be met.
   * With precision BF16 (the op policy's defaults); 0 when the trainer
   * already computes in F16 or BF16. */
  uint64_t amp_bytes;
  /* Micro-batches per optimizer step of this alternative: the trainer's
   * accumulate times the smallest factor >= 2 of the batch size, each
   * micro-batch that much smaller; 0 (and accumulate_bytes 0) when the batch
   * has no such factor or its size is fixed by the model. */
  int64_t accumulate;
  uint64_t accumulate_bytes;
  double seconds; /* what computing these took */
} nnc_memory_alternatives_t;

/* Fills `*out` (caller sets struct_size). UNIMPLEMENTED for a trainer loaded
 * from a file (it has no compiler); INVALID_ARGUMENT for data that does not
 * fit the trainer. */
NNC_API_EXPORT nnc_status_t nnc_trainer_memory_alternatives(
    nnc_trainer_t *trainer, size_t count, const nnc_tensor_t *const *data,
    nnc_memory_alternatives_t *out);

#ifdef __cplusplus
}
#endif

#endif /* NNC_C_COMPILER_H */
