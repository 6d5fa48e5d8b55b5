//===- Tracer.h - build nnc IR by calling tensor ops from C++ ---*- C++ -*-===//
//
// The C++ tracing API: a model is written as ordinary C++ calls on traced
// values and recorded as the same nnc IR the ONNX importer produces, a
// func.func whose arguments are the inputs followed by the parameters.
// Shape errors are reported at the offending call, naming its file and line.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_TRACE_TRACER_H
#define NNC_TRACE_TRACER_H

#include "nnc/NNCDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace nnc {

class Tracer;

/// The C++ call site of a traced operation. Every public function takes one
/// as its last, defaulted argument; the defaults are evaluated where the
/// function is called, so the op's location and error messages name the
/// user's file and line.
struct Site {
  const char *file;
  int line;
  Site(const char *file = __builtin_FILE(), int line = __builtin_LINE())
      : file(file), line(line) {}
};

/// Element types of traced tensors: the graph rows of the runtime's table
/// (nnc/runtime/DTypes.def), with the same names. `I1` is `Bool` by the name
/// MLIR gives it.
enum class DType {
#define NNC_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr) Enum,
#define NNC_HOST_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr)
#include "nnc/runtime/DTypes.def"
  I1 = Bool,
};

/// The MLIR element type of `dtype`.
mlir::Type getElementType(mlir::MLIRContext *ctx, DType dtype);

/// A traced tensor: an SSA value of one tracer. A default-constructed TValue
/// is "absent" (used for optional operands such as a conv bias). A value
/// whose tracer is set but whose IR value is null is "poisoned": it results
/// from a failed call, and every op applied to it does nothing.
class TValue {
public:
  TValue() = default;
  TValue(Tracer *tracer, mlir::Value value) : tracer_(tracer), value_(value) {}

  Tracer *tracer() const { return tracer_; }
  mlir::Value value() const { return value_; }
  bool isAbsent() const { return !tracer_; }
  bool isPoisoned() const { return tracer_ && !value_; }
  explicit operator bool() const { return static_cast<bool>(value_); }

  /// The tensor type; null for absent or poisoned values.
  mlir::RankedTensorType getType() const;
  /// The shape with -1 for dynamic dimensions; empty if there is no value.
  std::vector<int64_t> shape() const;
  int64_t rank() const;

private:
  Tracer *tracer_ = nullptr;
  mlir::Value value_;
};

/// A parameter initializer, kept in the tracer's side table (the IR only
/// marks the argument's role). `a` and `b` are the bounds of `uniform`, the
/// mean and standard deviation of `normal`, the value of `constant`, and the
/// gain of the Kaiming/Xavier schemes (`a`).
struct Init {
  enum class Kind {
    Zeros,
    Ones,
    Constant,
    Uniform,
    Normal,
    KaimingUniform,
    KaimingNormal,
    XavierUniform,
    XavierNormal
  };
  Kind kind = Kind::Zeros;
  double a = 0.0;
  double b = 0.0;

  static Init zeros() { return {Kind::Zeros, 0.0, 0.0}; }
  static Init ones() { return {Kind::Ones, 0.0, 0.0}; }
  static Init constant(double value) { return {Kind::Constant, value, 0.0}; }
  static Init uniform(double low, double high) {
    return {Kind::Uniform, low, high};
  }
  static Init normal(double mean, double stddev) {
    return {Kind::Normal, mean, stddev};
  }
  static Init kaimingUniform(double gain = 1.4142135623730951) {
    return {Kind::KaimingUniform, gain, 0.0};
  }
  static Init kaimingNormal(double gain = 1.4142135623730951) {
    return {Kind::KaimingNormal, gain, 0.0};
  }
  static Init xavierUniform(double gain = 1.0) {
    return {Kind::XavierUniform, gain, 0.0};
  }
  static Init xavierNormal(double gain = 1.0) {
    return {Kind::XavierNormal, gain, 0.0};
  }

  /// E.g. "uniform(-0.1, 0.1)" or "kaiming_normal(gain=1.41421)".
  std::string str() const;
};

/// One parameter or buffer as declared, with its function argument index
/// (valid after finish(): inputs come first).
struct ParamInfo {
  std::string name;
  std::vector<int64_t> shape;
  DType dtype;
  ParamKind kind;
  Init init;
  unsigned argIndex;
};

/// Records a traced model into a module holding one func.func.
class Tracer {
public:
  /// Loads the nnc and func dialects into `ctx`, which must outlive the
  /// tracer and the module it returns.
  Tracer(mlir::MLIRContext &ctx, llvm::StringRef funcName);
  ~Tracer();
  Tracer(const Tracer &) = delete;
  Tracer &operator=(const Tracer &) = delete;

  /// Declares a model input; -1 in `shape` is a dynamic dimension.
  TValue input(llvm::StringRef name, llvm::ArrayRef<int64_t> shape,
               DType dtype = DType::F32, Site site = {});
  /// Declares a trainable weight (#nnc.param<trainable>); static shape.
  TValue parameter(llvm::StringRef name, llvm::ArrayRef<int64_t> shape,
                   DType dtype = DType::F32, Init init = Init::zeros(),
                   Site site = {});
  /// Declares a weight held fixed (#nnc.param<frozen>).
  TValue frozen(llvm::StringRef name, llvm::ArrayRef<int64_t> shape,
                DType dtype = DType::F32, Init init = Init::zeros(),
                Site site = {});
  /// Declares non-trainable state such as running statistics
  /// (#nnc.param<buffer>).
  TValue buffer(llvm::StringRef name, llvm::ArrayRef<int64_t> shape,
                DType dtype = DType::F32, Init init = Init::zeros(),
                Site site = {});

  /// A constant tensor of `shape` from `values` in row-major order; a single
  /// value is splatted. Integer and i1 types need integral values.
  TValue constant(llvm::ArrayRef<double> values, llvm::ArrayRef<int64_t> shape,
                  DType dtype = DType::F32, Site site = {});
  /// A constant of `shape` with every element `value`.
  TValue full(llvm::ArrayRef<int64_t> shape, double value,
              DType dtype = DType::F32, Site site = {});
  /// A rank-0 constant.
  TValue scalar(double value, DType dtype = DType::F32, Site site = {});

  /// Marks `value` as the next function result.
  void output(TValue value, Site site = {});
  void outputs(llvm::ArrayRef<TValue> values, Site site = {});

  /// Ends tracing: adds the return, marks parameters, verifies the module.
  /// Returns null if any call failed (see error()); the tracer is spent.
  mlir::OwningOpRef<mlir::ModuleOp> finish(Site site = {});

  /// False once a call has failed.
  bool ok() const { return error_.empty(); }
  /// The first error, "file:line: op: message"; empty if ok().
  const std::string &error() const { return error_; }
  /// Parameters and buffers in declaration (= argument) order.
  const std::vector<ParamInfo> &params() const { return params_; }

  mlir::MLIRContext *getContext() const { return ctx_; }

  // Used by the op functions (lib/Trace).
  mlir::OpBuilder &getBuilder() { return builder_; }
  mlir::Location getLoc(const Site &site);
  /// Records `message` as the error at `site` unless one is recorded.
  void recordError(const Site &site, llvm::StringRef what,
                   llvm::StringRef message);
  /// Whether ops may still be added (no error, not finished).
  bool isActive() const { return ok() && !finished_; }

private:
  TValue declareParam(llvm::StringRef name, llvm::ArrayRef<int64_t> shape,
                      DType dtype, Init init, ParamKind kind, Site site);
  bool checkName(llvm::StringRef name, const Site &site, llvm::StringRef what);
  bool checkActive(const Site &site, llvm::StringRef what);

  mlir::MLIRContext *ctx_;
  mlir::OpBuilder builder_;
  mlir::OwningOpRef<mlir::ModuleOp> module_;
  mlir::Block *body_ = nullptr;
  std::string funcName_;
  unsigned numInputs_ = 0;
  std::vector<std::string> names_;
  std::vector<ParamInfo> params_;
  std::vector<mlir::Value> outputs_;
  std::string error_;
  bool finished_ = false;
};

/// An operand of an overloaded operator, which cannot take a defaulted
/// Site: the implicit conversion from TValue captures the call site instead.
struct Operand {
  TValue value;
  Site site;
  Operand(TValue value, Site site = {}) : value(value), site(site) {}
};

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

#define NNC_TRACE_UNARY(name) TValue name(TValue x, Site site = {});
NNC_TRACE_UNARY(exp)
NNC_TRACE_UNARY(log)
NNC_TRACE_UNARY(sqrt)
NNC_TRACE_UNARY(rsqrt)
NNC_TRACE_UNARY(reciprocal)
NNC_TRACE_UNARY(sin)
NNC_TRACE_UNARY(cos)
NNC_TRACE_UNARY(tan)
NNC_TRACE_UNARY(asin)
NNC_TRACE_UNARY(acos)
NNC_TRACE_UNARY(atan)
NNC_TRACE_UNARY(sinh)
NNC_TRACE_UNARY(cosh)
NNC_TRACE_UNARY(tanh)
NNC_TRACE_UNARY(asinh)
NNC_TRACE_UNARY(acosh)
NNC_TRACE_UNARY(atanh)
NNC_TRACE_UNARY(erf)
NNC_TRACE_UNARY(sigmoid)
NNC_TRACE_UNARY(softplus)
NNC_TRACE_UNARY(softsign)
NNC_TRACE_UNARY(silu)
NNC_TRACE_UNARY(mish)
NNC_TRACE_UNARY(hardSwish)
NNC_TRACE_UNARY(floor)
NNC_TRACE_UNARY(ceil)
NNC_TRACE_UNARY(round)
NNC_TRACE_UNARY(neg)
NNC_TRACE_UNARY(abs)
NNC_TRACE_UNARY(sign)
NNC_TRACE_UNARY(relu)
NNC_TRACE_UNARY(logicalNot)
NNC_TRACE_UNARY(isNan)
#undef NNC_TRACE_UNARY

TValue leakyRelu(TValue x, double alpha = 0.01, Site site = {});
TValue elu(TValue x, double alpha = 1.0, Site site = {});
TValue celu(TValue x, double alpha = 1.0, Site site = {});
TValue selu(TValue x, double alpha = 1.67326319217681884765625,
            double gamma = 1.05070102214813232421875, Site site = {});
TValue thresholdedRelu(TValue x, double alpha = 1.0, Site site = {});
TValue hardSigmoid(TValue x, double alpha = 0.2, double beta = 0.5,
                   Site site = {});
TValue gelu(TValue x, GeluApproximation approximation = GeluApproximation::none,
            Site site = {});
/// Clamps to [min, max]; a missing bound is unbounded.
TValue clip(TValue x, std::optional<double> min, std::optional<double> max,
            Site site = {});
TValue isInf(TValue x, bool detectPositive = true, bool detectNegative = true,
             Site site = {});

/// Broadcasting binary ops (numpy rules).
#define NNC_TRACE_BINARY(name) TValue name(TValue x, TValue y, Site site = {});
NNC_TRACE_BINARY(add)
NNC_TRACE_BINARY(sub)
NNC_TRACE_BINARY(mul)
NNC_TRACE_BINARY(div)
NNC_TRACE_BINARY(pow)
NNC_TRACE_BINARY(maximum)
NNC_TRACE_BINARY(minimum)
NNC_TRACE_BINARY(prelu)
NNC_TRACE_BINARY(logicalAnd)
NNC_TRACE_BINARY(logicalOr)
NNC_TRACE_BINARY(logicalXor)
NNC_TRACE_BINARY(eq)
NNC_TRACE_BINARY(ne)
NNC_TRACE_BINARY(lt)
NNC_TRACE_BINARY(le)
NNC_TRACE_BINARY(gt)
NNC_TRACE_BINARY(ge)
#undef NNC_TRACE_BINARY
TValue rem(TValue x, TValue y, bool fmod = false, Site site = {});
TValue cmp(CmpPredicate predicate, TValue x, TValue y, Site site = {});
/// `condition ? x : y` elementwise, the three broadcast together.
TValue where(TValue condition, TValue x, TValue y, Site site = {});
/// Converts the element type; the shape is unchanged.
TValue cast(TValue x, DType dtype, Site site = {});
/// A rank-0 constant with `like`'s element type.
TValue scalarLike(TValue like, double value, Site site = {});

TValue operator+(Operand x, Operand y);
TValue operator-(Operand x, Operand y);
TValue operator*(Operand x, Operand y);
TValue operator/(Operand x, Operand y);
TValue operator-(Operand x);
// A scalar operand becomes a rank-0 constant of the tensor's element type.
TValue operator+(Operand x, double y);
TValue operator-(Operand x, double y);
TValue operator*(Operand x, double y);
TValue operator/(Operand x, double y);
TValue operator+(double x, Operand y);
TValue operator-(double x, Operand y);
TValue operator*(double x, Operand y);
TValue operator/(double x, Operand y);

//===----------------------------------------------------------------------===//
// Linear algebra, convolution, pooling
//===----------------------------------------------------------------------===//

TValue matmul(TValue x, TValue y, Site site = {});

struct GemmOptions {
  double alpha = 1.0;
  double beta = 1.0;
  bool transA = false;
  bool transB = false;
};
/// alpha * op(a) * op(b) + beta * c; `c` may be absent.
TValue gemm(TValue a, TValue b, TValue c = {}, GemmOptions options = {},
            Site site = {});

/// Empty lists mean the op's defaults (strides and dilations 1, pads 0).
struct ConvOptions {
  std::vector<int64_t> strides = {};
  std::vector<int64_t> dilations = {};
  std::vector<int64_t> pads = {};
  int64_t groups = 1;
};
TValue conv(TValue x, TValue weight, TValue bias = {}, ConvOptions options = {},
            Site site = {});

struct ConvTransposeOptions {
  std::vector<int64_t> strides = {};
  std::vector<int64_t> dilations = {};
  std::vector<int64_t> pads = {};
  std::vector<int64_t> outputPadding = {};
  int64_t groups = 1;
};
TValue convTranspose(TValue x, TValue weight, TValue bias = {},
                     ConvTransposeOptions options = {}, Site site = {});

struct PoolOptions {
  std::vector<int64_t> strides = {};
  std::vector<int64_t> pads = {};
  std::vector<int64_t> dilations = {};
  bool ceilMode = false;
  bool countIncludePad = false; // avgPool only
};
TValue maxPool(TValue x, llvm::ArrayRef<int64_t> kernelShape,
               PoolOptions options = {}, Site site = {});
TValue avgPool(TValue x, llvm::ArrayRef<int64_t> kernelShape,
               PoolOptions options = {}, Site site = {});
TValue globalAvgPool(TValue x, Site site = {});
TValue globalMaxPool(TValue x, Site site = {});

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

struct ReduceOptions {
  std::vector<int64_t> axes = {}; // empty: all axes
  bool keepdims = true;
  bool noopWithEmptyAxes = false;
};
TValue reduce(TValue x, ReduceKind kind, ReduceOptions options = {},
              Site site = {});
TValue reduceSum(TValue x, llvm::ArrayRef<int64_t> axes = {},
                 bool keepdims = true, Site site = {});
TValue reduceMean(TValue x, llvm::ArrayRef<int64_t> axes = {},
                  bool keepdims = true, Site site = {});
TValue reduceMax(TValue x, llvm::ArrayRef<int64_t> axes = {},
                 bool keepdims = true, Site site = {});
TValue reduceMin(TValue x, llvm::ArrayRef<int64_t> axes = {},
                 bool keepdims = true, Site site = {});
TValue argMax(TValue x, int64_t axis = 0, bool keepdims = true,
              bool selectLastIndex = false, Site site = {});
TValue argMin(TValue x, int64_t axis = 0, bool keepdims = true,
              bool selectLastIndex = false, Site site = {});
TValue cumsum(TValue x, int64_t axis, bool exclusive = false,
              bool reverse = false, Site site = {});

//===----------------------------------------------------------------------===//
// Normalization, softmax, dropout, losses
//===----------------------------------------------------------------------===//

TValue softmax(TValue x, int64_t axis = -1, Site site = {});
TValue logSoftmax(TValue x, int64_t axis = -1, Site site = {});

/// Inference-mode batch normalization with the given statistics.
TValue batchNorm(TValue x, TValue scale, TValue bias, TValue mean, TValue var,
                 double epsilon = 1e-5, Site site = {});
struct BatchNormTrainResult {
  TValue result, batchMean, batchVar, newRunningMean, newRunningVar;
};
BatchNormTrainResult batchNormTrain(TValue x, TValue scale, TValue bias,
                                    TValue runningMean, TValue runningVar,
                                    double epsilon = 1e-5,
                                    double momentum = 0.9, Site site = {});

/// The normalized tensor and the statistics autodiff saves.
struct NormResult {
  TValue result, mean, invStd;
};
/// Normalizes over the axes from `axis` on; scale and bias may be absent.
TValue layerNorm(TValue x, TValue scale = {}, TValue bias = {},
                 int64_t axis = -1, double epsilon = 1e-5, Site site = {});
NormResult layerNormWithStats(TValue x, TValue scale = {}, TValue bias = {},
                              int64_t axis = -1, double epsilon = 1e-5,
                              Site site = {});
TValue groupNorm(TValue x, TValue scale, TValue bias, int64_t numGroups,
                 double epsilon = 1e-5, Site site = {});
NormResult groupNormWithStats(TValue x, TValue scale, TValue bias,
                              int64_t numGroups, double epsilon = 1e-5,
                              Site site = {});
TValue instanceNorm(TValue x, TValue scale, TValue bias, double epsilon = 1e-5,
                    Site site = {});
NormResult instanceNormWithStats(TValue x, TValue scale, TValue bias,
                                 double epsilon = 1e-5, Site site = {});

struct DropoutOptions {
  double ratio = 0.5;
  std::optional<int64_t> seed = std::nullopt;
  bool training = false;
};
struct DropoutResult {
  TValue output, mask;
};
TValue dropout(TValue x, DropoutOptions options = {}, Site site = {});
DropoutResult dropoutWithMask(TValue x, DropoutOptions options = {},
                              Site site = {});

struct LossOptions {
  TValue weight = {}; // per-class weights, optional
  LossReduction reduction = LossReduction::mean;
  std::optional<int64_t> ignoreIndex = std::nullopt;
  double labelSmoothing = 0.0; // crossEntropy only
};
/// Softmax cross-entropy of `logits` [N, C, ...] against class indices.
TValue crossEntropy(TValue logits, TValue labels, LossOptions options = {},
                    Site site = {});
/// Negative log-likelihood of log-probabilities against class indices.
TValue nllLoss(TValue logProbs, TValue labels, LossOptions options = {},
               Site site = {});
TValue mseLoss(TValue x, TValue target,
               LossReduction reduction = LossReduction::mean, Site site = {});

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

/// Reshapes to `shape`; one entry may be -1, inferred from the element
/// count (dynamic if the input has dynamic dimensions).
TValue reshape(TValue x, llvm::ArrayRef<int64_t> shape, Site site = {});
/// Broadcasts to `shape`; -1 keeps the aligned input dimension.
TValue expand(TValue x, llvm::ArrayRef<int64_t> shape, Site site = {});
TValue transpose(TValue x, llvm::ArrayRef<int64_t> perm, Site site = {});
TValue concat(llvm::ArrayRef<TValue> xs, int64_t axis, Site site = {});
std::vector<TValue> split(TValue x, int64_t axis, llvm::ArrayRef<int64_t> sizes,
                          Site site = {});
TValue slice(TValue x, llvm::ArrayRef<int64_t> starts,
             llvm::ArrayRef<int64_t> ends, llvm::ArrayRef<int64_t> axes = {},
             llvm::ArrayRef<int64_t> steps = {}, Site site = {});
/// `pads` holds the begin pads of every axis, then the end pads.
TValue pad(TValue x, llvm::ArrayRef<int64_t> pads,
           PadMode mode = PadMode::constant, double value = 0.0,
           Site site = {});
TValue tile(TValue x, llvm::ArrayRef<int64_t> repeats, Site site = {});
/// Removes the given unit axes (all unit axes when empty).
TValue squeeze(TValue x, llvm::ArrayRef<int64_t> axes = {}, Site site = {});
TValue unsqueeze(TValue x, llvm::ArrayRef<int64_t> axes, Site site = {});
TValue flatten(TValue x, int64_t axis = 1, Site site = {});
TValue trilu(TValue x, bool upper = true, int64_t k = 0, Site site = {});
TValue tril(TValue x, int64_t k = 0, Site site = {});
TValue triu(TValue x, int64_t k = 0, Site site = {});
TValue depthToSpace(TValue x, int64_t blocksize, llvm::StringRef mode = "DCR",
                    Site site = {});
TValue spaceToDepth(TValue x, int64_t blocksize, Site site = {});
TValue gather(TValue data, TValue indices, int64_t axis = 0, Site site = {});
TValue gatherElements(TValue data, TValue indices, int64_t axis = 0,
                      Site site = {});
TValue scatterElements(TValue data, TValue indices, TValue updates,
                       int64_t axis = 0,
                       ScatterReduction reduction = ScatterReduction::none,
                       Site site = {});
TValue scatterND(TValue data, TValue indices, TValue updates,
                 ScatterReduction reduction = ScatterReduction::none,
                 Site site = {});
struct OneHotOptions {
  int64_t axis = -1;
  double onValue = 1.0;
  double offValue = 0.0;
};
TValue oneHot(TValue indices, int64_t depth, DType dtype = DType::F32,
              OneHotOptions options = {}, Site site = {});

} // namespace nnc

#endif // NNC_TRACE_TRACER_H
