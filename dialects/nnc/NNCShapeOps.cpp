//===- NNCShapeOps.cpp - shape nnc ops ----------------------------------===//
//
// Verifiers, type inference and folders of the shape op family.
//
//===----------------------------------------------------------------------===//

#include "nnc/NNCOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace nnc;

void NNCDialect::registerShapeOps() {
  addOperations<
#define GET_OP_LIST
#include "nnc/NNCShapeOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "nnc/NNCShapeOps.cpp.inc"
