//===- NNCDialect.cpp - nnc dialect ---------------------------------------===//
//
// Dialect registration, the `nnc.param` argument attribute and constant
// materialization.
//
//===----------------------------------------------------------------------===//

#include "nnc/NNCOps.h"
#include "nnc/ShapeValues.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace nnc;

#include "nnc/NNCDialect.cpp.inc"
#include "nnc/NNCEnums.cpp.inc"
#include "nnc/NNCInterfaces.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "nnc/NNCAttrs.cpp.inc"

void NNCDialect::initialize() {
  registerAttributes();
  registerElementwiseOps();
  registerLinalgOps();
  registerNNOps();
  registerReductionOps();
  registerShapeOps();
  registerDynamicShapeOps();
  registerLibraryOps();
}

void NNCDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "nnc/NNCAttrs.cpp.inc"
      >();
}

Operation *NNCDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

/// Annotations the CPU backend's passes put on the ops and functions they
/// produce (see --nnc-gemm-to-blas, --nnc-library-conv-to-dnnl,
/// --nnc-plan-memory, --nnc-lower-checks and --nnc-outline-kernels) and the
/// kernel choice (nnc.impl), with the kind of value each holds.
static LogicalResult verifyBackendAnnotation(Operation *op, NamedAttribute attr,
                                             bool &known) {
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  known = true;
  bool ok;
  if (name == "nnc.gemm")
    ok = isa<DenseI64ArrayAttr>(value) &&
         cast<DenseI64ArrayAttr>(value).size() == 5;
  else if (name == "nnc.library_bytes")
    ok = isa<DenseI64ArrayAttr>(value) &&
         cast<DenseI64ArrayAttr>(value).size() == 2;
  else if (name == NNCDialect::getKernelChoiceAttrName())
    ok = isa<StringAttr>(value);
  else if (name == "nnc.donate" || name == "nnc.donated")
    ok = isa<DenseI64ArrayAttr>(value) &&
         cast<DenseI64ArrayAttr>(value).size() % 2 == 0;
  else if (name == "nnc.accumulate" || name == "nnc.library" ||
           name == "nnc.loop_local" ||
           name == "nnc.join_kernel") // --nnc-cuda-row-groups's chains
    ok = isa<UnitAttr>(value);
  else if (name == "nnc.recompute") // --nnc-remat-budget's clones, numbered
    ok = isa<IntegerAttr>(value);
  else if (name == "nnc.remat") // --nnc-remat-budget's report
    ok = isa<DictionaryAttr>(value);
  else if (name == "nnc.kernel_name" || name == "nnc.kernel_detail")
    ok = isa<StringAttr>(value);
  else if (name == "nnc.bytes_read" || name == "nnc.bytes_written" ||
           name == "nnc.arena_size" || name == "nnc.kernels")
    ok = isa<IntegerAttr>(value);
  else if (name == "nnc.mixed_precision") // --nnc-mixed-precision's report
    ok = isa<DictionaryAttr>(value);
  else if (name == "nnc.cuda_gemm") // --nnc-cuda-gemm-to-cublaslt's launches
    ok = isa<DictionaryAttr>(value);
  else if (name == "nnc.cuda_skip") // functions the CUDA emitter leaves out
    ok = isa<UnitAttr>(value);
  else if (name == "nnc.epilogue") // --nnc-cuda-gemm-epilogues's bias adds
    ok = isa<StringAttr>(value);
  else if (name == "nnc.checks" ||
           name == "nnc.probe_ops") // --nnc-nonfinite-probe's entries
    ok = isa<ArrayAttr>(value) &&
         llvm::all_of(cast<ArrayAttr>(value), llvm::IsaPred<StringAttr>);
  else
    return known = false, success();
  if (!ok)
    return op->emitError() << "'" << name << "' has an invalid value " << value;
  return success();
}

LogicalResult NNCDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  bool known = false;
  LogicalResult annotation = verifyBackendAnnotation(op, attr, known);
  if (known)
    return annotation;
  if (attr.getName() != getResultNamesAttrName())
    return op->emitError() << "unknown nnc attribute '"
                           << attr.getName().getValue() << "'";
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function)
    return op->emitError() << "'" << getResultNamesAttrName()
                           << "' belongs on functions";
  auto names = dyn_cast<ArrayAttr>(attr.getValue());
  if (!names || !llvm::all_of(names, llvm::IsaPred<StringAttr>))
    return op->emitError() << "'" << getResultNamesAttrName()
                           << "' must be an array of strings";
  if (names.size() != function.getNumResults())
    return op->emitError() << "'" << getResultNamesAttrName() << "' has "
                           << names.size() << " names for "
                           << function.getNumResults() << " results";
  return success();
}

/// `nnc.shape_input` (a unit attribute on a static integer tensor argument
/// of at most kMaxShapeInputElements elements) and `nnc.dim_names` (one
/// string per dimension of a ranked tensor argument).
static LogicalResult verifyInputAttribute(Operation *op, unsigned regionIndex,
                                          unsigned argIndex,
                                          NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  Type argType;
  if (auto function = dyn_cast<FunctionOpInterface>(op))
    argType = function.getArgumentTypes()[argIndex];
  else if (!op->getRegion(regionIndex).empty())
    argType = op->getRegion(regionIndex).getArgument(argIndex).getType();
  // Ranked tensors, and the memrefs bufferization makes of them; the
  // attributes stay on the arguments as code generation lowers them further.
  ShapedType type;
  if (argType && isa<TensorType, BaseMemRefType>(argType)) {
    type = cast<ShapedType>(argType);
    if (!type.hasRank())
      return op->emitError() << "'" << name << "' on argument " << argIndex
                             << " needs a ranked tensor, got " << argType;
  }
  if (name == NNCDialect::getShapeInputAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' on argument " << argIndex
                             << " must be a unit attribute";
    if (type && (!isa<IntegerType>(type.getElementType()) ||
                 !type.hasStaticShape() ||
                 type.getNumElements() > kMaxShapeInputElements))
      return op->emitError()
             << "'" << name << "' on argument " << argIndex
             << " needs a static integer tensor of at most "
             << kMaxShapeInputElements << " elements, got " << type;
    return success();
  }
  auto names = dyn_cast<ArrayAttr>(attr.getValue());
  if (!names || !llvm::all_of(names, llvm::IsaPred<StringAttr>))
    return op->emitError() << "'" << name << "' on argument " << argIndex
                           << " must be an array of strings";
  if (type && static_cast<int64_t>(names.size()) != type.getRank())
    return op->emitError() << "'" << name << "' on argument " << argIndex
                           << " has " << names.size()
                           << " names but the argument has rank "
                           << type.getRank();
  return success();
}

LogicalResult NNCDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attr) {
  // The buffers memory planning and the run-time checks add.
  if (attr.getName() == "nnc.arena" || attr.getName() == "nnc.checks" ||
      attr.getName() == getWeightAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << attr.getName().getValue() << "' on argument " << argIndex
             << " must be a unit attribute";
    return success();
  }
  if (attr.getName() == getShapeInputAttrName() ||
      attr.getName() == getDimNamesAttrName())
    return verifyInputAttribute(op, regionIndex, argIndex, attr);
  bool isParam = attr.getName() == getParamAttrName();
  bool isValue = attr.getName() == getValueAttrName();
  if (!isParam && !isValue)
    return op->emitError() << "unknown nnc argument attribute '"
                           << attr.getName().getValue() << "' on argument "
                           << argIndex;
  if (isParam && !isa<ParamKindAttr>(attr.getValue()))
    return op->emitError() << "'" << getParamAttrName() << "' on argument "
                           << argIndex
                           << " must be #nnc.param<trainable|frozen|buffer>";
  auto value = dyn_cast<ElementsAttr>(attr.getValue());
  if (isValue && !value)
    return op->emitError() << "'" << getValueAttrName() << "' on argument "
                           << argIndex << " must be an elements attribute";
  // Functions know their argument types even when they are declarations.
  Type argType;
  if (auto function = dyn_cast<FunctionOpInterface>(op))
    argType = function.getArgumentTypes()[argIndex];
  else if (!op->getRegion(regionIndex).empty())
    argType = op->getRegion(regionIndex).getArgument(argIndex).getType();
  else
    return success();
  if (!isa<RankedTensorType>(argType))
    return op->emitError() << "parameter argument " << argIndex
                           << " must be a ranked tensor, got " << argType;
  if (isValue) {
    if (value.getType() != argType)
      return op->emitError() << "'" << getValueAttrName() << "' on argument "
                             << argIndex << " has type " << value.getType()
                             << " but the argument is " << argType;
    if (auto function = dyn_cast<FunctionOpInterface>(op))
      if (!function.getArgAttr(argIndex, getParamAttrName()))
        return op->emitError()
               << "'" << getValueAttrName() << "' on argument " << argIndex
               << " needs '" << getParamAttrName() << "' as well";
  }
  return success();
}

LogicalResult nnc::inferResultTypes(Operation *op,
                                    SmallVectorImpl<Type> &types) {
  if (auto infer = dyn_cast<InferTypeOpInterface>(op))
    return infer.inferReturnTypes(
        op->getContext(), op->getLoc(), op->getOperands(),
        op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
        op->getRegions(), types);
  if (auto refine = dyn_cast<ShapeRefinementOpInterface>(op))
    return refine.refineResultTypes(types);
  return success();
}
