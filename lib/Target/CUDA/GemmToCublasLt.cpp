//===- GemmToCublasLt.cpp - matrix products as cuBLASLt launches ----------===//
//
// Implements --nnc-cuda-gemm-to-cublaslt, the first pass of the CUDA
// target's lowering: in the fused, planned kernels, a linalg.matmul or
// linalg.batch_matmul whose operands are matrices cuBLASLt can read where
// they lie becomes a call to @nnc_cuda_gemm carrying the product's
// description (attribute nnc.cuda_gemm: sizes, types, and for each matrix
// the kernel buffer it is in, its byte offset there, its row stride, batch
// stride and whether the buffer holds its transpose). The emitter turns the
// call into a GEMM launch of the kernel (nnc/runtime/CudaModule.h), which
// the CUDA device runs with cuBLASLt. The call keeps the matrices as
// operands, so the emitter sees which buffers the launch touches.
//
// A zero fill of exactly C right before the product goes, and the GEMM
// writes C (beta 0) instead of adding to it. A product cuBLASLt cannot take
// (integer types, dynamic shapes or offsets, a matrix strided in both
// dimensions, C overlapping an input) stays a loop nest.
//
//===----------------------------------------------------------------------===//

#include "nnc/Target/CUDA/CUDAEmitter.h"

#include "nnc/Analysis/BufferAliasing.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"

#include <limits>

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kGemmFunction = "nnc_cuda_gemm";
constexpr llvm::StringLiteral kEpilogueAttr = "nnc.epilogue";
constexpr int64_t kMaxSize = int64_t(1) << 31;

/// Where a view's layout offset counts from: kernel argument `arg`, plus
/// `bytes`.
struct Base {
  unsigned arg = 0;
  int64_t bytes = 0;
};

/// The static layout offset (elements) and strides of `type`.
std::optional<std::pair<int64_t, SmallVector<int64_t>>>
staticLayout(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  if (!type.hasStaticShape() ||
      failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  return std::make_pair(offset, strides);
}

int64_t elementBytes(MemRefType type) {
  return std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

/// The base of `value` (a view of an argument of `func` at static
/// offsets): a view or reshape starts a new base at its source's first
/// element; the other views keep their source's base, from which their
/// layout offsets count.
std::optional<Base> baseOf(Value value, func::FuncOp func) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (arg.getOwner() != &func.getBody().front())
      return std::nullopt;
    return Base{arg.getArgNumber(), 0};
  }
  Operation *def = value.getDefiningOp();
  if (!def)
    return std::nullopt;
  // The address of the source's first element.
  auto addressOf = [&](Value source) -> std::optional<int64_t> {
    auto type = dyn_cast<MemRefType>(source.getType());
    if (!type)
      return std::nullopt;
    std::optional<Base> base = baseOf(source, func);
    auto layout = staticLayout(type);
    if (!base || !layout)
      return std::nullopt;
    return base->bytes + layout->first * elementBytes(type);
  };
  if (auto view = dyn_cast<memref::ViewOp>(def)) {
    std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
    std::optional<int64_t> source = addressOf(view.getSource());
    std::optional<Base> base = baseOf(view.getSource(), func);
    if (!shift || !source || !base)
      return std::nullopt;
    return Base{base->arg, *source + *shift};
  }
  if (auto reshape = dyn_cast<memref::ReshapeOp>(def)) {
    std::optional<int64_t> source = addressOf(reshape.getSource());
    std::optional<Base> base = baseOf(reshape.getSource(), func);
    if (!source || !base)
      return std::nullopt;
    return Base{base->arg, *source};
  }
  if (isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
          memref::CastOp, memref::ReinterpretCastOp, memref::TransposeOp>(
          def))
    return baseOf(def->getOperand(0), func);
  return std::nullopt;
}

/// A matrix operand located in the kernel's buffers.
struct Matrix {
  nnc::runtime::CudaMatrix m;
  /// Its bytes in its buffer: [begin, end).
  int64_t begin = 0, end = 0;
};

/// Describes operand `value` of a contraction: `map` gives its dimensions
/// as loop dimensions, `rowDim` and `colDim` the loops of the matrix's rows
/// and columns, `batchDim` the batch loop (or -1); `sizes` the loop sizes.
std::optional<Matrix> describe(Value value, AffineMap map, int64_t rowDim,
                               int64_t colDim, int64_t batchDim,
                               ArrayRef<int64_t> sizes, func::FuncOp func) {
  auto type = dyn_cast<MemRefType>(value.getType());
  if (!type)
    return std::nullopt;
  auto layout = staticLayout(type);
  std::optional<Base> base = baseOf(value, func);
  if (!layout || !base || layout->first < 0)
    return std::nullopt;
  // The stride of each loop dimension in this operand (none: absent).
  std::optional<int64_t> rowStride, colStride, batchStride;
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim)
      return std::nullopt;
    int64_t stride = layout->second[i];
    if (stride < 0)
      return std::nullopt;
    if (dim.getPosition() == rowDim && !rowStride)
      rowStride = stride;
    else if (dim.getPosition() == colDim && !colStride)
      colStride = stride;
    else if (dim.getPosition() == batchDim && !batchStride)
      batchStride = stride;
    else
      return std::nullopt;
  }
  if (!rowStride || !colStride)
    return std::nullopt;
  int64_t rows = sizes[rowDim], cols = sizes[colDim];
  Matrix out;
  out.m.buffer = base->arg;
  int64_t bytes = elementBytes(type);
  out.m.offset = base->bytes + layout->first * bytes;
  // A single row or column lets cuBLASLt ignore the stride it never steps.
  int64_t ld;
  if (cols == 1 || *colStride == 1) {
    ld = rows > 1 ? *rowStride : cols;
    if (ld < cols)
      return std::nullopt;
  } else if (rows == 1 || *rowStride == 1) {
    out.m.transposed = true;
    ld = cols > 1 ? *colStride : rows;
    if (ld < rows)
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (ld < 1 || ld > kMaxSize)
    return std::nullopt;
  out.m.ld = ld;
  int64_t batch = batchDim >= 0 ? sizes[batchDim] : 1;
  out.m.batchStride = batch > 1 && batchStride ? *batchStride : 0;
  // The footprint: the first element to the last, over every batch entry.
  int64_t last = (batch - 1) * out.m.batchStride +
                 (out.m.transposed ? (cols - 1) * ld + (rows - 1)
                                   : (rows - 1) * ld + (cols - 1));
  out.begin = out.m.offset;
  out.end = out.m.offset + (last + 1) * bytes;
  return out;
}

std::optional<nnc::runtime::CudaElementType> elementType(Type type) {
  if (type.isF32())
    return nnc::runtime::CudaElementType::F32;
  if (type.isF16())
    return nnc::runtime::CudaElementType::F16;
  if (type.isBF16())
    return nnc::runtime::CudaElementType::BF16;
  return std::nullopt;
}

/// The zero fill of exactly `c` right before `op` (ops between it and `op`
/// have no effects), or null.
linalg::FillOp zeroFillBefore(Operation *op, Value c) {
  Operation *prev = op->getPrevNode();
  while (prev && prev->getNumRegions() == 0 && isMemoryEffectFree(prev))
    prev = prev->getPrevNode();
  auto fill = dyn_cast_or_null<linalg::FillOp>(prev);
  if (!fill || !fill.hasPureBufferSemantics() ||
      fill.getDpsInits()[0] != c ||
      !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
    return nullptr;
  return fill;
}

/// The product `op` as a GEMM launch, or nothing when cuBLASLt cannot take
/// it where its matrices lie.
std::optional<nnc::runtime::CudaGemm> matchGemm(linalg::LinalgOp op,
                                                func::FuncOp func,
                                                SmallVector<Matrix> &matrices) {
  if (!op.hasPureBufferSemantics() || op->getNumOperands() != 3)
    return std::nullopt;
  // The loops: (m, n, k) for matmul, (b, m, n, k) for batch_matmul.
  int64_t batchDim = -1, mDim = 0, nDim = 1, kDim = 2;
  if (isa<linalg::BatchMatmulOp>(op)) {
    batchDim = 0, mDim = 1, nDim = 2, kDim = 3;
  } else if (!isa<linalg::MatmulOp>(op)) {
    return std::nullopt;
  }
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  if (llvm::any_of(sizes, [](int64_t s) {
        return ShapedType::isDynamic(s) || s < 1 || s > kMaxSize;
      }))
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  Value a = op->getOperand(0), b = op->getOperand(1), c = op->getOperand(2);
  std::optional<Matrix> ma =
      describe(a, maps[0], mDim, kDim, batchDim, sizes, func);
  std::optional<Matrix> mb =
      describe(b, maps[1], kDim, nDim, batchDim, sizes, func);
  std::optional<Matrix> mc =
      describe(c, maps[2], mDim, nDim, batchDim, sizes, func);
  if (!ma || !mb || !mc || mc->m.transposed)
    return std::nullopt;
  int64_t batch = batchDim >= 0 ? sizes[batchDim] : 1;
  // Each batch entry writes its own C; C shares no byte with an input.
  if (batch > 1 && mc->m.batchStride == 0)
    return std::nullopt;
  for (const Matrix *input : {&*ma, &*mb})
    if (input->m.buffer == mc->m.buffer && input->begin < mc->end &&
        mc->begin < input->end)
      return std::nullopt;
  Type inType = cast<MemRefType>(a.getType()).getElementType();
  Type outType = cast<MemRefType>(c.getType()).getElementType();
  std::optional<nnc::runtime::CudaElementType> in = elementType(inType);
  std::optional<nnc::runtime::CudaElementType> out = elementType(outType);
  if (!in || !out || cast<MemRefType>(b.getType()).getElementType() != inType ||
      (!outType.isF32() && outType != inType))
    return std::nullopt;
  nnc::runtime::CudaGemm gemm;
  gemm.m = sizes[mDim];
  gemm.n = sizes[nDim];
  gemm.k = sizes[kDim];
  gemm.batch = static_cast<uint32_t>(batch);
  gemm.inputType = *in;
  gemm.outputType = *out;
  gemm.a = ma->m;
  gemm.b = mb->m;
  gemm.c = mc->m;
  matrices = {*ma, *mb, *mc};
  return gemm;
}

/// The epilogue the body of `g` computes from its inputs `product` and
/// `bias`: `product + bias`, or that through ReLU (`maximumf` with zero,
/// as the ONNX importer lowers Relu); nothing for any other body.
std::optional<nnc::runtime::CudaEpilogue>
epilogueOf(linalg::GenericOp g, unsigned product, unsigned bias) {
  Block &body = g.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1)
    return std::nullopt;
  Value v = yield.getOperand(0);
  auto kind = nnc::runtime::CudaEpilogue::Bias;
  if (auto max = v.getDefiningOp<arith::MaximumFOp>()) {
    Value lhs = max.getLhs(), rhs = max.getRhs();
    if (matchPattern(rhs, m_PosZeroFloat()))
      v = lhs;
    else if (matchPattern(lhs, m_PosZeroFloat()))
      v = rhs;
    else
      return std::nullopt;
    kind = nnc::runtime::CudaEpilogue::BiasRelu;
  }
  auto add = v.getDefiningOp<arith::AddFOp>();
  Value p = body.getArgument(product), b = body.getArgument(bias);
  if (!add || !((add.getLhs() == p && add.getRhs() == b) ||
                (add.getLhs() == b && add.getRhs() == p)))
    return std::nullopt;
  // Nothing else: the add (and the max) and the yield.
  if (llvm::range_size(body.getOperations()) !=
      (kind == nnc::runtime::CudaEpilogue::Bias ? 2u : 3u))
    return std::nullopt;
  return kind;
}

/// The operands of a bias epilogue `g`: which input is the product (read
/// where the output is written, identity map) and which the bias (1-D,
/// indexed by the last loop); nothing when `g` is not one.
std::optional<std::pair<unsigned, unsigned>> epilogueOperands(
    linalg::GenericOp g) {
  if (!g.hasPureBufferSemantics() || g.getNumDpsInputs() != 2 ||
      g.getNumDpsInits() != 1 || g.getNumLoops() != g.getNumParallelLoops() ||
      g.getNumLoops() < 1)
    return std::nullopt;
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  unsigned loops = g.getNumLoops();
  auto last = getAffineDimExpr(loops - 1, g.getContext());
  if (!maps[2].isIdentity())
    return std::nullopt;
  for (unsigned product : {0u, 1u}) {
    unsigned bias = 1 - product;
    auto biasType = dyn_cast<MemRefType>(g->getOperand(bias).getType());
    if (maps[product].isIdentity() && maps[bias].getNumResults() == 1 &&
        maps[bias].getResult(0) == last && biasType &&
        biasType.getRank() == 1)
      return std::make_pair(product, bias);
  }
  return std::nullopt;
}

/// --nnc-cuda-gemm-epilogues: on the bufferized functions, before memory
/// planning, a product written into a temporary C that only a bias add
/// (and ReLU) reads, `Y = relu(C + bias)`, is written into Y instead, and
/// the add runs on Y in place, marked `nnc.epilogue` so that it stays in
/// the product's kernel (--nnc-outline-kernels), where
/// --nnc-cuda-gemm-to-cublaslt makes it the GEMM's cuBLASLt epilogue. C is
/// gone (one activation less in the arena). Where the GEMM cannot take it
/// after all, the marked add runs as a loop on Y: the same values.
struct GemmEpiloguesPass
    : public PassWrapper<GemmEpiloguesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(GemmEpiloguesPass)
  StringRef getArgument() const final { return "nnc-cuda-gemm-epilogues"; }
  StringRef getDescription() const final {
    return "A bias add (and ReLU) after a matrix product, written in place "
           "of the product's temporary, for the CUDA target's cuBLASLt "
           "epilogues";
  }

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.getBody().hasOneBlock())
        continue;
      SmallVector<linalg::MatmulOp> products(
          func.getBody().front().getOps<linalg::MatmulOp>());
      for (linalg::MatmulOp m : products)
        rewrite(m);
    }
  }

  /// Whether `op` has no effect that could order it against others, or
  /// only allocates.
  static bool inert(Operation *op) {
    return op->getNumRegions() == 0 &&
           (isMemoryEffectFree(op) || isa<memref::AllocOp>(op) ||
            isa<ViewLikeOpInterface>(op));
  }

  static void rewrite(linalg::MatmulOp m) {
    if (!m.hasPureBufferSemantics())
      return;
    Value c = m.getDpsInits()[0];
    auto alloc = c.getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getNumOperands() != 0 ||
        !alloc.getType().getLayout().isIdentity() ||
        alloc->getBlock() != m->getBlock())
      return;
    // C's users: the product, a fill before it, and the add, directly or
    // through one reshape.
    linalg::FillOp fill;
    Operation *view = nullptr;
    linalg::GenericOp add;
    for (Operation *user : alloc->getUsers()) {
      if (user == m.getOperation())
        continue;
      if (auto f = dyn_cast<linalg::FillOp>(user);
          f && !fill && f.hasPureBufferSemantics() &&
          f.getDpsInits()[0] == c && f->isBeforeInBlock(m)) {
        fill = f;
        continue;
      }
      if (isa<memref::ExpandShapeOp, memref::ReshapeOp,
              memref::CollapseShapeOp>(user) &&
          !view && user->getResult(0).hasOneUse()) {
        view = user;
        add = dyn_cast<linalg::GenericOp>(*user->getUsers().begin());
        continue;
      }
      if (auto g = dyn_cast<linalg::GenericOp>(user); g && !add && !view) {
        add = g;
        continue;
      }
      return;
    }
    if (!add || add->getBlock() != m->getBlock() ||
        !m->isBeforeInBlock(add))
      return;
    Value read = view ? view->getResult(0) : c;
    std::optional<std::pair<unsigned, unsigned>> operands =
        epilogueOperands(add);
    if (!operands || add->getOperand(operands->first) != read)
      return;
    std::optional<nnc::runtime::CudaEpilogue> kind =
        epilogueOf(add, operands->first, operands->second);
    Value y = add.getDpsInits()[0], bias = add->getOperand(operands->second);
    auto yType = dyn_cast<MemRefType>(y.getType());
    auto readType = cast<MemRefType>(read.getType());
    if (!kind || !yType || yType.getShape() != readType.getShape() ||
        yType.getElementType() != readType.getElementType() ||
        !yType.getLayout().isIdentity() ||
        cast<MemRefType>(bias.getType()).getElementType() !=
            yType.getElementType())
      return;
    // Nothing between the first write of C and the add may order against
    // them.
    Operation *first = fill ? fill.getOperation() : m.getOperation();
    for (Operation *op = first->getNextNode(); op != add.getOperation();
         op = op->getNextNode())
      if (op != m.getOperation() && op != view && !inert(op))
        return;
    // The product writes Y before the bias is read: neither its inputs nor
    // the bias may share Y's buffer.
    Value yRoot = nnc::buffers::rootBuffer(y);
    for (Value input : {m.getDpsInputs()[0], m.getDpsInputs()[1], bias})
      if (nnc::buffers::rootBuffer(input) == yRoot)
        return;
    // Y and the bias exist before the first write: an allocation made
    // later moves up; anything else defined later refuses.
    for (Value v : {y, bias})
      if (Operation *def = v.getDefiningOp();
          def && def->getBlock() == m->getBlock() &&
          !def->isBeforeInBlock(first)) {
        if (!isa<memref::AllocOp>(def) || def->getNumOperands() != 0)
          return;
        def->moveBefore(first);
      }
    // Y as the product's shape.
    OpBuilder b(first);
    Value target = y;
    if (yType.getShape() != alloc.getType().getShape()) {
      std::optional<SmallVector<ReassociationIndices>> groups =
          getReassociationIndicesForReshape(yType, alloc.getType());
      if (!groups || yType.getRank() <= alloc.getType().getRank())
        return;
      target = memref::CollapseShapeOp::create(b, m.getLoc(), y, *groups);
    }
    if (fill)
      fill.getDpsInitsMutable()[0].set(target);
    m.getDpsInitsMutable()[0].set(target);
    add->setOperand(operands->first, y);
    add->setAttr(kEpilogueAttr,
                 b.getStringAttr(nnc::runtime::cudaEpilogueName(*kind)));
    add->moveAfter(m);
    if (view)
      view->erase();
    alloc->erase();
  }
};

DenseI64ArrayAttr matrixAttr(Builder &b, const nnc::runtime::CudaMatrix &m) {
  return b.getDenseI64ArrayAttr(
      {static_cast<int64_t>(m.buffer), static_cast<int64_t>(m.offset),
       static_cast<int64_t>(m.ld), static_cast<int64_t>(m.batchStride),
       m.transposed ? 1 : 0});
}

struct GemmToCublasLtPass
    : public PassWrapper<GemmToCublasLtPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(GemmToCublasLtPass)
  StringRef getArgument() const final { return "nnc-cuda-gemm-to-cublaslt"; }
  StringRef getDescription() const final {
    return "Matrix products of the CUDA target's kernels as cuBLASLt GEMM "
           "launches";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<func::FuncDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<linalg::LinalgOp, func::FuncOp>> products;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        for (Operation &op : func.getBody().front())
          if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
            products.push_back({cast<linalg::LinalgOp>(op), func});
    for (auto [op, func] : products) {
      SmallVector<Matrix> matrices;
      std::optional<nnc::runtime::CudaGemm> gemm =
          matchGemm(op, func, matrices);
      if (!gemm)
        continue;
      Value c = op->getOperand(2);
      linalg::FillOp fill = zeroFillBefore(op, c);
      gemm->accumulate = !fill;
      if (fill)
        fill.erase();
      if (linalg::GenericOp add = epilogueAfter(op, func, *gemm, c)) {
        // Written by the GEMM now.
        add.erase();
      }
      OpBuilder b(op);
      // The marker takes its matrices as unranked buffers of their types.
      SmallVector<Value> operands;
      for (Value v : {op->getOperand(0), op->getOperand(1), c}) {
        auto type = cast<MemRefType>(v.getType());
        operands.push_back(memref::CastOp::create(
            b, op.getLoc(),
            UnrankedMemRefType::get(type.getElementType(),
                                    type.getMemorySpace()),
            v));
      }
      func::FuncOp callee = declare(module, ValueRange(operands).getTypes());
      auto call = func::CallOp::create(b, op.getLoc(), callee, operands);
      call->setAttr(nnc::cuda::kGemmAttrName, gemmAttr(b, *gemm));
      op->erase();
    }
  }

  /// The marker function for matrices of `types`, declared once: never
  /// called as such, the emitter reads the call's attribute.
  static func::FuncOp declare(ModuleOp module, TypeRange types) {
    std::string name = kGemmFunction.str();
    for (Type t : {types[0], types[2]}) {
      name += "_";
      llvm::raw_string_ostream os(name);
      cast<UnrankedMemRefType>(t).getElementType().print(os);
    }
    if (auto existing = module.lookupSymbol<func::FuncOp>(name))
      return existing;
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto func = func::FuncOp::create(b, module.getLoc(), name,
                                     b.getFunctionType(types, {}));
    func.setPrivate();
    return func;
  }

  /// The marked bias add right after `op` (--nnc-cuda-gemm-epilogues),
  /// when it adds a contiguous bias of n elements to exactly the bytes of
  /// C, in place: recorded in `gemm` and returned (the caller erases it).
  static linalg::GenericOp epilogueAfter(Operation *op, func::FuncOp func,
                                         nnc::runtime::CudaGemm &gemm,
                                         Value c) {
    Operation *next = op->getNextNode();
    while (next && next->getNumRegions() == 0 && isMemoryEffectFree(next))
      next = next->getNextNode();
    auto add = dyn_cast_or_null<linalg::GenericOp>(next);
    if (!add || !add->hasAttr(kEpilogueAttr) || gemm.batch != 1)
      return nullptr;
    std::optional<std::pair<unsigned, unsigned>> operands =
        epilogueOperands(add);
    if (!operands)
      return nullptr;
    std::optional<nnc::runtime::CudaEpilogue> kind =
        epilogueOf(add, operands->first, operands->second);
    Value y = add.getDpsInits()[0];
    Value bias = add->getOperand(operands->second);
    auto yType = cast<MemRefType>(y.getType());
    auto cType = cast<MemRefType>(c.getType());
    auto biasType = cast<MemRefType>(bias.getType());
    auto yLayout = staticLayout(yType), biasLayout = staticLayout(biasType);
    std::optional<Base> yBase = baseOf(y, func), biasBase = baseOf(bias, func);
    if (!kind || add->getOperand(operands->first) != y || !yLayout ||
        !biasLayout || !yBase || !biasBase ||
        yType.getNumElements() != cType.getNumElements() ||
        yType.getElementType() != cType.getElementType() ||
        biasType.getElementType() != cType.getElementType() ||
        biasType.getNumElements() != static_cast<int64_t>(gemm.n) ||
        (gemm.n > 1 && biasLayout->second[0] != 1))
      return nullptr;
    // Y is C's bytes, row-major and contiguous like C.
    int64_t bytes = elementBytes(yType);
    int64_t expected = 1;
    for (int64_t d = yType.getRank() - 1; d >= 0; --d) {
      if (yType.getDimSize(d) != 1 && yLayout->second[d] != expected)
        return nullptr;
      expected *= yType.getDimSize(d);
    }
    if (yBase->arg != gemm.c.buffer ||
        static_cast<uint64_t>(yBase->bytes + yLayout->first * bytes) !=
            gemm.c.offset ||
        gemm.c.ld != gemm.n)
      return nullptr;
    gemm.epilogue = *kind;
    gemm.biasBuffer = biasBase->arg;
    gemm.biasOffset = static_cast<uint64_t>(
        biasBase->bytes + biasLayout->first * elementBytes(biasType));
    return add;
  }

  static DictionaryAttr gemmAttr(Builder &b,
                                 const nnc::runtime::CudaGemm &gemm) {
    auto i64 = [&](uint64_t v) {
      return b.getI64IntegerAttr(static_cast<int64_t>(v));
    };
    SmallVector<NamedAttribute> fields = {
        b.getNamedAttr("m", i64(gemm.m)),
        b.getNamedAttr("n", i64(gemm.n)),
        b.getNamedAttr("k", i64(gemm.k)),
        b.getNamedAttr("batch", i64(gemm.batch)),
        b.getNamedAttr("input_type",
                       b.getStringAttr(cudaElementTypeName(gemm.inputType))),
        b.getNamedAttr("output_type",
                       b.getStringAttr(cudaElementTypeName(gemm.outputType))),
        b.getNamedAttr("accumulate", b.getBoolAttr(gemm.accumulate)),
        b.getNamedAttr("a", matrixAttr(b, gemm.a)),
        b.getNamedAttr("b", matrixAttr(b, gemm.b)),
        b.getNamedAttr("c", matrixAttr(b, gemm.c))};
    if (gemm.epilogue != nnc::runtime::CudaEpilogue::None) {
      fields.push_back(b.getNamedAttr(
          "epilogue", b.getStringAttr(cudaEpilogueName(gemm.epilogue))));
      fields.push_back(b.getNamedAttr(
          "bias", b.getDenseI64ArrayAttr(
                      {static_cast<int64_t>(gemm.biasBuffer),
                       static_cast<int64_t>(gemm.biasOffset)})));
    }
    return b.getDictionaryAttr(fields);
  }
};

} // namespace

std::unique_ptr<Pass> nnc::cuda::createGemmToCublasLtPass() {
  return std::make_unique<GemmToCublasLtPass>();
}

std::unique_ptr<Pass> nnc::cuda::createGemmEpiloguesPass() {
  return std::make_unique<GemmEpiloguesPass>();
}

void nnc::cuda::registerCUDAPasses() {
  PassRegistration<GemmToCublasLtPass>();
  PassRegistration<GemmEpiloguesPass>();
  registerRowGroupsPass();
}

FailureOr<nnc::runtime::CudaGemm>
nnc::cuda::parseGemmAttr(Operation *call) {
  auto dict = call->getAttrOfType<DictionaryAttr>(kGemmAttrName);
  if (!dict)
    return failure();
  nnc::runtime::CudaGemm gemm;
  auto integer = [&](StringRef name, uint64_t &out) {
    auto attr = dict.getAs<IntegerAttr>(name);
    if (!attr || attr.getInt() < 0)
      return false;
    out = static_cast<uint64_t>(attr.getInt());
    return true;
  };
  auto type = [&](StringRef name, nnc::runtime::CudaElementType &out) {
    auto attr = dict.getAs<StringAttr>(name);
    for (auto t : {nnc::runtime::CudaElementType::F32,
                   nnc::runtime::CudaElementType::F16,
                   nnc::runtime::CudaElementType::BF16})
      if (attr && attr.getValue() == cudaElementTypeName(t)) {
        out = t;
        return true;
      }
    return false;
  };
  auto matrix = [&](StringRef name, nnc::runtime::CudaMatrix &out) {
    auto attr = dict.getAs<DenseI64ArrayAttr>(name);
    if (!attr || attr.size() != 5 ||
        llvm::any_of(attr.asArrayRef(), [](int64_t v) { return v < 0; }) ||
        attr[0] > std::numeric_limits<uint32_t>::max() || attr[4] > 1)
      return false;
    out.buffer = static_cast<uint32_t>(attr[0]);
    out.offset = static_cast<uint64_t>(attr[1]);
    out.ld = static_cast<uint64_t>(attr[2]);
    out.batchStride = static_cast<uint64_t>(attr[3]);
    out.transposed = attr[4] == 1;
    return true;
  };
  uint64_t batch = 0;
  auto accumulate = dict.getAs<BoolAttr>("accumulate");
  if (!integer("m", gemm.m) || !integer("n", gemm.n) || !integer("k", gemm.k) ||
      !integer("batch", batch) || batch > std::numeric_limits<uint32_t>::max() ||
      !type("input_type", gemm.inputType) ||
      !type("output_type", gemm.outputType) || !accumulate ||
      !matrix("a", gemm.a) || !matrix("b", gemm.b) || !matrix("c", gemm.c))
    return failure();
  gemm.batch = static_cast<uint32_t>(batch);
  gemm.accumulate = accumulate.getValue();
  if (auto epilogue = dict.getAs<StringAttr>("epilogue")) {
    auto bias = dict.getAs<DenseI64ArrayAttr>("bias");
    if (epilogue.getValue() == "bias")
      gemm.epilogue = nnc::runtime::CudaEpilogue::Bias;
    else if (epilogue.getValue() == "bias_relu")
      gemm.epilogue = nnc::runtime::CudaEpilogue::BiasRelu;
    else
      return failure();
    if (!bias || bias.size() != 2 || bias[0] < 0 || bias[1] < 0 ||
        bias[0] > std::numeric_limits<uint32_t>::max())
      return failure();
    gemm.biasBuffer = static_cast<uint32_t>(bias[0]);
    gemm.biasOffset = static_cast<uint64_t>(bias[1]);
  }
  return gemm;
}
