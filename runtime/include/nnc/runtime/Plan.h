//===- Plan.h - the execution plan of an executable -------------*- C++ -*-===//
//
// The plan is the part of an executable that says how to run its kernels:
// the values a run sees (inputs, outputs, weights, the scratch arena, each
// with dtype and concrete shape), the kernel calls in order with the values
// they take, and the figures `nnc-run --report` prints. The compiler writes it
// into the "plan" metadata section; the runtime parses and checks it in full
// before anything in it is used. docs/Executable.md describes the encoding.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_PLAN_H
#define NNC_RUNTIME_PLAN_H

#include "nnc/runtime/HostTensor.h"
#include "nnc/runtime/Status.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace nnc::runtime {

/// How a plan value is bound at run time. Part of the format.
enum class ValueRole : uint8_t {
  Input = 0,  ///< Fed by the caller on every run.
  Output = 1, ///< Allocated by the runtime and handed to the caller.
  Weight = 2, ///< Read from the executable's weights section.
  /// A u8[bytes] buffer the runtime provides to every run (version 2):
  /// 64-byte aligned, contents undefined at the start of a run, never seen by
  /// the caller. Temporaries live in it at offsets the compiler planned.
  Scratch = 3,
};

/// What a value is in the model (the C API's nnc_value_kind_t). Part of the
/// format.
enum class ValueKind : uint8_t {
  Input = 0,
  Trainable = 1,
  Frozen = 2,
  Buffer = 3,
  Output = 4,
};

struct PlanValue {
  ValueRole role = ValueRole::Input;
  ValueKind kind = ValueKind::Input;
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  /// For weights: where the value lies in the weights section.
  uint64_t weightOffset = 0;
  uint64_t weightSize = 0;
  /// For an integer input the code was specialized on (a shape input: a
  /// Reshape's target, a Range's limit): the values, row-major, every run
  /// must pass; empty for the others. Version 4.
  std::vector<int64_t> specializedValues;
};

/// What a step's time is, for the profiler. Part of the format.
enum class StepKind : uint8_t {
  Kernel = 0,  ///< Generated code.
  Library = 1, ///< Essentially one or more calls into BLAS: library time.
};

/// One kernel call: `kernel` is a symbol of the code section; it receives an
/// array of pointers to the buffers of `args` (indices into Plan::values).
/// The other fields (version 2) only describe the step, for profiles.
struct PlanStep {
  std::string kernel;
  std::vector<uint32_t> args;
  /// Display name, e.g. "fill+reduce: /ln_1/ReduceMean"; may be empty.
  std::string name;
  /// A longer description for traces (e.g. the ops fused); may be empty.
  std::string detail;
  StepKind kind = StepKind::Kernel;
  /// Compile-time estimates of the bytes the step reads and writes.
  uint64_t bytesRead = 0;
  uint64_t bytesWritten = 0;
};

/// A run-time check the kernels make (version 3): an index or a label that
/// must lie in a range. Check k owns bytes [32k, 32k + 32) of the checks
/// buffer (Plan::checksValue) as four i64: a flag (non-zero: violated),
/// the offending value, and the range's lower and (exclusive) upper bound.
/// A kernel that sees a value out of range writes them (atomically; any
/// one violation is kept) and carries on with a value in range; the runtime
/// zeroes the buffer before a run and reads it after every step that takes
/// it, failing the run with the first check set.
struct PlanCheck {
  /// What is checked, for the error, e.g.
  /// "gather '/embed/Gather' index into axis 0 of f32[100x16]".
  std::string what;
};

struct Plan {
  /// The newest plan encoding this runtime reads.
  /// 2 added the scratch role, the step descriptions and the unfused and
  /// kernel-allocation figures; 3 the run-time checks; 4 the values of
  /// inputs specialized on their values. Older plans still parse.
  static constexpr uint32_t kVersion = 4;
  /// The most elements an input specialized on its values holds.
  static constexpr uint32_t kMaxSpecializedElements = 1024;
  /// The bytes of one check's slot in the checks buffer.
  static constexpr uint64_t kCheckSlotBytes = 32;
  /// Plan::checksValue when the plan makes no checks.
  static constexpr uint32_t kNoValue = 0xFFFFFFFFu;

  std::vector<PlanValue> values;
  std::vector<PlanStep> steps;
  /// CPU features the code needs (e.g. "avx2"), checked before loading.
  std::vector<std::string> cpuFeatures;
  /// Runtime libraries the code calls, opened before it is loaded: the
  /// OpenMP runtime (libomp), BLAS (OpenBLAS's cblas_*gemm) and the oneDNN
  /// glue (libnnc_dnnl.so's nnc_dnnl_convolution; a runtime older than it
  /// rejects the flag).
  bool needsOpenMP = false;
  bool needsBlas = false;
  bool needsDnnl = false;
  /// The code calls nnc_runtime_all_reduce (collectives inside the program,
  /// nnc/runtime/Collectives.h): the runtime makes its own symbols visible
  /// to the code, and stops a run after a step whose collective failed.
  bool needsCollectives = false;
  /// Figures reported by `nnc-run --report`: calls into GEMM/convolution
  /// libraries per run, and the bytes of temporaries: for version 2 plans
  /// the size of the scratch arena, for version 1 plans the bytes the
  /// kernels allocate (an upper bound).
  uint32_t libraryCalls = 0;
  uint64_t temporaryBytes = 0;
  /// Kernels and bytes moved of the same graph compiled without fusion (0:
  /// not measured), and the bytes the kernels still allocate themselves per
  /// run (not planned into the arena). Version 2.
  uint32_t unfusedKernels = 0;
  uint64_t unfusedBytesMoved = 0;
  uint64_t kernelAllocBytes = 0;
  /// Outputs written in place into an input's buffer, as (output value,
  /// input value) pairs: the caller's input then holds the output after a
  /// run (a trainer's parameters and optimizer state, updated in place).
  /// Each output and each input appears at most once; the two have the
  /// same dtype and shape. Version 2.
  std::vector<std::pair<uint32_t, uint32_t>> donations;
  /// The compiler that wrote the plan, e.g. "nnc 0.1.0 (LLVM 22.1.8)".
  std::string producer;
  /// The run-time checks and the scratch value holding their slots
  /// (kCheckSlotBytes each; kNoValue without checks). Version 3.
  std::vector<PlanCheck> checks;
  uint32_t checksValue = kNoValue;

  /// Indices of the values with `role`, in plan order.
  std::vector<uint32_t> indicesOf(ValueRole role) const;
};

/// Encodes `plan` (little-endian, field by field) as version kVersion.
std::vector<uint8_t> serializePlan(const Plan &plan);

/// Decodes and checks a plan: every length, count, enum, dtype and shape;
/// weights inside a section of `weightsSize` bytes with the size their dtype
/// and shape give; scratch values u8 of rank 1; step arguments in range; at
/// least one output; the checks buffer a scratch value of one slot per
/// check. Reads versions 1 to 3. `source`
/// names the plan in errors (e.g. "model.nncx: plan").
Status parsePlan(const uint8_t *data, size_t size, uint64_t weightsSize,
                 const std::string &source, Plan &out);

/// "f32[2x3]"-style description of a value's type, for messages.
std::string describeType(DType dtype, const std::vector<int64_t> &shape);

} // namespace nnc::runtime

#endif // NNC_RUNTIME_PLAN_H
