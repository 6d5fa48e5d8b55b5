//===- ByteCodec.h - little-endian records, bounds-checked ------*- C++ -*-===//
//
// The writer and reader behind the runtime's binary formats (the plan, the
// CUDA module section): fixed-width little-endian integers and
// length-prefixed strings. Every read is bounds-checked and every count
// capped by the caller, so corrupt bytes are reported with their position,
// never trusted. Internal to the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_LIB_BYTECODEC_H
#define NNC_RUNTIME_LIB_BYTECODEC_H

#include "nnc/runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nnc::runtime::detail {

class Writer {
public:
  explicit Writer(std::vector<uint8_t> &out) : out(out) {}
  void u8(uint8_t v) { out.push_back(v); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i)
      out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i)
      out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void str(const std::string &s) {
    u32(static_cast<uint32_t>(s.size()));
    out.insert(out.end(), s.begin(), s.end());
  }
  /// Bytes with a u64 length.
  void blob(const uint8_t *bytes, size_t n) {
    u64(n);
    out.insert(out.end(), bytes, bytes + n);
  }

private:
  std::vector<uint8_t> &out;
};

class Reader {
public:
  Reader(const uint8_t *data, size_t size, const std::string &source)
      : data(data), size(size), source(source) {}

  Status fail(const std::string &what) const {
    return Status(StatusCode::DataLoss, source + ": " + what + " (at byte " +
                                            std::to_string(pos) + " of " +
                                            std::to_string(size) + ")");
  }
  Status need(size_t n, const char *what) const {
    if (size - pos < n)
      return fail(std::string("truncated while reading ") + what);
    return Status::ok();
  }
  Status u8(uint8_t &v, const char *what) {
    NNC_RUNTIME_RETURN_IF_ERROR(need(1, what));
    v = data[pos++];
    return Status::ok();
  }
  Status u32(uint32_t &v, const char *what) {
    NNC_RUNTIME_RETURN_IF_ERROR(need(4, what));
    v = 0;
    for (int i = 0; i < 4; ++i)
      v |= static_cast<uint32_t>(data[pos++]) << (8 * i);
    return Status::ok();
  }
  Status u64(uint64_t &v, const char *what) {
    NNC_RUNTIME_RETURN_IF_ERROR(need(8, what));
    v = 0;
    for (int i = 0; i < 8; ++i)
      v |= static_cast<uint64_t>(data[pos++]) << (8 * i);
    return Status::ok();
  }
  /// A count of at most `max` records of at least `minBytes` bytes each,
  /// which must fit in what is left: a corrupt count is refused before it
  /// sizes a vector.
  Status count(uint32_t &v, uint32_t max, const char *what,
               size_t minBytes = 0) {
    NNC_RUNTIME_RETURN_IF_ERROR(u32(v, what));
    if (v > max)
      return fail(std::string(what) + " is " + std::to_string(v) +
                  ", more than the limit " + std::to_string(max));
    if (minBytes && v > (size - pos) / minBytes)
      return fail(std::string(what) + " is " + std::to_string(v) +
                  ", more than the " + std::to_string(size - pos) +
                  " bytes left can hold (" +
                  std::to_string((size - pos) / minBytes) + ")");
    return Status::ok();
  }
  /// A string of at most `max` bytes without control characters (but tabs
  /// and newlines where `multiline`).
  Status str(std::string &s, const char *what, uint32_t max = 4096,
             bool multiline = false) {
    uint32_t n = 0;
    NNC_RUNTIME_RETURN_IF_ERROR(count(n, max, what));
    NNC_RUNTIME_RETURN_IF_ERROR(need(n, what));
    s.assign(reinterpret_cast<const char *>(data + pos), n);
    pos += n;
    for (char c : s) {
      if (multiline && (c == '\n' || c == '\t'))
        continue;
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        return fail(std::string(what) + " holds a control character");
    }
    return Status::ok();
  }
  /// Bytes with a u64 length of at most `max`.
  Status blob(std::vector<uint8_t> &b, uint64_t max, const char *what) {
    uint64_t n = 0;
    NNC_RUNTIME_RETURN_IF_ERROR(u64(n, what));
    if (n > max)
      return fail(std::string(what) + " is " + std::to_string(n) +
                  " bytes, more than the limit " + std::to_string(max));
    NNC_RUNTIME_RETURN_IF_ERROR(need(n, what));
    b.assign(data + pos, data + pos + n);
    pos += n;
    return Status::ok();
  }
  bool atEnd() const { return pos == size; }
  size_t position() const { return pos; }

private:
  const uint8_t *data;
  size_t size;
  size_t pos = 0;
  const std::string &source;
};

} // namespace nnc::runtime::detail

#endif // NNC_RUNTIME_LIB_BYTECODEC_H
