//===- RandomPatterns.cpp - nnc dropout and random numbers to linalg ------===//
//
// Lowers random_uniform to a linalg.generic that draws each element from
// Philox4x32-10 keyed by the seed and counted by the element's position and
// the op's stream, and dropout without randomness (inference, ratio 0) to
// its input and an all-true mask.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "Utils.h"

#include "nnc/NNCOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/Support/raw_ostream.h"

#include <array>

using namespace mlir;
using namespace nnc;
using namespace nnc::detail;

namespace {

/// Why a dropout cannot be lowered: --nnc-prepare-training draws the masks
/// of training dropout (random_uniform) before this conversion, so one that
/// still needs random numbers is left from a pipeline without it.
std::optional<std::string> whyCannotLower(DropoutOp op) {
  if (!op.isRandom())
    return std::nullopt;
  std::string reason;
  llvm::raw_string_ostream os(reason);
  os << "training dropout with ratio " << op.getRatio().convertToDouble()
     << " needs random numbers, which the linalg lowering does not generate";
  return reason;
}

struct DropoutConversion : public OpConversionPattern<DropoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DropoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (std::optional<std::string> reason = whyCannotLower(op))
      return rewriter.notifyMatchFailure(op, *reason);
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    Value mask = createFilled(rewriter, loc, op.getMask().getType(),
                              getDims(rewriter, loc, x),
                              intConst(rewriter, loc, rewriter.getI1Type(), 1));
    rewriter.replaceOp(op, {x, mask});
    return success();
  }
};

/// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
/// 3", 2011) on i32 values: returns the first output word for `counter` and
/// `key`. Each round multiplies two counter words by the round constants,
/// mixes the high halves with the other words and the key, and bumps the
/// key by the Weyl constants.
Value philoxFirstWord(OpBuilder &b, Location loc, std::array<Value, 4> c,
                      std::array<Value, 2> k) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto constant32 = [&](uint32_t v) {
    return arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(i32, static_cast<int32_t>(v)));
  };
  Value shift = arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, 32));
  // The 64-bit product of two unsigned 32-bit words, split.
  auto mulhilo = [&](uint32_t m, Value x, Value &hi, Value &lo) {
    Value wide = arith::MulIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, i64, x),
        arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, m)));
    lo = arith::TruncIOp::create(b, loc, i32, wide);
    hi = arith::TruncIOp::create(b, loc, i32,
                                 arith::ShRUIOp::create(b, loc, wide, shift));
  };
  Value w0 = constant32(0x9E3779B9u), w1 = constant32(0xBB67AE85u);
  for (int round = 0; round < 10; ++round) {
    Value hi0, lo0, hi1, lo1;
    mulhilo(0xD2511F53u, c[0], hi0, lo0);
    mulhilo(0xCD9E8D57u, c[2], hi1, lo1);
    Value n0 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, hi1, c[1]), k[0]);
    Value n2 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, hi0, c[3]), k[1]);
    c = {n0, lo1, n2, lo0};
    if (round != 9) {
      k[0] = arith::AddIOp::create(b, loc, k[0], w0);
      k[1] = arith::AddIOp::create(b, loc, k[1], w1);
    }
  }
  return c[0];
}

struct RandomUniformConversion : public OpConversionPattern<RandomUniformOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RandomUniformOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type element = type.getElementType();
    int64_t rank = type.getRank();
    Value like = adaptor.getLike();
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, like);
    Value init = createEmpty(rewriter, loc, type, dims);
    Value seed = tensor::ExtractOp::create(rewriter, loc, adaptor.getSeed(),
                                           ValueRange{});
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    int64_t stream = op.getStream();
    SmallVector<Value> sizes;
    for (OpFoldResult d : dims)
      sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, d));
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(rank)},
        parallelIterators(rank), [&](OpBuilder &b, Location l, ValueRange) {
          // The row-major position of the element.
          Value linear = arith::ConstantIndexOp::create(b, l, 0);
          for (int64_t d = 0; d < rank; ++d) {
            linear = arith::MulIOp::create(b, l, linear, sizes[d]);
            linear = arith::AddIOp::create(b, l, linear,
                                           linalg::IndexOp::create(b, l, d));
          }
          Value index = arith::IndexCastUIOp::create(b, l, i64, linear);
          Value c32 =
              arith::ConstantOp::create(b, l, b.getIntegerAttr(i64, 32));
          auto low = [&](Value v) {
            return arith::TruncIOp::create(b, l, i32, v).getResult();
          };
          auto high = [&](Value v) {
            return arith::TruncIOp::create(b, l, i32,
                                           arith::ShRUIOp::create(b, l, v, c32))
                .getResult();
          };
          Value streamWord = arith::ConstantOp::create(
              b, l, b.getIntegerAttr(i32, static_cast<int32_t>(stream)));
          Value zero =
              arith::ConstantOp::create(b, l, b.getIntegerAttr(i32, 0));
          Value word =
              philoxFirstWord(b, l, {low(index), high(index), streamWord, zero},
                              {low(seed), high(seed)});
          // The top 24 bits, exactly representable in f32: [0, 1).
          Value top = arith::ShRUIOp::create(
              b, l, word,
              arith::ConstantOp::create(b, l, b.getIntegerAttr(i32, 8)));
          Value asFloat = arith::UIToFPOp::create(b, l, b.getF32Type(), top);
          Value unit = arith::MulFOp::create(
              b, l, asFloat,
              arith::ConstantOp::create(b, l, b.getF32FloatAttr(0x1p-24f)));
          Value result =
              element.isF32() ? unit : convertFloat(b, l, unit, element);
          linalg::YieldOp::create(b, l, result);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

std::optional<std::string> nnc::detail::whyCannotLowerRandom(Operation *op) {
  if (auto dropout = dyn_cast<DropoutOp>(op))
    return whyCannotLower(dropout);
  return std::nullopt;
}

void nnc::detail::populateRandomPatterns(RewritePatternSet &patterns) {
  patterns.add<DropoutConversion, RandomUniformConversion>(
      patterns.getContext());
}
