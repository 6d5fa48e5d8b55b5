//===- NNCOps.h - nnc operations --------------------------------*- C++ -*-===//
//
// Declarations of every nnc op, one generated header per op family.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_DIALECT_NNCOPS_H
#define NNC_DIALECT_NNCOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "nnc/NNCDialect.h"
#include "nnc/ShapeUtils.h"

#include "nnc/NNCInterfaces.h.inc"

namespace nnc {
/// The resource run-time checks (nnc.check_index) write: the checks buffer.
struct CheckResource : public mlir::SideEffects::Resource::Base<CheckResource> {
  llvm::StringRef getName() final { return "nnc::CheckResource"; }
};
} // namespace nnc

#define GET_OP_CLASSES
#include "nnc/NNCElementwiseOps.h.inc"
#define GET_OP_CLASSES
#include "nnc/NNCLinalgOps.h.inc"
#define GET_OP_CLASSES
#include "nnc/NNCNNOps.h.inc"
#define GET_OP_CLASSES
#include "nnc/NNCReductionOps.h.inc"
#define GET_OP_CLASSES
#include "nnc/NNCShapeOps.h.inc"
#define GET_OP_CLASSES
#include "nnc/NNCDynamicShapeOps.h.inc"

#define GET_OP_CLASSES
#include "nnc/NNCLibraryOps.h.inc"

namespace nnc {
/// A convolution in the terms of nnc.library_conv: its direction, the
/// shapes of src, weights and dst, the window and whether a bias is added.
struct LibraryConvolution {
  llvm::StringRef direction;
  /// Sizes in the convolution's terms, [N, C, D...] and [N, M, O...]
  /// whatever the layout of the buffers.
  llvm::SmallVector<int64_t> src, weights, dst;
  /// The images' buffers are [N, D..., C] (library_conv's channels_last).
  bool channelsLast = false;
  /// Winograd's algorithm rather than the direct one (library_conv's
  /// winograd).
  bool winograd = false;
  llvm::SmallVector<int64_t> strides, dilations, pads;
  int64_t groups = 1;
  bool bias = false;
  /// Element types (f32, bf16 or f16) of src, weights, dst and the bias
  /// (f32 without one).
  mlir::Type srcElement, weightsElement, dstElement, biasElement;
  /// A forward convolution whose weights are the executable's constants:
  /// the glue keeps them in oneDNN's layout (set by the CPU target where
  /// it sees that; never by getLibraryConvolution).
  bool constantWeights = false;
};

/// `op` (nnc.conv, nnc.conv_transpose, nnc.conv_weight_grad) as one library
/// convolution; nothing, with the reason in `why`, when it is not one
/// (dynamic shapes, not f32/bf16/f16, more than 3 spatial dimensions, an
/// output_padding beyond the end pad).
std::optional<LibraryConvolution> getLibraryConvolution(mlir::Operation *op,
                                                        std::string &why);

/// Why Winograd's algorithm (library_conv's winograd) cannot compute
/// `conv`: it takes 2-D 3x3 convolutions with strides and dilations 1, one
/// group and f32 operands; nothing when it can (whether the library has it
/// on this CPU is the target's question).
std::optional<std::string> whyNotWinograd(const LibraryConvolution &conv);

/// Appends the result types `op` infers (InferTypeOpInterface) or refines
/// (ShapeRefinementOpInterface) from its current operands and attributes,
/// one per result; appends nothing for an op that does neither. Fails with
/// the op's error when they contradict it.
llvm::LogicalResult inferResultTypes(mlir::Operation *op,
                                     llvm::SmallVectorImpl<mlir::Type> &types);
} // namespace nnc

#endif // NNC_DIALECT_NNCOPS_H
