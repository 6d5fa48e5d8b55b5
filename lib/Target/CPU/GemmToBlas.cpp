//===- GemmToBlas.cpp - linalg matmuls on buffers to CBLAS calls ----------===//
//
// Implements --nnc-gemm-to-blas: after bufferization, f32/f64 matrix
// multiplies with static shapes and row-major operands become calls to
// cblas_sgemm/cblas_dgemm (one per batch for batch_matmul), as the CUDA
// backend calls cuBLAS. Small ones stay loops: the call costs more.
//
//===----------------------------------------------------------------------===//

#include "nnc/Target/CPU/Passes.h"

#include "nnc/Analysis/BufferAliasing.h"
#include "nnc/NNCDialect.h"
#include "nnc/runtime/LibraryConvolution.h"

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

namespace nnc::cpu {
#define GEN_PASS_DEF_GEMMTOBLASPASS
#include "nnc/Target/CPU/Passes.h.inc"
} // namespace nnc::cpu

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
/// matrix with leading dimension `ld`; `batchStride` steps between matrices,
/// or, when `batchDims` is not empty, batch index i is the mixed-radix
/// number of its (size, stride) digits, the first the slowest (the heads
/// of an attention operand read where a transpose would have put them).
struct MatrixOperand {
  Value memref;
  int64_t rows = 0, cols = 0;
  int64_t ld = 0;
  int64_t batchStride = 0;
  SmallVector<std::pair<int64_t, int64_t>> batchDims;
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

/// Static strides of `type`, or nothing.
std::optional<SmallVector<int64_t>> staticStrides(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type.hasStaticShape() ||
      failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  return strides;
}

/// The matrices [X, Y] of a rank-r array whose dimension k lies at
/// `strides[k]` in memory, the leading r - 2 dimensions the batch digits:
/// row-major when Y is contiguous, else the transpose when X is.
std::optional<MatrixOperand> permutedMatrices(Value memref,
                                              ArrayRef<int64_t> sizes,
                                              ArrayRef<int64_t> strides) {
  size_t r = sizes.size();
  MatrixOperand m;
  m.memref = memref;
  m.rows = sizes[r - 2];
  m.cols = sizes[r - 1];
  int64_t rowStride = strides[r - 2], colStride = strides[r - 1];
  if (m.cols == 1 || colStride == 1) {
    m.ld = m.rows > 1 ? rowStride : std::max<int64_t>(1, m.cols);
    if (m.ld < std::max<int64_t>(1, m.cols))
      return std::nullopt;
  } else if (m.rows == 1 || rowStride == 1) {
    m.transposed = true;
    m.ld = colStride;
    if (m.ld < std::max<int64_t>(1, m.rows))
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (!fitsInt32(m.ld) || !fitsInt32(m.rows) || !fitsInt32(m.cols))
    return std::nullopt;
  for (size_t k = 0; k + 2 < r; ++k) {
    if (strides[k] < 0)
      return std::nullopt;
    m.batchDims.push_back({sizes[k], strides[k]});
  }
  return m;
}

/// A temporary `alloc` [d0, ..., X, Y] that a memref.reshape views as the
/// batch [d0 * ... , X, Y] `view`; the sizes when it is.
bool mergesLeadingDims(memref::AllocOp alloc, Value view) {
  auto type = alloc.getType();
  auto viewType = cast<MemRefType>(view.getType());
  int64_t r = type.getRank();
  return r >= 3 && viewType.getRank() == 3 && type.hasStaticShape() &&
         viewType.hasStaticShape() &&
         viewType.getDimSize(1) == type.getDimSize(r - 2) &&
         viewType.getDimSize(2) == type.getDimSize(r - 1) &&
         viewType.getNumElements() == type.getNumElements();
}

/// When `operand` of the batched GEMM `op` is a reshape merging the
/// leading dimensions of a temporary that only a `linalg.transpose` writes
/// (attention's heads split from [B, T, H, D] to [B, H, T, D]), the
/// transpose's source read where it lies: matrix rows and columns and the
/// batch digits with the source's strides. Returns the transpose too.
std::optional<std::pair<MatrixOperand, linalg::TransposeOp>>
permutedInput(Operation *op, Value operand) {
  auto reshape = operand.getDefiningOp<memref::ReshapeOp>();
  if (!reshape || !reshape->hasOneUse())
    return std::nullopt;
  auto alloc = reshape.getSource().getDefiningOp<memref::AllocOp>();
  if (!alloc || !mergesLeadingDims(alloc, operand))
    return std::nullopt;
  linalg::TransposeOp transpose;
  for (Operation *user : alloc->getUsers()) {
    if (user == reshape || isa<memref::DeallocOp>(user))
      continue;
    auto t = dyn_cast<linalg::TransposeOp>(user);
    if (!t || transpose || t.getInit() != alloc.getResult() ||
        t->getBlock() != op->getBlock() || !t->isBeforeInBlock(op))
      return std::nullopt;
    transpose = t;
  }
  if (!transpose ||
      touchedBetween(transpose, op, rootBuffer(transpose.getInput())))
    return std::nullopt;
  auto sourceStrides =
      staticStrides(cast<MemRefType>(transpose.getInput().getType()));
  if (!sourceStrides)
    return std::nullopt;
  // Dimension k of the temporary is dimension perm[k] of the source.
  SmallVector<int64_t> strides;
  for (int64_t p : transpose.getPermutation())
    strides.push_back((*sourceStrides)[p]);
  std::optional<MatrixOperand> m = permutedMatrices(
      transpose.getInput(), alloc.getType().getShape(), strides);
  if (!m)
    return std::nullopt;
  return std::make_pair(*m, transpose);
}

/// When C of the batched GEMM `op` is a temporary that, after `op`, only a
/// reshape to [d0, ..., X, Y] read by a `linalg.transpose` uses (besides
/// `zeroFill`): C written where the transpose would put it (attention's
/// heads merged back), row-major rows only. Returns the transpose too.
std::optional<std::pair<MatrixOperand, linalg::TransposeOp>>
permutedOutput(Operation *op, Value c, linalg::FillOp zeroFill) {
  auto alloc = c.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return std::nullopt;
  memref::ReshapeOp reshape;
  for (Operation *user : alloc->getUsers()) {
    if (user == op || user == zeroFill.getOperation() ||
        isa<memref::DeallocOp>(user))
      continue;
    auto r = dyn_cast<memref::ReshapeOp>(user);
    if (!r || reshape)
      return std::nullopt;
    reshape = r;
  }
  if (!reshape || !reshape->hasOneUse())
    return std::nullopt;
  auto transpose = dyn_cast<linalg::TransposeOp>(*reshape->user_begin());
  auto reshapedType = cast<MemRefType>(reshape.getType());
  int64_t r = reshapedType.getRank();
  if (!transpose || transpose.getInput() != reshape.getResult() ||
      transpose->getBlock() != op->getBlock() ||
      !op->isBeforeInBlock(transpose) || r < 3 ||
      !reshapedType.hasStaticShape() ||
      reshapedType.getDimSize(r - 2) != alloc.getType().getDimSize(1) ||
      reshapedType.getDimSize(r - 1) != alloc.getType().getDimSize(2))
    return std::nullopt;
  Value target = transpose.getInit();
  // The target must exist at `op`: an allocation made later moves up.
  if (Operation *def = target.getDefiningOp();
      def && def->getBlock() == op->getBlock() && !def->isBeforeInBlock(op)) {
    auto alloc = dyn_cast<memref::AllocOp>(def);
    if (!alloc || alloc->getNumOperands() != 0)
      return std::nullopt;
    alloc->moveBefore(op);
  }
  auto targetStrides = staticStrides(cast<MemRefType>(target.getType()));
  if (!targetStrides || touchedBetween(op, transpose, rootBuffer(target)) ||
      touchedBetween(op, transpose, alloc.getResult()))
    return std::nullopt;
  // Target dimension k is dimension perm[k] of the reshaped C.
  SmallVector<int64_t> strides(r, 0);
  for (auto [k, p] : llvm::enumerate(transpose.getPermutation()))
    strides[p] = (*targetStrides)[k];
  std::optional<MatrixOperand> m =
      permutedMatrices(target, reshapedType.getShape(), strides);
  if (!m || m->transposed)
    return std::nullopt;
  return std::make_pair(*m, transpose);
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

  /// `base` advanced to matrix `batch`, as an !llvm.ptr.
  Value pointer(Value base, Value batch, const MatrixOperand &m) {
    Value address = base;
    int64_t elementBytes =
        cast<MemRefType>(m.memref.getType()).getElementTypeBitWidth() / 8;
    if (batch && !m.batchDims.empty()) {
      // Digit k of the batch index: (batch / (product of the sizes after
      // k)) mod size k.
      int64_t below = 1;
      for (size_t k = m.batchDims.size(); k-- > 0;) {
        auto [size, stride] = m.batchDims[k];
        Value digit = batch;
        if (below != 1)
          digit = arith::DivUIOp::create(b, loc, digit, index(below));
        if (k != 0) // the slowest digit needs no modulo
          digit = arith::RemUIOp::create(b, loc, digit, index(size));
        below *= size;
        if (stride == 0)
          continue;
        Value step =
            arith::MulIOp::create(b, loc, digit, index(stride * elementBytes));
        address = arith::AddIOp::create(b, loc, address, step);
      }
    } else if (batch && m.batchStride != 0) {
      int64_t bytes = m.batchStride * elementBytes;
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
    int64_t elementBytes =
        cast<MemRefType>(a.memref.getType()).getElementTypeBitWidth() / 8;
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

struct GemmToBlasPass
    : public nnc::cpu::impl::GemmToBlasPassBase<GemmToBlasPass> {
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
    SmallVector<linalg::TransposeOp> permuted;
    auto operand = [&](Value value,
                       bool transposedMap) -> std::optional<MatrixOperand> {
      std::optional<MatrixOperand> plain = describe(value, rank);
      if (batched) {
        // A permuted temporary read where its source lies (not when both
        // operands are one temporary, or it is C's buffer).
        if (auto found = permutedInput(op, value);
            found &&
            op.getDpsInputOperand(0)->get() !=
                op.getDpsInputOperand(1)->get() &&
            rootBuffer(found->first.memref) !=
                rootBuffer(op.getDpsInitOperand(0)->get())) {
          plain = found->first;
          permuted.push_back(found->second);
        }
      }
      if (transposedMap) {
        // The GEMM reads the operand transposed.
        if (plain) {
          std::swap(plain->rows, plain->cols);
          plain->transposed = !plain->transposed;
        }
        return plain;
      }
      if (plain && !plain->batchDims.empty())
        return plain;
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
    // f32 and f64 call CBLAS; bf16 operands into an f32 C the oneDNN
    // glue's bf16 GEMM, where it has one.
    Type operandType = getElementTypeOrSelf(a->memref.getType());
    Type elementType = getElementTypeOrSelf(c->memref.getType());
    if (getElementTypeOrSelf(bm->memref.getType()) != operandType)
      return;
    bool bf16 = operandType.isBF16() && elementType.isF32();
    if (bf16 ? !bf16Gemm
             : operandType != elementType ||
                   !(elementType.isF32() || elementType.isF64()))
      return;
    // The op's kernel choice, else the pass's: small products stay loops.
    auto choice = op->getAttrOfType<StringAttr>(
        nnc::NNCDialect::getKernelChoiceAttrName());
    StringRef library = choice ? choice.getValue() : StringRef(f32Library);
    if (library == "loops")
      return;
    double flops = static_cast<double>(a->rows) * bm->cols * a->cols;
    if (!choice && flops < static_cast<double>(minFlops))
      return;
    // oneDNN's call costs a few microseconds more than BLAS's.
    if (!choice && library == "dnnl" &&
        flops < static_cast<double>(dnnlMinFlops))
      library = "blas";

    linalg::FillOp zeroFill = zeroFillOf(op, c->memref);
    // C zero-filled for this GEMM alone and then only transposed: written
    // where the transpose puts it.
    linalg::TransposeOp outputTranspose;
    if (batched && zeroFill) {
      if (auto found = permutedOutput(op, c->memref, zeroFill);
          found && rootBuffer(found->first.memref) != rootBuffer(a->memref) &&
          rootBuffer(found->first.memref) != rootBuffer(bm->memref)) {
        c = found->first;
        outputTranspose = found->second;
      }
    }
    StringRef name = bf16 ? nnc::runtime::libconv::kSbgemmSymbol
                     : elementType.isF64() ? "cblas_dgemm"
                     : library == "dnnl"   ? nnc::runtime::libconv::kSgemmSymbol
                                           : "cblas_sgemm";
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
      int64_t batches =
          cast<MemRefType>(op.getDpsInitOperand(0)->get().getType())
              .getDimSize(0);
      auto loop = scf::ForOp::create(builder, loc, r.index(0), r.index(batches),
                                     r.index(1));
      builder.setInsertionPoint(loop.getBody()->getTerminator());
      Value i = loop.getInductionVar();
      r.call(gemm, *a, *bm, *c, r.pointer(aBase, i, *a),
             r.pointer(bBase, i, *bm), r.pointer(cBase, i, *c), accumulate,
             batches);
    }
    Value oldC = op.getDpsInitOperand(0)->get();
    op->erase();
    if (zeroFill)
      zeroFill->erase();
    // The temporaries of absorbed permutations, with their transposes,
    // reshapes and deallocations.
    auto eraseTemporary = [](Value buffer) {
      auto alloc = buffer.getDefiningOp<memref::AllocOp>();
      SmallVector<Operation *> users(alloc->getUsers());
      for (Operation *user : users) {
        SmallVector<Operation *> inner(user->getUsers());
        for (Operation *u : inner)
          u->erase();
        user->erase();
      }
      alloc->erase();
    };
    if (outputTranspose)
      eraseTemporary(oldC);
    for (linalg::TransposeOp t : permuted)
      eraseTemporary(t.getInit());
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
