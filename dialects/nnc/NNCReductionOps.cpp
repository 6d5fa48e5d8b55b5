//===- NNCReductionOps.cpp - reduction nnc ops ----------------------------------===//
//
// Verifiers, type inference and folders of the reduction op family.
//
//===----------------------------------------------------------------------===//

#include "nnc/NNCOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace nnc;

void NNCDialect::registerReductionOps() {
  addOperations<
#define GET_OP_LIST
#include "nnc/NNCReductionOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "nnc/NNCReductionOps.cpp.inc"
