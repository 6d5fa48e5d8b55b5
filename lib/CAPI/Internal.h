//===- Internal.h - shared parts of the C API implementation ---*- C++ -*-===//
//
// The handle structs behind the opaque types of nnc-c/compiler.h and the
// helpers of the compiler half of the C API: MLIR types to dtypes,
// signatures, diagnostic capture and compilation. Statuses, tensors and
// executables are libnnc_runtime's (runtime/capi/Handles.h).
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LIB_CAPI_INTERNAL_H
#define NNC_LIB_CAPI_INTERNAL_H

#include "nnc-c/compiler.h"

#include "Handles.h"

#include "nnc/Compiler/Compiler.h"
#include "nnc/Compiler/Diagnostics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

/// Shared by the user's handle and every model created in it, so that models
/// may outlive nnc_context_destroy.
struct nnc_context_s {
  std::unique_ptr<mlir::MLIRContext> mlir;
  std::atomic<int> references{1};
};

namespace nnc::capi {

/// The value a caller stored in a C enum field, read as its integer: a
/// value outside the enum's range is undefined behaviour to load as the
/// enum type in C++, and callers may store anything.
template <typename E> int64_t enumValue(const E &field) {
  std::underlying_type_t<E> raw;
  static_assert(sizeof raw == sizeof field, "a C enum is its integer");
  std::memcpy(&raw, &field, sizeof raw);
  return static_cast<int64_t>(raw);
}

nnc_dtype_t fromMLIR(mlir::Type type);

void retain(nnc_context_s *context);
void release(nnc_context_s *context);

using nnc::DiagnosticCapture;

std::unique_ptr<ValueInfo> describe(mlir::Type type, mlir::Location loc,
                                    nnc_value_kind_t kind);
nnc_value_kind_t argumentKind(mlir::func::FuncOp func, unsigned index);

} // namespace nnc::capi

struct nnc_model_s {
  nnc_context_s *context = nullptr;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<std::unique_ptr<nnc::capi::ValueInfo>> inputs;
  std::vector<std::unique_ptr<nnc::capi::ValueInfo>> outputs;

  ~nnc_model_s() {
    // The module must go before the context it lives in.
    module = nullptr;
    if (context)
      nnc::capi::release(context);
  }
};

namespace nnc::capi {

/// Wraps a module holding one function into a model, reading its signature.
nnc_status_t makeModel(const char *fn, nnc_context_s *context,
                       mlir::OwningOpRef<mlir::ModuleOp> module,
                       nnc_model_t **out_model);

/// The argument checks of the entry points that make a model from bytes in
/// memory: `data` (called `dataArgument`) may be NULL only when `size` is 0.
nnc_status_t checkMemorySource(const char *fn, const nnc_context_s *context,
                               const void *data, size_t size,
                               const char *dataArgument,
                               nnc_model_t **out_model);

/// The name diagnostics give a source in memory: `name`, or "<memory>" when
/// it is NULL or empty.
inline std::string memorySourceName(const char *name) {
  return name && *name ? name : "<memory>";
}

/// Compiles function `name` of `module` for the host CPU with `options`
/// (NULL: the defaults) and loads it, specialized on `inputValues` (integer
/// inputs by input index; CompileOptions::inputValues); diagnostics become
/// the status.
nnc_status_t compileFunction(
    const char *fn, mlir::ModuleOp module, llvm::StringRef name,
    const nnc_compile_options_t *options,
    llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
    std::unique_ptr<nnc_executable_s> &out,
    const std::map<unsigned, std::vector<int64_t>> &inputValues = {});

/// Reads the protobuf file `path` (`what`: "ONNX model") whole, refusing
/// what is not a regular file (NOT_FOUND, UNAVAILABLE, INVALID_ARGUMENT) or
/// is larger than protobuf parses (OUT_OF_RANGE) before reading it.
nnc_status_t readProtobuf(const char *fn, const char *path, const char *what,
                          std::unique_ptr<llvm::MemoryBuffer> &out);

/// Checks compile options and fills in the defaults they leave open:
/// `out` for the compiler, `threads` for the runs.
nnc_status_t checkCompileOptions(const char *fn,
                                 const nnc_compile_options_t *options,
                                 nnc::CompileOptions &out, uint32_t &threads);

/// The device that runs code compiled for `target` (a name checkCompileOptions
/// accepted): the CPU, or CUDA device N for "cuda:N" (else $NNC_CUDA_DEVICE,
/// else 0).
nnc_status_t deviceForTarget(const char *fn, const std::string &target,
                             rt::Device *&out);

/// Checks `out` (not null, struct_size) and writes `figures` into it, its
/// struct_size kept: what nnc_executable_mixed_precision and
/// nnc_trainer_mixed_precision answer.
nnc_status_t writeMixedPrecision(const char *fn,
                                 const nnc_mixed_precision_t &figures,
                                 nnc_mixed_precision_t *out);

} // namespace nnc::capi

#endif // NNC_LIB_CAPI_INTERNAL_H
