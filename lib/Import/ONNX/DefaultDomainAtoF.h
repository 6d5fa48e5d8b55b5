//===- DefaultDomainAtoF.h - helpers of the A-F converters ------*- C++ -*-===//
//
// Shared by DefaultDomainAtoF.cpp (which defines them) and
// DefaultDomainAtoFNN.cpp (conv, pooling, normalization, dropout, einsum).
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LIB_IMPORT_ONNX_DEFAULTDOMAINATOF_H
#define NNC_LIB_IMPORT_ONNX_DEFAULTDOMAINATOF_H

#include "Converter.h"

namespace nnc::onnx_import {
namespace atof {

/// Input `i` and its ranked tensor type; fails naming `what` when absent or
/// unranked.
mlir::FailureOr<std::pair<mlir::Value, mlir::RankedTensorType>>
rankedInput(NodeContext &ctx, unsigned i, llvm::StringRef what);

/// The single value of optional input `i`, known at import time; empty when
/// the input is absent.
mlir::FailureOr<std::optional<double>>
optionalScalarFloat(NodeContext &ctx, unsigned i, llvm::StringRef what);

/// Reshapes `value` to `shape` unless it already has it; unsupported (naming
/// `why`) when the target has more than one dynamic dimension.
mlir::FailureOr<mlir::Value> reshapeTo(NodeContext &ctx, mlir::Value value,
                                       llvm::ArrayRef<int64_t> shape,
                                       llvm::StringRef why);

} // namespace atof

/// Registers the converters of DefaultDomainAtoFNN.cpp.
void populateDefaultDomainAtoFNN(OpRegistry &registry);

} // namespace nnc::onnx_import

#endif // NNC_LIB_IMPORT_ONNX_DEFAULTDOMAINATOF_H
