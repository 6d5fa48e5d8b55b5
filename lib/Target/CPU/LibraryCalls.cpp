//===- LibraryCalls.cpp - buffers handed to library calls -----------------===//

#include "LibraryCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

bool nnc::cpu::isDense(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  int64_t expected = 1;
  for (int64_t i = type.getRank(); i-- > 0;) {
    if (type.getDimSize(i) != 1 && strides[i] != expected)
      return false;
    expected *= type.getDimSize(i);
  }
  return true;
}

Value nnc::cpu::bufferAddress(OpBuilder &b, Location loc, Value memref) {
  Value aligned =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  auto type = cast<MemRefType>(memref.getType());
  auto [strides, offset] = type.getStridesAndOffset();
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  Value at = aligned;
  if (ShapedType::isDynamic(offset)) {
    Value elements =
        memref::ExtractStridedMetadataOp::create(b, loc, memref).getOffset();
    Value scaled = arith::MulIOp::create(
        b, loc, elements, arith::ConstantIndexOp::create(b, loc, bytes));
    at = arith::AddIOp::create(b, loc, aligned, scaled);
  } else if (offset != 0) {
    at = arith::AddIOp::create(
        b, loc, aligned,
        arith::ConstantIndexOp::create(b, loc, offset * bytes));
  }
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), at);
  return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(
                                              b.getContext()),
                                  i64);
}

Value nnc::cpu::denseBuffer(OpBuilder &b, Location loc, Value memref,
                            bool copyIn) {
  auto type = cast<MemRefType>(memref.getType());
  if (isDense(type))
    return memref;
  auto plain = MemRefType::get(type.getShape(), type.getElementType());
  auto alloc = memref::AllocOp::create(b, loc, plain);
  if (copyIn)
    linalg::CopyOp::create(b, loc, memref, alloc.getResult());
  return alloc;
}
