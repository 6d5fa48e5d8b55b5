//===- Checkpoint.h - training checkpoints ----------------------*- C++ -*-===//
//
// A checkpoint holds what a training run needs to resume bit-for-bit: named
// tensors (parameters, optimizer state, buffers) and string metadata (step,
// epoch, batch index, seeds, loss-scaler state, model fingerprint, ...). On
// disk it is an uncompressed .npz that numpy.load opens, with the metadata and
// a SHA-256 of everything else in one reserved entry; it is written
// atomically and every byte of it is checked when it is read.
// docs/DataFormats.md describes the format.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_CHECKPOINT_H
#define NNC_RUNTIME_CHECKPOINT_H

#include "nnc/runtime/HostTensor.h"
#include "nnc/runtime/NpyIO.h"
#include "nnc/runtime/Status.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace nnc::runtime {

namespace ckpt {
/// The .npz entry (without ".npy") that holds the metadata; a checkpoint's
/// tensors may not use this name.
inline constexpr const char *kMetadataEntry = "__nnc_checkpoint__";
/// The newest checkpoint format version this nnc writes and reads.
inline constexpr int64_t kFormatVersion = 1;
} // namespace ckpt

struct Checkpoint {
  /// In file order; names unique, non-empty and not ckpt::kMetadataEntry.
  std::vector<NpzEntry> tensors;
  /// Keys: 1 to 256 characters of [A-Za-z0-9_.:/-]. Values: any bytes.
  std::map<std::string, std::string> metadata;
  /// What the checkpoint was read from (set by readCheckpoint and
  /// parseCheckpoint); names it in errors.
  std::string source;

  /// The tensor named `name`, or null.
  const HostTensor *find(const std::string &name) const;
  HostTensor *find(const std::string &name);

  void setString(const std::string &key, std::string value) {
    metadata[key] = std::move(value);
  }
  void setInt(const std::string &key, int64_t value);
  /// Stored so that it reads back exactly.
  void setDouble(const std::string &key, double value);

  /// Fail, naming the checkpoint and the key, when the key is absent or its
  /// value is not a number of the asked kind.
  Status getString(const std::string &key, std::string &out) const;
  Status getInt(const std::string &key, int64_t &out) const;
  Status getDouble(const std::string &key, double &out) const;
};

/// Writes `checkpoint` to `path` atomically (a temporary file in the same
/// folder, fsync, rename over `path`, fsync of the folder): a crash leaves
/// either the old file or the new one at `path`, never a partial one.
/// Needs memory for about twice the tensors' size while it writes.
Status writeCheckpoint(const std::string &path, const Checkpoint &checkpoint);

/// Reads and verifies the checkpoint at `path`: the archive structure, the
/// format version, the SHA-256 of the content, and that every byte of the
/// file is where the writer puts it. Errors name `path` and what is wrong.
/// Needs memory for about three times the file size while it verifies.
Status readCheckpoint(const std::string &path, Checkpoint &out);

/// The file image writeCheckpoint writes.
Status serializeCheckpoint(const Checkpoint &checkpoint,
                           std::vector<uint8_t> &out);

/// Verifies and parses an in-memory image; `name` stands for it in errors.
Status parseCheckpoint(const void *bytes, size_t size, const std::string &name,
                       Checkpoint &out);

/// Checks that `checkpoint` has a tensor `name` of `dtype` and `shape`, and
/// returns it in `*out` when given. Errors read like "checkpoint run.ckpt:
/// tensor 'fc1.weight' has shape 64x512, the model expects 64x256".
Status checkCheckpointTensor(const Checkpoint &checkpoint,
                             const std::string &name, DType dtype,
                             const std::vector<int64_t> &shape,
                             const HostTensor **out = nullptr);


} // namespace nnc::runtime

#endif // NNC_RUNTIME_CHECKPOINT_H
