//===- GraphGenerator.cpp - random valid ONNX graphs from a seed ----------===//
//
// Each step picks a value already in the graph (recent ones more often, so
// graphs grow deep as well as wide) and an op that accepts it, and computes
// the result's dtype and shape as ONNX defines them. Each value carries what
// the generator knows of its numbers: a bound on their magnitude, and
// whether they are exact (multiples of 1/16 computed without rounding, so
// that comparisons, Floor or float-to-integer casts of them cannot differ
// between two correct compiles). Ops whose result would be sensitive to
// rounding are only applied to exact values.
//
//===----------------------------------------------------------------------===//

#include "GraphGenerator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>

using namespace nnc::graphfuzz;
using onnx::AttributeProto;
using onnx::TensorProto;

uint64_t Random::next() {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

namespace {

using Shape = std::vector<int64_t>;

enum class DT { F32, F64, I32, I64, Bool };

int32_t onnxType(DT dt) {
  switch (dt) {
  case DT::F32:
    return TensorProto::FLOAT;
  case DT::F64:
    return TensorProto::DOUBLE;
  case DT::I32:
    return TensorProto::INT32;
  case DT::I64:
    return TensorProto::INT64;
  case DT::Bool:
    return TensorProto::BOOL;
  }
  return TensorProto::UNDEFINED;
}

bool isFloat(DT dt) { return dt == DT::F32 || dt == DT::F64; }
bool isInt(DT dt) { return dt == DT::I32 || dt == DT::I64; }

int64_t numel(const Shape &s) {
  return std::accumulate(s.begin(), s.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

struct Value {
  std::string name;
  DT dt;
  Shape shape;
  /// Upper bound of |x| over the value's elements.
  double mag;
  /// Multiples of 1/16 computed without rounding (floats), or any integer.
  bool exact;
};

/// The largest tensor the generator makes, in elements: small enough that
/// a compile and two runs take well under a second in a Release build.
constexpr int64_t kMaxElements = 512;

class Generator {
public:
  explicit Generator(uint64_t seed) : rng(seed) {}

  onnx::ModelProto run(uint64_t seed);

private:
  Random rng;
  onnx::ModelProto model;
  onnx::GraphProto *graph = nullptr;
  std::vector<Value> values;
  int counter = 0;

  std::string fresh(const char *prefix) {
    return std::string(prefix) + std::to_string(counter++);
  }

  // --- random pieces ---------------------------------------------------
  DT randomDType() {
    int64_t r = rng.below(100);
    if (r < 60)
      return DT::F32;
    if (r < 70)
      return DT::F64;
    if (r < 80)
      return DT::I32;
    if (r < 92)
      return DT::I64;
    return DT::Bool;
  }
  int64_t randomDim() {
    int64_t r = rng.below(10);
    return r < 3 ? 1 : rng.range(2, 5);
  }
  Shape randomShape(int minRank = 0, int maxRank = 4) {
    Shape s;
    int rank = static_cast<int>(rng.range(minRank, maxRank));
    for (int i = 0; i < rank; ++i)
      s.push_back(randomDim());
    while (numel(s) > kMaxElements / 4) {
      auto it = std::max_element(s.begin(), s.end());
      *it = std::max<int64_t>(1, *it / 2);
    }
    return s;
  }
  /// A shape that broadcasts with `s` to `s` itself: a suffix of it with
  /// some dimensions set to 1.
  Shape broadcastShapeOf(const Shape &s) {
    size_t drop = rng.below(static_cast<int64_t>(s.size()) + 1);
    Shape r(s.begin() + drop, s.end());
    for (int64_t &d : r)
      if (rng.chance(0.3))
        d = 1;
    return r;
  }
  /// A shape that broadcasts with `s` to something at least as large: size-1
  /// dimensions of `s` may become larger, and leading dimensions be added.
  Shape widerShapeOf(const Shape &s) {
    Shape r = s;
    for (int64_t &d : r)
      if (d == 1 && rng.chance(0.4))
        d = rng.range(2, 4);
    if (r.size() < 4 && rng.chance(0.3))
      r.insert(r.begin(), rng.range(1, 3));
    if (numel(r) > kMaxElements)
      return s;
    return r;
  }
  static bool broadcast(const Shape &a, const Shape &b, Shape &out) {
    size_t rank = std::max(a.size(), b.size());
    out.assign(rank, 1);
    for (size_t i = 0; i < rank; ++i) {
      int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
      int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
      if (da != db && da != 1 && db != 1)
        return false;
      out[i] = da == 1 ? db : da;
    }
    return true;
  }

  // --- graph building --------------------------------------------------
  static void setType(onnx::ValueInfoProto *info, DT dt, const Shape &shape) {
    auto *tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnxType(dt));
    auto *dims = tensor->mutable_shape();
    for (int64_t d : shape)
      dims->add_dim()->set_dim_value(d);
  }
  Value &add(Value v) {
    values.push_back(std::move(v));
    return values.back();
  }
  Value newInput(DT dt, const Shape &shape) {
    std::string name = fresh("in");
    setType(graph->add_input(), dt, shape);
    graph->mutable_input(graph->input_size() - 1)->set_name(name);
    return add({name, dt, shape,
                dt == DT::Bool ? 1.0
                : isInt(dt)    ? 5.0
                               : 3.0,
                true});
  }
  /// An initializer: floating point ones become the model's weights,
  /// integer and boolean ones its constants. `awayFromZero` keeps floats
  /// at least 0.5 in magnitude (divisors).
  Value newWeight(DT dt, const Shape &shape, bool awayFromZero = false) {
    std::string name = fresh("w");
    TensorProto *t = graph->add_initializer();
    t->set_name(name);
    t->set_data_type(onnxType(dt));
    for (int64_t d : shape)
      t->add_dims(d);
    for (int64_t i = 0, n = numel(shape); i < n; ++i) {
      switch (dt) {
      case DT::F32:
      case DT::F64: {
        int64_t k = rng.range(awayFromZero ? 8 : -48, 48);
        if (awayFromZero && rng.chance(0.5))
          k = -k;
        dt == DT::F32 ? t->add_float_data(k / 16.0f)
                      : t->add_double_data(k / 16.0);
        break;
      }
      case DT::I32:
        t->add_int32_data(static_cast<int32_t>(rng.range(-5, 5)));
        break;
      case DT::I64:
        t->add_int64_data(rng.range(-5, 5));
        break;
      case DT::Bool:
        t->add_int32_data(static_cast<int32_t>(rng.below(2)));
        break;
      }
    }
    return add({name, dt, shape,
                dt == DT::Bool ? 1.0
                : isInt(dt)    ? 5.0
                               : 3.0,
                true});
  }
  /// A new input or weight (half each) of `dt` and `shape`.
  Value newLeaf(DT dt, const Shape &shape) {
    return rng.chance(0.5) ? newInput(dt, shape) : newWeight(dt, shape);
  }
  /// A 1-D int64 constant (shapes, axes, indices).
  std::string constI64(const std::vector<int64_t> &data, Shape shape = {-1}) {
    std::string name = fresh("c");
    TensorProto *t = graph->add_initializer();
    t->set_name(name);
    t->set_data_type(TensorProto::INT64);
    if (shape == Shape{-1})
      shape = {static_cast<int64_t>(data.size())};
    for (int64_t d : shape)
      t->add_dims(d);
    for (int64_t v : data)
      t->add_int64_data(v);
    return name;
  }
  onnx::NodeProto *node(const std::string &op,
                        const std::vector<std::string> &inputs,
                        const std::vector<std::string> &outputs) {
    onnx::NodeProto *n = graph->add_node();
    n->set_op_type(op);
    n->set_name(fresh("n"));
    for (const std::string &i : inputs)
      n->add_input(i);
    for (const std::string &o : outputs)
      n->add_output(o);
    return n;
  }
  static void attr(onnx::NodeProto *n, const char *name, int64_t v) {
    AttributeProto *a = n->add_attribute();
    a->set_name(name);
    a->set_type(AttributeProto::INT);
    a->set_i(v);
  }
  static void attrF(onnx::NodeProto *n, const char *name, float v) {
    AttributeProto *a = n->add_attribute();
    a->set_name(name);
    a->set_type(AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void attrs(onnx::NodeProto *n, const char *name,
                    const std::vector<int64_t> &v) {
    AttributeProto *a = n->add_attribute();
    a->set_name(name);
    a->set_type(AttributeProto::INTS);
    for (int64_t x : v)
      a->add_ints(x);
  }
  static void attrS(onnx::NodeProto *n, const char *name,
                    const std::string &v) {
    AttributeProto *a = n->add_attribute();
    a->set_name(name);
    a->set_type(AttributeProto::STRING);
    a->set_s(v);
  }
  /// Adds node `op` over `inputs` with one result of `dt` and `shape`.
  Value emit(const std::string &op, const std::vector<std::string> &inputs,
             DT dt, const Shape &shape, double mag, bool exact,
             onnx::NodeProto **out = nullptr) {
    std::string name = fresh("v");
    onnx::NodeProto *n = node(op, inputs, {name});
    if (out)
      *out = n;
    return add({name, dt, shape, std::min(mag, 1e30), exact});
  }

  /// A value to build on: one of the last four most of the time.
  Value pick() {
    size_t n = values.size();
    if (n > 4 && rng.chance(0.6))
      return values[n - 1 - rng.below(4)];
    return values[rng.below(static_cast<int64_t>(n))];
  }
  int64_t randomAxis(size_t rank, bool allowNegative = true) {
    int64_t a = rng.below(static_cast<int64_t>(rank));
    if (allowNegative && rng.chance(0.3))
      a -= static_cast<int64_t>(rank);
    return a;
  }
  static int64_t normAxis(int64_t a, size_t rank) {
    return a < 0 ? a + static_cast<int64_t>(rank) : a;
  }
  /// A second operand for an elementwise op with `x`: an existing value of
  /// the same dtype that broadcasts with it, or a new leaf.
  Value partner(const Value &x, DT dt) {
    if (rng.chance(0.5)) {
      std::vector<size_t> fits;
      for (size_t i = 0; i < values.size(); ++i) {
        Shape out;
        if (values[i].dt == dt && broadcast(x.shape, values[i].shape, out) &&
            numel(out) <= kMaxElements)
          fits.push_back(i);
      }
      if (!fits.empty())
        return values[fits[rng.below(static_cast<int64_t>(fits.size()))]];
    }
    Shape s =
        rng.chance(0.5) ? broadcastShapeOf(x.shape) : widerShapeOf(x.shape);
    return newLeaf(dt, s);
  }

  // --- the ops ---------------------------------------------------------
  bool unary(const Value &x);
  bool binary(const Value &x);
  bool compare(const Value &x);
  bool where(const Value &x);
  bool cast(const Value &x);
  bool matmul(const Value &x);
  bool gemm(const Value &x);
  bool reduce(const Value &x);
  bool argmax(const Value &x);
  bool softmax(const Value &x);
  bool layerNorm(const Value &x);
  bool batchNorm(const Value &x);
  bool reshape(const Value &x);
  bool flatten(const Value &x);
  bool transpose(const Value &x);
  bool concat(const Value &x);
  bool slice(const Value &x);
  bool split(const Value &x);
  bool gather(const Value &x);
  bool squeeze(const Value &x);
  bool unsqueeze(const Value &x);
  bool expand(const Value &x);
  bool tile(const Value &x);
  bool pad(const Value &x);
  bool conv(const Value &x);
  bool pool(const Value &x);
  bool clip(const Value &x);
};

bool Generator::unary(const Value &x) {
  if (x.dt == DT::Bool) {
    emit("Not", {x.name}, DT::Bool, x.shape, 1, true);
    return true;
  }
  if (isInt(x.dt)) {
    static const char *ops[] = {"Neg", "Abs", "Identity", "Sign"};
    const char *op = ops[rng.below(4)];
    emit(op, {x.name}, x.dt, x.shape, x.mag, true);
    return true;
  }
  struct U {
    const char *op;
    bool keepsExact; // exact in, exact out
    bool needsExact; // discontinuous or singular: exact inputs only
    int bound;       // 0: |x|, 1: at most 1, 2: needs |x| <= 10 (exp)
  };
  static const U ops[] = {
      {"Relu", true, false, 0},         {"Neg", true, false, 0},
      {"Abs", true, false, 0},          {"Identity", true, false, 0},
      {"Floor", true, true, 0},         {"Ceil", true, true, 0},
      {"Sign", true, true, 1},          {"Tanh", false, false, 1},
      {"Sigmoid", false, false, 1},     {"Sin", false, false, 1},
      {"Cos", false, false, 1},         {"Erf", false, false, 1},
      {"Exp", false, false, 2},         {"Softplus", false, false, 2},
      {"Elu", false, false, 0},         {"LeakyRelu", false, false, 0},
      {"HardSigmoid", false, false, 1}, {"Sqrt", false, false, 3},
      {"Reciprocal", false, true, 4},   {"Round", true, true, 0},
      {"Selu", false, false, 0},        {"Log", false, true, 5},
  };
  const U &u = ops[rng.below(sizeof(ops) / sizeof(ops[0]))];
  if (u.needsExact && !x.exact)
    return false;
  double mag = x.mag;
  std::string in = x.name;
  switch (u.bound) {
  case 1:
    mag = 1;
    break;
  case 2:
    if (x.mag > 10)
      return false;
    mag = std::exp(x.mag) + 1;
    break;
  case 3: // Sqrt of |x|
    in = emit("Abs", {x.name}, x.dt, x.shape, x.mag, x.exact).name;
    mag = std::sqrt(x.mag);
    break;
  case 4: // 1/x: exact inputs are 0 (inf either way) or at least 1/16
    mag = 16;
    break;
  case 5: // log|x|: 0 gives -inf either way, else |log| <= log(16 mag)
    in = emit("Abs", {x.name}, x.dt, x.shape, x.mag, x.exact).name;
    mag = std::log(16 * std::max(1.0, x.mag));
    break;
  default:
    if (std::strcmp(u.op, "Selu") == 0)
      mag *= 1.06;
    break;
  }
  onnx::NodeProto *n;
  emit(u.op, {in}, x.dt, x.shape, mag, u.keepsExact && x.exact, &n);
  if (std::strcmp(u.op, "LeakyRelu") == 0)
    attrF(n, "alpha", 0.125f);
  return true;
}

bool Generator::binary(const Value &x) {
  if (x.dt == DT::Bool) {
    static const char *ops[] = {"And", "Or", "Xor"};
    Value y = partner(x, DT::Bool);
    Shape out;
    if (!broadcast(x.shape, y.shape, out))
      return false;
    emit(ops[rng.below(3)], {x.name, y.name}, DT::Bool, out, 1, true);
    return true;
  }
  static const char *ops[] = {"Add", "Sub", "Mul", "Max", "Min", "Div"};
  std::string op = ops[rng.below(isFloat(x.dt) ? 6 : 5)];
  Value y = op == "Div" ? newWeight(x.dt, broadcastShapeOf(x.shape), true)
                        : partner(x, x.dt);
  Shape out;
  if (!broadcast(x.shape, y.shape, out) || numel(out) > kMaxElements)
    return false;
  double mag = op == "Mul"                  ? x.mag * y.mag
               : op == "Div"                ? x.mag * 2
               : op == "Max" || op == "Min" ? std::max(x.mag, y.mag)
                                            : x.mag + y.mag;
  bool exact =
      x.exact && y.exact && op != "Mul" && op != "Div" && mag < (1 << 20);
  if (isInt(x.dt))
    exact = true;
  // Integer products may wrap, which both compiles must do alike; keep
  // the numbers small enough that they mostly do not.
  if (isInt(x.dt) && op == "Mul" && mag > 1e6)
    return false;
  bool swap = rng.chance(0.3) && op != "Div";
  emit(op,
       swap ? std::vector<std::string>{y.name, x.name}
            : std::vector<std::string>{x.name, y.name},
       x.dt, out, mag, exact);
  return true;
}

bool Generator::compare(const Value &x) {
  if (x.dt == DT::Bool || !x.exact)
    return false;
  static const char *ops[] = {"Equal", "Less", "Greater", "LessOrEqual",
                              "GreaterOrEqual"};
  Value y = partner(x, x.dt);
  if (!y.exact)
    return false;
  Shape out;
  if (!broadcast(x.shape, y.shape, out) || numel(out) > kMaxElements)
    return false;
  emit(ops[rng.below(5)], {x.name, y.name}, DT::Bool, out, 1, true);
  return true;
}

bool Generator::where(const Value &x) {
  Value cond = x;
  if (x.dt != DT::Bool)
    cond = newLeaf(DT::Bool, broadcastShapeOf(x.shape));
  DT dt = x.dt == DT::Bool ? randomDType() : x.dt;
  Value a = x.dt == DT::Bool ? newLeaf(dt, broadcastShapeOf(x.shape)) : x;
  Value b = partner(a, dt);
  Shape ab, out;
  if (!broadcast(a.shape, b.shape, ab) || !broadcast(cond.shape, ab, out) ||
      numel(out) > kMaxElements)
    return false;
  emit("Where", {cond.name, a.name, b.name}, dt, out, std::max(a.mag, b.mag),
       a.exact && b.exact);
  return true;
}

bool Generator::cast(const Value &x) {
  DT to = randomDType();
  if (to == x.dt)
    return false;
  // Float to integer or bool: only exact values in range, whose truncation
  // no rounding difference can change.
  if (isFloat(x.dt) && !isFloat(to) && (!x.exact || x.mag > 1e6))
    return false;
  onnx::NodeProto *n;
  bool exact = to == DT::Bool || isInt(to) || x.exact || !isFloat(x.dt);
  double mag = to == DT::Bool ? 1 : x.mag;
  emit("Cast", {x.name}, to, x.shape, mag, exact, &n);
  attr(n, "to", onnxType(to));
  return true;
}

bool Generator::matmul(const Value &x) {
  if (!isFloat(x.dt) || x.shape.empty())
    return false;
  Shape a = x.shape;
  int64_t k = a.back();
  Shape b;
  bool vectorA = a.size() == 1;
  if (rng.chance(0.15)) {
    b = {k}; // matrix-vector
  } else {
    b = {k, randomDim()};
    if (a.size() >= 3 && rng.chance(0.5)) {
      Shape batch(a.begin(), a.end() - 2);
      batch = broadcastShapeOf(batch);
      b.insert(b.begin(), batch.begin(), batch.end());
    }
  }
  std::string bName;
  double bMag = 3;
  if (a.size() == 2 && b.size() == 2 && rng.chance(0.25)) {
    // x times its own transpose: one value used twice.
    onnx::NodeProto *t;
    Value xt =
        emit("Transpose", {x.name}, x.dt, {a[1], a[0]}, x.mag, x.exact, &t);
    bName = xt.name;
    b = {a[1], a[0]};
    bMag = x.mag;
  } else {
    Value w = newLeaf(x.dt, b);
    bName = w.name;
  }
  // The result: broadcast batch dimensions, then M and N.
  Shape out;
  Shape aBatch = a.size() > 2 ? Shape(a.begin(), a.end() - 2) : Shape{};
  Shape bBatch = b.size() > 2 ? Shape(b.begin(), b.end() - 2) : Shape{};
  if (!broadcast(aBatch, bBatch, out))
    return false;
  if (!vectorA)
    out.push_back(a[a.size() - 2]);
  if (b.size() >= 2)
    out.push_back(b.back());
  if (numel(out) > kMaxElements)
    return false;
  emit("MatMul", {x.name, bName}, x.dt, out, x.mag * bMag * k, false);
  return true;
}

bool Generator::gemm(const Value &x) {
  if (!isFloat(x.dt) || x.shape.size() != 2)
    return false;
  bool transA = rng.chance(0.3), transB = rng.chance(0.3);
  int64_t m = transA ? x.shape[1] : x.shape[0];
  int64_t k = transA ? x.shape[0] : x.shape[1];
  int64_t n = randomDim();
  Value b = newLeaf(x.dt, transB ? Shape{n, k} : Shape{k, n});
  std::vector<std::string> inputs = {x.name, b.name};
  if (rng.chance(0.7)) {
    Shape cs[] = {{n}, {1, n}, {m, 1}, {m, n}, {}};
    inputs.push_back(newLeaf(x.dt, cs[rng.below(5)]).name);
  }
  float alpha = rng.chance(0.5) ? 1.0f : 0.5f;
  float beta = rng.chance(0.5) ? 1.0f : 2.0f;
  onnx::NodeProto *node;
  emit("Gemm", inputs, x.dt, {m, n}, x.mag * 3 * k + 6, false, &node);
  if (transA)
    attr(node, "transA", 1);
  if (transB)
    attr(node, "transB", 1);
  if (alpha != 1.0f)
    attrF(node, "alpha", alpha);
  if (beta != 1.0f)
    attrF(node, "beta", beta);
  return true;
}

bool Generator::reduce(const Value &x) {
  if (x.dt == DT::Bool || x.shape.empty())
    return false;
  static const char *ops[] = {
      "ReduceSum",  "ReduceMax",       "ReduceMin",
      "ReduceMean", "ReduceProd",      "ReduceL1",
      "ReduceL2",   "ReduceSumSquare", "ReduceLogSumExp"};
  std::string op = ops[rng.below(isFloat(x.dt) ? 9 : 3)];
  size_t rank = x.shape.size();
  std::vector<int64_t> axes;
  std::vector<bool> reduced(rank, false);
  bool all = rng.chance(0.15);
  for (size_t i = 0; i < rank; ++i)
    if (all || rng.chance(0.4)) {
      reduced[i] = true;
      axes.push_back(rng.chance(0.3)
                         ? static_cast<int64_t>(i) - static_cast<int64_t>(rank)
                         : static_cast<int64_t>(i));
    }
  if (axes.empty() && !all) {
    int64_t a = rng.below(static_cast<int64_t>(rank));
    reduced[a] = true;
    axes.push_back(a);
  }
  bool keep = rng.chance(0.5);
  Shape out;
  int64_t count = 1;
  for (size_t i = 0; i < rank; ++i) {
    if (reduced[i]) {
      count *= x.shape[i];
      if (keep)
        out.push_back(1);
    } else {
      out.push_back(x.shape[i]);
    }
  }
  double mag = x.mag;
  bool exact =
      isInt(x.dt) || ((op == "ReduceMax" || op == "ReduceMin") && x.exact);
  if (op == "ReduceSum" || op == "ReduceL1")
    mag = x.mag * count;
  else if (op == "ReduceSumSquare" || op == "ReduceL2")
    mag = op == "ReduceL2" ? x.mag * std::sqrt(count) : x.mag * x.mag * count;
  else if (op == "ReduceProd") {
    if (x.mag > 4 || count > 8)
      return false;
    mag = std::pow(std::max(1.0, x.mag), count);
  } else if (op == "ReduceLogSumExp")
    mag = x.mag + std::log(count);
  if (isInt(x.dt) && op == "ReduceSum" && mag > 1e6)
    return false;
  std::vector<std::string> inputs = {x.name};
  onnx::NodeProto *n;
  Value r = emit(op, inputs, x.dt, out, mag, exact, &n);
  if (op == "ReduceSum") {
    if (!all)
      n->add_input(constI64(axes));
  } else if (!all) {
    attrs(n, "axes", axes);
  }
  if (!keep)
    attr(n, "keepdims", 0);
  else if (rng.chance(0.5))
    attr(n, "keepdims", 1);
  (void)r;
  return true;
}

bool Generator::argmax(const Value &x) {
  if (x.dt == DT::Bool || x.shape.empty() || !x.exact)
    return false;
  int64_t axis = randomAxis(x.shape.size());
  bool keep = rng.chance(0.5);
  Shape out = x.shape;
  if (keep)
    out[normAxis(axis, out.size())] = 1;
  else
    out.erase(out.begin() + normAxis(axis, out.size()));
  onnx::NodeProto *n;
  emit(rng.chance(0.5) ? "ArgMax" : "ArgMin", {x.name}, DT::I64, out, 5, true,
       &n);
  attr(n, "axis", axis);
  attr(n, "keepdims", keep);
  if (rng.chance(0.3))
    attr(n, "select_last_index", 1);
  return true;
}

bool Generator::softmax(const Value &x) {
  if (!isFloat(x.dt) || x.shape.empty())
    return false;
  bool log = rng.chance(0.3);
  onnx::NodeProto *n;
  emit(log ? "LogSoftmax" : "Softmax", {x.name}, x.dt, x.shape,
       log ? 2 * x.mag + 8 : 1, false, &n);
  if (rng.chance(0.7))
    attr(n, "axis", randomAxis(x.shape.size()));
  return true;
}

bool Generator::layerNorm(const Value &x) {
  if (!isFloat(x.dt) || x.shape.empty())
    return false;
  int64_t axis = randomAxis(x.shape.size());
  Shape norm(x.shape.begin() + normAxis(axis, x.shape.size()), x.shape.end());
  std::vector<std::string> inputs = {x.name, newWeight(x.dt, norm).name};
  if (rng.chance(0.6))
    inputs.push_back(newWeight(x.dt, norm).name);
  onnx::NodeProto *n;
  emit("LayerNormalization", inputs, x.dt, x.shape,
       3 * std::sqrt(static_cast<double>(numel(norm))) * 3 + 3, false, &n);
  attr(n, "axis", axis);
  if (rng.chance(0.3))
    attrF(n, "epsilon", 1e-3f);
  return true;
}

bool Generator::batchNorm(const Value &x) {
  if (!isFloat(x.dt) || x.shape.size() < 2)
    return false;
  Shape c = {x.shape[1]};
  Value scale = newWeight(x.dt, c), bias = newWeight(x.dt, c),
        mean = newWeight(x.dt, c), var = newWeight(x.dt, c, true);
  // Variances must be positive: square them.
  Value var2 = emit("Mul", {var.name, var.name}, x.dt, c, 9, true);
  emit("BatchNormalization",
       {x.name, scale.name, bias.name, mean.name, var2.name}, x.dt, x.shape,
       (x.mag + 3) * 4 * 3 + 3, false);
  return true;
}

bool Generator::reshape(const Value &x) {
  int64_t n = numel(x.shape);
  // A random factorization of n into up to four dimensions.
  Shape s;
  int64_t rest = n;
  int rank = static_cast<int>(rng.range(0, 4));
  for (int i = 0; i + 1 < rank; ++i) {
    std::vector<int64_t> divisors;
    for (int64_t d = 1; d <= rest; ++d)
      if (rest % d == 0)
        divisors.push_back(d);
    int64_t d = divisors[rng.below(static_cast<int64_t>(divisors.size()))];
    s.push_back(d);
    rest /= d;
  }
  if (rank > 0)
    s.push_back(rest);
  else if (rest != 1)
    s.push_back(rest);
  std::vector<int64_t> target = s;
  if (!target.empty() && rng.chance(0.3))
    target[rng.below(static_cast<int64_t>(target.size()))] = -1;
  emit("Reshape", {x.name, constI64(target)}, x.dt, s, x.mag, x.exact);
  return true;
}

bool Generator::flatten(const Value &x) {
  int64_t r = static_cast<int64_t>(x.shape.size());
  int64_t axis = rng.range(0, r);
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < r; ++i)
    (i < axis ? outer : inner) *= x.shape[i];
  onnx::NodeProto *n;
  emit("Flatten", {x.name}, x.dt, {outer, inner}, x.mag, x.exact, &n);
  attr(n, "axis", axis == r || !rng.chance(0.3) ? axis : axis - r);
  return true;
}

bool Generator::transpose(const Value &x) {
  size_t r = x.shape.size();
  if (r < 2)
    return false;
  std::vector<int64_t> perm(r);
  std::iota(perm.begin(), perm.end(), 0);
  for (size_t i = r - 1; i > 0; --i)
    std::swap(perm[i], perm[rng.below(static_cast<int64_t>(i) + 1)]);
  bool reverse = rng.chance(0.2);
  if (reverse) // no perm attribute: the dimensions reversed
    for (size_t i = 0; i < r; ++i)
      perm[i] = static_cast<int64_t>(r - 1 - i);
  Shape out(r);
  for (size_t i = 0; i < r; ++i)
    out[i] = x.shape[perm[i]];
  onnx::NodeProto *n;
  emit("Transpose", {x.name}, x.dt, out, x.mag, x.exact, &n);
  if (!reverse)
    attrs(n, "perm", perm);
  return true;
}

bool Generator::concat(const Value &x) {
  if (x.shape.empty())
    return false;
  int64_t axis = randomAxis(x.shape.size());
  int64_t a = normAxis(axis, x.shape.size());
  std::vector<std::string> inputs = {x.name};
  Shape out = x.shape;
  double mag = x.mag;
  bool exact = x.exact;
  int64_t parts = rng.range(1, 2);
  for (int64_t i = 0; i < parts; ++i) {
    if (rng.chance(0.4)) {
      inputs.push_back(x.name); // the same value twice
      out[a] += x.shape[a];
      continue;
    }
    Shape s = x.shape;
    s[a] = rng.range(1, 3);
    Value v = newLeaf(x.dt, s);
    inputs.push_back(v.name);
    out[a] += s[a];
    mag = std::max(mag, v.mag);
  }
  if (numel(out) > kMaxElements)
    return false;
  if (rng.chance(0.3))
    std::reverse(inputs.begin(), inputs.end());
  onnx::NodeProto *n;
  emit("Concat", inputs, x.dt, out, mag, exact, &n);
  attr(n, "axis", axis);
  return true;
}

bool Generator::slice(const Value &x) {
  size_t r = x.shape.size();
  if (r == 0)
    return false;
  std::vector<int64_t> starts, ends, axes, steps;
  Shape out = x.shape;
  bool anyStep = false;
  for (size_t i = 0; i < r; ++i) {
    if (!rng.chance(0.6))
      continue;
    int64_t d = x.shape[i];
    int64_t step = rng.chance(0.7) ? 1 : rng.chance(0.5) ? 2 : -1;
    if (rng.chance(0.2) && step < 0)
      step = -2;
    int64_t start, end, len;
    if (step > 0) {
      start = rng.range(0, d - 1);
      end = rng.range(start + 1, d);
      len = (end - start + step - 1) / step;
      if (rng.chance(0.2) && end == d)
        end = INT64_MAX; // "to the end"
      if (rng.chance(0.3))
        start -= d; // counted from the end
    } else {
      start = rng.range(0, d - 1);
      end = rng.range(-1, start - 1);
      len = (start - end + (-step) - 1) / (-step);
      if (end == -1)
        end = rng.chance(0.5) ? INT64_MIN : -d - 1; // "past the beginning"
      else if (rng.chance(0.3))
        end -= d;
    }
    out[i] = len;
    starts.push_back(start);
    ends.push_back(end);
    axes.push_back(rng.chance(0.3)
                       ? static_cast<int64_t>(i) - static_cast<int64_t>(r)
                       : static_cast<int64_t>(i));
    steps.push_back(step);
    anyStep |= step != 1;
  }
  if (starts.empty())
    return false;
  std::vector<std::string> inputs = {x.name, constI64(starts), constI64(ends),
                                     constI64(axes)};
  if (anyStep || rng.chance(0.3))
    inputs.push_back(constI64(steps));
  emit("Slice", inputs, x.dt, out, x.mag, x.exact);
  return true;
}

bool Generator::split(const Value &x) {
  if (x.shape.empty())
    return false;
  int64_t axis = randomAxis(x.shape.size());
  int64_t a = normAxis(axis, x.shape.size());
  int64_t d = x.shape[a];
  if (d < 2)
    return false;
  int64_t parts = rng.range(2, std::min<int64_t>(3, d));
  std::vector<int64_t> sizes;
  int64_t rest = d;
  for (int64_t i = 0; i + 1 < parts; ++i) {
    int64_t s = rng.range(1, rest - (parts - 1 - i));
    sizes.push_back(s);
    rest -= s;
  }
  sizes.push_back(rest);
  std::vector<std::string> outs;
  for (int64_t i = 0; i < parts; ++i)
    outs.push_back(fresh("v"));
  onnx::NodeProto *n = node("Split", {x.name, constI64(sizes)}, outs);
  attr(n, "axis", axis);
  for (int64_t i = 0; i < parts; ++i) {
    Shape s = x.shape;
    s[a] = sizes[i];
    add({outs[i], x.dt, s, x.mag, x.exact});
  }
  return true;
}

bool Generator::gather(const Value &x) {
  if (x.shape.empty())
    return false;
  int64_t axis = randomAxis(x.shape.size());
  int64_t a = normAxis(axis, x.shape.size());
  int64_t d = x.shape[a];
  Shape idxShape = randomShape(0, 2);
  std::vector<int64_t> idx;
  for (int64_t i = 0, n = numel(idxShape); i < n; ++i)
    idx.push_back(rng.range(-d, d - 1));
  Shape out(x.shape.begin(), x.shape.begin() + a);
  out.insert(out.end(), idxShape.begin(), idxShape.end());
  out.insert(out.end(), x.shape.begin() + a + 1, x.shape.end());
  if (numel(out) > kMaxElements)
    return false;
  onnx::NodeProto *n;
  emit("Gather", {x.name, constI64(idx, idxShape)}, x.dt, out, x.mag, x.exact,
       &n);
  attr(n, "axis", axis);
  return true;
}

bool Generator::squeeze(const Value &x) {
  std::vector<int64_t> axes;
  Shape out;
  int64_t r = static_cast<int64_t>(x.shape.size());
  for (int64_t i = 0; i < r; ++i) {
    if (x.shape[i] == 1 && rng.chance(0.7))
      axes.push_back(rng.chance(0.3) ? i - r : i);
    else
      out.push_back(x.shape[i]);
  }
  if (axes.empty())
    return false;
  emit("Squeeze", {x.name, constI64(axes)}, x.dt, out, x.mag, x.exact);
  return true;
}

bool Generator::unsqueeze(const Value &x) {
  if (x.shape.size() >= 4)
    return false;
  int64_t outRank = static_cast<int64_t>(x.shape.size()) + rng.range(1, 2);
  if (outRank > 5)
    outRank = 5;
  int64_t count = outRank - static_cast<int64_t>(x.shape.size());
  std::vector<int64_t> positions(outRank);
  std::iota(positions.begin(), positions.end(), 0);
  for (int64_t i = outRank - 1; i > 0; --i)
    std::swap(positions[i], positions[rng.below(i + 1)]);
  std::vector<int64_t> axes(positions.begin(), positions.begin() + count);
  std::vector<bool> isNew(outRank, false);
  for (int64_t a : axes)
    isNew[a] = true;
  Shape out;
  size_t next = 0;
  for (int64_t i = 0; i < outRank; ++i)
    out.push_back(isNew[i] ? 1 : x.shape[next++]);
  for (int64_t &a : axes)
    if (rng.chance(0.3))
      a -= outRank;
  emit("Unsqueeze", {x.name, constI64(axes)}, x.dt, out, x.mag, x.exact);
  return true;
}

bool Generator::expand(const Value &x) {
  Shape target = widerShapeOf(x.shape);
  std::vector<int64_t> given = target;
  // Expand's shape may itself hold 1s where the input is larger.
  for (size_t i = 0; i < given.size(); ++i) {
    size_t back = given.size() - i;
    if (back <= x.shape.size() && x.shape[x.shape.size() - back] == given[i] &&
        rng.chance(0.3))
      given[i] = 1;
  }
  Shape out;
  if (!broadcast(x.shape, given, out) || numel(out) > kMaxElements)
    return false;
  emit("Expand", {x.name, constI64(given)}, x.dt, out, x.mag, x.exact);
  return true;
}

bool Generator::tile(const Value &x) {
  if (x.shape.empty())
    return false;
  std::vector<int64_t> reps;
  Shape out;
  for (int64_t d : x.shape) {
    reps.push_back(rng.chance(0.4) ? 2 : 1);
    out.push_back(d * reps.back());
  }
  if (numel(out) > kMaxElements)
    return false;
  emit("Tile", {x.name, constI64(reps)}, x.dt, out, x.mag, x.exact);
  return true;
}

bool Generator::pad(const Value &x) {
  size_t r = x.shape.size();
  if (r == 0 || x.dt == DT::Bool)
    return false;
  static const char *modes[] = {"constant", "reflect", "edge"};
  std::string mode = modes[rng.below(3)];
  std::vector<int64_t> pads(2 * r, 0);
  Shape out = x.shape;
  for (size_t i = 0; i < r; ++i) {
    for (int side = 0; side < 2; ++side) {
      int64_t limit = mode == "reflect" ? x.shape[i] - 1 : 2;
      if (limit > 0 && rng.chance(0.4))
        pads[i + side * r] = rng.range(1, std::min<int64_t>(limit, 2));
      out[i] += pads[i + side * r];
    }
  }
  if (numel(out) > kMaxElements)
    return false;
  onnx::NodeProto *n;
  emit("Pad", {x.name, constI64(pads)}, x.dt, out, x.mag, x.exact, &n);
  if (mode != "constant" || rng.chance(0.3))
    attrS(n, "mode", mode);
  return true;
}

bool Generator::conv(const Value &x) {
  if (x.dt != DT::F32 || x.shape.size() < 3 || x.shape.size() > 4)
    return false;
  size_t spatial = x.shape.size() - 2;
  int64_t c = x.shape[1];
  int64_t group = (c > 1 && c % 2 == 0 && rng.chance(0.3)) ? 2
                  : (c > 1 && rng.chance(0.2))             ? c
                                                           : 1;
  int64_t m = group * rng.range(1, 3);
  Shape w = {m, c / group};
  std::vector<int64_t> kernel, strides, dil, pads(2 * spatial);
  Shape out = {x.shape[0], m};
  for (size_t i = 0; i < spatial; ++i) {
    int64_t d = x.shape[2 + i];
    int64_t k = rng.range(1, 3);
    int64_t s = rng.chance(0.3) ? 2 : 1;
    int64_t di = rng.chance(0.2) ? 2 : 1;
    int64_t pb = rng.range(0, 1), pe = rng.range(0, 1);
    int64_t span = di * (k - 1) + 1;
    if (d + pb + pe < span)
      return false;
    kernel.push_back(k);
    strides.push_back(s);
    dil.push_back(di);
    pads[i] = pb;
    pads[i + spatial] = pe;
    out.push_back((d + pb + pe - span) / s + 1);
    w.push_back(k);
  }
  if (numel(out) > kMaxElements)
    return false;
  std::vector<std::string> inputs = {x.name, newWeight(x.dt, w).name};
  if (rng.chance(0.5))
    inputs.push_back(newWeight(x.dt, {m}).name);
  onnx::NodeProto *n;
  emit("Conv", inputs, x.dt, out, x.mag * 3 * numel(w) / m + 3, false, &n);
  if (rng.chance(0.5))
    attrs(n, "kernel_shape", kernel);
  attrs(n, "strides", strides);
  attrs(n, "dilations", dil);
  attrs(n, "pads", pads);
  if (group != 1)
    attr(n, "group", group);
  return true;
}

bool Generator::pool(const Value &x) {
  if (!isFloat(x.dt) || x.shape.size() < 3 || x.shape.size() > 4)
    return false;
  size_t spatial = x.shape.size() - 2;
  int64_t kind = rng.below(4);
  if (kind >= 2) {
    Shape out = {x.shape[0], x.shape[1]};
    out.resize(x.shape.size(), 1);
    emit(kind == 2 ? "GlobalAveragePool" : "GlobalMaxPool", {x.name}, x.dt, out,
         x.mag, kind == 3 && x.exact);
    return true;
  }
  bool maxPool = kind == 0;
  std::vector<int64_t> kernel, strides, pads(2 * spatial);
  Shape out = {x.shape[0], x.shape[1]};
  for (size_t i = 0; i < spatial; ++i) {
    int64_t d = x.shape[2 + i];
    int64_t k = rng.range(1, std::min<int64_t>(3, d));
    int64_t s = rng.chance(0.4) ? 2 : 1;
    int64_t pb = k > 1 ? rng.range(0, 1) : 0, pe = k > 1 ? rng.range(0, 1) : 0;
    kernel.push_back(k);
    strides.push_back(s);
    pads[i] = pb;
    pads[i + spatial] = pe;
    out.push_back((d + pb + pe - k) / s + 1);
  }
  onnx::NodeProto *n;
  emit(maxPool ? "MaxPool" : "AveragePool", {x.name}, x.dt, out, x.mag,
       maxPool && x.exact, &n);
  attrs(n, "kernel_shape", kernel);
  attrs(n, "strides", strides);
  attrs(n, "pads", pads);
  if (!maxPool && rng.chance(0.5))
    attr(n, "count_include_pad", 1);
  return true;
}

bool Generator::clip(const Value &x) {
  if (!isFloat(x.dt))
    return false;
  // Clip with attribute-free constant bounds: opset 11+ takes them as inputs.
  onnx::NodeProto *n;
  std::string lo = fresh("c"), hi = fresh("c");
  for (auto [name, v] : {std::pair{lo, -1.0}, std::pair{hi, 1.5}}) {
    onnx::NodeProto *c = node("Constant", {}, {name});
    AttributeProto *a = c->add_attribute();
    a->set_name("value");
    a->set_type(AttributeProto::TENSOR);
    TensorProto *t = a->mutable_t();
    t->set_data_type(onnxType(x.dt));
    x.dt == DT::F32 ? t->add_float_data(static_cast<float>(v))
                    : t->add_double_data(v);
  }
  emit("Clip", {x.name, lo, hi}, x.dt, x.shape, 1.5, x.exact, &n);
  return true;
}

onnx::ModelProto Generator::run(uint64_t seed) {
  model.set_ir_version(8);
  model.set_producer_name("nnc-graph-fuzz");
  auto *opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  auto *meta = model.add_metadata_props();
  meta->set_key(kSeedKey);
  meta->set_value(std::to_string(seed));
  graph = model.mutable_graph();
  graph->set_name("g" + std::to_string(seed));

  // Inputs: one to three, a 4-D image now and then for Conv and pooling.
  int64_t numInputs = rng.range(1, 3);
  for (int64_t i = 0; i < numInputs; ++i) {
    if (rng.chance(0.2))
      newInput(DT::F32, {rng.range(1, 2), rng.range(1, 4), rng.range(2, 6),
                         rng.range(2, 6)});
    else
      newInput(randomDType(), randomShape());
  }
  using Op = bool (Generator::*)(const Value &);
  struct Weighted {
    Op op;
    int weight;
  };
  static const Weighted ops[] = {
      {&Generator::unary, 12},    {&Generator::binary, 14},
      {&Generator::compare, 3},   {&Generator::where, 3},
      {&Generator::cast, 4},      {&Generator::matmul, 5},
      {&Generator::gemm, 3},      {&Generator::reduce, 6},
      {&Generator::argmax, 2},    {&Generator::softmax, 3},
      {&Generator::layerNorm, 2}, {&Generator::batchNorm, 1},
      {&Generator::reshape, 4},   {&Generator::flatten, 1},
      {&Generator::transpose, 4}, {&Generator::concat, 3},
      {&Generator::slice, 4},     {&Generator::split, 2},
      {&Generator::gather, 3},    {&Generator::squeeze, 2},
      {&Generator::unsqueeze, 2}, {&Generator::expand, 2},
      {&Generator::tile, 1},      {&Generator::pad, 2},
      {&Generator::conv, 3},      {&Generator::pool, 2},
      {&Generator::clip, 1},
  };
  int total = 0;
  for (const Weighted &w : ops)
    total += w.weight;
  size_t firstComputed = values.size();
  int64_t steps = rng.range(2, 10);
  for (int64_t step = 0, tries = 0; step < steps && tries < 200; ++tries) {
    Value x = pick();
    int r = static_cast<int>(rng.below(total));
    const Weighted *w = ops;
    while (r >= w->weight)
      r -= w->weight, ++w;
    if ((this->*(w->op))(x))
      ++step;
  }

  // Outputs: the last value, and now and then others, computed or not;
  // the same value may be listed twice.
  std::vector<size_t> outputs = {values.size() - 1};
  int64_t extra = rng.range(0, 2);
  for (int64_t i = 0; i < extra; ++i) {
    size_t v =
        values.size() > firstComputed && !rng.chance(0.1)
            ? firstComputed +
                  rng.below(static_cast<int64_t>(values.size() - firstComputed))
            : rng.below(static_cast<int64_t>(values.size()));
    outputs.push_back(v);
  }
  for (size_t v : outputs) {
    const Value &value = values[v];
    onnx::ValueInfoProto *info = graph->add_output();
    info->set_name(value.name);
    setType(info, value.dt, value.shape);
  }
  return std::move(model);
}

} // namespace

onnx::ModelProto nnc::graphfuzz::generateModel(uint64_t seed) {
  return Generator(seed).run(seed);
}

std::vector<InputData>
nnc::graphfuzz::generateInputs(const onnx::ModelProto &model, uint64_t seed,
                               std::string &error) {
  Random rng(seed ^ 0x5eed5eed5eed5eedULL);
  std::vector<InputData> inputs;
  std::vector<std::string> initializers;
  for (const TensorProto &t : model.graph().initializer())
    initializers.push_back(t.name());
  for (const onnx::ValueInfoProto &info : model.graph().input()) {
    if (std::find(initializers.begin(), initializers.end(), info.name()) !=
        initializers.end())
      continue;
    InputData in;
    in.name = info.name();
    const auto &tensor = info.type().tensor_type();
    in.elemType = tensor.elem_type();
    for (const auto &d : tensor.shape().dim()) {
      if (!d.has_dim_value() || d.dim_value() < 0) {
        error = "input '" + in.name + "' has no static shape";
        return {};
      }
      in.dims.push_back(d.dim_value());
    }
    int64_t n = numel(in.dims);
    auto append = [&](auto v) {
      const auto *p = reinterpret_cast<const uint8_t *>(&v);
      in.bytes.insert(in.bytes.end(), p, p + sizeof(v));
    };
    for (int64_t i = 0; i < n; ++i) {
      switch (in.elemType) {
      case TensorProto::FLOAT:
        append(static_cast<float>(rng.range(-48, 48) / 16.0));
        break;
      case TensorProto::DOUBLE:
        append(rng.range(-48, 48) / 16.0);
        break;
      case TensorProto::INT32:
        append(static_cast<int32_t>(rng.range(-5, 5)));
        break;
      case TensorProto::INT64:
        append(static_cast<int64_t>(rng.range(-5, 5)));
        break;
      case TensorProto::BOOL:
        append(static_cast<uint8_t>(rng.below(2)));
        break;
      default:
        error = "input '" + in.name + "' has an element type (" +
                std::to_string(in.elemType) +
                ") the graph fuzzer does not generate";
        return {};
      }
    }
    inputs.push_back(std::move(in));
  }
  return inputs;
}
