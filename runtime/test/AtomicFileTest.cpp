//===- AtomicFileTest.cpp - replace a file whole or not at all ------------===//
//
// Each test works in a fresh folder and checks what is left in it: the
// destination with exactly the expected bytes, and never a temporary file.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/AtomicFile.h"

#include <gtest/gtest.h>

#include "TestUtils.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <fcntl.h>

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace nnc::runtime;
using nnc::runtime::test::contentsOf;
using nnc::runtime::test::TempDir;
using nnc::runtime::test::writePlain;

namespace {

bool has(const Status &s, const std::string &text) {
  return s.message().find(text) != std::string::npos;
}

TEST(AtomicFile, WritesANewFile) {
  TempDir dir("nnc-atomic-");
  ASSERT_FALSE(dir.path().empty());
  std::string path = dir / "a.bin";
  std::string text("hello\0world\0", 12); // NULs are bytes like any other
  Status s = writeFileAtomically(path, text.data(), text.size());
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(contentsOf(path), text);
  EXPECT_EQ(dir.list(), std::vector<std::string>{"a.bin"});

  // An ordinary new file's permissions: 0666 less the umask.
  mode_t mask = umask(0);
  umask(mask);
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);

  // No bytes make an empty file.
  s = writeFileAtomically(dir / "empty", nullptr, 0);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(contentsOf(dir / "empty"), "");
}

TEST(AtomicFile, ReplacesOnlyOnCommit) {
  TempDir dir("nnc-atomic-");
  std::string path = dir / "state";
  writePlain(path, "old contents");

  AtomicFile file;
  ASSERT_TRUE(file.open(path).isOk());
  EXPECT_TRUE(file.isOpen());
  EXPECT_EQ(file.path(), path);
  ASSERT_TRUE(file.write("new ", 4).isOk());
  ASSERT_TRUE(file.write("bytes", 5).isOk());
  // Until the commit a reader sees the old file, and the temporary beside it.
  EXPECT_EQ(contentsOf(path), "old contents");
  EXPECT_EQ(dir.list().size(), 2u);
  Status s = file.commit();
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_FALSE(file.isOpen());
  EXPECT_EQ(contentsOf(path), "new bytes");
  EXPECT_EQ(dir.list(), std::vector<std::string>{"state"});

  // Shorter contents replace longer ones whole.
  ASSERT_TRUE(writeFileAtomically(path, "x", 1).isOk());
  EXPECT_EQ(contentsOf(path), "x");
}

TEST(AtomicFile, AbandonedWriteLeavesTheOldFile) {
  TempDir dir("nnc-atomic-");
  std::string path = dir / "state";
  writePlain(path, "old");
  {
    AtomicFile file;
    ASSERT_TRUE(file.open(path).isOk());
    ASSERT_TRUE(file.write("partial", 7).isOk());
  } // destroyed without a commit
  EXPECT_EQ(contentsOf(path), "old");
  EXPECT_EQ(dir.list(), std::vector<std::string>{"state"});

  AtomicFile file;
  ASSERT_TRUE(file.open(path).isOk());
  file.discard();
  EXPECT_FALSE(file.isOpen());
  EXPECT_EQ(dir.list(), std::vector<std::string>{"state"});
  EXPECT_ERROR(file.write("x", 1), "not open");
  EXPECT_ERROR(file.commit(), "not open");
}

TEST(AtomicFile, TwoWritersOfOnePathDoNotShareATemporary) {
  TempDir dir("nnc-atomic-");
  std::string path = dir / "shared";
  AtomicFile a, b;
  ASSERT_TRUE(a.open(path).isOk());
  ASSERT_TRUE(b.open(path).isOk());
  ASSERT_TRUE(a.write("from a", 6).isOk());
  ASSERT_TRUE(b.write("from b", 6).isOk());
  ASSERT_TRUE(a.commit().isOk());
  EXPECT_EQ(contentsOf(path), "from a");
  ASSERT_TRUE(b.commit().isOk());
  EXPECT_EQ(contentsOf(path), "from b");
  EXPECT_EQ(dir.list(), std::vector<std::string>{"shared"});
}

TEST(AtomicFile, MissingFolderFailsClearly) {
  TempDir dir("nnc-atomic-");
  std::string path = dir / "no/such/folder/f.bin";
  Status s = writeFileAtomically(path, "x", 1);
  EXPECT_EQ(s.code(), StatusCode::Unavailable);
  EXPECT_TRUE(has(s, path)) << s.toString();
  EXPECT_TRUE(has(s, std::strerror(ENOENT))) << s.toString();
  EXPECT_TRUE(dir.list().empty());
}

TEST(AtomicFile, FolderInTheWayFailsAndLeavesNoTemporary) {
  TempDir dir("nnc-atomic-");
  std::string path = dir / "taken";
  ASSERT_EQ(mkdir(path.c_str(), 0755), 0);
  Status s = writeFileAtomically(path, "x", 1);
  EXPECT_EQ(s.code(), StatusCode::Unavailable);
  EXPECT_TRUE(has(s, "cannot rename")) << s.toString();
  EXPECT_TRUE(has(s, path)) << s.toString();
  EXPECT_EQ(dir.list(), std::vector<std::string>{"taken"});
}

/// Tries to write into `folder` and says whether the failure was the clear
/// one: exit code 0 when it was, 1 when it was not.
int writeIntoReadOnlyFolder(const std::string &folder) {
  std::string path = folder + "/f.bin";
  Status s = writeFileAtomically(path, "x", 1);
  bool clear = !s.isOk() && s.code() == StatusCode::Unavailable &&
               has(s, path) && has(s, std::strerror(EACCES));
  if (!clear)
    std::fprintf(stderr, "unexpected: %s\n", s.toString().c_str());
  return clear ? 0 : 1;
}

TEST(AtomicFile, ReadOnlyFolderFailsClearly) {
  TempDir dir("nnc-atomic-");
  ASSERT_EQ(chmod(dir.path().c_str(), 0555), 0);
  if (geteuid() != 0) {
    EXPECT_EQ(writeIntoReadOnlyFolder(dir.path()), 0);
  } else {
    // Root writes into any folder; the check runs as an unprivileged user.
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      if (setgid(65534) != 0 || setuid(65534) != 0)
        _exit(2);
      _exit(writeIntoReadOnlyFolder(dir.path()));
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    if (WEXITSTATUS(status) == 2)
      GTEST_SKIP() << "cannot drop root privileges to test a read-only folder";
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  EXPECT_TRUE(dir.list().empty());
}

} // namespace

namespace {

/// A process id that is not in use: a child that has exited and been
/// reaped.
pid_t goneProcess() {
  pid_t child = fork();
  if (child == 0)
    _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  return child;
}

void age(const std::string &path, time_t seconds) {
  struct timespec times[2];
  times[0].tv_sec = times[1].tv_sec = time(nullptr) - seconds;
  times[0].tv_nsec = times[1].tv_nsec = 0;
  utimensat(AT_FDCWD, path.c_str(), times, 0);
}

} // namespace

TEST(AtomicFile, CommitRemovesWhatKilledWritersLeft) {
  TempDir dir("nnc-atomic-");
  ASSERT_FALSE(dir.path().empty());
  std::string gone = std::to_string(goneProcess());
  std::string self = std::to_string(getpid());
  // Left by a killed writer of this destination, old: removed.
  writePlain(dir / ("run.ckpt.tmp." + gone + ".0"), "partial");
  age(dir / ("run.ckpt.tmp." + gone + ".0"), 3600);
  // Kept: a recent one (its writer may be alive in another pid namespace),
  // one of this process, one of another destination, names of other shapes.
  writePlain(dir / ("run.ckpt.tmp." + gone + ".1"), "recent");
  writePlain(dir / ("run.ckpt.tmp." + self + ".99"), "ours");
  writePlain(dir / ("other.ckpt.tmp." + gone + ".0"), "other");
  writePlain(dir / "run.ckpt.tmp.x.0", "not a pid");
  writePlain(dir / ("run.ckpt.tmp." + gone), "no counter");
  // All old but the recent one, so that age is not why they are kept.
  for (const std::string &name : dir.list())
    if (name != "run.ckpt.tmp." + gone + ".1")
      age(dir / name, 3600);
  ASSERT_TRUE(writeFileAtomically(dir / "run.ckpt", "new", 3).isOk());
  std::vector<std::string> names = dir.list();
  std::sort(names.begin(), names.end());
  std::vector<std::string> expected = {
      "other.ckpt.tmp." + gone + ".0", "run.ckpt",
      "run.ckpt.tmp." + gone,          "run.ckpt.tmp." + gone + ".1",
      "run.ckpt.tmp." + self + ".99",  "run.ckpt.tmp.x.0"};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(names, expected);
  EXPECT_EQ(contentsOf(dir / "run.ckpt"), "new");
}
