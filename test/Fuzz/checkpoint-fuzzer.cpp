//===- checkpoint-fuzzer.cpp - libFuzzer target for checkpoints -----------===//
//
// Feeds arbitrary bytes to parseCheckpoint, the verifier readCheckpoint runs
// on a file's image. Any crash, sanitizer report, hang or out-of-memory is a
// bug: a damaged checkpoint must end in an error Status. A checkpoint it
// accepts is read back in full (every tensor's bytes, every metadata value
// through the typed getters) so that ASan sees anything short.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/Checkpoint.h"

#include <cstddef>
#include <cstdint>

using namespace nnc::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Checkpoint checkpoint;
  if (!parseCheckpoint(data, size, "fuzz.ckpt", checkpoint).isOk())
    return 0;
  for (const NpzEntry &entry : checkpoint.tensors) {
    const auto *p = static_cast<const volatile uint8_t *>(entry.tensor.data());
    uint8_t sum = 0;
    for (size_t i = 0; i < entry.tensor.sizeInBytes(); ++i)
      sum += p[i];
    (void)sum;
    (void)checkCheckpointTensor(checkpoint, entry.name, entry.tensor.dtype(),
                                entry.tensor.shape());
  }
  for (const auto &[key, value] : checkpoint.metadata) {
    std::string text;
    int64_t i = 0;
    double d = 0;
    (void)checkpoint.getString(key, text);
    (void)checkpoint.getInt(key, i);
    (void)checkpoint.getDouble(key, d);
  }
  return 0;
}
