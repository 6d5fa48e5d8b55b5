//===- ExecutableTest.cpp - the compiled-model container ------------------===//
//
// SHA-256 against the NIST vectors, round trips through bytes and files, one
// case per verification error, and exhaustive corruption: every byte flipped
// and every truncation must fail with a status, never crash.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/Executable.h"

#include <gtest/gtest.h>

#include "TestUtils.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <limits>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace nnc::runtime;
using nnc::runtime::test::TempDir;

namespace {

/// Passes when `haystack` contains `needle` (without pulling in gmock).
::testing::AssertionResult hasSubstr(const char *, const char *,
                                     const std::string &haystack,
                                     const std::string &needle) {
  if (haystack.find(needle) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "\"" << haystack << "\" does not contain \"" << needle << "\"";
}
#define EXPECT_HAS(haystack, needle)                                           \
  EXPECT_PRED_FORMAT2(hasSubstr, haystack, needle)

//===----------------------------------------------------------------------===//
// SHA-256
//===----------------------------------------------------------------------===//

std::string sha256Hex(const std::string &s) {
  return toHex(Sha256::hash(s.data(), s.size()));
}

TEST(Sha256, NistVectors) {
  EXPECT_EQ(sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(
      sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, MillionA) {
  Sha256 sha;
  std::string chunk(1000, 'a');
  for (int i = 0; i < 1000; ++i)
    sha.update(chunk.data(), chunk.size());
  EXPECT_EQ(toHex(sha.finish()),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, IncrementalMatchesOneShot) {
  // Lengths around the 55/56/64-byte padding boundaries, split everywhere.
  for (size_t length : {55, 56, 63, 64, 65, 119, 120, 200}) {
    std::string s(length, '\0');
    for (size_t i = 0; i < length; ++i)
      s[i] = char(i * 31 + 7);
    Sha256Digest expected = Sha256::hash(s.data(), s.size());
    for (size_t split = 0; split <= length; ++split) {
      Sha256 sha;
      sha.update(s.data(), split);
      sha.update(s.data() + split, length - split);
      EXPECT_EQ(sha.finish(), expected) << length << " split at " << split;
    }
  }
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

const std::vector<uint8_t> kPlan = {'p', 'l', 'a', 'n', ':', '1'};
const std::vector<uint8_t> kCode = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
const std::vector<uint8_t> kSymbols = {'k', '0', 0, 'k', '1', 0};
const std::vector<uint8_t> kNotes = {'h', 'i'};

std::vector<uint8_t> weightBytes() {
  std::vector<uint8_t> w(40);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = uint8_t(i * 7 + 1);
  return w;
}

/// A small executable holding one section of each kind (a few hundred
/// bytes). Section order: plan, kernels, weights, symbols, notes.
std::vector<uint8_t> smallExecutable() {
  ExecutableWriter writer("x86_64-unknown-linux-gnu");
  EXPECT_TRUE(writer.addSection(SectionKind::Metadata, "plan", kPlan).isOk());
  EXPECT_TRUE(writer.addSection(SectionKind::Code, "kernels", kCode).isOk());
  EXPECT_TRUE(
      writer.addSection(SectionKind::Weights, "weights", weightBytes()).isOk());
  EXPECT_TRUE(
      writer.addSection(SectionKind::SymbolTable, "symbols", kSymbols).isOk());
  EXPECT_TRUE(writer.addSection(SectionKind::Other, "notes", kNotes).isOk());
  std::vector<uint8_t> bytes;
  EXPECT_TRUE(writer.serialize(bytes).isOk());
  return bytes;
}

uint32_t getU32(const std::vector<uint8_t> &b, size_t at) {
  return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 |
         uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}

uint64_t getU64(const std::vector<uint8_t> &b, size_t at) {
  return uint64_t(getU32(b, at)) | uint64_t(getU32(b, at + 4)) << 32;
}

void setU32(std::vector<uint8_t> &b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    b[at + i] = uint8_t(v >> (8 * i));
}

void setU64(std::vector<uint8_t> &b, size_t at, uint64_t v) {
  setU32(b, at, uint32_t(v));
  setU32(b, at + 4, uint32_t(v >> 32));
}

/// Byte offset of section-table entry `i` in `b`.
size_t entryAt(const std::vector<uint8_t> &b, size_t i) {
  return size_t(getU64(b, 32)) + i * exe::kSectionEntrySize;
}

Status load(const std::vector<uint8_t> &b) {
  ExecutableReader reader;
  return ExecutableReader::fromBytes(b.data(), b.size(), reader, "model.nncx");
}

//===----------------------------------------------------------------------===//
// Round trips
//===----------------------------------------------------------------------===//

void expectSmallExecutable(const ExecutableReader &r) {
  EXPECT_EQ(r.formatVersion(), exe::kFormatVersion);
  EXPECT_EQ(r.target(), "x86_64-unknown-linux-gnu");
  ASSERT_EQ(r.sections().size(), 5u);
  const SectionKind kinds[] = {SectionKind::Metadata, SectionKind::Code,
                               SectionKind::Weights, SectionKind::SymbolTable,
                               SectionKind::Other};
  const char *names[] = {"plan", "kernels", "weights", "symbols", "notes"};
  const std::vector<uint8_t> contents[] = {kPlan, kCode, weightBytes(),
                                           kSymbols, kNotes};
  for (size_t i = 0; i < 5; ++i) {
    const SectionRef &s = r.sections()[i];
    EXPECT_EQ(s.kind, kinds[i]);
    EXPECT_EQ(s.name, names[i]);
    EXPECT_EQ(std::vector<uint8_t>(s.data, s.data + s.size), contents[i]);
    EXPECT_EQ(s.offset % s.alignment, 0u);
    EXPECT_EQ(r.findSection(names[i]), &s);
    EXPECT_EQ(r.findSection(kinds[i]), &s);
  }
  const SectionRef *weights = r.findSection(SectionKind::Weights);
  EXPECT_EQ(weights->alignment, exe::kWeightsAlignment);
  EXPECT_EQ(weights->offset % 64, 0u);
  // Weights are usable in place: aligned in memory, not only in the file.
  EXPECT_EQ(reinterpret_cast<uintptr_t>(weights->data) % 64, 0u);
  EXPECT_EQ(r.findSection("missing"), nullptr);
}

TEST(Executable, RoundTripBytes) {
  std::vector<uint8_t> bytes = smallExecutable();
  EXPECT_LT(bytes.size(), 800u);
  ExecutableReader r;
  Status s = ExecutableReader::fromBytes(bytes.data(), bytes.size(), r);
  ASSERT_TRUE(s.isOk()) << s.toString();
  expectSmallExecutable(r);
  EXPECT_EQ(r.size(), bytes.size());
  EXPECT_EQ(toHex(r.contentHash()).size(), 64u);

  // A move keeps every view valid.
  ExecutableReader moved(std::move(r));
  EXPECT_FALSE(r.isLoaded());
  expectSmallExecutable(moved);
}

TEST(Executable, SerializeIsDeterministic) {
  EXPECT_EQ(smallExecutable(), smallExecutable());
}

TEST(Executable, NoSectionsAndEmptySections) {
  ExecutableWriter empty("cpu");
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(empty.serialize(bytes).isOk());
  ExecutableReader r;
  ASSERT_TRUE(
      ExecutableReader::fromBytes(bytes.data(), bytes.size(), r).isOk());
  EXPECT_TRUE(r.sections().empty());

  ExecutableWriter writer("cuda-sm_90");
  ASSERT_TRUE(writer.addSection(SectionKind::Weights, "w", nullptr, 0).isOk());
  ASSERT_TRUE(writer.addSection(SectionKind::Code, "c", nullptr, 0).isOk());
  ASSERT_TRUE(writer.serialize(bytes).isOk());
  Status s = ExecutableReader::fromBytes(bytes.data(), bytes.size(), r);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(r.target(), "cuda-sm_90");
  ASSERT_EQ(r.sections().size(), 2u);
  EXPECT_EQ(r.sections()[0].size, 0u);
}

TEST(Executable, LargeAlignment) {
  ExecutableWriter writer("cpu");
  std::vector<uint8_t> page(100, 0xab);
  ASSERT_TRUE(
      writer.addSection(SectionKind::Weights, "paged", page, 4096).isOk());
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(writer.serialize(bytes).isOk());
  ExecutableReader r;
  ASSERT_TRUE(
      ExecutableReader::fromBytes(bytes.data(), bytes.size(), r).isOk());
  EXPECT_EQ(r.sections()[0].offset, 4096u);
  EXPECT_EQ(r.sections()[0].alignment, 4096u);
}

TEST(Executable, WriterRejectsBadInput) {
  ExecutableWriter w("cpu");
  uint8_t byte = 0;
  EXPECT_HAS(w.addSection(SectionKind::Code, "", &byte, 1).message(),
             "must be 1 to 32 characters");
  EXPECT_HAS(
      w.addSection(SectionKind::Code, std::string(33, 'a'), &byte, 1).message(),
      "must be 1 to 32 characters");
  EXPECT_HAS(w.addSection(SectionKind::Code, "a b", &byte, 1).message(),
             "not printable ASCII or is a space");
  EXPECT_HAS(w.addSection(SectionKind(9), "x", &byte, 1).message(),
             "unknown section kind 9");
  EXPECT_HAS(w.addSection(SectionKind::Code, "x", &byte, 1, 3).message(),
             "alignment 3 is not a power of two");
  EXPECT_HAS(w.addSection(SectionKind::Code, "x", &byte, 1, 1 << 17).message(),
             "is not a power of two up to 65536");
  EXPECT_HAS(w.addSection(SectionKind::Code, "x", nullptr, 1).message(),
             "null data");
  ASSERT_TRUE(w.addSection(SectionKind::Code, "x", &byte, 1).isOk());
  EXPECT_HAS(w.addSection(SectionKind::Other, "x", &byte, 1).message(),
             "duplicate section name \"x\"");

  std::vector<uint8_t> bytes;
  EXPECT_HAS(ExecutableWriter("").serialize(bytes).message(),
             "must be 1 to 256 characters");
  EXPECT_HAS(ExecutableWriter(std::string(257, 't')).serialize(bytes).message(),
             "must be 1 to 256 characters");
  EXPECT_HAS(ExecutableWriter("cpu\n").serialize(bytes).message(),
             "not printable ASCII");
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

std::vector<uint8_t> readWholeFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

ExecutableWriter smallWriter(const std::string &target) {
  ExecutableWriter writer(target);
  EXPECT_TRUE(writer.addSection(SectionKind::Metadata, "plan", kPlan).isOk());
  EXPECT_TRUE(
      writer.addSection(SectionKind::Weights, "weights", weightBytes()).isOk());
  return writer;
}

TEST(Executable, AtomicWriteAndOpen) {
  TempDir dir("nnc-exe-");
  ASSERT_FALSE(dir.path().empty());
  std::string path = dir.path() + "/model.nncx";
  ASSERT_TRUE(smallWriter("cpu-a").writeFile(path).isOk());
  // Only the final file is left: no temporary beside it.
  EXPECT_EQ(dir.list(), std::vector<std::string>{"model.nncx"});
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);

  std::vector<uint8_t> expected;
  ASSERT_TRUE(smallWriter("cpu-a").serialize(expected).isOk());
  EXPECT_EQ(readWholeFile(path), expected);

  for (auto mode :
       {ExecutableReader::LoadMode::Map, ExecutableReader::LoadMode::Read}) {
    ExecutableReader r;
    Status s = ExecutableReader::openFile(path, r, mode);
    ASSERT_TRUE(s.isOk()) << s.toString();
    EXPECT_EQ(r.target(), "cpu-a");
    const SectionRef *w = r.findSection("weights");
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(std::vector<uint8_t>(w->data, w->data + w->size), weightBytes());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(w->data) % 64, 0u);
  }

  // Writing again replaces the file whole.
  ASSERT_TRUE(smallWriter("cpu-b").writeFile(path).isOk());
  ExecutableReader r;
  ASSERT_TRUE(ExecutableReader::openFile(path, r).isOk());
  EXPECT_EQ(r.target(), "cpu-b");
  EXPECT_EQ(dir.list(), std::vector<std::string>{"model.nncx"});
}

TEST(Executable, AtomicWriteFailureLeavesNoTemporary) {
  TempDir dir("nnc-exe-");
  ASSERT_FALSE(dir.path().empty());
  // The rename fails: a folder is in the way. The temporary must go.
  std::string path = dir.path() + "/model.nncx";
  ASSERT_EQ(mkdir(path.c_str(), 0755), 0);
  Status s = smallWriter("cpu").writeFile(path);
  EXPECT_EQ(s.code(), StatusCode::Unavailable);
  EXPECT_HAS(s.message(), "cannot rename");
  EXPECT_EQ(dir.list(), std::vector<std::string>{"model.nncx"});
  rmdir(path.c_str());

  // The folder does not exist: nothing can be created.
  s = smallWriter("cpu").writeFile(dir.path() + "/no/such/dir/m.nncx");
  EXPECT_EQ(s.code(), StatusCode::Unavailable);
  EXPECT_HAS(s.message(), "cannot create a temporary file");

  // An invalid executable is never written.
  s = ExecutableWriter("").writeFile(dir.path() + "/bad.nncx");
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(dir.list().empty());
}

TEST(Executable, OpenFileErrors) {
  TempDir dir("nnc-exe-");
  ExecutableReader r;
  Status s = ExecutableReader::openFile(dir.path() + "/missing.nncx", r);
  EXPECT_EQ(s.code(), StatusCode::NotFound);
  EXPECT_HAS(s.message(), "missing.nncx");
  s = ExecutableReader::openFile(dir.path(), r);
  EXPECT_HAS(s.message(), "is not a regular file");

  // An empty file and a corrupt one name the path.
  std::string path = dir.path() + "/m.nncx";
  { std::ofstream(path, std::ios::binary); }
  for (auto mode :
       {ExecutableReader::LoadMode::Map, ExecutableReader::LoadMode::Read}) {
    s = ExecutableReader::openFile(path, r, mode);
    EXPECT_EQ(s.message(), path + ": file is empty");
  }
  std::vector<uint8_t> bytes = smallExecutable();
  bytes.back() ^= 1;
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  }
  s = ExecutableReader::openFile(path, r);
  EXPECT_EQ(s.code(), StatusCode::DataLoss);
  EXPECT_HAS(s.message(), path + ": content hash mismatch");
  EXPECT_FALSE(r.isLoaded());
}

//===----------------------------------------------------------------------===//
// Each verification error
//===----------------------------------------------------------------------===//

/// Expects `bytes` to fail to load with `code` and exactly `message` after
/// the "model.nncx: " prefix, or containing it when `exact` is false.
void expectError(const std::vector<uint8_t> &bytes, StatusCode code,
                 const std::string &message, bool exact = true) {
  Status s = load(bytes);
  EXPECT_EQ(s.code(), code) << s.toString();
  if (exact)
    EXPECT_EQ(s.message(), "model.nncx: " + message);
  else
    EXPECT_HAS(s.message(), message);
}

TEST(ExecutableVerify, Header) {
  const std::vector<uint8_t> good = smallExecutable();
  ASSERT_TRUE(load(good).isOk());
  std::vector<uint8_t> b;

  expectError({}, StatusCode::DataLoss, "file is empty");
  expectError({'N', 'N', 'C'}, StatusCode::DataLoss,
              "file is 3 bytes, shorter than the 76-byte header");
  b = good;
  b[1] = 'M';
  expectError(b, StatusCode::InvalidArgument,
              "not an nnc executable (bad magic)");
  expectError({'P', 'K', 3, 4}, StatusCode::InvalidArgument,
              "not an nnc executable (bad magic)");

  b = good;
  setU32(b, 8, 2);
  expectError(b, StatusCode::InvalidArgument,
              "format version 2: written by a newer nnc (this one reads "
              "versions up to 1)");
  setU32(b, 8, 0);
  expectError(b, StatusCode::DataLoss, "format version 0 is invalid");

  b = good;
  setU32(b, 16, 4);
  expectError(b, StatusCode::DataLoss, "unknown header flags 0x4");

  b = good;
  b.push_back(0);
  expectError(b, StatusCode::DataLoss,
              "header declares file size " + std::to_string(good.size()) +
                  " but the file is " + std::to_string(good.size() + 1) +
                  " bytes (trailing bytes)");
  b = good;
  setU64(b, 24, uint64_t(1) << 40);
  expectError(b, StatusCode::DataLoss,
              "header declares file size 1099511627776 but the file is " +
                  std::to_string(good.size()) + " bytes (truncated)");

  b = good;
  setU32(b, 72, 0);
  expectError(b, StatusCode::DataLoss, "target length 0 is outside 1..256");
  setU32(b, 72, 0xffffffff);
  expectError(b, StatusCode::DataLoss,
              "target length 4294967295 is outside 1..256");
  // "x86_64-unknown-linux-gnu" is 24 bytes: 76 + 24 = 100, padded to 104.
  b = good;
  EXPECT_EQ(getU32(b, 12), 104u);
  setU32(b, 12, 96);
  expectError(b, StatusCode::DataLoss,
              "header size 96 does not match 104 for a target of 24 bytes");
  b = good;
  b[76 + 3] = 0x07;
  expectError(b, StatusCode::DataLoss,
              "target byte 3 (0x7) is not printable ASCII");
  b = good;
  b[101] = 1;
  expectError(b, StatusCode::DataLoss,
              "header padding byte at offset 101 is not zero");
}

TEST(ExecutableVerify, SectionTable) {
  const std::vector<uint8_t> good = smallExecutable();
  const uint64_t size = good.size();
  std::vector<uint8_t> b;

  b = good;
  setU32(b, 20, 5000);
  expectError(b, StatusCode::DataLoss,
              "section count 5000 exceeds the limit of 4096");
  b = good;
  setU32(b, 20, 4000);
  expectError(b, StatusCode::DataLoss,
              "section table at offset 104 + size 256000 exceeds file size " +
                  std::to_string(size));
  b = good;
  setU64(b, 32, 8);
  expectError(b, StatusCode::DataLoss,
              "section table offset 8 is inside the header or not 8-byte "
              "aligned");
  setU64(b, 32, 108);
  expectError(b, StatusCode::DataLoss,
              "section table offset 108 is inside the header or not 8-byte "
              "aligned");
  b = good;
  setU64(b, 32, std::numeric_limits<uint64_t>::max() - 7);
  expectError(b, StatusCode::DataLoss,
              "section table at offset 18446744073709551608 + size 320 "
              "exceeds file size " +
                  std::to_string(size));
}

TEST(ExecutableVerify, Sections) {
  const std::vector<uint8_t> good = smallExecutable();
  const std::string size = std::to_string(good.size());
  const size_t e0 = entryAt(good, 0), e2 = entryAt(good, 2);
  std::vector<uint8_t> b;

  b = good;
  setU32(b, e0, 77);
  expectError(b, StatusCode::DataLoss,
              "section 0 (kind 77): unknown section kind");
  setU32(b, e0, 0);
  expectError(b, StatusCode::DataLoss,
              "section 0 (kind 0): unknown section kind");
  b = good;
  setU32(b, e2 + 28, 1);
  expectError(b, StatusCode::DataLoss,
              "section 2 (weights): reserved field is not zero");
  b = good;
  setU32(b, e2 + 24, 0);
  expectError(b, StatusCode::DataLoss,
              "section 2 (weights): name length 0 is outside 1..32");
  setU32(b, e2 + 24, 33);
  expectError(b, StatusCode::DataLoss,
              "section 2 (weights): name length 33 is outside 1..32");
  b = good;
  b[e2 + 32 + 1] = ' ';
  expectError(b, StatusCode::DataLoss,
              "section 2 (weights): name byte 1 (0x20) is not allowed");
  b = good;
  b[e2 + 32 + 20] = 'x'; // Past the name: must stay zero.
  expectError(b, StatusCode::DataLoss,
              "section 2 (weights): name byte 20 (0x78) is not allowed");

  const std::string w2 = "section 2 (weights) \"weights\": ";
  b = good;
  setU32(b, e2 + 4, 48);
  expectError(b, StatusCode::DataLoss,
              w2 + "alignment 48 is not a power of two up to 65536");
  setU32(b, e2 + 4, 0);
  expectError(b, StatusCode::DataLoss,
              w2 + "alignment 0 is not a power of two up to 65536");
  setU32(b, e2 + 4, 1u << 17);
  expectError(b, StatusCode::DataLoss,
              w2 + "alignment 131072 is not a power of two up to 65536");
  setU32(b, e2 + 4, 8);
  expectError(b, StatusCode::DataLoss,
              w2 + "alignment 8 is below the 64 bytes weights need");

  const uint64_t weightsOffset = getU64(good, e2 + 8);
  b = good;
  setU64(b, e2 + 16, 65536);
  expectError(b, StatusCode::DataLoss,
              w2 + "offset " + std::to_string(weightsOffset) +
                  " + size 65536 exceeds file size " + size);
  b = good;
  setU64(b, e2 + 8, 4096);
  expectError(b, StatusCode::DataLoss,
              w2 + "offset 4096 + size 40 exceeds file size " + size);
  // offset + size wraps around 2^64: still caught.
  b = good;
  setU64(b, e2 + 8, std::numeric_limits<uint64_t>::max() - 63);
  setU64(b, e2 + 16, 128);
  expectError(b, StatusCode::DataLoss,
              w2 + "offset 18446744073709551552 + size 128 exceeds file size " +
                  size);
  b = good;
  setU64(b, e2 + 8, weightsOffset + 8);
  setU64(b, e2 + 16, 8);
  expectError(b, StatusCode::DataLoss,
              w2 + "offset " + std::to_string(weightsOffset + 8) +
                  " is not a multiple of its alignment 64");
  // 104-byte header + 5 * 64-byte entries: the table ends at 424.
  b = good;
  setU64(b, e2 + 8, 128);
  expectError(b, StatusCode::DataLoss,
              w2 + "offset 128 lies inside the header or section table "
                   "(which end at 424)");

  // Section 1 (kernels) moved onto the weights.
  b = good;
  const size_t e1 = entryAt(good, 1);
  setU64(b, e1 + 8, weightsOffset);
  expectError(b, StatusCode::DataLoss,
              "section 2 (weights) [" + std::to_string(weightsOffset) + ", " +
                  std::to_string(weightsOffset + 40) +
                  ") overlaps section 1 (code) [" +
                  std::to_string(weightsOffset) + ", " +
                  std::to_string(weightsOffset + 8) + ")");
  // Renaming "notes" to "plan" duplicates a name.
  b = good;
  const size_t e4 = entryAt(good, 4);
  std::memset(&b[e4 + 32], 0, 32);
  std::memcpy(&b[e4 + 32], "plan", 4);
  setU32(b, e4 + 24, 4);
  expectError(b, StatusCode::DataLoss,
              "section 4 (other) \"plan\": duplicate section name");
}

TEST(ExecutableVerify, ContentHash) {
  std::vector<uint8_t> b = smallExecutable();
  const size_t weights = size_t(getU64(b, entryAt(b, 2) + 8));
  b[weights + 5] ^= 0x10;
  expectError(b, StatusCode::DataLoss,
              "model.nncx: content hash mismatch: the header says ",
              /*exact=*/false);
  // The target is covered too, though it lies in the header.
  b = smallExecutable();
  b[76] = 'y';
  expectError(b, StatusCode::DataLoss, "content hash mismatch",
              /*exact=*/false);
}

//===----------------------------------------------------------------------===//
// Corruption: every flipped byte and every truncation fails cleanly.
//===----------------------------------------------------------------------===//

void expectCleanFailure(const std::vector<uint8_t> &b, const std::string &what,
                        int &caughtByHash) {
  Status s = load(b);
  ASSERT_FALSE(s.isOk()) << what << " loaded";
  EXPECT_TRUE(s.code() == StatusCode::DataLoss ||
              s.code() == StatusCode::InvalidArgument)
      << what << ": " << s.toString();
  EXPECT_EQ(s.message().rfind("model.nncx: ", 0), 0u) << what;
  if (s.message().find("content hash mismatch") != std::string::npos)
    ++caughtByHash;
}

TEST(ExecutableCorruption, EveryByteFlipped) {
  const std::vector<uint8_t> good = smallExecutable();
  ASSERT_TRUE(load(good).isOk());
  int caughtByHash = 0, loads = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    std::vector<uint8_t> b = good;
    b[i] ^= 0xff;
    expectCleanFailure(b, "byte " + std::to_string(i) + " ^ 0xff",
                       caughtByHash);
    b = good;
    b[i] = uint8_t(b[i] + 1);
    expectCleanFailure(b, "byte " + std::to_string(i) + " + 1", caughtByHash);
    loads += 2;
  }
  // Structural checks catch some flips before the hash is computed.
  EXPECT_GT(caughtByHash, 0);
  EXPECT_LT(caughtByHash, loads);
  std::cout << "[          ] " << good.size() << " bytes, " << loads
            << " corrupted loads, " << caughtByHash << " caught by the hash\n";
}

/// Re-stamps the content hash so a corruption reaches the structural checks
/// alone (a hostile file, not a damaged one).
void restampHash(std::vector<uint8_t> &b) {
  Sha256 sha;
  sha.update(b.data(), exe::kHashOffset);
  sha.update(b.data() + exe::kHashOffset + exe::kHashSize,
             b.size() - exe::kHashOffset - exe::kHashSize);
  Sha256Digest digest = sha.finish();
  std::memcpy(&b[exe::kHashOffset], digest.data(), digest.size());
}

TEST(ExecutableCorruption, EveryHeaderByteWithValidHash) {
  const std::vector<uint8_t> good = smallExecutable();
  const size_t tableEnd = entryAt(good, 5);
  int loaded = 0;
  for (size_t i = 0; i < tableEnd; ++i) {
    if (i >= exe::kHashOffset && i < exe::kHashOffset + exe::kHashSize)
      continue;
    for (int variant = 0; variant < 2; ++variant) {
      std::vector<uint8_t> b = good;
      b[i] = variant == 0 ? uint8_t(b[i] ^ 0xff) : uint8_t(b[i] + 1);
      restampHash(b);
      ExecutableReader r;
      Status s = ExecutableReader::fromBytes(b.data(), b.size(), r);
      if (!s.isOk()) {
        EXPECT_FALSE(s.message().empty());
        continue;
      }
      // Accepted (a changed name or target, say): everything handed out
      // must still lie inside the file.
      ++loaded;
      for (const SectionRef &sec : r.sections()) {
        EXPECT_GE(sec.data, r.data());
        EXPECT_LE(sec.offset + sec.size, r.size());
        EXPECT_EQ(sec.data, r.data() + sec.offset);
      }
    }
  }
  EXPECT_GT(loaded, 0);
}

TEST(ExecutableCorruption, EveryTruncation) {
  const std::vector<uint8_t> good = smallExecutable();
  int caughtByHash = 0;
  for (size_t length = 0; length < good.size(); ++length) {
    std::vector<uint8_t> b(good.begin(), good.begin() + length);
    expectCleanFailure(b, "truncated to " + std::to_string(length),
                       caughtByHash);
  }
  EXPECT_EQ(caughtByHash, 0); // The file size check catches them all.
}

TEST(ExecutableCorruption, TruncatedFile) {
  TempDir dir("nnc-exe-");
  std::string path = dir.path() + "/m.nncx";
  ASSERT_TRUE(smallWriter("cpu").writeFile(path).isOk());
  ASSERT_EQ(truncate(path.c_str(), 200), 0);
  ExecutableReader r;
  Status s = ExecutableReader::openFile(path, r);
  EXPECT_EQ(s.code(), StatusCode::DataLoss);
  EXPECT_HAS(s.message(), "but the file is 200 bytes (truncated)");
}

} // namespace
