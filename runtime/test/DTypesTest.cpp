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
