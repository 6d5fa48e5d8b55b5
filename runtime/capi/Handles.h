//===- Handles.h - shared parts of the C API implementation -----*- C++ -*-===//
//
// The handle structs behind the opaque types of nnc-c/runtime.h and the
// helpers every part of the C API implementation uses: status construction,
// the exception guard, options checks, dtype conversions, tensor and
// executable construction. libnnc_runtime defines them; libnnc (the compiler
// half, lib/CAPI) uses them through libnnc_runtime's exports (capi.exports),
// so that both libraries build the same handles and share one runtime.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_CAPI_HANDLES_H
#define NNC_RUNTIME_CAPI_HANDLES_H

#include "nnc-c/runtime.h"

#include "nnc/runtime/Executable.h"
#include "nnc/runtime/HostTensor.h"
#include "nnc/runtime/Plan.h"
#include "nnc/runtime/Program.h"
#include "nnc/runtime/Status.h"

#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

struct nnc_status_s {
  nnc_status_code_t code;
  std::string message;
};

namespace nnc::runtime {
class Program;
class Trainer;
} // namespace nnc::runtime

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

/// A malloc'ed copy of `text`, as nnc_string_destroy releases it; null when
/// the allocation fails.
char *copyString(const std::string &text);

/// One argument's or result's signature with the storage its pointers use.
struct ValueInfo {
  nnc_value_info_t info;
  std::string name;
  std::vector<int64_t> dims;
  std::vector<int64_t> specializedValues;
};

/// The C value kind of `kind` (the same numbers).
nnc_value_kind_t toKind(rt::ValueKind kind);

/// A signature, its pointers into its own storage.
std::unique_ptr<ValueInfo> describeValue(const std::string &name,
                                         rt::ValueKind kind, rt::DType dtype,
                                         const std::vector<int64_t> &dims);

/// Checks that `rank` is at most NNC_MAX_RANK and that `dims` is given when
/// it is not 0.
nnc_status_t checkRank(const char *fn, size_t rank, const int64_t *dims);

/// Checks dtype, rank and dims and computes the byte size.
nnc_status_t checkShape(const char *fn, nnc_dtype_t dtype, size_t rank,
                        const int64_t *dims, std::vector<int64_t> &shape,
                        size_t &bytes);

} // namespace nnc::capi

struct nnc_tensor_s {
  nnc_dtype_t dtype = NNC_DTYPE_F32;
  std::vector<int64_t> dims;
  void *data = nullptr;
  size_t byteSize = 0;
  /// The storage of an owned tensor; empty for a view.
  nnc::runtime::HostTensor storage;
};

struct nnc_executable_s {
  std::unique_ptr<nnc::runtime::Program> program;
  std::vector<std::unique_ptr<nnc::capi::ValueInfo>> inputs;
  std::vector<std::unique_ptr<nnc::capi::ValueInfo>> outputs;
  double compileSeconds = 0;
  bool fromCache = false;
  uint32_t threads = 0;
  /// What the autotuner did in the compile (the compiler fills it).
  struct TunedKernel {
    std::string kernel, choice, defaultChoice;
    double choiceMs = -1, defaultMs = -1;
    int32_t source = 0;
    int32_t programCheck = 0;
  };
  std::vector<TunedKernel> tuning;
  double tuningSeconds = 0;
  /// nnc_tuning_check_t's fields (checked 0: none).
  int32_t checkChecked = 0, checkSkipped = 0, checkChanges = 0, checkKept = 0,
          checkVariants = 0;
  double checkDefaultMs = -1, checkTunedMs = -1;
  /// What mixed precision did (nnc_mixed_precision_t's fields; precision 0
  /// when the compile asked for none).
  int32_t ampPrecision = 0;
  int64_t ampLowOps = 0, ampFollowOps = 0, ampF32Ops = 0, ampCasts = 0,
          ampNarrowedBytes = 0;
  ~nnc_executable_s();
};

/// A trainer: the runtime's, with the signatures and views the C API hands
/// out.
struct nnc_trainer_s {
  std::unique_ptr<nnc::runtime::Trainer> trainer;
  std::vector<std::unique_ptr<nnc::capi::ValueInfo>> data, slots;
  /// Views of the current parameter values (refreshed when handed out).
  std::vector<nnc_tensor_s> slotViews;
  /// What nnc_step_info_t::nonfinite points at.
  std::string nonFinite;
  /// Data-parallel: where this rank sits, and the communicator's name
  /// (nnc_distributed_info_t::backend points at it).
  int localRank = 0, localWorldSize = 1;
  std::string backend;
  ~nnc_trainer_s();
};

namespace nnc::runtime {
class DataLoader;
} // namespace nnc::runtime

struct nnc_loader_s {
  std::shared_ptr<nnc::runtime::DataLoader> loader;
};

namespace nnc::capi {

/// A batch checked against a trainer's data signature.
struct Batch {
  std::vector<rt::TensorRef> refs;
  std::vector<std::vector<int64_t>> key; // rt::Shapes
  std::vector<int64_t> flatDims;         // of labels given one row per sample
};

/// Checks `data[0, count)` against the `expected` entries of `t`'s data
/// signature (dtypes and shapes): its references and key.
nnc_status_t checkBatch(const char *fn, const nnc_trainer_s &t, size_t count,
                        const nnc_tensor_t *const *data, size_t expected,
                        Batch &batch);

/// Wraps `trainer` into a handle.
std::unique_ptr<nnc_trainer_s>
makeTrainer(std::unique_ptr<rt::Trainer> trainer);

/// Fills `*out_stats` (its struct_size checked) as nnc_executable_stats does
/// for `program`.
nnc_status_t programStats(const char *fn, const rt::Program &program,
                          double compileSeconds, bool fromCache,
                          nnc_executable_stats_t *out_stats);

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

/// An executable handle around a loaded program.
std::unique_ptr<nnc_executable_s>
wrapProgram(std::unique_ptr<rt::Program> program);

/// Loads verified executable bytes or file contents into a handle on the
/// host CPU; `source` names them in errors.
nnc_status_t makeExecutable(const char *fn, rt::ExecutableReader reader,
                            const std::string &source,
                            std::unique_ptr<nnc_executable_s> &out);

/// Checks that an array of `count` handles named `argument` is given.
nnc_status_t checkTensors(const char *fn, const char *argument, size_t count,
                          const void *array);

/// Runs `executable` as nnc_executable_run does, after the NULL check of
/// the executable itself.
nnc_status_t runExecutable(const char *fn, nnc_executable_s *executable,
                           size_t numInputs, const nnc_tensor_t *const *inputs,
                           size_t numOutputs, nnc_tensor_t **outputs);

} // namespace nnc::capi

#endif // NNC_RUNTIME_CAPI_HANDLES_H
