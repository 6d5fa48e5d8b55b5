//===- Internal.h - shared parts of the C API implementation ---*- C++ -*-===//
//
// The handle structs behind the opaque C types and the helpers every part of
// the C API implementation uses: status construction, the exception guard,
// options checks, dtype conversions and diagnostic capture.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LIB_CAPI_INTERNAL_H
#define NNC_LIB_CAPI_INTERNAL_H

#include "nnc-c/nnc.h"

#include "nnc/runtime/HostTensor.h"
#include "nnc/runtime/Status.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <memory>
#include <new>
#include <string>
#include <vector>

struct nnc_status_s {
  nnc_status_code_t code;
  std::string message;
};

/// Shared by the user's handle and every model created in it, so that models
/// may outlive nnc_context_destroy.
struct nnc_context_s {
  std::unique_ptr<mlir::MLIRContext> mlir;
  std::atomic<int> references{1};
};

namespace nnc::capi {

namespace rt = nnc::runtime;

/// Returned when even a status cannot be allocated; never freed.
nnc_status_s &outOfMemoryStatus();
nnc_status_t makeStatus(nnc_status_code_t code, const char *function,
                        const std::string &message) noexcept;
nnc_status_t invalidArgument(const char *function, const std::string &message);
nnc_status_t nullArgument(const char *function, const char *argument);
nnc_status_code_t convertCode(rt::StatusCode code);
nnc_status_t convertStatus(const char *function, const rt::Status &status);

/// Runs `body`, turning any exception into a status: nothing may unwind
/// into C callers.
template <typename Fn>
nnc_status_t guarded(const char *function, Fn &&body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return &outOfMemoryStatus();
  } catch (const std::exception &e) {
    return makeStatus(NNC_STATUS_INTERNAL, function,
                      std::string("unexpected C++ exception: ") + e.what());
  } catch (...) {
    return makeStatus(NNC_STATUS_INTERNAL, function,
                      "unexpected C++ exception");
  }
}

/// Options structs must come from the _initialize functions of this ABI.
template <typename Options>
nnc_status_t checkOptions(const char *function, const char *argument,
                          const Options *options) {
  if (options->struct_size != sizeof(Options) ||
      options->abi_version != NNC_ABI_VERSION)
    return invalidArgument(
        function,
        std::string("argument '") + argument + "' has struct_size " +
            std::to_string(options->struct_size) + " and abi_version " +
            std::to_string(options->abi_version) + "; this library expects " +
            std::to_string(sizeof(Options)) + " and " +
            std::to_string(NNC_ABI_VERSION) +
            " (initialize it with its _initialize function)");
  return nullptr;
}

bool isValidDType(nnc_dtype_t dtype);
rt::DType toRuntime(nnc_dtype_t dtype);
nnc_dtype_t fromRuntime(rt::DType dtype);
nnc_dtype_t fromMLIR(mlir::Type type);

void retain(nnc_context_s *context);
void release(nnc_context_s *context);

/// Collects the diagnostics MLIR raises during one API call, so that none
/// reach MLIR's default handler (stderr).
class DiagnosticCapture {
public:
  explicit DiagnosticCapture(mlir::MLIRContext &context)
      : handler(&context, [this](mlir::Diagnostic &diag) {
          record(diag);
          return mlir::success();
        }) {}

  /// The errors seen, one per line, each with its notes.
  std::string errors() const {
    return text.empty() ? "failed without a diagnostic" : text;
  }

private:
  static void printLocation(llvm::raw_ostream &os, mlir::Location loc) {
    if (auto name = llvm::dyn_cast<mlir::NameLoc>(loc))
      return printLocation(os, name.getChildLoc());
    if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(loc)) {
      os << file.getFilename().getValue();
      if (file.getLine() != 0)
        os << ":" << file.getLine() << ":" << file.getColumn();
      os << ": ";
      return;
    }
    if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc))
      if (!fused.getLocations().empty())
        return printLocation(os, fused.getLocations().front());
  }

  void record(mlir::Diagnostic &diag) {
    // Warnings and remarks are dropped: a status only reports failure.
    if (diag.getSeverity() != mlir::DiagnosticSeverity::Error)
      return;
    llvm::raw_string_ostream os(text);
    if (!text.empty())
      os << "\n";
    printLocation(os, diag.getLocation());
    os << diag;
    for (mlir::Diagnostic &note : diag.getNotes())
      os << "\n  note: " << note;
  }

  std::string text;
  mlir::ScopedDiagnosticHandler handler;
};

/// One argument's or result's signature with the storage its pointers use.
struct ValueInfo {
  nnc_value_info_t info;
  std::string name;
  std::vector<int64_t> dims;
};

std::unique_ptr<ValueInfo> describe(mlir::Type type, mlir::Location loc,
                                    nnc_value_kind_t kind);
nnc_value_kind_t argumentKind(mlir::func::FuncOp func, unsigned index);

/// Checks that `rank` is at most NNC_MAX_RANK and that `dims` is given when
/// it is not 0.
nnc_status_t checkRank(const char *fn, size_t rank, const int64_t *dims);

/// Checks dtype, rank and dims and computes the byte size.
nnc_status_t checkShape(const char *fn, nnc_dtype_t dtype, size_t rank,
                        const int64_t *dims, std::vector<int64_t> &shape,
                        size_t &bytes);

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

struct nnc_tensor_s {
  nnc_dtype_t dtype = NNC_DTYPE_F32;
  std::vector<int64_t> dims;
  void *data = nullptr;
  size_t byteSize = 0;
  /// The storage of an owned tensor; empty for a view.
  nnc::runtime::HostTensor storage;
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

/// A tensor that owns `storage`, its dtype and dims read from it.
std::unique_ptr<nnc_tensor_s> makeOwnedTensor(rt::HostTensor storage);

/// A tensor of `dtype` and the checked `shape` (`bytes` in all, see
/// checkShape) owning freshly allocated storage.
nnc_status_t allocateTensor(const char *fn, nnc_dtype_t dtype,
                            std::vector<int64_t> shape, size_t bytes,
                            std::unique_ptr<nnc_tensor_s> &out);

/// Copies `tensor` (owned or a view) into `copy`, as the runtime's writers
/// take HostTensors.
nnc_status_t copyToHost(const char *fn, const nnc_tensor_s &tensor,
                        rt::HostTensor &copy);

} // namespace nnc::capi

namespace nnc::runtime {
class Program;
} // namespace nnc::runtime

struct nnc_executable_s {
  std::unique_ptr<nnc::runtime::Program> program;
  std::vector<std::unique_ptr<nnc::capi::ValueInfo>> inputs;
  std::vector<std::unique_ptr<nnc::capi::ValueInfo>> outputs;
  double compileSeconds = 0;
  bool fromCache = false;
  uint32_t threads = 0;
  ~nnc_executable_s();
};

namespace nnc::capi {

/// Compiles function `name` of `module` for the host CPU with `options`
/// (NULL: the defaults) and loads it; diagnostics become the status.
nnc_status_t compileFunction(const char *fn, mlir::ModuleOp module,
                             llvm::StringRef name,
                             const nnc_compile_options_t *options,
                             llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes,
                             std::unique_ptr<nnc_executable_s> &out,
                             llvm::ArrayRef<std::pair<unsigned, unsigned>>
                                 donations = {});

} // namespace nnc::capi

#endif // NNC_LIB_CAPI_INTERNAL_H
