//===- Utils.h - helpers shared by the nnc-to-linalg patterns ---*- C++ -*-===//
//
// Builders for the linalg-on-tensors shapes that several nnc op families
// lower to: broadcasting elementwise generics, reductions, unit-dim reshapes.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LIB_CONVERSION_NNCTOLINALG_UTILS_H
#define NNC_LIB_CONVERSION_NNCTOLINALG_UTILS_H

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/DialectConversion.h"

namespace nnc::detail {

/// Computes a scalar from the block arguments of a generic's body.
using ScalarFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// Sizes of a ranked tensor value, dynamic ones as `tensor.dim`.
llvm::SmallVector<mlir::OpFoldResult>
getDims(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);

/// A `tensor.empty` of `type` whose dynamic sizes are taken from `dims`.
mlir::Value createEmpty(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::RankedTensorType type,
                        llvm::ArrayRef<mlir::OpFoldResult> dims);

/// A tensor of `type` (sizes from `dims`) filled with `value`.
mlir::Value createFilled(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::RankedTensorType type,
                         llvm::ArrayRef<mlir::OpFoldResult> dims,
                         mlir::Value value);

/// An all-parallel linalg.generic producing `init`'s type, reading `inputs`
/// through `maps`; `body` gets one scalar per input (the output scalar is not
/// passed).
mlir::Value buildParallelGeneric(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value init,
                                 llvm::ArrayRef<mlir::Value> inputs,
                                 llvm::ArrayRef<mlir::AffineMap> maps,
                                 ScalarFn body);

/// Elementwise generic with numpy broadcasting of `inputs` to `resultType`.
/// Trailing dimensions align; a static input dimension of 1 broadcasts
/// (affine map constant 0). A dynamic input dimension is assumed to equal the
/// result's. Fails with `reason` set when a dynamic result dimension has no
/// input dimension to take its size from.
mlir::FailureOr<mlir::Value> buildBroadcastGeneric(
    mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType resultType,
    llvm::ArrayRef<mlir::Value> inputs, ScalarFn body, std::string &reason);

/// Reduces `input` over the sorted `axes` with linalg.reduce (the reduced
/// dimensions disappear); `combine(b, loc, {element, accumulator})` returns
/// the new accumulator, which starts at `init`.
mlir::Value buildReduction(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value input, llvm::ArrayRef<int64_t> axes,
                           mlir::Value init, ScalarFn combine);

/// Reassociation that groups each dimension of `fullRank` dims listed in
/// `unitDims` with a neighbouring kept dimension (empty when none is kept).
llvm::SmallVector<mlir::ReassociationIndices>
getUnitDimReassociation(int64_t fullRank, llvm::ArrayRef<int64_t> unitDims);

/// Map from the `fullRank` loop dimensions to those not in `dropped`.
mlir::AffineMap getDroppingMap(mlir::MLIRContext *ctx, int64_t fullRank,
                               llvm::ArrayRef<int64_t> dropped);

/// Scalar helpers.
bool isFloat(mlir::Type t);
mlir::Value floatConst(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t,
                       double v);
mlir::Value intConst(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t,
                     int64_t v);
/// Identity element of max (lowest value) or min (highest value) for `t`.
mlir::Value extremeConst(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t,
                         bool lowest);
/// Product of the sizes of `axes` of `v` as a scalar of element type `t`.
mlir::Value countAsScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                          llvm::ArrayRef<int64_t> axes, mlir::Type t);

void populateElementwisePatterns(mlir::RewritePatternSet &patterns);
void populateStructuredPatterns(mlir::RewritePatternSet &patterns);
void populateShapePatterns(mlir::RewritePatternSet &patterns);
void populateNNPatterns(mlir::RewritePatternSet &patterns);

} // namespace nnc::detail

#endif // NNC_LIB_CONVERSION_NNCTOLINALG_UTILS_H
