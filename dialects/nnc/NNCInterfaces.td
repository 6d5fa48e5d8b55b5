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

#endif // NNC_INTERFACES_TD
