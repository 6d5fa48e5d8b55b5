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

/// What `mode` is when it is not a regular file, for messages.
inline const char *notRegularReason(mode_t mode) {
  return S_ISDIR(mode)    ? "a folder, not a regular file"
         : S_ISFIFO(mode) ? "a FIFO, not a regular file"
         : S_ISCHR(mode) || S_ISBLK(mode) ? "a device, not a regular file"
                                          : "not a regular file";
}

/// Whether `path` may be read to its end: false, with `error` naming
/// `what` and the path, when it is a FIFO, a device or a socket (read
/// without end, or blocking); without opening it. A path that does not
/// exist or a folder is left to the reader, which reports those at once.
inline bool checkReadableToEnd(const std::string &path, const std::string &what,
                               std::string &error) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) ||
      S_ISDIR(st.st_mode))
    return true;
  error = "cannot read " + what + " '" + path +
          "': " + notRegularReason(st.st_mode);
  return false;
}

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
    return fail(notRegularReason(st.st_mode));
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
