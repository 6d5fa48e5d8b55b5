//===- ChannelsLast.cpp - oneDNN's convolutions on channels-last images ---===//
//
// Implements --nnc-cpu-channels-last: a forward nnc.library_conv on tensors
// whose oneDNN kernel keeps its images channels-last gets channels-last
// images, between two transposes (linalg.generic, which elementwise fusion
// folds into the kernels around the convolution), so that oneDNN's calls
// no longer reorder their input and output.
//
//===----------------------------------------------------------------------===//

#include "nnc/Target/CPU/Passes.h"

#include "DnnlConvolutions.h"

#include "nnc/NNCOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace nnc::cpu {
#define GEN_PASS_DEF_CHANNELSLASTPASS
#include "nnc/Target/CPU/Passes.h.inc"
} // namespace nnc::cpu

using namespace mlir;

namespace {

/// `value` transposed: result dimension i is `value`'s dimension
/// `permutation[i]`, as linalg.transpose, in the generic form elementwise
/// fusion folds into its neighbours.
Value transpose(OpBuilder &b, Location loc, Value value,
                ArrayRef<int64_t> permutation) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> reads(rank);
  for (int64_t i = 0; i < rank; ++i) {
    shape.push_back(type.getDimSize(permutation[i]));
    reads[permutation[i]] = b.getAffineDimExpr(i);
  }
  Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, reads, b.getContext()),
      b.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{value}, ValueRange{init},
      maps, iterators, [](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, args[0]);
      });
  return generic.getResult(0);
}

struct ChannelsLastPass
    : public nnc::cpu::impl::ChannelsLastPassBase<ChannelsLastPass> {
  using ChannelsLastPassBase::ChannelsLastPassBase;

  void runOnOperation() override {
    SmallVector<nnc::LibraryConvOp> convs;
    getOperation().walk([&](nnc::LibraryConvOp op) {
      if (op.getDirection() == "forward" && !op.getChannelsLast() &&
          isa<RankedTensorType>(op.getInit().getType()))
        convs.push_back(op);
    });
    for (nnc::LibraryConvOp op : convs) {
      if (!always &&
          !nnc::cpu::dnnlPrefersChannelsLast(nnc::cpu::describeLibraryConv(op)))
        continue;
      rewrite(op);
    }
  }

  /// `op` on channels-last images, its result transposed back.
  void rewrite(nnc::LibraryConvOp op) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto dstType = cast<RankedTensorType>(op.getInit().getType());
    int64_t rank = dstType.getRank();
    // [N, C, D...] -> [N, D..., C] and back.
    SmallVector<int64_t> toLast = {0}, toFirst = {0, rank - 1};
    for (int64_t i = 2; i < rank; ++i)
      toLast.push_back(i);
    toLast.push_back(1);
    for (int64_t i = 1; i < rank - 1; ++i)
      toFirst.push_back(i);
    SmallVector<Value> inputs(op.getInputs());
    inputs[0] = transpose(b, loc, inputs[0], toLast);
    SmallVector<int64_t> shape;
    for (int64_t i : toLast)
      shape.push_back(dstType.getDimSize(i));
    Value init =
        tensor::EmptyOp::create(b, loc, shape, dstType.getElementType());
    auto conv = nnc::LibraryConvOp::create(
        b, loc, TypeRange{init.getType()}, op.getDirectionAttr(), inputs, init,
        op.getStridesAttr(), op.getDilationsAttr(), op.getPadsAttr(),
        op.getGroupsAttr(), b.getUnitAttr(), op.getWinogradAttr());
    op.getResult()[0].replaceAllUsesWith(
        transpose(b, loc, conv.getResult()[0], toFirst));
    op.erase();
  }
};

} // namespace
