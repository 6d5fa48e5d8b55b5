//===- Importer.cpp - ONNX to nnc import ----------------------------------===//
//
// Reads a ModelProto and builds one func.func of nnc ops: graph inputs and
// floating-point initializers become arguments, integer initializers and
// Constant nodes become constants, and each node goes through the op table.
// Every failure is a diagnostic naming the node, input or tensor.
//
//===----------------------------------------------------------------------===//

#include "nnc/Import/ONNX/Importer.h"

#include "Converter.h"

#include "nnc/InitAll.h"
#include "nnc/ShapeUtils.h"
#include "nnc/ShapeValues.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

using namespace mlir;

namespace nnc::onnx_import {

//===----------------------------------------------------------------------===//
// GraphImporter
//===----------------------------------------------------------------------===//

class GraphImporter {
public:
  GraphImporter(MLIRContext &context, StringRef bufferName,
                const ImportOptions &options)
      : context(context), builder(&context), bufferName(bufferName.str()),
        options(options) {}

  OwningOpRef<ModuleOp> import(const onnx::ModelProto &model);

  MLIRContext &context;
  OpBuilder builder;
  std::string bufferName;
  const ImportOptions &options;
  /// ONNX value name -> nnc value.
  llvm::StringMap<Value> values;
  /// Initializers and bound inputs whose data is known at import time but
  /// that were not materialized as constants (parameters).
  llvm::StringMap<const onnx::TensorProto *> knownTensors;
  /// Decoded values of knownTensors, filled on demand.
  llvm::StringMap<DenseElementsAttr> decoded;
  /// Bound constant inputs, parsed from options.constantInputs.
  std::vector<std::unique_ptr<onnx::TensorProto>> boundInputs;

  Location modelLoc() {
    return FileLineColLoc::get(&context, bufferName, 0, 0);
  }
  InFlightDiagnostic emitModelError() { return mlir::emitError(modelLoc()); }

  std::optional<DenseElementsAttr> knownValue(StringRef name);

private:
  LogicalResult importGraph(const onnx::GraphProto &graph, int64_t opset,
                            ModuleOp module);
  FailureOr<RankedTensorType> convertValueInfo(const onnx::ValueInfoProto &info,
                                               StringRef role);
  LogicalResult convertNode(const onnx::NodeProto &node, unsigned index,
                            int64_t opset);
};

std::optional<DenseElementsAttr> GraphImporter::knownValue(StringRef name) {
  auto it = values.find(name);
  if (it != values.end()) {
    DenseElementsAttr attr;
    if (matchPattern(it->second, m_Constant(&attr)))
      return attr;
  }
  auto known = knownTensors.find(name);
  if (known == knownTensors.end())
    return std::nullopt;
  auto cached = decoded.find(name);
  if (cached != decoded.end())
    return cached->second;
  std::string error;
  FailureOr<DenseElementsAttr> attr =
      convertTensor(&context, *known->second, options.modelDirectory, error);
  if (failed(attr))
    return std::nullopt; // Reported when the tensor was first checked.
  decoded[name] = *attr;
  return *attr;
}

FailureOr<RankedTensorType>
GraphImporter::convertValueInfo(const onnx::ValueInfoProto &info,
                                StringRef role) {
  if (!info.type().has_tensor_type())
    return emitModelError() << role << " '" << info.name()
                            << "' is not a tensor (sequences, maps and "
                               "optionals are not supported)";
  const onnx::TypeProto::Tensor &tensor = info.type().tensor_type();
  std::string reason;
  Type elementType = convertDataType(&context, tensor.elem_type(), reason);
  if (!elementType)
    return emitModelError() << role << " '" << info.name() << "': " << reason;
  if (!tensor.has_shape())
    return emitModelError() << role << " '" << info.name()
                            << "' has no shape; nnc needs at least its rank";
  SmallVector<int64_t> shape;
  for (const onnx::TensorShapeProto::Dimension &dim : tensor.shape().dim()) {
    if (dim.has_dim_value()) {
      if (dim.dim_value() < 0)
        return emitModelError()
               << role << " '" << info.name() << "' has a negative dimension "
               << dim.dim_value();
      shape.push_back(dim.dim_value());
    } else {
      // Symbolic (dim_param) and unknown dimensions stay dynamic.
      shape.push_back(ShapedType::kDynamic);
    }
  }
  return RankedTensorType::get(shape, elementType);
}

LogicalResult GraphImporter::convertNode(const onnx::NodeProto &node,
                                         unsigned index, int64_t opset) {
  std::string name = node.name().empty()
                         ? (node.op_type() + "_" + Twine(index)).str()
                         : node.name();
  Location loc = NameLoc::get(StringAttr::get(&context, name), modelLoc());
  auto nodeError = [&]() {
    return mlir::emitError(loc)
           << "node '" << name << "' (" << node.op_type() << "): ";
  };
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return nodeError() << "operator domain '" << node.domain()
                       << "' is not supported";
  for (const std::string &input : node.input()) {
    if (input.empty() || values.count(input))
      continue;
    return nodeError() << "input '" << input
                       << "' is not a graph input, an initializer or an "
                          "output of an earlier node";
  }
  llvm::StringSet<> seen;
  for (const onnx::AttributeProto &attr : node.attribute())
    if (!seen.insert(attr.name()).second)
      return nodeError() << "attribute '" << attr.name() << "' is repeated";
  // The operator's schema at the model's opset: the number of inputs and
  // outputs and the names of the attributes, checked before any converter
  // reads the node. Only for opsets the ONNX library knows whole: a newer
  // opset may have changed the operator since its latest schema.
  static const int64_t knownOpset = [] {
    const auto &ranges =
        onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    auto it = ranges.find("");
    return it == ranges.end() ? int64_t(0) : int64_t(it->second.second);
  }();
  // (A deprecated operator is left to its converter, which says so.)
  const onnx::OpSchema *schema =
      opset <= knownOpset
          ? onnx::OpSchemaRegistry::Schema(node.op_type(), opset, "")
          : nullptr;
  if (schema && !schema->Deprecated()) {
    auto range = [](int count, int min, int max) {
      std::string text = std::to_string(min);
      if (max != min)
        text += max == std::numeric_limits<int>::max()
                    ? " or more"
                    : " to " + std::to_string(max);
      return std::to_string(count) + " given, " + text + " expected";
    };
    if (node.input_size() < schema->min_input()) {
      int missing = node.input_size();
      const auto &formal = schema->inputs();
      std::string name =
          formal.empty()
              ? std::string()
              : formal[std::min<size_t>(missing, formal.size() - 1)].GetName();
      return nodeError() << "missing required input " << missing
                         << (name.empty() ? "" : " (" + name + ")") << " ("
                         << range(node.input_size(), schema->min_input(),
                                  schema->max_input())
                         << " at opset " << opset << ")";
    }
    if (node.input_size() > schema->max_input())
      return nodeError() << "wrong number of inputs ("
                         << range(node.input_size(), schema->min_input(),
                                  schema->max_input())
                         << " at opset " << opset << ")";
    if (node.output_size() < schema->min_output() ||
        node.output_size() > schema->max_output())
      return nodeError() << "wrong number of outputs ("
                         << range(node.output_size(), schema->min_output(),
                                  schema->max_output())
                         << " at opset " << opset << ")";
    for (const onnx::AttributeProto &attr : node.attribute())
      if (!schema->attributes().count(attr.name())) {
        auto diag = nodeError()
                    << "unknown attribute '" << attr.name() << "' for "
                    << node.op_type() << " at opset " << opset << "; it takes";
        if (schema->attributes().empty())
          diag << " none";
        for (const auto &[known, unused] : schema->attributes())
          diag << " '" << known << "'";
        return diag;
      }
  }
  const OpRegistry &registry = OpRegistry::get();
  if (std::optional<StringRef> category =
          registry.unsupportedCategory(node.op_type()))
    return nodeError() << "unsupported: " << node.op_type() << " (" << *category
                       << ") is not supported yet";
  const ConvertFn *convert = registry.lookup(node.op_type(), opset);
  if (!convert)
    return nodeError() << "unsupported: no converter for " << node.op_type()
                       << " at opset " << opset;
  NodeContext ctx(*this, node, opset, loc);
  LogicalResult converted = (*convert)(ctx);
  // A wrongly typed attribute may have been read as absent; it is an error
  // whether or not the conversion went on with a default.
  if (!ctx.attributeError().empty())
    return nodeError() << ctx.attributeError();
  if (failed(converted))
    return failure();
  for (unsigned i = 0, e = node.output_size(); i < e; ++i)
    if (!node.output(i).empty() && !values.count(node.output(i)))
      return nodeError() << "output " << i << " ('" << node.output(i)
                         << "') is not produced by nnc's conversion";
  return success();
}

LogicalResult GraphImporter::importGraph(const onnx::GraphProto &graph,
                                         int64_t opset, ModuleOp module) {
  // Initializers: check every one now, whether or not it is used.
  llvm::StringMap<const onnx::TensorProto *> initializers;
  for (const onnx::TensorProto &init : graph.initializer()) {
    if (init.name().empty())
      return emitModelError() << "an initializer has no name";
    if (!initializers.insert({init.name(), &init}).second)
      return emitModelError()
             << "initializer '" << init.name() << "' is defined twice";
  }
  if (graph.sparse_initializer_size())
    return emitModelError() << "sparse initializers are not supported";

  // Bound constant inputs.
  llvm::StringMap<const onnx::TensorProto *> bound;
  for (const auto &[name, bytes] : options.constantInputs) {
    auto tensor = std::make_unique<onnx::TensorProto>();
    if (!tensor->ParseFromString(bytes))
      return emitModelError() << "the value bound to input '" << name
                              << "' is not a serialized TensorProto";
    bound[name] = tensor.get();
    boundInputs.push_back(std::move(tensor));
  }

  if (!options.integerInputsDirectory.empty()) {
    int k = 0;
    for (const onnx::ValueInfoProto &input : graph.input()) {
      if (initializers.count(input.name()))
        continue;
      int index = k++;
      if (bound.count(input.name()) || !input.type().has_tensor_type())
        continue;
      std::string reason;
      Type type = convertDataType(
          &context, input.type().tensor_type().elem_type(), reason);
      if (!type || !isa<IntegerType>(type))
        continue;
      SmallString<256> path(options.integerInputsDirectory);
      llvm::sys::path::append(path, "input_" + Twine(index) + ".pb");
      std::unique_ptr<llvm::MemoryBuffer> buffer;
      std::string message;
      if (readProtobufFile(
              path, "the TensorProto of input '" + input.name() + "'",
              kMaxProtobufBytes, buffer, message) != FileError::None)
        return emitModelError() << message;
      auto tensor = std::make_unique<onnx::TensorProto>();
      if (!tensor->ParseFromArray(buffer->getBufferStart(),
                                  static_cast<int>(buffer->getBufferSize())))
        return emitModelError()
               << "'" << path << "' is not a serialized TensorProto";
      bound[input.name()] = tensor.get();
      boundInputs.push_back(std::move(tensor));
    }
  }

  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  SmallVector<bool> argIsParam;
  llvm::StringMap<SmallVector<StringRef>> dimNames;
  llvm::StringSet<> inputNames;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (!inputNames.insert(input.name()).second)
      return emitModelError()
             << "graph input '" << input.name() << "' is listed twice";
    // Older models list initializers among the inputs as defaults.
    if (initializers.count(input.name()) || bound.count(input.name()))
      continue;
    FailureOr<RankedTensorType> type = convertValueInfo(input, "graph input");
    if (failed(type))
      return failure();
    SmallVector<StringRef> names;
    for (const onnx::TensorShapeProto::Dimension &dim :
         input.type().tensor_type().shape().dim())
      names.push_back(dim.has_dim_param() ? StringRef(dim.dim_param())
                                          : StringRef());
    if (llvm::any_of(names, [](StringRef n) { return !n.empty(); }))
      dimNames[input.name()] = names;
    argTypes.push_back(*type);
    argNames.push_back(input.name());
    argIsParam.push_back(false);
  }
  for (const auto &[name, _] : options.constantInputs)
    if (!inputNames.count(name))
      return emitModelError() << "a value is bound to '" << name
                              << "', which is not a graph input";

  // Batch-norm running statistics are state, not weights: they become
  // buffers (as the tracer makes them), so that autodiff and the optimizers
  // leave them alone, frozen or not.
  llvm::StringSet<> runningStats;
  for (const onnx::NodeProto &node : graph.node())
    if (node.op_type() == "BatchNormalization" &&
        (node.domain().empty() || node.domain() == "ai.onnx"))
      for (int i = 3, e = std::min(node.input_size(), 5); i < e; ++i)
        runningStats.insert(node.input(i));

  // Floating-point initializers are parameters, carrying their values as
  // `nnc.value` so that a compiled executable embeds them; the rest become
  // constants.
  llvm::DenseMap<size_t, DenseElementsAttr> paramValues;
  SmallVector<std::pair<std::string, DenseElementsAttr>> constants;
  for (const onnx::TensorProto &init : graph.initializer()) {
    std::string error;
    FailureOr<DenseElementsAttr> value =
        convertTensor(&context, init, options.modelDirectory, error);
    if (failed(value))
      return emitModelError()
             << "initializer '" << init.name() << "' " << error;
    if (isa<FloatType>(value->getElementType())) {
      argTypes.push_back(value->getType());
      argNames.push_back(init.name());
      argIsParam.push_back(true);
      paramValues[argNames.size() - 1] = *value;
      knownTensors[init.name()] = &init;
    } else {
      constants.push_back({init.name(), *value});
    }
  }
  for (auto &[name, tensor] : bound) {
    std::string error;
    FailureOr<DenseElementsAttr> value =
        convertTensor(&context, *tensor, options.modelDirectory, error);
    if (failed(value))
      return emitModelError()
             << "the value bound to input '" << name << "' " << error;
    constants.push_back({name.str(), *value});
  }

  builder.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(builder, modelLoc(), options.functionName,
                                   builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  auto paramKind =
      options.freezeInitializers ? ParamKind::frozen : ParamKind::trainable;
  for (auto [i, name] : llvm::enumerate(argNames)) {
    values[name] = entry->getArgument(i);
    // Arguments carry their ONNX name as the tracer's do, so that clients
    // (the C API's signature queries) can tell inputs apart.
    entry->getArgument(i).setLoc(
        NameLoc::get(StringAttr::get(&context, name), modelLoc()));
    if (argIsParam[i]) {
      ParamKind kind =
          runningStats.contains(name) ? ParamKind::buffer : paramKind;
      func.setArgAttr(i, NNCDialect::getParamAttrName(),
                      ParamKindAttr::get(&context, kind));
      func.setArgAttr(i, NNCDialect::getValueAttrName(), paramValues.at(i));
    }
  }
  builder.setInsertionPointToStart(entry);
  for (auto &[name, value] : constants)
    values[name] = ConstantOp::create(builder, modelLoc(), value);

  for (auto [index, node] : llvm::enumerate(graph.node()))
    if (failed(convertNode(node, index, opset)))
      return failure();

  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    auto it = values.find(output.name());
    if (it == values.end())
      return emitModelError() << "graph output '" << output.name()
                              << "' is not produced by any node";
    Value value = it->second;
    // A declared output type must agree with what nnc inferred.
    if (output.type().has_tensor_type() &&
        output.type().tensor_type().has_shape()) {
      FailureOr<RankedTensorType> declared =
          convertValueInfo(output, "graph output");
      if (failed(declared))
        return failure();
      auto actual = cast<RankedTensorType>(value.getType());
      if (declared->getElementType() != actual.getElementType() ||
          !shapesCompatible(declared->getShape(), actual.getShape()))
        return emitModelError()
               << "graph output '" << output.name() << "' is declared "
               << *declared << " but computes " << actual;
    }
    results.push_back(value);
  }
  func::ReturnOp::create(builder, modelLoc(), results);
  // Integer inputs whose values shape the result (a Reshape's target, a
  // Range's limit) are specialized on their values, as all inputs on their
  // shapes.
  for (auto [i, isParam] : llvm::enumerate(argIsParam)) {
    auto type = cast<RankedTensorType>(argTypes[i]);
    if (!isParam && isa<IntegerType>(type.getElementType()) &&
        type.hasStaticShape() &&
        type.getNumElements() <= kMaxShapeInputElements &&
        feedsShapes(entry->getArgument(i)))
      func.setArgAttr(i, NNCDialect::getShapeInputAttrName(),
                      UnitAttr::get(&context));
  }
  // Dimensions that share a name (dim_param) must agree at run time; the
  // names that occur once constrain nothing and are left out.
  llvm::StringMap<unsigned> uses;
  for (auto [i, name] : llvm::enumerate(argNames))
    if (auto it = dimNames.find(name); !argIsParam[i] && it != dimNames.end())
      for (StringRef dim : it->second)
        if (!dim.empty())
          ++uses[dim];
  for (auto [i, name] : llvm::enumerate(argNames)) {
    auto it = dimNames.find(name);
    if (argIsParam[i] || it == dimNames.end())
      continue;
    SmallVector<StringRef> shared;
    for (StringRef dim : it->second)
      shared.push_back(!dim.empty() && uses[dim] > 1 ? dim : StringRef());
    if (llvm::any_of(shared, [](StringRef n) { return !n.empty(); }))
      func.setArgAttr(i, NNCDialect::getDimNamesAttrName(),
                      builder.getStrArrayAttr(shared));
  }
  func.setFunctionType(
      builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  // Results carry the graph's output names, as arguments carry the inputs'.
  SmallVector<Attribute> resultNames;
  for (const onnx::ValueInfoProto &output : graph.output())
    resultNames.push_back(StringAttr::get(&context, output.name()));
  func->setAttr(NNCDialect::getResultNamesAttrName(),
                ArrayAttr::get(&context, resultNames));
  return success();
}

OwningOpRef<ModuleOp> GraphImporter::import(const onnx::ModelProto &model) {
  if (!model.has_graph()) {
    emitModelError() << "the model has no graph";
    return nullptr;
  }
  std::optional<int64_t> opset;
  for (const onnx::OperatorSetIdProto &id : model.opset_import())
    if (id.domain().empty() || id.domain() == "ai.onnx")
      opset = id.version();
  if (!opset) {
    emitModelError() << "the model imports no opset of the default domain";
    return nullptr;
  }
  // Opsets 7 to 21 are the supported range; older models import where every
  // op they use has a converter registered for their opset.
  if (*opset < 1 || *opset > 21) {
    emitModelError() << "opset " << *opset
                     << " of the default domain is not supported (1 to 21)";
    return nullptr;
  }
  OwningOpRef<ModuleOp> module = ModuleOp::create(modelLoc());
  if (failed(importGraph(model.graph(), *opset, *module)))
    return nullptr;
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

NodeContext::NodeContext(GraphImporter &importer, const onnx::NodeProto &node,
                         int64_t opset, Location loc)
    : importer_(importer), node_(node), opset_(opset), loc_(loc) {}

StringRef NodeContext::opType() const { return node_.op_type(); }
OpBuilder &NodeContext::builder() { return importer_.builder; }
MLIRContext *NodeContext::context() { return &importer_.context; }

unsigned NodeContext::numInputs() const { return node_.input_size(); }

bool NodeContext::hasInput(unsigned i) const {
  return i < numInputs() && !node_.input(i).empty();
}

Value NodeContext::input(unsigned i) const {
  if (!hasInput(i))
    return nullptr;
  return importer_.values.lookup(node_.input(i));
}

RankedTensorType NodeContext::inputType(unsigned i) const {
  Value v = input(i);
  return v ? dyn_cast<RankedTensorType>(v.getType()) : nullptr;
}

FailureOr<Value> NodeContext::requireInput(unsigned i, StringRef what) {
  if (Value v = input(i))
    return v;
  return emitError() << "missing required input " << i << " (" << what << ")";
}

std::optional<DenseElementsAttr> NodeContext::constantInput(unsigned i) const {
  if (!hasInput(i))
    return std::nullopt;
  return importer_.knownValue(node_.input(i));
}

/// ONNX float attributes are float32: `f` as the shortest decimal that reads
/// back as the same float32, so that 0.001f becomes 1e-3 in the IR rather
/// than 0.0010000000474974513.
static double fromFloat32(float f) {
  if (!std::isfinite(f))
    return f;
  char text[32];
  for (int digits = 1; digits < 9; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, f);
    double shortest = std::strtod(text, nullptr);
    if (static_cast<float>(shortest) == f)
      return shortest;
  }
  return f;
}

FailureOr<SmallVector<int64_t>> NodeContext::constantInts(unsigned i,
                                                          StringRef what) {
  std::optional<DenseElementsAttr> value = constantInput(i);
  if (!value)
    return emitError() << "input " << i << " (" << what
                       << ") must be known at compile time (a constant, an "
                          "initializer or a bound input)";
  if (!isa<IntegerType>(value->getElementType()))
    return emitError() << "input " << i << " (" << what
                       << ") must hold integers, got "
                       << value->getElementType();
  SmallVector<int64_t> result;
  for (const APInt &v : value->getValues<APInt>())
    result.push_back(value->getElementType().isInteger(1) ? v.getZExtValue()
                                                          : v.getSExtValue());
  return result;
}

FailureOr<Value> NodeContext::shapeOperand(unsigned i, StringRef what,
                                           std::optional<int64_t> length) {
  FailureOr<Value> value = requireInput(i, what);
  if (failed(value))
    return failure();
  auto type = dyn_cast<RankedTensorType>(value->getType());
  if (!type || !isa<IntegerType>(type.getElementType()) ||
      type.getElementType().isInteger(1) || type.getRank() > 1 ||
      !type.hasStaticShape())
    return emitError() << "input " << i << " (" << what
                       << ") must be a 1-D integer tensor of static length, "
                          "got "
                       << value->getType();
  int64_t n = type.getRank() == 0 ? 1 : type.getDimSize(0);
  if (length && n != *length)
    return emitError() << "input " << i << " (" << what << ") has " << n
                       << " entries, expected " << *length;
  Value v = *value;
  auto i64 = RankedTensorType::get({n}, builder().getI64Type());
  if (type.getRank() == 0) {
    ReshapeOp reshape = create<ReshapeOp>(
        v, {}, TypeRange{RankedTensorType::get({n}, type.getElementType())});
    if (!reshape)
      return failure();
    v = reshape.getResult();
  }
  if (!type.getElementType().isInteger(64)) {
    CastOp cast = create<CastOp>(v, {}, TypeRange{i64});
    if (!cast)
      return failure();
    v = cast.getResult();
  }
  return v;
}

SmallVector<Value> NodeContext::createWithDynamicAttrs(
    StringRef opName, ValueRange operands, ArrayRef<NamedAttribute> attrs,
    ArrayRef<DynamicAttr> dynamic, TypeRange resultTypes) {
  Builder b(context());
  SmallVector<Value> values;
  SmallVector<Attribute> names, kinds;
  for (const DynamicAttr &attr : dynamic) {
    std::optional<int64_t> length = attr.length;
    if (attr.kind != "i64s")
      length = 1;
    FailureOr<Value> value = shapeOperand(attr.input, attr.what, length);
    if (failed(value))
      return {};
    values.push_back(*value);
    names.push_back(b.getStringAttr(attr.name));
    kinds.push_back(b.getStringAttr(attr.kind));
  }
  AttrList list(*this);
  list.attr("op_name", b.getStringAttr(opName))
      .attr("static_attrs", b.getDictionaryAttr(attrs))
      .attr("names", b.getArrayAttr(names))
      .attr("kinds", b.getArrayAttr(kinds))
      .attr("operandSegmentSizes",
            b.getDenseI32ArrayAttr({static_cast<int32_t>(operands.size()),
                                    static_cast<int32_t>(values.size())}));
  SmallVector<Value> all(operands);
  llvm::append_range(all, values);
  DynamicAttrsOp op = create<DynamicAttrsOp>(all, list, resultTypes);
  if (!op)
    return {};
  return SmallVector<Value>(op.getResults());
}

FailureOr<SmallVector<double>> NodeContext::constantFloats(unsigned i,
                                                           StringRef what) {
  std::optional<DenseElementsAttr> value = constantInput(i);
  if (!value)
    return emitError() << "input " << i << " (" << what
                       << ") must be known at compile time (a constant, an "
                          "initializer or a bound input)";
  SmallVector<double> result;
  if (isa<FloatType>(value->getElementType())) {
    bool isF32 = value->getElementType().isF32();
    for (const APFloat &v : value->getValues<APFloat>())
      result.push_back(isF32 ? fromFloat32(v.convertToFloat())
                             : v.convertToDouble());
  } else {
    for (const APInt &v : value->getValues<APInt>())
      result.push_back(static_cast<double>(v.getSExtValue()));
  }
  return result;
}

const onnx::AttributeProto *NodeContext::findAttr(StringRef name) const {
  for (const onnx::AttributeProto &attr : node_.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

bool NodeContext::hasAttr(StringRef name) const { return findAttr(name); }

const onnx::AttributeProto *NodeContext::findTyped(StringRef name,
                                                   int type) const {
  const onnx::AttributeProto *attr = findAttr(name);
  if (!attr)
    return nullptr;
  // Some old exporters leave the type unset; the payload field decides then.
  if (attr->type() == onnx::AttributeProto::UNDEFINED || attr->type() == type)
    return attr;
  if (attrError_.empty())
    attrError_ = ("attribute '" + name + "' has type " +
                  onnx::AttributeProto::AttributeType_Name(attr->type()) +
                  ", expected " +
                  onnx::AttributeProto::AttributeType_Name(
                      static_cast<onnx::AttributeProto::AttributeType>(type)))
                     .str();
  return nullptr;
}

int64_t NodeContext::getInt(StringRef name, int64_t defaultValue) const {
  return getOptionalInt(name).value_or(defaultValue);
}

std::optional<int64_t> NodeContext::getOptionalInt(StringRef name) const {
  const onnx::AttributeProto *attr = findTyped(name, onnx::AttributeProto::INT);
  if (!attr || !attr->has_i())
    return std::nullopt;
  return attr->i();
}

double NodeContext::getFloat(StringRef name, double defaultValue) const {
  return getOptionalFloat(name).value_or(defaultValue);
}

std::optional<double> NodeContext::getOptionalFloat(StringRef name) const {
  const onnx::AttributeProto *attr =
      findTyped(name, onnx::AttributeProto::FLOAT);
  if (!attr || !attr->has_f())
    return std::nullopt;
  return fromFloat32(attr->f());
}

std::string NodeContext::getString(StringRef name,
                                   StringRef defaultValue) const {
  const onnx::AttributeProto *attr =
      findTyped(name, onnx::AttributeProto::STRING);
  if (!attr || !attr->has_s())
    return defaultValue.str();
  return attr->s();
}

SmallVector<int64_t>
NodeContext::getInts(StringRef name, ArrayRef<int64_t> defaultValue) const {
  if (std::optional<SmallVector<int64_t>> v = getOptionalInts(name))
    return *v;
  return SmallVector<int64_t>(defaultValue);
}

std::optional<SmallVector<int64_t>>
NodeContext::getOptionalInts(StringRef name) const {
  const onnx::AttributeProto *attr =
      findTyped(name, onnx::AttributeProto::INTS);
  if (!attr)
    return std::nullopt;
  return SmallVector<int64_t>(attr->ints().begin(), attr->ints().end());
}

SmallVector<double> NodeContext::getFloats(StringRef name) const {
  SmallVector<double> result;
  if (const onnx::AttributeProto *attr =
          findTyped(name, onnx::AttributeProto::FLOATS))
    for (float f : attr->floats())
      result.push_back(fromFloat32(f));
  return result;
}

FailureOr<DenseElementsAttr> NodeContext::getTensor(StringRef name) {
  const onnx::AttributeProto *attr =
      findTyped(name, onnx::AttributeProto::TENSOR);
  if (!attr || !attr->has_t())
    return emitError() << "missing tensor attribute '" << name << "'";
  std::string error;
  FailureOr<DenseElementsAttr> value = convertTensor(
      context(), attr->t(), importer_.options.modelDirectory, error);
  if (failed(value))
    return emitError() << "tensor attribute '" << name << "' " << error;
  return value;
}

unsigned NodeContext::numOutputs() const { return node_.output_size(); }

bool NodeContext::hasOutput(unsigned i) const {
  return i < numOutputs() && !node_.output(i).empty();
}

/// Folds the op defining `values` when all its operands are constants, so
/// that shape computations the converters emit as ops (a Neg of a constant
/// axis, say) stay known at import time. Returns the possibly replaced values.
static SmallVector<Value> foldConstantOperands(OpBuilder &builder,
                                               ValueRange values) {
  SmallVector<Value> result(values.begin(), values.end());
  if (values.empty() || !values.front())
    return result;
  Operation *op = values.front().getDefiningOp();
  if (!op || !isa<NNCDialect>(op->getDialect()) || isa<ConstantOp>(op) ||
      op->getNumOperands() == 0 ||
      !llvm::all_of(values,
                    [&](Value v) { return v && v.getDefiningOp() == op; }) ||
      !llvm::all_of(op->getOperands(),
                    [](Value v) { return matchPattern(v, m_Constant()); }))
    return result;
  SmallVector<Attribute> operands;
  for (Value v : op->getOperands()) {
    Attribute attr;
    matchPattern(v, m_Constant(&attr));
    operands.push_back(attr);
  }
  SmallVector<OpFoldResult> folded;
  if (failed(op->fold(operands, folded)) || folded.empty())
    return result;
  for (auto [i, value] : llvm::enumerate(values)) {
    OpFoldResult r = folded[cast<OpResult>(value).getResultNumber()];
    auto attr = dyn_cast_if_present<DenseElementsAttr>(dyn_cast<Attribute>(r));
    if (attr && attr.getType() == value.getType())
      result[i] = ConstantOp::create(builder, op->getLoc(), attr);
    else if (auto v = dyn_cast<Value>(r))
      result[i] = v;
  }
  if (op->use_empty() &&
      llvm::none_of(result, [&](Value v) { return v.getDefiningOp() == op; }))
    op->erase();
  return result;
}

LogicalResult NodeContext::setResults(ValueRange rawValues) {
  SmallVector<Value> values = foldConstantOperands(builder(), rawValues);
  // Shape computations on static dimensions of dynamic tensors (a Gather of
  // a shape_of) are known though their operands are not constants.
  for (Value &v : values)
    if (v && !matchPattern(v, m_Constant()) && v.getDefiningOp() &&
        isa<NNCDialect>(v.getDefiningOp()->getDialect()))
      if (Attribute known = foldKnownShapeValue(v))
        v = ConstantOp::create(builder(), loc_, cast<ElementsAttr>(known));
  for (unsigned i = 0, e = numOutputs(); i < e; ++i) {
    if (!hasOutput(i))
      continue;
    if (i >= values.size() || !values[i])
      return emitError() << "output " << i << " ('" << node_.output(i)
                         << "') is not supported by nnc's conversion";
    if (importer_.values.count(node_.output(i)))
      return emitError() << "output '" << node_.output(i)
                         << "' is already defined by an earlier node or input";
    importer_.values[node_.output(i)] = values[i];
  }
  return success();
}

Value NodeContext::constant(DenseElementsAttr value) {
  return ConstantOp::create(builder(), loc_, value);
}

Value NodeContext::intConstant(ArrayRef<int64_t> values,
                               std::optional<ArrayRef<int64_t>> shape) {
  SmallVector<int64_t> dims =
      shape ? SmallVector<int64_t>(*shape)
            : SmallVector<int64_t>{static_cast<int64_t>(values.size())};
  auto type = RankedTensorType::get(dims, builder().getI64Type());
  return constant(DenseElementsAttr::get(type, values));
}

Value NodeContext::scalarConstant(Type elementType, double value) {
  auto type = RankedTensorType::get({}, elementType);
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    APFloat f(value);
    bool lost;
    f.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
              &lost);
    return constant(DenseElementsAttr::get(type, f));
  }
  unsigned width = elementType.getIntOrFloatBitWidth();
  return constant(DenseElementsAttr::get(
      type, APInt(width, static_cast<int64_t>(value), /*isSigned=*/true,
                  /*implicitTrunc=*/true)));
}

InFlightDiagnostic NodeContext::emitError() {
  StringRef name = node_.name();
  if (auto nameLoc = dyn_cast<NameLoc>(loc_))
    name = nameLoc.getName().getValue();
  return mlir::emitError(loc_)
         << "node '" << name << "' (" << opType() << "): ";
}

LogicalResult NodeContext::unsupported(const Twine &what) {
  return emitError() << "unsupported: " << what;
}

NodeContext::DiagnosticCapture::DiagnosticCapture(NodeContext &node)
    : node(node) {
  handler.emplace(node.context(), [this](Diagnostic &diag) {
    if (!messages.empty())
      messages += "; ";
    messages += diag.str();
    return success();
  });
}

NodeContext::DiagnosticCapture::~DiagnosticCapture() = default;

std::nullptr_t NodeContext::DiagnosticCapture::fail() {
  handler.reset();
  node.emitError() << (messages.empty() ? std::string("invalid operation")
                                        : messages);
  return nullptr;
}

Operation *NodeContext::DiagnosticCapture::finish(OperationState &state) {
  Operation *op = node.builder().create(state);
  if (failed(verify(op))) {
    op->erase();
    return fail();
  }
  handler.reset();
  return op;
}

//===----------------------------------------------------------------------===//
// OpRegistry
//===----------------------------------------------------------------------===//

void OpRegistry::onOp(StringRef opType, int64_t sinceVersion, ConvertFn fn) {
  auto &list = converters[opType];
  list.emplace_back(sinceVersion, std::move(fn));
  llvm::sort(list,
             [](const auto &a, const auto &b) { return a.first < b.first; });
}

void OpRegistry::unsupported(StringRef opType, StringRef category) {
  unsupportedOps[opType] = category.str();
}

const ConvertFn *OpRegistry::lookup(StringRef opType, int64_t opset) const {
  auto it = converters.find(opType);
  if (it == converters.end())
    return nullptr;
  const ConvertFn *best = nullptr;
  for (const auto &[since, fn] : it->second)
    if (since <= opset)
      best = &fn;
  return best;
}

std::optional<StringRef>
OpRegistry::unsupportedCategory(StringRef opType) const {
  auto it = unsupportedOps.find(opType);
  if (it == unsupportedOps.end())
    return std::nullopt;
  return StringRef(it->second);
}

const OpRegistry &OpRegistry::get() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    populateDefaultDomainAtoF(r);
    populateDefaultDomainGtoM(r);
    populateDefaultDomainNtoR(r);
    populateDefaultDomainStoZ(r);
    populateDefaultDomainLegacy(r);
    return r;
  }();
  return registry;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

static void loadDialects(MLIRContext &context) {
  DialectRegistry registry;
  registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}

OwningOpRef<ModuleOp> importModel(MLIRContext &context, StringRef bytes,
                                  StringRef bufferName,
                                  const ImportOptions &options) {
  loadDialects(context);
  GraphImporter importer(context, bufferName, options);
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    importer.emitModelError() << "the model is larger than 2 GiB; store the "
                                 "weights as external data";
    return nullptr;
  }
  onnx::ModelProto model;
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t *>(bytes.data()),
      static_cast<int>(bytes.size()));
  stream.SetRecursionLimit(64);
  if (!model.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage()) {
    importer.emitModelError()
        << "not a valid ONNX model: the protobuf does not parse (truncated, "
           "corrupt or nested too deeply)";
    return nullptr;
  }
  return importer.import(model);
}

OwningOpRef<ModuleOp> importModelText(MLIRContext &context, StringRef text,
                                      StringRef bufferName,
                                      const ImportOptions &options) {
  loadDialects(context);
  GraphImporter importer(context, bufferName, options);
  onnx::ModelProto model;
  struct Collector : google::protobuf::io::ErrorCollector {
    std::string message;
    void AddError(int line, int column, const std::string &text) override {
      if (message.empty())
        message =
            (Twine(line + 1) + ":" + Twine(column + 1) + ": " + text).str();
    }
  } collector;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&collector);
  if (!parser.ParseFromString(text.str(), &model)) {
    importer.emitModelError()
        << "not a valid ONNX text model: " << collector.message;
    return nullptr;
  }
  return importer.import(model);
}

FileError readProtobufFile(StringRef path, const Twine &what, uint64_t maxBytes,
                           std::unique_ptr<llvm::MemoryBuffer> &out,
                           std::string &message) {
  auto describe = [&](const Twine &problem) {
    message =
        (Twine("cannot read ") + what + " '" + path + "': " + problem).str();
  };
  // The path's type first: opening a FIFO waits for a writer.
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(path, status) &&
      status.type() == llvm::sys::fs::file_type::fifo_file) {
    describe("a FIFO, not a regular file");
    return FileError::NotRegular;
  }
  llvm::Expected<llvm::sys::fs::file_t> file =
      llvm::sys::fs::openNativeFileForRead(path);
  if (!file) {
    std::error_code error = llvm::errorToErrorCode(file.takeError());
    describe(error.message());
    return error == std::errc::no_such_file_or_directory
               ? FileError::Missing
               : FileError::Unreadable;
  }
  llvm::scope_exit close([&] { llvm::sys::fs::closeFile(*file); });
  if (std::error_code error = llvm::sys::fs::status(*file, status)) {
    describe(error.message());
    return FileError::Unreadable;
  }
  // A FIFO or a device would be read without end, a folder not at all.
  if (status.type() != llvm::sys::fs::file_type::regular_file) {
    const char *kind = "not a regular file";
    switch (status.type()) {
    case llvm::sys::fs::file_type::directory_file:
      kind = "a folder, not a regular file";
      break;
    case llvm::sys::fs::file_type::fifo_file:
      kind = "a FIFO, not a regular file";
      break;
    case llvm::sys::fs::file_type::character_file:
    case llvm::sys::fs::file_type::block_file:
      kind = "a device, not a regular file";
      break;
    default:
      break;
    }
    describe(kind);
    return FileError::NotRegular;
  }
  if (status.getSize() > maxBytes) {
    describe(Twine(status.getSize()) + " bytes, more than the " +
             Twine(maxBytes) + " a protobuf message may have");
    return FileError::TooLarge;
  }
  auto buffer = llvm::MemoryBuffer::getOpenFile(
      *file, path, status.getSize(), /*RequiresNullTerminator=*/false);
  if (!buffer) {
    describe(buffer.getError().message());
    return FileError::Unreadable;
  }
  out = std::move(*buffer);
  return FileError::None;
}

OwningOpRef<ModuleOp> importModelFile(MLIRContext &context, StringRef path,
                                      ImportOptions options) {
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  std::string message;
  if (readProtobufFile(path, "ONNX model", kMaxProtobufBytes, buffer,
                       message) != FileError::None) {
    mlir::emitError(UnknownLoc::get(&context)) << message;
    return nullptr;
  }
  if (options.modelDirectory.empty()) {
    SmallString<256> dir(path);
    llvm::sys::path::remove_filename(dir);
    options.modelDirectory = dir.empty() ? "." : std::string(dir);
  }
  return importModel(context, buffer->getBuffer(), path, options);
}

//===----------------------------------------------------------------------===//
// nnc-translate registration
//===----------------------------------------------------------------------===//

namespace {
struct TranslateOptions {
  llvm::cl::opt<bool> freeze{
      "onnx-freeze-initializers",
      llvm::cl::desc("Mark floating-point initializers #nnc.param<frozen> "
                     "instead of trainable (batch-norm running statistics "
                     "stay buffers)")};
  llvm::cl::opt<std::string> function{
      "onnx-function", llvm::cl::desc("Name of the imported function"),
      llvm::cl::init("main")};
  llvm::cl::opt<std::string> bindDir{
      "onnx-bind-integer-inputs",
      llvm::cl::desc("Fix every integer graph input at compile time to "
                     "DIR/input_<k>.pb (ONNX test data layout)"),
      llvm::cl::value_desc("DIR")};
  llvm::cl::list<std::string> bind{
      "onnx-bind",
      llvm::cl::desc("Fix a graph input at compile time: name=tensor.pb "
                     "(a serialized TensorProto)")};
};
} // namespace

static TranslateOptions &translateOptions() {
  static TranslateOptions options;
  return options;
}

static FailureOr<ImportOptions> makeOptions(MLIRContext *context,
                                            StringRef bufferName) {
  TranslateOptions &cl = translateOptions();
  ImportOptions options;
  options.freezeInitializers = cl.freeze;
  options.functionName = cl.function;
  options.integerInputsDirectory = cl.bindDir;
  if (bufferName != "<stdin>" && !bufferName.empty()) {
    SmallString<256> dir(bufferName);
    llvm::sys::path::remove_filename(dir);
    options.modelDirectory = dir.empty() ? "." : std::string(dir);
  }
  for (const std::string &binding : cl.bind) {
    auto [name, file] = StringRef(binding).split('=');
    if (name.empty() || file.empty()) {
      mlir::emitError(UnknownLoc::get(context))
          << "--onnx-bind expects name=file.pb, got '" << binding << "'";
      return failure();
    }
    std::unique_ptr<llvm::MemoryBuffer> buffer;
    std::string message;
    if (readProtobufFile(file, "the TensorProto bound to input '" + name + "'",
                         kMaxProtobufBytes, buffer,
                         message) != FileError::None) {
      mlir::emitError(UnknownLoc::get(context)) << message;
      return failure();
    }
    options.constantInputs[name.str()] = buffer->getBuffer().str();
  }
  return options;
}

void registerONNXImportTranslations() {
  translateOptions();
  static TranslateToMLIRRegistration binary(
      "import-onnx", "Import a binary ONNX model into the nnc dialect",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        FailureOr<ImportOptions> options =
            makeOptions(context, buffer->getBufferIdentifier());
        if (failed(options))
          return nullptr;
        return OwningOpRef<Operation *>(
            importModel(*context, buffer->getBuffer(),
                        buffer->getBufferIdentifier(), *options)
                .release());
      },
      [](DialectRegistry &registry) { registerAllDialects(registry); });
  static TranslateToMLIRRegistration text(
      "import-onnx-text",
      "Import an ONNX model written in protobuf text format",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        FailureOr<ImportOptions> options =
            makeOptions(context, buffer->getBufferIdentifier());
        if (failed(options))
          return nullptr;
        return OwningOpRef<Operation *>(
            importModelText(*context, buffer->getBuffer(),
                            buffer->getBufferIdentifier(), *options)
                .release());
      },
      [](DialectRegistry &registry) { registerAllDialects(registry); });
}

} // namespace nnc::onnx_import
