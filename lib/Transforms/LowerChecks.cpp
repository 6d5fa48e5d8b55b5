//===- LowerChecks.cpp - run-time checks into a checks buffer -------------===//
//
// Implements --nnc-lower-checks: each nnc.check_index becomes a compare, a
// record of the value out of range in its slot of a checks buffer (a new
// last argument of the function, which the runtime zeroes before a run and
// reads after each kernel taking it), and a select of an index in range.
// The slots' layout (a flag, the value, the lower and upper bound, as i64)
// is the runtime's PlanCheck (runtime/include/nnc/runtime/Plan.h).
//
//===----------------------------------------------------------------------===//

#include "nnc/NNCOps.h"
#include "nnc/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace nnc {
#define GEN_PASS_DEF_LOWERCHECKSPASS
#include "nnc/Transforms/Passes.h.inc"
} // namespace nnc

using namespace mlir;

namespace {

/// Slot fields, in i64 words.
enum SlotField : int64_t { Flag = 0, Value_ = 1, Lower = 2, Upper = 3 };
constexpr int64_t kSlotWords = 4;

struct LowerChecksPass
    : public nnc::impl::LowerChecksPassBase<LowerChecksPass> {
  using LowerChecksPassBase::LowerChecksPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<nnc::CheckIndexOp> checks;
    func.walk([&](nnc::CheckIndexOp op) { checks.push_back(op); });
    if (checks.empty())
      return;
    if (func->hasAttr("nnc.checks")) {
      func.emitError() << "the checks of @" << func.getName()
                       << " are lowered already";
      return signalPassFailure();
    }
    if (abort) {
      for (nnc::CheckIndexOp check : checks) {
        OpBuilder b(check);
        Location loc = check.getLoc();
        Value inRange = inRangeOf(b, check);
        cf::AssertOp::create(b, loc, inRange,
                             check.getWhat().str() + " out of range");
        replace(b, check, inRange);
      }
      return;
    }
    MLIRContext *context = &getContext();
    Type i64 = IntegerType::get(context, 64);
    auto type =
        MemRefType::get({static_cast<int64_t>(checks.size()), kSlotWords}, i64);
    unsigned index = func.getNumArguments();
    if (failed(func.insertArgument(index, type, DictionaryAttr::get(context),
                                   func.getLoc()))) {
      func.emitError() << "cannot add the checks argument";
      return signalPassFailure();
    }
    func.setArgAttr(index, "nnc.checks", UnitAttr::get(context));
    Value buffer = func.getArgument(index);

    SmallVector<Attribute> whats;
    for (auto [k, check] : llvm::enumerate(checks)) {
      whats.push_back(check.getWhatAttr());
      OpBuilder b(check);
      Location loc = check.getLoc();
      Value value = check.getIndex();
      Value lower = check.getLower(), upper = check.getUpper();
      Value inRange = inRangeOf(b, check);
      Value outside = arith::XOrIOp::create(
          b, loc, inRange, arith::ConstantIntOp::create(b, loc, 1, 1));
      auto record = scf::IfOp::create(b, loc, outside, /*withElse=*/false);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(record.thenBlock());
        Value row = arith::ConstantIndexOp::create(b, loc, k);
        auto put = [&](SlotField field, Value v) {
          if (!v.getType().isInteger(64))
            v = arith::IndexCastOp::create(b, loc, i64, v);
          Value column = arith::ConstantIndexOp::create(b, loc, field);
          memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::assign, v,
                                      buffer, ValueRange{row, column});
        };
        put(Value_, value);
        put(Lower, lower);
        put(Upper, upper);
        // The flag last: a reader that sees it set sees a whole record of
        // some violation (each field is one atomic word).
        put(Flag, arith::ConstantIntOp::create(b, loc, i64, 1));
      }
      replace(b, check, inRange);
    }
    func->setAttr("nnc.checks", ArrayAttr::get(context, whats));
  }

  /// lower <= index < upper.
  static Value inRangeOf(OpBuilder &b, nnc::CheckIndexOp check) {
    Location loc = check.getLoc();
    Value atLeast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                          check.getIndex(), check.getLower());
    Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        check.getIndex(), check.getUpper());
    return arith::AndIOp::create(b, loc, atLeast, below);
  }

  /// Replaces the check by the index when in range, else 0.
  static void replace(OpBuilder &b, nnc::CheckIndexOp check, Value inRange) {
    Location loc = check.getLoc();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value safe =
        arith::SelectOp::create(b, loc, inRange, check.getIndex(), zero);
    check.getResult().replaceAllUsesWith(safe);
    check.getInRange().replaceAllUsesWith(inRange);
    check.erase();
  }
};

} // namespace
