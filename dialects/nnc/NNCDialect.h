//===- NNCDialect.h - nnc dialect -------------------------------*- C++ -*-===//
//
// The nnc dialect class and its attributes and enums.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_DIALECT_NNCDIALECT_H
#define NNC_DIALECT_NNCDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"

#include "nnc/NNCEnums.h.inc"

#include "nnc/NNCDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "nnc/NNCAttrs.h.inc"

#endif // NNC_DIALECT_NNCDIALECT_H
