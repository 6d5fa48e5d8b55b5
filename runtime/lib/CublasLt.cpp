//===- CublasLt.cpp - cuBLASLt opened with dlopen -------------------------===//

#include "nnc/runtime/CublasLt.h"

namespace nnc::runtime {

Status CublasLt::load(const std::vector<std::string> &candidates,
                      CublasLt &out) {
  CublasLt lt;
  NNC_RUNTIME_RETURN_IF_ERROR(DynamicLibrary::open(
      candidates,
      "cuBLASLt, the CUDA target's GEMM library (libcublasLt from the CUDA "
      "toolkit; $NNC_CUBLASLT names another)",
      lt.library));
  Status status;
#define NNC_LT_PFN(name, ...) lt.library.lookupInto(#name, lt.name, status);
#include "nnc/runtime/CublasLtSymbols.def"
#undef NNC_LT_PFN
  lt.library.lookupInto("cublasLtGetVersion", lt.cublasLtGetVersion, status);
  lt.library.lookupInto("cublasLtGetStatusString", lt.cublasLtGetStatusString,
                        status);
  NNC_RUNTIME_RETURN_IF_ERROR(status);
  out = std::move(lt);
  return Status::ok();
}

Status CublasLt::check(int result, const char *call) const {
  if (result == 0)
    return Status::ok();
  const char *text = cublasLtGetStatusString ? cublasLtGetStatusString(result)
                                             : nullptr;
  return Status(StatusCode::Internal,
                std::string(call) + " failed with cuBLAS status " +
                    std::to_string(result) +
                    (text ? std::string(": ") + text : std::string()));
}

} // namespace nnc::runtime
