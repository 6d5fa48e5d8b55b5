//===- NNCInterfaces.td - nnc op interfaces -----------------*- tablegen -*-===//
//
// Interfaces the nnc passes query on ops.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_INTERFACES_TD
#define NNC_INTERFACES_TD

include "mlir/IR/OpBase.td"

def NNC_ShapeRefinementOpInterface
    : OpInterface<"ShapeRefinementOpInterface"> {
  let cppNamespace = "::nnc";
  let description = [{
    Implemented by ops whose result types are spelled out rather than inferred
    (a reshape's target shape, a cast's element type). Shape inference asks
    them for result types at least as refined as their current ones, given
    their current operand types.
  }];
  let methods = [
    InterfaceMethod<[{
        Appends one type per result, each at least as refined as the current
        result type. Emits an error at the op and fails when the operand types
        contradict the spelled-out result types.
      }],
      "::llvm::LogicalResult", "refineResultTypes",
      (ins "::llvm::SmallVectorImpl<::mlir::Type> &":$refined)>
  ];
}

def NNC_ResolvableOpInterface : OpInterface<"ResolvableOpInterface"> {
  let cppNamespace = "::nnc";
  let description = [{
    Implemented by the dynamic shape ops (`nnc.dynamic_reshape`, ...,
    `nnc.dynamic_attrs`), which take as operands what their static forms
    take as attributes. Once those operands are known (constants, or shape
    computations on static dimensions), the op builds its static form.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds the static form at the builder's insertion point and appends
        its results to `results`, one per result of the op, each possibly
        more refined than the op's; appends nothing when the shape operands
        are not known yet. Fails, with an error at the op, when they are
        known but invalid (a reshape whose element counts differ).
      }],
      "::llvm::LogicalResult", "resolve",
      (ins "::mlir::OpBuilder &":$builder,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$results)>,
    InterfaceMethod<[{
        The operands that hold shapes, indices or bounds (not data).
      }],
      "::mlir::OperandRange", "getShapeOperands", (ins)>
  ];
}

#endif // NNC_INTERFACES_TD
