//===- Checkpoint.cpp - training checkpoints ------------------------------===//
//
// A checkpoint is verified in three layers: the .npz reader checks the ZIP
// structure and each entry's CRC-32; the SHA-256 in the metadata entry covers
// every tensor's name, dtype, shape and bytes and every metadata pair; and
// the file must be byte-for-byte the image the writer makes of what was read,
// which covers the ZIP fields no reader looks at (timestamps, attributes).
// Together no single flipped or missing byte goes unnoticed.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/Checkpoint.h"

#include "nnc/runtime/AtomicFile.h"
#include "nnc/runtime/Schedule.h"
#include "nnc/runtime/Sha256.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nnc::runtime {
namespace {

constexpr const char *kVersionTag = "nnc-checkpoint ";
constexpr const char *kDigestTag = "sha256 ";
constexpr const char *kDigestDomain = "nnc-checkpoint-sha256-v1\n";
constexpr size_t kMaxKeyLength = 256;

std::string describe(const std::string &source) {
  return source.empty() ? "checkpoint" : "checkpoint " + source;
}

Status fail(StatusCode code, const std::string &source,
            const std::string &what) {
  return Status(code, describe(source) + ": " + what);
}


bool isKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == ':' ||
         c == '/' || c == '-';
}

Status checkKey(const std::string &key, const std::string &source) {
  if (key.empty() || key.size() > kMaxKeyLength ||
      !std::all_of(key.begin(), key.end(), isKeyChar))
    return fail(StatusCode::InvalidArgument, source,
                "metadata key " + quoted(key) +
                    " is not 1 to 256 characters of [A-Za-z0-9_.:/-]");
  return Status::ok();
}

// Values are escaped so that every metadata pair is one line: '\' and
// control bytes become \\ \n \xHH; other bytes, UTF-8 included, stay.
std::string escapeValue(const std::string &value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

int hexValue(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

bool unescapeValue(const std::string &text, std::string &out) {
  out.clear();
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    if (++i == text.size())
      return false;
    if (text[i] == '\\') {
      out += '\\';
    } else if (text[i] == 'n') {
      out += '\n';
    } else if (text[i] == 'x' && i + 2 < text.size() &&
               hexValue(text[i + 1]) >= 0 && hexValue(text[i + 2]) >= 0) {
      out +=
          static_cast<char>(hexValue(text[i + 1]) * 16 + hexValue(text[i + 2]));
      i += 2;
    } else {
      return false;
    }
  }
  return true;
}

void hashU64(Sha256 &h, uint64_t v) {
  uint8_t b[8];
  for (int i = 0; i < 8; ++i)
    b[i] = static_cast<uint8_t>(v >> (8 * i));
  h.update(b, 8);
}

void hashString(Sha256 &h, const std::string &s) {
  hashU64(h, s.size());
  h.update(s.data(), s.size());
}

/// The content digest; docs/DataFormats.md spells out the byte stream.
Sha256Digest contentDigest(const Checkpoint &c) {
  Sha256 h;
  h.update(kDigestDomain, std::strlen(kDigestDomain));
  hashU64(h, c.tensors.size());
  for (const NpzEntry &entry : c.tensors) {
    hashString(h, entry.name);
    hashString(h, dtypeName(entry.tensor.dtype()));
    hashU64(h, entry.tensor.shape().size());
    for (int64_t dim : entry.tensor.shape())
      hashU64(h, static_cast<uint64_t>(dim));
    hashU64(h, entry.tensor.sizeInBytes());
    h.update(entry.tensor.data(), entry.tensor.sizeInBytes());
  }
  hashU64(h, c.metadata.size());
  for (const auto &[key, value] : c.metadata) {
    hashString(h, key);
    hashString(h, value);
  }
  return h.finish();
}

std::string metadataText(const Checkpoint &c, const Sha256Digest &digest) {
  std::string text = kVersionTag + std::to_string(ckpt::kFormatVersion) + "\n" +
                     kDigestTag + toHex(digest) + "\n";
  for (const auto &[key, value] : c.metadata)
    text += key + "=" + escapeValue(value) + "\n";
  return text;
}

struct ParsedMetadata {
  std::string digestHex;
  std::map<std::string, std::string> metadata;
};

Status parseMetadataText(const std::string &text, const std::string &source,
                         ParsedMetadata &out) {
  auto damaged = [&](const std::string &what) {
    return fail(StatusCode::DataLoss, source, "metadata is damaged: " + what);
  };
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos)
      return damaged("the last line has no newline");
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  const std::string versionTag = kVersionTag;
  if (lines.empty() || lines[0].compare(0, versionTag.size(), versionTag) != 0)
    return fail(StatusCode::DataLoss, source,
                "metadata does not start with 'nnc-checkpoint VERSION'");
  int64_t version = 0;
  if (!parseInt64(lines[0].substr(versionTag.size()), "version", version)
           .isOk() ||
      version < 1)
    return damaged("bad version line " + quoted(lines[0]));
  if (version > ckpt::kFormatVersion)
    return fail(StatusCode::Unimplemented, source,
                "format version " + std::to_string(version) +
                    " is newer than this nnc reads (up to " +
                    std::to_string(ckpt::kFormatVersion) + ")");
  const std::string digestTag = kDigestTag;
  if (lines.size() < 2 ||
      lines[1].compare(0, digestTag.size(), digestTag) != 0 ||
      lines[1].size() != digestTag.size() + 64)
    return damaged("no 'sha256 DIGEST' line");
  out.digestHex = lines[1].substr(digestTag.size());
  out.metadata.clear();
  for (size_t i = 2; i < lines.size(); ++i) {
    std::string where = "line " + std::to_string(i + 1) + " ";
    size_t eq = lines[i].find('=');
    if (eq == std::string::npos)
      return damaged(where + "has no '='");
    std::string key = lines[i].substr(0, eq), value;
    if (!checkKey(key, source).isOk())
      return damaged(where + "has a bad key " + quoted(key));
    if (!unescapeValue(lines[i].substr(eq + 1), value))
      return damaged(where + "has a bad escape");
    if (!out.metadata.empty() && !(out.metadata.rbegin()->first < key))
      return damaged(
          where + "key " + quoted(key) +
          (out.metadata.count(key) ? " is a duplicate" : " is out of order"));
    out.metadata.emplace_hint(out.metadata.end(), std::move(key),
                              std::move(value));
  }
  return Status::ok();
}

Status readWholeFile(const std::string &path, std::vector<uint8_t> &out) {
  // Non-blocking: opening a FIFO waits for a writer otherwise (and it is
  // refused below); reads of a regular file are unaffected.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    int err = errno;
    return fail(err == ENOENT ? StatusCode::NotFound : StatusCode::Unavailable,
                path, std::string("cannot open: ") + std::strerror(err));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return fail(StatusCode::Unavailable, path,
                std::string("cannot stat: ") + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(StatusCode::InvalidArgument, path,
                S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
  }
  out.resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < out.size()) {
    ssize_t got = ::read(fd, out.data() + done, out.size() - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      int err = errno;
      ::close(fd);
      return fail(StatusCode::DataLoss, path,
                  got == 0 ? std::string("file shrank while reading")
                           : std::string("read failed: ") + std::strerror(err));
    }
    done += static_cast<size_t>(got);
  }
  ::close(fd);
  return Status::ok();
}

} // namespace

//===----------------------------------------------------------------------===//
// Checkpoint
//===----------------------------------------------------------------------===//

const HostTensor *Checkpoint::find(const std::string &name) const {
  for (const NpzEntry &entry : tensors)
    if (entry.name == name)
      return &entry.tensor;
  return nullptr;
}

HostTensor *Checkpoint::find(const std::string &name) {
  for (NpzEntry &entry : tensors)
    if (entry.name == name)
      return &entry.tensor;
  return nullptr;
}

void Checkpoint::setInt(const std::string &key, int64_t value) {
  metadata[key] = std::to_string(value);
}

void Checkpoint::setDouble(const std::string &key, double value) {
  metadata[key] = formatDouble(value);
}

Status Checkpoint::getString(const std::string &key, std::string &out) const {
  auto it = metadata.find(key);
  if (it == metadata.end())
    return fail(StatusCode::NotFound, source,
                "metadata has no key " + quoted(key));
  out = it->second;
  return Status::ok();
}

Status Checkpoint::getInt(const std::string &key, int64_t &out) const {
  std::string text;
  NNC_RUNTIME_RETURN_IF_ERROR(getString(key, text));
  Status s = parseInt64(text, "metadata " + quoted(key), out);
  return s.isOk() ? s : fail(s.code(), source, s.message());
}

Status Checkpoint::getDouble(const std::string &key, double &out) const {
  std::string text;
  NNC_RUNTIME_RETURN_IF_ERROR(getString(key, text));
  Status s = parseDouble(text, "metadata " + quoted(key), out);
  return s.isOk() ? s : fail(s.code(), source, s.message());
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

namespace {

Status checkNames(const Checkpoint &checkpoint) {
  for (const NpzEntry &entry : checkpoint.tensors)
    if (entry.name == ckpt::kMetadataEntry)
      return fail(StatusCode::InvalidArgument, checkpoint.source,
                  std::string("tensor name '") + ckpt::kMetadataEntry +
                      "' is reserved for the metadata");
  for (const auto &pair : checkpoint.metadata)
    NNC_RUNTIME_RETURN_IF_ERROR(checkKey(pair.first, checkpoint.source));
  return Status::ok();
}

/// Appends the image of `tensors` followed by the metadata entry holding
/// `text`. The metadata entry is pushed onto `tensors` for the call and
/// popped again, so `tensors` must be the caller's own.
Status serializeWithMetadata(std::vector<NpzEntry> &tensors,
                             const std::string &text, const std::string &source,
                             std::vector<uint8_t> &out) {
  NpzEntry meta;
  meta.name = ckpt::kMetadataEntry;
  NNC_RUNTIME_RETURN_IF_ERROR(HostTensor::create(
      DType::U8, {static_cast<int64_t>(text.size())}, meta.tensor));
  std::memcpy(meta.tensor.data(), text.data(), text.size());
  tensors.push_back(std::move(meta));
  Status s = serializeNpz(tensors, out);
  tensors.pop_back();
  if (!s.isOk())
    return fail(s.code(), source, s.message());
  return Status::ok();
}

} // namespace

Status serializeCheckpoint(const Checkpoint &checkpoint,
                           std::vector<uint8_t> &out) {
  NNC_RUNTIME_RETURN_IF_ERROR(checkNames(checkpoint));
  std::string text = metadataText(checkpoint, contentDigest(checkpoint));
  // serializeNpz takes one vector of entries; the caller's is const (and
  // may be pointed into), so the tensors are copied into one of our own.
  std::vector<NpzEntry> copies(checkpoint.tensors.size());
  for (size_t i = 0; i < copies.size(); ++i) {
    const NpzEntry &entry = checkpoint.tensors[i];
    copies[i].name = entry.name;
    NNC_RUNTIME_RETURN_IF_ERROR(HostTensor::create(
        entry.tensor.dtype(), entry.tensor.shape(), copies[i].tensor));
    if (entry.tensor.sizeInBytes())
      std::memcpy(copies[i].tensor.data(), entry.tensor.data(),
                  entry.tensor.sizeInBytes());
  }
  return serializeWithMetadata(copies, text, checkpoint.source, out);
}

Status writeCheckpoint(const std::string &path, const Checkpoint &checkpoint) {
  std::vector<uint8_t> image;
  Status s = serializeCheckpoint(checkpoint, image);
  if (!s.isOk())
    return Status(s.code(),
                  "cannot write checkpoint " + path + ": " + s.message());
  s = writeFileAtomically(path, image.data(), image.size());
  if (!s.isOk())
    return Status(s.code(),
                  "cannot write checkpoint " + path + ": " + s.message());
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

Status parseCheckpoint(const void *bytes, size_t size, const std::string &name,
                       Checkpoint &out) {
  const auto *p = static_cast<const uint8_t *>(bytes);
  if (size == 0)
    return fail(StatusCode::DataLoss, name, "the file is empty (truncated?)");
  static const uint8_t kZipLocal[4] = {'P', 'K', 3, 4};
  if (size < 4 || std::memcmp(p, kZipLocal, 4) != 0)
    return fail(StatusCode::InvalidArgument, name,
                "not a checkpoint (not an .npz archive)");

  std::vector<NpzEntry> entries;
  Status s = parseNpz(bytes, size, describe(name), entries);
  if (!s.isOk())
    return Status(s.code() == StatusCode::InvalidArgument ? StatusCode::DataLoss
                                                          : s.code(),
                  s.message() + " (the checkpoint is damaged or truncated)");

  Checkpoint result;
  result.source = name;
  const HostTensor *metaTensor = nullptr;
  for (NpzEntry &entry : entries) {
    if (entry.name == ckpt::kMetadataEntry)
      metaTensor = &entry.tensor;
  }
  if (!metaTensor)
    return fail(StatusCode::InvalidArgument, name,
                std::string("not an nnc checkpoint: it has no '") +
                    ckpt::kMetadataEntry + "' entry (a plain .npz?)");
  if (metaTensor->dtype() != DType::U8 || metaTensor->rank() != 1)
    return fail(StatusCode::DataLoss, name,
                std::string("the '") + ckpt::kMetadataEntry + "' entry is " +
                    dtypeName(metaTensor->dtype()) + " " +
                    formatShape(metaTensor->shape()) + ", not a 1-D u8 array");
  std::string text(metaTensor->dataAs<char>(), metaTensor->sizeInBytes());
  ParsedMetadata parsed;
  NNC_RUNTIME_RETURN_IF_ERROR(parseMetadataText(text, name, parsed));

  for (NpzEntry &entry : entries)
    if (entry.name != ckpt::kMetadataEntry)
      result.tensors.push_back(std::move(entry));
  result.metadata = std::move(parsed.metadata);

  Sha256Digest computed = contentDigest(result);
  std::string digest = toHex(computed);
  if (digest != parsed.digestHex)
    return fail(StatusCode::DataLoss, name,
                "checksum mismatch (stored sha256 " + parsed.digestHex +
                    ", content has " + digest + "): the checkpoint is damaged");

  // Everything the content determines is verified; the remaining bytes
  // (ZIP fields no reader checks, the metadata's spelling) must be exactly
  // what the writer makes of that content.
  std::vector<uint8_t> image;
  NNC_RUNTIME_RETURN_IF_ERROR(checkNames(result));
  NNC_RUNTIME_RETURN_IF_ERROR(serializeWithMetadata(
      result.tensors, metadataText(result, computed), name, image));
  if (image.size() != size || std::memcmp(image.data(), p, size) != 0) {
    size_t at = 0;
    while (at < size && at < image.size() && image[at] == p[at])
      ++at;
    return fail(StatusCode::DataLoss, name,
                "byte " + std::to_string(at) +
                    " differs from the layout nnc writes for this content: "
                    "the checkpoint is damaged");
  }
  out = std::move(result);
  return Status::ok();
}

Status readCheckpoint(const std::string &path, Checkpoint &out) {
  std::vector<uint8_t> bytes;
  NNC_RUNTIME_RETURN_IF_ERROR(readWholeFile(path, bytes));
  return parseCheckpoint(bytes.data(), bytes.size(), path, out);
}


Status checkCheckpointTensor(const Checkpoint &checkpoint,
                             const std::string &name, DType dtype,
                             const std::vector<int64_t> &shape,
                             const HostTensor **out) {
  const HostTensor *tensor = checkpoint.find(name);
  std::string expected =
      std::string(dtypeName(dtype)) + " " + formatShape(shape);
  if (!tensor)
    return fail(StatusCode::NotFound, checkpoint.source,
                "has no tensor " + quoted(name) + " (the model expects " +
                    expected + ")");
  if (tensor->shape() != shape)
    return fail(StatusCode::InvalidArgument, checkpoint.source,
                "tensor " + quoted(name) + " has shape " +
                    formatShape(tensor->shape()) + ", the model expects " +
                    formatShape(shape));
  if (tensor->dtype() != dtype)
    return fail(StatusCode::InvalidArgument, checkpoint.source,
                "tensor " + quoted(name) + " has dtype " +
                    dtypeName(tensor->dtype()) + ", the model expects " +
                    dtypeName(dtype));
  if (out)
    *out = tensor;
  return Status::ok();
}

} // namespace nnc::runtime
