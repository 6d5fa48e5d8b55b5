//===- ShapeValues.cpp - integer values of shape computations -------------===//
//
// An element-wise evaluator over the small integer tensors of shape
// computations, memoized per query so that shared subexpressions are
// evaluated once. Semantics follow the ops' folders: integer division
// truncates, casts truncate to the target width, i1 is 0 or 1.
//
//===----------------------------------------------------------------------===//

#include "nnc/ShapeValues.h"

#include "nnc/NNCOps.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace nnc;

SmallVector<int64_t> ShapeValue::values() const {
  SmallVector<int64_t> result;
  result.reserve(elements.size());
  for (const std::optional<int64_t> &e : elements)
    result.push_back(e.value_or(0));
  return result;
}

namespace {

using Elements = SmallVector<std::optional<int64_t>>;

/// Row-major strides of a static shape.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Wraps `v` to an integer type's width (i1: 0 or 1), as the folders do.
int64_t wrapTo(Type elementType, int64_t v) {
  unsigned width = cast<IntegerType>(elementType).getWidth();
  if (width == 1)
    return v != 0;
  if (width >= 64)
    return v;
  return APInt(64, v, /*isSigned=*/true).trunc(width).getSExtValue();
}

/// The index into a broadcast operand of shape `from` for result index `n`
/// of shape `to` (numpy rules; `from` is broadcastable to `to`).
int64_t broadcastIndex(int64_t n, ArrayRef<int64_t> to,
                       ArrayRef<int64_t> toStrides, ArrayRef<int64_t> from,
                       ArrayRef<int64_t> fromStrides) {
  int64_t offset = to.size() - from.size(), index = 0;
  for (size_t d = 0; d < to.size(); ++d) {
    int64_t coord = (n / toStrides[d]) % to[d];
    if (static_cast<int64_t>(d) >= offset && from[d - offset] != 1)
      index += coord * fromStrides[d - offset];
  }
  return index;
}

class Evaluator {
public:
  std::optional<ShapeValue> evaluate(Value value, unsigned depth = 0);

private:
  std::optional<ShapeValue> compute(Value value, RankedTensorType type,
                                    unsigned depth);
  /// Elementwise over broadcast operands; `fn` returns nullopt when the
  /// element is undefined (division by zero), which makes it unknown.
  std::optional<ShapeValue>
  elementwise(RankedTensorType type, ArrayRef<Value> operands, unsigned depth,
              llvm::function_ref<std::optional<int64_t>(ArrayRef<int64_t>)> fn);

  llvm::DenseMap<Value, std::optional<ShapeValue>> cache;
};

/// Deep enough for the shape computations models do; bounds the recursion
/// on adversarial IR.
constexpr unsigned kMaxDepth = 256;

std::optional<ShapeValue> Evaluator::evaluate(Value value, unsigned depth) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() ||
      !isa<IntegerType>(type.getElementType()) ||
      type.getNumElements() > kMaxShapeInputElements || depth > kMaxDepth)
    return std::nullopt;
  auto it = cache.find(value);
  if (it != cache.end())
    return it->second;
  std::optional<ShapeValue> result = compute(value, type, depth);
  if (result &&
      static_cast<int64_t>(result->elements.size()) != type.getNumElements())
    result.reset();
  cache[value] = result;
  return result;
}

std::optional<ShapeValue> Evaluator::elementwise(
    RankedTensorType type, ArrayRef<Value> operands, unsigned depth,
    llvm::function_ref<std::optional<int64_t>(ArrayRef<int64_t>)> fn) {
  SmallVector<ShapeValue> inputs;
  for (Value operand : operands) {
    std::optional<ShapeValue> v = evaluate(operand, depth + 1);
    if (!v)
      return std::nullopt;
    inputs.push_back(std::move(*v));
  }
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> strides = stridesOf(shape);
  SmallVector<SmallVector<int64_t>> inputStrides;
  for (const ShapeValue &in : inputs) {
    if (in.shape.size() > shape.size())
      return std::nullopt;
    inputStrides.push_back(stridesOf(in.shape));
  }
  ShapeValue result{SmallVector<int64_t>(shape), {}};
  int64_t count = product(shape);
  result.elements.reserve(count);
  SmallVector<int64_t> args(inputs.size());
  for (int64_t n = 0; n < count; ++n) {
    bool known = true;
    for (auto [k, in] : llvm::enumerate(inputs)) {
      const std::optional<int64_t> &e = in.elements[broadcastIndex(
          n, shape, strides, in.shape, inputStrides[k])];
      known &= e.has_value();
      args[k] = e.value_or(0);
    }
    std::optional<int64_t> v = known ? fn(args) : std::nullopt;
    result.elements.push_back(
        v ? std::optional<int64_t>(wrapTo(type.getElementType(), *v))
          : std::nullopt);
  }
  return result;
}

/// a op b without signed overflow; nullopt on overflow.
std::optional<int64_t> checked(int64_t a, int64_t b, char op) {
  int64_t r;
  bool overflow = false;
  switch (op) {
  case '+':
    overflow = llvm::AddOverflow(a, b, r);
    break;
  case '-':
    overflow = llvm::SubOverflow(a, b, r);
    break;
  case '*':
    overflow = llvm::MulOverflow(a, b, r);
    break;
  case '/':
    if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1))
      return std::nullopt;
    r = a / b;
    break;
  }
  if (overflow)
    return std::nullopt;
  return r;
}

/// The ops besides constants and shape_of that compute() evaluates (keep
/// the two together): integer computations on shape values.
static bool isEvaluatedComputation(Operation *op) {
  return isa<GatherOp, ConcatOp, SliceOp, SqueezeOp, UnsqueezeOp, ReshapeOp,
             FlattenOp, ExpandOp, CastOp, AddOp, SubOp, MulOp, DivOp, MaxOp,
             MinOp, NegOp, AbsOp, CmpOp, WhereOp, ReduceOp>(op);
}

std::optional<ShapeValue> Evaluator::compute(Value value, RankedTensorType type,
                                             unsigned depth) {
  ArrayRef<int64_t> shape = type.getShape();
  ShapeValue result{SmallVector<int64_t>(shape), {}};
  DenseElementsAttr constant;
  if (matchPattern(value, m_Constant(&constant))) {
    bool isBool = type.getElementType().isInteger(1);
    for (const APInt &v : constant.getValues<APInt>())
      result.elements.push_back(isBool ? v.getZExtValue() : v.getSExtValue());
    return result;
  }
  Operation *op = value.getDefiningOp();
  if (!op)
    return std::nullopt;
  auto sameElements = [&](Value input) -> std::optional<ShapeValue> {
    std::optional<ShapeValue> in = evaluate(input, depth + 1);
    if (!in)
      return std::nullopt;
    in->shape.assign(shape.begin(), shape.end());
    return in;
  };
  auto arithmetic = [&](char opcode) {
    return elementwise(
        type, {op->getOperand(0), op->getOperand(1)}, depth,
        [&](ArrayRef<int64_t> a) { return checked(a[0], a[1], opcode); });
  };
  return llvm::TypeSwitch<Operation *, std::optional<ShapeValue>>(op)
      .Case([&](ShapeOfOp shapeOf) -> std::optional<ShapeValue> {
        ArrayRef<int64_t> dims = shapeOf.getInput().getType().getShape();
        for (int64_t d = shapeOf.getStartDim(); d < shapeOf.getEndDim(); ++d)
          result.elements.push_back(isDynamicDim(dims[d])
                                        ? std::nullopt
                                        : std::optional<int64_t>(dims[d]));
        return result;
      })
      .Case([&](ConcatOp concat) -> std::optional<ShapeValue> {
        int64_t axis = concat.getAxis();
        if (axis < 0)
          axis += shape.size();
        if (axis < 0 || axis >= static_cast<int64_t>(shape.size()))
          return std::nullopt;
        SmallVector<ShapeValue> inputs;
        for (Value input : concat.getInputs()) {
          std::optional<ShapeValue> v = evaluate(input, depth + 1);
          if (!v)
            return std::nullopt;
          inputs.push_back(std::move(*v));
        }
        int64_t outer = product(shape.take_front(axis));
        for (int64_t o = 0; o < outer; ++o)
          for (const ShapeValue &in : inputs) {
            int64_t block =
                product(ArrayRef<int64_t>(in.shape).drop_front(axis));
            llvm::append_range(result.elements,
                               ArrayRef(in.elements).slice(o * block, block));
          }
        return result;
      })
      .Case([&](GatherOp gather) -> std::optional<ShapeValue> {
        std::optional<ShapeValue> data = evaluate(gather.getData(), depth + 1);
        std::optional<ShapeValue> indices =
            evaluate(gather.getIndices(), depth + 1);
        if (!data || !indices || !indices->isKnown())
          return std::nullopt;
        int64_t rank = data->shape.size();
        std::optional<int64_t> axis = normalizeAxis(gather.getAxis(), rank);
        if (!axis)
          return std::nullopt;
        int64_t axisSize = data->shape[*axis];
        int64_t inner = product(ArrayRef(data->shape).drop_front(*axis + 1));
        int64_t outer = product(ArrayRef(data->shape).take_front(*axis));
        SmallVector<int64_t> index;
        for (int64_t i : indices->values()) {
          if (i < -axisSize || i >= axisSize)
            return std::nullopt; // The verifier or the run-time check says.
          index.push_back(i < 0 ? i + axisSize : i);
        }
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i : index)
            for (int64_t k = 0; k < inner; ++k)
              result.elements.push_back(
                  data->elements[(o * axisSize + i) * inner + k]);
        return result;
      })
      .Case([&](SliceOp slice) -> std::optional<ShapeValue> {
        std::optional<ShapeValue> in = evaluate(slice.getInput(), depth + 1);
        if (!in)
          return std::nullopt;
        int64_t rank = in->shape.size();
        SmallVector<int64_t> begin(rank, 0), step(rank, 1);
        FailureOr<SmallVector<SliceBounds>> bounds = resolveSliceBounds(
            std::nullopt, in->shape, slice.getStarts(), slice.getEnds(),
            slice.getAxes(), slice.getSteps());
        if (failed(bounds))
          return std::nullopt;
        SmallVector<int64_t> size(in->shape);
        for (const SliceBounds &b : *bounds) {
          begin[b.axis] = b.start;
          step[b.axis] = b.step;
          size[b.axis] = b.count;
        }
        if (ArrayRef<int64_t>(size) != shape)
          return std::nullopt;
        SmallVector<int64_t> strides = stridesOf(in->shape);
        SmallVector<int64_t> index(rank, 0);
        for (int64_t n = 0, e = product(size); n < e; ++n) {
          int64_t pos = 0;
          for (int64_t d = 0; d < rank; ++d)
            pos += (begin[d] + index[d] * step[d]) * strides[d];
          result.elements.push_back(in->elements[pos]);
          for (int64_t d = rank - 1; d >= 0; --d) {
            if (++index[d] < size[d])
              break;
            index[d] = 0;
          }
        }
        return result;
      })
      .Case<SqueezeOp, UnsqueezeOp, ReshapeOp, FlattenOp>(
          [&](Operation *reshape) {
            return sameElements(reshape->getOperand(0));
          })
      .Case([&](ExpandOp expand) {
        return elementwise(type, {expand.getInput()}, depth,
                           [](ArrayRef<int64_t> a) { return a[0]; });
      })
      .Case([&](CastOp cast) -> std::optional<ShapeValue> {
        // Integer to integer only; wrapTo truncates.
        return elementwise(type, {cast.getInput()}, depth,
                           [](ArrayRef<int64_t> a) { return a[0]; });
      })
      .Case([&](AddOp) { return arithmetic('+'); })
      .Case([&](SubOp) { return arithmetic('-'); })
      .Case([&](MulOp) { return arithmetic('*'); })
      .Case([&](DivOp) { return arithmetic('/'); })
      .Case([&](MaxOp max) {
        return elementwise(
            type, {max.getLhs(), max.getRhs()}, depth,
            [](ArrayRef<int64_t> a) { return std::max(a[0], a[1]); });
      })
      .Case([&](MinOp min) {
        return elementwise(
            type, {min.getLhs(), min.getRhs()}, depth,
            [](ArrayRef<int64_t> a) { return std::min(a[0], a[1]); });
      })
      .Case([&](NegOp neg) {
        return elementwise(
            type, {neg.getInput()}, depth,
            [](ArrayRef<int64_t> a) { return checked(0, a[0], '-'); });
      })
      .Case([&](AbsOp abs) {
        return elementwise(type, {abs.getInput()}, depth,
                           [](ArrayRef<int64_t> a) -> std::optional<int64_t> {
                             if (a[0] >= 0)
                               return a[0];
                             return checked(0, a[0], '-');
                           });
      })
      .Case([&](CmpOp cmp) -> std::optional<ShapeValue> {
        CmpPredicate predicate = cmp.getPredicate();
        return elementwise(type, {cmp.getLhs(), cmp.getRhs()}, depth,
                           [predicate](ArrayRef<int64_t> a) {
                             int64_t l = a[0], r = a[1];
                             switch (predicate) {
                             case CmpPredicate::eq:
                               return l == r;
                             case CmpPredicate::ne:
                               return l != r;
                             case CmpPredicate::lt:
                               return l < r;
                             case CmpPredicate::le:
                               return l <= r;
                             case CmpPredicate::gt:
                               return l > r;
                             case CmpPredicate::ge:
                               return l >= r;
                             }
                             return false;
                           });
      })
      .Case([&](WhereOp where) {
        return elementwise(
            type,
            {where.getCondition(), where.getTrueValue(), where.getFalseValue()},
            depth, [](ArrayRef<int64_t> a) { return a[0] ? a[1] : a[2]; });
      })
      .Case([&](ReduceOp reduce) -> std::optional<ShapeValue> {
        ReduceKind kind = reduce.getKind();
        if (kind != ReduceKind::sum && kind != ReduceKind::prod &&
            kind != ReduceKind::max && kind != ReduceKind::min)
          return std::nullopt;
        std::optional<ShapeValue> in = evaluate(reduce.getInput(), depth + 1);
        if (!in)
          return std::nullopt;
        int64_t rank = in->shape.size();
        SmallVector<bool> reduced(rank, false);
        ArrayRef<int64_t> axes = reduce.getAxes();
        if (axes.empty() && reduce.getNoopWithEmptyAxes())
          return sameElements(reduce.getInput());
        for (int64_t d = 0; d < rank; ++d)
          reduced[d] = axes.empty();
        for (int64_t a : axes) {
          std::optional<int64_t> axis = normalizeAxis(a, rank);
          if (!axis)
            return std::nullopt;
          reduced[*axis] = true;
        }
        SmallVector<int64_t> outShape;
        for (int64_t d = 0; d < rank; ++d)
          outShape.push_back(reduced[d] ? 1 : in->shape[d]);
        int64_t outCount = product(outShape);
        SmallVector<int64_t> inStrides = stridesOf(in->shape);
        SmallVector<int64_t> outStrides = stridesOf(outShape);
        SmallVector<std::optional<int64_t>> acc(outCount);
        SmallVector<bool> known(outCount, true), seen(outCount, false);
        for (int64_t n = 0, e = product(in->shape); n < e; ++n) {
          int64_t o = 0;
          for (int64_t d = 0; d < rank; ++d)
            if (!reduced[d])
              o += ((n / inStrides[d]) % in->shape[d]) * outStrides[d];
          const std::optional<int64_t> &v = in->elements[n];
          if (!v || !known[o]) {
            known[o] = false;
            continue;
          }
          if (!seen[o]) {
            acc[o] = *v;
            seen[o] = true;
            continue;
          }
          switch (kind) {
          case ReduceKind::sum:
            acc[o] = checked(*acc[o], *v, '+');
            break;
          case ReduceKind::prod:
            acc[o] = checked(*acc[o], *v, '*');
            break;
          case ReduceKind::max:
            acc[o] = std::max(*acc[o], *v);
            break;
          default:
            acc[o] = std::min(*acc[o], *v);
            break;
          }
          known[o] = acc[o].has_value();
        }
        for (int64_t o = 0; o < outCount; ++o) {
          if (!seen[o] && known[o])
            acc[o] = kind == ReduceKind::prod ? 1 : 0; // Empty reduction.
          if (!known[o] || (!seen[o] && (kind == ReduceKind::max ||
                                         kind == ReduceKind::min)))
            acc[o] = std::nullopt;
          result.elements.push_back(acc[o]
                                        ? std::optional<int64_t>(wrapTo(
                                              type.getElementType(), *acc[o]))
                                        : std::nullopt);
        }
        return result;
      })
      .Default([](Operation *) { return std::nullopt; });
}

} // namespace

std::optional<ShapeValue> nnc::getShapeValue(Value value) {
  Evaluator evaluator;
  return evaluator.evaluate(value);
}

std::optional<SmallVector<int64_t>> nnc::getKnownInts(Value value) {
  std::optional<ShapeValue> v = getShapeValue(value);
  if (!v || !v->isKnown())
    return std::nullopt;
  return v->values();
}

DenseElementsAttr nnc::getIntsAttr(RankedTensorType type,
                                   ArrayRef<int64_t> values) {
  unsigned width = type.getElementTypeBitWidth();
  SmallVector<APInt> bits;
  bits.reserve(values.size());
  for (int64_t v : values)
    bits.push_back(width == 1 ? APInt(1, v != 0)
                              : APInt(width, v, /*isSigned=*/true,
                                      /*implicitTrunc=*/true));
  return DenseElementsAttr::get(type, bits);
}

Attribute nnc::foldKnownShapeValue(Value result) {
  auto type = dyn_cast<RankedTensorType>(result.getType());
  if (!type || !type.hasStaticShape() ||
      !isa<IntegerType>(type.getElementType()))
    return {};
  std::optional<SmallVector<int64_t>> values = getKnownInts(result);
  if (!values)
    return {};
  return getIntsAttr(type, *values);
}

bool nnc::feedsShapes(Value value) {
  SmallVector<Value> worklist{value};
  llvm::SmallPtrSet<Operation *, 16> visited;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto resolvable = dyn_cast<ResolvableOpInterface>(user)) {
        OperandRange shapes = resolvable.getShapeOperands();
        unsigned first = shapes.getBeginOperandIndex();
        unsigned index = use.getOperandNumber();
        if (index >= first && index < first + shapes.size())
          return true;
        continue; // The data of a dynamic shape op.
      }
      // Integer computations that ShapeValues evaluates carry the values
      // on; other uses (shape_of, which reads the shape, and data) do not.
      if (!isEvaluatedComputation(user) || user->getNumResults() != 1)
        continue;
      auto type = dyn_cast<RankedTensorType>(user->getResult(0).getType());
      if (!type || !type.hasStaticShape() ||
          !isa<IntegerType>(type.getElementType()) ||
          type.getNumElements() > kMaxShapeInputElements)
        continue;
      if (visited.insert(user).second)
        worklist.push_back(user->getResult(0));
    }
  }
  return false;
}

SmallVector<Value> nnc::findUnknownSources(Value value) {
  SmallVector<Value> sources, worklist{value};
  llvm::SmallPtrSet<void *, 16> visited;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!visited.insert(v.getAsOpaquePointer()).second)
      continue;
    if (getKnownInts(v))
      continue;
    Operation *def = v.getDefiningOp();
    if (!def) {
      sources.push_back(v);
      continue;
    }
    // The dimensions shape_of reads are the unknowns themselves.
    if (isa<ShapeOfOp>(def)) {
      sources.push_back(def->getOperand(0));
      continue;
    }
    if (def->getNumOperands() == 0) {
      sources.push_back(v);
      continue;
    }
    for (Value operand : def->getOperands())
      worklist.push_back(operand);
  }
  return sources;
}
