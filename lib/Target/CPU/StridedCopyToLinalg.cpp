//===- StridedCopyToLinalg.cpp - strided memref.copy to linalg.copy -------===//
//
// Implements --nnc-strided-copy-to-linalg: copies whose source or target is
// not contiguous become linalg.copy, so that the CPU backend never needs
// MLIR's `memrefCopy` runtime function.
//
//===----------------------------------------------------------------------===//

#include "nnc/Target/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace nnc::cpu {
#define GEN_PASS_DEF_STRIDEDCOPYTOLINALGPASS
#include "nnc/Target/CPU/Passes.h.inc"
} // namespace nnc::cpu

using namespace mlir;

namespace {

bool isContiguous(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.getLayout().isIdentity();
}

struct StridedCopyToLinalgPass
    : public nnc::cpu::impl::StridedCopyToLinalgPassBase<
          StridedCopyToLinalgPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      if (!isContiguous(copy.getSource().getType()) ||
          !isContiguous(copy.getTarget().getType()))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      // linalg.copy wants ranked memrefs; unranked copies are left alone
      // (and rejected at codegen, naming `memrefCopy`).
      if (!isa<MemRefType>(copy.getSource().getType()) ||
          !isa<MemRefType>(copy.getTarget().getType()))
        continue;
      OpBuilder builder(copy);
      linalg::CopyOp::create(builder, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
  }
};

} // namespace
