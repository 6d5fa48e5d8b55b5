//===- CudaDriver.cpp - the CUDA driver, opened at run time ---------------===//

#include "nnc/runtime/CudaDriver.h"

#include <cstdlib>

namespace nnc::runtime {

Status CudaDriver::load(CudaDriver &out) {
  std::vector<std::string> candidates;
  if (const char *path = std::getenv("NNC_CUDA_DRIVER"))
    candidates.push_back(path);
  else
    candidates = {"libcuda.so.1", "libcuda.so"};
  CudaDriver driver;
  NNC_RUNTIME_RETURN_IF_ERROR(DynamicLibrary::open(
      candidates, "the CUDA driver (libcuda; is an NVIDIA driver installed?)",
      driver.library));
  void *address = nullptr;
#define NNC_CU_PFN(name, ...)                                                  \
  NNC_RUNTIME_RETURN_IF_ERROR(driver.library.lookup(#name, &address));                 \
  driver.name = reinterpret_cast<decltype(driver.name)>(address);
#include "nnc/runtime/CudaDriverSymbols.def"
#undef NNC_CU_PFN
  if (driver.library.lookup("nnc_emulated_module_load_source", &address)
          .isOk())
    driver.emulatedModuleLoadSource =
        reinterpret_cast<decltype(driver.emulatedModuleLoadSource)>(address);
  out = std::move(driver);
  return Status::ok();
}

Status CudaDriver::check(CUresult result, const char *call) const {
  if (result == 0)
    return Status::ok();
  const char *text = nullptr;
  if (cuGetErrorString)
    cuGetErrorString(result, &text);
  return Status(StatusCode::Internal,
                std::string(call) + " failed with CUDA error " +
                    std::to_string(result) +
                    (text ? std::string(": ") + text : std::string()));
}

} // namespace nnc::runtime
