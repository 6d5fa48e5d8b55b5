//===- NNCCanonicalize.td - nnc DRR canonicalizations --------*- tablegen -*-===//
//
// Declarative rewrite rules used by the ops' canonicalizers. Broadcasting is
// symmetric in the operands, so each rewrite keeps the result type.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_CANONICALIZE_TD
#define NNC_CANONICALIZE_TD

include "mlir/IR/PatternBase.td"
include "nnc/NNCOps.td"

// x + (-y) -> x - y
def AddOfNegRhs : Pat<(NNC_AddOp $x, (NNC_NegOp $y)),
                      (NNC_SubOp $x, $y)>;
// (-x) + y -> y - x
def AddOfNegLhs : Pat<(NNC_AddOp (NNC_NegOp $x), $y),
                      (NNC_SubOp $y, $x)>;
// x - (-y) -> x + y
def SubOfNeg : Pat<(NNC_SubOp $x, (NNC_NegOp $y)), (NNC_AddOp $x, $y)>;
// -(x - y) -> y - x
def NegOfSub : Pat<(NNC_NegOp (NNC_SubOp $x, $y)), (NNC_SubOp $y, $x)>;

#endif // NNC_CANONICALIZE_TD
