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

/// The API's code for where a kernel's choice came from (0 untuned, 1
/// database, 2 measured).
inline int32_t tuningSource(const nnc_executable_s::TunedKernel &kernel) {
  return kernel.source;
}
inline int32_t tuningSource(const nnc::TunedKernel &kernel) {
  return static_cast<int32_t>(kernel.source);
}
/// The API's code for what the check of the whole program made of a
/// kernel's choice (0 none, 1 kept, 2 turned down).
inline int32_t programCheck(const nnc_executable_s::TunedKernel &kernel) {
  return kernel.programCheck;
}
inline int32_t programCheck(const nnc::TunedKernel &kernel) {
  return static_cast<int32_t>(kernel.check);
}

/// Checks `out` (not null, struct_size) and `index` (below
/// `kernels.size()`; `holder` names what has them in the error) and points
/// `*out` at kernel `index`: what nnc_executable_tuned_kernel and
/// nnc_trainer_tuned_kernel answer.
template <typename Kernel>
nnc_status_t writeTunedKernel(const char *fn, const char *holder,
                              const std::vector<Kernel> &kernels,
                              size_t index, nnc_tuned_kernel_t *out) {
  if (!out)
    return nullArgument(fn, "out_kernel");
  if (out->struct_size != sizeof(nnc_tuned_kernel_t))
    return invalidArgument(fn, "out_kernel->struct_size is " +
                                   std::to_string(out->struct_size) +
                                   "; expected " +
                                   std::to_string(sizeof(nnc_tuned_kernel_t)));
  if (index >= kernels.size())
    return invalidArgument(fn, "index " + std::to_string(index) +
                                   " is out of range (the " + holder +
                                   " has " + std::to_string(kernels.size()) +
                                   " tuned kernels)");
  const Kernel &kernel = kernels[index];
  out->kernel = kernel.kernel.c_str();
  out->choice = kernel.choice.c_str();
  out->default_choice = kernel.defaultChoice.c_str();
  out->choice_ms = kernel.choiceMs;
  out->default_ms = kernel.defaultMs;
  out->source = tuningSource(kernel);
  out->program_check = programCheck(kernel);
  return nullptr;
}

} // namespace nnc::capi

#endif // NNC_LIB_CAPI_INTERNAL_H
