//===- AllTargets.cpp - the targets of this build -------------------------===//
//
// The one list of targets: everything outside lib/Target reaches them
// through these functions and the registry.
//
//===----------------------------------------------------------------------===//

#include "nnc/Target/CPU/CPUTarget.h"
#include "nnc/Target/CUDA/CUDAEmitter.h"
#include "nnc/Target/Target.h"

#include <mutex>

void nnc::registerAllTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    // The first is the default.
    cpu::registerCPUTarget();
    cuda::registerCUDATarget();
  });
}

void nnc::registerAllTargetDialects(mlir::DialectRegistry &registry) {
  cpu::registerCPUDialects(registry);
}

void nnc::registerAllTargetPasses() {
  cpu::registerCPUPasses();
  cuda::registerCUDAPasses();
}

void nnc::registerAllTargetTranslations() { cuda::registerCudaTranslation(); }
