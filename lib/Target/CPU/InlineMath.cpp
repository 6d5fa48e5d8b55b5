//===- InlineMath.cpp - math functions inline instead of libm calls -------===//
//
// Implements --nnc-cpu-inline-math: exp, log, tanh, erf and their siblings
// become MLIR's polynomial approximations, and sqrt, floor, fma and the
// other functions LLVM has exact intrinsics for become those intrinsics,
// instead of libm calls, so the loops that compute them vectorize
// (Passes.td says which functions and how accurate).
//
//===----------------------------------------------------------------------===//

#include "nnc/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>

namespace nnc::cpu {
#define GEN_PASS_DEF_INLINEMATHPASS
#include "nnc/Target/CPU/Passes.h.inc"
} // namespace nnc::cpu

using namespace mlir;

namespace {

/// The functions that take the approximation: those that are hot in
/// networks (activations, softmax, losses) and whose approximation holds
/// over the whole f32 range. sin and cos reduce their argument with one
/// f32 multiple of pi/2 and lose accuracy on large arguments, so they stay
/// libm's.
bool isApproximated(StringRef name) {
  return llvm::is_contained(
      {math::ExpOp::getOperationName(), math::ExpM1Op::getOperationName(),
       math::LogOp::getOperationName(), math::Log2Op::getOperationName(),
       math::Log1pOp::getOperationName(), math::TanhOp::getOperationName(),
       math::ErfOp::getOperationName(), math::ErfcOp::getOperationName()},
      name);
}

/// A float constant of `type` (a scalar or a splat vector).
Value floatConstant(OpBuilder &b, Location loc, Type type, double value) {
  Type element = getElementTypeOrSelf(type);
  TypedAttr attr = b.getFloatAttr(element, value);
  if (auto shaped = dyn_cast<ShapedType>(type))
    attr = DenseElementsAttr::get(shaped, attr);
  return arith::ConstantOp::create(b, loc, type, attr);
}

/// The approximations work on normal numbers only: exp flushes results
/// below 2^-126 to zero and log clamps arguments below 2^-126 up to it.
/// libm computes both ranges, and so do these:
/// - exp(x) for x < -87.33 (ln 2^-126) as exp(x + 16) * e^-16. x + 16 is
///   exact there (x and the sum share the binade [64, 128) down to -112;
///   below that the result rounds to zero anyway), and the product rounds
///   once to the subnormal result.
/// - log(x) for x < 2^-126 as log(x * 2^24) - 24 ln 2 (log2: - 24); the
///   product is exact.
/// Arguments at or below zero, infinities and NaN keep their results.
void coverSubnormals(Operation *root) {
  constexpr double kLn2 = 0.69314718055994530942;
  constexpr double kTwo24 = 16777216.0;
  constexpr double kLnSmallestNormal = -87.336544750553102;
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<math::ExpOp, math::LogOp, math::Log2Op>(op) &&
        getElementTypeOrSelf(op->getResult(0).getType()).isF32())
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value x = op->getOperand(0);
    Type type = x.getType();
    auto cst = [&](double v) { return floatConstant(b, loc, type, v); };
    bool isExp = isa<math::ExpOp>(op);
    double threshold = isExp ? kLnSmallestNormal : std::ldexp(1.0, -126);
    Value small = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                        cst(threshold));
    Value moved = isExp ? arith::AddFOp::create(b, loc, x, cst(16.0))
                              .getResult()
                        : arith::MulFOp::create(b, loc, x, cst(kTwo24))
                              .getResult();
    Value arg = arith::SelectOp::create(b, loc, small, moved, x);
    Operation *inner = b.clone(*op);
    inner->setOperand(0, arg);
    Value r = inner->getResult(0);
    Value back =
        isExp ? arith::MulFOp::create(b, loc, r, cst(std::exp(-16.0)))
                    .getResult()
        : isa<math::LogOp>(op)
            ? arith::SubFOp::create(b, loc, r, cst(24 * kLn2)).getResult()
            : arith::SubFOp::create(b, loc, r, cst(24.0)).getResult();
    Value result = arith::SelectOp::create(b, loc, small, back, r);
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
  }
}

/// Replaces `op` by `IntrinsicOp` on the same operands when `op` is a
/// `MathOp`; true if it was.
template <typename MathOp, typename IntrinsicOp>
bool replaceBy(IRRewriter &rewriter, Operation *op) {
  if (!isa<MathOp>(op))
    return false;
  rewriter.setInsertionPoint(op);
  rewriter.replaceOpWithNewOp<IntrinsicOp>(op, op->getResultTypes(),
                                           op->getOperands());
  return true;
}

/// `math` ops whose LLVM intrinsic computes the same, correctly rounded
/// result as libm (without setting errno, which is what keeps a loop that
/// calls sqrtf from vectorizing) become it: on f32 and f64, scalars or
/// vectors. pow stays libm's powf, called by LLVM's lowering of the
/// intrinsic; unlike a plain call, the intrinsic does not write errno, so a
/// power of loop-invariant values (Adam's beta^step) leaves the loop.
void useIntrinsics(Operation *root) {
  IRRewriter rewriter(root->getContext());
  root->walk([&](Operation *op) {
    if (op->getNumResults() != 1)
      return;
    Type element = getElementTypeOrSelf(op->getResult(0).getType());
    if (!element.isF32() && !element.isF64())
      return;
    (void)(replaceBy<math::FmaOp, LLVM::FMAOp>(rewriter, op) ||
           replaceBy<math::SqrtOp, LLVM::SqrtOp>(rewriter, op) ||
           replaceBy<math::FloorOp, LLVM::FFloorOp>(rewriter, op) ||
           replaceBy<math::CeilOp, LLVM::FCeilOp>(rewriter, op) ||
           replaceBy<math::TruncOp, LLVM::FTruncOp>(rewriter, op) ||
           replaceBy<math::RoundOp, LLVM::RoundOp>(rewriter, op) ||
           replaceBy<math::RoundEvenOp, LLVM::RoundEvenOp>(rewriter, op) ||
           replaceBy<math::AbsFOp, LLVM::FAbsOp>(rewriter, op) ||
           replaceBy<math::CopySignOp, LLVM::CopySignOp>(rewriter, op) ||
           replaceBy<math::PowFOp, LLVM::PowOp>(rewriter, op));
  });
}

struct InlineMathPass
    : public nnc::cpu::impl::InlineMathPassBase<InlineMathPass> {
  void runOnOperation() override {
    coverSubnormals(getOperation());
    RewritePatternSet patterns(&getContext());
    // f16 and bf16 forms compute in f32 and round once.
    populateMathF32ExpansionPatterns(patterns, isApproximated);
    populateMathPolynomialApproximationPatterns(patterns, isApproximated);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // The approximations are chains of math.fma and use math.floor; the
    // libm conversion after this pass would turn them, and sqrt, into
    // calls.
    useIntrinsics(getOperation());
  }
};

} // namespace
