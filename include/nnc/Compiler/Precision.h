//===- Precision.h - mixed-precision options of a compile -------*- C++ -*-===//
//
// What --nnc-mixed-precision is asked to do, as the compile driver, the
// training pipeline, the C API and nnc-run carry it (docs/Training.md).
//
//===----------------------------------------------------------------------===//

#ifndef NNC_COMPILER_PRECISION_H
#define NNC_COMPILER_PRECISION_H

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

} // namespace nnc

#endif // NNC_COMPILER_PRECISION_H
