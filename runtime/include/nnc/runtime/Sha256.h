//===- Sha256.h - SHA-256 digests -------------------------------*- C++ -*-===//
//
// SHA-256 (FIPS 180-4), used for the content hash of executables. The runtime
// has no crypto dependency, so it carries this small implementation.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_SHA256_H
#define NNC_RUNTIME_SHA256_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace nnc::runtime {

using Sha256Digest = std::array<uint8_t, 32>;

/// Incremental SHA-256: any number of update() calls, then one finish().
class Sha256 {
public:
  Sha256();

  void update(const void *data, size_t size);
  /// Pads, returns the digest and leaves the object to be reset before reuse.
  Sha256Digest finish();
  void reset();

  /// The digest of `size` bytes at `data` in one call.
  static Sha256Digest hash(const void *data, size_t size);

private:
  void compress(const uint8_t *block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_;
  size_t buffered_ = 0;
  uint64_t totalBytes_ = 0;
};

/// Lowercase hexadecimal, 64 characters.
std::string toHex(const Sha256Digest &digest);

} // namespace nnc::runtime

#endif // NNC_RUNTIME_SHA256_H
