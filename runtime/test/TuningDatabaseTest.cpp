//===- TuningDatabaseTest.cpp - the autotuner's measured kernel choices ---===//
//
// Each test works in a fresh folder. The lines a test writes by hand follow
// the format of TuningDatabase.h independently of the writer, so that the
// format itself is checked, not only that the code agrees with itself.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/TuningDatabase.h"

#include "nnc/runtime/Sha256.h"

#include <gtest/gtest.h>

#include "TestUtils.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace nnc::runtime;
using nnc::runtime::test::contentsOf;
using nnc::runtime::test::TempDir;
using nnc::runtime::test::writePlain;

namespace {

bool mentions(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

std::string keyOf(const std::string &seed) {
  return toHex(Sha256::hash(seed.data(), seed.size()));
}

TuningEntry makeEntry(const std::string &seed, const std::string &choice,
                      std::vector<std::pair<std::string, double>> times) {
  TuningEntry entry;
  entry.key = keyOf(seed);
  entry.kernel = "conv 8x64x56x56 * 64x64x3x3 stride 1 (" + seed + ")";
  entry.choice = choice;
  entry.defaultChoice = "default";
  entry.times = std::move(times);
  return entry;
}

/// A line of the format, checksum computed here.
std::string lineOf(const std::string &key, const std::string &choice,
                   const std::string &defaultChoice, const std::string &times,
                   const std::string &kernel) {
  std::string body =
      key + "\t" + choice + "\t" + defaultChoice + "\t" + times + "\t" + kernel;
  std::string checksum =
      toHex(Sha256::hash(body.data(), body.size())).substr(0, 16);
  return body + "\t" + checksum + "\n";
}

const std::string kHeader = "nnc-tuning-database 1\n";

std::vector<TuningEntry> sampleEntries() {
  return {
      makeEntry("a", "library", {{"default", 1.5}, {"library", 0.25}}),
      makeEntry(
          "b", "default",
          {{"default", 0.1}, {"library", 1e-9}, {"tiled_4x4", 12345.678}}),
      makeEntry("c", "im2col.v2", {{"im2col.v2", 0}}),
      // No times and no description: both fields may be empty.
      [] {
        TuningEntry e;
        e.key = keyOf("d");
        e.choice = e.defaultChoice = "default";
        return e;
      }(),
  };
}

/// Opens `path`, expecting success.
TuningDatabase openOk(const std::string &path) {
  TuningDatabase db;
  Status s = TuningDatabase::open(path, db);
  EXPECT_TRUE(s.isOk()) << s.toString();
  return db;
}

TEST(TuningDatabase, RoundTripsEntries) {
  TempDir dir("nnc-tuning-");
  ASSERT_FALSE(dir.path().empty());
  std::string path = dir / "tuning.nnctune";
  std::vector<TuningEntry> entries = sampleEntries();
  Status s = writeTuningDatabase(path, entries);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(dir.list(), std::vector<std::string>{"tuning.nnctune"});

  TuningDatabase db = openOk(path);
  EXPECT_TRUE(db.warnings().empty());
  EXPECT_TRUE(db.writeable());
  EXPECT_EQ(db.entries(), entries);
  for (const TuningEntry &entry : entries) {
    const TuningEntry *found = db.lookup(entry.key);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(*found, entry);
  }

  // The bytes are the documented format, numbers in their shortest form.
  std::string expected = kHeader +
                         lineOf(keyOf("a"), "library", "default",
                                "default=1.5,library=0.25", entries[0].kernel) +
                         lineOf(keyOf("b"), "default", "default",
                                "default=0.1,library=1e-09,tiled_4x4=12345.678",
                                entries[1].kernel) +
                         lineOf(keyOf("c"), "im2col.v2", "default",
                                "im2col.v2=0", entries[2].kernel) +
                         lineOf(keyOf("d"), "default", "default", "", "");
  EXPECT_EQ(contentsOf(path), expected);

  // Every double reads back exactly, however many digits it needs.
  std::vector<TuningEntry> exact = {
      makeEntry("e", "x",
                {{"x", 0.1 + 0.2},
                 {"y", 1.0 / 3.0},
                 {"z", std::numeric_limits<double>::denorm_min()},
                 {"w", std::numeric_limits<double>::max()}})};
  ASSERT_TRUE(writeTuningDatabase(path, exact).isOk());
  EXPECT_EQ(openOk(path).entries(), exact);

  // A merge into a missing file writes the same format.
  std::string merged = dir / "merged.nnctune";
  ASSERT_TRUE(TuningDatabase::merge(merged, entries).isOk());
  EXPECT_EQ(contentsOf(merged), expected);
  EXPECT_EQ(openOk(merged).entries(), entries);
}

TEST(TuningDatabase, MissingFileIsEmpty) {
  TempDir dir("nnc-tuning-");
  TuningDatabase db = openOk(dir / "absent");
  EXPECT_TRUE(db.entries().empty());
  EXPECT_TRUE(db.warnings().empty());
  EXPECT_TRUE(db.writeable());
  EXPECT_EQ(db.lookup(keyOf("a")), nullptr);
  EXPECT_TRUE(dir.list().empty());
}

TEST(TuningDatabase, LookupMisses) {
  TempDir dir("nnc-tuning-");
  std::string path = dir / "db";
  ASSERT_TRUE(writeTuningDatabase(path, sampleEntries()).isOk());
  TuningDatabase db = openOk(path);
  EXPECT_EQ(db.lookup(keyOf("zzz")), nullptr);
  EXPECT_EQ(db.lookup(""), nullptr);
  // Keys are compared exactly: the same hex in uppercase is another key.
  std::string upper = keyOf("a");
  std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
  EXPECT_EQ(db.lookup(upper), nullptr);
  EXPECT_NE(db.lookup(keyOf("a")), nullptr);
}

TEST(TuningDatabase, LastLineOfAKeyWins) {
  TempDir dir("nnc-tuning-");
  std::string path = dir / "db";
  writePlain(path,
             kHeader + lineOf(keyOf("a"), "first", "default", "first=2", "k") +
                 lineOf(keyOf("b"), "other", "default", "", "k") +
                 lineOf(keyOf("a"), "second", "default", "second=1", "k"));
  TuningDatabase db = openOk(path);
  EXPECT_TRUE(db.warnings().empty());
  ASSERT_EQ(db.entries().size(), 2u);
  // In the order of each key's first line, with its last line's contents.
  EXPECT_EQ(db.entries()[0].key, keyOf("a"));
  EXPECT_EQ(db.entries()[0].choice, "second");
  EXPECT_EQ(db.entries()[1].key, keyOf("b"));
  ASSERT_NE(db.lookup(keyOf("a")), nullptr);
  EXPECT_EQ(db.lookup(keyOf("a"))->choice, "second");
  EXPECT_EQ(db.lookup(keyOf("a"))->times,
            (std::vector<std::pair<std::string, double>>{{"second", 1}}));

  // A merge writes the key once.
  ASSERT_TRUE(TuningDatabase::merge(path, {}).isOk());
  EXPECT_EQ(contentsOf(path),
            kHeader + lineOf(keyOf("a"), "second", "default", "second=1", "k") +
                lineOf(keyOf("b"), "other", "default", "", "k"));

  // writeTuningDatabase writes exactly what it is given: duplicates refused.
  TuningEntry a = makeEntry("a", "x", {});
  EXPECT_ERROR(writeTuningDatabase(dir / "dup", {a, a}), "appears twice");
  std::vector<std::string> names = dir.list();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"db", "db.lock"}));
}

TEST(TuningDatabase, CorruptedLineIsIgnoredWithAWarning) {
  TempDir dir("nnc-tuning-");
  std::string path = dir / "db";
  std::vector<TuningEntry> entries = sampleEntries();
  ASSERT_TRUE(writeTuningDatabase(path, entries).isOk());
  std::string good = contentsOf(path);
  // The line of entries[1] is line 3.
  size_t begin = good.find('\n', good.find('\n') + 1) + 1;
  size_t end = good.find('\n', begin);
  ASSERT_NE(end, std::string::npos);
  std::vector<TuningEntry> others = {entries[0], entries[2], entries[3]};

  // Whichever byte of the line changes (a key, a name, a digit, a tab, the
  // description, the checksum), only that line is lost.
  for (size_t at = begin; at < end; ++at) {
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x01);
    writePlain(path, bad);
    TuningDatabase db = openOk(path);
    EXPECT_EQ(db.entries(), others) << "byte " << at;
    ASSERT_EQ(db.warnings().size(), 1u) << "byte " << at;
    const std::string &warning = db.warnings()[0];
    EXPECT_TRUE(mentions(warning, "tuning database " + path + ":3: "))
        << warning;
    EXPECT_TRUE(mentions(warning, "; entry ignored")) << warning;
    EXPECT_TRUE(db.writeable());
    EXPECT_EQ(db.lookup(entries[1].key), nullptr);
  }

  // A line that is not even tab-separated, and an empty line, say so.
  writePlain(path,
             good.substr(0, end + 1) + "garbage\n\n" + good.substr(end + 1));
  TuningDatabase db = openOk(path);
  EXPECT_EQ(db.entries(), entries);
  ASSERT_EQ(db.warnings().size(), 2u);
  EXPECT_TRUE(mentions(db.warnings()[0], path + ":4: expected 6"))
      << db.warnings()[0];
  EXPECT_TRUE(mentions(db.warnings()[1], path + ":5: ")) << db.warnings()[1];

  // A line with a correct checksum but a bad value is damaged too.
  writePlain(path,
             kHeader + lineOf(keyOf("a"), "x", "default", "x=-1", "k") +
                 lineOf(keyOf("b"), "x", "default", "x=nan", "k") +
                 lineOf(keyOf("c"), "x", "default", "x=1.5ms", "k") +
                 lineOf(keyOf("d"), "x", "default", "x", "k") +
                 lineOf(keyOf("e").substr(1), "x", "default", "x=1", "k") +
                 lineOf(keyOf("f"), "x y", "default", "x=1", "k") +
                 lineOf(keyOf("g"), "x", "default", "x=1,x=2", "k") +
                 lineOf(keyOf("h"), "x", "default", "x=1", "k\x01") +
                 lineOf(keyOf("i"), "x", "default", "x=1\tk", "k") +
                 lineOf(keyOf("j"), "x", "default", "x=1,", "k") +
                 lineOf(keyOf("ok"), "x", "default", "x=1", "k"));
  db = openOk(path);
  ASSERT_EQ(db.entries().size(), 1u);
  EXPECT_EQ(db.entries()[0].key, keyOf("ok"));
  ASSERT_EQ(db.warnings().size(), 10u);
  for (size_t i = 0; i < db.warnings().size(); ++i)
    EXPECT_TRUE(mentions(db.warnings()[i], ":" + std::to_string(i + 2) + ": "))
        << db.warnings()[i];
  EXPECT_TRUE(mentions(db.warnings()[0], "finite number >= 0"));
  EXPECT_TRUE(mentions(db.warnings()[2], "not a number"));
  EXPECT_TRUE(mentions(db.warnings()[4], "not 64 lowercase hex"));
  EXPECT_TRUE(mentions(db.warnings()[6], "timed twice"));
  EXPECT_TRUE(mentions(db.warnings()[8], "found 7"));
}

TEST(TuningDatabase, TruncatedLastLineIsIgnored) {
  TempDir dir("nnc-tuning-");
  std::string path = dir / "db";
  std::vector<TuningEntry> entries = sampleEntries();
  ASSERT_TRUE(writeTuningDatabase(path, entries).isOk());
  std::string good = contentsOf(path);
  size_t lastBegin = good.rfind('\n', good.size() - 2) + 1;
  std::vector<TuningEntry> before(entries.begin(), entries.end() - 1);

  // Cut anywhere inside the last line: the entries before it load.
  for (size_t size = lastBegin + 1; size < good.size() - 1; ++size) {
    writePlain(path, good.substr(0, size));
    TuningDatabase db = openOk(path);
    EXPECT_EQ(db.entries(), before) << "size " << size;
    ASSERT_EQ(db.warnings().size(), 1u) << "size " << size;
    EXPECT_TRUE(mentions(db.warnings()[0], path + ":5: truncated line"))
        << db.warnings()[0];
  }
  // Only the final newline missing: the line is whole and checks out.
  writePlain(path, good.substr(0, good.size() - 1));
  TuningDatabase db = openOk(path);
  EXPECT_EQ(db.entries(), entries);
  EXPECT_TRUE(db.warnings().empty());

  // A merge rewrites the file without the damaged line.
  writePlain(path, good.substr(0, good.size() - 10));
  std::vector<std::string> warnings;
  ASSERT_TRUE(TuningDatabase::merge(path, {}, &warnings).isOk());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(mentions(warnings[0], "truncated")) << warnings[0];
  db = openOk(path);
  EXPECT_EQ(db.entries(), before);
  EXPECT_TRUE(db.warnings().empty());
}

TEST(TuningDatabase, ForeignFileIsNotRewritten) {
  TempDir dir("nnc-tuning-");
  std::string path = dir / "db";
  std::string entryLine = lineOf(keyOf("a"), "x", "default", "x=1", "k");
  struct Case {
    std::string text;
    std::string why;
    StatusCode code;
  };
  std::vector<Case> cases = {
      {"my notes\n" + entryLine, "not a tuning database (it starts 'my notes')",
       StatusCode::InvalidArgument},
      {"nnc-tuning-database 2\n" + entryLine, "written by a newer nnc",
       StatusCode::Unimplemented},
      {"nnc-tuning-database 0\n" + entryLine, "format version 0",
       StatusCode::Unimplemented},
      {"nnc-tuning-database 1 \n" + entryLine, "not a tuning database",
       StatusCode::InvalidArgument},
      {"\n" + kHeader + entryLine, "not a tuning database",
       StatusCode::InvalidArgument},
      {std::string("\x7f"
                   "ELF\x02\x01\x01\0\0\0",
                   10),
       "not a tuning database", StatusCode::InvalidArgument},
  };
  for (const Case &c : cases) {
    writePlain(path, c.text);
    TuningDatabase db = openOk(path);
    EXPECT_TRUE(db.entries().empty());
    EXPECT_FALSE(db.writeable());
    ASSERT_EQ(db.warnings().size(), 1u);
    EXPECT_TRUE(mentions(db.warnings()[0], "tuning database " + path + ":1: "))
        << db.warnings()[0];
    EXPECT_TRUE(mentions(db.warnings()[0], c.why)) << db.warnings()[0];

    std::vector<std::string> warnings;
    Status s =
        TuningDatabase::merge(path, {makeEntry("b", "x", {})}, &warnings);
    EXPECT_EQ(s.code(), c.code) << s.toString();
    EXPECT_TRUE(mentions(s.message(), "refusing to rewrite tuning database " +
                                          path + ": " + c.why))
        << s.toString();
    EXPECT_EQ(warnings, db.warnings());
    EXPECT_EQ(contentsOf(path), c.text);
  }
  EXPECT_EQ(dir.list().size(), 2u); // the file and its lock file
}

TEST(TuningDatabase, AnyBytesReadWithoutCrashing) {
  TempDir dir("nnc-tuning-");
  std::string path = dir / "db";

  // An empty file is an empty database that may be written.
  writePlain(path, "");
  TuningDatabase db = openOk(path);
  EXPECT_TRUE(db.entries().empty());
  EXPECT_TRUE(db.warnings().empty());
  EXPECT_TRUE(db.writeable());
  // So is a header alone, with or without its newline.
  for (std::string text : {kHeader, kHeader.substr(0, kHeader.size() - 1)}) {
    writePlain(path, text);
    db = openOk(path);
    EXPECT_TRUE(db.entries().empty());
    EXPECT_TRUE(db.warnings().empty());
    EXPECT_TRUE(db.writeable());
  }

  std::mt19937 random(1234);
  std::string entryLine = lineOf(keyOf("a"), "x", "default", "x=1", "k");
  for (int round = 0; round < 200; ++round) {
    std::string bytes(1 + random() % 4096, '\0');
    for (char &c : bytes)
      c = static_cast<char>(random());
    // Half of them behind a good header and entry, to reach the line
    // parser rather than the header check.
    bool headed = round % 2 == 1;
    writePlain(path, headed ? kHeader + entryLine + bytes : bytes);
    db = openOk(path);
    if (headed) {
      EXPECT_TRUE(db.writeable());
      ASSERT_FALSE(db.entries().empty());
      EXPECT_EQ(db.entries()[0].key, keyOf("a"));
    } else {
      EXPECT_TRUE(db.entries().empty());
      EXPECT_EQ(db.warnings().size(), 1u);
    }
    EXPECT_LE(db.warnings().size(), TuningDatabase::kMaxLineWarnings + 1);
  }

  // Many damaged lines: the first ones warned about, the rest counted.
  std::string many = kHeader;
  for (int i = 0; i < 1000; ++i)
    many += "bad line\n";
  writePlain(path, many + entryLine);
  db = openOk(path);
  EXPECT_EQ(db.entries().size(), 1u);
  ASSERT_EQ(db.warnings().size(), TuningDatabase::kMaxLineWarnings + 1);
  EXPECT_TRUE(mentions(db.warnings().back(), "980 more damaged lines"))
      << db.warnings().back();

  // A huge line (no newline, then one) is damaged, not held whole.
  std::string huge(8 * 1024 * 1024, 'a');
  writePlain(path, kHeader + huge + "\n" + entryLine + huge);
  db = openOk(path);
  ASSERT_EQ(db.entries().size(), 1u);
  ASSERT_EQ(db.warnings().size(), 2u);
  EXPECT_TRUE(mentions(db.warnings()[0], ":2: line longer than"))
      << db.warnings()[0];
  EXPECT_TRUE(mentions(db.warnings()[1], ":4: line longer than"))
      << db.warnings()[1];
  writePlain(path, huge);
  db = openOk(path);
  EXPECT_TRUE(db.entries().empty());
  EXPECT_FALSE(db.writeable());

  // Not a regular file: an error naming it, not a hang or a crash.
  std::string folder = dir / "folder";
  ASSERT_EQ(mkdir(folder.c_str(), 0755), 0);
  EXPECT_ERROR(TuningDatabase::open(folder, db), folder);
  std::string fifo = dir / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_ERROR(TuningDatabase::open(fifo, db), "not a regular file");
  EXPECT_TRUE(db.entries().empty());
}

TEST(TuningDatabase, MergeReplacesAndKeepsOtherWritersEntries) {
  TempDir dir("nnc-tuning-");
  std::string path = dir / "db";
  TuningEntry a = makeEntry("a", "library", {{"library", 1}});
  TuningEntry b = makeEntry("b", "default", {{"default", 2}});
  TuningEntry c = makeEntry("c", "tiled", {{"tiled", 3}});
  ASSERT_TRUE(TuningDatabase::merge(path, {a}).isOk());

  // This process reads its copy; another writer adds b after that.
  TuningDatabase mine = openOk(path);
  ASSERT_EQ(mine.entries(), std::vector<TuningEntry>{a});
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0)
    _exit(TuningDatabase::merge(path, {b}).isOk() ? 0 : 1);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  // Merging c from the stale copy's point of view keeps b.
  ASSERT_TRUE(TuningDatabase::merge(path, {c}).isOk());
  EXPECT_EQ(openOk(path).entries(), (std::vector<TuningEntry>{a, b, c}));

  // The same key is replaced in place; the last of one merge's duplicates
  // wins.
  TuningEntry a2 = makeEntry("a", "default", {{"default", 0.5}});
  TuningEntry a3 = makeEntry("a", "tiled", {{"tiled", 0.25}});
  std::vector<std::string> warnings;
  ASSERT_TRUE(TuningDatabase::merge(path, {a2, a3}, &warnings).isOk());
  EXPECT_TRUE(warnings.empty());
  TuningDatabase now = openOk(path);
  EXPECT_EQ(now.entries(), (std::vector<TuningEntry>{a3, b, c}));
  EXPECT_TRUE(now.warnings().empty());
  std::vector<std::string> names = dir.list();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"db", "db.lock"}));
}

TEST(TuningDatabase, ConcurrentWritersLoseNothing) {
  TempDir dir("nnc-tuning-");
  std::string path = dir / "db";
  constexpr int kWriters = 4;
  constexpr int kMergesEach = 20;
  auto entryOf = [](int writer, int merge) {
    std::string seed = std::to_string(writer) + "/" + std::to_string(merge);
    return makeEntry(seed, "w" + std::to_string(writer),
                     {{"default", merge + 0.5}, {"w", writer * 0.125}});
  };
  std::vector<pid_t> children;
  for (int writer = 0; writer < kWriters; ++writer) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      for (int merge = 0; merge < kMergesEach; ++merge) {
        std::vector<std::string> warnings;
        Status s =
            TuningDatabase::merge(path, {entryOf(writer, merge)}, &warnings);
        if (!s.isOk() || !warnings.empty()) {
          std::fprintf(stderr, "writer %d: %s\n", writer, s.toString().c_str());
          _exit(1);
        }
      }
      _exit(0);
    }
    children.push_back(child);
  }
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  TuningDatabase db = openOk(path);
  EXPECT_TRUE(db.warnings().empty());
  EXPECT_TRUE(db.writeable());
  EXPECT_EQ(db.entries().size(), size_t(kWriters * kMergesEach));
  for (int writer = 0; writer < kWriters; ++writer)
    for (int merge = 0; merge < kMergesEach; ++merge) {
      TuningEntry expected = entryOf(writer, merge);
      const TuningEntry *found = db.lookup(expected.key);
      ASSERT_NE(found, nullptr) << writer << "/" << merge;
      EXPECT_EQ(*found, expected);
    }
  std::vector<std::string> names = dir.list();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"db", "db.lock"}));
}

TEST(TuningDatabase, InvalidEntriesAreRefused) {
  TempDir dir("nnc-tuning-");
  std::string path = dir / "db";
  TuningEntry good = makeEntry("a", "library", {{"library", 1}});
  ASSERT_TRUE(validateTuningEntry(good).isOk());
  struct Case {
    TuningEntry entry;
    std::string why;
  };
  std::vector<Case> cases;
  auto add = [&](auto change, const std::string &why) {
    TuningEntry e = good;
    change(e);
    cases.push_back({e, why});
  };
  add([](TuningEntry &e) { e.key = e.key.substr(1); }, "key");
  add([](TuningEntry &e) { e.key[0] = 'A'; }, "key");
  add([](TuningEntry &e) { e.key[5] = 'g'; }, "key");
  add([](TuningEntry &e) { e.key.clear(); }, "key");
  add([](TuningEntry &e) { e.choice.clear(); }, "choice");
  add([](TuningEntry &e) { e.choice = "lib rary"; }, "choice");
  add([](TuningEntry &e) { e.choice = "a=b"; }, "choice");
  add([](TuningEntry &e) { e.defaultChoice = "x,y"; }, "default choice");
  add([](TuningEntry &e) { e.kernel = "conv\t3x3"; }, "kernel description");
  add([](TuningEntry &e) { e.kernel = "conv\n3x3"; }, "kernel description");
  add([](TuningEntry &e) { e.kernel = "conv \xc3\x97"; }, "kernel description");
  add([](TuningEntry &e) { e.times.push_back({"", 1}); }, "candidate");
  add([](TuningEntry &e) { e.times.push_back({"a\tb", 1}); }, "candidate");
  add([](TuningEntry &e) { e.times.push_back({"library", 2}); }, "twice");
  add([](TuningEntry &e) { e.times[0].second = -1; }, "finite number >= 0");
  add([](TuningEntry &e) { e.times[0].second = std::nan(""); }, ">= 0");
  add([](TuningEntry &e) { e.times[0].second = HUGE_VAL; }, ">= 0");

  ASSERT_TRUE(writeTuningDatabase(path, {good}).isOk());
  std::string before = contentsOf(path);
  for (const Case &c : cases) {
    Status s = validateTuningEntry(c.entry);
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << c.why;
    EXPECT_TRUE(mentions(s.message(), c.why)) << s.toString();
    s = TuningDatabase::merge(path, {makeEntry("b", "x", {}), c.entry});
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << c.why;
    EXPECT_TRUE(mentions(s.message(), path + ": entry 1: ")) << s.toString();
    s = writeTuningDatabase(path, {c.entry});
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << c.why;
    EXPECT_TRUE(mentions(s.message(), path)) << s.toString();
    s = writeTuningDatabase(dir / "new", {c.entry});
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << c.why;
  }
  // Nothing was written: no new file, no lock file, the old bytes.
  EXPECT_EQ(contentsOf(path), before);
  EXPECT_EQ(dir.list(), std::vector<std::string>{"db"});
}

} // namespace
