//===- NNCCanonicalize.cpp - nnc DRR canonicalizations --------------------===//
//
// Registers the declarative rewrite rules of NNCCanonicalize.td with the ops
// they are rooted at.
//
//===----------------------------------------------------------------------===//

#include "nnc/NNCOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace nnc;

namespace {
#include "nnc/NNCCanonicalize.inc"
} // namespace

void AddOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<AddOfNegRhs, AddOfNegLhs>(context);
}

void SubOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<SubOfNeg>(context);
}

void NegOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<NegOfSub>(context);
}
