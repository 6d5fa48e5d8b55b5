//===- DynamicLibrary.cpp - dlopen with clear errors ----------------------===//

#include "nnc/runtime/DynamicLibrary.h"

#include <dlfcn.h>

namespace nnc::runtime {

std::string runtimeLibraryDirectory() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&runtimeLibraryDirectory), &info) ||
      !info.dli_fname)
    return "";
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

DynamicLibrary::DynamicLibrary(DynamicLibrary &&other) noexcept
    : handle_(other.handle_), path_(std::move(other.path_)) {
  other.handle_ = nullptr;
}

DynamicLibrary &DynamicLibrary::operator=(DynamicLibrary &&other) noexcept {
  if (this != &other) {
    close();
    handle_ = other.handle_;
    path_ = std::move(other.path_);
    other.handle_ = nullptr;
  }
  return *this;
}

DynamicLibrary::~DynamicLibrary() { close(); }

void DynamicLibrary::close() {
  if (handle_)
    dlclose(handle_);
  handle_ = nullptr;
  path_.clear();
}

Status DynamicLibrary::open(const std::vector<std::string> &candidates,
                            const std::string &purpose, DynamicLibrary &out,
                            bool global) {
  if (candidates.empty())
    return Status(StatusCode::InvalidArgument,
                  "no library names given for " + purpose);
  std::string errors;
  for (const std::string &name : candidates) {
    if (void *handle = dlopen(name.c_str(),
                                RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL))) {
      out.close();
      out.handle_ = handle;
      out.path_ = name;
      return Status::ok();
    }
    const char *error = dlerror();
    errors += "\n  " + name + ": " + (error ? error : "unknown error");
  }
  return Status(StatusCode::Unavailable,
                "cannot load " + purpose + "; tried:" + errors);
}

Status DynamicLibrary::lookup(const char *symbol, void **out) const {
  *out = nullptr;
  if (!handle_)
    return Status(StatusCode::Internal, std::string("lookup of '") + symbol +
                                            "' in a library that is not open");
  dlerror();
  void *address = dlsym(handle_, symbol);
  if (!address) {
    const char *error = dlerror();
    return Status(StatusCode::NotFound,
                  path_ + " has no symbol '" + symbol + "'" +
                      (error ? std::string(" (") + error + ")" : ""));
  }
  *out = address;
  return Status::ok();
}

} // namespace nnc::runtime
