//===- NNCReductionOps.td - reduction nnc ops -----------------*- tablegen -*-===//
//
// Reduction op family.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_REDUCTION_OPS_TD
#define NNC_REDUCTION_OPS_TD

include "nnc/NNCBase.td"

#endif // NNC_REDUCTION_OPS_TD
