//===- DTypesTest.cpp - every row of DTypes.def through the runtime -------===//
//
// Walks the element-type table itself (not a copy of it) and checks that
// each row reaches every table-driven place of the runtime: the enum, sizes,
// names, classes, the plan's dtype check and .npy/.npz files, f16 and bf16
// included.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/HostTensor.h"
#include "nnc/runtime/NpyIO.h"

#include <gtest/gtest.h>

#include "TestUtils.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

using namespace nnc::runtime;
using nnc::runtime::test::expectSame;

namespace {

/// One row of DTypes.def as data.
struct Row {
  DType dtype;
  const char *cEnum;
  const char *name;
  size_t bytes;
  DTypeClass cls;
  const char *npyDescr;
  bool graph;
};

const std::vector<Row> &rows() {
  static const std::vector<Row> table = {
#define NNC_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr)                   \
  {DType::Enum, #CEnum, Name, Bytes, DTypeClass::Class, NpyDescr, true},
#define NNC_HOST_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr)              \
  {DType::Enum, #CEnum, Name, Bytes, DTypeClass::Class, NpyDescr, false},
#include "nnc/runtime/DTypes.def"
  };
  return table;
}

/// A tensor of `row`'s type whose bytes differ element to element (0/1 for
/// bool, which readers check).
HostTensor patterned(const Row &row, std::vector<int64_t> shape) {
  HostTensor t;
  EXPECT_TRUE(HostTensor::create(row.dtype, std::move(shape), t).isOk());
  auto *p = t.dataAs<uint8_t>();
  for (size_t i = 0; i < t.sizeInBytes(); ++i)
    p[i] = row.cls == DTypeClass::Bool ? i % 3 == 0
                                       : static_cast<uint8_t>(i * 29 + 11);
  return t;
}

std::string tempPath(const std::string &leaf) {
  const char *dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/nnc-dtypes-" +
         std::to_string(::getpid()) + "-" + leaf;
}

TEST(DTypes, RowsAreTheEnumInOrder) {
  ASSERT_EQ(rows().size(), kNumDTypes);
  for (size_t i = 0; i < rows().size(); ++i)
    EXPECT_EQ(static_cast<size_t>(rows()[i].dtype), i) << rows()[i].name;
}

TEST(DTypes, SizesNamesAndClassesComeFromTheTable) {
  std::set<std::string> names, descrs;
  for (const Row &row : rows()) {
    SCOPED_TRACE(row.name);
    EXPECT_EQ(dtypeSize(row.dtype), row.bytes);
    EXPECT_STREQ(dtypeName(row.dtype), row.name);
    EXPECT_EQ(dtypeClass(row.dtype), row.cls);
    EXPECT_EQ(isGraphDType(row.dtype), row.graph);
    EXPECT_TRUE(names.insert(row.name).second) << "name used twice";
    EXPECT_TRUE(descrs.insert(row.npyDescr).second) << "descr used twice";
    // The C enumerator is the runtime's with the C API's spelling.
    std::string cName = std::string("NNC_DTYPE_") + row.name;
    for (char &c : cName)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(cName, row.cEnum);
  }
}

TEST(DTypes, HalfPrecisionRowsAreFirstClass) {
  EXPECT_EQ(dtypeSize(DType::F16), 2u);
  EXPECT_EQ(dtypeSize(DType::BF16), 2u);
  EXPECT_STREQ(dtypeName(DType::F16), "f16");
  EXPECT_STREQ(dtypeName(DType::BF16), "bf16");
  EXPECT_EQ(dtypeClass(DType::F16), DTypeClass::IEEEFloat);
  EXPECT_EQ(dtypeClass(DType::BF16), DTypeClass::BFloat);
  EXPECT_TRUE(isGraphDType(DType::F16));
  EXPECT_TRUE(isGraphDType(DType::BF16));
  EXPECT_FALSE(isGraphDType(DType::U8));
}

TEST(DTypes, EveryRowRoundTripsThroughANpyFile) {
  for (const Row &row : rows()) {
    SCOPED_TRACE(row.name);
    HostTensor t = patterned(row, {3, 5});
    std::string path = tempPath(std::string(row.name) + ".npy");
    Status s = writeNpy(path, t);
    ASSERT_TRUE(s.isOk()) << s.toString();

    // The header carries the row's descr.
    std::FILE *f = std::fopen(path.c_str(), "rb");
    ASSERT_NE(f, nullptr);
    char header[128] = {};
    size_t n = std::fread(header, 1, sizeof(header) - 1, f);
    std::fclose(f);
    std::string text(header, n);
    EXPECT_NE(text.find(std::string("'descr': '") + row.npyDescr + "'"),
              std::string::npos)
        << text;

    HostTensor back;
    s = readNpy(path, back);
    std::remove(path.c_str());
    ASSERT_TRUE(s.isOk()) << s.toString();
    expectSame(t, back);
  }
}

TEST(DTypes, EveryRowRoundTripsThroughOneNpz) {
  std::vector<NpzEntry> entries;
  for (const Row &row : rows())
    entries.push_back({row.name, patterned(row, {2, 7})});
  std::string path = tempPath("all.npz");
  Status s = writeNpz(path, entries);
  ASSERT_TRUE(s.isOk()) << s.toString();
  std::vector<NpzEntry> back;
  s = readNpz(path, back);
  std::remove(path.c_str());
  ASSERT_TRUE(s.isOk()) << s.toString();
  ASSERT_EQ(back.size(), entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    SCOPED_TRACE(entries[i].name);
    EXPECT_EQ(back[i].name, entries[i].name);
    expectSame(entries[i].tensor, back[i].tensor);
  }
}

/// A v1.0 .npy image of `dict`, padded as numpy pads it, then `dataBytes`
/// zero bytes.
std::vector<uint8_t> npyImage(const std::string &dict, size_t dataBytes) {
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  size_t len = dict.size() + 1;
  size_t pad = 64 - (10 + len) % 64;
  out.push_back(static_cast<uint8_t>((len + pad) & 0xff));
  out.push_back(static_cast<uint8_t>((len + pad) >> 8));
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), pad, ' ');
  out.push_back('\n');
  out.resize(out.size() + dataBytes);
  return out;
}

std::string dictOf(const std::string &descr) {
  return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (2,), }";
}

TEST(DTypes, OneByteRowsReadEitherByteOrderMark) {
  for (const Row &row : rows()) {
    if (row.bytes != 1)
      continue;
    SCOPED_TRACE(row.name);
    ASSERT_EQ(row.npyDescr[0], '|');
    std::string littleEndian = std::string("<") + (row.npyDescr + 1);
    std::vector<uint8_t> image = npyImage(dictOf(littleEndian), 2);
    HostTensor t;
    Status s = parseNpy(image.data(), image.size(), "x.npy", t);
    ASSERT_TRUE(s.isOk()) << s.toString();
    EXPECT_EQ(t.dtype(), row.dtype);
  }
}

TEST(DTypes, UnsupportedDescrListsEveryRow) {
  // The error lists the table's descrs, so a new row cannot be missing.
  std::vector<uint8_t> image = npyImage(dictOf("<c8"), 16);
  HostTensor t;
  Status s = parseNpy(image.data(), image.size(), "x.npy", t);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("unsupported dtype '<c8'"), std::string::npos)
      << s.message();
  for (const Row &row : rows())
    EXPECT_NE(s.message().find(row.npyDescr), std::string::npos)
        << row.name << ": " << s.message();
}

} // namespace

// The trainer rounds parameters into their low-precision copies on the
// host; the compiled casts round the same way: to nearest, ties to even,
// subnormals kept.
TEST(DTypes, RoundsToBFloat16AsCompiledCasts) {
  EXPECT_EQ(roundToBFloat16(1.0f), 0x3F80);
  EXPECT_EQ(roundToBFloat16(1.0f + 0x1p-8f), 0x3F80);     // tie: even
  EXPECT_EQ(roundToBFloat16(1.0f + 3 * 0x1p-8f), 0x3F82); // tie: even, up
  EXPECT_EQ(roundToBFloat16(1.0f + 0x1p-8f + 0x1p-20f), 0x3F81);
  EXPECT_EQ(roundToBFloat16(-2.5f), 0xC020);
  EXPECT_EQ(roundToBFloat16(-0.0f), 0x8000);
  EXPECT_EQ(roundToBFloat16(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(roundToBFloat16(-std::numeric_limits<float>::infinity()), 0xFF80);
  EXPECT_EQ(roundToBFloat16(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(roundToBFloat16(0x1p-133f), 0x0001); // a bf16 subnormal
  EXPECT_EQ(roundToBFloat16(std::numeric_limits<float>::quiet_NaN()), 0x7FC0);
}

TEST(DTypes, RoundsToHalfAsCompiledCasts) {
  EXPECT_EQ(roundToHalf(1.0f), 0x3C00);
  EXPECT_EQ(roundToHalf(1.0f + 0x1p-11f), 0x3C00);     // tie: even
  EXPECT_EQ(roundToHalf(1.0f + 3 * 0x1p-11f), 0x3C02); // tie: even, up
  EXPECT_EQ(roundToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(roundToHalf(65519.0f), 0x7BFF);
  EXPECT_EQ(roundToHalf(65520.0f), 0x7C00); // the tie rounds to infinity
  EXPECT_EQ(roundToHalf(-1e9f), 0xFC00);
  EXPECT_EQ(roundToHalf(0x1p-14f), 0x0400);
  EXPECT_EQ(roundToHalf(0x1.fffffep-15f), 0x0400); // carries into normal
  EXPECT_EQ(roundToHalf(0x1p-24f), 0x0001);
  EXPECT_EQ(roundToHalf(0x1p-25f), 0x0000); // tie: even
  EXPECT_EQ(roundToHalf(0x1.8p-25f), 0x0001);
  EXPECT_EQ(roundToHalf(-0x1p-26f), 0x8000);
  EXPECT_EQ(roundToHalf(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(roundToHalf(std::numeric_limits<float>::quiet_NaN()) & 0x7E00,
            0x7E00);
#if defined(__FLT16_MAX__)
  // Against the compiler's own conversion over every exponent.
  uint32_t state = 12345;
  for (int i = 0; i < 200000; ++i) {
    state = state * 1664525u + 1013904223u;
    uint32_t bits = state;
    if ((bits & 0x7F800000u) == 0x7F800000u && (bits & 0x7FFFFFu))
      continue; // NaN payloads may differ
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    _Float16 half = static_cast<_Float16>(value);
    uint16_t expected;
    std::memcpy(&expected, &half, sizeof(expected));
    ASSERT_EQ(roundToHalf(value), expected) << std::hexfloat << value;
  }
#endif
}

TEST(DTypes, RoundsTensorsToLowPrecision) {
  HostTensor source, out;
  ASSERT_TRUE(HostTensor::create(DType::F32, {2, 2}, source).isOk());
  float values[] = {1.0f, -2.5f, 65520.0f, 0x1p-24f};
  std::memcpy(source.data(), values, sizeof(values));
  ASSERT_TRUE(HostTensor::rounded(source, DType::F16, out).isOk());
  EXPECT_EQ(out.dtype(), DType::F16);
  EXPECT_EQ(out.shape(), source.shape());
  const uint16_t *half = out.dataAs<uint16_t>();
  EXPECT_EQ(half[0], 0x3C00);
  EXPECT_EQ(half[1], 0xC100);
  EXPECT_EQ(half[2], 0x7C00);
  EXPECT_EQ(half[3], 0x0001);
  ASSERT_TRUE(HostTensor::rounded(source, DType::BF16, out).isOk());
  EXPECT_EQ(out.dtype(), DType::BF16);
  EXPECT_EQ(out.dataAs<uint16_t>()[1], 0xC020);
  Status wrong = HostTensor::rounded(source, DType::F64, out);
  EXPECT_FALSE(wrong.isOk());
  EXPECT_NE(wrong.message().find("f32 to f16 or bf16"), std::string::npos);
}
