//===- TraceDetail.h - how the tracer builds one op -------------*- C++ -*-===//
//
// Private to lib/Trace. Every op function resolves the tracer its operands
// belong to, infers the result types through the op's static
// inferReturnTypes (so inference failures become recorded errors rather than
// the fatal error of the ODS builders), creates the op at the caller's
// location and verifies it, capturing diagnostics into the tracer's error.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LIB_TRACE_TRACEDETAIL_H
#define NNC_LIB_TRACE_TRACEDETAIL_H

#include "nnc/NNCOps.h"
#include "nnc/Trace/Tracer.h"
#include "nnc/runtime/HostTensor.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace nnc {
namespace trace_impl {

/// Resolves the tracer shared by `operands`. Absent operands are skipped
/// when `optional` says so, and are an error otherwise. Returns null (having
/// recorded an error where there is a tracer to record it on) if an operand
/// is absent, poisoned, from another tracer, or the tracer cannot trace.
Tracer *resolve(const Site &site, llvm::StringRef opName,
                llvm::ArrayRef<TValue> operands,
                llvm::ArrayRef<bool> optional = {});

/// Collects the first error diagnostic emitted while it lives, so a failed
/// inference or verification becomes the tracer's error.
class DiagnosticCapture {
public:
  explicit DiagnosticCapture(mlir::MLIRContext *ctx);
  /// The first error's message without the "'nnc.foo' op " prefix.
  std::string message(llvm::StringRef opName) const;

private:
  std::string first_;
  mlir::ScopedDiagnosticHandler handler_;
};

/// Verifies `op` just created by `tracer`; on failure erases it and records
/// the captured error. Returns its results, or an empty vector on failure.
llvm::SmallVector<mlir::Value> finishOp(Tracer &tracer, const Site &site,
                                        mlir::Operation *op,
                                        const DiagnosticCapture &capture);

/// Records the failure of `opName` at `site` from the captured diagnostics.
void recordFailure(Tracer &tracer, const Site &site, llvm::StringRef opName,
                   const DiagnosticCapture &capture);

/// Builds an OpT whose result types its inferReturnTypes computes from
/// `operands` and the inherent attributes `attrs`. Returns the results, or
/// an empty vector after recording an error.
template <typename OpT>
llvm::SmallVector<mlir::Value>
buildInferred(Tracer &tracer, const Site &site, mlir::ValueRange operands,
              llvm::ArrayRef<mlir::NamedAttribute> attrs = {}) {
  mlir::MLIRContext *ctx = tracer.getContext();
  mlir::Location loc = tracer.getLoc(site);
  llvm::StringRef opName = OpT::getOperationName();
  DiagnosticCapture capture(ctx);
  mlir::DictionaryAttr dict = mlir::DictionaryAttr::get(ctx, attrs);
  // Inference reads attributes through the properties, not the dictionary.
  typename OpT::template InferredProperties<OpT> props{};
  llvm::SmallVector<mlir::Type> types;
  if (mlir::failed(OpT::setPropertiesFromAttr(
          props, dict, [&] { return mlir::emitError(loc); })) ||
      mlir::failed(OpT::inferReturnTypes(ctx, loc, operands, dict,
                                         mlir::OpaqueProperties(&props),
                                         mlir::RegionRange(), types))) {
    recordFailure(tracer, site, opName, capture);
    return {};
  }
  OpT op = OpT::create(tracer.getBuilder(), loc, types, operands, attrs);
  return finishOp(tracer, site, op.getOperation(), capture);
}

/// Builds an OpT whose result types are spelled out (reshape, expand, cast)
/// and verifies it.
template <typename OpT>
llvm::SmallVector<mlir::Value>
buildSpelled(Tracer &tracer, const Site &site, mlir::TypeRange types,
             mlir::ValueRange operands,
             llvm::ArrayRef<mlir::NamedAttribute> attrs = {}) {
  DiagnosticCapture capture(tracer.getContext());
  OpT op = OpT::create(tracer.getBuilder(), tracer.getLoc(site), types,
                       operands, attrs);
  return finishOp(tracer, site, op.getOperation(), capture);
}

/// The outcome of one traced op: its tracer (null only when no operand had
/// one) and its results (empty after a failure).
struct Traced {
  Tracer *tracer = nullptr;
  llvm::SmallVector<mlir::Value> results;

  /// Result `i`, poisoned after a failure.
  TValue operator[](unsigned i) const {
    if (!tracer)
      return TValue();
    return TValue(tracer, i < results.size() ? results[i] : mlir::Value());
  }
  operator TValue() const { return (*this)[0]; }
};

/// The runtime's element type of a traced one (the same table row).
runtime::DType toRuntimeDType(DType dtype);

/// The traced element type of a runtime one; none for the runtime's
/// host-only types (u8).
std::optional<DType> fromRuntimeDType(runtime::DType dtype);

/// Attribute helpers.
mlir::NamedAttribute namedI64(Tracer &t, llvm::StringRef name, int64_t v);
mlir::NamedAttribute namedF64(Tracer &t, llvm::StringRef name, double v);
mlir::NamedAttribute namedBool(Tracer &t, llvm::StringRef name, bool v);
mlir::NamedAttribute namedI64Array(Tracer &t, llvm::StringRef name,
                                   llvm::ArrayRef<int64_t> v);
mlir::NamedAttribute namedAttr(Tracer &t, llvm::StringRef name,
                               mlir::Attribute v);

/// Prints `type` as MLIR does, for messages.
std::string typeToString(mlir::Type type);

using AttrList = llvm::SmallVector<mlir::NamedAttribute>;

/// Traces an OpT with inferred result types. `optional[i]` marks operand i
/// as optional: absent optional operands are left out of the op.
/// `makeAttrs(Tracer &)` returns the op's inherent attributes.
template <typename OpT, typename AttrFn>
Traced trace(const Site &site, llvm::ArrayRef<TValue> operands,
             llvm::ArrayRef<bool> optional, AttrFn &&makeAttrs) {
  Traced out;
  out.tracer = resolve(site, OpT::getOperationName(), operands, optional);
  if (!out.tracer) {
    for (const TValue &v : operands)
      if (v.tracer()) {
        out.tracer = v.tracer();
        break;
      }
    return out;
  }
  llvm::SmallVector<mlir::Value> values;
  for (const TValue &v : operands)
    if (!v.isAbsent())
      values.push_back(v.value());
  AttrList attrs = makeAttrs(*out.tracer);
  out.results = buildInferred<OpT>(*out.tracer, site, values, attrs);
  return out;
}

/// Traces an OpT without attributes from required operands.
template <typename OpT>
Traced trace(const Site &site, llvm::ArrayRef<TValue> operands) {
  return trace<OpT>(site, operands, {}, [](Tracer &) { return AttrList(); });
}

} // namespace trace_impl
} // namespace nnc

#endif // NNC_LIB_TRACE_TRACEDETAIL_H
