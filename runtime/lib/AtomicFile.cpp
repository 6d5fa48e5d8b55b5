//===- AtomicFile.cpp - replace a file whole or not at all ----------------===//
//
// POSIX only: open/write/fsync/rename on file descriptors, with EINTR
// retried. The temporary's name carries the process id and a per-process
// counter, and it is created with O_EXCL, so concurrent writers of the same
// destination (threads or processes) never share a temporary; the last
// rename wins, whole. A commit removes the temporaries of the same
// destination that a killed writer left behind.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/AtomicFile.h"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <signal.h>

#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nnc::runtime {

namespace {

std::string errnoText(int err) { return std::strerror(err); }

/// The folder holding `path`, for its fsync.
std::string folderOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

/// Minutes a temporary of a gone process is left alone: a writer in another
/// pid namespace sharing the folder may look gone and still be writing.
constexpr time_t kStaleSeconds = 5 * 60;

/// Removes `<leaf>.tmp.<pid>.<n>` files in `dir` whose process is gone and
/// that have not changed for kStaleSeconds: what a writer killed before its
/// commit left behind (a kill -9 runs no destructor). Best effort.
void removeStaleTemporaries(const std::string &dir, const std::string &leaf) {
  DIR *folder = ::opendir(dir.c_str());
  if (!folder)
    return;
  std::string prefix = leaf + ".tmp.";
  pid_t self = ::getpid();
  time_t now = ::time(nullptr);
  std::vector<std::string> stale;
  while (dirent *entry = ::readdir(folder)) {
    std::string name = entry->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0)
      continue;
    // <pid>.<counter>, both decimal.
    std::string rest = name.substr(prefix.size());
    size_t dot = rest.find('.');
    if (dot == 0 || dot == std::string::npos || dot + 1 == rest.size() ||
        rest.find_first_not_of("0123456789.") != std::string::npos ||
        rest.find('.', dot + 1) != std::string::npos || dot > 9)
      continue;
    pid_t pid = static_cast<pid_t>(std::stol(rest.substr(0, dot)));
    if (pid <= 0 || pid == self || ::kill(pid, 0) == 0 || errno != ESRCH)
      continue;
    std::string path = dir + "/" + name;
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
        now - st.st_mtime < kStaleSeconds)
      continue;
    stale.push_back(path);
  }
  ::closedir(folder);
  for (const std::string &path : stale)
    ::unlink(path.c_str());
}

} // namespace

Status AtomicFile::open(const std::string &path) {
  discard();
  path_ = path;
  static std::atomic<uint64_t> counter{0};
  // A name is taken only by a temporary of this process id that a crash left
  // behind; a few more tries get past those.
  constexpr int kAttempts = 64;
  int err = 0;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    tempPath_ = path + ".tmp." + std::to_string(::getpid()) + "." +
                std::to_string(counter.fetch_add(1));
    fd_ = ::open(tempPath_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                 0666);
    if (fd_ >= 0)
      return Status::ok();
    err = errno;
    if (err != EEXIST && err != EINTR)
      break;
  }
  tempPath_.clear();
  return Status(StatusCode::Unavailable, "cannot create a temporary file "
                                         "next to " +
                                             path + ": " + errnoText(err));
}

Status AtomicFile::write(const void *data, size_t size) {
  if (fd_ < 0)
    return Status(StatusCode::Internal,
                  "cannot write " + path_ + ": the file is not open");
  const uint8_t *p = static_cast<const uint8_t *>(data);
  while (size > 0) {
    ssize_t n = ::write(fd_, p, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return fail("cannot write", errno);
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
  return Status::ok();
}

Status AtomicFile::commit() {
  if (fd_ < 0)
    return Status(StatusCode::Internal,
                  "cannot commit " + path_ + ": the file is not open");
  if (::fsync(fd_) != 0)
    return fail("cannot fsync", errno);
  int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0)
    return fail("cannot close", errno);
  if (::rename(tempPath_.c_str(), path_.c_str()) != 0) {
    int err = errno;
    ::unlink(tempPath_.c_str());
    std::string temp = tempPath_;
    tempPath_.clear();
    return Status(StatusCode::Unavailable, "cannot rename " + temp + " to " +
                                               path_ + ": " + errnoText(err));
  }
  tempPath_.clear();
  std::string dir = folderOf(path_);
  size_t slash = path_.find_last_of('/');
  removeStaleTemporaries(
      dir, slash == std::string::npos ? path_ : path_.substr(slash + 1));
  // Make the rename itself durable.
  int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd >= 0) {
    int synced = ::fsync(dirFd);
    int err = errno;
    ::close(dirFd);
    // Some file systems cannot fsync a folder (EINVAL); the data is safe.
    if (synced != 0 && err != EINVAL)
      return Status(StatusCode::Unavailable,
                    "wrote " + path_ + " but cannot fsync its folder " + dir +
                        ": " + errnoText(err));
  }
  return Status::ok();
}

void AtomicFile::discard() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (!tempPath_.empty()) {
    ::unlink(tempPath_.c_str());
    tempPath_.clear();
  }
}

Status AtomicFile::fail(const std::string &what, int err) {
  std::string temp = tempPath_;
  discard();
  return Status(StatusCode::Unavailable,
                what + " " + temp + ": " + errnoText(err));
}

Status writeFileAtomically(const std::string &path, const void *data,
                           size_t size) {
  AtomicFile file;
  NNC_RUNTIME_RETURN_IF_ERROR(file.open(path));
  NNC_RUNTIME_RETURN_IF_ERROR(file.write(data, size));
  return file.commit();
}

} // namespace nnc::runtime
