//===- NNCLinalgOps.cpp - linalg nnc ops ----------------------------------===//
//
// Verifiers, type inference and folders of the linalg op family.
//
//===----------------------------------------------------------------------===//

#include "nnc/NNCOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace nnc;

void NNCDialect::registerLinalgOps() {
  addOperations<
#define GET_OP_LIST
#include "nnc/NNCLinalgOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "nnc/NNCLinalgOps.cpp.inc"
