//===- TuningDatabase.h - the autotuner's kernel choices --------*- C++ -*-===//
//-*-===//
//
// The autotuner measures the candidate kernels of a convolution (or any
// other site with a choice) once and keeps the outcome here, keyed by a
// SHA-256 the compiler computes over what the choice depends on; later
// compilations look the key up instead of measuring again. The file is
// shared by every compiler process of a user, so it is rewritten only under
// a lock and always whole (AtomicFile), and a damaged line costs that line
// alone.
//
// The format is text, so that users can read it:
//
//   nnc-tuning-database 1
//   KEY \t CHOICE \t DEFAULT \t CAND=MS,CAND=MS,... \t KERNEL \t CHECKSUM
//   ...
//
// The first line names the format and its version (kFormatVersion). Then
// one line per entry, its six fields separated by one tab each, ended by a
// newline:
//   KEY      64 lowercase hexadecimal characters.
//   CHOICE   the chosen candidate, [A-Za-z0-9_.-]+.
//   DEFAULT  the cost model's pick, same characters.
//   TIMES    the median milliseconds of each measured candidate, in the
//            order measured, as CAND=MS separated by commas (empty when
//            none); CAND as CHOICE, MS a finite number >= 0 written in the
//            shortest form that reads back exactly.
//   KERNEL   a description for people, printable ASCII without tabs (may
//            be empty).
//   CHECKSUM the first 16 lowercase hex characters of the SHA-256 of the
//            line's bytes before its last tab.
// A key appears once in a file this code writes; when a file has it more
// than once, the last line wins.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_TUNINGDATABASE_H
#define NNC_RUNTIME_TUNINGDATABASE_H

#include "nnc/runtime/Status.h"

#include <cstddef>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace nnc::runtime {

/// The folder of the compile cache when none is given: $NNC_CACHE_DIR,
/// else $XDG_CACHE_HOME/nnc, else $HOME/.cache/nnc; empty when none is
/// set. The tuning database lives in it by default (kTuningDatabaseFile).
std::string defaultCacheDir();

/// The tuning database's file name in the cache folder.
inline constexpr const char *kTuningDatabaseFile = "tuning.nnctune";

/// One measured choice.
struct TuningEntry {
  /// 64 lowercase hex characters (a SHA-256 the compiler computes).
  std::string key;
  /// For people, e.g. "conv 8x64x56x56 * 64x64x3x3 stride 1": printable
  /// ASCII, no tab or newline.
  std::string kernel;
  /// The chosen candidate, e.g. "library": [A-Za-z0-9_.-]+.
  std::string choice;
  /// The cost model's pick, same characters.
  std::string defaultChoice;
  /// Candidate -> median milliseconds measured (finite, >= 0), in the order
  /// measured; each candidate once.
  std::vector<std::pair<std::string, double>> times;

  bool operator==(const TuningEntry &other) const {
    return key == other.key && kernel == other.kernel &&
           choice == other.choice && defaultChoice == other.defaultChoice &&
           times == other.times;
  }
  bool operator!=(const TuningEntry &other) const { return !(*this == other); }
};

/// InvalidArgument, saying which field is wrong and why, unless `entry` can
/// be written in the format above.
Status validateTuningEntry(const TuningEntry &entry);

/// The entries of one tuning database file, as read.
class TuningDatabase {
public:
  /// The version of the format this code reads and writes.
  static constexpr int kFormatVersion = 1;
  /// Lines longer than this are damaged (and are not held in memory).
  static constexpr size_t kMaxLineBytes = 64 * 1024;
  /// Damaged lines warned about one by one; those beyond get one summary.
  static constexpr size_t kMaxLineWarnings = 20;

  /// Reads `path` into `out`, which is emptied first. A missing file is an
  /// empty database. A damaged line (bad checksum, wrong field count, a bad
  /// key, name or number, over kMaxLineBytes, truncated) is skipped with a
  /// warning naming the file and line. A file whose first line is not this
  /// format and version (a foreign file, a newer version) gives no entries,
  /// one warning, and a database that is not to be written (writeable()
  /// false). Fails, naming `path`, only on I/O errors other than a missing
  /// file, and when `path` is not a regular file.
  static Status open(const std::string &path, TuningDatabase &out);

  /// The entry for `key`, or null. Valid until the database changes.
  const TuningEntry *lookup(const std::string &key) const;
  /// One per key, in the order of each key's first line; each holds what
  /// the key's last line says.
  const std::vector<TuningEntry> &entries() const { return entries_; }
  /// "tuning database FILE:LINE: what; entry ignored", one per damaged line
  /// (up to kMaxLineWarnings), or one about the header.
  const std::vector<std::string> &warnings() const { return warnings_; }
  /// False when the file read is foreign or of another version: rewriting
  /// it would destroy what it holds.
  bool writeable() const { return writeable_; }

  /// Adds `entries` to the file at `path`, safely with other threads and
  /// processes doing the same: holds an exclusive flock() on
  /// `path + ".lock"` (created if missing, and left in place), re-reads the
  /// file under it, replaces the entries with the same keys as `entries`
  /// (the last of `entries` wins among its own duplicates), keeps every
  /// other entry there, and writes the whole file through AtomicFile.
  /// Damaged lines met on the way are dropped from the rewritten file and
  /// their warnings appended to `warnings` when it is not null. Fails,
  /// naming `path`, with the file untouched, when an entry is invalid
  /// (InvalidArgument), when the file there is not writeable(), and on I/O
  /// errors.
  static Status merge(const std::string &path,
                      const std::vector<TuningEntry> &entries,
                      std::vector<std::string> *warnings = nullptr);

private:
  /// Adds `entry`, or replaces the one with its key in place.
  void put(TuningEntry entry);

  std::vector<TuningEntry> entries_;
  std::unordered_map<std::string, size_t> index_;
  std::vector<std::string> warnings_;
  bool writeable_ = true;
  /// Why the file is not writeable, for merge's error.
  StatusCode refusalCode_ = StatusCode::Ok;
  std::string refusal_;
};

/// Writes exactly `entries` to `path` atomically, in the format above (for
/// `export`; import is TuningDatabase::open of the source and merge into the
/// destination). Replaces whatever `path` holds without taking the lock
/// merge takes. InvalidArgument, before anything is written, when an entry
/// is invalid or two have the same key.
Status writeTuningDatabase(const std::string &path,
                           const std::vector<TuningEntry> &entries);

} // namespace nnc::runtime

#endif // NNC_RUNTIME_TUNINGDATABASE_H
