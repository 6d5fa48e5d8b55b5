//===- TuningDatabase.cpp - the autotuner's measured kernel choices -------===//
//
// The file is read in fixed chunks and split into lines as it comes, so
// that no input (binary garbage, one enormous line) costs more memory than
// kMaxLineBytes beyond the entries it holds. Writers serialize on an
// flock() of a lock file beside the database rather than of the database
// itself: the database is replaced by a rename, and a lock on the replaced
// inode would exclude nobody who opened the new one.
//
//===----------------------------------------------------------------------===//

#include "nnc/runtime/TuningDatabase.h"

#include "nnc/runtime/AtomicFile.h"
#include "nnc/runtime/Sha256.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nnc::runtime {

namespace {

constexpr const char *kHeaderTag = "nnc-tuning-database";
constexpr size_t kKeyLength = 64;
constexpr size_t kChecksumLength = 16;
constexpr size_t kFieldCount = 6;
/// How much of a bad value a message quotes.
constexpr size_t kMaxQuoted = 40;

std::string errnoText(int err) { return std::strerror(err); }

/// `text` for a message: non-printable bytes as '?', cut at kMaxQuoted.
std::string quoted(const std::string &text) {
  std::string out = "'";
  for (size_t i = 0; i < text.size() && i < kMaxQuoted; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    out += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?';
  }
  if (text.size() > kMaxQuoted)
    out += "...";
  return out + "'";
}

bool isKey(const std::string &text) {
  if (text.size() != kKeyLength)
    return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  return true;
}

bool isName(const std::string &text) {
  if (text.empty())
    return false;
  for (char c : text)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
          (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
      return false;
  return true;
}

bool isDescription(const std::string &text) {
  for (char c : text)
    if (c < 0x20 || c > 0x7e)
      return false;
  return true;
}

std::string checksumOf(const char *data, size_t size) {
  return toHex(Sha256::hash(data, size)).substr(0, kChecksumLength);
}

/// The shortest text that reads back as `value` exactly.
std::string formatMs(double value) {
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, result.ptr);
}

std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (true) {
    size_t end = text.find(separator, begin);
    if (end == std::string::npos) {
      parts.push_back(text.substr(begin));
      return parts;
    }
    parts.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
}

/// The entry's line, newline included.
std::string formatLine(const TuningEntry &entry) {
  std::string line =
      entry.key + '\t' + entry.choice + '\t' + entry.defaultChoice + '\t';
  for (size_t i = 0; i < entry.times.size(); ++i) {
    if (i)
      line += ',';
    line += entry.times[i].first + '=' + formatMs(entry.times[i].second);
  }
  line += '\t' + entry.kernel;
  std::string checksum = checksumOf(line.data(), line.size());
  return line + '\t' + checksum + '\n';
}

std::string headerLine() {
  return std::string(kHeaderTag) + " " +
         std::to_string(TuningDatabase::kFormatVersion);
}

/// Why `line` (without its newline) is not an entry, or "" with `out` set.
std::string parseLine(const std::string &line, TuningEntry &out) {
  size_t lastTab = line.rfind('\t');
  if (lastTab == std::string::npos)
    return "expected " + std::to_string(kFieldCount) +
           " tab-separated fields, found 1";
  std::string checksum = line.substr(lastTab + 1);
  if (checksum != checksumOf(line.data(), lastTab))
    return "checksum mismatch";
  std::vector<std::string> fields = split(line.substr(0, lastTab), '\t');
  if (fields.size() + 1 != kFieldCount)
    return "expected " + std::to_string(kFieldCount) +
           " tab-separated fields, found " + std::to_string(fields.size() + 1);
  TuningEntry entry;
  entry.key = fields[0];
  entry.choice = fields[1];
  entry.defaultChoice = fields[2];
  entry.kernel = fields[4];
  if (!fields[3].empty()) {
    for (const std::string &item : split(fields[3], ',')) {
      size_t equals = item.find('=');
      if (equals == std::string::npos)
        return "time " + quoted(item) + " is not CANDIDATE=MS";
      double ms = 0;
      const char *begin = item.data() + equals + 1;
      const char *end = item.data() + item.size();
      auto result = std::from_chars(begin, end, ms);
      if (begin == end || result.ec != std::errc() || result.ptr != end)
        return "time " + quoted(item) + " is not a number";
      entry.times.emplace_back(item.substr(0, equals), ms);
    }
  }
  Status valid = validateTuningEntry(entry);
  if (!valid.isOk())
    return valid.message();
  out = std::move(entry);
  return "";
}

/// Holds an exclusive flock() on a lock file until destroyed.
class FileLock {
public:
  FileLock() = default;
  FileLock(const FileLock &) = delete;
  FileLock &operator=(const FileLock &) = delete;
  ~FileLock() {
    if (fd_ >= 0)
      ::close(fd_); // releases the lock
  }

  Status acquire(const std::string &path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd_ < 0)
      return Status(StatusCode::Unavailable, "cannot open the lock file " +
                                                 path + ": " +
                                                 errnoText(errno));
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR)
        continue;
      int err = errno;
      ::close(fd_);
      fd_ = -1;
      return Status(StatusCode::Unavailable,
                    "cannot lock " + path + ": " + errnoText(err));
    }
    return Status::ok();
  }

private:
  int fd_ = -1;
};

/// Closes a file descriptor on every way out.
struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

std::string serialize(const std::vector<TuningEntry> &entries) {
  std::string text = headerLine() + '\n';
  for (const TuningEntry &entry : entries)
    text += formatLine(entry);
  return text;
}

} // namespace

Status validateTuningEntry(const TuningEntry &entry) {
  auto invalid = [&](const std::string &what) {
    return Status(StatusCode::InvalidArgument, what);
  };
  if (!isKey(entry.key))
    return invalid("key " + quoted(entry.key) +
                   " is not 64 lowercase hex characters");
  if (!isName(entry.choice))
    return invalid("choice " + quoted(entry.choice) +
                   " is not a name of [A-Za-z0-9_.-]");
  if (!isName(entry.defaultChoice))
    return invalid("default choice " + quoted(entry.defaultChoice) +
                   " is not a name of [A-Za-z0-9_.-]");
  if (!isDescription(entry.kernel))
    return invalid("kernel description " + quoted(entry.kernel) +
                   " has a byte that is not printable ASCII (a tab, a "
                   "newline, ...)");
  std::unordered_set<std::string> seen;
  for (const auto &[candidate, ms] : entry.times) {
    if (!isName(candidate))
      return invalid("candidate " + quoted(candidate) +
                     " is not a name of [A-Za-z0-9_.-]");
    if (!seen.insert(candidate).second)
      return invalid("candidate " + quoted(candidate) + " is timed twice");
    if (!std::isfinite(ms) || ms < 0)
      return invalid("time of candidate " + quoted(candidate) +
                     " is not a finite number >= 0");
  }
  return Status::ok();
}

const TuningEntry *TuningDatabase::lookup(const std::string &key) const {
  auto found = index_.find(key);
  return found == index_.end() ? nullptr : &entries_[found->second];
}

void TuningDatabase::put(TuningEntry entry) {
  auto [found, inserted] = index_.emplace(entry.key, entries_.size());
  if (inserted)
    entries_.push_back(std::move(entry));
  else
    entries_[found->second] = std::move(entry);
}

std::string defaultCacheDir() {
  if (const char *dir = std::getenv("NNC_CACHE_DIR"))
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/nnc";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/nnc";
  return "";
}

Status TuningDatabase::open(const std::string &path, TuningDatabase &out) {
  out = TuningDatabase();
  // O_NONBLOCK: a FIFO in the way must not hang the open; it is refused
  // below, and regular files ignore the flag.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT)
      return Status::ok();
    return Status(StatusCode::Unavailable, "cannot open tuning database " +
                                               path + ": " + errnoText(errno));
  }
  FdCloser closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return Status(StatusCode::Unavailable, "cannot stat tuning database " +
                                               path + ": " + errnoText(errno));
  if (!S_ISREG(st.st_mode))
    return Status(StatusCode::InvalidArgument,
                  "tuning database " + path + " is not a regular file");

  std::string where = "tuning database " + path + ":";
  size_t lineNumber = 0;
  size_t unwarned = 0;
  bool stop = false;
  // Takes one line (without its newline); `complete` is false for a line
  // cut at kMaxLineBytes, `terminated` false for a last line without a
  // newline.
  auto takeLine = [&](const std::string &line, bool complete, bool terminated) {
    ++lineNumber;
    if (lineNumber == 1) {
      if (complete && line == headerLine())
        return;
      std::string tag = std::string(kHeaderTag) + " ";
      std::string rest = line.substr(std::min(line.size(), tag.size()));
      bool versioned =
          line.compare(0, tag.size(), tag) == 0 && complete && !rest.empty() &&
          rest.size() <= 9 &&
          rest.find_first_not_of("0123456789") == std::string::npos;
      std::string why;
      if (versioned && std::stoi(rest) > kFormatVersion) {
        why = "written by a newer nnc (format version " + rest +
              ", this one reads " + std::to_string(kFormatVersion) + ")";
        out.refusalCode_ = StatusCode::Unimplemented;
      } else if (versioned) {
        why = "format version " + rest + " is not supported";
        out.refusalCode_ = StatusCode::Unimplemented;
      } else {
        why = "not a tuning database (it starts " + quoted(line) + ")";
        out.refusalCode_ = StatusCode::InvalidArgument;
      }
      out.writeable_ = false;
      out.refusal_ = why;
      out.warnings_.push_back(where + "1: " + why +
                              "; no entries read, the file is left as it is");
      stop = true;
      return;
    }
    std::string why;
    if (complete) {
      TuningEntry entry;
      why = parseLine(line, entry);
      if (why.empty()) {
        out.put(std::move(entry));
        return;
      }
      // A line cut short by a crash or a copy ends the file.
      if (!terminated)
        why = "truncated line (" + why + ", no newline at the end)";
    } else {
      why = "line longer than " + std::to_string(kMaxLineBytes) + " bytes";
    }
    if (out.warnings_.size() < kMaxLineWarnings)
      out.warnings_.push_back(where + std::to_string(lineNumber) + ": " + why +
                              "; entry ignored");
    else
      ++unwarned;
  };

  std::string line;
  bool complete = true;
  char buf[64 * 1024];
  while (!stop) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      int err = errno;
      out = TuningDatabase();
      return Status(StatusCode::Unavailable, "cannot read tuning database " +
                                                 path + ": " + errnoText(err));
    }
    if (n == 0) {
      if (!line.empty() || !complete)
        takeLine(line, complete, /*terminated=*/false);
      break;
    }
    const char *p = buf, *end = buf + n;
    while (p < end && !stop) {
      const char *newline =
          static_cast<const char *>(std::memchr(p, '\n', end - p));
      const char *stopAt = newline ? newline : end;
      size_t room = kMaxLineBytes - line.size();
      size_t size = static_cast<size_t>(stopAt - p);
      if (size > room) {
        complete = false;
        size = room;
      }
      line.append(p, size);
      if (!newline)
        break;
      takeLine(line, complete, /*terminated=*/true);
      line.clear();
      complete = true;
      p = newline + 1;
    }
  }
  if (unwarned)
    out.warnings_.push_back("tuning database " + path + ": " +
                            std::to_string(unwarned) +
                            " more damaged lines; entries ignored");
  return Status::ok();
}

Status TuningDatabase::merge(const std::string &path,
                             const std::vector<TuningEntry> &entries,
                             std::vector<std::string> *warnings) {
  for (size_t i = 0; i < entries.size(); ++i) {
    Status valid = validateTuningEntry(entries[i]);
    if (!valid.isOk())
      return Status(StatusCode::InvalidArgument,
                    "cannot add to tuning database " + path + ": entry " +
                        std::to_string(i) + ": " + valid.message());
  }
  FileLock lock;
  NNC_RUNTIME_RETURN_IF_ERROR(lock.acquire(path + ".lock"));
  TuningDatabase current;
  NNC_RUNTIME_RETURN_IF_ERROR(open(path, current));
  if (warnings)
    warnings->insert(warnings->end(), current.warnings_.begin(),
                     current.warnings_.end());
  if (!current.writeable_)
    return Status(current.refusalCode_, "refusing to rewrite tuning database " +
                                            path + ": " + current.refusal_);
  for (const TuningEntry &entry : entries)
    current.put(entry);
  std::string text = serialize(current.entries_);
  return writeFileAtomically(path, text.data(), text.size());
}

Status writeTuningDatabase(const std::string &path,
                           const std::vector<TuningEntry> &entries) {
  std::unordered_set<std::string> keys;
  for (size_t i = 0; i < entries.size(); ++i) {
    Status valid = validateTuningEntry(entries[i]);
    if (!valid.isOk())
      return Status(StatusCode::InvalidArgument,
                    "cannot write tuning database " + path + ": entry " +
                        std::to_string(i) + ": " + valid.message());
    if (!keys.insert(entries[i].key).second)
      return Status(StatusCode::InvalidArgument,
                    "cannot write tuning database " + path + ": entry " +
                        std::to_string(i) + ": key " + entries[i].key +
                        " appears twice");
  }
  std::string text = serialize(entries);
  return writeFileAtomically(path, text.data(), text.size());
}

} // namespace nnc::runtime
