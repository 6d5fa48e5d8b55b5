//===- NpyIO.cpp - NumPy .npy/.npz and CSV files --------------------------===//
//
// The formats are small enough to implement exactly: a .npy file is a magic
// string, a version, a Python dict literal and raw data; a .npz file is a ZIP
// archive of stored .npy members. Every offset and size is checked against
// the bytes that are really there before anything is read or allocated.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/NpyIO.h"

#include "nnc/runtime/AtomicFile.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace nnc::runtime {
namespace {

Status fail(StatusCode code, const std::string &name, const std::string &what) {
  return Status(code, name + ": " + what);
}


uint16_t load16(const uint8_t *p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
uint32_t load32(const uint8_t *p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}
uint64_t load64(const uint8_t *p) {
  return static_cast<uint64_t>(load32(p)) |
         (static_cast<uint64_t>(load32(p + 4)) << 32);
}
void put16(std::vector<uint8_t> &out, uint16_t v) {
  out.push_back(static_cast<uint8_t>(v));
  out.push_back(static_cast<uint8_t>(v >> 8));
}
void put32(std::vector<uint8_t> &out, uint32_t v) {
  put16(out, static_cast<uint16_t>(v));
  put16(out, static_cast<uint16_t>(v >> 16));
}
void put64(std::vector<uint8_t> &out, uint64_t v) {
  put32(out, static_cast<uint32_t>(v));
  put32(out, static_cast<uint32_t>(v >> 32));
}

//===----------------------------------------------------------------------===//
// Byte sources: memory images and files, read at checked offsets.
//===----------------------------------------------------------------------===//

class ByteSource {
public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  /// Reads [offset, offset + n); callers have checked the range.
  virtual Status read(uint64_t offset, size_t n, void *dst) const = 0;
};

class MemorySource final : public ByteSource {
public:
  MemorySource(const void *bytes, size_t size, std::string name)
      : bytes_(static_cast<const uint8_t *>(bytes)), size_(size),
        name_(std::move(name)) {}
  uint64_t size() const override { return size_; }
  Status read(uint64_t offset, size_t n, void *dst) const override {
    if (offset > size_ || n > size_ - offset)
      return fail(StatusCode::Internal, name_, "read past the end");
    if (n)
      std::memcpy(dst, bytes_ + offset, n);
    return Status::ok();
  }

private:
  const uint8_t *bytes_;
  size_t size_;
  std::string name_;
};

class FileSource final : public ByteSource {
public:
  FileSource() = default;
  FileSource(const FileSource &) = delete;
  FileSource &operator=(const FileSource &) = delete;
  ~FileSource() override {
    if (fd_ >= 0)
      ::close(fd_);
  }

  Status open(const std::string &path) {
    name_ = path;
    // Non-blocking: opening a FIFO waits for a writer otherwise (and it is
    // refused below); reads of a regular file are unaffected.
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0)
      return fail(errno == ENOENT ? StatusCode::NotFound
                                  : StatusCode::Unavailable,
                  path, std::string("cannot open: ") + std::strerror(errno));
    struct stat st;
    if (::fstat(fd_, &st) != 0)
      return fail(StatusCode::Unavailable, path,
                  std::string("cannot stat: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode))
      return fail(StatusCode::InvalidArgument, path, "not a regular file");
    size_ = static_cast<uint64_t>(st.st_size);
    return Status::ok();
  }
  uint64_t size() const override { return size_; }
  Status read(uint64_t offset, size_t n, void *dst) const override {
    if (offset > size_ || n > size_ - offset)
      return fail(StatusCode::Internal, name_, "read past the end");
    auto *p = static_cast<uint8_t *>(dst);
    while (n > 0) {
      size_t chunk = std::min<size_t>(n, size_t(1) << 30);
      ssize_t got = ::pread(fd_, p, chunk, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        return fail(StatusCode::DataLoss, name_,
                    got == 0
                        ? std::string("file shrank while reading")
                        : std::string("read failed: ") + std::strerror(errno));
      p += got;
      offset += static_cast<uint64_t>(got);
      n -= static_cast<size_t>(got);
    }
    return Status::ok();
  }

private:
  int fd_ = -1;
  uint64_t size_ = 0;
  std::string name_;
};

/// CRC-32 of [offset, offset + n) of `source`, read in chunks.
Status crcOfRange(const ByteSource &source, uint64_t offset, uint64_t n,
                  uint32_t &crc) {
  std::vector<uint8_t> buffer(std::min<uint64_t>(n, 1 << 20));
  while (n > 0) {
    size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, buffer.size()));
    NNC_RUNTIME_RETURN_IF_ERROR(source.read(offset, chunk, buffer.data()));
    crc = crc32(buffer.data(), chunk, crc);
    offset += chunk;
    n -= chunk;
  }
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// The Python literal subset of .npy headers: dicts, tuples, lists, strings,
// integers, True, False, None.
//===----------------------------------------------------------------------===//

struct PyValue {
  enum class Kind { Str, Int, Bool, None, Tuple, List, Dict } kind = Kind::None;
  std::string str;
  int64_t integer = 0;
  bool boolean = false;
  std::vector<PyValue> items;
  std::vector<std::pair<std::string, PyValue>> entries;
};

class LiteralParser {
public:
  explicit LiteralParser(std::string_view text) : text_(text) {}

  /// Parses one value followed by nothing but whitespace.
  bool parseTop(PyValue &out) {
    if (!parseValue(out, 0))
      return false;
    skipSpace();
    if (pos_ != text_.size())
      return error("unexpected " + quoted(text_.substr(pos_, 8)) +
                   " after the dict");
    return true;
  }
  const std::string &errorMessage() const { return error_; }

private:
  static constexpr int kMaxDepth = 8;

  bool error(const std::string &message) {
    if (error_.empty())
      error_ =
          message + " at offset " + std::to_string(pos_) + " of the header";
    return false;
  }
  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool consume(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool consumeWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word)
      return false;
    size_t end = pos_ + word.size();
    if (end < text_.size() &&
        (std::isalnum(static_cast<unsigned char>(text_[end])) ||
         text_[end] == '_'))
      return false;
    pos_ = end;
    return true;
  }

  bool parseValue(PyValue &out, int depth) {
    if (depth > kMaxDepth)
      return error("literal nested too deeply");
    skipSpace();
    if (pos_ >= text_.size())
      return error("unexpected end");
    char c = text_[pos_];
    if (c == '\'' || c == '"') {
      out.kind = PyValue::Kind::Str;
      return parseString(out.str);
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      out.kind = PyValue::Kind::Int;
      return parseInt(out.integer);
    }
    if (c == '(' || c == '[') {
      char close = c == '(' ? ')' : ']';
      out.kind = c == '(' ? PyValue::Kind::Tuple : PyValue::Kind::List;
      ++pos_;
      bool sawComma = false;
      while (!consume(close)) {
        if (!out.items.empty() && !sawComma)
          return error(std::string("expected ',' or '") + close + "'");
        out.items.emplace_back();
        if (!parseValue(out.items.back(), depth + 1))
          return false;
        sawComma = consume(',');
      }
      // `(1)` is the integer 1 in Python, not a tuple.
      if (close == ')' && out.items.size() == 1 && !sawComma)
        return error("a one-element tuple needs a trailing comma");
      return true;
    }
    if (c == '{') {
      out.kind = PyValue::Kind::Dict;
      ++pos_;
      bool sawComma = false;
      while (!consume('}')) {
        if (!out.entries.empty() && !sawComma)
          return error("expected ',' or '}'");
        skipSpace();
        std::string key;
        if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
          return error("dict keys must be strings");
        if (!parseString(key))
          return false;
        if (!consume(':'))
          return error("expected ':'");
        out.entries.emplace_back(std::move(key), PyValue());
        if (!parseValue(out.entries.back().second, depth + 1))
          return false;
        sawComma = consume(',');
      }
      return true;
    }
    if (consumeWord("True")) {
      out.kind = PyValue::Kind::Bool;
      out.boolean = true;
      return true;
    }
    if (consumeWord("False")) {
      out.kind = PyValue::Kind::Bool;
      out.boolean = false;
      return true;
    }
    if (consumeWord("None")) {
      out.kind = PyValue::Kind::None;
      return true;
    }
    return error("unexpected " + quoted(text_.substr(pos_, 8)));
  }

  bool parseString(std::string &out) {
    char quote = text_[pos_++];
    size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\')
        return error("escapes in strings are not supported");
      if (text_[pos_] == '\n')
        return error("unterminated string");
      ++pos_;
    }
    if (pos_ >= text_.size())
      return error("unterminated string");
    out.assign(text_.substr(start, pos_ - start));
    ++pos_;
    return true;
  }

  bool parseInt(int64_t &out) {
    size_t start = pos_;
    bool negative = text_[pos_] == '-';
    if (negative)
      ++pos_;
    if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9')
      return error("expected digits");
    uint64_t value = 0;
    const uint64_t limit =
        static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) +
        (negative ? 1 : 0);
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      uint64_t digit = static_cast<uint64_t>(text_[pos_] - '0');
      if (value > (limit - digit) / 10) {
        pos_ = start;
        return error("integer does not fit in 64 bits");
      }
      value = value * 10 + digit;
      ++pos_;
    }
    // Python 2 wrote long integers as `3L`; numpy still reads those files.
    if (pos_ < text_.size() && text_[pos_] == 'L')
      ++pos_;
    out = negative ? static_cast<int64_t>(0 - value)
                   : static_cast<int64_t>(value);
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

const char kNpyMagic[] = "\x93NUMPY";
constexpr size_t kNpyMagicLen = 6;

/// The descr `dtype` is written with (DTypes.def).
const char *descrFor(DType dtype) {
  switch (dtype) {
#define NNC_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr)                   \
  case DType::Enum:                                                            \
    return NpyDescr;
#include "nnc/runtime/DTypes.def"
  }
  return "?";
}

/// Whether `descr` names the bytes of `dtype`. Besides the descr nnc
/// writes, numpy spells one-byte types with either byte-order mark ("<i1"
/// for "|i1"): their bytes have no order.
bool descrMatches(const std::string &descr, DType dtype) {
  std::string_view written = descrFor(dtype);
  if (descr == written)
    return true;
  return dtypeSize(dtype) == 1 && written[0] == '|' && descr.size() > 1 &&
         descr[0] == '<' &&
         std::string_view(descr).substr(1) == written.substr(1);
}

Status dtypeForDescr(const std::string &descr, const std::string &name,
                     DType &out) {
  for (size_t i = 0; i < kNumDTypes; ++i)
    if (descrMatches(descr, static_cast<DType>(i))) {
      out = static_cast<DType>(i);
      return Status::ok();
    }
  if (!descr.empty() && descr[0] == '>')
    return fail(StatusCode::InvalidArgument, name,
                "big-endian dtype " + quoted(descr) +
                    " is not supported; save arr.astype(arr.dtype."
                    "newbyteorder('<'))");
  std::string supported, bfloat;
  for (size_t i = 0; i < kNumDTypes; ++i) {
    DType dtype = static_cast<DType>(i);
    if (dtypeClass(dtype) == DTypeClass::BFloat)
      bfloat += std::string(", and ") + descrFor(dtype) + " as bfloat16";
    else
      supported += std::string(supported.empty() ? "" : " ") + descrFor(dtype);
  }
  return fail(StatusCode::InvalidArgument, name,
              "unsupported dtype " + quoted(descr) +
                  " (supported: " + supported + bfloat + ")");
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}

struct NpyHeader {
  DType dtype = DType::F32;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  uint64_t dataOffset = 0; // from the start of the .npy image
  size_t dataBytes = 0;
};

Status interpretHeaderDict(const PyValue &dict, const std::string &name,
                           NpyHeader &out) {
  if (dict.kind != PyValue::Kind::Dict)
    return fail(StatusCode::InvalidArgument, name, "header is not a dict");
  const PyValue *descr = nullptr, *fortran = nullptr, *shape = nullptr;
  for (const auto &[key, value] : dict.entries) {
    const PyValue **slot = key == "descr"           ? &descr
                           : key == "fortran_order" ? &fortran
                           : key == "shape"         ? &shape
                                                    : nullptr;
    if (!slot)
      return fail(StatusCode::InvalidArgument, name,
                  "header has unexpected key " + quoted(key));
    if (*slot)
      return fail(StatusCode::InvalidArgument, name,
                  "header repeats key " + quoted(key));
    *slot = &value;
  }
  for (auto [value, key] :
       {std::pair{descr, "descr"}, std::pair{fortran, "fortran_order"},
        std::pair{shape, "shape"}})
    if (!value)
      return fail(StatusCode::InvalidArgument, name,
                  std::string("header lacks '") + key + "'");
  if (descr->kind == PyValue::Kind::List)
    return fail(StatusCode::InvalidArgument, name,
                "structured dtypes are not supported");
  if (descr->kind != PyValue::Kind::Str)
    return fail(StatusCode::InvalidArgument, name,
                "header 'descr' is not a string");
  NNC_RUNTIME_RETURN_IF_ERROR(dtypeForDescr(descr->str, name, out.dtype));
  if (fortran->kind != PyValue::Kind::Bool)
    return fail(StatusCode::InvalidArgument, name,
                "header 'fortran_order' is not True or False");
  out.fortranOrder = fortran->boolean;
  if (shape->kind != PyValue::Kind::Tuple)
    return fail(StatusCode::InvalidArgument, name,
                "header 'shape' is not a tuple");
  out.shape.clear();
  for (const PyValue &dim : shape->items) {
    if (dim.kind != PyValue::Kind::Int)
      return fail(StatusCode::InvalidArgument, name,
                  "header 'shape' holds a non-integer");
    if (dim.integer < 0)
      return fail(StatusCode::InvalidArgument, name,
                  "header 'shape' has a negative dimension " +
                      std::to_string(dim.integer));
    out.shape.push_back(dim.integer);
  }
  int64_t elements = 0;
  Status s = checkedShapeSize(out.shape, dtypeSize(out.dtype), elements,
                              out.dataBytes);
  if (!s.isOk())
    return fail(s.code(), name,
                "shape " + shapeString(out.shape) + ": " + s.message());
  return Status::ok();
}

/// Reads and checks the header of the .npy image at [base, base + size) of
/// `source`. When `crc` is given, it accumulates the CRC of the bytes read.
Status readNpyHeader(const ByteSource &source, uint64_t base, uint64_t size,
                     const std::string &name, NpyHeader &out, uint32_t *crc) {
  uint8_t preamble[12];
  if (size < 10)
    return fail(StatusCode::InvalidArgument, name,
                "truncated: " + std::to_string(size) +
                    " bytes is shorter than the .npy preamble");
  NNC_RUNTIME_RETURN_IF_ERROR(source.read(base, 10, preamble));
  if (std::memcmp(preamble, kNpyMagic, kNpyMagicLen) != 0)
    return fail(StatusCode::InvalidArgument, name,
                "not a .npy file (bad magic)");
  unsigned major = preamble[6], minor = preamble[7];
  if (major < 1 || major > 3 || minor != 0)
    return fail(StatusCode::InvalidArgument, name,
                "unsupported .npy format version " + std::to_string(major) +
                    "." + std::to_string(minor));
  size_t preambleLen = major == 1 ? 10 : 12;
  if (size < preambleLen)
    return fail(StatusCode::InvalidArgument, name,
                "truncated: " + std::to_string(size) +
                    " bytes is shorter than the .npy preamble");
  if (preambleLen == 12)
    NNC_RUNTIME_RETURN_IF_ERROR(source.read(base + 10, 2, preamble + 10));
  uint64_t headerLen = major == 1 ? load16(preamble + 8) : load32(preamble + 8);
  // Parsing a header takes memory in proportion to its length: a valid file
  // with a huge one must not take gigabytes. 1 MiB holds the header of a
  // rank-30000 array (numpy itself refuses more than 10000 bytes by default).
  constexpr uint64_t kMaxHeaderBytes = 1u << 20;
  if (headerLen > kMaxHeaderBytes)
    return fail(StatusCode::InvalidArgument, name,
                "header of " + std::to_string(headerLen) +
                    " bytes is larger than the limit " +
                    std::to_string(kMaxHeaderBytes));
  if (headerLen > size - preambleLen)
    return fail(StatusCode::InvalidArgument, name,
                "truncated header: it claims " + std::to_string(headerLen) +
                    " bytes but only " + std::to_string(size - preambleLen) +
                    " follow");
  std::string header(static_cast<size_t>(headerLen), '\0');
  NNC_RUNTIME_RETURN_IF_ERROR(
      source.read(base + preambleLen, header.size(), header.data()));
  if (crc) {
    *crc = crc32(preamble, preambleLen, *crc);
    *crc = crc32(header.data(), header.size(), *crc);
  }
  // Versions 1 and 2 are latin-1 and 3 is UTF-8, but a valid header holds
  // only ASCII; anything else is rejected by the literal parser.
  PyValue dict;
  LiteralParser parser(header);
  if (!parser.parseTop(dict))
    return fail(StatusCode::InvalidArgument, name,
                "bad header: " + parser.errorMessage());
  NNC_RUNTIME_RETURN_IF_ERROR(interpretHeaderDict(dict, name, out));
  out.dataOffset = preambleLen + headerLen;
  uint64_t available = size - out.dataOffset;
  if (available != out.dataBytes)
    return fail(
        StatusCode::InvalidArgument, name,
        "data is " + std::to_string(available) + " bytes but shape " +
            shapeString(out.shape) + " of " + descrFor(out.dtype) + " needs " +
            std::to_string(out.dataBytes) +
            (available < out.dataBytes ? " (truncated)" : " (trailing bytes)"));
  return Status::ok();
}

/// Copies a Fortran-order array into C order.
void fortranToC(const uint8_t *src, uint8_t *dst,
                const std::vector<int64_t> &shape, size_t elementSize,
                int64_t elements) {
  size_t rank = shape.size();
  std::vector<int64_t> stride(rank), index(rank, 0);
  int64_t s = 1;
  for (size_t k = 0; k < rank; ++k) {
    stride[k] = s;
    s *= shape[k];
  }
  int64_t srcElement = 0;
  for (int64_t i = 0; i < elements; ++i) {
    std::memcpy(dst + static_cast<size_t>(i) * elementSize,
                src + static_cast<size_t>(srcElement) * elementSize,
                elementSize);
    // Advance the C-order index, last dimension fastest.
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < shape[k]) {
        srcElement += stride[k];
        break;
      }
      srcElement -= stride[k] * (shape[k] - 1);
      index[k] = 0;
    }
  }
}

Status readNpyImage(const ByteSource &source, uint64_t base, uint64_t size,
                    const std::string &name, HostTensor &out, uint32_t *crc) {
  NpyHeader header;
  NNC_RUNTIME_RETURN_IF_ERROR(readNpyHeader(source, base, size, name, header, crc));
  HostTensor tensor;
  Status s = HostTensor::create(header.dtype, header.shape, tensor);
  if (!s.isOk())
    return fail(s.code(), name, s.message());
  NNC_RUNTIME_RETURN_IF_ERROR(
      source.read(base + header.dataOffset, header.dataBytes, tensor.data()));
  if (crc)
    *crc = crc32(tensor.data(), header.dataBytes, *crc);
  if (dtypeClass(header.dtype) == DTypeClass::Bool) {
    const uint8_t *p = tensor.dataAs<uint8_t>();
    for (size_t i = 0; i < header.dataBytes; ++i)
      if (p[i] > 1)
        return fail(StatusCode::InvalidArgument, name,
                    "bool element " + std::to_string(i) + " is " +
                        std::to_string(p[i]) + ", not 0 or 1");
  }
  if (header.fortranOrder && tensor.rank() > 1 && tensor.numElements() > 1) {
    HostTensor c;
    s = HostTensor::create(header.dtype, header.shape, c);
    if (!s.isOk())
      return fail(s.code(), name, s.message());
    fortranToC(tensor.dataAs<uint8_t>(), c.dataAs<uint8_t>(), header.shape,
               dtypeSize(header.dtype), tensor.numElements());
    tensor = std::move(c);
  }
  out = std::move(tensor);
  return Status::ok();
}

/// The preamble and header numpy writes for `tensor` (format 1.0, or 2.0 when
/// the header does not fit in 65535 bytes), including the spare spaces numpy
/// leaves for growing the first axis in place.
std::vector<uint8_t> npyHeaderBytes(const HostTensor &tensor) {
  std::string dict =
      std::string("{'descr': '") + descrFor(tensor.dtype()) +
      "', 'fortran_order': False, 'shape': " + shapeString(tensor.shape()) +
      ", }";
  constexpr size_t kGrowthAxisMaxDigits = 21;
  if (tensor.rank() > 0) {
    size_t digits = std::to_string(tensor.shape()[0]).size();
    if (digits < kGrowthAxisMaxDigits)
      dict.append(kGrowthAxisMaxDigits - digits, ' ');
  }
  constexpr size_t kAlign = 64;
  size_t preambleLen = 10;
  size_t withNewline = dict.size() + 1;
  size_t pad = kAlign - (preambleLen + withNewline) % kAlign;
  if (withNewline + pad > 0xffff) {
    preambleLen = 12;
    pad = kAlign - (preambleLen + withNewline) % kAlign;
  }
  dict.append(pad, ' ');
  dict += '\n';
  std::vector<uint8_t> out(kNpyMagic, kNpyMagic + kNpyMagicLen);
  out.push_back(preambleLen == 10 ? 1 : 2);
  out.push_back(0);
  if (preambleLen == 10)
    put16(out, static_cast<uint16_t>(dict.size()));
  else
    put32(out, static_cast<uint32_t>(dict.size()));
  out.insert(out.end(), dict.begin(), dict.end());
  return out;
}

//===----------------------------------------------------------------------===//
// Output: memory images and files written through a temporary and a rename.
//===----------------------------------------------------------------------===//

class ByteSink {
public:
  virtual ~ByteSink() = default;
  virtual Status write(const void *bytes, size_t n) = 0;
};

class VectorSink final : public ByteSink {
public:
  explicit VectorSink(std::vector<uint8_t> &out) : out_(out) {}
  Status write(const void *bytes, size_t n) override {
    const auto *p = static_cast<const uint8_t *>(bytes);
    out_.insert(out_.end(), p, p + n);
    return Status::ok();
  }

private:
  std::vector<uint8_t> &out_;
};

/// Streams into an AtomicFile: a failed or abandoned write leaves the
/// destination as it was.
class FileSink final : public ByteSink {
public:
  Status open(const std::string &path) { return file_.open(path); }
  Status write(const void *bytes, size_t n) override {
    return file_.write(bytes, n);
  }
  Status commit() { return file_.commit(); }

private:
  AtomicFile file_;
};

Status writeNpyTo(const HostTensor &tensor, ByteSink &sink) {
  std::vector<uint8_t> header = npyHeaderBytes(tensor);
  NNC_RUNTIME_RETURN_IF_ERROR(sink.write(header.data(), header.size()));
  return sink.write(tensor.data(), tensor.sizeInBytes());
}

//===----------------------------------------------------------------------===//
// .npz: ZIP archives of stored .npy members.
//===----------------------------------------------------------------------===//

constexpr uint32_t kLocalHeaderSig = 0x04034b50;
constexpr uint32_t kCentralHeaderSig = 0x02014b50;
constexpr uint32_t kEndSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr size_t kLocalHeaderLen = 30;
constexpr size_t kCentralHeaderLen = 46;
constexpr size_t kEndLen = 22;
constexpr size_t kZip64EndLen = 56;
constexpr size_t kZip64LocatorLen = 20;
constexpr uint32_t k32 = 0xffffffffu;
constexpr uint16_t k16 = 0xffffu;
constexpr uint16_t kMethodStored = 0;
constexpr uint16_t kMethodDeflate = 8;

struct ZipMember {
  std::string fileName;
  uint32_t crc = 0;
  uint64_t size = 0;
  uint64_t localOffset = 0;
  uint64_t dataOffset = 0;
};

Status readCentralDirectory(const ByteSource &source, const std::string &name,
                            std::vector<ZipMember> &members) {
  uint64_t fileSize = source.size();
  auto notZip = [&](const std::string &why) {
    return fail(StatusCode::InvalidArgument, name,
                "not a valid .npz (ZIP) archive: " + why);
  };
  if (fileSize < kEndLen)
    return notZip("too short for an end of central directory record");
  // The end record is followed only by its comment (at most 65535 bytes).
  uint64_t searchStart = fileSize - kEndLen;
  uint64_t searchEnd = searchStart > 0xffff ? searchStart - 0xffff : 0;
  size_t tailLen = static_cast<size_t>(fileSize - searchEnd);
  std::vector<uint8_t> tail(tailLen);
  NNC_RUNTIME_RETURN_IF_ERROR(source.read(searchEnd, tailLen, tail.data()));
  uint64_t endOffset = 0;
  bool found = false;
  for (uint64_t pos = searchStart + 1; pos-- > searchEnd;) {
    const uint8_t *p = tail.data() + (pos - searchEnd);
    if (load32(p) == kEndSig && pos + kEndLen + load16(p + 20) == fileSize) {
      endOffset = pos;
      found = true;
      break;
    }
  }
  if (!found)
    return notZip("no end of central directory record");
  const uint8_t *end = tail.data() + (endOffset - searchEnd);
  uint16_t disk = load16(end + 4), cdDisk = load16(end + 6);
  uint64_t diskEntries = load16(end + 8), entries = load16(end + 10);
  uint64_t cdSize = load32(end + 12), cdOffset = load32(end + 16);
  uint64_t cdLimit = endOffset; // the central directory ends before this
  if (entries == k16 || cdSize == k32 || cdOffset == k32 ||
      diskEntries == k16) {
    if (endOffset < kZip64LocatorLen)
      return notZip("ZIP64 locator missing");
    uint8_t locator[kZip64LocatorLen];
    NNC_RUNTIME_RETURN_IF_ERROR(
        source.read(endOffset - kZip64LocatorLen, kZip64LocatorLen, locator));
    if (load32(locator) != kZip64LocatorSig)
      return notZip("ZIP64 locator missing");
    uint64_t zip64Offset = load64(locator + 8);
    if (load32(locator + 4) != 0 || load32(locator + 16) != 1)
      return notZip("multi-disk archives are not supported");
    if (zip64Offset > endOffset - kZip64LocatorLen ||
        endOffset - kZip64LocatorLen - zip64Offset < kZip64EndLen)
      return notZip("ZIP64 end record out of bounds");
    uint8_t rec[kZip64EndLen];
    NNC_RUNTIME_RETURN_IF_ERROR(source.read(zip64Offset, kZip64EndLen, rec));
    if (load32(rec) != kZip64EndSig)
      return notZip("bad ZIP64 end record signature");
    disk = load32(rec + 16) != 0 ? 1 : 0;
    cdDisk = load32(rec + 20) != 0 ? 1 : 0;
    diskEntries = load64(rec + 24);
    entries = load64(rec + 32);
    cdSize = load64(rec + 40);
    cdOffset = load64(rec + 48);
    cdLimit = zip64Offset;
  }
  if (disk != 0 || cdDisk != 0 || diskEntries != entries)
    return notZip("multi-disk archives are not supported");
  if (cdOffset > cdLimit || cdSize != cdLimit - cdOffset)
    return notZip("central directory (offset " + std::to_string(cdOffset) +
                  ", " + std::to_string(cdSize) +
                  " bytes) does not end where the end record starts");
  if (entries > cdSize / kCentralHeaderLen)
    return notZip("central directory too small for " + std::to_string(entries) +
                  " entries");
  std::vector<uint8_t> cd(static_cast<size_t>(cdSize));
  NNC_RUNTIME_RETURN_IF_ERROR(source.read(cdOffset, cd.size(), cd.data()));

  members.clear();
  members.reserve(static_cast<size_t>(entries));
  size_t pos = 0;
  for (uint64_t i = 0; i < entries; ++i) {
    std::string where = "central directory entry " + std::to_string(i);
    if (cd.size() - pos < kCentralHeaderLen)
      return notZip(where + " is truncated");
    const uint8_t *h = cd.data() + pos;
    if (load32(h) != kCentralHeaderSig)
      return notZip(where + " has a bad signature");
    uint16_t flags = load16(h + 8), method = load16(h + 10);
    uint32_t crc = load32(h + 16);
    uint64_t compressed = load32(h + 20), uncompressed = load32(h + 24);
    size_t nameLen = load16(h + 28), extraLen = load16(h + 30),
           commentLen = load16(h + 32);
    uint64_t diskStart = load16(h + 34), localOffset = load32(h + 42);
    if (cd.size() - pos - kCentralHeaderLen < nameLen + extraLen + commentLen)
      return notZip(where + " is truncated");
    ZipMember member;
    member.fileName.assign(
        reinterpret_cast<const char *>(h + kCentralHeaderLen), nameLen);
    where = "entry " + quoted(member.fileName);
    // ZIP64 extra: the 64-bit values of exactly the fields saturated above.
    const uint8_t *extra = h + kCentralHeaderLen + nameLen;
    size_t e = 0;
    bool sawZip64 = false;
    while (e < extraLen) {
      if (extraLen - e < 4)
        return notZip(where + " has a truncated extra field");
      uint16_t id = load16(extra + e), len = load16(extra + e + 2);
      if (extraLen - e - 4 < len)
        return notZip(where + " has a truncated extra field");
      if (id == 0x0001 && !sawZip64) {
        sawZip64 = true;
        const uint8_t *z = extra + e + 4;
        size_t avail = len;
        for (uint64_t *field : {&uncompressed, &compressed, &localOffset}) {
          if (*field != k32)
            continue;
          if (avail < 8)
            return notZip(where + " has a short ZIP64 extra field");
          *field = load64(z);
          z += 8;
          avail -= 8;
        }
        if (diskStart == k16) {
          if (avail < 4)
            return notZip(where + " has a short ZIP64 extra field");
          diskStart = load32(z);
        }
      }
      e += 4 + len;
    }
    if (!sawZip64 && (uncompressed == k32 || compressed == k32 ||
                      localOffset == k32 || diskStart == k16))
      return notZip(where + " lacks its ZIP64 extra field");
    if (diskStart != 0)
      return notZip("multi-disk archives are not supported");
    if (flags & 0x1)
      return fail(StatusCode::InvalidArgument, name,
                  where + " is encrypted; encrypted .npz is not supported");
    if (method == kMethodDeflate)
      return fail(
          StatusCode::InvalidArgument, name,
          where + " is compressed; compressed .npz is not supported; "
                  "save with numpy.savez instead of numpy.savez_compressed");
    if (method != kMethodStored)
      return fail(StatusCode::InvalidArgument, name,
                  where + " uses ZIP compression method " +
                      std::to_string(method) +
                      "; only stored entries "
                      "(numpy.savez) are supported");
    if (compressed != uncompressed)
      return notZip(where + " is stored but its compressed size " +
                    std::to_string(compressed) + " differs from its size " +
                    std::to_string(uncompressed));
    member.crc = crc;
    member.size = uncompressed;
    member.localOffset = localOffset;
    members.push_back(std::move(member));
    pos += kCentralHeaderLen + nameLen + extraLen + commentLen;
  }
  if (pos != cd.size())
    return notZip("central directory has " + std::to_string(cd.size() - pos) +
                  " bytes after its last entry");

  // Local headers: in bounds, consistent with the central directory, and
  // with members that neither overlap each other nor the directory.
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (ZipMember &member : members) {
    std::string where = "entry " + quoted(member.fileName);
    if (member.localOffset > cdOffset ||
        cdOffset - member.localOffset < kLocalHeaderLen)
      return notZip(where + " has its local header out of bounds");
    uint8_t local[kLocalHeaderLen];
    NNC_RUNTIME_RETURN_IF_ERROR(
        source.read(member.localOffset, kLocalHeaderLen, local));
    if (load32(local) != kLocalHeaderSig)
      return notZip(where + " has a bad local header signature");
    if (load16(local + 6) & 0x1)
      return notZip(where + " is encrypted");
    if (load16(local + 8) != kMethodStored)
      return notZip(where +
                    " has a local header whose compression method differs "
                    "from the central directory");
    uint64_t nameLen = load16(local + 26), extraLen = load16(local + 28);
    uint64_t headerEnd = member.localOffset + kLocalHeaderLen;
    if (cdOffset - headerEnd < nameLen + extraLen)
      return notZip(where + " has its local header out of bounds");
    std::string localName(static_cast<size_t>(nameLen), '\0');
    NNC_RUNTIME_RETURN_IF_ERROR(
        source.read(headerEnd, localName.size(), localName.data()));
    if (localName != member.fileName)
      return notZip(where + " has local header name " + quoted(localName));
    member.dataOffset = headerEnd + nameLen + extraLen;
    if (cdOffset - member.dataOffset < member.size)
      return notZip(where + " has data out of bounds (" +
                    std::to_string(member.size) + " bytes at offset " +
                    std::to_string(member.dataOffset) + ")");
    spans.emplace_back(member.localOffset, member.dataOffset + member.size);
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i)
    if (spans[i].first < spans[i - 1].second)
      return notZip("entries overlap at offset " +
                    std::to_string(spans[i].first));
  return Status::ok();
}

Status readNpzFrom(const ByteSource &source, const std::string &name,
                   std::vector<NpzEntry> &out) {
  std::vector<ZipMember> members;
  NNC_RUNTIME_RETURN_IF_ERROR(readCentralDirectory(source, name, members));
  std::vector<std::string> keys;
  for (const ZipMember &member : members) {
    std::string_view file = member.fileName;
    if (file.size() < 4 || file.substr(file.size() - 4) != ".npy")
      return fail(StatusCode::InvalidArgument, name,
                  "entry " + quoted(file) + " is not a .npy file");
    keys.emplace_back(file.substr(0, file.size() - 4));
  }
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  auto dup = std::adjacent_find(sorted.begin(), sorted.end());
  if (dup != sorted.end())
    return fail(StatusCode::InvalidArgument, name,
                "duplicate entry " + quoted(*dup + ".npy"));

  std::vector<NpzEntry> entries(members.size());
  for (size_t i = 0; i < members.size(); ++i) {
    const ZipMember &member = members[i];
    std::string entryName = name + ": entry " + quoted(member.fileName);
    uint32_t crc = 0;
    Status s = readNpyImage(source, member.dataOffset, member.size, entryName,
                            entries[i].tensor, &crc);
    if (!s.isOk()) {
      // A corrupted member is reported as such rather than by whichever
      // check its damage happened to trip.
      uint32_t full = 0;
      NNC_RUNTIME_RETURN_IF_ERROR(
          crcOfRange(source, member.dataOffset, member.size, full));
      if (full != member.crc)
        crc = full;
      else
        return s;
    }
    if (crc != member.crc) {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "CRC-32 mismatch (stored %08x, got %08x)",
                    member.crc, crc);
      return fail(StatusCode::DataLoss, entryName, buf);
    }
    entries[i].name = std::move(keys[i]);
  }
  out = std::move(entries);
  return Status::ok();
}

Status writeNpzTo(const std::vector<NpzEntry> &entries, ByteSink &sink,
                  const NpzWriteOptions &options, const std::string &name) {
  std::vector<std::string> names;
  for (const NpzEntry &entry : entries) {
    if (entry.name.empty())
      return fail(StatusCode::InvalidArgument, name, "an entry has no name");
    if (entry.name.size() > 0xffff - 4)
      return fail(StatusCode::InvalidArgument, name,
                  "entry name is longer than 65531 bytes");
    names.push_back(entry.name);
  }
  std::sort(names.begin(), names.end());
  auto dup = std::adjacent_find(names.begin(), names.end());
  if (dup != names.end())
    return fail(StatusCode::InvalidArgument, name,
                "duplicate entry name " + quoted(*dup));

  std::vector<uint8_t> central;
  uint64_t offset = 0;
  for (const NpzEntry &entry : entries) {
    std::string file = entry.name + ".npy";
    std::vector<uint8_t> npyHeader = npyHeaderBytes(entry.tensor);
    uint32_t crc = crc32(npyHeader.data(), npyHeader.size());
    crc = crc32(entry.tensor.data(), entry.tensor.sizeInBytes(), crc);
    uint64_t size = npyHeader.size() + entry.tensor.sizeInBytes();
    bool zip64Size = options.forceZip64 || size >= k32;
    bool zip64Offset = options.forceZip64 || offset >= k32;
    uint16_t version = zip64Size || zip64Offset ? 45 : 20;
    bool utf8 =
        std::any_of(file.begin(), file.end(), [](char c) { return c & 0x80; });
    uint16_t flags = utf8 ? 0x0800 : 0;
    const uint16_t dosTime = 0, dosDate = (0 << 9) | (1 << 5) | 1; // 1980-01-01

    std::vector<uint8_t> local;
    put32(local, kLocalHeaderSig);
    put16(local, version);
    put16(local, flags);
    put16(local, kMethodStored);
    put16(local, dosTime);
    put16(local, dosDate);
    put32(local, crc);
    put32(local, zip64Size ? k32 : static_cast<uint32_t>(size));
    put32(local, zip64Size ? k32 : static_cast<uint32_t>(size));
    put16(local, static_cast<uint16_t>(file.size()));
    put16(local, zip64Size ? 20 : 0);
    local.insert(local.end(), file.begin(), file.end());
    if (zip64Size) {
      put16(local, 0x0001);
      put16(local, 16);
      put64(local, size);
      put64(local, size);
    }

    std::vector<uint8_t> zip64Extra;
    if (zip64Size) {
      put64(zip64Extra, size);
      put64(zip64Extra, size);
    }
    if (zip64Offset)
      put64(zip64Extra, offset);
    put32(central, kCentralHeaderSig);
    put16(central, (3 << 8) | version); // made by: Unix
    put16(central, version);
    put16(central, flags);
    put16(central, kMethodStored);
    put16(central, dosTime);
    put16(central, dosDate);
    put32(central, crc);
    put32(central, zip64Size ? k32 : static_cast<uint32_t>(size));
    put32(central, zip64Size ? k32 : static_cast<uint32_t>(size));
    put16(central, static_cast<uint16_t>(file.size()));
    put16(central, static_cast<uint16_t>(
                       zip64Extra.empty() ? 0 : 4 + zip64Extra.size()));
    put16(central, 0); // comment
    put16(central, 0); // disk
    put16(central, 0); // internal attributes
    put32(central, 0644u << 16);
    put32(central, zip64Offset ? k32 : static_cast<uint32_t>(offset));
    central.insert(central.end(), file.begin(), file.end());
    if (!zip64Extra.empty()) {
      put16(central, 0x0001);
      put16(central, static_cast<uint16_t>(zip64Extra.size()));
      central.insert(central.end(), zip64Extra.begin(), zip64Extra.end());
    }

    NNC_RUNTIME_RETURN_IF_ERROR(sink.write(local.data(), local.size()));
    NNC_RUNTIME_RETURN_IF_ERROR(sink.write(npyHeader.data(), npyHeader.size()));
    NNC_RUNTIME_RETURN_IF_ERROR(
        sink.write(entry.tensor.data(), entry.tensor.sizeInBytes()));
    offset += local.size() + size;
  }

  uint64_t cdOffset = offset, cdSize = central.size(), count = entries.size();
  bool zip64End =
      options.forceZip64 || count >= k16 || cdOffset >= k32 || cdSize >= k32;
  std::vector<uint8_t> &tail = central;
  if (zip64End) {
    uint64_t zip64Offset = cdOffset + cdSize;
    put32(tail, kZip64EndSig);
    put64(tail, kZip64EndLen - 12);
    put16(tail, (3 << 8) | 45);
    put16(tail, 45);
    put32(tail, 0);
    put32(tail, 0);
    put64(tail, count);
    put64(tail, count);
    put64(tail, cdSize);
    put64(tail, cdOffset);
    put32(tail, kZip64LocatorSig);
    put32(tail, 0);
    put64(tail, zip64Offset);
    put32(tail, 1);
  }
  put32(tail, kEndSig);
  put16(tail, 0);
  put16(tail, 0);
  put16(tail, zip64End ? k16 : static_cast<uint16_t>(count));
  put16(tail, zip64End ? k16 : static_cast<uint16_t>(count));
  put32(tail, zip64End ? k32 : static_cast<uint32_t>(cdSize));
  put32(tail, zip64End ? k32 : static_cast<uint32_t>(cdOffset));
  put16(tail, 0);
  return sink.write(tail.data(), tail.size());
}

//===----------------------------------------------------------------------===//
// CSV
//===----------------------------------------------------------------------===//

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

bool parseFloat(std::string_view field, float &out) {
  if (!field.empty() && field.front() == '+')
    field.remove_prefix(1);
  if (field.empty())
    return false;
  // Through double, so that values below the f32 range become 0 or
  // subnormal as a cast would make them, while values above it fail.
  double value = 0;
  auto [ptr, ec] =
      std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || ptr != field.data() + field.size())
    return false;
  if (std::isfinite(value) &&
      std::fabs(value) > std::numeric_limits<float>::max())
    return false;
  out = static_cast<float>(value);
  return true;
}

void splitFields(std::string_view line, char delimiter,
                 std::vector<std::string_view> &fields) {
  fields.clear();
  size_t start = 0;
  while (true) {
    size_t next = line.find(delimiter, start);
    if (next == std::string_view::npos) {
      fields.push_back(trim(line.substr(start)));
      return;
    }
    fields.push_back(trim(line.substr(start, next - start)));
    start = next + 1;
  }
}

} // namespace

uint32_t crc32(const void *bytes, size_t size, uint32_t crc) {
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  const auto *p = static_cast<const uint8_t *>(bytes);
  crc = ~crc;
  for (size_t i = 0; i < size; ++i)
    crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

Status readNpy(const std::string &path, HostTensor &out) {
  FileSource source;
  NNC_RUNTIME_RETURN_IF_ERROR(source.open(path));
  return readNpyImage(source, 0, source.size(), path, out, nullptr);
}

Status parseNpy(const void *bytes, size_t size, const std::string &name,
                HostTensor &out) {
  MemorySource source(bytes, size, name);
  return readNpyImage(source, 0, size, name, out, nullptr);
}

Status writeNpy(const std::string &path, const HostTensor &tensor) {
  FileSink sink;
  NNC_RUNTIME_RETURN_IF_ERROR(sink.open(path));
  NNC_RUNTIME_RETURN_IF_ERROR(writeNpyTo(tensor, sink));
  return sink.commit();
}

Status serializeNpy(const HostTensor &tensor, std::vector<uint8_t> &out) {
  VectorSink sink(out);
  return writeNpyTo(tensor, sink);
}

Status readNpz(const std::string &path, std::vector<NpzEntry> &out) {
  FileSource source;
  NNC_RUNTIME_RETURN_IF_ERROR(source.open(path));
  return readNpzFrom(source, path, out);
}

Status parseNpz(const void *bytes, size_t size, const std::string &name,
                std::vector<NpzEntry> &out) {
  MemorySource source(bytes, size, name);
  return readNpzFrom(source, name, out);
}

Status writeNpz(const std::string &path, const std::vector<NpzEntry> &entries,
                const NpzWriteOptions &options) {
  FileSink sink;
  NNC_RUNTIME_RETURN_IF_ERROR(sink.open(path));
  NNC_RUNTIME_RETURN_IF_ERROR(writeNpzTo(entries, sink, options, path));
  return sink.commit();
}

Status serializeNpz(const std::vector<NpzEntry> &entries,
                    std::vector<uint8_t> &out, const NpzWriteOptions &options) {
  VectorSink sink(out);
  return writeNpzTo(entries, sink, options, "<memory>");
}

Status parseCsv(const std::string &text, const std::string &name,
                const CsvOptions &options, HostTensor &out,
                std::vector<std::string> *headerNames) {
  if (headerNames)
    headerNames->clear();
  std::vector<float> values;
  std::vector<std::string_view> fields;
  size_t columns = 0, rows = 0, lineNo = 0, pos = 0;
  bool first = true;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos)
      eol = text.size();
    std::string_view line(text.data() + pos, eol - pos);
    pos = eol + 1;
    ++lineNo;
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (trim(line).empty())
      continue;
    auto where = [&](size_t column) {
      return name + ":" + std::to_string(lineNo) + ": column " +
             std::to_string(column + 1);
    };
    if (line.find('"') != std::string_view::npos)
      return Status(StatusCode::InvalidArgument,
                    name + ":" + std::to_string(lineNo) +
                        ": quoted fields are not supported");
    splitFields(line, options.delimiter, fields);
    if (first) {
      first = false;
      columns = fields.size();
      bool header = options.header == CsvOptions::Header::Present;
      if (options.header == CsvOptions::Header::Auto) {
        float ignored;
        for (std::string_view f : fields)
          header |= !parseFloat(f, ignored);
      }
      if (header) {
        if (headerNames)
          for (std::string_view f : fields)
            headerNames->emplace_back(f);
        continue;
      }
    }
    if (fields.size() != columns)
      return Status(StatusCode::InvalidArgument,
                    name + ":" + std::to_string(lineNo) + ": has " +
                        std::to_string(fields.size()) + " fields, expected " +
                        std::to_string(columns));
    for (size_t c = 0; c < fields.size(); ++c) {
      float v;
      if (fields[c].empty())
        return Status(StatusCode::InvalidArgument, where(c) + ": empty field");
      if (!parseFloat(fields[c], v))
        return Status(StatusCode::InvalidArgument,
                      where(c) + ": " + quoted(fields[c]) +
                          " is not a number (or is out of f32 range)");
      values.push_back(v);
    }
    ++rows;
  }
  HostTensor tensor;
  NNC_RUNTIME_RETURN_IF_ERROR(HostTensor::create(
      DType::F32,
      {static_cast<int64_t>(rows), static_cast<int64_t>(rows ? columns : 0)},
      tensor));
  if (!values.empty())
    std::memcpy(tensor.data(), values.data(), values.size() * sizeof(float));
  out = std::move(tensor);
  return Status::ok();
}

Status readCsv(const std::string &path, const CsvOptions &options,
               HostTensor &out, std::vector<std::string> *headerNames) {
  FileSource source;
  NNC_RUNTIME_RETURN_IF_ERROR(source.open(path));
  if (source.size() > std::numeric_limits<size_t>::max() / 2)
    return fail(StatusCode::OutOfRange, path, "file is too large");
  std::string text(static_cast<size_t>(source.size()), '\0');
  NNC_RUNTIME_RETURN_IF_ERROR(source.read(0, text.size(), text.data()));
  return parseCsv(text, path, options, out, headerNames);
}

} // namespace nnc::runtime

std::string nnc::runtime::quoted(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "'";
}
