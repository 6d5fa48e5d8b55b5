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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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
  Value value;
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
  out.value = value;
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
    return b.getDictionaryAttr(fields);
  }
};

} // namespace

std::unique_ptr<Pass> nnc::cuda::createGemmToCublasLtPass() {
  return std::make_unique<GemmToCublasLtPass>();
}

void nnc::cuda::registerCUDAPasses() {
  PassRegistration<GemmToCublasLtPass>();
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
  return gemm;
}
