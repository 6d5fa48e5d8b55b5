//===- Tracer.cpp - the tracer: declarations, outputs, errors -------------===//
//
// The Tracer records a model into one func.func: inputs and parameters are
// block arguments (inputs first), outputs the returned values. Errors are
// recorded once, at the first failing call, and poison every later one.
//
//===----------------------------------------------------------------------===//

#include "TraceDetail.h"

#include "nnc/Compiler/ElementTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace nnc;

//===----------------------------------------------------------------------===//
// Types and values
//===----------------------------------------------------------------------===//

runtime::DType trace_impl::toRuntimeDType(DType dtype) {
  switch (dtype) {
#define NNC_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr)                   \
  case DType::Enum:                                                            \
    return runtime::DType::Enum;
#define NNC_HOST_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr)
#include "nnc/runtime/DTypes.def"
  }
  return runtime::DType::F32;
}

std::optional<DType> trace_impl::fromRuntimeDType(runtime::DType dtype) {
  switch (dtype) {
#define NNC_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr)                   \
  case runtime::DType::Enum:                                                   \
    return DType::Enum;
#define NNC_HOST_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr)              \
  case runtime::DType::Enum:                                                   \
    return std::nullopt;
#include "nnc/runtime/DTypes.def"
  }
  return std::nullopt;
}

Type nnc::getElementType(MLIRContext *ctx, DType dtype) {
  return mlirTypeOf(trace_impl::toRuntimeDType(dtype), ctx);
}

RankedTensorType TValue::getType() const {
  return value_ ? dyn_cast<RankedTensorType>(value_.getType())
                : RankedTensorType();
}

std::vector<int64_t> TValue::shape() const {
  std::vector<int64_t> dims;
  if (RankedTensorType type = getType())
    for (int64_t d : type.getShape())
      dims.push_back(ShapedType::isDynamic(d) ? -1 : d);
  return dims;
}

int64_t TValue::rank() const {
  RankedTensorType type = getType();
  return type ? type.getRank() : 0;
}

/// Formats a double as %g does ("0.02", "1e-09").
static std::string formatDouble(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

std::string Init::str() const {
  switch (kind) {
  case Kind::Zeros:
    return "zeros";
  case Kind::Ones:
    return "ones";
  case Kind::Constant:
    return "constant(" + formatDouble(a) + ")";
  case Kind::Uniform:
    return "uniform(" + formatDouble(a) + ", " + formatDouble(b) + ")";
  case Kind::Normal:
    return "normal(" + formatDouble(a) + ", " + formatDouble(b) + ")";
  case Kind::KaimingUniform:
    return "kaiming_uniform(gain=" + formatDouble(a) + ")";
  case Kind::KaimingNormal:
    return "kaiming_normal(gain=" + formatDouble(a) + ")";
  case Kind::XavierUniform:
    return "xavier_uniform(gain=" + formatDouble(a) + ")";
  case Kind::XavierNormal:
    return "xavier_normal(gain=" + formatDouble(a) + ")";
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// Tracer
//===----------------------------------------------------------------------===//

Tracer::Tracer(MLIRContext &ctx, StringRef funcName)
    : ctx_(&ctx), builder_(&ctx), funcName_(funcName.str()) {
  ctx.getOrLoadDialect<NNCDialect>();
  ctx.getOrLoadDialect<func::FuncDialect>();
  Location loc = UnknownLoc::get(&ctx);
  module_ = ModuleOp::create(loc);
  builder_.setInsertionPointToEnd(module_->getBody());
  auto func = func::FuncOp::create(builder_, loc, funcName,
                                   builder_.getFunctionType({}, {}));
  body_ = func.addEntryBlock();
  builder_.setInsertionPointToEnd(body_);
}

Tracer::~Tracer() = default;

Location Tracer::getLoc(const Site &site) {
  return FileLineColLoc::get(ctx_, site.file ? site.file : "<unknown>",
                             site.line > 0 ? site.line : 0, 0);
}

void Tracer::recordError(const Site &site, StringRef what, StringRef message) {
  if (!error_.empty())
    return;
  error_ = llvm::formatv("{0}:{1}: {2}: {3}", site.file ? site.file : "?",
                         site.line, what, message)
               .str();
}

bool Tracer::checkActive(const Site &site, StringRef what) {
  if (finished_) {
    recordError(site, what, "the tracer has already finished");
    return false;
  }
  return ok();
}

bool Tracer::checkName(StringRef name, const Site &site, StringRef what) {
  if (name.empty()) {
    recordError(site, what, "needs a name");
    return false;
  }
  if (llvm::is_contained(names_, name.str())) {
    recordError(site, what,
                llvm::formatv("'{0}' is already declared", name).str());
    return false;
  }
  names_.push_back(name.str());
  return true;
}

/// Checks a user-written shape (-1 = dynamic) and converts it.
static bool convertShape(Tracer &t, const Site &site, StringRef what,
                         ArrayRef<int64_t> shape, bool allowDynamic,
                         SmallVectorImpl<int64_t> &dims) {
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == -1 && allowDynamic) {
      dims.push_back(ShapedType::kDynamic);
      continue;
    }
    if (d < 0) {
      t.recordError(site, what,
                    llvm::formatv("dimension {0} is {1}; {2}", i, d,
                                  allowDynamic
                                      ? "use -1 for a dynamic dimension"
                                      : "the shape must be static")
                        .str());
      return false;
    }
    dims.push_back(d);
  }
  return true;
}

TValue Tracer::input(StringRef name, ArrayRef<int64_t> shape, DType dtype,
                     Site site) {
  SmallVector<int64_t> dims;
  if (!checkActive(site, "input") || !checkName(name, site, "input") ||
      !convertShape(*this, site, "input '" + name.str() + "'", shape,
                    /*allowDynamic=*/true, dims))
    return TValue(this, Value());
  auto type = RankedTensorType::get(dims, getElementType(ctx_, dtype));
  Location loc = NameLoc::get(builder_.getStringAttr(name), getLoc(site));
  BlockArgument arg = body_->insertArgument(numInputs_++, type, loc);
  return TValue(this, arg);
}

TValue Tracer::declareParam(StringRef name, ArrayRef<int64_t> shape,
                            DType dtype, Init init, ParamKind kind, Site site) {
  std::string what =
      llvm::formatv("{0} '{1}'", stringifyParamKind(kind), name).str();
  SmallVector<int64_t> dims;
  if (!checkActive(site, what) || !checkName(name, site, what) ||
      !convertShape(*this, site, what, shape, /*allowDynamic=*/false, dims))
    return TValue(this, Value());
  if (init.kind == Init::Kind::Uniform && !(init.a <= init.b)) {
    recordError(site, what,
                "uniform bounds [" + formatDouble(init.a) + ", " +
                    formatDouble(init.b) + "] are empty");
    return TValue(this, Value());
  }
  if (init.kind == Init::Kind::Normal && !(init.b >= 0.0)) {
    recordError(site, what,
                "normal stddev " + formatDouble(init.b) + " is negative");
    return TValue(this, Value());
  }
  auto type = RankedTensorType::get(dims, getElementType(ctx_, dtype));
  Location loc = NameLoc::get(builder_.getStringAttr(name), getLoc(site));
  BlockArgument arg = body_->addArgument(type, loc);
  params_.push_back(ParamInfo{name.str(),
                              std::vector<int64_t>(shape.begin(), shape.end()),
                              dtype, kind, init, /*argIndex=*/0});
  return TValue(this, arg);
}

TValue Tracer::parameter(StringRef name, ArrayRef<int64_t> shape, DType dtype,
                         Init init, Site site) {
  return declareParam(name, shape, dtype, init, ParamKind::trainable, site);
}

TValue Tracer::frozen(StringRef name, ArrayRef<int64_t> shape, DType dtype,
                      Init init, Site site) {
  return declareParam(name, shape, dtype, init, ParamKind::frozen, site);
}

TValue Tracer::buffer(StringRef name, ArrayRef<int64_t> shape, DType dtype,
                      Init init, Site site) {
  return declareParam(name, shape, dtype, init, ParamKind::buffer, site);
}

TValue Tracer::constant(ArrayRef<double> values, ArrayRef<int64_t> shape,
                        DType dtype, Site site) {
  StringRef what = ConstantOp::getOperationName();
  SmallVector<int64_t> dims;
  if (!checkActive(site, what) ||
      !convertShape(*this, site, what, shape, /*allowDynamic=*/false, dims))
    return TValue(this, Value());
  std::optional<int64_t> count = getNumElements(dims);
  if (!count) {
    recordError(site, what, "the element count overflows int64");
    return TValue(this, Value());
  }
  if (values.size() != 1 && static_cast<int64_t>(values.size()) != *count) {
    recordError(site, what,
                llvm::formatv("{0} values given for shape {1} of {2} elements",
                              values.size(), formatShape(dims), *count)
                    .str());
    return TValue(this, Value());
  }
  Type elementType = getElementType(ctx_, dtype);
  auto type = RankedTensorType::get(dims, elementType);
  SmallVector<Attribute> elements;
  for (double v : values) {
    if (isa<FloatType>(elementType)) {
      elements.push_back(FloatAttr::get(elementType, v));
      continue;
    }
    unsigned width = elementType.getIntOrFloatBitWidth();
    double lo = width == 1 ? 0.0 : -std::ldexp(1.0, width - 1);
    double hi = width == 1 ? 2.0 : std::ldexp(1.0, width - 1);
    if (v != std::trunc(v) || v < lo || v >= hi) {
      recordError(site, what,
                  "value " + formatDouble(v) + " is not representable in " +
                      trace_impl::typeToString(elementType));
      return TValue(this, Value());
    }
    elements.push_back(
        IntegerAttr::get(elementType, APInt(width, static_cast<int64_t>(v),
                                            /*isSigned=*/width != 1)));
  }
  DenseElementsAttr attr = elements.size() == 1
                               ? DenseElementsAttr::get(type, elements.front())
                               : DenseElementsAttr::get(type, elements);
  return trace_impl::Traced{
      this,
      trace_impl::buildInferred<ConstantOp>(
          *this, site, {}, {trace_impl::namedAttr(*this, "value", attr)})};
}

TValue Tracer::full(ArrayRef<int64_t> shape, double value, DType dtype,
                    Site site) {
  return constant({value}, shape, dtype, site);
}

TValue Tracer::scalar(double value, DType dtype, Site site) {
  return constant({value}, {}, dtype, site);
}

void Tracer::output(TValue value, Site site) {
  if (!checkActive(site, "output"))
    return;
  if (!trace_impl::resolve(site, "output", {value}))
    return;
  if (value.tracer() != this) {
    recordError(site, "output", "the value comes from another tracer");
    return;
  }
  outputs_.push_back(value.value());
}

void Tracer::outputs(ArrayRef<TValue> values, Site site) {
  for (const TValue &v : values)
    output(v, site);
}

OwningOpRef<ModuleOp> Tracer::finish(Site site) {
  if (!checkActive(site, "finish"))
    return nullptr;
  finished_ = true;
  if (outputs_.empty()) {
    recordError(site, "finish", "no outputs were marked");
    return nullptr;
  }
  Location loc = getLoc(site);
  func::ReturnOp::create(builder_, loc, outputs_);
  auto func = llvm::cast<func::FuncOp>(body_->getParentOp());
  func.setFunctionType(builder_.getFunctionType(
      body_->getArgumentTypes(), ValueRange(outputs_).getTypes()));
  for (auto [i, param] : llvm::enumerate(params_)) {
    param.argIndex = numInputs_ + i;
    func.setArgAttr(param.argIndex, NNCDialect::getParamAttrName(),
                    ParamKindAttr::get(ctx_, param.kind));
  }
  trace_impl::DiagnosticCapture capture(ctx_);
  if (failed(verify(*module_))) {
    recordError(site, "finish", capture.message(""));
    return nullptr;
  }
  return std::move(module_);
}

//===----------------------------------------------------------------------===//
// Building ops
//===----------------------------------------------------------------------===//

Tracer *trace_impl::resolve(const Site &site, StringRef opName,
                            ArrayRef<TValue> operands,
                            ArrayRef<bool> optional) {
  Tracer *tracer = nullptr;
  for (const TValue &v : operands) {
    if (!v.tracer())
      continue;
    if (!tracer) {
      tracer = v.tracer();
      continue;
    }
    if (v.tracer() != tracer) {
      std::string message = "operands come from different tracers";
      tracer->recordError(site, opName, message);
      v.tracer()->recordError(site, opName, message);
      return nullptr;
    }
  }
  if (!tracer)
    return nullptr;
  if (!tracer->isActive()) {
    // Report use after finish(); an earlier error stays the first one.
    if (tracer->ok())
      tracer->recordError(site, opName, "the tracer has already finished");
    return nullptr;
  }
  for (auto [i, v] : llvm::enumerate(operands)) {
    bool isOptional = i < optional.size() && optional[i];
    if (v.isAbsent() && !isOptional) {
      tracer->recordError(site, opName,
                          llvm::formatv("operand {0} is empty", i).str());
      return nullptr;
    }
    if (v.isPoisoned()) {
      // Only reachable if the tracer is ok, which a poisoned value never
      // leaves it: keep the invariant explicit anyway.
      tracer->recordError(site, opName,
                          llvm::formatv("operand {0} is poisoned", i).str());
      return nullptr;
    }
  }
  return tracer;
}

trace_impl::DiagnosticCapture::DiagnosticCapture(MLIRContext *ctx)
    : handler_(ctx, [this](Diagnostic &diag) {
        if (diag.getSeverity() == DiagnosticSeverity::Error && first_.empty())
          first_ = diag.str();
        return success();
      }) {}

std::string trace_impl::DiagnosticCapture::message(StringRef opName) const {
  if (first_.empty())
    return "failed without a diagnostic";
  StringRef text = first_;
  std::string prefix = ("'" + opName + "' op ").str();
  text.consume_front(prefix);
  return text.str();
}

void trace_impl::recordFailure(Tracer &tracer, const Site &site,
                               StringRef opName,
                               const DiagnosticCapture &capture) {
  tracer.recordError(site, opName, capture.message(opName));
}

SmallVector<Value> trace_impl::finishOp(Tracer &tracer, const Site &site,
                                        Operation *op,
                                        const DiagnosticCapture &capture) {
  if (succeeded(verify(op, /*verifyRecursively=*/false)))
    return SmallVector<Value>(op->getResults());
  StringRef opName = op->getName().getStringRef();
  recordFailure(tracer, site, opName, capture);
  op->erase();
  return {};
}

NamedAttribute trace_impl::namedI64(Tracer &t, StringRef name, int64_t v) {
  return namedAttr(t, name, t.getBuilder().getI64IntegerAttr(v));
}

NamedAttribute trace_impl::namedF64(Tracer &t, StringRef name, double v) {
  return namedAttr(t, name, t.getBuilder().getF64FloatAttr(v));
}

NamedAttribute trace_impl::namedBool(Tracer &t, StringRef name, bool v) {
  return namedAttr(t, name, t.getBuilder().getBoolAttr(v));
}

NamedAttribute trace_impl::namedI64Array(Tracer &t, StringRef name,
                                         ArrayRef<int64_t> v) {
  return namedAttr(t, name, t.getBuilder().getDenseI64ArrayAttr(v));
}

NamedAttribute trace_impl::namedAttr(Tracer &t, StringRef name, Attribute v) {
  return t.getBuilder().getNamedAttr(name, v);
}

std::string trace_impl::typeToString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}
