//===- ElementTypes.h - MLIR element types and runtime dtypes ---*- C++ -*-===//
//
// The one place where the compiler maps MLIR element types to the runtime's
// element types (nnc::runtime::DType) and back, driven by the rows of
// runtime/include/nnc/runtime/DTypes.def. Everything that packages values
// for the runtime, traces graphs or crosses the C API goes through these.
//
//===----------------------------------------------------------------------===//

#ifndef NNC_COMPILER_ELEMENTTYPES_H
#define NNC_COMPILER_ELEMENTTYPES_H

#include "nnc/runtime/HostTensor.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"

namespace nnc {

/// The runtime element type of `type`. Integers match by width, signless or
/// signed alike (si32 is i32), unsigned ones only an unsigned row (ui8);
/// a bool is i1 of any signedness. Fails for every other type (f8, i16,
/// complex, index...).
mlir::FailureOr<runtime::DType> dtypeOf(mlir::Type type);

/// The MLIR element type of `dtype`: f32, f16, bf16, f64, i64, i32, i8 and
/// i1 are signless builtin types; u8 is ui8.
mlir::Type mlirTypeOf(runtime::DType dtype, mlir::MLIRContext *ctx);

} // namespace nnc

#endif // NNC_COMPILER_ELEMENTTYPES_H
