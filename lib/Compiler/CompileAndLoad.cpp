//===- CompileAndLoad.cpp - compile a function into a loaded program ------===//

#include "nnc/Compiler/CompileAndLoad.h"

#include "nnc/Compiler/Diagnostics.h"
#include "nnc/NNCDialect.h"
#include "nnc/NNCOps.h"
#include "nnc/runtime/Executable.h"
#include "nnc/runtime/Profiler.h"
#include "nnc/runtime/Program.h"

#include <algorithm>
#include <map>
#include <vector>

using namespace mlir;
namespace rt = nnc::runtime;

std::string nnc::opSummary(func::FuncOp func) {
  std::map<std::string, int> counts;
  int total = 0;
  func.walk([&](Operation *op) {
    if (!isa<nnc::NNCDialect>(op->getDialect()) || isa<nnc::ConstantOp>(op))
      return;
    ++counts[op->getName().stripDialect().str()];
    ++total;
  });
  std::vector<std::pair<int, std::string>> sorted;
  for (const auto &[name, count] : counts)
    sorted.emplace_back(-count, name);
  std::sort(sorted.begin(), sorted.end());
  std::string text;
  for (const auto &[negative, name] : sorted)
    text += (text.empty() ? "" : ", ") + name +
            (negative < -1 ? " x" + std::to_string(-negative) : "");
  return text + " (" + std::to_string(total) + " ops)";
}

rt::Status
nnc::compileAndLoad(ModuleOp module, llvm::StringRef name,
                    llvm::ArrayRef<llvm::SmallVector<int64_t>> inputShapes,
                    const CompileOptions &options, rt::Device &device,
                    LoadedProgram &out) {
  auto func = module.lookupSymbol<func::FuncOp>(name);
  if (!func)
    return rt::Status(rt::StatusCode::Internal,
                      "no function @" + name.str() + " to compile");
  if (options.graphReplay && !device.supportsGraphs())
    return rt::Status(rt::StatusCode::InvalidArgument,
                      std::string("graph replay (CUDA graphs) needs a device "
                                  "that records graphs, the cuda target's; "
                                  "@") +
                          name.str() + " would run on the " + device.name() +
                          " device");
  DiagnosticCapture capture(*module.getContext());
  rt::ProfileScope profile("compile", name.str());
  CompileResult result = compile(module, name, inputShapes, options);
  switch (result.failure) {
  case CompileFailure::None:
    break;
  case CompileFailure::InvalidInput:
    return rt::Status(rt::StatusCode::InvalidArgument, capture.errors());
  case CompileFailure::Unsupported:
    return rt::Status(rt::StatusCode::Unimplemented, capture.errors());
  case CompileFailure::Internal:
    return rt::Status(rt::StatusCode::Internal, capture.errors());
  }
  out.source =
      result.cachePath.empty() ? "compiled @" + name.str() : result.cachePath;
  rt::ExecutableReader reader;
  NNC_RUNTIME_RETURN_IF_ERROR(rt::ExecutableReader::fromBytes(
      result.executable.data(), result.executable.size(), reader, out.source));
  NNC_RUNTIME_RETURN_IF_ERROR(
      rt::Program::load(std::move(reader), device, out.source, out.program));
  out.program->setLabel(name.str(), opSummary(func));
  if (options.graphReplay)
    NNC_RUNTIME_RETURN_IF_ERROR(out.program->enableGraphReplay());
  out.seconds = result.seconds;
  out.fromCache = result.fromCache;
  out.tuning = std::move(result.tuning);
  out.tuningSeconds = result.tuningSeconds;
  out.tuningCheck = std::move(result.tuningCheck);
  out.mixedPrecision = result.mixedPrecision;
  out.remat = std::move(result.remat);
  return rt::Status::ok();
}
