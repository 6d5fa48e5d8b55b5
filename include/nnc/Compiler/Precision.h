//===- Precision.h - mixed-precision options of a compile -------*- C++ -*-===//
//
// What --nnc-mixed-precision is asked to do, as the compile driver, the
// training pipeline, the C API and nnc-run carry it (docs/Training.md).
//
//===----------------------------------------------------------------------===//

#ifndef NNC_COMPILER_PRECISION_H
#define NNC_COMPILER_PRECISION_H

#include <cstdint>
#include <string>
#include <vector>

namespace nnc {

struct MixedPrecisionOptions {
  /// The low type, "bf16" or "f16"; empty: none (the model's own types).
  std::string dtype;
  /// Op kinds ("nnc.add") moved to the low type or to f32, overriding the
  /// policy table.
  std::vector<std::string> lowOps;
  std::vector<std::string> f32Ops;

  bool enabled() const { return !dtype.empty(); }
  /// The pass's options as text: "dtype=bf16 low-ops=nnc.add"; for cache
  /// keys and fingerprints.
  std::string describe() const;
};

/// What --nnc-mixed-precision did to a function (its nnc.mixed_precision).
struct MixedPrecisionReport {
  std::string dtype;
  /// Ops computing in the low type: by the policy, and following inputs.
  int64_t lowOps = 0, followOps = 0;
  /// Ops the policy kept in f32.
  int64_t f32Ops = 0;
  int64_t casts = 0;
  /// Bytes of op results stored in the low type instead of f32.
  int64_t narrowedBytes = 0;
  /// Training: the parameters whose low-precision copies the step keeps
  /// (made by the optimizer's update) and their bytes.
  int64_t weightCopies = 0, weightCopyBytes = 0;
};

} // namespace nnc

#endif // NNC_COMPILER_PRECISION_H
