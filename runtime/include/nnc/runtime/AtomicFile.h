//===- AtomicFile.h - replace a file whole or not at all --------*- C++ -*-===//
//
// Every file the runtime writes (executables, checkpoints, .npy/.npz, traces)
// goes through here: the bytes go to a temporary file in the destination's
// folder, which is fsynced and renamed over the destination, and then the
// folder is fsynced. A reader, or a crash at any point, sees the old file or
// the new one, never a part of either.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_ATOMICFILE_H
#define NNC_RUNTIME_ATOMICFILE_H

#include "nnc/runtime/Status.h"

#include <cstddef>
#include <string>

namespace nnc::runtime {

/// A file being written under a temporary name; `commit` puts it in place.
/// Until then `path` is untouched. A failure anywhere, or destruction before
/// `commit`, removes the temporary file.
class AtomicFile {
public:
  AtomicFile() = default;
  AtomicFile(const AtomicFile &) = delete;
  AtomicFile &operator=(const AtomicFile &) = delete;
  ~AtomicFile() { discard(); }

  /// Creates the temporary file next to `path` (in the same folder, so that
  /// the rename stays on one file system), with the permissions an ordinary
  /// new file gets (0666 less the umask).
  Status open(const std::string &path);

  /// Appends `size` bytes. On failure the temporary file is already gone.
  Status write(const void *data, size_t size);

  /// Makes the bytes durable and moves them to the destination: fsync, close,
  /// rename over it, fsync of the folder; then removes the temporaries of the
  /// same destination that writers killed before their commit left behind
  /// (their process gone, unchanged for five minutes). The file is closed
  /// afterwards, whatever the outcome; on failure before the rename nothing
  /// remains of the temporary.
  Status commit();

  /// Closes and removes the temporary file, if there is one.
  void discard();

  bool isOpen() const { return fd_ >= 0; }
  /// The destination given to `open`.
  const std::string &path() const { return path_; }

private:
  /// Discards the temporary and returns an error naming it and `err`.
  Status fail(const std::string &what, int err);

  int fd_ = -1;
  std::string path_;
  std::string tempPath_;
};

/// Writes `size` bytes at `data` to `path` through an AtomicFile.
Status writeFileAtomically(const std::string &path, const void *data,
                           size_t size);

} // namespace nnc::runtime

#endif // NNC_RUNTIME_ATOMICFILE_H
