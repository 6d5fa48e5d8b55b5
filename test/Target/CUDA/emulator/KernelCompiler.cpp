//===- KernelCompiler.cpp - a module's CUDA C++, built for the host -------===//
//
// Test-only. The emulated driver's modules: the emitter's CUDA C++,
// unchanged, compiled by the host compiler against nnc_cuda_emulation.h
// into a shared object and opened with dlopen, and the signatures of its
// kernels read from the source, since a dlsym'd symbol does not say how
// many parameters it takes.
//
//===----------------------------------------------------------------------===//

#include "Emulator.h"

#include <atomic>
#include <set>
#include <cctype>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <fstream>
#include <mutex>
#include <spawn.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace nnc::cuda_emulator {

void diag(const char *format, ...) {
  // One fprintf per message, so that messages of concurrent threads do not
  // interleave within a line.
  char buffer[2048];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  std::fprintf(stderr, "nnc-cuda-emulator: %s\n", buffer);
}

//===----------------------------------------------------------------------===//
// Kernel signatures
//===----------------------------------------------------------------------===//

namespace {

/// The source's tokens, without comments and preprocessor lines: enough to
/// find each __global__ function and read its declarator.
std::vector<std::string> tokenize(const std::string &s) {
  std::vector<std::string> tokens;
  size_t i = 0, n = s.size();
  bool lineStart = true;
  auto isIdent = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  while (i < n) {
    char c = s[i];
    if (c == '\n') {
      lineStart = true;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (lineStart && c == '#') {
      // A directive, with its continuation lines.
      while (i < n && s[i] != '\n')
        i += (s[i] == '\\' && i + 1 < n) ? 2 : 1;
      continue;
    }
    lineStart = false;
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n')
        ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      i = end == std::string::npos ? n : end + 2;
      continue;
    }
    if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < n && s[j] != c && s[j] != '\n')
        j += (s[j] == '\\') ? 2 : 1;
      j = std::min(j + 1, n);
      tokens.push_back(s.substr(i, j - i));
      i = j;
      continue;
    }
    if (isIdent(c)) {
      size_t j = i;
      while (j < n && isIdent(s[j]))
        ++j;
      std::string word = s.substr(i, j - i);
      // A raw string literal (R"delim(...)delim") may hold anything.
      if (j < n && s[j] == '"' && !word.empty() && word.back() == 'R') {
        size_t open = s.find('(', j);
        if (open != std::string::npos) {
          std::string close = ")" + s.substr(j + 1, open - j - 1) + "\"";
          size_t end = s.find(close, open);
          j = end == std::string::npos ? n : end + close.size();
          tokens.push_back(s.substr(i, j - i));
          i = j;
          continue;
        }
      }
      tokens.push_back(std::move(word));
      i = j;
      continue;
    }
    tokens.push_back(std::string(1, c));
    ++i;
  }
  return tokens;
}

} // namespace

CUresult parseKernels(const std::string &source,
                      std::map<std::string, KernelSignature> &kernels) {
  std::vector<std::string> t = tokenize(source);
  auto at = [&](size_t i) -> const std::string & {
    static const std::string end;
    return i < t.size() ? t[i] : end;
  };
  for (size_t g = 0; g < t.size(); ++g) {
    if (t[g] != "__global__")
      continue;
    size_t i = g + 1;
    std::string where = "a __global__ function";
    auto refuse = [&](const std::string &why) {
      diag("%s: %s; the emulator launches `extern \"C\" __global__ void "
           "[__launch_bounds__(N)] NAME(char *a0, ...)` as nnc's CUDA emitter "
           "writes them",
           where.c_str(), why.c_str());
      return CUDA_ERROR_INVALID_SOURCE;
    };
    if (g < 2 || t[g - 2] != "extern" || t[g - 1] != "\"C\"")
      return refuse("not declared extern \"C\", so it has no name to look up");
    if (at(i) != "void")
      return refuse("does not return void");
    ++i;
    KernelSignature sig;
    if (at(i) == "__launch_bounds__") {
      if (at(i + 1) != "(" ||
          !std::isdigit(static_cast<unsigned char>(at(i + 2)[0])))
        return refuse("unreadable __launch_bounds__");
      sig.maxThreads =
          static_cast<unsigned>(std::strtoul(at(i + 2).c_str(), nullptr, 0));
      i += 3;
      while (i < t.size() && t[i] != ")")
        ++i;
      ++i;
    }
    const std::string &name = at(i);
    if (name.empty() ||
        !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
      return refuse("no name after the return type");
    where = "kernel '" + name + "'";
    if (at(++i) != "(")
      return refuse("no parameter list");
    ++i;
    if (at(i) == "void" && at(i + 1) == ")")
      ++i;
    while (at(i) != ")") {
      size_t begin = i;
      bool ok = at(i) == "char" && at(i + 1) == "*";
      i += 2;
      if (ok && at(i) != "," && at(i) != ")")
        ++i; // the parameter's name
      ok = ok && (at(i) == "," || at(i) == ")");
      if (!ok) {
        std::string text;
        for (size_t k = begin;
             k < t.size() && t[k] != "," && t[k] != ")" && k < begin + 8; ++k)
          text += (text.empty() ? "" : " ") + t[k];
        return refuse("parameter " + std::to_string(sig.numParams) + " is `" +
                      text + "`, not `char *`");
      }
      ++sig.numParams;
      if (at(i) == ",")
        ++i;
    }
    // CUDA's limit: 4 KiB of parameters (32764 bytes since CUDA 12.1).
    if (sig.numParams > 4095)
      return refuse("takes " + std::to_string(sig.numParams) +
                    " parameters, more than CUDA's 4095 pointers");
    auto [it, inserted] = kernels.emplace(name, sig);
    if (!inserted && (it->second.numParams != sig.numParams ||
                      it->second.maxThreads != sig.maxThreads))
      return refuse("declared twice with different parameters or bounds");
    g = i;
  }
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Compilation and the cache
//===----------------------------------------------------------------------===//

namespace {

// Made on first use, removed at unload: by the emulator's destructor, which
// runs after the C++ static destructors, so a plain array, not a string.
std::mutex privateDirMutex;
char privateDir[4096];

/// Two FNV-1a hashes of 64 bits: a cache key, not a defense against
/// crafted collisions.
struct Hasher {
  unsigned long long a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
  void add(const std::string &s) {
    for (unsigned char c : s) {
      a = (a ^ c) * 0x100000001b3ull;
      b = (b ^ c) * 0x100000001b3ull;
    }
    // A separator, so that ("ab", "c") and ("a", "bc") differ.
    a = (a ^ 0xff) * 0x100000001b3ull;
    b = (b ^ 0xfe) * 0x100000001b3ull;
  }
  std::string hex() const {
    char buffer[33];
    std::snprintf(buffer, sizeof buffer, "%016llx%016llx", a, b);
    return buffer;
  }
};

bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

bool writeFile(const std::string &path, const std::string &data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  out.close();
  return static_cast<bool>(out);
}

bool makeDirectories(const std::string &path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    std::string prefix = path.substr(0, slash);
    if (!prefix.empty() && mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST)
      return false;
    if (slash == std::string::npos)
      return true;
  }
}

/// $NNC_EMULATOR_CACHE, else a directory of this process's own.
CUresult compilationDirectory(std::string &dir) {
  const char *cache = std::getenv("NNC_EMULATOR_CACHE");
  if (cache && *cache) {
    dir = cache;
    if (!makeDirectories(dir)) {
      diag("cannot create the kernel cache $NNC_EMULATOR_CACHE=%s: %s", cache,
           std::strerror(errno));
      return CUDA_ERROR_OPERATING_SYSTEM;
    }
    return CUDA_SUCCESS;
  }
  std::lock_guard<std::mutex> lock(privateDirMutex);
  if (!privateDir[0]) {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/nnc-cuda-emulator-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (buffer.size() > sizeof privateDir || !mkdtemp(buffer.data())) {
      diag("cannot create a directory for compiled kernels from %s: %s",
           pattern.c_str(), std::strerror(errno));
      return CUDA_ERROR_OPERATING_SYSTEM;
    }
    std::memcpy(privateDir, buffer.data(), buffer.size());
  }
  dir = privateDir;
  return CUDA_SUCCESS;
}

std::vector<std::string> splitWords(const std::string &s) {
  std::vector<std::string> words;
  std::istringstream in(s);
  for (std::string w; in >> w;)
    words.push_back(w);
  return words;
}

std::string joinWords(const std::vector<std::string> &words) {
  std::string out;
  for (const std::string &w : words)
    out += (out.empty() ? "" : " ") + w;
  return out;
}

/// Runs `argv` with stdout and stderr into `logPath`; the exit status, or
/// -1 with errno's message in `error` when it could not start.
int run(const std::vector<std::string> &argv, const std::string &logPath,
        std::string &error) {
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, logPath.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    error = std::strerror(rc);
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      error = std::strerror(errno);
      return -1;
    }
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  error = "killed by signal " + std::to_string(WTERMSIG(status));
  return -1;
}

CUresult openModule(const std::string &path, void *&handle,
                    ModuleLauncher &launcher) {
  // RTLD_LOCAL: every module has its own kernels and emulation globals.
  handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    diag("cannot open the compiled module %s: %s", path.c_str(), dlerror());
    return CUDA_ERROR_SHARED_OBJECT_INIT_FAILED;
  }
  launcher =
      reinterpret_cast<ModuleLauncher>(dlsym(handle, "nnc_emulator_launch"));
  if (!launcher) {
    diag("the compiled module %s has no nnc_emulator_launch: its "
         "nnc_cuda_emulation.h (see $NNC_EMULATOR_INCLUDE) predates the "
         "emulator",
         path.c_str());
    dlclose(handle);
    handle = nullptr;
    return CUDA_ERROR_SHARED_OBJECT_INIT_FAILED;
  }
  return CUDA_SUCCESS;
}

} // namespace

std::string withLaunchers(const std::string &source,
                          const std::map<std::string, KernelSignature> &kernels) {
  std::set<unsigned> arities;
  for (const auto &[name, sig] : kernels)
    if (sig.numParams > 64)
      arities.insert(sig.numParams);
  std::string text = source;
  for (unsigned n : arities)
    text += "\nNNC_EMULATION_ARITY(" + std::to_string(n) + ")";
  return text;
}

CUresult compileModule(const std::string &source, void *&handle,
                       ModuleLauncher &launcher) {
  const char *cxx = std::getenv("NNC_EMULATOR_CXX");
  std::vector<std::string> compiler = splitWords(cxx && *cxx ? cxx : "c++");
  if (compiler.empty())
    compiler.push_back("c++");
  const char *include = std::getenv("NNC_EMULATOR_INCLUDE");
  std::string includeDir =
      include && *include ? include : NNC_EMULATOR_DEFAULT_INCLUDE;
  std::vector<std::string> flags = {
      "-std=c++17", "-O1",      "-fPIC",    "-shared",
      "-I",         includeDir, "-include", "nnc_cuda_emulation.h",
      "-x",         "c++"};

  // The key: the command (without its file names), the emulation header it
  // includes (a changed header must not reuse stale modules) and the source.
  std::string header;
  readFile(includeDir + "/nnc_cuda_emulation.h", header);
  Hasher hasher;
  hasher.add("nnc-cuda-emulator module 1");
  hasher.add(joinWords(compiler) + " " + joinWords(flags));
  hasher.add(header);
  hasher.add(source);

  std::string dir;
  if (CUresult r = compilationDirectory(dir))
    return r;
  std::string base = dir + "/" + hasher.hex();
  std::string modulePath = base + ".so";
  if (access(modulePath.c_str(), R_OK) == 0 &&
      openModule(modulePath, handle, launcher) == CUDA_SUCCESS)
    return CUDA_SUCCESS;

  // Unique temporary names beside the module: several threads or processes
  // may compile the same source at once, and each renames its own result
  // into place atomically.
  static std::atomic<unsigned> counter{0};
  std::string unique = base + ".tmp" + std::to_string(getpid()) + "-" +
                       std::to_string(counter.fetch_add(1));
  std::string sourcePath = unique + ".cu", outputPath = unique + ".so",
              logPath = unique + ".log";
  if (!writeFile(sourcePath, source)) {
    diag("cannot write the kernel source to %s: %s", sourcePath.c_str(),
         std::strerror(errno));
    unlink(sourcePath.c_str());
    return CUDA_ERROR_OPERATING_SYSTEM;
  }
  std::vector<std::string> argv = compiler;
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {sourcePath, "-o", outputPath});
  std::string error, log;
  int status = run(argv, logPath, error);
  readFile(logPath, log);
  unlink(sourcePath.c_str());
  unlink(logPath.c_str());
  if (status != 0) {
    unlink(outputPath.c_str());
    if (status < 0)
      diag("cannot run the host compiler ($NNC_EMULATOR_CXX): %s\n  %s",
           error.c_str(), joinWords(argv).c_str());
    else
      diag("the host compiler rejected a module's source (exit status %d):"
           "\n  %s",
           status, joinWords(argv).c_str());
    std::fwrite(log.data(), 1, log.size(), stderr);
    return CUDA_ERROR_INVALID_SOURCE;
  }
  if (rename(outputPath.c_str(), modulePath.c_str()) != 0) {
    diag("cannot move the compiled module to %s: %s", modulePath.c_str(),
         std::strerror(errno));
    unlink(outputPath.c_str());
    return CUDA_ERROR_OPERATING_SYSTEM;
  }
  return openModule(modulePath, handle, launcher);
}

void removePrivateDirectory() {
  std::lock_guard<std::mutex> lock(privateDirMutex);
  if (!privateDir[0])
    return;
  // Opened modules stay mapped after their files are unlinked.
  if (DIR *d = opendir(privateDir)) {
    while (dirent *entry = readdir(d)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..")
        unlink((std::string(privateDir) + "/" + name).c_str());
    }
    closedir(d);
  }
  rmdir(privateDir);
  privateDir[0] = '\0';
}

} // namespace nnc::cuda_emulator
