//===- NNCShapeOps.td - shape nnc ops -----------------*- tablegen -*-===//
//
// Shape op family.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_SHAPE_OPS_TD
#define NNC_SHAPE_OPS_TD

include "nnc/NNCBase.td"

#endif // NNC_SHAPE_OPS_TD
