//===- TestUtils.h - shared helpers of the runtime unit tests ---*- C++ -*-===//
//
// EXPECT_ERROR(status, text): the status is an error whose message contains
// `text`. TempDir: a fresh folder removed with what is in it. Environment:
// variables set or cleared for a scope. expectSame:
// two host tensors of the same dtype, shape and bytes. contentsOf and
// writePlain: a whole file's bytes read, or written without the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_TEST_TESTUTILS_H
#define NNC_RUNTIME_TEST_TESTUTILS_H

#include "nnc/runtime/HostTensor.h"
#include "nnc/runtime/Status.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nnc::runtime::test {

inline bool contains(const Status &s, const std::string &text) {
  return s.message().find(text) != std::string::npos;
}

/// Sets or clears environment variables for the scope.
class Environment {
public:
  ~Environment() {
    for (auto &[name, old] : saved_)
      if (old.first)
        ::setenv(name.c_str(), old.second.c_str(), 1);
      else
        ::unsetenv(name.c_str());
  }
  void set(const char *name, const char *value) {
    if (!saved_.count(name)) {
      const char *old = std::getenv(name);
      saved_[name] = {old != nullptr, old ? old : ""};
    }
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }

private:
  std::map<std::string, std::pair<bool, std::string>> saved_;
};

/// A fresh folder under $TMPDIR (or /tmp) named `<prefix>XXXXXX`, removed
/// with its files and empty subfolders on destruction (made writable first:
/// tests take its permissions away).
class TempDir {
public:
  explicit TempDir(const std::string &prefix = "nnc-test-") {
    const char *base = std::getenv("TMPDIR");
    path_ =
        std::string(base && *base ? base : "/tmp") + "/" + prefix + "XXXXXX";
    if (!mkdtemp(path_.data()))
      path_.clear();
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  ~TempDir() {
    if (path_.empty())
      return;
    chmod(path_.c_str(), 0700);
    for (const std::string &name : list()) {
      std::string p = path_ + "/" + name;
      if (rmdir(p.c_str()) != 0)
        std::remove(p.c_str());
    }
    rmdir(path_.c_str());
  }
  const std::string &path() const { return path_; }
  std::string operator/(const std::string &leaf) const {
    return path_ + "/" + leaf;
  }
  std::vector<std::string> list() const {
    std::vector<std::string> names;
    if (DIR *dir = opendir(path_.c_str())) {
      while (dirent *e = readdir(dir))
        if (std::strcmp(e->d_name, ".") != 0 &&
            std::strcmp(e->d_name, "..") != 0)
          names.push_back(e->d_name);
      closedir(dir);
    }
    return names;
  }

private:
  std::string path_;
};

/// The bytes of the file at `path` (empty when it cannot be read).
inline std::string contentsOf(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

/// Writes `text` to `path` plainly (not through AtomicFile).
inline void writePlain(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

inline void expectSame(const HostTensor &a, const HostTensor &b) {
  EXPECT_EQ(a.dtype(), b.dtype());
  EXPECT_EQ(a.shape(), b.shape());
  ASSERT_EQ(a.sizeInBytes(), b.sizeInBytes());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.sizeInBytes()), 0);
}

} // namespace nnc::runtime::test

#define EXPECT_ERROR(status, text)                                             \
  do {                                                                         \
    ::nnc::runtime::Status s_ = (status);                                      \
    EXPECT_FALSE(s_.isOk());                                                   \
    EXPECT_TRUE(::nnc::runtime::test::contains(s_, text)) << s_.toString();    \
  } while (false)

#endif // NNC_RUNTIME_TEST_TESTUTILS_H
