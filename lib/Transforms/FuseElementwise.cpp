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
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/Matchers.h"
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

/// The operations of a linalg op's body, its terminator not counted; 0 for
/// anything else.
size_t bodyOps(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp || op->getNumRegions() != 1 || op->getRegion(0).empty())
    return 0;
  return linalgOp.getBlock()->getOperations().size() - 1;
}

/// Whether fusing the producer of `fused` into its consumer would redo
/// costly work: the consumer reads it through a map that is not a
/// permutation (a broadcast: each producer element serves many consumer
/// iterations, and the fused body computes it again in every one), and the
/// producer's body has a square root, a division or a transcendental
/// function (batch and layer normalization's 1 / sqrt(var + eps) per
/// channel or row, once per element otherwise).
bool recomputesCostlyBroadcast(OpOperand *fused) {
  auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
  auto producer =
      dyn_cast_or_null<linalg::LinalgOp>(fused->get().getDefiningOp());
  if (!consumer || !producer || producer->getNumRegions() != 1)
    return false;
  if (consumer.getMatchingIndexingMap(fused).isPermutation())
    return false;
  bool costly = false;
  producer.getBlock()->walk([&](Operation *op) {
    costly |= isa<arith::DivFOp, math::SqrtOp, math::RsqrtOp, math::ExpOp,
                  math::LogOp, math::PowFOp, math::TanhOp, math::ErfOp>(op);
  });
  return costly;
}

/// Whether the greedy patterns may rewrite `op` on its own before fusing it
/// (fold a fill or a splat or scalar constant into it, fold it away as an
/// identity or as a constant, deduplicate its inputs, move a reshape
/// through it): such ops are left to them, so that the result stays what
/// fusing one op at a time gives.
bool mayRewriteAlone(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1 || op.getBody()->getOperations().size() < 2 ||
      !op.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>())
    return true;
  llvm::SmallPtrSet<Value, 8> inputs;
  bool allConstant = true;
  for (Value input : op.getDpsInputs()) {
    if (!inputs.insert(input).second)
      return true;
    Operation *def = input.getDefiningOp();
    if (def &&
        isa<linalg::FillOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
            def))
      return true;
    Attribute value;
    if (!def || !matchPattern(def, m_Constant(&value))) {
      allConstant = false;
      continue;
    }
    auto elements = dyn_cast<ElementsAttr>(value);
    auto type = dyn_cast<ShapedType>(input.getType());
    if (!elements || elements.isSplat() || !type || type.getNumElements() == 1)
      return true;
  }
  if (allConstant)
    return true;
  return llvm::any_of(op->getUsers(), [](Operation *user) {
    return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user);
  });
}

/// Fuses the chains of producers that the greedy patterns would fold into
/// their consumers one at a time, in balanced rounds instead.
///
/// Each fusion copies the bodies of both ops into a new one, so folding a
/// chain of n ops one at a time into the kernel grown so far copies
/// O(n^2) ops (a 10k-op chain took minutes). Each round here fuses the
/// chain's groups pairwise, first into second, third into fourth: log2(n)
/// rounds, each copying every op once. Fusion puts the producer's body
/// before the consumer's and substitutes the producer's inputs for the
/// fused operand, so the grouping does not change the result. A chain link
/// is a consumer's first fusable operand, the one the pattern fuses first,
/// and the greedy driver still does all else (other operands, reshapes,
/// constants, canonicalization) afterwards. A pair that `control` refuses
/// (the body-size cap) breaks the chain there.
void fuseChains(Operation *root, const linalg::ControlFusionFn &control) {
  auto firstFusable = [&](Operation *consumer) -> OpOperand * {
    for (OpOperand &operand : consumer->getOpOperands())
      if (linalg::areElementwiseOpsFusable(&operand) && control(&operand))
        return &operand;
    return nullptr;
  };
  auto isLink = [&](Operation *producer, Operation *consumer) {
    auto generic = dyn_cast<linalg::GenericOp>(consumer);
    if (!generic || mayRewriteAlone(generic))
      return false;
    OpOperand *operand = firstFusable(consumer);
    return operand && operand->get().getDefiningOp() == producer &&
           producer->getBlock() == consumer->getBlock() &&
           !mayRewriteAlone(cast<linalg::GenericOp>(producer));
  };
  // Each producer has one use, so the links form disjoint chains.
  llvm::DenseMap<Operation *, Operation *> next;
  llvm::SmallPtrSet<Operation *, 16> linked;
  root->walk([&](linalg::GenericOp consumer) {
    if (OpOperand *operand = firstFusable(consumer)) {
      Operation *producer = operand->get().getDefiningOp();
      if (isLink(producer, consumer)) {
        next[producer] = consumer;
        linked.insert(consumer);
      }
    }
  });
  SmallVector<SmallVector<Operation *>> chains;
  root->walk([&](linalg::GenericOp op) {
    if (linked.contains(op) || !next.count(op))
      return;
    SmallVector<Operation *> &chain = chains.emplace_back();
    for (Operation *link = op; link; link = next.lookup(link))
      chain.push_back(link);
  });

  IRRewriter rewriter(root->getContext());
  while (!chains.empty()) {
    SmallVector<Operation *> chain = chains.pop_back_val();
    if (chain.size() < 2)
      continue;
    SmallVector<Operation *> fused;
    for (size_t i = 0; i < chain.size(); i += 2) {
      if (i + 1 == chain.size()) {
        fused.push_back(chain[i]);
        break;
      }
      Operation *producer = chain[i], *consumer = chain[i + 1];
      OpOperand *operand = firstFusable(consumer);
      FailureOr<linalg::ElementwiseOpFusionResult> result = failure();
      if (operand && operand->get().getDefiningOp() == producer) {
        rewriter.setInsertionPoint(consumer);
        result = linalg::fuseElementwiseOps(rewriter, operand);
      }
      if (failed(result)) {
        // The chain breaks here: each side goes on on its own.
        fused.push_back(producer);
        chains.push_back(std::move(fused));
        fused.clear();
        fused.push_back(consumer);
        continue;
      }
      for (auto [original, replacement] : result->replacements)
        if (original.getDefiningOp() == consumer)
          rewriter.replaceAllUsesWith(original, replacement);
      rewriter.eraseOp(consumer);
      if (producer->use_empty())
        rewriter.eraseOp(producer);
      fused.push_back(result->fusedOp);
    }
    chains.push_back(std::move(fused));
  }
}

struct FuseElementwisePass
    : public nnc::impl::FuseElementwisePassBase<FuseElementwisePass> {
  using FuseElementwisePassBase::FuseElementwisePassBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    // The body-size cap bounds the code generation time of each kernel:
    // both the chain step and the greedy patterns ask this function.
    size_t cap = maxBodyOps;
    linalg::ControlFusionFn control = [cap](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      Operation *consumer = fused->getOwner();
      return producer && producer->hasOneUse() && !isLibraryOp(consumer) &&
             !isLibraryOp(producer) && !recomputesCostlyBroadcast(fused) &&
             (cap == 0 || bodyOps(producer) + bodyOps(consumer) <= cap);
    };
    fuseChains(getOperation(), control);
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
