//===- FileHelpers.h - reading the files a tool is given --------*- C++ -*-===//
//
// readRegularFile: the whole of a file a user names (a model, a config),
// refusing what is not a regular file (a FIFO or a device would be read
// without end, a folder not at all) before reading anything.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TOOLS_COMMON_FILEHELPERS_H
#define NNC_TOOLS_COMMON_FILEHELPERS_H

#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nnc::tools {

/// Reads all of `path` into `out`; on failure `error` says what is wrong,
/// naming `what` ("model") and the path.
inline bool readRegularFile(const std::string &path, const std::string &what,
                            std::string &out, std::string &error) {
  auto fail = [&](const std::string &problem) {
    error = "cannot read " + what + " '" + path + "': " + problem;
    return false;
  };
  // Non-blocking: opening a FIFO waits for a writer otherwise (and it is
  // refused below); reads of a regular file are unaffected.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return fail(std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return fail(std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(S_ISDIR(st.st_mode)    ? "a folder, not a regular file"
                : S_ISFIFO(st.st_mode) ? "a FIFO, not a regular file"
                : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)
                    ? "a device, not a regular file"
                    : "not a regular file");
  }
  out.resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < out.size()) {
    ssize_t got = ::read(fd, &out[done], out.size() - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      int err = got < 0 ? errno : 0;
      ::close(fd);
      return fail(err ? std::strerror(err) : "the file shrank while read");
    }
    done += static_cast<size_t>(got);
  }
  ::close(fd);
  return true;
}

} // namespace nnc::tools

#endif // NNC_TOOLS_COMMON_FILEHELPERS_H
