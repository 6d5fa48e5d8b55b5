//===- Compiler.cpp - the compile driver ----------------------------------===//
//
// nnc::compile in named stages: bind the arguments (parameter values into a
// weights blob, concrete shapes onto the inputs), specialize the function on
// them, consult the cache, run the shared pipeline to planned kernels and
// read the plan's steps from it, run the target's pipeline, generate the
// target's code and package plan, code and weights into an executable. The
// target is reached through nnc::Target only.
//
//===----------------------------------------------------------------------===//

#include "nnc/Compiler/Compiler.h"

#include "Autotune.h"

#include "nnc/Compiler/ElementTypes.h"
#include "nnc/Compiler/Pipelines.h"
#include "nnc/NNCDialect.h"
#include "nnc/NNCOps.h"
#include "nnc/ShapeValues.h"
#include "nnc/Target/Target.h"
#include "nnc/Transforms/Passes.h"
#include "nnc/runtime/AtomicFile.h"
#include "nnc/runtime/Executable.h"
#include "nnc/runtime/Plan.h"
#include "nnc/runtime/Sha256.h"
#include "nnc/runtime/TuningDatabase.h"

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
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <dlfcn.h>
#include <limits>
#include <sys/stat.h>

using namespace mlir;
namespace rt = nnc::runtime;

const char *nnc::compilerVersionString() {
  return "nnc 0.1.0 (LLVM " LLVM_VERSION_STRING ")";
}

std::string nnc::defaultCacheDir() { return runtime::defaultCacheDir(); }

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

/// Calls into libraries per run (docs/CPUBackend.md): one for each call of
/// an external function (a target's library GEMM) outside loops, times the
/// trip counts of the loops around it (the batch loop of a library GEMM has
/// static bounds). Saturates at UINT32_MAX.
uint32_t countLibraryCalls(ModuleOp module) {
  uint64_t total = 0;
  module.walk([&](func::CallOp call) {
    auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
    if (!callee || !callee.isExternal())
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

void nnc::dumpIR(ModuleOp module, llvm::StringRef name) {
  const char *dir = std::getenv("NNC_DUMP_IR");
  if (!dir || !*dir)
    return;
  if (llvm::sys::fs::create_directories(dir))
    return;
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name + ".mlir");
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (error)
    return;
  // With locations: the kernels are named after them, and the file reads
  // back (nnc-opt) as the same IR.
  module.print(os, OpPrintingFlags().enableDebugInfo());
  os << '\n';
}

namespace {

/// One compile as it goes through the stages: what each stage leaves for
/// the next.
struct Compilation {
  Compilation(ModuleOp module, llvm::StringRef functionName,
              const nnc::CompileOptions &options, const nnc::Target &target)
      : context(module.getContext()), source(module),
        functionName(functionName.str()), options(options), target(target) {
    targetOptions.optLevel = options.optLevel;
    targetOptions.parallel = options.parallel;
    targetOptions.threads = options.threads;
    targetOptions.fuse = options.fuse;
    targetOptions.planMemory = options.planMemory;
    targetOptions.libraryConvolutions = options.libraryKernels;
    targetOptions.variant = nnc::targetVariant(options.target).str();
  }

  MLIRContext *context;
  ModuleOp source;
  std::string functionName;
  const nnc::CompileOptions &options;
  const nnc::Target &target;
  nnc::TargetOptions targetOptions;

  /// A module holding only the function being compiled.
  OwningOpRef<ModuleOp> work;
  unsigned numArgs = 0;
  /// The plan's values: arguments in order, results, then the arena.
  std::vector<rt::PlanValue> values;
  std::vector<uint8_t> weights;
  /// "index:dims" per input, for the specialization.
  std::vector<std::string> inputShapes;
  /// The plan value behind each argument of the bufferized function.
  std::vector<uint32_t> kernelArgs;

  // Read off the planned kernels.
  std::vector<rt::PlanStep> steps;
  std::vector<nnc::KernelEntry> kernels;
  std::vector<std::pair<uint32_t, uint32_t>> donations;
  uint64_t arenaBytes = 0;
  std::vector<rt::PlanCheck> checks;
  uint32_t checksValue = rt::Plan::kNoValue;
  uint64_t kernelAllocBytes = 0;
  uint32_t libraryCalls = 0;
  uint32_t unfusedKernels = 0;
  uint64_t unfusedBytes = 0;

  func::FuncOp function() {
    return work->lookupSymbol<func::FuncOp>(functionName);
  }
};

/// Copies the function into a module of its own: the caller's module stays
/// as it is, and the cache key covers exactly what is compiled.
LogicalResult copyFunction(Compilation &c, nnc::CompileFailure &failure) {
  auto original = c.source.lookupSymbol<func::FuncOp>(c.functionName);
  if (!original || original.isExternal()) {
    emitError(c.source.getLoc())
        << "no function @" << c.functionName << " to compile";
    failure = nnc::CompileFailure::InvalidInput;
    return mlir::failure();
  }
  c.work = ModuleOp::create(c.source.getLoc());
  OpBuilder builder(c.context);
  builder.setInsertionPointToEnd(c.work->getBody());
  builder.clone(*original);
  c.numArgs = original.getNumArguments();
  return success();
}

/// Replaces integer input `arg` (input `index`, of concrete `shape`) by a
/// constant of `values` in the function: the code is specialized on them.
LogicalResult specializeOnValues(Compilation &c, BlockArgument arg,
                                 size_t index, StringRef name,
                                 ArrayRef<int64_t> shape,
                                 ArrayRef<int64_t> values) {
  func::FuncOp func = c.function();
  auto type = cast<RankedTensorType>(arg.getType());
  auto describe = [&]() {
    return "input " + std::to_string(index) + " ('" + name.str() + "')";
  };
  if (!isa<IntegerType>(type.getElementType()))
    return emitError(func.getLoc())
           << describe() << " has element type " << type.getElementType()
           << "; only integer inputs are specialized on their values";
  int64_t elements = ShapedType::getNumElements(shape);
  if (elements != static_cast<int64_t>(values.size()) ||
      elements > nnc::kMaxShapeInputElements)
    return emitError(func.getLoc())
           << describe() << " of shape " << formatShape(shape) << " is given "
           << values.size() << " values to specialize on (at most "
           << nnc::kMaxShapeInputElements << ")";
  OpBuilder builder(c.context);
  builder.setInsertionPointToStart(&func.front());
  auto constantType = RankedTensorType::get(shape, type.getElementType());
  Value constant = nnc::ConstantOp::create(
      builder, arg.getLoc(), nnc::getIntsAttr(constantType, values));
  if (constantType != type)
    constant = tensor::CastOp::create(builder, arg.getLoc(), type, constant);
  arg.replaceAllUsesWith(constant);
  return success();
}

/// Stage "extract weights": arguments with values become the weights blob,
/// the others the inputs, each given its concrete shape. Every argument is
/// then read-only for the kernels.
LogicalResult extractWeights(Compilation &c,
                             ArrayRef<SmallVector<int64_t>> shapes,
                             nnc::CompileFailure &failure) {
  func::FuncOp func = c.function();
  size_t numInputs = 0;
  for (unsigned i = 0; i < c.numArgs; ++i)
    if (!func.getArgAttr(i, nnc::NNCDialect::getValueAttrName()))
      ++numInputs;
  failure = nnc::CompileFailure::InvalidInput;
  if (!c.options.inputValues.empty() &&
      c.options.inputValues.rbegin()->first >= numInputs)
    return emitError(func.getLoc())
           << "values are given for input "
           << c.options.inputValues.rbegin()->first << ", but there are "
           << numInputs << " inputs";
  if (!shapes.empty() && shapes.size() != numInputs) {
    return emitError(func.getLoc())
           << "expected " << numInputs
           << " input shapes (one per argument without a value), "
              "got "
           << shapes.size();
  }
  size_t inputIndex = 0;
  // The first input dimension bound to each dimension name (dim_param):
  // every dimension of that name must have its size.
  struct NamedDim {
    std::string input;
    size_t dim;
    int64_t size;
  };
  llvm::StringMap<NamedDim> namedDims;
  for (unsigned i = 0; i < c.numArgs; ++i) {
    BlockArgument arg = func.getArgument(i);
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type) {
      failure = nnc::CompileFailure::Unsupported;
      return emitError(func.getLoc())
             << "argument " << i << " has type " << arg.getType()
             << "; only ranked tensors can be compiled";
    }
    FailureOr<rt::DType> dtype = nnc::dtypeOf(type.getElementType());
    if (mlir::failed(dtype)) {
      failure = nnc::CompileFailure::Unsupported;
      return emitError(func.getLoc())
             << "argument " << i << " has element type "
             << type.getElementType() << ", which executables cannot carry";
    }
    rt::PlanValue value;
    value.kind = kindOf(func, i);
    value.dtype = *dtype;
    value.name = argumentName(arg);
    if (auto attr = func.getArgAttrOfType<ElementsAttr>(
            i, nnc::NNCDialect::getValueAttrName())) {
      value.role = rt::ValueRole::Weight;
      // Each weight starts at a 64-byte boundary of the section.
      c.weights.resize((c.weights.size() + 63) / 64 * 64, 0);
      value.weightOffset = c.weights.size();
      if (mlir::failed(nnc::appendElementBytes(attr, c.weights)))
        return emitError(func.getLoc())
               << "the value of argument " << i << " cannot be read";
      value.weightSize = c.weights.size() - value.weightOffset;
      value.shape.assign(type.getShape().begin(), type.getShape().end());
    } else {
      value.role = rt::ValueRole::Input;
      ArrayRef<int64_t> shape = type.getShape();
      if (!shapes.empty()) {
        ArrayRef<int64_t> given = shapes[inputIndex];
        bool compatible = given.size() == shape.size();
        for (size_t d = 0; compatible && d < shape.size(); ++d)
          compatible = given[d] >= 0 && (ShapedType::isDynamic(shape[d]) ||
                                         shape[d] == given[d]);
        if (!compatible)
          return emitError(func.getLoc())
                 << "input " << inputIndex << " ('" << value.name
                 << "') has type " << type << ", which shape "
                 << formatShape(given) << " does not fit";
        shape = given;
      }
      if (!type.hasStaticShape() && shapes.empty())
        return emitError(func.getLoc()) << "input " << inputIndex << " ('"
                                        << value.name << "') has dynamic shape "
                                        << type << "; give its concrete shape";
      if (auto names = func.getArgAttrOfType<ArrayAttr>(
              i, nnc::NNCDialect::getDimNamesAttrName())) {
        for (auto [d, attr] : llvm::enumerate(names)) {
          StringRef dimName = cast<StringAttr>(attr).getValue();
          if (dimName.empty() || d >= shape.size())
            continue;
          auto [it, inserted] =
              namedDims.try_emplace(dimName, NamedDim{value.name, d, shape[d]});
          if (!inserted && it->second.size != shape[d])
            return emitError(func.getLoc())
                   << "input " << inputIndex << " ('" << value.name << "') has "
                   << shape[d] << " in dimension " << d << " ('" << dimName
                   << "'), but input '" << it->second.input << "' has "
                   << it->second.size << " in its dimension " << it->second.dim
                   << " of that name: dimensions named '" << dimName
                   << "' must agree";
        }
      }
      if (auto it = c.options.inputValues.find(inputIndex);
          it != c.options.inputValues.end()) {
        if (mlir::failed(specializeOnValues(c, arg, inputIndex, value.name,
                                            shape, it->second)))
          return mlir::failure();
        value.specializedValues = it->second;
      }
      c.inputShapes.push_back(std::to_string(i) + ":" + formatShape(shape));
      value.shape.assign(shape.begin(), shape.end());
      ++inputIndex;
    }
    c.values.push_back(std::move(value));
    // Inputs and weights belong to the caller: kernels must not write them.
    func.removeArgAttr(i, nnc::NNCDialect::getValueAttrName());
    func.removeArgAttr(i, nnc::NNCDialect::getParamAttrName());
    func.removeArgAttr(i, nnc::NNCDialect::getDimNamesAttrName());
    func.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                    BoolAttr::get(c.context, false));
    if (value.role == rt::ValueRole::Weight)
      func.setArgAttr(i, nnc::NNCDialect::getWeightAttrName(),
                      UnitAttr::get(c.context));
  }
  return success();
}

/// Reports a dynamic shape op whose shape operands the input shapes do not
/// determine, naming what they depend on.
void reportDataDependentShape(func::FuncOp func,
                              nnc::ResolvableOpInterface op) {
  std::string what;
  for (Value shape : op.getShapeOperands()) {
    for (Value source : nnc::findUnknownSources(shape)) {
      auto arg = dyn_cast<BlockArgument>(source);
      if (arg && arg.getOwner()->getParentOp() == func) {
        std::string name = argumentName(arg);
        unsigned i = arg.getArgNumber();
        std::string label = "argument " + std::to_string(i);
        if (!name.empty())
          label = "'" + name + "' (" + label + ")";
        if (func.getArgAttr(i, nnc::NNCDialect::getShapeInputAttrName()))
          what = "the value of the shape input " + label +
                 ", which was not given at compile time";
        else if (func.getArgAttr(i, nnc::NNCDialect::getParamAttrName()))
          what = "the values of the parameter " + label;
        else
          what = "the values of the input " + label;
      } else if (Operation *def = source.getDefiningOp()) {
        what = "values computed at run time by '" +
               def->getName().getStringRef().str() + "'";
      }
      if (!what.empty())
        break;
    }
    if (!what.empty())
      break;
  }
  if (what.empty())
    what = "values computed at run time";
  // An op whose attributes come from operands is named by what it stands
  // for ("the attribute k of 'nnc.trilu'").
  std::string subject =
      "the shape of '" + op->getName().getStringRef().str() + "' is not known";
  if (auto dynamic = dyn_cast<nnc::DynamicAttrsOp>(op.getOperation())) {
    std::string names;
    for (Attribute name : dynamic.getNames())
      names +=
          (names.empty() ? "" : ", ") + cast<StringAttr>(name).getValue().str();
    subject = (dynamic.getNames().size() == 1 ? "the attribute "
                                              : "the attributes ") +
              names + " of '" + dynamic.getOpName().str() +
              (dynamic.getNames().size() == 1 ? "' is" : "' are") +
              " not known";
  }
  op->emitError() << subject << " after shape specialization: it depends on "
                  << what
                  << ", not only on the input shapes; code is generated for "
                     "static shapes only";
}

/// Stage "specialize shapes": the inputs' concrete shapes propagated
/// through the function, which must then be static; its results become the
/// plan's outputs.
LogicalResult specializeShapes(Compilation &c, nnc::CompileFailure &failure) {
  failure = nnc::CompileFailure::InvalidInput;
  {
    PassManager pm(c.context);
    nnc::buildSpecializationPipeline(pm, c.functionName, c.inputShapes);
    if (mlir::failed(pm.run(*c.work))) {
      // Which shapes the function was specialized on, input by input.
      std::string shapes;
      for (const rt::PlanValue &value : c.values)
        if (value.role == rt::ValueRole::Input)
          shapes += (shapes.empty() ? "" : ", ") +
                    (value.name.empty() ? std::string("?") : value.name) + " " +
                    formatShape(value.shape);
      emitError(c.function().getLoc())
          << "shape specialization failed for the input shapes " << shapes;
      return mlir::failure();
    }
  }
  func::FuncOp func = c.function();
  failure = nnc::CompileFailure::Unsupported;
  WalkResult walk = func.walk([&](Operation *op) {
    if (auto resolvable = dyn_cast<nnc::ResolvableOpInterface>(op)) {
      reportDataDependentShape(func, resolvable);
      return WalkResult::interrupt();
    }
    for (Type type : op->getResultTypes()) {
      auto shaped = dyn_cast<RankedTensorType>(type);
      if ((shaped && !shaped.hasStaticShape()) ||
          isa<UnrankedTensorType>(type)) {
        op->emitError() << "result type " << type
                        << " is not static after shape specialization; "
                           "code is generated for static shapes only";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return mlir::failure();
  auto names =
      func->getAttrOfType<ArrayAttr>(nnc::NNCDialect::getResultNamesAttrName());
  for (auto [k, type] : llvm::enumerate(func.getResultTypes())) {
    auto shaped = dyn_cast<RankedTensorType>(type);
    FailureOr<rt::DType> dtype =
        shaped ? nnc::dtypeOf(shaped.getElementType()) : FailureOr<rt::DType>();
    if (!shaped || mlir::failed(dtype))
      return emitError(func.getLoc()) << "result " << k << " has type " << type
                                      << ", which executables cannot carry";
    rt::PlanValue value;
    value.role = rt::ValueRole::Output;
    value.kind = rt::ValueKind::Output;
    value.dtype = *dtype;
    value.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
    if (names && k < names.size())
      value.name = cast<StringAttr>(names[k]).str();
    if (value.name.empty())
      value.name = "output_" + std::to_string(k);
    c.values.push_back(std::move(value));
  }
  return success();
}

/// Stage "mixed precision": the specialized function computes in the low
/// type where the op policy says; its inputs and results keep their types.
LogicalResult applyMixedPrecision(Compilation &c,
                                  nnc::CompileFailure &failure) {
  if (!c.options.precision.enabled())
    return success();
  failure = nnc::CompileFailure::InvalidInput;
  PassManager pm(c.context);
  nnc::buildMixedPrecisionPipeline(pm, c.functionName, c.options.precision);
  return pm.run(*c.work);
}

/// The digest of what a compile depends on: the compiler, the target and
/// its fingerprint, the options, the specialized function and the weights,
/// and `extra` (what a stage adds to it).
std::string compileDigest(Compilation &c, llvm::StringRef extra) {
  std::string key;
  {
    llvm::raw_string_ostream os(key);
    os << nnc::compilerVersionString() << '\n'
       << compilerBuildIdentity() << '\n'
       << c.target.name() << ':' << c.targetOptions.variant << '\n'
       << c.target.fingerprint() << '\n'
       << "O" << c.options.optLevel << (c.options.parallel ? " parallel" : "")
       << (c.options.fuse ? " fuse" : "")
       << (c.options.planMemory ? " plan-memory" : "")
       << (c.options.libraryKernels ? " library-kernels" : "")
       << (c.options.measureUnfused ? " unfused-figures" : "");
    for (auto [output, input] : c.options.donations)
      os << " donate " << output << "->" << input;
    os << '\n';
    // The values an executable is specialized on are part of what it is,
    // even where two of them compile to the same code (a Trilu whose k
    // keeps every element either way): it refuses runs with other values.
    for (auto [i, value] : llvm::enumerate(c.values))
      if (!value.specializedValues.empty())
        os << "specialized value " << i << " ["
           << llvm::join(
                  llvm::map_range(value.specializedValues,
                                  [](int64_t v) { return std::to_string(v); }),
                  ", ")
           << "]\n";
    c.work->print(os);
    os << '\n' << c.weights.size() << '\n' << extra;
  }
  rt::Sha256 hasher;
  hasher.update(key.data(), key.size());
  hasher.update(c.weights.data(), c.weights.size());
  return rt::toHex(hasher.finish());
}

LogicalResult runSharedPipeline(Compilation &c, nnc::CompileFailure &failure);

/// The planned peak of `work` (a copy of the function's module, consumed)
/// as the runtime reports it (nnc_executable_stats): inputs and outputs
/// not written in place, weights, the arena and what kernels allocate.
/// `arena` receives the arena's bytes.
LogicalResult plannedPeak(Compilation &c, OwningOpRef<ModuleOp> work,
                          int64_t &peak, int64_t &arena) {
  nnc::CompileOptions options = c.options;
  options.measureUnfused = false;
  Compilation trial(c.source, c.functionName, options, c.target);
  trial.work = std::move(work);
  trial.numArgs = c.numArgs;
  trial.values = c.values;
  nnc::CompileFailure failure;
  if (mlir::failed(runSharedPipeline(trial, failure)))
    return mlir::failure();
  int64_t io = 0;
  for (size_t index = 0; index < trial.values.size(); ++index) {
    const rt::PlanValue &value = trial.values[index];
    bool donated = llvm::any_of(trial.donations,
                                [&](auto pair) { return pair.first == index; });
    if (value.role == rt::ValueRole::Weight ||
        value.role == rt::ValueRole::Scratch || donated)
      continue;
    int64_t elements = 0;
    size_t bytes = 0;
    if (rt::checkedShapeSize(value.shape, rt::dtypeSize(value.dtype), elements,
                             bytes)
            .isOk())
      io += bytes;
  }
  arena = trial.arenaBytes;
  peak = io + static_cast<int64_t>(c.weights.size()) + trial.arenaBytes +
         static_cast<int64_t>(rt::Plan::kCheckSlotBytes * trial.checks.size() +
                              trial.kernelAllocBytes);
  return success();
}

std::vector<std::string> stringsOf(DictionaryAttr figures, StringRef name) {
  std::vector<std::string> list;
  if (auto array = figures.getAs<ArrayAttr>(name))
    for (Attribute entry : array)
      if (auto text = dyn_cast<StringAttr>(entry))
        list.push_back(text.str());
  return list;
}

/// The memory budget's decision kept in the compile cache, so that a
/// cached compile applies it again (--nnc-remat-budget's `choice`) instead of
/// searching and planning the function a few times. A text file: a version
/// line, the report's figures, the choice, the values recomputed and kept,
/// and a checksum of all that; a file that does not check is ignored (the
/// decision is made again and the file replaced).
constexpr llvm::StringLiteral kRematChoiceHeader = "nnc-remat-choice 1";

std::string rematChoiceText(const nnc::RematReport &report,
                            llvm::ArrayRef<int64_t> choice) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << kRematChoiceHeader << '\n'
     << "budget " << report.budgetBytes << '\n'
     << "peak " << report.peakBefore << ' ' << report.peakAfter << '\n'
     << "arena " << report.predictedArena << ' ' << report.plannedArena << '\n'
     << "flops " << report.flops << ' ' << report.extraFlops << '\n'
     << "choice";
  for (int64_t k : choice)
    os << ' ' << k;
  os << '\n';
  for (const std::string &value : report.recomputed)
    os << "recomputed " << value << '\n';
  for (const std::string &value : report.kept)
    os << "kept " << value << '\n';
  return text;
}

std::string checksumOf(llvm::StringRef text) {
  rt::Sha256 hasher;
  hasher.update(text.data(), text.size());
  return rt::toHex(hasher.finish());
}

void writeRematChoice(const std::string &path, const nnc::RematReport &report,
                      llvm::ArrayRef<int64_t> choice) {
  if (path.empty() ||
      llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path)))
    return;
  std::string text = rematChoiceText(report, choice);
  text += "checksum " + checksumOf(text) + "\n";
  // Best effort, as the compile cache: a failure costs a search next time.
  (void)rt::writeFileAtomically(path, text.data(), text.size());
}

bool readRematChoice(const std::string &path, nnc::RematReport &report,
                     std::vector<int64_t> &choice) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return false;
  llvm::StringRef text = (*buffer)->getBuffer();
  size_t at = text.rfind("checksum ");
  if (at == llvm::StringRef::npos || !text.starts_with(kRematChoiceHeader) ||
      text.drop_front(at).trim() !=
          ("checksum " + checksumOf(text.take_front(at))))
    return false;
  nnc::RematReport read;
  std::vector<int64_t> positions;
  llvm::SmallVector<llvm::StringRef> lines;
  text.take_front(at).split(lines, '\n', -1, /*KeepEmpty=*/false);
  auto numbers = [](llvm::StringRef rest, llvm::SmallVectorImpl<int64_t> &out) {
    llvm::SmallVector<llvm::StringRef> words;
    rest.split(words, ' ', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef word : words) {
      int64_t value;
      if (word.getAsInteger(10, value))
        return false;
      out.push_back(value);
    }
    return true;
  };
  for (llvm::StringRef line : llvm::drop_begin(lines)) {
    auto [word, rest] = line.split(' ');
    llvm::SmallVector<int64_t> values;
    if (word == "recomputed" || word == "kept") {
      (word == "kept" ? read.kept : read.recomputed).push_back(rest.str());
      continue;
    }
    if (!numbers(rest, values))
      return false;
    if (word == "budget" && values.size() == 1)
      read.budgetBytes = values[0];
    else if (word == "peak" && values.size() == 2)
      std::tie(read.peakBefore, read.peakAfter) = {values[0], values[1]};
    else if (word == "arena" && values.size() == 2)
      std::tie(read.predictedArena, read.plannedArena) = {values[0], values[1]};
    else if (word == "flops" && values.size() == 2)
      std::tie(read.flops, read.extraFlops) = {values[0], values[1]};
    else if (word == "choice")
      positions.assign(values.begin(), values.end());
    else
      return false;
  }
  report = std::move(read);
  choice = std::move(positions);
  return true;
}

/// --nnc-remat-budget on the function in `module` with `target` bytes for
/// its temporaries (its smallest prediction when none fits), or applying
/// `choice`.
LogicalResult runRematPass(Compilation &c, ModuleOp module, int64_t target,
                           llvm::ArrayRef<int64_t> choice) {
  PassManager pm(c.context);
  nnc::RematerializeBudgetPassOptions pass;
  pass.function = c.functionName;
  pass.budget = target;
  pass.allowOverBudget = true;
  pass.choice.assign(choice.begin(), choice.end());
  pm.addPass(nnc::createRematerializeBudgetPass(pass));
  return pm.run(module);
}

/// The figures --nnc-remat-budget left on the function in `module`, taken
/// off it: a cached decision applied again must give the same function
/// (the compile cache's key).
DictionaryAttr takeRematFigures(Compilation &c, ModuleOp module) {
  auto function = module.lookupSymbol<func::FuncOp>(c.functionName);
  auto figures = function->getAttrOfType<DictionaryAttr>(nnc::kRematAttrName);
  function->removeAttr(nnc::kRematAttrName);
  return figures;
}

/// Stage "memory budget": with CompileOptions::memoryBudget, the peak
/// planned without recomputation; when it is over the budget,
/// --nnc-remat-budget with the budget less what is not temporaries, each
/// choice checked by planning it, and the prediction's target lowered by
/// the plan's excess until the plan fits (or the pass reaches its
/// smallest, which fails the compile naming it).
LogicalResult applyMemoryBudget(Compilation &c, nnc::CompileResult &result,
                                nnc::CompileFailure &failure) {
  if (!c.options.memoryBudget)
    return success();
  const nnc::CompileOptions::MemoryBudget &asked = *c.options.memoryBudget;
  func::FuncOp func = c.function();
  failure = nnc::CompileFailure::InvalidInput;
  if (asked.bytes <= 0 && !(asked.fraction > 0 && asked.fraction <= 1))
    return emitError(func.getLoc())
           << "a memory budget is a positive number of bytes or a fraction "
              "in (0, 1] of the planned peak, not "
           << (asked.bytes ? std::to_string(asked.bytes)
                           : std::to_string(asked.fraction));
  auto copy = [&](ModuleOp module) {
    return OwningOpRef<ModuleOp>(cast<ModuleOp>(module->clone()));
  };
  // A decision made before for this very function and budget.
  std::string choicePath;
  if (!c.options.cacheDir.empty()) {
    llvm::SmallString<256> path(c.options.cacheDir);
    llvm::sys::path::append(
        path,
        compileDigest(c, "memory budget " + std::to_string(asked.bytes) + " " +
                             llvm::formatv("{0:e}", asked.fraction).str()) +
            ".nncremat");
    choicePath = std::string(path);
  }
  {
    nnc::RematReport cached;
    std::vector<int64_t> choice;
    if (!choicePath.empty() && readRematChoice(choicePath, cached, choice)) {
      failure = nnc::CompileFailure::Internal;
      if (!choice.empty()) {
        if (mlir::failed(runRematPass(c, *c.work, cached.budgetBytes, choice)))
          return mlir::failure();
        takeRematFigures(c, *c.work);
      }
      result.remat = std::move(cached);
      return success();
    }
  }
  nnc::RematReport report;
  int64_t arena = 0;
  failure = nnc::CompileFailure::Unsupported;
  if (mlir::failed(plannedPeak(c, copy(*c.work), report.peakBefore, arena)))
    return mlir::failure();
  report.budgetBytes =
      asked.bytes > 0
          ? asked.bytes
          : static_cast<int64_t>(asked.fraction * double(report.peakBefore));
  report.peakAfter = report.peakBefore;
  report.plannedArena = report.predictedArena = arena;
  result.remat = report;
  if (report.peakBefore <= report.budgetBytes) {
    writeRematChoice(choicePath, report, {});
    return success();
  }
  int64_t fixed = report.peakBefore - arena;
  failure = nnc::CompileFailure::InvalidInput;
  if (fixed >= report.budgetBytes)
    return emitError(func.getLoc())
           << "memory budget of " << report.budgetBytes
           << " bytes cannot be met: the inputs, outputs and weights of @"
           << c.functionName << " alone take " << fixed
           << " bytes (planned peak " << report.peakBefore << " bytes)";
  int64_t target = report.budgetBytes - fixed;
  nnc::dumpIR(*c.work, c.functionName + ".budget");
  // Each round plans the pass's choice; a plan over the budget lowers the
  // pass's target by the excess. The smallest plan is what a failure
  // reports.
  nnc::RematReport best;
  std::vector<std::string> bestAlive;
  best.peakAfter = std::numeric_limits<int64_t>::max();
  for (int round = 0; round < 4; ++round) {
    OwningOpRef<ModuleOp> chosen = copy(*c.work);
    failure = nnc::CompileFailure::Internal;
    if (mlir::failed(runRematPass(c, *chosen, target, {})))
      return mlir::failure();
    nnc::dumpIR(*chosen, c.functionName + ".remat" + std::to_string(round));
    DictionaryAttr figures = takeRematFigures(c, *chosen);
    if (!figures)
      return emitError(func.getLoc())
             << "--nnc-remat-budget left no figures on @" << c.functionName;
    auto number = [&](StringRef name) -> int64_t {
      auto value = figures.getAs<IntegerAttr>(name);
      return value ? value.getInt() : 0;
    };
    int64_t peak = 0;
    failure = nnc::CompileFailure::Unsupported;
    if (mlir::failed(plannedPeak(c, copy(*chosen), peak, arena)))
      return mlir::failure();
    nnc::RematReport trial = report;
    trial.peakAfter = peak;
    trial.plannedArena = arena;
    trial.predictedArena = number("after");
    trial.flops = number("flops");
    trial.extraFlops = number("extra_flops");
    trial.recomputed = stringsOf(figures, "recomputed");
    trial.kept = stringsOf(figures, "kept");
    if (peak <= report.budgetBytes) {
      auto choice = figures.getAs<DenseI64ArrayAttr>("choice");
      writeRematChoice(choicePath, trial,
                       choice ? choice.asArrayRef()
                              : llvm::ArrayRef<int64_t>());
      result.remat = std::move(trial);
      c.work = std::move(chosen);
      return success();
    }
    if (peak < best.peakAfter) {
      best = std::move(trial);
      bestAlive = stringsOf(figures, "peak_values");
    }
    // The pass reached its smallest prediction: a lower target changes
    // nothing.
    auto fits = figures.getAs<BoolAttr>("fits");
    if (!fits || !fits.getValue())
      break;
    // The plan of this choice is over by the excess: the next must predict
    // that much less than this one did (a target lowered by the excess
    // alone may get the same choice again, when its prediction was well
    // below the target).
    target = std::min(target, number("after")) -
             std::max<int64_t>(peak - report.budgetBytes, 64);
  }
  result.remat = best;
  failure = nnc::CompileFailure::InvalidInput;
  auto diag = emitError(func.getLoc())
              << "memory budget of " << report.budgetBytes
              << " bytes cannot be met: the smallest planned peak the search "
                 "reached by recomputation is "
              << best.peakAfter << " bytes (" << report.peakBefore
              << " without; inputs, outputs and weights take " << fixed << ")";
  if (!bestAlive.empty())
    diag << "; the largest values alive at its predicted peak: "
         << llvm::join(bestAlive, ", ");
  return mlir::failure();
}

/// The smallest memory budget a compile meets by recomputation. The
/// smallest arena --nnc-remat-budget fits is found by bisection of its
/// target (to within 1 %, a handful of predictions): aimed at a target it
/// cannot fit, its search stops where no single recomputation lowers the
/// peak, short of that. With what is not temporaries added, that is a
/// budget, checked by the memory budget stage itself on a copy and raised
/// by 1 % while the stage does not meet it (the plan may exceed the
/// prediction). `out` keeps zeros when no budget below the peak without
/// recomputation is met.
LogicalResult smallestRematPeak(Compilation &c, nnc::PlannedPeak &out,
                                nnc::CompileFailure &failure) {
  auto copy = [&]() {
    return OwningOpRef<ModuleOp>(cast<ModuleOp>(c.work->clone()));
  };
  failure = nnc::CompileFailure::Unsupported;
  int64_t peakBefore = 0, arenaBefore = 0;
  if (mlir::failed(plannedPeak(c, copy(), peakBefore, arenaBefore)))
    return mlir::failure();
  // The pass with `target` (negative: report only): its predicted arena
  // when it fits, -1 when it does not.
  failure = nnc::CompileFailure::Internal;
  auto predicted = [&](int64_t target) -> FailureOr<int64_t> {
    OwningOpRef<ModuleOp> chosen = copy();
    if (mlir::failed(runRematPass(c, *chosen, target, {})))
      return mlir::failure();
    DictionaryAttr figures = takeRematFigures(c, *chosen);
    auto fits = figures ? figures.getAs<BoolAttr>("fits") : BoolAttr();
    auto after = figures ? figures.getAs<IntegerAttr>("after") : IntegerAttr();
    if (!fits || !after)
      return emitError(c.function().getLoc())
             << "--nnc-remat-budget left no figures on @" << c.functionName;
    return fits.getValue() ? after.getInt() : -1;
  };
  FailureOr<int64_t> before = predicted(-1);
  if (mlir::failed(before))
    return mlir::failure();
  int64_t low = 0, high = *before, smallest = *before;
  while (high - low > std::max<int64_t>(64, high / 100)) {
    int64_t middle = low + (high - low) / 2;
    FailureOr<int64_t> arena = predicted(middle);
    if (mlir::failed(arena))
      return mlir::failure();
    if (*arena >= 0)
      smallest = *arena;
    (*arena >= 0 ? high : low) = middle;
  }
  // The budget stage on copies, its errors unreported: a budget it does
  // not meet is simply raised.
  ScopedDiagnosticHandler quiet(c.context,
                                [](Diagnostic &) { return success(); });
  // `reached`: where the stage fails, the smallest planned peak it reached.
  int64_t reached = 0;
  auto trial = [&](int64_t budget) -> std::optional<nnc::RematReport> {
    reached = 0;
    nnc::CompileOptions options = c.options;
    options.memoryBudget = nnc::CompileOptions::MemoryBudget{budget, 0};
    options.cacheDir.clear();
    Compilation attempt(c.source, c.functionName, options, c.target);
    attempt.work = copy();
    attempt.numArgs = c.numArgs;
    attempt.values = c.values;
    attempt.weights = c.weights;
    nnc::CompileResult result;
    nnc::CompileFailure ignored;
    if (mlir::failed(applyMemoryBudget(attempt, result, ignored)) ||
        !result.remat) {
      if (result.remat && result.remat->peakAfter > 0 &&
          result.remat->peakAfter < std::numeric_limits<int64_t>::max())
        reached = result.remat->peakAfter;
      return std::nullopt;
    }
    return result.remat;
  };
  int64_t budget = peakBefore - arenaBefore + smallest;
  for (int round = 0; round < 4 && budget < peakBefore; ++round) {
    if (std::optional<nnc::RematReport> met = trial(budget)) {
      // The plan may land below the budget that produced it; that peak,
      // asked for as the budget, is the smaller answer when the stage
      // meets it too.
      if (met->peakAfter < budget)
        if (std::optional<nnc::RematReport> tighter = trial(met->peakAfter);
            tighter && tighter->peakAfter <= met->peakAfter) {
          budget = met->peakAfter;
          met = tighter;
        }
      out.smallestBudget = budget;
      out.budgetPeak = met->peakAfter;
      out.flops = met->flops;
      out.extraFlops = met->extraFlops;
      return success();
    }
    // Raised by 1 %, or to the smallest plan the stage reached (the plan
    // may be well above the prediction the bisection went by).
    budget = std::max(budget + std::max<int64_t>(64, budget / 100), reached);
  }
  return success();
}

/// Stage "cache lookup": the key covers the compiler, the target and its
/// fingerprint, the options, the specialized function and the weights.
/// Sets the entry's path in `result` (none without a cache) and fills it on
/// a hit.
void cacheLookup(Compilation &c, nnc::CompileResult &result) {
  std::string digest = compileDigest(c, "");
  if (c.options.cacheDir.empty())
    return;
  llvm::SmallString<256> path(c.options.cacheDir);
  llvm::sys::path::append(path, digest + ".nncx");
  result.cachePath = std::string(path);
  // Dumping the IR means compiling: a cached entry would skip the stages.
  const char *dump = std::getenv("NNC_DUMP_IR");
  if (dump && *dump)
    return;
  rt::ExecutableReader cached;
  if (rt::ExecutableReader::openFile(result.cachePath, cached,
                                     rt::ExecutableReader::LoadMode::Read)
          .isOk()) {
    result.executable.assign(cached.data(), cached.data() + cached.size());
    result.fromCache = true;
  }
  // A missing or damaged entry is simply compiled again.
}

/// Values without elements need no buffer: the runtime hands out empty
/// tensors for them and the kernels never see them (zero-sized memrefs
/// would also trip up bufferization and the bare-pointer convention).
/// Records which plan value each remaining argument and result is, and the
/// donations as positions of the bufferized function's arguments (the
/// inputs kept, then one out-parameter per result kept).
LogicalResult dropEmptyValues(Compilation &c) {
  func::FuncOp func = c.function();
  auto isEmpty = [](Type type) {
    return cast<RankedTensorType>(type).getNumElements() == 0;
  };
  Block &body = func.getBody().front();
  OpBuilder builder = OpBuilder::atBlockBegin(&body);
  llvm::BitVector emptyArgs(func.getNumArguments());
  for (BlockArgument arg : func.getArguments()) {
    if (!isEmpty(arg.getType())) {
      c.kernelArgs.push_back(arg.getArgNumber());
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
    c.kernelArgs.push_back(c.numArgs + k);
    kept.push_back(operand);
  }
  ret->setOperands(kept);
  if (mlir::failed(func.eraseArguments(emptyArgs)) ||
      mlir::failed(func.eraseResults(emptyResults)))
    return emitError(func.getLoc()) << "cannot drop the empty values";

  SmallVector<int64_t> positions;
  auto positionOf = [&](uint32_t value) -> int64_t {
    for (size_t p = 0; p < c.kernelArgs.size(); ++p)
      if (c.kernelArgs[p] == value)
        return static_cast<int64_t>(p);
    return -1;
  };
  for (auto [result, argument] : c.options.donations) {
    if (argument >= c.numArgs || result >= c.values.size() - c.numArgs ||
        c.values[argument].role != rt::ValueRole::Input)
      continue;
    int64_t out = positionOf(c.numArgs + result), in = positionOf(argument);
    if (out >= 0 && in >= 0)
      positions.append({out, in});
  }
  if (!positions.empty())
    func->setAttr("nnc.donate", DenseI64ArrayAttr::get(c.context, positions));
  return success();
}

/// Reads the plan off the planned kernels: the arena, the donations made,
/// one step per kernel call in order with its arguments as plan values,
/// and the figures.
LogicalResult readPlan(Compilation &c) {
  func::FuncOp func = c.function();
  if (auto size = func->getAttrOfType<IntegerAttr>("nnc.arena_size")) {
    c.arenaBytes = size.getInt();
    rt::PlanValue arena;
    arena.role = rt::ValueRole::Scratch;
    arena.kind = rt::ValueKind::Buffer;
    arena.name = "arena";
    arena.dtype = rt::DType::U8;
    arena.shape = {static_cast<int64_t>(c.arenaBytes)};
    c.kernelArgs.push_back(c.values.size());
    c.values.push_back(std::move(arena));
  }
  // The checks buffer (--nnc-lower-checks) is the last argument, after the
  // arena.
  if (auto whats = func->getAttrOfType<ArrayAttr>("nnc.checks")) {
    for (Attribute what : whats)
      c.checks.push_back({cast<StringAttr>(what).str()});
    rt::PlanValue checks;
    checks.role = rt::ValueRole::Scratch;
    checks.kind = rt::ValueKind::Buffer;
    checks.name = "checks";
    checks.dtype = rt::DType::U8;
    checks.shape = {
        static_cast<int64_t>(rt::Plan::kCheckSlotBytes * c.checks.size())};
    c.checksValue = c.values.size();
    c.kernelArgs.push_back(c.values.size());
    c.values.push_back(std::move(checks));
  }
  if (c.kernelArgs.size() != func.getNumArguments())
    return emitError(func.getLoc())
           << "the lowered function has " << func.getNumArguments()
           << " arguments, not " << c.kernelArgs.size();
  if (auto done = func->getAttrOfType<DenseI64ArrayAttr>("nnc.donated")) {
    ArrayRef<int64_t> list = done.asArrayRef();
    for (size_t i = 0; i + 1 < list.size(); i += 2)
      c.donations.push_back({c.kernelArgs[list[i]], c.kernelArgs[list[i + 1]]});
  }
  for (auto call : func.getBody().front().getOps<func::CallOp>()) {
    auto callee = c.work->lookupSymbol<func::FuncOp>(call.getCallee());
    if (!callee)
      return emitError(call.getLoc())
             << "kernel " << call.getCallee() << " is missing";
    nnc::KernelEntry kernel;
    kernel.function = callee.getName().str();
    kernel.symbol = "nnc_kernel_" + std::to_string(c.kernels.size());
    kernel.numPointers = call.getNumOperands();
    rt::PlanStep step;
    step.kernel = kernel.symbol;
    for (Value operand : call.getOperands()) {
      auto arg = dyn_cast<BlockArgument>(operand);
      if (!arg)
        return emitError(call.getLoc())
               << "kernel " << call.getCallee()
               << " takes a value that is not an argument of @"
               << c.functionName;
      step.args.push_back(c.kernelArgs[arg.getArgNumber()]);
    }
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
    c.steps.push_back(std::move(step));
    c.kernels.push_back(std::move(kernel));
  }
  if (c.kernels.empty()) {
    // Nothing to compute (every output is empty): the function itself is
    // the one kernel.
    nnc::KernelEntry kernel;
    kernel.function = c.functionName;
    kernel.symbol = "nnc_kernel_0";
    kernel.numPointers = c.kernelArgs.size();
    rt::PlanStep step;
    step.kernel = kernel.symbol;
    step.args = c.kernelArgs;
    c.steps.push_back(std::move(step));
    c.kernels.push_back(std::move(kernel));
  }
  c.work->walk([&](memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    if (type.hasStaticShape())
      c.kernelAllocBytes +=
          type.getNumElements() *
          std::max<uint64_t>(1, type.getElementTypeBitWidth() / 8);
  });
  c.libraryCalls = countLibraryCalls(*c.work);
  return success();
}

/// Stage "shared pipeline": to fused, bufferized, planned kernels (with the
/// target's passes on buffers), and the plan read off them. With
/// measureUnfused, the same once more without fusion on a copy, for the
/// figures.
LogicalResult runSharedPipeline(Compilation &c, nnc::CompileFailure &failure) {
  // Names are in the plan (and the cache key) and would only get in the
  // way.
  c.function()->removeAttr(nnc::NNCDialect::getResultNamesAttrName());
  failure = nnc::CompileFailure::Internal;
  if (mlir::failed(dropEmptyValues(c)))
    return mlir::failure();
  nnc::dumpIR(*c.work, c.functionName + ".input");
  failure = nnc::CompileFailure::Unsupported;
  if (c.options.measureUnfused && c.options.fuse) {
    OwningOpRef<ModuleOp> unfused(
        cast<ModuleOp>(c.work->getOperation()->clone()));
    PassManager pm(c.context);
    nnc::TargetOptions options = c.targetOptions;
    options.fuse = false;
    nnc::buildKernelPipeline(pm, c.target, options);
    if (mlir::failed(pm.run(*unfused)))
      return mlir::failure();
    KernelFigures figures = kernelFigures(*unfused, c.functionName);
    c.unfusedKernels = figures.kernels;
    c.unfusedBytes = figures.bytes;
  }
  PassManager pm(c.context);
  nnc::buildKernelPipeline(pm, c.target, c.targetOptions);
  if (mlir::failed(pm.run(*c.work)))
    return mlir::failure();
  nnc::dumpIR(*c.work, c.functionName + ".kernels");
  failure = nnc::CompileFailure::Internal;
  return readPlan(c);
}

/// Stage "target pipeline": the kernels lowered to what the target's code
/// generator takes. The function that calls the kernels in order is
/// lowered with them (the plan calls them; the code generator drops it),
/// so that this stage and the shared one together are exactly
/// --nnc-inference-pipeline.
LogicalResult runTargetPipeline(Compilation &c) {
  PassManager pm(c.context);
  c.target.buildLoweringPipeline(pm, c.targetOptions);
  if (mlir::failed(pm.run(*c.work)))
    return mlir::failure();
  nnc::dumpIR(*c.work, c.functionName + ".lowered");
  return success();
}

/// Stages "codegen" and "package": the target's code section, then plan,
/// code and weights in one executable, written to the cache.
LogicalResult generateAndPackage(Compilation &c, nnc::CompileResult &result) {
  rt::Plan plan;
  nnc::KernelBlob blob;
  if (mlir::failed(c.target.generateCode(*c.work, c.kernels, c.targetOptions,
                                         plan, blob)))
    return mlir::failure();
  plan.producer = nnc::compilerVersionString();
  plan.values = std::move(c.values);
  plan.steps = std::move(c.steps);
  // Calls the shared pipeline made, and those the target's lowering made
  // (which generateCode counted into the plan: the CUDA target's GEMMs).
  plan.libraryCalls = static_cast<uint32_t>(std::min<uint64_t>(
      uint64_t(c.libraryCalls) + plan.libraryCalls, UINT32_MAX));
  plan.temporaryBytes = c.arenaBytes;
  plan.kernelAllocBytes = c.kernelAllocBytes;
  plan.unfusedKernels = c.unfusedKernels;
  plan.unfusedBytesMoved = c.unfusedBytes;
  plan.donations = std::move(c.donations);
  plan.checks = std::move(c.checks);
  plan.checksValue = c.checksValue;

  rt::ExecutableWriter writer(c.target.executableTarget());
  std::vector<uint8_t> planBytes = rt::serializePlan(plan);
  rt::Status status =
      writer.addSection(rt::SectionKind::Metadata, "plan", planBytes);
  if (status.isOk())
    status = writer.addSection(rt::SectionKind::Code, "kernels", blob.code,
                               blob.alignment);
  if (status.isOk())
    status = writer.addSection(rt::SectionKind::Weights, "weights", c.weights);
  if (status.isOk())
    status = writer.serialize(result.executable);
  if (!status.isOk())
    return emitError(c.source.getLoc())
           << "cannot package the executable: " << status.message();
  if (!result.cachePath.empty()) {
    // The cache is best effort: a full disk or a read-only folder costs a
    // recompile next time, nothing else.
    if (!llvm::sys::fs::create_directories(c.options.cacheDir))
      (void)writer.writeFile(result.cachePath);
  }
  return success();
}

} // namespace

nnc::CompileFailure nnc::planPeak(ModuleOp module, llvm::StringRef functionName,
                                  ArrayRef<SmallVector<int64_t>> inputShapes,
                                  const CompileOptions &options,
                                  bool smallestByRecomputation,
                                  PlannedPeak &out) {
  out = PlannedPeak();
  nnc::registerAllTargets();
  const Target *target = lookupTarget(options.target);
  if (!target) {
    emitError(module.getLoc()) << "unknown target '" << options.target << "'";
    return CompileFailure::Unsupported;
  }
  if (std::string bad = target->checkVariant(targetVariant(options.target));
      !bad.empty()) {
    emitError(module.getLoc()) << bad;
    return CompileFailure::Unsupported;
  }
  // compile()'s stages, in its order, up to the shared pipeline.
  Compilation c(module, functionName, options, *target);
  CompileFailure failure = CompileFailure::Internal;
  if (failed(copyFunction(c, failure)) ||
      failed(extractWeights(c, inputShapes, failure)) ||
      failed(specializeShapes(c, failure)) ||
      failed(applyMixedPrecision(c, failure)))
    return failure;
  // Before the options' own budget, which would change what there is to
  // recompute.
  if (smallestByRecomputation && failed(smallestRematPeak(c, out, failure)))
    return failure;
  CompileResult result;
  if (failed(applyMemoryBudget(c, result, failure))) {
    out.budgetMissed = failure == CompileFailure::InvalidInput;
    return failure;
  }
  // The database's kernel choices, which may change what kernels allocate;
  // `on` would measure the others, which a plan does not.
  CompileOptions cached = options;
  if (cached.autotune != AutotuneMode::Off)
    cached.autotune = AutotuneMode::Cached;
  if (failed(autotuneKernels(c.function(), *target, c.targetOptions, cached,
                             result)))
    return CompileFailure::InvalidInput;
  int64_t arena = 0;
  failure = CompileFailure::Unsupported;
  if (failed(plannedPeak(c, std::move(c.work), out.peak, arena)))
    return failure;
  return CompileFailure::None;
}

nnc::CompileResult nnc::compile(ModuleOp module, llvm::StringRef functionName,
                                ArrayRef<SmallVector<int64_t>> inputShapes,
                                const CompileOptions &options) {
  auto start = Clock::now();
  CompileResult result;
  auto fail = [&](CompileFailure kind) {
    result.failure = kind;
    result.executable.clear();
    return result;
  };
  nnc::registerAllTargets();
  const Target *target = lookupTarget(options.target);
  if (!target) {
    emitError(module.getLoc())
        << "unknown target '" << options.target << "' (this build compiles for "
        << llvm::join(registeredTargetNames(), ", ") << ")";
    return fail(CompileFailure::Unsupported);
  }
  if (std::string bad = target->checkVariant(targetVariant(options.target));
      !bad.empty()) {
    emitError(module.getLoc()) << bad;
    return fail(CompileFailure::Unsupported);
  }
  Compilation c(module, functionName, options, *target);
  CompileFailure failure = CompileFailure::Internal;
  if (failed(copyFunction(c, failure)) ||
      failed(extractWeights(c, inputShapes, failure)) ||
      failed(specializeShapes(c, failure)) ||
      failed(applyMixedPrecision(c, failure)))
    return fail(failure);
  result.mixedPrecision = nnc::mixedPrecisionReport(c.function());
  if (failed(applyMemoryBudget(c, result, failure)))
    return fail(failure);
  // The kernel choices are part of what the cache key covers.
  if (failed(autotuneKernels(c.function(), *target, c.targetOptions, options,
                             result)))
    return fail(CompileFailure::InvalidInput);
  cacheLookup(c, result);
  if (result.fromCache) {
    result.seconds = secondsSince(start);
    return result;
  }
  if (failed(runSharedPipeline(c, failure)))
    return fail(failure);
  if (failed(runTargetPipeline(c)) || failed(generateAndPackage(c, result)))
    return fail(CompileFailure::Internal);
  result.seconds = secondsSince(start);
  return result;
}
