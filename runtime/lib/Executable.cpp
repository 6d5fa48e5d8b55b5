//===- Executable.cpp - the compiled-model container ----------------------===//
//
// Every field is encoded and decoded byte by byte in little-endian order, so
// the format does not depend on the host's struct layout or endianness. The
// reader trusts nothing: each offset and size is checked with overflow-safe
// arithmetic before it is used, and the content hash is checked last.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/Executable.h"
#include "nnc/runtime/AtomicFile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <numeric>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nnc::runtime {

const char *sectionKindName(SectionKind kind) {
  switch (kind) {
  case SectionKind::Metadata:
    return "metadata";
  case SectionKind::Code:
    return "code";
  case SectionKind::Weights:
    return "weights";
  case SectionKind::SymbolTable:
    return "symbol table";
  case SectionKind::Other:
    return "other";
  }
  return "unknown";
}

namespace {

using namespace exe;

// Header field offsets (docs/Executable.md).
constexpr size_t kVersionAt = 8;
constexpr size_t kHeaderSizeAt = 12;
constexpr size_t kFlagsAt = 16;
constexpr size_t kSectionCountAt = 20;
constexpr size_t kFileSizeAt = 24;
constexpr size_t kTableOffsetAt = 32;
constexpr size_t kTargetLengthAt = 72;
// Section-table entry field offsets.
constexpr size_t kEntryKindAt = 0;
constexpr size_t kEntryAlignmentAt = 4;
constexpr size_t kEntryOffsetAt = 8;
constexpr size_t kEntrySizeAt = 16;
constexpr size_t kEntryNameLengthAt = 24;
constexpr size_t kEntryReservedAt = 28;
constexpr size_t kEntryNameAt = 32;
constexpr uint32_t kDefaultAlignment = 8;

static_assert(kEntryNameAt + kMaxSectionNameLength == kSectionEntrySize);
static_assert(kTargetLengthAt + 4 == kFixedHeaderSize);
static_assert(kHashOffset + kHashSize == kTargetLengthAt);

uint32_t readU32(const uint8_t *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
         uint32_t(p[3]) << 24;
}

uint64_t readU64(const uint8_t *p) {
  return uint64_t(readU32(p)) | uint64_t(readU32(p + 4)) << 32;
}

void writeU32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = uint8_t(v >> (8 * i));
}

void writeU64(uint8_t *p, uint64_t v) {
  writeU32(p, uint32_t(v));
  writeU32(p + 4, uint32_t(v >> 32));
}

bool checkedAdd(uint64_t a, uint64_t b, uint64_t &out) {
  return !__builtin_add_overflow(a, b, &out);
}

/// Rounds `value` up to `alignment` (a power of two); false on overflow.
bool checkedAlignTo(uint64_t value, uint64_t alignment, uint64_t &out) {
  if (!checkedAdd(value, alignment - 1, out))
    return false;
  out &= ~(alignment - 1);
  return true;
}

bool isPowerOfTwo(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

bool isKnownKind(uint32_t kind) {
  return kind >= uint32_t(SectionKind::Metadata) &&
         kind <= uint32_t(SectionKind::Other);
}

bool isTargetChar(uint8_t c) { return c >= 0x20 && c <= 0x7e; }
bool isNameChar(uint8_t c) { return c > 0x20 && c <= 0x7e; }

std::string hex(uint64_t v) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), kDigits[v & 15]);
    v >>= 4;
  } while (v);
  return "0x" + s;
}

std::string errnoText(int err) { return std::strerror(err); }

/// A 64-byte aligned block of max(size, 1) bytes, or null: the size comes
/// from a file, so running out of memory is a status, not an exception.
uint8_t *allocateAligned(size_t size) {
  return static_cast<uint8_t *>(
      ::operator new(std::max<size_t>(size, 1),
                     std::align_val_t(kWeightsAlignment), std::nothrow));
}

/// The content hash: SHA-256 of the whole file except the hash field itself.
Sha256Digest contentHashOf(const uint8_t *data, uint64_t fileSize) {
  Sha256 sha;
  sha.update(data, kHashOffset);
  sha.update(data + kHashOffset + kHashSize,
             fileSize - (kHashOffset + kHashSize));
  return sha.finish();
}

Status validateName(const std::string &name) {
  if (name.empty() || name.size() > kMaxSectionNameLength)
    return Status(StatusCode::InvalidArgument,
                  "section name \"" + name + "\" must be 1 to " +
                      std::to_string(kMaxSectionNameLength) + " characters");
  for (char c : name)
    if (!isNameChar(uint8_t(c)))
      return Status(StatusCode::InvalidArgument,
                    "section name \"" + name +
                        "\" has a character that is not printable ASCII "
                        "or is a space");
  return Status::ok();
}

/// Builds error statuses that start with the source's name.
class Errors {
public:
  explicit Errors(const std::string &source) : source_(source) {}
  Status corrupt(const std::string &message) const {
    return Status(StatusCode::DataLoss, source_ + ": " + message);
  }
  Status invalid(const std::string &message) const {
    return Status(StatusCode::InvalidArgument, source_ + ": " + message);
  }

private:
  const std::string &source_;
};

std::string describeSection(uint32_t index, uint32_t kind) {
  std::string s = "section " + std::to_string(index);
  if (isKnownKind(kind))
    return s + " (" + sectionKindName(SectionKind(kind)) + ")";
  return s + " (kind " + std::to_string(kind) + ")";
}

} // namespace

//===----------------------------------------------------------------------===//
// ExecutableWriter
//===----------------------------------------------------------------------===//

Status ExecutableWriter::addSection(SectionKind kind, std::string name,
                                    const void *data, size_t size,
                                    uint32_t alignment) {
  if (!isKnownKind(uint32_t(kind)))
    return Status(StatusCode::InvalidArgument,
                  "unknown section kind " + std::to_string(uint32_t(kind)));
  NNC_RUNTIME_RETURN_IF_ERROR(validateName(name));
  for (const PendingSection &s : sections_)
    if (s.name == name)
      return Status(StatusCode::InvalidArgument,
                    "duplicate section name \"" + name + "\"");
  if (sections_.size() >= kMaxSections)
    return Status(StatusCode::OutOfRange, "an executable holds at most " +
                                              std::to_string(kMaxSections) +
                                              " sections");
  if (size > 0 && !data)
    return Status(StatusCode::InvalidArgument, "section \"" + name +
                                                   "\": null data with size " +
                                                   std::to_string(size));
  if (alignment == 0)
    alignment = kDefaultAlignment;
  if (!isPowerOfTwo(alignment) || alignment > kMaxAlignment)
    return Status(
        StatusCode::InvalidArgument,
        "section \"" + name + "\": alignment " + std::to_string(alignment) +
            " is not a power of two up to " + std::to_string(kMaxAlignment));
  if (kind == SectionKind::Weights)
    alignment = std::max(alignment, kWeightsAlignment);
  const uint8_t *bytes = static_cast<const uint8_t *>(data);
  sections_.push_back({kind, std::move(name),
                       std::vector<uint8_t>(bytes, bytes + size), alignment});
  return Status::ok();
}

Status ExecutableWriter::serialize(std::vector<uint8_t> &out) const {
  if (target_.empty() || target_.size() > kMaxTargetLength)
    return Status(StatusCode::InvalidArgument,
                  "target \"" + target_ + "\" must be 1 to " +
                      std::to_string(kMaxTargetLength) + " characters");
  for (char c : target_)
    if (!isTargetChar(uint8_t(c)))
      return Status(StatusCode::InvalidArgument,
                    "target \"" + target_ +
                        "\" has a character that is not printable ASCII");

  // Layout: header, section table, then each payload at its alignment.
  uint64_t headerSize = 0;
  (void)checkedAlignTo(kFixedHeaderSize + target_.size(), 8, headerSize);
  uint64_t cursor = headerSize + sections_.size() * uint64_t(kSectionEntrySize);
  std::vector<uint64_t> offsets;
  for (const PendingSection &s : sections_) {
    uint64_t offset = 0;
    if (!checkedAlignTo(cursor, s.alignment, offset) ||
        !checkedAdd(offset, s.data.size(), cursor))
      return Status(StatusCode::OutOfRange, "executable too large");
    offsets.push_back(offset);
  }
  uint64_t fileSize = cursor;
  if (fileSize > uint64_t(SIZE_MAX))
    return Status(StatusCode::OutOfRange, "executable too large for memory");

  out.assign(size_t(fileSize), 0);
  uint8_t *p = out.data();
  std::memcpy(p, kMagic, sizeof(kMagic));
  writeU32(p + kVersionAt, kFormatVersion);
  writeU32(p + kHeaderSizeAt, uint32_t(headerSize));
  writeU32(p + kFlagsAt, 0);
  writeU32(p + kSectionCountAt, uint32_t(sections_.size()));
  writeU64(p + kFileSizeAt, fileSize);
  writeU64(p + kTableOffsetAt, headerSize);
  writeU32(p + kTargetLengthAt, uint32_t(target_.size()));
  std::memcpy(p + kFixedHeaderSize, target_.data(), target_.size());
  for (size_t i = 0; i < sections_.size(); ++i) {
    const PendingSection &s = sections_[i];
    uint8_t *entry = p + headerSize + i * kSectionEntrySize;
    writeU32(entry + kEntryKindAt, uint32_t(s.kind));
    writeU32(entry + kEntryAlignmentAt, s.alignment);
    writeU64(entry + kEntryOffsetAt, offsets[i]);
    writeU64(entry + kEntrySizeAt, s.data.size());
    writeU32(entry + kEntryNameLengthAt, uint32_t(s.name.size()));
    writeU32(entry + kEntryReservedAt, 0);
    std::memcpy(entry + kEntryNameAt, s.name.data(), s.name.size());
    if (!s.data.empty())
      std::memcpy(p + offsets[i], s.data.data(), s.data.size());
  }
  Sha256Digest hash = contentHashOf(p, fileSize);
  std::memcpy(p + kHashOffset, hash.data(), kHashSize);
  return Status::ok();
}

Status ExecutableWriter::writeFile(const std::string &path) const {
  std::vector<uint8_t> bytes;
  NNC_RUNTIME_RETURN_IF_ERROR(serialize(bytes));
  return writeFileAtomically(path, bytes.data(), bytes.size());
}

//===----------------------------------------------------------------------===//
// ExecutableReader
//===----------------------------------------------------------------------===//

ExecutableReader::ExecutableReader(ExecutableReader &&other) noexcept {
  *this = std::move(other);
}

ExecutableReader &
ExecutableReader::operator=(ExecutableReader &&other) noexcept {
  if (this == &other)
    return *this;
  release();
  data_ = other.data_;
  size_ = other.size_;
  mapped_ = other.mapped_;
  formatVersion_ = other.formatVersion_;
  target_ = other.target_;
  contentHash_ = other.contentHash_;
  sections_ = std::move(other.sections_);
  other.data_ = nullptr;
  other.size_ = 0;
  other.mapped_ = false;
  other.formatVersion_ = 0;
  other.target_ = {};
  other.sections_.clear();
  return *this;
}

ExecutableReader::~ExecutableReader() { release(); }

void ExecutableReader::release() {
  if (data_) {
    if (mapped_)
      ::munmap(data_, size_);
    else
      ::operator delete(data_, std::align_val_t(kWeightsAlignment));
  }
  data_ = nullptr;
  size_ = 0;
  mapped_ = false;
  formatVersion_ = 0;
  target_ = {};
  sections_.clear();
}

const SectionRef *ExecutableReader::findSection(std::string_view name) const {
  for (const SectionRef &s : sections_)
    if (s.name == name)
      return &s;
  return nullptr;
}

const SectionRef *ExecutableReader::findSection(SectionKind kind) const {
  for (const SectionRef &s : sections_)
    if (s.kind == kind)
      return &s;
  return nullptr;
}

Status ExecutableReader::fromBytes(const void *data, size_t size,
                                   ExecutableReader &out, std::string source) {
  if (size > 0 && !data)
    return Status(StatusCode::InvalidArgument,
                  source + ": null data with size " + std::to_string(size));
  ExecutableReader reader;
  // Always allocate (even for 0 bytes) so the copy is 64-byte aligned and
  // weights in it are aligned as they would be in a mapping.
  reader.data_ = allocateAligned(size);
  if (!reader.data_)
    return Status(StatusCode::OutOfRange, source + ": cannot allocate " +
                                              std::to_string(size) + " bytes");
  reader.size_ = size;
  if (size > 0)
    std::memcpy(reader.data_, data, size);
  NNC_RUNTIME_RETURN_IF_ERROR(reader.verify(source));
  out = std::move(reader);
  return Status::ok();
}

Status ExecutableReader::openFile(const std::string &path,
                                  ExecutableReader &out, LoadMode mode) {
  // Non-blocking: opening a FIFO waits for a writer otherwise (and it is
  // refused below); reads of a regular file are unaffected.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    int err = errno;
    return Status(err == ENOENT ? StatusCode::NotFound
                                : StatusCode::Unavailable,
                  "cannot open " + path + ": " + errnoText(err));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return Status(StatusCode::Unavailable,
                  "cannot stat " + path + ": " + errnoText(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status(StatusCode::InvalidArgument, path + " is not a regular file");
  }
  uint64_t size = uint64_t(st.st_size);
  if (size > uint64_t(SIZE_MAX)) {
    ::close(fd);
    return Status(StatusCode::OutOfRange, path + " is too large to load");
  }

  ExecutableReader reader;
  if (mode == LoadMode::Map && size > 0) {
    void *map = ::mmap(nullptr, size_t(size), PROT_READ, MAP_PRIVATE, fd, 0);
    int err = errno;
    ::close(fd);
    if (map == MAP_FAILED)
      return Status(StatusCode::Unavailable,
                    "cannot mmap " + path + ": " + errnoText(err));
    reader.data_ = static_cast<uint8_t *>(map);
    reader.size_ = size;
    reader.mapped_ = true;
  } else {
    reader.data_ = allocateAligned(size_t(size));
    if (!reader.data_) {
      ::close(fd);
      return Status(StatusCode::OutOfRange, "cannot allocate " +
                                                std::to_string(size) +
                                                " bytes to read " + path);
    }
    reader.size_ = size;
    size_t done = 0;
    while (done < size) {
      ssize_t n = ::read(fd, reader.data_ + done, size_t(size) - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        int err = n < 0 ? errno : 0;
        ::close(fd);
        return Status(
            StatusCode::Unavailable,
            "cannot read " + path + ": " +
                (n < 0 ? errnoText(err) : "file shrank while being read"));
      }
      done += size_t(n);
    }
    ::close(fd);
  }
  NNC_RUNTIME_RETURN_IF_ERROR(reader.verify(path));
  out = std::move(reader);
  return Status::ok();
}

Status ExecutableReader::verify(const std::string &source) {
  Errors err(source);
  const uint8_t *p = data_;
  const uint64_t size = size_;

  // Magic, as far as the bytes go, so a non-executable is named as such even
  // when it is short.
  if (size == 0)
    return err.corrupt("file is empty");
  if (std::memcmp(p, kMagic, std::min<uint64_t>(size, sizeof(kMagic))) != 0)
    return err.invalid("not an nnc executable (bad magic)");
  if (size < kFixedHeaderSize)
    return err.corrupt("file is " + std::to_string(size) +
                       " bytes, shorter than the " +
                       std::to_string(kFixedHeaderSize) + "-byte header");

  uint32_t version = readU32(p + kVersionAt);
  if (version > kFormatVersion)
    return err.invalid("format version " + std::to_string(version) +
                       ": written by a newer nnc (this one reads versions up "
                       "to " +
                       std::to_string(kFormatVersion) + ")");
  if (version == 0)
    return err.corrupt("format version 0 is invalid");

  uint32_t flags = readU32(p + kFlagsAt);
  if (flags != 0)
    return err.corrupt("unknown header flags " + hex(flags));

  uint64_t fileSize = readU64(p + kFileSizeAt);
  if (fileSize != size)
    return err.corrupt("header declares file size " + std::to_string(fileSize) +
                       " but the file is " + std::to_string(size) + " bytes (" +
                       (size < fileSize ? "truncated"
                                        : "trailing "
                                          "bytes") +
                       ")");

  uint32_t targetLength = readU32(p + kTargetLengthAt);
  if (targetLength == 0 || targetLength > kMaxTargetLength)
    return err.corrupt("target length " + std::to_string(targetLength) +
                       " is outside 1.." + std::to_string(kMaxTargetLength));
  uint64_t expectedHeaderSize = 0;
  (void)checkedAlignTo(kFixedHeaderSize + targetLength, 8, expectedHeaderSize);
  uint32_t headerSize = readU32(p + kHeaderSizeAt);
  if (headerSize != expectedHeaderSize)
    return err.corrupt("header size " + std::to_string(headerSize) +
                       " does not match " + std::to_string(expectedHeaderSize) +
                       " for a target of " + std::to_string(targetLength) +
                       " bytes");
  if (headerSize > size)
    return err.corrupt("header size " + std::to_string(headerSize) +
                       " exceeds file size " + std::to_string(size));
  for (uint32_t i = 0; i < targetLength; ++i)
    if (!isTargetChar(p[kFixedHeaderSize + i]))
      return err.corrupt("target byte " + std::to_string(i) + " (" +
                         hex(p[kFixedHeaderSize + i]) +
                         ") is not printable ASCII");
  for (uint64_t i = kFixedHeaderSize + targetLength; i < headerSize; ++i)
    if (p[i] != 0)
      return err.corrupt("header padding byte at offset " + std::to_string(i) +
                         " is not zero");

  uint32_t sectionCount = readU32(p + kSectionCountAt);
  if (sectionCount > kMaxSections)
    return err.corrupt("section count " + std::to_string(sectionCount) +
                       " exceeds the limit of " + std::to_string(kMaxSections));
  uint64_t tableOffset = readU64(p + kTableOffsetAt);
  uint64_t tableSize = uint64_t(sectionCount) * kSectionEntrySize;
  uint64_t tableEnd = 0;
  if (tableOffset < headerSize || tableOffset % 8 != 0)
    return err.corrupt("section table offset " + std::to_string(tableOffset) +
                       " is inside the header or not 8-byte aligned");
  if (!checkedAdd(tableOffset, tableSize, tableEnd) || tableEnd > size)
    return err.corrupt("section table at offset " +
                       std::to_string(tableOffset) + " + size " +
                       std::to_string(tableSize) + " exceeds file size " +
                       std::to_string(size));

  std::vector<SectionRef> sections;
  sections.reserve(sectionCount);
  for (uint32_t i = 0; i < sectionCount; ++i) {
    const uint8_t *entry = p + tableOffset + uint64_t(i) * kSectionEntrySize;
    uint32_t kind = readU32(entry + kEntryKindAt);
    std::string what = describeSection(i, kind);
    if (!isKnownKind(kind))
      return err.corrupt(what + ": unknown section kind");
    if (readU32(entry + kEntryReservedAt) != 0)
      return err.corrupt(what + ": reserved field is not zero");
    uint32_t nameLength = readU32(entry + kEntryNameLengthAt);
    if (nameLength == 0 || nameLength > kMaxSectionNameLength)
      return err.corrupt(what + ": name length " + std::to_string(nameLength) +
                         " is outside 1.." +
                         std::to_string(kMaxSectionNameLength));
    for (uint32_t c = 0; c < kMaxSectionNameLength; ++c) {
      uint8_t byte = entry[kEntryNameAt + c];
      if (c < nameLength ? !isNameChar(byte) : byte != 0)
        return err.corrupt(what + ": name byte " + std::to_string(c) + " (" +
                           hex(byte) + ") is not allowed");
    }
    std::string_view name(reinterpret_cast<const char *>(entry + kEntryNameAt),
                          nameLength);
    what += " \"" + std::string(name) + "\"";
    uint32_t alignment = readU32(entry + kEntryAlignmentAt);
    if (!isPowerOfTwo(alignment) || alignment > kMaxAlignment)
      return err.corrupt(what + ": alignment " + std::to_string(alignment) +
                         " is not a power of two up to " +
                         std::to_string(kMaxAlignment));
    if (SectionKind(kind) == SectionKind::Weights &&
        alignment < kWeightsAlignment)
      return err.corrupt(what + ": alignment " + std::to_string(alignment) +
                         " is below the " + std::to_string(kWeightsAlignment) +
                         " bytes weights need");
    uint64_t offset = readU64(entry + kEntryOffsetAt);
    uint64_t sectionSize = readU64(entry + kEntrySizeAt);
    uint64_t end = 0;
    if (!checkedAdd(offset, sectionSize, end) || end > size)
      return err.corrupt(what + ": offset " + std::to_string(offset) +
                         " + size " + std::to_string(sectionSize) +
                         " exceeds file size " + std::to_string(size));
    if (offset % alignment != 0)
      return err.corrupt(what + ": offset " + std::to_string(offset) +
                         " is not a multiple of its alignment " +
                         std::to_string(alignment));
    if (offset < tableEnd)
      return err.corrupt(what + ": offset " + std::to_string(offset) +
                         " lies inside the header or section table (which "
                         "end at " +
                         std::to_string(tableEnd) + ")");
    for (const SectionRef &earlier : sections)
      if (earlier.name == name)
        return err.corrupt(what + ": duplicate section name");
    sections.push_back(
        {SectionKind(kind), name, offset, sectionSize, alignment, p + offset});
  }

  // No two non-empty sections may share a byte.
  std::vector<uint32_t> order(sections.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return sections[a].offset != sections[b].offset
               ? sections[a].offset < sections[b].offset
               : a < b;
  });
  bool haveLast = false;
  uint32_t last = 0;
  for (uint32_t i : order) {
    const SectionRef &s = sections[i];
    if (s.size == 0)
      continue;
    if (haveLast) {
      const SectionRef &l = sections[last];
      if (s.offset < l.offset + l.size)
        return err.corrupt(describeSection(i, uint32_t(s.kind)) + " [" +
                           std::to_string(s.offset) + ", " +
                           std::to_string(s.offset + s.size) + ") overlaps " +
                           describeSection(last, uint32_t(l.kind)) + " [" +
                           std::to_string(l.offset) + ", " +
                           std::to_string(l.offset + l.size) + ")");
    }
    haveLast = true;
    last = i;
  }

  Sha256Digest stored;
  std::memcpy(stored.data(), p + kHashOffset, kHashSize);
  Sha256Digest actual = contentHashOf(p, size);
  if (stored != actual)
    return err.corrupt("content hash mismatch: the header says " +
                       toHex(stored) + ", the contents hash to " +
                       toHex(actual));

  formatVersion_ = version;
  target_ = std::string_view(
      reinterpret_cast<const char *>(p + kFixedHeaderSize), targetLength);
  contentHash_ = stored;
  sections_ = std::move(sections);
  return Status::ok();
}

} // namespace nnc::runtime
