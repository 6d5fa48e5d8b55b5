//===- CPUCodegen.cpp - LLVM dialect to a shared object -------------------===//
//
// Everything happens in this process: MLIR's LLVM IR export, LLVM's
// optimization pipeline and object emission for the host CPU, and lld (as a
// library) linking the object into a shared object the runtime can load.
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"

#include "nnc/runtime/LibraryConvolution.h"

#include "lld/Common/Driver.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <algorithm>
#include <dlfcn.h>
#include <mutex>
#include <thread>

LLD_HAS_DRIVER(elf)

using namespace mlir;

namespace {

/// CPU features the runtime can check before loading code (see
/// runtime/lib/CpuDevice.cpp, hostHasCpuFeature).
const char *const kCheckedFeatures[] = {
#define NNC_CPU_FEATURE(name) name,
#include "nnc/runtime/CpuFeatures.def"
#undef NNC_CPU_FEATURE
};

struct HostTarget {
  llvm::Triple triple;
  std::string cpu;
  std::string features; // "+avx2,-avx512f,..."
  std::vector<std::string> checked;
  unsigned vectorBits = 128;
  const llvm::Target *target = nullptr;
  std::string error;
};

const HostTarget &hostTarget() {
  static HostTarget *host = [] {
    auto *h = new HostTarget;
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    h->triple = llvm::Triple(llvm::sys::getProcessTriple());
    h->cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    std::vector<std::string> list;
    for (const auto &entry : features)
      list.push_back((entry.second ? "+" : "-") + entry.getKey().str());
    llvm::sort(list);
    h->features = llvm::join(list, ",");
    if (h->triple.isX86()) {
      auto has = [&](llvm::StringRef name) { return features.lookup(name); };
      h->vectorBits = has("avx512f") ? 512 : has("avx") ? 256 : 128;
    }
    for (const char *name : kCheckedFeatures) {
      auto it = features.find(name);
      if (it != features.end() && it->second)
        h->checked.push_back(name);
    }
    h->target = llvm::TargetRegistry::lookupTarget(h->triple, h->error);
    return h;
  }();
  return *host;
}

/// Drops LLVM's optimization remarks and failures ("loop not vectorized"):
/// a loop schedule's vector width (nnc/LoopSchedule.h) is a request, and a
/// loop LLVM cannot vectorize at that width stays as it was, which is
/// nothing to tell a user; everything else is reported as before.
struct DiagnosticFilter final : llvm::DiagnosticHandler {
  bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
    return llvm::isa<llvm::DiagnosticInfoOptimizationBase>(info) &&
           info.getSeverity() != llvm::DS_Error;
  }
};

void filterDiagnostics(llvm::LLVMContext &context) {
  context.setDiagnosticHandler(std::make_unique<DiagnosticFilter>());
}

/// Adds `void symbol(void **args)` calling `function` with the pointers.
LogicalResult addEntryPoint(llvm::Module &module,
                            const nnc::KernelEntry &kernel,
                            ModuleOp diagnostics) {
  llvm::Function *impl = module.getFunction(kernel.function);
  if (!impl || impl->isDeclaration())
    return emitError(diagnostics.getLoc())
           << "codegen: no function '" << kernel.function << "' to export";
  if (impl->arg_size() != kernel.numPointers ||
      llvm::any_of(impl->args(), [](llvm::Argument &a) {
        return !a.getType()->isPointerTy();
      }))
    return emitError(diagnostics.getLoc())
           << "codegen: function '" << kernel.function << "' takes "
           << impl->arg_size() << " arguments, expected " << kernel.numPointers
           << " pointers";
  // The runtime never passes the same buffer twice (inputs, weights and
  // outputs are distinct allocations), which lets LLVM vectorize freely.
  for (llvm::Argument &arg : impl->args())
    arg.addAttr(llvm::Attribute::NoAlias);
  llvm::LLVMContext &ctx = module.getContext();
  auto *ptrType = llvm::PointerType::getUnqual(ctx);
  auto *type =
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptrType}, false);
  auto *entry = llvm::Function::Create(type, llvm::Function::ExternalLinkage,
                                       kernel.symbol, module);
  entry->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", entry));
  llvm::Value *args = entry->getArg(0);
  llvm::SmallVector<llvm::Value *> pointers;
  for (size_t i = 0; i < kernel.numPointers; ++i) {
    llvm::Value *slot = b.CreateConstInBoundsGEP1_64(ptrType, args, i);
    pointers.push_back(b.CreateLoad(ptrType, slot));
  }
  b.CreateCall(impl, pointers);
  b.CreateRetVoid();
  return success();
}

/// lld keeps global state: one link at a time.
std::mutex &linkerMutex() {
  static std::mutex mutex;
  return mutex;
}

LogicalResult
linkSharedObject(llvm::ArrayRef<llvm::SmallVector<char, 0>> objects,
                 std::vector<uint8_t> &out, ModuleOp diagnostics) {
  llvm::SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("nnc-link", dir))
    return emitError(diagnostics.getLoc())
           << "codegen: cannot create a temporary folder: " << ec.message();
  llvm::SmallString<128> sharedPath(dir);
  llvm::sys::path::append(sharedPath, "kernels.so");
  std::vector<std::string> objectPaths;
  llvm::scope_exit cleanup([&] {
    for (const std::string &path : objectPaths)
      llvm::sys::fs::remove(path);
    llvm::sys::fs::remove(sharedPath);
    llvm::sys::fs::remove(dir);
  });
  for (auto [i, object] : llvm::enumerate(objects)) {
    llvm::SmallString<128> objectPath(dir);
    llvm::sys::path::append(objectPath, "kernels" + std::to_string(i) + ".o");
    objectPaths.push_back(std::string(objectPath));
    std::error_code ec;
    llvm::raw_fd_ostream os(objectPath, ec);
    if (ec)
      return emitError(diagnostics.getLoc())
             << "codegen: cannot write " << objectPath << ": " << ec.message();
    os.write(object.data(), object.size());
  }
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  std::string output;
  llvm::raw_string_ostream outputStream(output);
  std::string outArg = std::string(sharedPath);
  std::vector<const char *> args = {"ld.lld",
                                    "-shared",
                                    "--hash-style=gnu",
                                    "-z",
                                    "now",
                                    "-z",
                                    "noexecstack",
                                    "-z",
                                    "relro",
                                    "--build-id=none",
                                    "-soname",
                                    "nnc-kernels.so",
                                    "-o",
                                    outArg.c_str()};
  for (const std::string &path : objectPaths)
    args.push_back(path.c_str());
  lld::Result result;
  {
    std::lock_guard<std::mutex> lock(linkerMutex());
    result = lld::lldMain(args, outputStream, errorStream,
                          {{lld::Gnu, &lld::elf::link}});
  }
  if (result.retCode != 0)
    return emitError(diagnostics.getLoc())
           << "codegen: linking the kernels failed: " << errors;
  auto buffer = llvm::MemoryBuffer::getFile(sharedPath, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return emitError(diagnostics.getLoc()) << "codegen: cannot read the linked "
                                              "kernels: "
                                           << buffer.getError().message();
  llvm::StringRef bytes = (*buffer)->getBuffer();
  out.assign(bytes.begin(), bytes.end());
  return success();
}

/// One partition's object code and what it calls.
struct PartitionResult {
  llvm::SmallVector<char, 0> object;
  bool usesOpenMP = false, usesBlas = false, usesDnnl = false;
  bool usesCollectives = false;
  std::string error;
};

/// Optimizes `module` at `optLevel` and emits its object code. Functions in
/// `defined` come from another partition; anything else the code calls must
/// be in the C library, libm, the OpenMP runtime or BLAS.
PartitionResult compilePartition(llvm::Module &module,
                                 llvm::TargetMachine &machine, int optLevel,
                                 const llvm::StringSet<> &defined) {
  PartitionResult result;
  {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder builder(&machine);
    builder.registerModuleAnalyses(mam);
    builder.registerCGSCCAnalyses(cgam);
    builder.registerFunctionAnalyses(fam);
    builder.registerLoopAnalyses(lam);
    builder.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::OptimizationLevel opt = optLevel <= 0   ? llvm::OptimizationLevel::O0
                                  : optLevel == 1 ? llvm::OptimizationLevel::O1
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O3;
    llvm::ModulePassManager passes =
        optLevel <= 0 ? builder.buildO0DefaultPipeline(opt)
                      : builder.buildPerModuleDefaultPipeline(opt);
    passes.run(module, mam);
  }

  // What the code calls must exist where it runs: the C library and libm
  // (in every process that loads nnc), or the OpenMP runtime and BLAS,
  // which the runtime opens first (so they need not be loaded here).
  for (llvm::Function &f : module) {
    if (!f.isDeclaration() || f.isIntrinsic() || f.use_empty() ||
        defined.contains(f.getName()))
      continue;
    llvm::StringRef name = f.getName();
    if (name.starts_with("__kmpc_") || name.starts_with("omp_")) {
      result.usesOpenMP = true;
      continue;
    }
    if (name == "cblas_sgemm" || name == "cblas_dgemm") {
      result.usesBlas = true;
      continue;
    }
    if (name == nnc::runtime::libconv::kConvolutionSymbol ||
        name == nnc::runtime::libconv::kSbgemmSymbol ||
        name == nnc::runtime::libconv::kSgemmSymbol) {
      result.usesDnnl = true;
      continue;
    }
    if (name == "nnc_runtime_all_reduce") {
      result.usesCollectives = true;
      continue;
    }
    if (!dlsym(RTLD_DEFAULT, name.str().c_str())) {
      result.error = "the generated code calls '" + name.str() +
                     "', which no library of the runtime provides";
      return result;
    }
  }

  llvm::raw_svector_ostream os(result.object);
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, os, nullptr,
                                  llvm::CodeGenFileType::ObjectFile)) {
    result.error = "the target cannot emit object files";
    return result;
  }
  codegen.run(module);
  return result;
}

} // namespace

std::string nnc::cpu::hostCpuDescription() {
  const HostTarget &host = hostTarget();
  return host.triple.str() + " " + host.cpu + " " + host.features;
}

unsigned nnc::cpu::hostVectorBits() { return hostTarget().vectorBits; }

LogicalResult
nnc::cpu::generateSharedObject(ModuleOp module,
                               const std::vector<KernelEntry> &kernels,
                               int optLevel, CPUCodegenResult &result) {
  const HostTarget &host = hostTarget();
  if (!host.target)
    return emitError(module.getLoc())
           << "codegen: no LLVM target for " << host.triple.str() << ": "
           << host.error;
  llvm::TargetOptions targetOptions;
  llvm::CodeGenOptLevel level = optLevel <= 0   ? llvm::CodeGenOptLevel::None
                                : optLevel == 1 ? llvm::CodeGenOptLevel::Less
                                : optLevel == 2
                                    ? llvm::CodeGenOptLevel::Default
                                    : llvm::CodeGenOptLevel::Aggressive;
  std::unique_ptr<llvm::TargetMachine> machine(host.target->createTargetMachine(
      host.triple, host.cpu, host.features, targetOptions, llvm::Reloc::PIC_,
      std::nullopt, level));
  if (!machine)
    return emitError(module.getLoc())
           << "codegen: cannot create a target machine for " << host.cpu;

  llvm::LLVMContext llvmContext;
  filterDiagnostics(llvmContext);
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "nnc_kernels");
  if (!llvmModule)
    return emitError(module.getLoc())
           << "codegen: translation to LLVM IR failed";
  llvmModule->setTargetTriple(host.triple);
  llvmModule->setDataLayout(machine->createDataLayout());

  for (const nnc::KernelEntry &kernel : kernels)
    if (failed(addEntryPoint(*llvmModule, kernel, module)))
      return failure();
  // Only the entry points are exported; the rest may be inlined away.
  llvm::StringSet<> exported;
  for (const nnc::KernelEntry &kernel : kernels)
    exported.insert(kernel.symbol);
  for (llvm::Function &f : *llvmModule)
    if (!f.isDeclaration() && !exported.contains(f.getName()))
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
  // What no entry point reaches goes before the module is split: the
  // function that calls the kernels in order (the plan does that), which
  // would otherwise tie the kernels' partitions together.
  for (bool erased = true; erased;) {
    erased = false;
    for (llvm::Function &f : llvm::make_early_inc_range(*llvmModule))
      if (f.hasLocalLinkage() && f.use_empty()) {
        f.eraseFromParent();
        erased = true;
      }
  }

  if (llvm::verifyModule(*llvmModule, &llvm::errs()))
    return emitError(module.getLoc())
           << "codegen: the generated LLVM IR is invalid";

  // Optimization and code generation in parallel: a module with many
  // kernels is split into partitions (kernels do not call each other), each
  // optimized and compiled to an object in a context of its own on its own
  // thread; lld links the objects.
  unsigned partitions = 1;
  if (kernels.size() >= 16)
    partitions = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  llvm::StringSet<> defined;
  for (llvm::Function &f : *llvmModule)
    if (!f.isDeclaration())
      defined.insert(f.getName());
  std::vector<std::string> bitcode;
  if (partitions > 1) {
    llvm::SplitModule(
        *llvmModule, partitions,
        [&](std::unique_ptr<llvm::Module> part) {
          std::string bytes;
          llvm::raw_string_ostream os(bytes);
          llvm::WriteBitcodeToFile(*part, os);
          bitcode.push_back(std::move(bytes));
        },
        /*PreserveLocals=*/false, /*RoundRobin=*/true);
  }
  std::vector<PartitionResult> parts(std::max<size_t>(bitcode.size(), 1));
  if (bitcode.empty()) {
    parts[0] = compilePartition(*llvmModule, *machine, optLevel, defined);
  } else {
    std::vector<std::thread> threads;
    for (size_t i = 0; i < bitcode.size(); ++i)
      threads.emplace_back([&, i] {
        llvm::LLVMContext context;
        filterDiagnostics(context);
        auto part = llvm::parseBitcodeFile(
            llvm::MemoryBufferRef(bitcode[i], "partition"), context);
        if (!part) {
          parts[i].error =
              "cannot read a partition: " + llvm::toString(part.takeError());
          return;
        }
        std::unique_ptr<llvm::TargetMachine> partMachine(
            host.target->createTargetMachine(
                host.triple, host.cpu, host.features, targetOptions,
                llvm::Reloc::PIC_, std::nullopt, level));
        if (!partMachine) {
          parts[i].error = "cannot create a target machine";
          return;
        }
        parts[i] = compilePartition(**part, *partMachine, optLevel, defined);
      });
    for (std::thread &thread : threads)
      thread.join();
  }
  result.usesOpenMP = false;
  result.usesBlas = false;
  result.usesDnnl = false;
  result.usesCollectives = false;
  std::vector<llvm::SmallVector<char, 0>> objects;
  for (PartitionResult &part : parts) {
    if (!part.error.empty())
      return emitError(module.getLoc()) << "codegen: " << part.error;
    result.usesOpenMP |= part.usesOpenMP;
    result.usesBlas |= part.usesBlas;
    result.usesDnnl |= part.usesDnnl;
    result.usesCollectives |= part.usesCollectives;
    objects.push_back(std::move(part.object));
  }
  if (failed(linkSharedObject(objects, result.sharedObject, module)))
    return failure();
  result.cpuFeatures = host.checked;
  return success();
}
