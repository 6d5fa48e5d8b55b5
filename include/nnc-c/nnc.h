/*===- nnc-c/nnc.h - the public C API of nnc ----------------------*- C -*-===*\
|*                                                                            *|
|* The C interface programs use to embed nnc: contexts, ONNX import, model    *|
|* signatures, host tensors and .npy files. This first slice covers what the  *|
|* compiler can do today; compiling, running and saving executables join it   *|
|* with the CPU backend. docs/CAPI.md has a worked example.                   *|
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

#ifndef NNC_C_NNC_H
#define NNC_C_NNC_H

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

/* Receives text in one or more pieces; `data[0, length)` is not
 * NUL-terminated and is valid only during the call. */
typedef void (*nnc_string_callback_t)(const char *data, size_t length,
                                      void *user_data);

/* Writes the textual IR of `model` (borrowed) through `callback`, passing
 * `user_data` (borrowed, may be NULL) along. Context threading rule. */
NNC_API_EXPORT nnc_status_t nnc_model_print(nnc_model_t *model,
                                            nnc_string_callback_t callback,
                                            void *user_data);

/* What a function argument is. */
typedef enum nnc_value_kind_t {
  NNC_VALUE_INPUT = 0,     /* a graph input fed on every run */
  NNC_VALUE_TRAINABLE = 1, /* a parameter that training updates */
  NNC_VALUE_FROZEN = 2,    /* a parameter held fixed */
  NNC_VALUE_BUFFER = 3,    /* state such as batch-norm running statistics */
  NNC_VALUE_OUTPUT = 4,    /* a result of the function */
} nnc_value_kind_t;

/* The signature of one argument or result. Owned by the model: the struct
 * and every pointer in it stay valid until the model is destroyed. Later
 * versions may append fields. */
typedef struct nnc_value_info_t {
  /* NUL-terminated name, or NULL when the model does not record one (the
   * ONNX importer names arguments but not results today). */
  const char *name;
  nnc_value_kind_t kind;
  nnc_dtype_t dtype;
  size_t rank;
  /* `rank` dimensions; -1 for a dynamic one. NULL when rank is 0. */
  const int64_t *dims;
} nnc_value_info_t;

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

/* Writes `tensor` (borrowed) to `path` (borrowed) as .npy, through a
 * temporary file and a rename. Thread-safe (see nnc_tensor_t for writes to
 * the data). */
NNC_API_EXPORT nnc_status_t nnc_tensor_write_npy(const nnc_tensor_t *tensor,
                                                 const char *path);

#ifdef __cplusplus
}
#endif

#endif /* NNC_C_NNC_H */
