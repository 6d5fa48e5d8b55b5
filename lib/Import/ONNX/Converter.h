//===- Converter.h - ONNX node conversion API -------------------*- C++ -*-===//
//
// What an op converter sees of the importer: a NodeContext per ONNX node
// (inputs as nnc values, attributes with their defaults, constant values
// known at import time, result binding, diagnostics naming the node) and the
// OpRegistry, keyed by op name and the opset version the converter is valid
// from. The op table is split alphabetically across DefaultDomain*.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LIB_IMPORT_ONNX_CONVERTER_H
#define NNC_LIB_IMPORT_ONNX_CONVERTER_H

#include "nnc/NNCOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"

#include <type_traits>

#include <functional>
#include <optional>
#include <string>

namespace onnx {
class NodeProto;
class AttributeProto;
class TensorProto;
} // namespace onnx

namespace nnc::onnx_import {

class GraphImporter;

/// Maps an ONNX TensorProto data type to an nnc element type; null with
/// `reason` set when the type is not supported.
mlir::Type convertDataType(mlir::MLIRContext *context, int dataType,
                           std::string &reason);

/// Name of an ONNX TensorProto data type, e.g. "FLOAT16".
llvm::StringRef dataTypeName(int dataType);

/// Decodes a TensorProto (typed fields, raw data or external data) into an
/// attribute, checking every size. `what` names the tensor in errors.
mlir::FailureOr<mlir::DenseElementsAttr>
convertTensor(mlir::MLIRContext *context, const onnx::TensorProto &tensor,
              llvm::StringRef modelDirectory, std::string &error);

/// One ONNX node being converted.
class NodeContext {
public:
  NodeContext(GraphImporter &importer, const onnx::NodeProto &node,
              int64_t opset, mlir::Location loc);

  const onnx::NodeProto &node() const { return node_; }
  llvm::StringRef opType() const;
  /// The default domain's opset version the model imports.
  int64_t opset() const { return opset_; }
  mlir::Location loc() const { return loc_; }
  mlir::OpBuilder &builder();
  mlir::MLIRContext *context();

  //===--- Inputs ---------------------------------------------------------===//

  /// Number of inputs the node lists (absent optional inputs included).
  unsigned numInputs() const;
  /// Whether input `i` is listed with a non-empty name.
  bool hasInput(unsigned i) const;
  /// Input `i`, or null when absent.
  mlir::Value input(unsigned i) const;
  /// Input `i` as a ranked tensor type, or null when absent.
  mlir::RankedTensorType inputType(unsigned i) const;
  /// Fails (naming the input) unless input `i` is present.
  mlir::FailureOr<mlir::Value> requireInput(unsigned i, llvm::StringRef what);
  /// The value of input `i` when it is known at import time (a constant, an
  /// initializer, a bound constant input or a folded shape computation).
  std::optional<mlir::DenseElementsAttr> constantInput(unsigned i) const;
  /// The integer values of input `i`, which must be known at import time;
  /// fails naming `what` otherwise.
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  constantInts(unsigned i, llvm::StringRef what);
  /// Input `i` as a 1-D i64 shape operand of a dynamic shape op (cast from
  /// another integer type), for a value not known at import time; fails
  /// naming `what` unless it is a 1-D integer tensor of static length (of
  /// `length` when given). A rank-0 input becomes a 1-element vector.
  mlir::FailureOr<mlir::Value>
  shapeOperand(unsigned i, llvm::StringRef what,
               std::optional<int64_t> length = std::nullopt);
  /// The floating-point values of input `i`, known at import time.
  mlir::FailureOr<llvm::SmallVector<double>>
  constantFloats(unsigned i, llvm::StringRef what);

  //===--- Attributes -----------------------------------------------------===//

  bool hasAttr(llvm::StringRef name) const;
  int64_t getInt(llvm::StringRef name, int64_t defaultValue) const;
  std::optional<int64_t> getOptionalInt(llvm::StringRef name) const;
  double getFloat(llvm::StringRef name, double defaultValue) const;
  std::optional<double> getOptionalFloat(llvm::StringRef name) const;
  std::string getString(llvm::StringRef name,
                        llvm::StringRef defaultValue) const;
  llvm::SmallVector<int64_t>
  getInts(llvm::StringRef name, llvm::ArrayRef<int64_t> defaultValue) const;
  std::optional<llvm::SmallVector<int64_t>>
  getOptionalInts(llvm::StringRef name) const;
  llvm::SmallVector<double> getFloats(llvm::StringRef name) const;
  /// A TENSOR attribute decoded to an attribute.
  mlir::FailureOr<mlir::DenseElementsAttr> getTensor(llvm::StringRef name);
  /// The attribute `name`, or null when absent.
  const onnx::AttributeProto *findAttr(llvm::StringRef name) const;
  /// The first attribute read with a type other than the getter's (e.g.
  /// `strides` given as FLOAT); the importer turns it into an error.
  const std::string &attributeError() const { return attrError_; }

  //===--- Results --------------------------------------------------------===//

  /// Number of outputs the node lists (absent optional outputs included).
  unsigned numOutputs() const;
  bool hasOutput(unsigned i) const;
  /// Binds the node's outputs, in order; outputs beyond `values` must be
  /// absent. Fails naming the output otherwise.
  mlir::LogicalResult setResults(mlir::ValueRange values);
  mlir::LogicalResult setResult(mlir::Value value) {
    return setResults(mlir::ValueRange(value));
  }
  /// Binds the first result of `op`, an op from create<>() that is null when
  /// building it failed (the error is already reported).
  template <typename OpTy> mlir::LogicalResult setResultOf(OpTy op) {
    return op ? setResult(op->getResult(0)) : mlir::failure();
  }

  /// Creates an nnc op from operands and attributes. Result types are
  /// inferred (or taken from `resultTypes` for ops that spell them), and the
  /// op is verified; a failure becomes a diagnostic at this node instead of
  /// a fatal error in an ODS builder, and null is returned.
  template <typename OpTy>
  OpTy create(mlir::ValueRange operands,
              llvm::ArrayRef<mlir::NamedAttribute> attributes = {},
              std::optional<mlir::TypeRange> resultTypes = std::nullopt) {
    mlir::OperationState state(loc_, OpTy::getOperationName());
    state.addOperands(operands);
    mlir::DictionaryAttr dict =
        mlir::DictionaryAttr::get(context(), attributes);
    DiagnosticCapture capture(*this);
    auto &properties = state.getOrAddProperties<typename OpTy::Properties>();
    if (mlir::failed(OpTy::setPropertiesFromAttr(
            properties, dict, [&] { return mlir::emitError(loc_); })))
      return capture.fail();
    llvm::SmallVector<mlir::Type> types;
    if (resultTypes) {
      types.assign(resultTypes->begin(), resultTypes->end());
    } else if constexpr (std::is_base_of_v<
                             mlir::InferTypeOpInterface::Trait<OpTy>, OpTy>) {
      if (mlir::failed(OpTy::inferReturnTypes(context(), loc_, state.operands,
                                              dict, state.getRawProperties(),
                                              state.regions, types)))
        return capture.fail();
    }
    state.addTypes(types);
    mlir::Operation *op = capture.finish(state);
    return op ? llvm::cast<OpTy>(op) : OpTy();
  }

  /// Creates a dynamic shape op (nnc.dynamic_reshape, ...) with a result of
  /// rank `rank` and element type `elementType`, typed with what its shape
  /// operands make known; null after an error at the node.
  template <typename OpTy>
  mlir::Value createDynamic(mlir::ValueRange operands, int64_t rank,
                            mlir::Type elementType,
                            llvm::ArrayRef<mlir::NamedAttribute> attrs = {}) {
    auto unknown = mlir::RankedTensorType::get(
        llvm::SmallVector<int64_t>(rank, mlir::ShapedType::kDynamic),
        elementType);
    OpTy op = create<OpTy>(operands, attrs, mlir::TypeRange{unknown});
    if (!op)
      return nullptr;
    llvm::SmallVector<mlir::Type> refined;
    if (mlir::failed(op.refineResultTypes(refined)))
      return nullptr;
    op.getResult().setType(llvm::cast<mlir::RankedTensorType>(refined[0]));
    return op.getResult();
  }
  /// An attribute of an nnc op that a node input gives.
  struct DynamicAttr {
    /// The node input holding it, and its ONNX name for errors.
    unsigned input;
    llvm::StringRef what;
    /// The nnc attribute, and how the input's entries make it: "i64" (one
    /// entry) or "i64s" (all of them, `length` of them when given).
    llvm::StringRef name;
    llvm::StringRef kind;
    std::optional<int64_t> length = std::nullopt;
  };
  /// Builds `OpTy` on `operands` with `attrs`, taking the attributes
  /// `dynamic` from inputs not known at import time: an nnc.dynamic_attrs
  /// op with results of `resultTypes` (what is known of them), which
  /// resolves to `OpTy` once those inputs are. Empty after an error at the
  /// node.
  template <typename OpTy>
  llvm::SmallVector<mlir::Value> createWithDynamicAttrs(
      mlir::ValueRange operands, llvm::ArrayRef<mlir::NamedAttribute> attrs,
      llvm::ArrayRef<DynamicAttr> dynamic, mlir::TypeRange resultTypes) {
    return createWithDynamicAttrs(OpTy::getOperationName(), operands, attrs,
                                  dynamic, resultTypes);
  }
  llvm::SmallVector<mlir::Value>
  createWithDynamicAttrs(llvm::StringRef opName, mlir::ValueRange operands,
                         llvm::ArrayRef<mlir::NamedAttribute> attrs,
                         llvm::ArrayRef<DynamicAttr> dynamic,
                         mlir::TypeRange resultTypes);
  /// Whether every listed input that is present is known at import time.
  bool inputsKnown(llvm::ArrayRef<unsigned> indices) const {
    return llvm::all_of(indices, [&](unsigned i) {
      return !hasInput(i) || constantInput(i).has_value();
    });
  }

  /// A constant tensor.
  mlir::Value constant(mlir::DenseElementsAttr value);
  /// A 1-D i64 constant (or of `shape` when given).
  mlir::Value intConstant(llvm::ArrayRef<int64_t> values,
                          std::optional<llvm::ArrayRef<int64_t>> shape = {});
  /// A rank-0 constant of `elementType` holding `value`.
  mlir::Value scalarConstant(mlir::Type elementType, double value);

  /// An error at the node, prefixed with its name and op type.
  mlir::InFlightDiagnostic emitError();
  /// The standard error for an attribute value nnc does not support.
  mlir::LogicalResult unsupported(const llvm::Twine &what);

private:
  /// Collects the diagnostics of building one op and re-emits them at the
  /// node, prefixed with its name, if building fails.
  class DiagnosticCapture {
  public:
    explicit DiagnosticCapture(NodeContext &node);
    ~DiagnosticCapture();
    /// Emits what was captured as the node's error; returns a null op.
    std::nullptr_t fail();
    /// Creates and verifies the op; null (after fail()) on error.
    mlir::Operation *finish(mlir::OperationState &state);

  private:
    NodeContext &node;
    std::string messages;
    std::optional<mlir::ScopedDiagnosticHandler> handler;
  };

  /// Finds `name` and checks it has ONNX attribute type `type` (an
  /// AttributeProto::AttributeType); records a mismatch in attrError_.
  const onnx::AttributeProto *findTyped(llvm::StringRef name, int type) const;

  GraphImporter &importer_;
  const onnx::NodeProto &node_;
  mutable std::string attrError_;
  int64_t opset_;
  mlir::Location loc_;
};

/// Converts a unary op that maps onto one nnc op without attributes.
template <typename OpTy> mlir::LogicalResult convertUnary(NodeContext &ctx) {
  mlir::FailureOr<mlir::Value> x = ctx.requireInput(0, "X");
  if (mlir::failed(x))
    return mlir::failure();
  OpTy op = ctx.create<OpTy>(*x);
  return op ? ctx.setResult(op) : mlir::failure();
}

/// Converts a binary op with multidirectional (numpy) broadcasting.
template <typename OpTy> mlir::LogicalResult convertBinary(NodeContext &ctx) {
  mlir::FailureOr<mlir::Value> a = ctx.requireInput(0, "A");
  mlir::FailureOr<mlir::Value> b = ctx.requireInput(1, "B");
  if (mlir::failed(a) || mlir::failed(b))
    return mlir::failure();
  OpTy op = ctx.create<OpTy>(mlir::ValueRange{*a, *b});
  return op ? ctx.setResult(op) : mlir::failure();
}

/// Window attributes of Conv, ConvTranspose and the pools, with ONNX's
/// `auto_pad` resolved into explicit pads.
struct WindowParams {
  llvm::SmallVector<int64_t> kernel, strides, dilations, pads;
};

/// Reads kernel_shape (or takes `kernel` when the op gets it from its
/// weight), strides, dilations, pads and auto_pad for `spatialRank` spatial
/// dims of `input` ([N, C, spatial...]). SAME_UPPER/SAME_LOWER need static
/// spatial dims. With `transposed` (ConvTranspose), SAME leaves the pads at
/// zero for the caller to resolve from the output size.
mlir::FailureOr<WindowParams>
getWindowParams(NodeContext &ctx, mlir::RankedTensorType input,
                std::optional<llvm::ArrayRef<int64_t>> kernel,
                bool transposed = false);

/// Named attributes for nnc ops, built with the node's context.
class AttrList {
public:
  explicit AttrList(NodeContext &ctx) : b(ctx.context()) {}
  AttrList &i64(llvm::StringRef name, int64_t v) {
    list.emplace_back(b.getStringAttr(name), b.getI64IntegerAttr(v));
    return *this;
  }
  AttrList &f64(llvm::StringRef name, double v) {
    list.emplace_back(b.getStringAttr(name), b.getF64FloatAttr(v));
    return *this;
  }
  AttrList &boolean(llvm::StringRef name, bool v) {
    list.emplace_back(b.getStringAttr(name), b.getBoolAttr(v));
    return *this;
  }
  AttrList &i64s(llvm::StringRef name, llvm::ArrayRef<int64_t> v) {
    list.emplace_back(b.getStringAttr(name), b.getDenseI64ArrayAttr(v));
    return *this;
  }
  AttrList &attr(llvm::StringRef name, mlir::Attribute v) {
    list.emplace_back(b.getStringAttr(name), v);
    return *this;
  }
  operator llvm::ArrayRef<mlir::NamedAttribute>() const { return list; }

private:
  mlir::Builder b;
  llvm::SmallVector<mlir::NamedAttribute> list;
};

/// Converts one node; emits a diagnostic and fails on error.
using ConvertFn = std::function<mlir::LogicalResult(NodeContext &)>;

/// The op table: for each op name, converters by the opset they apply from.
class OpRegistry {
public:
  /// Registers `fn` for `opType` from opset `sinceVersion` on (until a later
  /// registration of the same op takes over).
  void onOp(llvm::StringRef opType, int64_t sinceVersion, ConvertFn fn);
  /// Marks an op as deliberately unsupported, with the category named in
  /// errors ("control flow", "sequences", ...).
  void unsupported(llvm::StringRef opType, llvm::StringRef category);

  /// The converter for `opType` at `opset`, or null.
  const ConvertFn *lookup(llvm::StringRef opType, int64_t opset) const;
  /// The unsupported category of `opType`, if declared.
  std::optional<llvm::StringRef>
  unsupportedCategory(llvm::StringRef opType) const;

  static const OpRegistry &get();

private:
  llvm::StringMap<std::vector<std::pair<int64_t, ConvertFn>>> converters;
  llvm::StringMap<std::string> unsupportedOps;
};

void populateDefaultDomainAtoF(OpRegistry &registry);
void populateDefaultDomainGtoM(OpRegistry &registry);
void populateDefaultDomainNtoR(OpRegistry &registry);
void populateDefaultDomainStoZ(OpRegistry &registry);
/// The forms of ops that opset 7 replaced and no range file handles (limited
/// broadcasting, Tile-1, PRelu-1/6) and Upsample.
void populateDefaultDomainLegacy(OpRegistry &registry);

} // namespace nnc::onnx_import

#endif // NNC_LIB_IMPORT_ONNX_CONVERTER_H
