//===- NpyIOTest.cpp - NumPy .npy/.npz and CSV files ----------------------===//
//
// The fixtures are the bytes numpy writes, spelled out by hand so that the
// tests need no numpy.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/NpyIO.h"

#include <gtest/gtest.h>

#include "TestUtils.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>

using namespace nnc::runtime;
using nnc::runtime::test::contains;
using nnc::runtime::test::expectSame;

namespace {

using Bytes = std::vector<uint8_t>;

Bytes bytesOf(const std::string &s) { return Bytes(s.begin(), s.end()); }
void append(Bytes &out, const void *p, size_t n) {
  const auto *b = static_cast<const uint8_t *>(p);
  out.insert(out.end(), b, b + n);
}
void put16(Bytes &out, uint16_t v) { append(out, &v, 2); }
void put32(Bytes &out, uint32_t v) { append(out, &v, 4); }
void put64(Bytes &out, uint64_t v) { append(out, &v, 8); }


/// A v1.0 .npy image with `dict` padded the way numpy pads it.
Bytes npyV1(const std::string &dict, const Bytes &data) {
  Bytes out = bytesOf(std::string("\x93NUMPY\x01\x00", 8));
  size_t len = dict.size() + 1;
  size_t pad = 64 - (10 + len) % 64;
  put16(out, static_cast<uint16_t>(len + pad));
  append(out, dict.data(), dict.size());
  out.insert(out.end(), pad, ' ');
  out.push_back('\n');
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

Bytes npyWithVersion(int major, const std::string &dict, const Bytes &data) {
  Bytes out = bytesOf(std::string("\x93NUMPY", 6));
  out.push_back(static_cast<uint8_t>(major));
  out.push_back(0);
  size_t len = dict.size() + 1;
  size_t pad = 64 - (12 + len) % 64;
  put32(out, static_cast<uint32_t>(len + pad));
  append(out, dict.data(), dict.size());
  out.insert(out.end(), pad, ' ');
  out.push_back('\n');
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

template <typename T> Bytes dataOf(std::initializer_list<T> values) {
  Bytes out;
  for (T v : values)
    append(out, &v, sizeof(T));
  return out;
}

Status parse(const Bytes &b, HostTensor &out) {
  return parseNpy(b.data(), b.size(), "t.npy", out);
}

Status parseDict(const std::string &dict, const Bytes &data = {}) {
  HostTensor t;
  return parse(npyV1(dict, data), t);
}

HostTensor filled(DType dtype, std::vector<int64_t> shape, int seed) {
  HostTensor t;
  EXPECT_TRUE(HostTensor::create(dtype, std::move(shape), t).isOk());
  auto *p = t.dataAs<uint8_t>();
  for (size_t i = 0; i < t.sizeInBytes(); ++i)
    p[i] = dtype == DType::Bool ? (i + seed) % 2
                                : static_cast<uint8_t>(i * 7 + seed);
  return t;
}

std::string tempPath(const std::string &leaf) {
  const char *dir = std::getenv("TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/nnc-npyio-" +
         std::to_string(::getpid()) + "-" + leaf;
}

const DType kAllDTypes[] = {
#define NNC_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr) DType::Enum,
#include "nnc/runtime/DTypes.def"
};
const std::vector<int64_t> kShapes[] = {{},     {0},       {5},
                                        {2, 3}, {2, 0, 3}, {1, 2, 3, 4}};

//===----------------------------------------------------------------------===//
// HostTensor and CRC-32
//===----------------------------------------------------------------------===//

TEST(HostTensor, AlignedZeroedAndChecked) {
  HostTensor t;
  ASSERT_TRUE(HostTensor::create(DType::F64, {3, 5}, t).isOk());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % kHostTensorAlignment, 0u);
  EXPECT_EQ(t.numElements(), 15);
  EXPECT_EQ(t.sizeInBytes(), 120u);
  for (int i = 0; i < 15; ++i)
    EXPECT_EQ(t.dataAs<double>()[i], 0.0);
  HostTensor empty;
  ASSERT_TRUE(HostTensor::create(DType::I8, {4, 0}, empty).isOk());
  EXPECT_NE(empty.data(), nullptr);
  EXPECT_EQ(empty.sizeInBytes(), 0u);
  EXPECT_ERROR(HostTensor::create(DType::F32, {2, -1}, t), "negative");
  EXPECT_ERROR(HostTensor::create(DType::F32, {int64_t(1) << 62, 4}, t),
               "overflows");
  EXPECT_ERROR(HostTensor::create(DType::F32, {int64_t(1) << 40, 1 << 30}, t),
               "overflows");
  EXPECT_EQ(t.dtype(), DType::F64) << "a failed create leaves `out` alone";
}

TEST(Crc32, KnownValues) {
  EXPECT_EQ(crc32("123456789", 9), 0xcbf43926u);
  EXPECT_EQ(crc32("", 0), 0u);
  EXPECT_EQ(crc32("6789", 4, crc32("12345", 5)), 0xcbf43926u);
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

TEST(Npy, RoundTripEveryDTypeAndShape) {
  for (DType dtype : kAllDTypes)
    for (const auto &shape : kShapes) {
      SCOPED_TRACE(std::string(dtypeName(dtype)) + " rank " +
                   std::to_string(shape.size()));
      HostTensor t = filled(dtype, shape, 3);
      Bytes image;
      ASSERT_TRUE(serializeNpy(t, image).isOk());
      EXPECT_EQ((image.size() - t.sizeInBytes()) % 64, 0u);
      HostTensor back;
      Status s = parse(image, back);
      ASSERT_TRUE(s.isOk()) << s.toString();
      expectSame(t, back);
    }
}

TEST(Npy, RoundTripThroughAFile) {
  std::string path = tempPath("a.npy");
  HostTensor t = filled(DType::F32, {4, 3}, 1);
  ASSERT_TRUE(writeNpy(path, t).isOk());
  HostTensor back;
  ASSERT_TRUE(readNpy(path, back).isOk());
  expectSame(t, back);
  std::remove(path.c_str());
}

// np.save(f, np.arange(6, dtype='<f4').reshape(2, 3)) with numpy >= 1.24,
// which leaves 21 - len('2') spare spaces for growing the first axis.
TEST(Npy, ReadsAndWritesNumpyBytesExactly) {
  std::string expected = std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                         "{'descr': '<f4', 'fortran_order': False, 'shape': "
                         "(2, 3), }" +
                         std::string(58, ' ') + "\n";
  ASSERT_EQ(expected.size(), 128u);
  Bytes file = bytesOf(expected);
  Bytes data = dataOf<float>({0, 1, 2, 3, 4, 5});
  file.insert(file.end(), data.begin(), data.end());

  HostTensor t;
  Status s = parse(file, t);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(t.dtype(), DType::F32);
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 3}));
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(t.dataAs<float>()[i], float(i));

  Bytes written;
  ASSERT_TRUE(serializeNpy(t, written).isOk());
  EXPECT_EQ(written, file);
}

// Older numpy: no growth padding; 0-d and 1-d shapes; py2 long integers.
TEST(Npy, ReadsOtherNumpyHeaders) {
  HostTensor t;
  Bytes old = npyV1("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }",
                    dataOf<int64_t>({-1, 0, 1ll << 40}));
  ASSERT_EQ(old.size(), 128u + 24u);
  ASSERT_TRUE(parse(old, t).isOk());
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{3}));
  EXPECT_EQ(t.dataAs<int64_t>()[2], 1ll << 40);

  ASSERT_TRUE(parse(npyV1("{'descr': '<f8', 'fortran_order': False, "
                          "'shape': (), }",
                          dataOf<double>({2.5})),
                    t)
                  .isOk());
  EXPECT_EQ(t.rank(), 0);
  EXPECT_EQ(t.dataAs<double>()[0], 2.5);

  ASSERT_TRUE(parse(npyV1("{\"shape\": (2L,), \"fortran_order\": False, "
                          "\"descr\": \"|b1\"}",
                          {1, 0}),
                    t)
                  .isOk());
  EXPECT_EQ(t.dtype(), DType::Bool);

  ASSERT_TRUE(parse(npyV1("{'descr': '<f2', 'fortran_order': False, "
                          "'shape': (0, 4), }",
                          {}),
                    t)
                  .isOk());
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{0, 4}));
}

TEST(Npy, ReadsVersions2And3) {
  for (int major : {2, 3}) {
    HostTensor t;
    Bytes image = npyWithVersion(
        major, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }",
        dataOf<int32_t>({7, -8}));
    EXPECT_EQ((image.size() - 8) % 64, 0u);
    Status s = parse(image, t);
    ASSERT_TRUE(s.isOk()) << s.toString();
    EXPECT_EQ(t.dataAs<int32_t>()[1], -8);
  }
}

TEST(Npy, WritesVersion2ForHugeHeaders) {
  // 30000 dimensions of 1 need a header past 65535 bytes.
  HostTensor t;
  ASSERT_TRUE(
      HostTensor::create(DType::I8, std::vector<int64_t>(30000, 1), t).isOk());
  Bytes image;
  ASSERT_TRUE(serializeNpy(t, image).isOk());
  EXPECT_EQ(image[6], 2);
  HostTensor back;
  ASSERT_TRUE(parse(image, back).isOk());
  EXPECT_EQ(back.rank(), 30000);
}

TEST(Npy, RefusesHeadersAboveTheLimit) {
  // A version 2 header of 2 MiB (spaces after a valid dict): refused by its
  // length, before it is read or parsed.
  std::string dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
  size_t length = (2u << 20) - 12;
  Bytes image = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0};
  for (int i = 0; i < 4; ++i)
    image.push_back(static_cast<uint8_t>(length >> (8 * i)));
  image.insert(image.end(), dict.begin(), dict.end());
  image.resize(12 + length, ' ');
  image.back() = '\n';
  image.insert(image.end(), 4, 0);
  HostTensor t;
  EXPECT_ERROR(parse(image, t),
               "header of 2097140 bytes is larger than the limit 1048576");
}

TEST(Npy, FortranOrderIsTransposedToC) {
  HostTensor t;
  // np.asfortranarray(np.arange(6).reshape(2, 3)) stores columns first.
  ASSERT_TRUE(parse(npyV1("{'descr': '<i4', 'fortran_order': True, "
                          "'shape': (2, 3), }",
                          dataOf<int32_t>({0, 3, 1, 4, 2, 5})),
                    t)
                  .isOk());
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(t.dataAs<int32_t>()[i], i);

  // Rank 3: element (i, j, k) of shape (2, 3, 4) at i + 2j + 6k.
  Bytes data;
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 2; ++i) {
        int16_t v = static_cast<int16_t>(i * 12 + j * 4 + k);
        append(data, &v, 2);
      }
  ASSERT_TRUE(parse(npyV1("{'descr': '<f2', 'fortran_order': True, "
                          "'shape': (2, 3, 4), }",
                          data),
                    t)
                  .isOk());
  for (int i = 0; i < 24; ++i)
    EXPECT_EQ(t.dataAs<int16_t>()[i], i);
}

TEST(Npy, RejectsBadPreambles) {
  HostTensor t;
  Bytes good = npyV1("{'descr': '<f4', 'fortran_order': False, "
                     "'shape': (1,), }",
                     dataOf<float>({1}));
  Bytes b = good;
  b[1] = 'X';
  EXPECT_ERROR(parse(b, t), "t.npy: not a .npy file (bad magic)");
  EXPECT_ERROR(parse(Bytes(good.begin(), good.begin() + 5), t), "truncated");
  EXPECT_ERROR(parse(Bytes(good.begin(), good.begin() + 60), t),
               "truncated header");
  b = good;
  b[6] = 4;
  EXPECT_ERROR(parse(b, t), "unsupported .npy format version 4.0");
  b = good;
  b[7] = 1;
  EXPECT_ERROR(parse(b, t), "version 1.1");
  Bytes v2 = npyWithVersion(2, "{}", {});
  EXPECT_ERROR(parse(Bytes(v2.begin(), v2.begin() + 11), t), "truncated");
}

TEST(Npy, RejectsBadDicts) {
  const std::string data4(4, '\0');
  struct Case {
    const char *dict, *error;
  } cases[] = {
      {"['descr']", "header is not a dict"},
      {"{'descr': '<f4', 'fortran_order': False}", "lacks 'shape'"},
      {"{'descr': '<f4', 'shape': (1,)}", "lacks 'fortran_order'"},
      {"{'fortran_order': False, 'shape': (1,)}", "lacks 'descr'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}",
       "unexpected key 'x'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
       "'shape': (1,)}",
       "repeats key 'descr'"},
      {"{'descr': 4, 'fortran_order': False, 'shape': (1,)}",
       "'descr' is not a string"},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}",
       "structured dtypes"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}",
       "'fortran_order' is not True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [1]}",
       "'shape' is not a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 'a')}",
       "non-integer"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",
       "negative dimension -1"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1)}",
       "trailing comma"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x",
       "after the dict"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}",
       "expected ',' or '}' at offset 17"},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}",
       "expected ','"},
      {"{'descr': '<f\\x34', 'fortran_order': False, 'shape': (1,)}",
       "escapes"},
      {"{'descr': '<f4', 'fortran_order': Falsey, 'shape': (1,)}",
       "unexpected 'Falsey,"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(99999999999999999999,)}",
       "does not fit in 64 bits"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ((((((((((1,),),),),"
       "),),),),),)}",
       "nested too deeply"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,)",
       "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape' (1,)}",
       "expected ':'"},
      {"{1: 2}", "dict keys must be strings"},
      {"", "unexpected end"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.dict);
    EXPECT_ERROR(parseDict(c.dict, bytesOf(data4)), c.error);
  }
}

TEST(Npy, RejectsUnsupportedDTypesByName) {
  EXPECT_ERROR(
      parseDict("{'descr': '<u4', 'fortran_order': False, 'shape': (1,)}",
                Bytes(4)),
      "unsupported dtype '<u4'");
  EXPECT_ERROR(
      parseDict("{'descr': '<c8', 'fortran_order': False, 'shape': (1,)}",
                Bytes(8)),
      "unsupported dtype '<c8'");
  EXPECT_ERROR(
      parseDict("{'descr': '|O', 'fortran_order': False, 'shape': (1,)}",
                Bytes(8)),
      "unsupported dtype '|O'");
  EXPECT_ERROR(
      parseDict("{'descr': '>f4', 'fortran_order': False, 'shape': (1,)}",
                Bytes(4)),
      "big-endian dtype '>f4' is not supported");
}

TEST(Npy, RejectsSizeMismatchAndOverflow) {
  const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, "
                     "3), }";
  EXPECT_ERROR(parseDict(dict, Bytes(20)),
               "data is 20 bytes but shape (2, 3) of <f4 needs 24 (truncated)");
  EXPECT_ERROR(parseDict(dict, Bytes(25)), "(trailing bytes)");
  EXPECT_ERROR(parseDict("{'descr': '<f8', 'fortran_order': False, 'shape': "
                         "(4611686018427387904, 4), }"),
               "shape (4611686018427387904, 4): the element count of the "
               "shape overflows");
  EXPECT_ERROR(parseDict("{'descr': '<f8', 'fortran_order': False, 'shape': "
                         "(2305843009213693952,), }"),
               "overflows");
  // Huge but valid: nothing is allocated before the size check fails.
  EXPECT_ERROR(parseDict("{'descr': '<f8', 'fortran_order': False, 'shape': "
                         "(1000000000000,), }"),
               "needs 8000000000000");
  // A zero dimension makes any other dimension harmless.
  EXPECT_TRUE(parseDict("{'descr': '<f8', 'fortran_order': False, 'shape': "
                        "(0, 4611686018427387904), }")
                  .isOk());
}

TEST(Npy, RejectsBoolBytesOtherThanZeroAndOne) {
  EXPECT_ERROR(
      parseDict("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
                {0, 1, 2}),
      "bool element 2 is 2");
}

TEST(Npy, MissingFileNamesThePath) {
  HostTensor t;
  Status s = readNpy("/nonexistent/nnc/x.npy", t);
  EXPECT_EQ(s.code(), StatusCode::NotFound);
  EXPECT_TRUE(contains(s, "/nonexistent/nnc/x.npy"));
}

TEST(Npy, TruncatedOrFlippedNeverCrashes) {
  HostTensor t = filled(DType::I32, {3, 2}, 5);
  Bytes image;
  ASSERT_TRUE(serializeNpy(t, image).isOk());
  for (size_t n = 0; n < image.size(); ++n) {
    HostTensor out;
    EXPECT_FALSE(parse(Bytes(image.begin(), image.begin() + n), out).isOk());
  }
  for (size_t i = 0; i < image.size(); ++i) {
    Bytes b = image;
    b[i] ^= 0xff;
    HostTensor out;
    (void)parse(b, out);
  }
}

//===----------------------------------------------------------------------===//
// .npz
//===----------------------------------------------------------------------===//

/// A ZIP member as a test wants to lay it out.
struct RawMember {
  std::string name;
  Bytes data;
  uint16_t method = 0;
  bool localZip64 = false; // what numpy.savez writes (force_zip64=True)
  bool centralZip64 = false;
  int64_t crcOverride = -1;
  int64_t sizeOverride = -1;
  int64_t offsetOverride = -1;
};

Bytes makeZip(const std::vector<RawMember> &members) {
  Bytes out, central;
  for (const RawMember &m : members) {
    uint32_t crc = m.crcOverride >= 0 ? uint32_t(m.crcOverride)
                                      : crc32(m.data.data(), m.data.size());
    uint64_t size =
        m.sizeOverride >= 0 ? uint64_t(m.sizeOverride) : m.data.size();
    uint64_t offset =
        m.offsetOverride >= 0 ? uint64_t(m.offsetOverride) : out.size();
    put32(out, 0x04034b50);
    put16(out, 45);
    put16(out, 0);
    put16(out, m.method);
    put16(out, 0);
    put16(out, 0x21);
    put32(out, crc);
    put32(out, m.localZip64 ? 0xffffffff : uint32_t(size));
    put32(out, m.localZip64 ? 0xffffffff : uint32_t(size));
    put16(out, uint16_t(m.name.size()));
    put16(out, m.localZip64 ? 20 : 0);
    append(out, m.name.data(), m.name.size());
    if (m.localZip64) {
      put16(out, 1);
      put16(out, 16);
      put64(out, size);
      put64(out, size);
    }
    out.insert(out.end(), m.data.begin(), m.data.end());

    put32(central, 0x02014b50);
    put16(central, 0x031e);
    put16(central, 45);
    put16(central, 0);
    put16(central, m.method);
    put16(central, 0);
    put16(central, 0x21);
    put32(central, crc);
    put32(central, m.centralZip64 ? 0xffffffff : uint32_t(size));
    put32(central, m.centralZip64 ? 0xffffffff : uint32_t(size));
    put16(central, uint16_t(m.name.size()));
    put16(central, m.centralZip64 ? 28 : 0);
    put16(central, 0);
    put16(central, 0);
    put16(central, 0);
    put32(central, 0);
    put32(central, m.centralZip64 ? 0xffffffff : uint32_t(offset));
    append(central, m.name.data(), m.name.size());
    if (m.centralZip64) {
      put16(central, 1);
      put16(central, 24);
      put64(central, size);
      put64(central, size);
      put64(central, offset);
    }
  }
  uint32_t cdOffset = uint32_t(out.size()), cdSize = uint32_t(central.size());
  out.insert(out.end(), central.begin(), central.end());
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, uint16_t(members.size()));
  put16(out, uint16_t(members.size()));
  put32(out, cdSize);
  put32(out, cdOffset);
  put16(out, 0);
  return out;
}

Bytes npyOf(const HostTensor &t) {
  Bytes b;
  EXPECT_TRUE(serializeNpy(t, b).isOk());
  return b;
}

Status parseZip(const Bytes &b, std::vector<NpzEntry> &out) {
  return parseNpz(b.data(), b.size(), "t.npz", out);
}

TEST(Npz, RoundTripEveryDTypeAndShape) {
  std::vector<NpzEntry> entries;
  for (DType dtype : kAllDTypes)
    for (const auto &shape : kShapes)
      entries.push_back({std::string(dtypeName(dtype)) + "/" +
                             std::to_string(entries.size()) + "/../x",
                         filled(dtype, shape, int(entries.size()))});
  for (bool zip64 : {false, true}) {
    SCOPED_TRACE(zip64 ? "zip64" : "zip32");
    Bytes image;
    ASSERT_TRUE(serializeNpz(entries, image, {zip64}).isOk());
    std::vector<NpzEntry> back;
    Status s = parseZip(image, back);
    ASSERT_TRUE(s.isOk()) << s.toString();
    ASSERT_EQ(back.size(), entries.size());
    for (size_t i = 0; i < entries.size(); ++i) {
      EXPECT_EQ(back[i].name, entries[i].name);
      expectSame(back[i].tensor, entries[i].tensor);
    }
  }
}

TEST(Npz, RoundTripThroughAFile) {
  std::string path = tempPath("a.npz");
  std::vector<NpzEntry> entries;
  entries.push_back({"x", filled(DType::F32, {2, 2}, 0)});
  entries.push_back({"arr_1", filled(DType::I64, {}, 1)});
  ASSERT_TRUE(writeNpz(path, entries).isOk());
  std::vector<NpzEntry> back;
  ASSERT_TRUE(readNpz(path, back).isOk());
  ASSERT_EQ(back.size(), 2u);
  expectSame(back[1].tensor, entries[1].tensor);
  std::remove(path.c_str());
  EXPECT_EQ(readNpz(path, back).code(), StatusCode::NotFound);
}

// numpy.savez: zip64 extras in the local headers only, 0xffffffff sizes
// there; and the central-directory ZIP64 form large archives use.
TEST(Npz, ReadsNumpyLayouts) {
  HostTensor a = filled(DType::F32, {2, 3}, 1), b = filled(DType::U8, {7}, 2);
  RawMember ma{"arr_0.npy", npyOf(a)}, mb{"b.npy", npyOf(b)};
  ma.localZip64 = mb.localZip64 = true;
  std::vector<NpzEntry> back;
  Status s = parseZip(makeZip({ma, mb}), back);
  ASSERT_TRUE(s.isOk()) << s.toString();
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].name, "arr_0");
  EXPECT_EQ(back[1].name, "b");
  expectSame(back[0].tensor, a);
  ma.centralZip64 = mb.centralZip64 = true;
  s = parseZip(makeZip({ma, mb}), back);
  ASSERT_TRUE(s.isOk()) << s.toString();
  expectSame(back[1].tensor, b);
  // An archive comment is allowed.
  Bytes commented = makeZip({ma});
  commented[commented.size() - 2] = 3;
  commented.insert(commented.end(), {'h', 'i', '!'});
  EXPECT_TRUE(parseZip(commented, back).isOk());
  // An empty archive holds no arrays.
  EXPECT_TRUE(parseZip(makeZip({}), back).isOk());
  EXPECT_TRUE(back.empty());
}

TEST(Npz, RejectsBadArchives) {
  HostTensor a = filled(DType::F32, {2, 3}, 1);
  RawMember m{"a.npy", npyOf(a)};
  std::vector<NpzEntry> out;

  RawMember bad = m;
  bad.crcOverride = 0x12345678;
  Status s = parseZip(makeZip({bad}), out);
  EXPECT_EQ(s.code(), StatusCode::DataLoss);
  EXPECT_TRUE(contains(s, "t.npz: entry 'a.npy': CRC-32 mismatch"))
      << s.toString();

  Bytes zip = makeZip({m});
  EXPECT_ERROR(parseZip(Bytes(zip.begin(), zip.end() - 1), out),
               "no end of central directory record");
  EXPECT_ERROR(parseZip(Bytes(zip.begin(), zip.begin() + 10), out),
               "too short");
  EXPECT_ERROR(parseZip(npyOf(a), out), "not a valid .npz (ZIP) archive");

  RawMember deflated = m;
  deflated.method = 8;
  EXPECT_ERROR(parseZip(makeZip({deflated}), out),
               "entry 'a.npy' is compressed; compressed .npz is not "
               "supported; save with numpy.savez");
  RawMember bzip = m;
  bzip.method = 12;
  EXPECT_ERROR(parseZip(makeZip({bzip}), out), "compression method 12");

  EXPECT_ERROR(parseZip(makeZip({m, m}), out), "duplicate entry 'a.npy'");

  RawMember text = m;
  text.name = "notes.txt";
  EXPECT_ERROR(parseZip(makeZip({text}), out),
               "entry 'notes.txt' is not a .npy file");

  // The first entry claims more bytes than it has: it runs into the second.
  RawMember first = m, second = m;
  second.name = "b.npy";
  first.sizeOverride = int64_t(m.data.size()) + 10;
  EXPECT_ERROR(parseZip(makeZip({first, second}), out), "entries overlap");

  RawMember far = m;
  far.offsetOverride = 100000;
  EXPECT_ERROR(parseZip(makeZip({far}), out), "local header out of bounds");

  RawMember elsewhere = second;
  elsewhere.offsetOverride = 0; // points at a.npy's local header
  EXPECT_ERROR(parseZip(makeZip({m, elsewhere}), out),
               "has local header name 'a.npy'");

  RawMember inner = m;
  inner.data = npyOf(filled(DType::F32, {2, 2}, 0));
  inner.data.push_back(0);
  EXPECT_ERROR(parseZip(makeZip({inner}), out),
               "t.npz: entry 'a.npy': data is 17 bytes");
}

TEST(Npz, WriterRejectsBadNames) {
  std::vector<NpzEntry> entries;
  entries.push_back({"x", filled(DType::F32, {1}, 0)});
  entries.push_back({"x", filled(DType::F32, {1}, 0)});
  Bytes image;
  EXPECT_ERROR(serializeNpz(entries, image), "duplicate entry name 'x'");
  entries[1].name = "";
  EXPECT_ERROR(serializeNpz(entries, image), "an entry has no name");
}

TEST(Npz, TruncatedOrFlippedFailsCleanly) {
  std::vector<NpzEntry> entries;
  entries.push_back({"w", filled(DType::F32, {2, 3}, 1)});
  entries.push_back({"b", filled(DType::Bool, {4}, 0)});
  for (bool zip64 : {false, true}) {
    Bytes image;
    ASSERT_TRUE(serializeNpz(entries, image, {zip64}).isOk());
    for (size_t n = 0; n < image.size(); ++n) {
      std::vector<NpzEntry> out;
      Status s = parseZip(Bytes(image.begin(), image.begin() + n), out);
      EXPECT_FALSE(s.isOk()) << "truncated at " << n;
      EXPECT_TRUE(out.empty());
    }
    // Member data: from the end of each local header to the member's end.
    std::vector<std::pair<size_t, size_t>> dataSpans;
    size_t pos = 0;
    for (const NpzEntry &e : entries) {
      size_t local = 30 + e.name.size() + 4 + (zip64 ? 20 : 0);
      size_t size = npyOf(e.tensor).size();
      dataSpans.emplace_back(pos + local, pos + local + size);
      pos += local + size;
    }
    for (size_t i = 0; i < image.size(); ++i) {
      Bytes b = image;
      b[i] ^= 0xff;
      std::vector<NpzEntry> out;
      Status s = parseZip(b, out);
      bool inData = false;
      for (auto [begin, end] : dataSpans)
        inData |= i >= begin && i < end;
      if (inData) {
        EXPECT_EQ(s.code(), StatusCode::DataLoss) << "flip at " << i;
        EXPECT_TRUE(contains(s, "CRC-32 mismatch")) << s.toString();
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// CSV
//===----------------------------------------------------------------------===//

Status csv(const std::string &text, HostTensor &out,
           CsvOptions::Header header = CsvOptions::Header::Auto,
           std::vector<std::string> *names = nullptr) {
  CsvOptions options;
  options.header = header;
  return parseCsv(text, "t.csv", options, out, names);
}

TEST(Csv, ReadsTablesWithAndWithoutHeader) {
  HostTensor t;
  std::vector<std::string> names;
  ASSERT_TRUE(csv("x, y,label\r\n1,2.5,-3\n\n4e2, nan ,+6\n", t,
                  CsvOptions::Header::Auto, &names)
                  .isOk());
  EXPECT_EQ(names, (std::vector<std::string>{"x", "y", "label"}));
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.dataAs<float>()[1], 2.5f);
  EXPECT_EQ(t.dataAs<float>()[3], 400.0f);
  EXPECT_TRUE(std::isnan(t.dataAs<float>()[4]));

  ASSERT_TRUE(csv("1,2\n3,4", t, CsvOptions::Header::Auto, &names).isOk());
  EXPECT_TRUE(names.empty());
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(t.dataAs<float>()[3], 4.0f);

  ASSERT_TRUE(csv("1,2\n3,4\n", t, CsvOptions::Header::Present).isOk());
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{1, 2}));

  ASSERT_TRUE(csv("", t).isOk());
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{0, 0}));
}

TEST(Csv, ErrorsNameLineAndColumn) {
  HostTensor t;
  EXPECT_ERROR(csv("a,b\n1,2\n3\n", t), "t.csv:3: has 1 fields, expected 2");
  EXPECT_ERROR(csv("a,b\n1,2\n3,x4\n", t),
               "t.csv:3: column 2: 'x4' is not a number");
  EXPECT_ERROR(csv("1,,2\n", t, CsvOptions::Header::Absent),
               "t.csv:1: column 2: empty field");
  EXPECT_ERROR(csv("x,y\n1,2\n", t, CsvOptions::Header::Absent),
               "t.csv:1: column 1: 'x' is not a number");
  EXPECT_ERROR(csv("1,1e39\n", t, CsvOptions::Header::Absent),
               "t.csv:1: column 2: '1e39' is not a number (or is out of f32 "
               "range)");
  EXPECT_TRUE(csv("1,1e-50\n", t).isOk());
  EXPECT_ERROR(csv("\"a\",b\n", t), "quoted fields are not supported");
}

} // namespace
