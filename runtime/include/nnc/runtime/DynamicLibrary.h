//===- DynamicLibrary.h - dlopen with clear errors --------------*- C++ -*-===//
//
// A shared library opened at run time. GPU libraries (libcuda, NVRTC, cuBLAS,
// NCCL) are reached only through this, so a missing one is a status naming
// it, never a loader failure at start-up.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_RUNTIME_DYNAMICLIBRARY_H
#define NNC_RUNTIME_DYNAMICLIBRARY_H

#include "nnc/runtime/Status.h"

#include <string>
#include <vector>

namespace nnc::runtime {

class DynamicLibrary {
public:
  DynamicLibrary() = default;
  DynamicLibrary(const DynamicLibrary &) = delete;
  DynamicLibrary &operator=(const DynamicLibrary &) = delete;
  DynamicLibrary(DynamicLibrary &&other) noexcept;
  DynamicLibrary &operator=(DynamicLibrary &&other) noexcept;
  ~DynamicLibrary();

  /// Opens the first of `candidates` that loads. `purpose` names what the
  /// library is for in the error, e.g. "the CUDA driver". With `global`,
  /// its symbols become visible to libraries opened later (RTLD_GLOBAL), as
  /// generated code calling into the OpenMP runtime needs.
  static Status open(const std::vector<std::string> &candidates,
                     const std::string &purpose, DynamicLibrary &out,
                     bool global = false);

  /// Resolves `symbol`; fails naming the symbol and the library.
  Status lookup(const char *symbol, void **out) const;

  /// Resolves `symbol` into the function pointer `fn` unless `status`
  /// already failed, keeping the first failure in `status`: a symbol table
  /// loads in one run of calls, one per function.
  template <typename Fn>
  void lookupInto(const char *symbol, Fn &fn, Status &status) const {
    void *address = nullptr;
    if (status.isOk())
      status = lookup(symbol, &address);
    fn = reinterpret_cast<Fn>(address);
  }

  bool isOpen() const { return handle_ != nullptr; }
  const std::string &path() const { return path_; }

private:
  void close();

  void *handle_ = nullptr;
  std::string path_;
};

/// The directory of libnnc_runtime.so, with a trailing slash (where its
/// glue libraries, libnnc_dnnl.so and libnnc_gloo.so, sit); empty when
/// unknown.
std::string runtimeLibraryDirectory();

} // namespace nnc::runtime

#endif // NNC_RUNTIME_DYNAMICLIBRARY_H
