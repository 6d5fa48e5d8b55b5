//===- FuseElementwise.cpp - producer/consumer fusion on tensors ----------===//
//
// Implements --nnc-fuse-elementwise: linalg's elementwise fusion (an
// all-parallel producer with one use folded into its consumer: pointwise
// chains, pointwise ops into reductions, broadcasts and transposes absorbed
// as indexing maps) and reshape propagation, except into contractions and
// convolutions: those must stay the named ops the library path
// (--nnc-gemm-to-blas) recognizes, which reads a transposed operand as such
// rather than from a copy.
//
//===----------------------------------------------------------------------===//

#include "nnc/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace nnc {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "nnc/Transforms/Passes.h.inc"
} // namespace nnc

using namespace mlir;

namespace {

/// Contractions and convolutions keep their named form (library calls).
bool isLibraryOp(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp)
    return false;
  if (isa<linalg::GenericOp>(op))
    return false;
  return linalg::isaContractionOpInterface(linalgOp) ||
         linalg::isaConvolutionOpInterface(linalgOp);
}

/// The map `map` with its last two results swapped.
AffineMap swapLastTwo(AffineMap map) {
  SmallVector<AffineExpr> results(map.getResults());
  std::swap(results[results.size() - 2], results.back());
  return AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                        map.getContext());
}

/// A matmul or batch matmul operand that is a transpose of its last two
/// dimensions reads the transpose's input through a swapped indexing map:
/// the transpose is never materialized for it (a BLAS call reads the
/// matrix transposed).
template <typename ContractionOp>
struct FoldTransposeIntoContraction : OpRewritePattern<ContractionOp> {
  using OpRewritePattern<ContractionOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ContractionOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
        op.getNumDpsInits() != 1)
      return failure();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<Value> inputs = op.getDpsInputs();
    bool changed = false;
    for (unsigned i = 0; i < 2; ++i) {
      auto transpose = inputs[i].getDefiningOp<linalg::TransposeOp>();
      if (!transpose)
        continue;
      ArrayRef<int64_t> perm = transpose.getPermutation();
      int64_t rank = perm.size();
      bool swapsLastTwo =
          rank >= 2 && perm[rank - 2] == rank - 1 && perm[rank - 1] == rank - 2;
      for (int64_t d = 0; swapsLastTwo && d < rank - 2; ++d)
        swapsLastTwo = perm[d] == d;
      if (!swapsLastTwo || maps[i].getNumResults() != rank)
        continue;
      maps[i] = swapLastTwo(maps[i]);
      inputs[i] = transpose.getInput();
      changed = true;
    }
    if (!changed)
      return failure();
    SmallVector<Attribute> mapAttrs;
    for (AffineMap map : maps)
      mapAttrs.push_back(AffineMapAttr::get(map));
    // The op's other attributes (e.g. an unsigned cast) carry over.
    SmallVector<NamedAttribute> attributes;
    for (NamedAttribute attr : op->getAttrs())
      if (attr.getName() != op.getIndexingMapsAttrName() &&
          attr.getName() != "operandSegmentSizes")
        attributes.push_back(attr);
    attributes.push_back(NamedAttribute(op.getIndexingMapsAttrName(),
                                        rewriter.getArrayAttr(mapAttrs)));
    auto folded =
        ContractionOp::create(rewriter, op.getLoc(), op->getResultTypes(),
                              inputs, op.getDpsInits(), attributes);
    rewriter.replaceOp(op, folded->getResults());
    return success();
  }
};

struct FuseElementwisePass
    : public nnc::impl::FuseElementwisePassBase<FuseElementwisePass> {
  using FuseElementwisePassBase::FuseElementwisePassBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse() &&
             !isLibraryOp(fused->getOwner()) && !isLibraryOp(producer);
    };
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, control);
    patterns.add<FoldTransposeIntoContraction<linalg::MatmulOp>,
                 FoldTransposeIntoContraction<linalg::BatchMatmulOp>>(context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
