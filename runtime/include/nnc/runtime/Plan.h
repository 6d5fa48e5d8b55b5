//===- Plan.h - the execution plan of an executable -------------*- C++ -*-===//
//
// The plan is the part of an executable that says how to run its kernels:
// the values a run sees (inputs, outputs, weights, each with dtype and
// concrete shape), the kernel calls in order with the values they take, and
// the figures `nnc-run --report` prints. The compiler writes it into the
// "plan" metadata section; the runtime parses and checks it in full before
// anything in it is used. docs/Executable.md describes the encoding.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_PLAN_H
#define NNC_RUNTIME_PLAN_H

#include "nnc/runtime/HostTensor.h"
#include "nnc/runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nnc::runtime {

/// How a plan value is bound at run time. Part of the format.
enum class ValueRole : uint8_t {
  Input = 0,  ///< Fed by the caller on every run.
  Output = 1, ///< Allocated by the runtime and handed to the caller.
  Weight = 2, ///< Read from the executable's weights section.
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
};

/// One kernel call: `kernel` is a symbol of the code section; it receives an
/// array of pointers to the buffers of `args` (indices into Plan::values).
struct PlanStep {
  std::string kernel;
  std::vector<uint32_t> args;
};

struct Plan {
  /// The newest plan encoding this runtime reads.
  static constexpr uint32_t kVersion = 1;

  std::vector<PlanValue> values;
  std::vector<PlanStep> steps;
  /// CPU features the code needs (e.g. "avx2"), checked before loading.
  std::vector<std::string> cpuFeatures;
  /// Runtime libraries the code calls, opened before it is loaded: the
  /// OpenMP runtime (libomp) and BLAS (OpenBLAS's cblas_*gemm).
  bool needsOpenMP = false;
  bool needsBlas = false;
  /// Figures reported by `nnc-run --report`: calls into GEMM/convolution
  /// libraries per run, and the bytes of temporaries the kernels allocate
  /// (an upper bound until memory planning).
  uint32_t libraryCalls = 0;
  uint64_t temporaryBytes = 0;
  /// The compiler that wrote the plan, e.g. "nnc 0.1.0 (LLVM 22.1.8)".
  std::string producer;

  /// Indices of the values with `role`, in plan order.
  std::vector<uint32_t> indicesOf(ValueRole role) const;
};

/// Encodes `plan` (little-endian, field by field).
std::vector<uint8_t> serializePlan(const Plan &plan);

/// Decodes and checks a plan: every length, count, enum, dtype and shape;
/// weights inside a section of `weightsSize` bytes with the size their dtype
/// and shape give; step arguments in range; at least one output. `source`
/// names the plan in errors (e.g. "model.nncx: plan").
Status parsePlan(const uint8_t *data, size_t size, uint64_t weightsSize,
                 const std::string &source, Plan &out);

/// "f32[2x3]"-style description of a value's type, for messages.
std::string describeType(DType dtype, const std::vector<int64_t> &shape);

} // namespace nnc::runtime

#endif // NNC_RUNTIME_PLAN_H
