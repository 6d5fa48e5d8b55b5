//===- ElementTypes.cpp - MLIR element types and runtime dtypes -----------===//
//
// A row's Class and byte size (DTypes.def) determine its MLIR type, so a new
// row needs no code here unless it brings a new class or float format.
//
//===----------------------------------------------------------------------===//

#include "nnc/Compiler/ElementTypes.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
namespace rt = nnc::runtime;

Type nnc::mlirTypeOf(rt::DType dtype, MLIRContext *ctx) {
  unsigned bits = static_cast<unsigned>(rt::dtypeSize(dtype)) * 8;
  switch (rt::dtypeClass(dtype)) {
  case rt::DTypeClass::IEEEFloat:
    switch (bits) {
    case 16:
      return Float16Type::get(ctx);
    case 32:
      return Float32Type::get(ctx);
    case 64:
      return Float64Type::get(ctx);
    default:
      return {};
    }
  case rt::DTypeClass::BFloat:
    return BFloat16Type::get(ctx);
  case rt::DTypeClass::SignedInt:
    return IntegerType::get(ctx, bits);
  case rt::DTypeClass::UnsignedInt:
    return IntegerType::get(ctx, bits, IntegerType::Unsigned);
  case rt::DTypeClass::Bool:
    return IntegerType::get(ctx, 1);
  }
  return {};
}

FailureOr<rt::DType> nnc::dtypeOf(Type type) {
  if (!type)
    return failure();
  MLIRContext *ctx = type.getContext();
  auto find = [&](Type wanted) -> FailureOr<rt::DType> {
    for (size_t i = 0; i < rt::kNumDTypes; ++i) {
      auto dtype = static_cast<rt::DType>(i);
      if (mlirTypeOf(dtype, ctx) == wanted)
        return dtype;
    }
    return failure();
  };
  if (FailureOr<rt::DType> exact = find(type); succeeded(exact))
    return exact;
  // The table spells two's-complement integers signless; signed ones hold the
  // same bytes, and so does a one-bit bool of either signedness.
  if (auto integer = dyn_cast<IntegerType>(type))
    if (integer.isSigned() || integer.getWidth() == 1)
      return find(IntegerType::get(ctx, integer.getWidth()));
  return failure();
}
