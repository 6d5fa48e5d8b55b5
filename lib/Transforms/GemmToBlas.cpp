//===- GemmToBlas.cpp - linalg matmuls on buffers to CBLAS calls ----------===//
//
// Implements --nnc-gemm-to-blas: after bufferization, f32/f64 matrix
// multiplies with static shapes and row-major operands become calls to
// cblas_sgemm/cblas_dgemm (one per batch for batch_matmul), as the CUDA
// backend calls cuBLAS. Small ones stay loops: the call costs more.
//
//===----------------------------------------------------------------------===//

#include "nnc/Transforms/Passes.h"

#include "BufferAliasing.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <limits>

namespace nnc {
#define GEN_PASS_DEF_GEMMTOBLASPASS
#include "nnc/Transforms/Passes.h.inc"
} // namespace nnc

using namespace mlir;
using nnc::buffers::derivesFrom;
using nnc::buffers::isInert;
using nnc::buffers::rootBuffer;

namespace {

// CBLAS enumerators (cblas.h): CblasRowMajor, CblasNoTrans.
constexpr int32_t kCblasRowMajor = 101;
constexpr int32_t kCblasNoTrans = 111;
constexpr int32_t kCblasTrans = 112;

/// One operand as BLAS sees it: the last two dimensions form a row-major
/// matrix with leading dimension `ld`; `batchStride` steps between matrices.
struct MatrixOperand {
  Value memref;
  int64_t rows = 0, cols = 0;
  int64_t ld = 0;
  int64_t batchStride = 0;
  /// The buffer holds the transpose of the operand (CblasTrans): `rows` and
  /// `cols` are the operand's, `ld` the buffer's row stride.
  bool transposed = false;
};

bool fitsInt32(int64_t v) {
  return v >= 0 && v <= std::numeric_limits<int32_t>::max();
}

/// Describes `value` (rank 2, or 3 with a leading batch dimension) when its
/// shape and strides are static, its rows are contiguous and its row stride
/// is a valid BLAS leading dimension.
std::optional<MatrixOperand> describe(Value value, int64_t rank) {
  auto type = dyn_cast<MemRefType>(value.getType());
  if (!type || type.getRank() != rank || !type.hasStaticShape())
    return std::nullopt;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  MatrixOperand m;
  m.memref = value;
  m.rows = type.getDimSize(rank - 2);
  m.cols = type.getDimSize(rank - 1);
  // A single row or column lets BLAS ignore the stride it does not step.
  if (m.cols > 1 && strides[rank - 1] != 1)
    return std::nullopt;
  m.ld = m.rows > 1 ? strides[rank - 2] : std::max<int64_t>(1, m.cols);
  if (m.ld < std::max<int64_t>(1, m.cols) || !fitsInt32(m.ld) ||
      !fitsInt32(m.rows) || !fitsInt32(m.cols))
    return std::nullopt;
  m.batchStride = rank == 3 ? strides[0] : 0;
  if (m.batchStride < 0)
    return std::nullopt;
  return m;
}

int64_t elementCount(Value value) {
  auto type = cast<MemRefType>(value.getType());
  return type.hasStaticShape() ? type.getNumElements() : -1;
}

/// Whether `op` may read or write `buffer` (through a view of it or an
/// address into it).
bool touches(Operation *op, Value buffer) {
  if (isInert(op))
    return false;
  bool found = false;
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (!found && derivesFrom(v, buffer))
        found = true;
  });
  return found;
}

/// The last op before `op` that touches `c`'s buffer, when it fills all of
/// it with zeros: that fill can go, with beta = 0.
linalg::FillOp zeroFillOf(Operation *op, Value c) {
  Value root = rootBuffer(c);
  Operation *prev = op->getPrevNode();
  for (int steps = 0; prev && steps < 64 && !touches(prev, root); ++steps)
    prev = prev->getPrevNode();
  auto fill = dyn_cast_or_null<linalg::FillOp>(prev);
  if (!fill || !fill.hasPureBufferSemantics() ||
      !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
    return nullptr;
  Value target = fill.getDpsInits()[0];
  // The fill writes exactly C (a view of a larger buffer, say), or all of
  // C's buffer when that is no larger than C.
  if (target == c)
    return fill;
  if (rootBuffer(target) != root || !isa<MemRefType>(root.getType()) ||
      elementCount(target) < 0 || elementCount(target) != elementCount(c) ||
      elementCount(root) != elementCount(c))
    return nullptr;
  return fill;
}

/// Whether an op strictly between `from` and `to` (same block) may touch
/// `buffer`.
bool touchedBetween(Operation *from, Operation *to, Value buffer) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode())
    if (touches(op, buffer))
      return true;
  return false;
}

/// When `operand` of `op` is a temporary that only a `linalg.transpose` of
/// its last two dimensions writes and only `op` reads, that transpose:
/// BLAS can read its source transposed instead.
linalg::TransposeOp absorbableTranspose(Operation *op, Value operand,
                                        int64_t rank) {
  auto alloc = operand.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return nullptr;
  linalg::TransposeOp transpose;
  for (Operation *user : alloc->getUsers()) {
    if (user == op || isa<memref::DeallocOp>(user))
      continue;
    auto t = dyn_cast<linalg::TransposeOp>(user);
    if (!t || transpose || t.getInit() != operand ||
        t->getBlock() != op->getBlock() || !t->isBeforeInBlock(op))
      return nullptr;
    transpose = t;
  }
  if (!transpose)
    return nullptr;
  SmallVector<int64_t> swapLast;
  for (int64_t d = 0; d < rank - 2; ++d)
    swapLast.push_back(d);
  swapLast.append({rank - 1, rank - 2});
  if (transpose.getPermutation() != ArrayRef<int64_t>(swapLast) ||
      touchedBetween(transpose, op, operand) ||
      touchedBetween(transpose, op, rootBuffer(transpose.getInput())))
    return nullptr;
  return transpose;
}

/// Declares `name` as an external function of `module` once.
func::FuncOp declareGemm(ModuleOp module, StringRef name, Type elementType) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  MLIRContext *ctx = module.getContext();
  Type i32 = IntegerType::get(ctx, 32);
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  // (order, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc)
  SmallVector<Type> args(6, i32);
  args.append({elementType, ptr, i32, ptr, i32, elementType, ptr, i32});
  OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
  auto func = func::FuncOp::create(builder, module.getLoc(), name,
                                   FunctionType::get(ctx, args, {}));
  func.setPrivate();
  return func;
}

class GemmRewriter {
public:
  GemmRewriter(OpBuilder &b, Location loc, Type elementType)
      : b(b), loc(loc), elementType(elementType) {}

  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32).getResult();
  }
  Value index(int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  }
  Value scalar(double v) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(elementType, v))
        .getResult();
  }

  /// The aligned pointer plus the element offset (static or read from the
  /// descriptor), as an index: the address of the first element.
  Value baseAddress(Value memref) {
    auto type = cast<MemRefType>(memref.getType());
    int64_t elementBytes = type.getElementTypeBitWidth() / 8;
    Value aligned =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    auto [strides, offset] = type.getStridesAndOffset();
    Value bytes;
    if (ShapedType::isDynamic(offset)) {
      Value elements =
          memref::ExtractStridedMetadataOp::create(b, loc, memref).getOffset();
      bytes = arith::MulIOp::create(b, loc, elements, index(elementBytes));
    } else if (offset == 0) {
      return aligned;
    } else {
      bytes = index(offset * elementBytes);
    }
    return arith::AddIOp::create(b, loc, aligned, bytes);
  }

  /// `base` advanced by `batch * batchStride` elements, as an !llvm.ptr.
  Value pointer(Value base, Value batch, const MatrixOperand &m) {
    Value address = base;
    if (batch && m.batchStride != 0) {
      int64_t bytes =
          m.batchStride *
          (cast<MemRefType>(m.memref.getType()).getElementTypeBitWidth() / 8);
      Value step = arith::MulIOp::create(b, loc, batch, index(bytes));
      address = arith::AddIOp::create(b, loc, address, step);
    }
    Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
    return LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), i64);
  }

  void call(func::FuncOp gemm, const MatrixOperand &a, const MatrixOperand &bm,
            const MatrixOperand &c, Value aPtr, Value bPtr, Value cPtr,
            bool accumulate, int64_t batches) {
    // One constant per distinct value (sizes and leading dimensions often
    // coincide).
    llvm::SmallDenseMap<int64_t, Value> ints;
    auto constant = [&](int64_t v) {
      Value &slot = ints[v];
      if (!slot)
        slot = i32(v);
      return slot;
    };
    Value one = scalar(1.0);
    Value beta = accumulate ? one : scalar(0.0);
    auto trans = [&](const MatrixOperand &m) {
      return constant(m.transposed ? kCblasTrans : kCblasNoTrans);
    };
    // C = A * B + beta * C: linalg matmuls accumulate into their output,
    // unless it was just filled with zeros.
    SmallVector<Value> args = {constant(kCblasRowMajor),
                               trans(a),
                               trans(bm),
                               constant(a.rows),
                               constant(bm.cols),
                               constant(a.cols),
                               one,
                               aPtr,
                               constant(a.ld),
                               bPtr,
                               constant(bm.ld),
                               beta,
                               cPtr,
                               constant(c.ld)};
    auto op = func::CallOp::create(b, loc, gemm, args);
    int64_t elementBytes = elementType.getIntOrFloatBitWidth() / 8;
    op->setAttr("nnc.gemm", b.getDenseI64ArrayAttr({batches, a.rows, bm.cols,
                                                    a.cols, elementBytes}));
    if (accumulate)
      op->setAttr("nnc.accumulate", b.getUnitAttr());
  }

private:
  OpBuilder &b;
  Location loc;
  Type elementType;
};

struct GemmToBlasPass : public nnc::impl::GemmToBlasPassBase<GemmToBlasPass> {
  using GemmToBlasPassBase::GemmToBlasPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::LinalgOp> candidates;
    module.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()))
        candidates.push_back(op);
    });
    for (linalg::LinalgOp op : candidates)
      rewrite(module, op);
  }

  /// Replaces `op` by CBLAS calls when it qualifies; leaves it otherwise.
  void rewrite(ModuleOp module, linalg::LinalgOp op) {
    bool batched = isa<linalg::BatchMatmulOp>(op.getOperation());
    // Operands read transposed (their last two map results swapped) are
    // CblasTrans; broadcast operands and other maps stay loops.
    SmallVector<AffineMap> defaults =
        batched ? linalg::BatchMatmulOp::getDefaultIndexingMaps(op.getContext())
                : linalg::MatmulOp::getDefaultIndexingMaps(op.getContext());
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    if (maps.size() != 3 || maps[2] != defaults[2])
      return;
    bool readTransposed[2] = {false, false};
    for (unsigned i = 0; i < 2; ++i) {
      if (maps[i] == defaults[i])
        continue;
      SmallVector<AffineExpr> swapped(defaults[i].getResults());
      std::swap(swapped[swapped.size() - 2], swapped.back());
      if (maps[i] !=
          AffineMap::get(defaults[i].getNumDims(), 0, swapped, op.getContext()))
        return;
      readTransposed[i] = true;
    }
    if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
        op.getNumDpsInits() != 1)
      return;
    int64_t rank = batched ? 3 : 2;
    // An operand that is a transpose made for this op alone is read
    // transposed from its source.
    SmallVector<linalg::TransposeOp> absorbed;
    auto operand = [&](Value value,
                       bool transposedMap) -> std::optional<MatrixOperand> {
      std::optional<MatrixOperand> plain = describe(value, rank);
      if (transposedMap) {
        // The buffer holds the operand's transpose.
        if (plain) {
          std::swap(plain->rows, plain->cols);
          plain->transposed = true;
        }
        return plain;
      }
      linalg::TransposeOp t = absorbableTranspose(op, value, rank);
      std::optional<MatrixOperand> source =
          t ? describe(t.getInput(), rank) : std::nullopt;
      // One temporary read as both operands, or the transpose of the
      // output's own buffer (BLAS's B and C must not alias), stays.
      if (!source || llvm::is_contained(absorbed, t) ||
          op.getDpsInputOperand(0)->get() == op.getDpsInputOperand(1)->get() ||
          rootBuffer(t.getInput()) ==
              rootBuffer(op.getDpsInitOperand(0)->get()))
        return plain;
      std::swap(source->rows, source->cols);
      source->transposed = true;
      absorbed.push_back(t);
      return source;
    };
    std::optional<MatrixOperand> a =
        operand(op.getDpsInputOperand(0)->get(), readTransposed[0]);
    std::optional<MatrixOperand> bm =
        operand(op.getDpsInputOperand(1)->get(), readTransposed[1]);
    std::optional<MatrixOperand> c =
        describe(op.getDpsInitOperand(0)->get(), rank);
    if (!a || !bm || !c)
      return;
    Type elementType = getElementTypeOrSelf(a->memref.getType());
    if (getElementTypeOrSelf(bm->memref.getType()) != elementType ||
        getElementTypeOrSelf(c->memref.getType()) != elementType ||
        !(elementType.isF32() || elementType.isF64()))
      return;
    // Shapes agree (the op verified them); small products stay loops.
    if (static_cast<double>(a->rows) * bm->cols * a->cols <
        static_cast<double>(minFlops))
      return;

    linalg::FillOp zeroFill = zeroFillOf(op, c->memref);
    StringRef name = elementType.isF32() ? "cblas_sgemm" : "cblas_dgemm";
    func::FuncOp gemm = declareGemm(module, name, elementType);
    OpBuilder builder(op);
    Location loc = op.getLoc();
    GemmRewriter r(builder, loc, elementType);
    Value aBase = r.baseAddress(a->memref);
    Value bBase = r.baseAddress(bm->memref);
    Value cBase = r.baseAddress(c->memref);
    bool accumulate = !zeroFill;
    if (!batched) {
      r.call(gemm, *a, *bm, *c, r.pointer(aBase, {}, *a),
             r.pointer(bBase, {}, *bm), r.pointer(cBase, {}, *c), accumulate,
             1);
    } else {
      int64_t batches = cast<MemRefType>(c->memref.getType()).getDimSize(0);
      auto loop = scf::ForOp::create(builder, loc, r.index(0), r.index(batches),
                                     r.index(1));
      builder.setInsertionPoint(loop.getBody()->getTerminator());
      Value i = loop.getInductionVar();
      r.call(gemm, *a, *bm, *c, r.pointer(aBase, i, *a),
             r.pointer(bBase, i, *bm), r.pointer(cBase, i, *c), accumulate,
             batches);
    }
    op->erase();
    if (zeroFill)
      zeroFill->erase();
    for (linalg::TransposeOp t : absorbed) {
      auto alloc = t.getInit().getDefiningOp<memref::AllocOp>();
      t->erase();
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        user->erase(); // deallocations
      alloc->erase();
    }
  }
};

} // namespace
