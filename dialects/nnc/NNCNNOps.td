//===- NNCNNOps.td - nn nnc ops -----------------*- tablegen -*-===//
//
// NN op family.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_NN_OPS_TD
#define NNC_NN_OPS_TD

include "nnc/NNCBase.td"

#endif // NNC_NN_OPS_TD
