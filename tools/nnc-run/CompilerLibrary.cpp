//===- CompilerLibrary.cpp - libnnc, opened when nnc-run needs it ---------===//
//
// Finds and opens libnnc, resolving every symbol of CompilerSymbols.def, or
// reports which library could not be opened and why.
//
//===----------------------------------------------------------------------===//

#include "CompilerLibrary.h"

#include <atomic>
#include <cstdlib>
#include <string>

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

namespace nnc::tools {

namespace {

constexpr const char *kLibraryName = "libnnc.so";

CompilerLibrary table;

/// libnnc next to the libnnc_runtime this process loaded, or "" when it is
/// not there.
std::string besideRuntime() {
  void *runtime = dlopen("libnnc_runtime.so", RTLD_NOW | RTLD_NOLOAD);
  if (!runtime)
    return "";
  struct link_map *map = nullptr;
  std::string path;
  if (dlinfo(runtime, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name)
    path = map->l_name;
  dlclose(runtime); // drops the reference NOLOAD took
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return "";
  path = path.substr(0, slash + 1) + kLibraryName;
  return access(path.c_str(), F_OK) == 0 ? path : "";
}

/// Opens libnnc and fills `table`; the empty string on success, else why
/// not.
std::string load() {
  std::string path;
  if (const char *given = std::getenv("NNC_COMPILER_LIBRARY"))
    path = given;
  else
    path = besideRuntime();
  if (path.empty())
    path = kLibraryName; // the search path: RUNPATH, LD_LIBRARY_PATH, ...
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    return why ? why : "cannot open " + path;
  }
#define NNC_COMPILER_SYMBOL(name)                                              \
  table.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name));      \
  if (!table.name)                                                             \
    return path + " has no symbol " #name;
#include "CompilerSymbols.def"
  // The handle stays open for the life of the process.
  return "";
}

} // namespace

namespace {
std::atomic<bool> opened{false};
} // namespace

bool openCompiler(const std::string &purpose, std::string &error) {
  // Opened once; a failure is remembered too.
  static const std::string failure = load();
  if (failure.empty()) {
    opened = true;
    return true;
  }
  error = purpose + " needs " + kLibraryName + ": " + failure;
  return false;
}

const CompilerLibrary &compiler() { return table; }

bool compilerIsOpen() { return opened.load(); }

} // namespace nnc::tools
