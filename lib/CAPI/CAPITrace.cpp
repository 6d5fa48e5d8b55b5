//===- CAPITrace.cpp - building and parsing models in the C API -----------===//
//
// Implements the tracing section of include/nnc-c/compiler.h, which builds a
// func.func in the nnc dialect op by op as the C++ Tracer does (inputs first,
// then parameters, marked with `nnc.param`), and nnc_model_parse_mlir.
// Parameters' initial values travel as an `nnc.value` argument attribute
// holding a DenseResourceElementsAttr, which the compiler embeds as weights.
// Every op is built generically from its name and an attribute dictionary,
// its result types inferred, and verified before it joins the graph.
//
//===----------------------------------------------------------------------===//

#include "nnc-c/nnc.h"

#include "Internal.h"

#include "nnc/Compiler/ElementTypes.h"
#include "nnc/NNCDialect.h"
#include "nnc/NNCOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cctype>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

using namespace mlir;
using namespace nnc::capi;

struct nnc_graph_s {
  nnc_context_s *context = nullptr;
  std::string name;
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
  Block *body = nullptr;
  /// nnc_value_t -> SSA value.
  std::vector<Value> values;
  unsigned numInputs = 0;
  struct Param {
    BlockArgument arg;
    nnc::ParamKind kind;
    /// The initial value, or null.
    Attribute initial;
  };
  std::vector<Param> params;
  llvm::StringSet<> names;

  ~nnc_graph_s() {
    // The module must go before the context it lives in.
    module = nullptr;
    if (context)
      release(context);
  }
};

namespace {

/// The MLIR element type of a valid dtype, or null for those the nnc
/// dialect has no tensors of (u8).
Type toMLIR(MLIRContext *ctx, nnc_dtype_t dtype) {
  if (!isValidDType(dtype))
    return nullptr;
  rt::DType element = toRuntime(dtype);
  return rt::isGraphDType(element) ? nnc::mlirTypeOf(element, ctx) : nullptr;
}

/// The integer a C caller passed for an enum parameter. C lets any int
/// through; reading it as the C++ enum would be undefined when it lies
/// outside the enum's range, so it is read as the bytes it is.
template <typename Enum> int rawEnum(const Enum &value) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are int-sized here");
  int raw;
  std::memcpy(&raw, &value, sizeof(raw));
  return raw;
}

/// Checks a dtype for graph values.
nnc_status_t checkGraphDType(const char *fn, const char *argument,
                             const nnc_dtype_t &dtype) {
  int raw = rawEnum(dtype);
  if (raw < 0 || raw > NNC_DTYPE_UNKNOWN ||
      !isValidDType(static_cast<nnc_dtype_t>(raw)))
    return invalidArgument(fn, std::string("argument '") + argument +
                                   "' is not a valid nnc_dtype_t (" +
                                   std::to_string(raw) + ")");
  if (dtype == NNC_DTYPE_U8)
    return invalidArgument(fn, std::string("argument '") + argument +
                                   "' is u8, which nnc graphs do not have "
                                   "(use i8, i32 or f32)");
  return nullptr;
}

std::string formatDims(llvm::ArrayRef<int64_t> dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i)
      text += ", ";
    text += dims[i] < 0 ? std::string("?") : std::to_string(dims[i]);
  }
  return text + "]";
}

std::string describeTensor(nnc_dtype_t dtype, llvm::ArrayRef<int64_t> dims) {
  return std::string(nnc_dtype_name(dtype)) + " " + formatDims(dims);
}

/// Checks that `value` names a value of `graph`.
nnc_status_t checkValue(const char *fn, const nnc_graph_s &graph,
                        const std::string &what, nnc_value_t value) {
  if (value >= 0 && static_cast<size_t>(value) < graph.values.size())
    return nullptr;
  return invalidArgument(
      fn, what + " is value " + std::to_string(value) +
              ", but the graph has values 0.." +
              std::to_string(static_cast<int64_t>(graph.values.size()) - 1));
}

/// Adds `value` to the graph's table and returns its number.
nnc_status_t addValue(const char *fn, nnc_graph_s &graph, Value value,
                      nnc_value_t &out) {
  if (graph.values.size() >=
      static_cast<size_t>(std::numeric_limits<nnc_value_t>::max()))
    return makeStatus(NNC_STATUS_OUT_OF_RANGE, fn,
                      "the graph has as many values as nnc_value_t numbers");
  out = static_cast<nnc_value_t>(graph.values.size());
  graph.values.push_back(value);
  return nullptr;
}

/// The bytes of `tensor` as a dense attribute of `type` (booleans are one
/// byte each in tensors, one bit each in DenseElementsAttr).
DenseElementsAttr toDenseAttr(RankedTensorType type,
                              const nnc_tensor_s &tensor) {
  const char *data = static_cast<const char *>(tensor.data);
  if (tensor.dtype == NNC_DTYPE_BOOL) {
    llvm::SmallVector<bool> values;
    values.reserve(tensor.byteSize);
    for (size_t i = 0; i < tensor.byteSize; ++i)
      values.push_back(data[i] != 0);
    return DenseElementsAttr::get(type, values);
  }
  return DenseElementsAttr::getFromRawBuffer(
      type, llvm::ArrayRef<char>(data, tensor.byteSize));
}

/// A resource key made of the identifier characters of `name`.
std::string resourceKey(llvm::StringRef name) {
  std::string key = "nnc_value";
  if (!name.empty())
    key += "_";
  for (char c : name)
    key += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return key;
}

/// The operand count an op's traits fix: `exact` for ops with a fixed count,
/// otherwise the least count. Found by probing the arity traits ODS attaches
/// (ZeroOperands, OneOperand, NOperands<N>, AtLeastNOperands<N>).
struct Arity {
  unsigned count = 0;
  bool exact = false;
};

template <size_t... N>
Arity probeArity(RegisteredOperationName name, std::index_sequence<N...>) {
  Arity arity;
  if (name.hasTrait<OpTrait::ZeroOperands>())
    return {0, true};
  if (name.hasTrait<OpTrait::OneOperand>())
    return {1, true};
  (void)((name.hasTrait<OpTrait::NOperands<N>::template Impl>()
              ? (arity = {static_cast<unsigned>(N), true}, true)
              : false) ||
         ...);
  if (arity.exact)
    return arity;
  (void)((name.hasTrait<OpTrait::AtLeastNOperands<N>::template Impl>()
              ? (arity = {static_cast<unsigned>(N), false}, true)
              : false) ||
         ...);
  if (name.hasTrait<OpTrait::AtLeastNOperands<1>::Impl>())
    return {1, false};
  return arity;
}

Arity getArity(RegisteredOperationName name) {
  // NOperands<N> exists for N >= 2, AtLeastNOperands<N> for every N.
  return probeArity(name, std::index_sequence<2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                              12, 13, 14, 15, 16>());
}

/// Takes the graph's module out and wraps it into a model.
nnc_status_t finishGraph(const char *fn, nnc_graph_s &graph, size_t num_outputs,
                         const nnc_value_t *outputs, nnc_model_t **out_model) {
  if (!out_model)
    return nullArgument(fn, "out_model");
  if (num_outputs == 0)
    return invalidArgument(fn, "argument 'num_outputs' is 0; a model needs "
                               "at least one output");
  if (!outputs)
    return nullArgument(fn, "outputs");
  llvm::SmallVector<Value> results;
  for (size_t i = 0; i < num_outputs; ++i) {
    if (nnc_status_t status = checkValue(
            fn, graph, "outputs[" + std::to_string(i) + "]", outputs[i]))
      return status;
    results.push_back(graph.values[outputs[i]]);
  }
  MLIRContext *ctx = graph.context->mlir.get();
  DiagnosticCapture capture(*ctx);
  OpBuilder builder = OpBuilder::atBlockEnd(graph.body);
  func::ReturnOp::create(builder, UnknownLoc::get(ctx), results);
  graph.func.setFunctionType(builder.getFunctionType(
      graph.body->getArgumentTypes(), ValueRange(results).getTypes()));
  for (const nnc_graph_s::Param &param : graph.params) {
    unsigned index = param.arg.getArgNumber();
    graph.func.setArgAttr(index, nnc::NNCDialect::getParamAttrName(),
                          nnc::ParamKindAttr::get(ctx, param.kind));
    if (param.initial)
      graph.func.setArgAttr(index, nnc::NNCDialect::getValueAttrName(),
                            param.initial);
  }
  if (failed(verify(*graph.module)))
    return invalidArgument(fn,
                           "the graph does not verify: " + capture.errors());
  return makeModel(fn, graph.context, std::move(graph.module), out_model);
}

} // namespace

extern "C" {

nnc_status_t nnc_graph_create(nnc_context_t *context, const char *name,
                              nnc_graph_t **out_graph) {
  static const char *fn = "nnc_graph_create";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!context)
      return nullArgument(fn, "context");
    if (!out_graph)
      return nullArgument(fn, "out_graph");
    MLIRContext *ctx = context->mlir.get();
    DiagnosticCapture capture(*ctx);
    auto graph = std::make_unique<nnc_graph_s>();
    graph->name = name && *name ? name : "main";
    Location loc = UnknownLoc::get(ctx);
    graph->module = ModuleOp::create(loc);
    OpBuilder builder = OpBuilder::atBlockEnd(graph->module->getBody());
    graph->func = func::FuncOp::create(builder, loc, graph->name,
                                       builder.getFunctionType({}, {}));
    graph->body = graph->func.addEntryBlock();
    retain(context);
    graph->context = context;
    *out_graph = graph.release();
    return nullptr;
  });
}

nnc_status_t nnc_graph_add_argument(nnc_graph_t *graph, nnc_value_kind_t kind,
                                    const char *name, nnc_dtype_t dtype,
                                    size_t rank, const int64_t *dims,
                                    const nnc_tensor_t *initial,
                                    nnc_value_t *out_value) {
  static const char *fn = "nnc_graph_add_argument";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!graph)
      return nullArgument(fn, "graph");
    if (!out_value)
      return nullArgument(fn, "out_value");
    int rawKind = rawEnum(kind);
    bool isInput = rawKind == NNC_VALUE_INPUT;
    nnc::ParamKind paramKind = nnc::ParamKind::trainable;
    switch (rawKind) {
    case NNC_VALUE_INPUT:
    case NNC_VALUE_TRAINABLE:
      break;
    case NNC_VALUE_FROZEN:
      paramKind = nnc::ParamKind::frozen;
      break;
    case NNC_VALUE_BUFFER:
      paramKind = nnc::ParamKind::buffer;
      break;
    default:
      return invalidArgument(
          fn, "argument 'kind' is " + std::to_string(rawKind) +
                  "; an argument is NNC_VALUE_INPUT, _TRAINABLE, _FROZEN or "
                  "_BUFFER");
    }
    if (nnc_status_t status = checkGraphDType(fn, "dtype", dtype))
      return status;
    if (nnc_status_t status = checkRank(fn, rank, dims))
      return status;
    std::string what = std::string(isInput ? "input" : "parameter") +
                       (name && *name ? std::string(" '") + name + "'" : "");
    llvm::SmallVector<int64_t> shape;
    for (size_t i = 0; i < rank; ++i) {
      int64_t d = dims[i];
      if (d == -1 && isInput) {
        shape.push_back(ShapedType::kDynamic);
        continue;
      }
      if (d < 0)
        return invalidArgument(
            fn, what + ": dimension " + std::to_string(i) + " is " +
                    std::to_string(d) +
                    (isInput ? "; use -1 for a dynamic dimension"
                             : "; parameters have static shapes"));
      shape.push_back(d);
    }
    if (name && *name && graph->names.count(name))
      return invalidArgument(fn, what + " is already declared");
    Attribute initialAttr;
    MLIRContext *ctx = graph->context->mlir.get();
    auto type = RankedTensorType::get(shape, toMLIR(ctx, dtype));
    if (initial) {
      if (isInput)
        return invalidArgument(fn, what + ": inputs take no initial value "
                                          "(argument 'initial' is not NULL)");
      if (initial->dtype != dtype ||
          llvm::ArrayRef<int64_t>(initial->dims) != llvm::ArrayRef(shape))
        return invalidArgument(
            fn, what + ": argument 'initial' is " +
                    describeTensor(initial->dtype, initial->dims) +
                    " but the parameter is " + describeTensor(dtype, shape));
      // Booleans stay one byte each, as in nnc_tensor_t.
      AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
          llvm::ArrayRef<char>(static_cast<const char *>(initial->data),
                               initial->byteSize),
          rt::kHostTensorAlignment);
      initialAttr = DenseResourceElementsAttr::get(
          type, resourceKey(name ? name : ""), std::move(blob));
    }
    Location loc = UnknownLoc::get(ctx);
    if (name && *name)
      loc = NameLoc::get(StringAttr::get(ctx, name), loc);
    BlockArgument arg =
        isInput ? graph->body->insertArgument(graph->numInputs, type, loc)
                : graph->body->addArgument(type, loc);
    nnc_value_t number = 0;
    if (nnc_status_t status = addValue(fn, *graph, arg, number)) {
      graph->body->eraseArgument(arg.getArgNumber());
      return status;
    }
    if (isInput)
      ++graph->numInputs;
    else
      graph->params.push_back({arg, paramKind, initialAttr});
    if (name && *name)
      graph->names.insert(name);
    *out_value = number;
    return nullptr;
  });
}

nnc_status_t nnc_graph_add_constant(nnc_graph_t *graph,
                                    const nnc_tensor_t *tensor,
                                    nnc_value_t *out_value) {
  static const char *fn = "nnc_graph_add_constant";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!graph)
      return nullArgument(fn, "graph");
    if (!tensor)
      return nullArgument(fn, "tensor");
    if (!out_value)
      return nullArgument(fn, "out_value");
    if (nnc_status_t status = checkGraphDType(fn, "tensor", tensor->dtype))
      return status;
    MLIRContext *ctx = graph->context->mlir.get();
    DiagnosticCapture capture(*ctx);
    auto type = RankedTensorType::get(tensor->dims, toMLIR(ctx, tensor->dtype));
    DenseElementsAttr value = toDenseAttr(type, *tensor);
    OpBuilder builder = OpBuilder::atBlockEnd(graph->body);
    auto constant = nnc::ConstantOp::create(builder, UnknownLoc::get(ctx),
                                            cast<ElementsAttr>(value));
    if (failed(verify(constant))) {
      constant->erase();
      return invalidArgument(fn, capture.errors());
    }
    nnc_value_t number = 0;
    if (nnc_status_t status =
            addValue(fn, *graph, constant.getResult(), number)) {
      constant->erase();
      return status;
    }
    *out_value = number;
    return nullptr;
  });
}

nnc_status_t nnc_graph_add_op(nnc_graph_t *graph, const char *op_name,
                              size_t num_operands, const nnc_value_t *operands,
                              const char *attributes, size_t max_results,
                              nnc_value_t *out_results,
                              size_t *out_num_results) {
  static const char *fn = "nnc_graph_add_op";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!graph)
      return nullArgument(fn, "graph");
    if (!op_name)
      return nullArgument(fn, "op_name");
    if (num_operands && !operands)
      return nullArgument(fn, "operands");
    if (max_results && !out_results)
      return nullArgument(fn, "out_results");
    if (!out_num_results)
      return nullArgument(fn, "out_num_results");
    MLIRContext *ctx = graph->context->mlir.get();
    std::string fullName = op_name;
    if (fullName.find('.') == std::string::npos)
      fullName = "nnc." + fullName;
    if (llvm::StringRef(fullName).split('.').first != "nnc")
      return invalidArgument(fn, "'" + fullName + "' is not an nnc op");
    std::optional<RegisteredOperationName> opName =
        RegisteredOperationName::lookup(fullName, ctx);
    if (!opName)
      return invalidArgument(fn, "unknown op '" + fullName + "'");
    std::string what = "'" + fullName + "'";
    if (!opName->hasTrait<OpTrait::ZeroRegions>())
      return invalidArgument(
          fn, what + " has regions, which nnc_graph_add_op cannot build");
    auto *inferTypes = opName->getInterface<InferTypeOpInterface>();
    if (!inferTypes)
      return invalidArgument(fn, what + " does not infer its result types, so "
                                        "nnc_graph_add_op cannot build it");
    // Inference reads operands by position before anything verifies their
    // number, so a wrong count must not reach it.
    Arity arity = getArity(*opName);
    if (arity.exact ? num_operands != arity.count : num_operands < arity.count)
      return invalidArgument(
          fn, what + " takes " + (arity.exact ? "" : "at least ") +
                  std::to_string(arity.count) + " operands, got " +
                  std::to_string(num_operands));
    llvm::SmallVector<Value> operandValues;
    for (size_t i = 0; i < num_operands; ++i) {
      if (nnc_status_t status = checkValue(
              fn, *graph, what + " operand " + std::to_string(i), operands[i]))
        return status;
      operandValues.push_back(graph->values[operands[i]]);
    }

    DiagnosticCapture capture(*ctx);
    DictionaryAttr dict = DictionaryAttr::get(ctx);
    if (attributes && *attributes) {
      size_t numRead = 0;
      llvm::StringRef text(attributes);
      Attribute parsed = parseAttribute(text, ctx, Type(), &numRead,
                                        /*isKnownNullTerminated=*/true);
      if (!parsed)
        return invalidArgument(fn, what +
                                       ": cannot parse argument "
                                       "'attributes': " +
                                       capture.errors());
      if (!text.drop_front(numRead).trim().empty())
        return invalidArgument(fn, what +
                                       ": argument 'attributes' has "
                                       "trailing text after the "
                                       "dictionary: '" +
                                       text.drop_front(numRead).str() + "'");
      dict = dyn_cast<DictionaryAttr>(parsed);
      if (!dict)
        return invalidArgument(fn, what +
                                       ": argument 'attributes' must be "
                                       "an attribute dictionary such as "
                                       "{axis = 1 : i64}, got '" +
                                       text.str() + "'");
    }

    // Operand segments index the operands, so they must add up to them.
    if (opName->hasTrait<OpTrait::AttrSizedOperandSegments>()) {
      auto segments =
          dyn_cast_or_null<DenseI32ArrayAttr>(dict.get("operandSegmentSizes"));
      int64_t total = 0;
      bool valid = static_cast<bool>(segments);
      for (int32_t size :
           segments ? segments.asArrayRef() : llvm::ArrayRef<int32_t>())
        if (size < 0)
          valid = false;
        else
          total += size;
      if (!valid || total != static_cast<int64_t>(num_operands))
        return invalidArgument(
            fn, what +
                    " has optional operands: argument 'attributes' needs "
                    "operandSegmentSizes = array<i32: ...> with one "
                    "non-negative count per operand group, adding up to "
                    "the " +
                    std::to_string(num_operands) + " operands given");
    }

    // Inherent attributes live in the op's properties, where inference and
    // the verifier read them; the rest stay discardable attributes.
    Location loc = UnknownLoc::get(ctx);
    NamedAttrList discardable;
    for (NamedAttribute attr : dict)
      if (!llvm::is_contained(opName->getAttributeNames(), attr.getName()))
        discardable.push_back(attr);
    int propertiesSize = opName->getOpPropertyByteSize();
    std::unique_ptr<char[]> storage;
    OpaqueProperties properties(nullptr);
    struct PropertiesGuard {
      RegisteredOperationName name;
      OpaqueProperties properties;
      ~PropertiesGuard() {
        if (properties)
          name.destroyOpProperties(properties);
      }
    } guard{*opName, OpaqueProperties(nullptr)};
    if (propertiesSize > 0) {
      storage = std::make_unique<char[]>(propertiesSize);
      properties = OpaqueProperties(storage.get());
      opName->initOpProperties(properties, OpaqueProperties(nullptr));
      guard.properties = properties;
      if (failed(opName->setOpPropertiesFromAttribute(
              *opName, properties, dict,
              [&] { return emitError(loc) << what << ": "; })))
        return invalidArgument(fn, capture.errors());
      opName->populateDefaultProperties(properties);
    } else {
      discardable = NamedAttrList(dict);
    }

    llvm::SmallVector<Type> resultTypes;
    if (failed(inferTypes->inferReturnTypes(
            ctx, loc, operandValues, discardable.getDictionary(ctx), properties,
            RegionRange(), resultTypes)))
      return invalidArgument(fn, what + ": " + capture.errors());
    if (resultTypes.size() > max_results)
      return invalidArgument(fn, what + " has " +
                                     std::to_string(resultTypes.size()) +
                                     " results but argument 'max_results' "
                                     "is " +
                                     std::to_string(max_results));
    if (graph->values.size() + resultTypes.size() >
        static_cast<size_t>(std::numeric_limits<nnc_value_t>::max()))
      return makeStatus(NNC_STATUS_OUT_OF_RANGE, fn,
                        "the graph has as many values as nnc_value_t numbers");

    Operation *op = Operation::create(loc, *opName, resultTypes, operandValues,
                                      std::move(discardable), properties,
                                      BlockRange(), /*numRegions=*/0);
    graph->body->push_back(op);
    if (failed(verify(op))) {
      op->erase();
      return invalidArgument(fn, capture.errors());
    }
    for (auto [i, result] : llvm::enumerate(op->getResults())) {
      nnc_value_t number = 0;
      (void)addValue(fn, *graph, result, number);
      out_results[i] = number;
    }
    *out_num_results = op->getNumResults();
    return nullptr;
  });
}

nnc_status_t nnc_graph_finish(nnc_graph_t *graph, size_t num_outputs,
                              const nnc_value_t *outputs,
                              nnc_model_t **out_model) {
  static const char *fn = "nnc_graph_finish";
  return guarded(fn, [&]() -> nnc_status_t {
    if (!graph)
      return nullArgument(fn, "graph");
    // Consumed on every path, success or not.
    std::unique_ptr<nnc_graph_s> owned(graph);
    return finishGraph(fn, *owned, num_outputs, outputs, out_model);
  });
}

void nnc_graph_destroy(nnc_graph_t *graph) { delete graph; }

nnc_status_t nnc_model_parse_mlir(nnc_context_t *context, const char *text,
                                  size_t size, const char *name,
                                  nnc_model_t **out_model) {
  static const char *fn = "nnc_model_parse_mlir";
  return guarded(fn, [&]() -> nnc_status_t {
    if (nnc_status_t status =
            checkMemorySource(fn, context, text, size, "text", out_model))
      return status;
    std::string bufferName = memorySourceName(name);
    MLIRContext *ctx = context->mlir.get();
    DiagnosticCapture capture(*ctx);
    // The lexer wants a NUL after the text, which the caller's need not have.
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(
                                     llvm::StringRef(text, size), bufferName),
                                 llvm::SMLoc());
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(ctx));
    if (!module)
      return invalidArgument(fn, "cannot parse '" + bufferName +
                                     "': " + capture.errors());
    func::FuncOp func;
    for (Operation &op : *module->getBody()) {
      auto candidate = dyn_cast<func::FuncOp>(op);
      if (!candidate || candidate.isExternal() || func)
        return invalidArgument(fn, "'" + bufferName +
                                       "' must hold exactly one function "
                                       "with a body and nothing else");
      func = candidate;
    }
    if (!func)
      return invalidArgument(fn, "'" + bufferName + "' holds no function");
    return makeModel(fn, context, std::move(module), out_model);
  });
}

} // extern "C"
