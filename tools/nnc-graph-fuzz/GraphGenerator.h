//===- GraphGenerator.h - random valid ONNX graphs from a seed --*- C++ -*-===//
//
// Builds small random ONNX models (ModelProto) that are valid by
// construction: only ops the importer supports, shapes that fit, constant
// indices in range. The same seed gives the same model and the same input
// data, so a failure is replayed from its seed or from the saved model.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TOOLS_GRAPHFUZZ_GRAPHGENERATOR_H
#define NNC_TOOLS_GRAPHFUZZ_GRAPHGENERATOR_H

#include "onnx/onnx_pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nnc::graphfuzz {

/// The name of the model metadata entry that records the generating seed.
inline constexpr const char *kSeedKey = "nnc.graph-fuzz.seed";

/// A small deterministic generator (splitmix64): the same numbers on every
/// platform and standard library.
class Random {
public:
  explicit Random(uint64_t seed) : state(seed) {}
  uint64_t next();
  /// Uniform in [0, n); n > 0.
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % n); }
  /// Uniform in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) { return lo + below(hi - lo + 1); }
  /// True with probability `p`.
  bool chance(double p) { return (next() >> 11) * 0x1.0p-53 < p; }

private:
  uint64_t state;
};

/// One graph input's values, as the C API's row-major host tensor bytes.
struct InputData {
  std::string name;
  int32_t elemType = 0; ///< onnx::TensorProto::DataType
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;
};

/// The model generated from `seed`; records the seed in its metadata.
onnx::ModelProto generateModel(uint64_t seed);

/// Random values for every graph input of `model`, from `seed`: floats are
/// multiples of 1/16 in [-3, 3] (sums and differences of them stay exact),
/// integers in [-5, 5], booleans 0 or 1. Fails (empty name in the first
/// entry) on an input type the generator never produces.
std::vector<InputData> generateInputs(const onnx::ModelProto &model,
                                      uint64_t seed, std::string &error);

} // namespace nnc::graphfuzz

#endif // NNC_TOOLS_GRAPHFUZZ_GRAPHGENERATOR_H
