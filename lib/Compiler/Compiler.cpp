//===- Compiler.cpp - the compile driver for the host CPU -----------------===//
//
// compileForHostCPU: specialize on concrete shapes, move parameter values into
// a weights blob, consult the cache, lower to the LLVM dialect, generate a
// shared object (CPUCodegen.cpp) and package plan, code and weights into an
// executable.
//
//===----------------------------------------------------------------------===//

#include "nnc/Compiler/Compiler.h"

#include "CPUCodegen.h"

#include "nnc/InitAll.h"
#include "nnc/NNCDialect.h"
#include "nnc/runtime/Executable.h"
#include "nnc/runtime/Plan.h"
#include "nnc/runtime/Program.h"
#include "nnc/runtime/Sha256.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <dlfcn.h>
#include <sys/stat.h>

using namespace mlir;
namespace rt = nnc::runtime;

const char *nnc::compilerVersionString() {
  return "nnc 0.1.0 (LLVM " LLVM_VERSION_STRING ")";
}

std::string nnc::defaultCacheDir() {
  if (const char *dir = std::getenv("NNC_CACHE_DIR"))
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/nnc";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/nnc";
  return "";
}

namespace {

using Clock = std::chrono::steady_clock;

/// The build of the compiler: the file holding this code (libnnc.so or a
/// tool) by path, size and modification time. Part of the cache key, so that
/// a rebuilt compiler (a fixed lowering, a new pass) never reuses what an
/// older one compiled.
const std::string &compilerBuildIdentity() {
  static const std::string identity = [] {
    Dl_info info;
    struct stat st;
    if (!dladdr(reinterpret_cast<void *>(&compilerBuildIdentity), &info) ||
        !info.dli_fname || ::stat(info.dli_fname, &st) != 0)
      return std::string("unknown build");
    return std::string(info.dli_fname) + " " + std::to_string(st.st_size) +
           " " + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec);
  }();
  return identity;
}

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  for (auto [i, d] : llvm::enumerate(shape))
    text += (i ? "x" : "") +
            (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d));
  return text;
}

/// Calls into CBLAS per run (docs/CPUBackend.md): one for each call outside
/// loops, times the trip counts of the loops around it (the batch loop of
/// --nnc-gemm-to-blas has static bounds). Saturates at UINT32_MAX.
uint32_t countLibraryCalls(ModuleOp module) {
  uint64_t total = 0;
  module.walk([&](func::CallOp call) {
    if (!call.getCallee().starts_with("cblas_"))
      return;
    uint64_t count = 1;
    for (auto loop = call->getParentOfType<scf::ForOp>(); loop;
         loop = loop->getParentOfType<scf::ForOp>()) {
      std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
      std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
      std::optional<int64_t> step = getConstantIntValue(loop.getStep());
      uint64_t trips = 1;
      if (lb && ub && step && *step > 0)
        trips = *ub > *lb
                    ? static_cast<uint64_t>((*ub - *lb + *step - 1) / *step)
                    : 0;
      count = std::min<uint64_t>(count * std::min<uint64_t>(trips, UINT32_MAX),
                                 UINT32_MAX);
    }
    total = std::min<uint64_t>(total + count, UINT32_MAX);
  });
  return static_cast<uint32_t>(total);
}

/// Kernels and bytes moved of `name` after the bufferization pipeline.
struct KernelFigures {
  uint32_t kernels = 0;
  uint64_t bytes = 0;
};
KernelFigures kernelFigures(ModuleOp module, StringRef name) {
  KernelFigures figures;
  auto func = module.lookupSymbol<func::FuncOp>(name);
  if (!func || func.isExternal())
    return figures;
  for (auto call : func.getBody().front().getOps<func::CallOp>()) {
    auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
    if (!callee)
      continue;
    ++figures.kernels;
    for (StringRef attr : {"nnc.bytes_read", "nnc.bytes_written"})
      if (auto bytes = callee->getAttrOfType<IntegerAttr>(attr))
        figures.bytes += bytes.getInt();
  }
  return figures;
}

FailureOr<rt::DType> toDType(Type type) {
  if (type.isF32())
    return rt::DType::F32;
  if (type.isF16())
    return rt::DType::F16;
  if (type.isBF16())
    return rt::DType::BF16;
  if (type.isF64())
    return rt::DType::F64;
  if (auto integer = dyn_cast<IntegerType>(type)) {
    switch (integer.getWidth()) {
    case 1:
      return rt::DType::Bool;
    case 8:
      return integer.isUnsigned() ? rt::DType::U8 : rt::DType::I8;
    case 32:
      return rt::DType::I32;
    case 64:
      return rt::DType::I64;
    default:
      break;
    }
  }
  return failure();
}

rt::ValueKind kindOf(func::FuncOp func, unsigned index) {
  auto kind = func.getArgAttrOfType<nnc::ParamKindAttr>(
      index, nnc::NNCDialect::getParamAttrName());
  if (!kind)
    return rt::ValueKind::Input;
  switch (kind.getValue()) {
  case nnc::ParamKind::trainable:
    return rt::ValueKind::Trainable;
  case nnc::ParamKind::frozen:
    return rt::ValueKind::Frozen;
  case nnc::ParamKind::buffer:
    return rt::ValueKind::Buffer;
  }
  return rt::ValueKind::Input;
}

/// The name a function argument or result carries, if any.
std::string argumentName(BlockArgument arg) {
  if (auto name = dyn_cast<NameLoc>(arg.getLoc()))
    return name.getName().str();
  return "";
}

} // namespace

LogicalResult nnc::appendElementBytes(ElementsAttr value,
                                      std::vector<uint8_t> &out) {
  auto type = cast<ShapedType>(value.getType());
  Type element = type.getElementType();
  int64_t count = type.getNumElements();
  if (element.isInteger(1)) {
    for (bool b : value.getValues<bool>())
      out.push_back(b ? 1 : 0);
    return success();
  }
  size_t width = element.getIntOrFloatBitWidth() / 8;
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    ArrayRef<char> raw = dense.getRawData();
    if (dense.isSplat()) {
      for (int64_t i = 0; i < count; ++i)
        out.insert(out.end(), raw.begin(), raw.begin() + width);
    } else {
      out.insert(out.end(), raw.begin(), raw.end());
    }
    return success();
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || blob->getData().size() != count * width)
      return failure();
    ArrayRef<char> raw = blob->getData();
    out.insert(out.end(), raw.begin(), raw.end());
    return success();
  }
  return failure();
}

nnc::CompileResult
nnc::compileForHostCPU(ModuleOp module, llvm::StringRef functionName,
                       ArrayRef<SmallVector<int64_t>> inputShapes,
                       const CompileOptions &options) {
  auto start = Clock::now();
  CompileResult result;
  MLIRContext *context = module.getContext();
  auto fail = [&](CompileFailure kind) {
    result.failure = kind;
    result.executable.clear();
    return result;
  };

  auto original = module.lookupSymbol<func::FuncOp>(functionName);
  if (!original || original.isExternal()) {
    emitError(module.getLoc())
        << "no function @" << functionName << " to compile";
    return fail(CompileFailure::InvalidInput);
  }

  // Work on a copy holding only the function: the caller's module stays as
  // it is, and the cache key covers exactly what is compiled.
  OwningOpRef<ModuleOp> work = ModuleOp::create(module.getLoc());
  {
    OpBuilder builder(context);
    builder.setInsertionPointToEnd(work->getBody());
    builder.clone(*original);
  }
  auto func = work->lookupSymbol<func::FuncOp>(functionName);
  unsigned numArgs = func.getNumArguments();

  // Weights: arguments with values. Inputs: the others, in order.
  std::vector<uint8_t> weights;
  std::vector<rt::PlanValue> values;
  SmallVector<std::string> shapeSpecs;
  size_t inputIndex = 0;
  size_t numInputs = 0;
  for (unsigned i = 0; i < numArgs; ++i)
    if (!func.getArgAttr(i, NNCDialect::getValueAttrName()))
      ++numInputs;
  if (!inputShapes.empty() && inputShapes.size() != numInputs) {
    emitError(func.getLoc())
        << "expected " << numInputs
        << " input shapes (one per argument without a value), "
           "got "
        << inputShapes.size();
    return fail(CompileFailure::InvalidInput);
  }
  for (unsigned i = 0; i < numArgs; ++i) {
    BlockArgument arg = func.getArgument(i);
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type) {
      emitError(func.getLoc())
          << "argument " << i << " has type " << arg.getType()
          << "; only ranked tensors can be compiled";
      return fail(CompileFailure::Unsupported);
    }
    FailureOr<rt::DType> dtype = toDType(type.getElementType());
    if (failed(dtype)) {
      emitError(func.getLoc())
          << "argument " << i << " has element type " << type.getElementType()
          << ", which executables cannot carry";
      return fail(CompileFailure::Unsupported);
    }
    rt::PlanValue value;
    value.kind = kindOf(func, i);
    value.dtype = *dtype;
    value.name = argumentName(arg);
    if (auto attr = func.getArgAttrOfType<ElementsAttr>(
            i, NNCDialect::getValueAttrName())) {
      value.role = rt::ValueRole::Weight;
      // Each weight starts at a 64-byte boundary of the section.
      weights.resize((weights.size() + 63) / 64 * 64, 0);
      value.weightOffset = weights.size();
      if (failed(appendElementBytes(attr, weights))) {
        emitError(func.getLoc())
            << "the value of argument " << i << " cannot be read";
        return fail(CompileFailure::InvalidInput);
      }
      value.weightSize = weights.size() - value.weightOffset;
      value.shape.assign(type.getShape().begin(), type.getShape().end());
    } else {
      value.role = rt::ValueRole::Input;
      ArrayRef<int64_t> shape = type.getShape();
      if (!inputShapes.empty()) {
        ArrayRef<int64_t> given = inputShapes[inputIndex];
        bool compatible = given.size() == shape.size();
        for (size_t d = 0; compatible && d < shape.size(); ++d)
          compatible = given[d] >= 0 && (ShapedType::isDynamic(shape[d]) ||
                                         shape[d] == given[d]);
        if (!compatible) {
          emitError(func.getLoc())
              << "input " << inputIndex << " ('" << value.name << "') has type "
              << type << ", which shape " << formatShape(given)
              << " does not fit";
          return fail(CompileFailure::InvalidInput);
        }
        shape = given;
      }
      if (!type.hasStaticShape() && inputShapes.empty()) {
        emitError(func.getLoc())
            << "input " << inputIndex << " ('" << value.name
            << "') has dynamic shape " << type << "; give its concrete shape";
        return fail(CompileFailure::InvalidInput);
      }
      shapeSpecs.push_back(std::to_string(i) + ":" + formatShape(shape));
      value.shape.assign(shape.begin(), shape.end());
      ++inputIndex;
    }
    values.push_back(std::move(value));
    // Inputs and weights belong to the caller: kernels must not write them.
    func.removeArgAttr(i, NNCDialect::getValueAttrName());
    func.removeArgAttr(i, NNCDialect::getParamAttrName());
    func.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                    BoolAttr::get(context, false));
  }

  // Specialize: concrete input shapes, propagated through the function.
  nnc::registerAllPasses();
  {
    PassManager pm(context);
    std::string spec = "nnc-shape-inference{function=" + functionName.str();
    if (!shapeSpecs.empty())
      spec += " input-shapes=" + llvm::join(shapeSpecs, ",");
    spec += "},canonicalize";
    std::string error;
    llvm::raw_string_ostream os(error);
    if (failed(parsePassPipeline(spec, pm, os)) || failed(pm.run(*work))) {
      if (!error.empty())
        emitError(func.getLoc()) << error;
      return fail(CompileFailure::InvalidInput);
    }
  }
  func = work->lookupSymbol<func::FuncOp>(functionName);
  bool allStatic = true;
  func.walk([&](Operation *op) {
    for (Type type : op->getResultTypes()) {
      auto shaped = dyn_cast<RankedTensorType>(type);
      if ((shaped && !shaped.hasStaticShape()) ||
          isa<UnrankedTensorType>(type)) {
        op->emitError() << "result type " << type
                        << " is not static after shape specialization; "
                           "the CPU backend compiles static shapes only";
        allStatic = false;
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  if (!allStatic)
    return fail(CompileFailure::Unsupported);
  for (auto [k, type] : llvm::enumerate(func.getResultTypes())) {
    auto shaped = dyn_cast<RankedTensorType>(type);
    FailureOr<rt::DType> dtype =
        shaped ? toDType(shaped.getElementType()) : FailureOr<rt::DType>();
    if (!shaped || failed(dtype)) {
      emitError(func.getLoc()) << "result " << k << " has type " << type
                               << ", which executables cannot carry";
      return fail(CompileFailure::Unsupported);
    }
    rt::PlanValue value;
    value.role = rt::ValueRole::Output;
    value.kind = rt::ValueKind::Output;
    value.dtype = *dtype;
    value.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
    auto names =
        func->getAttrOfType<ArrayAttr>(NNCDialect::getResultNamesAttrName());
    if (names && k < names.size())
      value.name = cast<StringAttr>(names[k]).str();
    if (value.name.empty())
      value.name = "output_" + std::to_string(k);
    values.push_back(std::move(value));
  }

  // The cache key: compiler, target, options, the specialized function and
  // the weights.
  std::string key;
  {
    llvm::raw_string_ostream os(key);
    os << compilerVersionString() << '\n'
       << compilerBuildIdentity() << '\n'
       << rt::Program::hostCpuTarget() << '\n'
       << hostCpuDescription() << '\n'
       << "O" << options.optLevel << (options.parallel ? " parallel" : "")
       << (options.fuse ? " fuse" : "")
       << (options.measureUnfused ? " unfused-figures" : "");
    for (auto [result, argument] : options.donations)
      os << " donate " << result << "->" << argument;
    os << '\n';
    work->print(os);
    os << '\n' << weights.size() << '\n';
  }
  rt::Sha256 hasher;
  hasher.update(key.data(), key.size());
  hasher.update(weights.data(), weights.size());
  std::string digest = rt::toHex(hasher.finish());
  if (!options.cacheDir.empty()) {
    llvm::SmallString<256> path(options.cacheDir);
    llvm::sys::path::append(path, digest + ".nncx");
    result.cachePath = std::string(path);
    rt::ExecutableReader cached;
    if (rt::ExecutableReader::openFile(result.cachePath, cached,
                                       rt::ExecutableReader::LoadMode::Read)
            .isOk()) {
      result.executable.assign(cached.data(), cached.data() + cached.size());
      result.fromCache = true;
      result.seconds = secondsSince(start);
      return result;
    }
    // A missing or damaged entry is simply compiled again.
  }

  // Lower: bufferize, measure the temporaries, then down to LLVM. Names
  // are in the plan (and the cache key) and would only get in the way.
  func->removeAttr(NNCDialect::getResultNamesAttrName());

  // Values without elements need no buffer: the runtime hands out empty
  // tensors for them and the kernel never sees them (zero-sized memrefs would
  // also trip up bufferization and the bare-pointer convention).
  std::vector<uint32_t> kernelArgs;
  {
    auto isEmpty = [](Type type) {
      return cast<RankedTensorType>(type).getNumElements() == 0;
    };
    Block &body = func.getBody().front();
    OpBuilder builder = OpBuilder::atBlockBegin(&body);
    llvm::BitVector emptyArgs(func.getNumArguments());
    for (BlockArgument arg : func.getArguments()) {
      if (!isEmpty(arg.getType())) {
        kernelArgs.push_back(arg.getArgNumber());
        continue;
      }
      auto type = cast<RankedTensorType>(arg.getType());
      arg.replaceAllUsesWith(tensor::EmptyOp::create(
          builder, arg.getLoc(), type.getShape(), type.getElementType()));
      emptyArgs.set(arg.getArgNumber());
    }
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    llvm::BitVector emptyResults(func.getNumResults());
    SmallVector<Value> kept;
    for (auto [k, operand] : llvm::enumerate(ret.getOperands())) {
      if (isEmpty(operand.getType())) {
        emptyResults.set(k);
        continue;
      }
      kernelArgs.push_back(numArgs + k);
      kept.push_back(operand);
    }
    ret->setOperands(kept);
    if (failed(func.eraseArguments(emptyArgs)) ||
        failed(func.eraseResults(emptyResults))) {
      emitError(func.getLoc()) << "cannot drop the empty values";
      return fail(CompileFailure::Internal);
    }
  }
  // Donations, as positions of the bufferized function's arguments: the
  // inputs kept, then one out-parameter per result kept.
  {
    SmallVector<int64_t> positions;
    auto positionOf = [&](uint32_t value) -> int64_t {
      for (size_t p = 0; p < kernelArgs.size(); ++p)
        if (kernelArgs[p] == value)
          return static_cast<int64_t>(p);
      return -1;
    };
    for (auto [result, argument] : options.donations) {
      if (argument >= numArgs || result >= values.size() - numArgs ||
          values[argument].role != rt::ValueRole::Input)
        continue;
      int64_t out = positionOf(numArgs + result), in = positionOf(argument);
      if (out >= 0 && in >= 0)
        positions.append({out, in});
    }
    if (!positions.empty())
      func->setAttr("nnc.donate", DenseI64ArrayAttr::get(context, positions));
  }

  // Fusion's effect, measured on a copy compiled without it.
  uint32_t unfusedKernels = 0;
  uint64_t unfusedBytes = 0;
  if (options.measureUnfused && options.fuse) {
    OwningOpRef<ModuleOp> unfused(
        cast<ModuleOp>(work->getOperation()->clone()));
    PassManager pm(context);
    CPUPipelineOptions cpu;
    cpu.fuse = false;
    buildCPUBufferizationPipeline(pm, cpu);
    if (failed(pm.run(*unfused)))
      return fail(CompileFailure::Unsupported);
    KernelFigures figures = kernelFigures(*unfused, functionName);
    unfusedKernels = figures.kernels;
    unfusedBytes = figures.bytes;
  }
  {
    PassManager pm(context);
    CPUPipelineOptions cpu;
    cpu.fuse = options.fuse;
    buildCPUBufferizationPipeline(pm, cpu);
    if (failed(pm.run(*work)))
      return fail(CompileFailure::Unsupported);
  }
  // The kernels, in the order the function calls them, with their
  // arguments as plan values; the arena is one more value.
  func = work->lookupSymbol<func::FuncOp>(functionName);
  std::vector<rt::PlanStep> steps;
  std::vector<CPUKernel> kernels;
  uint64_t arenaBytes = 0;
  if (auto size = func->getAttrOfType<IntegerAttr>("nnc.arena_size")) {
    arenaBytes = size.getInt();
    rt::PlanValue arena;
    arena.role = rt::ValueRole::Scratch;
    arena.kind = rt::ValueKind::Buffer;
    arena.name = "arena";
    arena.dtype = rt::DType::U8;
    arena.shape = {static_cast<int64_t>(arenaBytes)};
    kernelArgs.push_back(values.size());
    values.push_back(std::move(arena));
  }
  if (kernelArgs.size() != func.getNumArguments()) {
    emitError(func.getLoc())
        << "the lowered function has " << func.getNumArguments()
        << " arguments, not " << kernelArgs.size();
    return fail(CompileFailure::Internal);
  }
  std::vector<std::pair<uint32_t, uint32_t>> donations;
  if (auto done = func->getAttrOfType<DenseI64ArrayAttr>("nnc.donated")) {
    ArrayRef<int64_t> list = done.asArrayRef();
    for (size_t i = 0; i + 1 < list.size(); i += 2)
      donations.push_back({kernelArgs[list[i]], kernelArgs[list[i + 1]]});
  }
  for (auto call : func.getBody().front().getOps<func::CallOp>()) {
    auto callee = work->lookupSymbol<func::FuncOp>(call.getCallee());
    if (!callee) {
      emitError(call.getLoc())
          << "kernel " << call.getCallee() << " is missing";
      return fail(CompileFailure::Internal);
    }
    CPUKernel kernel;
    kernel.function = callee.getName().str();
    kernel.symbol = "nnc_kernel_" + std::to_string(kernels.size());
    kernel.numPointers = call.getNumOperands();
    rt::PlanStep step;
    step.kernel = kernel.symbol;
    for (Value operand : call.getOperands())
      step.args.push_back(
          kernelArgs[cast<BlockArgument>(operand).getArgNumber()]);
    if (auto name = callee->getAttrOfType<StringAttr>("nnc.kernel_name"))
      step.name = name.str();
    if (auto detail = callee->getAttrOfType<StringAttr>("nnc.kernel_detail"))
      step.detail = detail.str();
    if (callee->hasAttr("nnc.library"))
      step.kind = rt::StepKind::Library;
    if (auto read = callee->getAttrOfType<IntegerAttr>("nnc.bytes_read"))
      step.bytesRead = read.getInt();
    if (auto written = callee->getAttrOfType<IntegerAttr>("nnc.bytes_written"))
      step.bytesWritten = written.getInt();
    steps.push_back(std::move(step));
    kernels.push_back(std::move(kernel));
  }
  if (kernels.empty()) {
    // Nothing to compute (every output is empty): the function itself is
    // the one kernel.
    CPUKernel kernel;
    kernel.function = functionName.str();
    kernel.symbol = "nnc_kernel_0";
    kernel.numPointers = kernelArgs.size();
    rt::PlanStep step;
    step.kernel = kernel.symbol;
    step.args = kernelArgs;
    steps.push_back(std::move(step));
    kernels.push_back(std::move(kernel));
  } else {
    // The function that calls the kernels has served its purpose: the plan
    // calls them.
    func.erase();
  }
  uint64_t kernelAllocBytes = 0;
  work->walk([&](memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    if (type.hasStaticShape())
      kernelAllocBytes +=
          type.getNumElements() *
          std::max<uint64_t>(1, type.getElementTypeBitWidth() / 8);
  });
  uint32_t libraryCalls = countLibraryCalls(*work);
  {
    PassManager pm(context);
    CPUPipelineOptions cpu;
    cpu.parallel = options.parallel;
    buildCPULoweringPipeline(pm, cpu);
    if (failed(pm.run(*work)))
      return fail(CompileFailure::Internal);
  }

  // Native code: kernel function k becomes `nnc_kernel_<k>`, taking one
  // pointer per argument.
  CPUCodegenResult code;
  if (failed(generateSharedObject(*work, kernels, options.optLevel, code)))
    return fail(CompileFailure::Internal);

  rt::Plan plan;
  plan.producer = compilerVersionString();
  plan.values = std::move(values);
  plan.steps = std::move(steps);
  plan.cpuFeatures = code.cpuFeatures;
  plan.needsOpenMP = code.usesOpenMP;
  plan.needsBlas = code.usesBlas;
  plan.libraryCalls = libraryCalls;
  plan.temporaryBytes = arenaBytes;
  plan.kernelAllocBytes = kernelAllocBytes;
  plan.unfusedKernels = unfusedKernels;
  plan.unfusedBytesMoved = unfusedBytes;
  plan.donations = std::move(donations);

  rt::ExecutableWriter writer(rt::Program::hostCpuTarget());
  std::vector<uint8_t> planBytes = rt::serializePlan(plan);
  rt::Status status =
      writer.addSection(rt::SectionKind::Metadata, "plan", planBytes);
  if (status.isOk())
    status = writer.addSection(rt::SectionKind::Code, "kernels",
                               code.sharedObject, /*alignment=*/4096);
  if (status.isOk())
    status = writer.addSection(rt::SectionKind::Weights, "weights", weights);
  if (status.isOk())
    status = writer.serialize(result.executable);
  if (!status.isOk()) {
    emitError(module.getLoc())
        << "cannot package the executable: " << status.message();
    return fail(CompileFailure::Internal);
  }
  if (!result.cachePath.empty()) {
    // The cache is best effort: a full disk or a read-only folder costs a
    // recompile next time, nothing else.
    if (!llvm::sys::fs::create_directories(options.cacheDir))
      (void)writer.writeFile(result.cachePath);
  }
  result.seconds = secondsSince(start);
  return result;
}
