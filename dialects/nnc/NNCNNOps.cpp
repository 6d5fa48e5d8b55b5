//===- NNCNNOps.cpp - nn nnc ops ----------------------------------===//
//
// Verifiers, type inference and folders of the nn op family.
//
//===----------------------------------------------------------------------===//

#include "nnc/NNCOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace nnc;

void NNCDialect::registerNNOps() {
  addOperations<
#define GET_OP_LIST
#include "nnc/NNCNNOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "nnc/NNCNNOps.cpp.inc"
