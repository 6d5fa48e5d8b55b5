//===- LibraryBufferization.cpp - nnc.library_conv on buffers -------------===//
//
// One-Shot Bufferize for nnc.library_conv and nnc.library_all_reduce: each
// reads its inputs and writes all of `init` without reading it (so init may
// be any buffer, a fresh allocation included), and its result is init's
// buffer.
//
//===----------------------------------------------------------------------===//

#include "nnc/Conversion/Passes.h"

#include "nnc/NNCDialect.h"
#include "nnc/NNCOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;

namespace {

struct LibraryConvBufferization
    : public DstBufferizableOpInterfaceExternalModel<LibraryConvBufferization,
                                                     nnc::LibraryConvOp> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &) const {
    return !cast<nnc::LibraryConvOp>(op).isDpsInit(&operand);
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto conv = cast<nnc::LibraryConvOp>(op);
    if (conv.hasPureBufferSemantics())
      return success();
    SmallVector<Value> inputs;
    for (Value input : conv.getInputs()) {
      FailureOr<Value> buffer = getBuffer(rewriter, input, options, state);
      if (failed(buffer))
        return failure();
      inputs.push_back(*buffer);
    }
    FailureOr<Value> init = getBuffer(rewriter, conv.getInit(), options, state);
    if (failed(init))
      return failure();
    rewriter.setInsertionPoint(op);
    nnc::LibraryConvOp::create(rewriter, op->getLoc(), TypeRange{},
                               conv.getDirectionAttr(), inputs, *init,
                               conv.getStridesAttr(), conv.getDilationsAttr(),
                               conv.getPadsAttr(), conv.getGroupsAttr(),
                               conv.getChannelsLastAttr(),
                               conv.getWinogradAttr());
    replaceOpWithBufferizedValues(rewriter, op, *init);
    return success();
  }
};

struct LibraryAllReduceBufferization
    : public DstBufferizableOpInterfaceExternalModel<
          LibraryAllReduceBufferization, nnc::LibraryAllReduceOp> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &) const {
    return !cast<nnc::LibraryAllReduceOp>(op).isDpsInit(&operand);
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto reduce = cast<nnc::LibraryAllReduceOp>(op);
    if (reduce.hasPureBufferSemantics())
      return success();
    FailureOr<Value> input =
        getBuffer(rewriter, reduce.getInput(), options, state);
    if (failed(input))
      return failure();
    FailureOr<Value> init =
        getBuffer(rewriter, reduce.getInit(), options, state);
    if (failed(init))
      return failure();
    rewriter.setInsertionPoint(op);
    nnc::LibraryAllReduceOp::create(rewriter, op->getLoc(), TypeRange{},
                                    *input, *init);
    replaceOpWithBufferizedValues(rewriter, op, *init);
    return success();
  }
};

} // namespace

void nnc::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, nnc::NNCDialect *) {
    nnc::LibraryConvOp::attachInterface<LibraryConvBufferization>(*ctx);
    nnc::LibraryAllReduceOp::attachInterface<LibraryAllReduceBufferization>(
        *ctx);
  });
}
