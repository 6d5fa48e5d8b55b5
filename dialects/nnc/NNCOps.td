//===- NNCOps.td - all nnc ops ------------------------------*- tablegen -*-===//
//
// Gathers every op family; used to generate the dialect's op reference.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_OPS_TD
#define NNC_OPS_TD

include "nnc/NNCElementwiseOps.td"
include "nnc/NNCLinalgOps.td"
include "nnc/NNCNNOps.td"
include "nnc/NNCReductionOps.td"
include "nnc/NNCShapeOps.td"
include "nnc/NNCDynamicShapeOps.td"
include "nnc/NNCLibraryOps.td"

#endif // NNC_OPS_TD
