//===- Nvrtc.cpp - CUDA C++ to cubins and PTX through NVRTC ---------------===//

#include "Nvrtc.h"

#include "nnc/runtime/DynamicLibrary.h"

#include <cstdlib>
#include <mutex>

namespace {

struct NvrtcLibrary {
  std::string error;
#define NNC_NVRTC_FN(ret, name, ...) ret (*name)(__VA_ARGS__) = nullptr;
#include "NvrtcSymbols.def"
};

const NvrtcLibrary &nvrtc() {
  static NvrtcLibrary library;
  static std::once_flag once;
  std::call_once(once, [] {
    static nnc::runtime::DynamicLibrary handle;
    std::vector<std::string> candidates;
    if (const char *path = std::getenv("NNC_NVRTC_LIBRARY"))
      candidates.push_back(path);
    else
      candidates = {"libnvrtc.so.13", "libnvrtc.so",
                    "/usr/local/cuda/lib64/libnvrtc.so.13",
                    "/usr/local/cuda/lib64/libnvrtc.so"};
    nnc::runtime::Status status = nnc::runtime::DynamicLibrary::open(
        candidates,
        "NVRTC, which compiles the CUDA target's kernels (the CUDA "
        "toolkit's libnvrtc.so; or set NNC_NVRTC_LIBRARY)",
        handle);
#define NNC_NVRTC_FN(ret, name, ...)                                           \
  handle.lookupInto(#name, library.name, status);
#include "NvrtcSymbols.def"
    if (!status.isOk())
      library.error = status.message();
  });
  return library;
}

} // namespace

std::string nnc::cuda::nvrtcVersion() {
  const NvrtcLibrary &lib = nvrtc();
  int major = 0, minor = 0;
  if (!lib.error.empty() || lib.nvrtcVersion(&major, &minor) != 0)
    return "";
  return std::to_string(major) + "." + std::to_string(minor);
}

bool nnc::cuda::compileWithNvrtc(const std::string &source,
                                 const std::string &name,
                                 const std::string &arch,
                                 std::vector<char> &out, std::string &error) {
  const NvrtcLibrary &lib = nvrtc();
  if (!lib.error.empty()) {
    error = lib.error;
    return false;
  }
  auto text = [&](int result) -> std::string {
    const char *s = lib.nvrtcGetErrorString(result);
    return s ? s : "NVRTC error " + std::to_string(result);
  };
  void *program = nullptr;
  if (int r = lib.nvrtcCreateProgram(&program, source.c_str(), name.c_str(),
                                     0, nullptr, nullptr)) {
    error = "nvrtcCreateProgram: " + text(r);
    return false;
  }
  bool cubin = arch.rfind("sm_", 0) == 0;
  std::string archOption = "--gpu-architecture=" + arch;
  const char *options[] = {archOption.c_str(), "--std=c++17",
                           "-I/usr/local/cuda/include"};
  int compiled = lib.nvrtcCompileProgram(program, 3, options);
  size_t logSize = 0;
  lib.nvrtcGetProgramLogSize(program, &logSize);
  std::string log(logSize, '\0');
  if (logSize)
    lib.nvrtcGetProgramLog(program, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  bool ok = compiled == 0;
  if (!ok) {
    error = "NVRTC cannot compile " + name + " for " + arch + " (" +
            text(compiled) + "):\n" + log;
  } else {
    size_t size = 0;
    int r = cubin ? lib.nvrtcGetCUBINSize(program, &size)
                  : lib.nvrtcGetPTXSize(program, &size);
    out.resize(size);
    if (!r)
      r = cubin ? lib.nvrtcGetCUBIN(program, out.data())
                : lib.nvrtcGetPTX(program, out.data());
    if (r) {
      error = std::string(cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX") + ": " +
              text(r);
      ok = false;
    }
  }
  lib.nvrtcDestroyProgram(&program);
  return ok;
}
