//===- Executable.h - the compiled-model container --------------*- C++ -*-===//
//
// An executable is what the compiler hands the runtime: native kernel code,
// the execution plan and the weights in one versioned, self-checking file.
// ExecutableWriter builds one; ExecutableReader verifies every byte of one
// before anything in it is used. docs/Executable.md describes the format.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_EXECUTABLE_H
#define NNC_RUNTIME_EXECUTABLE_H

// ExecutableWriter::writeFile writes through it, and so do the tools that
// copy an executable (writeFileAtomically).
#include "nnc/runtime/AtomicFile.h"
#include "nnc/runtime/Sha256.h"
#include "nnc/runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nnc::runtime {

/// What a section holds. The values are part of the file format; a new kind
/// needs a new format version, so a reader rejects kinds it does not know.
enum class SectionKind : uint32_t {
  Metadata = 1,    ///< The execution plan and model metadata.
  Code = 2,        ///< Native kernel code (an object file or a fat binary).
  Weights = 3,     ///< Constant tensors; 64-byte aligned, mmap-able in place.
  SymbolTable = 4, ///< Kernel entry-point names.
  Other = 5,       ///< Anything else a tool wants to carry along.
};

/// A stable lowercase name for `kind`, e.g. "weights"; "unknown" otherwise.
const char *sectionKindName(SectionKind kind);

/// Format constants (see docs/Executable.md).
namespace exe {
/// "NNCX", then CR LF SUB LF (as PNG: catches text-mode transfers).
inline constexpr uint8_t kMagic[8] = {'N',  'N',  'C',  'X',
                                      0x0d, 0x0a, 0x1a, 0x0a};
/// The newest format version this nnc writes and reads.
inline constexpr uint32_t kFormatVersion = 1;
/// Byte size of the header before the target string.
inline constexpr uint32_t kFixedHeaderSize = 76;
/// Byte offset and size of the content hash inside the header.
inline constexpr uint32_t kHashOffset = 40;
inline constexpr uint32_t kHashSize = 32;
/// Byte size of one section-table entry.
inline constexpr uint32_t kSectionEntrySize = 64;
inline constexpr uint32_t kMaxTargetLength = 256;
inline constexpr uint32_t kMaxSectionNameLength = 32;
inline constexpr uint32_t kMaxSections = 4096;
/// Largest section alignment; 64 KiB covers every page size in use.
inline constexpr uint32_t kMaxAlignment = 65536;
/// Weights sections are aligned to at least this many bytes.
inline constexpr uint32_t kWeightsAlignment = 64;
} // namespace exe

/// A section of a verified executable. `data` points into the reader's
/// storage and lives as long as the reader.
struct SectionRef {
  SectionKind kind;
  std::string_view name;
  uint64_t offset;
  uint64_t size;
  uint32_t alignment;
  const uint8_t *data;
};

/// Builds an executable in memory and writes it out.
class ExecutableWriter {
public:
  /// `target` names what the code runs on, e.g. "x86_64-unknown-linux-gnu"
  /// or "cuda-sm_90": 1 to 256 printable ASCII characters.
  explicit ExecutableWriter(std::string target) : target_(std::move(target)) {}

  /// Adds a section holding a copy of `size` bytes at `data`. `name` is 1 to
  /// 32 printable ASCII characters without spaces, unique in the executable.
  /// `alignment` is a power of two up to 64 KiB, or 0 for the default (8;
  /// 64 for weights, which never get less than 64).
  Status addSection(SectionKind kind, std::string name, const void *data,
                    size_t size, uint32_t alignment = 0);
  Status addSection(SectionKind kind, std::string name,
                    const std::vector<uint8_t> &data, uint32_t alignment = 0) {
    return addSection(kind, std::move(name), data.data(), data.size(),
                      alignment);
  }

  /// The executable's bytes.
  Status serialize(std::vector<uint8_t> &out) const;

  /// Writes the executable to `path` atomically: a temporary file in the same
  /// folder, fsync, rename over `path`, fsync of the folder. On failure the
  /// temporary file is removed and `path` is untouched.
  Status writeFile(const std::string &path) const;

private:
  struct PendingSection {
    SectionKind kind;
    std::string name;
    std::vector<uint8_t> data;
    uint32_t alignment;
  };

  std::string target_;
  std::vector<PendingSection> sections_;
};

/// A verified executable: opened from bytes or a file, checked in full
/// (structure, bounds, overlaps, content hash) before it is handed out.
class ExecutableReader {
public:
  enum class LoadMode {
    Map,  ///< mmap the file read-only; weights are used in place.
    Read, ///< read the file into memory.
  };

  ExecutableReader() = default;
  ExecutableReader(const ExecutableReader &) = delete;
  ExecutableReader &operator=(const ExecutableReader &) = delete;
  ExecutableReader(ExecutableReader &&other) noexcept;
  ExecutableReader &operator=(ExecutableReader &&other) noexcept;
  ~ExecutableReader();

  /// Verifies a copy of `size` bytes at `data`. `source` names them in
  /// errors.
  static Status fromBytes(const void *data, size_t size, ExecutableReader &out,
                          std::string source = "executable");

  /// Opens and verifies the file at `path`; errors name the path.
  static Status openFile(const std::string &path, ExecutableReader &out,
                         LoadMode mode = LoadMode::Map);

  bool isLoaded() const { return data_ != nullptr; }
  uint32_t formatVersion() const { return formatVersion_; }
  std::string_view target() const { return target_; }
  const Sha256Digest &contentHash() const { return contentHash_; }
  const std::vector<SectionRef> &sections() const { return sections_; }
  /// The whole file.
  const uint8_t *data() const { return data_; }
  uint64_t size() const { return size_; }

  /// The section named `name`, or null.
  const SectionRef *findSection(std::string_view name) const;
  /// The first section of `kind`, or null.
  const SectionRef *findSection(SectionKind kind) const;

private:
  Status verify(const std::string &source);
  void release();

  // Storage: either an mmap'ed region or a 64-byte aligned heap block.
  uint8_t *data_ = nullptr;
  uint64_t size_ = 0;
  bool mapped_ = false;

  uint32_t formatVersion_ = 0;
  std::string_view target_;
  Sha256Digest contentHash_{};
  std::vector<SectionRef> sections_;
};

} // namespace nnc::runtime

#endif // NNC_RUNTIME_EXECUTABLE_H
