//===- Target.cpp - the registry of compilation targets -------------------===//
//
// Targets register once (lib/InitAll.cpp) and are looked up by name by the
// compile driver and the registered pipelines.
//
//===----------------------------------------------------------------------===//

#include "nnc/Target/Target.h"

#include <mutex>

using namespace nnc;

Target::~Target() = default;

LoweringChoices Target::loweringChoices(const TargetOptions &) const {
  return {};
}

void nnc::Target::buildKernelChoicePipeline(mlir::OpPassManager &,
                                            const TargetOptions &) const {}

void nnc::Target::buildTensorPipeline(mlir::OpPassManager &,
                                      const TargetOptions &) const {}

void nnc::Target::buildKernelGroupingPipeline(mlir::OpPassManager &,
                                              const TargetOptions &) const {}

std::string nnc::Target::checkVariant(llvm::StringRef variant) const {
  if (variant.empty())
    return "";
  return "target '" + name().str() + "' takes no ':" + variant.str() +
         "' after its name";
}

KernelCandidates Target::kernelCandidates(mlir::Operation *,
                                          const TargetOptions &) const {
  return {};
}

std::vector<std::string> Target::followUpCandidates(
    mlir::Operation *, llvm::ArrayRef<std::pair<std::string, double>>,
    const TargetOptions &) const {
  return {};
}

namespace {

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<Target>> targets;
};

Registry &registry() {
  static Registry instance;
  return instance;
}

} // namespace

void nnc::registerTarget(std::unique_ptr<Target> target) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const std::unique_ptr<Target> &known : r.targets)
    if (known->name() == target->name())
      return;
  r.targets.push_back(std::move(target));
}

llvm::StringRef nnc::targetVariant(llvm::StringRef name) {
  size_t colon = name.find(':');
  return colon == llvm::StringRef::npos ? llvm::StringRef()
                                        : name.substr(colon + 1);
}

const Target *nnc::lookupTarget(llvm::StringRef name) {
  name = name.take_front(name.find(':'));
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.targets.empty())
    return nullptr;
  if (name.empty())
    return r.targets.front().get();
  for (const std::unique_ptr<Target> &target : r.targets)
    if (target->name() == name)
      return target.get();
  return nullptr;
}

std::vector<std::string> nnc::registeredTargetNames() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const std::unique_ptr<Target> &target : r.targets)
    names.push_back(target->name().str());
  return names;
}
