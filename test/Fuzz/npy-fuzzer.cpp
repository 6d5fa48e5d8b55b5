//===- npy-fuzzer.cpp - libFuzzer target for the .npy/.npz readers --------===//
//
// Feeds arbitrary bytes to the runtime's NumPy readers: parseNpy as one
// array and parseNpz as an archive (the same code readNpy and readNpz run
// on a file). Any crash, sanitizer report, hang or out-of-memory is a bug:
// a malformed file must end in an error Status. What a reader accepts is
// read back in full, so that ASan sees a tensor whose bytes are short.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/NpyIO.h"

#include <cstddef>
#include <cstdint>
#include <vector>

using namespace nnc::runtime;

namespace {

/// Reads every byte of `tensor` and checks its size agrees with its shape.
void touch(const HostTensor &tensor) {
  int64_t elements = 0;
  size_t bytes = 0;
  if (!checkedShapeSize(tensor.shape(), dtypeSize(tensor.dtype()), elements,
                        bytes)
           .isOk() ||
      elements != tensor.numElements() || bytes != tensor.sizeInBytes())
    __builtin_trap();
  const auto *p = static_cast<const volatile uint8_t *>(tensor.data());
  uint8_t sum = 0;
  for (size_t i = 0; i < tensor.sizeInBytes(); ++i)
    sum += p[i];
  (void)sum;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  HostTensor tensor;
  if (parseNpy(data, size, "fuzz.npy", tensor).isOk())
    touch(tensor);
  std::vector<NpzEntry> entries;
  if (parseNpz(data, size, "fuzz.npz", entries).isOk())
    for (const NpzEntry &entry : entries) {
      (void)quoted(entry.name);
      touch(entry.tensor);
    }
  return 0;
}
