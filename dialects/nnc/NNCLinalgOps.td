//===- NNCLinalgOps.td - linalg nnc ops -----------------*- tablegen -*-===//
//
// Linalg op family.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LINALG_OPS_TD
#define NNC_LINALG_OPS_TD

include "nnc/NNCBase.td"

#endif // NNC_LINALG_OPS_TD
