//===- Utils.h - helpers shared by the nnc-to-linalg patterns ---*- C++ -*-===//
//
// Builders for the linalg-on-tensors shapes that several nnc op families
// lower to: broadcasting elementwise generics, reductions, unit-dim reshapes,
// float conversions, softmax, channel groups and convolution/pooling windows
// (defined in Utils.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef NNC_LIB_CONVERSION_NNCTOLINALG_UTILS_H
#define NNC_LIB_CONVERSION_NNCTOLINALG_UTILS_H

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/DialectConversion.h"

#include <optional>
#include <string>
#include <tuple>

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

/// The index in `inputs` of the first operand whose dimension, aligned to
/// dimension `dim` of a rank-`rank` broadcast result (trailing dimensions
/// aligned), is not a static 1: the one a dynamic result size is read from.
std::optional<size_t> findBroadcastSizeSource(mlir::TypeRange inputs,
                                              int64_t rank, int64_t dim);

/// Why buildBroadcastGeneric cannot broadcast operands of types `inputs` to
/// `resultType` (a dynamic result dimension that no operand sizes), or
/// std::nullopt when it can.
std::optional<std::string> whyCannotBroadcast(mlir::RankedTensorType resultType,
                                              mlir::TypeRange inputs);

/// Elementwise generic with numpy broadcasting of `inputs` to `resultType`.
/// Trailing dimensions align; a static input dimension of 1 broadcasts
/// (affine map constant 0). A dynamic input dimension is assumed to equal the
/// result's. Fails with `reason` set when a dynamic result dimension has no
/// input dimension to take its size from (see whyCannotBroadcast).
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

/// Map reading an operand that broadcasts (numpy, trailing-aligned) to the
/// last dimensions of `loopShape`: a static 1 against a non-1 loop
/// dimension reads index 0.
mlir::AffineMap trailingBroadcastMap(mlir::MLIRContext *ctx,
                                     llvm::ArrayRef<int64_t> loopShape,
                                     mlir::RankedTensorType operand);

/// `axis` counted from the back when negative (the verifiers bound it).
inline int64_t wrapAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// Elementwise map over same-shaped `inputs` into element type `t`.
mlir::Value mapTensor(mlir::OpBuilder &b, mlir::Location loc,
                      llvm::ArrayRef<mlir::Value> inputs, mlir::Type t,
                      ScalarFn body);

/// A generic over `full`'s shape (element type `t`) reading `full` and
/// tensors that lack the dimensions `axes`.
mlir::Value broadcastBack(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value full, llvm::ArrayRef<mlir::Value> reduced,
                          llvm::ArrayRef<int64_t> axes, mlir::Type t,
                          ScalarFn body);

/// The type arithmetic happens in: f32 for the 16-bit floats, else `t`.
mlir::Type computeType(mlir::Type t);
/// Converts a float scalar to the float type `to` (f16 <-> bf16 via f32).
mlir::Value convertFloat(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                         mlir::Type to);
/// Converts every element of a float tensor to `t` (no-op when equal).
mlir::Value convertTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                          mlir::Type t);

/// Sum over `axes` (dropped) of a tensor.
mlir::Value sumOver(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                    llvm::ArrayRef<int64_t> axes);
/// Restores the reduced `axes` as size-1 dimensions of `keptType`
/// (converting the float element type when it differs).
mlir::Value keepDims(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::Value reduced, mlir::RankedTensorType keptType,
                     llvm::ArrayRef<int64_t> axes);

/// Numerically stable softmax pieces of a float tensor along `axis`:
/// {max, exp(x - max), sum(exp(x - max))}, the reductions dropping `axis`.
std::tuple<mlir::Value, mlir::Value, mlir::Value>
softmaxParts(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
             int64_t axis);
/// log_softmax along `axis` of a float tensor in its own element type.
mlir::Value logSoftmax(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       int64_t axis);

/// Reinterprets the contiguous static tensor `v` as `shape` with
/// tensor.reshape, which elementwise fusion leaves alone (it would fold
/// expand/collapse_shape next to a linalg.matmul into a generic that no
/// library call takes); bufferizes to memref.reshape, without a copy.
mlir::Value reshapeOpaque(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                          llvm::ArrayRef<int64_t> shape);

//===----------------------------------------------------------------------===//
// Run-time checks
//===----------------------------------------------------------------------===//

/// How a run-time check names `op` in its error: the op without its dialect
/// and its name in the model, e.g. "gather '/embed/Gather'" (the first
/// NameLoc of its location; the op alone without one).
std::string describeForCheck(mlir::Operation *op);

/// "f32[100x16]"-style text of a tensor type, for checks' descriptions.
std::string describeTensorType(mlir::Type type);

/// The integer index element `idx` as an `index` checked at run time to lie
/// in [-size, size) when `negativeCounts` (a negative index then counts back
/// from `size`, ONNX's convention for gathers and scatters), else in
/// [0, size). Out of range, the check (nnc.check_index, named by `what`)
/// records it and the index is 0. Returns the index and whether it was in
/// range (an i1).
std::pair<mlir::Value, mlir::Value>
checkIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value idx,
           mlir::Value size, bool negativeCounts, llvm::StringRef what);

/// Scalar helpers.
bool isFloat(mlir::Type t);
mlir::Value floatConst(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t,
                       double v);
mlir::Value intConst(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t,
                     int64_t v);
mlir::Value zeroOf(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t);
/// x + y and x * y, float or integer by the operands' type.
mlir::Value addValues(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      mlir::Value y);
mlir::Value mulValues(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      mlir::Value y);
/// Identity element of max (lowest value) or min (highest value) for `t`.
mlir::Value extremeConst(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t,
                         bool lowest);
/// Product of the sizes of `axes` of `v` as a scalar of element type `t`.
mlir::Value countAsScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                          llvm::ArrayRef<int64_t> axes, mlir::Type t);

//===----------------------------------------------------------------------===//
// Channels, spatial dimensions and windows (convolution, pooling,
// normalization)
//===----------------------------------------------------------------------===//

/// `n` parallel iterators.
llvm::SmallVector<mlir::utils::IteratorType> parallelIterators(int64_t n);

/// Splits the static dimension `dim` of `v` into [outer, size / outer].
mlir::Value splitDim(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                     int64_t dim, int64_t outer);

/// Merges dimensions `dim` and `dim + 1` of `v`.
mlir::Value mergeDims(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                      int64_t dim);

/// Pads the trailing spatial dimensions (from 2 on) of `v` with `value`.
mlir::Value padSpatial(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                       llvm::ArrayRef<int64_t> low,
                       llvm::ArrayRef<int64_t> high, mlir::Value value);

/// Map reading a parameter at the loop dimensions `dims` of `rank` loops
/// (a `[C]` parameter at dimension 1, say).
mlir::AffineMap dimMap(mlir::MLIRContext *ctx, int64_t rank,
                       llvm::ArrayRef<int64_t> dims);

/// True when every dimension of `t` from `from` on is static.
bool staticFrom(mlir::RankedTensorType t, int64_t from);

/// Why a windowed op (convolution, pooling) cannot be lowered when one of
/// its `batched` tensors has a dynamic dimension other than the batch or one
/// of its `whole` tensors (a kernel) a dynamic dimension; std::nullopt when
/// all are static so.
std::optional<std::string>
whyNotStaticButBatch(llvm::ArrayRef<mlir::RankedTensorType> batched,
                     llvm::ArrayRef<mlir::RankedTensorType> whole = {});

/// Window attributes with their defaults filled in.
struct Window {
  llvm::SmallVector<int64_t> strides, dilations, padBegin, padEnd;
};

/// The window of `n` spatial dimensions: strides and dilations 1 and no
/// pads where the attributes are absent.
Window getWindow(std::optional<llvm::ArrayRef<int64_t>> strides,
                 std::optional<llvm::ArrayRef<int64_t>> dilations,
                 std::optional<llvm::ArrayRef<int64_t>> pads, int64_t n);

} // namespace nnc::detail

#endif // NNC_LIB_CONVERSION_NNCTOLINALG_UTILS_H
