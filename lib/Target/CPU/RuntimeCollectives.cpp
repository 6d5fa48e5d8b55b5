//===- RuntimeCollectives.cpp - collectives the runtime runs --------------===//
//
// Implements --nnc-cpu-collectives: nnc.library_all_reduce on buffers
// becomes a call to the runtime's nnc_runtime_all_reduce (input, output,
// element count, dtype), which runs it on the communicator of the thread's
// collective scope (nnc/runtime/Collectives.h).
//
//===----------------------------------------------------------------------===//

#include "nnc/Target/CPU/Passes.h"

#include "LibraryCalls.h"

#include "nnc/NNCOps.h"
#include "nnc/runtime/HostTensor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

namespace nnc::cpu {
#define GEN_PASS_DEF_RUNTIMECOLLECTIVESPASS
#include "nnc/Target/CPU/Passes.h.inc"
} // namespace nnc::cpu

using namespace mlir;

namespace {

/// The runtime's dtype code of a float element type, or -1.
int32_t dtypeCode(Type type) {
  using nnc::runtime::DType;
  DType dtype;
  if (type.isF32())
    dtype = DType::F32;
  else if (type.isF64())
    dtype = DType::F64;
  else if (type.isF16())
    dtype = DType::F16;
  else if (type.isBF16())
    dtype = DType::BF16;
  else
    return -1;
  return static_cast<int32_t>(dtype);
}

struct RuntimeCollectivesPass
    : public nnc::cpu::impl::RuntimeCollectivesPassBase<
          RuntimeCollectivesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<nnc::LibraryAllReduceOp> reduces;
    module.walk([&](nnc::LibraryAllReduceOp op) { reduces.push_back(op); });
    if (reduces.empty())
      return;
    MLIRContext *ctx = &getContext();
    Type ptr = LLVM::LLVMPointerType::get(ctx);
    const char *symbol = "nnc_runtime_all_reduce";
    auto callee = module.lookupSymbol<func::FuncOp>(symbol);
    if (!callee) {
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      Type i64 = IntegerType::get(ctx, 64), i32 = IntegerType::get(ctx, 32);
      callee = func::FuncOp::create(
          b, module.getLoc(), symbol,
          FunctionType::get(ctx, {ptr, ptr, i64, i32}, {}));
      callee.setPrivate();
    }
    for (nnc::LibraryAllReduceOp op : reduces) {
      if (!op.hasPureBufferSemantics()) {
        op.emitOpError("must be bufferized before --nnc-cpu-collectives");
        return signalPassFailure();
      }
      auto type = cast<MemRefType>(op.getInit().getType());
      int32_t dtype = dtypeCode(type.getElementType());
      if (dtype < 0) {
        op.emitOpError("the runtime does not all-reduce ")
            << type.getElementType();
        return signalPassFailure();
      }
      OpBuilder b(op);
      Location loc = op.getLoc();
      Value in = nnc::cpu::denseBuffer(b, loc, op.getInput(), /*copyIn=*/true);
      Value out = nnc::cpu::denseBuffer(b, loc, op.getInit(), /*copyIn=*/false);
      Value count = arith::ConstantIntOp::create(b, loc, type.getNumElements(),
                                                 /*width=*/64);
      Value code = arith::ConstantIntOp::create(b, loc, dtype, /*width=*/32);
      auto call = func::CallOp::create(
          b, loc, callee,
          ValueRange{nnc::cpu::bufferAddress(b, loc, in),
                     nnc::cpu::bufferAddress(b, loc, out), count, code});
      int64_t bytes =
          type.getNumElements() * type.getElementTypeBitWidth() / 8;
      call->setAttr("nnc.library_bytes", b.getDenseI64ArrayAttr({bytes, bytes}));
      if (out != op.getInit())
        linalg::CopyOp::create(b, loc, out, op.getInit());
      op.erase();
    }
  }
};

} // namespace
