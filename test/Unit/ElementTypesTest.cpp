//===- ElementTypesTest.cpp - MLIR element types and runtime dtypes -------===//
//
// Every row of the element-type table maps to an MLIR type and back to
// itself, the tracer's types are the table's graph rows, and the types the
// runtime has no row for are refused.
//
//===----------------------------------------------------------------------===//

#include "nnc/Compiler/ElementTypes.h"
#include "nnc/Trace/Tracer.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace mlir;
namespace rt = nnc::runtime;

namespace {

std::string print(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

TEST(ElementTypes, EveryRowRoundTrips) {
  MLIRContext ctx;
  std::set<std::string> seen;
  for (size_t i = 0; i < rt::kNumDTypes; ++i) {
    auto dtype = static_cast<rt::DType>(i);
    SCOPED_TRACE(rt::dtypeName(dtype));
    Type type = nnc::mlirTypeOf(dtype, &ctx);
    ASSERT_TRUE(type);
    EXPECT_TRUE(seen.insert(print(type)).second) << "two rows, one type";
    FailureOr<rt::DType> back = nnc::dtypeOf(type);
    ASSERT_TRUE(succeeded(back));
    EXPECT_EQ(*back, dtype);
    // The storage size agrees with the type's width (bool: one byte, i1).
    unsigned width = type.getIntOrFloatBitWidth();
    EXPECT_EQ(rt::dtypeClass(dtype) == rt::DTypeClass::Bool ? 8u : width,
              rt::dtypeSize(dtype) * 8);
  }
}

TEST(ElementTypes, MapsTheExpectedTypes) {
  MLIRContext ctx;
  Builder b(&ctx);
  EXPECT_EQ(nnc::mlirTypeOf(rt::DType::F32, &ctx), b.getF32Type());
  EXPECT_EQ(nnc::mlirTypeOf(rt::DType::F16, &ctx), b.getF16Type());
  EXPECT_EQ(nnc::mlirTypeOf(rt::DType::BF16, &ctx), b.getBF16Type());
  EXPECT_EQ(nnc::mlirTypeOf(rt::DType::F64, &ctx), b.getF64Type());
  EXPECT_EQ(nnc::mlirTypeOf(rt::DType::I64, &ctx), b.getI64Type());
  EXPECT_EQ(nnc::mlirTypeOf(rt::DType::I32, &ctx), b.getI32Type());
  EXPECT_EQ(nnc::mlirTypeOf(rt::DType::I8, &ctx), b.getI8Type());
  EXPECT_EQ(nnc::mlirTypeOf(rt::DType::U8, &ctx),
            b.getIntegerType(8, /*isSigned=*/false));
  EXPECT_EQ(nnc::mlirTypeOf(rt::DType::Bool, &ctx), b.getI1Type());
}

TEST(ElementTypes, SignednessAndUnknownTypes) {
  MLIRContext ctx;
  Builder b(&ctx);
  auto dtypeOf = [](Type t) { return nnc::dtypeOf(t); };
  // Signed integers hold the bytes of the signless rows; bool is any i1.
  EXPECT_EQ(*dtypeOf(b.getIntegerType(32, /*isSigned=*/true)), rt::DType::I32);
  EXPECT_EQ(*dtypeOf(b.getIntegerType(8, /*isSigned=*/true)), rt::DType::I8);
  EXPECT_EQ(*dtypeOf(b.getIntegerType(1, /*isSigned=*/false)), rt::DType::Bool);
  // Unsigned integers match only an unsigned row.
  EXPECT_TRUE(failed(dtypeOf(b.getIntegerType(32, /*isSigned=*/false))));
  for (Type t : {Type(b.getI16Type()), Type(b.getIndexType()),
                 Type(Float8E4M3FNType::get(&ctx)), Type(b.getTF32Type()),
                 Type(ComplexType::get(b.getF32Type())), Type()})
    EXPECT_TRUE(failed(dtypeOf(t))) << (t ? print(t) : "null");
}

TEST(ElementTypes, TracerTypesAreTheGraphRows) {
  MLIRContext ctx;
  // The tracer's enum has the table's graph rows, by the same names.
  EXPECT_EQ(nnc::getElementType(&ctx, nnc::DType::F16),
            nnc::mlirTypeOf(rt::DType::F16, &ctx));
  EXPECT_EQ(nnc::getElementType(&ctx, nnc::DType::BF16),
            nnc::mlirTypeOf(rt::DType::BF16, &ctx));
  EXPECT_EQ(nnc::getElementType(&ctx, nnc::DType::I1),
            nnc::mlirTypeOf(rt::DType::Bool, &ctx));
#define NNC_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr)                   \
  EXPECT_EQ(nnc::getElementType(&ctx, nnc::DType::Enum),                       \
            nnc::mlirTypeOf(rt::DType::Enum, &ctx))                            \
      << Name;                                                                 \
  EXPECT_TRUE(rt::isGraphDType(rt::DType::Enum)) << Name;
#define NNC_HOST_DTYPE(Enum, CEnum, Name, Bytes, Class, NpyDescr)              \
  EXPECT_FALSE(rt::isGraphDType(rt::DType::Enum)) << Name;
#include "nnc/runtime/DTypes.def"
}

} // namespace
