/*===- nnc-c/runtime.h - the runtime half of the nnc C API --------*- C -*-===*\
|*                                                                            *|
|* What a program needs to run executables nnc compiled and saved (.nncx):    *|
|* status, element types, host tensors, NumPy and CSV files, loading,         *|
|* inspecting and running executables, the profiler and the data loader.      *|
|* Implemented by libnnc_runtime, which links no compiler (no MLIR, no LLVM). *|
|* nnc-c/compiler.h adds import, tracing, compilation and training (libnnc);  *|
|* nnc-c/nnc.h includes both. docs/CAPI.md has a worked example.              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/*
 * Conventions, for every function below:
 *  - Functions that can fail return an nnc_status_t: NULL is success; any
 *    other value carries a code and a message and is owned by the caller,
 *    who releases it with nnc_status_destroy. Out-parameters are written only
 *    on success.
 *  - Handles are opaque. Each create/import has a destroy; destroy(NULL) is
 *    a no-op; destroying a handle twice, or using it after destroy, is
 *    undefined behavior, as with free().
 *  - "borrowed" parameters are only read during the call; "owned" results
 *    pass to the caller. Where a pointer returned by an accessor stays valid
 *    is written on the accessor.
 *  - Nothing throws, aborts or prints: MLIR diagnostics raised during a call
 *    become the message of the status it returns.
 *  - Thread-safety is written on every function. "Thread-safe" means it may
 *    be called from any thread concurrently with any other call that does
 *    not destroy the same handle.
 */

#ifndef NNC_C_RUNTIME_H
#define NNC_C_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define NNC_API_EXPORT __attribute__((visibility("default")))
#else
#define NNC_API_EXPORT
#endif

/*===----------------------------------------------------------------------===*
 * Versions
 *===----------------------------------------------------------------------===*/

/* The version of this header. A change of MAJOR breaks source or binary
 * compatibility; MINOR adds functions; PATCH fixes behavior. */
#define NNC_API_VERSION_MAJOR 0
#define NNC_API_VERSION_MINOR 1
#define NNC_API_VERSION_PATCH 0
#define NNC_API_VERSION                                                        \
  ((NNC_API_VERSION_MAJOR << 16) | (NNC_API_VERSION_MINOR << 8) |              \
   NNC_API_VERSION_PATCH)

/* The layout version of the options structs, stamped into them by their
 * _initialize functions and checked by every function taking one. */
#define NNC_ABI_VERSION 1u

/* The NNC_API_VERSION the library was built with; compare with the macro to
 * detect a header/library mismatch. Thread-safe. */
NNC_API_EXPORT uint32_t nnc_api_version(void);

/*===----------------------------------------------------------------------===*
 * Status
 *===----------------------------------------------------------------------===*/

typedef enum nnc_status_code_t {
  NNC_STATUS_OK = 0,
  /* An argument is NULL, out of its range or inconsistent with another. */
  NNC_STATUS_INVALID_ARGUMENT = 1,
  /* A file does not exist. */
  NNC_STATUS_NOT_FOUND = 2,
  /* A file exists but cannot be opened, read or written. */
  NNC_STATUS_UNAVAILABLE = 3,
  /* An index or a size is out of range (e.g. a tensor too large). */
  NNC_STATUS_OUT_OF_RANGE = 4,
  /* A file or buffer is truncated or corrupt. */
  NNC_STATUS_DATA_LOSS = 5,
  /* A bug in nnc. */
  NNC_STATUS_INTERNAL = 6,
  /* Memory ran out. */
  NNC_STATUS_RESOURCE_EXHAUSTED = 7,
  /* The request is valid but nnc cannot do it (an op the backend cannot
   * compile yet, a device or library that is absent). */
  NNC_STATUS_UNIMPLEMENTED = 8,
} nnc_status_code_t;

/* NULL on success. Opaque otherwise. */
typedef struct nnc_status_s *nnc_status_t;

/* The code of `status` (borrowed); NNC_STATUS_OK for NULL. Thread-safe. */
NNC_API_EXPORT nnc_status_code_t nnc_status_code(nnc_status_t status);

/* The NUL-terminated message of `status` (borrowed), "" for NULL. The string
 * is owned by the status and valid until it is destroyed. Thread-safe. */
NNC_API_EXPORT const char *nnc_status_message(nnc_status_t status);

/* A stable lowercase name of `code`, e.g. "not found"; a static string.
 * Thread-safe. */
NNC_API_EXPORT const char *nnc_status_code_name(nnc_status_code_t code);

/* Releases `status` (owned; NULL is a no-op). Not thread-safe with other
 * uses of the same status. */
NNC_API_EXPORT void nnc_status_destroy(nnc_status_t status);

/* Returns the status of `expr` from the enclosing function (which must
 * return nnc_status_t) when it is not success. */
#define NNC_RETURN_IF_ERROR(expr)                                              \
  do {                                                                         \
    nnc_status_t nnc_status_ = (expr);                                         \
    if (nnc_status_)                                                           \
      return nnc_status_;                                                      \
  } while (0)

/*===----------------------------------------------------------------------===*
 * Element types
 *===----------------------------------------------------------------------===*/

typedef enum nnc_dtype_t {
  NNC_DTYPE_F32 = 0,
  NNC_DTYPE_F16 = 1,
  NNC_DTYPE_BF16 = 2,
  NNC_DTYPE_F64 = 3,
  NNC_DTYPE_I64 = 4,
  NNC_DTYPE_I32 = 5,
  NNC_DTYPE_I8 = 6,
  NNC_DTYPE_U8 = 7,
  NNC_DTYPE_BOOL = 8, /* one byte per element, 0 or 1 */
  /* An element type with no host representation; also what accessors
   * answer for a NULL handle. Never accepted as an argument. */
  NNC_DTYPE_UNKNOWN = 255,
} nnc_dtype_t;

/* The highest rank accepted for tensors. */
#define NNC_MAX_RANK 32

/* Bytes per element of `dtype`, 0 for NNC_DTYPE_UNKNOWN or an invalid value.
 * Thread-safe. */
NNC_API_EXPORT size_t nnc_dtype_size(nnc_dtype_t dtype);

/* A stable lowercase name of `dtype`, e.g. "f32"; a static string, "unknown"
 * for anything else. Thread-safe. */
NNC_API_EXPORT const char *nnc_dtype_name(nnc_dtype_t dtype);

/*===----------------------------------------------------------------------===*
 * Signatures
 *===----------------------------------------------------------------------===*/

/* Receives text in one or more pieces; `data[0, length)` is not
 * NUL-terminated and is valid only during the call. */
typedef void (*nnc_string_callback_t)(const char *data, size_t length,
                                      void *user_data);

/* What a function argument is. */
typedef enum nnc_value_kind_t {
  NNC_VALUE_INPUT = 0,     /* a graph input fed on every run */
  NNC_VALUE_TRAINABLE = 1, /* a parameter that training updates */
  NNC_VALUE_FROZEN = 2,    /* a parameter held fixed */
  NNC_VALUE_BUFFER = 3,    /* state such as batch-norm running statistics */
  NNC_VALUE_OUTPUT = 4,    /* a result of the function */
} nnc_value_kind_t;

/* The signature of one argument or result. Owned by the model (or
 * executable, trainer) that hands it out: the struct and every pointer in it
 * stay valid until that handle is destroyed. Later versions may append
 * fields. */
typedef struct nnc_value_info_t {
  /* NUL-terminated name, or NULL when the model does not record one (the
   * ONNX importer names arguments but not results today). */
  const char *name;
  nnc_value_kind_t kind;
  nnc_dtype_t dtype;
  size_t rank;
  /* `rank` dimensions; -1 for a dynamic one. NULL when rank is 0. */
  const int64_t *dims;
  /* For an input an executable is specialized on by value (a shape input,
   * see nnc_model_compile_inputs): the `specialized_count` values, in
   * row-major order, that every run must pass. NULL and 0 otherwise. */
  const int64_t *specialized_values;
  size_t specialized_count;
} nnc_value_info_t;


/*===----------------------------------------------------------------------===*
 * Host tensors
 *===----------------------------------------------------------------------===*/

/* A dense row-major tensor in host memory, either owning its storage or a
 * view of the caller's. Shape and dtype never change. Tensors are
 * independent of contexts; accessors and nnc_tensor_write_npy on one tensor
 * may run concurrently, while writes to its data are for the caller to
 * order. */
typedef struct nnc_tensor_s nnc_tensor_t;

/* Creates a tensor that owns zero-filled, 64-byte aligned storage.
 * `dims` (borrowed) holds `rank` non-negative sizes (may be NULL when rank
 * is 0); rank is at most NNC_MAX_RANK; the byte size must not overflow.
 * `out_tensor` (owned by the caller on success) receives it. Thread-safe. */
NNC_API_EXPORT nnc_status_t nnc_tensor_create(nnc_dtype_t dtype, size_t rank,
                                              const int64_t *dims,
                                              nnc_tensor_t **out_tensor);

/* Creates a tensor viewing `data` (borrowed for the tensor's whole life: the
 * caller keeps it alive and unmoved until nnc_tensor_destroy, and owns it
 * afterwards). `byte_size` must equal the size the dtype and dims give;
 * `data` must be aligned to the element size, and may be NULL only when
 * byte_size is 0. Otherwise as nnc_tensor_create. Thread-safe. */
NNC_API_EXPORT nnc_status_t nnc_tensor_create_view(nnc_dtype_t dtype,
                                                   size_t rank,
                                                   const int64_t *dims,
                                                   void *data, size_t byte_size,
                                                   nnc_tensor_t **out_tensor);

/* Accessors of `tensor` (borrowed). For NULL they answer
 * NNC_DTYPE_UNKNOWN / 0 / NULL / NULL / 0. `dims` and `data` stay valid until
 * the tensor is destroyed; `dims` is NULL when rank is 0; `data` is non-NULL
 * for owned tensors, even empty ones. Thread-safe. */
NNC_API_EXPORT nnc_dtype_t nnc_tensor_dtype(const nnc_tensor_t *tensor);
NNC_API_EXPORT size_t nnc_tensor_rank(const nnc_tensor_t *tensor);
NNC_API_EXPORT const int64_t *nnc_tensor_dims(const nnc_tensor_t *tensor);
NNC_API_EXPORT void *nnc_tensor_data(nnc_tensor_t *tensor);
/* The data of a tensor the caller may only read (e.g. a trainer's parameter
 * or a batch's array). */
NNC_API_EXPORT const void *nnc_tensor_const_data(const nnc_tensor_t *tensor);
NNC_API_EXPORT size_t nnc_tensor_byte_size(const nnc_tensor_t *tensor);

/* Releases `tensor` (owned; NULL is a no-op), and its storage when it owns
 * it; a view's data is left alone. Not thread-safe with other uses of the
 * same tensor. */
NNC_API_EXPORT void nnc_tensor_destroy(nnc_tensor_t *tensor);

/* Reads the NumPy .npy file at `path` (borrowed) into a new owned tensor
 * (owned by the caller on success). docs/DataFormats.md lists what is
 * accepted. NOT_FOUND for a missing file, INVALID_ARGUMENT or DATA_LOSS for a
 * malformed one. Thread-safe. */
NNC_API_EXPORT nnc_status_t nnc_tensor_read_npy(const char *path,
                                                nnc_tensor_t **out_tensor);

/* Reads the numeric CSV table at `path` (borrowed) into a new f32 tensor
 * [rows, columns] (`out_tensor`, owned by the caller). The first row is a
 * header when any of its fields is not a number; blank lines are skipped;
 * every row must have as many fields as the first (docs/DataFormats.md).
 * Errors name the line and column. Thread-safe. */
NNC_API_EXPORT nnc_status_t nnc_tensor_read_csv(const char *path,
                                                nnc_tensor_t **out_tensor);

/* Writes `tensor` (borrowed) to `path` (borrowed) as .npy, through a
 * temporary file and a rename. Thread-safe (see nnc_tensor_t for writes to
 * the data). */
NNC_API_EXPORT nnc_status_t nnc_tensor_write_npy(const nnc_tensor_t *tensor,
                                                 const char *path);

/* Releases a string returned by nnc (owned; NULL is a no-op). Thread-safe. */
NNC_API_EXPORT void nnc_string_destroy(char *string);

/* Reads every array of the .npz archive at `path` (borrowed). On success
 * `*out_count` is the number of arrays and `*out_names` / `*out_tensors`
 * (owned by the caller: destroy each tensor and name, then release both
 * arrays with nnc_array_destroy) hold them in archive order, names without
 * the ".npy" suffix. Thread-safe. */
NNC_API_EXPORT nnc_status_t nnc_npz_read(const char *path, size_t *out_count,
                                         char ***out_names,
                                         nnc_tensor_t ***out_tensors);

/* Writes `count` tensors (borrowed) named by `names` (borrowed,
 * NUL-terminated, unique, stored as "<name>.npy") to the .npz archive
 * `path`, through a temporary file and a rename. Thread-safe. */
NNC_API_EXPORT nnc_status_t nnc_npz_write(const char *path, size_t count,
                                          const char *const *names,
                                          const nnc_tensor_t *const *tensors);

/* Releases an array returned by nnc_npz_read (owned; NULL is a no-op); its
 * elements must have been released first. Thread-safe. */
NNC_API_EXPORT void nnc_array_destroy(void *array);

/*===----------------------------------------------------------------------===*
 * Executables
 *===----------------------------------------------------------------------===*/

/* A compiled model for fixed input shapes, loaded and ready to run: native
 * code, the plan that calls it and the weights. Its inputs are the model's
 * arguments that have no compile-time value (graph inputs, and parameters
 * without an initial value), in argument order; its outputs the model's
 * results. Independent of contexts once created. Every function on an
 * executable is thread-safe; runs on one executable may overlap. */
typedef struct nnc_executable_s nnc_executable_t;

/* Loads and verifies the executable file at `path` / the bytes
 * `data[0, size)` (borrowed during the call). DATA_LOSS for a corrupt or
 * truncated file, naming what is wrong; INVALID_ARGUMENT for one built for
 * another target. Thread-safe. */
NNC_API_EXPORT nnc_status_t nnc_executable_load_file(
    const char *path, nnc_executable_t **out_executable);
NNC_API_EXPORT nnc_status_t nnc_executable_load_memory(
    const void *data, size_t size, nnc_executable_t **out_executable);

/* Runs `executable` as a CUDA graph from its next run on: recorded once,
 * replayed after (PyTorch's reduce-overhead mode; what the compile option
 * cuda_graph does, for an executable that was loaded). UNIMPLEMENTED on a
 * device without graphs (the CPU); not while it runs. Enabling twice is a
 * no-op. */
NNC_API_EXPORT nnc_status_t
nnc_executable_enable_cuda_graph(nnc_executable_t *executable);

/* Writes `executable` (borrowed) to `path` (borrowed) atomically (temporary
 * file, fsync, rename). Thread-safe. */
NNC_API_EXPORT nnc_status_t nnc_executable_save(
    const nnc_executable_t *executable, const char *path);

/* The inputs and outputs of `executable` (borrowed); counts are 0 for NULL.
 * The info structs live as long as the executable; dims are concrete.
 * Thread-safe. */
NNC_API_EXPORT size_t nnc_executable_input_count(
    const nnc_executable_t *executable);
NNC_API_EXPORT size_t nnc_executable_output_count(
    const nnc_executable_t *executable);
NNC_API_EXPORT nnc_status_t nnc_executable_input_info(
    const nnc_executable_t *executable, size_t index,
    const nnc_value_info_t **out_info);
NNC_API_EXPORT nnc_status_t nnc_executable_output_info(
    const nnc_executable_t *executable, size_t index,
    const nnc_value_info_t **out_info);

/* Figures about an executable, deterministic except the compile time. */
typedef struct nnc_executable_stats_t {
  size_t struct_size; /* set by the caller to sizeof(nnc_executable_stats_t) */
  uint32_t kernel_count;      /* kernel calls in the plan */
  uint32_t library_calls;     /* calls into GEMM/conv libraries per run */
  uint64_t code_bytes;        /* native code section */
  uint64_t weight_bytes;      /* embedded weights */
  uint64_t peak_memory_bytes; /* inputs + outputs + weights + temporaries */
  double compile_seconds;     /* 0 when loaded from a file */
  int32_t from_cache;         /* nonzero when the compile cache supplied it */
  /* The arena holding every temporary at a planned offset, allocated once
   * per executable (per concurrent run) and reused. */
  uint64_t arena_bytes;
  /* Bytes the kernels still allocate themselves on every run (not planned:
   * dynamic or nested temporaries); 0 when everything is planned. */
  uint64_t kernel_alloc_bytes;
  /* Bytes the kernels read plus bytes they write per run (static estimate:
   * every operand of every loop nest once, GEMMs from their sizes). */
  uint64_t bytes_moved;
  /* The same without fusion, when compiled with measure_unfused (else 0). */
  uint32_t unfused_kernel_count;
  uint64_t unfused_bytes_moved;
} nnc_executable_stats_t;

/* Fills `*out_stats` (caller sets struct_size first). Thread-safe. */
NNC_API_EXPORT nnc_status_t nnc_executable_stats(
    const nnc_executable_t *executable, nnc_executable_stats_t *out_stats);

/* Runs `executable` (borrowed) on `inputs[0, num_inputs)` (borrowed; one per
 * executable input, in order, each with exactly that dtype and shape, else
 * INVALID_ARGUMENT naming the input, the expected and the given). On success
 * `outputs[0, num_outputs)` (num_outputs must equal the output count)
 * receive new tensors owned by the caller. Thread-safe. */
NNC_API_EXPORT nnc_status_t nnc_executable_run(
    nnc_executable_t *executable, size_t num_inputs,
    const nnc_tensor_t *const *inputs, size_t num_outputs,
    nnc_tensor_t **outputs);

/* Releases `executable` (owned; NULL is a no-op). Not thread-safe with
 * other uses of the same executable. */
NNC_API_EXPORT void nnc_executable_destroy(nnc_executable_t *executable);

/*===----------------------------------------------------------------------===*
 * Profiling
 *===----------------------------------------------------------------------===*/

/* A process-wide recorder of timed events: every kernel an executable runs
 * ("kernel", named "<function>/<kernel symbol>"), compiles ("compile"),
 * training steps ("step"), checkpoint writes ("io") and the data loader's
 * waits ("data"). Off until started; thread-safe. */
NNC_API_EXPORT void nnc_profiler_start(void); /* clears earlier events */
NNC_API_EXPORT void nnc_profiler_stop(void);  /* keeps the events */

typedef struct nnc_profile_event_t {
  const char *name;     /* borrowed until the next start */
  const char *category;
  int64_t start_ns;     /* since nnc_profiler_start */
  int64_t duration_ns;
  uint32_t thread;      /* a small number per thread */
} nnc_profile_event_t;

NNC_API_EXPORT size_t nnc_profiler_event_count(void);
/* OUT_OF_RANGE past the count. */
NNC_API_EXPORT nnc_status_t nnc_profiler_event(size_t index,
                                               nnc_profile_event_t *out_event);
/* The events aggregated by name and sorted by total time (count, total,
 * mean, min, max, share), as text through `callback`. */
NNC_API_EXPORT nnc_status_t nnc_profiler_summary(nnc_string_callback_t callback,
                                                 void *user_data);
/* Writes the events as Chrome trace JSON (chrome://tracing, Perfetto) to
 * `path`, atomically. */
NNC_API_EXPORT nnc_status_t nnc_profiler_write_trace(const char *path);

/*===----------------------------------------------------------------------===*
 * Tuning databases (docs/Autotuning.md)
 *===----------------------------------------------------------------------===*/

/* The tuning database compiles use when none is given: tuning.nnctune in
 * the compile cache's default folder ($NNC_CACHE_DIR, else
 * $XDG_CACHE_HOME/nnc, else $HOME/.cache/nnc). `out_path` is released with
 * nnc_string_destroy. NOT_FOUND when none of those is set. */
NNC_API_EXPORT nnc_status_t nnc_tuning_database_default_path(char **out_path);

/* Adds the entries of the tuning database `from` to the one at `into`
 * (created if missing): an entry of `into` with the key of one of `from`
 * is replaced, the others are kept. Safe beside compiles tuning into
 * `into` (the autotuner's lock, an atomic rewrite). This is how a
 * deployment carries its tuning: merge the machine's database into a new
 * file, ship it, merge it into the database there. A damaged line of
 * either file is dropped, and said in `out_warnings` (optional; one line
 * each, "" when none; release with nnc_string_destroy). `out_merged`
 * (optional) is the number of entries taken from `from`. NOT_FOUND when
 * `from` does not exist; INVALID_ARGUMENT, `into` untouched, when either
 * file is not a tuning database of this format version. Thread-safe. */
NNC_API_EXPORT nnc_status_t nnc_tuning_database_merge(const char *from,
                                                      const char *into,
                                                      size_t *out_merged,
                                                      char **out_warnings);

/*===----------------------------------------------------------------------===*
 * Data loading
 *===----------------------------------------------------------------------===*/

typedef struct nnc_loader_options_t {
  /* Stamped by nnc_loader_options_initialize; do not set by hand. */
  size_t struct_size;
  uint32_t abi_version;
  int64_t batch_size; /* > 0; default 32 */
  int32_t shuffle;    /* nonzero (the default): a new order every epoch */
  uint64_t seed;      /* the order is a pure function of (seed, epoch) */
  int32_t drop_last;  /* nonzero: no short last batch per epoch */
  int32_t workers;    /* threads gathering batches; default 2 */
  int32_t prefetch;   /* batches prepared ahead; default 4 */
  /* Optional (NULL: none): runs on a worker thread on every gathered batch
   * before nnc_loader_next hands it out (augmentation, normalization,
   * decoding). `tensors[0, count)` are the batch's arrays in loader order,
   * borrowed for the call: their contents may change, their shapes not.
   * Workers call it concurrently. A nonzero return stops the loader:
   * nnc_loader_next returns INTERNAL naming the batch and the value, in
   * place of that batch. For reproducible runs it must be a function of the
   * batch alone (contents, epoch, index). */
  int32_t (*transform)(void *user_data, int64_t epoch, int64_t index,
                       size_t count, nnc_tensor_t *const *tensors);
  void *transform_user_data; /* passed to transform */
  /* Data-parallel training: serve shard `shard_index` of `shard_count`
   * (default 0 of 1). Every shard visits the same epoch order, padded to a
   * multiple of shard_count with its first samples (as DistributedSampler);
   * shard r's batch i is the r-th of shard_count equal pieces of batch i of
   * a loader of shard_count x batch_size rows (docs/Distributed.md). */
  int64_t shard_index;
  int64_t shard_count;
} nnc_loader_options_t;

static inline void
nnc_loader_options_initialize(nnc_loader_options_t *options) {
  if (!options)
    return;
  options->struct_size = sizeof(*options);
  options->abi_version = NNC_ABI_VERSION;
  options->batch_size = 32;
  options->shuffle = 1;
  options->seed = 0;
  options->drop_last = 0;
  options->workers = 2;
  options->prefetch = 4;
  options->transform = NULL;
  options->transform_user_data = NULL;
  options->shard_index = 0;
  options->shard_count = 1;
}

/* Serves the arrays of a dataset (sharing their first, sample dimension) as
 * an endless sequence of batches across epochs, gathered ahead of time on
 * worker threads (docs/DataFormats.md gives the order exactly). One thread
 * at a time per loader. */
typedef struct nnc_loader_s nnc_loader_t;
/* One batch: one tensor per loader array, `size` rows each. */
typedef struct nnc_batch_s nnc_batch_t;

/* Creates a loader over the arrays `names[0, count)` (borrowed; in this
 * order) of the .npz archive at `path` (borrowed). NOT_FOUND names a
 * missing array and lists those present; arrays of different sample counts
 * are INVALID_ARGUMENT. `options` may be NULL for the defaults. */
NNC_API_EXPORT nnc_status_t nnc_loader_create_npz(
    const char *path, size_t count, const char *const *names,
    const nnc_loader_options_t *options, nnc_loader_t **out_loader);

/* The same over arrays in memory: `arrays[0, count)` (borrowed, copied)
 * named `names[0, count)`. */
NNC_API_EXPORT nnc_status_t nnc_loader_create(
    size_t count, const char *const *names, const nnc_tensor_t *const *arrays,
    const nnc_loader_options_t *options, nnc_loader_t **out_loader);

NNC_API_EXPORT int64_t nnc_loader_sample_count(const nnc_loader_t *loader);
NNC_API_EXPORT int64_t nnc_loader_batches_per_epoch(
    const nnc_loader_t *loader);

/* Blocks until the next batch is ready; `out_batch` (owned by the caller;
 * release it with nnc_batch_destroy, which recycles its buffers). */
NNC_API_EXPORT nnc_status_t nnc_loader_next(nnc_loader_t *loader,
                                            nnc_batch_t **out_batch);

/* The epoch and batch index the next nnc_loader_next returns; seek makes
 * the next call return exactly that batch (resuming a run). */
NNC_API_EXPORT void nnc_loader_position(const nnc_loader_t *loader,
                                        int64_t *out_epoch,
                                        int64_t *out_index);
NNC_API_EXPORT nnc_status_t nnc_loader_seek(nnc_loader_t *loader,
                                            int64_t epoch, int64_t index);

/* Total seconds nnc_loader_next spent waiting for a batch. */
NNC_API_EXPORT double nnc_loader_wait_seconds(const nnc_loader_t *loader);

/* Releases `loader` (owned; NULL is a no-op); stops its workers. Batches
 * still held stay valid. */
NNC_API_EXPORT void nnc_loader_destroy(nnc_loader_t *loader);

NNC_API_EXPORT int64_t nnc_batch_epoch(const nnc_batch_t *batch);
NNC_API_EXPORT int64_t nnc_batch_index(const nnc_batch_t *batch);
NNC_API_EXPORT int64_t nnc_batch_size(const nnc_batch_t *batch);
/* The tensors of `batch`, in the loader's array order (borrowed from the
 * batch); NULL past the end. */
NNC_API_EXPORT size_t nnc_batch_tensor_count(const nnc_batch_t *batch);
NNC_API_EXPORT const nnc_tensor_t *nnc_batch_tensor(const nnc_batch_t *batch,
                                                    size_t index);
NNC_API_EXPORT void nnc_batch_destroy(nnc_batch_t *batch);

/*===----------------------------------------------------------------------===*
 * Training
 *===----------------------------------------------------------------------===*/

/* A model being trained: its compiled training functions (loss attached,
 * batch normalization in training mode, gradients, optimizer update; one
 * specialization per batch shape), the current parameters, buffers and
 * optimizer state, the step count and the loss scaler. Made by
 * nnc_trainer_create (nnc-c/compiler.h) or loaded from a saved trainer
 * (nnc_trainer_load_file). One thread at a time per trainer. */
typedef struct nnc_trainer_s nnc_trainer_t;

/* The data a step takes: the model's graph inputs (arguments without an
 * initial value), in order, then the labels. `out_info` is borrowed from the
 * trainer; dims of -1 are the batch dimension (any size). */
NNC_API_EXPORT size_t nnc_trainer_data_count(const nnc_trainer_t *trainer);
NNC_API_EXPORT nnc_status_t
nnc_trainer_data_info(const nnc_trainer_t *trainer, size_t index,
                      const nnc_value_info_t **out_info);

typedef struct nnc_step_info_t {
  size_t struct_size;   /* set by the caller to sizeof(nnc_step_info_t) */
  double loss;          /* this batch's loss, unscaled */
  int32_t applied;      /* nonzero when this call updated the parameters */
  int32_t skipped;      /* nonzero when non-finite gradients skipped it */
  double learning_rate; /* used by the update (or to be used) */
  double loss_scale;    /* in effect for this batch */
  int64_t step;         /* optimizer steps taken so far (after this call) */
  double seconds;       /* compute time of this call */
  int32_t compiled;     /* nonzero when this call compiled a new shape */
  /* A skipped step: the first value of the batch's forward and backward
   * that was not finite, in program order: an op with its source name and
   * result type ("nnc.gemm '/fc1/Gemm' (backward) tensor<64x512xf16>"),
   * or an input or parameter; or why none could be named ("not named:
   * ..."). NULL when the step was not skipped. Owned by the trainer, valid
   * until its next call. Callers built before these two fields existed
   * pass the smaller struct_size and do not get them. */
  const char *nonfinite;
  double probe_seconds; /* what naming it took (a compilation the first
                           time per batch shape, then one rerun) */
} nnc_step_info_t;

/* Runs one training step on a batch: `data[0, count)` (borrowed) as
 * nnc_trainer_data_info describes. With accumulation the parameters change
 * on every `accumulate`-th call. `out_info` (optional) receives the
 * figures. */
NNC_API_EXPORT nnc_status_t nnc_trainer_step(nnc_trainer_t *trainer,
                                             size_t count,
                                             const nnc_tensor_t *const *data,
                                             nnc_step_info_t *out_info);

/* Figures of the executable that ran the most recent nnc_trainer_step (the
 * training step, or the gradient step when accumulating) for its batch
 * shape: kernels, arena, bytes moved, and the unfused figures when the
 * trainer's compile options ask for them. NOT_FOUND before the first
 * step. `out_stats->struct_size` must be set first. */
NNC_API_EXPORT nnc_status_t nnc_trainer_step_stats(
    const nnc_trainer_t *trainer, nnc_executable_stats_t *out_stats);

/* Computes, without updating anything, the loss and the gradient of every
 * trainable parameter (in nnc_trainer_parameter order of the trainable
 * ones) on a batch in training mode. `out_loss` receives the loss;
 * `out_gradients[0, count)` receive new tensors (owned by the caller),
 * `count` being the number of trainable parameters. */
NNC_API_EXPORT nnc_status_t nnc_trainer_gradients(
    nnc_trainer_t *trainer, size_t count, const nnc_tensor_t *const *data,
    double *out_loss, size_t num_gradients, nnc_tensor_t **out_gradients);

/* Runs the model in inference mode with the current parameters on the
 * graph inputs `inputs[0, count)` (borrowed, without labels); `outputs`
 * receive new tensors, one per model output. */
NNC_API_EXPORT nnc_status_t nnc_trainer_evaluate(
    nnc_trainer_t *trainer, size_t count, const nnc_tensor_t *const *inputs,
    size_t num_outputs, nnc_tensor_t **outputs);

/* The model's parameters and buffers with their current values: trainable,
 * frozen and buffer arguments, in argument order. `out_info` and
 * `out_value` are borrowed from the trainer and live as long as it;
 * `out_value` shows the values after later steps and checkpoint loads too
 * (its data pointer may change: read it again after a step). */
NNC_API_EXPORT size_t nnc_trainer_parameter_count(const nnc_trainer_t *trainer);
NNC_API_EXPORT nnc_status_t nnc_trainer_parameter(
    nnc_trainer_t *trainer, size_t index, const nnc_value_info_t **out_info,
    const nnc_tensor_t **out_value);

/* Optimizer steps taken (restored by a checkpoint). */
NNC_API_EXPORT int64_t nnc_trainer_step_count(const nnc_trainer_t *trainer);

/* Writes a checkpoint of everything a resumed run needs (parameters,
 * buffers, optimizer state, step count, loss scaler, seed, options) plus
 * `metadata_keys/values[0, num_metadata)` (borrowed strings, e.g. the data
 * position) to `path`, atomically: a crash leaves the previous file intact.
 * Only between optimizer steps (INVALID_ARGUMENT in the middle of an
 * accumulation). */
NNC_API_EXPORT nnc_status_t nnc_trainer_save_checkpoint(
    nnc_trainer_t *trainer, const char *path, size_t num_metadata,
    const char *const *metadata_keys, const char *const *metadata_values);

/* Restores the state a checkpoint holds. A checkpoint of another model or
 * optimizer, or a corrupt one, is rejected (DATA_LOSS, INVALID_ARGUMENT)
 * and changes nothing. */
NNC_API_EXPORT nnc_status_t nnc_trainer_load_checkpoint(nnc_trainer_t *trainer,
                                                        const char *path);

/* The value of `key` in the metadata of the last checkpoint loaded, or NULL
 * (borrowed; valid until the next load or destruction). */
NNC_API_EXPORT const char *
nnc_trainer_checkpoint_metadata(const nnc_trainer_t *trainer, const char *key);

/* A saved trainer: its compiled functions for the data shapes it had
 * prepared or run, how they bind to its state, and the state (parameters,
 * buffers, optimizer state, step count, loss scaler), in one executable
 * file. Training from it needs this library only: data of other shapes fail
 * with NOT_FOUND naming the shapes it holds. Loads and verifies the file at
 * `path` / the bytes `data[0, size)` (borrowed during the call); DATA_LOSS
 * for a corrupt file, INVALID_ARGUMENT for an executable of one function.
 * `out_trainer` is owned by the caller. */
NNC_API_EXPORT nnc_status_t nnc_trainer_load_file(const char *path,
                                                  nnc_trainer_t **out_trainer);
NNC_API_EXPORT nnc_status_t nnc_trainer_load_memory(
    const void *data, size_t size, nnc_trainer_t **out_trainer);

/* Readies the functions that steps (and, when `with_eval` is nonzero,
 * evaluations) on data like `data[0, count)` run, without running them:
 * only the dtypes and shapes of the tensors are read. A trainer from
 * nnc_trainer_create compiles them now (`out_compiled`, optional, is set
 * nonzero when it did); a loaded one checks that it holds them. */
NNC_API_EXPORT nnc_status_t nnc_trainer_prepare(nnc_trainer_t *trainer,
                                                size_t count,
                                                const nnc_tensor_t *const *data,
                                                int32_t with_eval,
                                                int32_t *out_compiled);

/* nnc_executable_enable_cuda_graph for every program of a trainer from
 * nnc_trainer_load_file, from its next step on; between steps only. A
 * trainer that compiles its programs (nnc_trainer_create) takes cuda_graph
 * in its compile options instead: INVALID_ARGUMENT. */
NNC_API_EXPORT nnc_status_t nnc_trainer_enable_cuda_graph(nnc_trainer_t *trainer);

/* Writes the trainer (state and every function compiled or loaded so far)
 * to `path` atomically, for nnc_trainer_load_file. Only between optimizer
 * steps, and after a step or nnc_trainer_prepare (INVALID_ARGUMENT). */
NNC_API_EXPORT nnc_status_t nnc_trainer_save(const nnc_trainer_t *trainer,
                                             const char *path);

/* What a trainer was made for, fixed when it was created. */
typedef struct nnc_trainer_info_t {
  size_t struct_size; /* set by the caller to sizeof(nnc_trainer_info_t) */
  size_t loss_output; /* the model output the loss attaches to */
  int32_t class_loss; /* nonzero for cross-entropy and NLL (class labels),
                         zero for MSE */
  int64_t accumulate; /* micro-batches per optimizer step */
  uint64_t seed;      /* of the random streams of training-mode ops */
} nnc_trainer_info_t;

/* Fills `*out_info` (caller sets struct_size first). */
NNC_API_EXPORT nnc_status_t nnc_trainer_info(const nnc_trainer_t *trainer,
                                             nnc_trainer_info_t *out_info);

/* Data-parallel training (docs/Distributed.md): the trainer becomes one
 * rank of a group that averages its gradients over Gloo (TCP) before every
 * optimizer step. */
typedef struct nnc_distributed_options_t {
  /* Stamped by nnc_distributed_options_initialize; do not set by hand. */
  size_t struct_size;
  uint32_t abi_version;
  /* Nonzero (the default): the rank, world size and store come from the
   * launcher's variables when any are set: torchrun's RANK, WORLD_SIZE,
   * LOCAL_RANK, LOCAL_WORLD_SIZE, Slurm's SLURM_PROCID, SLURM_NTASKS,
   * SLURM_LOCALID, or Open MPI's OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK,
   * with MASTER_ADDR and MASTER_PORT; the fields below otherwise. */
  int32_t from_environment;
  int32_t rank;            /* default 0 */
  int32_t world_size;      /* default 1: nothing to distribute */
  const char *master_addr; /* rank 0 serves the store here (127.0.0.1) */
  int32_t master_port;     /* default 29500 */
  /* Every collective's and the rendezvous's limit: a rank gone or stalled
   * fails the others' steps within it, naming the collective. Default
   * 300. */
  double timeout_seconds;
  /* Gradients are all-reduced in buckets of at most this many bytes
   * (default 25 MiB, as DDP's bucket_cap_mb), filled in the order the
   * compiled gradient step finishes them (rank 0's order everywhere). */
  int64_t bucket_bytes;
  /* Nonzero (the default): after every optimizer step the buffers (batch
   * normalization's running statistics) take rank 0's values. */
  int32_t broadcast_buffers;
  /* The network interface other ranks reach this one at (NULL:
   * $GLOO_SOCKET_IFNAME when set, else the host name, or 127.0.0.1 when
   * the master is a loopback address). */
  const char *iface;
  /* Nonzero (the default): a bucket's all-reduce starts as soon as the
   * gradient computation has written its gradients, while backward goes
   * on; zero: after the whole computation. */
  int32_t overlap;
  /* What else every rank must have the same, as text (NULL: nothing), e.g.
   * the batch size per rank and a signature of the data files; compared
   * (by digest) with the model, optimizer and seed when joining, and a rank
   * that differs is refused with this text. Borrowed during the call. */
  const char *agreement;
} nnc_distributed_options_t;

static inline void
nnc_distributed_options_initialize(nnc_distributed_options_t *options) {
  if (!options)
    return;
  options->struct_size = sizeof(*options);
  options->abi_version = NNC_ABI_VERSION;
  options->from_environment = 1;
  options->rank = 0;
  options->world_size = 1;
  options->master_addr = "127.0.0.1";
  options->master_port = 29500;
  options->timeout_seconds = 300;
  options->bucket_bytes = (int64_t)25 << 20;
  options->broadcast_buffers = 1;
  options->iface = NULL;
  options->overlap = 1;
  options->agreement = NULL;
}

/* Joins the group `options` describes (NULL: the defaults) as its rank:
 * rendezvous through the TCP store rank 0 serves, a check that every rank
 * trains the same model the same way, then rank 0's parameters, buffers,
 * optimizer state, step count and loss scaler on every rank. A world of
 * one changes nothing. UNIMPLEMENTED names libnnc_gloo.so when the Gloo
 * glue is missing; UNAVAILABLE names the ranks not heard from when the
 * rendezvous times out; a malformed launcher variable is INVALID_ARGUMENT
 * naming it. Only before the first step of an accumulation. */
NNC_API_EXPORT nnc_status_t nnc_trainer_distribute(
    nnc_trainer_t *trainer, const nnc_distributed_options_t *options);

typedef struct nnc_distributed_info_t {
  size_t struct_size; /* set by the caller to sizeof(nnc_distributed_info_t) */
  int32_t rank, world_size, local_rank, local_world_size;
  /* "gloo ... over TCP"; "" before nnc_trainer_distribute or in a world of
   * one. Borrowed from the trainer. */
  const char *backend;
  /* Per optimizer step: gradient buckets, bytes all-reduced, buffer bytes
   * broadcast. */
  int64_t buckets, bytes_per_step, buffer_bytes_per_step;
  /* Optimizer steps all-reduced; the seconds spent in collectives, and of
   * those the seconds the steps waited for them (not hidden behind
   * backward). */
  int64_t reductions;
  double seconds;
  double exposed_seconds;
  /* The steps of the compiled gradient function; the collectives inside it
   * (synchronized batch normalization, nnc_train_options_t::
   * sync_batch_norm) and their bytes, in the last step. */
  int64_t gradient_steps;
  int64_t program_collectives_per_step, program_bytes_per_step;
} nnc_distributed_info_t;

/* One gradient bucket (nnc_trainer_distributed_bucket). */
typedef struct nnc_distributed_bucket_t {
  size_t struct_size; /* set by the caller */
  int64_t gradients, bytes;
  /* The step of the compiled gradient function after which its last
   * gradient is written (-1: before the first): its all-reduce starts
   * then, while the later steps run. */
  int64_t ready_step;
  /* The trainable parameters of its first and last gradient (borrowed from
   * the trainer until the next step). */
  const char *first_gradient, *last_gradient;
} nnc_distributed_bucket_t;

/* Where this process sits, as nnc_trainer_distribute would read it from
 * `options` (NULL: the defaults) and the launcher's variables, without
 * joining anything: fills the rank and world fields of `*out_info` (caller
 * sets struct_size first; the statistics are zero, backend ""). What a
 * program needs before it has a trainer, e.g. to shard its data. */
NNC_API_EXPORT nnc_status_t nnc_distributed_launch(
    const nnc_distributed_options_t *options, nnc_distributed_info_t *out_info);

/* Fills `*out_info` (caller sets struct_size first): rank 0 of 1 before
 * nnc_trainer_distribute. */
NNC_API_EXPORT nnc_status_t nnc_trainer_distributed_info(
    const nnc_trainer_t *trainer, nnc_distributed_info_t *out_info);

/* Bucket `index` (below nnc_distributed_info_t::buckets; 0 before the first
 * all-reduced step), in the order the buckets are all-reduced.
 * OUT_OF_RANGE past the last. */
NNC_API_EXPORT nnc_status_t nnc_trainer_distributed_bucket(
    const nnc_trainer_t *trainer, size_t index,
    nnc_distributed_bucket_t *out_bucket);

/* The number of model outputs nnc_trainer_evaluate returns; 0 before the
 * trainer's functions exist (a created trainer before its first step or
 * prepare). */
NNC_API_EXPORT size_t nnc_trainer_output_count(const nnc_trainer_t *trainer);

/* Releases `trainer` (owned; NULL is a no-op). */
NNC_API_EXPORT void nnc_trainer_destroy(nnc_trainer_t *trainer);

/*===----------------------------------------------------------------------===*
 * Watching a training run
 *===----------------------------------------------------------------------===*/

/* Where a run's time and memory go, per interval, and advice when a figure
 * crosses its threshold (docs/Training.md, "Watching a run"). It reads
 * counters the trainer and the loader keep anyway: watching costs nothing
 * per step (the kernel advice profiles the second interval, unless
 * profile_kernels is 0). */
typedef struct nnc_monitor_s nnc_monitor_t;

typedef struct nnc_monitor_options_t {
  /* Stamped by nnc_monitor_options_initialize; do not set by hand. */
  size_t struct_size;
  uint32_t abi_version;
  /* Data advice when waiting for batches takes more than this share of an
   * interval's wall time (default 0.10). */
  double data_wait_share;
  /* Memory advice when the resident memory passes this share of what is
   * available (default 0.90). */
  double memory_share;
  /* What is available, in bytes; 0 (the default): the cgroup's limit, else
   * the physical memory. */
  uint64_t memory_limit_bytes;
  /* Kernel advice when at most 3 kernels take this share of the kernel time
   * of the profiled interval (default 0.5). */
  double kernel_share;
  /* Nonzero (the default): profile the second interval for the kernel
   * advice (when the profiler already records, its events are read). */
  int32_t profile_kernels;
} nnc_monitor_options_t;

static inline void
nnc_monitor_options_initialize(nnc_monitor_options_t *options) {
  if (!options)
    return;
  options->struct_size = sizeof(*options);
  options->abi_version = NNC_ABI_VERSION;
  options->data_wait_share = 0.10;
  options->memory_share = 0.90;
  options->memory_limit_bytes = 0;
  options->kernel_share = 0.5;
  options->profile_kernels = 1;
}

/* The topics of advice, as bits. */
#define NNC_ADVICE_DATA_WAIT 1u
#define NNC_ADVICE_MEMORY 2u
#define NNC_ADVICE_KERNELS 4u

typedef struct nnc_interval_stats_t {
  size_t struct_size;    /* set by the caller to sizeof(nnc_interval_stats_t) */
  int64_t step;          /* optimizer steps taken at the end of the interval */
  int64_t steps;         /* optimizer steps taken in it */
  int64_t samples;       /* rows of data the trainer ran in it */
  int64_t micro_batches; /* nnc_trainer_step calls in it */
  /* The interval's wall time and its parts, which add up to it: the
   * compiled step running (busy), waiting for the loader's batches, and
   * everything else (compiling new shapes, evaluation, checkpoints, the
   * caller's own work). */
  double wall_seconds;
  double busy_seconds;
  double data_wait_seconds;
  double other_seconds;
  double samples_per_second;
  /* The planned peak of the program the last step ran (its
   * peak_memory_bytes); 0 before any step. */
  uint64_t planned_peak_bytes;
  /* The process's resident memory now and at its highest, and what it may
   * use (memory_source says where that figure comes from: "physical
   * memory", "cgroup /sys/fs/cgroup/.../memory.max", "the limit given"). */
  uint64_t resident_bytes;
  uint64_t peak_resident_bytes;
  uint64_t memory_available_bytes;
  const char *memory_source;
  /* NNC_ADVICE_* bits raised in this interval (each topic once per
   * monitor), and their texts, one line each; NULL when none. Strings are
   * owned by the monitor, valid until its next call. */
  uint32_t advice;
  const char *advice_text;
} nnc_interval_stats_t;

/* Creates a monitor of `trainer` and `loader` (both borrowed, must outlive
 * it; `loader` may be NULL when the caller feeds data itself); its first
 * interval starts now. `options` may be NULL for the defaults. */
NNC_API_EXPORT nnc_status_t nnc_monitor_create(
    const nnc_trainer_t *trainer, const nnc_loader_t *loader,
    const nnc_monitor_options_t *options, nnc_monitor_t **out_monitor);

/* Ends the current interval, fills `*out_stats` (caller sets struct_size)
 * with its figures and starts the next. */
NNC_API_EXPORT nnc_status_t
nnc_monitor_interval(nnc_monitor_t *monitor, nnc_interval_stats_t *out_stats);

/* Releases `monitor` (owned; NULL is a no-op); stops the profiler if it
 * started it. */
NNC_API_EXPORT void nnc_monitor_destroy(nnc_monitor_t *monitor);

#ifdef __cplusplus
}
#endif

#endif /* NNC_C_RUNTIME_H */
