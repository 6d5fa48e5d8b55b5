//===- CheckpointTest.cpp - training checkpoints --------------------------===//

#include "nnc/runtime/Checkpoint.h"

#include <gtest/gtest.h>

#include "TestUtils.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

using namespace nnc::runtime;
using nnc::runtime::test::contains;

namespace {

using Bytes = std::vector<uint8_t>;


/// A fresh folder, removed with everything in it at the end of the test.
class TempDir {
public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "nnc-ckpt-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data()) ? pattern : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string operator/(const std::string &name) const {
    return path_ + "/" + name;
  }
  std::vector<std::string> list() const {
    std::vector<std::string> names;
    for (const auto &e : std::filesystem::directory_iterator(path_))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

HostTensor filled(DType dtype, std::vector<int64_t> shape, uint8_t seed) {
  HostTensor t;
  EXPECT_TRUE(HostTensor::create(dtype, std::move(shape), t).isOk());
  auto *p = t.dataAs<uint8_t>();
  for (size_t i = 0; i < t.sizeInBytes(); ++i)
    p[i] = dtype == DType::Bool ? (i + seed) % 2
                                : static_cast<uint8_t>(seed + i * 37);
  return t;
}

void addTensor(Checkpoint &c, std::string name, HostTensor t) {
  c.tensors.push_back(NpzEntry{std::move(name), std::move(t)});
}

Checkpoint sample() {
  Checkpoint c;
  addTensor(c, "fc1.weight", filled(DType::F32, {4, 3}, 1));
  addTensor(c, "fc1.bias", filled(DType::F32, {4}, 2));
  addTensor(c, "adam.step", filled(DType::I64, {}, 3));
  addTensor(c, "emb", filled(DType::BF16, {2, 5}, 4));
  addTensor(c, "mask", filled(DType::Bool, {7}, 5));
  addTensor(c, "empty", filled(DType::F64, {0, 4}, 6));
  c.setInt("step", 1234);
  c.setInt("epoch", 3);
  c.setDouble("loss_scaler.scale", 0.1 * 3);
  c.setString("model", "sha256:abc");
  c.setString("optimizer",
              "adamw lr=0.001\nbetas=(0.9, 0.999)\\ \x01 \xc3\xa9");
  c.setString("empty", "");
  return c;
}

/// A small checkpoint, for the exhaustive corruption tests.
Checkpoint tiny() {
  Checkpoint c;
  addTensor(c, "w", filled(DType::F32, {2}, 9));
  c.setInt("step", 7);
  return c;
}

void expectSame(const Checkpoint &a, const Checkpoint &b) {
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const NpzEntry &x = a.tensors[i], &y = b.tensors[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.tensor.dtype(), y.tensor.dtype()) << x.name;
    EXPECT_EQ(x.tensor.shape(), y.tensor.shape()) << x.name;
    ASSERT_EQ(x.tensor.sizeInBytes(), y.tensor.sizeInBytes()) << x.name;
    EXPECT_EQ(0, std::memcmp(x.tensor.data(), y.tensor.data(),
                             x.tensor.sizeInBytes()))
        << x.name;
  }
  EXPECT_EQ(a.metadata, b.metadata);
}

Bytes image(const Checkpoint &c) {
  Bytes out;
  EXPECT_TRUE(serializeCheckpoint(c, out).isOk());
  return out;
}

Bytes readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

void writeBytes(const std::string &path, const Bytes &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

Status parse(const Bytes &b, Checkpoint &out) {
  return parseCheckpoint(b.data(), b.size(), "c.ckpt", out);
}

/// The entries of a checkpoint image as plain .npz entries.
std::vector<NpzEntry> npzEntries(const Bytes &b) {
  std::vector<NpzEntry> entries;
  EXPECT_TRUE(parseNpz(b.data(), b.size(), "c.npz", entries).isOk());
  return entries;
}

Bytes npzImage(const std::vector<NpzEntry> &entries) {
  Bytes out;
  EXPECT_TRUE(serializeNpz(entries, out).isOk());
  return out;
}

std::string textOf(const HostTensor &t) {
  return std::string(t.dataAs<char>(), t.sizeInBytes());
}

void setText(HostTensor &t, const std::string &text) {
  ASSERT_TRUE(
      HostTensor::create(DType::U8, {static_cast<int64_t>(text.size())}, t)
          .isOk());
  std::memcpy(t.data(), text.data(), text.size());
}

TEST(Checkpoint, RoundTripIsBitExact) {
  TempDir dir;
  Checkpoint c = sample();
  ASSERT_TRUE(writeCheckpoint(dir / "run.ckpt", c).isOk());
  Checkpoint back;
  Status s = readCheckpoint(dir / "run.ckpt", back);
  ASSERT_TRUE(s.isOk()) << s.toString();
  expectSame(c, back);
  EXPECT_EQ(back.source, dir / "run.ckpt");
  int64_t step = 0;
  double scale = 0;
  ASSERT_TRUE(back.getInt("step", step).isOk());
  ASSERT_TRUE(back.getDouble("loss_scaler.scale", scale).isOk());
  EXPECT_EQ(step, 1234);
  EXPECT_EQ(scale, 0.1 * 3);
  // Only the checkpoint is left in the folder: no temporary files.
  EXPECT_EQ(dir.list(), std::vector<std::string>{"run.ckpt"});
  // The same content always gives the same bytes.
  EXPECT_EQ(readBytes(dir / "run.ckpt"), image(c));
}

TEST(Checkpoint, EmptyCheckpointRoundTrips) {
  Checkpoint c, back;
  ASSERT_TRUE(parse(image(c), back).isOk());
  expectSame(c, back);
}

TEST(Checkpoint, IsANumpyNpzWithTheMetadataLast) {
  Checkpoint c = sample();
  std::vector<NpzEntry> entries = npzEntries(image(c));
  ASSERT_EQ(entries.size(), c.tensors.size() + 1);
  for (size_t i = 0; i < c.tensors.size(); ++i)
    EXPECT_EQ(entries[i].name, c.tensors[i].name);
  const NpzEntry &meta = entries.back();
  EXPECT_EQ(meta.name, "__nnc_checkpoint__");
  EXPECT_EQ(meta.tensor.dtype(), DType::U8);
  std::string text = textOf(meta.tensor);
  EXPECT_EQ(text.rfind("nnc-checkpoint 1\nsha256 ", 0), 0u) << text;
  EXPECT_NE(text.find("\nepoch=3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\noptimizer=adamw lr=0.001\\nbetas=(0.9, 0.999)\\\\ "
                      "\\x01 \xc3\xa9\n"),
            std::string::npos)
      << text;
}

TEST(Checkpoint, EverySingleByteFlipIsRejected) {
  Bytes good = image(tiny());
  Checkpoint out;
  ASSERT_TRUE(parse(good, out).isOk());
  size_t accepted = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    for (int mask : {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xff}) {
      Bytes bad = good;
      bad[i] = static_cast<uint8_t>(bad[i] ^ mask);
      if (parse(bad, out).isOk()) {
        ++accepted;
        ADD_FAILURE() << "flip " << int(mask) << " at byte " << i
                      << " accepted";
      }
    }
  }
  EXPECT_EQ(accepted, 0u);
}

TEST(Checkpoint, EveryTruncationAndExtensionIsRejected) {
  Bytes good = image(tiny());
  Checkpoint out;
  for (size_t n = 0; n < good.size(); ++n) {
    Bytes bad(good.begin(), good.begin() + static_cast<ptrdiff_t>(n));
    Status s = parse(bad, out);
    EXPECT_FALSE(s.isOk()) << "truncated to " << n << " bytes";
    EXPECT_TRUE(contains(s, "c.ckpt")) << s.toString();
  }
  EXPECT_ERROR(parse(Bytes(), out), "empty (truncated?)");
  EXPECT_ERROR(parse(Bytes(good.begin(), good.end() - 1), out),
               "damaged or truncated");
  Bytes longer = good;
  longer.push_back(0);
  EXPECT_FALSE(parse(longer, out).isOk());
}

TEST(Checkpoint, ChangesThatKeepEveryCrcAreCaughtByTheChecksum) {
  // Rewriting a tensor with a valid .npz writer gives correct CRC-32s; only
  // the SHA-256 notices.
  std::vector<NpzEntry> entries = npzEntries(image(sample()));
  entries[0].tensor.dataAs<uint8_t>()[0] ^= 1;
  Checkpoint out;
  EXPECT_ERROR(parse(npzImage(entries), out), "checksum mismatch");

  entries = npzEntries(image(sample()));
  std::string text = textOf(entries.back().tensor);
  size_t at = text.find("step=1234");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 9, "step=1235");
  setText(entries.back().tensor, text);
  EXPECT_ERROR(parse(npzImage(entries), out), "checksum mismatch");

  // Reordering tensors changes the file order, which is content too.
  entries = npzEntries(image(sample()));
  std::swap(entries[0], entries[1]);
  EXPECT_ERROR(parse(npzImage(entries), out), "checksum mismatch");
}

TEST(Checkpoint, RejectsWhatIsNotACheckpoint) {
  TempDir dir;
  Checkpoint out;
  // A plain .npz.
  std::vector<NpzEntry> plain;
  plain.push_back(NpzEntry{"w", filled(DType::F32, {2}, 1)});
  ASSERT_TRUE(writeNpz(dir / "plain.npz", plain).isOk());
  Status s = readCheckpoint(dir / "plain.npz", out);
  EXPECT_ERROR(s, "plain.npz: not an nnc checkpoint");
  EXPECT_ERROR(s, "no '__nnc_checkpoint__' entry");
  // Text.
  writeBytes(dir / "notes.txt", Bytes{'h', 'e', 'l', 'l', 'o'});
  EXPECT_ERROR(readCheckpoint(dir / "notes.txt", out),
               "notes.txt: not a checkpoint (not an .npz archive)");
  // Metadata of the wrong type.
  std::vector<NpzEntry> entries = npzEntries(image(tiny()));
  entries.back().tensor = filled(DType::F32, {4}, 1);
  EXPECT_ERROR(parse(npzImage(entries), out), "not a 1-D u8 array");
}

TEST(Checkpoint, RejectsOtherVersionsAndBadMetadata) {
  auto withText = [](const std::string &from, const std::string &to) {
    std::vector<NpzEntry> entries = npzEntries(image(tiny()));
    std::string text = textOf(entries.back().tensor);
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    setText(entries.back().tensor, text);
    return npzImage(entries);
  };
  Checkpoint out;
  Status s = parse(withText("nnc-checkpoint 1", "nnc-checkpoint 2"), out);
  EXPECT_EQ(s.code(), StatusCode::Unimplemented);
  EXPECT_ERROR(s, "format version 2 is newer than this nnc reads (up to 1)");
  EXPECT_ERROR(parse(withText("nnc-checkpoint 1", "nnc-checkpoint x"), out),
               "bad version line");
  EXPECT_ERROR(parse(withText("nnc-checkpoint 1", "checkpoint 1"), out),
               "does not start with 'nnc-checkpoint VERSION'");
  EXPECT_ERROR(parse(withText("sha256 ", "sha512 "), out),
               "no 'sha256 DIGEST' line");
  EXPECT_ERROR(parse(withText("step=7\n", "step=7\nstep=8\n"), out),
               "'step' is a duplicate");
  EXPECT_ERROR(parse(withText("step=7\n", "step=7\na=1\n"), out),
               "'a' is out of order");
  EXPECT_ERROR(parse(withText("step=7\n", "step=\\q\n"), out), "bad escape");
  EXPECT_ERROR(parse(withText("step=7\n", "step 7\n"), out), "has no '='");
  EXPECT_ERROR(parse(withText("step=7\n", "step=7"), out), "no newline");
}

TEST(Checkpoint, RejectsDuplicateAndReservedNames) {
  Checkpoint c;
  addTensor(c, "w", filled(DType::F32, {2}, 1));
  addTensor(c, "w", filled(DType::F32, {2}, 2));
  Bytes out;
  EXPECT_ERROR(serializeCheckpoint(c, out), "duplicate entry name 'w'");
  // A file with two members of the same name (made by renaming one).
  Checkpoint two;
  addTensor(two, "a", filled(DType::F32, {2}, 1));
  addTensor(two, "b", filled(DType::F32, {2}, 2));
  Bytes b = image(two);
  for (size_t i = 0; i + 5 <= b.size(); ++i)
    if (std::memcmp(&b[i], "b.npy", 5) == 0)
      b[i] = 'a';
  Checkpoint back;
  EXPECT_ERROR(parse(b, back), "duplicate entry 'a.npy'");

  Checkpoint reserved;
  addTensor(reserved, "__nnc_checkpoint__", filled(DType::U8, {2}, 1));
  EXPECT_ERROR(serializeCheckpoint(reserved, out), "is reserved");
  Checkpoint badKey;
  badKey.setString("a key", "v");
  EXPECT_ERROR(serializeCheckpoint(badKey, out), "metadata key 'a key'");
  badKey.metadata.clear();
  badKey.setString("", "v");
  EXPECT_ERROR(serializeCheckpoint(badKey, out), "metadata key ''");
}

TEST(Checkpoint, OverwritesAtomically) {
  TempDir dir;
  std::string path = dir / "run.ckpt";
  Checkpoint first = sample(), second = tiny(), back;
  ASSERT_TRUE(writeCheckpoint(path, first).isOk());
  ASSERT_TRUE(writeCheckpoint(path, second).isOk());
  ASSERT_TRUE(readCheckpoint(path, back).isOk());
  expectSame(second, back);
  EXPECT_EQ(dir.list(), std::vector<std::string>{"run.ckpt"});
  // A write that fails leaves the existing checkpoint as it was.
  Checkpoint bad = sample();
  bad.setString("bad key", "v");
  EXPECT_ERROR(writeCheckpoint(path, bad), "cannot write checkpoint " + path);
  ASSERT_TRUE(readCheckpoint(path, back).isOk());
  expectSame(second, back);
  EXPECT_EQ(dir.list(), std::vector<std::string>{"run.ckpt"});
}

TEST(Checkpoint, FileErrorsNameThePath) {
  TempDir dir;
  Checkpoint out;
  Status s = readCheckpoint(dir / "missing.ckpt", out);
  EXPECT_EQ(s.code(), StatusCode::NotFound);
  EXPECT_ERROR(s, "missing.ckpt: cannot open");
  EXPECT_ERROR(readCheckpoint(dir.path(), out), "is a directory");
  s = writeCheckpoint(dir / "no/such/dir/run.ckpt", tiny());
  EXPECT_ERROR(s, "cannot write checkpoint " + (dir / "no/such/dir/run.ckpt"));
  EXPECT_ERROR(s, "No such file or directory");
  // Writing onto a directory fails and leaves it alone.
  std::filesystem::create_directory(dir / "taken");
  EXPECT_FALSE(writeCheckpoint(dir / "taken", tiny()).isOk());
  EXPECT_TRUE(std::filesystem::is_directory(dir / "taken"));
  EXPECT_EQ(dir.list(), std::vector<std::string>{"taken"});
}

TEST(Checkpoint, MetadataAccessorsNameTheKey) {
  Checkpoint c = sample();
  c.source = "run.ckpt";
  int64_t i = 0;
  double d = 0;
  std::string s;
  EXPECT_ERROR(c.getInt("steps", i), "checkpoint run.ckpt: metadata has no "
                                     "key 'steps'");
  EXPECT_ERROR(c.getInt("model", i), "metadata 'model' 'sha256:abc' is not "
                                     "an integer");
  EXPECT_ERROR(c.getDouble("model", d), "is not a number");
  ASSERT_TRUE(c.getString("empty", s).isOk());
  EXPECT_EQ(s, "");
}

TEST(Checkpoint, TensorChecksNameTheMismatch) {
  Checkpoint c;
  addTensor(c, "fc1.weight", filled(DType::F32, {64, 512}, 1));
  c.source = "run.ckpt";
  const HostTensor *t = nullptr;
  EXPECT_TRUE(
      checkCheckpointTensor(c, "fc1.weight", DType::F32, {64, 512}, &t).isOk());
  EXPECT_EQ(t, &c.tensors[0].tensor);
  Status s = checkCheckpointTensor(c, "fc1.weight", DType::F32, {64, 256});
  EXPECT_EQ(s.message(), "checkpoint run.ckpt: tensor 'fc1.weight' has shape "
                         "64x512, the model expects 64x256");
  EXPECT_ERROR(checkCheckpointTensor(c, "fc1.weight", DType::F16, {64, 512}),
               "tensor 'fc1.weight' has dtype f32, the model expects f16");
  s = checkCheckpointTensor(c, "fc2.bias", DType::F32, {});
  EXPECT_EQ(s.code(), StatusCode::NotFound);
  EXPECT_EQ(s.message(), "checkpoint run.ckpt: has no tensor 'fc2.bias' (the "
                         "model expects f32 scalar)");
}

} // namespace
